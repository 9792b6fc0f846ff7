// A short program used by the bad-input configurations: a few collectives on
// MPI_COMM_WORLD, a duplicate, a split and MPI_COMM_SELF, checked exactly. The
// runner counts the component's warnings (one per job expected).
#include "harness.hpp"

using namespace mpitest;

namespace {

void basic(Check& chk, MPI_Comm c, const char* label) {
    int r = 0, n = 1;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    const std::string l = label;
    for (int root = 0; root < n; ++root) {
        std::vector<int> b(100);
        for (int i = 0; i < 100; ++i) b[i] = r == root ? val(root, i) : -1;
        if (chk.ok(MPI_Bcast(b.data(), 100, MPI_INT, root, c), (l + " MPI_Bcast").c_str()))
            for (int i = 0; i < 100; ++i) chk.eq(b[i], val(root, i), l + " bcast", i);
    }
    std::vector<int> s(100), a(100, -1);
    for (int i = 0; i < 100; ++i) s[i] = val(r, i);
    if (chk.ok(MPI_Allreduce(s.data(), a.data(), 100, MPI_INT, MPI_SUM, c), (l + " MPI_Allreduce").c_str()))
        for (int i = 0; i < 100; ++i) {
            long e = 0;
            for (int q = 0; q < n; ++q) e += val(q, i);
            chk.eq(a[i], e, l + " allreduce", i);
        }
    std::vector<int> g(3 * n, -1);
    int mine[3] = {val(r, 0), val(r, 1), val(r, 2)};
    if (chk.ok(MPI_Allgather(mine, 3, MPI_INT, g.data(), 3, MPI_INT, c), (l + " MPI_Allgather").c_str()))
        for (int q = 0; q < n; ++q)
            for (int i = 0; i < 3; ++i) chk.eq(g[3 * q + i], val(q, i), l + " allgather", 3 * q + i);
    chk.ok(MPI_Barrier(c), (l + " MPI_Barrier").c_str());
}

class Smoke : public MpiTest {};

TEST_F(Smoke, WorldDupSplitSelf) {
    basic(chk, MPI_COMM_WORLD, "world");
    MPI_Comm d = MPI_COMM_NULL, s = MPI_COMM_NULL;
    if (chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &d), "MPI_Comm_dup")) {
        basic(chk, d, "dup");
        MPI_Comm_free(&d);
    }
    if (chk.ok(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &s), "MPI_Comm_split")) {
        basic(chk, s, "split");
        MPI_Comm_free(&s);
    }
    basic(chk, MPI_COMM_SELF, "self");
}

}  // namespace
