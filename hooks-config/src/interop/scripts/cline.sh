#!/bin/sh
# Cline's __HOOKS_EVENT__ hook, written by `hooks init cline` (run it again to update it).
# It hands Cline's JSON on stdin to `hooks cline` and prints its answer. Cline runs the call
# when a hook fails, so when `hooks` is missing, crashes, answers nothing or runs past the
# deadline, this script prints a cancel itself.
# hooks-command: __HOOKS_COMMAND__
hooks=__HOOKS_BINARY__
case $0 in
  */*) here=${0%/*} ;;
  *) here=. ;;
esac
config="$here"/__HOOKS_CONFIG__
# Below Cline's own 30 s timeout, which would let the call run.
deadline=${HOOKS_CLINE_DEADLINE:-__HOOKS_DEADLINE__}
case $deadline in
  '' | *[!0-9]*) deadline=__HOOKS_DEADLINE__ ;;
esac

block() {
  printf '{"cancel":true,"errorMessage":"hooks: %s; the call is blocked because the guard could not decide"}\n' "$1"
  exit 0
}

# The answer goes through files, not pipes: a process `hooks` left behind must not keep
# Cline waiting for the end of this script's output.
out=$(mktemp) && err=$(mktemp) || block "no temporary file for the guard's answer"
trap 'rm -f "$out" "$err"' EXIT
# An asynchronous command reads /dev/null unless given stdin explicitly.
exec 3<&0
"$hooks" __HOOKS_AGENT__ --config "$config" <&3 >"$out" 2>"$err" &
pid=$!
(sleep "$deadline" && kill -9 "$pid") >/dev/null 2>&1 &
timer=$!
wait "$pid"
status=$?
kill "$timer" 2>/dev/null
cat "$err" >&2
[ "$status" -eq 0 ] || block "the guard (hooks cline) is missing, failed or ran past ${deadline} s"
answer=$(cat "$out")
case $answer in
  *'"cancel"'*) printf '%s\n' "$answer" ;;
  *) block "the guard (hooks cline) gave no answer" ;;
esac
exit 0
