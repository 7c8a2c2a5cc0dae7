#!/usr/bin/env bash
# driver-jni's 64 B RC SEND message rate beside the kernel's floor, in one interleaved run: each round runs, one
# after the other,
#   c-rc       bench/target/udploop -1 -s 80 -w 64 -a: one thread, 80 B datagrams (a 64 B RC SEND's BTH + payload +
#              ICRC) in sendmmsg/recvmmsg batches of 32 (driver-jni's default batch), at most 64 unacknowledged
#              (JniBenchmark's window), each receive batch acknowledged by a datagram as an RC responder coalesces ACKs
#   c-stream   bench/target/udploop -s 64: a sending and a receiving thread, unpaced (what iperf3 measures)
#   jmh-<t>    JniBenchmark.sendRate (wire=NATIVE) with threading=<t> for each of $THREADINGS (default: progress,
#              driver-jni's default, and network, its port threads only)
#   perf       ./rvt --driver jni perf -s 64 -D <secs> (Felix, the default the users run) and, with PERF_NO_OSGI=1,
#              ./rvt --driver jni --no-osgi perf too
#   iperf3     iperf3 -u -l 64 -b 0 on 127.0.0.1, if installed (apt-get install iperf3; not needed otherwise)
# and prints each row's messages per second over the rounds (median, min-max) and its ratio to c-rc per round.
# Build first: mvn -q -pl bench,launcher -am package -DskipTests (./rvt builds the launcher itself if needed).
# Usage: bench/udp-compare.sh [rounds] [seconds]      (defaults: 3 rounds, 2 s per measurement)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-3}"
secs="${2:-2}"
threadings="${THREADINGS:-progress network}"
loop="$here/bench/target/udploop"
jar="$here/bench/target/benchmarks.jar"
out="$(mktemp -d /tmp/udp-compare.XXXXXX)"
trap 'rm -rf "$out"' EXIT
[ -x "$loop" ] && [ -f "$jar" ] || { echo "build first: mvn -q -pl bench,launcher -am package -DskipTests" >&2; exit 2; }
have_iperf3=0
command -v iperf3 >/dev/null && have_iperf3=1 || echo "iperf3 not installed: its row is left out" >&2

# Each function prints one number: messages (datagrams) per second.
c_rc() { "$loop" -1 -q -s 80 -w 64 -a -t "$secs" | sed -n 's/.* rate=\([0-9.]*\).*/\1/p'; }
c_stream() { "$loop" -q -s 64 -t "$secs" | sed -n 's/.* rate=\([0-9.]*\).*/\1/p'; }
jmh() {
    # ns per message -> messages per second; a short warm-up: the JIT settles within a few windows
    java -jar "$jar" 'JniBenchmark\.sendRate$' -p wire=NATIVE -p threading="$1" -f 1 -wi 3 -w 1 -i "$secs" -r 1 \
        -rf csv -rff "$out/jmh.csv" >/dev/null 2>&1
    python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(1e9/float(r[0]["Score"]))' \
        "$out/jmh.csv"
}
perf() {
    "$here/rvt" --driver jni "$@" perf -s 64 -D "$secs" 2>/dev/null | awk '$1 == 64 { print $5 * 1e6 }'
}
iperf() {
    local port=$((20000 + RANDOM % 20000)) # not bench/iperf3.sh's 5299: another run may hold it
    iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
    local server=$!
    local ok=0
    for _ in $(seq 1 50); do
        if iperf3 -c 127.0.0.1 -p "$port" -u -b 0 -l 64 -t "$secs" -J >"$out/iperf3.json" 2>/dev/null; then
            ok=1
            break
        fi
        sleep 0.1
    done
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    [ "$ok" = 1 ] || { echo 0; return; }
    # the receiver's datagrams: bytes received / 64 over the receiver's seconds (lost ones excluded)
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1])).get("end", {})
r, s = d.get("sum_received"), d.get("sum", {})
print(r["bytes"] / 64 / r["seconds"] if r else (s["packets"] - s["lost_packets"]) / s["seconds"])' \
        "$out/iperf3.json" 2>/dev/null || echo 0
}

rows="c-rc c-stream"
for t in $threadings; do rows="$rows jmh-$t"; done
rows="$rows perf"
[ "${PERF_NO_OSGI:-0}" = 1 ] && rows="$rows perf-no-osgi"
[ "$have_iperf3" = 1 ] && rows="$rows iperf3"
echo "udp-compare: $rounds rounds of: $rows ($secs s each), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
    for row in $rows; do
        case "$row" in
            c-rc) v="$(c_rc)" ;;
            c-stream) v="$(c_stream)" ;;
            jmh-*) v="$(jmh "${row#jmh-}")" ;;
            perf) v="$(perf)" ;;
            perf-no-osgi) v="$(perf --no-osgi)" ;;
            iperf3) v="$(iperf)" ;;
        esac
        echo "$r $row ${v:-0}" | tee -a "$out/results"
    done
done
python3 - "$out/results" "$rows" <<'PY'
import statistics, sys
rows = sys.argv[2].split()
by = {}
for line in open(sys.argv[1]):
    r, row, v = line.split()
    by.setdefault(row, {})[int(r)] = float(v)
print(f"{'row':<14}{'median M msg/s':>16}{'min-max':>18}{'vs c-rc per round':>34}")
for row in rows:
    vals = by.get(row, {})
    if not vals:
        continue
    xs = list(vals.values())
    ratios = [vals[k] / by["c-rc"][k] for k in sorted(vals) if by["c-rc"].get(k)]
    print(f"{row:<14}{statistics.median(xs) / 1e6:>16.3f}{min(xs) / 1e6:>9.3f}-{max(xs) / 1e6:<8.3f}"
          f"{' '.join(f'{x:.2f}x' for x in ratios):>34}")
PY
