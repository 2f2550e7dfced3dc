#!/bin/sh
# SPDX-License-Identifier: ISC
# layering: the monitor core (src/) stands below its views (ui/) and its
# transports (remote/): no file under src/ but src/main.c includes a
# header of ui/ or remote/ (issue 13: "only src/main.c reaches up"), and
# the views include no transport's header either.  Every include is
# resolved as the compiler's -iquote list does (src, ui, remote, probes:
# the first directory that has the file), so a header moved between
# layers is judged where it now lives.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
bad=0
where() {
	for d in src ui remote probes; do
		[ -e "$d/$1" ] && { echo "$d"; return; }
	done
	echo "?"
}
check() {
	layer=$1
	shift
	for f in "$@"; do
		[ "$f" = src/main.c ] && continue
		for h in $(sed -n 's/^#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
			d=$(where "$h")
			case "$layer:$d" in
			src:ui | src:remote | ui:remote | src:\? | ui:\?)
				echo "FAIL: $f includes \"$h\" ($d/)"
				bad=1
				;;
			esac
		done
	done
}
n=$(ls src/*.c src/*.h ui/*.c ui/*.h | wc -l)
[ "$n" -gt 50 ] || { echo "FAIL: only $n files found under src/ and ui/"; exit 1; }
check src src/*.c src/*.h
check ui ui/*.c ui/*.h
[ $bad -eq 0 ] || exit 1
echo "ok: $n files of src/ and ui/ include nothing from above their layer"
