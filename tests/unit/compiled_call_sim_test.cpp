// The compiled fast path (src/runtime/CompiledCall, CallCache): a schedule compiled into a
// flat action array gives the closed-form result of every collective it serves, on every
// rank, call after call with new buffers, next to ranks that run the same schedule as a
// Task; schedules it cannot run exactly are declined; and the cache never hands out a
// compiled call for another schedule or datatype layout (no stale binding).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>

#include "../../src/runtime/CallCache.hpp"
#include "../../src/runtime/CommCounters.hpp"
#include "../../src/runtime/CompiledCall.hpp"
#include "../../src/runtime/TagAllocation.hpp"
#include "PmlOverSim.hpp"
#include "ReductionFixture.hpp"
#include "hieragg/Task.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

// What one rank gives and receives in one call.
struct RankBuffers {
    std::vector<int64_t> in, out;
};

int64_t value(int rank, size_t i, int call) { return 1 + rank * 5 + static_cast<int64_t>(i % 7) * 3 + call * 1000; }

// Inputs for `kind` on p ranks, `count` elements per block, call number `call`.
std::vector<RankBuffers> buffersFor(hieragg_coll_kind kind, int p, size_t count, int root, int call) {
    std::vector<RankBuffers> b(p);
    const size_t blocks = kind == HIERAGG_ALLGATHER || kind == HIERAGG_ALLTOALL ? static_cast<size_t>(p) : 1;
    for (int r = 0; r < p; ++r) {
        const size_t nin = kind == HIERAGG_ALLTOALL ? count * p : count;
        b[r].in.resize(nin);
        for (size_t i = 0; i < nin; ++i) b[r].in[i] = value(r, i, call);
        b[r].out.assign(count * blocks, -1);
        if (kind == HIERAGG_BCAST && r == root) b[r].out = b[r].in;
    }
    return b;
}

// The closed form of rank r's result; false where the standard leaves it undefined.
bool expected(hieragg_coll_kind kind, int p, size_t count, int root, int r, int call, std::vector<int64_t>& want) {
    want.clear();
    switch (kind) {
    case HIERAGG_BCAST:
        for (size_t i = 0; i < count; ++i) want.push_back(value(root, i, call));
        return true;
    case HIERAGG_REDUCE:
    case HIERAGG_ALLREDUCE:
        if (kind == HIERAGG_REDUCE && r != root) return false;
        for (size_t i = 0; i < count; ++i) {
            int64_t s = 0;
            for (int q = 0; q < p; ++q) s += value(q, i, call);
            want.push_back(s);
        }
        return true;
    case HIERAGG_SCAN:
    case HIERAGG_EXSCAN:
        if (kind == HIERAGG_EXSCAN && r == 0) return false;
        for (size_t i = 0; i < count; ++i) {
            int64_t s = 0;
            for (int q = 0; q < (kind == HIERAGG_SCAN ? r + 1 : r); ++q) s += value(q, i, call);
            want.push_back(s);
        }
        return true;
    case HIERAGG_ALLGATHER:
        for (int q = 0; q < p; ++q)
            for (size_t i = 0; i < count; ++i) want.push_back(value(q, i, call));
        return true;
    case HIERAGG_ALLTOALL:
        for (int q = 0; q < p; ++q)
            for (size_t i = 0; i < count; ++i) want.push_back(value(q, r * count + i, call));
        return true;
    default:
        return false;
    }
}

CollCall callFor(hieragg_coll_kind kind, int r, int p, const hier::Hierarchy* h, size_t count, int root,
                 RankBuffers& b, sim::SimNetwork& net, int algorithm = 0) {
    CollCall c = reductionCall(kind, r, p, h, sumOp(), count, 1 << 16, algorithm);
    c.args.root = root;
    if (kind != HIERAGG_REDUCE && kind != HIERAGG_ALLREDUCE && kind != HIERAGG_SCAN && kind != HIERAGG_EXSCAN)
        c.args.op = nullptr;
    if (kind == HIERAGG_BARRIER) {
        c.args.stype = c.args.rtype = nullptr;
        c.args.scount = c.args.rcount = 0;
    } else {
        c.args.sbuf = kind == HIERAGG_BCAST ? nullptr : b.in.data();
        c.args.rbuf = b.out.data();
    }
    describeTypes(c, net.transport(r));
    return c;
}

// The bindings of rank r's call: buffers, types and per-peer tag bases (`tags`, one per peer).
CompiledCall::Binding bindingFor(const CollCall& c, sim::SimNetwork& net, sim::SimComm& comm, const int* tags) {
    CompiledCall::Binding b;
    b.sbuf = c.args.sbuf;
    b.rbuf = c.args.rbuf;
    b.stype = c.args.stype;
    b.rtype = c.args.rtype;
    b.packed = net.packed();
    b.op = c.args.op;
    b.comm = &comm;
    b.peerTagBase = tags;
    return b;
}

struct Case {
    hieragg_coll_kind kind;
    int p;
    size_t count;
    int root;
    const char* hierarchy;  // "flat" or "virtual:2"
    const char* algorithm = nullptr;  // a forced registry row (null: the model's choice)
};

int algorithmOf(const Case& k) {
    return k.algorithm ? hier::algorithmValue(*hier::algorithmByName(k.kind, k.algorithm)) : 0;
}

