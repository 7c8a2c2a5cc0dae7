#!/usr/bin/env bash
# Builds a variant of the Linux peer's guest: build-image.sh's recipe with another Debian suite and a few more
# packages, cached beside the default image under a key of its own.
#
# Usage: build-variant.sh VARIANT   prints the image folder (as build-image.sh does)
#   trixie   Debian 13: kernel 6.12, whose rxe has ATOMIC_WRITE and FLUSH (Linux 6.2+), rdma-core 56 with
#            ibv_wr_atomic_write and ibv_wr_flush; plus gcc, libc6-dev and libibverbs-dev, and the verbs programs of
#            variant/ (mw_flush_peer.c) compiled at build time against the guest's own rdma-core (variant/customize.sh,
#            mmdebstrap's last hook) into /usr/local/bin.
#
# Why not an option of build-image.sh: its cache key is the hash of its own text and image/, and the default image
# (Debian 12, the interop matrix) must keep its key. So build-image.sh stays as it is, and this script runs a copy of
# it with the suite and package lines changed and one more hook (each change checked), beside a copy of image/ that
# holds variant/ too: the copy's text and files differ, so does its key (variant/'s sources are in it), and the
# cache, the build lock, the timings and the pruning are build-image.sh's own.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

[ $# -eq 1 ] || die "usage: build-variant.sh VARIANT (trixie)"
case "$1" in
  trixie) suite=trixie extra="gcc libc6-dev libibverbs-dev" ;;
  *) die "unknown variant '$1' (trixie)" ;;
esac
need_root
mkdir -p "$RVT_PEER_CACHE"
src=$(mktemp -d "$RVT_PEER_CACHE/.variant-$1.XXXXXX")
trap 'rm -rf --one-file-system "$src"' EXIT
# bookworm appears exactly on the SUITE line and the three mirror lines; the package list starts on one line; the
# variant's hook goes after the one customize hook.
hook=$(grep -nF -- '--customize-hook="\"$here/image/customize.sh\" customize' "$here/build-image.sh" | cut -d: -f1)
[ "$(grep -c bookworm "$here/build-image.sh")" = 4 ] && [ "$(grep -c '^PACKAGES=($' "$here/build-image.sh")" = 1 ] \
  && [ "$(wc -w <<<"$hook")" = 1 ] \
  || die "build-image.sh's suite, package or hook lines are not the ones this script rewrites: update build-variant.sh"
cat >"$src/hook.line" <<'LINE'
  --customize-hook="\"$here/image/variant/customize.sh\" VARIANT \"\$1\"" \
LINE
sed -i "s/VARIANT/$1/" "$src/hook.line"
sed -e "s/bookworm/$suite/g" -e "/^PACKAGES=(\$/a\\  $extra" -e "${hook}r $src/hook.line" \
  "$here/build-image.sh" >"$src/build-image.sh"
chmod 755 "$src/build-image.sh"
ln -s "$here/lib.sh" "$src/lib.sh"
cp -a "$here/image" "$src/image"
cp -a "$here/variant" "$src/image/variant"
"$src/build-image.sh"
