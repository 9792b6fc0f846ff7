// hieragg's messages stay inside the PML's tag space (src/runtime/TagLayout.hpp). The
// production PMLs carry fewer tag bits than ob1 (pml ucx 24: MPI_TAG_UB 2^23 - 1); a tag
// beyond them wraps, onto another hieragg tag or onto a non-negative one that a user's
// MPI_ANY_TAG receive matches. Both tests run in every entry; the pml-* entries
// (tests/mpi/CMakeLists.txt) run them on pml cm + mtl ofi and on pml ucx.
#include <chrono>
#include <cstdio>

#include "harness.hpp"

using namespace mpitest;

namespace {

class PmlTags : public MpiTest {};

// Drives `req` to completion, failing (and giving up) after `seconds`; while it waits, a
// completed `anyTag` receive means a collective message went to it.
bool waitWatching(Check& chk, MPI_Request& req, MPI_Request& anyTag, long call, double seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        int done = 0, stolen = 0;
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) return true;
        MPI_Status st;
        if (anyTag != MPI_REQUEST_NULL) MPI_Test(&anyTag, &stolen, &st);
        if (stolen) {
            char m[160];
            std::snprintf(m, sizeof m, "call %ld: the MPI_ANY_TAG receive matched a collective message (source %d, tag %d)",
                          call, st.MPI_SOURCE, st.MPI_TAG);
            std::fprintf(stderr, "rank %d: %s\n", worldRank(), m);
            chk.fail(m);
            return false;  // the call lost its message: it cannot complete
        }
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) {
            chk.fail("call " + std::to_string(call) + " did not complete in " + std::to_string(seconds) + " s");
            return false;
        }
    }
}

// A user's MPI_ANY_TAG receive stays posted while thousands of collectives run on the same
// communicator (2300 calls: under pml ucx a tag of call number 2048 or later wrapped to a
// non-negative one before hieragg sized its tags), then matches exactly the user's message.
TEST_F(PmlTags, AnyTagReceiveNeverMatchesCollectiveMessages) {
    MPI_Comm d = MPI_COMM_NULL;
    if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &d), "MPI_Comm_dup")) return;
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    int got = -1;
    MPI_Request anyTag = MPI_REQUEST_NULL;
    chk.ok(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, d, &anyTag), "MPI_Irecv(ANY_TAG)");
    constexpr long kCalls = 2300;
    bool going = true;
    for (long k = 0; k < kCalls && going; ++k) {
        int mine[2] = {val(rank, static_cast<int>(k % 1000)), rank}, sum[2] = {-1, -1};
        MPI_Request q = MPI_REQUEST_NULL;
        if (!chk.ok(MPI_Iallreduce(mine, sum, 2, MPI_INT, MPI_SUM, d, &q), "MPI_Iallreduce")) break;
        going = waitWatching(chk, q, anyTag, k, 30.0);
        if (!going) break;
        long e0 = 0, e1 = 0;
        for (int r = 0; r < size; ++r) e0 += val(r, static_cast<int>(k % 1000)), e1 += r;
        chk.eq(sum[0], e0, "iallreduce " + std::to_string(k), 0);
        chk.eq(sum[1], e1, "iallreduce " + std::to_string(k), 1);
        if (k % 256 == 0) {  // a rooted call with changing roots on the way
            int b = rank == static_cast<int>(k / 256) % size ? 7 * static_cast<int>(k) : -1;
            MPI_Request bq = MPI_REQUEST_NULL;
            if (chk.ok(MPI_Ibcast(&b, 1, MPI_INT, static_cast<int>(k / 256) % size, d, &bq), "MPI_Ibcast")) {
                going = waitWatching(chk, bq, anyTag, k, 30.0);
                chk.eq(b, 7 * k, "ibcast " + std::to_string(k));
            }
        }
    }
    if (going) {
        // Only now the user's message, once every rank has left the loop (its arrival at a
        // rank still watching would look like theft): each rank to its right-hand neighbour.
        chk.ok(MPI_Barrier(d), "MPI_Barrier");
        const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
        const int msg = 7000 + rank;
        chk.ok(MPI_Send(&msg, 1, MPI_INT, right, 7, d), "MPI_Send");
        MPI_Status st;
        if (chk.ok(MPI_Wait(&anyTag, &st), "MPI_Wait(ANY_TAG)")) {
            chk.eq(st.MPI_SOURCE, left, "ANY_TAG receive: source");
            chk.eq(st.MPI_TAG, 7, "ANY_TAG receive: tag");
            chk.eq(got, 7000 + left, "ANY_TAG receive: value");
        }
        MPI_Comm_free(&d);
    }
    // (after a lost message the communicator is left as it is: the other ranks are stuck)
}

// A persistent request (init number 0) and nonblocking calls (call numbers 0, 1, ...) in
// flight together on a fresh communicator, counts differing so that a message taken by
// the wrong one shows (truncation or a wrong sum). Under pml ucx both numbered 0 had the
// same 24 tag bits before hieragg sized its tags; with the same start order on every rank
// their messages still met in order in the runs tried (np 5, virtual:2 and node), so this
// is coverage of persistent and nonblocking calls together on each PML more than a
// reproduction. 4 rounds.
TEST_F(PmlTags, PersistentAndNonblockingCallsApart) {
    MPI_Comm d = MPI_COMM_NULL;
    if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &d), "MPI_Comm_dup")) return;
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    std::vector<int> ps(3), pr(3, -1);
    MPI_Request p = MPI_REQUEST_NULL;
    if (!chk.ok(MPIX_Allreduce_init(ps.data(), pr.data(), 3, MPI_INT, MPI_SUM, d, MPI_INFO_NULL, &p),
                "MPIX_Allreduce_init")) {
        MPI_Comm_free(&d);
        return;
    }
    for (int round = 0; round < 4; ++round) {
        for (int i = 0; i < 3; ++i) ps[i] = val(rank, 10 * round + i), pr[i] = -1;
        std::vector<int> ns(5), nr(5, -1);
        for (int i = 0; i < 5; ++i) ns[i] = val(rank, 100 + 10 * round + i);
        int b = rank == round % size ? 31 * round + 5 : -1;
        MPI_Request q[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        chk.ok(MPI_Start(&p), "MPI_Start");
        chk.ok(MPI_Iallreduce(ns.data(), nr.data(), 5, MPI_INT, MPI_SUM, d, &q[0]), "MPI_Iallreduce");
        chk.ok(MPI_Ibcast(&b, 1, MPI_INT, round % size, d, &q[1]), "MPI_Ibcast");
        q[2] = p;
        chk.ok(MPI_Waitall(3, q, MPI_STATUSES_IGNORE), "MPI_Waitall");
        for (int i = 0; i < 3; ++i) {
            long e = 0;
            for (int r = 0; r < size; ++r) e += val(r, 10 * round + i);
            chk.eq(pr[i], e, "persistent allreduce round " + std::to_string(round), i);
        }
        for (int i = 0; i < 5; ++i) {
            long e = 0;
            for (int r = 0; r < size; ++r) e += val(r, 100 + 10 * round + i);
            chk.eq(nr[i], e, "iallreduce round " + std::to_string(round), i);
        }
        chk.eq(b, 31 * round + 5, "ibcast round " + std::to_string(round));
    }
    MPI_Request_free(&p);
    MPI_Comm_free(&d);
}

}  // namespace