// Runs `calls` calls of one case with the schedule compiled once per rank; ranks where
// `taskRank(r)` run it as a Task instead. Checks every result against its closed form.
// Tags: each call its own block, passed to the start; with `numbering`, per-pair call
// numbers kept per rank as the runtime keeps them (TagAllocation), different on every pair
// (the same on both ends), taken by takeCallTags on Task ranks and by CompiledCall::takeTags
// on compiled ranks, as runRepeat does. With `bound` (needs `numbering`), compiled ranks
// start as runRepeat does: the communicator's parts bound once (bindCommunicator), each
// call's buffers, types and op through startBound. Every call's buffers are new and the
// previous call's stay alive: they must still hold their own results after the next call.
// With `via` Pml, compiled ranks post into a fake PML over the same network (PmlOverSim:
// CompiledCall's direct path, PmlDirect), every request released exactly once; with
// PmlEmptySends, a send that ends inside its post returns the fake's empty request (Open
// MPI's &ompi_request_empty, abi.h request_empty), which must never be released.
enum class Via { Transport, Pml, PmlEmptySends };
size_t emptyRequestsReturned = 0;  // over every PmlEmptySends case run
void runCase(const Case& k, int calls, bool (*taskRank)(int), const CallTagRule* numbering = nullptr,
             bool bound = false, Via via = Via::Transport) {
    const bool viaPml = via != Via::Transport;
    const int p = k.p;
    hier::Hierarchy h = std::string(k.hierarchy) == "flat" ? hier::Hierarchy::flat(p) : virtualNodes(p, 2);
    sim::SimNetwork net(p);
    sim::SimComm comm{7};
    std::unique_ptr<PmlOverSim> pml =
        viaPml ? std::make_unique<PmlOverSim>(net, comm, via == Via::PmlEmptySends) : nullptr;
    // Where compiled rank r posts (and the communicator handle it binds).
    auto transportOf = [&](int r) -> Transport& {
        return pml ? static_cast<Transport&>(pml->transport(r)) : net.transport(r);
    };
    auto commOf = [&](int r) -> void* { return pml ? pml->comm(r) : static_cast<void*>(&comm); };
    const std::string what = std::string(hieragg_coll_name(k.kind)) + " p=" + std::to_string(p) +
                             " count=" + std::to_string(k.count) + " root=" + std::to_string(k.root) + " " +
                             k.hierarchy + (viaPml ? " (PML direct)" : "") +
                             (via == Via::PmlEmptySends ? " (empty request)" : "");
    std::vector<std::unique_ptr<CompiledCall>> compiled(p);
    std::vector<std::shared_ptr<const Schedule>> scheds(p);
    std::vector<TagAllocation> numbers(p);
    for (int r = 0; r < p && numbering; ++r) {
        numbers[r].pairSeq.resize(p);
        for (int q = 0; q < p; ++q) numbers[r].pairSeq[q] = static_cast<uint32_t>((r + q) * 3 + (r * q) % 5);
        numbers[r].callTags = *numbering;
    }
    const std::vector<TagAllocation> initial = numbers;
    std::vector<RankBuffers> previous;
    for (int call = 0; call < calls; ++call) {
        std::vector<RankBuffers> bufs = buffersFor(k.kind, p, k.count, k.root, call);
        std::vector<CollCall> cs;
        for (int r = 0; r < p; ++r) cs.push_back(callFor(k.kind, r, p, &h, k.count, k.root, bufs[r], net, algorithmOf(k)));
        std::vector<std::vector<int>> tags(p);
        std::vector<std::unique_ptr<Task>> tasks(p);
        for (int r = 0; r < p; ++r) {
            if (!scheds[r]) scheds[r] = std::make_shared<const Schedule>(recipes::buildSchedule(cs[r]));
            // Each call its own tag block on every pair, as the runtime's call numbers give it.
            tags[r].assign(scheds[r]->peers.size(), -1 - call * 4096);
            if (taskRank(r)) {
                TaskBindings tb = bindCall(cs[r], net.transport(r), &comm, 0, 0);
                tb.peerTagBase = tags[r];
                if (numbering) takeCallTags(numbers[r], *scheds[r], static_cast<size_t>(p), tb.peerTagBase.data());
                tasks[r] = std::make_unique<Task>(scheds[r], net.transport(r), std::move(tb));
                continue;
            }
            if (!compiled[r]) {
                compiled[r] = std::make_unique<CompiledCall>();
                const char* why = "";
                ASSERT_TRUE(compiled[r]->compile(scheds[r], cs[r].stype, cs[r].rtype, &why)) << what << ": " << why;
            }
            if (numbering && call == 0) compiled[r]->bindPairNumbers(numbers[r].pairSeq.data(), numbers[r].callTags);
            if (numbering) compiled[r]->takeTags();
        }
        // The runtime passes tag bases from its stack: a compiled call keeps its own copy,
        // so clobbering the caller's array after the start changes nothing.
        std::vector<std::vector<int>> callerTags = tags;
        for (int r = 0; r < p; ++r) {
            if (tasks[r]) {
                ASSERT_EQ(tasks[r]->start(), 0) << what;
            } else if (bound) {
                if (call == 0) compiled[r]->bindCommunicator(commOf(r), nullptr, net.packed());
                ASSERT_EQ(compiled[r]->startBound(transportOf(r), cs[r].args.sbuf, cs[r].args.rbuf, cs[r].args.stype,
                                                  cs[r].args.rtype, cs[r].args.op),
                          0)
                    << what;
            } else {
                CompiledCall::Binding b = bindingFor(cs[r], net, comm, numbering ? nullptr : callerTags[r].data());
                b.comm = commOf(r);
                ASSERT_EQ(compiled[r]->start(transportOf(r), b), 0) << what;
            }
        }
        for (std::vector<int>& t : callerTags) std::fill(t.begin(), t.end(), 12345);
        for (int round = 0; round < 10000; ++round) {
            bool all = true;
            if (pml) pml->progress();
            for (int r = 0; r < p; ++r) all &= tasks[r] ? tasks[r]->progress() : compiled[r]->poll();
            if (all) break;
        }
        for (int r = 0; r < p; ++r) {
            const bool done = tasks[r] ? tasks[r]->done() : compiled[r]->done();
            const int status = tasks[r] ? tasks[r]->status() : compiled[r]->status();
            ASSERT_TRUE(done) << what << " call " << call << ": rank " << r << " never finished";
            ASSERT_EQ(status, 0) << what << ": rank " << r;
            if (!tasks[r]) EXPECT_FALSE(compiled[r]->running()) << what;
            std::vector<int64_t> want;
            if (expected(k.kind, p, k.count, k.root, r, call, want))
                EXPECT_EQ(bufs[r].out, want) << what << " call " << call << ": rank " << r;
        }
        // The previous call's buffers hold its results still: nothing of this call went there.
        for (int r = 0; r < p && call > 0; ++r) {
            std::vector<int64_t> want;
            if (expected(k.kind, p, k.count, k.root, r, call - 1, want))
                EXPECT_EQ(previous[r].out, want) << what << " call " << call << ": rank " << r << "'s previous buffers";
        }
        previous = std::move(bufs);
        EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
        EXPECT_EQ(net.postedReceives(), 0u) << what;
        EXPECT_TRUE(net.error().empty()) << what << ": " << net.error();
    }
    if (pml) {
        EXPECT_GT(pml->posts() + pml->emptyReturned(), 0u) << what << ": nothing went through the fake PML";
        EXPECT_TRUE(pml->releasedOnce()) << what << ": a request released twice, before it ended, or never";
        EXPECT_EQ(pml->emptyReleases(), 0u) << what << ": the PML's empty request was released";
        emptyRequestsReturned += pml->emptyReturned();
    }
    // Each rank took one number per call on each of its schedule's peers, and no other.
    for (int r = 0; r < p && numbering; ++r)
        for (int q = 0; q < p; ++q) {
            const std::vector<int>& peers = scheds[r]->peers;
            const bool peer = std::find(peers.begin(), peers.end(), q) != peers.end();
            EXPECT_EQ(numbers[r].pairSeq[q], initial[r].pairSeq[q] + (peer ? static_cast<uint32_t>(calls) : 0u))
                << what << ": rank " << r << ", peer " << q;
        }
}

bool noTasks(int) { return false; }
bool oddRanksAreTasks(int r) { return r % 2 == 1; }

const Case kCases[] = {
    {HIERAGG_BCAST, 4, 1, 0, "flat"},      {HIERAGG_BCAST, 8, 1, 3, "flat"},
    {HIERAGG_BCAST, 5, 3, 4, "virtual:2"}, {HIERAGG_REDUCE, 4, 1, 0, "flat"},
    {HIERAGG_REDUCE, 8, 1, 5, "flat"},     {HIERAGG_REDUCE, 6, 3, 1, "virtual:2"},
    {HIERAGG_ALLREDUCE, 4, 1, 0, "flat"},  {HIERAGG_ALLREDUCE, 8, 1, 0, "flat"},
    {HIERAGG_ALLREDUCE, 7, 2, 0, "virtual:2"}, {HIERAGG_BARRIER, 4, 0, 0, "flat"},
    {HIERAGG_BARRIER, 8, 0, 0, "virtual:2"},   {HIERAGG_BARRIER, 5, 0, 0, "flat"},
    {HIERAGG_ALLGATHER, 4, 1, 0, "flat"},  {HIERAGG_ALLGATHER, 6, 2, 0, "virtual:2"},
    {HIERAGG_ALLTOALL, 4, 1, 0, "flat"},   {HIERAGG_SCAN, 5, 2, 0, "flat"},
    {HIERAGG_SCAN, 5, 2, 0, "flat", "linear"}, {HIERAGG_EXSCAN, 4, 3, 0, "flat", "linear"},
};

// Every case's every rank, one case at a time (its own hierarchy, network and buffers):
// f(case, rank, the rank's call, its schedule).
template <class F>
void forEveryCaseRank(F&& f) {
    for (const Case& k : kCases) {
        hier::Hierarchy h = std::string(k.hierarchy) == "flat" ? hier::Hierarchy::flat(k.p) : virtualNodes(k.p, 2);
        sim::SimNetwork net(k.p);
        std::vector<RankBuffers> bufs = buffersFor(k.kind, k.p, k.count, k.root, 0);
        for (int r = 0; r < k.p; ++r) {
            const CollCall c = callFor(k.kind, r, k.p, &h, k.count, k.root, bufs[r], net, algorithmOf(k));
            f(k, r, c, std::make_shared<const Schedule>(recipes::buildSchedule(c)));
        }
    }
}

}  // namespace

TEST(CompiledCallSim, EveryServedCollectiveGivesItsClosedFormCallAfterCall) {
    for (const Case& k : kCases) runCase(k, 3, noTasks);
}

TEST(CompiledCallSim, CompiledRanksMatchRanksRunningTheSameScheduleAsATask) {
    for (const Case& k : kCases) runCase(k, 2, oddRanksAreTasks);
}

