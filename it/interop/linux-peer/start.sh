#!/usr/bin/env bash
# Starts the Linux peer: a network namespace with a TAP device (host side 192.0.2.1/24, 2001:db8::1/64), a Debian
# guest in QEMU on that TAP (eth0 192.0.2.2/24, 2001:db8::2/64, Soft-RoCE rxe0 on it), the guest's command agent on a
# 9p share. Waits (bounded) until rxe0 port 1 is ACTIVE and the agent answers, then prints the state folder (the last
# line of stdout), which guest.sh and stop.sh take. Nothing leaves the namespace: it has no other interface.
#
# Usage: start.sh [--state DIR] [--netns NAME] [--owner PID] [--smp N] [--mem MB] [--variant NAME]
#   --state DIR    the state folder to create (default /tmp/rvt-linux-peer-NETNS)
#   --netns NAME   the namespace to create (default rvtpeer<pid of this script>)
#   --owner PID    stop the peer (stop.sh) when process PID ends, however it ends
#   --smp N        guest CPUs (default 1: boots as fast as 2 here and leaves a host core free)
#   --mem MB       guest memory (default 1024)
#   --variant NAME boot build-variant.sh's image NAME (trixie: Debian 13, kernel 6.12) instead of build-image.sh's
#                  Debian 12
# Environment: RVT_PEER_BOOT_TIMEOUT (s, default 600) bounds the wait for ACTIVE; RVT_PEER_SMP and RVT_PEER_MEM are
# the defaults of --smp and --mem (LinuxPeer passes the test JVM's environment on).
#
# The state folder holds: peer.env (NETNS, the addresses, IMAGE, QEMU_PID, BOOT_MS), serial.log (the guest's
# console), qemu.log, overlay.qcow2 (the guest's writes; the cached image stays unchanged), share/ (the 9p share).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

HOST_IPV4=192.0.2.1 GUEST_IPV4=192.0.2.2 PREFIX_IPV4=24
HOST_IPV6=2001:db8::1 GUEST_IPV6=2001:db8::2 PREFIX_IPV6=64
GUEST_MAC=52:54:00:c0:00:02

state= netns= owner= variant= smp=${RVT_PEER_SMP:-1} mem=${RVT_PEER_MEM:-1024}
boot_timeout=${RVT_PEER_BOOT_TIMEOUT:-600}
while [ $# -gt 0 ]; do
  case "$1" in
    --state) state=$2; shift 2 ;;
    --netns) netns=$2; shift 2 ;;
    --owner) owner=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    --mem) mem=$2; shift 2 ;;
    --variant) variant=$2; shift 2 ;;
    *) die "unknown argument '$1' (see the usage at the top of $0)" ;;
  esac
done
need_root
ensure_host_deps
[ -e /dev/net/tun ] || die "no /dev/net/tun: the TAP device needs the tun driver"

if [ -n "$variant" ]; then
  image=$("$here/build-variant.sh" "$variant" | tail -n 1)
else
  image=$("$here/build-image.sh" | tail -n 1)
fi
netns=${netns:-rvtpeer$$}
state=${state:-/tmp/rvt-linux-peer-$netns}
ip netns list | grep -qw "^$netns" && die "network namespace $netns exists already"
[ -e "$state" ] && die "state folder $state exists already"
mkdir -p "$state/share/cmd"
echo "$netns" >"$state/netns"

# From here on, a failure (or the owner's end) takes down whatever was started.
ok=0
trap '[ "$ok" = 1 ] || "$here/stop.sh" --keep-logs "$state" >&2' EXIT
trap 'exit 143' TERM INT # so that the EXIT trap runs when start.sh is stopped too
if [ -n "$owner" ]; then
  kill -0 "$owner" 2>/dev/null || die "owner process $owner does not exist"
  # tail --pid returns when the owner ends; stop.sh is idempotent, so a normal stop before that is harmless.
  setsid bash -c 'tail --pid="$1" -f /dev/null; exec "$2" "$3"' rvt-peer-watch "$owner" "$here/stop.sh" "$state" \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$state/watch.pid"
fi

started=$(now_ms)
ip netns add "$netns"
ip -n "$netns" link set lo up
ip -n "$netns" tuntap add dev tap0 mode tap
ip -n "$netns" addr add "$HOST_IPV4/$PREFIX_IPV4" dev tap0
ip -n "$netns" addr add "$HOST_IPV6/$PREFIX_IPV6" dev tap0 nodad
ip -n "$netns" link set tap0 up

