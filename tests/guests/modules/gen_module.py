#!/usr/bin/env python3
"""Write the modules guest's second module: 5000 bytes, byte i = (i * 7 + 3) mod 251,
so it spans two pages and the guest can check every byte (tests/guests/modules.c)."""
import sys

with open(sys.argv[1], 'wb') as f:
    f.write(bytes((i * 7 + 3) % 251 for i in range(5000)))
