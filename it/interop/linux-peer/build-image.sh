#!/usr/bin/env bash
# Builds the Linux peer's guest: a Debian 12 root file system with Debian's kernel, rdma-core and the RDMA tools
# (mmdebstrap), as an ext4 image (mkfs.ext4 -d, no loop mounts), with the kernel and initrd beside it.
#
# Usage: build-image.sh          prints the folder holding vmlinuz, initrd.img, rootfs.img, versions.txt
#
# Cached in $RVT_PEER_CACHE/<hash of the build inputs>/ (default /var/cache/rvt-linux-peer): the inputs are this
# script and image/ (the hooks and the files put into the guest); a second run is instant. The folder is built under
# a temporary name and renamed when complete, so an aborted build leaves nothing half-made; concurrent builds of the
# same inputs wait for each other (flock); images of other inputs unused for 2 days are removed after a build. Needs
# root; installs the host packages it lacks (apt-get).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

SUITE=bookworm
MIRRORS=(
  "deb http://deb.debian.org/debian bookworm main"
  "deb http://deb.debian.org/debian bookworm-updates main"
  "deb http://deb.debian.org/debian-security bookworm-security main"
)
# Debian's kernel ships rdma_rxe, ib_cm, rdma_cm, ib_uverbs and rdma_ucm as modules; the rest is user space.
PACKAGES=(
  linux-image-amd64 initramfs-tools systemd-sysv udev kmod iproute2 procps iputils-ping ethtool
  rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest tcpdump nftables
)
BUILD_TIMEOUT=${RVT_PEER_BUILD_TIMEOUT:-1800}

need_root
ensure_host_deps

key=$( (cat "$here/build-image.sh"; cd "$here/image" && find . -type f | LC_ALL=C sort | while read -r f; do
  echo "$f"; cat "$f"; done) | sha256sum | cut -c1-16)
mkdir -p "$RVT_PEER_CACHE"
out=$RVT_PEER_CACHE/$key
if [ -f "$out/rootfs.img" ]; then
  touch "$out"
  log "image cached: $out"
  echo "$out"
  exit 0
fi

exec 9>"$RVT_PEER_CACHE/$key.lock"
log "waiting for the build lock (another build of the same inputs may run)"
flock -w "$BUILD_TIMEOUT" 9 || die "no build lock after $BUILD_TIMEOUT s ($RVT_PEER_CACHE/$key.lock)"
if [ -f "$out/rootfs.img" ]; then
  log "image built meanwhile: $out"
  echo "$out"
  exit 0
fi

started=$(now_ms)
tmp=$(mktemp -d "$RVT_PEER_CACHE/.build-$key.XXXXXX")
trap 'rm -rf --one-file-system "$tmp"' EXIT
log "building the image in $tmp (mmdebstrap $SUITE; about 5 minutes)"
timeout "$BUILD_TIMEOUT" mmdebstrap --mode=root --variant=minbase --include="${PACKAGES[*]}" \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --essential-hook="\"$here/image/customize.sh\" essential \"\$1\"" \
  --customize-hook="\"$here/image/customize.sh\" customize \"\$1\"" \
  "$SUITE" "$tmp/root" "${MIRRORS[@]}" >&2 || die "mmdebstrap failed (exit $?)"
bootstrapped=$(now_ms)

cp "$tmp"/root/boot/vmlinuz-* "$tmp/vmlinuz"
cp "$tmp"/root/boot/initrd.img-* "$tmp/initrd.img"
cp "$tmp/root/etc/rvt-peer-versions" "$tmp/versions.txt"
# Room for what the tests write (captures, logs); the overlay keeps the image itself unchanged.
size_mb=$(( $(du -sm "$tmp/root" | cut -f1) + 512 ))
mkfs.ext4 -q -L rvtpeer -d "$tmp/root" "$tmp/rootfs.img" "${size_mb}M" || die "mkfs.ext4 failed"
rm -rf --one-file-system "$tmp/root"
done_ms=$(now_ms)
printf 'built %s\nmmdebstrap %d s\nmkfs.ext4 %d s\ntotal %d s\n' "$(date -u +%FT%TZ)" \
  $(( (bootstrapped - started) / 1000 )) $(( (done_ms - bootstrapped) / 1000 )) $(( (done_ms - started) / 1000 )) \
  >"$tmp/build.txt"
chmod 755 "$tmp"
mv -T "$tmp" "$out"
trap - EXIT
# Images of other build inputs (older scripts) that no peer has used for 2 days: start.sh touches the one it boots.
find "$RVT_PEER_CACHE" -mindepth 1 -maxdepth 1 -type d -regex '.*/[0-9a-f]+' -mtime +2 -print | while read -r old; do
  log "removing an image unused for 2 days: $old"
  rm -rf --one-file-system "$old" "$old.lock"
done
log "image built in $(( (done_ms - started) / 1000 )) s (mmdebstrap $(( (bootstrapped - started) / 1000 )) s): $out"
sed 's/^/linux-peer:   /' "$out/versions.txt" >&2
echo "$out"
