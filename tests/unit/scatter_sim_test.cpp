// Scatter and scatterv on the simulator: every size 1..9, every root, every
// hierarchy, in place at the root, zero counts, send type != recv type.
#include <gtest/gtest.h>

#include "DataMovementFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int64_t kUntouched = -7;
int64_t value(int dst, size_t i) { return 1000 * dst + static_cast<int64_t>(i) + 1; }

void checkScatter(int p, const NamedHierarchy& nh, int root, size_t words, bool pairRecv, bool inPlace) {
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        if (r == root)
            for (int d = 0; d < p; ++d)
                for (size_t i = 0; i < words; ++i) send[r].push_back(value(d, i));
        recv[r].assign(words + 1, kUntouched);
        CollCall c = baseCall(HIERAGG_SCATTER, r, p, nh.h.get());
        c.args.root = root;
        c.args.sbuf = r == root ? send[r].data() : nullptr;
        c.args.stype = &int64Type();
        c.args.scount = r == root ? words : 999;  // significant only at the root
        c.args.rbuf = recv[r].data();
        c.args.rtype = pairRecv ? &pairType() : &int64Type();
        c.args.rcount = pairRecv ? words / 2 : words;
        if (r == root && inPlace) {
            c.args.in_place = 1;
            c.args.rbuf = nullptr;
        }
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error << " p=" << p << " root=" << root << " h=" << nh.name;
    for (int r = 0; r < p; ++r) {
        std::vector<int64_t> expect(words + 1, kUntouched);
        if (!(r == root && inPlace))
            for (size_t i = 0; i < words; ++i) expect[i] = value(r, i);
        ASSERT_EQ(recv[r], expect) << "rank " << r << " p=" << p << " root=" << root << " h=" << nh.name;
    }
    if (inPlace)  // the root's own block stays where it was, in sendbuf
        for (size_t i = 0; i < words; ++i) ASSERT_EQ(send[root][root * words + i], value(root, i));
}

void checkScatterv(int p, int root, bool inPlace) {
    auto words = [](int r) { return static_cast<size_t>((r * 5) % 4); };
    std::vector<int> counts(p), displs(p);
    int at = 0;
    for (int r = p - 1; r >= 0; --r) {
        counts[r] = static_cast<int>(words(r));
        displs[r] = at;
        at += counts[r] + 2;
    }
    sim::SimNetwork net(p);
    std::vector<int64_t> send(at, kUntouched);
    for (int d = 0; d < p; ++d)
        for (size_t i = 0; i < words(d); ++i) send[displs[d] + i] = value(d, i);
    std::vector<std::vector<int64_t>> recv(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        recv[r].assign(4, kUntouched);
        CollCall c = baseCall(HIERAGG_SCATTERV, r, p, nullptr);
        c.args.root = root;
        if (r == root) {
            c.args.sbuf = send.data();
            c.args.scounts = counts.data();
            c.args.sdispls = displs.data();
        }
        c.args.stype = &int64Type();
        c.args.rbuf = recv[r].data();
        c.args.rtype = &int64Type();
        c.args.rcount = words(r);
        if (r == root && inPlace) c.args.in_place = 1, c.args.rbuf = nullptr;
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error;
    for (int r = 0; r < p; ++r) {
        std::vector<int64_t> expect(4, kUntouched);
        if (!(r == root && inPlace))
            for (size_t i = 0; i < words(r); ++i) expect[i] = value(r, i);
        EXPECT_EQ(recv[r], expect) << "rank " << r << " p=" << p << " root=" << root;
    }
}

}  // namespace

TEST(ScatterSim, EverySizeRootAndHierarchy) {
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p))
            for (int root = 0; root < p; ++root) checkScatter(p, nh, root, 3, false, false);
}

TEST(ScatterSim, InPlaceAtRoot) {
    for (int p : {1, 3, 8})
        for (const auto& nh : dataMovementHierarchies(p))
            for (int root = 0; root < p; ++root) checkScatter(p, nh, root, 2, false, true);
}

TEST(ScatterSim, RecvTypeDiffersFromSendType) {
    for (int p : {2, 7, 9})
        for (const auto& nh : dataMovementHierarchies(p))
            for (int root = 0; root < p; ++root) checkScatter(p, nh, root, 4, true, false);
}

TEST(ScatterSim, ZeroCount) {
    for (int p : {1, 5})
        for (const auto& nh : dataMovementHierarchies(p)) checkScatter(p, nh, 0, 0, false, false);
}

