/* The VMX oracle's rules as rows (each with its SDM Vol.3 section, pinned
 * edition 325462-075US), their coverage, and the comparison of a prediction
 * with what hvemu did: every disagreement prints the field, both values and
 * the rule that was broken. */
#include "fuzz/vmx_oracle_sim.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct rule_row {
	const char *name;
	const char *cite;
	const char *words;                 /* entry checks: words hvemu's row text has, alternatives
					      separated by '|' */
};

uint64_t vo_rule_held[R_COUNT], vo_rule_not_held[R_COUNT];

#define CHECK(c, name, cite, words) [R_CHECKS_FIRST + (c)] = { name, cite, words }
static const struct rule_row rules[R_COUNT] = {
	CHECK(VC_PIN_RESERVED, "pin-based reserved", "SDM Vol.3 26.2.1.1: pin-based controls within IA32_VMX_(TRUE_)PINBASED_CTLS", "pin-based"),
	CHECK(VC_PROC_RESERVED, "primary reserved", "SDM Vol.3 26.2.1.1: primary processor-based controls within IA32_VMX_(TRUE_)PROCBASED_CTLS", "primary processor-based"),
	CHECK(VC_PROC2_RESERVED, "secondary reserved", "SDM Vol.3 26.2.1.1: secondary controls (if activated) within IA32_VMX_PROCBASED_CTLS2", "secondary processor-based"),
	CHECK(VC_CR3_TARGETS, "CR3-target count", "SDM Vol.3 26.2.1.1: the CR3-target count is at most 4", "CR3-target count"),
	CHECK(VC_IO_BITMAPS, "I/O-bitmap addresses", "SDM Vol.3 26.2.1.1: use I/O bitmaps: each address 4-KByte aligned, within the physical-address width", "I/O-bitmap"),
	CHECK(VC_MSR_BITMAPS, "MSR-bitmap address", "SDM Vol.3 26.2.1.1: use MSR bitmaps: the address 4-KByte aligned, within the physical-address width", "MSR-bitmap"),
	CHECK(VC_VIRTUAL_NMIS, "virtual NMIs w/o NMI exiting", "SDM Vol.3 26.2.1.1: NMI exiting 0 -> virtual NMIs 0", "virtual NMIs without NMI exiting"),
	CHECK(VC_NMI_WINDOW, "NMI-window w/o virtual NMIs", "SDM Vol.3 26.2.1.1: virtual NMIs 0 -> NMI-window exiting 0", "NMI-window exiting without"),
	CHECK(VC_VPID_ZERO, "VPID 0", "SDM Vol.3 26.2.1.1: enable VPID -> VPID not 0000H", "VPID of 0000H"),
	CHECK(VC_EXIT_RESERVED, "exit controls reserved", "SDM Vol.3 26.2.1.2: VM-exit controls within IA32_VMX_(TRUE_)EXIT_CTLS", "VM-exit control has a reserved"),
	CHECK(VC_PREEMPT_SAVE, "save preemption timer", "SDM Vol.3 26.2.1.2: activate VMX-preemption timer 0 -> save VMX-preemption timer value 0", "save VMX-preemption timer"),
	CHECK(VC_EXIT_MSR_STORE, "exit MSR-store list", "SDM Vol.3 26.2.1.2: the VM-exit MSR-store address 16-byte aligned, its last byte within the width", "MSR-store list"),
	CHECK(VC_EXIT_MSR_LOAD, "exit MSR-load list", "SDM Vol.3 26.2.1.2: the VM-exit MSR-load address 16-byte aligned, its last byte within the width", "VM-exit MSR-load list"),
	CHECK(VC_ENTRY_RESERVED, "entry controls reserved", "SDM Vol.3 26.2.1.3: VM-entry controls within IA32_VMX_(TRUE_)ENTRY_CTLS", "VM-entry control has a reserved"),
	CHECK(VC_INJ_TYPE, "injection type", "SDM Vol.3 26.2.1.3: interruption type not 1; 7 only if monitor trap flag is allowed", "reserved interruption type"),
	CHECK(VC_INJ_NMI_VECTOR, "injected NMI vector", "SDM Vol.3 26.2.1.3: type NMI -> vector 2", "NMI with a vector"),
	CHECK(VC_INJ_HW_VECTOR, "injected exception vector", "SDM Vol.3 26.2.1.3: type hardware exception -> vector <= 31", "hardware exception with a vector"),
	CHECK(VC_INJ_OTHER_VECTOR, "injected other-event vector", "SDM Vol.3 26.2.1.3: type other event -> vector 0", "other event with a vector"),
	CHECK(VC_INJ_ERRCODE_MISSING, "deliver-error-code 0", "SDM Vol.3 26.2.1.3: deliver-error-code 1 for a protected-mode #DF, #TS, #NP, #SS, #GP, #PF, #AC (IA32_VMX_BASIC[56] 0)", "deliver-error-code is 0"),
	CHECK(VC_INJ_ERRCODE_EXTRA, "deliver-error-code 1", "SDM Vol.3 26.2.1.3: deliver-error-code 0 otherwise", "deliver-error-code is 1"),
	CHECK(VC_INJ_RESERVED, "injection bits 30:12", "SDM Vol.3 26.2.1.3: interruption-information bits 30:12 are 0", "bits 30:12"),
	CHECK(VC_INJ_ERRCODE_HIGH, "injected error code 31:16", "SDM Vol.3 26.2.1.3: with deliver-error-code, error code bits 31:16 are 0", "error code bits 31:16"),
	CHECK(VC_INJ_LENGTH, "injected instruction length", "SDM Vol.3 26.2.1.3: software interrupt/exception: length 1-15 (0 with IA32_VMX_MISC[30])", "instruction length"),
	CHECK(VC_ENTRY_MSR_LOAD, "entry MSR-load list", "SDM Vol.3 26.2.1.3: the VM-entry MSR-load address 16-byte aligned, its last byte within the width", "VM-entry MSR-load list"),
	CHECK(VC_ENTRY_SMM, "entry to SMM", "SDM Vol.3 26.2.1.3: outside SMM, entry to SMM and deactivate dual-monitor treatment are 0", "SMM"),
	CHECK(VC_HOST_CR0, "host CR0 fixed bits", "SDM Vol.3 26.2.2: host CR0 within IA32_VMX_CR0_FIXED0/1", "host CR0"),
	CHECK(VC_HOST_CR4, "host CR4 fixed bits", "SDM Vol.3 26.2.2: host CR4 within IA32_VMX_CR4_FIXED0/1", "host CR4 sets"),
	CHECK(VC_HOST_CR3, "host CR3 width", "SDM Vol.3 26.2.2: host CR3 bits beyond the physical-address width are 0", "host CR3"),
	CHECK(VC_HOST_SYSENTER, "host SYSENTER canonical", "SDM Vol.3 26.2.2: host IA32_SYSENTER_ESP/EIP canonical", "host IA32_SYSENTER"),
	CHECK(VC_HOST_SEL_RPL_TI, "host selector RPL/TI", "SDM Vol.3 26.2.3: host ES, CS, SS, DS, FS, GS, TR selectors have RPL 0 and TI 0", "RPL or TI"),
	CHECK(VC_HOST_CS_TR_ZERO, "host CS/TR 0000H", "SDM Vol.3 26.2.3: host CS and TR selectors are not 0000H", "CS or TR selector is 0000H"),
	CHECK(VC_HOST_SS_ZERO, "host SS 0000H", "SDM Vol.3 26.2.3: host address-space size 0 -> host SS selector not 0000H", "SS selector is 0000H"),
	CHECK(VC_HOST_BASES, "host bases canonical", "SDM Vol.3 26.2.3: host FS, GS, GDTR, IDTR, TR bases canonical", "base is not canonical"),
	CHECK(VC_HOST_LMA_SIZE, "host address-space size", "SDM Vol.3 26.2.4: in IA-32e mode, host address-space size 1 (outside it, 0)", "host address-space size is"),
	CHECK(VC_HOST_PAE, "host CR4.PAE", "SDM Vol.3 26.2.4: host address-space size 1 -> host CR4.PAE 1", "CR4.PAE 0"),
	CHECK(VC_HOST_RIP, "host RIP", "SDM Vol.3 26.2.4: host address-space size 1 -> host RIP canonical", "host RIP"),
	CHECK(VC_GUEST_CR0, "guest CR0 fixed bits", "SDM Vol.3 26.3.1.1: guest CR0 within IA32_VMX_CR0_FIXED0/1 (PE, PG free with unrestricted guest)", "CR0"),
	CHECK(VC_GUEST_PG_PE, "guest CR0.PG w/o PE", "SDM Vol.3 26.3.1.1: guest CR0.PG 1 -> CR0.PE 1", "PG"),
	CHECK(VC_GUEST_CR4, "guest CR4 fixed bits", "SDM Vol.3 26.3.1.1: guest CR4 within IA32_VMX_CR4_FIXED0/1", "CR4"),
	CHECK(VC_GUEST_IA32E_PG, "IA-32e guest CR0.PG", "SDM Vol.3 26.3.1.1: IA-32e mode guest -> CR0.PG 1", "IA-32e mode guest"),
	CHECK(VC_GUEST_IA32E_PAE, "IA-32e guest CR4.PAE", "SDM Vol.3 26.3.1.1: IA-32e mode guest -> CR4.PAE 1", "IA-32e mode guest"),
	CHECK(VC_GUEST_PCIDE, "guest CR4.PCIDE", "SDM Vol.3 26.3.1.1: IA-32e mode guest 0 -> CR4.PCIDE 0", "PCIDE"),
	CHECK(VC_GUEST_CR3, "guest CR3 width", "SDM Vol.3 26.3.1.1: guest CR3 bits beyond the physical-address width are 0", "CR3"),
	CHECK(VC_GUEST_DR7, "guest DR7[63:32]", "SDM Vol.3 26.3.1.1: load debug controls -> DR7 bits 63:32 are 0", "DR7"),
	CHECK(VC_GUEST_SYSENTER, "guest SYSENTER canonical", "SDM Vol.3 26.3.1.1: guest IA32_SYSENTER_ESP/EIP canonical", "SYSENTER"),
	CHECK(VC_GUEST_TR_TI, "guest TR TI", "SDM Vol.3 26.3.1.2: TR selector TI 0", "TR"),
	CHECK(VC_GUEST_LDTR_TI, "guest LDTR TI", "SDM Vol.3 26.3.1.2: usable LDTR selector TI 0", "LDTR"),
	CHECK(VC_GUEST_SS_RPL, "guest SS.RPL = CS.RPL", "SDM Vol.3 26.3.1.2: SS.RPL = CS.RPL (no unrestricted guest)", "RPL"),
	CHECK(VC_GUEST_BASES, "guest bases canonical", "SDM Vol.3 26.3.1.2: TR, FS, GS (and usable LDTR) bases canonical", "base"),
	CHECK(VC_GUEST_CS_BASE_HIGH, "guest CS base 63:32", "SDM Vol.3 26.3.1.2: CS base bits 63:32 are 0", "base"),
	CHECK(VC_GUEST_DATA_BASE_HIGH, "guest SS/DS/ES base 63:32", "SDM Vol.3 26.3.1.2: usable SS, DS, ES bases: bits 63:32 are 0", "base"),
	CHECK(VC_GUEST_CS_TYPE, "guest CS type", "SDM Vol.3 26.3.1.2: CS type 9, 11, 13, 15 (3 with unrestricted guest)", "CS"),
	CHECK(VC_GUEST_SS_TYPE, "guest SS type", "SDM Vol.3 26.3.1.2: usable SS type 3 or 7", "SS"),
	CHECK(VC_GUEST_DATA_TYPE, "guest DS/ES/FS/GS type", "SDM Vol.3 26.3.1.2: usable DS, ES, FS, GS: accessed; code readable", "accessed|not readable"),
	CHECK(VC_GUEST_S, "guest S bit", "SDM Vol.3 26.3.1.2: CS and usable SS, DS, ES, FS, GS have S 1", "S"),
	CHECK(VC_GUEST_CS_DPL, "guest CS DPL", "SDM Vol.3 26.3.1.2: CS DPL = SS DPL (non-conforming), <= SS DPL (conforming), 0 (type 3)", "DPL"),
	CHECK(VC_GUEST_SS_DPL, "guest SS DPL", "SDM Vol.3 26.3.1.2: SS DPL = SS.RPL; 0 with CS type 3 or CR0.PE 0", "DPL"),
	CHECK(VC_GUEST_DATA_DPL, "guest data DPL >= RPL", "SDM Vol.3 26.3.1.2: usable DS, ES, FS, GS of types 0-11: DPL >= RPL", "DPL"),
	CHECK(VC_GUEST_P, "guest P bit", "SDM Vol.3 26.3.1.2: CS and usable SS, DS, ES, FS, GS are present", "not present"),
	CHECK(VC_GUEST_AR_RESERVED, "guest AR reserved", "SDM Vol.3 26.3.1.2: access-rights bits 11:8 and 31:17 are 0", "access-rights bits"),
	CHECK(VC_GUEST_CS_L_DB, "guest CS.L and D/B", "SDM Vol.3 26.3.1.2: IA-32e mode guest with CS.L 1 -> CS.D/B 0", "D/B"),
	CHECK(VC_GUEST_G_LIMIT, "guest G vs limit", "SDM Vol.3 26.3.1.2: limit bits 11:0 not all 1 -> G 0; bits 31:20 not all 0 -> G 1", "G"),
	CHECK(VC_GUEST_TR_TYPE, "guest TR type", "SDM Vol.3 26.3.1.2: TR type 11 (3 also outside IA-32e mode)", "TR"),
	CHECK(VC_GUEST_TR_S_P, "guest TR S/P/usable", "SDM Vol.3 26.3.1.2: TR has S 0, P 1 and is usable", "TR"),
	CHECK(VC_GUEST_LDTR_TYPE, "guest LDTR type", "SDM Vol.3 26.3.1.2: usable LDTR: type 2, S 0, P 1", "LDTR"),
	CHECK(VC_GUEST_DT_BASE, "guest GDTR/IDTR base", "SDM Vol.3 26.3.1.3: GDTR and IDTR bases canonical", "IDTR"),
	CHECK(VC_GUEST_DT_LIMIT, "guest GDTR/IDTR limit", "SDM Vol.3 26.3.1.3: GDTR and IDTR limit bits 31:16 are 0", "IDTR"),
	CHECK(VC_GUEST_RIP, "guest RIP", "SDM Vol.3 26.3.1.4: RIP bits 63:32 0 unless IA-32e mode guest with CS.L; then canonical", "RIP"),
	CHECK(VC_GUEST_RFLAGS_RESERVED, "guest RFLAGS reserved", "SDM Vol.3 26.3.1.4: RFLAGS bits 63:22, 15, 5, 3 are 0, bit 1 is 1", "RFLAGS"),
	CHECK(VC_GUEST_RFLAGS_VM, "guest RFLAGS.VM", "SDM Vol.3 26.3.1.4: IA-32e mode guest or CR0.PE 0 -> RFLAGS.VM 0", "RFLAGS.VM"),
	CHECK(VC_GUEST_RFLAGS_IF, "guest RFLAGS.IF", "SDM Vol.3 26.3.1.4: injecting an external interrupt -> RFLAGS.IF 1", "IF"),
	CHECK(VC_GUEST_ACTIVITY, "guest activity state", "SDM Vol.3 26.3.1.5: activity state 0-3 and reported by IA32_VMX_MISC[8:6]", "activity state"),
	CHECK(VC_GUEST_ACTIVITY_SS_DPL, "HLT state SS.DPL", "SDM Vol.3 26.3.1.5: HLT activity state -> SS DPL 0", "HLT"),
	CHECK(VC_GUEST_ACTIVITY_BLOCKING, "inactive with STI/MOV SS blocking", "SDM Vol.3 26.3.1.5: blocking by STI or MOV SS -> the activity state is active", "inactive activity state"),
	CHECK(VC_GUEST_INTR_RESERVED, "interruptibility reserved", "SDM Vol.3 26.3.1.5: interruptibility bits 31:5 are 0", "interruptibility"),
	CHECK(VC_GUEST_STI_MOVSS, "STI and MOV SS blocking", "SDM Vol.3 26.3.1.5: blocking by STI and by MOV SS not both 1", "STI"),
	CHECK(VC_GUEST_STI_IF, "STI blocking with IF 0", "SDM Vol.3 26.3.1.5: RFLAGS.IF 0 -> blocking by STI 0", "STI"),
	CHECK(VC_GUEST_INTR_INJECT, "blocking with injection", "SDM Vol.3 26.3.1.5: injecting an external interrupt or NMI -> no blocking by STI or MOV SS", "inject"),
	CHECK(VC_GUEST_SMI, "blocking by SMI", "SDM Vol.3 26.3.1.5: outside SMM, blocking by SMI 0", "SMI"),
	CHECK(VC_GUEST_PENDING_DBG, "pending debug exceptions", "SDM Vol.3 26.3.1.5: pending debug exceptions bits 11:4, 13, 15, 63:17 0; the BS rule under blocking or HLT", "pending debug"),
	CHECK(VC_GUEST_LINK, "VMCS link pointer", "SDM Vol.3 26.3.1.5: link pointer all ones, or aligned, within the width, the revision identifier at it (exit qualification 4, 26.8)", "link pointer"),
	[R_CPUID] = { "CPUID exits", "SDM Vol.3 25.1.2: CPUID exits unconditionally (reason 10)", NULL },
	[R_HLT] = { "HLT exiting", "SDM Vol.3 25.1.3: HLT exits with HLT exiting (reason 12)", NULL },
	[R_HALT] = { "HLT not exiting", "SDM Vol.2 HLT: the guest halts", NULL },
	[R_INVD] = { "INVD exits", "SDM Vol.3 25.1.2: INVD exits unconditionally (reason 13)", NULL },
	[R_INVLPG] = { "INVLPG exiting", "SDM Vol.3 25.1.3, 27.2.1: INVLPG exiting (reason 14), qualification = the linear address", NULL },
	[R_RDPMC] = { "RDPMC exiting", "SDM Vol.3 25.1.3: RDPMC exiting (reason 15)", NULL },
	[R_RDTSC] = { "RDTSC exiting", "SDM Vol.3 25.1.3: RDTSC exiting (reason 16)", NULL },
	[R_RDTSCP] = { "RDTSCP exiting", "SDM Vol.3 25.1.3: RDTSCP with RDTSC exiting and enable RDTSCP (reason 51)", NULL },
	[R_RDTSCP_UD] = { "RDTSCP #UD", "SDM Vol.3 25.3: enable RDTSCP 0 -> RDTSCP is #UD", NULL },
	[R_VMCALL] = { "VMCALL exits", "SDM Vol.3 25.1.2: VMCALL exits unconditionally (reason 18)", NULL },
	[R_VMX_INSN] = { "VMX instruction exits", "SDM Vol.3 25.1.2: VMCLEAR ... VMXON exit unconditionally (reasons 19-27)", NULL },
	[R_VMX_INFO] = { "VMCLEAR/PTRLD/PTRST/VMXON info", "SDM Vol.3 27.2.1, 27.2.5: qualification = displacement; information: scaling, address size, segment, index, base", NULL },
	[R_VMREAD_INFO] = { "VMREAD/VMWRITE info", "SDM Vol.3 27.2.5: information: reg1 6:3, mem/reg 10, reg2 31:28 (+ memory operand fields)", NULL },
	[R_CR_QUAL] = { "CR access qualification", "SDM Vol.3 27.2.1 Table 27-3: CR number 3:0, access type 5:4, LMSW operand 6, GPR 11:8, LMSW data 31:16", NULL },
	[R_CR0_MASK] = { "MOV to CR0 mask/shadow", "SDM Vol.3 25.1.3: MOV to CR0 exits if a bit set in the CR0 guest/host mask differs from the read shadow", NULL },
	[R_CR3_LOAD] = { "MOV to CR3 targets", "SDM Vol.3 25.1.3: CR3-load exiting and the value not one of the first CR3-target-count targets", NULL },
	[R_CR3_STORE] = { "MOV from CR3", "SDM Vol.3 25.1.3: CR3-store exiting", NULL },
	[R_CR4_MASK] = { "MOV to CR4 mask/shadow", "SDM Vol.3 25.1.3: MOV to CR4 exits if a bit set in the CR4 guest/host mask differs from the read shadow", NULL },
	[R_CR8] = { "MOV CR8", "SDM Vol.3 25.1.3: CR8-load / CR8-store exiting (64-bit mode)", NULL },
	[R_CLTS] = { "CLTS", "SDM Vol.3 25.1.3: CLTS exits if TS is set in both the CR0 mask and read shadow", NULL },
	[R_LMSW] = { "LMSW", "SDM Vol.3 25.1.3: LMSW exits on PE (mask 1, shadow 0, source 1) or MP/EM/TS (mask 1, source != shadow)", NULL },
	[R_DR] = { "MOV DR exiting", "SDM Vol.3 25.1.3, 27.2.1 Table 27-4: MOV-DR exiting; qualification DR 2:0, direction 4, GPR 11:8", NULL },
	[R_IO_UNCOND] = { "unconditional I/O exiting", "SDM Vol.3 25.1.3: use I/O bitmaps 0: unconditional I/O exiting decides", NULL },
	[R_IO_BITMAP] = { "I/O bitmaps", "SDM Vol.3 25.1.3, 24.6.4: any bit of the ports accessed (A: 0-7FFFH, B: 8000H-FFFFH) set, or a wrap past FFFFH", NULL },
	[R_IO_QUAL] = { "I/O qualification", "SDM Vol.3 27.2.1 Table 27-5: size 2:0, direction 3, string 4, REP 5, immediate 6, port 31:16", NULL },
	[R_IO_INFO] = { "INS/OUTS information", "SDM Vol.3 27.2.5 Table 27-8 (IA32_VMX_BASIC[54]): address size 9:7, segment 17:15; guest-linear address of the operand", NULL },
	[R_MSR_BITMAP] = { "MSR bitmaps", "SDM Vol.3 25.1.3, 24.6.9: RDMSR/WRMSR exit without MSR bitmaps, or with the bitmap bit set", NULL },
	[R_MSR_OUT_OF_RANGE] = { "MSR outside the bitmaps", "SDM Vol.3 25.1.3: an ECX outside 0-1FFFH and C0000000H-C0001FFFH exits", NULL },
	[R_MWAIT] = { "MWAIT exiting", "SDM Vol.3 25.1.3: MWAIT exiting (reason 36)", NULL },
	[R_MONITOR] = { "MONITOR exiting", "SDM Vol.3 25.1.3: MONITOR exiting (reason 39)", NULL },
	[R_PAUSE] = { "PAUSE exiting", "SDM Vol.3 25.1.3: PAUSE exiting (reason 40)", NULL },
	[R_DT] = { "descriptor-table exiting", "SDM Vol.3 25.1.3: descriptor-table exiting: LGDT, LIDT, SGDT, SIDT (46), LLDT, LTR, SLDT, STR (47)", NULL },
	[R_DT_INFO] = { "GDTR/IDTR information", "SDM Vol.3 27.2.5 Table 27-10: scaling, address size, operand size, segment, index, base, identity 29:28", NULL },
	[R_LDT_INFO] = { "LDTR/TR information", "SDM Vol.3 27.2.5 Table 27-11: reg1 6:3, mem/reg 10, identity 29:28 (+ memory operand fields)", NULL },
	[R_WBINVD] = { "WBINVD exiting", "SDM Vol.3 25.1.3: WBINVD exiting (reason 54)", NULL },
	[R_XSETBV] = { "XSETBV exits", "SDM Vol.3 25.1.2: XSETBV exits unconditionally (reason 55)", NULL },
	[R_XSETBV_UD] = { "XSETBV #UD first", "SDM Vol.3 25.1.1: #UD (CR4.OSXSAVE 0) has priority over the exit", NULL },
	[R_RDRAND] = { "RDRAND/RDSEED exiting", "SDM Vol.3 25.1.3, 27.2.5: RDRAND (57), RDSEED (61) exiting; information: register 6:3, operand size 12:11", NULL },
	[R_EXCP_BITMAP] = { "exception bitmap", "SDM Vol.3 25.2: an exception whose bit is set in the exception bitmap exits (reason 0)", NULL },
	[R_PF_PFEC] = { "#PF error-code mask/match", "SDM Vol.3 25.2: #PF exits iff bit 14 of the bitmap = ((PFEC & mask) == match)", NULL },
	[R_EXCP_INFO] = { "exit interruption information", "SDM Vol.3 27.2.2: vector 7:0, type 10:8, error code valid 11, valid 31; the error code", NULL },
	[R_PF_QUAL] = { "#PF qualification", "SDM Vol.3 27.2.1: a #PF's exit qualification is the linear address (CR2 is not written)", NULL },
	[R_SW_EXCP_LEN] = { "software exception length", "SDM Vol.3 27.2.5: a #BP from INT3 (type 6) reports its instruction length", NULL },
	[R_IDT_VECTORING] = { "IDT-vectoring information", "SDM Vol.3 27.2.3: an exit during event delivery reports the event (vector, type, error code); software events their length (27.2.5)", NULL },
	[R_IDT_VECTORING_NONE] = { "IDT-vectoring none", "SDM Vol.3 27.2.3: valid bit 0 when no event was being delivered", NULL },
	[R_GP_IDT_LIMIT] = { "#GP IDT limit", "SDM Vol.3 6.12.1, 6.13: a gate beyond the IDT limit is #GP(vector*8+2+EXT)", NULL },
	[R_PF_GATE] = { "#PF reading a gate", "SDM Vol.3 6.12, 4.7: the gate read of a not-present page is #PF (EXT in no code: #PF error 0)", NULL },
	[R_FRAME_PF] = { "#PF pushing a frame", "SDM Vol.3 6.12.1: delivery at CPL 0 pushes EFLAGS, CS, EIP, error code at SS:ESP; a #PF there is a write", NULL },
	[R_SEG_LIMIT] = { "#GP/#SS segment limit", "SDM Vol.3 5.3: an access beyond the segment limit is #GP(0), #SS(0) through SS", NULL },
	[R_GP_NONCANON] = { "#GP non-canonical", "SDM Vol.3 6.15 (#GP): a non-canonical data address in 64-bit mode is #GP(0)", NULL },
	[R_INJECT] = { "injected event", "SDM Vol.3 26.5.1: the injected event is delivered through the guest IDT as if it had occurred; a fault doing so exits with it as IDT-vectoring", NULL },
	[R_SAVE_STATE] = { "guest state saved", "SDM Vol.3 27.3: RIP, RSP, RFLAGS, CR0, CR3, CR4, segments saved; GPRs other than RSP are not changed by the exit", NULL },
	[R_ENTRY_FAIL] = { "VM-entry failure", "SDM Vol.3 26.8: a guest-state check fails: exit reason 33 with bit 31, qualification 0 (4: link pointer)", NULL },
	[R_MSR_LOAD] = { "VM-entry MSR loading", "SDM Vol.3 26.4, 26.8: an entry of the MSR-load list that fails (FS/GS_BASE, x2APIC MSRs, bits 63:32, a value WRMSR would #GP on): exit reason 34 with bit 31, qualification = its number from 1", NULL },
	[R_VMFAIL] = { "VMfailValid", "SDM Vol.3 26.2, 30.4: a control check fails: VMfailValid(7); a host-state check: VMfailValid(8)", NULL },
};

