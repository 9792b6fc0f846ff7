// A message still in flight to a communicator its receiver has freed after a process
// failure must not reach the communicator that next gets the same context id (CID).
// Open MPI's ob1 keeps a fragment for a CID that does not exist (yet) and hands it to the
// next communicator created on that CID, where it takes a place in the sender's message
// sequence: the real message of that place is never matched (a hang) or a receive gets the
// wrong message (MPI_ERR_TRUNCATE, wrong data). MPIX_Comm_shrink after the failure takes
// the lowest free CID, the freed one's. docs/fault-tolerance.md, "Communicators created and
// freed around a failure".
//
// Deterministic, with np >= 3: the last world rank dies; once every survivor has seen the
// failure (a barrier on `comm` fails), world rank 1 (the receiver) frees `fresh`, a
// duplicate whose persistent gather to it it never starts, and tells world rank 0 (the
// sender) so by a point-to-point message on MPI_COMM_WORLD. Only then does the sender
// start that gather on `fresh` (MPI_Start, unlike a blocking collective, does not refuse a
// communicator whose collectives failed): its block goes to the receiver and arrives after
// the free. (A gather: the sender's one message goes to the live receiver, so nothing of
// its own keeps `fresh`, and its CID, alive here.) Every survivor then revokes and shrinks `comm` and runs kRounds bcasts
// from the sender and an allreduce on the shrunk communicator, each checked against its
// closed form within kDeadlineSeconds.
//
// usage: hieragg_stale_message FAMILY MODE SEED (run_process_failure.sh's arguments: printed,
// otherwise unused; the scenario is fixed). Each survivor prints "ULFM-OK" or "ULFM-FAIL <why>".
#include <mpi.h>
#include <mpi-ext.h>

#include "UlfmErrors.hpp"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kSender = 0;
constexpr int kReceiver = 1;
constexpr int kCount = 64;  // doubles: an eager message on every transport (the gather's block and the bcasts)
constexpr int kRounds = 32; // more messages from the sender than the stale one's place in its sequence
constexpr double kDeadlineSeconds = 20.0;
constexpr int kTokenTag = 7;

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The bcast payload of round `round` (-1: the stale one), element j: exact in doubles.
double payload(int round, int j) { return 1000.0 * (round + 2) + j; }