qemu-img create -q -f qcow2 -F raw -b "$image/rootfs.img" "$state/overlay.qcow2"
# virtio-net without checksum or segmentation offloads: the frames on tap0 are what a wire would carry (complete
# checksums both ways), so captures and rvt's checks see what a real NIC would deliver. romfile=: no iPXE ROM.
net_opts=csum=off,guest_csum=off,gso=off,host_tso4=off,host_tso6=off,host_ecn=off,host_ufo=off
net_opts=$net_opts,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off
# Kernel command line: no_timer_check, or a busy host makes the early IO-APIC timer test miss its ticks under TCG
# and panic ("IO-APIC + timer doesn't work!", seen here at load 15); mitigations=off: speculation barriers are pure
# cost in an emulated CPU; panic=-1 with -no-reboot: a guest panic ends QEMU, which the waits below notice.
ip netns exec "$netns" qemu-system-x86_64 -name "rvtpeer,process=rvtpeer-qemu" \
  -nodefaults -no-user-config -display none -monitor none -no-reboot \
  -accel tcg -cpu max -smp "$smp" -m "$mem" \
  -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
  -append "root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1 mitigations=off no_timer_check rvtpeer.ip4=$GUEST_IPV4/$PREFIX_IPV4 rvtpeer.ip6=$GUEST_IPV6/$PREFIX_IPV6" \
  -drive "file=$state/overlay.qcow2,if=virtio,format=qcow2,cache=unsafe" \
  -netdev tap,id=net0,ifname=tap0,script=no,downscript=no \
  -device "virtio-net-pci,netdev=net0,mac=$GUEST_MAC,romfile=,$net_opts" \
  -fsdev "local,id=share,path=$state/share,security_model=none" \
  -device virtio-9p-pci,fsdev=share,mount_tag=rvt \
  -device virtio-rng-pci \
  -serial "file:$state/serial.log" \
  -pidfile "$state/qemu.pid" -daemonize 2>"$state/qemu.log" || die "QEMU did not start: $(cat "$state/qemu.log")"
qemu_pid=$(<"$state/qemu.pid")
log "QEMU $qemu_pid in $netns (-smp $smp, -m $mem, TCG), booting; console: $state/serial.log"

# Boot: the agent writes share/agent.ready once it has mounted the share.
deadline=$(( $(now_ms) + boot_timeout * 1000 ))
until [ -e "$state/share/agent.ready" ]; do
  kill -0 "$qemu_pid" 2>/dev/null || die "QEMU ended during boot (logs kept in $state); console:
$(tail -n 40 "$state/serial.log")"
  [ "$(now_ms)" -lt "$deadline" ] || die "the guest's agent did not start within $boot_timeout s (logs kept in $state); console:
$(tail -n 40 "$state/serial.log")"
  sleep 0.5
done
agent_ms=$(now_ms)
left=$(( (deadline - agent_ms) / 1000 + 1 ))
# rxe0's port turns ACTIVE once rvt-peer-setup has added it on eth0 and the link is up (bounded in the guest too).
"$here/guest.sh" -t "$left" "$state" bash -c 'for _ in $(seq '"$(( left * 10 ))"'); do
    [ "$(cat /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null)" = "4: ACTIVE" ] && exit 0; sleep 0.1; done
    echo "rxe0 port 1: $(cat /sys/class/infiniband/rxe0/ports/1/state 2>&1)"; exit 1' >&2 \
  || die "rxe0 port 1 did not become ACTIVE (logs kept in $state); console:
$(tail -n 40 "$state/serial.log")"
active_ms=$(now_ms)

cat >"$state/peer.env" <<ENV
NETNS=$netns
TAP=tap0
HOST_IPV4=$HOST_IPV4
GUEST_IPV4=$GUEST_IPV4
PREFIX_IPV4=$PREFIX_IPV4
HOST_IPV6=$HOST_IPV6
GUEST_IPV6=$GUEST_IPV6
PREFIX_IPV6=$PREFIX_IPV6
GUEST_MAC=$GUEST_MAC
IMAGE=$image
QEMU_PID=$qemu_pid
SMP=$smp
MEM_MB=$mem
AGENT_MS=$(( agent_ms - started ))
BOOT_MS=$(( active_ms - started ))
ENV
touch "$image" # in use: build-image.sh's pruning keeps it
ok=1
log "rxe0 ACTIVE $(( (active_ms - started) / 1000 )) s after QEMU started (agent up at $(( (agent_ms - started) / 1000 )) s)"
echo "$state"
