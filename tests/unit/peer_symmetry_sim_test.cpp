// The runtime numbers calls per pair of ranks from each schedule's peer list
// (docs/architecture.md, "Messages and tags"); that is only sound if message
// patterns are symmetric: q lists r exactly when r lists q. Checked for the
// rooted and all-to-all recipes over every test decomposition and root, with the
// model's choice and with every algorithm of the registry forced.
#include <gtest/gtest.h>

#include <algorithm>

#include "ReductionFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

bool lists(const std::vector<int>& peers, int r) { return std::binary_search(peers.begin(), peers.end(), r); }

void checkSymmetric(hieragg_coll_kind kind, int p, const hier::Hierarchy* h, int root, const std::string& what,
                    int algorithm = 0) {
    std::vector<Schedule> s;
    for (int r = 0; r < p; ++r) {
        CollCall c = reductionCall(kind, r, p, h, sumOp(), 1000, 2048, algorithm);
        c.args.root = root;
        c.stype = c.rtype = {8, 0, 8, 0, 8};
        s.push_back(recipes::buildSchedule(c));
        ASSERT_TRUE(std::is_sorted(s[r].peers.begin(), s[r].peers.end()));
        for (const Step& st : s[r].steps)
            if (st.kind == StepKind::Send || st.kind == StepKind::Recv)
                ASSERT_EQ(s[r].peers.at(st.peerSlot), st.peer) << what;
    }
    for (int r = 0; r < p; ++r)
        for (int q : s[r].peers) EXPECT_TRUE(lists(s[q].peers, r)) << what << ": " << r << " lists " << q;
}

const hieragg_coll_kind kinds[] = {HIERAGG_BCAST,    HIERAGG_REDUCE,  HIERAGG_ALLREDUCE, HIERAGG_GATHER,
                                   HIERAGG_SCATTER,  HIERAGG_ALLGATHER, HIERAGG_ALLTOALL, HIERAGG_BARRIER,
                                   HIERAGG_SCAN,     HIERAGG_EXSCAN,  HIERAGG_REDUCE_SCATTER_BLOCK};

}  // namespace

TEST(PeerSymmetrySim, EveryPeerListsMeBack) {
    for (int p = 1; p <= 7; ++p)
        for (auto& d : reductionHierarchies(p))
            for (hieragg_coll_kind k : kinds)
                for (int root = 0; root < p; ++root)
                    checkSymmetric(k, p, &d.h, root,
                                   std::string(hieragg_coll_name(k)) + " p=" + std::to_string(p) + " " + d.name +
                                       " root " + std::to_string(root));
}

// Every emitter of the registry (forced; rows whose needs fail fall back to the model's
// choice, checked above). Roots 0 and p-1 keep it lean.
TEST(PeerSymmetrySim, EveryRegistryAlgorithm) {
    for (int p = 2; p <= 7; ++p)
        for (auto& d : reductionHierarchies(p))
            for (hieragg_coll_kind k : kinds)
                for (const hier::AlgorithmInfo* a : hier::algorithmsOf(k))
                    for (int root : {0, p - 1})
                        checkSymmetric(k, p, &d.h, root,
                                       std::string(hieragg_coll_name(k)) + "/" + a->name + " p=" + std::to_string(p) +
                                           " " + d.name + " root " + std::to_string(root),
                                       hier::algorithmValue(*a));
}
