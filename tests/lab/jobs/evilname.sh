#!/bin/bash
# SPDX-License-Identifier: ISC
# evilname: ranks whose process name (comm, set with prctl PR_SET_NAME)
# is an attack on the watcher's terminal: OSC 0 "set the title to PW", CSI
# 2 J "clear the screen", and U+009B (UTF-8 CSI), 14 bytes in all; the
# same bytes are its argv[0], which starts the command line.  One
# rank per node on 2 nodes; each writes "rank pid hostname" to
# $LAB_RANKS/$SLURM_JOB_ID/rank.R as rankload does, then sleeps.  Submit
# with lab_submit (tests/lab/lib.sh).  Used by test-escape-names.sh.
#SBATCH --job-name=evilname
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --time=5
set -eu
dir=${LAB_RANKS:-/var/lib/jobtop-lab/ranks}/$SLURM_JOB_ID
mkdir -p "$dir"
exec srun --kill-on-bad-exit=1 bash -c 'exec -a "$(printf "\033]0;PW\007\033[2J\302\233x")" /usr/bin/python3 "$@"' evil -c '
import ctypes, os, socket, sys, time
name = b"\x1b]0;PW\x07\x1b[2J\xc2\x9bx"
if ctypes.CDLL(None).prctl(15, ctypes.c_char_p(name), 0, 0, 0) != 0:
    sys.exit("prctl PR_SET_NAME failed")
d, r = sys.argv[1], os.environ["SLURM_PROCID"]
tmp = "%s/rank.%s.tmp.%d" % (d, r, os.getpid())
with open(tmp, "w") as f:
    f.write("%s %d %s\n" % (r, os.getpid(), socket.gethostname()))
os.rename(tmp, "%s/rank.%s" % (d, r))
time.sleep(300)
' "$dir"
