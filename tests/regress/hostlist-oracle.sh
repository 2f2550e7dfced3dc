#!/bin/sh
# SPDX-License-Identifier: ISC
# hostlist-oracle: expand every expression of tests/data/hostlist-corpus.txt
# with jobtop itself (`jobtop --list -w EXPR`) and with ClusterShell
# (nodeset -e), and compare them as sets: any difference fails.  Lines
# "error EXPR" must be refused by both.  Then fold the expanded names back
# with jobtop's hostlist code (build/tests/test-hostlist --fold) and with
# `nodeset -f`: the two strings must be the same.
#
# Slurm's `scontrol show hostnames` is compared too, for information only:
# it needs no slurmctld, only a slurm.conf it can parse, so it gets a
# minimal one of its own (SLURM_CONF), and it runs where scontrol is
# installed.  Slurm refuses some forms ClusterShell accepts (a suffix after
# brackets, digits after "]", steps) and accepts some it refuses
# ("node[01-100]", unbalanced brackets); jobtop follows ClusterShell, so
# the scontrol differences are counted and listed, not failed.
#
# Lines "blank EXPR" are lists with blanks between names ("\n" and "\t"
# in EXPR are a newline and a tab, as printf %b reads them).  jobtop, like
# Slurm, takes a run of blanks (with at most one comma) as one separator.
# Each oracle is right about one kind of blank only: ClusterShell splits
# on newlines but keeps a space inside a name ("a b" is one node), and
# Slurm 22.05 splits on spaces and tabs but misreads newlines
# ("n1\nm[4-5]" gives n1 m4 n1 m5, "a\n\nb" an empty name).  So a list
# with newlines only is compared with `nodeset -e`, one with spaces or
# tabs with `scontrol show hostnames` (newlines turned into spaces first);
# any difference fails (without scontrol those are skipped, and counted).
#
# Exit 0 pass, 1 fail, 77 skip (no test binary or no nodeset).

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${TESTBIN:-$TOP/build/tests}/test-hostlist
JT=${JOBTOP:-$TOP/jobtop}
CORPUS=$TOP/tests/data/hostlist-corpus.txt
LC_ALL=C
export LC_ALL

if [ ! -x "$BIN" ] || [ ! -x "$JT" ]; then
	echo "skip: $BIN or $JT is not built (make tests-build)"
	exit 77
fi
if ! command -v nodeset >/dev/null 2>&1; then
	echo "skip: ClusterShell's nodeset is not installed"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hloracle.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

printf '%s\n' 'ClusterName=oracle' 'SlurmctldHost=localhost' \
    'NodeName=dummy CPUs=1 State=UNKNOWN' 'PartitionName=p Nodes=dummy' \
    >"$tmp/slurm.conf"
use_scontrol=0
if command -v scontrol >/dev/null 2>&1; then
	out=$(SLURM_CONF=$tmp/slurm.conf timeout 10 scontrol show hostnames \
	    'n[1-2]' 2>/dev/null | tr '\n' ' ')
	[ "$out" = "n1 n2 " ] && use_scontrol=1
fi

# ClusterShell's own command, run once for the whole corpus: its main()
# in one Python process (the interpreter nodeset's first line names), once
# per expression with the arguments the command line would get, "-e EXPR"
# and then "-f" with the names it expanded to, each answer kept in
# $tmp/cs/KEY.{out,err,rc} (KEY: the expression's SHA-1).  The same
# command, the same answers, without 2 x 169 interpreter start-ups.
py=$(sed -n '1s/^#! *//p' "$(command -v nodeset)" | cut -d' ' -f1)
[ -x "$py" ] || py=python3
mkdir "$tmp/cs"
"$py" - "$CORPUS" "$tmp/cs" <<'PY' || { echo "FAIL: ClusterShell's nodeset cannot run in-process"; exit 1; }
import contextlib, hashlib, io, sys
from ClusterShell.CLI.Nodeset import main
corpus, out = sys.argv[1], sys.argv[2]
def run(args):
    o, e = io.StringIO(), io.StringIO()
    sys.argv = ["nodeset"] + args
    rc = 0
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        try:
            main()
        except SystemExit as x:
            rc = x.code if isinstance(x.code, int) else (0 if x.code is None else 1)
    return o.getvalue(), e.getvalue(), rc
for line in open(corpus, encoding="utf-8"):
    line = line.rstrip("\n")
    if line == "" or line.startswith("#") or line.startswith("blank "):
        continue
    expr = line[len("error "):] if line.startswith("error ") else line
    key = hashlib.sha1(expr.encode()).hexdigest()
    o, e, rc = run(["-e", expr])
    names = o.split()
    fo = run(["-f"] + names)[0] if rc == 0 and names else ""
    for ext, v in (("out", o), ("err", e), ("rc", "%d\n" % rc), ("fold", fo)):
        with open("%s/%s.%s" % (out, key, ext), "w") as f:
            f.write(v)
PY
# cs_expand EXPR OUT ERR: nodeset -e EXPR's answer; its status.
cs_key() { printf '%s' "$1" | sha1sum | cut -c1-40; }
cs_expand() {
	k=$(cs_key "$1")
	[ -f "$tmp/cs/$k.rc" ] || { nodeset -e "$1" >"$2" 2>"$3"; return; }
	cat "$tmp/cs/$k.out" >"$2"
	cat "$tmp/cs/$k.err" >"$3"
	return "$(cat "$tmp/cs/$k.rc")"
}
# cs_fold EXPR: nodeset -f of the names EXPR expanded to.
cs_fold() { k=$(cs_key "$1"); tr -d '\n' <"$tmp/cs/$k.fold"; }