#ifdef HVEMU_LIBFUZZER
__attribute__((used, section("__libfuzzer_extra_counters")))
#endif
uint8_t vo_feedback[VO_FEEDBACK_SIZE];

static uint64_t predictions, exact_exits, halts_agreed, vmfails_agreed;
static struct oracle_unknowns unknowns;
static uint32_t cells[XR_COUNT][VO_SHAPES];
static uint32_t failure_cells[VC_COUNT];

enum vo_check_group vo_check_group_of(enum vo_check c)
{
	return c <= VC_ENTRY_SMM ? VG_CONTROLS : c <= VC_HOST_RIP ? VG_HOST : VG_GUEST;
}

/* Does text t contain one of the '|'-separated alternatives of words? */
static bool has_words(const char *t, const char *words)
{
	char alt[64];
	for (const char *w = words; *w;) {
		size_t n = strcspn(w, "|");
		if (n < sizeof(alt)) {
			memcpy(alt, w, n);
			alt[n] = 0;
			if (strstr(t, alt))
				return true;
		}
		w += n + (w[n] == '|');
	}
	return false;
}

/* hvemu names a check by its SDM section and text: the oracle's failing
 * check of the same section whose words the text has, or -1 (a label: no
 * prediction depends on it, but a named check the oracle does not find
 * failing is a disagreement). */
