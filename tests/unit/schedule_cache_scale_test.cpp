// A repeated call reuses its schedule at any communicator size, and a call whose per-rank
// vectors differ at any position never runs a cached schedule built for other vectors
// (src/runtime/ScheduleCache.hpp, CallVectors.hpp, CallCacheKeys.hpp). Schedules are built
// by the recipes as the runtime builds them (plan from the cost model, then the recipe),
// for one rank of a communicator of 32-rank virtual nodes.
#include <gtest/gtest.h>

#include <functional>

#include "../../src/runtime/CallCacheKeys.hpp"
#include "../../src/runtime/ScheduleCache.hpp"
#include "SimFixture.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/TwoStage.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr hieragg_dtype_info kInt64{8, 0, 8, 0, 8, 1};
int sendBuffer, recvBuffer;  // buffers are bound per call: only their presence keys a schedule

// One rank's call of `kind` on `size` ranks with every per-rank vector it carries, owned
// here (so a test can copy or rewrite them): 2 elements per peer, blocks side by side;
// neighbor collectives on a ring (in and out: the two adjacent ranks).
struct VectorCall {
    std::vector<int> scounts, sdispls, rcounts, rdispls, sources, destinations;
    std::vector<ptrdiff_t> sbytes, rbytes;
    std::vector<uint64_t> learned;
    CollCall call;

    VectorCall(hieragg_coll_kind kind, int size, int rank, const hier::Hierarchy* h) {
        const bool neighbor = kind >= HIERAGG_NEIGHBOR_ALLGATHER;
        const int n = neighbor ? 2 : size;
        for (int i = 0; i < n; ++i) {
            scounts.push_back(2);
            sdispls.push_back(2 * i);
            rcounts.push_back(2);
            rdispls.push_back(2 * i);
            sbytes.push_back(16 * i);
            rbytes.push_back(16 * i);
        }
        sources = destinations = {(rank + size - 1) % size, (rank + 1) % size};
        call = baseCall(kind, rank, size, h);
        call.args.sbuf = &sendBuffer;
        call.args.rbuf = &recvBuffer;
        call.args.scount = call.args.rcount = 2;
        call.args.op_commutative = 1;
        call.stype = call.rtype = kInt64;
        if (neighbor) {
            call.args.topology = HIERAGG_TOPO_DIST_GRAPH;
            call.args.indegree = call.args.outdegree = 2;
        }
        if (hier::factsOf(kind).vectors & hier::kPeerTypes) {
            call.stypes.assign(n, kInt64);
            call.rtypes.assign(n, kInt64);
        }
        point();
    }
    VectorCall(const VectorCall& o) : scounts(o.scounts), sdispls(o.sdispls), rcounts(o.rcounts), rdispls(o.rdispls),
        sources(o.sources), destinations(o.destinations), sbytes(o.sbytes), rbytes(o.rbytes), learned(o.learned),
        call(o.call) {
        point();
    }
    // The call's pointers into this object's vectors (never into another copy's).
    void point() {
        hieragg_coll_args& a = call.args;
        a.scounts = scounts.data();
        a.sdispls = sdispls.data();
        a.rcounts = rcounts.data();
        a.rdispls = rdispls.data();
        a.sdispls_bytes = sbytes.data();
        a.rdispls_bytes = rbytes.data();
        a.sources = sources.data();
        a.destinations = destinations.data();
        call.learnedBytes = learned.empty() ? nullptr : learned.data();
    }
    // Every vector the schedule depends on, as (name, element count, bump element i).
    struct Knob {
        std::string name;
        size_t size;
        std::function<void(size_t, int)> bump;
    };
    std::vector<Knob> knobs() {
        std::vector<Knob> k;
        const uint16_t v = hier::factsOf(call.args.kind).vectors;
        auto ints = [&](const char* name, std::vector<int>& x) {
            k.push_back({name, x.size(), [&x](size_t i, int d) { x[i] += d; }});
        };
        if (v & hier::kSendCounts) ints("scounts", scounts);
        if (v & hier::kSendDispls) ints("sdispls", sdispls);
        if (v & hier::kRecvCounts) ints("rcounts", rcounts);
        if (v & hier::kRecvDispls) ints("rdispls", rdispls);
        if (v & hier::kNeighborLists) {  // neighbors stay ranks of the communicator
            const int p = call.size;
            for (auto* x : {&sources, &destinations})
                k.push_back({x == &sources ? "sources" : "destinations", x->size(),
                             [x, p](size_t i, int d) { (*x)[i] = ((*x)[i] + d + p) % p; }});
        }
        if (v & hier::kSendDisplsBytes) k.push_back({"sdispls_bytes", sbytes.size(), [this](size_t i, int d) { sbytes[i] += d; }});
        if (v & hier::kRecvDisplsBytes) k.push_back({"rdispls_bytes", rbytes.size(), [this](size_t i, int d) { rbytes[i] += d; }});
        if (v & hier::kPeerTypes) {
            k.push_back({"stypes", call.stypes.size(), [this](size_t i, int d) { call.stypes[i].extent += 8 * d; }});
            k.push_back({"rtypes", call.rtypes.size(), [this](size_t i, int d) { call.rtypes[i].extent += 8 * d; }});
        }
        if (!learned.empty())
            k.push_back({"learned", learned.size(), [this](size_t i, int d) { learned[i] += 8 * d; }});
        return k;
    }
};

