#!/usr/bin/env bash
# Issue 27's done-when, one run: `rvt pingpong -n N` (driver-jni, RC, plain class path) between two network
# namespaces joined by a veth pair, nftables in the server's namespace dropping 5 % of UDP 4791 each way (input and
# output), beside CPU hogs. Needs root, ip and nft. Appends one line to the results file and exits 0 if both sides
# printed N iterations and exited 0.
#   .ci/lossy-pingpong.sh [--id K] [--iters N] [--hogs H] [--loss P] [--dist DIR] [--results FILE]
# --id (1-250) keeps concurrent runs apart (namespaces rvtlpaK/rvtlpbK, addresses 10.198.K.1/2); --dist holds
# launcher-0.1.0-SNAPSHOT.jar and lib/ (default: this checkout's launcher/target, built by ./rvt or mvn install; copy
# it elsewhere to freeze a build while others change the checkout).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
id=1 iters=20000 hogs=2 loss=5 dist="$here/launcher/target" results="$here/target/lossy-pingpong.txt"
while [ $# -gt 0 ]; do
  case "$1" in
    --id) id="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --hogs) hogs="$2"; shift 2 ;;
    --loss) loss="$2"; shift 2 ;;
    --dist) dist="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    *) echo "lossy-pingpong: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -f "$dist/launcher-0.1.0-SNAPSHOT.jar" ] || { echo "lossy-pingpong: no launcher jar in $dist (mvn install first)" >&2; exit 2; }
out="$(dirname "$results")/lossy-pingpong-$id"; mkdir -p "$out"
na="rvtlpa$id" nb="rvtlpb$id" va="rvtlpva$id" vb="rvtlpvb$id" ipa="10.198.$id.1" ipb="10.198.$id.2"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  ip netns del "$na" 2>/dev/null || true; ip netns del "$nb" 2>/dev/null || true
}
trap cleanup EXIT
ip netns del "$na" 2>/dev/null || true; ip netns del "$nb" 2>/dev/null || true
ip netns add "$na"; ip netns add "$nb"
ip link add "$va" type veth peer name "$vb"
ip link set "$va" netns "$na"; ip link set "$vb" netns "$nb"
ip -n "$na" addr add "$ipa/24" dev "$va"; ip -n "$nb" addr add "$ipb/24" dev "$vb"
for x in "$na:$va" "$nb:$vb"; do ip -n "${x%%:*}" link set "${x#*:}" up; ip -n "${x%%:*}" link set lo up; done
ip netns exec "$nb" nft add table inet rvt
for hook in input output; do
  ip netns exec "$nb" nft add chain inet rvt $hook "{ type filter hook $hook priority 0 ; }"
  ip netns exec "$nb" nft add rule inet rvt $hook udp dport 4791 numgen random mod 100 '<' "$loss" counter drop
done
for _ in $(seq 1 "$hogs"); do timeout 7200 sh -c 'while :; do :; done' & pids+=($!); done
java=(java -cp "$dist/launcher-0.1.0-SNAPSHOT.jar:$dist/lib/*" io.rvt.launcher.Main --driver jni --no-osgi)
load0=$(cut -d' ' -f1 /proc/loadavg); start=$(date +%s); startiso=$(date -u +%H:%M:%S)
ip netns exec "$nb" "${java[@]}" --address "$ipb" pingpong --server -n "$iters" >"$out/server.out" 2>"$out/server.err" &
srv=$!; pids+=("$srv")
# the client once the server listens (its line says so), at most 5 minutes
deadline=$(( $(date +%s) + 300 ))
until grep -q "waiting for a client" "$out/server.out" 2>/dev/null || [ "$(date +%s)" -ge "$deadline" ]; do sleep 0.5; done
ip netns exec "$na" "${java[@]}" --address "$ipa" pingpong "$ipb" -n "$iters" >"$out/client.out" 2>"$out/client.err" &
cli=$!; pids+=("$cli")
crc=0; wait "$cli" || crc=$?
src=0; wait "$srv" || src=$?
dur=$(( $(date +%s) - start )); load1=$(cut -d' ' -f1 /proc/loadavg)
drops=$(ip netns exec "$nb" nft list table inet rvt | grep -o 'packets [0-9]*' | awk '{s=s $2 " "} END{print s}')
verdict=FAIL
if [ "$crc" = 0 ] && [ "$src" = 0 ] && grep -q "^$iters iters in" "$out/client.out" && grep -q "^$iters iters in" "$out/server.out"; then
  verdict=PASS
fi
counters() { sed -n 's/^ Port counters   : //p; s/^ Socket calls    : /calls: /p' "$1" | paste -sd' ' -; }
err=$(cat "$out/client.err" "$out/server.err" | grep -m1 "rvt:" || true)
echo "run $id start $startiso dur ${dur}s load $load0->$load1 $verdict (client rc $crc, server rc $src) nft drops in/out: $drops| client: $(counters "$out/client.out") | server: $(counters "$out/server.out") | $err" | tee -a "$results"
[ "$verdict" = PASS ]
