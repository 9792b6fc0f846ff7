// Placement check for the multi-node entries (emulated cluster, tests/mpi/run_emu_test.sh):
// the job really spans HIERAGG_TEST_NODES nodes, placed as HIERAGG_TEST_MAP says
// (`node`: round-robin, --map-by node; `slot`: blocks of consecutive ranks), so the
// other tests in the same job exercise hieragg's real per-node path. Everything
// here is point-to-point or local (MPI_Comm_split_type is what Open MPI's node
// detection answers), so it does not depend on the collectives under test.
// Outside those entries the variables are unset and the test is skipped.
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "harness.hpp"

using namespace mpitest;

namespace {

class Nodes : public MpiTest {};

constexpr int kHostTag = 31003;

TEST_F(Nodes, SharedSplitMatchesPlacement) {
    const char* nodesEnv = std::getenv("HIERAGG_TEST_NODES");
    const char* mapEnv = std::getenv("HIERAGG_TEST_MAP");
    if (!nodesEnv || !mapEnv) GTEST_SKIP() << "HIERAGG_TEST_NODES/HIERAGG_TEST_MAP unset: not an emulated-node entry";
    const int nodes = std::atoi(nodesEnv);
    const bool roundRobin = std::strcmp(mapEnv, "node") == 0;
    chk.truth(nodes >= 1 && size % nodes == 0, "HIERAGG_TEST_NODES must divide the job size");
    if (chk.fails) return;
    const int perNode = size / nodes;
    // The node index this rank must be on, from the placement rule alone.
    auto nodeOf = [&](int r) { return roundRobin ? r % nodes : r / perNode; };

    MPI_Comm shared;
    chk.ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared),
           "MPI_Comm_split_type");
    int sharedSize = 0, sharedRank = -1;
    MPI_Comm_size(shared, &sharedSize);
    MPI_Comm_rank(shared, &sharedRank);
    chk.eq(sharedSize, perNode, "MPI_COMM_TYPE_SHARED size");
    // Ranks of one node keep world order inside the shared communicator (key 0).
    chk.eq(sharedRank, roundRobin ? rank / nodes : rank % perNode, "rank in MPI_COMM_TYPE_SHARED");
    MPI_Comm_free(&shared);

    // Hostnames: rank 0 collects them point-to-point; same host iff same node.
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    if (rank != 0) {
        MPI_Send(host, sizeof host, MPI_CHAR, 0, kHostTag, MPI_COMM_WORLD);
        return;
    }
    std::vector<std::string> hosts(size);
    hosts[0] = host;
    for (int r = 1; r < size; ++r) {
        char h[256];
        MPI_Recv(h, sizeof h, MPI_CHAR, r, kHostTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        h[sizeof h - 1] = '\0';
        hosts[r] = h;
    }
    for (int a = 0; a < size; ++a)
        for (int b = a + 1; b < size; ++b)
            chk.truth((hosts[a] == hosts[b]) == (nodeOf(a) == nodeOf(b)),
                      "ranks " + std::to_string(a) + " (" + hosts[a] + ") and " + std::to_string(b) + " (" +
                          hosts[b] + ") are " + (hosts[a] == hosts[b] ? "on one host" : "on different hosts") +
                          ", the placement says otherwise");
}

}  // namespace
