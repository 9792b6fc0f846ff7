#!/bin/bash
# usage: run_offload_test.sh BUILT_WITH_LIBFABRIC PROVIDER RUNNER ARGS...
# Runs an offload test (tests/mpi/CMakeLists.txt) only where it can mean something: the
# component was built with libfabric and fi_info lists PROVIDER ('+' stands for ';', as
# CMake lists cannot carry it; 'any' = no particular provider) on loopback. The provider
# is passed to the job as coll_hieragg_ofi_provider. Otherwise it says why, loudly, and
# exits 77 (CTest: skipped), never a silent pass.
built=$1 provider=${2//+/;}
shift 2
case "$built" in
  1|TRUE|ON|YES|true|on) ;;
  *) echo "SKIPPED: hieragg was built without libfabric (install libfabric-dev and reconfigure); offload test not run"
     exit 77 ;;
esac
if [ "$provider" != any ]; then
  if ! command -v fi_info >/dev/null 2>&1; then
    echo "SKIPPED: fi_info not found (install libfabric-bin); cannot tell whether provider '$provider' exists"
    exit 77
  fi
  if ! FI_TCP_IFACE=lo FI_SOCKETS_IFACE=lo fi_info -p "$provider" >/dev/null 2>&1; then
    echo "SKIPPED: libfabric provider '$provider' is not available here (fi_info -p '$provider' lists nothing)"
    exit 77
  fi
  export OMPI_MCA_coll_hieragg_ofi_provider="$provider"
fi
exec "$@"
