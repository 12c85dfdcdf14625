/* svm_exit_diff's engines: the batch file a runner guest replays
 * (fuzz/svm_exit_batch.h), hvemu and QEMU running it with a wall-clock
 * backstop, their output read back into the items; and the model in
 * process. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/svm_exit_batch.h"
#include "fuzz/svm_exit_diff.h"

/* ---- running an engine ---- */

/* Run argv with its stdout and stderr to log, for at most seconds, and no
 * longer than stall seconds without the file progress growing (the hang
 * guard's wall-clock backstop); the exit status, or -1 if it had to be
 * killed or could not start. */
static int run_command(char *const argv[], const char *log, double seconds, const char *progress, double stall)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		FILE *f = freopen(log, "w", stdout);
		if (!f || dup2(fileno(stdout), 2) < 0)
			_exit(126);
		if (!freopen("/dev/null", "r", stdin))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	double t0 = now_seconds(), deadline = t0 + seconds, grew = t0;
	off_t size = -1;
	for (;;) {
		int status;
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (r < 0)
			return -1;
		double t = now_seconds();
		struct stat st;
		if (progress && stat(progress, &st) == 0 && st.st_size != size) {
			size = st.st_size;
			grew = t;
		}
		if (t > deadline || (progress && t - grew > stall)) {
			/* SIGTERM first: hvemu then stops where it is and
			 * flushes what it buffered of the output. */
			kill(pid, SIGTERM);
			for (int k = 0; k < 1000 && waitpid(pid, &status, WNOHANG) == 0; k++) {
				struct timespec nap = { 0, 2000000 };
				nanosleep(&nap, NULL);
			}
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		struct timespec nap = { 0, 2000000 };
		nanosleep(&nap, NULL);
	}
}

/* A runner that sends nothing for this long is stuck in a guest the hang
 * guard did not stop (an L2 that disabled the local APIC through
 * IA32_APIC_BASE, say); its batch resumes after that input. */
#define STALL_SECONDS 3.0

static const char *run_tag = "run";       /* "run", "confirm" or "probe": the files' prefix */

static void path_in_work(char *buf, size_t n, const char *engine, const char *what)
{
	snprintf(buf, n, "%s/%s-%s-%s", diff_opt.work, run_tag, engine, what);
}

/* Run the batch file under engine e; the output file's path in out. */
static int run_engine(enum engine e, const char *batch, char *out, size_t out_n, double seconds)
{
	char log[512], mod[600], dc[600], ser[600];
	path_in_work(out, out_n, engine_name[e], "out.bin");
	path_in_work(log, sizeof(log), engine_name[e], "log.txt");
	unlink(out);
	if (e == E_QEMU) {
		snprintf(dc, sizeof(dc), "file,id=dc,path=%s", out);
		char *argv[] = { (char *)diff_opt.qemu, "-machine", "pc", "-cpu", (char *)diff_opt.qemu_cpu, "-m", "256",
				 "-nodefaults", "-display", "none", "-no-reboot", "-kernel", (char *)diff_opt.runner,
				 "-initrd", (char *)batch, "-chardev", dc, "-device",
				 "isa-debugcon,iobase=0x402,chardev=dc", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
				 NULL };
		return run_command(argv, log, seconds, out, STALL_SECONDS);
	}
	snprintf(mod, sizeof(mod), "%s", batch);
	snprintf(dc, sizeof(dc), "file:%s", out);
	path_in_work(ser, sizeof(ser), engine_name[e], "serial.txt");
	char serial[620];
	snprintf(serial, sizeof(serial), "file:%s", ser);
	char *argv[] = { (char *)diff_opt.hvemu, "run", "--kernel", (char *)diff_opt.runner, "--module", mod, "--mem", "256M",
			 "--cpu", (char *)diff_opt.hvemu_cpu, "--firmware", "none", "--debugcon", dc, "--serial", serial,
			 "--no-reboot", "--max-insns", "100000000000", NULL };
	return run_command(argv, log, seconds, out, STALL_SECONDS);
}

/* ---- the batch file ---- */

struct blob {
	uint8_t *p;
	size_t len, cap;
};

