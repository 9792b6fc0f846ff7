// MPI semantics the component must keep beyond correct results: starts of
// nonblocking and persistent collectives are local (they never wait for another
// rank, even on a fresh communicator), persistent collectives match in the
// order of their init calls, and intercommunicator collectives accept what the
// standard calls insignificant arguments (count 0, NULL buffers at
// MPI_PROC_NULL ranks) and groups of different sizes.
#include "harness.hpp"

using namespace mpitest;

namespace {

class Semantics : public MpiTest {};

constexpr int kOrderTag = 31100;

// Rank 0 starts the collectives on a fresh communicator and only then sends to rank 1,
// which receives first and only then starts them: a start that waits for rank 1 (e.g.
// for the identity exchange of the communicator) hangs here.
TEST_F(Semantics, NonblockingStartIsLocalOnFreshComm) {
    if (size < 2) GTEST_SKIP() << "needs 2 ranks";
    MPI_Comm c;
    if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup")) return;
    const int n = 5;
    std::vector<int> b(n, -1), s(n), r(n, -1);
    for (int i = 0; i < n; ++i) s[i] = val(rank, i);
    if (rank == 0) b.assign(s.begin(), s.end());
    MPI_Request q[3];
    auto start = [&] {
        chk.ok(MPI_Ibcast(b.data(), n, MPI_INT, 0, c, &q[0]), "MPI_Ibcast");
        // Several calls queued behind the first one's exchange keep their order.
        chk.ok(MPI_Iallreduce(s.data(), r.data(), n, MPI_INT, MPI_SUM, c, &q[1]), "MPI_Iallreduce");
        chk.ok(MPI_Ibarrier(c, &q[2]), "MPI_Ibarrier");
    };
    int token = 0;
    if (rank == 0) {
        start();
        token = 42;
        chk.ok(MPI_Send(&token, 1, MPI_INT, 1, kOrderTag, MPI_COMM_WORLD), "MPI_Send");
    } else if (rank == 1) {
        chk.ok(MPI_Recv(&token, 1, MPI_INT, 0, kOrderTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        chk.eq(token, 42, "token");
        start();
    } else {
        start();
    }
    chk.ok(MPI_Waitall(3, q, MPI_STATUSES_IGNORE), "MPI_Waitall");
    for (int i = 0; i < n; ++i) {
        chk.eq(b[i], val(0, i), "ibcast", i);
        long e = 0;
        for (int p = 0; p < size; ++p) e += val(p, i);
        chk.eq(r[i], e, "iallreduce", i);
    }
    MPI_Comm_free(&c);
}

// The same with a persistent request initialised before the communicator has a
// decomposition: MPI_Start is local too.
TEST_F(Semantics, PersistentStartIsLocalOnFreshComm) {
    if (size < 2) GTEST_SKIP() << "needs 2 ranks";
    MPI_Comm c;
    if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup")) return;
    const int n = 7;
    std::vector<int> b(n, -1);
    MPI_Request q = MPI_REQUEST_NULL;
    if (!chk.ok(MPIX_Bcast_init(b.data(), n, MPI_INT, 0, c, MPI_INFO_NULL, &q), "MPIX_Bcast_init")) {
        MPI_Comm_free(&c);
        return;
    }
    for (int round = 0; round < 2; ++round) {
        std::fill(b.begin(), b.end(), -1);
        if (rank == 0)
            for (int i = 0; i < n; ++i) b[i] = val(round, i);
        int token = round;
        if (rank == 0) {
            chk.ok(MPI_Start(&q), "MPI_Start");
            chk.ok(MPI_Send(&token, 1, MPI_INT, 1, kOrderTag, MPI_COMM_WORLD), "MPI_Send");
        } else if (rank == 1) {
            chk.ok(MPI_Recv(&token, 1, MPI_INT, 0, kOrderTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
            chk.ok(MPI_Start(&q), "MPI_Start");
        } else {
            chk.ok(MPI_Start(&q), "MPI_Start");
        }
        chk.ok(MPI_Wait(&q, MPI_STATUS_IGNORE), "MPI_Wait");
        for (int i = 0; i < n; ++i) chk.eq(b[i], val(round, i), "persistent bcast", i);
    }
    MPI_Request_free(&q);
    MPI_Comm_free(&c);
}

// MPI-4: persistent collectives match in the order of their init calls, whatever the
// order of the starts. Even ranks start the bcast first, odd ranks the barrier, three times.
TEST_F(Semantics, PersistentMatchedInInitOrder) {
    if (size < 2) GTEST_SKIP() << "needs 2 ranks";
    const int n = 33;
    std::vector<int> b(n, -1);
    MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    bool ok = chk.ok(MPIX_Bcast_init(b.data(), n, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]),
                     "MPIX_Bcast_init");
    ok = chk.ok(MPIX_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]), "MPIX_Barrier_init") && ok;
    for (int round = 0; ok && round < 3; ++round) {
        std::fill(b.begin(), b.end(), -1);
        if (rank == 0)
            for (int i = 0; i < n; ++i) b[i] = val(round + 7, i);
        const int first = rank % 2 == 0 ? 0 : 1;
        chk.ok(MPI_Start(&q[first]), "MPI_Start (first)");
        chk.ok(MPI_Start(&q[1 - first]), "MPI_Start (second)");
        chk.ok(MPI_Waitall(2, q, MPI_STATUSES_IGNORE), "MPI_Waitall");
        for (int i = 0; i < n; ++i) chk.eq(b[i], val(round + 7, i), "bcast in init order", i);
    }
    for (MPI_Request& r : q)
        if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
}

// Intercommunicator between world ranks below `split` (group A) and the others (group B).
struct Inter {
    MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    bool inA = false;
    int lr = 0, ls = 0, rs = 0, split = 0;
    int worldOfRemote(int j) const { return inA ? split + j : j; }
    bool make(Check& chk, int rank, int splitAt) {
        split = splitAt;
        inA = rank < split;
        if (!chk.ok(MPI_Comm_split(MPI_COMM_WORLD, inA ? 0 : 1, rank, &local), "MPI_Comm_split")) return false;
        if (!chk.ok(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, inA ? split : 0, 31301, &inter),
                    "MPI_Intercomm_create"))
            return false;
        MPI_Comm_rank(inter, &lr);
        MPI_Comm_size(inter, &ls);
        MPI_Comm_remote_size(inter, &rs);
        return true;
    }
    ~Inter() {
        if (inter != MPI_COMM_NULL) MPI_Comm_free(&inter);
        if (local != MPI_COMM_NULL) MPI_Comm_free(&local);
    }
};

// reduce_scatter_block on groups of 1 and size-1 ranks: recvcount differs between the
// groups (each group's vector has ls * recvcount elements, the same count in both).
TEST_F(Semantics, IntercommReduceScatterBlockUnequalGroups) {
    if (size < 3) GTEST_SKIP() << "needs 3 ranks";
    Inter ic;
    if (!ic.make(chk, rank, 1)) return;
    const int m = size - 1;                 // group B's size
    const int rc = ic.inA ? 2 * m : 2;      // 1 * 2m == m * 2
    const int total = ic.ls * rc;
    std::vector<int> sb(total), rb(rc + 1, -1);
    for (int i = 0; i < total; ++i) sb[i] = val(rank, i);
    if (chk.ok(MPI_Reduce_scatter_block(sb.data(), rb.data(), rc, MPI_INT, MPI_SUM, ic.inter),
               "inter MPI_Reduce_scatter_block")) {
        for (int i = 0; i < rc; ++i) {
            long e = 0;
            for (int j = 0; j < ic.rs; ++j) e += val(ic.worldOfRemote(j), ic.lr * rc + i);
            chk.eq(rb[i], e, "inter reduce_scatter_block", i);
        }
        chk.eq(rb[rc], -1, "inter reduce_scatter_block: past the block");
    }
    chk.ok(MPI_Barrier(ic.inter), "inter MPI_Barrier");
}

// Rooted intercommunicator collectives where the root group's other ranks pass what is
// not significant for them: MPI_PROC_NULL, count 0 and NULL buffers (Open MPI's MPI layer
// then does not even call the component on those ranks), and the root passes NULL for
// its insignificant send (gather, reduce) or receive (scatter) arguments. Each round
// changes the root; a collective of every rank after each call checks nobody got out of step.
TEST_F(Semantics, IntercommInsignificantArguments) {
    if (size < 3) GTEST_SKIP() << "needs 3 ranks";
    Inter ic;
    if (!ic.make(chk, rank, 2)) return;  // A = {0, 1}, B = the rest
    const int k = 4;
    for (int round = 0; round < 4; ++round) {
        const bool fromA = round % 2 == 0;          // the root's group
        const bool rootGroup = ic.inA == fromA;
        const int rootLocal = (round / 2) % (fromA ? 2 : size - 2);
        const int rootWorld = fromA ? rootLocal : 2 + rootLocal;
        const int root = rootGroup ? (ic.lr == rootLocal ? MPI_ROOT : MPI_PROC_NULL) : rootLocal;
        const std::string l = "round " + std::to_string(round) + ": ";
        // bcast
        std::vector<int> b(k, -1);
        if (root == MPI_ROOT)
            for (int i = 0; i < k; ++i) b[i] = val(rank, i + round);
        int rc = root == MPI_PROC_NULL ? MPI_Bcast(nullptr, 0, MPI_BYTE, root, ic.inter)
                                       : MPI_Bcast(b.data(), k, MPI_INT, root, ic.inter);
        if (chk.ok(rc, (l + "inter MPI_Bcast").c_str()) && !rootGroup)
            for (int i = 0; i < k; ++i) chk.eq(b[i], val(rootWorld, i + round), l + "inter bcast", i);
        // reduce
        std::vector<int> s(k), r(k, -1);
        for (int i = 0; i < k; ++i) s[i] = val(rank, i + round);
        rc = root == MPI_PROC_NULL ? MPI_Reduce(nullptr, nullptr, 0, MPI_INT, MPI_SUM, root, ic.inter)
             : root == MPI_ROOT    ? MPI_Reduce(nullptr, r.data(), k, MPI_INT, MPI_SUM, root, ic.inter)
                                   : MPI_Reduce(s.data(), nullptr, k, MPI_INT, MPI_SUM, root, ic.inter);
        if (chk.ok(rc, (l + "inter MPI_Reduce").c_str()) && root == MPI_ROOT)
            for (int i = 0; i < k; ++i) {
                long e = 0;
                for (int j = 0; j < ic.rs; ++j) e += val(ic.worldOfRemote(j), i + round);
                chk.eq(r[i], e, l + "inter reduce", i);
            }
        // gather
        std::vector<int> g(k * ic.rs + 1, -1);
        rc = root == MPI_PROC_NULL ? MPI_Gather(nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, root, ic.inter)
             : root == MPI_ROOT ? MPI_Gather(nullptr, 0, MPI_DATATYPE_NULL, g.data(), k, MPI_INT, root, ic.inter)
                                : MPI_Gather(s.data(), k, MPI_INT, nullptr, 0, MPI_DATATYPE_NULL, root, ic.inter);
        if (chk.ok(rc, (l + "inter MPI_Gather").c_str()) && root == MPI_ROOT)
            for (int j = 0; j < ic.rs; ++j)
                for (int i = 0; i < k; ++i)
                    chk.eq(g[j * k + i], val(ic.worldOfRemote(j), i + round), l + "inter gather", j * k + i);
        // scatter
        std::vector<int> sc(k * ic.rs), sr(k, -1);
        for (int i = 0; i < k * ic.rs; ++i) sc[i] = val(rank, i + round);
        rc = root == MPI_PROC_NULL ? MPI_Scatter(nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, root, ic.inter)
             : root == MPI_ROOT ? MPI_Scatter(sc.data(), k, MPI_INT, nullptr, 0, MPI_DATATYPE_NULL, root, ic.inter)
                                : MPI_Scatter(nullptr, 0, MPI_DATATYPE_NULL, sr.data(), k, MPI_INT, root, ic.inter);
        if (chk.ok(rc, (l + "inter MPI_Scatter").c_str()) && !rootGroup)
            for (int i = 0; i < k; ++i) chk.eq(sr[i], val(rootWorld, ic.lr * k + i + round), l + "inter scatter", i);
        // every rank: an allreduce that fails if any rank's calls got out of step
        int one = 1, all = 0;
        if (chk.ok(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, ic.inter), (l + "inter MPI_Allreduce").c_str()))
            chk.eq(all, ic.rs, l + "inter allreduce");
    }
}

