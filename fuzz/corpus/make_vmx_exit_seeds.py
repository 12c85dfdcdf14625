#!/usr/bin/env python3
"""Writes the seed corpus of vmx_exit_fuzz (fuzz/corpus/vmx_exit_fuzz/):
structured inputs in the layout fuzz/vmx_exit_fuzz.c reads, one per family
of exit or VM-entry check the oracle (fuzz/vmx_oracle*.c) predicts. The
template numbers are read from enum vo_op (fuzz/vmx_oracle.h). The files are
committed; run this after changing the input layout:

    python3 fuzz/corpus/make_vmx_exit_seeds.py fuzz/corpus
"""
import os
import struct
import sys

import exit_seeds

OPS = exit_seeds.template_numbers('vmx_oracle.h', 'vo_op', 'VO_')
# vmx_exit_controls() bits (fuzz/vmx_exit_vmcs.c)
CTL = {'HLT': 0, 'INVLPG': 1, 'MWAIT': 2, 'RDPMC': 3, 'RDTSC': 4, 'CR3_LOAD': 5, 'CR3_STORE': 6,
       'CR8_LOAD': 7, 'CR8_STORE': 8, 'MOV_DR': 9, 'UNCOND_IO': 10, 'IO_BITMAPS': 11, 'MSR_BITMAPS': 12,
       'MONITOR': 13, 'PAUSE': 14, 'DESC_TABLE': 15, 'RDTSCP': 16, 'WBINVD': 17, 'RDRAND': 18,
       'RDSEED': 19, 'SECONDARY': 20, 'CR0_MASK': 27, 'CR4_MASK': 28, 'SHADOW_FLIP': 29}
# exception bitmap byte: #DE #DB #BP #UD #GP #PF #SS #NP
EXC = {'DE': 1, 'DB': 2, 'BP': 4, 'UD': 8, 'GP': 16, 'PF': 32, 'SS': 64, 'NP': 128}


def seed(guest=0, ctl=(), cr3_targets=0, cr=0, exc=(), pf=0, muts=(), insns=()):
    bits = sum(1 << CTL[c] for c in ctl) | (cr3_targets << 21)
    b = bytes([guest]) + struct.pack('<I', bits) + bytes([cr, sum(EXC[e] for e in exc), pf])
    return b + exit_seeds.tail(OPS, muts, insns)


