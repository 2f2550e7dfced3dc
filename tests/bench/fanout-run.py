#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""fanout-run.py: run one fan-out command and time it, for bench-fanout.sh.

  fanout-run.py first STDERR_FILE -- CMD...
	Run CMD (jobtop -b --json -n 1 ..., or pdsh ...), read its standard
	output line by line and stamp each line with CLOCK_MONOTONIC as it
	arrives.  Prints one line of key=value:
	  exit_ms   from just before the spawn to the command's exit
	  first_ms  from just before the spawn to the line carrying the last
		    node's first "type":"node" record (-1: no node record)
	  out_ms    to the last node's first "live" state record: its probe's
		    HELLO, the node's first output (-1: not every node that
		    delivered went live)
	  nodes     nodes that delivered a "type":"node" record
	  failed    nodes whose last state record was failed/lost/refused
	  rc        the command's exit status
	Standard error goes to STDERR_FILE.  A command still running after
	300 s is killed (its process group) and says so there.

  fanout-run.py steady N SECS LIVE_S STDERR_FILE -- CMD...
	Run CMD (jobtop -b --json without -n) until all N nodes delivered a
	"type":"node" record, or every node either did or failed for good
	(last state "failed: ..."), or LIVE_S seconds passed.  When all are
	live and SECS > 0: let it settle 2 s, then for SECS seconds sample
	the monitor process's /proc/PID/stat (utime+stime) and /proc/PID/status
	(VmRSS, VmHWM) once a second and count node records.  Only the monitor
	is measured: CMD may be runuser/env, the monitor is found among its
	descendants by its command name (jobtop, or jobtop-bench: a copy that
	a `pkill -x jobtop` elsewhere on the machine does not hit).  Then
	With FANOUT_TREE=1 in the environment, CPU and RSS are summed over the
	monitor and every process below it (an srun, ssh clients: what the
	login node pays for this monitor); CPU then counts each live process's
	run time from /proc/PID/schedstat (ns) plus the cutime+cstime of the
	children it reaped, so time of a child that exits during the window
	is not lost.  Then
	SIGTERM, and one line of key=value: live_ms nodes failed cpu_pct
	window_s rss_kib_max rss_kib_end hwm_kib fds nodes_in_window
	min_samples recs_per_s bytes_per_s rc, and missing= (the last states
	of nodes that never delivered).

In both modes the command runs in a process group of its own, killed
(SIGKILL) after 300 s in "first" mode.
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time

NODE_RE = re.compile(rb'"node":"([^"]*)"')
STATE_RE = re.compile(rb'"state":"([a-z]+)')
MONITOR_NAMES = ("jobtop", "jobtop-bench")
FIRST_TIMEOUT = 300


def now():
	return time.monotonic()


class Reader(threading.Thread):
	"""Reads jobtop's JSON lines; keeps per-node first-record times and
	counts of node records."""

	def __init__(self, f, t0):
		super().__init__(daemon=True)
		self.f = f
		self.t0 = t0
		self.first = {}		# node -> ms of its first node record
		self.count = {}		# node -> node records so far
		self.state = {}		# node -> last state word
		self.live = {}		# node -> ms of its first "live" state
		self.bytes = 0
		self.lock = threading.Lock()

	def run(self):
		for line in self.f:
			t = now()
			self.bytes += len(line)
			m = NODE_RE.search(line)
			if m is None:
				continue
			name = m.group(1)
			if b'"type":"node"' in line:
				with self.lock:
					if name not in self.first:
						self.first[name] = (t - self.t0) * 1000
					self.count[name] = self.count.get(name, 0) + 1
			elif b'"type":"state"' in line:
				s = STATE_RE.search(line)
				if s is not None:
					with self.lock:
						self.state[name] = s.group(1)
						if s.group(1) == b"live" and \
						    name not in self.live:
							self.live[name] = \
							    (t - self.t0) * 1000

	def snapshot(self):
		with self.lock:
			return dict(self.count), len(self.first)

	def failed(self):
		"""Nodes whose last state is final failure (never delivered)."""
		with self.lock:
			return sum(1 for k, v in self.state.items()
			    if v == b"failed" and k not in self.first)

	def missing(self):
		"""last state -> count, for nodes without a node record."""
		with self.lock:
			c = {}
			for k, v in self.state.items():
				if k not in self.first:
					v = v.decode()
					c[v] = c.get(v, 0) + 1
		return ",".join("%s:%d" % kv for kv in sorted(c.items())) or "-"


