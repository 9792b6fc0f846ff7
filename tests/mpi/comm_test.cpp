// Communicator management (dup/split/free in a loop, MPI_COMM_SELF), an
// intercommunicator, and neighborhood collectives on a periodic 2-D Cartesian
// topology and on a distributed graph.
#include "harness.hpp"

#include <algorithm>

using namespace mpitest;

namespace {

class Comms : public MpiTest {};

// Allreduce + bcast + allgather on `c`, whose rank i has world rank world[i].
void collsOn(Check& chk, MPI_Comm c, const std::vector<int>& world, const std::string& l, int salt) {
    int r = 0, n = 0;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    const int k = 16;
    std::vector<int> s(k), a(k, -1), b(k, -1), g(k * n, -1);
    for (int i = 0; i < k; ++i) s[i] = val(world[r], i + salt);
    if (chk.ok(MPI_Allreduce(s.data(), a.data(), k, MPI_INT, MPI_SUM, c), (l + " MPI_Allreduce").c_str()))
        for (int i = 0; i < k; ++i) {
            long e = 0;
            for (int q = 0; q < n; ++q) e += val(world[q], i + salt);
            chk.eq(a[i], e, l + " allreduce", i);
        }
    const int root = salt % n;
    if (r == root) b = s;
    if (chk.ok(MPI_Bcast(b.data(), k, MPI_INT, root, c), (l + " MPI_Bcast").c_str()))
        for (int i = 0; i < k; ++i) chk.eq(b[i], val(world[root], i + salt), l + " bcast", i);
    if (chk.ok(MPI_Allgather(s.data(), k, MPI_INT, g.data(), k, MPI_INT, c), (l + " MPI_Allgather").c_str()))
        for (int q = 0; q < n; ++q)
            for (int i = 0; i < k; ++i) chk.eq(g[q * k + i], val(world[q], i + salt), l + " allgather", q * k + i);
}

TEST_F(Comms, DupSplitFreeLoop) {
    std::vector<int> all(size);
    for (int q = 0; q < size; ++q) all[q] = q;
    for (int it = 0; it < 50 && chk.fails == 0; ++it) {
        MPI_Comm d = MPI_COMM_NULL, s = MPI_COMM_NULL;
        if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &d), "MPI_Comm_dup")) break;
        collsOn(chk, d, all, "dup#" + std::to_string(it), it);
        // odd/even split with reversed keys: new rank order is decreasing world rank
        if (chk.ok(MPI_Comm_split(d, rank % 2, size - rank, &s), "MPI_Comm_split")) {
            std::vector<int> members;
            for (int q = size - 1; q >= 0; --q)
                if (q % 2 == rank % 2) members.push_back(q);
            collsOn(chk, s, members, "split#" + std::to_string(it), it);
            MPI_Comm_free(&s);
        }
        MPI_Comm_free(&d);
    }
    // The loop stops on the first failure on this rank; make every rank run the
    // same number of iterations is not needed: a failed dup/split is collective.
}

TEST_F(Comms, Self) {
    collsOn(chk, MPI_COMM_SELF, {rank}, "self", 3);
    int s[4] = {val(rank, 0), val(rank, 1), val(rank, 2), val(rank, 3)}, r[4] = {-1, -1, -1, -1};
    if (chk.ok(MPI_Alltoall(s, 4, MPI_INT, r, 4, MPI_INT, MPI_COMM_SELF), "self MPI_Alltoall"))
        for (int i = 0; i < 4; ++i) chk.eq(r[i], s[i], "self alltoall", i);
    std::fill(r, r + 4, -1);
    if (chk.ok(MPI_Scan(s, r, 4, MPI_INT, MPI_SUM, MPI_COMM_SELF), "self MPI_Scan"))
        for (int i = 0; i < 4; ++i) chk.eq(r[i], s[i], "self scan", i);
    std::fill(r, r + 4, -1);
    if (chk.ok(MPI_Gather(s, 4, MPI_INT, r, 4, MPI_INT, 0, MPI_COMM_SELF), "self MPI_Gather"))
        for (int i = 0; i < 4; ++i) chk.eq(r[i], s[i], "self gather", i);
    std::fill(r, r + 4, -1);
    if (chk.ok(MPI_Reduce_scatter_block(s, r, 4, MPI_INT, MPI_MAX, MPI_COMM_SELF), "self MPI_Reduce_scatter_block"))
        for (int i = 0; i < 4; ++i) chk.eq(r[i], s[i], "self reduce_scatter_block", i);
    chk.ok(MPI_Barrier(MPI_COMM_SELF), "self MPI_Barrier");
    MPI_Request q;
    if (chk.ok(MPI_Ibarrier(MPI_COMM_SELF, &q), "self MPI_Ibarrier")) chk.ok(MPI_Wait(&q, MPI_STATUS_IGNORE), "self wait");
}

