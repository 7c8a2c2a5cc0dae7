#!/usr/bin/env bash
# driver-jni with its progress hook (the default: the command's polls run the port engines, each port's thread a
# backstop) against its port threads only (--threading dedicated), A and B interleaved in rounds:
#   pingpong   ./rvt --driver jni [--threading dedicated] pingpong -n <iters>          (µs per iteration)
#   perf       ./rvt --driver jni [--threading dedicated] perf -s 64 -D <secs>         (64 B RC SEND, M msg/s)
#   jmh        JniBenchmark.pingPong8 and .sendRate, threading=progress,dedicated[,invoker] (µs per op)
# Felix (the default host) unless NO_OSGI=1. Prints every measurement and, per figure, the ratio dedicated/progress of
# each round. Build first: mvn -q -pl bench,launcher -am package -DskipTests.
# Usage: bench/jni-threading.sh [rounds] [seconds] [iters]     (defaults: 3 rounds, 2 s, 20000 iterations)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-3}"
secs="${2:-2}"
iters="${3:-20000}"
jar="$here/bench/target/benchmarks.jar"
out="$(mktemp -d /tmp/jni-threading.XXXXXX)"
trap 'rm -rf "$out"' EXIT
[ -f "$jar" ] || { echo "build first: mvn -q -pl bench,launcher -am package -DskipTests" >&2; exit 2; }
host=()
[ "${NO_OSGI:-0}" = 1 ] && host=(--no-osgi)
modes="${JMH_THREADINGS:-progress dedicated}"

rvt() { "$here/rvt" --driver jni "${host[@]}" "$@" 2>/dev/null || true; } # a failed run: no figure
pingpong() { rvt "$@" pingpong -n "$iters" | sed -n 's/.* = *\([0-9.]*\) usec\/iter.*/\1/p'; }
perf() { rvt "$@" perf -s 64 -D "$secs" | awk '$1 == 64 { print $5 }'; }
jmh() {
    rm -f "$out/jmh.csv" # a failed run must not report the last one's score
    java -Djmh.ignoreLock=true -jar "$jar" "JniBenchmark\.$1\$" -p wire=NATIVE -p threading="$2" -f 1 -wi 3 -w 1 -i "$secs" -r 1 \
        -rf csv -rff "$out/jmh.csv" >"$out/jmh.out" 2>&1 || { echo "JMH failed: $(tail -3 "$out/jmh.out")" >&2; return; }
    python3 -c 'import csv,sys; print(float(list(csv.DictReader(open(sys.argv[1])))[0]["Score"]) / 1000)' "$out/jmh.csv"
}

echo "jni-threading: $rounds rounds, ${host[*]:-Felix}, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
    for t in progress dedicated; do
        extra=()
        [ "$t" = dedicated ] && extra=(--threading dedicated)
        echo "$r pingpong-us $t $(pingpong "${extra[@]}")" | tee -a "$out/results"
        echo "$r perf-Mpps $t $(perf "${extra[@]}")" | tee -a "$out/results"
    done
    for b in pingPong8 sendRate; do
        for t in $modes; do
            echo "$r jmh-$b-us $t $(jmh "$b" "$t")" | tee -a "$out/results"
        done
    done
done
python3 - "$out/results" <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 4 and parts[3]:
        r, fig, mode, v = parts
        by.setdefault(fig, {}).setdefault(mode, {})[int(r)] = float(v)
for fig, modes in by.items():
    cells = [f"{m} {statistics.median(v.values()):.3f} ({min(v.values()):.3f}-{max(v.values()):.3f})"
             for m, v in modes.items()]
    p = modes.get("progress", {})
    ratios = [modes["dedicated"][k] / p[k] for k in sorted(p) if p[k] and k in modes.get("dedicated", {})]
    print(f"{fig:<20} " + "; ".join(cells) + "; dedicated/progress per round: "
          + " ".join(f"{x:.2f}" for x in ratios))
PY
