# Sourced by run_mpi_test.sh and ompi_info_params.sh for HIERAGG_TEST_INSTALLED=1
# (scripts/test-installed.sh): the tests then run the copy of the component installed in
# Open MPI's own component directory (the .deb, or cmake --install with
# HIERAGG_INSTALL=system) with no component path option, and prove that this copy, not a
# build tree's or a user's (~/.openmpi/components), is what every process loaded.
# The proof: at verbosity 40 (mca_base_verbose) Open MPI's component repository names the
# file of each dynamic component it opens, and that of hieragg must be Open MPI's
# component directory's.

installed_copy=${HIERAGG_TEST_INSTALLED:-0}
# mca_base_verbose value (the --mca option, or OMPI_MCA_mca_base_verbose for ompi_info).
installed_copy_verbose=stdout,level:40

# installed_copy_check OUTPUT_FILE COMPONENT_DIR MIN_LOADS: status 0 iff the output shows at
# least MIN_LOADS openings of coll hieragg, every one of COMPONENT_DIR/mca_coll_hieragg.
installed_copy_check() {
  local out=$1 dir=$2 want=$3 paths opened others
  paths=$(grep -o 'examining dynamic coll MCA component "hieragg" at path .*' "$out" | sed 's/.* at path //')
  opened=$(grep -c 'opened dynamic coll MCA component "hieragg"' "$out")
  others=$(grep -vxF "$dir/mca_coll_hieragg" <<<"$paths" | grep -v '^$' | sort -u)
  if [ -n "$others" ]; then
    echo "installed copy: FAIL: hieragg was loaded from $(tr '\n' ' ' <<<"$others")instead of $dir"
    return 1
  fi
  if [ "$opened" -lt "$want" ]; then
    echo "installed copy: FAIL: $opened process(es) opened $dir/mca_coll_hieragg, expected at least $want"
    return 1
  fi
  echo "installed copy: OK ($opened process(es) loaded $dir/mca_coll_hieragg.so, no other copy)"
}