def split_cmd(argv):
	if "--" not in argv:
		sys.exit("fanout-run.py: missing -- before the command")
	i = argv.index("--")
	return argv[:i], argv[i + 1:]


def do_first(args, cmd):
	errf = open(args[0], "wb")
	t0 = now()
	p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf,
	    stdin=subprocess.DEVNULL, start_new_session=True)
	r = Reader(p.stdout, t0)
	r.start()
	try:
		rc = p.wait(timeout=FIRST_TIMEOUT)
	except subprocess.TimeoutExpired:
		os.killpg(p.pid, signal.SIGKILL)
		rc = p.wait()
		errf.write(b"fanout-run.py: killed after %d s\n" % FIRST_TIMEOUT)
	t1 = now()
	r.join()
	failed = sum(1 for s in r.state.values()
	    if s in (b"failed", b"lost", b"refused"))
	first = max(r.first.values()) if r.first else -1
	out = max(r.live.values()) if r.first and \
	    set(r.first) <= set(r.live) else -1
	print("exit_ms=%.0f first_ms=%.0f out_ms=%.0f nodes=%d failed=%d rc=%d "
	    "missing=%s" % ((t1 - t0) * 1000, first, out, len(r.first), failed,
	    rc, r.missing()))


def children(pid):
	out = []
	try:
		for tid in os.listdir("/proc/%d/task" % pid):
			with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
				out += [int(x) for x in f.read().split()]
	except OSError:
		pass
	return out


def find_jobtop(pid):
	todo = [pid]
	while todo:
		p = todo.pop(0)
		try:
			with open("/proc/%d/comm" % p) as f:
				if f.read().strip() in MONITOR_NAMES:
					return p
		except OSError:
			continue
		todo += children(p)
	return None


def cpu_ticks(pid):
	with open("/proc/%d/stat" % pid) as f:
		s = f.read()
	fields = s[s.rindex(")") + 2:].split()
	return int(fields[11]) + int(fields[12])	# utime stime


def tree(pid):
	"""pid and every process below it."""
	out, todo = [], [pid]
	while todo:
		p = todo.pop()
		out.append(p)
		todo += children(p)
	return out


def tree_cpu_s(pid):
	"""CPU seconds of pid and everything below it: each live process's
	run time from /proc/PID/schedstat (nanoseconds: a small monitor's
	few ticks a second would round to nothing) plus the cutime+cstime
	of the children it reaped (ticks)."""
	hz = os.sysconf("SC_CLK_TCK")
	t = 0.0
	for p in tree(pid):
		try:
			with open("/proc/%d/schedstat" % p) as f:
				run_ns = int(f.read().split()[0])
			with open("/proc/%d/stat" % p) as f:
				s = f.read()
		except (OSError, ValueError, IndexError):
			continue
		fields = s[s.rindex(")") + 2:].split()
		t += run_ns / 1e9 + (int(fields[13]) + int(fields[14])) / hz
	return t


def tree_mem_kib(pid):
	rss = hwm = 0
	for p in tree(pid):
		try:
			r, h = mem_kib(p)
		except OSError:
			continue
		rss += r
		hwm += h
	return rss, hwm


def mem_kib(pid):
	v = {}
	with open("/proc/%d/status" % pid) as f:
		for line in f:
			k, _, rest = line.partition(":")
			if k in ("VmRSS", "VmHWM"):
				v[k] = int(rest.split()[0])
	return v.get("VmRSS", 0), v.get("VmHWM", 0)


