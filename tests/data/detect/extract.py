#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# extract.py NAME: the %CPU and run-queue delay of the pids in NAME.pids from
# the batch JSON NAME.json (record.sh), one line a sample.
import json,sys
name=sys.argv[1]
pids=[int(x) for x in open(name+'.pids').read().split()]
rows={}
for l in open(name+'.json'):
    r=json.loads(l)
    if r.get('type')=='rank' and r.get('pid') in pids:
        rows.setdefault(r['time'],{})[r['pid']]=r
t0=None
for t in sorted(rows):
    if t0 is None: t0=t
    out=[]
    for p in pids:
        r=rows[t].get(p,{})
        c=r.get('rank.cpu'); q=r.get('rank.rq_delay')
        out.append('%.1f %.1f'%(c if c is not None else float('nan'), q/1e7 if q is not None and c is not None else float('nan')))
    print('%.1f  %s'%(t-t0,'  '.join(out)))
