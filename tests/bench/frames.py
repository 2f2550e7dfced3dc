#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Sizes of the frames in a probe stream: `frames.py FILE [SKIP]` prints
the mean size in bytes (header included) of SAMPLE frames after the first
SKIP ones, the number counted, and the HELLO+SCHEMA bytes."""
import sys

data = open(sys.argv[1], "rb").read()
skip = int(sys.argv[2]) if len(sys.argv) > 2 else 2
off, samples, first = 0, [], 0
while off < len(data):
    t = data[off]
    n, shift, i = 0, 0, off + 1
    while True:
        b = data[i]
        n |= (b & 0x7F) << shift
        shift += 7
        i += 1
        if not b & 0x80:
            break
    size = i - off + n
    if t == 3:
        samples.append(size)
    elif t in (1, 2):
        first += size
    off += size
steady = samples[skip:]
mean = sum(steady) / len(steady) if steady else 0.0
print("%.1f %d %d" % (mean, len(steady), first))
