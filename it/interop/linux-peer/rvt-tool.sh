#!/usr/bin/env bash
# Runs one of rvt's counterparts of the Linux RDMA tools (io.rvt.it.interop.tools: Rping, RdmaServer, RdmaClient,
# Ucmatose, Udaddy, RcPingpong, UcPingpong, UdPingpong; MwFlushClient drives the trixie guest's mw_flush_peer) on
# it/interop's test class path: the rvt side of a case run by
# hand (run-case.sh's host command, inside the peer's namespace). Its last line is the result,
# 'RVT-RESULT <tool> <role> OK|FAIL key=value ... [-- why]', with rvt's port counters; exit 0 only if OK.
#
# Usage: rvt-tool.sh TOOL [the Linux tool's options] --bind ADDR [--ack-timeout CODE] [--timeout S] [--mtu BYTES]
#        rvt-tool.sh --class-path     (only prints the class path, computing it if needed)
# Needs it/interop built: mvn -pl it/interop -am install -DskipTests. The class path (Maven's
# dependency:build-classpath, test scope) is computed once and kept in it/interop/target/rvt-tool.classpath (delete it
# after a dependency changes); run 'rvt-tool.sh --class-path' once outside the namespace, where Maven may reach its
# repository. RVT_MVN_ARGS passes options to that Maven (e.g. -Dmaven.repo.local=...).
#
# Example (in the namespace, against the guest's rping server):
#   it/interop/linux-peer/run-case.sh -l 7174 -g 'rping -s -a 192.0.2.2 -C 10 -V' -- \
#     it/interop/linux-peer/rvt-tool.sh Rping -c -a 192.0.2.2 -C 10 -V --bind 192.0.2.1 --ack-timeout 18
# Windows, ATOMIC_WRITE and FLUSH, on a peer of start.sh --variant trixie:
#   it/interop/linux-peer/run-case.sh -s "$S" -l 18600 -g 'mw_flush_peer -g 1 -u 18' -- \
#     it/interop/linux-peer/rvt-tool.sh MwFlushClient 192.0.2.2 --bind 192.0.2.1 --ack-timeout 18
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
module=$(cd "$here/.." && pwd)
cpfile=$module/target/rvt-tool.classpath

[ $# -gt 0 ] || die "usage: rvt-tool.sh TOOL [options] --bind ADDR (see the top of $0)"
[ -d "$module/target/test-classes/io/rvt/it/interop/tools" ] \
  || die "no compiled tools in $module/target/test-classes: build first (mvn -pl it/interop -am install -DskipTests)"
if [ ! -s "$cpfile" ]; then
  # shellcheck disable=SC2086 # RVT_MVN_ARGS is a list of options
  (cd "$module" && mvn -B -q ${RVT_MVN_ARGS:-} dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$cpfile.tmp" >&2) || die "Maven could not compute it/interop's class path (RVT_MVN_ARGS='${RVT_MVN_ARGS:-}')"
  mv "$cpfile.tmp" "$cpfile"
fi
cp=$module/target/test-classes:$(cat "$cpfile")
if [ "$1" = --class-path ]; then
  echo "$cp"
  exit 0
fi
tool=$1
shift
case "$tool" in
  Rping|RdmaServer|RdmaClient|Ucmatose|Udaddy|RcPingpong|UcPingpong|UdPingpong|MwFlushClient) ;;
  *) die "unknown tool '$tool' (Rping, RdmaServer, RdmaClient, Ucmatose, Udaddy, RcPingpong, UcPingpong, UdPingpong, MwFlushClient)" ;;
esac
exec java -cp "$cp" "io.rvt.it.interop.tools.$tool" "$@"
