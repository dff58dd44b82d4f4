#!/usr/bin/python3
"""net_dns.py - name resolution must fail at once (no resolver, no route)."""
import socket
import sys
import time

t0 = time.monotonic()
try:
    addrs = socket.getaddrinfo("example.com", 443, proto=socket.IPPROTO_TCP)
except (socket.gaierror, OSError) as e:
    print(f"BLOCKED: getaddrinfo(example.com) failed after {time.monotonic() - t0:.3f} s: {e}")
    sys.exit(0)
print(f"ESCAPED: example.com resolved to {addrs[0][4][0]}")
sys.exit(1)
