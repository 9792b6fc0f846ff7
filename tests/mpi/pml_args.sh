# Sourced by run_mpi_test.sh and run_emu_test.sh (-T PML): the mpirun arguments that put
# a job on one of the production PMLs instead of ob1 (docs/testing.md, "The fabrics' PMLs").
#   pml_args NAME [IFACE]  appends to the array `pml_mpirun_args`; IFACE: the network
#                          interface the transport must use (one host: lo; emulated nodes:
#                          emu0; UCX would otherwise open every interface it finds), or none;
#                          with one, btl tcp (unused by these PMLs) stays closed.
#   ob1     nothing (Open MPI's default here)
#   cm-ofi  pml cm + mtl ofi over libfabric's tcp;ofi_rxm provider (the fabrics' tag-matching
#           path: Slingshot, Omni-Path and EFA run the same MTL)
#   ucx     pml ucx on whatever transport UCX finds (pml_ucx_tls/devices any: without them
#           Open MPI 4.1 and 5.0 decline UCX on a machine without InfiniBand/RoCE devices)
# Returns 1 (with a message) for an unknown name.
pml_args() {
  local name=$1 iface=${2:-}
  case "$name" in
    ob1|'') ;;
    cm-ofi)
      pml_mpirun_args+=(--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include "tcp;ofi_rxm")
      [ -n "$iface" ] && pml_mpirun_args+=(-x "FI_TCP_IFACE=$iface")
      ;;
    ucx)
      pml_mpirun_args+=(--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any)
      [ -n "$iface" ] && pml_mpirun_args+=(-x "UCX_NET_DEVICES=$iface")
      ;;
    *) echo "pml_args: unknown PML '$name' (ob1, cm-ofi, ucx)" >&2; return 1 ;;
  esac
  [ -n "$iface" ] && [ -n "${name#ob1}" ] && pml_mpirun_args+=(--mca btl ^tcp)
  return 0
}
