/* gdb's monitor commands; see cli/gdb_monitor.h. */
#include "cli/gdb_monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gdb_info.h"
#include "cli/gdb_target.h"
#include "svm/vmcb_fields.h"

const char *gdb_mode_name(const struct cpu *cpu)
{
	switch (cpu->mode) {
	case MODE_REAL: return "real";
	case MODE_PROT: return "protected";
	case MODE_V86: return "virtual-8086";
	case MODE_COMPAT: return "compatibility";
	case MODE_LONG64: return "64-bit";
	}
	return "?";
}

/* `info vmcb PA`: the fields of the VMCB at guest-physical PA that are not
 * zero, by the APM's names (APM2 Appendix B, svm/vmcb_fields.def). After an
 * SVM VM-exit stop, L1's RAX still holds the VMCB's address (APM2 15.5.1:
 * VMRUN takes it in rAX, and #VMEXIT restores the host's rAX). */
static void info_vmcb(struct debugger *d, const char *arg, char *out, size_t len)
{
	char *end;
	uint64_t pa = strtoull(arg, &end, 0);
	if (end == arg || *end) {
		snprintf(out, len, "usage: info vmcb PHYSADDR (after an SVM exit L1's $rax holds it)\n");
		return;
	}
	size_t n, o = 0;
	unsigned zero = 0;
	const struct vmcb_field *f = vmcb_field_table(&n);
	o += (size_t)snprintf(out + o, len - o, "VMCB at 0x%llx:\n", (unsigned long long)pa);
	for (size_t i = 0; i < n && o + 100 < len; i++) {
		uint8_t b[8] = { 0 };
		if (f[i].size > 8)
			continue;
		if (gdb_phys_read(d->m, pa + f[i].offset, b, f[i].size) != f[i].size) {
			o += (size_t)snprintf(out + o, len - o, "no RAM at 0x%llx\n",
					      (unsigned long long)(pa + f[i].offset));
			return;
		}
		uint64_t v = 0;
		for (unsigned k = 0; k < f[i].size; k++)
			v |= (uint64_t)b[k] << (8 * k);
		if (!v) {
			zero++;
			continue;
		}
		o += (size_t)snprintf(out + o, len - o, "  %03x %-24s 0x%llx\n", f[i].offset, f[i].name,
				      (unsigned long long)v);
	}
	snprintf(out + o, len - o, "  (%u fields are zero)\n", zero);
}

void gdb_monitor(struct debugger *d, unsigned cpu_index, const char *cmd, char *out, size_t len)
{
	struct machine *m = d->m;
	struct cpu *cpu = m->smp.cpu[cpu_index];
	if (!strcmp(cmd, "info cpu")) {
		snprintf(out, len, "CPU %u (APIC ID %u): %s mode, CPL %u, %s%s\n"
			 "rip=%016llx cs=%04x rflags=%08llx\n"
			 "cr0=%016llx cr2=%016llx cr3=%016llx cr4=%016llx\n"
			 "efer=%016llx icount=%llu\n",
			 cpu_index, cpu->apic_id, gdb_mode_name(cpu), cpu->cpl, debug_world(cpu),
			 cpu->halted ? ", halted" : "", (unsigned long long)cpu->rip, cpu->seg[SR_CS].selector,
			 (unsigned long long)cpu_get_flags(cpu), (unsigned long long)cpu->cr0,
			 (unsigned long long)cpu->cr2, (unsigned long long)cpu->cr3, (unsigned long long)cpu->cr4,
			 (unsigned long long)cpu->efer, (unsigned long long)cpu->icount);
	} else if (!strcmp(cmd, "icount")) {
		snprintf(out, len, "%llu\n", (unsigned long long)cpu->icount);
	} else if (!strncmp(cmd, "xp ", 3)) {
		const char *p = cmd + 3;
		uint64_t pa, n = 16;
		char *end;
		pa = strtoull(p, &end, 0);
		if (end == p || (*end && *end != ' ')) {
			snprintf(out, len, "usage: xp PHYSADDR [LEN]\n");
			return;
		}
		if (*end) {
			char *e2;
			n = strtoull(end + 1, &e2, 0);
			if (*e2 || n == 0) {
				snprintf(out, len, "usage: xp PHYSADDR [LEN]\n");
				return;
			}
		}
		if (n > 256)
			n = 256;
		uint8_t buf[256];
		size_t got = gdb_phys_read(m, pa, buf, (size_t)n), o = 0;
		for (size_t i = 0; i < got && o + 80 < len; i++) {
			if (i % 16 == 0)
				o += (size_t)snprintf(out + o, len - o, "%s%016llx:", i ? "\n" : "",
						      (unsigned long long)(pa + i));
			o += (size_t)snprintf(out + o, len - o, " %02x", buf[i]);
		}
		snprintf(out + o, len - o, got < n ? "%sno RAM or ROM at 0x%llx\n" : "\n", got ? "\n" : "",
			 (unsigned long long)(pa + got));
	} else if (!strncmp(cmd, "info vmcb", 9)) {
		info_vmcb(d, cmd[9] == ' ' ? cmd + 10 : "", out, len);
	} else if (!strncmp(cmd, "info ", 5) && gdb_info(m, cpu_index, cmd + 5, out, len)) {
		/* info apic | walk LIN | vmcs (cli/gdb_info.c) */
	} else if (!strncmp(cmd, "break ", 6)) {
		char err[256];
		if (debug_stops_parse(&d->cfg, cmd + 6, err, sizeof(err)))
			snprintf(out, len, "stop added: %s\n", cmd + 6);
		else
			snprintf(out, len, "%s\n", err);
		/* An exception stop needs the delivery observer, installed at
		 * start-up only (--break exception=...). */
	} else {
		snprintf(out, len, "hvemu monitor commands: info cpu | info vmcb PHYSADDR | info vmcs | info apic | "
			 "info walk LINADDR | icount | xp PHYSADDR [LEN] | "
			 "break vmexit=CODE[,...] | break icount=N | info reverse\n");
	}
}
