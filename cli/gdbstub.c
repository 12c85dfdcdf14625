/* The gdb remote stub; see cli/gdbstub.h. Section names in comments are
 * those of the GDB manual's appendix "Remote Protocol". */
#include "cli/gdbstub.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/gdb_monitor.h"

static const char hexd[] = "0123456789abcdef";

/* --- the connection --- */

static void close_connection(struct gdbstub *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

static bool write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* One byte from the connection; -1 at its end. */
static int read_byte(struct gdbstub *g)
{
	uint8_t c;
	for (;;) {
		ssize_t r = recv(g->fd, &c, 1, 0);
		if (r == 1)
			return c;
		if (r < 0 && errno == EINTR)
			continue;
		return -1;
	}
}

/* "Packet Acknowledgment": until QStartNoAckMode each packet waits for `+`,
 * and `-` asks for it again. False: the connection is gone. */
static bool send_packet(struct gdbstub *g, const char *data, size_t len)
{
	size_t n = rsp_frame((const uint8_t *)data, len, g->out, sizeof(g->out));
	if (!n)
		return false;
	for (unsigned tries = 0; tries < 16; tries++) {
		if (!write_all(g->fd, g->out, n))
			return false;
		if (g->noack)
			return true;
		int c;
		do
			c = read_byte(g);
		while (c >= 0 && c != '+' && c != '-');
		if (c < 0)
			return false;
		if (c == '+')
			return true;
	}
	return false;
}

static bool send_str(struct gdbstub *g, const char *s)
{
	return send_packet(g, s, strlen(s));
}

/* --- listening --- */

static bool parse_port(const char *s, unsigned *port)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || v == 0 || v > 65535)
		return false;
	*port = (unsigned)v;
	return true;
}

static const char *tcp_port_part(const char *spec)
{
	if (!strncmp(spec, "tcp::", 5))
		return spec + 5;
	if (!strncmp(spec, "tcp:localhost:", 14))
		return spec + 14;
	if (!strncmp(spec, "tcp:127.0.0.1:", 14))
		return spec + 14;
	return NULL;
}

bool gdbstub_spec_valid(const char *spec, char *err, size_t errlen)
{
	unsigned port;
	const char *p = tcp_port_part(spec);
	if (p && parse_port(p, &port))
		return true;
	if (!strncmp(spec, "unix:", 5) && spec[5] && strlen(spec + 5) < sizeof(((struct sockaddr_un *)0)->sun_path))
		return true;
	snprintf(err, errlen, "bad --gdb '%s' (tcp::PORT with PORT 1-65535, or unix:PATH)", spec);
	return false;
}

bool gdbstub_listen(struct gdbstub *g, const char *spec, char *err, size_t errlen)
{
	memset(g, 0, offsetof(struct gdbstub, xml));
	g->listen_fd = g->fd = -1;
	if (!gdbstub_spec_valid(spec, err, errlen))
		return false;
	int fd;
	const char *p = tcp_port_part(spec);
	if (p) {
		unsigned port = 0;
		(void)parse_port(p, &port);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int one = 1;
		if (fd >= 0)
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* The loopback only: the stub reads and writes the machine. */
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0) {
			snprintf(err, errlen, "--gdb %s: cannot listen on 127.0.0.1:%u: %s", spec, port, strerror(errno));
			if (fd >= 0)
				close(fd);
			return false;
		}
	} else {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", spec + 5);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0) {
			snprintf(err, errlen, "--gdb %s: cannot listen: %s", spec, strerror(errno));
			if (fd >= 0)
				close(fd);
			return false;
		}
		snprintf(g->unix_path, sizeof(g->unix_path), "%s", spec + 5);
	}
	g->listen_fd = fd;
	return true;
}

/* Take a connection (waiting for it if block); true if there is one. */
static bool accept_connection(struct gdbstub *g, bool block)
{
	if (g->fd >= 0)
		return true;
	struct pollfd pfd = { .fd = g->listen_fd, .events = POLLIN };
	int r;
	/* A stop signal (Ctrl-C in hvemu's terminal) ends the wait. */
	do
		r = poll(&pfd, 1, block ? -1 : 0);
	while (r < 0 && errno == EINTR && block && !*g->sig);
	if (r <= 0)
		return false;
	int fd = accept(g->listen_fd, NULL, NULL);
	if (fd < 0)
		return false;
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));   /* fails harmlessly on AF_UNIX */
	g->fd = fd;
	g->noack = false;
	g->swbreak = g->hwbreak = false;
	g->g_cpu = 0;
	rsp_parser_init(&g->parser);
	return true;
}

