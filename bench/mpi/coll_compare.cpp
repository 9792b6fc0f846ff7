// hieragg-compare: one MPI job, two communicators over the same ranks — one
// served by hieragg, one (info hieragg_disable=true) by Open MPI's default
// components — and the same collectives timed on both, interleaved, so the
// ratio is not skewed by whatever else the machine is doing. Results of the
// two stacks are compared element by element.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
    std::vector<size_t> sizes{8, 1024, 65536, 1 << 20};
    std::vector<std::string> colls{"bcast", "allreduce", "reduce", "allgather", "alltoall", "barrier"};
    int iters = 30;
};

std::vector<std::string> splitList(const char* s) {
    std::vector<std::string> out;
    std::string cur;
    for (const char* p = s;; ++p) {
        if (*p == ',' || *p == '\0') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
            if (*p == '\0') break;
        } else {
            cur += *p;
        }
    }
    return out;
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--sizes")) {
            o.sizes.clear();
            for (auto& s : splitList(argv[i + 1])) o.sizes.push_back(std::strtoull(s.c_str(), nullptr, 10));
        } else if (!std::strcmp(argv[i], "--colls")) {
            o.colls = splitList(argv[i + 1]);
        } else if (!std::strcmp(argv[i], "--iters")) {
            o.iters = std::max(1, std::atoi(argv[i + 1]));
        }
    }
    return o;
}

// Runs one collective of `bytes` bytes (as ints) on comm; fills out for checking.
void runOnce(const std::string& coll, MPI_Comm comm, size_t bytes, std::vector<int>& in,
             std::vector<int>& out) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    const int n = static_cast<int>(std::max<size_t>(1, bytes / sizeof(int)));
    if (coll == "bcast") {
        out = in;
        MPI_Bcast(out.data(), n, MPI_INT, 0, comm);
    } else if (coll == "allreduce") {
        MPI_Allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, comm);
    } else if (coll == "reduce") {
        MPI_Reduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, 0, comm);
    } else if (coll == "allgather") {
        const int m = std::max(1, n / size);
        MPI_Allgather(in.data(), m, MPI_INT, out.data(), m, MPI_INT, comm);
    } else if (coll == "alltoall") {
        const int m = std::max(1, n / size);
        MPI_Alltoall(in.data(), m, MPI_INT, out.data(), m, MPI_INT, comm);
    } else if (coll == "barrier") {
        MPI_Barrier(comm);
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    Options o = parse(argc, argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Info off;
    MPI_Info_create(&off);
    MPI_Info_set(off, "hieragg_disable", "true");
    MPI_Comm viaHieragg, viaDefault;
    MPI_Comm_dup(MPI_COMM_WORLD, &viaHieragg);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, off, &viaDefault);
    MPI_Info_free(&off);

    if (rank == 0) {
        std::printf("hieragg-compare: %d ranks, %d iterations per point, median of the slowest rank\n", size,
                    o.iters);
        std::printf("%-10s %10s %14s %14s %8s %s\n", "collective", "bytes", "hieragg_us", "default_us",
                    "ratio", "results");
    }
    int failures = 0;
    for (const auto& coll : o.colls) {
        for (size_t bytes : o.sizes) {
            if (coll == "barrier" && bytes != o.sizes.front()) continue;
            const size_t n = std::max<size_t>(1, bytes / sizeof(int)) * static_cast<size_t>(size) + size;
            std::vector<int> in(n), outH(n, 0), outD(n, 0);
            for (size_t i = 0; i < n; ++i) in[i] = static_cast<int>((rank + 1) * 131 + i % 977);
            // Warm up both (decomposition, schedule cache, connections).
            runOnce(coll, viaHieragg, bytes, in, outH);
            runOnce(coll, viaDefault, bytes, in, outD);
            int same = (coll == "reduce" && rank != 0) || outH == outD;
            std::vector<double> tH, tD;
            for (int it = 0; it < o.iters; ++it) {
                for (int which = 0; which < 2; ++which) {
                    MPI_Comm c = which == 0 ? viaHieragg : viaDefault;
                    MPI_Barrier(viaDefault);
                    double t0 = MPI_Wtime();
                    runOnce(coll, c, bytes, in, which == 0 ? outH : outD);
                    double dt = MPI_Wtime() - t0, slowest = 0;
                    MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, viaDefault);
                    (which == 0 ? tH : tD).push_back(slowest * 1e6);
                }
            }
            int allSame = 0;
            MPI_Reduce(&same, &allSame, 1, MPI_INT, MPI_MIN, 0, viaDefault);
            if (rank == 0) {
                const double mh = median(tH), md = median(tD);
                std::printf("%-10s %10zu %14.1f %14.1f %8.2f %s\n", coll.c_str(), coll == "barrier" ? 0 : bytes,
                            mh, md, mh > 0 ? md / mh : 0.0, allSame ? "identical" : "DIFFER");
                if (!allSame) ++failures;
            }
        }
    }
    if (rank == 0) std::printf("ratio = default / hieragg (> 1: hieragg faster)\n");
    MPI_Comm_free(&viaHieragg);
    MPI_Comm_free(&viaDefault);
    MPI_Finalize();
    return failures ? 1 : 0;
}
