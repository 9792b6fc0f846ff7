// The compiled fast path (docs/architecture.md, "The compiled fast path") never runs a stale
// binding: a blocking call repeated often enough to take it, then changed in one thing at a
// time (buffers, count, datatype, op, root, in-place, kind, communicator), gives the closed
// form of its own inputs on every call. Inputs change with every call, so a result left from
// an earlier call, or computed with an earlier call's count, type, op or root, is caught.
#include <algorithm>

#include "harness.hpp"

using namespace mpitest;

namespace {

class FastPath : public MpiTest {};

long long value(int rank, int i, int call) { return 1 + rank * 7 + i * 3 + call * 1000LL; }

// One variant of a call: what may change between repeats.
struct Variant {
    int count;
    MPI_Datatype type;  // MPI_INT or MPI_LONG_LONG
    MPI_Op op;          // MPI_SUM or MPI_MAX
    int root;
    bool inPlace;
    int buffers;        // which pair of buffers (0 or 1)
};

struct Runner {
    Check& chk;
    MPI_Comm comm;
    int rank, size;
    int call = 0;
    // Two pairs of buffers, as wide as the widest variant (3 long longs).
    std::vector<long long> in[2] = {std::vector<long long>(3), std::vector<long long>(3)};
    std::vector<long long> out[2] = {std::vector<long long>(3), std::vector<long long>(3)};

    // Writes the call's inputs into `buf` as `type` (int or long long elements).
    static void put(std::vector<long long>& buf, MPI_Datatype type, int i, long long v) {
        if (type == MPI_INT)
            reinterpret_cast<int*>(buf.data())[i] = static_cast<int>(v);
        else
            buf[i] = v;
    }
    static long long get(const std::vector<long long>& buf, MPI_Datatype type, int i) {
        return type == MPI_INT ? reinterpret_cast<const int*>(buf.data())[i] : buf[i];
    }

    void run(const char* kind, const Variant& v) {
        const std::string what = std::string(kind) + " call " + std::to_string(call) + " count " +
                                 std::to_string(v.count) + (v.type == MPI_INT ? " int" : " long long") +
                                 (v.op == MPI_MAX ? " max" : " sum") + " root " + std::to_string(v.root) +
                                 (v.inPlace ? " in place" : "") + " buffers " + std::to_string(v.buffers);
        std::vector<long long>& src = in[v.buffers];
        std::vector<long long>& dst = out[v.buffers];
        std::fill(src.begin(), src.end(), -7);
        std::fill(dst.begin(), dst.end(), -9);
        const std::string k = kind;
        for (int i = 0; i < v.count; ++i) {
            put(src, v.type, i, value(rank, i, call));
            if (v.inPlace || k == "bcast") put(dst, v.type, i, value(rank, i, call));
        }
        int rc = MPI_SUCCESS;
        const void* sbuf = v.inPlace ? MPI_IN_PLACE : src.data();
        if (k == "bcast") {
            rc = MPI_Bcast(dst.data(), v.count, v.type, v.root, comm);
        } else if (k == "reduce") {
            if (v.inPlace && rank != v.root) sbuf = dst.data();  // MPI_IN_PLACE is the root's only
            rc = MPI_Reduce(sbuf, dst.data(), v.count, v.type, v.op, v.root, comm);
        } else if (k == "allreduce") {
            rc = MPI_Allreduce(sbuf, dst.data(), v.count, v.type, v.op, comm);
        } else {
            rc = MPI_Barrier(comm);
        }
        chk.ok(rc, what.c_str());
        const bool gets = k == "bcast" || k == "allreduce" || (k == "reduce" && rank == v.root);
        for (int i = 0; gets && i < v.count; ++i) {
            long long want = 0;
            if (k == "bcast") {
                want = value(v.root, i, call);
            } else if (v.op == MPI_MAX) {
                want = value(size - 1, i, call);  // value grows with the rank
            } else {
                for (int r = 0; r < size; ++r) want += value(r, i, call);
            }
            chk.eq(get(dst, v.type, i), want, what, i);
        }
        ++call;
    }
};

// Each variant three times: the second call compiles the fast path, the third runs it; then
// the next variant changes one thing of it.
void repeatVariants(Runner& r, const char* kind, const std::vector<Variant>& variants) {
    for (const Variant& v : variants)
        for (int rep = 0; rep < 3; ++rep) r.run(kind, v);
}

std::vector<Variant> variantsOf(const std::string& kind, int size) {
    const int last = size - 1;
    std::vector<Variant> v = {
        {1, MPI_INT, MPI_SUM, 0, false, 0},        // the base
        {1, MPI_INT, MPI_SUM, 0, false, 1},        // other buffers
        {3, MPI_INT, MPI_SUM, 0, false, 1},        // another count
        {3, MPI_LONG_LONG, MPI_SUM, 0, false, 1},  // another datatype
    };
    if (kind == "reduce" || kind == "allreduce") {
        v.push_back({3, MPI_LONG_LONG, MPI_MAX, 0, false, 1});  // another op
        v.push_back({3, MPI_LONG_LONG, MPI_MAX, 0, true, 1});   // in place
    }
    if (kind == "reduce" || kind == "bcast") v.push_back({3, MPI_LONG_LONG, MPI_SUM, last, false, 1});  // another root
    v.push_back(v.front());  // back to the base
    return v;
}

TEST_F(FastPath, EveryChangeOfARepeatedCallGivesItsOwnResult) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    Runner r{chk, comm, rank, size};
    for (const char* kind : {"bcast", "reduce", "allreduce"}) repeatVariants(r, kind, variantsOf(kind, size));
    // Another kind between repeats: each kind's next call is no repeat of the last call.
    const Variant base{2, MPI_INT, MPI_SUM, 0, false, 0};
    for (int rep = 0; rep < 4; ++rep)
        for (const char* kind : {"bcast", "barrier", "allreduce", "barrier", "reduce"}) r.run(kind, base);
    MPI_Comm_free(&comm);
}

TEST_F(FastPath, AnotherCommunicatorNeverRunsTheFirstOnesBinding) {
    // The same arguments on a communicator of the ranks in reverse order (its own
    // decomposition and schedules): the results follow each communicator's ranks.
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &b);
    int rankB = -1;
    MPI_Comm_rank(b, &rankB);
    chk.eq(rankB, size - 1 - rank, "rank in the reversed communicator");
    Runner ra{chk, a, rank, size}, rb{chk, b, rankB, size};
    const Variant base{1, MPI_INT, MPI_SUM, 0, false, 0};
    for (int rep = 0; rep < 3; ++rep)
        for (const char* kind : {"bcast", "allreduce", "reduce", "barrier"}) {
            // Both communicators repeat; each keeps its own call numbers for its inputs.
            for (int i = 0; i < 3; ++i) ra.run(kind, base);
            for (int i = 0; i < 3; ++i) rb.run(kind, base);
        }
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
}

}  // namespace
