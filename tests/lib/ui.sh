# SPDX-License-Identifier: ISC
# ui.sh: the one way tests drive the curses monitor through tmux, read its
# screen back and wait.  Sourced by lab tests (bash) and regress tests
# (POSIX sh).  Every assertion about a state the monitor reaches later (a
# row that fills, a flag that comes, a key's effect) waits for that state
# with a deadline (ui_expect, until_ok), never checks it once right after
# waiting for something else: samples reach rows at different moments.
#
# Set before use:
#   UI_TMUX  the tmux command, e.g. "tmux -L sock" or "lab_as jtuser tmux -L sock"
#   UI_WIN   the session (target) name
#   UI_JOIN  non-empty: capture-pane -J (wrapped lines joined)

ui_tmux() { $UI_TMUX "$@"; }
ui_screen() {
	if [ -n "${UI_JOIN:-}" ]; then
		ui_tmux capture-pane -p -J -t "$UI_WIN"
	else
		ui_tmux capture-pane -p -t "$UI_WIN"
	fi
}
ui_keys() { ui_tmux send-keys -t "$UI_WIN" "$@"; }

# ui_now_ms: a monotonic-enough wall clock in milliseconds.
ui_now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# until_ok SECONDS COMMAND...: run COMMAND every 0.2 s until it succeeds
# (0), or 1 once SECONDS (may be fractional: 2.5) have passed.
until_ok() {
	_uo_end=$(( $(ui_now_ms) + $(echo "$1" | awk '{ printf "%d", $1 * 1000 }') ))
	shift
	while :; do
		"$@" && return 0
		[ "$(ui_now_ms)" -lt "$_uo_end" ] || return 1
		sleep 0.2
	done
}

# ui_match ERE...: the current screen matches every ERE (each on some line).
ui_match() {
	_um_s=$(ui_screen) || return 1
	for _um_re in "$@"; do
		printf '%s\n' "$_um_s" | grep -Eq -- "$_um_re" || return 1
	done
	return 0
}

# ui_wait SECONDS ERE...: until one screen matches every ERE (1 after the
# time is up).
ui_wait() {
	_uw_t=$1
	shift
	until_ok "$_uw_t" ui_match "$@"
}

# ui_fail MESSAGE: show the screen and fail the test.
ui_fail() {
	echo "--- screen:"
	ui_screen 2>/dev/null || true
	echo "FAIL: $*"
	exit 1
}

# ui_expect SECONDS ERE MESSAGE: wait for the screen to match ERE, or fail
# with MESSAGE and the screen.
ui_expect() {
	ui_wait "$1" "$2" || ui_fail "$3"
}

# ui_count ERE: how many lines of the screen match ERE.
ui_count() { ui_screen | grep -Ec -- "$1"; }

# ui_count_ge N ERE: at least N lines match (for until_ok).
ui_count_ge() { [ "$(ui_count "$2")" -ge "$1" ]; }

# ui_has_fixed N STRING: at least N lines of the screen hold STRING (no
# pattern: for names full of regex and control characters).
ui_has_fixed() { [ "$(ui_screen | grep -Fc -- "$2")" -ge "$1" ]; }
# ui_wait_fixed SECONDS STRING [N]: until N (1) lines hold STRING.
ui_wait_fixed() { until_ok "$1" ui_has_fixed "${3:-1}" "$2"; }