TEST(ScatterSim, OneMessageEntersEachNonRootGroup) {
    const int p = 9, block = 3;
    hier::Hierarchy h = virtualNodes(p, block);
    for (int root = 0; root < p; ++root) {
        sim::SimNetwork net(p);
        std::vector<int64_t> send(p);
        std::vector<std::vector<int64_t>> recv(p, std::vector<int64_t>(1));
        std::vector<CollCall> calls;
        for (int r = 0; r < p; ++r) {
            CollCall c = baseCall(HIERAGG_SCATTER, r, p, &h);
            c.args.root = root;
            c.args.sbuf = send.data();
            c.args.rbuf = recv[r].data();
            c.args.stype = c.args.rtype = &int64Type();
            c.args.scount = c.args.rcount = 1;
            calls.push_back(c);
        }
        ASSERT_TRUE(sim::runOne(net, calls, recipeBuilder()).ok);
        EXPECT_EQ(crossingMessages(net, p, [&](int r) { return r / block; }), 2u) << "root " << root;
        EXPECT_EQ(net.totalMessages(), uint64_t(p - 1));
    }
}

TEST(ScattervSim, UnevenCountsReversedDisplacements) {
    for (int p = 1; p <= 9; ++p)
        for (int root = 0; root < p; ++root) {
            checkScatterv(p, root, false);
            checkScatterv(p, root, true);
        }
}

#include "InterSim.hpp"

TEST(ScatterSim, IntercommunicatorScatterAndScatterv) {
    for (bool vector : {false, true})
        for (int na : {1, 3})
            for (int nb : {1, 2, 5})
                for (int root = 0; root < na; ++root) {
                    sim::SimNetwork net(na + nb);
                    std::vector<CollCall> calls(na + nb);
                    std::vector<int> counts(nb), displs(nb);
                    int at = 0;
                    for (int r = nb - 1; r >= 0; --r)
                        counts[r] = vector ? r % 3 : 2, displs[r] = vector ? at : 2 * r, at += vector ? counts[r] + 1 : 2;
                    std::vector<int64_t> send(at, kUntouched);
                    for (int d = 0; d < nb; ++d)
                        for (int i = 0; i < counts[d]; ++i) send[displs[d] + i] = value(d, i);
                    std::vector<std::vector<int64_t>> recv(na + nb, std::vector<int64_t>(3, kUntouched));
                    for (int g = 0; g < na + nb; ++g) {
                        const bool inA = g < na;
                        CollCall& c = calls[g];
                        c.args.kind = vector ? HIERAGG_SCATTERV : HIERAGG_SCATTER;
                        c.inter = true;
                        c.rank = inA ? g : g - na;
                        c.size = inA ? na : nb;
                        c.remoteSize = inA ? nb : na;
                        c.args.stype = c.args.rtype = &int64Type();
                        if (inA) {
                            c.args.root = c.rank == root ? HIERAGG_ROOT : HIERAGG_PROC_NULL;
                            c.args.sbuf = send.data();
                            c.args.scount = 2;
                            c.args.scounts = counts.data();
                            c.args.sdispls = displs.data();
                        } else {
                            c.args.root = root;
                            c.args.rbuf = recv[g].data();
                            c.args.rcount = counts[c.rank];
                        }
                    }
                    ASSERT_EQ(runInter(net, na, calls), "");
                    for (int g = 0; g < na + nb; ++g) {
                        std::vector<int64_t> expect(3, kUntouched);
                        if (g >= na)
                            for (int i = 0; i < counts[g - na]; ++i) expect[i] = value(g - na, i);
                        ASSERT_EQ(recv[g], expect) << "rank " << g << " vector " << vector;
                    }
                }
}

// Flat from root 0 (every child's subtree a run of consecutive ranks): the root sends each
// run from its send buffer, so its schedule has no temporary (before: a packed copy of all
// n blocks), and the tree still moves p - 1 messages.
TEST(ScatterSim, FlatRootSendsFromTheUserBuffer) {
    const int p = 8;
    const size_t words = 4;
    std::vector<int64_t> send(p * words, 1), recv(words, 0);
    sim::SimNetwork net(p);
    CollCall c = baseCall(HIERAGG_SCATTER, 0, p, nullptr);
    c.args.root = 0;
    c.args.sbuf = send.data();
    c.args.stype = c.args.rtype = &int64Type();
    c.args.scount = c.args.rcount = words;
    c.args.rbuf = recv.data();
    describeTypes(c, net.transport(0));
    const Schedule s = recipeBuilder()(c);
    EXPECT_TRUE(s.temps.empty()) << s.temps.size() << " temporaries at the root";
    size_t sends = 0;
    for (const auto& st : s.steps) sends += st.kind == StepKind::Send;
    const hier::Plan plan = *hier::planOf(c);
    const MemberTree t = plan.stages.at(0).shape.build(p, 0);
    EXPECT_EQ(sends, t.children[0].size()) << plan.describe();
    for (int root = 0; root < p; ++root) checkScatter(p, {"flat", nullptr}, root, 3, false, false);
}
