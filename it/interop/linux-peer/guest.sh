#!/usr/bin/env bash
# Runs commands in a Linux peer's guest through its agent (the 9p share of start.sh's state folder).
#
# Usage:
#   guest.sh [-t SECONDS] STATE CMD [ARG...]   run CMD (default timeout 60 s), print its output (stdout and stderr),
#                                              exit with its exit code; on timeout kill it and exit 124
#   guest.sh -b STATE CMD [ARG...]             start CMD in the background, print its id
#   guest.sh -w [-t SECONDS] STATE ID          wait for a background command: print its output, exit with its code
#   guest.sh -o STATE ID                       print a background command's output so far
#   guest.sh -k STATE ID [SIGNAL]              signal a background command and its children (default TERM)
# CMD runs as root in /root with bash's 'exec', its arguments quoted as given: for pipes or redirections use
# 'bash -c "..."'.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

mode=run timeout=60
while [ $# -gt 0 ]; do
  case "$1" in
    -b) mode=spawn; shift ;;
    -w) mode=wait; shift ;;
    -o) mode=output; shift ;;
    -k) mode=kill; shift ;;
    -t) timeout=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || die "usage: guest.sh [-b|-w|-o|-k] [-t SECONDS] STATE CMD... (see the top of $0)"
state=$1
shift
dir=$state/share/cmd
[ -d "$dir" ] || die "no peer at $state (no share/cmd)"

submit() {
  local id
  id=$(date +%s%N)-$$-$RANDOM
  { printf 'exec'; printf ' %q' "$@"; printf '\n'; } >"$dir/$id.sh.tmp"
  mv "$dir/$id.sh.tmp" "$dir/$id.sh"
  echo "$id"
}

# await ID SECONDS: true once ID.rc exists, false at the deadline or if QEMU has ended
await() {
  local deadline=$(( $(now_ms) + $2 * 1000 )) qemu
  qemu=$(cat "$state/qemu.pid" 2>/dev/null || true)
  until [ -e "$dir/$1.rc" ]; do
    [ "$(now_ms)" -lt "$deadline" ] || return 1
    if [ -n "$qemu" ] && ! kill -0 "$qemu" 2>/dev/null; then
      echo "linux-peer: QEMU ended" >&2
      return 1
    fi
    sleep 0.05
  done
}

finish() { # print the output, clean up, exit with the code
  local rc
  cat "$dir/$1.out" 2>/dev/null || true
  rc=$(cat "$dir/$1.rc")
  rm -f "$dir/$1".*
  exit "$rc"
}

signal() { printf '%s' "${2:-TERM}" >"$dir/$1.kill"; }

# kill_and_finish ID: TERM, then KILL; print what it wrote; exit 124
kill_and_finish() {
  signal "$1" TERM
  await "$1" 5 || { signal "$1" KILL; await "$1" 5 || true; }
  cat "$dir/$1.out" 2>/dev/null || true
  echo "linux-peer: guest command $1 timed out after $timeout s and was killed" >&2
  [ -e "$dir/$1.rc" ] && rm -f "$dir/$1".*
  exit 124
}

case "$mode" in
  run)
    id=$(submit "$@")
    await "$id" "$timeout" || kill_and_finish "$id"
    finish "$id"
    ;;
  spawn) submit "$@" ;;
  wait) await "$1" "$timeout" || kill_and_finish "$1"; finish "$1" ;;
  output) cat "$dir/$1.out" 2>/dev/null || true ;;
  kill) signal "$1" "${2:-TERM}" ;;
esac
