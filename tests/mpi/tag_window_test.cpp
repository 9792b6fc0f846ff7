// More calls in flight than hieragg's call-number window W (src/runtime/CallWindow.hpp):
// call n and call n + W of a pair share their tags, so a call whose number would reuse the
// tags of one still in flight on this rank waits inside hieragg until it completes. W is
// 65536 under ob1 and cm (32-bit tags), 256 under pml ucx; the tag-window entries of
// tests/mpi/CMakeLists.txt force a small one (coll_hieragg_tag_window) to reach it here.
// Every call carries data of its own, the calls are waited in an order scrambled per rank,
// and every result is checked against its closed form.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "harness.hpp"

using namespace mpitest;

namespace {

class TagWindow : public MpiTest {};

// The window this job runs with, as src/runtime/TagLayout.cpp sizes it from the PML's
// MPI_TAG_UB (the lower of Open MPI 4.1's and 5.0's tops), cut by coll_hieragg_tag_window
// (mpirun --mca passes it to the ranks as OMPI_MCA_coll_hieragg_tag_window).
long windowOfThisJob() {
    void* attr = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag);
    const long long tagUb = flag ? *static_cast<int*>(attr) : 2147483647LL;
    long w = 65536;
    while (w > 1 && (4LL * w + 8) * 4096 > tagUb + 1 - 34 + 1) w /= 2;
    if (const char* forced = std::getenv("OMPI_MCA_coll_hieragg_tag_window")) {
        const long limit = std::atol(forced);
        while (limit > 0 && w > limit) w /= 2;
    }
    return w;
}

// Several windows of calls (4W + 37) where the window is small enough for that to be
// cheap (pml ucx: 256; coll_hieragg_tag_window); elsewhere (65536: ob1, cm) the same
// mix as coverage, kept short since every whole-suite entry runs it.
int callsFor(long window) { return window <= 256 ? static_cast<int>(4 * window + 37) : 64; }
int requestsFor(long window) { return window <= 256 ? static_cast<int>(window + 44) : 20; }

// One nonblocking call of kind k % 4 with the data of call k, and its check.
struct InFlight {
    int k = 0;
    std::vector<int> send, recv;
    std::vector<int> counts, displs;
    int root = 0;
};

int kindOf(int k) { return k % 4; }
int lengthOf(int k) { return 1 + k % 3; }
// Rank r's block of call k's iallgatherv: 1..3 ints.
int blockOf(int r, int k) { return 1 + (r + k) % 3; }

int start(InFlight& f, int rank, int size, MPI_Comm d, MPI_Request* q) {
    const int k = f.k;
    switch (kindOf(k)) {
    case 0: {  // iallreduce of 1..3 ints
        const int n = lengthOf(k);
        f.send.resize(n);
        f.recv.assign(n, -1);
        for (int i = 0; i < n; ++i) f.send[i] = val(rank, k + 7 * i);
        return MPI_Iallreduce(f.send.data(), f.recv.data(), n, MPI_INT, MPI_SUM, d, q);
    }
    case 1: {  // ibcast from a rotating root
        f.root = (k / 4) % size;
        const int n = lengthOf(k);
        f.recv.assign(n, -1);
        if (rank == f.root)
            for (int i = 0; i < n; ++i) f.recv[i] = 31 * k + i;
        return MPI_Ibcast(f.recv.data(), n, MPI_INT, f.root, d, q);
    }
    case 2: {  // iallgatherv with blocks that differ by rank and call
        f.counts.resize(size);
        f.displs.resize(size);
        int at = 0;
        for (int r = 0; r < size; ++r) f.counts[r] = blockOf(r, k), f.displs[r] = at, at += f.counts[r];
        f.send.resize(f.counts[rank]);
        for (int i = 0; i < f.counts[rank]; ++i) f.send[i] = val(rank, k + i);
        f.recv.assign(at, -1);
        return MPI_Iallgatherv(f.send.data(), f.counts[rank], MPI_INT, f.recv.data(), f.counts.data(),
                               f.displs.data(), MPI_INT, d, q);
    }
    default:
        return MPI_Ibarrier(d, q);
    }
}