static int check_of_text(const char *t, const uint64_t failing[2])
{
	if (!t)
		return -1;
	for (unsigned k = 0; k < VC_COUNT; k++) {
		const char *cite = rules[R_CHECKS_FIRST + k].cite;
		const char *colon = strchr(cite, ':');
		size_t n = (size_t)(colon - cite);
		if (strncmp(t, cite, n) != 0 || t[n] != ':' || !check_bit(failing, k))
			continue;
		if (has_words(t, rules[R_CHECKS_FIRST + k].words))
			return (int)k;
	}
	return -1;
}

const char *vo_last_disagreement;

static unsigned report(const char *field, uint64_t want, uint64_t got, int rule)
{
	vo_last_disagreement = field;
	fprintf(stderr, "vmx_oracle: DISAGREE %s: predicted %#" PRIx64 ", hvemu %#" PRIx64 "  [%s]\n", field, want,
		got, rule >= 0 && rule < R_COUNT && rules[rule].cite ? rules[rule].cite : "?");
	return 1;
}

void vo_note_prediction(const struct vo_prediction *p)
{
	predictions++;
	if (p->outcome == VO_OUT_UNKNOWN)
		oracle_unknowns_note(&unknowns, p->unknown_why);
}

static void print_failing(const uint64_t failing[2])
{
	for (unsigned k = 0; k < VC_COUNT; k++)
		if (check_bit(failing, k))
			fprintf(stderr, "vmx_oracle:   failing: [%s]\n", rules[R_CHECKS_FIRST + k].cite);
}