// Per-pair call numbers as the runtime takes them, different on every pair and wrapping a
// window of 4 within the calls: compiled ranks take the numbers and tags that Task ranks
// take, or a message would stay unmatched.
TEST(CompiledCallSim, TakesThePerPairCallNumbersATaskTakes) {
    const CallTagRule window4 = TagLayout().capped(4).callRule();
    for (const Case& k : kCases) runCase(k, 6, oddRanksAreTasks, &window4);
    for (const Case& k : kCases) runCase(k, 3, noTasks, &window4);
}

// runRepeat's way of starting (bindCommunicator once, startBound per call with new
// buffers), next to Task ranks and alone: every call's closed form in its own buffers, the
// previous call's buffers untouched (no stale binding).
TEST(CompiledCallSim, StartBoundBindsEachCallsOwnBuffers) {
    const CallTagRule window4 = TagLayout().capped(4).callRule();
    for (const Case& k : kCases) runCase(k, 4, oddRanksAreTasks, &window4, true);
    for (const Case& k : kCases) runCase(k, 3, noTasks, &window4, true);
}

// The direct path into the PML (PmlDirect: what a compiled call runs inside Open MPI, without
// the Transport): the same closed forms, tags and untouched previous buffers, next to Task
// ranks and alone, started both ways; every request released once, after it ended, whether
// it ended inside its post or in a later test.
TEST(CompiledCallSim, PostingStraightIntoThePmlGivesTheSameResults) {
    const CallTagRule window4 = TagLayout().capped(4).callRule();
    for (const Case& k : kCases) runCase(k, 3, noTasks, nullptr, false, Via::Pml);
    for (const Case& k : kCases) runCase(k, 4, oddRanksAreTasks, &window4, true, Via::Pml);
    for (const Case& k : kCases) runCase(k, 3, noTasks, &window4, true, Via::Pml);
}

// Sends that end inside their post come back as the PML's empty request (Open MPI's
// &ompi_request_empty from ob1's inline send): done at once and never released, with the same
// closed forms, tags and untouched previous buffers, started both ways, next to Task ranks
// and alone (runCase checks that no case releases it).
TEST(CompiledCallSim, ThePmlsEmptyRequestIsDoneAtOnceAndNeverReleased) {
    const CallTagRule window4 = TagLayout().capped(4).callRule();
    for (const Case& k : kCases) runCase(k, 3, noTasks, nullptr, false, Via::PmlEmptySends);
    for (const Case& k : kCases) runCase(k, 4, oddRanksAreTasks, &window4, true, Via::PmlEmptySends);
    for (const Case& k : kCases) runCase(k, 3, noTasks, &window4, true, Via::PmlEmptySends);
    EXPECT_GT(emptyRequestsReturned, 0u) << "no send came back as the empty request: nothing was checked";
}

// Two compiled calls of one communicator whose peers overlap (an 8-rank dissemination
// barrier: r +- 1, 2, 4; an 8-rank binomial bcast from rank 3), back to back, each rank's
// both bound to its one pairSeq as runRepeat binds them (bindPairNumbers), with a window of
// 4 and numbers that differ on every pair: in each of 7 alternating calls every rank's base
// towards q is the closed form top - ((first + calls so far on the pair) mod 4) * 4096, both
// ends of a pair take the same base, and two calls on one pair fewer than W = 4 calls apart
// on it never share a base (no tag of a call still in flight on the pair is reused).
TEST(CompiledCallSim, BackToBackCallsWithOverlappingPeersNeverShareATagOnAPair) {
    const int p = 8;
    const uint32_t w = 4;
    const CallTagRule rule = TagLayout().capped(w).callRule();
    ASSERT_EQ(rule.top, -28);
    auto closedForm = [](uint32_t n) { return -28 - static_cast<int>((n % 4) * 4096); };
    auto first = [](int r, int q) { return static_cast<uint32_t>((r + q) * 3 + (r * q) % 5); };  // symmetric
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    const Case barrier{HIERAGG_BARRIER, p, 0, 0, "flat", "dissemination"}, bcast{HIERAGG_BCAST, p, 1, 3, "flat", "knomial"};
    std::vector<TagAllocation> numbers(p);
    std::vector<std::vector<std::unique_ptr<CompiledCall>>> cc(2);  // [barrier, bcast][rank]
    for (int r = 0; r < p; ++r) {
        numbers[r].pairSeq.resize(p);
        for (int q = 0; q < p; ++q) numbers[r].pairSeq[q] = first(r, q);
        numbers[r].callTags = rule;
    }
    std::vector<RankBuffers> bufs = buffersFor(HIERAGG_BCAST, p, 1, 3, 0);
    int sharedPeers = 0;
    for (int which = 0; which < 2; ++which) {
        const Case& k = which == 0 ? barrier : bcast;
        for (int r = 0; r < p; ++r) {
            const CollCall c = callFor(k.kind, r, p, &h, k.count, k.root, bufs[r], net, algorithmOf(k));
            auto s = std::make_shared<const Schedule>(recipes::buildSchedule(c));
            cc[which].push_back(std::make_unique<CompiledCall>());
            ASSERT_TRUE(cc[which][r]->compile(s, c.stype, c.rtype, nullptr)) << which << " rank " << r;
            cc[which][r]->bindPairNumbers(numbers[r].pairSeq.data(), rule);
        }
    }
    for (int r = 0; r < p; ++r)
        for (int q : cc[1][r]->schedule()->peers) {
            const std::vector<int>& bp = cc[0][r]->schedule()->peers;
            sharedPeers += std::find(bp.begin(), bp.end(), q) != bp.end();
        }
    ASSERT_GT(sharedPeers, 0) << "the two schedules share no pair: nothing overlaps";
    std::vector<std::vector<uint32_t>> onPair(p, std::vector<uint32_t>(p, 0));  // calls so far per pair
    // base[r][q]: every base rank r took towards q, in call order, with its pair's call index.
    std::vector<std::vector<std::vector<std::pair<uint32_t, int>>>> taken(p, std::vector<std::vector<std::pair<uint32_t, int>>>(p));
    for (int call = 0; call < 7; ++call) {
        const int which = call % 2;
        std::vector<std::map<int, int>> base(p);  // this call: rank -> peer -> base
        for (int r = 0; r < p; ++r) {
            CompiledCall& f = *cc[which][r];
            f.takeTags();
            const std::vector<int>& peers = f.schedule()->peers;
            for (uint32_t slot = 0; slot < peers.size(); ++slot) {
                const int q = peers[slot];
                EXPECT_EQ(f.tagBase(slot), closedForm(first(r, q) + onPair[r][q]))
                    << "call " << call << " rank " << r << " peer " << q;
                base[r][q] = f.tagBase(slot);
                taken[r][q].push_back({onPair[r][q], f.tagBase(slot)});
                ++onPair[r][q];
            }
        }
        for (int r = 0; r < p; ++r)
            for (const auto& [q, b] : base[r]) {
                ASSERT_TRUE(base[q].count(r)) << "call " << call << ": rank " << r << " lists " << q << ", not back";
                EXPECT_EQ(base[q][r], b) << "call " << call << ": ranks " << r << " and " << q << " disagree";
            }
    }
    for (int r = 0; r < p; ++r)
        for (int q = 0; q < p; ++q) {
            EXPECT_EQ(numbers[r].pairSeq[q], first(r, q) + onPair[r][q]) << "rank " << r << " peer " << q;
            const auto& t = taken[r][q];
            for (size_t i = 0; i < t.size(); ++i)
                for (size_t j = i + 1; j < t.size() && t[j].first - t[i].first < w; ++j)
                    EXPECT_NE(t[i].second, t[j].second) << "rank " << r << " peer " << q << ": calls " << i << ", " << j;
        }
}

