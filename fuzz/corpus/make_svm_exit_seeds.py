#!/usr/bin/env python3
"""Writes the seed corpus of svm_exit_fuzz (fuzz/corpus/svm_exit_fuzz/) and the
reproducers of fuzz/findings/ (see its README.md):
structured inputs in the layout fuzz/svm_exit_fuzz.c reads, one per class of
exit the oracle (fuzz/svm_oracle.c) predicts exactly. The template numbers are
read from enum oracle_op (fuzz/svm_oracle.h). The files are committed;
run this after changing the input layout:

    python3 fuzz/corpus/make_svm_exit_seeds.py fuzz/corpus fuzz/findings
"""
import os
import struct
import sys

import exit_seeds

OPS = exit_seeds.template_numbers('svm_oracle.h', 'oracle_op', 'OP_')
# svm_exit_misc_intercepts[] bit of each instruction intercept (fuzz/svm_exit_vmcb.c)
MISC = {'CPUID': 0, 'RDTSC': 1, 'RDTSCP': 2, 'RDPMC': 3, 'HLT': 4, 'PAUSE': 5, 'INVD': 6,
        'WBINVD': 7, 'VMMCALL': 8, 'INVLPG': 9, 'PUSHF': 10, 'IOIO': 11, 'MSR': 12, 'INTN': 13,
        'ICEBP': 14, 'XSETBV': 15, 'CR0_SEL': 16, 'MONITOR': 17, 'MWAIT': 18, 'IDTR_READ': 19,
        'GDTR_READ': 20, 'LDTR_READ': 21, 'TR_READ': 22, 'IDTR_WRITE': 23, 'GDTR_WRITE': 24,
        'LDTR_WRITE': 25, 'TR_WRITE': 26, 'RSM': 27, 'INVLPGA': 28, 'VMLOAD': 29, 'VMSAVE': 30,
        'STGI_CLGI': 31}
# exception intercept byte: #DE #BP #UD #GP #PF #SS #DB #NP
EXC = {'DE': 1, 'BP': 2, 'UD': 4, 'GP': 8, 'PF': 16, 'SS': 32, 'DB': 64, 'NP': 128}


def seed(guest=0, cr=0, dr=0, exc=(), misc=(), muts=(), insns=()):
    b = bytes([guest]) + struct.pack('<II', cr, dr)
    b += bytes([sum(EXC[e] for e in exc)])
    b += struct.pack('<I', sum(1 << MISC[m] for m in misc))
    return b + exit_seeds.tail(OPS, muts, insns)


