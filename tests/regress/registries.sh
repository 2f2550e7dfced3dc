#!/bin/sh
# SPDX-License-Identifier: ISC
# registries: the names of the monitor's registries are typed once, in
# the registry's own files (issue 23 item 3), so that help, usage, "known:"
# texts and rules come from the registries instead of lists that drift.
# The registries and their own files:
#  - schedulers: sched_table (src/sched.c); a name is the .name of a
#    `const struct sched sched_X` and belongs to that src/sched-X.c;
#  - transports: feed_transports[] (remote/ladder.c); a name belongs to
#    ladder.c and to the remote/ file that defines its constructor
#    (feed_new_NAME, or a row macro NAME_ROW(NAME) that does);
#  - export formats: the .option of exp_writers[] (src/export.c); a name
#    belongs to export.c and to the file whose descriptor has that .name
#    (src/exp-*.c, src/out-json.c).
# In src/, ui/ and remote/ (the monitor; the probe is another program),
# comments stripped, it fails for a string literal outside a name's own
# files that is the name ("slurm") or its option ("--csv"), and anywhere
# for a literal that lists two or more names of one registry ("slurm, pbs",
# "--json|--csv": a hand-kept list), unless the exception list below has
# that file and literal, with the reason.
#
# The check proves itself first: on a copy with planted violations (a
# scheduler name, a transport list, an export option, and one in a
# comment) it must fail naming the three and not the comment's.
# JOBTOP_REG_SRCROOT: another tree to check; JOBTOP_REG_SELFCHECK=0 skips
# the proof.  Exit 0 pass, 1 fail.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ROOT=${JOBTOP_REG_SRCROOT:-$TOP}
SELF=$TOP/tests/regress/registries.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jt-registries.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
LC_ALL=C
export LC_ALL

# The exceptions: FILE LITERAL (as written, quotes and all) and why.  Keep
# it short: a new entry needs a reason a registry cannot give.
cat >"$tmp/except" <<'EOF'
src/main.c "json" the monitor's own --json (live batch records), not export's option
src/sched-env.c "slurm" Slurm's cgroup v1 root directory (/slurm/uid_U/job_ID), a path, not the scheduler's name
ui/panel-nodes.c "libssh2" the usual transport, which the STATE cell leaves unnamed (the UI cannot see remote/'s registry)
src/sched-slurm.c "--json" scontrol's own --json (Slurm 23.02+ prints the job's GRES detail as JSON), not export's option
remote/explain.c "ssh" --explain runs the OpenSSH client's own ssh -v after the ssh rung: the program and that rung
EOF