TEST(CompiledCallSim, BarrierDoesNotFinishBeforeEveryRankEntered) {
    const int p = 4;
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    sim::SimComm comm{1};
    std::vector<RankBuffers> bufs(p);
    std::vector<std::unique_ptr<CompiledCall>> cc(p);
    std::vector<std::vector<int>> tags(p);
    std::vector<CollCall> cs;
    for (int r = 0; r < p; ++r) {
        cs.push_back(callFor(HIERAGG_BARRIER, r, p, &h, 0, 0, bufs[r], net));
        auto s = std::make_shared<const Schedule>(recipes::buildSchedule(cs[r]));
        tags[r].assign(s->peers.size(), -1);
        cc[r] = std::make_unique<CompiledCall>();
        ASSERT_TRUE(cc[r]->compile(s, cs[r].stype, cs[r].rtype, nullptr));
    }
    for (int r = 0; r < p - 1; ++r) ASSERT_EQ(cc[r]->start(net.transport(r), bindingFor(cs[r], net, comm, tags[r].data())), 0);
    for (int round = 0; round < 100; ++round)
        for (int r = 0; r < p - 1; ++r) EXPECT_FALSE(cc[r]->poll()) << "rank " << r << " left the barrier early";
    ASSERT_EQ(cc[p - 1]->start(net.transport(p - 1), bindingFor(cs[p - 1], net, comm, tags[p - 1].data())), 0);
    for (int round = 0; round < 100; ++round)
        for (int r = 0; r < p; ++r) cc[r]->poll();
    for (int r = 0; r < p; ++r) EXPECT_TRUE(cc[r]->done()) << "rank " << r;
}

TEST(CompiledCallSim, DeclinesWhatItDoesNotRunExactly) {
    const int p = 4;
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    // A pipelined bcast (fragment template) and an allreduce whose temporaries pass the arena.
    struct Big {
        hieragg_coll_kind kind;
        size_t count;
        size_t segment;
    } bigs[] = {{HIERAGG_BCAST, 1 << 16, 4096}, {HIERAGG_ALLREDUCE, 5000, 1 << 16}, {HIERAGG_REDUCE, 5000, 1 << 16}};
    int checked = 0;
    for (const Big& b : bigs) {
        RankBuffers buf;
        buf.in.assign(b.count, 1);
        buf.out.assign(b.count, 0);
        CollCall c = callFor(b.kind, 1, p, &h, b.count, 0, buf, net);
        c.segmentBytes = b.segment;
        auto s = std::make_shared<const Schedule>(recipes::buildSchedule(c));
        const bool expectDecline = !s->pipelines.empty() || s->steps.size() > CompiledCall::kMaxActions ||
                                   s->tempBytes() > CompiledCall::kArenaBytes / 2;
        if (!expectDecline) continue;  // this recipe needs nothing the compiler refuses
        CompiledCall cc;
        const char* why = "";
        EXPECT_FALSE(cc.compile(s, c.stype, c.rtype, &why)) << hieragg_coll_name(b.kind);
        EXPECT_STRNE(why, "") << hieragg_coll_name(b.kind);
        EXPECT_FALSE(cc.compiled());
        ++checked;
    }
    EXPECT_GE(checked, 2) << "the cases no longer reach what the compiler declines";
}

// Two schedules of one rank (rank 1 of a flat 4-rank allreduce, of 1 and of 3 ints), for
// the tests of what a CallCache serves for which schedule and layouts.
class TwoAllreduceSchedules : public ::testing::Test {
protected:
    static constexpr int p = 4;
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    sim::SimNetwork net{p};
    RankBuffers buf = [] {
        RankBuffers b;
        b.in.assign(4, 1);
        b.out.assign(4, 0);
        return b;
    }();
    CollCall one = callFor(HIERAGG_ALLREDUCE, 1, p, &h, 1, 0, buf, net);
    CollCall three = callFor(HIERAGG_ALLREDUCE, 1, p, &h, 3, 0, buf, net);
    std::shared_ptr<const Schedule> a = std::make_shared<const Schedule>(recipes::buildSchedule(one));
    std::shared_ptr<const Schedule> b = std::make_shared<const Schedule>(recipes::buildSchedule(three));
    CallCache cache;
    // The entry's question (runRepeat) on a communicator of p ranks.
    CompiledCall* forLast() {
        return cache.compiledForLast([](CompiledCall&) { return true; });
    }
};

TEST_F(TwoAllreduceSchedules, ServesAScheduleOnlyWithTheScheduleAndLayoutsItWasCompiledFor) {
    CompiledCall* fa = cache.compiledFor(a, one.stype, one.rtype);
    ASSERT_NE(fa, nullptr);
    EXPECT_EQ(fa->schedule(), a.get());
    EXPECT_EQ(cache.compiledFor(a, one.stype, one.rtype), fa);
    EXPECT_EQ(cache.compilations(), 1u) << "a repeat runs what was compiled";
    // Another count: another schedule, compiled for it; the first schedule is never served
    // by the second's compilation.
    CompiledCall* fb = cache.compiledFor(b, three.stype, three.rtype);
    ASSERT_NE(fb, nullptr);
    EXPECT_EQ(fb->schedule(), b.get());
    EXPECT_EQ(cache.compilations(), 2u);
    CompiledCall* again = cache.compiledFor(a, one.stype, one.rtype);
    ASSERT_NE(again, nullptr);
    EXPECT_EQ(again->schedule(), a.get());
    EXPECT_EQ(cache.compilations(), 3u);
    // The same schedule with another datatype layout (a derived type of another extent
    // under the same handle): compiled again for that layout, not reused.
    hieragg_dtype_info wide = one.rtype;
    wide.extent = wide.true_extent = 16;
    CompiledCall* fw = cache.compiledFor(a, one.stype, wide);
    ASSERT_NE(fw, nullptr);
    EXPECT_EQ(cache.compilations(), 4u);
    EXPECT_NE(cache.compiledFor(a, one.stype, one.rtype), nullptr);
    EXPECT_EQ(cache.compilations(), 5u) << "going back to the first layout recompiles";
    // A schedule the compiler declines stays on the Task path, without compiling again.
    RankBuffers big;
    big.in.assign(5000, 1);
    big.out.assign(5000, 0);
    CollCall large = callFor(HIERAGG_ALLREDUCE, 1, p, &h, 5000, 0, big, net);
    auto l = std::make_shared<const Schedule>(recipes::buildSchedule(large));
    ASSERT_GT(l->tempBytes(), CompiledCall::kArenaBytes) << "the test needs a schedule over the arena";
    EXPECT_EQ(cache.compiledFor(l, large.stype, large.rtype), nullptr);
    EXPECT_STRNE(cache.declined(), "");
    EXPECT_EQ(cache.compiledFor(l, large.stype, large.rtype), nullptr);
    EXPECT_EQ(cache.compilations(), 6u) << "a declined schedule is not compiled again";
    // A declined schedule does not disturb the next one.
    EXPECT_NE(cache.compiledFor(b, three.stype, three.rtype), nullptr);
    EXPECT_EQ(cache.compilations(), 7u);
    cache.clear();
    EXPECT_NE(cache.compiledFor(b, three.stype, three.rtype), nullptr);
    EXPECT_EQ(cache.compilations(), 8u) << "nothing compiled survives clear()";
}

TEST(CallCacheTest, ACallCompletingInItsStartCompletesItsWaiterAtOnce) {
    // One rank alone: a barrier of one rank has nothing to wait for.
    hier::Hierarchy h = hier::Hierarchy::flat(1);
    sim::SimNetwork net(1);
    sim::SimComm comm{2};
    RankBuffers buf;
    buf.in = {41, 42};
    buf.out = {0, 0};
    CollCall c = callFor(HIERAGG_ALLREDUCE, 0, 1, &h, 2, 0, buf, net);
    auto s = std::make_shared<const Schedule>(recipes::buildSchedule(c));
    CallCache cache;
    CompiledCall* f = cache.compiledFor(s, c.stype, c.rtype);
    ASSERT_NE(f, nullptr);
    int tags[1] = {-1};
    BlockingWait w;
    ASSERT_EQ(cache.start(*f, net.transport(0), bindingFor(c, net, comm, tags), w), 0);
    EXPECT_TRUE(w.done);
    EXPECT_EQ(w.status, 0);
    cache.wait(w, net.transport(0));  // returns at once
    EXPECT_EQ(buf.out, (std::vector<int64_t>{41, 42}));
}

