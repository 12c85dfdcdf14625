/* --keys; see cli/key_script.h. */
#include "cli/key_script.h"
#include "machine/fail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TIME before the colon: digits and a unit, in nanoseconds. */
static bool parse_time(const char *s, size_t len, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	size_t digits = 0;
	uint64_t v = 0;
	while (digits < len && s[digits] >= '0' && s[digits] <= '9') {
		unsigned d = (unsigned)(s[digits++] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (!digits)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t ulen = strlen(units[i].unit);
		if (len - digits == ulen && !memcmp(s + digits, units[i].unit, ulen)) {
			if (v > UINT64_MAX / units[i].ns)
				return false;
			*ns = v * units[i].ns;
			return true;
		}
	}
	return false;
}

static bool push(struct key_script *s, uint64_t *at, const struct ps2_key *key, bool down,
		 char *err, size_t errlen)
{
	if (s->count == KEY_SCRIPT_MAX_EVENTS)
		return fail(err, errlen, "more than %d key events", KEY_SCRIPT_MAX_EVENTS);
	if (s->count % 64 == 0) {
		struct key_event *e = realloc(s->events, (s->count + 64) * sizeof(*e));
		if (!e)
			return fail(err, errlen, "out of memory");
		s->events = e;
	}
	s->events[s->count++] = (struct key_event){ .at_ns = *at, .key = key, .down = down };
	*at += KEY_SCRIPT_GAP_NS;
	return true;
}

/* One keystroke: press and release, inside Shift when needed. */
static bool stroke(struct key_script *s, uint64_t *at, const struct ps2_key *key, bool shift,
		   char *err, size_t errlen)
{
	const struct ps2_key *lshift = ps2_key_by_name("LShift", 6);
	return (!shift || push(s, at, lshift, true, err, errlen)) && push(s, at, key, true, err, errlen) &&
	       push(s, at, key, false, err, errlen) && (!shift || push(s, at, lshift, false, err, errlen));
}

bool key_script_add(struct key_script *s, const char *spec, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	uint64_t at;
	if (!colon || !parse_time(spec, (size_t)(colon - spec), &at))
		return fail(err, errlen, "'%s' does not start with a time and a colon (e.g. 10ms:hello)", spec);
	const char *p = colon + 1;
	if (!*p)
		return fail(err, errlen, "'%s' types no keys", spec);
	while (*p) {
		if (*p != '<') {
			bool shift;
			const struct ps2_key *key = ps2_key_by_char(*p, &shift);
			if (!key)
				return fail(err, errlen, "no key types '%c' (0x%02x) on a US keyboard; name it as <Name>",
					    *p >= 0x20 && *p < 0x7f ? *p : '?', (unsigned char)*p);
			if (!stroke(s, &at, key, shift, err, errlen))
				return false;
			p++;
			continue;
		}
		const char *end = strchr(p, '>');
		if (!end)
			return fail(err, errlen, "'%s': '<' without '>' (type '<' as <lt>)", p);
		const char *name = p + 1;
		int only = 0;          /* +1: press only, -1: release only */
		if (*name == '+' || *name == '-')
			only = *name++ == '+' ? 1 : -1;
		size_t len = (size_t)(end - name);
		bool ok;
		if (!only && len == 2 && !memcmp(name, "lt", 2)) {
			bool shift;
			const struct ps2_key *less = ps2_key_by_char('<', &shift);
			ok = stroke(s, &at, less, shift, err, errlen);
		} else {
			const struct ps2_key *key = ps2_key_by_name(name, len);
			if (!key)
				return fail(err, errlen, "unknown key <%.*s>", (int)len, name);
			ok = only ? push(s, &at, key, only > 0, err, errlen) : stroke(s, &at, key, false, err, errlen);
		}
		if (!ok)
			return false;
		p = end + 1;
	}
	return true;
}

static uint64_t event_tick(const struct key_script *s, unsigned i)
{
	return vclock_ticks_from(s->clock, s->events[i].at_ns, 1000000000ull);
}

static void type_due(void *opaque, uint64_t now)
{
	struct key_script *s = opaque;
	while (s->next < s->count && event_tick(s, s->next) <= now) {
		i8042_key(s->kbc, s->events[s->next].key, s->events[s->next].down);
		s->next++;
	}
	if (s->next < s->count)
		vtimer_arm(s->clock, &s->timer, event_tick(s, s->next));
}

void key_script_start(struct key_script *s, struct vclock *clock, struct i8042 *kbc)
{
	/* Insertion sort: stable, so events at equal times keep their order. */
	for (unsigned i = 1; i < s->count; i++) {
		struct key_event e = s->events[i];
		unsigned j = i;
		while (j > 0 && s->events[j - 1].at_ns > e.at_ns) {
			s->events[j] = s->events[j - 1];
			j--;
		}
		s->events[j] = e;
	}
	s->clock = clock;
	s->kbc = kbc;
	s->next = 0;
	s->timer = (struct vtimer){ .fire = type_due, .opaque = s, .name = "--keys" };
	if (s->count)
		vtimer_arm(clock, &s->timer, event_tick(s, 0));
}

void key_script_free(struct key_script *s)
{
	if (s->clock && s->timer.armed)
		vtimer_cancel(s->clock, &s->timer);
	free(s->events);
	memset(s, 0, sizeof(*s));
}
