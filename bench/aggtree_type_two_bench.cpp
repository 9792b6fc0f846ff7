// Minimum-cost type II tree on a 3-level fat tree (k-ary 3-tree) with >= 10,000 NICs.
// Target: under a second, memory linear in the fabric. Reports peak RSS as a counter.
#include "hieragg/aggtree/FabricGenerators.hpp"
#include "hieragg/aggtree/TypeTwoTree.hpp"

#include <benchmark/benchmark.h>
#include <sys/resource.h>

using namespace hieragg::aggtree;

namespace {

double peakRssMiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux reports KiB
}

// Arguments: k (k^3 NICs), K (children per switch).
void BM_MinimumCostTreeFatTree(benchmark::State& state) {
    const int k = static_cast<int>(state.range(0));
    const int K = static_cast<int>(state.range(1));
    Fabric f = kAryNTree(k, 3);
    const std::vector<int>& nics = f.nics();
    int root = rootCandidates(f, nics)[0];
    TypeTwoTree physical = physicalTree(f, root, nics);
    auto limits = uniformDegreeLimit(f, K);
    int kept = 0;
    for (auto _ : state) {
        auto r = minimumCostTree(f, physical, limits);
        kept = r.tree.switchCount(f);
        benchmark::DoNotOptimize(r);
    }
    state.counters["nics"] = static_cast<double>(nics.size());
    state.counters["physical_switches"] = physical.switchCount(f);
    state.counters["kept_switches"] = kept;
    state.counters["peak_rss_MiB"] = peakRssMiB();
    state.SetLabel("k-ary 3-tree k=" + std::to_string(k));
}
BENCHMARK(BM_MinimumCostTreeFatTree)
    ->Args({22, 32})  // K must exceed the root's 22 children, or no derived tree exists
    ->Args({22, 64})
    ->Args({22, 1024})
    ->Args({28, 32})
    ->Unit(benchmark::kMillisecond);

// The whole allocation path for one communicator spanning every NIC: root candidates,
// physical tree, reduction, budget check.
void BM_AllocateMinimumCostFatTree(benchmark::State& state) {
    const int k = static_cast<int>(state.range(0));
    Fabric f = kAryNTree(k, 3);
    auto limits = uniformDegreeLimit(f, 64);
    for (auto _ : state) {
        FabricLoad load = FabricLoad::withEntries(f, 16);
        auto a = allocateTypeTwoTree(f, f.nics(), TypeTwoMethod::MinimumCost, limits, load);
        if (a.status != TypeTwoStatus::Allocated) state.SkipWithError("allocation fell back to type I");
        benchmark::DoNotOptimize(a);
    }
    state.counters["nics"] = static_cast<double>(f.nics().size());
    state.counters["peak_rss_MiB"] = peakRssMiB();
}
BENCHMARK(BM_AllocateMinimumCostFatTree)->Arg(22)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
