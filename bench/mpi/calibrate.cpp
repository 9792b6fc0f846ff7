// hieragg-calibrate: measures the selection's cost model parameters on this
// machine, per kind of link, and prints them as MCA parameter lines
// (openmpi-mca-params.conf format; `hieragg-plan select --params FILE` reads
// the same lines).
//
//   alpha [us]    half the round trip of an 8-byte message
//   beta  [ns/B]  (half round trip of 1 MiB - alpha) / 1 MiB: the average per byte of a
//                 long message, protocol switches included (a slope between two sizes
//                 misses the fixed cost a rendezvous or a TCP window adds at 64 KiB)
//   theta [us]    extra time per message of a burst of 8-byte messages to one receiver
//   gamma [ns/B]  MPI_Reduce_local (MPI_SUM on doubles) per byte
//
// Links: "node" between world rank 0 and the next rank on its node, "network" between
// rank 0 and the first rank on another node (MPI_Comm_split_type SHARED tells nodes
// apart). "numa" repeats the node values and "switch" the network ones (said in a
// comment); links that could not be measured are printed commented out. Run it with at least 2 ranks per node and 2 nodes.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

constexpr int kReps = 50;
constexpr int kBurst = 64;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// Half round trip [us] of `bytes` between me and peer (me initiates if `first`).
double halfRoundTrip(int peer, bool first, size_t bytes) {
    std::vector<char> buf(bytes ? bytes : 1);
    std::vector<double> t;
    for (int i = 0; i < kReps; ++i) {
        const double t0 = MPI_Wtime();
        if (first) {
            MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf.data(), static_cast<int>(bytes), MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
        t.push_back((MPI_Wtime() - t0) * 1e6 / 2);
    }
    return median(t);
}

// Time [us] for `count` 8-byte messages to reach the receiver, acknowledged by one message.
double burst(int peer, bool sender, int count) {
    std::vector<double> t;
    std::vector<double> data(count);
    std::vector<MPI_Request> req(count);
    for (int i = 0; i < kReps; ++i) {
        const double t0 = MPI_Wtime();
        if (sender) {
            for (int j = 0; j < count; ++j) MPI_Isend(&data[j], 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req[j]);
            MPI_Waitall(count, req.data(), MPI_STATUSES_IGNORE);
            MPI_Recv(nullptr, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int j = 0; j < count; ++j) MPI_Irecv(&data[j], 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req[j]);
            MPI_Waitall(count, req.data(), MPI_STATUSES_IGNORE);
            MPI_Send(nullptr, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
        }
        t.push_back((MPI_Wtime() - t0) * 1e6);
    }
    return median(t);
}

struct Link {
    bool measured = false;
    double alpha = 0, beta = 0, theta = 0;
};

// Every rank calls this (collective over the pair); rank 0 gets the values.
Link measurePair(int rank, int peer) {
    Link l;
    const bool inPair = rank == 0 || rank == peer;
    if (peer < 0 || !inPair) return l;
    const bool first = rank == 0;
    const int other = first ? peer : 0;
    l.measured = true;
    l.alpha = halfRoundTrip(other, first, 8);
    const double big = halfRoundTrip(other, first, 1024 * 1024);
    l.beta = std::max(0.0, (big - l.alpha) / (1024.0 * 1024)) * 1000.0;  // ns/B
    const double one = burst(other, first, 1), many = burst(other, first, kBurst);
    l.theta = std::max(0.0, (many - one) / (kBurst - 1));
    return l;
}

// Commented out when not measured (the component keeps its default for that link).
void print(const char* link, const Link& l, double gamma, const char* note) {
    const char* c = l.measured ? "" : "# ";
    if (note) std::printf("# %s: %s\n", link, note);
    std::printf("%scoll_hieragg_cost_%s_alpha = %.3f\n", c, link, l.alpha);
    std::printf("%scoll_hieragg_cost_%s_beta = %.4f\n", c, link, l.beta);
    std::printf("%scoll_hieragg_cost_%s_theta = %.3f\n", c, link, l.theta);
    std::printf("%scoll_hieragg_cost_%s_gamma = %.4f\n", c, link, gamma);
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    // Node id of every rank: the world rank of its node's first member.
    int nodeRank = 0, leader = rank;
    MPI_Comm_rank(node, &nodeRank);
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    std::vector<int> leaderOf(size);
    MPI_Allgather(&leader, 1, MPI_INT, leaderOf.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int sameNode = -1, otherNode = -1;
    for (int r = 1; r < size; ++r) {
        if (sameNode < 0 && leaderOf[r] == leaderOf[0]) sameNode = r;
        if (otherNode < 0 && leaderOf[r] != leaderOf[0]) otherNode = r;
    }
    Link inNode = measurePair(rank, sameNode);
    MPI_Barrier(MPI_COMM_WORLD);
    Link between = measurePair(rank, otherNode);
    MPI_Barrier(MPI_COMM_WORLD);

    // gamma: local reduction throughput.
    std::vector<double> a(1 << 17, 1.0), b(1 << 17, 2.0);
    std::vector<double> t;
    for (int i = 0; i < 20; ++i) {
        const double t0 = MPI_Wtime();
        MPI_Reduce_local(a.data(), b.data(), static_cast<int>(a.size()), MPI_DOUBLE, MPI_SUM);
        t.push_back((MPI_Wtime() - t0) * 1e9 / (a.size() * sizeof(double)));
    }
    const double gamma = median(t);
    if (rank == 0) {
        std::printf("# hieragg-calibrate: %d ranks; medians of %d repetitions (shared machines are noisy)\n",
                    size, kReps);
        print("numa", inNode, gamma, "not measured separately: the node's values");  // split=numa only
        print("node", inNode, gamma, inNode.measured ? nullptr : "not measured: no second rank on rank 0's node");
        print("network", between, gamma, between.measured ? nullptr : "not measured: one node only");
        print("switch", between, gamma, "not measured separately: the network's values");
    }
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
