// hieragg-cache-scale: one rank's cost of a collective's first call (plan, key, build,
// store) and of a repeated call (key, cache hit with the per-rank vectors compared), and
// the size of its schedule, from P = 64 to 65,536 ranks, for every collective, with the
// runtime's own key and cache code (src/runtime/CallCacheKeys, ScheduleCache) and the
// recipes' schedules. No MPI: the communicator is a 2-level decomposition (nodes of
// --node ranks and their leaders). Its last reading: docs/journal/performance-history.md,
// "Schedule cache at scale".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "../src/runtime/CallCacheKeys.hpp"
#include "../src/runtime/ScheduleCache.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/TwoStage.hpp"

using namespace hieragg;
using Clock = std::chrono::steady_clock;

namespace {

constexpr hieragg_dtype_info kInt64{8, 0, 8, 0, 8, 1};
int sendBuffer, recvBuffer;

double usSince(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

// The call of `kind` at `rank`: 8 B per peer (one int64), blocks side by side; neighbor
// collectives on a ring.
struct Call {
    std::vector<int> counts, displs, lists;
    std::vector<ptrdiff_t> bytes;
    CollCall c;
    Call(hieragg_coll_kind kind, int size, int rank, const hier::Hierarchy* h) {
        const bool neighbor = kind >= HIERAGG_NEIGHBOR_ALLGATHER;
        const int n = neighbor ? 2 : size;
        counts.assign(n, 1);
        for (int i = 0; i < n; ++i) displs.push_back(i), bytes.push_back(8 * i);
        lists = {(rank + size - 1) % size, (rank + 1) % size};
        c.args.kind = kind;
        c.rank = rank;
        c.size = size;
        c.hierarchy = h;
        c.args.sbuf = &sendBuffer;
        c.args.rbuf = &recvBuffer;
        c.args.scount = c.args.rcount = 1;
        c.args.op_commutative = 1;
        c.stype = c.rtype = kInt64;
        c.args.scounts = c.args.rcounts = counts.data();
        c.args.sdispls = c.args.rdispls = displs.data();
        c.args.sdispls_bytes = c.args.rdispls_bytes = bytes.data();
        c.args.sources = c.args.destinations = lists.data();
        if (neighbor) c.args.topology = HIERAGG_TOPO_DIST_GRAPH, c.args.indegree = c.args.outdegree = 2;
        if (hier::factsOf(kind).vectors & hier::kPeerTypes) c.stypes.assign(n, kInt64), c.rtypes.assign(n, kInt64);
    }
};

struct Result {
    double firstUs = 0, repeatUs = 0;
    size_t scheduleBytes = 0, entryBytes = 0, steps = 0;
    std::string algorithm;
};

// The stages the runtime runs for the call: one, or a two-stage v-variant's size stage and
// data stage (the data stage's learned sizes: 8 B from every member).
std::vector<CollCall> stagesOf(const CollCall& c, std::vector<uint64_t>& learned) {
    if (hier::factsOf(c.args.kind).sizeStage == hier::SizeStage::None || !recipes::twoStage(c)) return {c};
    CollCall sizes = c, data = c;
    sizes.varStage = 1;
    data.varStage = 2;
    learned.assign(recipes::sizeStageLearned(data), 8);
    data.learnedBytes = learned.empty() ? nullptr : learned.data();
    return {sizes, data};
}

// One call of the runtime's path (CoreAbi.cpp, scheduleFor): key, lookup; on a miss the plan
// (model-driven kinds), the recipe's schedule and the store. Returns whether it built.
bool runCall(ScheduleCache& cache, const CollCall& call, std::shared_ptr<const Schedule>* out) {
    CallKey k;
    writeScheduleKey(call, k);
    const std::string key = k.str();
    if (const CachedSchedule* hit = cache.find(key, call)) {
        if (out) *out = hit->schedule;
        return false;
    }
    CollCall c = call;
    if (hier::modelDriven(c.args.kind))
        c.plan = std::make_shared<const hier::Plan>(hier::choosePlan(c, hier::CostParams::defaults()));
    auto s = std::make_shared<const Schedule>(recipes::buildSchedule(c));
    const CachedSchedule& e = cache.insert(key, c, s);
    if (out) *out = e.schedule;
    return true;
}

Result measure(hieragg_coll_kind kind, int p, int node, int rank) {
    const hier::Hierarchy h = [&] {
        std::vector<std::vector<int64_t>> keys(1, std::vector<int64_t>(p));
        for (int r = 0; r < p; ++r) keys[0][r] = r / node;
        return hier::Hierarchy::fromKeys(p, keys);
    }();
    Call call(kind, p, rank, &h);
    std::vector<uint64_t> learned;
    const std::vector<CollCall> stages = stagesOf(call.c, learned);
    Result r;
    // First call: a fresh cache each time; the best of three (of one above 1 s).
    r.firstUs = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
        ScheduleCache cache(128, 0);
        const Clock::time_point t0 = Clock::now();
        for (const CollCall& s : stages) runCall(cache, s, nullptr);
        r.firstUs = std::min(r.firstUs, usSince(t0));
        if (r.firstUs > 1e6) break;
    }
    ScheduleCache cache(128, 0);
    for (const CollCall& s : stages) {
        std::shared_ptr<const Schedule> sched;
        runCall(cache, s, &sched);
        r.scheduleBytes += scheduleMemoryBytes(*sched);
        r.steps += sched->executedSteps();
        r.algorithm += (r.algorithm.empty() ? "" : " / ") + sched->algorithm;
    }
    r.entryBytes = cache.bytes();
    // Repeated call: as many as fit in 20 ms (at least 3); the mean. A repeat that builds is
    // a failure of the cache, reported.
    int n = 0, rebuilt = 0;
    const Clock::time_point t0 = Clock::now();
    do {
        for (const CollCall& s : stages) rebuilt += runCall(cache, s, nullptr);
        ++n;
    } while (n < 3 || usSince(t0) < 20000);
    r.repeatUs = usSince(t0) / n;
    if (rebuilt) r.algorithm += " [REBUILT ON REPEAT]";
    return r;
}

std::string num(double x) {
    char b[32];
    if (x >= 100) std::snprintf(b, sizeof b, "%.0f", x);
    else if (x >= 10) std::snprintf(b, sizeof b, "%.1f", x);
    else std::snprintf(b, sizeof b, "%.2f", x);
    return b;
}
std::string kib(size_t bytes) { return num(bytes / 1024.0); }

}  // namespace