/* The named check: one of the failing ones of the group the outcome says. */
static unsigned compare_named(const struct vo_prediction *p, const struct vo_actual *a, enum vo_check_group g)
{
	uint64_t in_group[2] = { 0, 0 };
	for (unsigned k = 0; k < VC_COUNT; k++)
		if (check_bit(p->failing, k) && vo_check_group_of((enum vo_check)k) == g)
			check_set(in_group, k);
	int named = check_of_text(a->failed_check, in_group);
	if (named < 0) {
		vo_last_disagreement = "failed check";
		fprintf(stderr, "vmx_oracle: DISAGREE failed check: hvemu names \"%s\", the oracle finds:\n",
			a->failed_check ? a->failed_check : "(none)");
		print_failing(in_group);
		return 1;
	}
	failure_cells[named]++;
	return 0;
}

#define A(id) (a->vmcs[VMCS_ROW_##id])

#define RFLAGS_RF (1ull << 16)

/* SDM Vol.3 27.3.3, the RF an exit saves: for an exit an event causes, what
 * the event's RFLAGS image would hold (1 for a fault-class hardware
 * exception, Table 6-1, #DB excepted); 1 for an EPT, APIC-access or PML-full
 * exit outside event delivery (the delivered event's image during one); 0 for an
 * instruction that exits; RF as it was otherwise. */
