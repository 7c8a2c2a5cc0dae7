#!/usr/bin/env bash
# iperf3 UDP on loopback at 64 B and 4 KiB datagrams, for comparison with JniBenchmark (driver-jni over UDP
# loopback). Debian's iperf3 (apt-get install iperf3). Usage: bench/iperf3.sh [seconds] [port]
# Prints, per size, the datagram rate and bandwidth the receiver got (lost datagrams excluded).
set -euo pipefail
secs="${1:-5}"
port="${2:-5299}"
command -v iperf3 >/dev/null || { echo "iperf3 is not installed (apt-get install iperf3)" >&2; exit 2; }

iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT

run() {
  local len="$1"
  # Wait for the server to listen (it serves one client per start with -1, so restart it per size).
  for _ in $(seq 1 50); do
    iperf3 -c 127.0.0.1 -p "$port" -u -b 0 -l "$len" -t "$secs" -J 2>/dev/null > "/tmp/iperf3-$len.json" && return 0
    sleep 0.1
  done
  echo "iperf3 client failed for $len B" >&2
  return 1
}

report() {
  local len="$1"
  python3 - "$len" "/tmp/iperf3-$len.json" <<'PY'
import json, sys
n = int(sys.argv[1])
d = json.load(open(sys.argv[2]))
s = d["end"]["sum"]
secs = s["seconds"]
got = s["packets"] - s["lost_packets"]
print(f"iperf3 UDP {n:>5} B: {got / secs / 1e6:7.3f} M datagrams/s received, "
      f"{got * n * 8 / secs / 1e9:7.3f} Gbit/s payload, {s['lost_percent']:.1f} % lost "
      f"(sender {s['packets'] / secs / 1e6:.3f} M/s)")
PY
}

run 64
report 64
iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
server=$!
run 4096
report 4096