// What the runtime does for a call (CallPreparation.cpp, scheduleFor): its key, the cache, and on a
// miss the plan and the recipe's schedule, stored. `builds` counts the misses.
std::shared_ptr<const Schedule> obtain(ScheduleCache& cache, CollCall c, int& builds) {
    const std::string key = scheduleCacheKey(c);
    if (const CachedSchedule* hit = cache.find(key, c)) return hit->schedule;
    ++builds;
    if (hier::modelDriven(c.args.kind)) c.plan = std::make_shared<const hier::Plan>(hier::choosePlan(c, hier::CostParams::defaults()));
    auto s = std::make_shared<const Schedule>(recipes::buildSchedule(c));
    return cache.insert(key, c, s).schedule;
}

// Two schedules describe the same steps (what a fresh build gives).
void expectSameSchedule(const Schedule& a, const Schedule& b, const std::string& at) {
    ASSERT_EQ(a.algorithm, b.algorithm) << at;
    ASSERT_EQ(a.steps.size(), b.steps.size()) << at;
    ASSERT_EQ(a.peers, b.peers) << at;
    for (size_t i = 0; i < a.steps.size(); ++i) {
        const Step &x = a.steps[i], &y = b.steps[i];
        ASSERT_TRUE(x.kind == y.kind && x.peer == y.peer && x.channel == y.channel && x.src.slot == y.src.slot &&
                    x.src.offset == y.src.offset && x.dst.slot == y.dst.slot && x.dst.offset == y.dst.offset &&
                    x.srcType.type == y.srcType.type && x.srcType.count == y.srcType.count &&
                    x.dstType.type == y.dstType.type && x.dstType.count == y.dstType.count)
            << at << ": step " << i;
    }
}

std::vector<hieragg_coll_kind> allKinds() {
    std::vector<hieragg_coll_kind> k;
    for (int i = 0; i < HIERAGG_COLL_KIND_COUNT; ++i) k.push_back(static_cast<hieragg_coll_kind>(i));
    return k;
}

}  // namespace

// The old key wrote reduce_scatter's counts and allgatherv's counts and displacements into
// 1 KiB and overflowed near 200 and 100 ranks; now every key is the same few hundred bytes
// at any size.
TEST(ScheduleCacheScale, KeysDoNotGrowWithTheCommunicator) {
    for (hieragg_coll_kind k : allKinds()) {
        size_t first = 0;
        for (int p : {64, 1024, 65536}) {
            VectorCall v(k, p, 0, nullptr);
            CallKey key;
            writeScheduleKey(v.call, key);
            ASSERT_TRUE(key.fits()) << hier::collectiveName(k) << " P=" << p;
            if (!first) first = key.size();
            EXPECT_EQ(key.size(), first) << hier::collectiveName(k) << " P=" << p;
            EXPECT_LE(key.size(), 256u) << hier::collectiveName(k);
        }
    }
}

// A repeat of a call (its vectors in other arrays holding the same values) finds the
// schedule built for the first one, on every collective, at 4096 ranks.
TEST(ScheduleCacheScale, RepeatedCallReusesItsScheduleAtLargeP) {
    const int p = 4096;
    const hier::Hierarchy h = virtualNodes(p, 32);
    for (hieragg_coll_kind k : allKinds()) {
        ScheduleCache cache(128, 0);
        int builds = 0;
        VectorCall first(k, p, 1, &h);
        const std::shared_ptr<const Schedule> s = obtain(cache, first.call, builds);
        VectorCall again(first);  // other arrays, same values
        ASSERT_NE(again.call.args.rcounts, first.call.args.rcounts);
        EXPECT_EQ(obtain(cache, again.call, builds), s) << hier::collectiveName(k);
        EXPECT_EQ(builds, 1) << hier::collectiveName(k) << ": a repeated call rebuilt its schedule";
    }
}

// Any element of any vector changed, at any position: the call misses (and gets a schedule
// equal to a fresh build); under the old key too, as a hash collision would present it,
// the stored vectors refuse it. Restoring the element finds the first schedule again.
TEST(ScheduleCacheScale, ChangedVectorElementAtAnyPositionRebuilds) {
    const int p = 64;
    const hier::Hierarchy h = virtualNodes(p, 8);
    for (hieragg_coll_kind k : allKinds()) {
        if (hier::factsOf(k).vectors == hier::kNoVectors) continue;
        ScheduleCache cache(1 << 20, 0);
        int builds = 0;
        VectorCall v(k, p, 0, &h);
        const std::shared_ptr<const Schedule> base = obtain(cache, v.call, builds);
        const std::string baseKey = scheduleCacheKey(v.call);
        for (VectorCall::Knob& knob : v.knobs()) {
            for (size_t i = 0; i < knob.size; ++i) {
                const std::string at = std::string(hier::collectiveName(k)) + " " + knob.name + "[" + std::to_string(i) + "]";
                knob.bump(i, 1);
                EXPECT_EQ(cache.find(baseKey, v.call), nullptr) << at << ": a stale schedule under the old key";
                const int before = builds;
                const std::shared_ptr<const Schedule> s = obtain(cache, v.call, builds);
                EXPECT_EQ(builds, before + 1) << at << ": not rebuilt";
                CollCall fresh = v.call;
                if (hier::modelDriven(k))
                    fresh.plan = std::make_shared<const hier::Plan>(hier::choosePlan(fresh, hier::CostParams::defaults()));
                expectSameSchedule(*s, recipes::buildSchedule(fresh), at);
                knob.bump(i, -1);
                EXPECT_EQ(obtain(cache, v.call, builds), base) << at << ": restored vectors";
                EXPECT_EQ(builds, before + 1) << at;
            }
        }
    }
}

