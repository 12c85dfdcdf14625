/* Check suite for cli/key_script.c (--keys): parsing, the events and their
 * virtual times, and typing through the 8042 when the clock reaches them. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli/key_script.h"
#include "suite_runner.h"

static const struct ps2_key *named(const char *n)
{
	return ps2_key_by_name(n, strlen(n));
}

static void event_is(const struct key_script *s, unsigned i, uint64_t at_ns, const char *key, bool down)
{
	ck_assert_uint_lt(i, s->count);
	ck_assert_uint_eq(s->events[i].at_ns, at_ns);
	ck_assert_msg(s->events[i].key == named(key), "event %u: %s, expected %s", i,
		      s->events[i].key->name, key);
	ck_assert_uint_eq(s->events[i].down, down);
}

#define MS 1000000ull
#define GAP KEY_SCRIPT_GAP_NS

START_TEST(characters)
{
	struct key_script s = { 0 };
	char err[256];
	ck_assert(key_script_add(&s, "10ms:aB\n", err, sizeof(err)));
	ck_assert_uint_eq(s.count, 8);
	event_is(&s, 0, 10 * MS, "A", true);
	event_is(&s, 1, 10 * MS + GAP, "A", false);
	event_is(&s, 2, 10 * MS + 2 * GAP, "LShift", true);    /* B needs Shift */
	event_is(&s, 3, 10 * MS + 3 * GAP, "B", true);
	event_is(&s, 4, 10 * MS + 4 * GAP, "B", false);
	event_is(&s, 5, 10 * MS + 5 * GAP, "LShift", false);
	event_is(&s, 6, 10 * MS + 6 * GAP, "Enter", true);
	key_script_free(&s);
}
END_TEST

START_TEST(named_keys)
{
	struct key_script s = { 0 };
	char err[256];
	ck_assert(key_script_add(&s, "2s:<F1><+lctrl>c<-LCtrl><lt>", err, sizeof(err)));
	uint64_t t = 2000 * MS;
	event_is(&s, 0, t, "F1", true);
	event_is(&s, 1, t + GAP, "F1", false);
	event_is(&s, 2, t + 2 * GAP, "LCtrl", true);
	event_is(&s, 3, t + 3 * GAP, "C", true);
	event_is(&s, 5, t + 5 * GAP, "LCtrl", false);
	event_is(&s, 6, t + 6 * GAP, "LShift", true);            /* '<' is Shift+, */
	event_is(&s, 7, t + 7 * GAP, "Comma", true);
	ck_assert_uint_eq(s.count, 10);
	ck_assert(key_script_add(&s, "1us:x", err, sizeof(err)));
	ck_assert(key_script_add(&s, "7ns:<Esc>", err, sizeof(err)));
	ck_assert_uint_eq(s.count, 14);
	key_script_free(&s);
}
END_TEST

START_TEST(bad_scripts)
{
	static const char *const bad[] = {
		"10:abc", "ms:a", "10ms", "10ms:", "10 ms:a", "1s:<Bogus>", "1s:<Enter", "1s:\x01",
		"1s:<+lt>", "99999999999999999999ms:a", "20000000000s:a", "1h:a",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct key_script s = { 0 };
		char err[256] = "";
		ck_assert_msg(!key_script_add(&s, bad[i], err, sizeof(err)), "'%s' accepted", bad[i]);
		ck_assert_msg(err[0], "'%s': no reason given", bad[i]);
		key_script_free(&s);
	}
}
END_TEST

static uint64_t fake_now;

static uint64_t now_fn(void *ctx)
{
	return fake_now;
}

START_TEST(typed_on_time)
{
	struct key_script s = { 0 };
	char err[256];
	/* Given out of order: the events are merged by time. */
	ck_assert(key_script_add(&s, "20ms:<Up>", err, sizeof(err)));
	ck_assert(key_script_add(&s, "1ms:a", err, sizeof(err)));
	struct vclock clock;
	vclock_init(&clock, 1000000000ull);
	clock.now = now_fn;
	fake_now = 0;
	struct i8042 kbc;
	memset(&kbc, 0, sizeof(kbc));
	i8042_init(&kbc, NULL);
	key_script_start(&s, &clock, &kbc);
	ck_assert_uint_eq(vclock_next(&clock), 1 * MS);
	vclock_run_due(&clock, 1 * MS - 1);
	ck_assert(!(i8042_status(&kbc) & I8042_STR_OBF));
	fake_now = 1 * MS;
	vclock_run_due(&clock, fake_now);
	ck_assert_uint_eq(i8042_read(&kbc, 0x60), 0x1e);             /* A, translated */
	ck_assert_uint_eq(vclock_next(&clock), 1 * MS + GAP);
	fake_now = 20 * MS;
	vclock_run_due(&clock, fake_now);                            /* A up, then Up down */
	ck_assert_uint_eq(i8042_read(&kbc, 0x60), 0x9e);
	ck_assert_uint_eq(i8042_read(&kbc, 0x60), 0xe0);
	ck_assert_uint_eq(i8042_read(&kbc, 0x60), 0x48);
	ck_assert(!(i8042_status(&kbc) & I8042_STR_OBF));
	fake_now = 20 * MS + GAP;
	vclock_run_due(&clock, fake_now);
	ck_assert_uint_eq(i8042_read(&kbc, 0x60), 0xe0);
	ck_assert_uint_eq(i8042_read(&kbc, 0x60), 0xc8);
	ck_assert_uint_eq(vclock_next(&clock), VCLOCK_NEVER);
	key_script_free(&s);
}
END_TEST

static Suite *key_script_suite(void)
{
	Suite *s = suite_create("key_script");
	TCase *t = tcase_create("keys");
	tcase_add_test(t, characters);
	tcase_add_test(t, named_keys);
	tcase_add_test(t, bad_scripts);
	tcase_add_test(t, typed_on_time);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(key_script_suite());
}
