#!/usr/bin/env bash
# Runs launcher TwoProcessIT's bidirectional SEND bandwidth pair (perf --test send -b -s 4096 -n 1000, a server and a
# client process on loopback addresses) N times beside H CPU hogs, with the given extra options on both sides; a pair
# still running after 9 s has both JVMs' threads dumped to OUT/stall-K.{srv,cli}.jstack. Prints each failed run and
# the count. It found the stall first blamed on driver-jni's pollers (docs/driver-jni.md "Why it is not the
# default"): perf -b leaving its row before the slower peer's messages had arrived, fixed 2026-12-03.
#   bench/poller-stall.sh 10 2 --poller-spin adaptive       # before the fix: 6 of 18 stalled
#   bench/poller-stall.sh 8 2 --poller-wait 1               # fixed 1 µs spin, before: 6 of 16
#   bench/poller-stall.sh 8 2                               # the default, fixed 50 µs: 0 of 8
#   nice -n 19 bench/poller-stall.sh 16 0 --poller-spin adaptive   # beside mvn verify and its two hogs: 5 of the
#                                                           # first 6 before the fix, 0 of 16 after (1 µs: 0 of 16)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:?runs}" hogs="${2:?hogs}"
shift 2
out="${OUT:-$(mktemp -d /tmp/poller-stall.XXXXXX)}"
mkdir -p "$out"
hog_pids=()
for _ in $(seq 1 "$hogs"); do timeout 1800 sh -c 'while :; do :; done' & hog_pids+=("$!"); done
trap 'kill "${hog_pids[@]}" 2>/dev/null' EXIT
"$here/rvt" --version >/dev/null # builds first if needed, outside the runs
fails=0
for i in $(seq 1 "$runs"); do
    a=127.14.240.$((20 + RANDOM % 100)) b=127.14.241.$((20 + RANDOM % 100)) p=$((19000 + RANDOM % 1000))
    "$here/rvt" --driver jni --no-osgi --address "$a" perf --server -p "$p" --test send -b -s 4096 -n 1000 "$@" \
        >"$out/srv" 2>&1 &
    srv=$!
    for _ in $(seq 1 1200); do grep -q 'waiting for a client' "$out/srv" 2>/dev/null && break; sleep 0.1; done
    "$here/rvt" --driver jni --no-osgi --address "$b" perf "$a" -p "$p" --test send -b -s 4096 -n 1000 "$@" \
        >"$out/cli" 2>&1 &
    cli=$!
    for _ in $(seq 1 300); do grep -q '#bytes' "$out/cli" 2>/dev/null && break; sleep 0.1; done
    for _ in $(seq 1 90); do kill -0 "$cli" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$cli" 2>/dev/null; then
        jstack "$(pgrep -f "address $a perf" | head -1)" >"$out/stall-$i.srv.jstack" 2>&1
        jstack "$(pgrep -f "address $b perf" | head -1)" >"$out/stall-$i.cli.jstack" 2>&1
    fi
    wait "$cli"; rc=$?
    wait "$srv"; rs=$?
    if [ "$rc" != 0 ] || [ "$rs" != 0 ]; then
        fails=$((fails + 1))
        echo "run $i: client exit $rc, server exit $rs: $(grep -h 'rvt:' "$out/srv" "$out/cli" | head -2 | tr '\n' ' ')"
        cp "$out/srv" "$out/fail-$i.srv"; cp "$out/cli" "$out/fail-$i.cli"
    fi
done
echo "poller-stall: $fails of $runs failed (options: ${*:-none}; $hogs hogs; output in $out)"
