#!/usr/bin/env bash
# Builds the .deb (cpack -G DEB) from the build in ${BUILD_DIR:-build}, installs it with apt as
# a site administrator would, and runs the MPI suite's one-host matrix and the ompi_info check
# against the INSTALLED copy with no component path option (HIERAGG_TEST_INSTALLED=1:
# tests/mpi/installed_copy.sh proves that every process loaded the file in Open MPI's component
# directory); then purges the package again (trap), so later runs are not affected.
# scripts/test.sh runs it on Debian 12 (Open MPI 4.1), scripts/openmpi5.sh in the Debian 13
# chroot (5.0). Needs root (apt): otherwise skipped with a notice.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${BUILD_DIR:-build}" && pwd)
say() { echo "test-installed: $*"; }
if [ "$(id -u)" != 0 ]; then
  echo "test-installed: NOTE: not root: the installed-package test (apt install of the .deb) is SKIPPED" >&2
  exit 0
fi
# The entries run against the installed copy: the main matrix (every process count, split
# and mode) and ompi_info's parameter list.
tests='^mpi[.](np[0-9]+[.][^.]+[.](exclusive|beside)|ompi_info[.]params)$'

# The package is machine-wide: one run of this script at a time.
exec 8>/tmp/hieragg-test-installed.lock
flock 8

rm -rf "$build/package"
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || { cat "$build/cpack.log"; say "FAIL: cpack -G DEB"; exit 1; }
debs=("$build"/package/hieragg_*.deb)
[ "${#debs[@]}" = 1 ] && [ -f "${debs[0]}" ] || { say "FAIL: cpack made no single hieragg_*.deb in $build/package"; exit 1; }
deb=${debs[0]}
say "$(basename "$deb"): Depends: $(dpkg-deb -f "$deb" Depends)"
compdir=$(ompi_info --path pkglibdir --parsable | sed 's/^path:pkglibdir://')

if dpkg-query -W -f='${Status}' hieragg 2>/dev/null | grep -q "ok installed"; then
  say "NOTE: hieragg $(dpkg-query -W -f='${Version}' hieragg) was installed: replaced by this build's, purged at the end"
fi
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -y -qq -o DPkg::Lock::Timeout=300 "$@"; }
# What the package changes outside its own files (on Open MPI 5 its postinst diverts and
# rewrites PMIx's parameter file, cmake/deb/postinst.in): recorded before the install and
# compared after the purge, which must leave the system as it was.
system_state() {
  dpkg-divert --list | sort
  dpkg-query -S '*/pmix-mca-params.conf' 2>/dev/null | sed 's/^.*: //' | sort -u | xargs -r sha256sum
}
state_before=$(system_state)
purge() {
  local rc=$?
  if apt_get purge hieragg >/dev/null && [ ! -e "$compdir/mca_coll_hieragg.so" ]; then
    say "hieragg purged"
  else
    say "WARNING: could not purge the hieragg package (dpkg -l hieragg)"
  fi
  if [ "$(system_state)" != "$state_before" ]; then
    say "FAIL: the purge did not restore the diversions and PMIx parameter files:"
    diff <(echo "$state_before") <(system_state) || true
    exit 1
  fi
  say "diversions and PMIx parameter files are as before the install"
  exit $rc
}
trap purge EXIT
trap 'exit 130' INT TERM
apt_get install "$deb" >/dev/null
[ -f "$compdir/mca_coll_hieragg.so" ] || { say "FAIL: the package did not put mca_coll_hieragg.so into $compdir"; exit 1; }
say "installed $(dpkg-query -W -f='${Package} ${Version}' hieragg): $compdir/mca_coll_hieragg.so"
diverted=$(dpkg-divert --list | grep ' by hieragg$' || true)
say "diversions by hieragg: ${diverted:-none}"

# What an administrator types next, with no path anywhere (nothing in the environment either).
unset OMPI_MCA_mca_base_component_path
ompi_info --param coll hieragg --level 9 | grep -E 'MCA coll: (hieragg|parameter "coll_hieragg_split")' |
  sed 's/^ */test-installed: ompi_info: /' || { say "FAIL: ompi_info --param coll hieragg does not list hieragg"; exit 1; }
(cd "$build" && HIERAGG_TEST_INSTALLED=1 ctest --output-on-failure --timeout 300 -R "$tests")
say "the installed package passed"
