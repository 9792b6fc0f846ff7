// Process failure under ULFM (docs/fault-tolerance.md). Every rank runs a loop of one
// collective family; one rank (or every rank of one node) dies by SIGKILL at an
// iteration and a delay inside it drawn from the seed, so the survivors meet the failure
// at any stage of the collective: before it, a leader waiting for a member, a member
// waiting for its leader's release, a fragment of a pipelined message in flight. Every
// survivor must then get MPIX_ERR_PROC_FAILED or MPIX_ERR_REVOKED from a collective
// within kMaxWaitSeconds of the failure (the time from the victim's death, which it
// writes to a file just before, and from the start of the failing call), revoke the
// communicator, shrink it, and find an allreduce, a bcast and an agreement on the shrunk
// communicator right against closed forms. Every iteration before the failure is
// checked the same way.
//
// usage: hieragg_process_failure FAMILY MODE SEED [--node] [--stamp DIR]
//   FAMILY: loop (the loop: allreduce of 1 and 1024 doubles, bcast with a rotating
//           root), bcast, reduce, allreduce, allgather, barrier, alltoall, pipeline (bcast
//           and allreduce of 2 MiB, segmented), setup (a fresh duplicate per iteration and an
//           allreduce on it: the failure meets communicator creation and hieragg's identity
//           exchange; MODE is ignored)
//   MODE:   blocking, nonblocking or persistent
//   --node: the victim's whole node dies (every rank sharing its node)
// Each survivor prints "ULFM-OK" on success, "ULFM-FAIL <why>" otherwise; exit 0 iff OK.
#include <mpi.h>
#include <mpi-ext.h>

#include "UlfmErrors.hpp"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr double kMaxWaitSeconds = 5.0;
constexpr int kIterations = 40;  // the failure strikes in [3, kIterations - 3)
constexpr int kMaxIterationsAfterKill = 1000000;

double now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

enum class Mode { Blocking, Nonblocking, Persistent };

struct Plan {
    std::string family;
    Mode mode = Mode::Blocking;
    unsigned seed = 0;
    bool wholeNode = false;
    std::string stampDir = "/tmp";
};

// Runs one collective of the family at iteration `it` on `comm` (size n, my rank r) and
// checks its result against the closed form. Returns the MPI error code; `bad` is set
// when the call succeeded with a wrong result.
class Family {
  public:
    Family(const Plan& p, MPI_Comm comm) : plan_(p), comm_(comm) {
        MPI_Comm_rank(comm, &r_);
        MPI_Comm_size(comm, &n_);
        if (p.family == "loop") steps_ = 3;
        else if (p.family == "pipeline") steps_ = 2;
        else steps_ = 1;
        big_ = p.family == "pipeline" ? 256 * 1024 : 1024;
        send_.assign(static_cast<size_t>(big_) * n_, 0.0);
        recv_.assign(static_cast<size_t>(big_) * n_, 0.0);
        if (plan_.mode == Mode::Persistent && p.family != "setup") initPersistent();
    }
    ~Family() {
        for (MPI_Request& q : persistent_)
            if (q != MPI_REQUEST_NULL) MPI_Request_free(&q);
    }
    int steps() const { return steps_; }

    int run(int it, int step, std::string& bad) {
        if (plan_.family == "setup") return onFreshCommunicator(it, bad);
        const Op op = opOf(it, step);
        fill(it, op);
        int rc = MPI_SUCCESS;
        if (plan_.mode == Mode::Blocking) {
            rc = blocking(op);
        } else {
            MPI_Request q = MPI_REQUEST_NULL;
            if (plan_.mode == Mode::Nonblocking) {
                rc = nonblocking(op, &q);
                if (rc == MPI_SUCCESS) rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
            } else {
                MPI_Request& pq = persistent_[persistentIndex(op)];
                rc = MPI_Start(&pq);
                if (rc == MPI_SUCCESS) rc = MPI_Wait(&pq, MPI_STATUS_IGNORE);
            }
        }
        if (rc == MPI_SUCCESS) bad = check(it, op);
        return rc;
    }

