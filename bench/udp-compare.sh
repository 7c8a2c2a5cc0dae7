#!/usr/bin/env bash
# driver-jni's 64 B RC SEND message rate beside the kernel's floor, in one interleaved run: each round runs, one
# after the other,
#   c-rc       bench/target/udploop -1 -s 80 -w 64 -a: one thread, 80 B datagrams (a 64 B RC SEND's BTH + payload +
#              ICRC) in sendmmsg/recvmmsg batches of 32 (driver-jni's default batch), at most 64 unacknowledged
#              (JniBenchmark's window), each receive batch acknowledged by a datagram as an RC responder coalesces ACKs
#   c-stream   bench/target/udploop -s 64: a sending and a receiving thread, unpaced (what iperf3 measures)
#   jmh-<t>    JniBenchmark.sendRate (wire=NATIVE) with threading=<t> for each of $THREADINGS (default: progress,
#              driver-jni's default, and network, its port threads only); a window of 64, a window of receives
#              posted ahead (receivesAhead, as perftest's rx_depth: the RC credits do not run out)
#   perf       ./rvt --driver jni perf -s 64 -D <secs> (Felix, the default the users run) and, with PERF_NO_OSGI=1,
#              ./rvt --driver jni --no-osgi perf too
#   iperf3     iperf3 -u -l 64 -b 0 on 127.0.0.1, if installed (apt-get install iperf3; not needed otherwise)
# and with IPV6=1 the same over ::1, where driver-jni sends with UDP GSO (docs/driver-jni.md "UDP GSO on IPv6"):
#   c-rc6 / c-rc6-gso   udploop -6 as c-rc, without and with -g (UDP GSO: a batch as one sendmsg, UDP_SEGMENT)
#   jmh6-<t>            JniBenchmark.sendRate as jmh-<t>, -p address=::1
#   perf6               ./rvt --driver jni --address ::1 perf -s 64 -D <secs>
# (udploop -G adds UDP GRO on the receive side: see its header and docs/benchmarks.md "UDP GSO on IPv6")
# and with GRO=1 each jmh/jmh6/perf/perf6 row followed by its twin with driver-jni's UDP GRO off (JniBenchmark
# -p gro=false, ./rvt --udp-gro off), named <row>-nogro (docs/driver-jni.md "UDP GRO on receive")
# and with TWO=1 (issue 30: two processes against one; run it alone, as TWO=1 bench/udp-compare.sh 3 5):
#   c-pp       udploop -P -s 64: the kernel's blocking UDP round trip, a thread each (rate: round trips per second)
#   send1 / send2    ./rvt --driver jni perf --test send -s 64 -D <secs> in one process / between two (a server on
#              127.0.0.N, a client on 127.0.0.M, N and M random per run), the client's message rate
#   write1 / write2  the same with --test write -s 65536 (messages of 64 KiB per second)
#   pp2        ./rvt --driver jni pingpong --server / pingpong HOST -s 64 -n $PP_ITERS (default 100000: at 20000 a
#              quiet two-process round trip read 130-220 µs, at 100000 50-64, the JIT still at work in the shorter run)
#              between two
#              processes, as round trips per second (1e6 / usec/iter)
#   with SPIN=1 also send2-adaptive, write2-adaptive, pp2-adaptive: the same with --poller-spin adaptive (both
#              processes' pollers spin as the idle gaps say, up to --poller-wait; docs/driver-jni.md)
#   for the perf rows also the CPU of the JVM(s) per message inside the row (user + system of every thread, from
#   /proc, over the row's seconds after its first but the last two (at least 1 s), divided by the row's rate times that time), and a second table of
#   the ratios per round: send2/send1, write2/write1, pp2/c-pp (above 1 is faster than the reference)
# and prints each row's messages per second over the rounds (median, min-max) and its ratio to c-rc per round, and
# for udploop and JMH the process CPU time per message (every thread's; a machine shared with other work inflates it
# far less than the rate) and its ratio to c-rc's.
# Build first: mvn -q -pl bench,launcher -am package -DskipTests (./rvt builds the launcher itself if needed). JMH runs
# with -Djmh.ignoreLock=true: on a shared machine another JMH run may hold /tmp/jmh.lock.
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

