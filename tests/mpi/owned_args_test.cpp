// Nonblocking and persistent v/w collectives own their argument arrays: the
// application may free or rewrite its counts, displacements, datatype arrays (and a
// derived datatype) as soon as MPI_I<coll> (or the persistent init) returned, as
// mpi4py does. Every call here takes its arrays from the heap, overwrites them with
// garbage and frees them right after the start (persistent: after the init), then
// waits and checks the result against closed forms. Each test runs on a fresh
// communicator, so its first call is queued while the decomposition is built; the
// second runs on the decomposition (flat, hierarchical or two-stage, as the split
// and the forced algorithms of the CTest entry make it).
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>

#include "harness.hpp"

using namespace mpitest;

namespace {

// The argument arrays of one call, allocated the way an application does.
class AppArrays {
public:
    AppArrays() = default;
    AppArrays(const AppArrays&) = delete;
    AppArrays& operator=(const AppArrays&) = delete;
    ~AppArrays() { scrambleAndFree(); }

    template <class T>
    T* copy(const std::vector<T>& v) {
        const size_t bytes = (v.empty() ? 1 : v.size()) * sizeof(T);
        live_.push_back({std::unique_ptr<unsigned char[]>(new unsigned char[bytes]), bytes});
        if (!v.empty()) std::memcpy(live_.back().p.get(), v.data(), v.size() * sizeof(T));
        return reinterpret_cast<T*>(live_.back().p.get());
    }
    // A derived datatype with MPI_INT's layout, freed with the arrays.
    MPI_Datatype intType() {
        MPI_Datatype t;
        MPI_Type_dup(MPI_INT, &t);
        MPI_Type_commit(&t);
        types_.push_back(t);
        return t;
    }
    // Overwrites every array with garbage (counts of 1.5e9, wild displacements and
    // datatype handles) and frees it, with the derived datatypes; then allocates arrays
    // of the same sizes full of the same garbage (the allocator tends to hand the freed
    // blocks back), kept until this object goes, so a late read sees garbage even
    // without a memory checker.
    void scrambleAndFree() {
        for (Block& b : live_) {
            std::memset(b.p.get(), 0x5a, b.bytes);
            b.p.reset();
        }
        for (MPI_Datatype& t : types_) MPI_Type_free(&t);
        types_.clear();
        for (const Block& b : live_) {
            decoys_.push_back({std::unique_ptr<unsigned char[]>(new unsigned char[b.bytes]), b.bytes});
            std::memset(decoys_.back().p.get(), 0x5a, b.bytes);
        }
        live_.clear();
    }

private:
    struct Block {
        std::unique_ptr<unsigned char[]> p;
        size_t bytes;
    };
    std::vector<Block> live_, decoys_;
    std::vector<MPI_Datatype> types_;
};

using Starter = std::function<int(AppArrays&, MPI_Request*)>;

// Nonblocking: two calls, each freeing its arrays right after its start (the first is
// queued behind the communicator's decomposition). Persistent: the arrays are freed
// after the init, then two starts. Each completion is checked by `verify`.
void runFreed(Check& chk, Mode m, const std::string& name, const Starter& start, const Starter& init,
              const std::function<void()>& prepare, const std::function<void()>& verify) {
    if (m == Mode::Nonblocking) {
        for (int it = 0; it < 2; ++it) {
            prepare();
            AppArrays a;
            MPI_Request r = MPI_REQUEST_NULL;
            if (!chk.ok(start(a, &r), name.c_str())) return;
            a.scrambleAndFree();
            if (!chk.ok(MPI_Wait(&r, MPI_STATUS_IGNORE), (name + " MPI_Wait").c_str())) return;
            verify();
        }
        return;
    }
    AppArrays a;
    MPI_Request r = MPI_REQUEST_NULL;
    if (!chk.ok(init(a, &r), (name + " init").c_str())) return;
    a.scrambleAndFree();
    for (int it = 0; it < 2; ++it) {
        prepare();
        if (!chk.ok(MPI_Start(&r), (name + " MPI_Start").c_str())) break;
        if (!chk.ok(MPI_Wait(&r, MPI_STATUS_IGNORE), (name + " MPI_Wait").c_str())) break;
        verify();
    }
    MPI_Request_free(&r);
}

class OwnedArgs : public MpiModeTest {
protected:
    MPI_Comm comm = MPI_COMM_NULL;
    void SetUp() override { MPI_Comm_dup(MPI_COMM_WORLD, &comm); }
    void TearDown() override {
        if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
        MpiModeTest::TearDown();
    }
};

// Per-peer layout: `count(p)` elements for peer p, in reverse peer order with a gap of
// one after each block (so a displacement that is read late and wrong shows).
struct Layout {
    std::vector<int> counts, displs;
    int extent = 0;  // elements spanned, gaps included
};
Layout layoutOf(int n, const std::function<int(int)>& count) {
    Layout l;
    l.counts.resize(n);
    l.displs.resize(n);
    for (int p = n - 1; p >= 0; --p) {
        l.counts[p] = count(p);
        l.displs[p] = l.extent;
        l.extent += l.counts[p] + 1;
    }
    return l;
}

// Displacements in ints as bytes (alltoallw: int; neighbor_alltoallw: MPI_Aint).
template <class T>
std::vector<T> bytesOf(const std::vector<int>& displs) {
    std::vector<T> b;
    for (int d : displs) b.push_back(static_cast<T>(d) * static_cast<T>(sizeof(int)));
    return b;
}

TEST_P(OwnedArgs, Iallgatherv) {
    const Layout l = layoutOf(size, [](int q) { return q % 3 + 1; });
    const int mine = l.counts[rank];
    std::vector<int> s(mine), r(l.extent + 1);
    runFreed(
        chk, GetParam(), "allgatherv",
        [&](AppArrays& a, MPI_Request* q) {
            return MPI_Iallgatherv(s.data(), mine, MPI_INT, r.data(), a.copy(l.counts), a.copy(l.displs), a.intType(),
                                   comm, q);
        },
        [&](AppArrays& a, MPI_Request* q) {
            return MPIX_Allgatherv_init(s.data(), mine, MPI_INT, r.data(), a.copy(l.counts), a.copy(l.displs),
                                        a.intType(), comm, MPI_INFO_NULL, q);
        },
        [&] {
            for (int i = 0; i < mine; ++i) s[i] = val(rank, i);
            std::fill(r.begin(), r.end(), -7);
        },
        [&] {
            std::vector<int> exp(r.size(), -7);
            for (int q = 0; q < size; ++q)
                for (int i = 0; i < l.counts[q]; ++i) exp[l.displs[q] + i] = val(q, i);
            for (size_t j = 0; j < r.size(); ++j) chk.eq(r[j], exp[j], "allgatherv", long(j));
        });
}

// s -> d carries (s + d) % 3 + 1 ints, val(s, d * 10 + i).
int a2aCount(int s, int d) { return (s + d) % 3 + 1; }

// An alltoall(v/w)'s send buffer in layout `sl` (the gaps and the receive buffer -7).
void fillAlltoall(std::vector<int>& s, std::vector<int>& r, const Layout& sl, int rank, int size) {
    std::fill(s.begin(), s.end(), -7);
    std::fill(r.begin(), r.end(), -7);
    for (int d = 0; d < size; ++d)
        for (int i = 0; i < sl.counts[d]; ++i) s[sl.displs[d] + i] = val(rank, d * 10 + i);
}

// Its receive buffer in layout `rl`: peer p's block val(p, rank * 10 + i), the gaps untouched.
void checkAlltoall(Check& chk, const std::vector<int>& r, const Layout& rl, int rank, int size, const char* what) {
    std::vector<int> exp(r.size(), -7);
    for (int p = 0; p < size; ++p)
        for (int i = 0; i < rl.counts[p]; ++i) exp[rl.displs[p] + i] = val(p, rank * 10 + i);
    for (size_t j = 0; j < r.size(); ++j) chk.eq(r[j], exp[j], what, long(j));
}

TEST_P(OwnedArgs, Ialltoallv) {
    const Layout sl = layoutOf(size, [&](int d) { return a2aCount(rank, d); });
    const Layout rl = layoutOf(size, [&](int p) { return a2aCount(p, rank); });
    std::vector<int> s(sl.extent + 1), r(rl.extent + 1);
    runFreed(
        chk, GetParam(), "alltoallv",
        [&](AppArrays& a, MPI_Request* q) {
            return MPI_Ialltoallv(s.data(), a.copy(sl.counts), a.copy(sl.displs), a.intType(), r.data(),
                                  a.copy(rl.counts), a.copy(rl.displs), a.intType(), comm, q);
        },
        [&](AppArrays& a, MPI_Request* q) {
            return MPIX_Alltoallv_init(s.data(), a.copy(sl.counts), a.copy(sl.displs), a.intType(), r.data(),
                                       a.copy(rl.counts), a.copy(rl.displs), a.intType(), comm, MPI_INFO_NULL, q);
        },
        [&] { fillAlltoall(s, r, sl, rank, size); },
        [&] { checkAlltoall(chk, r, rl, rank, size, "alltoallv"); });
}

// Predefined types in the arrays: Open MPI's MPI layer itself reads an alltoallw's type
// arrays at completion when they hold derived types (it retains those through the
// application's array), so only predefined ones may be freed before the wait.
TEST_P(OwnedArgs, Ialltoallw) {
    const Layout sl = layoutOf(size, [&](int d) { return a2aCount(rank, d); });
    const Layout rl = layoutOf(size, [&](int p) { return a2aCount(p, rank); });
    const std::vector<MPI_Datatype> types(size, MPI_INT);
    std::vector<int> s(sl.extent + 1), r(rl.extent + 1);
    runFreed(
        chk, GetParam(), "alltoallw",
        [&](AppArrays& a, MPI_Request* q) {
            return MPI_Ialltoallw(s.data(), a.copy(sl.counts), a.copy(bytesOf<int>(sl.displs)), a.copy(types), r.data(),
                                  a.copy(rl.counts), a.copy(bytesOf<int>(rl.displs)), a.copy(types), comm, q);
        },
        [&](AppArrays& a, MPI_Request* q) {
            return MPIX_Alltoallw_init(s.data(), a.copy(sl.counts), a.copy(bytesOf<int>(sl.displs)), a.copy(types), r.data(),
                                       a.copy(rl.counts), a.copy(bytesOf<int>(rl.displs)), a.copy(types), comm,
                                       MPI_INFO_NULL, q);
        },
        [&] { fillAlltoall(s, r, sl, rank, size); },
        [&] { checkAlltoall(chk, r, rl, rank, size, "alltoallw"); });
}

TEST_P(OwnedArgs, Igatherv) {
    const int root = size - 1;
    const Layout l = layoutOf(size, [](int q) { return q % 3 + 1; });
    const int mine = l.counts[rank];
    std::vector<int> s(mine), r(l.extent + 1);
    runFreed(
        chk, GetParam(), "gatherv",
        [&](AppArrays& a, MPI_Request* q) {
            return MPI_Igatherv(s.data(), mine, MPI_INT, r.data(), a.copy(l.counts), a.copy(l.displs), a.intType(),
                                root, comm, q);
        },
        [&](AppArrays& a, MPI_Request* q) {
            return MPIX_Gatherv_init(s.data(), mine, MPI_INT, r.data(), a.copy(l.counts), a.copy(l.displs),
                                     a.intType(), root, comm, MPI_INFO_NULL, q);
        },
        [&] {
            for (int i = 0; i < mine; ++i) s[i] = val(rank, i);
            std::fill(r.begin(), r.end(), -7);
        },
        [&] {
            std::vector<int> exp(r.size(), -7);
            if (rank == root)
                for (int q = 0; q < size; ++q)
                    for (int i = 0; i < l.counts[q]; ++i) exp[l.displs[q] + i] = val(q, i);
            for (size_t j = 0; j < r.size(); ++j) chk.eq(r[j], exp[j], "gatherv", long(j));
        });
}

TEST_P(OwnedArgs, Iscatterv) {
    const int root = 1 % size;
    const Layout l = layoutOf(size, [](int q) { return q % 3 + 1; });
    const int mine = l.counts[rank];
    std::vector<int> s(l.extent + 1), r(mine + 1);
    runFreed(
        chk, GetParam(), "scatterv",
        [&](AppArrays& a, MPI_Request* q) {
            return MPI_Iscatterv(s.data(), a.copy(l.counts), a.copy(l.displs), a.intType(), r.data(), mine, MPI_INT,
                                 root, comm, q);
        },
        [&](AppArrays& a, MPI_Request* q) {
            return MPIX_Scatterv_init(s.data(), a.copy(l.counts), a.copy(l.displs), a.intType(), r.data(), mine,
                                      MPI_INT, root, comm, MPI_INFO_NULL, q);
        },
        [&] {
            std::fill(s.begin(), s.end(), -7);
            std::fill(r.begin(), r.end(), -7);
            if (rank == root)
                for (int p = 0; p < size; ++p)
                    for (int i = 0; i < l.counts[p]; ++i) s[l.displs[p] + i] = val(p, i);
        },
        [&] {
            for (int i = 0; i < mine; ++i) chk.eq(r[i], val(rank, i), "scatterv", i);
            chk.eq(r[mine], -7, "scatterv past the block");
        });
}

// Doubles holding small integers: every order of the sums is exact, so strong
// reproducibility (coll_hieragg_reproducible=strong) serves it too; blocks of up to 15
// elements make it several chunks under a small segment size (ReproducibleCall).
TEST_P(OwnedArgs, IreduceScatter) {
    std::vector<int> counts(size), first(size);
    int total = 0;
    for (int q = 0; q < size; ++q) {
        counts[q] = q % 3 * 7 + 1;
        first[q] = total;
        total += counts[q];
    }
    const int mine = counts[rank];
    std::vector<double> s(total), r(mine + 1);
    runFreed(
        chk, GetParam(), "reduce_scatter",
        [&](AppArrays& a, MPI_Request* q) {
            return MPI_Ireduce_scatter(s.data(), r.data(), a.copy(counts), MPI_DOUBLE, MPI_SUM, comm, q);
        },
        [&](AppArrays& a, MPI_Request* q) {
            return MPIX_Reduce_scatter_init(s.data(), r.data(), a.copy(counts), MPI_DOUBLE, MPI_SUM, comm,
                                            MPI_INFO_NULL, q);
        },
        [&] {
            for (int j = 0; j < total; ++j) s[j] = val(rank, j);
            std::fill(r.begin(), r.end(), -7.0);
        },
        [&] {
            for (int i = 0; i < mine; ++i) {
                double exp = 0;
                for (int q = 0; q < size; ++q) exp += val(q, first[rank] + i);
                chk.eq(r[i], exp, "reduce_scatter", i);
            }
            chk.eq(r[mine], -7.0, "reduce_scatter past the block");
        });
}

// Neighborhood collectives on a distributed graph r -> r+1, r -> r+2 (one edge when they
// coincide): in[j] reaches this rank through its out-edge j.
class OwnedNeighborArgs : public OwnedArgs {
protected:
    std::vector<int> in, out;
    void SetUp() override {
        for (int off : {1, 2}) {
            const int d = (rank + off) % size, s = ((rank - off) % size + size) % size;
            if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
            if (std::find(in.begin(), in.end(), s) == in.end()) in.push_back(s);
        }
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, int(in.size()), in.data(), MPI_UNWEIGHTED, int(out.size()),
                                       out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
    }
};

TEST_P(OwnedNeighborArgs, IneighborAllgatherv) {
    const int deg = int(in.size());
    const int mine = rank % 3 + 1;
    const Layout l = layoutOf(deg, [&](int j) { return in[j] % 3 + 1; });
    std::vector<int> s(mine), r(l.extent + 1);
    runFreed(
        chk, GetParam(), "neighbor_allgatherv",
        [&](AppArrays& a, MPI_Request* q) {
            return MPI_Ineighbor_allgatherv(s.data(), mine, MPI_INT, r.data(), a.copy(l.counts), a.copy(l.displs),
                                            a.intType(), comm, q);
        },
        [&](AppArrays& a, MPI_Request* q) {
            return MPIX_Neighbor_allgatherv_init(s.data(), mine, MPI_INT, r.data(), a.copy(l.counts),
                                                 a.copy(l.displs), a.intType(), comm, MPI_INFO_NULL, q);
        },
        [&] {
            for (int i = 0; i < mine; ++i) s[i] = val(rank, i);
            std::fill(r.begin(), r.end(), -7);
        },
        [&] {
            std::vector<int> exp(r.size(), -7);
            for (int j = 0; j < deg; ++j)
                for (int i = 0; i < l.counts[j]; ++i) exp[l.displs[j] + i] = val(in[j], i);
            for (size_t j = 0; j < r.size(); ++j) chk.eq(r[j], exp[j], "neighbor_allgatherv", long(j));
        });
}

// Out-edge e of rank s carries (s + e) % 2 + 1 ints, val(s, e * 10 + i).
int edgeCount(int s, int e) { return (s + e) % 2 + 1; }

TEST_P(OwnedNeighborArgs, IneighborAlltoallv) {
    const Layout sl = layoutOf(int(out.size()), [&](int e) { return edgeCount(rank, e); });
    const Layout rl = layoutOf(int(in.size()), [&](int j) { return edgeCount(in[j], j); });
    std::vector<int> s(sl.extent + 1), r(rl.extent + 1);
    runFreed(
        chk, GetParam(), "neighbor_alltoallv",
        [&](AppArrays& a, MPI_Request* q) {
            return MPI_Ineighbor_alltoallv(s.data(), a.copy(sl.counts), a.copy(sl.displs), a.intType(), r.data(),
                                           a.copy(rl.counts), a.copy(rl.displs), a.intType(), comm, q);
        },
        [&](AppArrays& a, MPI_Request* q) {
            return MPIX_Neighbor_alltoallv_init(s.data(), a.copy(sl.counts), a.copy(sl.displs), a.intType(), r.data(),
                                                a.copy(rl.counts), a.copy(rl.displs), a.intType(), comm,
                                                MPI_INFO_NULL, q);
        },
        [&] {
            std::fill(s.begin(), s.end(), -7);
            std::fill(r.begin(), r.end(), -7);
            for (size_t e = 0; e < out.size(); ++e)
                for (int i = 0; i < sl.counts[e]; ++i) s[sl.displs[e] + i] = val(rank, long(e) * 10 + i);
        },
        [&] {
            std::vector<int> exp(r.size(), -7);
            for (size_t j = 0; j < in.size(); ++j)
                for (int i = 0; i < rl.counts[j]; ++i) exp[rl.displs[j] + i] = val(in[j], long(j) * 10 + i);
            for (size_t j = 0; j < r.size(); ++j) chk.eq(r[j], exp[j], "neighbor_alltoallv", long(j));
        });
}

TEST_P(OwnedNeighborArgs, IneighborAlltoallw) {
    const Layout sl = layoutOf(int(out.size()), [&](int e) { return edgeCount(rank, e); });
    const Layout rl = layoutOf(int(in.size()), [&](int j) { return edgeCount(in[j], j); });
    const std::vector<MPI_Datatype> st(out.size(), MPI_INT), rt(in.size(), MPI_INT);
    std::vector<int> s(sl.extent + 1), r(rl.extent + 1);
    runFreed(
        chk, GetParam(), "neighbor_alltoallw",
        [&](AppArrays& a, MPI_Request* q) {
            return MPI_Ineighbor_alltoallw(s.data(), a.copy(sl.counts), a.copy(bytesOf<MPI_Aint>(sl.displs)), a.copy(st),
                                           r.data(), a.copy(rl.counts), a.copy(bytesOf<MPI_Aint>(rl.displs)), a.copy(rt), comm,
                                           q);
        },
        [&](AppArrays& a, MPI_Request* q) {
            return MPIX_Neighbor_alltoallw_init(s.data(), a.copy(sl.counts), a.copy(bytesOf<MPI_Aint>(sl.displs)), a.copy(st),
                                                r.data(), a.copy(rl.counts), a.copy(bytesOf<MPI_Aint>(rl.displs)), a.copy(rt),
                                                comm, MPI_INFO_NULL, q);
        },
        [&] {
            std::fill(s.begin(), s.end(), -7);
            std::fill(r.begin(), r.end(), -7);
            for (size_t e = 0; e < out.size(); ++e)
                for (int i = 0; i < sl.counts[e]; ++i) s[sl.displs[e] + i] = val(rank, long(e) * 10 + i);
        },
        [&] {
            std::vector<int> exp(r.size(), -7);
            for (size_t j = 0; j < in.size(); ++j)
                for (int i = 0; i < rl.counts[j]; ++i) exp[rl.displs[j] + i] = val(in[j], long(j) * 10 + i);
            for (size_t j = 0; j < r.size(); ++j) chk.eq(r[j], exp[j], "neighbor_alltoallw", long(j));
        });
}

INSTANTIATE_TEST_SUITE_P(M, OwnedArgs, ::testing::Values(Mode::Nonblocking, Mode::Persistent), modeParamName);
INSTANTIATE_TEST_SUITE_P(M, OwnedNeighborArgs, ::testing::Values(Mode::Nonblocking, Mode::Persistent),
                         modeParamName);

}  // namespace