static bool fault_class(uint32_t info)
{
	unsigned type = (info >> 8) & 7, vector = info & 0xff;
	static const uint32_t faults = 1u << 0 | 1u << 5 | 1u << 6 | 1u << 7 | 1u << 10 | 1u << 11 | 1u << 12 |
				       1u << 13 | 1u << 14 | 1u << 16 | 1u << 17 | 1u << 19 | 1u << 20 | 1u << 21;
	return (info >> 31) && type == 3 && vector < 32 && ((faults >> vector) & 1);
}

static uint64_t saved_rf(const struct vo_prediction *p)
{
	uint64_t as_is = p->rflags & RFLAGS_RF;
	switch (p->reason & 0xffff) {
	case 0:                    /* exception or NMI */
		return fault_class(p->intr_info) ? RFLAGS_RF : as_is;
	case 44: case 48: case 49: case 62: /* APIC access, EPT violation/misconfiguration, PML full */
		if (!(p->idt_info >> 31))
			return RFLAGS_RF;
		return fault_class(p->idt_info) ? RFLAGS_RF : as_is;
	default:
		/* An instruction's exit reports its length (27.2.5); one during
		 * the delivery of a software event reports that event's. */
		return p->len && !(p->idt_info >> 31) ? 0 : as_is;
	}
}

