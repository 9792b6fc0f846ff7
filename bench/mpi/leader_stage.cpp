// hieragg-leader-stage: times barrier, bcast and allreduce (double sum) from 8 B to 4 MiB
// on MPI_COMM_WORLD, for comparing the offloaded leader stage with point-to-point
// (bench/offload-compare.sh runs it alternately with coll_hieragg_offload=ofi and off:
// the offload switch is per job, so the comparison interleaves jobs). Prints one line
// per collective and size: the median over rounds of the slowest rank's mean time per call
// (each call starts after an untimed barrier; barrier itself is timed back to back).
// usage: hieragg-leader-stage [ROUNDS] [LABEL] [SIZES e.g. 8,65536,4194304] [COLLS e.g. bcast]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double slowestMeanUs(MPI_Comm comm, const std::vector<double>& perCall) {
    double mine = 0;
    for (double t : perCall) mine += t;
    mine = mine / perCall.size() * 1e6;
    double worst = 0;
    // Point-to-point gather of the maximum (the collectives are what is measured).
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) {
        worst = mine;
        for (int r = 1; r < size; ++r) {
            double t = 0;
            MPI_Recv(&t, 1, MPI_DOUBLE, r, 7, comm, MPI_STATUS_IGNORE);
            worst = std::max(worst, t);
        }
    } else {
        MPI_Send(&mine, 1, MPI_DOUBLE, 0, 7, comm);
    }
    return worst;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
    const char* label = argc > 2 ? argv[2] : "";
    // Optional third argument: the sizes (comma-separated bytes); fourth: the collectives.
    std::vector<size_t> sizes;
    if (argc > 3) {
        for (const char* p = argv[3]; *p;) {
            char* end = nullptr;
            const unsigned long long v = std::strtoull(p, &end, 10);
            if (end == p) break;
            if (v > 0 && v <= (size_t{4} << 20)) sizes.push_back(static_cast<size_t>(v));
            p = *end == ',' ? end + 1 : end;
        }
    }
    if (sizes.empty()) {
        for (size_t b = 8; b <= (size_t{4} << 20); b *= 8) sizes.push_back(b);
        sizes.push_back(size_t{4} << 20);
    }
    const std::string colls = argc > 4 ? argv[4] : "barrier,bcast,allreduce";
    std::vector<char> buf(size_t{4} << 20), out(size_t{4} << 20);
    for (const char* coll : {"barrier", "bcast", "allreduce"}) {
        if (colls.find(coll) == std::string::npos) continue;
        for (size_t bytes : sizes) {
            if (std::string(coll) == "barrier" && bytes != 8) continue;
            const int iters = bytes <= 65536 ? 50 : bytes <= (1 << 20) ? 10 : 4;
            std::vector<double> medians;
            for (int r = 0; r < rounds; ++r) {
                std::vector<double> t;
                for (int i = 0; i < iters + 2; ++i) {
                    // Start together (untimed), so calls do not pipeline into each other.
                    if (coll[1] != 'a') MPI_Barrier(MPI_COMM_WORLD);
                    const double t0 = MPI_Wtime();
                    if (coll[0] == 'b' && coll[1] == 'a') MPI_Barrier(MPI_COMM_WORLD);
                    else if (coll[0] == 'b') MPI_Bcast(buf.data(), static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
                    else MPI_Allreduce(buf.data(), out.data(), static_cast<int>(bytes / 8), MPI_DOUBLE, MPI_SUM,
                                       MPI_COMM_WORLD);
                    if (i >= 2) t.push_back(MPI_Wtime() - t0);  // two warm-up calls
                }
                medians.push_back(slowestMeanUs(MPI_COMM_WORLD, t));
            }
            std::sort(medians.begin(), medians.end());
            if (rank == 0)
                std::printf("%s %s %zu %.1f\n", label, coll, bytes, medians[medians.size() / 2]);
        }
    }
    MPI_Finalize();
    return 0;
}