int main(int argc, char** argv) {
    std::vector<int> sizes = {64, 256, 1024, 4096, 16384, 65536};
    int node = 32, rank = 0;
    std::vector<hieragg_coll_kind> kinds;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--node" && i + 1 < argc) {
            node = std::atoi(argv[++i]);
        } else if (a == "--rank" && i + 1 < argc) {
            rank = std::atoi(argv[++i]);
        } else if (a == "--sizes" && i + 1 < argc) {
            sizes.clear();
            for (const char* s = argv[++i]; *s;) {
                sizes.push_back(std::atoi(s));
                while (*s && *s != ',') ++s;
                if (*s) ++s;
            }
        } else if (a == "--coll" && i + 1 < argc) {
            const std::string name = argv[++i];
            for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k)
                if (name == hier::collectiveName(static_cast<hieragg_coll_kind>(k)))
                    kinds.push_back(static_cast<hieragg_coll_kind>(k));
            if (kinds.empty()) return std::fprintf(stderr, "hieragg-cache-scale: unknown collective %s\n", name.c_str()), 2;
        } else {
            std::fprintf(stderr,
                         "usage: hieragg-cache-scale [--sizes 64,256,...] [--node RANKS] [--rank R] [--coll NAME]\n");
            return 2;
        }
    }
    if (node < 1 || sizes.empty()) return std::fprintf(stderr, "hieragg-cache-scale: bad --node or --sizes\n"), 2;
    if (kinds.empty())
        for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k) kinds.push_back(static_cast<hieragg_coll_kind>(k));

    std::vector<std::vector<Result>> all(kinds.size());
    for (size_t i = 0; i < kinds.size(); ++i)
        for (int p : sizes) {
            all[i].push_back(measure(kinds[i], p, node, rank % p));
            std::fprintf(stderr, "%s P=%d: %s\n", hier::collectiveName(kinds[i]), p, all[i].back().algorithm.c_str());
        }

    auto table = [&](const char* title, auto cell) {
        std::printf("\n%s\n\n| collective |", title);
        for (int p : sizes) std::printf(" P=%d |", p);
        std::printf("\n|---|");
        for (size_t j = 0; j < sizes.size(); ++j) std::printf("---:|");
        std::printf("\n");
        for (size_t i = 0; i < kinds.size(); ++i) {
            std::printf("| %s |", hier::collectiveName(kinds[i]));
            for (const Result& r : all[i]) std::printf(" %s |", cell(r).c_str());
            std::printf("\n");
        }
    };
    std::printf("Rank %d of P ranks in nodes of %d (virtual:%d), 8 B per peer; steps = steps a Task runs.\n", rank,
                node, node);
    table("First call [us] (plan, key, build, store):", [](const Result& r) { return num(r.firstUs); });
    table("Repeated call [us] (key with the vectors' digest, cache hit comparing the vectors):",
          [](const Result& r) { return num(r.repeatUs); });
    table("Schedule [KiB] / steps:", [](const Result& r) { return kib(r.scheduleBytes) + " / " + std::to_string(r.steps); });
    table("Cache entry [KiB] (schedule + key + kept vectors):", [](const Result& r) { return kib(r.entryBytes); });
    bool rebuilt = false;
    for (const auto& row : all)
        for (const Result& r : row) rebuilt |= r.algorithm.find("REBUILT") != std::string::npos;
    if (rebuilt) std::printf("\nSOME REPEATED CALL REBUILT ITS SCHEDULE (see stderr)\n");
    return rebuilt ? 1 : 0;
}