unsigned vo_compare(const struct vo_input *in, const struct vo_prediction *p, const struct vo_actual *a)
{
	unsigned bad = 0;
	if (p->outcome == VO_OUT_UNKNOWN)
		return 0;
	if (p->outcome == VO_OUT_VMFAIL) {
		if (!a->vmfail) {
			fprintf(stderr, "vmx_oracle: hvemu entered (exit reason %#" PRIx64 ")\n", A(EXIT_REASON));
			print_failing(p->failing);
			return report("outcome (VMfailValid expected)", p->vmfail_error, 0, R_VMFAIL);
		}
		uint64_t err = A(VM_INSTRUCTION_ERROR);
		bool control = false, host = false;
		for (unsigned k = 0; k < VC_COUNT; k++) {
			if (!check_bit(p->failing, k))
				continue;
			control |= vo_check_group_of((enum vo_check)k) == VG_CONTROLS;
			host |= vo_check_group_of((enum vo_check)k) == VG_HOST;
		}
		/* 26.2: "these checks may be performed in any order": with both
		 * groups failing either number is right. */
		if (!((err == 7 && control) || (err == 8 && host))) {
			print_failing(p->failing);
			return report("VM-instruction error", p->vmfail_error, err, R_VMFAIL);
		}
		bad = compare_named(p, a, err == 7 ? VG_CONTROLS : VG_HOST);
		if (!bad)
			vmfails_agreed++;
		return bad;
	}
	if (a->vmfail) {
		print_failing(p->failing);
		return report("outcome (VMfailValid, not predicted)", 0, A(VM_INSTRUCTION_ERROR), R_VMFAIL);
	}
	if (p->outcome == VO_OUT_HALT) {
		if (!a->halted_in_guest)
			return report("outcome (guest halts, no VM exit)", 0, A(EXIT_REASON), R_HALT);
		halts_agreed++;
		return 0;
	}
	if (a->halted_in_guest)
		return report("outcome (VM exit expected, the guest halted)", p->reason, 0, p->rule);
	if (p->reason & XR_ENTRY_FAILURE) {
		int rule = p->rule == R_MSR_LOAD ? R_MSR_LOAD : R_ENTRY_FAIL;
		if (A(EXIT_REASON) != p->reason) {
			print_failing(p->failing);
			return report("exit reason (VM-entry failure)", p->reason, A(EXIT_REASON), rule);
		}
		if (A(EXIT_QUALIFICATION) != p->qual)
			return report("exit qualification (VM-entry failure)", p->qual, A(EXIT_QUALIFICATION), rule);
		bad = rule == R_MSR_LOAD ? 0 : compare_named(p, a, VG_GUEST);
		if (!bad) {
			/* The cells of the failures: 33 by its qualification (0, 4:
			 * link pointer), 34 by the failing entry's number. */
			unsigned basic = p->reason & 0xffff, shape = basic == XR_MSR_LOADING ? (unsigned)p->qual - 1 : p->qual == 4;
			exact_exits++;
			cells[basic][shape % VO_SHAPES]++;
			vo_feedback[R_COUNT * 2 + basic * VO_SHAPES + shape % VO_SHAPES] = 1;
		}
		return bad;
	}
	if (A(EXIT_REASON) != p->reason) {
		fprintf(stderr, "vmx_oracle: hvemu's exit: qualification %#" PRIx64 " interruption %#" PRIx64
			" IDT-vectoring %#" PRIx64 " RIP %#" PRIx64 "\n", A(EXIT_QUALIFICATION), A(EXIT_INTR_INFO),
			A(IDT_VECTORING_INFO), A(GUEST_RIP));
		return report("exit reason", p->reason, A(EXIT_REASON), p->rule);
	}
	if ((p->defined & VP_QUAL) && A(EXIT_QUALIFICATION) != p->qual)
		bad += report("exit qualification", p->qual, A(EXIT_QUALIFICATION), p->rule);
	if ((p->defined & VP_LINEAR) && A(GUEST_LINEAR_ADDR) != p->linear)
		bad += report("guest-linear address", p->linear, A(GUEST_LINEAR_ADDR), p->rule);
	if ((p->defined & VP_LEN) && A(EXIT_INSTRUCTION_LEN) != p->len)
		bad += report("VM-exit instruction length", p->len, A(EXIT_INSTRUCTION_LEN), p->rule);
	if ((p->defined & VP_INFO) && (A(EXIT_INSTRUCTION_INFO) & p->info_mask) != p->info)
		bad += report("VM-exit instruction information", p->info, A(EXIT_INSTRUCTION_INFO) & p->info_mask,
			      p->rule);
	/* 27.2.2: the interruption information is valid only for exits due to
	 * events (reason 0 here). */
	if (p->reason == XR_EXCEPTION) {
		if ((uint32_t)A(EXIT_INTR_INFO) != p->intr_info)
			bad += report("VM-exit interruption information", p->intr_info, A(EXIT_INTR_INFO), R_EXCP_INFO);
		if ((p->defined & VP_INTR_ERROR) && (uint32_t)A(EXIT_INTR_ERROR_CODE) != p->intr_error)
			bad += report("VM-exit interruption error code", p->intr_error, A(EXIT_INTR_ERROR_CODE),
				      R_EXCP_INFO);
	}
	if (p->idt_info) {
		hit(R_IDT_VECTORING, true);
		if ((uint32_t)A(IDT_VECTORING_INFO) != p->idt_info)
			bad += report("IDT-vectoring information", p->idt_info, A(IDT_VECTORING_INFO), R_IDT_VECTORING);
		if ((p->defined & VP_IDT_ERROR) && (uint32_t)A(IDT_VECTORING_ERROR_CODE) != p->idt_error)
			bad += report("IDT-vectoring error code", p->idt_error, A(IDT_VECTORING_ERROR_CODE),
				      R_IDT_VECTORING);
	} else {
		hit(R_IDT_VECTORING_NONE, true);
		if (A(IDT_VECTORING_INFO) & EV_VALID)
			bad += report("IDT-vectoring information valid", 0, A(IDT_VECTORING_INFO), R_IDT_VECTORING_NONE);
	}
	if (A(GUEST_RIP) != p->rip)
		bad += report("guest RIP", p->rip, A(GUEST_RIP), p->rule);
	if ((p->defined & VP_RSP) && A(GUEST_RSP) != p->rsp)
		bad += report("guest RSP", p->rsp, A(GUEST_RSP), R_SAVE_STATE);
	if ((p->defined & VP_RAX) && a->rax != p->rax)
		bad += report("RAX (not saved, left to L1)", p->rax, a->rax, R_SAVE_STATE);
	if (p->defined & VP_STATE) {
		/* Nothing the templates ran changes these. */
		static const struct { const char *name; enum vmcs_row row; } same[] = {
			{ "guest CR0", VMCS_ROW_GUEST_CR0 }, { "guest CR3", VMCS_ROW_GUEST_CR3 },
			{ "guest CR4", VMCS_ROW_GUEST_CR4 }, { "guest CS selector", VMCS_ROW_GUEST_CS_SELECTOR },
			{ "guest CS base", VMCS_ROW_GUEST_CS_BASE }, { "guest CS limit", VMCS_ROW_GUEST_CS_LIMIT },
			{ "guest CS access rights", VMCS_ROW_GUEST_CS_AR }, { "guest SS access rights", VMCS_ROW_GUEST_SS_AR },
			{ "guest DS base", VMCS_ROW_GUEST_DS_BASE }, { "guest DS access rights", VMCS_ROW_GUEST_DS_AR },
			{ "guest GDTR base", VMCS_ROW_GUEST_GDTR_BASE }, { "guest IDTR base", VMCS_ROW_GUEST_IDTR_BASE },
			{ "guest IDTR limit", VMCS_ROW_GUEST_IDTR_LIMIT },
		};
		for (unsigned k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
			uint64_t want = in->vmcs[same[k].row], got = a->vmcs[same[k].row];
			if (same[k].row == VMCS_ROW_GUEST_CR0)
				want = entered_guest_cr0(in, want);
			/* 27.3.2: the accessed bit of a usable segment's type may be set. */
			if (strstr(same[k].name, "access rights"))
				want |= want & AR_UNUSABLE ? 0 : 1, got |= got & AR_UNUSABLE ? 0 : 1;
			if (want != got)
				bad += report(same[k].name, want, got, R_SAVE_STATE);
		}
		uint64_t care = p->defined & VP_ARITH ? ~0ull : ~0x8d5ull;
		uint64_t want = (p->rflags & ~RFLAGS_RF) | saved_rf(p);
		if ((A(GUEST_RFLAGS) & care) != (want & care))
			bad += report("guest RFLAGS", want, A(GUEST_RFLAGS), R_SAVE_STATE);
		hit(R_SAVE_STATE, true);
	}
	if (!bad) {
		exact_exits++;
		if (p->reason < XR_COUNT) {
			cells[p->reason][p->shape % VO_SHAPES]++;
			vo_feedback[R_COUNT * 2 + p->reason * VO_SHAPES + p->shape % VO_SHAPES] = 1;
		}
	}
	return bad;
}

