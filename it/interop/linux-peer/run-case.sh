#!/usr/bin/env bash
# Runs one interop case by hand: a command in the Linux peer's guest (a server, usually) and one on the host side in
# the peer's namespace (rvt, usually), with rxe0's hw_counters before and after (rxe drops bad packets silently).
#
# Usage: run-case.sh [-s STATE] [-t SECONDS] [-l PORT] [-g 'GUEST COMMAND'] [-- HOST COMMAND...]
#   -s STATE    a peer started with start.sh (default: start one for this case, stop it at the end)
#   -g CMD      run CMD in the guest (bash -c) in the background, e.g. -g 'rping -s -a 192.0.2.2 -C 1 -v -V'
#   -l PORT     before the host command, wait until the guest listens on PORT: an rdma_cm id in state LISTEN
#               (rping 7174, rdma_server 7471) or a TCP socket (ibv_*_pingpong, perftest: 18515)
#   -t SECONDS  bound for each side and for the wait (default 120)
#   HOST COMMAND runs as root inside the namespace (ip netns exec), e.g. rvt's counterpart of a tool:
#               -- it/interop/linux-peer/rvt-tool.sh Rping -c -a 192.0.2.2 -C 1 -V --bind 192.0.2.1
# Prints each side's output and exit code and the counters that changed; exits 1 if either side failed.
#
# Example (rvt's client against the guest's rping server, IPv4; run from the repository's root):
#   it/interop/linux-peer/run-case.sh -l 7174 -g 'rping -s -a 192.0.2.2 -C 1 -v -V' -- \
#     it/interop/linux-peer/rvt-tool.sh Rping -c -a 192.0.2.2 -C 1 -V --bind 192.0.2.1 --ack-timeout 18
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

state= timeout=120 port= guest_cmd=
while [ $# -gt 0 ]; do
  case "$1" in
    -s) state=$2; shift 2 ;;
    -t) timeout=$2; shift 2 ;;
    -l) port=$2; shift 2 ;;
    -g) guest_cmd=$2; shift 2 ;;
    --) shift; break ;;
    *) die "unknown argument '$1' (see the usage at the top of $0)" ;;
  esac
done
need_root
if [ -z "$state" ]; then
  state=$("$here/start.sh" | tail -n 1)
  trap '"$here/stop.sh" "$state"' EXIT
fi
netns=$(sed -n 's/^NETNS=//p' "$state/peer.env")

counters() {
  "$here/guest.sh" "$state" bash -c \
    'cd /sys/class/infiniband/rxe0/ports/1/hw_counters && for f in *; do read -r v < "$f" && echo "$f $v"; done'
}
before=$(counters)

gid=
if [ -n "$guest_cmd" ]; then
  gid=$("$here/guest.sh" -b "$state" bash -c "$guest_cmd")
fi
if [ -n "$port" ]; then
  "$here/guest.sh" -t "$timeout" "$state" bash -c 'for _ in $(seq '"$(( timeout * 10 ))"'); do
      rdma res show cm_id 2>/dev/null | grep -q "state LISTEN .* src-addr [^ ]*:'"$port"' " && exit 0
      [ -n "$(ss -Hltn "sport = :'"$port"'")" ] && exit 0
      sleep 0.1; done; echo "nothing listens on port '"$port"'"; exit 1' \
    || die "the guest does not listen on port $port; guest output:
$( [ -n "$gid" ] && "$here/guest.sh" -o "$state" "$gid")"
fi

host_rc=0
if [ $# -gt 0 ]; then
  echo "== host ($netns): $*"
  timeout "$timeout" ip netns exec "$netns" "$@" || host_rc=$?
  echo "== host exit code: $host_rc"
fi
guest_rc=0
if [ -n "$gid" ]; then
  echo "== guest: $guest_cmd"
  "$here/guest.sh" -w -t "$timeout" "$state" "$gid" || guest_rc=$?
  echo "== guest exit code: $guest_rc"
fi

echo "== rxe0 hw_counters that changed"
join <(sort <<<"$before") <(counters | sort) | awk '$3 != $2 { printf "%s %d -> %d (+%d)\n", $1, $2, $3, $3 - $2 }'
[ "$host_rc" = 0 ] && [ "$guest_rc" = 0 ]