static void blob_put(struct blob *b, const void *src, size_t n)
{
	if (b->len + n + 4 > b->cap) {
		b->cap = (b->len + n + 4) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			fprintf(stderr, "svm_exit_diff: out of memory\n");
			exit(1);
		}
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
	while (b->len % 4)
		b->p[b->len++] = 0;
}

bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* The writes of b at pa: each run of chunks that are not all zero (the
 * runner's world holds zeros there, as the snapshot does). */
static uint32_t put_writes(struct blob *o, uint32_t pa, const uint8_t *b, size_t n, size_t chunk)
{
	uint32_t count = 0;
	for (size_t at = 0; at < n;) {
		size_t c = chunk < n - at ? chunk : n - at;
		if (all_zero(b + at, c)) {
			at += c;
			continue;
		}
		size_t start = at;
		while (at < n) {
			c = chunk < n - at ? chunk : n - at;
			if (all_zero(b + at, c))
				break;
			at += c;
		}
		struct sxb_write w = { pa + (uint32_t)start, (uint32_t)(at - start) };
		blob_put(o, &w, sizeof(w));
		blob_put(o, b + start, at - start);
		count++;
	}
	return count;
}

/* The L2 world's pages: every non-zero page of the snapshot below 2 MiB. */
static void put_world(struct blob *o, uint32_t *n_pages)
{
	*n_pages = 0;
	for (uint32_t pa = 0; pa < SXB_WORLD_TOP && pa < RAM_SIZE; pa += SXB_PAGE) {
		if (all_zero(model.snap.ram + pa, SXB_PAGE))
			continue;
		blob_put(o, &pa, 4);
		blob_put(o, model.snap.ram + pa, SXB_PAGE);
		(*n_pages)++;
	}
}

static bool write_batch(const char *path, struct item **items, unsigned n, uint32_t timeout)
{
	static struct blob o;
	o.len = 0;
	struct sxb_header h = { .magic = SXB_MAGIC, .n_inputs = n, .timeout = timeout, .check_every = 64 };
	blob_put(&o, &h, sizeof(h));
	put_world(&o, &h.n_pages);
	for (unsigned i = 0; i < n; i++) {
		struct item *it = items[i];
		size_t at = o.len;
		struct sxb_input in = { .index = i };
		blob_put(&o, &in, sizeof(in));
		for (uint32_t p = 0; p < RAM_SIZE / 4096; p++) {
			if ((it->dirty[p / 64] >> (p % 64)) & 1) {
				uint32_t pa = p * 4096;
				blob_put(&o, &pa, 4);
				in.n_dirty++;
			}
		}
		in.n_writes += put_writes(&o, VMCB_PA, (const uint8_t *)&it->e.vmcb, sizeof(it->e.vmcb), 32);
		in.n_writes += put_writes(&o, L2_CODE, it->e.as.buf, it->e.as.len, it->e.as.len);
		in.n_writes += put_writes(&o, IOPM, it->e.iopm_bits, sizeof(it->e.iopm_bits), 8);
		in.n_writes += put_writes(&o, MSRPM, it->e.msrpm_bits, sizeof(it->e.msrpm_bits), 8);
		in.size = (uint32_t)(o.len - at);
		memcpy(o.p + at, &in, sizeof(in));
	}
	memcpy(o.p, &h, sizeof(h));
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(o.p, 1, o.len, f) == o.len;
	return fclose(f) == 0 && ok;
}

/* ---- the engine's output ---- */

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	uint8_t *p = malloc(cap);
	while (p) {
		n += fread(p + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		p = realloc(p, cap);
	}
	fclose(f);
	*len = n;
	return p;
}

static void ocpu_of(struct oracle_cpu *c, const struct sxb_out_header *h)
{
	*c = (struct oracle_cpu){ .id.cpuid1_ecx = h->cpuid1_ecx, .id.cpuid1_edx = h->cpuid1_edx,
				  .id.cpuid7_ebx = h->cpuid7_ebx, .id.cpuid7_ecx = h->cpuid7_ecx,
				  .id.cpuid81_ecx = h->cpuid81_ecx, .id.cpuid81_edx = h->cpuid81_edx,
				  .svm_edx = h->svm_edx, .id.maxphyaddr = h->cpuid88_eax & 0xff };
}

/* Read engine e's output into the items; the records read, or -1 without
 * a header. strays: pages the runner's check found. */
static int read_output(enum engine e, const char *path, struct item **items, unsigned n, unsigned *strays)
{
	size_t len;
	uint8_t *p = read_file(path, &len);
	if (!p || len < sizeof(struct sxb_out_header)) {
		free(p);
		return -1;
	}
	/* The firmware's log may come first on the same port (SeaBIOS
	 * writes to 402h under QEMU): the output starts at its magic. */
	struct sxb_out_header h;
	size_t start = 0;
	for (;; start++) {
		if (start + sizeof(h) > len) {
			free(p);
			return -1;
		}
		memcpy(&h, p + start, sizeof(h));
		if (h.magic == SXB_OUT_MAGIC)
			break;
	}
	ocpu_of(&ocpu[e], &h);
	int records = 0;
	for (size_t at = start + sizeof(h); at + 4 <= len;) {
		uint32_t magic;
		memcpy(&magic, p + at, 4);
		if (magic == SXB_RECORD_MAGIC && at + sizeof(struct sxb_record) <= len) {
			struct sxb_record r;
			memcpy(&r, p + at, sizeof(r));
			at += sizeof(r);
			if (r.index >= n)
				continue;
			struct item *it = items[r.index];
			struct vmcb *v = &it->after[e];
			*v = it->e.vmcb;
			memcpy(v, r.control, SXR_CONTROL_BYTES);
			memcpy((uint8_t *)v + SXR_SAVE_OFFSET, r.save, SXR_SAVE_BYTES);
			it->have[e] = true;
			it->halted[e] = (r.flags & SXR_HALTED) != 0;
			it->hung[e] = (r.flags & SXR_INTR) && !(r.flags & SXR_HALTED);
			it->retried[e] = (r.flags & SXR_RETRIED) != 0;
			/* The runner intercepts shutdown (the inputs never do):
			 * the L2's triple fault, which under the fuzzer's L1
			 * ends the run. */
			it->shutdown[e] = v->control.exitcode == 0x7f;
			records++;
		} else if (magic == SXB_STRAY_MAGIC && at + sizeof(struct sxb_stray) <= len) {
			struct sxb_stray s;
			memcpy(&s, p + at, sizeof(s));
			at += sizeof(s);
			if (s.first_index == SXB_STRAY_READ_ONLY) {
				if (diff_opt.verbose)
					fprintf(stderr, "svm_exit_diff: %s: page %#x is not RAM (its pristine bytes do not "
						"stay)\n", engine_name[e], s.pa);
				continue;
			}
			if (diff_opt.verbose)
				fprintf(stderr, "svm_exit_diff: %s: page %#x written outside the restores (inputs %u-%u)\n",
					engine_name[e], s.pa, s.first_index, s.last_index);
			(*strays)++;
		} else {
			break;
		}
	}
	free(p);
	return records;
}

/* ---- the model, in process ---- */

void run_model(struct item *it)
{
	snapshot_restore(&model.snap);
	svm_exit_decode(&it->e, it->data, it->len);
	svm_exit_load(&model, &it->e);
	for (unsigned e = 0; e < E_COUNT; e++) {
		if (!diff_opt.on[e])
			continue;
		struct oracle_input in = svm_exit_oracle_input(&model, &it->e);
		in.cpu = &ocpu[e];
		oracle_predict(&in, &it->pred[e]);
	}
	model.failed_check = NULL;
	status_t st = cpu_run(&model.cpu);
	memcpy(it->dirty, model.snap.dirty, sizeof(it->dirty));
	memcpy(&it->after[E_MODEL], model.pm.ram + VMCB_PA, sizeof(struct vmcb));
	it->failed_check = model.failed_check;
	it->have[E_MODEL] = true;
	it->halted[E_MODEL] = st == ST_HALT && model.cpu.in_guest;
	it->shutdown[E_MODEL] = st == ST_SHUTDOWN;
	it->hung[E_MODEL] = !it->shutdown[E_MODEL] && (st != ST_HALT || (!model.cpu.in_guest && model.cpu.rip != L1_CODE + 4));
}

/* ---- the batches ---- */

/* Run items under the runner engines; false if an engine gave no output. */
bool run_runners(struct item **items, unsigned n, unsigned timeout_scale, bool timed)
{
	char batch[512];
	run_tag = timed ? "run" : "confirm";
	snprintf(batch, sizeof(batch), "%s/%s-batch.bin", diff_opt.work, run_tag);
	for (unsigned e = E_HVEMU; e < E_COUNT; e++) {
		if (!diff_opt.on[e])
			continue;
		uint32_t timeout = (e == E_QEMU ? diff_opt.timeout_qemu : diff_opt.timeout_hvemu) * timeout_scale;
		for (unsigned i = 0; i < n; i++)
			items[i]->have[e] = false;
		char out[512];
		unsigned from = 0, strays = 0;
		while (from < n) {
			if (!write_batch(batch, items + from, n - from, timeout)) {
				fprintf(stderr, "svm_exit_diff: cannot write %s\n", batch);
				exit(1);
			}
			double t0 = now_seconds();
			int st = run_engine(e, batch, out, sizeof(out), 120.0 + (n - from) * 0.05 * timeout_scale);
			double t1 = now_seconds();
			int got = read_output(e, out, items + from, n - from, &strays);
			if (timed) {
				engine_seconds[e] += t1 - t0;
				engine_inputs[e] += got > 0 ? (unsigned)got : 0;
			}
			if (got < 0 && st != -1) {
				fprintf(stderr, "svm_exit_diff: %s: exit status %d, no output (logs in %s)\n", engine_name[e],
					st, diff_opt.work);
				return false;
			}
			unsigned next = from;
			while (next < n && items[next]->have[e])
				next++;
			if (next == n)
				break;
			/* The run ended at items[next]: no exit within the
			 * stall time, or the engine died there. */
			fprintf(stderr, "svm_exit_diff: %s: %s at input %s (exit status %d); resuming after it\n",
				engine_name[e], st == -1 ? "no record within the stall time" : "the run ended",
				items[next]->name, st);
			items[next]->have[e] = true;
			items[next]->hung[e] = true;
			items[next]->after[e] = items[next]->e.vmcb;
			from = next + 1;
		}
		if (strays)
			printf("svm_exit_diff: %s: %u pages written outside the runner's restores\n", engine_name[e], strays);
	}
	return true;
}

/* Ask each runner engine for its CPUID (an empty batch). 77 if QEMU cannot
 * run the runner's SVM, 1 if hvemu cannot. */
int probe(void)
{
	for (unsigned e = E_HVEMU; e < E_COUNT; e++) {
		if (!diff_opt.on[e])
			continue;
		char batch[512], out[512];
		run_tag = "probe";
		snprintf(batch, sizeof(batch), "%s/probe-batch.bin", diff_opt.work);
		if (!write_batch(batch, NULL, 0, 1)) {
			fprintf(stderr, "svm_exit_diff: cannot write %s\n", batch);
			return 1;
		}
		int st = run_engine(e, batch, out, sizeof(out), 60);
		unsigned strays = 0;
		if (st != 1 || read_output(e, out, NULL, 0, &strays) < 0) {
			fprintf(stderr, "svm_exit_diff: %s could not run the runner (exit status %d; %s/probe-%s-log.txt)\n",
				engine_name[e], st, diff_opt.work, engine_name[e]);
			if (e == E_QEMU && (st == 127 || st == 255))
				fprintf(stderr, "svm_exit_diff: SKIP: %s\n",
					st == 127 ? "qemu-system-x86_64 not found" : "no nested SVM in QEMU's CPU");
			return e == E_QEMU && (st == 127 || st == 255) ? 77 : 1;
		}
		printf("svm_exit_diff: %s: CPUID Fn8000_000A_EDX %#x, MAXPHYADDR %u, Fn0000_0001_ECX %#x\n",
		       engine_name[e], ocpu[e].svm_edx, ocpu[e].id.maxphyaddr, ocpu[e].id.cpuid1_ecx);
	}
	return 0;
}
