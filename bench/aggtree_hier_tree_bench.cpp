// Hierarchical k-nomial tree for 2^20 processes (2 per node, 16 per switch), k = 32 and 2.
// Reports build time per iteration and the process's peak RSS (getrusage, KiB).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"

using namespace hieragg::aggtree;

namespace {

long peakRssKiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;  // KiB on Linux
}

void BM_HierarchicalKnomialTree(benchmark::State& state) {
    const int P = 1 << 20;
    const int k = static_cast<int>(state.range(0));
    const ProcessHierarchy hierarchy = hierarchyFromBlockSizes(P, {2, 16});
    int height = 0;
    for (auto _ : state) {
        Tree t = buildHierarchicalKnomialTree(hierarchy, k, 0);
        height = t.height();
        benchmark::DoNotOptimize(t.parent.data());
    }
    state.counters["height"] = height;
    state.counters["peak_rss_MiB"] = static_cast<double>(peakRssKiB()) / 1024.0;
}

void BM_RankMappingOnly(benchmark::State& state) {
    const int P = 1 << 20;
    const int k = static_cast<int>(state.range(0));
    const ProcessHierarchy hierarchy = hierarchyFromBlockSizes(P, {2, 16});
    for (auto _ : state) {
        ProcessGroup top = buildRankMapping(hierarchy, k, 0);
        benchmark::DoNotOptimize(top.nodes_id.data());
    }
    state.counters["peak_rss_MiB"] = static_cast<double>(peakRssKiB()) / 1024.0;
}

}  // namespace

BENCHMARK(BM_HierarchicalKnomialTree)->Arg(32)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_RankMappingOnly)->Arg(32)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_MAIN();