# strip FILE...: "FILE<TAB>LITERAL" for every string literal outside
# comments, adjacent literals kept apart.
literals() {
	awk '
	FNR == 1 { incom = 0 }
	{
		line = $0
		n = length(line)
		i = 1
		while (i <= n) {
			if (incom) {
				j = index(substr(line, i), "*/")
				if (j == 0)
					break
				i += j + 1
				incom = 0
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
			if (c == "\047") {
				j = i + 1
				while (j <= n && substr(line, j, 1) != "\047")
					j += substr(line, j, 1) == "\\" ? 2 : 1
				i = j + 1
				continue
			}
			if (c == "\"") {
				j = i + 1
				while (j <= n && substr(line, j, 1) != "\"")
					j += substr(line, j, 1) == "\\" ? 2 : 1
				print FILENAME "\t" substr(line, i, j - i + 1)
				i = j + 1
				continue
			}
			i++
		}
	}' "$@"
}

# names ROOT: "REGISTRY NAME OWNFILE" lines.
names() {
	r=$1
	# Schedulers: the .name of each `const struct sched sched_X = {`.
	for f in "$r"/src/sched-*.c; do
		awk -v f="${f#"$r"/}" '
		/^const struct sched sched_[a-z0-9_]+ = \{/ { in_d = 1; next }
		in_d && /^};/ { in_d = 0 }
		in_d && match($0, /\.name = "[^"]*"/) {
			print "sched", substr($0, RSTART + 9, RLENGTH - 10), f
		}' "$f"
	done
	# Transports: feed_transports[]'s .name, owned by ladder.c and the
	# file that defines the constructor.
	awk '
	/feed_transports\[\] = \{/ { in_t = 1; next }
	in_t && /^};/ { in_t = 0 }
	in_t {
		s = $0
		while (match(s, /\.name = "[^"]*"/)) {
			print substr(s, RSTART + 9, RLENGTH - 10)
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$r/remote/ladder.c" >"$tmp/tnames"
	while read -r t; do
		echo "transport $t remote/ladder.c"
		for f in "$r"/remote/*.c; do
			grep -Eq "^feed_new_$t\(|^[A-Z_]+_ROW\($t\)" "$f" &&
			    echo "transport $t ${f#"$r"/}"
		done
	done <"$tmp/tnames"
	# Export formats: exp_writers[]'s .option, owned by export.c and the
	# file whose descriptor has that .name.
	awk '
	/exp_writers\[\] = \{/ { in_t = 1; next }
	in_t && /^};/ { in_t = 0 }
	in_t {
		s = $0
		while (match(s, /\.option = "[^"]*"/)) {
			print substr(s, RSTART + 11, RLENGTH - 12)
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$r/src/export.c" >"$tmp/enames"
	while read -r e; do
		echo "export $e src/export.c"
		for f in "$r"/src/exp-*.c "$r"/src/out-*.c; do
			grep -q "^[[:space:]]*\.name = \"$e\"," "$f" &&
			    echo "export $e ${f#"$r"/}"
		done
	done <"$tmp/enames"
}

# check ROOT: every literal of ROOT's src, ui and remote.
check() {
	root=$1
	for d in src ui remote; do
		[ -d "$root/$d" ] || { fail "no $root/$d"; return; }
	done
	names "$root" | sort -u >"$tmp/names"
	for reg in sched transport export; do
		k=$(awk -v r=$reg '$1 == r' "$tmp/names" | awk '{ print $2 }' |
		    sort -u | wc -l)
		[ "$k" -ge 2 ] || fail "only $k $reg names found: the registry moved (update tests/regress/registries.sh)"
	done
	# Every scheduler of sched_table has its descriptor found above.
	k=$(grep -c '^[[:space:]]*&sched_[a-z0-9_]*,' "$root/src/sched.c")
	n=$(awk '$1 == "sched"' "$tmp/names" | wc -l)
	[ "$k" -eq "$n" ] ||
	    fail "sched_table lists $k schedulers, $n descriptors found"
	find "$root/src" "$root/ui" "$root/remote" -type f \
	    \( -name '*.c' -o -name '*.h' \) | sort >"$tmp/files"
	# shellcheck disable=SC2046
	literals $(cat "$tmp/files") | sed "s|^$root/||" >"$tmp/lits"
	nl=$(wc -l <"$tmp/lits")
	[ "$nl" -ge 1000 ] || fail "only $nl literals found: the scan is broken"
	awk -F '\t' -v namesf="$tmp/names" -v exceptf="$tmp/except" '
	BEGIN {
		while ((getline l < namesf) > 0) {
			split(l, nf, " ")
			if (index(reg[nf[2]] " ", " " nf[1] " ") == 0)
				reg[nf[2]] = reg[nf[2]] " " nf[1]
			own[nf[2] SUBSEP nf[3]] = 1
			isname[nf[1] SUBSEP nf[2]] = 1
		}
		while ((getline l < exceptf) > 0) {
			split(l, ef, " ")
			exc[ef[1] SUBSEP ef[2]] = 1
		}
	}
	{
		file = $1
		lit = $2
		if ((file SUBSEP lit) in exc) {
			used[file SUBSEP lit] = 1
			next
		}
		s = substr(lit, 2, length(lit) - 2)
		b = s
		sub(/^--/, "", b)
		# The name itself, or its option.
		if (b in reg && !((b SUBSEP file) in own)) {
			print "FAIL: " file ": " lit " is a name of the" reg[b] \
			    " registry, typed outside its own files"
			bad++
		}
		# A list: two names of one registry with a separator between.
		prev = ""
		rest = s
		gsub(/,? (or|and) /, "|", rest)
		while (match(rest, /(--)?[A-Za-z0-9_]+/)) {
			w = substr(rest, RSTART, RLENGTH)
			sep = substr(rest, 1, RSTART - 1)
			rest = substr(rest, RSTART + RLENGTH)
			sub(/^--/, "", w)
			if (prev != "" && sep ~ /^(, |\|| \| )$/ &&
			    listed(prev, w)) {
				print "FAIL: " file ": " lit " lists names of a " \
				    "registry by hand (take them from the registry)"
				bad++
				break
			}
			prev = w
		}
	}
	function listed(a, b,    r) {
		for (r in isname) {
			split(r, q, SUBSEP)
			if (q[2] == a && ((q[1] SUBSEP b) in isname))
				return 1
		}
		return 0
	}
	END {
		# An exception that matches nothing is stale: drop it.
		for (e in exc)
			if (!(e in used)) {
				split(e, q, SUBSEP)
				print "FAIL: exception " q[1] " " q[2] " matches " \
				    "no literal (remove it from the list)"
			}
		print "done"
	}' "$tmp/lits" >"$tmp/out" ||
	    fail "awk failed on the literals"
	grep -qx done "$tmp/out" || fail "the literal scan did not finish"
	sed -i '/^done$/d' "$tmp/out"
	if [ -s "$tmp/out" ]; then
		cat "$tmp/out"
		fails=$((fails + $(grep -c '^FAIL' "$tmp/out")))
	fi
	echo "checked $nl literals of $(wc -l <"$tmp/files") files against $(awk '{ print $1, $2 }' "$tmp/names" | sort -u | wc -l) registry names: $(awk '{ print $2 }' "$tmp/names" | sort -u | tr '\n' ' ')"
}

# The proof: a planted tree must fail, naming each plant.
selfcheck() {
	p=$tmp/planted
	mkdir -p "$p"
	cp -R "$ROOT/src" "$ROOT/ui" "$ROOT/remote" "$p/" ||
	    { fail "selfcheck: cannot copy the tree"; return; }
	cat >"$p/ui/zz-planted.c" <<'EOF'
/* SPDX-License-Identifier: ISC */
/* A plant: "pbs" in a comment is not a violation. */
const char	*planted(int);
const char *
planted(int i)
{
	// "--openmetrics" in a line comment is not one either
	if (i == 1)
		return "pbs";
	if (i == 2)
		return "transport: auto, libssh2 or ssh";
	return "--sqlite";
}
EOF
	JOBTOP_REG_SRCROOT=$ROOT JOBTOP_REG_SELFCHECK=0 sh "$SELF" \
	    >"$tmp/base.out" 2>&1
	if JOBTOP_REG_SRCROOT=$p JOBTOP_REG_SELFCHECK=0 sh "$SELF" \
	    >"$tmp/planted.out" 2>&1; then
		fail "selfcheck: the planted tree passed"
		sed 's/^/    /' "$tmp/planted.out"
		return
	fi
	for want in 'FAIL: ui/zz-planted.c: "pbs" is a name of the sched' \
	    'FAIL: ui/zz-planted.c: "transport: auto, libssh2 or ssh" lists' \
	    'FAIL: ui/zz-planted.c: "--sqlite" is a name of the export'; do
		grep -qF "$want" "$tmp/planted.out" ||
		    fail "selfcheck: the planted tree's run does not say '$want'"
	done
	grep -q 'zz-planted.c: "--openmetrics"' "$tmp/planted.out" &&
	    fail "selfcheck: a name in a comment was taken for a literal"
	for f in base planted; do
		grep '^FAIL: ' "$tmp/$f.out" | grep -v '^FAIL: registries:' |
		    sort >"$tmp/$f.fails"
	done
	k=$(comm -13 "$tmp/base.fails" "$tmp/planted.fails" | wc -l)
	[ "$k" -eq 3 ] || fail "selfcheck: the plants add $k failures, want 3"
	[ $fails -eq 0 ] && echo "ok: selfcheck: a planted name, list and option are each caught"
	[ $fails -eq 0 ] || sed 's/^/    /' "$tmp/planted.out"
}

if [ "${JOBTOP_REG_SELFCHECK:-1}" != 0 ]; then
	selfcheck
fi
check "$ROOT"
[ $fails -eq 0 ] || { echo "FAIL: registries: $fails problem(s)"; exit 1; }
echo "ok: every registry name is typed in its own files only"
