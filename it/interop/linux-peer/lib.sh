# Shared by the Linux peer's scripts (sourced, not run).

# Where built images are kept, one folder per hash of the build inputs.
RVT_PEER_CACHE=${RVT_PEER_CACHE:-/var/cache/rvt-linux-peer}

log() { echo "linux-peer: $*" >&2; }
die() { echo "linux-peer: error: $*" >&2; exit 1; }

need_root() {
  [ "$(id -u)" = 0 ] || die "needs root (network namespaces, TAP devices, mmdebstrap's chroot); run as root or with sudo"
}

# Installs the host packages the peer needs, only those whose command is missing (a fresh CI machine has none).
ensure_host_deps() {
  local missing=() pair
  for pair in qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils mmdebstrap:mmdebstrap mkfs.ext4:e2fsprogs \
      nft:nftables tcpdump:tcpdump ip:iproute2 flock:util-linux; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "${pair%%:*}" >/dev/null 2>&1 \
      || missing+=("${pair#*:}")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 || die "missing host packages: ${missing[*]} (no apt-get here: install them by hand)"
  log "installing host packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  timeout 900 apt-get update -qq || die "apt-get update failed"
  timeout 900 apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
}

# now_ms: milliseconds since the epoch, for the timings the scripts print.
now_ms() { date +%s%3N; }
