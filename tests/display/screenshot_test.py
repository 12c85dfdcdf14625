#!/usr/bin/env python3
"""What a person would see: hvemu runs the vga_text guest and writes a
screenshot; this reads the PNG (Python's zlib, every PNG filter) and checks
its pixels against the screen the guest wrote: each title character against
the font table in devices/vga_font.c, the 16 colours as foregrounds and (with
blinking on) as backgrounds, the double-line box joined through the 9th dot,
the blinking word shown, and the cursor's scan lines 13-14.

usage: screenshot_test.py HVEMU GUEST_ELF FONT_C none|sdl|sdl-keys [KBD_ELF]
  none      --display none --screenshot
  sdl       the same under --display sdl in an Xvfb server; the screenshot
            (read back from the window) must also equal the none one
  sdl-keys  the kbd guest under --display sdl: xdotool types 'a' into the
            window, the guest must read its scan codes
Exit 77 (skip) only when no X server can start (or, for sdl-keys, xdotool
is missing).
"""
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

COLS, ROWS, CELL_W, CELL_H = 80, 25, 9, 16
# The BIOS's 16 colours (EGA palette, 6-bit DAC levels 0, 15h, 2Ah, 3Fh).
PALETTE = [0x000000, 0x0000aa, 0x00aa00, 0x00aaaa, 0xaa0000, 0xaa00aa, 0xaa5500, 0xaaaaaa,
           0x555555, 0x5555ff, 0x55ff55, 0x55ffff, 0xff5555, 0xff55ff, 0xffff55, 0xffffff]
SKIP = 77


def read_png(path):
    """(width, height, rows of 0xRRGGBB ints) of an 8-bit RGB PNG."""
    with open(path, 'rb') as f:
        data = f.read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG signature'
    pos, idat, width = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body) & 0xffffffff, f'bad CRC in {kind}'
        if kind == b'IHDR':
            width, height, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert (depth, ctype, interlace) == (8, 2, 0), 'not 8-bit RGB, non-interlaced'
        elif kind == b'IDAT':
            idat += body
        elif kind == b'IEND':
            break
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * 3
    assert len(raw) == height * (stride + 1), 'image data has the wrong size'
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b, c = prev[i], prev[i - 3] if i >= 3 else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xff
        rows.append([line[x * 3] << 16 | line[x * 3 + 1] << 8 | line[x * 3 + 2] for x in range(width)])
        prev = line
    return width, height, rows


def read_font(path):
    """The 256 glyphs of devices/vga_font.c: 16 row bytes each."""
    with open(path) as f:
        text = f.read()
    body = text[text.index('vga_font8x16'):text.index('vga_cp437_unicode')]
    glyphs = [[int(v, 16) for v in re.findall(r'0x([0-9a-f]{2})', row)]
              for row in re.findall(r'\{([^{}]*)\}', body)]
    assert len(glyphs) == 256 and all(len(g) == 16 for g in glyphs)
    return glyphs


class Screen:
    def __init__(self, path):
        self.width, self.height, self.rows = read_png(path)
        self.problems = []

    def px(self, row, col, x, y):
        return self.rows[row * CELL_H + y][col * CELL_W + x]

    def expect(self, what, got, want):
        if got != want:
            self.problems.append(f'{what}: {got:06x}, expected {want:06x}')

    def glyph(self, row, col, code, fg, bg, font):
        """The cell shows code in fg on bg (the 9th dot background)."""
        bad = 0
        for y in range(CELL_H):
            for x in range(CELL_W):
                on = x < 8 and font[code][y] & (0x80 >> x)
                bad += self.px(row, col, x, y) != (fg if on else bg)
        if bad:
            self.problems.append(f'cell ({row},{col}) code {code:02x}: {bad} pixels differ from the font')


def check_vga_text(path, font):
    s = Screen(path)
    if (s.width, s.height) != (COLS * CELL_W, ROWS * CELL_H):
        return [f'size {s.width}x{s.height}, expected 720x400']
    for i, ch in enumerate('hvemu VGA text mode'):
        s.glyph(0, 2 + i, ord(ch), PALETTE[15], PALETTE[1], font)
    s.expect('title bar background', s.px(0, 79, 4, 8), PALETTE[1])
    for c in range(16):
        s.expect(f'foreground {c}', s.px(2, c * 4 + 1, 4, 8), PALETTE[c])
        # AC10 bit 3 (blink) is on: attribute bit 7 blinks, backgrounds are 0-7.
        s.expect(f'background {c}', s.px(3, c * 4 + 1, 4, 8), PALETTE[c & 7])
    yellow = PALETTE[14]
    # The double line of the box's top edge: two yellow rows, through all 9
    # dots of each cell (line graphics repeat the 8th dot for C0h-DFh).
    lines = [y for y in range(CELL_H) if s.px(5, 5, 4, y) == yellow]
    if len(lines) != 2:
        s.problems.append(f'top edge of the box: {len(lines)} yellow rows, expected 2')
    for y in lines:
        for x in range(CELL_W):
            s.expect(f'box top edge dot {x}', s.px(5, 5, x, y), yellow)
    # The left edge (BAh) joins the corners: its lines reach both ends of the cell.
    s.glyph(6, 2, 0xba, yellow, PALETTE[0], font)
    for y in (0, CELL_H - 1):
        if not any(s.px(6, 2, x, y) == yellow for x in range(CELL_W)):
            s.problems.append(f'the box\'s left edge does not reach scan line {y}')
    s.glyph(6, 5, ord('B'), yellow, PALETTE[0], font)
    # The blinking word is shown (a still shows blink's on phase).
    s.glyph(9, 2, ord('B'), PALETTE[12], PALETTE[0], font)
    # Code page 437 symbols: the smiley (01h) and a shade (B1h).
    s.glyph(11, 2, 0x01, PALETTE[11], PALETTE[0], font)
    s.glyph(12, 3, 0xb1, PALETTE[11], PALETTE[0], font)
    # The cursor: scan lines 13 and 14 of (20,16), in the cell's foreground.
    for y in range(CELL_H):
        want = PALETTE[10] if y in (13, 14) else PALETTE[0]
        for x in range(CELL_W):
            s.expect(f'cursor cell dot ({x},{y})', s.px(20, 16, x, y), want)
    s.glyph(20, 2, ord('C'), PALETTE[10], PALETTE[0], font)
    return s.problems