SEEDS = {
    'cpuid32': seed(insns=[('CPUID',)]),
    'cpuid64': seed(guest=1, insns=[('NOP',), ('CPUID',)]),
    'exiting_controls': seed(ctl=('HLT', 'INVLPG', 'RDPMC', 'RDTSC', 'PAUSE', 'SECONDARY', 'RDTSCP', 'WBINVD'),
                             insns=[('INVLPG', 0, 8), ('RDTSC',), ('RDPMC',), ('PAUSE',), ('RDTSCP',), ('WBINVD',)]),
    'io_unconditional': seed(ctl=('UNCOND_IO',), insns=[('OUT', 0, 1, 1), ('IN', 2, 2)]),
    'io_string64': seed(guest=1, ctl=('UNCOND_IO',), insns=[('OUTS', 3, 1, 0x22), ('INS', 1, 2, 6)]),
    'io_bitmaps': seed(ctl=('IO_BITMAPS',), insns=[('OUT', 4, 1, 0, 2), ('IN', 6, 0, 1, 1), ('OUTS', 5, 2, 2, 1)]),
    'msr_bitmaps': seed(ctl=('MSR_BITMAPS',), insns=[('RDMSR', 0, 0, 0, 0), ('WRMSR', 3, 0, 0, 1), ('RDMSR', 7)]),
    'cr_access': seed(ctl=('CR3_LOAD', 'CR3_STORE', 'CR0_MASK', 'SHADOW_FLIP'), cr3_targets=1, cr=0x0f,
                      insns=[('MOV_TO_CR', 1, 0, 1, 0), ('MOV_TO_CR', 0, 2, 0, 3), ('CLTS',), ('LMSW', 0, 1, 2),
                             ('MOV_FROM_CR', 1, 3)]),
    'cr8_64': seed(guest=1, ctl=('CR8_LOAD', 'CR8_STORE'), insns=[('MOV_FROM_CR', 4, 5), ('MOV_TO_CR', 4, 9)]),
    'mov_dr': seed(ctl=('MOV_DR',), insns=[('MOV_FROM_DR', 1, 2), ('MOV_TO_DR', 4, 3)]),
    'desc_tables32': seed(ctl=('SECONDARY', 'DESC_TABLE'),
                          insns=[('SGDT', 0, 0, 0x0a, 0x4a), ('LLDT', 1, 0, 0x11, 0x06), ('STR', 0, 3)]),
    'desc_tables64': seed(guest=1, ctl=('SECONDARY', 'DESC_TABLE'),
                          insns=[('LIDT', 0, 0, 0x23, 0x5f), ('SLDT', 0, 9)]),
    'vmx_insns64': seed(guest=1, insns=[('VMREAD', 1, 2, 0x2b, 0x33), ('VMWRITE', 0, 3, 4)]),
    'vmx_memory32': seed(insns=[('VMPTRLD', 0, 0, 0x0c, 0x1a)]),
    'vmxon_index64': seed(guest=1, insns=[('VMXON', 0, 0, 0x29, 0x0f)]),
    'vmptrld_rip_relative64': seed(guest=1, insns=[('VMPTRLD', 0, 0, 0x46, 0)]),
    'rdrand64': seed(guest=1, ctl=('SECONDARY', 'RDRAND', 'RDSEED'), insns=[('RDRAND', 2, 4), ('RDSEED', 1)]),
    'xsetbv_osxsave': seed(guest=0x10, insns=[('XSETBV', 0)]),
    'exceptions': seed(exc=('UD', 'BP', 'DE'), insns=[('INT3',), ('UD2',), ('DIV0',)]),
    'pf_pfec': seed(exc=('PF',), pf=0x9, insns=[('LOAD', 1, 4), ('STORE', 1, 8)]),
    'idt_vectoring': seed(guest=0x0c, exc=('GP',), insns=[('INTN', 0x80)]),
    'idt_hole_pf': seed(guest=0x04, exc=('PF',), insns=[('UD2',)]),
    'frame_pf': seed(exc=('PF',), insns=[('SETSP', 0, 0), ('UD2',)]),
    'halt_in_guest': seed(insns=[('NOP',)]),
}
# One seed per mutation family, each to the failing side (fuzz/vmx_exit_vmcs.c
# vmx_exit_mutate: op, a, b).
MUTATIONS = {
    'check_control_reserved': (0, 0x81, 1), 'check_cr3_targets': (1, 1, 0), 'check_bitmap_address': (2, 0, 3),
    'check_virtual_nmis': (3, 2, 0), 'check_vpid_zero': (4, 1, 0), 'check_preempt_save': (5, 0, 0),
    'check_msr_list': (6, 4, 0), 'check_injection': (7, 0x01, 0), 'check_entry_smm': (8, 1, 0),
    'check_host_cr': (9, 2, 1), 'check_host_selectors': (10, 0, 1), 'check_guest_cr': (11, 2, 0),
    'check_segment_ar': (12, 0x08, 0), 'check_guest_bases': (13, 1, 0), 'check_rflags': (14, 1, 0),
    'check_link_pointer': (15, 3, 1), 'msr_load_entry2_fails': (6, 2, 3), 'msr_load_passes': (6, 2, 1),
}
for name, m in MUTATIONS.items():
    SEEDS[name] = seed(muts=[m], insns=[('CPUID',)])

exit_seeds.write(os.path.join(sys.argv[1] if len(sys.argv) > 1 else exit_seeds.HERE, 'vmx_exit_fuzz'), SEEDS)
