#!/usr/bin/env bash
# The main job: builds hieragg, installs the component where Open MPI finds it
# (~/.openmpi/components), and runs one 8-rank MPI job that shows the
# decomposition, the algorithm chosen for each collective, and the time of
# every collective under hieragg next to Open MPI's default stack in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cmake --install "${BUILD_DIR:-build}" >/dev/null
NP=${NP:-8}
SPLIT=${SPLIT:-virtual:4}
echo "== mpirun -np $NP, hieragg beside Open MPI's components, coll_hieragg_split=$SPLIT"
mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$NP" \
  --mca mpi_yield_when_idle 1 \
  --mca coll_hieragg_priority 100 --mca coll_hieragg_split "$SPLIT" --mca coll_hieragg_verbose 2 \
  "${BUILD_DIR:-build}/bench/hieragg-compare" "$@"
