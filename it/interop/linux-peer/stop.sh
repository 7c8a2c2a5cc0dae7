#!/usr/bin/env bash
# Stops a Linux peer started by start.sh: ends QEMU (and any process left in the namespace), deletes the network
# namespace and the state folder. Idempotent: a second call, or one on a half-started peer, does what is left.
#
# Usage: stop.sh [--keep-logs] STATE_DIR
#   --keep-logs   keep serial.log, qemu.log and peer.env in STATE_DIR (the rest is deleted)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

keep=0
[ "${1:-}" = --keep-logs ] && { keep=1; shift; }
[ $# -eq 1 ] || die "usage: stop.sh [--keep-logs] STATE_DIR"
state=$1
[ -d "$state" ] || exit 0
need_root

# end PID: TERM, then KILL if it is still there after 10 s.
end() {
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
}

if [ -s "$state/qemu.pid" ]; then
  pid=$(<"$state/qemu.pid")
  # only if that pid is still this peer's QEMU (pids are reused)
  if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$state/overlay.qcow2"; then
    end "$pid"
  fi
fi
netns=$(cat "$state/netns" 2>/dev/null || true)
if [ -n "$netns" ] && ip netns list | grep -qw "^$netns"; then
  # Whatever still runs in the namespace was started there for this peer (child JVMs, tools): end it first, or the
  # namespace would outlive its name.
  for pid in $(ip netns pids "$netns" 2>/dev/null); do
    [ "$pid" = "$$" ] || end "$pid"
  done
  ip netns del "$netns"
fi
if [ -s "$state/watch.pid" ]; then
  w=$(<"$state/watch.pid")
  # the watcher ends in 'exec stop.sh': it may be this very process
  [ "$w" = "$$" ] || kill -- "-$w" 2>/dev/null || true # its session: bash and its tail
fi
if [ "$keep" = 1 ]; then
  rm -rf --one-file-system "$state/share" "$state/overlay.qcow2" "$state/watch.pid" "$state/qemu.pid"
else
  rm -rf --one-file-system "$state"
fi