void verify(Check& chk, const InFlight& f, int size) {
    const int k = f.k;
    const std::string what = "call " + std::to_string(k);
    switch (kindOf(k)) {
    case 0:
        for (int i = 0; i < lengthOf(k); ++i) {
            long e = 0;
            for (int r = 0; r < size; ++r) e += val(r, k + 7 * i);
            chk.eq(f.recv[i], e, what + " iallreduce", i);
        }
        break;
    case 1:
        for (int i = 0; i < lengthOf(k); ++i) chk.eq(f.recv[i], 31 * k + i, what + " ibcast", i);
        break;
    case 2:
        for (int r = 0, at = 0; r < size; ++r)
            for (int i = 0; i < blockOf(r, k); ++i, ++at) chk.eq(f.recv[at], val(r, k + i), what + " iallgatherv", at);
        break;
    default:
        break;
    }
}

// callsFor(W) nonblocking calls of four kinds started back to back on one communicator, a
// blocking allreduce behind them (queued behind the ones that wait for the window), then
// every call waited in an order scrambled differently on each rank. The blocking
// allreduce repeats one made twice before on the idle communicator, so the compiled fast
// path knows it: it must still queue behind the waiting calls, not overtake them.
TEST_F(TagWindow, ManyWindowsOfMixedCallsInFlight) {
    MPI_Comm d = MPI_COMM_NULL;
    if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &d), "MPI_Comm_dup")) return;
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    int mine = val(rank, 5), sum = -1;
    long e = 0;
    for (int r = 0; r < size; ++r) e += val(r, 5);
    for (int warm = 0; warm < 2; ++warm) {
        sum = -1;
        chk.ok(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, d), "MPI_Allreduce before them");
        chk.eq(sum, e, "blocking allreduce before the nonblocking calls");
    }
    const int kCalls = callsFor(windowOfThisJob());
    std::vector<InFlight> calls(kCalls);
    std::vector<MPI_Request> reqs(kCalls, MPI_REQUEST_NULL);
    for (int k = 0; k < kCalls; ++k) {
        calls[k].k = k;
        chk.ok(start(calls[k], rank, size, d, &reqs[k]), "start");
    }
    sum = -1;
    chk.ok(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, d), "MPI_Allreduce behind them");
    chk.eq(sum, e, "blocking allreduce behind the nonblocking calls");
    std::vector<int> order(kCalls);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(1234u + static_cast<unsigned>(rank)));
    for (int k : order) {
        if (!chk.ok(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE), "MPI_Wait")) continue;
        verify(chk, calls[k], size);
    }
    MPI_Comm_free(&d);
}

// W + 44 persistent allreduces of one communicator (more than the window of init numbers;
// counts 1..3 so that one taking another's message shows) started together, twice, and
// waited in a scrambled order: requests whose init numbers share tags must not be active
// at once.
TEST_F(TagWindow, ManyPersistentRequestsActive) {
    MPI_Comm d = MPI_COMM_NULL;
    if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &d), "MPI_Comm_dup")) return;
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    const int kRequests = requestsFor(windowOfThisJob());
    std::vector<int> send(3 * kRequests), recv(3 * kRequests, -1);
    std::vector<MPI_Request> reqs(kRequests, MPI_REQUEST_NULL);
    for (int j = 0; j < kRequests; ++j)
        chk.ok(MPIX_Allreduce_init(&send[3 * j], &recv[3 * j], 1 + j % 3, MPI_INT, MPI_SUM, d, MPI_INFO_NULL, &reqs[j]),
               "MPIX_Allreduce_init");
    std::mt19937 scramble(99u + static_cast<unsigned>(rank));
    for (int round = 0; round < 2; ++round) {
        for (int j = 0; j < 3 * kRequests; ++j) send[j] = val(rank, 3 * j + round), recv[j] = -1;
        chk.ok(MPI_Startall(kRequests, reqs.data()), "MPI_Startall");
        std::vector<int> order(kRequests);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), scramble);
        for (int j : order) {
            if (!chk.ok(MPI_Wait(&reqs[j], MPI_STATUS_IGNORE), "MPI_Wait")) continue;
            for (int i = 0; i < 1 + j % 3; ++i) {
                long e = 0;
                for (int r = 0; r < size; ++r) e += val(r, 3 * (3 * j + i) + round);
                chk.eq(recv[3 * j + i], e, "persistent " + std::to_string(j) + " round " + std::to_string(round), i);
            }
        }
    }
    for (MPI_Request& q : reqs)
        if (q != MPI_REQUEST_NULL) MPI_Request_free(&q);
    MPI_Comm_free(&d);
}

}  // namespace
