#!/bin/bash
# Checks that ompi_info, loading the freshly built component, lists every
# hieragg MCA parameter with a help text (Open MPI 4.1 and 5.0 alike).
#
# usage: ompi_info_params.sh OMPI_INFO COMPONENT_DIR DEFAULT_COMPONENT_PATH
#
# The parameters that must be there are named here from the MPI standard's list
# of collectives, not read from the component; any further coll_hieragg_*
# parameter ompi_info shows must have a help text too.
# HIERAGG_TEST_INSTALLED=1: ompi_info runs with no component path (COMPONENT_DIR is ignored)
# and must have loaded the copy installed in DEFAULT_COMPONENT_PATH (installed_copy.sh).
set -u
ompi_info=$1 compdir=$2 defpath=$3
colls="allgather allgatherv allreduce alltoall alltoallv alltoallw barrier bcast exscan gather
       gatherv reduce reduce_scatter reduce_scatter_block scan scatter scatterv
       neighbor_allgather neighbor_allgatherv neighbor_alltoall neighbor_alltoallv neighbor_alltoallw"
required="priority verbose split segment_size hierarchy switch_entries switch_degree cost_autocalibrate cost_network_exchange"
for c in $colls; do required="$required ${c}_algorithm"; done

. "$(dirname "$0")/installed_copy.sh"
if [ "$installed_copy" = 1 ]; then
  verbose_out=$(mktemp)
  trap 'rm -f "$verbose_out"' EXIT
  OMPI_MCA_mca_base_verbose=$installed_copy_verbose "$ompi_info" --param coll hieragg >"$verbose_out" 2>&1
  installed_copy_check "$verbose_out" "$defpath" 1 || exit 1
  out=$("$ompi_info" --param coll hieragg --level 9 --parsable)
else
  out=$(OMPI_MCA_mca_base_component_path="$compdir:$defpath" "$ompi_info" --param coll hieragg --level 9 --parsable)
fi
rc=$?
status=0
if [ "$rc" -ne 0 ]; then echo "ompi_info_params: FAIL: ompi_info exited with $rc"; status=1; fi
if ! grep -q '^mca:coll:hieragg:version:"component:' <<<"$out"; then
  echo "ompi_info_params: FAIL: ompi_info did not load the hieragg component"
  echo "$out" | head -5
  exit 1
fi
echo "$out" | grep '^mca:coll:hieragg:version:'
for p in $required; do
  if ! grep -q "^mca:coll:hieragg:param:coll_hieragg_$p:value:" <<<"$out"; then
    echo "ompi_info_params: FAIL: coll_hieragg_$p is not listed"; status=1
  fi
done
listed=$(grep -o '^mca:coll:hieragg:param:coll_hieragg_[a-z0-9_]*:value:' <<<"$out" | cut -d: -f5)
n=0
for p in $listed; do
  n=$((n + 1))
  help=$(grep "^mca:coll:hieragg:param:$p:help:" <<<"$out" | cut -d: -f7-)
  if [ "${#help}" -lt 10 ]; then
    echo "ompi_info_params: FAIL: $p has no help text ('$help')"; status=1
  fi
done
[ "$status" -eq 0 ] && echo "ompi_info_params: OK ($n parameters, each with its help)"
exit $status