// Waits for `q` until the deadline; a request still pending then is a hang.
int waitBounded(MPI_Request* q, double deadline, bool* late) {
    int done = 0;
    while (true) {
        const int rc = MPI_Test(q, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        if (now() > deadline) {
            *late = true;
            return MPI_SUCCESS;
        }
    }
}

[[noreturn]] void failAndAbort(int rank, const std::string& why) {
    std::printf("ULFM-FAIL rank %d: %s\n", rank, why.c_str());
    std::fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);  // the others may wait for this rank forever
    std::abort();
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int victim = size - 1;
    if (rank == 0)
        std::printf("ulfm_test: stale message (%s %s seed=%s): world rank %d dies (SIGKILL); world rank %d sends "
                    "on a duplicate world rank %d has freed; 1 of %d ranks die\n",
                    argc > 1 ? argv[1] : "-", argc > 2 ? argv[2] : "-", argc > 3 ? argv[3] : "-", victim, kSender,
                    kReceiver, size);
    std::fflush(stdout);
    if (size < 3) {
        if (rank == 0) std::printf("ULFM-FAIL: needs at least 3 ranks\n");
        MPI_Finalize();
        return 1;
    }

    MPI_Comm comm, fresh;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN);
    std::vector<double> stale(kCount), gathered(static_cast<size_t>(kCount) * size);
    MPI_Request gather = MPI_REQUEST_NULL;
    MPI_Gather_init(stale.data(), kCount, MPI_DOUBLE, gathered.data(), kCount, MPI_DOUBLE, kReceiver, fresh,
                    MPI_INFO_NULL, &gather);
    // One call on `fresh` before the failure: its identity exchange is done, so the
    // sender's start below sends at once.
    int mine = rank + 1, sum = 0;
    int rc = MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, fresh);
    if (rc != MPI_SUCCESS || sum != size * (size + 1) / 2) failAndAbort(rank, "allreduce on fresh before the failure");
    MPI_Barrier(comm);
    if (rank == victim) raise(SIGKILL);

    // Every survivor learns of the failure: the victim never joins this barrier.
    rc = MPI_Barrier(comm);
    if (!isFailure(rc)) failAndAbort(rank, "barrier after the death: " + errorName(rc));

    int token = 0;
    if (rank == kSender) {
        rc = MPI_Recv(&token, 1, MPI_INT, kReceiver, kTokenTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) failAndAbort(rank, "token from the receiver: " + errorName(rc));
        for (int j = 0; j < kCount; ++j) stale[j] = payload(-1, j);
        // The failed communicator's collectives fail, but its sends to live ranks leave.
        rc = MPI_Start(&gather);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&gather, MPI_STATUS_IGNORE);
        std::printf("ulfm_test: rank %d started the gather on the freed duplicate: %s\n", rank, errorName(rc).c_str());
    }
    MPI_Request_free(&gather);
    MPI_Comm_free(&fresh);
    if (rank == kReceiver) {
        rc = MPI_Send(&token, 1, MPI_INT, kSender, kTokenTag, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) failAndAbort(rank, "token to the sender: " + errorName(rc));
    }

    MPIX_Comm_revoke(comm);
    MPI_Comm shrunk;
    rc = MPIX_Comm_shrink(comm, &shrunk);
    if (rc != MPI_SUCCESS) failAndAbort(rank, "MPIX_Comm_shrink: " + errorName(rc));
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    int srank = 0, ssize = 0;
    MPI_Comm_rank(shrunk, &srank);
    MPI_Comm_size(shrunk, &ssize);
    if (ssize != size - 1) failAndAbort(rank, "shrunk communicator has " + std::to_string(ssize) + " ranks");

    // The sender is rank kSender of the shrunk communicator too (shrink keeps the order).
    const double deadline = now() + kDeadlineSeconds;
    std::vector<double> b(kCount);
    for (int round = 0; round < kRounds; ++round) {
        for (int j = 0; j < kCount; ++j) b[j] = srank == kSender ? payload(round, j) : -1.0;
        MPI_Request q = MPI_REQUEST_NULL;
        bool late = false;
        rc = MPI_Ibcast(b.data(), kCount, MPI_DOUBLE, kSender, shrunk, &q);
        if (rc == MPI_SUCCESS) rc = waitBounded(&q, deadline, &late);
        const std::string what = "bcast " + std::to_string(round) + " on the shrunk communicator";
        if (late) failAndAbort(rank, what + " did not complete within " + std::to_string(kDeadlineSeconds) + " s");
        if (rc != MPI_SUCCESS) failAndAbort(rank, what + ": " + errorName(rc));
        for (int j = 0; j < kCount; ++j)
            if (b[j] != payload(round, j))
                failAndAbort(rank, what + ": element " + std::to_string(j) + " is " + std::to_string(b[j]) +
                                       ", expected " + std::to_string(payload(round, j)));
    }
    std::vector<double> v(kCount), total(kCount, -1.0);
    for (int j = 0; j < kCount; ++j) v[j] = (rank + 1) + j;
    MPI_Request q = MPI_REQUEST_NULL;
    bool late = false;
    rc = MPI_Iallreduce(v.data(), total.data(), kCount, MPI_DOUBLE, MPI_SUM, shrunk, &q);
    if (rc == MPI_SUCCESS) rc = waitBounded(&q, deadline, &late);
    if (late) failAndAbort(rank, "allreduce on the shrunk communicator did not complete in time");
    if (rc != MPI_SUCCESS) failAndAbort(rank, "allreduce on the shrunk communicator: " + errorName(rc));
    const double liveRanks = size * (size + 1) / 2.0 - (victim + 1);  // sum of world rank + 1 over survivors
    for (int j = 0; j < kCount; ++j)
        if (total[j] != liveRanks + static_cast<double>(ssize) * j)
            failAndAbort(rank, "allreduce on the shrunk communicator: element " + std::to_string(j) + " is " +
                                   std::to_string(total[j]));

    MPI_Comm_free(&shrunk);
    MPI_Comm_free(&comm);
    std::printf("ULFM-OK rank %d (%d rounds on the shrunk communicator)\n", rank, kRounds);
    std::fflush(stdout);
    MPI_Finalize();
    return 0;
}