ALL_EXC = tuple(EXC)
seeds = {
    # The Escape OS case: 32-bit guest, segment bases 4000_0000h, a 16-bit
    # far return whose pop wraps at 4 GiB onto the not-present page 7F000h.
    'escape_retf16_wrap': seed(guest=2, exc=('PF',), misc=('HLT',), insns=[('RETF16', 0, 0)]),
    # INTn through an IDT at FFFF_FF00h: the gate read wraps to page 0.
    'idt_wrap_intn': seed(guest=8, exc=('PF',), insns=[('INTN', 0x20)]),
    'pf_wrap_load': seed(guest=2, exc=('PF', 'GP'), insns=[('LOAD', 4, 0x10)]),
    'pf_cross_store': seed(exc=ALL_EXC, insns=[('STORE', 3, 0)]),
    'ioio_in_out': seed(misc=('IOIO',), insns=[('IN', 0, 2, 1, 1), ('OUT', 1, 1, 0, 1)]),
    'ioio_string': seed(misc=('IOIO',), insns=[('INS', 2, 0, 2, 1), ('OUTS', 3, 1, 0x0a, 1)]),
    'ioio_string64': seed(guest=1, misc=('IOIO',), insns=[('OUTS', 4, 2, 0x26, 2)]),
    'msr_rd_wr': seed(misc=('MSR',), insns=[('RDMSR', 3, 0, 0, 1), ('WRMSR', 5, 0, 0, 1)]),
    'msr_out_of_range': seed(guest=1, misc=('MSR',), insns=[('WRMSR', 9)]),
    'cr_dr_reads': seed(cr=0xffffffff, dr=0xffffffff, insns=[('MOV_FROM_CR', 2, 3), ('MOV_FROM_DR', 5, 1)]),
    'cr_writes64': seed(guest=1, cr=0xffff0000, insns=[('MOV_TO_CR', 2, 9, 1)]),
    'instructions64': seed(guest=1, misc=tuple(m for m in MISC if m not in ('IOIO', 'MSR')),
                           insns=[('NOP',), ('CPUID',), ('RDTSC',), ('INVLPG', 0, 8), ('VMMCALL',)]),
    'exceptions32': seed(exc=ALL_EXC, insns=[('NOP',), ('UD2',), ('DIV0',), ('INT3',)]),
    'xsetbv_ud_then_intercept': seed(guest=0x10, misc=('XSETBV',), insns=[('XSETBV', 1)]),
    'eventinj_gp_idt_hole': seed(guest=4, exc=('PF',), muts=[(9, 0x0b, 13)], insns=[('HLT',)]),
    'check_each': seed(muts=[(5, 0, 0), (7, 0, 0), (8, 1, 0)], insns=[('HLT',)]),
    'check_long_mode': seed(guest=1, muts=[(6, 2, 0), (12, 0, 0)], insns=[('HLT',)]),
    'descriptor_tables': seed(misc=('GDTR_READ', 'LDTR_WRITE'), insns=[('SIDT',), ('SGDT',), ('STR',), ('LLDT',)]),
    'svm_insns64': seed(guest=1, misc=('VMSAVE', 'STGI_CLGI', 'RSM'), insns=[('INVLPGA',), ('CLGI',), ('VMSAVE',)]),
    # 16-bit interrupt gates, SS base 4000_0000h, ESP such that the frame's
    # 16-bit pushes wrap at 4 GiB onto the not-present page: QEMU's PUSHW.
    'int_frame16_wrap': seed(guest=2 | 0x20, exc=('PF',), misc=('HLT',), insns=[('SETSP', 0, 0), ('INTN', 0x41)]),
    'ud_frame32_handler_hlt': seed(misc=('HLT',), insns=[('UD2',)]),
    'rsm_ud': seed(exc=('UD',), insns=[('RSM',)]),
    'check_maps': seed(muts=[(10, 1, 0), (11, 0, 0)], insns=[('HLT',)]),
}

out = os.path.join(sys.argv[1], 'svm_exit_fuzz')
exit_seeds.write(out, seeds)

# Two findings fixed in hvemu, now seeds that hold the fix (fuzz/findings/README.md).
fixed = {
    # RDPMC of counter 0 at CPL 0, not intercepted, then an intercepted CPUID.
    'rdpmc_counter0_cpl0': seed(misc=('CPUID',), exc=('GP',), insns=[('RDPMC',), ('CPUID',)]),
    # 32-bit guest, DS base 4000_0000h: SGDT [7E000h] stores to a page beyond
    # the mapping; #PF intercepted.
    'sgdt_pf_address': seed(guest=2, exc=('PF',), insns=[('SGDT',)]),
}
exit_seeds.write(out, fixed)

# Where the oracle, run with HVEMU_FUZZ_STRICT=1, disagrees with hvemu.
findings = {
    # 64-bit guest, CR8 write intercepted, MOV CR8, RAX with RAX bit 40 set.
    'mov_cr8_reserved_bits_intercepted': seed(guest=1, cr=1 << 24, exc=('GP',),
                                              insns=[('MOV_TO_CR', 4, 0, 0, 40)]),
}
if len(sys.argv) > 2:
    exit_seeds.write(sys.argv[2], findings)