TEST(CallCacheTest, AFailedCallSendsEveryLaterCallOfTheCommunicatorToTheGeneralPath) {
    // Rank 0 of a two-rank allreduce whose sends fail (a process failure, a revoked
    // communicator): the call ends with the error, and the cache hands out no compiled
    // call any more, for that schedule or any other, clear() or not.
    const int p = 2;
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    sim::SimComm comm{3};
    RankBuffers buf;
    buf.in = {5};
    buf.out = {0};
    CollCall c = callFor(HIERAGG_ALLREDUCE, 0, p, &h, 1, 0, buf, net);
    auto s = std::make_shared<const Schedule>(recipes::buildSchedule(c));
    CallCache cache;
    CompiledCall* f = cache.compiledFor(s, c.stype, c.rtype);
    ASSERT_NE(f, nullptr);
    constexpr int kFailure = 75;
    net.failSends(0, 0, kFailure);
    std::vector<int> tags(s->peers.size(), -100);
    BlockingWait w;
    const int rc = cache.start(*f, net.transport(0), bindingFor(c, net, comm, tags.data()), w);
    if (rc == 0) cache.wait(w, net.transport(0));
    EXPECT_EQ(rc != 0 ? rc : w.status, kFailure);
    EXPECT_TRUE(cache.failed());
    EXPECT_EQ(cache.compiledFor(s, c.stype, c.rtype), nullptr) << "a failed communicator's repeat compiled again";
    auto other = std::make_shared<const Schedule>(recipes::buildSchedule(c));
    EXPECT_EQ(cache.compiledFor(other, c.stype, c.rtype), nullptr);
    cache.clear();
    EXPECT_EQ(cache.compiledFor(s, c.stype, c.rtype), nullptr);
}

TEST(CompiledCallSim, JoinsAreCompiledAway) {
    // A barrier's schedule joins its rounds with Nop steps; the compiled call has none of
    // them (its actions wait for what the joins waited for) and still waits for every
    // rank: the closed-form and barrier tests above run the same compiled calls.
    for (int p : {4, 8}) {
        hier::Hierarchy h = virtualNodes(p, 2);
        sim::SimNetwork net(p);
        RankBuffers buf;
        CollCall c = callFor(HIERAGG_BARRIER, 0, p, &h, 0, 0, buf, net);
        Schedule s = recipes::buildSchedule(c);
        size_t joins = 0;
        for (const Step& st : s.steps) joins += st.kind == StepKind::Nop;
        ASSERT_GT(joins, 0u) << "p=" << p << ": the test needs a schedule with joins";
        const size_t steps = s.steps.size();
        CompiledCall f;
        const char* why = "";
        ASSERT_TRUE(f.compile(std::make_shared<const Schedule>(std::move(s)), c.stype, c.rtype, &why)) << why;
        EXPECT_EQ(f.actions(), steps - joins) << "p=" << p;
    }
}

namespace {

// Whether step i of `s` is a message that waits for nothing but joins (Nop steps, which
// the compiler drops) that themselves wait for nothing but joins: the independent
// reference of CompiledCall::flat() for one step.
bool waitsForNothing(const Schedule& s, StepId i) {
    const Step& st = s.steps[static_cast<size_t>(i)];
    for (uint32_t d = 0; d < st.depCount; ++d) {
        const StepId dep = s.deps[st.depBegin + d];
        if (s.steps[static_cast<size_t>(dep)].kind != StepKind::Nop || !waitsForNothing(s, dep)) return false;
    }
    return true;
}

bool onlyIndependentMessages(const Schedule& s) {
    bool any = false;
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const StepKind k = s.steps[i].kind;
        if (k == StepKind::Nop) continue;
        if ((k != StepKind::Send && k != StepKind::Recv) || !waitsForNothing(s, static_cast<StepId>(i))) return false;
        any = true;
    }
    return any;
}

}  // namespace

// Ranks whose actions are only messages waiting for nothing (a bcast's root and leaves, a
// reduce's leaves) run flat: posted in order at the start, then only tested. The closed-form
// tests above run them call after call; here: which ranks run flat, and a flat leaf that
// starts before its root waits for the root's message and then has the root's data.
TEST(CompiledCallSim, RanksWhoseMessagesWaitForNothingRunFlatAndStillWaitForTheirPeers) {
    size_t flatRanks = 0, otherRanks = 0;
    forEveryCaseRank([&](const Case& k, int r, const CollCall& c, std::shared_ptr<const Schedule> s) {
        const bool want = onlyIndependentMessages(*s);
        CompiledCall f;
        ASSERT_TRUE(f.compile(s, c.stype, c.rtype, nullptr));
        EXPECT_EQ(f.flat(), want) << hieragg_coll_name(k.kind) << " p=" << k.p << " " << k.hierarchy << ": rank " << r;
        (want ? flatRanks : otherRanks)++;
    });
    EXPECT_GT(flatRanks, 0u) << "no case has a flat rank any more";
    EXPECT_GT(otherRanks, 0u);

    // A 4-rank bcast whose root sends to every leaf (a flat hierarchy's one-level tree at 4
    // ranks, or whatever the recipe builds: only ranks that run flat are started early).
    const int p = 4;
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    sim::SimComm comm{11};
    std::vector<RankBuffers> bufs = buffersFor(HIERAGG_BCAST, p, 2, 0, 5);
    std::vector<CollCall> cs;
    std::vector<std::unique_ptr<CompiledCall>> cc(p);
    std::vector<std::vector<int>> tags(p);
    for (int r = 0; r < p; ++r) {
        cs.push_back(callFor(HIERAGG_BCAST, r, p, &h, 2, 0, bufs[r], net));
        auto s = std::make_shared<const Schedule>(recipes::buildSchedule(cs[r]));
        tags[r].assign(s->peers.size(), -3);
        cc[r] = std::make_unique<CompiledCall>();
        ASSERT_TRUE(cc[r]->compile(s, cs[r].stype, cs[r].rtype, nullptr));
    }
    ASSERT_TRUE(cc[0]->flat()) << "a bcast root's sends wait for nothing";
    int early = 0;
    for (int r = 1; r < p; ++r) {
        if (!cc[r]->flat()) continue;
        ASSERT_EQ(cc[r]->start(net.transport(r), bindingFor(cs[r], net, comm, tags[r].data())), 0);
        ++early;
    }
    ASSERT_GT(early, 0) << "no flat leaf in a 4-rank bcast";
    for (int round = 0; round < 50; ++round)
        for (int r = 1; r < p; ++r)
            if (cc[r]->running()) EXPECT_FALSE(cc[r]->poll()) << "leaf " << r << " finished before its root started";
    for (int r = 0; r < p; ++r)
        if (!cc[r]->running()) ASSERT_EQ(cc[r]->start(net.transport(r), bindingFor(cs[r], net, comm, tags[r].data())), 0);
    for (int round = 0; round < 100; ++round)
        for (int r = 0; r < p; ++r) cc[r]->poll();
    for (int r = 0; r < p; ++r) {
        ASSERT_TRUE(cc[r]->done()) << "rank " << r;
        EXPECT_EQ(cc[r]->status(), 0) << "rank " << r;
        std::vector<int64_t> want;
        ASSERT_TRUE(expected(HIERAGG_BCAST, p, 2, 0, r, 5, want));
        EXPECT_EQ(bufs[r].out, want) << "rank " << r;
    }
    EXPECT_EQ(net.unmatchedMessages(), 0u);
    EXPECT_EQ(net.postedReceives(), 0u);
}

TEST(CallCacheTest, AFlatCallWhoseSendFailsEndsWithTheErrorAndSendsTheCommunicatorToTheGeneralPath) {
    // A bcast root's sends, the second failing (a process failure, a revoked communicator).
    const int p = 4;
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    sim::SimComm comm{12};
    std::vector<RankBuffers> bufs = buffersFor(HIERAGG_BCAST, p, 1, 0, 0);
    CollCall c = callFor(HIERAGG_BCAST, 0, p, &h, 1, 0, bufs[0], net);
    auto s = std::make_shared<const Schedule>(recipes::buildSchedule(c));
    size_t sends = 0;
    for (const Step& st : s->steps) sends += st.kind == StepKind::Send;
    ASSERT_GE(sends, 2u) << "the test needs a root with two sends at least";
    CallCache cache;
    CompiledCall* f = cache.compiledFor(s, c.stype, c.rtype);
    ASSERT_NE(f, nullptr);
    ASSERT_TRUE(f->flat());
    constexpr int kFailure = 76;
    net.failSends(0, 1, kFailure);
    std::vector<int> tags(s->peers.size(), -200);
    BlockingWait w;
    const int rc = cache.start(*f, net.transport(0), bindingFor(c, net, comm, tags.data()), w);
    if (rc == 0) cache.wait(w, net.transport(0));
    EXPECT_EQ(rc != 0 ? rc : w.status, kFailure);
    EXPECT_FALSE(f->running());
    EXPECT_TRUE(cache.failed());
    EXPECT_EQ(cache.compiledFor(s, c.stype, c.rtype), nullptr);
}