def do_steady(args, cmd):
	n, secs, live_s, errpath = (int(args[0]), float(args[1]),
	    float(args[2]), args[3])
	errf = open(errpath, "wb")
	t0 = now()
	p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf,
	    stdin=subprocess.DEVNULL, start_new_session=True)
	r = Reader(p.stdout, t0)
	r.start()
	live_ms = -1
	while now() - t0 < live_s and p.poll() is None:
		_, nfirst = r.snapshot()
		if nfirst >= n:
			live_ms = (now() - t0) * 1000
			break
		if nfirst + r.failed() >= n:
			break
		time.sleep(0.05)
	_, nfirst = r.snapshot()
	res = {"live_ms": "%.0f" % live_ms, "nodes": nfirst,
	    "failed": r.failed()}
	jt = find_jobtop(p.pid)
	if live_ms >= 0 and jt is not None and secs > 0:
		time.sleep(2)
		hz = os.sysconf("SC_CLK_TCK")
		perf = None
		if os.environ.get("FANOUT_PERF"):
			cg = os.environ.get("FANOUT_PERF_CALLGRAPH", "fp")
			perf = subprocess.Popen(["perf", "record", "-q",
			    "--call-graph", cg, "-e", "cpu-clock", "-p",
			    str(jt), "-o",
			    os.environ["FANOUT_PERF"], "--", "sleep",
			    str(secs)], stdout=subprocess.DEVNULL,
			    stderr=subprocess.DEVNULL)
		def ticks(p):
			return cpu_ticks(p) / hz
		mem = mem_kib
		if os.environ.get("FANOUT_TREE") == "1":
			ticks, mem = tree_cpu_s, tree_mem_kib
		c0, ta, b0 = ticks(jt), now(), r.bytes
		cnt0, _ = r.snapshot()
		rss_max = 0
		while now() - ta < secs and p.poll() is None:
			time.sleep(1)
			rss, _ = mem(jt)
			rss_max = max(rss_max, rss)
		c1, tb, b1 = ticks(jt), now(), r.bytes
		if perf is not None:
			perf.wait()
		if os.environ.get("FANOUT_SMAPS"):
			with open("/proc/%d/smaps" % jt) as src, \
			    open(os.environ["FANOUT_SMAPS"], "w") as dst:
				dst.write(src.read())
		cnt1, _ = r.snapshot()
		rss, hwm = mem(jt)
		res["procs"] = len(tree(jt))
		res["monitor_rss_kib"] = mem_kib(jt)[0]
		fds = len(os.listdir("/proc/%d/fd" % jt))
		got = [cnt1.get(k, 0) - cnt0.get(k, 0) for k in cnt1]
		res.update({
		    "cpu_pct": "%.3f" % ((c1 - c0) / (tb - ta) * 100),
		    "window_s": "%.1f" % (tb - ta),
		    "rss_kib_max": rss_max, "rss_kib_end": rss,
		    "hwm_kib": hwm, "fds": fds,
		    "nodes_in_window": sum(1 for g in got if g > 0),
		    "min_samples": min(got) if got else 0,
		    "recs_per_s": "%.0f" % (sum(got) / (tb - ta)),
		    "bytes_per_s": "%.0f" % ((b1 - b0) / (tb - ta)),
		})
	if p.poll() is None:
		os.kill(jt if jt is not None else p.pid, signal.SIGTERM)
		try:
			p.wait(timeout=15)
		except subprocess.TimeoutExpired:
			os.killpg(p.pid, signal.SIGKILL)
			p.wait()
	r.join(timeout=5)
	res["rc"] = p.returncode
	res["missing"] = r.missing()
	print(" ".join("%s=%s" % kv for kv in res.items()))


def main():
	if len(sys.argv) < 2:
		sys.exit(__doc__)
	args, cmd = split_cmd(sys.argv[2:])
	if sys.argv[1] == "first":
		do_first(args, cmd)
	elif sys.argv[1] == "steady":
		do_steady(args, cmd)
	else:
		sys.exit(__doc__)


if __name__ == "__main__":
	main()
