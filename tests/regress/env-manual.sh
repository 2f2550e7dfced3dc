#!/bin/sh
# SPDX-License-Identifier: ISC
# env-manual: every environment variable the code reads is named in the
# ENVIRONMENT section of jobtop.1 (issue 22).  The names are taken from the
# sources of the monitor, the probe and its helper (src, ui, remote,
# probes, probes/nvml), comments stripped, lines joined:
#  - getenv("X") and secure_getenv("X"), however spread over lines;
#  - the tables that feed a getenv whose argument is not a literal:
#    src/jobvars.h's JOBVARS_NAME lists (each scheduler descriptor's
#    .jobvars, and the probe's jobvars[], what it looks for in
#    /proc/PID/environ), the scheduler descriptors' .env = { .nodes = {
#    "A", "B" }, .ntasks = { ... } } (sched-env.c reads them),
#    feed-ssh.c's fssh_launchers[] and fssh_which(prog, "X");
#  - what code that walks an environment (environ, /proc/PID/environ)
#    compares entries with: "X=" literals (ranks-find.c's rf_rank_vars[],
#    SLURM_STEP_ID=, SLURM_CONF=, LC_ALL=), the prefixes given to strncmp
#    ("SLURM_", "LC_": the manual names them SLURM_* and LC_*), and
#    runas.c's runas_keep() names[].
# A getenv of anything else than a literal, or a file that walks an
# environment, that this test does not know fails it: its names would
# otherwise go unchecked.  So does a known table or call that yields no
# names (moved or renamed), and fewer than 15 names in all.
#
# The check proves itself first: on a copy of the sources with a planted
# getenv("JOBTOP_PLANTED") (spread over two lines), a planted row of
# jobvars[], an unknown getenv(planted_name) and a getenv in a comment, it
# must fail naming the first three and not the comment's, and fail nothing
# else than it fails on the same sources unplanted.
#
# JOBTOP_ENV_SRCROOT: another tree (src ui remote probes jobtop.1) to check;
# JOBTOP_ENV_SELFCHECK=0 skips the proof (the proof's own run uses both).
# Exit 0 pass, 1 fail.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ROOT=${JOBTOP_ENV_SRCROOT:-$TOP}
SELF=$TOP/tests/regress/env-manual.sh
MIN_NAMES=15
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-envman.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
LC_ALL=C
export LC_ALL

# The getenv calls whose argument is not a literal, by file and expression
# (blanks removed), and the source of names that covers each.
cat >"$tmp/indirect" <<'EOF'
src/sched.c getenv(v->name) jobvars
src/sched.c getenv(jv->name) jobvars
src/sched-env.c getenv(names[i]) sched_env
remote/feed-ssh.c getenv(override) fssh_which
remote/feed-ssh.c getenv(c->inside) fssh_launchers
remote/feed-ssh.c getenv(c->jobvar) fssh_launchers
EOF
# The files that walk an environment; their names come from the "X="
# literals, the strncmp prefixes and the tables below.
cat >"$tmp/walkers" <<'EOF'
src/spawn.c
src/sched.c
remote/feed-srun.c
remote/runas.c
probes/ranks-find.c
probes/src-nvgpu.c
EOF
# Every source of names must yield some: one that yields none was moved.
sources="getenv jobvars sched_env fssh_which fssh_launchers rf_rank_vars
runas_keep entry prefix"

