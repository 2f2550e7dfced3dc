#!/bin/sh
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

total=0 folds=0 bad=0 scdiff=0 screfused=0 scsame=0
while IFS= read -r line; do
	case $line in
	'' | '#'*) continue ;;
	'error '*) want=error expr=${line#error } ;;
	*) want=ok expr=$line ;;
	esac
	total=$((total + 1))

	ours=ok
	"$JT" --list -w "$expr" >"$tmp/ours" 2>"$tmp/ours.err" || ours=error
	cs=ok
	nodeset -e "$expr" >"$tmp/cs.raw" 2>"$tmp/cs.err" || cs=error

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
	# shellcheck disable=SC2046
	csfold=$(nodeset -f $(cat "$tmp/a"))
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
	echo "scontrol: $scsame agree, $scdiff differ, $screfused refused"
else
	echo "scontrol: not compared (scontrol missing or unusable)"
fi
echo "$total expressions ($folds folded), $bad differ from ClusterShell"
if [ $total -lt 100 ]; then
	echo "FAIL: the corpus has fewer than 100 expressions"
	exit 1
fi
[ $bad -eq 0 ]
