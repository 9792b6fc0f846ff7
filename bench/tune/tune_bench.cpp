// hieragg-tune-bench: the MPI half of hieragg-tune. Launched once per protocol
// index with a rules file that forces that protocol (--rules, the same file given
// as coll_hieragg_rules_file), it times each collective over the size grid and
// prints, on rank 0, one CSV line per point:
//   coll,index,ranks,subspaces,bytes,us,mbps,served
// served = 1 iff the MPI_T counter coll_hieragg_<coll>_algorithm_calls shows that the
// forced algorithm served every timed call (a protocol whose needs fail here is run
// by the model instead and must not be fitted under its name). Without --rules it
// times whatever the component chooses (index -1, served 1): hieragg-tune --compare.
// Its own bookkeeping is point-to-point, so the only collectives are the timed ones.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "hieragg/mpit/AlgorithmPosition.hpp"

#include <nlohmann/json.hpp>

namespace {

struct Options {
    std::string rules;
    int index = 0;
    std::vector<std::string> colls;
    std::vector<size_t> sizes;
    double budgetMs = 20;
};

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos <= s.size()) {
        const size_t comma = s.find(',', pos);
        const std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (!item.empty()) out.push_back(item);
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return out;
}


class Counter {  // one started MPI_T handle on a communicator
public:
    Counter(MPI_T_pvar_session s, const std::string& name, int cls, MPI_Comm comm) : s_(s) {
        int idx = -1;
        if (MPI_T_pvar_get_index(name.c_str(), cls, &idx) != MPI_SUCCESS) return;
        if (MPI_T_pvar_handle_alloc(s, idx, &comm, &h_, &count_) != MPI_SUCCESS) return;
        MPI_T_pvar_start(s, h_);
        ok_ = true;
    }
    std::vector<unsigned long long> read() {
        std::vector<unsigned long long> v(ok_ ? count_ : 0);
        if (ok_) MPI_T_pvar_read(s_, h_, v.data());
        return v;
    }

private:
    MPI_T_pvar_session s_;
    MPI_T_pvar_handle h_ = MPI_T_PVAR_HANDLE_NULL;
    int count_ = 0;
    bool ok_ = false;
};

void call(const std::string& coll, MPI_Comm comm, size_t bytes, std::vector<int>& in, std::vector<int>& out) {
    const int n = static_cast<int>(std::max<size_t>(1, bytes / sizeof(int)));
    if (coll == "bcast") MPI_Bcast(in.data(), static_cast<int>(std::max<size_t>(1, bytes)), MPI_BYTE, 0, comm);
    else if (coll == "reduce") MPI_Reduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, 0, comm);
    else if (coll == "allreduce") MPI_Allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, comm);
    else if (coll == "barrier") MPI_Barrier(comm);
}

// Rank 0's value to every rank, and the max / min of every rank's value at rank 0.
template <class T> void shareFromZero(T& v, MPI_Datatype t) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        for (int r = 1; r < size; ++r) MPI_Send(&v, 1, t, r, 7101, MPI_COMM_WORLD);
    else
        MPI_Recv(&v, 1, t, 0, 7101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
template <class T, class F> T combineAtZero(T v, MPI_Datatype t, F pick) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0) {
        MPI_Send(&v, 1, t, 0, 7102, MPI_COMM_WORLD);
        return v;
    }
    for (int r = 1; r < size; ++r) {
        T x;
        MPI_Recv(&x, 1, t, r, 7102, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        v = pick(v, x);
    }
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int provided = 0, rank = 0, size = 1;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--rules") o.rules = v;
        else if (a == "--index") o.index = std::atoi(v.c_str());
        else if (a == "--colls") o.colls = splitList(v);
        else if (a == "--sizes") for (const auto& s : splitList(v)) o.sizes.push_back(std::strtoull(s.c_str(), nullptr, 10));
        else if (a == "--budget-ms") o.budgetMs = std::max(1.0, std::atof(v.c_str()));
    }
    nlohmann::json rules;
    try {
        if (!o.rules.empty()) std::ifstream(o.rules) >> rules;
    } catch (...) {
        if (rank == 0) std::fprintf(stderr, "hieragg-tune-bench: cannot read %s\n", o.rules.c_str());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const bool forced = !o.rules.empty();
    if (!forced) o.index = -1;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_T_pvar_session session;
    MPI_T_pvar_session_create(&session);
    Counter subspaces(session, "coll_hieragg_subspaces", MPI_T_PVAR_CLASS_SIZE, comm);
    const size_t maxBytes = o.sizes.empty() ? 8 : *std::max_element(o.sizes.begin(), o.sizes.end());
    std::vector<int> in(maxBytes / sizeof(int) + 1, 1), out(in.size(), 0);
    for (const std::string& coll : o.colls) {
        if (forced && !rules["collectives"].contains(coll)) continue;
        const int pos = forced ? hieragg::mpit::algorithmPosition(coll, rules["collectives"][coll]["candidates"][0]["algorithm"]) : -1;
        Counter calls(session, "coll_hieragg_" + coll + "_algorithm_calls", MPI_T_PVAR_CLASS_COUNTER, comm);
        // The barrier has no size: three samples of its one point (the fit takes their median).
        const std::vector<size_t> sizes = coll == "barrier" ? std::vector<size_t>{0, 0, 0} : o.sizes;
        for (size_t bytes : sizes) {
            for (int w = 0; w < 2; ++w) call(coll, comm, bytes, in, out);
            // Rank 0 picks the repetitions from a short trial so each point takes about the budget.
            MPI_Barrier(comm);
            double t = MPI_Wtime();
            for (int w = 0; w < 3; ++w) call(coll, comm, bytes, in, out);
            t = (MPI_Wtime() - t) / 3;
            int iters = static_cast<int>(std::min(2000.0, std::max(3.0, o.budgetMs * 1e-3 / std::max(t, 1e-7))));
            shareFromZero(iters, MPI_INT);
            // Five batches, the median batch mean: a shared machine's hiccups fall out.
            const int batches = 5, perBatch = std::max(1, iters / batches);
            std::vector<double> batchUs;
            MPI_Barrier(comm);
            const std::vector<unsigned long long> before = calls.read();
            for (int b = 0; b < batches; ++b) {
                const double t0 = MPI_Wtime();
                for (int i = 0; i < perBatch; ++i) call(coll, comm, bytes, in, out);
                batchUs.push_back((MPI_Wtime() - t0) / perBatch * 1e6);
            }
            std::sort(batchUs.begin(), batchUs.end());
            double us = batchUs[batches / 2];
            iters = batches * perBatch;
            const std::vector<unsigned long long> after = calls.read();
            const int served = !forced || (pos >= 0 && static_cast<size_t>(pos) < after.size() &&
                                           after[pos] - before[pos] == static_cast<unsigned long long>(iters));
            const double slowest = combineAtZero(us, MPI_DOUBLE, [](double a, double b) { return std::max(a, b); });
            const int allServed = combineAtZero(served, MPI_INT, [](int a, int b) { return std::min(a, b); });
            const std::vector<unsigned long long> sub = subspaces.read();
            if (rank == 0)
                std::printf("%s,%d,%d,%llu,%zu,%.4f,%.4f,%d\n", coll.c_str(), o.index, size,
                            sub.empty() ? 0ull : sub[0], bytes, slowest, slowest > 0 ? bytes / slowest : 0.0, allServed);
        }
    }
    std::fflush(stdout);
    MPI_T_pvar_session_free(&session);
    MPI_Comm_free(&comm);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