// Persistent intercommunicator requests: Open MPI does not even call the component for
// MPIX_Reduce_init with count 0 (here at the root group's MPI_PROC_NULL rank), so the
// ranks must not count inits per communicator. A later bcast_init from group B into A
// makes A's ranks talk to each other; both requests are started twice, in opposite orders.
TEST_F(Semantics, IntercommPersistentAfterSkippedInit) {
    if (size < 3) GTEST_SKIP() << "needs 3 ranks";
    Inter ic;
    if (!ic.make(chk, rank, 2)) return;  // A = {0, 1}, B = the rest
    const int k = 5;
    std::vector<int> s(k), r(k, -1), b(k, -1);
    MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    // reduce of B's vectors to A's rank 0
    const int rroot = ic.inA ? (ic.lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int rc = rroot == MPI_PROC_NULL
                 ? MPIX_Reduce_init(nullptr, nullptr, 0, MPI_INT, MPI_SUM, rroot, ic.inter, MPI_INFO_NULL, &q[0])
                 : MPIX_Reduce_init(s.data(), r.data(), k, MPI_INT, MPI_SUM, rroot, ic.inter, MPI_INFO_NULL, &q[0]);
    bool ok = chk.ok(rc, "MPIX_Reduce_init");
    // bcast from B's rank 0 to A
    const int broot = ic.inA ? 0 : (ic.lr == 0 ? MPI_ROOT : MPI_PROC_NULL);
    ok = chk.ok(MPIX_Bcast_init(b.data(), k, MPI_INT, broot, ic.inter, MPI_INFO_NULL, &q[1]), "MPIX_Bcast_init") && ok;
    for (int round = 0; ok && round < 2; ++round) {
        for (int i = 0; i < k; ++i) s[i] = val(rank, i + round);
        std::fill(r.begin(), r.end(), -1);
        std::fill(b.begin(), b.end(), -1);
        if (broot == MPI_ROOT)
            for (int i = 0; i < k; ++i) b[i] = val(rank, i + 10 * round);
        const int first = (rank + round) % 2;
        chk.ok(MPI_Start(&q[first]), "MPI_Start (first)");
        chk.ok(MPI_Start(&q[1 - first]), "MPI_Start (second)");
        chk.ok(MPI_Waitall(2, q, MPI_STATUSES_IGNORE), "MPI_Waitall");
        if (rroot == MPI_ROOT)
            for (int i = 0; i < k; ++i) {
                long e = 0;
                for (int j = 0; j < ic.rs; ++j) e += val(ic.worldOfRemote(j), i + round);
                chk.eq(r[i], e, "persistent inter reduce", i);
            }
        if (ic.inA)
            for (int i = 0; i < k; ++i) chk.eq(b[i], val(2, i + 10 * round), "persistent inter bcast", i);
    }
    for (MPI_Request& x : q)
        if (x != MPI_REQUEST_NULL) MPI_Request_free(&x);
}

}  // namespace