/* The (reason x shape) cells the fuzzer can reach on skylake-lite: each
 * reason's shapes as the predictions number them (exceptions: #DE, #BP, #UD,
 * #GP, #SS, #PF read/write/in delivery, during delivery of a hardware
 * exception, software interrupt, software exception, other; I/O: 3 sizes x
 * string x direction; CR: the access types and registers; VMX instructions:
 * with and without an index or a memory operand...). MWAIT and MONITOR are
 * #UD there (no CPUID.01H:ECX.MONITOR). A list, so the percentage means
 * something. */
static const struct { uint8_t reason; uint8_t shapes; } possible[] = {
	{ XR_EXCEPTION, 11 }, { XR_CPUID, 1 }, { XR_HLT, 1 }, { XR_INVD, 1 }, { XR_INVLPG, 1 }, { XR_RDPMC, 1 },
	{ XR_RDTSC, 1 }, { XR_VMCALL, 1 }, { XR_VMCLEAR, 2 }, { XR_VMLAUNCH, 1 }, { XR_VMPTRLD, 2 },
	{ XR_VMPTRST, 2 }, { XR_VMREAD, 3 }, { XR_VMRESUME, 1 }, { XR_VMWRITE, 3 }, { XR_VMXOFF, 1 },
	{ XR_VMXON, 2 }, { XR_CR, 8 }, { XR_DR, 2 }, { XR_IO, 12 }, { XR_RDMSR, 1 }, { XR_WRMSR, 1 },
	{ XR_PAUSE, 1 }, { XR_GDTR_IDTR, 4 }, { XR_LDTR_TR, 5 },
	{ XR_INVALID_GUEST, 2 }, { XR_MSR_LOADING, 3 }, { XR_RDTSCP, 1 }, { XR_WBINVD, 1 }, { XR_XSETBV, 1 }, { XR_RDRAND, 2 }, { XR_RDSEED, 2 },
};

