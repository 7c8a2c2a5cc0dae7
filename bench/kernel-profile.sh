#!/usr/bin/env bash
# Where the CPU time of one 64 B RC SEND goes, kernel and user space, for the C loop and for driver-jni, side by side:
# runs bench/target/udploop -1 -s 80 -w 64 -a (udp-compare.sh's c-rc row) and then JniBenchmark.sendRate (wire=NATIVE,
# threading=progress), and during <seconds> of each records
#   perf record -F 2000 -e cpu-clock -a -g            every CPU's samples with their stacks (Java frames through
#                                                     -XX:+DumpPerfMapAtExit's /tmp/perf-<pid>.map)
#   perf stat -e net:net_dev_xmit,syscalls:... -p     the datagrams the process sent and its socket system calls
# then puts each sample of the measured thread (udploop's; JMH's benchmark thread, which sends and receives for both
# HCAs) under the system call on its stack, or user space, and prints CPU nanoseconds per message (the datagrams sent,
# less the C loop's ACKs, which it sends with sendmsg; driver-jni's datagrams over JniBenchmark's datagrams_per_op),
# the system calls per message and the kernel functions that cost most per message (self time).
# Needs perf and root (kernel symbols; the tracepoints). Counting the tracepoints slows both sides alike (a few %).
# On a machine shared with other work compare within one run only.
# Usage: bench/kernel-profile.sh [seconds] [jar]       (defaults: 5 s; bench/target/benchmarks.jar)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
secs="${1:-5}"
jar="${2:-$here/bench/target/benchmarks.jar}"
loop="$here/bench/target/udploop"
out="$(mktemp -d /tmp/kernel-profile.XXXXXX)"
trap 'rm -rf "$out"' EXIT
[ -x "$loop" ] && [ -f "$jar" ] || { echo "build first: mvn -q -pl bench -am package -DskipTests" >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is not installed" >&2; exit 2; }
events=net:net_dev_xmit,syscalls:sys_enter_sendmmsg,syscalls:sys_enter_recvmmsg,syscalls:sys_enter_sendmsg

window() { # <pid> <name>: counts and samples over $secs
    perf stat -x, -e "$events" -p "$1" -o "$out/$2.stat" -- sleep "$secs" &
    local counting=$!
    perf record -q -F 2000 -e cpu-clock -a -g -o "$out/$2.data" -- sleep "$secs" 2>/dev/null
    wait "$counting"
}

echo "kernel-profile: $secs s of each, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$loop" -1 -s 80 -w 64 -a -q -t "$((secs + 3))" >"$out/c.out" &
lp=$!
sleep 2
window "$lp" c
wait "$lp"
java -Djmh.ignoreLock=true -jar "$jar" 'JniBenchmark\.sendRate$' -p wire=NATIVE -p threading=progress -f 1 -wi 3 -w 1 \
    -i 1 -r "$((secs + 4))" \
    -jvmArgsAppend '-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer' >"$out/j.out" 2>&1 &
jp=$!
for _ in $(seq 1 240); do grep -q 'Iteration   1' "$out/j.out" 2>/dev/null && break; sleep 0.5; done
sleep 2
fork="$(pgrep -f 'org.openjdk.jmh.runner.ForkedMain' | tail -1)"
window "$fork" j
wait "$jp" || { echo "JMH failed: $(tail -3 "$out/j.out")" >&2; exit 1; }
dpm="$(sed -n 's/.*datagrams_per_op=\([0-9.]*\).*/\1/p' "$out/j.out" | tail -1)"

python3 - "$out" "${dpm:-1.03}" <<'EOF'
import collections, re, subprocess, sys
out, dpm = sys.argv[1], float(sys.argv[2])
SAMPLE_NS = 1e9 / 2000

def profile(name, comm):
    ev = {}
    for line in open(f"{out}/{name}.stat"):
        p = line.strip().split(",")
        if len(p) > 3 and p[0].isdigit():
            ev[p[2]] = int(p[0])
    acks = ev.get("syscalls:sys_enter_sendmsg", 0)
    dgrams = ev.get("net:net_dev_xmit", 0)
    msgs = dgrams - acks if acks else dgrams / dpm
    text = subprocess.run(["perf", "script", "-i", f"{out}/{name}.data", "--comm", comm, "-F", "ip,sym,dso"],
                          capture_output=True, text=True).stdout
    where, ksym = collections.Counter(), collections.Counter()
    for block in text.split("\n\n"):
        frames = [l.strip() for l in block.strip().split("\n") if l.strip()]
        if not frames:
            continue
        stack = " ".join(frames)
        if "kernel.kallsyms" not in frames[0]:
            where["user space"] += 1
            continue
        m = re.search(r"__x64_sys_(\w+)", stack)
        where[f"kernel: {m.group(1)}" if m else "kernel: other (interrupts)"] += 1
        ksym[frames[0].split()[1]] += 1
    per = lambda n: n * SAMPLE_NS / msgs if msgs else 0.0
    calls = {k.split("_enter_")[1]: v / msgs for k, v in ev.items() if "sys_enter" in k and msgs}
    return where, ksym, per, calls, msgs

c = profile("c", "udploop")
j = profile("j", "io.rvt.bench.Jn")
print(f"messages in the window: C loop {c[4]:.0f}, driver-jni {j[4]:.0f} (datagrams per message {dpm})")
print(f"{'ns per message':34} {'C loop':>9} {'driver-jni':>11}")
rows = sorted(set(c[0]) | set(j[0]), key=lambda k: -(c[0][k] + j[0][k]))
for k in rows:
    print(f"{k:34} {c[2](c[0][k]):9.1f} {j[2](j[0][k]):11.1f}")
print(f"{'all':34} {c[2](sum(c[0].values())):9.1f} {j[2](sum(j[0].values())):11.1f}")
print("system calls per message:", "C loop", {k: round(v, 3) for k, v in c[3].items()},
      " driver-jni", {k: round(v, 3) for k, v in j[3].items()})
print("kernel functions, self ns per message (the top 25 of either):")
top = sorted(set(c[1]) | set(j[1]), key=lambda k: -max(c[2](c[1][k]), j[2](j[1][k])))[:25]
for k in top:
    print(f"  {k:40} {c[2](c[1][k]):7.1f} {j[2](j[1][k]):7.1f}")
EOF
