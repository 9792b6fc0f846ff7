#!/usr/bin/env bash
# Builds hieragg with AddressSanitizer + UndefinedBehaviorSanitizer into
# ${BUILD_DIR:-build-asan} (-DHIERAGG_SANITIZE=ON) and runs the unit tests and the
# MPI suite under them. Any ASan/UBSan report, and any leak made by hieragg's code,
# fails the run; Open MPI's own leaks are not counted.
# Extra arguments go to ctest (e.g. -L unit, -R mpi.np4). See docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bash scripts/install-deps.sh
export BUILD_DIR=${BUILD_DIR:-build-asan}
# The benchmarks are not run here; skipping them saves build time.
bash scripts/build.sh -DHIERAGG_SANITIZE=ON -DHIERAGG_BUILD_BENCH=OFF
cc=$(grep -m1 '^CMAKE_CXX_COMPILER:' "$BUILD_DIR/CMakeCache.txt" | cut -d= -f2)
asan=$("$cc" -print-file-name=libasan.so)
ubsan=$("$cc" -print-file-name=libubsan.so)
[ -f "$asan" ] && [ -f "$ubsan" ] || { echo "sanitize.sh: cannot find libasan/libubsan ($asan, $ubsan)" >&2; exit 1; }

# halt_on_error: the first report ends the process with an error, so mpirun and
# CTest see it. fast_unwind_on_malloc=0: Open MPI is built without frame pointers,
# so only the slow unwinder gives whole allocation stacks through it.
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0:detect_stack_use_after_return=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Unit tests: every leak fails. MPI tests (tests/mpi/run_mpi_test.sh): the ranks get
# the runtimes preloaded (-x LD_PRELOAD, not mpirun), plus the component itself so
# that Open MPI's dlclose at MPI_Finalize does not turn its frames into
# <unknown module>; a leak fails only when hieragg's code made it
# (tests/sanitizers/lsan-ours.awk), Open MPI's own leaks are counted and ignored.
bdir=$(cd "$BUILD_DIR" && pwd)
export HIERAGG_TEST_PRELOAD="$asan $ubsan $bdir/src/ompi/mca_coll_hieragg.so"
export HIERAGG_TEST_LSAN_ROOT=$root

cd "$bdir"
start=$SECONDS
# Left to the normal run (scripts/test.sh) to keep this one short: the emu.*
# entries (the same MPI code on emulated nodes) and the planner's figure
# reproduction (label smoke; over 300 s instrumented, its code is covered by the
# aggtree unit tests).
# --timeout: the unit tests have no limit of their own; the slowest instrumented ones
# (AllreduceSlices.ScratchStaysBoundedForHugeCounts, PulsedRowsGrid) take 13-18 min on a
# loaded machine. The MPI entries' own limits are scaled by tests/mpi/CMakeLists.txt.
ctest --output-on-failure --timeout 1500 -LE 'emu|smoke' "$@"
echo "sanitize.sh: tests passed under ASan+UBSan in $((SECONDS - start)) s"
