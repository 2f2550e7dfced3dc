#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# jtr-craft: hostile recordings for the regress tests, written from the
# format in src/PROTOCOL.md (CRC-32C blocks).  Usage:
#   jtr-craft.py chain N OUT      META, then N one-entry INDEX blocks, each
#                                 pointing at the one before, and a TAIL:
#                                 an index chain of N hops (F10)
#   jtr-craft.py scan SIZE OUT    META, then SIZE bytes of zeros with a
#                                 fake INDEX header every 16 bytes, each
#                                 long enough to reach near the end; no
#                                 TAIL, so the reader searches backwards
#   jtr-craft.py meta FROM OUT    FROM with its META replaced: a node name
#                                 with escape sequences (refused)
#   jtr-craft.py names FROM OUT   FROM with job name and user set to CSV
#                                 formulas and escape sequences
#   jtr-craft.py alloc FROM OUT CPUS MEM LIMIT PART
#                                 FROM with the allocation fields of META
#                                 (minor 1 trailing fields) set: CPUS,
#                                 MEM bytes, LIMIT (seconds + 2, 1 none,
#                                 0 unknown) and the partition PART
import struct
import sys


def crc32c(d, c=0):
    table = crc32c.table
    c ^= 0xffffffff
    for b in d:
        c = table[(c ^ b) & 0xff] ^ (c >> 8)
    return c ^ 0xffffffff


def _table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82f63b78 & -(c & 1))
        t.append(c)
    return t


crc32c.table = _table()


def uvar(n):
    o = bytearray()
    while n >= 0x80:
        o.append((n & 0x7f) | 0x80)
        n >>= 7
    o.append(n)
    return bytes(o)


def svar(n):
    return uvar(((n << 1) ^ (n >> 63)) & 0xffffffffffffffff)


def s(b):
    return uvar(len(b)) + b


def rvar(buf, off):
    acc = sh = 0
    while True:
        b = buf[off]
        off += 1
        acc |= (b & 0x7f) << sh
        if not b & 0x80:
            return acc, off
        sh += 7


def block(t, p):
    h = bytes([t]) + uvar(len(p))
    return h + struct.pack('<I', crc32c(h + p)) + p


def read_blocks(d):
    off, out = 6, []
    while off < len(d):
        t = d[off]
        n, o2 = rvar(d, off + 1)
        out.append((t, d[o2 + 4:o2 + 4 + n]))
        off = o2 + 4 + n
    return d[:6], out


def meta(job=b'4242', name=b'crafted', user=b'u', host=b'h',
         nodes=(b'n1',), start=1795600000000, ivl=1000, key=60000, count=0):
    return (uvar(start) + uvar(ivl) + uvar(key) + s(b'0.1.0') + s(job) +
            s(name) + s(user) + s(host) + uvar(len(nodes)) +
            b''.join(s(n) for n in nodes) + uvar(count))


HEAD = b'JTRC\x01\x00'


def chain(n, out):
    buf = bytearray(HEAD) + block(1, meta())
    prev = 0
    for _ in range(n):
        at = len(buf)
        buf += block(5, b'JTIX' + uvar(prev) + svar(0) + uvar(1) + svar(0) +
                     uvar(6))
        prev = at
    buf += block(6, b'JTND' + struct.pack('<Q', prev))
    open(out, 'wb').write(buf)


def scan(size, out):
    buf = bytearray(HEAD) + block(1, meta())
    start = len(buf)
    buf += bytes(size)
    end = len(buf)
    for at in range(start, end - 64, 16):
        # type, a 4-byte varint length reaching 8 bytes before the end,
        # a CRC that does not match, the magic, prev 0, end 0, n = half
        # the payload (so the cheap checks pass and only a CRC can say no)
        ln = end - 8 - (at + 9)
        hdr = bytes([5]) + bytes([(ln & 0x7f) | 0x80, ((ln >> 7) & 0x7f) |
                                  0x80, ((ln >> 14) & 0x7f) | 0x80,
                                  (ln >> 21) & 0x7f])
        n = (ln - 8) // 20 + 1
        body = b'JTIX' + uvar(0) + svar(0) + uvar(n)
        rec = hdr + b'\0\0\0\0' + body
        buf[at:at + len(rec)] = rec
    open(out, 'wb').write(buf[:end])


def remeta(src, out, **kw):
    h, bl = read_blocks(open(src, 'rb').read())
    old = bl[0][1]
    # keep the original start, interval and keyframe interval
    start, o = rvar(old, 0)
    ivl, o = rvar(old, o)
    key, o = rvar(old, o)
    kw.setdefault('start', start)
    kw.setdefault('ivl', ivl)
    kw.setdefault('key', key)
    out_b = bytearray(h) + block(1, meta(**kw))
    # the index and tail point at offsets of the old file: dropped
    out_b += b''.join(block(t, p) for t, p in bl[1:] if t not in (5, 6))
    open(out, 'wb').write(out_b)


def alloc(src, out, cpus, mem, limit, part):
    h, bl = read_blocks(open(src, 'rb').read())
    old = bl[0][1]
    o = 0
    for _ in range(3):
        _, o = rvar(old, o)
    for _ in range(5):
        n, o = rvar(old, o)
        o += n
    nn, o = rvar(old, o)
    for _ in range(nn):
        n, o = rvar(old, o)
        o += n
    _, o = rvar(old, o)                         # count
    if o < len(old):
        _, o = rvar(old, o)                     # ntasks
        p = old[:o]
    else:
        p = old[:o] + uvar(0)
    p += uvar(cpus) + uvar(mem) + uvar(limit) + s(part)
    out_b = bytearray(h) + block(1, p)
    out_b += b''.join(block(t, q) for t, q in bl[1:] if t not in (5, 6))
    open(out, 'wb').write(out_b)


def main():
    what = sys.argv[1]
    if what == 'chain':
        chain(int(sys.argv[2]), sys.argv[3])
    elif what == 'scan':
        scan(int(sys.argv[2]), sys.argv[3])
    elif what == 'meta':
        remeta(sys.argv[2], sys.argv[3],
               nodes=(b'\x1b]0;PWNED\x07\x1b[2Jnode1',))
    elif what == 'names':
        remeta(sys.argv[2], sys.argv[3], nodes=(b'localhost',),
               name=b'=HYPERLINK("http://x")\x1b]0;T\x07',
               user=b'@SUM(1)', job=b'+1-2')
    elif what == 'alloc':
        alloc(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),
              int(sys.argv[6]), sys.argv[7].encode())
    else:
        sys.exit('usage: jtr-craft.py chain|scan|meta|names|alloc ...')


main()