void vo_coverage_summary(struct vo_coverage_summary *s)
{
	*s = (struct vo_coverage_summary){ .predictions = predictions, .unknown = unknowns.total };
	for (unsigned r = 0; r < R_COUNT; r++) {
		if (!rules[r].name)
			continue;
		s->rules++;
		bool both = vo_rule_held[r] && vo_rule_not_held[r];
		if (both)
			s->rules_both_ways++;
		else if (vo_rule_held[r] || vo_rule_not_held[r])
			s->rules_one_way++;
		if (r < R_CHECKS_FIRST + VC_COUNT) {
			s->checks++;
			s->checks_both_ways += both;
		}
	}
	for (unsigned k = 0; k < sizeof(possible) / sizeof(possible[0]); k++) {
		s->cells_possible += possible[k].shapes;
		for (unsigned sh = 0; sh < possible[k].shapes; sh++)
			s->cells += cells[possible[k].reason][sh] != 0;
	}
}

void vo_print_coverage(void)
{
	fprintf(stderr, "vmx_oracle: %" PRIu64 " predictions: %" PRIu64 " exits, %" PRIu64 " VMfails and %" PRIu64
		" halts predicted exactly and agreed on, %" PRIu64 " unknown\n",
		predictions, exact_exits, vmfails_agreed, halts_agreed, unknowns.total);
	fprintf(stderr, "vmx_oracle: %-30s %10s %10s  citation\n", "rule", "held", "not held");
	for (unsigned r = 0; r < R_COUNT; r++)
		if (rules[r].name)
			fprintf(stderr, "vmx_oracle: %-30s %10" PRIu64 " %10" PRIu64 "  %s\n", rules[r].name,
				vo_rule_held[r], vo_rule_not_held[r], rules[r].cite);
	fprintf(stderr, "vmx_oracle: checks hvemu named as the failing one:\n");
	for (unsigned k = 0; k < VC_COUNT; k++)
		if (failure_cells[k])
			fprintf(stderr, "vmx_oracle:   %-30s %u\n", rules[R_CHECKS_FIRST + k].name, failure_cells[k]);
	fprintf(stderr, "vmx_oracle: exit reason x shape cells agreed on:\n");
	for (unsigned r = 0; r < XR_COUNT; r++)
		for (unsigned sh = 0; sh < VO_SHAPES; sh++)
			if (cells[r][sh])
				fprintf(stderr, "vmx_oracle:   reason %2u shape %2u: %u\n", r, sh, cells[r][sh]);
	struct vo_coverage_summary c;
	vo_coverage_summary(&c);
	fprintf(stderr, "vmx_oracle: %u of %u cells; entry checks both ways %u of %u\n", c.cells, c.cells_possible,
		c.checks_both_ways, c.checks);
	oracle_unknowns_print(&unknowns, "vmx_oracle", 50);
}
