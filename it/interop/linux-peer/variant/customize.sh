#!/usr/bin/env bash
# mmdebstrap's last customize hook for a variant image (build-variant.sh): customize.sh VARIANT ROOT. Compiles the
# verbs programs of this folder in the chroot (native speed: gcc under TCG took 2 minutes for one) against the
# guest's own rdma-core, into /usr/local/bin, so that a booted guest runs them at once.
set -euo pipefail
variant=$1
root=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
install -D -o root -g root -m 644 "$src/mw_flush_peer.c" "$root/usr/local/src/rvt/mw_flush_peer.c"
chroot "$root" gcc -O1 -Wall -Werror -o /usr/local/bin/mw_flush_peer /usr/local/src/rvt/mw_flush_peer.c -libverbs
echo "variant $variant: built /usr/local/bin/mw_flush_peer" >&2