// Intercommunicator between even (group A) and odd (group B) world ranks.
TEST_F(Comms, Intercomm) {
    if (size < 2) GTEST_SKIP() << "needs 2 ranks";
    MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    const int color = rank % 2;
    if (!chk.ok(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local), "MPI_Comm_split")) return;
    if (!chk.ok(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 31300, &inter), "MPI_Intercomm_create")) {
        MPI_Comm_free(&local);
        return;
    }
    int lr = 0, ls = 0, rs = 0;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_size(inter, &ls);
    MPI_Comm_remote_size(inter, &rs);
    auto rworld = [&](int j) { return 2 * j + (1 - color); };  // world rank of remote rank j
    const int k = 6;
    std::vector<int> s(k * std::max(ls, rs)), r(k * std::max(ls, rs) + 1);
    for (size_t i = 0; i < s.size(); ++i) s[i] = val(rank, long(i));
    // bcast, both directions; root = local rank 0 of the sending group
    for (int sender = 0; sender < 2; ++sender) {
        std::vector<int> b(k, -1);
        int root = color == sender ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        if (root == MPI_ROOT) b.assign(s.begin(), s.begin() + k);
        if (chk.ok(MPI_Bcast(b.data(), k, MPI_INT, root, inter), "inter MPI_Bcast") && color != sender)
            for (int i = 0; i < k; ++i) chk.eq(b[i], val(sender, i), "inter bcast", i);
    }
    std::fill(r.begin(), r.end(), -1);
    if (chk.ok(MPI_Allreduce(s.data(), r.data(), k, MPI_INT, MPI_SUM, inter), "inter MPI_Allreduce"))
        for (int i = 0; i < k; ++i) {
            long e = 0;
            for (int j = 0; j < rs; ++j) e += val(rworld(j), i);
            chk.eq(r[i], e, "inter allreduce", i);
        }
    std::vector<int> g(k * rs, -1);
    if (chk.ok(MPI_Allgather(s.data(), k, MPI_INT, g.data(), k, MPI_INT, inter), "inter MPI_Allgather"))
        for (int j = 0; j < rs; ++j)
            for (int i = 0; i < k; ++i) chk.eq(g[j * k + i], val(rworld(j), i), "inter allgather", j * k + i);
    // alltoall: to remote j I send block j = val(me, j*k + i)
    std::vector<int> as(k * rs), ar(k * rs, -1);
    for (int i = 0; i < k * rs; ++i) as[i] = val(rank, i);
    if (chk.ok(MPI_Alltoall(as.data(), k, MPI_INT, ar.data(), k, MPI_INT, inter), "inter MPI_Alltoall"))
        for (int j = 0; j < rs; ++j)
            for (int i = 0; i < k; ++i) chk.eq(ar[j * k + i], val(rworld(j), lr * k + i), "inter alltoall", j * k + i);
    // gather / scatter / reduce to group A's rank 0
    {
        const int root = color == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        std::vector<int> gg(k * rs, -1);
        if (chk.ok(MPI_Gather(s.data(), k, MPI_INT, gg.data(), k, MPI_INT, root, inter), "inter MPI_Gather") &&
            root == MPI_ROOT)
            for (int j = 0; j < rs; ++j)
                for (int i = 0; i < k; ++i) chk.eq(gg[j * k + i], val(rworld(j), i), "inter gather", j * k + i);
        std::vector<int> sc(k * rs), sr(k, -1);
        for (int i = 0; i < k * rs; ++i) sc[i] = val(rank, i);
        if (chk.ok(MPI_Scatter(sc.data(), k, MPI_INT, sr.data(), k, MPI_INT, root, inter), "inter MPI_Scatter") &&
            color == 1)
            for (int i = 0; i < k; ++i) chk.eq(sr[i], val(0, lr * k + i), "inter scatter", i);
        std::vector<int> rr(k, -1);
        if (chk.ok(MPI_Reduce(s.data(), rr.data(), k, MPI_INT, MPI_SUM, root, inter), "inter MPI_Reduce") &&
            root == MPI_ROOT)
            for (int i = 0; i < k; ++i) {
                long e = 0;
                for (int j = 0; j < rs; ++j) e += val(rworld(j), i);
                chk.eq(rr[i], e, "inter reduce", i);
            }
    }
    chk.ok(MPI_Barrier(inter), "inter MPI_Barrier");
    // reduce_scatter_block: only with groups of equal size (sizes differ for odd np)
    if (ls == rs) {
        std::vector<int> rb(k, -1), sb(k * ls);
        for (int i = 0; i < k * ls; ++i) sb[i] = val(rank, i);
        if (chk.ok(MPI_Reduce_scatter_block(sb.data(), rb.data(), k, MPI_INT, MPI_SUM, inter), "inter MPI_Reduce_scatter_block"))
            for (int i = 0; i < k; ++i) {
                long e = 0;
                for (int j = 0; j < rs; ++j) e += val(rworld(j), lr * k + i);
                chk.eq(rb[i], e, "inter reduce_scatter_block", i);
            }
    }
    MPI_Request q;
    if (chk.ok(MPI_Ibarrier(inter, &q), "inter MPI_Ibarrier")) chk.ok(MPI_Wait(&q, MPI_STATUS_IGNORE), "inter wait");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

