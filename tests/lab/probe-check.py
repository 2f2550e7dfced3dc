#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""probe-check.py: compare one node's decoded probe records with the truth.

Used by test-probe-in-job.sh, once per (node, job).  Inputs:
  --records FILE   `jobtop --decode --json` output for the probe run
  --refs FILE      reference snapshots taken on the node by node-ref.sh just
                   before the probe started and just after it exited,
                   separated by a line "==="
  --ranks FILE     the job's rank files ("rank pid hostname" lines)
  --node NODE --job JOBID --interval SECONDS --count N

Prints one "ok:" line per passed check; on the first failures prints
"FAIL: ..." lines (with the tolerance used) and exits 1.
"""

import argparse
import json
import sys

MiB = 1 << 20


def parse_snapshot(lines):
    """One node-ref.sh snapshot -> dict."""
    s = {"procs": {}, "names": {}}
    for line in lines:
        f = line.split()
        if not f:
            continue
        if f[0] == "T":
            s["time"] = float(f[1])
        elif f[0] == "CONST":
            s["tick"] = 1.0 / int(f[1])
            s["page"] = int(f[2])
        elif f[0] == "FREE":    # free -b: total used available
            s["free_total"], s["free_used"], s["free_avail"] = map(int, f[1:4])
        elif f[0] == "MEMINFO":  # KiB: MemTotal MemAvailable
            s["mi_total"], s["mi_avail"] = (int(v) * 1024 for v in f[1:3])
        elif f[0] == "A":       # every process: pid comm
            s["names"][int(f[1])] = f[2]
        elif f[0] == "P":
            # P pid procid state utime stime rss_pages ps_cputime ps_rss_kib
            pid = int(f[1])
            h, m, sec = (f[7].split("-")[-1]).split(":")
            days = int(f[7].split("-")[0]) if "-" in f[7] else 0
            s["procs"][pid] = {
                "rank": int(f[2]),
                "state": f[3],
                "cpu_ticks": int(f[4]) + int(f[5]),
                "rss_pages": int(f[6]),
                "ps_cputime": days * 86400 + int(h) * 3600 + int(m) * 60 + int(sec),
                "ps_rss": int(f[8]) * 1024,
            }
    for k in ("time", "tick", "page", "free_used", "mi_total"):
        if k not in s:
            raise ValueError("reference snapshot lacks %s" % k)
    return s


def main():
    ap = argparse.ArgumentParser()
    for a in ("records", "refs", "ranks", "node", "job"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--interval", type=float, required=True)
    ap.add_argument("--count", type=int, required=True)
    o = ap.parse_args()
    where = "%s job %s" % (o.node, o.job)
    fails = []
    oks = []

    def fail(msg):
        fails.append("FAIL: %s: %s" % (where, msg))

    with open(o.refs) as f:
        text = f.read()
    parts = text.split("===\n")
    if len(parts) != 2:
        print("FAIL: %s: reference snapshots missing (node-ref.sh output: %r)"
              % (where, text[:200]))
        return 1
    before = parse_snapshot(parts[0].splitlines())
    after = parse_snapshot(parts[1].splitlines())
    tick, page = after["tick"], after["page"]

    recs = []
    with open(o.records) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError as e:
                fail("decoder output line %d is not JSON (%s): %s" % (n, e, line[:120]))
                continue
            recs.append(r)
    if fails:
        print("\n".join(fails))
        return 1
    if not recs:
        print("FAIL: %s: the decoder printed no records" % where)
        return 1
    for r in recs:
        for k in ("time", "node", "type"):
            if k not in r:
                fail("record without \"%s\": %s" % (k, json.dumps(r)[:160]))
    if fails:
        print("\n".join(fails))
        return 1

    # --- samples: count, node name, time stamps ----------------------------
    nodes = [r for r in recs if r["type"] == "node"]
    ranks = [r for r in recs if r["type"] == "rank"]
    if len(nodes) != o.count:
        fail("%d node records, expected one per sample: --count %d"
             % (len(nodes), o.count))
    badnode = sorted({r["node"] for r in recs} - {o.node})
    if badnode:
        fail("records name node(s) %s, expected %s" % (badnode, o.node))
    # The probe ran between the two snapshots; 10 ms for clock rounding.
    lo, hi = before["time"] - 0.01, after["time"] + 0.01
    late = [r["time"] for r in recs if not lo <= r["time"] <= hi]
    if late:
        fail("record times %s outside the probe's run [%.3f, %.3f] "
             "(tolerance 10 ms)" % (late[:3], lo, hi))
    if not fails:
        oks.append("ok: %s: %d samples, times within the run"
                   % (where, len(nodes)))

    # --- the job's ranks: exactly the rank files' pids, right rank ids ----
    expected = {}
    with open(o.ranks) as f:
        for line in f:
            rk, pid, host = line.split()[:3]
            if host == o.node:
                expected[int(pid)] = int(rk)
    oracle = {pid: p["rank"] for pid, p in after["procs"].items()}
    if oracle != expected:
        fail("lab inconsistency: rank files say %s, rankload processes "
             "under slurmstepd: [%s.N] on the node are %s"
             % (expected, o.job, oracle))
    if not expected:
        fail("no rank of the job on this node (rank files: %s)" % o.ranks)
    seen = {}
    for r in ranks:
        pid = r.get("pid")
        seen.setdefault(pid, set()).add(r.get("rank"))
    extra = sorted(set(seen) - set(expected), key=str)
    missing = sorted(set(expected) - set(seen))
    if extra:
        fail("probe reports processes that are not ranks of job %s: %s "
             "(the ranks are the rankload processes under slurmstepd: "
             "[%s.N]: %s)" % (o.job, ", ".join(
                 "pid %s (%s, rank %s)" % (p, after["names"].get(p, "gone"),
                                           sorted(seen[p], key=str))
                 for p in extra), o.job, sorted(expected)))
    if missing:
        fail("probe misses ranks of job %s: pids %s" % (o.job, missing))
    for pid, rk in expected.items():
        if pid in seen and seen[pid] != {rk}:
            fail("pid %d: probe says rank %s, it is rank %d (SLURM_PROCID)"
                 % (pid, sorted(seen[pid], key=str), rk))
    if not fails:
        oks.append("ok: %s: ranks %s = pids %s, as in the rank files"
                   % (where, sorted(expected.values()),
                      [p for p, _ in sorted(expected.items(), key=lambda x: x[1])]))

    # --- per-rank values of the last sample vs /proc and ps ---------------
    last = {}
    for r in ranks:
        if r.get("pid") in expected and (r["pid"] not in last or
                                         r["time"] >= last[r["pid"]]["time"]):
            last[r["pid"]] = r
    nf = len(fails)
    for pid, r in sorted(last.items()):
        b, a = before["procs"].get(pid), after["procs"].get(pid)
        what = "rank %d (pid %d)" % (expected[pid], pid)
        if a is None or b is None:
            fail("%s vanished during the probe run" % what)
            continue
        for k in ("rank.cputime", "rank.rss", "state"):
            if k not in r:
                fail("%s: record has no \"%s\": %s" % (what, k, json.dumps(r)[:200]))
        if "rank.comm" in r and r["rank.comm"] != "rankload":
            fail("%s: rank.comm is %r, the process is rankload" % (what, r["rank.comm"]))
        if "state" in r and r["state"] != a["state"]:
            # A spinning rank is R and an idle one S throughout, so the
            # state read just after the last sample must be the same.
            fail("%s: state %r, /proc/%d/stat says %r" % (what, r["state"], pid, a["state"]))
        if "rank.cputime" in r:
            # CPU time (utime+stime, s).  /proc counts in ticks: allow 2
            # ticks for rounding.  The counter only grows, so the probe's
            # value lies between the "before" and "after" readings.  It may
            # lag "after" by what the rank used since the last sample: a
            # rankload is one thread, so at most one CPU-second per second
            # of that gap.  The gap is about one interval (a probe may sleep
            # once more before exiting); allow one interval's worth, or the
            # measured gap (record time to the "after" snapshot's time) if
            # the machine was slow and it is longer.
            cpu = float(r["rank.cputime"])
            cb, ca = b["cpu_ticks"] * tick, a["cpu_ticks"] * tick
            tol = 2 * tick
            lag = max(o.interval, after["time"] - r["time"])
            if not cb - tol <= cpu <= ca + tol or ca - cpu > lag + tol:
                fail("%s: rank.cputime %.3f s, /proc/%d/stat utime+stime "
                     "%.2f s before and %.2f s after the probe; tolerance: "
                     "between them within 2 ticks (%.2f s) and at most "
                     "max(one interval, the gap to 'after') = %.2f s of one "
                     "CPU + 2 ticks below 'after'"
                     % (what, cpu, pid, cb, ca, tol, lag))
            # ps prints whole seconds (truncated): allow 1 s more.
            pst = a["ps_cputime"]
            if abs(cpu - pst) > 1 + lag + tol:
                fail("%s: rank.cputime %.3f s vs ps -o cputime %d s; "
                     "tolerance 1 s (ps resolution) + %.2f s (as above) + 2 ticks"
                     % (what, cpu, pst, lag))
        if "rank.rss" in r:
            # RSS of these ranks is flat once they reported (memory is
            # touched before the rank file is written): 5% or 1 MiB,
            # whichever is larger, covers page vs KiB rounding and libc's
            # own small allocations.
            rss = int(r["rank.rss"])
            for name, ref in (("/proc/%d/stat rss" % pid, a["rss_pages"] * page),
                              ("ps -o rss", a["ps_rss"])):
                tol = max(0.05 * ref, MiB)
                if abs(rss - ref) > tol:
                    fail("%s: rank.rss %d bytes vs %s %d bytes: off by %d, "
                         "tolerance max(5%%, 1 MiB) = %d"
                         % (what, rss, name, ref, abs(rss - ref), tol))
    if len(fails) == nf and last:
        oks.append("ok: %s: cputime, rss and state of %d ranks match /proc and ps"
                   % (where, len(last)))

    # --- node memory of the last sample vs free -b --------------------------
    nf = len(fails)
    if nodes:
        n = max(nodes, key=lambda r: r["time"])
        # free(1) of procps 4 prints used = total - available; check that
        # the reference itself agrees with /proc/meminfo before using it.
        # (read a few ms apart, hence the same tolerance as below).
        mi_used = after["mi_total"] - after["mi_avail"]
        if abs(after["free_used"] - mi_used) > max(0.03 * mi_used, 16 * MiB):
            fail("reference: free -b used %d is not MemTotal - MemAvailable "
                 "%d: free(1) changed its definition" % (after["free_used"], mi_used))
        for k in ("mem.total", "mem.used"):
            if k not in n:
                fail("node record has no \"%s\": %s" % (k, json.dumps(n)[:200]))
        if "mem.total" in n and abs(int(n["mem.total"]) - after["free_total"]) > MiB:
            # MemTotal is a constant of the machine: 1 MiB covers only a
            # balloon driver moving it.
            fail("mem.total %d vs free -b total %d (tolerance 1 MiB)"
                 % (int(n["mem.total"]), after["free_total"]))
        # Memory used is machine-wide and everything on this shared machine
        # moves it (other jobs, ssh sessions, this test): allow 3% of used,
        # at least 16 MiB (a few processes starting), and at least how far
        # it moved between the snapshots around the probe's run.  A unit
        # error (KiB) or total - free instead of total - available is still
        # far outside that.
        for k, ref, refb, name in (
                ("mem.used", after["free_used"], before["free_used"], "used"),
                ("mem.available", after["free_avail"], before["free_avail"], "available")):
            if k not in n:
                continue
            tol = max(0.03 * ref, 16 * MiB, abs(ref - refb))
            v = int(n[k])
            if abs(v - ref) > tol:
                fail("%s %d vs free -b %s %d: off by %.1f MiB, tolerance "
                     "max(3%%, 16 MiB, drift during the run) = %.1f MiB"
                     % (k, v, name, ref, abs(v - ref) / MiB, tol / MiB))
    if len(fails) == nf and nodes:
        oks.append("ok: %s: mem.total/used match free -b" % where)

    print("\n".join(oks))
    if fails:
        print("\n".join(fails))
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError, KeyError, TypeError) as e:
        # A malformed record or snapshot is a failure to report, not a crash.
        print("FAIL: probe-check.py %s: %s: %s"
              % (" ".join(sys.argv[1:]), type(e).__name__, e))
        sys.exit(1)
