/* A gdb remote stub for `hvemu run --gdb tcp::PORT|unix:PATH` (GDB manual,
 * appendix "Remote Protocol"): one connection at a time, one gdb thread per
 * CPU (thread id = CPU index + 1), registers and memory as cli/gdb_target.h
 * shows them, breakpoints, watchpoints, stepping and the --break stops of
 * cli/debug_stops.h, reverse-stepi and reverse-continue by replay
 * (cli/reverse.h), `monitor` commands (qRcmd). Without a connection the
 * machine runs and the listening socket is polled; a connection stops it. */
#ifndef HVEMU_CLI_GDBSTUB_H
#define HVEMU_CLI_GDBSTUB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/debug_stops.h"
#include "cli/gdb_target.h"
#include "cli/reverse.h"
#include "cli/rsp.h"

struct gdbstub {
	int listen_fd;             /* -1: none */
	int fd;                    /* the connection, -1: none */
	char unix_path[108];       /* unlinked at the end ("": TCP) */
	struct rsp_parser parser;
	bool noack;                /* QStartNoAckMode */
	bool swbreak, hwbreak;     /* gdb's qSupported features: stop reasons it understands */
	struct debugger *d;
	struct reverse *rev;       /* reverse execution (bs, bc), or NULL: none */
	struct gdb_layout layout;
	unsigned g_cpu;            /* Hg: registers and memory of this CPU */
	bool killed;               /* `k`: the run ends */
	const volatile sig_atomic_t *sig;  /* the run's stop signal (cli/run.c) */
	struct debug_stop last;    /* the last stop, for `?` */
	char xml[GDB_XML_MAX];
	size_t xml_len;
	uint8_t out[2 * RSP_MAX_PACKET + 8];
	uint8_t reply[RSP_MAX_PACKET];
};

/* Parse "tcp::PORT", "tcp:HOST:PORT" (HOST: localhost or 127.0.0.1; the
 * stub listens on the loopback only) or "unix:PATH"; false with a reason. */
bool gdbstub_spec_valid(const char *spec, char *err, size_t errlen);

/* Listen at spec; false with a reason. */
bool gdbstub_listen(struct gdbstub *g, const char *spec, char *err, size_t errlen);

/* Serve gdb while the machine runs, until the run ends: the status that
 * ended it (machine_run()'s). wait: wait for gdb before the first
 * instruction (--gdb-wait). */
status_t gdbstub_serve(struct gdbstub *g, struct debugger *d, bool wait, const volatile sig_atomic_t *sig);

/* The run ended with exit status: tell gdb (W packet), close everything. */
void gdbstub_finish(struct gdbstub *g, int status);

#endif