  private:
    // "setup": each iteration duplicates the communicator (Open MPI agrees on its context
    // id with the parent's allreduce) and runs an allreduce on the copy, whose first call
    // runs hieragg's identity exchange: the failure may strike during either.
    int onFreshCommunicator(int it, std::string& bad) {
        MPI_Comm fresh = MPI_COMM_NULL;
        int rc = MPI_Comm_dup(comm_, &fresh);
        if (rc != MPI_SUCCESS) return rc;
        MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN);
        const Op op{Kind::Allreduce, 1024, 0};
        fill(it, op);
        rc = MPI_Allreduce(send_.data(), recv_.data(), op.count, MPI_DOUBLE, MPI_SUM, fresh);
        if (rc == MPI_SUCCESS) bad = check(it, op);
        MPI_Comm_free(&fresh);
        return rc;
    }

    enum class Kind { Bcast, Reduce, Allreduce, Allgather, Barrier, Alltoall };
    struct Op {
        Kind kind;
        int count;
        int root;
    };

    Op opOf(int it, int step) const {
        const std::string& f = plan_.family;
        const int root = it % n_;
        if (f == "loop") {
            if (step == 0) return {Kind::Allreduce, 1, 0};
            if (step == 1) return {Kind::Allreduce, 1024, 0};
            return {Kind::Bcast, 1024, root};
        }
        if (f == "pipeline") return step == 0 ? Op{Kind::Bcast, big_, root} : Op{Kind::Allreduce, big_, 0};
        if (f == "bcast") return {Kind::Bcast, 1024, root};
        if (f == "reduce") return {Kind::Reduce, 1024, root};
        if (f == "allreduce") return {Kind::Allreduce, it % 2 ? 1 : 1024, 0};
        if (f == "allgather") return {Kind::Allgather, 16, 0};
        if (f == "alltoall") return {Kind::Alltoall, 16, 0};
        return {Kind::Barrier, 0, 0};
    }

    // Element j of rank p's contribution at iteration it (exact in doubles).
    static double val(int p, int it, int j) { return (p + 1) * (it + 1) + (j % 97); }

    void fill(int it, const Op& op) {
        const size_t total = op.kind == Kind::Alltoall ? static_cast<size_t>(op.count) * n_ : op.count;
        for (size_t j = 0; j < total; ++j)
            send_[j] = op.kind == Kind::Alltoall ? val(r_, it, static_cast<int>(j)) * 1000 + j / op.count
                                                 : val(r_, it, static_cast<int>(j));
        std::fill(recv_.begin(), recv_.end(), -1.0);
        if (op.kind == Kind::Bcast) {
            for (int j = 0; j < op.count; ++j) recv_[j] = r_ == op.root ? val(op.root, it, j) : -1.0;
        }
    }

    std::string check(int it, const Op& op) const {
        const double ranks = n_ * (n_ + 1) / 2.0;
        for (int j = 0; j < op.count; ++j) {
            double want = 0, got = 0;
            switch (op.kind) {
            case Kind::Bcast:
                want = val(op.root, it, j), got = recv_[j];
                break;
            case Kind::Reduce:
            case Kind::Allreduce:
                if (op.kind == Kind::Reduce && r_ != op.root) return "";
                want = (it + 1) * ranks + n_ * (j % 97), got = recv_[j];
                break;
            case Kind::Allgather:
                for (int p = 0; p < n_; ++p)
                    if (recv_[static_cast<size_t>(p) * op.count + j] != val(p, it, j))
                        return "allgather block " + std::to_string(p);
                continue;
            case Kind::Alltoall:
                for (int p = 0; p < n_; ++p) {
                    const size_t at = static_cast<size_t>(p) * op.count + j;
                    const double w = val(p, it, r_ * op.count + j) * 1000 + r_;
                    if (recv_[at] != w) return "alltoall block " + std::to_string(p);
                }
                continue;
            case Kind::Barrier:
                return "";
            }
            if (got != want)
                return "element " + std::to_string(j) + " is " + std::to_string(got) + ", expected " +
                       std::to_string(want);
        }
        return "";
    }

    int blocking(const Op& op) {
        switch (op.kind) {
        case Kind::Bcast: return MPI_Bcast(recv_.data(), op.count, MPI_DOUBLE, op.root, comm_);
        case Kind::Reduce:
            return MPI_Reduce(send_.data(), recv_.data(), op.count, MPI_DOUBLE, MPI_SUM, op.root, comm_);
        case Kind::Allreduce: return MPI_Allreduce(send_.data(), recv_.data(), op.count, MPI_DOUBLE, MPI_SUM, comm_);
        case Kind::Allgather:
            return MPI_Allgather(send_.data(), op.count, MPI_DOUBLE, recv_.data(), op.count, MPI_DOUBLE, comm_);
        case Kind::Alltoall:
            return MPI_Alltoall(send_.data(), op.count, MPI_DOUBLE, recv_.data(), op.count, MPI_DOUBLE, comm_);
        case Kind::Barrier: return MPI_Barrier(comm_);
        }
        return MPI_ERR_OTHER;
    }

    int nonblocking(const Op& op, MPI_Request* q) {
        switch (op.kind) {
        case Kind::Bcast: return MPI_Ibcast(recv_.data(), op.count, MPI_DOUBLE, op.root, comm_, q);
        case Kind::Reduce:
            return MPI_Ireduce(send_.data(), recv_.data(), op.count, MPI_DOUBLE, MPI_SUM, op.root, comm_, q);
        case Kind::Allreduce:
            return MPI_Iallreduce(send_.data(), recv_.data(), op.count, MPI_DOUBLE, MPI_SUM, comm_, q);
        case Kind::Allgather:
            return MPI_Iallgather(send_.data(), op.count, MPI_DOUBLE, recv_.data(), op.count, MPI_DOUBLE, comm_, q);
        case Kind::Alltoall:
            return MPI_Ialltoall(send_.data(), op.count, MPI_DOUBLE, recv_.data(), op.count, MPI_DOUBLE, comm_, q);
        case Kind::Barrier: return MPI_Ibarrier(comm_, q);
        }
        return MPI_ERR_OTHER;
    }

    // Persistent requests: one per distinct call of the family (a bcast per root).
    size_t persistentIndex(const Op& op) const {
        for (size_t i = 0; i < persistentOps_.size(); ++i) {
            const Op& o = persistentOps_[i];
            if (o.kind == op.kind && o.count == op.count && o.root == op.root) return i;
        }
        return 0;
    }

    void initPersistent() {
        for (int it = 0; it < n_ * 2; ++it)
            for (int s = 0; s < steps_; ++s) {
                const Op op = opOf(it, s);
                bool known = false;
                for (const Op& o : persistentOps_) known |= o.kind == op.kind && o.count == op.count && o.root == op.root;
                if (known) continue;
                MPI_Request q = MPI_REQUEST_NULL;
                switch (op.kind) {
                case Kind::Bcast: MPI_Bcast_init(recv_.data(), op.count, MPI_DOUBLE, op.root, comm_, MPI_INFO_NULL, &q); break;
                case Kind::Reduce:
                    MPI_Reduce_init(send_.data(), recv_.data(), op.count, MPI_DOUBLE, MPI_SUM, op.root, comm_,
                                    MPI_INFO_NULL, &q);
                    break;
                case Kind::Allreduce:
                    MPI_Allreduce_init(send_.data(), recv_.data(), op.count, MPI_DOUBLE, MPI_SUM, comm_, MPI_INFO_NULL, &q);
                    break;
                case Kind::Allgather:
                    MPI_Allgather_init(send_.data(), op.count, MPI_DOUBLE, recv_.data(), op.count, MPI_DOUBLE, comm_,
                                       MPI_INFO_NULL, &q);
                    break;
                case Kind::Alltoall:
                    MPI_Alltoall_init(send_.data(), op.count, MPI_DOUBLE, recv_.data(), op.count, MPI_DOUBLE, comm_,
                                      MPI_INFO_NULL, &q);
                    break;
                case Kind::Barrier: MPI_Barrier_init(comm_, MPI_INFO_NULL, &q); break;
                }
                persistentOps_.push_back(op);
                persistent_.push_back(q);
            }
    }

    const Plan& plan_;
    MPI_Comm comm_;
    int r_ = 0, n_ = 1, steps_ = 1, big_ = 1024;
    std::vector<double> send_, recv_;
    std::vector<Op> persistentOps_;
    std::vector<MPI_Request> persistent_;
};

