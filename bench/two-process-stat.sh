#!/usr/bin/env bash
# Where the CPU of an rvt perf row goes, per message and per thread, in one process or between two (issue 30):
# starts ./rvt --driver jni perf ARGS -D SECS in one process (one) or as a server and a client on a random pair of
# loopback addresses (two, as bench/udp-compare.sh's TWO=1 rows), and from SKIP s into the row (default 1) until 2 s
# before its end counts with perf stat --per-thread on the JVM(s): task-clock, context switches and recvmmsg /
# sendmmsg / poll / futex entries (tracepoints: root, or perf_event_paranoid <= -1). Prints them per message (the
# client's row rate times the window) and per thread, each thread marked c: (client, or the one process) or s:
# (server). Counts of this kind survive a loaded machine far better than the row's rate.
# Usage: bench/two-process-stat.sh one|two SECS ARGS...   e.g. SKIP=8 bench/two-process-stat.sh two 20 --test write -s 65536
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=$1 secs=$2
shift 2
skip="${SKIP:-1}"
win=$((secs - skip - 2))
[ "$win" -ge 1 ] || { echo "SECS must be at least SKIP + 3" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf(1) is not installed" >&2; exit 2; }
out="$(mktemp -d /tmp/two-process-stat.XXXXXX)"
trap 'rm -rf "$out"' EXIT
# shellcheck source=bench/perf-procs.sh
. "$here/bench/perf-procs.sh"
read -r a b < <(pair)
start_perf "$([ "$mode" = one ] && echo 1 || echo 2)" "$out" "$a" "$b" "$@" -D "$secs"
pids="${pids// /,}"
for _ in $(seq 1 1200); do grep -q '#bytes' "$out/cli" 2>/dev/null && break; sleep 0.1; done
sleep "$skip"
load="$(cut -d' ' -f1 /proc/loadavg)"
ls "/proc/$cli/task" >"$out/cli.tids"
perf stat --per-thread -p "$pids" -o "$out/stat" -e task-clock,context-switches,syscalls:sys_enter_recvmmsg,\
syscalls:sys_enter_sendmmsg,syscalls:sys_enter_poll,syscalls:sys_enter_futex -- sleep "$win"
ls "/proc/$cli/task" >>"$out/cli.tids" 2>/dev/null || true
wait "$cli" || true
[ -z "$srv" ] || wait "$srv" || true
rate="$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { r = $5 } END { print (r == "" ? 0 : r * 1e6) }' "$out/cli")"
echo "$mode $* -D $secs: load $load, client's rate $rate msg/s, counted over $win s from $skip s into the row"
python3 - "$out/stat" "$rate" "$win" "$out/cli.tids" <<'PY'
import collections, re, sys
stat, rate, win, tids = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), set(open(sys.argv[4]).read().split())
msgs = rate * win
if msgs <= 0:
    sys.exit("no row rate: see the client's output")
total = collections.defaultdict(float)
threads = collections.defaultdict(lambda: collections.defaultdict(float))
for line in open(stat):
    m = re.match(r'\s*(.+?)-(\d+)\s+([\d,.]+)\s+(?:msec\s+)?(\S+)', line)
    if not m:
        continue
    name = ('c:' if m.group(2) in tids else 's:') + m.group(1)
    event = m.group(4).replace('syscalls:sys_enter_', '')
    v = float(m.group(3).replace(',', ''))
    total[event] += v
    threads[name][event] += v
print(f"per message ({msgs:.0f}): CPU {total['task-clock'] * 1000 / msgs:.1f} us, "
      + ", ".join(f"{k} {v / msgs:.3f}" for k, v in total.items() if k != 'task-clock'))
for name, d in sorted(threads.items(), key=lambda t: -t[1]['task-clock'])[:10]:
    print(f"  {name:<22} CPU {d['task-clock']:8.0f} ms  " + "  ".join(f"{k} {v:.0f}" for k, v in d.items()
                                                                if k != 'task-clock'))
PY