# Each function prints messages (datagrams) per second and, where known, CPU nanoseconds per message.
udploop() { "$loop" -q -t "$secs" "$@" | sed -n 's/.* rate=\([0-9.]*\) cpu_ns_per_msg=\([0-9.]*\).*/\1 \2/p' || true; }
c_rc() { udploop -1 -s 80 -w 64 -a; }
c_stream() { udploop -s 64; }
jmh() {
    # ns per message -> messages per second; a short warm-up: the JIT settles within a few windows
    rm -f "$out/jmh.csv" # a failed run must not report the last one's score
    java -Djmh.ignoreLock=true -jar "$jar" 'JniBenchmark\.sendRate$' -p wire=NATIVE -p threading="$1" \
        -p address="${2:-127.0.0.1}" -p gro="${3:-true}" -f 1 -wi 3 -w 1 -i "$secs" -r 1 \
        -rf csv -rff "$out/jmh.csv" >"$out/jmh.out" 2>&1 || { echo "JMH failed: $(tail -3 "$out/jmh.out")" >&2; return; }
    local cpu
    cpu="$(sed -n 's/.*cpu_ns_per_op=\([0-9.]*\).*/\1/p' "$out/jmh.out" | tail -1)"
    python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); print(1e9/float(r[0]["Score"]), sys.argv[2])' \
        "$out/jmh.csv" "$cpu"
}
perf() {
    "$here/rvt" --driver jni "$@" perf -s 64 -D "$secs" 2>/dev/null | awk '$1 == 64 { print $5 * 1e6 }' || true
}
iperf() {
    local port=$((20000 + RANDOM % 20000)) # not bench/iperf3.sh's 5299: another run may hold it
    local server=
    local ok=0
    for _ in $(seq 1 20); do
        # a server serves one test (-1): start one for each attempt whose last server has gone
        if [ -z "$server" ] || ! kill -0 "$server" 2>/dev/null; then
            iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
            server=$!
            sleep 0.2
        fi
        if iperf3 -c 127.0.0.1 -p "$port" -u -b 0 -l 64 -t "$secs" -J >"$out/iperf3.json" 2>/dev/null; then
            ok=1
            break
        fi
    done
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    [ "$ok" = 1 ] || { echo "iperf3 failed 20 times" >&2; return; }
    # the receiver's datagrams: bytes received / 64 over the receiver's seconds (lost ones excluded)
    python3 -c 'import json,sys
d = json.load(open(sys.argv[1])).get("end", {})
r, s = d.get("sum_received"), d.get("sum", {})
print(r["bytes"] / 64 / r["seconds"] if r else (s["packets"] - s["lost_packets"]) / s["seconds"])' \
        "$out/iperf3.json" 2>/dev/null || true
}

# two processes: pair, start_perf
# shellcheck source=bench/perf-procs.sh
. "$here/bench/perf-procs.sh"
# the CPU seconds (user + system) the processes $@ used so far, from /proc (clock ticks)
cpu_of() {
    local t=0 p
    for p in "$@"; do
        t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
    echo "$t"
}
# waits until the file names a table's row header, up to 120 s
wait_row() { for _ in $(seq 1 1200); do grep -q '#bytes' "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
# a perf row in one process (one=1) or two: messages per second and CPU ns per message inside the row
perf_row() {
    local one=$1
    shift
    local a b srv cli pids
    read -r a b < <(pair)
    start_perf "$one" "$out" "$a" "$b" "$@" -D "$secs"
    local c0=0 c1=0 w=0
    if wait_row "$out/cli"; then
        sleep 1 # the row's first second: its first messages
        local t0 t1
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        c0=$(cpu_of $pids)
        sleep "$(awk -v s="$secs" 'BEGIN { print (s > 4 ? s - 3 : 1) }')" # ends before the row: a loaded machine starts processes slowly
        # shellcheck disable=SC2086
        c1=$(cpu_of $pids)
        t1=$(date +%s.%N)
        w=$(python3 -c "print($t1 - $t0)")
        # shellcheck disable=SC2086
        kill -0 $pids 2>/dev/null || w=0 # one had ended: its CPU left the sum, no figure

    fi
    # shellcheck disable=SC2086
    wait $pids 2>/dev/null || true
    awk '$1 ~ /^[0-9]+$/ && NF >= 5 { r = $5 } END { if (r != "") print r * 1e6 }' "$out/cli" | while read -r rate; do
        python3 -c 'import os, sys; r, c, w = map(float, sys.argv[1:4]); hz = os.sysconf("SC_CLK_TCK")
print(r, c / hz * 1e9 / (r * w) if r > 0 and w > 0 else 0)' "$rate" "$((c1 - c0))" "$w"
    done
}
# two-process ping-pong: round trips per second; arguments go to both processes
pp_row() {
    local a b srv
    read -r a b < <(pair)
    rm -f "$out/srv" "$out/cli"
    "$here/rvt" --driver jni --address "$a" pingpong --server -s 64 -n "${PP_ITERS:-100000}" "$@" >"$out/srv" 2>&1 &
    srv=$!
    for _ in $(seq 1 1200); do grep -q 'waiting for a client' "$out/srv" 2>/dev/null && break; sleep 0.1; done
    "$here/rvt" --driver jni --address "$b" pingpong "$a" -s 64 -n "${PP_ITERS:-100000}" "$@" >"$out/cli" 2>&1 || true
    wait "$srv" 2>/dev/null || true
    sed -n 's/.* = *\([0-9.]*\) usec\/iter.*/\1/p' "$out/cli" | awk '$1 > 0 { print 1e6 / $1 }'
}

nogro() { [ "${GRO:-0}" = 1 ] && echo "$1 $1-nogro" || echo "$1"; }
rows="c-rc c-stream"
for t in $threadings; do rows="$rows $(nogro "jmh-$t")"; done
rows="$rows $(nogro perf)"
if [ "${IPV6:-0}" = 1 ]; then
    rows="$rows c-rc6 c-rc6-gso"
    for t in $threadings; do rows="$rows $(nogro "jmh6-$t")"; done
    rows="$rows $(nogro perf6)"
fi
[ "${PERF_NO_OSGI:-0}" = 1 ] && rows="$rows perf-no-osgi"
[ "$have_iperf3" = 1 ] && rows="$rows iperf3"
[ "${TWO:-0}" = 1 ] && rows="c-pp send1 send2 write1 write2 pp2"
[ "${TWO:-0}" = 1 ] && [ "${SPIN:-0}" = 1 ] && rows="c-pp send1 send2 send2-adaptive write1 write2 write2-adaptive pp2 pp2-adaptive"
echo "udp-compare: $rounds rounds of: $rows ($secs s each), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
    for row in $rows; do
        case "$row" in
            c-rc) v="$(c_rc)" ;;
            c-stream) v="$(c_stream)" ;;
            jmh-*-nogro) t="${row#jmh-}"; v="$(jmh "${t%-nogro}" 127.0.0.1 false)" ;;
            jmh6-*-nogro) t="${row#jmh6-}"; v="$(jmh "${t%-nogro}" ::1 false)" ;;
            jmh-*) v="$(jmh "${row#jmh-}")" ;;
            jmh6-*) v="$(jmh "${row#jmh6-}" ::1)" ;;
            c-rc6) v="$(udploop -6 -1 -s 80 -w 64 -a)" ;;
            c-rc6-gso) v="$(udploop -6 -g -1 -s 80 -w 64 -a)" ;;
            perf) v="$(perf)" ;;
            perf-nogro) v="$(perf --udp-gro off)" ;;
            perf6) v="$(perf --address ::1)" ;;
            perf6-nogro) v="$(perf --address ::1 --udp-gro off)" ;;
            perf-no-osgi) v="$(perf --no-osgi)" ;;
            iperf3) v="$(iperf)" ;;
            c-pp) v="$(udploop -P -s 64)" ;;
            send1) v="$(perf_row 1 --test send -s 64)" ;;
            send2) v="$(perf_row 2 --test send -s 64)" ;;
            write1) v="$(perf_row 1 --test write -s 65536)" ;;
            write2) v="$(perf_row 2 --test write -s 65536)" ;;
            pp2) v="$(pp_row)" ;;
            send2-adaptive) v="$(perf_row 2 --test send -s 64 --poller-spin adaptive)" ;;
            write2-adaptive) v="$(perf_row 2 --test write -s 65536 --poller-spin adaptive)" ;;
            pp2-adaptive) v="$(pp_row --poller-spin adaptive)" ;;
        esac
        if [ -n "$v" ] && [ "${v%% *}" != 0 ]; then
            echo "$r $row $v" | tee -a "$out/results"
        else
            echo "$r $row failed: left out" >&2
        fi
    done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/results" "$rows" "${TWO:-0}" <<'PY'