int fail(int rank, const std::string& why) {
    std::printf("ULFM-FAIL rank %d: %s\n", rank, why.c_str());
    std::fflush(stdout);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    Plan plan;
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s FAMILY blocking|nonblocking|persistent SEED [--node] [--stamp DIR]\n", argv[0]);
        return 2;
    }
    plan.family = argv[1];
    const std::string mode = argv[2];
    plan.mode = mode == "nonblocking" ? Mode::Nonblocking : mode == "persistent" ? Mode::Persistent : Mode::Blocking;
    plan.seed = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
    for (int i = 4; i < argc; ++i) {
        if (std::strcmp(argv[i], "--node") == 0) plan.wholeNode = true;
        else if (std::strcmp(argv[i], "--stamp") == 0 && i + 1 < argc) plan.stampDir = argv[++i];
    }

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    // Where and when the failure strikes: the same draw on every rank.
    std::mt19937 gen(plan.seed);
    const int victim = static_cast<int>(gen() % static_cast<unsigned>(size));
    const int killAt = 3 + static_cast<int>(gen() % (kIterations - 6));
    const int delayUs = static_cast<int>(gen() % 3000);  // after the iteration's start
    // Who dies: the victim, or every rank on its node (found before the failure).
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nodeLeader = rank;
    MPI_Allreduce(MPI_IN_PLACE, &nodeLeader, 1, MPI_INT, MPI_MIN, node);
    std::vector<int> leaderOf(static_cast<size_t>(size));
    MPI_Allgather(&nodeLeader, 1, MPI_INT, leaderOf.data(), 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    std::vector<char> dies(static_cast<size_t>(size), 0);
    for (int p = 0; p < size; ++p) dies[p] = p == victim || (plan.wholeNode && leaderOf[p] == leaderOf[victim]);
    int dead = 0, deadRankSum = 0;
    for (int p = 0; p < size; ++p)
        if (dies[p]) ++dead, deadRankSum += p + 1;
    if (rank == 0)
        std::printf("ulfm_test: family=%s mode=%s seed=%u: world rank %d%s dies (SIGKILL) at iteration %d, "
                    "%d us into it; %d of %d ranks die\n",
                    plan.family.c_str(), mode.c_str(), plan.seed, victim, plan.wholeNode ? " and its node" : "",
                    killAt, delayUs, dead, size);
    std::fflush(stdout);
    if (dead == size) {
        if (rank == 0) std::printf("ULFM-FAIL: every rank would die; run with more nodes\n");
        MPI_Finalize();
        return 1;
    }
    int job = static_cast<int>(getpid());  // rank 0's: names this run's death stamps
    MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
    const std::string stamp =
        plan.stampDir + "/hieragg-ulfm-" + std::to_string(plan.seed) + "-" + std::to_string(job) + ".death";

    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int failedRc = MPI_SUCCESS;
    double callStart = 0, errorAt = 0;
    {
        Family fam(plan, comm);
        std::atomic<bool> armed{false};
        std::thread killer;
        // The victim dies during iteration killAt, or a few later (its delay may outlast
        // short collectives); the survivors go on until a collective fails.
        for (int it = 0; failedRc == MPI_SUCCESS; ++it) {
            if (it > killAt + kMaxIterationsAfterKill) return fail(rank, "no collective failed");
            if (it == killAt && dies[rank]) {
                // Die a little into this iteration, whatever the collective is doing then.
                killer = std::thread([&] {
                    std::this_thread::sleep_for(std::chrono::microseconds(delayUs));
                    std::ofstream(stamp + "." + std::to_string(rank)) << std::to_string(now()) << "\n";
                    raise(SIGKILL);
                });
                armed = true;
            }
            for (int s = 0; s < fam.steps() && failedRc == MPI_SUCCESS; ++s) {
                std::string bad;
                callStart = now();
                const int rc = fam.run(it, s, bad);
                if (rc != MPI_SUCCESS) {
                    errorAt = now();
                    failedRc = rc;
                } else if (!bad.empty()) {
                    return fail(rank, "iteration " + std::to_string(it) + " step " + std::to_string(s) + ": " + bad);
                }
            }
        }
        if (armed) killer.join();  // a victim whose call failed before it died: dies now
    }
    if (!isFailure(failedRc)) return fail(rank, "error is not PROC_FAILED/REVOKED: " + errorName(failedRc));

    // How long this survivor waited: since the death (the victims' stamps, same clock) and
    // since it entered the failing call.
    double death = 0;
    for (int p = 0; p < size; ++p) {
        if (!dies[p]) continue;
        std::ifstream in(stamp + "." + std::to_string(p));
        double t = 0;
        if (in >> t && (death == 0 || t < death)) death = t;
    }
    const double inCall = errorAt - callStart;
    const double sinceDeath = death > 0 ? errorAt - death : -1;
    std::printf("ulfm_test: rank %d got %s after %.3f s in the call, %.3f s after the death\n", rank,
                errorName(failedRc).c_str(), inCall, sinceDeath);
    if (sinceDeath > kMaxWaitSeconds || (death == 0 && inCall > kMaxWaitSeconds))
        return fail(rank, "waited more than 5 s after the failure");

    // Recovery: revoke, shrink, then the shrunk communicator must compute right.
    MPIX_Comm_revoke(comm);
    MPI_Comm shrunk;
    int rc = MPIX_Comm_shrink(comm, &shrunk);
    if (rc != MPI_SUCCESS) return fail(rank, "MPIX_Comm_shrink: " + errorName(rc));
    std::printf("ulfm_test: rank %d revoked and shrank (%.3f s after the error)\n", rank, now() - errorAt);
    std::fflush(stdout);
    MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
    // A survivor that fails here revokes the shrunk communicator before it leaves: the
    // others may wait for it in a collective, and a process that returns from main
    // without MPI_Finalize is no process failure to ULFM (Open MPI 5.0.7 reports none: its
    // peers would wait until the runner's timeout, with Open MPI's own collectives too).
    auto leave = [&](const std::string& why) {
        MPIX_Comm_revoke(shrunk);
        return fail(rank, why);
    };
    int ssize = 0;
    MPI_Comm_size(shrunk, &ssize);
    if (ssize != size - dead) return leave("shrunk communicator has " + std::to_string(ssize) + " ranks");
    std::vector<double> mine(1024), sum(1024, -1);
    for (int j = 0; j < 1024; ++j) mine[j] = (rank + 1) * 3.0 + j;
    rc = MPI_Allreduce(mine.data(), sum.data(), 1024, MPI_DOUBLE, MPI_SUM, shrunk);
    if (rc != MPI_SUCCESS) return leave("allreduce on the shrunk communicator: " + errorName(rc));
    const double liveRanks = size * (size + 1) / 2.0 - deadRankSum;  // sum of world rank + 1 over survivors
    for (int j = 0; j < 1024; ++j)
        if (sum[j] != 3.0 * liveRanks + static_cast<double>(ssize) * j)
            return leave("allreduce on the shrunk communicator: element " + std::to_string(j) + " is " +
                         std::to_string(sum[j]));
    int srank = 0;
    MPI_Comm_rank(shrunk, &srank);
    std::vector<double> b(1024, srank == ssize - 1 ? 7.0 : 0.0);
    rc = MPI_Bcast(b.data(), 1024, MPI_DOUBLE, ssize - 1, shrunk);
    if (rc != MPI_SUCCESS || b[0] != 7.0 || b[1023] != 7.0) return leave("bcast on the shrunk communicator");
    int flag = srank == 0 ? 0x5 : 0x7;  // bitwise AND: 0x5
    rc = MPIX_Comm_agree(shrunk, &flag);
    if (rc != MPI_SUCCESS || flag != 0x5) return leave("MPIX_Comm_agree on the shrunk communicator");
    rc = MPI_Barrier(shrunk);
    if (rc != MPI_SUCCESS) return leave("barrier on the shrunk communicator: " + errorName(rc));

    MPI_Comm_free(&shrunk);
    MPI_Comm_free(&comm);
    if (srank == 0)  // every survivor has read the stamps (the barrier above)
        for (int p = 0; p < size; ++p)
            if (dies[p]) std::remove((stamp + "." + std::to_string(p)).c_str());
    std::printf("ULFM-OK rank %d (shrunk to %d ranks)\n", rank, ssize);
    std::fflush(stdout);
    MPI_Finalize();
    std::printf("ulfm_test: rank %d finalized\n", rank);
    std::fflush(stdout);
    return 0;
}