// The data stage of a two-stage gatherv depends on the sizes its size stage delivered:
// they key it too, element by element; the size stage itself is shared by every call.
TEST(ScheduleCacheScale, TwoStageDataStageKeysTheLearnedSizes) {
    const int p = 64;
    const hier::Hierarchy h = virtualNodes(p, 8);
    VectorCall v(HIERAGG_GATHERV, p, 8, &h);  // the leader of the second node
    ASSERT_TRUE(recipes::twoStage(v.call));
    v.call.varStage = 2;
    v.learned.assign(recipes::sizeStageLearned(v.call), 16);
    ASSERT_EQ(v.learned.size(), 8u);
    v.point();
    ScheduleCache cache(128, 0);
    int builds = 0;
    const std::shared_ptr<const Schedule> base = obtain(cache, v.call, builds);
    for (size_t i = 0; i < v.learned.size(); ++i) {
        v.learned[i] = 24;
        const std::shared_ptr<const Schedule> s = obtain(cache, v.call, builds);
        EXPECT_NE(s, base) << i;
        expectSameSchedule(*s, recipes::buildSchedule(v.call), "learned[" + std::to_string(i) + "]");
        v.learned[i] = 16;
        EXPECT_EQ(obtain(cache, v.call, builds), base) << i;
    }
    EXPECT_EQ(builds, 1 + 8);
    // The root's size stage: its receive vectors key its one-stage calls, not this stage.
    VectorCall sizes(HIERAGG_GATHERV, p, 0, &h), other(HIERAGG_GATHERV, p, 0, &h);
    other.rcounts[3] = 7;
    EXPECT_NE(scheduleCacheKey(sizes.call), scheduleCacheKey(other.call));
    sizes.call.varStage = other.call.varStage = 1;
    EXPECT_EQ(scheduleCacheKey(sizes.call), scheduleCacheKey(other.call));
}

// MPI: vectors are significant only where the standard says so. A non-root's gatherv
// receive vectors and an in-place alltoallv's send vectors may point anywhere: they are
// never read, and do not key the schedule.
TEST(ScheduleCacheScale, InsignificantVectorsAreNeverRead) {
    const int p = 16;
    VectorCall g(HIERAGG_GATHERV, p, 3, nullptr), garbage(g);
    garbage.call.args.rcounts = reinterpret_cast<const int*>(uintptr_t{8});  // would fault if read
    garbage.call.args.rdispls = nullptr;
    EXPECT_EQ(scheduleCacheKey(g.call), scheduleCacheKey(garbage.call));
    VectorCall root(HIERAGG_GATHERV, p, 0, nullptr), rootChanged(root);
    rootChanged.rcounts[5] = 3;
    EXPECT_NE(scheduleCacheKey(root.call), scheduleCacheKey(rootChanged.call));

    VectorCall a(HIERAGG_ALLTOALLV, p, 3, nullptr);
    a.call.args.in_place = 1;
    VectorCall b(a);
    b.call.args.scounts = reinterpret_cast<const int*>(uintptr_t{8});
    b.call.args.sdispls = reinterpret_cast<const int*>(uintptr_t{8});
    EXPECT_EQ(scheduleCacheKey(a.call), scheduleCacheKey(b.call));
}

// The cache's byte budget evicts the least recently used schedules first, and never the
// one just stored (a call larger than the budget still reuses its schedule).
TEST(ScheduleCacheScale, ByteBudgetBoundsTheCacheButKeepsTheNewest) {
    const int p = 1024;
    ScheduleCache cache(128, 64 * 1024);
    int builds = 0;
    std::vector<VectorCall> calls;
    for (int i = 0; i < 6; ++i) {
        calls.emplace_back(HIERAGG_ALLTOALLV, p, 0, nullptr);
        calls.back().rcounts[0] = 2 + i;  // six signatures
    }
    for (VectorCall& c : calls) obtain(cache, c.call, builds);
    EXPECT_EQ(builds, 6);
    EXPECT_EQ(cache.size(), 1u) << "each schedule of 1024 peers exceeds 64 KiB: only the newest stays";
    obtain(cache, calls.back().call, builds);
    EXPECT_EQ(builds, 6) << "the newest is found";
    obtain(cache, calls.front().call, builds);
    EXPECT_EQ(builds, 7) << "the oldest was evicted";
}