// ---- neighborhood collectives ----
// Runs the five neighborhood collectives on `c` in mode m. in[j]/out[j] are the
// neighbors in the standard's order; recvFrom(j) gives the index of the block
// that in-neighbor j sent to this rank; key(b) is the content (and count) id of
// out-block b (blocks with equal keys carry the same data).
void neighborColls(Check& chk, Mode m, MPI_Comm c, const std::vector<int>& in, const std::vector<int>& out,
                   const std::function<int(int)>& blockOf, const std::function<int(int)>& key,
                   const std::string& l) {
    const int rank = worldRank(), ni = int(in.size()), no = int(out.size()), k = 3;
    const Types& t = types();
    // allgather
    {
        std::vector<int> s(k), r(k * ni + 1);
        run(chk, m,
            {"Neighbor_allgather", [&] { return MPI_Neighbor_allgather(s.data(), k, MPI_INT, r.data(), k, MPI_INT, c); },
             [&](MPI_Request* q) { return MPI_Ineighbor_allgather(s.data(), k, MPI_INT, r.data(), k, MPI_INT, c, q); },
             [&](MPI_Request* q) { return MPIX_Neighbor_allgather_init(s.data(), k, MPI_INT, r.data(), k, MPI_INT, c, MPI_INFO_NULL, q); }},
            [&] { for (int i = 0; i < k; ++i) s[i] = val(rank, i); std::fill(r.begin(), r.end(), -1); },
            [&] {
                for (int j = 0; j < ni; ++j)
                    for (int i = 0; i < k; ++i) chk.eq(r[j * k + i], val(in[j], i), l + " neighbor_allgather", j * k + i);
                chk.eq(r[k * ni], -1, l + " neighbor_allgather wrote past end", k * ni);
            });
    }
    // allgatherv: neighbor j contributes in[j] % 3 ints, blocks reversed
    {
        const int mine = rank % 3;
        std::vector<int> rc(ni), rd(ni);
        int off = 0;
        for (int j = ni - 1; j >= 0; --j) rc[j] = in[j] % 3, rd[j] = off, off += rc[j] + 1;
        std::vector<int> s(mine + 1), r(off + 1);
        run(chk, m,
            {"Neighbor_allgatherv", [&] { return MPI_Neighbor_allgatherv(s.data(), mine, MPI_INT, r.data(), rc.data(), rd.data(), MPI_INT, c); },
             [&](MPI_Request* q) { return MPI_Ineighbor_allgatherv(s.data(), mine, MPI_INT, r.data(), rc.data(), rd.data(), MPI_INT, c, q); },
             [&](MPI_Request* q) { return MPIX_Neighbor_allgatherv_init(s.data(), mine, MPI_INT, r.data(), rc.data(), rd.data(), MPI_INT, c, MPI_INFO_NULL, q); }},
            [&] { for (int i = 0; i < mine; ++i) s[i] = val(rank, i); std::fill(r.begin(), r.end(), -7); },
            [&] {
                std::vector<int> e(off + 1, -7);
                for (int j = 0; j < ni; ++j)
                    for (int i = 0; i < rc[j]; ++i) e[rd[j] + i] = val(in[j], i);
                for (int x = 0; x <= off; ++x) chk.eq(r[x], e[x], l + " neighbor_allgatherv", x);
            });
    }
    // alltoall: block j to out[j] holds val(me, j*k + i); received as contig3
    {
        std::vector<int> s(k * no), r(k * ni + 1);
        run(chk, m,
            {"Neighbor_alltoall", [&] { return MPI_Neighbor_alltoall(s.data(), k, MPI_INT, r.data(), 1, t.contig3, c); },
             [&](MPI_Request* q) { return MPI_Ineighbor_alltoall(s.data(), k, MPI_INT, r.data(), 1, t.contig3, c, q); },
             [&](MPI_Request* q) { return MPIX_Neighbor_alltoall_init(s.data(), k, MPI_INT, r.data(), 1, t.contig3, c, MPI_INFO_NULL, q); }},
            [&] {
                for (int j = 0; j < no; ++j)
                    for (int i = 0; i < k; ++i) s[j * k + i] = val(rank, key(j) * k + i);
                std::fill(r.begin(), r.end(), -1);
            },
            [&] {
                for (int j = 0; j < ni; ++j)
                    for (int i = 0; i < k; ++i) chk.eq(r[j * k + i], val(in[j], key(blockOf(j)) * k + i), l + " neighbor_alltoall", j * k + i);
                chk.eq(r[k * ni], -1, l + " neighbor_alltoall wrote past end", k * ni);
            });
    }
    // alltoallv: block j carries (j % 2) + 1 ints; w: the same with contig2 on receive... counts as ints
    {
        auto cntOut = [&](int j) { return (key(j) % 2) + 1; };
        std::vector<int> sc(no), sd(no), rc(ni), rd(ni);
        int so = 0, ro = 0;
        for (int j = no - 1; j >= 0; --j) sc[j] = cntOut(j), sd[j] = so, so += sc[j] + 1;
        for (int j = ni - 1; j >= 0; --j) rc[j] = cntOut(blockOf(j)), rd[j] = ro, ro += rc[j] + 1;
        std::vector<int> s(so + 1), r(ro + 1);
        auto prep = [&] {
            std::fill(s.begin(), s.end(), -7);
            std::fill(r.begin(), r.end(), -7);
            for (int j = 0; j < no; ++j)
                for (int i = 0; i < sc[j]; ++i) s[sd[j] + i] = val(rank, key(j) * 10 + i);
        };
        auto verify = [&](const char* what) {
            std::vector<int> e(ro + 1, -7);
            for (int j = 0; j < ni; ++j)
                for (int i = 0; i < rc[j]; ++i) e[rd[j] + i] = val(in[j], key(blockOf(j)) * 10 + i);
            for (int x = 0; x <= ro; ++x) chk.eq(r[x], e[x], l + what, x);
        };
        run(chk, m,
            {"Neighbor_alltoallv",
             [&] { return MPI_Neighbor_alltoallv(s.data(), sc.data(), sd.data(), MPI_INT, r.data(), rc.data(), rd.data(), MPI_INT, c); },
             [&](MPI_Request* q) { return MPI_Ineighbor_alltoallv(s.data(), sc.data(), sd.data(), MPI_INT, r.data(), rc.data(), rd.data(), MPI_INT, c, q); },
             [&](MPI_Request* q) { return MPIX_Neighbor_alltoallv_init(s.data(), sc.data(), sd.data(), MPI_INT, r.data(), rc.data(), rd.data(), MPI_INT, c, MPI_INFO_NULL, q); }},
            prep, [&] { verify(" neighbor_alltoallv"); });
        // alltoallw: same layout, byte displacements, gapless MPI_INT send and
        // recv types per neighbor alternating MPI_INT / 1-int struct (gapint).
        std::vector<MPI_Aint> sdb(no), rdb(ni);
        std::vector<MPI_Datatype> st(no, MPI_INT), rt(ni, MPI_INT);
        for (int j = 0; j < no; ++j) sdb[j] = MPI_Aint(sd[j]) * 4;
        for (int j = 0; j < ni; ++j) rdb[j] = MPI_Aint(rd[j]) * 4;
        run(chk, m,
            {"Neighbor_alltoallw",
             [&] { return MPI_Neighbor_alltoallw(s.data(), sc.data(), sdb.data(), st.data(), r.data(), rc.data(), rdb.data(), rt.data(), c); },
             [&](MPI_Request* q) { return MPI_Ineighbor_alltoallw(s.data(), sc.data(), sdb.data(), st.data(), r.data(), rc.data(), rdb.data(), rt.data(), c, q); },
             [&](MPI_Request* q) { return MPIX_Neighbor_alltoallw_init(s.data(), sc.data(), sdb.data(), st.data(), r.data(), rc.data(), rdb.data(), rt.data(), c, MPI_INFO_NULL, q); }},
            prep, [&] { verify(" neighbor_alltoallw"); });
    }
}