def run(cmd, env=None, timeout=120):
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, env=env)
    sys.stdout.write(r.stdout.decode(errors='replace')[-3000:])
    sys.stdout.write(r.stderr.decode(errors='replace')[-3000:])
    return r.returncode


def start_xvfb():
    """(process, DISPLAY) of a new Xvfb server, or None when none can start."""
    xvfb = shutil.which('Xvfb')
    if not xvfb:
        print('SKIP: no Xvfb (Debian package xvfb)')
        return None
    rfd, wfd = os.pipe()
    proc = subprocess.Popen([xvfb, '-displayfd', str(wfd), '-screen', '0', '1024x768x24', '-nolisten', 'tcp'],
                            pass_fds=(wfd,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(wfd)
    number = b''
    deadline = time.time() + 20
    while time.time() < deadline and not number.endswith(b'\n'):
        chunk = os.read(rfd, 16)
        if not chunk:
            break
        number += chunk
    os.close(rfd)
    if not number.strip().isdigit():
        proc.kill()
        print('SKIP: Xvfb did not start:', proc.stderr.read().decode(errors='replace')[-500:])
        return None
    return proc, ':' + number.decode().strip()


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def window_keys(hvemu, kbd_elf, env, tmp):
    """The kbd guest under --display sdl; xdotool types 'a' into the window."""
    xdotool = shutil.which('xdotool')
    if not xdotool:
        print('SKIP: no xdotool (Debian package xdotool) to type into the window')
        return SKIP
    log = os.path.join(tmp, 'kbd.log')
    with open(log, 'wb') as out:
        guest = subprocess.Popen([hvemu, 'run', '--firmware', 'none', '--kernel', kbd_elf, '--cmdline', 'keys=window',
                                  '--display', 'sdl', '--serial', 'stdio', '--max-insns', '60000000000'],
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env)
        found = subprocess.run([xdotool, 'search', '--sync', '--name', '^hvemu$'], env=env,
                               capture_output=True, timeout=60)
        wid = found.stdout.split()[0].decode() if found.stdout.split() else None
        if wid:
            subprocess.run([xdotool, 'windowfocus', '--sync', wid], env=env, timeout=30)
            subprocess.run([xdotool, 'key', 'a'], env=env, timeout=30)
        try:
            status = guest.wait(timeout=300)
        except subprocess.TimeoutExpired:
            guest.kill()
            status = 'timeout'
    with open(log, 'rb') as f:
        text = f.read().decode(errors='replace')
    print(text[-3000:])
    if not wid:
        print('FAIL: the window did not appear')
        return 1
    if status != 1 or re.search(r'^not ok', text, re.M) or 'ok' not in text:
        print(f'FAIL: the guest ended with status {status}')
        return 1
    return 0


def main():
    hvemu, elf, font_c, mode = sys.argv[1:5]
    font = read_font(font_c)
    with tempfile.TemporaryDirectory(prefix='hvemu-shot-') as tmp:
        shot = os.path.join(tmp, 'screen.png')
        base = [hvemu, 'run', '--firmware', 'none', '--kernel', elf, '--serial', 'stdio', '--max-insns', '400000000']
        env, xvfb = dict(os.environ), None
        if mode != 'none':
            started = start_xvfb()
            if not started:
                return SKIP
            xvfb, env['DISPLAY'] = started
        try:
            if mode == 'sdl-keys':
                return window_keys(hvemu, sys.argv[5], env, tmp)
            status = run(base + ['--display', mode, '--screenshot', shot], env=env)
        finally:
            if xvfb:
                stop(xvfb)
        if status != 1:
            print(f'FAIL: hvemu exit status {status}, expected 1 (the guest passed)')
            return 1
        problems = check_vga_text(shot, font)
        if mode == 'sdl':
            ref = os.path.join(tmp, 'none.png')
            if run(base + ['--display', 'none', '--screenshot', ref]) != 1:
                problems.append('the --display none run failed')
            elif read_png(ref)[2] != read_png(shot)[2]:
                problems.append('the window shows other pixels than the VGA renders')
        keep = os.environ.get('HVEMU_SCREENSHOT_KEEP')
        if keep:
            shutil.copyfile(shot, keep)
        for p in problems[:40]:
            print('FAIL:', p)
        if not problems:
            print(f'ok: the {mode} screenshot shows the screen the guest wrote')
        return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