/* --- replies --- */

static size_t put_hex(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hexd[p[i] >> 4];
		out[2 * i + 1] = hexd[p[i] & 15];
	}
	return 2 * n;
}

/* Decode n bytes of hex; false on a bad digit. */
static bool get_hex(const char *s, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = rsp_hex_digit(s[2 * i]), lo = hi < 0 ? -1 : rsp_hex_digit(s[2 * i + 1]);
		if (lo < 0)
			return false;
		p[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

static struct cpu *g_cpu(struct gdbstub *g)
{
	return g->d->m->smp.cpu[g->g_cpu];
}

/* "Stop Reply Packets": T05 with the thread and, when gdb said it
 * understands them (qSupported swbreak+/hwbreak+), the reason; T02 for an
 * interrupt (SIGINT). */
static void stop_reply(struct gdbstub *g, const struct debug_stop *why, char *buf, size_t len)
{
	int sig = why->kind == STOP_INTERRUPT ? 2 : 5;
	int n = snprintf(buf, len, "T%02xthread:%x;", sig, why->cpu + 1);
	if (why->kind == STOP_HISTORY_START)
		snprintf(buf + n, len - (size_t)n, "replaylog:begin;");
	else if (why->kind == STOP_BREAKPOINT && (why->hardware ? g->hwbreak : g->swbreak))
		snprintf(buf + n, len - (size_t)n, why->hardware ? "hwbreak:;" : "swbreak:;");
	else if (why->kind == STOP_WATCH)
		snprintf(buf + n, len - (size_t)n, "%s:%llx;",
			 why->watch_kinds == ACCESS_WATCH_WRITE ? "watch"
			 : why->watch_kinds == ACCESS_WATCH_READ ? "rwatch" : "awatch",
			 (unsigned long long)why->addr);
}

/* Console output ("O" packets, allowed while the target runs: "Stop Reply
 * Packets"), for the stops gdb has no reason word for. */
static bool console(struct gdbstub *g, const char *text)
{
	char buf[1024];
	size_t n = strlen(text);
	if (n > (sizeof(buf) - 2) / 2)
		n = (sizeof(buf) - 2) / 2;
	buf[0] = 'O';
	n = 1 + put_hex(buf + 1, (const uint8_t *)text, n);
	return send_packet(g, buf, n);
}

static bool report_stop(struct gdbstub *g, const struct debug_stop *why)
{
	g->last = *why;
	g->g_cpu = why->cpu;
	if (why->kind == STOP_VMEXIT || why->kind == STOP_EXCEPTION || why->kind == STOP_ICOUNT) {
		char what[300], line[400];
		debug_stop_describe(g->d, why, what, sizeof(what));
		snprintf(line, sizeof(line), "hvemu: break: %s; CPU %u in %s\n", what, why->cpu,
			 debug_world(g->d->m->smp.cpu[why->cpu]));
		if (!console(g, line))
			return false;
	}
	char buf[128];
	stop_reply(g, why, buf, sizeof(buf));
	return send_str(g, buf);
}

/* --- commands --- */

/* What a command asks of the session. */
enum action { A_NONE, A_CONTINUE, A_STEP, A_REVERSE_STEP, A_REVERSE_CONTINUE, A_DETACH, A_KILL, A_GONE };

/* addr,len from s; len capped so the reply fits a packet. */
static bool parse_addr_len(const char **s, uint64_t *addr, uint64_t *len)
{
	if (!rsp_parse_hex(s, addr) || **s != ',')
		return false;
	(*s)++;
	return rsp_parse_hex(s, len);
}

static enum action cmd_registers(struct gdbstub *g, const char *pkt, char *r, size_t cap)
{
	struct cpu *cpu = g_cpu(g);
	uint8_t v[16];
	if (pkt[0] == 'g') {
		size_t n = 0;
		for (unsigned i = 0; i < g->layout.n_regs; i++) {
			size_t b = gdb_reg_read(&g->layout, cpu, i, v);
			if (n + 2 * b >= cap)
				break;
			n += put_hex(r + n, v, b);
		}
		r[n] = 0;
		return A_NONE;
	}
	if (pkt[0] == 'G') {
		/* Writes what can be written; the rest is left as it is. */
		const char *p = pkt + 1;
		for (unsigned i = 0; i < g->layout.n_regs; i++) {
			size_t b = gdb_reg_read(&g->layout, cpu, i, v);
			if (strlen(p) < 2 * b || !get_hex(p, v, b)) {
				strcpy(r, "E01");
				return A_NONE;
			}
			if (gdb_reg_writable(&g->layout, i))
				(void)gdb_reg_write(&g->layout, cpu, i, v, b);
			p += 2 * b;
		}
		strcpy(r, "OK");
		return A_NONE;
	}
	uint64_t n;
	const char *p = pkt + 1;
	if (!rsp_parse_hex(&p, &n) || n >= g->layout.n_regs) {
		strcpy(r, "E01");
		return A_NONE;
	}
	size_t b = gdb_reg_read(&g->layout, cpu, (unsigned)n, v);
	if (pkt[0] == 'p') {
		r[put_hex(r, v, b)] = 0;
		return A_NONE;
	}
	if (*p != '=' || strlen(p + 1) != 2 * b || !get_hex(p + 1, v, b) ||
	    !gdb_reg_write(&g->layout, cpu, (unsigned)n, v, b))
		strcpy(r, "E01");
	else
		strcpy(r, "OK");
	return A_NONE;
}

static void cmd_memory(struct gdbstub *g, char *pkt, size_t pkt_len, char *r, size_t cap)
{
	uint64_t addr, len;
	const char *p = pkt + 1;
	static const size_t max_read = (RSP_MAX_PACKET - 8) / 2;
	if (!parse_addr_len(&p, &addr, &len)) {
		strcpy(r, "E01");
		return;
	}
	if (pkt[0] == 'm') {
		uint8_t buf[(RSP_MAX_PACKET - 8) / 2];
		if (len > max_read)
			len = max_read;   /* "m": fewer bytes than asked is a valid answer */
		size_t got = gdb_mem_read(g->d->m, g_cpu(g), addr, buf, (size_t)len);
		if (!got && len) {
			strcpy(r, "E01");
			return;
		}
		r[put_hex(r, buf, got)] = 0;
		return;
	}
	if (*p != ':' || len > max_read) {
		strcpy(r, "E01");
		return;
	}
	p++;
	uint8_t buf[(RSP_MAX_PACKET - 8) / 2];
	if (pkt[0] == 'M') {
		if (strlen(p) != 2 * len || !get_hex(p, buf, (size_t)len)) {
			strcpy(r, "E01");
			return;
		}
	} else {
		/* "X": binary data, escaped ("Binary Data"). */
		size_t off = (size_t)(p - pkt);
		size_t n = rsp_unescape((uint8_t *)pkt + off, pkt_len - off);
		if (n != len) {
			strcpy(r, "E01");
			return;
		}
		memcpy(buf, pkt + off, n);
	}
	size_t put = gdb_mem_write(g->d->m, g_cpu(g), addr, buf, (size_t)len);
	strcpy(r, put == len ? "OK" : "E01");
}

/* Z/z type,addr,kind ("Packets": Z0 software and Z1 hardware breakpoints,
 * Z2 write, Z3 read and Z4 access watchpoints of kind (1-8) bytes). */
static void cmd_point(struct gdbstub *g, const char *pkt, char *r)
{
	bool insert = pkt[0] == 'Z';
	uint64_t type, addr, kind;
	const char *p = pkt + 1;
	if (!rsp_parse_hex(&p, &type) || *p++ != ',' || !parse_addr_len(&p, &addr, &kind)) {
		strcpy(r, "E01");
		return;
	}
	bool ok;
	switch (type) {
	case 0:
	case 1:
		ok = insert ? debugger_add_break(g->d, addr, type == 1) : debugger_remove_break(g->d, addr);
		break;
	case 2:
	case 3:
	case 4: {
		unsigned kinds = type == 2 ? ACCESS_WATCH_WRITE
				 : type == 3 ? ACCESS_WATCH_READ : ACCESS_WATCH_READ | ACCESS_WATCH_WRITE;
		unsigned len = (unsigned)(kind > DEBUG_WATCH_MAX ? 0 : kind);
		ok = insert ? debugger_add_watch(g->d, addr, len, kinds) : debugger_remove_watch(g->d, addr, len, kinds);
		break;
	}
	default:
		r[0] = 0;
		return;
	}
	strcpy(r, ok || !insert ? "OK" : "E0e");
}

/* A thread id of H/T/vCont: -1 (all), 0 (any) or CPU index + 1. */
static bool thread_of(struct gdbstub *g, const char *s, int *cpu)
{
	if (!strcmp(s, "-1") || !strcmp(s, "0")) {
		*cpu = -1;
		return true;
	}
	uint64_t t;
	if (!rsp_parse_hex(&s, &t) || *s || t == 0 || t > g->d->m->smp.n)
		return false;
	*cpu = (int)t - 1;
	return true;
}

/* "vCont;ACTION[:THREAD];...": a step for any thread steps the machine
 * (its CPUs take turns; the thread asked for becomes current for gdb). */
static enum action cmd_vcont(struct gdbstub *g, const char *pkt, char *r)
{
	if (!strcmp(pkt, "vCont?")) {
		strcpy(r, "vCont;c;C;s;S");
		return A_NONE;
	}
	enum action a = A_NONE;
	for (const char *p = strchr(pkt, ';'); p; p = strchr(p + 1, ';')) {
		char act = p[1];
		if (act == 's' || act == 'S')
			a = A_STEP;
		else if ((act == 'c' || act == 'C') && a == A_NONE)
			a = A_CONTINUE;
		else if (act != 'c' && act != 'C') {
			strcpy(r, "E01");
			return A_NONE;
		}
	}
	if (a == A_NONE)
		strcpy(r, "E01");
	return a;
}

static enum action cmd_query(struct gdbstub *g, char *pkt, char *r, size_t cap)
{
	if (!strncmp(pkt, "qSupported", 10)) {
		g->swbreak = strstr(pkt, "swbreak+") != NULL;
		g->hwbreak = strstr(pkt, "hwbreak+") != NULL;
		snprintf(r, cap, "PacketSize=%x;qXfer:features:read+;vContSupported+;QStartNoAckMode+;swbreak+;hwbreak+%s",
			 RSP_MAX_PACKET, g->rev && g->rev->interval ? ";ReverseStep+;ReverseContinue+" : "");
	} else if (!strncmp(pkt, "qXfer:features:read:target.xml:", 31)) {
		/* "qXfer target description read": m/l + a slice, escaped. */
		uint64_t off, len;
		const char *p = pkt + 31;
		if (!parse_addr_len(&p, &off, &len) || *p) {
			strcpy(r, "E01");
			return A_NONE;
		}
		if (off > g->xml_len)
			off = g->xml_len;
		if (len > (cap - 2) / 2)
			len = (cap - 2) / 2;
		size_t n = g->xml_len - off < len ? g->xml_len - off : (size_t)len;
		r[0] = off + n < g->xml_len ? 'm' : 'l';
		size_t e = rsp_escape((const uint8_t *)g->xml + off, n, (uint8_t *)r + 1, cap - 2);
		r[1 + (e == SIZE_MAX ? 0 : e)] = 0;
	} else if (!strncmp(pkt, "qXfer:features:read:", 20)) {
		strcpy(r, "E00");
	} else if (!strcmp(pkt, "qAttached")) {
		strcpy(r, "1");
	} else if (!strcmp(pkt, "qC")) {
		snprintf(r, cap, "QC%x", g->g_cpu + 1);
	} else if (!strcmp(pkt, "qfThreadInfo")) {
		size_t n = (size_t)snprintf(r, cap, "m");
		for (unsigned i = 0; i < g->d->m->smp.n; i++)
			n += (size_t)snprintf(r + n, cap - n, "%s%x", i ? "," : "", i + 1);
	} else if (!strcmp(pkt, "qsThreadInfo")) {
		strcpy(r, "l");
	} else if (!strncmp(pkt, "qThreadExtraInfo,", 17)) {
		int c;
		if (!thread_of(g, pkt + 17, &c) || c < 0) {
			strcpy(r, "E01");
			return A_NONE;
		}
		struct cpu *cpu = g->d->m->smp.cpu[c];
		char text[128];
		snprintf(text, sizeof(text), "CPU %d, %s mode, %s%s", c, gdb_mode_name(cpu), debug_world(cpu),
			 cpu->halted ? ", halted" : "");
		r[put_hex(r, (const uint8_t *)text, strlen(text))] = 0;
	} else if (!strncmp(pkt, "qRcmd,", 6)) {
		/* "qRcmd,command": the command in hex; its output as console
		 * output ("O" packets), then OK. */
		char cmd[512], out[16384];
		size_t n = strlen(pkt + 6) / 2;
		if (n >= sizeof(cmd) || !get_hex(pkt + 6, (uint8_t *)cmd, n)) {
			strcpy(r, "E01");
			return A_NONE;
		}
		cmd[n] = 0;
		if (!strcmp(cmd, "info reverse"))
			reverse_describe(g->rev, out, sizeof(out));
		else
			gdb_monitor(g->d, g->g_cpu, cmd, out, sizeof(out));
		size_t o = strlen(out);
		for (size_t at = 0; at < o; at += 400) {
			char piece[401];
			snprintf(piece, sizeof(piece), "%.400s", out + at);
			if (!console(g, piece))
				return A_GONE;
		}
		strcpy(r, "OK");
	} else if (!strcmp(pkt, "QStartNoAckMode")) {
		strcpy(r, "OK");
	} else {
		r[0] = 0;  /* "an empty response means the command is not supported" */
	}
	return A_NONE;
}

static enum action handle(struct gdbstub *g, char *pkt, size_t len)
{
	char *r = (char *)g->reply;
	size_t cap = sizeof(g->reply);
	enum action a = A_NONE;
	r[0] = 0;
	switch (pkt[0]) {
	case '?':
		stop_reply(g, &g->last, r, cap);
		break;
	case 'g': case 'G': case 'p': case 'P':
		a = cmd_registers(g, pkt, r, cap);
		if ((pkt[0] == 'G' || pkt[0] == 'P') && g->rev)
			reverse_forget_future(g->rev);   /* a new future from here */
		break;
	case 'm': case 'M': case 'X':
		cmd_memory(g, pkt, len, r, cap);
		if (pkt[0] != 'm' && g->rev)
			reverse_forget_future(g->rev);
		break;
	case 'b':
		/* "bc", "bs": backward (cli/reverse.h); without it, not supported. */
		if (g->rev && g->rev->interval && (!strcmp(pkt, "bs") || !strcmp(pkt, "bc")))
			return pkt[1] == 's' ? A_REVERSE_STEP : A_REVERSE_CONTINUE;
		break;
	case 'Z': case 'z':
		cmd_point(g, pkt, r);
		break;
	case 'c': case 'C':
		return A_CONTINUE;  /* an address to resume at is not supported (ignored) */
	case 's': case 'S':
		return A_STEP;
	case 'v':
		if (!strncmp(pkt, "vCont", 5)) {
			a = cmd_vcont(g, pkt, r);
			if (a != A_NONE)
				return a;
		} else if (!strncmp(pkt, "vKill", 5)) {
			send_str(g, "OK");
			return A_KILL;
		}
		break;
	case 'H': {
		int c;
		if (pkt[1] && thread_of(g, pkt + 2, &c)) {
			if (pkt[1] == 'g' && c >= 0)
				g->g_cpu = (unsigned)c;
			strcpy(r, "OK");
		} else {
			strcpy(r, "E01");
		}
		break;
	}
	case 'T': {
		int c;
		strcpy(r, thread_of(g, pkt + 1, &c) && c >= 0 ? "OK" : "E01");
		break;
	}
	case 'D':
		send_str(g, "OK");
		return A_DETACH;
	case 'k':
		return A_KILL;     /* "k": no reply */
	case 'q': case 'Q':
		a = cmd_query(g, pkt, r, cap);
		if (!strcmp(pkt, "QStartNoAckMode")) {
			bool ok = send_str(g, r);
			g->noack = true;
			return ok ? A_NONE : A_GONE;
		}
		break;
	default:
		break;
	}
	return send_str(g, r) ? a : A_GONE;
}

/* Read and answer packets until one resumes the machine (or the session
 * ends). */
static enum action serve_stopped(struct gdbstub *g)
{
	for (;;) {
		int c = read_byte(g);
		if (c < 0)
			return A_GONE;
		enum rsp_event e = rsp_parser_feed(&g->parser, (uint8_t)c);
		if (e == RSP_BAD_PACKET) {
			if (!g->noack && !write_all(g->fd, (const uint8_t *)"-", 1))
				return A_GONE;
			continue;
		}
		if (e != RSP_PACKET)
			continue;          /* acks, and an interrupt while stopped: nothing to do */
		if (!g->noack && !write_all(g->fd, (const uint8_t *)"+", 1))
			return A_GONE;
		g->parser.data[g->parser.len] = 0;   /* len <= RSP_MAX_PACKET: there is room */
		if (g->parser.len == 0)
			continue;
		/* Packets are text here except X's data; a NUL inside ends it. */
		char *pkt = (char *)g->parser.data;
		enum action a = handle(g, pkt, g->parser.len);
		if (a != A_NONE)
			return a;
	}
}

/* The poll while the machine runs: an interrupt byte from gdb, a
 * connection gone, a new connection. */
static bool poll_connection(void *ctx)
{
	struct gdbstub *g = ctx;
	if (g->fd < 0)
		return accept_connection(g, false);
	struct pollfd pfd = { .fd = g->fd, .events = POLLIN };
	while (poll(&pfd, 1, 0) > 0) {
		uint8_t c;
		ssize_t r = recv(g->fd, &c, 1, 0);
		if (r <= 0) {
			/* gdb went away while the machine ran: it runs on. */
			close_connection(g);
			debugger_clear_points(g->d);
			return false;
		}
		if (rsp_parser_feed(&g->parser, c) == RSP_INTERRUPT)
			return true;   /* "Interrupts": a 0x03 byte */
	}
	return false;
}

status_t gdbstub_serve(struct gdbstub *g, struct debugger *d, bool wait, const volatile sig_atomic_t *sig)
{
	g->d = d;
	g->sig = sig;
	gdb_layout_for(&g->layout, &d->m->cpu);
	g->xml_len = gdb_layout_xml(&g->layout, g->xml, sizeof(g->xml));
	g->last = (struct debug_stop){ .kind = STOP_INTERRUPT, .cpu = 0 };
	bool running = true;
	if (wait) {
		fprintf(stderr, "hvemu: waiting for gdb on %s\n", g->unix_path[0] ? g->unix_path : "the --gdb port");
		if (!accept_connection(g, true))
			return ST_STOP;    /* a signal: run_status() reports it */
		/* Stopped before the first instruction: gdb's `?` gets T05. */
		g->last.kind = STOP_STEP;
		running = false;
	}
	bool step = false;
	for (;;) {
		if (running) {
			struct debug_stop why;
			status_t end;
			if (!debugger_run(d, step, poll_connection, g, sig, &why, &end))
				return end;
			/* A --break stop with nobody connected waits for gdb. */
			if (g->fd < 0 && !accept_connection(g, true))
				return ST_STOP;
			if (!report_stop(g, &why)) {
				close_connection(g);
				debugger_clear_points(d);
				continue;
			}
			running = false;
		}
		enum action a = serve_stopped(g);
		switch (a) {
		case A_CONTINUE:
		case A_STEP:
			step = a == A_STEP;
			running = true;
			break;
		case A_DETACH:
		case A_GONE:
			close_connection(g);
			debugger_clear_points(d);
			step = false;
			running = true;
			break;
		case A_REVERSE_STEP:
		case A_REVERSE_CONTINUE: {
			struct debug_stop why;
			if (a == A_REVERSE_STEP)
				(void)reverse_step(g->rev, &why);
			else
				(void)reverse_continue(g->rev, &why);
			if (!report_stop(g, &why)) {
				close_connection(g);
				debugger_clear_points(d);
				step = false;
				running = true;
			}
			break;
		}
		case A_KILL:
			g->killed = true;
			close_connection(g);
			return ST_STOP;
		case A_NONE:
			break;
		}
	}
}

void gdbstub_finish(struct gdbstub *g, int status)
{
	if (g->fd >= 0 && !g->killed) {
		/* "Stop Reply Packets": W AA, the process exited with status AA. */
		char buf[8];
		snprintf(buf, sizeof(buf), "W%02x", status & 0xff);
		send_str(g, buf);
	}
	close_connection(g);
	if (g->listen_fd >= 0)
		close(g->listen_fd);
	g->listen_fd = -1;
	if (g->unix_path[0])
		unlink(g->unix_path);
	g->unix_path[0] = 0;
}
