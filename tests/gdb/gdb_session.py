#!/usr/bin/env python3
"""Drives Debian's gdb (and a small RSP client of its own) against
`hvemu run --gdb`: registers in protected and 64-bit mode, breakpoints,
stepping, a watchpoint, memory reads and writes, monitor commands, a VM-exit
stop, reverse-stepi (over a VM exit too) and reverse-continue, the interrupt
byte, malformed packets, and the --break stops without gdb, the monitor's
VMCS, APIC and page-walk dumps. usage: gdb_session.py HVEMU HELLO_ELF SVM_ELF
SMP_ELF SEG_FAULTS_ELF VMX_EXITS_ELF SVM_CHECKS_ELF

Exit status: 0 when every check held, 1 on a failure, 77 (skip) without gdb."""
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HVEMU, HELLO, SVM, SMP, SEGF, VMX, SVM_CHECKS = sys.argv[1:8]
failures = 0
checks = 0


def check(name, cond, detail=''):
    global failures, checks
    checks += 1
    print(('ok' if cond else 'not ok') + ' - ' + name)
    if not cond:
        failures += 1
        for line in str(detail).splitlines()[-40:]:
            print('#   ' + line)


def start(args, sock):
    """hvemu with --gdb unix:SOCK --gdb-wait and args; waits for the socket."""
    if os.path.exists(sock):
        os.unlink(sock)
    p = subprocess.Popen([HVEMU, 'run', '--gdb', 'unix:' + sock, '--gdb-wait'] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    return p


def finish(p):
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    # Under -Db_sanitize=address,undefined: a report fails the run.
    if 'Sanitizer' in err or 'runtime error' in err:
        check('hvemu ran without a sanitizer report', False, err)
    return p.returncode, out, err


def gdb(sock, cmds, pre=()):
    argv = ['gdb', '-batch', '-nx']
    for c in list(pre) + ['target remote ' + sock] + list(cmds):
        argv += ['-ex', c]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    return r.stdout


def protected_mode(tmp):
    """The 32-bit hello guest: registers, a breakpoint on a symbol, stepi,
    memory write and read back, monitor info cpu, run to the end."""
    sock = os.path.join(tmp, 'pm.sock')
    p = start(['--kernel', HELLO, '--firmware', 'none'], sock)
    out = gdb(sock, ['info registers rip eflags cs eax', 'break guest_main', 'continue', 'p $pc', 'stepi',
                     'p $pc', 'monitor info cpu', 'set {int}0x300000 = 0x12345678', 'x/wx 0x300000',
                     'p/x $cr0', 'info threads', 'continue'],
              pre=['set architecture i386:x86-64', 'file ' + HELLO])
    rc, _, err = finish(p)
    check('pm: stopped before the first instruction at _start', 'rip            0x10000c' in out and '<_start>' in out, out)
    check('pm: multiboot EAX magic read', 'eax            0x2badb002' in out, out)
    check('pm: breakpoint on guest_main hit', 'Breakpoint 1, guest_main ()' in out, out)
    check('pm: stepi moved past the breakpoint', '<guest_main+' in out, out)
    check('pm: monitor info cpu says protected mode, CPL 0', 'protected mode, CPL 0' in out, out)
    check('pm: memory written and read back', '0x300000:\t0x12345678' in out, out)
    check('pm: CR0 read (PE=1, PG=0)', '$3 = 0x11' in out or '= 0x11\n' in out, out)
    check('pm: one thread per CPU listed', 'Thread 1 (CPU 0, protected mode' in out, out)
    check('pm: the guest passed and gdb saw it exit with its status',
          'exited with code 01' in out and rc == 1, out + err)


def i386_model(tmp):
    """A model without long mode gets the i386 description: gdb takes it
    with the 32-bit ELF as it is."""
    sock = os.path.join(tmp, 'i386.sock')
    p = start(['--kernel', HELLO, '--firmware', 'none', '--cpu', 'opteron-g3'], sock)
    out = gdb(sock, ['info registers eip eax cr0', 'break guest_main', 'continue', 'stepi', 'x/i $pc', 'kill'],
              pre=['file ' + HELLO])
    finish(p)
    check('i386: eip and eax in the i386 layout', 'eip            0x10000c' in out and
          'eax            0x2badb002' in out, out)
    # 32-bit disassembly: no REX prefixes read into it (the exact
    # instruction depends on the compiler that built the guest).
    check('i386: breakpoint, stepi and 32-bit disassembly', 'Breakpoint 1, guest_main ()' in out and
          re.search(r'=> 0x[0-9a-f]+ <guest_main\+\d+>:\t[a-z]+ ', out) is not None and '%r' not in out, out)


LOOP64 = bytes.fromhex('48b88877665544332211'  # mov rax, 0x1122334455667788
                       '48c7c300002000'        # mov rbx, 0x200000
                       '48ff03'                # 0x100011: inc qword [rbx]
                       '48ffc1'                # inc rcx
                       'ebf8')                 # jmp 0x100011


def long_mode(tmp):
    """A flat 64-bit loop: 64-bit registers, a write watchpoint that fires
    twice, register and memory writes, disassembly, kill."""
    img = os.path.join(tmp, 'loop64.bin')
    with open(img, 'wb') as f:
        f.write(LOOP64)
    sock = os.path.join(tmp, 'lm.sock')
    p = start(['--load', img + '@0x100000', '--entry64', '0x100000'], sock)
    out = gdb(sock, ['stepi', 'p/x $rax', 'info registers efer', 'monitor info cpu',
                     'watch *(long*)0x200000', 'continue', 'continue', 'p/x $rip', 'delete',
                     'set var $rcx = 0x42', 'p $rcx', 'set {long}0x200000 = 100', 'x/gx 0x200000',
                     'x/2i $pc', 'monitor xp 0x100000 8', 'monitor icount', 'hbreak *0x100017', 'continue',
                     'kill'])
    rc, _, err = finish(p)
    check('lm: 64-bit RAX after one step', '$1 = 0x1122334455667788' in out, out)
    check('lm: EFER has LME and LMA', 'efer           0x500' in out, out)
    check('lm: monitor info cpu says 64-bit mode', '64-bit mode, CPL 0' in out, out)
    check('lm: watchpoint fired with old and new values', 'Old value = 0\nNew value = 1' in out and
          'Old value = 1\nNew value = 2' in out, out)
    check('lm: stopped after the writing instruction', '$2 = 0x100014' in out, out)
    check('lm: register write', '$3 = 66' in out, out)
    check('lm: memory write through the page tables', '0x200000:\t0x0000000000000064' in out, out)
    check('lm: disassembly of guest memory', 'inc    %rcx' in out, out)
    check('lm: monitor xp reads physical memory', '0000000000100000: 48 b8 88 77 66 55 44 33' in out, out)
    check('lm: hardware breakpoint (Z1)', 'Hardware assisted breakpoint 2 at 0x100017' in out and 'Breakpoint 2, 0x0000000000100017' in out, out)
    check('lm: kill ends the run (status 12)', 'killed' in out and rc == 12 and 'killed by gdb' in err, out + err)


WATCH64 = bytes.fromhex('48c7c300002000'  # 0x100000: mov rbx, 0x200000
                        '488b5308'        # 0x100007: mov rdx, [rbx+8]   (reads 0x200008)
                        '48894b10'        # 0x10000b: mov [rbx+16], rcx  (writes 0x200010)
                        '48ffc1'          # 0x10000f: inc rcx
                        'ebf3')           # 0x100012: jmp 0x100007


def watch_kinds(tmp):
    """Z3 read and Z4 access watchpoints (cli/gdbstub.c, emu/access_watch.h):
    each fires after the instruction whose access touched its range, a read
    watchpoint not on a write; and going back to the previous access."""
    img = os.path.join(tmp, 'watch64.bin')
    with open(img, 'wb') as f:
        f.write(WATCH64)
    sock = os.path.join(tmp, 'wk.sock')
    p = start(['--load', img + '@0x100000', '--entry64', '0x100000'], sock)
    out = gdb(sock, ['rwatch *(long*)0x200008', 'continue', 'p/x $pc', 'delete',
                     'rwatch *(long*)0x200010', 'break *0x100012', 'continue', 'p/x $pc', 'delete',
                     'awatch *(long*)0x200010', 'continue', 'p/x $pc', 'p $rcx', 'continue', 'p $rcx',
                     'reverse-continue', 'p/x $pc', 'p $rcx', 'kill'])
    finish(p)
    check('wk: read watchpoint (Z3) stops after the reading instruction',
          'Hardware read watchpoint 1: *(long*)0x200008' in out and '$1 = 0x10000b' in out, out)
    check('wk: a read watchpoint does not fire on a write (the breakpoint after it does)',
          'Breakpoint 3, 0x0000000000100012' in out and '$2 = 0x100012' in out, out)
    check('wk: access watchpoint (Z4) fires on the write, once per access',
          'Hardware access (read/write) watchpoint 4: *(long*)0x200010' in out and '$3 = 0x10000f' in out and
          'Old value = 0\nNew value = 1' in out and '$4 = 1' in out and '$5 = 2' in out, out)
    # Back to just after the write of 1 (RCX not yet incremented past it).
    check('wk: reverse-continue stops after the previous access', 'Old value = 2\nNew value = 1' in out and
          '$6 = 0x10000f' in out and '$7 = 1' in out, out)


def smp(tmp):
    """--smp 2: a gdb thread per CPU; a breakpoint the AP hits is reported
    on its thread; stepping the machine one instruction at a time still
    runs both CPUs' turns (the guest passes)."""
    sock = os.path.join(tmp, 'smp.sock')
    p = start(['--kernel', SMP, '--firmware', 'none', '--smp', '2'], sock)
    out = gdb(sock, ['info threads', 'break ap_main', 'continue', 'monitor info cpu', 'info threads',
                     'thread 1', 'delete', 'continue'],
              pre=['set architecture i386:x86-64', 'file ' + SMP])
    rc, _, err = finish(p)
    check('smp: two threads, the AP waiting for its SIPI', 'Thread 2 (CPU 1, real mode, L1 (host), halted)' in out, out)
    check('smp: the AP hit its breakpoint on thread 2', 'Thread 2 hit Breakpoint 1, ap_main ()' in out, out)
    check('smp: monitor info cpu shows the CPU that stopped', 'CPU 1 (APIC ID 1): protected mode' in out, out)
    check('smp: the guest passed', 'exited with code 01' in out and rc == 1, out + err)


def vmexit(tmp):
    """--break vmexit=ioio on an SVM guest: gdb sees the stop and its report."""
    sock = os.path.join(tmp, 'svm.sock')
    p = start(['--kernel', SVM, '--firmware', 'none', '--cpu', 'epyc-lite', '--break', 'vmexit=ioio'], sock)
    out = gdb(sock, ['continue', 'monitor info cpu', 'eval "monitor info vmcb 0x%lx", $rax', 'kill'])
    finish(p)
    check('svm: monitor info vmcb decodes EXITCODE and EXITINFO2 (the next rIP)',
          re.search(r'\n  070 EXITCODE +0x7b\n', out) is not None and ' EXITINFO2 ' in out, out)
    check('svm: VM-exit stop reported to gdb', 'hvemu: break: svm exit VMEXIT_IOIO (0x7b)' in out, out)
    check('svm: stopped in L1 after the exit', 'L1 (host)' in out and 'SIGTRAP' in out, out)


def icounts(out):
    """The times `monitor info cpu` printed, in order."""
    return [int(v) for v in re.findall(r'icount=(\d+)', out)]


def reverse_hello(tmp):
    """reverse-continue back to the previous breakpoint hit, reverse-stepi
    back over two steps, the start of the history, then the run to its end
    with the serial output of a run without gdb."""
    plain = subprocess.run([HVEMU, 'run', '--kernel', HELLO, '--firmware', 'none'], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    sock = os.path.join(tmp, 'rev.sock')
    p = start(['--kernel', HELLO, '--firmware', 'none', '--reverse-interval', '5000'], sock)
    out = gdb(sock, ['break putch', 'continue', 'continue', 'monitor info cpu', 'continue', 'monitor info cpu',
                     'reverse-continue', 'monitor info cpu', 'p/x $pc', 'stepi', 'stepi', 'monitor info cpu',
                     'reverse-stepi', 'reverse-stepi', 'monitor info cpu', 'p/x $pc',
                     'reverse-continue', 'monitor info cpu', 'reverse-continue', 'reverse-continue',
                     'delete', 'continue'],
              pre=['set architecture i386:x86-64', 'file ' + HELLO])
    rc, stdout, err = finish(p)
    t = icounts(out)
    check('reverse: six stops with their times', len(t) == 6, out)
    if len(t) == 6:
        check('reverse: reverse-continue went back to the previous breakpoint hit, at its time',
              t[2] == t[0] and t[1] > t[0], out)
        check('reverse: two reverse-stepi undid two stepi', t[3] == t[2] + 2 and t[4] == t[2], out)
        check('reverse: reverse-continue again went to the hit before', t[5] < t[0], out)
    check('reverse: back at putch', out.count('$2 = 0x10006f') == 1 and '$1 = 0x10006f' in out, out)
    check('reverse: the start of the history is reported', 'No more reverse-execution history.' in out, out)
    check('reverse: the run went on to its end', 'exited with code 01' in out and rc == 1, out + err)
    check('reverse: the serial output is that of a run without gdb, written once', stdout == plain.stdout,
          stdout + '\n---\n' + plain.stdout)


def reverse_smp(tmp):
    """--smp 2: reverse-continue back to the AP's first breakpoint hit (it
    hits ap_main again after its INIT), on its thread at its time; two
    reverse-stepi undo two stepi; then the run ends as one without gdb."""
    plain = subprocess.run([HVEMU, 'run', '--kernel', SMP, '--firmware', 'none', '--smp', '2'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    sock = os.path.join(tmp, 'rsmp.sock')
    p = start(['--kernel', SMP, '--firmware', 'none', '--smp', '2', '--reverse-interval', '100000'], sock)
    out = gdb(sock, ['break ap_main', 'continue', 'monitor info cpu', 'continue', 'monitor info cpu',
                     'reverse-continue', 'monitor info cpu', 'thread', 'stepi', 'stepi', 'monitor info cpu',
                     'reverse-stepi', 'reverse-stepi', 'monitor info cpu', 'delete', 'continue'],
              pre=['set architecture i386:x86-64', 'file ' + SMP])
    rc, stdout, err = finish(p)
    t = icounts(out)
    check('reverse smp: five stops with their times', len(t) == 5, out)
    if len(t) == 5:
        check('reverse smp: reverse-continue went back to the first hit, at its time', t[2] == t[0] and t[1] > t[0],
              out)
        check('reverse smp: two reverse-stepi undid two stepi', t[3] > t[2] and t[4] == t[2], out)
    check('reverse smp: back on the AP\'s thread', out.count('Thread 2 hit Breakpoint 1, ap_main ()') >= 3 and
          '[Current thread is 2' in out, out)
    check('reverse smp: the run went on to its end', 'exited with code 01' in out and rc == 1, out + err)
    check('reverse smp: the serial output is that of a run without gdb', stdout == plain.stdout,
          stdout + '\n---\n' + plain.stdout)


def reverse_vmexit(tmp):
    """reverse-stepi over a VM exit: from the stop after an SVM #VMEXIT back
    into L2's intercepted instruction, or to L1's VMRUN when L2 exits on its
    first instruction (the first exit here: world switches take no time);
    stepi comes back to the exit; reverse-continue from the next exit stop
    returns to the first."""
    sock = os.path.join(tmp, 'rsvm.sock')
    p = start(['--kernel', SVM, '--firmware', 'none', '--cpu', 'epyc-lite', '--break', 'vmexit=ioio',
               '--reverse-interval', '20000'], sock)
    out = gdb(sock, ['continue', 'monitor info cpu', 'p/x $pc', 'reverse-stepi', 'monitor info cpu', 'x/i $pc',
                     'stepi', 'monitor info cpu', 'p/x $pc', 'continue', 'monitor info cpu',
                     'reverse-stepi', 'monitor info cpu', 'p/x $pc', 'stepi',
                     'reverse-continue', 'monitor info cpu', 'p/x $pc', 'kill'])
    finish(p)
    t = icounts(out)
    pcs = re.findall(r'\$\d+ = (0x[0-9a-f]+)', out)
    check('reverse svm: six stops with their times', len(t) == 6 and len(pcs) == 4, out)
    check('reverse svm: reverse-stepi from the first exit stop went to VMRUN in L1',
          re.search(r'=> 0x[0-9a-f]+:\tvmrun', out) is not None, out)
    if len(t) == 6 and len(pcs) == 4:
        check('reverse svm: stepi came back to the exit stop, and reverse-continue to it from the next',
              pcs[0] == pcs[1] == pcs[3] and t[0] == t[1] == t[2] == t[5] and t[3] > t[0], out)
        check('reverse svm: reverse-stepi from the second exit stop went into L2, at the exiting instruction',
              'L2 (SVM guest)' in out and ('of the guest at 0008:%x;' % int(pcs[2], 16)) in out and
              pcs[2] != pcs[0] and t[4] == t[3], out)


def vmx_info(tmp):
    """A VMX exit stop (CPUID, SDM Vol.3 Appendix C reason 10): monitor info
    vmcs names the current VMCS's fields; info apic and info walk decode the
    APIC and a translation."""
    sock = os.path.join(tmp, 'vmx.sock')
    p = start(['--kernel', VMX, '--firmware', 'none', '--break', 'vmexit=cpuid'], sock)
    out = gdb(sock, ['continue', 'monitor info vmcs', 'monitor info apic', 'monitor info walk 0x100000',
                     'monitor info walk 0xfffff000', 'monitor info walk x', 'kill'])
    finish(p)
    check('vmx: VM-exit stop reported to gdb', 'hvemu: break: vmx exit CPUID (0xa)' in out, out)
    check('vmx: info vmcs shows the current VMCS, launched', 'launch state launched' in out, out)
    check('vmx: info vmcs decodes the exit reason (SDM Appendix C: CPUID = 10)',
          re.search(r'\n  4402 exit reason +a\n', out) is not None, out)
    check('vmx: info vmcs names the guest RIP field', re.search(r'\n  681e guest RIP +[0-9a-f]+\n', out) is not None, out)
    check('vmx: info apic decodes the APIC (xAPIC, LVT, IRR)',
          'local APIC of CPU 0: xAPIC' in out and 'LVT timer' in out and 'IRR:' in out, out)
    check('vmx: info walk translates an identity-mapped address',
          '-> physical 0000000000100000' in out or 'off paging' in out, out)
    check('vmx: info walk of a bad argument prints the usage', 'usage: info walk LINEAR-ADDRESS' in out, out)
    # An SVM CPU has no VMCS.
    p = start(['--kernel', SVM, '--firmware', 'none', '--cpu', 'epyc-lite', '--break', 'vmexit=ioio'], sock)
    out = gdb(sock, ['continue', 'monitor info vmcs', 'kill'])
    finish(p)
    check('svm: info vmcs says the CPU has no VMX', 'CPU 0 has no VMX' in out, out)


class Rsp:
    """A minimal RSP client: enough to send what gdb would not."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(100):
            try:
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        self.s.settimeout(30)
        self.buf = b''
        self.noack = False

    def raw(self, data):
        self.s.sendall(data)

    def send(self, pkt):
        data = pkt.encode() if isinstance(pkt, str) else pkt
        self.raw(b'$' + data + b'#%02x' % (sum(data) & 0xff))

    def read_packet(self):
        """The next packet's data (acknowledged), skipping acks."""
        while True:
            while b'#' not in self.buf or len(self.buf) - self.buf.index(b'#') < 3:
                chunk = self.s.recv(65536)
                if not chunk:
                    return None
                self.buf += chunk
            start = self.buf.find(b'$')
            end = self.buf.index(b'#')
            if start < 0 or start > end:
                self.buf = self.buf[end + 1:]
                continue
            data = self.buf[start + 1:end]
            self.buf = self.buf[end + 3:]
            if not self.noack:
                self.raw(b'+')
            return data.decode('latin-1')

    def ask(self, pkt):
        self.send(pkt)
        return self.read_packet()


def raw_client(tmp):
    """The interrupt byte while running, and answers to bad packets."""
    img = os.path.join(tmp, 'loop64.bin')
    sock = os.path.join(tmp, 'raw.sock')
    p = start(['--load', img + '@0x100000', '--entry64', '0x100000'], sock)
    c = Rsp(sock)
    check('rsp: qSupported answered', 'PacketSize=' in (c.ask('qSupported:swbreak+;hwbreak+') or ''))
    check('rsp: ? is a stop reply', (c.ask('?') or '').startswith('T05'))
    c.raw(b'$m100000,4#00')  # bad checksum
    got = c.s.recv(1)
    check('rsp: a bad checksum is answered with -', got == b'-', got)
    check('rsp: huge m length is capped, not refused',
          len(c.ask('m100000,ffffffffffffffff') or '') > 8)
    check('rsp: unmapped address is E01', c.ask('mffff800000000000,10') == 'E01')
    check('rsp: malformed m is E01', c.ask('mzz') == 'E01')
    check('rsp: bad register number is E01', c.ask('p9999') == 'E01')
    check('rsp: unknown packet gets the empty reply', c.ask('qHvemuNoSuchThing') == '')
    check('rsp: read (Z3) and access (Z4) watchpoints set and removed',
          [c.ask(x) for x in ('Z3,200000,8', 'Z4,200000,4', 'z3,200000,8', 'z4,200000,4')] == ['OK'] * 4)
    check('rsp: a watchpoint wider than 8 bytes is refused', c.ask('Z4,200000,9') == 'E0e')
    check('rsp: removing a watchpoint never set is OK', c.ask('z3,300000,8') == 'OK')
    check('rsp: bad thread is E01', c.ask('Hg99') == 'E01')
    check('rsp: M with short data is E01', c.ask('M200000,4:12') == 'E01')
    check('rsp: X writes binary data', c.ask(b'X200000,2:}\x03}\x04') == 'OK' and c.ask('m200000,2') == '2324')
    check('rsp: target.xml is x86-64', 'i386:x86-64' in (c.ask('qXfer:features:read:target.xml:0,ffff') or ''))
    # Hostile input: line noise, then packets of random bytes after a
    # command letter that reads, never resumes or writes (the stub must
    # answer each and stay up).
    rnd = random.Random(20)
    c.raw(bytes(rnd.choice(b'abc#}*+-\x00\xff') for _ in range(500)))
    answered = 0
    for _ in range(300):
        tail = bytes(rnd.randrange(1, 256) for _ in range(rnd.randrange(0, 40)))
        tail = tail.replace(b'$', b'a').replace(b'#', b'b').replace(b'}', b'c')
        if c.ask(bytes([rnd.choice(b'?gpmHTqQ')]) + tail) is not None:
            answered += 1
    check('rsp: 300 random read-only packets answered, stub still up',
          answered == 300 and (c.ask('?') or '').startswith('T'), answered)
    check('rsp: no-ack mode', c.ask('QStartNoAckMode') == 'OK')
    c.noack = True
    c.send('c')
    time.sleep(0.3)
    c.raw(b'\x03')
    check('rsp: 0x03 interrupts a running machine (T02)', (c.read_packet() or '').startswith('T02'))
    c.send('D')
    check('rsp: detach', c.read_packet() == 'OK')
    c.s.close()
    p.terminate()
    finish(p)


def run_cli(args):
    """hvemu run ARGS without gdb, to its end."""
    return subprocess.run([HVEMU, 'run'] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=60)


def without_gdb(tmp):
    """--break without --gdb: one line and status 20; bad arguments: status 2."""
    r = run_cli(['--kernel', SEGF, '--firmware', 'none', '--break', 'exception=GP'])
    check('cli: --break exception=GP stops as the #GP delivery begins, at the handler',
          r.returncode == 20 and 'hvemu: break: exception 13 #GP being delivered in L1' in r.stderr, r.stderr)
    img = os.path.join(tmp, 'ud2.bin')
    with open(img, 'wb') as f:
        f.write(bytes.fromhex('90' '0f0b'))   # nop; ud2 with no IDT: a triple fault
    r = run_cli(['--load', img + '@0x100000', '--entry64', '0x100000', '--break', 'exception=UD'])
    check('cli: a triple fault in the delivery that would stop wins (status 4)',
          r.returncode == 4 and 'triple fault' in r.stderr and 'break:' not in r.stderr, r.stderr)
    # At 1 MHz a port access is its instruction's one tick (devices/bus.h), so
    # the time passes through every count and the stop is exact.
    r = run_cli(['--kernel', HELLO, '--firmware', 'none', '--insn-rate', '1M', '--break', 'icount=1000'])
    check('cli: --break icount=1000 stops with status 20',
          r.returncode == 20 and 'hvemu: break: instruction count 1000 reached' in r.stderr, r.stderr)
    r = run_cli(['--kernel', SVM, '--firmware', 'none', '--cpu', 'epyc-lite', '--break', 'vmexit=msr,0x7b'])
    check('cli: --break vmexit= by name and number', r.returncode == 20 and 'VMEXIT_IOIO' in r.stderr, r.stderr)
    # Failed VM entries: APM2 15.5.1 (#VMEXIT(INVALID), code -1) and SDM Vol.3 26.2/30.4
    # (VMfailValid with the VM-instruction error, 7: invalid control fields).
    r = run_cli(['--kernel', SVM_CHECKS, '--firmware', 'none', '--cpu', 'epyc-lite', '--break', 'vmentry-fail'])
    check('cli: --break vmentry-fail stops at an SVM consistency-check failure',
          r.returncode == 20 and 'svm failed entry: exit VMEXIT_INVALID (0xffffffffffffffff)' in r.stderr, r.stderr)
    r = run_cli(['--kernel', VMX, '--firmware', 'none', '--break', 'vmentry-fail'])
    check('cli: --break vmentry-fail stops at a VMX VMfailValid',
          r.returncode == 20 and 'vmx failed entry: VMfailValid, VM-instruction error 7' in r.stderr, r.stderr)
    r = run_cli(['--kernel', SVM, '--firmware', 'none', '--cpu', 'epyc-lite', '--break', 'vmentry-fail'])
    check('cli: --break vmentry-fail does not stop at ordinary exits',
          r.returncode != 20 and 'break:' not in r.stderr, r.stderr)
    for bad in (['--break', 'vmexit=bogus'], ['--break', 'exception=300'], ['--break', 'nothing'],
                ['--break', 'vmentry-fail=1'],
                ['--gdb', 'tcp::0'], ['--gdb', 'udp:1'], ['--gdb-wait']):
        r = run_cli(['--kernel', HELLO] + bad)
        check('cli: ' + ' '.join(bad) + ' is a usage error',
              r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr)


def main():
    if not shutil.which('gdb'):
        print('# SKIP: gdb is not installed')
        return 77
    with tempfile.TemporaryDirectory(prefix='hvemu-gdb-') as tmp:
        protected_mode(tmp)
        i386_model(tmp)
        long_mode(tmp)
        watch_kinds(tmp)
        reverse_smp(tmp)
        smp(tmp)
        vmexit(tmp)
        reverse_hello(tmp)
        reverse_vmexit(tmp)


        vmx_info(tmp)
        raw_client(tmp)
        without_gdb(tmp)
    print('1..%d' % checks)
    if checks == 0:
        return 77
    return 1 if failures else 0


sys.exit(main())