// MPI_T: a compiled call counts its sends together when it ends (the counters fold them per
// level once: TaskObserver::SendBatch), and they count as a Task's one-by-one reports
// would: every send once, at its peer's level, with its payload, call after call; when a
// post fails, the sends posted before it and no other. A flat call (a bcast root) here, one
// whose sends wait for receives (a barrier) in the next test.
TEST(CompiledCallSim, AFlatCallCountsEachOfItsPostedSendsOnce) {
    const int p = 4, calls = 3;
    const size_t count = 3;
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    hier::Hierarchy nodes = virtualNodes(p, 2);  // the counters' levels: peers 2 and 3 on the other node
    sim::SimComm comm{13};
    std::vector<RankBuffers> bufs = buffersFor(HIERAGG_BCAST, p, count, 0, 0);
    for (const int failAt : {-1, 1}) {
        sim::SimNetwork net(p);
        CollCall c = callFor(HIERAGG_BCAST, 0, p, &h, count, 0, bufs[0], net);
        auto s = std::make_shared<const Schedule>(recipes::buildSchedule(c));
        CompiledCall f;
        ASSERT_TRUE(f.compile(s, c.stype, c.rtype, nullptr));
        ASSERT_TRUE(f.flat());
        CommCounters counted, want;
        counted.setHierarchy(&nodes, 0);
        want.setHierarchy(&nodes, 0);
        std::vector<int> sendPeers;
        for (const Step& st : s->steps)
            if (st.kind == StepKind::Send) sendPeers.push_back(st.peer);
        ASSERT_GE(sendPeers.size(), 2u) << "the test needs a root with two sends at least";
        ASSERT_NE(std::find(sendPeers.begin(), sendPeers.end(), 1), sendPeers.end()) << "a peer on its node";
        const int rounds = failAt >= 0 ? 1 : calls;
        if (failAt >= 0) net.failSends(0, failAt, 76);
        for (int call = 0; call < rounds; ++call) {
            // What a Task reports: each Send step's peer and payload, one by one.
            for (size_t i = 0; i < sendPeers.size() && (failAt < 0 || static_cast<int>(i) < failAt); ++i)
                want.sent(sendPeers[i], false, count * sizeof(int64_t));
            std::vector<int> tags(s->peers.size(), -300 - call * 4096);
            CompiledCall::Binding b = bindingFor(c, net, comm, tags.data());
            b.observer = &counted;
            const int rc = f.start(net.transport(0), b);
            for (int round = 0; round < 100 && rc == 0 && !f.done(); ++round) f.poll();
            EXPECT_EQ(rc != 0 ? rc : f.status(), failAt >= 0 ? 76 : 0);
            // the leaves take their messages, so that the next call's sends start clean
            for (int r = 1; r < p && failAt < 0; ++r) {
                CollCall leaf = callFor(HIERAGG_BCAST, r, p, &h, count, 0, bufs[r], net);
                auto ls = std::make_shared<const Schedule>(recipes::buildSchedule(leaf));
                TaskBindings tb = bindCall(leaf, net.transport(r), &comm, 0, 0);
                tb.peerTagBase.assign(ls->peers.size(), -300 - call * 4096);
                Task t(ls, net.transport(r), std::move(tb));
                ASSERT_EQ(t.start(), 0);
                for (int round = 0; round < 100 && !t.done(); ++round) t.progress();
                ASSERT_TRUE(t.done());
            }
        }
        hieragg_comm_counters got{}, expect{};
        counted.read(got);
        want.read(expect);
        for (int l = 0; l < HIERAGG_COUNTER_LEVELS; ++l) {
            EXPECT_EQ(got.bytes[l], expect.bytes[l]) << "level " << l << (failAt >= 0 ? ", a failing send" : "");
            EXPECT_EQ(got.messages[l], expect.messages[l]) << "level " << l << (failAt >= 0 ? ", a failing send" : "");
        }
        EXPECT_GT(expect.messages[0] + expect.messages[1], 0u);
    }
}

TEST(CompiledCallSim, ACallWhoseSendsWaitCountsEachOfThemOnce) {
    const int p = 4, calls = 3;
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    hier::Hierarchy nodes = virtualNodes(p, 2);
    sim::SimNetwork net(p);
    sim::SimComm comm{14};
    std::vector<RankBuffers> bufs = buffersFor(HIERAGG_BARRIER, p, 0, 0, 0);
    std::vector<CollCall> cs;
    std::vector<std::unique_ptr<CompiledCall>> cc(p);
    std::vector<std::unique_ptr<CommCounters>> counted(p), want(p);
    size_t notFlat = 0;
    for (int r = 0; r < p; ++r) {
        cs.push_back(callFor(HIERAGG_BARRIER, r, p, &h, 0, 0, bufs[r], net));
        cc[r] = std::make_unique<CompiledCall>();
        ASSERT_TRUE(cc[r]->compile(std::make_shared<const Schedule>(recipes::buildSchedule(cs[r])), cs[r].stype,
                                   cs[r].rtype, nullptr));
        notFlat += !cc[r]->flat();
        counted[r] = std::make_unique<CommCounters>();
        want[r] = std::make_unique<CommCounters>();
        counted[r]->setHierarchy(&nodes, r);
        want[r]->setHierarchy(&nodes, r);
    }
    ASSERT_GT(notFlat, 0u) << "no barrier rank whose sends wait";
    for (int call = 0; call < calls; ++call) {
        for (int r = 0; r < p; ++r) {
            for (const Step& st : cc[r]->schedule()->steps)
                if (st.kind == StepKind::Send) want[r]->sent(st.peer, false, 0);
            std::vector<int> tags(cc[r]->schedule()->peers.size(), -500 - call * 4096);
            CompiledCall::Binding b = bindingFor(cs[r], net, comm, tags.data());
            b.observer = counted[r].get();
            ASSERT_EQ(cc[r]->start(net.transport(r), b), 0);
        }
        for (int round = 0; round < 100; ++round)
            for (int r = 0; r < p; ++r) cc[r]->poll();
        for (int r = 0; r < p; ++r) {
            ASSERT_TRUE(cc[r]->done()) << "rank " << r;
            hieragg_comm_counters got{}, expect{};
            counted[r]->read(got);
            want[r]->read(expect);
            for (int l = 0; l < HIERAGG_COUNTER_LEVELS; ++l)
                EXPECT_EQ(got.messages[l], expect.messages[l]) << "rank " << r << ", level " << l << ", call " << call;
            EXPECT_GT(expect.messages[0] + expect.messages[1], 0u);
        }
    }
}