class Neighbor : public MpiModeTest {};

// 2-D periodic Cartesian grid (MPI_Dims_create: 8 -> 4x2, 4 -> 2x2, 6 -> 3x2).
TEST_P(Neighbor, Cart2D) {
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm c = MPI_COMM_NULL;
    if (!chk.ok(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), "MPI_Cart_create")) return;
    std::vector<int> nb;
    for (int d = 0; d < 2; ++d) {
        int src, dst;
        MPI_Cart_shift(c, d, 1, &src, &dst);
        nb.push_back(src);
        nb.push_back(dst);
    }
    // In-neighbor 2d (the - side) sends me its block 2d+1 (its + side) and vice
    // versa. When both neighbors of a dimension are one process (dimension of
    // size 1 or 2) the pairing of the two blocks is ambiguous (Open MPI's own
    // blocking and nonblocking implementations disagree), so in such a
    // dimension both blocks carry the same data and count (key).
    auto blockOf = [](int j) { return j ^ 1; };
    auto key = [&](int j) { return dims[j / 2] <= 2 ? (j & ~1) : j; };
    neighborColls(chk, GetParam(), c, nb, nb, blockOf, key, "cart " + std::to_string(dims[0]) + "x" + std::to_string(dims[1]));
    MPI_Comm_free(&c);
}

// Distributed graph: r -> r+1 and r -> r+3 (one edge when they coincide).
TEST_P(Neighbor, DistGraph) {
    std::vector<int> out, in;
    for (int off : {1, 3}) {
        int d = (rank + off) % size, s = ((rank - off) % size + size) % size;
        if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
        if (std::find(in.begin(), in.end(), s) == in.end()) in.push_back(s);
    }
    MPI_Comm c = MPI_COMM_NULL;
    if (!chk.ok(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, int(in.size()), in.data(), MPI_UNWEIGHTED,
                                               int(out.size()), out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
                "MPI_Dist_graph_create_adjacent"))
        return;
    // in[j] reached me through its out-edge number j (same offsets, same dedup).
    neighborColls(chk, GetParam(), c, in, out, [](int j) { return j; }, [](int j) { return j; }, "dist-graph");
    MPI_Comm_free(&c);
}

INSTANTIATE_TEST_SUITE_P(M, Neighbor, ::testing::Values(Mode::Blocking, Mode::Nonblocking, Mode::Persistent),
                         modeParamName);

}  // namespace
