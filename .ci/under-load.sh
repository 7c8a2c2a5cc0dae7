#!/usr/bin/env bash
# Runs a Maven command (default: mvn -B -ntp verify) with N busy loops beside it, as a machine shared with other
# builds is (issue 27: the suite must pass at load 10+). Each hog is `sh -c 'while :; do :; done'` under `timeout`
# (never longer than --max-minutes), in this script's session, so it competes with the build's own processes; all are
# stopped however the build ends (success, failure, ^C, TERM). Prints the load average at the start and the end and
# the build's exit status, which is the script's.
#
#   .ci/under-load.sh [--hogs N] [--max-minutes M] [-- MAVEN ARGS...]
#   .ci/under-load.sh --hogs 2                                   # mvn -B -ntp verify beside two hogs
#   .ci/under-load.sh --hogs 2 -- -B -ntp -pl driver-jni verify  # one module's suite
set -euo pipefail

hogs=2
max_minutes=180
while [ $# -gt 0 ]; do
  case "$1" in
    --hogs) hogs="$2"; shift 2 ;;
    --max-minutes) max_minutes="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "under-load.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
done
case "$hogs" in ''|*[!0-9]*) echo "under-load.sh: --hogs must be a number, got '$hogs'" >&2; exit 2 ;; esac
case "$max_minutes" in ''|*[!0-9]*|0) echo "under-load.sh: --max-minutes must be a positive number, got '$max_minutes'" >&2; exit 2 ;; esac
[ $# -gt 0 ] || set -- -B -ntp verify

cd "$(dirname "${BASH_SOURCE[0]}")/.."
pids=()
stop_hogs() {
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || true
  done
  pids=()
}
trap stop_hogs EXIT
trap 'stop_hogs; exit 130' INT
trap 'stop_hogs; exit 143' TERM

for _ in $(seq 1 "$hogs"); do
  timeout "$((max_minutes * 60))" sh -c 'while :; do :; done' &
  pids+=("$!")
done
started=$(date +%s)
echo "under-load: $hogs CPU hogs (at most $max_minutes min), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
mvn "$@" || status=$?
echo "under-load: mvn $* exited $status after $(( $(date +%s) - started )) s; load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