// The entry's shortcut (CallCache::compiledForLast): the answer found for the last raw
// arguments holds only while they stay. Every keepRaw/dropRaw (what scheduleFor does when a
// call changes its count, type, op, root or buffers' presence) makes it look again, so a
// repeat never runs a compiled call of another schedule or layout.
TEST_F(TwoAllreduceSchedules, TheAnswerForTheLastRawArgumentsNeverOutlivesThem) {
    EXPECT_EQ(forLast(), nullptr) << "no raw arguments kept yet";
    auto keep = [&](const CollCall& c, const std::shared_ptr<const Schedule>& s, const hieragg_dtype_info& rtype) {
        cache.last.schedule = s;
        cache.last.keepRaw(c.args, c.stype, rtype, 0, true);
    };
    keep(one, a, one.rtype);
    CompiledCall* fa = forLast();
    ASSERT_NE(fa, nullptr);
    EXPECT_EQ(fa->schedule(), a.get());
    EXPECT_EQ(forLast(), fa);
    EXPECT_EQ(cache.compilations(), 1u);
    // Another count: another schedule kept with its raw arguments.
    keep(three, b, three.rtype);
    CompiledCall* fb = forLast();
    ASSERT_NE(fb, nullptr);
    EXPECT_EQ(fb->schedule(), b.get());
    EXPECT_EQ(cache.compilations(), 2u);
    // The same schedule kept with another layout: compiled for that layout.
    hieragg_dtype_info wide = three.rtype;
    wide.extent = wide.true_extent = 16;
    keep(three, b, wide);
    ASSERT_NE(forLast(), nullptr);
    EXPECT_EQ(cache.compilations(), 3u) << "a new layout ran the compilation of the old one";
    keep(three, b, three.rtype);
    ASSERT_NE(forLast(), nullptr);
    EXPECT_EQ(cache.compilations(), 4u);
    // Dropped raw arguments: nothing, until kept again.
    cache.last.dropRaw();
    EXPECT_EQ(forLast(), nullptr);
    keep(three, b, three.rtype);
    EXPECT_NE(forLast(), nullptr);
    EXPECT_EQ(cache.compilations(), 4u) << "the same schedule and layout again needs no compilation";
    // A compilation for another schedule in between (compiled_ compiled anew in place):
    // the kept answer is not handed out for it.
    ASSERT_NE(cache.compiledFor(a, one.stype, one.rtype), nullptr);
    CompiledCall* back = forLast();
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(back->schedule(), b.get()) << "a stale compiled call was handed out";
    // After clear() (the compiled call destroyed) the answer is compiled anew, never the old pointer's.
    const size_t before = cache.compilations();
    cache.clear();
    CompiledCall* fresh = forLast();
    ASSERT_NE(fresh, nullptr);
    EXPECT_EQ(fresh->schedule(), b.get());
    EXPECT_EQ(cache.compilations(), before + 1);
}

// The rank chain's ranks (receive, reduce, send; exscan's first rank: one send) run
// straight or flat; a rank whose actions run side by side (a tree's interior) runs neither.
// Started from the last rank down, every rank but the first waits in poll() for its
// predecessor's message, and each gets its closed form.
TEST(CompiledCallSim, RankChainRunsStraightAndWaitsForEachPredecessor) {
    size_t neither = 0;
    forEveryCaseRank([&](const Case&, int, const CollCall& c, std::shared_ptr<const Schedule> s) {
        CompiledCall f;
        ASSERT_TRUE(f.compile(s, c.stype, c.rtype, nullptr));
        EXPECT_FALSE(f.flat() && f.straight());
        neither += !f.flat() && !f.straight();
    });
    EXPECT_GT(neither, 0u) << "every rank of every case runs flat or straight";

    for (const hieragg_coll_kind kind : {HIERAGG_SCAN, HIERAGG_EXSCAN}) {
        const int p = 5;
        hier::Hierarchy h = hier::Hierarchy::flat(p);
        sim::SimNetwork net(p);
        sim::SimComm comm{13};
        const int linear = hier::algorithmValue(*hier::algorithmByName(kind, "linear"));
        std::vector<RankBuffers> bufs = buffersFor(kind, p, 3, 0, 2);
        std::vector<CollCall> cs;
        std::vector<std::unique_ptr<CompiledCall>> cc(p);
        std::vector<std::vector<int>> tags(p);
        for (int r = 0; r < p; ++r) {
            cs.push_back(callFor(kind, r, p, &h, 3, 0, bufs[r], net, linear));
            auto s = std::make_shared<const Schedule>(recipes::buildSchedule(cs[r]));
            tags[r].assign(s->peers.size(), -5);
            cc[r] = std::make_unique<CompiledCall>();
            ASSERT_TRUE(cc[r]->compile(s, cs[r].stype, cs[r].rtype, nullptr));
            // (exscan's last rank only receives: flat)
            if (r > 0 && !(kind == HIERAGG_EXSCAN && r == p - 1))
                EXPECT_TRUE(cc[r]->straight()) << hieragg_coll_name(kind) << " rank " << r;
            EXPECT_TRUE(cc[r]->straight() || cc[r]->flat()) << hieragg_coll_name(kind) << " rank " << r;
        }
        for (int r = p - 1; r >= 0; --r) {
            ASSERT_EQ(cc[r]->start(net.transport(r), bindingFor(cs[r], net, comm, tags[r].data())), 0);
            if (r > 0) EXPECT_FALSE(cc[r]->done()) << hieragg_coll_name(kind) << " rank " << r << " ended before its predecessor started";
        }
        for (int round = 0; round < 100; ++round)
            for (int r = 0; r < p; ++r) cc[r]->poll();
        for (int r = 0; r < p; ++r) {
            ASSERT_TRUE(cc[r]->done()) << hieragg_coll_name(kind) << " rank " << r;
            EXPECT_EQ(cc[r]->status(), 0);
            std::vector<int64_t> want;
            if (expected(kind, p, 3, 0, r, 2, want)) EXPECT_EQ(bufs[r].out, want) << hieragg_coll_name(kind) << " rank " << r;
        }
        EXPECT_EQ(net.unmatchedMessages(), 0u);
        EXPECT_EQ(net.postedReceives(), 0u);
    }
}

namespace {

// The non-join steps step `i` of `s` waits for directly, its joins (Nop) seen through.
std::vector<StepId> realDeps(const Schedule& s, StepId i) {
    std::vector<StepId> out;
    const Step& st = s.steps[static_cast<size_t>(i)];
    for (uint32_t d = 0; d < st.depCount; ++d) {
        const StepId dep = s.deps[st.depBegin + d];
        if (s.steps[static_cast<size_t>(dep)].kind != StepKind::Nop) {
            out.push_back(dep);
            continue;
        }
        for (const StepId e : realDeps(s, dep)) out.push_back(e);
    }
    return out;
}

// Whether step j waits for step d, directly or through other steps.
bool waitsFor(const Schedule& s, StepId j, StepId d) {
    const Step& st = s.steps[static_cast<size_t>(j)];
    for (uint32_t k = 0; k < st.depCount; ++k) {
        const StepId dep = s.deps[st.depBegin + k];
        if (dep == d || waitsFor(s, dep, d)) return true;
    }
    return false;
}

// The independent reference of CompiledCall::ordered() (with flat() and straight() off):
// every later non-join step waits for each real dependency of an earlier one.
bool laterStepsWaitForEarlierDeps(const Schedule& s) {
    const StepId n = static_cast<StepId>(s.steps.size());
    for (StepId i = 0; i < n; ++i) {
        if (s.steps[static_cast<size_t>(i)].kind == StepKind::Nop) continue;
        for (const StepId d : realDeps(s, i))
            for (StepId j = i + 1; j < n; ++j)
                if (s.steps[static_cast<size_t>(j)].kind != StepKind::Nop && !waitsFor(s, j, d)) return false;
    }
    return true;
}

}  // namespace

