#!/usr/bin/env bash
# mmdebstrap's hooks for the Linux peer's root file system (build-image.sh): customize.sh PHASE ROOT.
#   essential: before the --include packages: the initramfs configuration, so that linux-image's postinst builds the
#              initrd once, small (MODULES=list) and with the virtio, ext4 and 9p modules;
#   customize: after them: the agent and setup scripts and units, the services a test guest does without.
set -euo pipefail
phase=$1
root=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/rootfs

put() { # put MODE PATH: the file of image/rootfs at PATH, owned by root whoever owns the checkout
  install -D -o root -g root -m "$1" "$src/$2" "$root/$2"
}

case "$phase" in
  essential)
    put 644 etc/initramfs-tools/conf.d/rvt-peer
    put 644 usr/share/initramfs-tools/modules.d/rvt-peer
    ;;
  customize)
    put 755 usr/local/sbin/rvt-agent
    put 755 usr/local/sbin/rvt-peer-setup
    put 644 etc/systemd/system/rvt-agent.service
    put 644 etc/systemd/system/rvt-peer-setup.service
    put 644 etc/modprobe.d/rvt-peer.conf
    chroot "$root" systemctl enable rvt-agent.service rvt-peer-setup.service
    # What a throwaway guest never needs (each costs seconds of emulated CPU): timers, gettys (nobody logs in:
    # commands come through the agent), and rdma-core's module loading for any RDMA device (iSER, NFS over RDMA,
    # IPoIB, umad; rvt-peer-setup loads what the peer uses) and its node description daemon.
    chroot "$root" systemctl mask apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
      e2scrub_reap.service fstrim.timer systemd-timesyncd.service getty@tty1.service getty-static.service \
      serial-getty@ttyS0.service rdma-load-modules@rdma.service rdma-load-modules@roce.service \
      rdma-load-modules@infiniband.service rdma-load-modules@iwarp.service rdma-load-modules@opa.service \
      rdma-ndd.service iwpmd.service
    echo rvtpeer >"$root/etc/hostname"
    printf '127.0.0.1 localhost\n127.0.1.1 rvtpeer\n::1 localhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
    # The root is a throwaway copy-on-write overlay: no fsck (pass 0), no access times.
    echo '/dev/vda / ext4 rw,noatime 0 0' >"$root/etc/fstab"
    mkdir -p "$root/etc/systemd/journald.conf.d"
    printf '[Journal]\nStorage=volatile\n' >"$root/etc/systemd/journald.conf.d/rvt-peer.conf"
    # The versions the docs quote, in the guest and beside the image.
    chroot "$root" dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' 'linux-image-[0-9]*' rdma-core \
      ibverbs-providers ibverbs-utils rdmacm-utils perftest iproute2 | awk '$1 == "ii" { print $2, $3 }' \
      >"$root/etc/rvt-peer-versions"
    # The initrd must carry what booting from a virtio disk and sharing a folder over 9p need.
    listing=$(chroot "$root" sh -c 'lsinitramfs /boot/initrd.img-*')
    for m in virtio_blk.ko virtio_net.ko ext4.ko 9pnet_virtio.ko 9p.ko; do
      grep -q "/$m" <<<"$listing" || { echo "customize.sh: the initrd lacks $m" >&2; exit 1; }
    done
    ;;
  *)
    echo "customize.sh: unknown phase '$phase' (essential or customize)" >&2
    exit 2
    ;;
esac
