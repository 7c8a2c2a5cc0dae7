# Sourced by bench/udp-compare.sh (TWO=1) and bench/two-process-stat.sh, with $here the repository: one perf row of
# driver-jni in one process or between two (issue 30).
# shellcheck shell=bash

# a random pair of loopback addresses, so that runs beside other sessions' do not collide on UDP 4791
pair() { echo "127.0.0.$((20 + RANDOM % 100)) 127.0.0.$((130 + RANDOM % 100))"; }

# start_perf ONE OUT A B ARGS...: with ONE=1 ./rvt --driver jni --address A perf ARGS in one process, its output in
# OUT/cli; else a server on A (OUT/srv) and, once it waits for a client, a client on B (OUT/cli). Sets cli, srv (empty
# with one process) and pids (the JVMs, space-separated); the caller waits for them.
start_perf() {
    local one=$1 dir=$2 a=$3 b=$4
    shift 4
    rm -f "$dir/srv" "$dir/cli"
    srv=
    if [ "$one" = 1 ]; then
        "$here/rvt" --driver jni --address "$a" perf "$@" >"$dir/cli" 2>&1 &
        cli=$!
        pids="$cli"
    else
        "$here/rvt" --driver jni --address "$a" perf --server "$@" >"$dir/srv" 2>&1 &
        srv=$!
        for _ in $(seq 1 1200); do grep -q 'waiting for a client' "$dir/srv" 2>/dev/null && break; sleep 0.1; done
        "$here/rvt" --driver jni --address "$b" perf "$a" "$@" >"$dir/cli" 2>&1 &
        cli=$!
        pids="$cli $srv"
    fi
}