import statistics, sys
rows = sys.argv[2].split()
rate, cpu = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    rate.setdefault(f[1], {})[int(f[0])] = float(f[2])
    if len(f) > 3 and float(f[3]) > 0:
        cpu.setdefault(f[1], {})[int(f[0])] = float(f[3])
def ratios(d, ref):
    return " ".join(f"{d[k] / ref[k]:.2f}x" for k in sorted(d) if ref.get(k))
ref = "c-rc" if "c-rc" in rate else "c-pp"
print(f"{'row':<20}{'median M msg/s':>15}{'min-max':>15}  {'vs ' + ref + ' per round':<22}{'CPU ns/msg':>11}  vs {ref}")
for row in rows:
    v = rate.get(row)
    if not v:
        continue
    xs = list(v.values())
    line = (f"{row:<20}{statistics.median(xs) / 1e6:>15.3f}{min(xs) / 1e6:>8.3f}-{max(xs) / 1e6:<6.3f}  "
            f"{ratios(v, rate[ref]) if ref in rate else '':<22}")
    c = cpu.get(row)
    if c:
        line += f"{statistics.median(c.values()):>11.0f}  {ratios(c, cpu[ref]) if ref in cpu else ''}"
    print(line)
if sys.argv[3] == "1":
    print("two processes against their reference, per round (rate: above 1 is faster; CPU per message: below 1 is "
          "cheaper)")
    for two, one in (("send2", "send1"), ("write2", "write1"), ("pp2", "c-pp"), ("send2-adaptive", "send1"),
                     ("write2-adaptive", "write1"), ("pp2-adaptive", "c-pp"), ("send2-adaptive", "send2"),
                     ("write2-adaptive", "write2"), ("pp2-adaptive", "pp2")):
        if two not in rate:
            continue
        a, b = rate.get(two, {}), rate.get(one, {})
        line = f"{two}/{one:<8} rate {ratios(a, b)}"
        ca, cb = cpu.get(two, {}), cpu.get(one, {})
        if ratios(ca, cb):
            line += f"; CPU per message {ratios(ca, cb)}"
        print(line)
PY