total=0 folds=0 bad=0 scdiff=0 screfused=0 scsame=0 scskip=0 slurmsame=0
while IFS= read -r line; do
	case $line in
	'' | '#'*) continue ;;
	'error '*) want=error expr=${line#error } ;;
	'blank '*)
		total=$((total + 1))
		expr=$(printf '%bx' "${line#blank }")
		expr=${expr%x}
		case $expr in
		*' '* | *'	'*) oracle=scontrol ;;
		*) oracle=nodeset ;;
		esac
		if [ $oracle = scontrol ] && [ $use_scontrol != 1 ]; then
			scskip=$((scskip + 1))
			continue
		fi
		if ! "$JT" --list -w "$expr" >"$tmp/ours" 2>"$tmp/ours.err"
		then
			echo "FAIL '${line#blank }': jobtop refuses it:" \
			    "$(cat "$tmp/ours.err")"
			bad=$((bad + 1))
			continue
		fi
		if [ $oracle = scontrol ]; then
			SLURM_CONF=$tmp/slurm.conf timeout 10 scontrol show \
			    hostnames "$(printf '%s' "$expr" | tr '\n' ' ')" \
			    2>/dev/null | sort -u >"$tmp/sc"
		else
			nodeset -e -S '\n' "$expr" 2>/dev/null | sort -u \
			    >"$tmp/sc"
		fi
		if sort -u "$tmp/ours" | cmp -s - "$tmp/sc"; then
			slurmsame=$((slurmsame + 1))
		else
			echo "FAIL '${line#blank }': jobtop and $oracle differ:"
			sort -u "$tmp/ours" | diff - "$tmp/sc" | head -n 10 |
			    sed 's/^/    /'
			bad=$((bad + 1))
		fi
		continue ;;
	*) want=ok expr=$line ;;
	esac
	total=$((total + 1))

	ours=ok
	"$JT" --list -w "$expr" >"$tmp/ours" 2>"$tmp/ours.err" || ours=error
	cs=ok
	cs_expand "$expr" "$tmp/cs.raw" "$tmp/cs.err" || cs=error

	if [ $want = error ]; then
		if [ $ours != error ] || [ $cs != error ]; then
			echo "FAIL '$expr': should be refused" \
			    "(jobtop: $ours, nodeset: $cs)"
			bad=$((bad + 1))
		fi
		continue
	fi
	if [ $cs != ok ]; then
		echo "FAIL '$expr': nodeset refuses it: $(cat "$tmp/cs.err")"
		bad=$((bad + 1))
		continue
	fi
	if [ $ours != ok ]; then
		echo "FAIL '$expr': jobtop refuses it: $(cat "$tmp/ours.err")"
		bad=$((bad + 1))
		continue
	fi
	sort -u "$tmp/ours" >"$tmp/a"
	tr ' ' '\n' <"$tmp/cs.raw" | grep -v '^$' | sort -u >"$tmp/b"
	if ! cmp -s "$tmp/a" "$tmp/b"; then
		echo "FAIL '$expr': jobtop and nodeset differ" \
		    "($(wc -l <"$tmp/a") vs $(wc -l <"$tmp/b") names):"
		diff "$tmp/a" "$tmp/b" | head -n 10 | sed 's/^/    /'
		bad=$((bad + 1))
		continue
	fi
	# shellcheck disable=SC2046
	ourfold=$("$BIN" --fold $(cat "$tmp/a"))
	# (the names jobtop expanded to are nodeset's: checked just above)
	csfold=$(cs_fold "$expr")
	folds=$((folds + 1))
	if [ "$ourfold" != "$csfold" ]; then
		echo "FAIL '$expr': folds to '$ourfold', nodeset -f to '$csfold'"
		bad=$((bad + 1))
		continue
	fi
	[ $use_scontrol = 1 ] || continue
	SLURM_CONF=$tmp/slurm.conf timeout 10 scontrol show hostnames "$expr" \
	    >"$tmp/sc" 2>"$tmp/sc.err"
	if [ -s "$tmp/sc.err" ] || [ ! -s "$tmp/sc" ]; then
		screfused=$((screfused + 1))
		echo "note '$expr': scontrol refuses it"
	elif sort -u "$tmp/sc" | cmp -s - "$tmp/b"; then
		scsame=$((scsame + 1))
	else
		scdiff=$((scdiff + 1))
		echo "note '$expr': scontrol differs" \
		    "($(sort -u "$tmp/sc" | wc -l) names vs $(wc -l <"$tmp/b"))"
	fi
done <"$CORPUS"

if [ $use_scontrol = 1 ]; then
	echo "scontrol: $scsame agree, $scdiff differ, $screfused refused;" \
	    "blank-separated lists: $slurmsame agree with their oracle"
else
	echo "scontrol: not compared (scontrol missing or unusable);" \
	    "$scskip blank-separated lists skipped"
fi
echo "$total expressions ($folds folded), $bad differ from ClusterShell" \
    "or (blank-separated lists) from their oracle"
if [ $total -lt 100 ]; then
	echo "FAIL: the corpus has fewer than 100 expressions"
	exit 1
fi
[ $bad -eq 0 ]