// The ranks of a dissemination barrier and of a recursive-doubling allreduce exchange in
// rounds (several messages in flight, no action ready before an earlier one): they run
// ordered, as the reference from the schedule says; every case's ranks agree with it. Started
// from the last rank down, a rank that waits for its peers stops in start() and finishes in
// poll() with its closed form; with new buffers, call after call, on the one compiled call.
TEST(CompiledCallSim, RoundExchangesRunOrderedAndGiveTheirClosedForms) {
    size_t ordered = 0;
    forEveryCaseRank([&](const Case& k, int r, const CollCall& c, std::shared_ptr<const Schedule> s) {
        const bool want = laterStepsWaitForEarlierDeps(*s);
        CompiledCall f;
        ASSERT_TRUE(f.compile(s, c.stype, c.rtype, nullptr));
        EXPECT_EQ(f.flat() || f.straight() || f.ordered(), want)
            << hieragg_coll_name(k.kind) << " p=" << k.p << " " << k.hierarchy << ": rank " << r;
        EXPECT_LE(int{f.flat()} + int{f.straight()} + int{f.ordered()}, 1);
        ordered += f.ordered();
    });
    EXPECT_GT(ordered, 0u) << "no case has an ordered rank any more";

    struct Round {
        hieragg_coll_kind kind;
        int p;
        const char* algorithm;
    };
    for (const Round& k : {Round{HIERAGG_BARRIER, 4, "dissemination"}, Round{HIERAGG_BARRIER, 8, "dissemination"},
                           Round{HIERAGG_ALLREDUCE, 4, "recursive_doubling"},
                           Round{HIERAGG_ALLREDUCE, 8, "recursive_doubling"}}) {
        const std::string what = std::string(hieragg_coll_name(k.kind)) + " p=" + std::to_string(k.p);
        hier::Hierarchy h = hier::Hierarchy::flat(k.p);
        sim::SimNetwork net(k.p);
        sim::SimComm comm{17};
        const hier::AlgorithmInfo* row = hier::algorithmByName(k.kind, k.algorithm);
        ASSERT_NE(row, nullptr) << k.algorithm;
        const int algorithm = hier::algorithmValue(*row);
        std::vector<std::unique_ptr<CompiledCall>> cc(k.p);
        for (int call = 0; call < 3; ++call) {
            std::vector<RankBuffers> bufs = buffersFor(k.kind, k.p, 2, 0, call);
            std::vector<CollCall> cs;
            std::vector<std::vector<int>> tags(k.p);
            for (int r = 0; r < k.p; ++r) {
                cs.push_back(callFor(k.kind, r, k.p, &h, 2, 0, bufs[r], net, algorithm));
                if (!cc[r]) {
                    auto s = std::make_shared<const Schedule>(recipes::buildSchedule(cs[r]));
                    cc[r] = std::make_unique<CompiledCall>();
                    ASSERT_TRUE(cc[r]->compile(s, cs[r].stype, cs[r].rtype, nullptr)) << what;
                    EXPECT_TRUE(cc[r]->ordered()) << what << ": rank " << r;
                }
                tags[r].assign(cc[r]->schedule()->peers.size(), -3 - call * 4096);
            }
            for (int r = k.p - 1; r >= 0; --r) {
                ASSERT_EQ(cc[r]->start(net.transport(r), bindingFor(cs[r], net, comm, tags[r].data())), 0) << what;
                if (r > 0) EXPECT_FALSE(cc[r]->done()) << what << ": rank " << r << " ended before rank 0 started";
            }
            for (int round = 0; round < 100; ++round)
                for (int r = 0; r < k.p; ++r) cc[r]->poll();
            for (int r = 0; r < k.p; ++r) {
                ASSERT_TRUE(cc[r]->done()) << what << " call " << call << ": rank " << r;
                EXPECT_EQ(cc[r]->status(), 0) << what;
                std::vector<int64_t> want;
                if (expected(k.kind, k.p, 2, 0, r, call, want))
                    EXPECT_EQ(bufs[r].out, want) << what << " call " << call << ": rank " << r;
            }
            EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
            EXPECT_EQ(net.postedReceives(), 0u) << what;
        }
    }
}

// Changed arguments on an ordered call: every rank of a 4-rank recursive-doubling allreduce
// keeps a CallCache; a call of another count is another schedule, compiled anew (the ordered
// call of the first count is never served for it), and both counts give their closed forms
// when they alternate.
TEST(CompiledCallSim, AnOrderedCallIsNeverServedForAnotherCount) {
    const int p = 4;
    hier::Hierarchy h = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    sim::SimComm comm{19};
    const int algorithm = hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLREDUCE, "recursive_doubling"));
    std::vector<CallCache> caches(p);
    std::vector<std::map<size_t, std::shared_ptr<const Schedule>>> scheds(p);
    int call = 0;
    for (const size_t count : {size_t{2}, size_t{3}, size_t{2}, size_t{3}}) {
        std::vector<RankBuffers> bufs = buffersFor(HIERAGG_ALLREDUCE, p, count, 0, call);
        std::vector<CollCall> cs;
        std::vector<CompiledCall*> cc(p);
        std::vector<std::vector<int>> tags(p);
        for (int r = 0; r < p; ++r) {
            cs.push_back(callFor(HIERAGG_ALLREDUCE, r, p, &h, count, 0, bufs[r], net, algorithm));
            std::shared_ptr<const Schedule>& s = scheds[r][count];
            if (!s) s = std::make_shared<const Schedule>(recipes::buildSchedule(cs[r]));
            cc[r] = caches[r].compiledFor(s, cs[r].stype, cs[r].rtype);
            ASSERT_NE(cc[r], nullptr) << "count " << count;
            EXPECT_EQ(cc[r]->schedule(), s.get()) << "count " << count << ": rank " << r;
            EXPECT_TRUE(cc[r]->ordered()) << "count " << count << ": rank " << r;
            tags[r].assign(s->peers.size(), -7 - call * 4096);
        }
        for (int r = p - 1; r >= 0; --r)
            ASSERT_EQ(cc[r]->start(net.transport(r), bindingFor(cs[r], net, comm, tags[r].data())), 0);
        for (int round = 0; round < 100; ++round)
            for (int r = 0; r < p; ++r) cc[r]->poll();
        for (int r = 0; r < p; ++r) {
            ASSERT_TRUE(cc[r]->done()) << "count " << count << ": rank " << r;
            EXPECT_EQ(cc[r]->status(), 0);
            std::vector<int64_t> want;
            ASSERT_TRUE(expected(HIERAGG_ALLREDUCE, p, count, 0, r, call, want));
            EXPECT_EQ(bufs[r].out, want) << "count " << count << " call " << call << ": rank " << r;
        }
        EXPECT_EQ(net.unmatchedMessages(), 0u);
        EXPECT_EQ(net.postedReceives(), 0u);
        ++call;
    }
    // Each count compiled on its first call and each time the other count came between.
    for (int r = 0; r < p; ++r) EXPECT_EQ(caches[r].compilations(), 4u) << "rank " << r;
}

// What the entry checks of the compiled call and binds into it (runRepeat: its peers are
// the communicator's; the communicator's parts of the binding) is part of the answer kept
// for the last raw arguments: `admit` is asked when the answer is looked for anew (once per
// kept raw arguments), never on a repeat, and a compiled call it refuses is never handed
// out, however often asked.
TEST_F(TwoAllreduceSchedules, TheEntrysAdmissionIsAskedOncePerKeptRawArgumentsAndARefusalHolds) {
    cache.last.schedule = a;
    cache.last.keepRaw(one.args, one.stype, one.rtype, 0, true);
    int asked = 0;
    size_t limit = p;
    auto ask = [&] {
        return cache.compiledForLast([&](CompiledCall& f) {
            ++asked;
            return f.peerBound() <= limit;
        });
    };
    CompiledCall* f = ask();
    ASSERT_NE(f, nullptr);
    ASSERT_GT(f->peerBound(), 1u) << "the test needs a schedule with peers";
    EXPECT_EQ(asked, 1);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(ask(), f);
    EXPECT_EQ(asked, 1) << "a repeat of the kept raw arguments asked again";
    // The raw arguments kept anew, on pair numbers that do not reach the schedule's last
    // peer: refused on every ask (each looks again), and not compiled again for it.
    cache.last.keepRaw(one.args, one.stype, one.rtype, 0, true);
    limit = f->peerBound() - 1;
    const size_t compiled = cache.compilations();
    for (int i = 0; i < 3; ++i) EXPECT_EQ(ask(), nullptr) << "a compiled call the entry refused was handed out";
    EXPECT_EQ(asked, 4);
    EXPECT_EQ(cache.compilations(), compiled);
    // Admitted again (the raw arguments kept anew): served, asked once more.
    cache.last.keepRaw(one.args, one.stype, one.rtype, 0, true);
    limit = f->peerBound();
    EXPECT_EQ(ask(), f);
    EXPECT_EQ(ask(), f);
    EXPECT_EQ(asked, 5);
    // A compilation in between (compiled_ compiled anew in place): asked again.
    ASSERT_NE(cache.compiledFor(b, three.stype, three.rtype), nullptr);
    ASSERT_NE(ask(), nullptr);
    EXPECT_EQ(asked, 6) << "a call compiled anew was handed out without the entry's admission";
}
