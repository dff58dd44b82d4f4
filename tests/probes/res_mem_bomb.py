#!/usr/bin/python3
"""res_mem_bomb.py - a 10 GB allocation, touched, must fail (MemoryError or a kill).

A memory bomb that "succeeds quietly" must never look ok, so a MemoryError
exits 2, not 0: the test asserts the record status is never ok.
NEVER run bare: it would really take 10 GB of the host's memory.
"""
import os
import sys

if os.environ.get("SBX_PROBE_BARE"):
    print("ERROR: res_mem_bomb must not run outside a jail")
    sys.exit(2)
try:
    b = bytearray(10**10)
    for i in range(0, len(b), 4096):
        b[i] = 1
except MemoryError:
    print("BLOCKED: MemoryError allocating 10 GB", flush=True)
    sys.exit(2)
print("ESCAPED: allocated and touched 10 GB")
sys.exit(1)