# extract ROOT FILE...: "N name source file" for each name read, "I file
# expression" for each getenv of a non-literal, "W file" for each file
# that walks an environment.
extract() {
	root=$1
	shift
	awk -v root="$root" '
	function done(file, t,    rel, s, pre, rest, e, q, name) {
		rel = substr(file, length(root) + 2)
		t = " " t " "
		# getenv("X"), secure_getenv("X"); getenv(expr).
		s = t
		while (match(s, /getenv[ \t]*\([ \t]*/)) {
			pre = substr(s, 1, RSTART - 1)
			rest = substr(s, RSTART + RLENGTH)
			s = rest
			if (pre ~ /[A-Za-z0-9_]$/ && pre !~ /[^A-Za-z0-9_]secure_$/)
				continue	# another function: foo_getenv
			if (substr(rest, 1, 1) == "\"") {
				q = index(substr(rest, 2), "\"")
				emit(substr(rest, 2, q - 1), "getenv", rel)
			} else {
				e = substr(rest, 1, index(rest, ")"))
				gsub(/[ \t]/, "", e)
				print "I", rel, "getenv(" e
			}
		}
		# jobvars.h: every literal there names a job variable.
		if (rel == "src/jobvars.h")
			names(t, "jobvars", rel)
		names(region(t, "fssh_launchers\\[[^]]*\\][ \t]*=[ \t]*\\{"),
		    "fssh_launchers", rel)
		names(region(t, "runas_keep[ \t]*\\([^)]*\\)[ \t]*\\{[^}]*names\\[[^]]*\\][ \t]*=[ \t]*\\{"),
		    "runas_keep", rel)
		calls(t, "\\.(nodes|ntasks)[ \t]*=[ \t]*\\{[^}]*\\}", "sched_env",
		    rel)
		calls(t, "fssh_which[ \t]*\\([^)]*\\)", "fssh_which", rel)
		# Entries of an environment compared by name: "X=".
		s = region(t, "rf_rank_vars\\[[^]]*\\][ \t]*=[ \t]*\\{")
		while (match(s, /"[A-Z][A-Z0-9_]*="/)) {
			emit(substr(s, RSTART + 1, RLENGTH - 3), "rf_rank_vars", rel)
			s = substr(s, RSTART + RLENGTH)
		}
		s = t
		while (match(s, /"[A-Z][A-Z0-9_]*="/)) {
			emit(substr(s, RSTART + 1, RLENGTH - 3), "entry", rel)
			s = substr(s, RSTART + RLENGTH)
		}
		if (t ~ /[^A-Za-z0-9_]environ[^A-Za-z0-9_]/) {
			print "W", rel
			s = t
			while (match(s, /strncmp[ \t]*\([^,]*,[ \t]*"[A-Z][A-Z0-9]*_"/)) {
				e = substr(s, RSTART, RLENGTH)
				s = substr(s, RSTART + RLENGTH)
				sub(/^[^"]*"/, "", e)
				sub(/"$/, "", e)
				emit(e "*", "prefix", rel)
			}
		}
	}
	function emit(name, src, rel) {
		print "N", name, src, rel
	}
	# The text of a table: from the end of the match of re to "};".
	function region(t, re,    r) {
		if (!match(t, re))
			return ""
		r = substr(t, RSTART + RLENGTH)
		return substr(r, 1, index(r, "};"))
	}
	# The literals of a table that are names (not "slurm", not prose).
	function names(s, src, rel) {
		while (match(s, /"[A-Z][A-Z0-9_]*"/)) {
			emit(substr(s, RSTART + 1, RLENGTH - 2), src, rel)
			s = substr(s, RSTART + RLENGTH)
		}
	}
	# The name literals in the arguments of every call matching re.
	function calls(t, re, src, rel,    c) {
		while (match(t, re)) {
			c = substr(t, RSTART, RLENGTH)
			t = substr(t, RSTART + RLENGTH)
			names(c, src, rel)
		}
	}
	FNR == 1 {
		if (cur != "")
			done(cur, flat)
		cur = FILENAME
		flat = ""
		incom = 0
	}
	{
		# Comments out, literals kept whole, lines joined.
		line = $0
		out = ""
		n = length(line)
		i = 1
		while (i <= n) {
			if (incom) {
				j = index(substr(line, i), "*/")
				if (j == 0)
					break
				i += j + 1
				incom = 0
				out = out " "
				continue
			}
			c = substr(line, i, 1)
			d = substr(line, i + 1, 1)
			if (c == "/" && d == "*") {
				incom = 1
				i += 2
				continue
			}
			if (c == "/" && d == "/")
				break
			if (c == "\"" || c == "\047") {
				j = i + 1
				while (j <= n) {
					d = substr(line, j, 1)
					if (d == "\\") {
						j += 2
						continue
					}
					if (d == c)
						break
					j++
				}
				out = out substr(line, i, j - i + 1)
				i = j + 1
				continue
			}
			out = out c
			i++
		}
		flat = flat " " out
	}
	END {
		if (cur != "")
			done(cur, flat)
	}' "$@"
}

# The names the ENVIRONMENT section of a manual gives with Ev.
manual_names() {
	awk '
	/^\.Sh / { insec = ($0 ~ /^\.Sh[ \t]+ENVIRONMENT[ \t]*$/); next }
	insec && /^\./ {
		n = split(substr($0, 2), w, /[ \t]+/)
		ev = 0
		for (i = 1; i <= n; i++) {
			if (w[i] == "Ev") {
				ev = 1
				continue
			}
			if (!ev)
				continue
			if (w[i] ~ /^[A-Z][A-Z0-9_]*\*?$/)
				print w[i]
			else if (w[i] !~ /^[,;:.()]$/)
				ev = 0
		}
	}' "$1"
}

# check ROOT: the names read under ROOT against ROOT/jobtop.1.
check() {
	root=$1
	for d in src ui remote probes; do
		[ -d "$root/$d" ] || { fail "no $root/$d"; return; }
	done
	[ -f "$root/jobtop.1" ] || { fail "no $root/jobtop.1"; return; }
	find "$root/src" "$root/ui" "$root/remote" "$root/probes" -type f \
	    \( -name '*.c' -o -name '*.h' \) | sort >"$tmp/files"
	nfiles=$(wc -l <"$tmp/files")
	[ "$nfiles" -ge 50 ] || fail "only $nfiles C files under $root"
	# shellcheck disable=SC2046
	extract "$root" $(cat "$tmp/files") >"$tmp/found" || {
		fail "awk failed on the sources"
		return
	}

	# Every getenv of a non-literal and every environment walker is known.
	awk '$1 == "I" { print $2, $3 }' "$tmp/found" | sort -u |
	while read -r file expr; do
		grep -q "^$file $(printf '%s' "$expr" |
		    sed 's/[][\.*^$]/\\&/g') " "$tmp/indirect" ||
		    echo "FAIL: $expr in $file: the test does not know where its names come from (add its source to tests/regress/env-manual.sh)"
	done >"$tmp/unknown"
	awk '$1 == "W" { print $2 }' "$tmp/found" | sort -u |
	while read -r file; do
		grep -qx "$file" "$tmp/walkers" ||
		    echo "FAIL: $file walks an environment (environ): the test does not know which names it compares (add them to tests/regress/env-manual.sh)"
	done >>"$tmp/unknown"
	if [ -s "$tmp/unknown" ]; then
		cat "$tmp/unknown"
		fails=$((fails + $(wc -l <"$tmp/unknown")))
	fi
	for src in $sources; do
		k=$(awk -v s="$src" '$1 == "N" && $3 == s' "$tmp/found" | wc -l)
		[ "$k" -gt 0 ] || fail "no names from $src: the test no longer finds it in the sources"
	done

	awk '$1 == "N" { print $2 }' "$tmp/found" | sort -u >"$tmp/names"
	manual_names "$root/jobtop.1" | sort -u >"$tmp/documented"
	nnames=$(wc -l <"$tmp/names")
	ndoc=$(wc -l <"$tmp/documented")
	[ "$ndoc" -gt 0 ] || fail "$root/jobtop.1 has no ENVIRONMENT section naming variables with Ev"
	[ "$nnames" -ge "$MIN_NAMES" ] ||
	    fail "only $nnames variable names found in the code (want >= $MIN_NAMES): the extraction is broken"
	comm -23 "$tmp/names" "$tmp/documented" >"$tmp/missing"
	while read -r name; do
		# "file (how, how), file (how)"
		where=$(awk -v n="$name" '$1 == "N" && $2 == n { print $4, $3 }' \
		    "$tmp/found" | sort -u | awk '
		    $1 != f { if (f != "") out = out "), "; f = $1
			out = out f " (" $2; next }
		    { out = out ", " $2 }
		    END { print out ")" }')
		fail "$name is read ($where) but not named in the ENVIRONMENT section of jobtop.1"
	done <"$tmp/missing"
	comm -13 "$tmp/names" "$tmp/documented" | tr '\n' ' ' >"$tmp/extra"
	[ -s "$tmp/extra" ] &&
	    echo "note: documented, read by libraries or only passed on: $(cat "$tmp/extra")"
	echo "checked $nnames names from $nfiles files against $ndoc documented: $(tr '\n' ' ' <"$tmp/names")"
}

# The proof: a planted tree must fail, naming each plant.
selfcheck() {
	p=$tmp/planted
	mkdir -p "$p"
	cp -R "$ROOT/src" "$ROOT/ui" "$ROOT/remote" "$ROOT/probes" \
	    "$ROOT/jobtop.1" "$p/" || { fail "selfcheck: cannot copy the tree"; return; }
	cat >"$p/src/zz-planted.c" <<'EOF'
/* SPDX-License-Identifier: ISC */
/* A plant: getenv("JOBTOP_IN_COMMENT") is a comment, not a read. */
#include <stdlib.h>
const char	*planted(const char *);
const char *
planted(const char *planted_name)
{
	// getenv("JOBTOP_IN_LINE_COMMENT")
	if (getenv(planted_name) != NULL)
		return getenv(
		    "JOBTOP_PLANTED");
	return NULL;
}
EOF
	awk '/^[ \t]*JOBVARS_END[ \t]*$/ && !done {
		print "\t{ .name = \"JOBTOP_PLANTED_JOBVAR\", .match = JV_WHOLE },"
		done = 1
	}
	{ print }' "$ROOT/src/jobvars.h" >"$p/src/jobvars.h"
	grep -q JOBTOP_PLANTED_JOBVAR "$p/src/jobvars.h" ||
	    { fail "selfcheck: could not plant a row in src/jobvars.h"; return; }
	JOBTOP_ENV_SRCROOT=$ROOT JOBTOP_ENV_SELFCHECK=0 sh "$SELF" \
	    >"$tmp/base.out" 2>&1
	if JOBTOP_ENV_SRCROOT=$p JOBTOP_ENV_SELFCHECK=0 sh "$SELF" \
	    >"$tmp/planted.out" 2>&1; then
		fail "selfcheck: the planted tree passed"
		sed 's/^/    /' "$tmp/planted.out"
		return
	fi
	for want in "FAIL: JOBTOP_PLANTED is read (src/zz-planted.c (getenv))" \
	    "FAIL: JOBTOP_PLANTED_JOBVAR is read" \
	    "FAIL: getenv(planted_name) in src/zz-planted.c"; do
		grep -qF "$want" "$tmp/planted.out" ||
		    fail "selfcheck: the planted tree's run does not say \"$want\""
	done
	grep -q "JOBTOP_IN_COMMENT\|JOBTOP_IN_LINE_COMMENT" "$tmp/planted.out" &&
	    fail "selfcheck: a getenv in a comment was taken for a read"
	# The plants add three failures and take none away.
	for f in base planted; do
		grep '^FAIL: ' "$tmp/$f.out" | grep -v '^FAIL: env-manual:' |
		    sort >"$tmp/$f.fails"
	done
	k=$(comm -13 "$tmp/base.fails" "$tmp/planted.fails" | wc -l)
	[ "$k" -eq 3 ] || fail "selfcheck: the plants add $k failures, want 3"
	comm -23 "$tmp/base.fails" "$tmp/planted.fails" | grep -q . &&
	    fail "selfcheck: the plants hide failures of the unplanted sources"
	[ $fails -eq 0 ] && echo "ok: selfcheck: the planted getenv, jobvars row and unknown getenv(expr) are each caught"
	[ $fails -eq 0 ] || sed 's/^/    /' "$tmp/planted.out"
}

if [ "${JOBTOP_ENV_SELFCHECK:-1}" != 0 ]; then
	selfcheck
fi
check "$ROOT"
[ $fails -eq 0 ] || { echo "FAIL: env-manual: $fails problem(s)"; exit 1; }
echo "ok: every variable the code reads is named in jobtop.1's ENVIRONMENT"
