// hieragg-bench: times every collective on MPI_COMM_WORLD with whatever
// collective stack mpirun selected (hieragg, tuned, HAN, ...), the way IMB
// reports it: t_max = max over ranks of the mean time per iteration. Every
// call's result is checked against a closed form of the inputs, so a stack
// that returns wrong data is reported as WRONG instead of timed as if it were
// right. The program's own bookkeeping (synchronisation, collecting times and
// verdicts, the ping-pong) uses point-to-point only, so a broken collective of
// the stack under test cannot corrupt it.
//
// Output (rank 0, one line each, flushed at once so a driver can tell which
// cell was running when a stack crashed):
//   LAYOUT ranks <P> nodes <N> hosts <h0,h1,...>
//   PINGPONG <bytes> <one-way us> <MB/s>          (rank 0 <-> first rank on another node)
//   PINGLOCAL 8 <one-way us>                      (rank 0 <-> first other rank on its node)
//   PINGDUPLEX <bytes> <MB/s each way>            (rank 0 <-> that first rank on another node, both ways at once)
//   BEGIN <coll> <bytes>
//   CELL <coll> <bytes> <iters> <t_max us> <t_min us> <t_avg us> ok|WRONG <bad ranks>
//
// usage: hieragg-bench [--colls a,b,...] [--sizes 8,65536,...] [--iters 100,20,...]
//                      [--skip coll:bytes,...] [--pingpong 0|1] [--sync 0|1] [--fail-on-wrong 0|1]
//                      [--corrupt coll]   (tests: rank 1 spoils that result, to see it caught)
// By default the timed calls run back to back (IMB's loop): a rank that finishes a call early
// (a bcast's root, a leaf of a reduce) starts the next one, so t_max is a call's share of a
// stream, not one call's latency. --sync 1 puts a point-to-point barrier (not timed) before
// every timed call, so each call starts from all ranks arriving together and t_max is the
// latency of one call (plus the barrier's exit skew, one message at most): what the cost
// model predicts.
// Message sizes follow IMB: bytes per rank (per pair for alltoall) for the
// gather/scatter/allgather/alltoall families (gatherv, scatterv, alltoallv on request
// through --colls: IMB's equal counts, blocks in rank order), the whole vector for
// bcast/reduce/allreduce/reduce_scatter/scan/exscan.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>  // a no-op outside valgrind
#define HIERAGG_BENCH_ZERO_STATS CALLGRIND_ZERO_STATS
#else
#define HIERAGG_BENCH_ZERO_STATS ((void)0)
#endif
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

constexpr int kTag = 7711;
constexpr int kSentinel = -77777777;

struct Options {
    std::vector<std::string> colls{"bcast",  "allreduce", "reduce",  "allgather",      "allgatherv",
                                   "alltoall", "gather",  "scatter", "reduce_scatter", "barrier"};
    std::vector<size_t> sizes{8, 65536, 4194304};
    std::vector<int> iters{100, 20, 3};
    std::set<std::string> skip;
    bool pingpong = true;
    bool sync = false;         // a p2pBarrier (not timed) before every timed call
    bool failOnWrong = false;  // exit 1 when a result was wrong (tests)
    std::string corrupt;       // tests only: rank 1 spoils this collective's result before the check
};

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find(',', start);
        if (end == std::string::npos) end = s.size();
        if (end > start) out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--colls") {
            o.colls = splitList(v);
        } else if (k == "--sizes") {
            o.sizes.clear();
            for (auto& s : splitList(v)) o.sizes.push_back(std::strtoull(s.c_str(), nullptr, 10));
        } else if (k == "--iters") {
            o.iters.clear();
            for (auto& s : splitList(v)) o.iters.push_back(std::max(1, std::atoi(s.c_str())));
        } else if (k == "--skip") {
            for (auto& s : splitList(v)) o.skip.insert(s);
        } else if (k == "--pingpong") {
            o.pingpong = v != "0";
        } else if (k == "--sync") {
            o.sync = v != "0";
        } else if (k == "--fail-on-wrong") {
            o.failOnWrong = v != "0";
        } else if (k == "--corrupt") {
            o.corrupt = v;
        }
    }
    if (o.iters.empty()) o.iters.push_back(10);
    while (o.iters.size() < o.sizes.size()) o.iters.push_back(o.iters.back());
    return o;
}

// The input element i of rank r: small enough that sums over thousands of
// ranks stay exact in int, and different across ranks and positions.
int input(int r, size_t i) { return static_cast<int>((static_cast<size_t>(r) * 131 + i * 7) % 1009) - 504; }

// Dissemination barrier over point-to-point: independent of the stack under test.
void p2pBarrier(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int d = 1; d < size; d <<= 1) {
        char s = 0, r = 0;
        MPI_Sendrecv(&s, 1, MPI_CHAR, (rank + d) % size, kTag, &r, 1, MPI_CHAR, (rank - d + size) % size, kTag,
                     comm, MPI_STATUS_IGNORE);
    }
}

// Rank 0 gets every rank's value (point-to-point).
template <typename T>
std::vector<T> p2pGather(const T& mine, MPI_Datatype type, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<T> all;
    if (rank == 0) {
        all.resize(size);
        all[0] = mine;
        for (int r = 1; r < size; ++r) MPI_Recv(&all[r], 1, type, r, kTag, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Send(const_cast<T*>(&mine), 1, type, 0, kTag, comm);
    }
    return all;
}

// One collective at one size: buffers, the call, and the closed-form check.
struct Cell {
    std::function<void()> call;
    std::function<void()> prepare;  // before each call, untimed (in-place inputs)
    std::function<void()> poison;   // fill outputs with a sentinel before a checked call
    std::function<long()> check;    // number of wrong elements on this rank
};

Cell makeCell(const std::string& coll, size_t bytes, int rank, int size, std::vector<int>& a,
              std::vector<int>& b) {
    const size_t n = std::max<size_t>(1, bytes / sizeof(int));  // ints per message
    const int ni = static_cast<int>(n);
    const size_t P = static_cast<size_t>(size);
    MPI_Comm w = MPI_COMM_WORLD;
    auto fillInput = [&a, rank](size_t count) {
        a.resize(count);
        for (size_t i = 0; i < count; ++i) a[i] = input(rank, i);
    };
    auto sumOver = [](size_t i, int upto) {
        long s = 0;
        for (int r = 0; r < upto; ++r) s += input(r, i);
        return static_cast<int>(s);
    };
    Cell c;
    c.prepare = [] {};
    c.poison = [&b] { std::fill(b.begin(), b.end(), kSentinel); };
    if (coll == "barrier") {
        c.call = [w] { MPI_Barrier(w); };
        c.poison = [] {};
        c.check = [] { return 0L; };
    } else if (coll == "bcast") {
        b.resize(n);
        if (rank == 0)
            for (size_t i = 0; i < n; ++i) b[i] = input(0, i);
        c.poison = [&b, rank] {
            if (rank != 0) std::fill(b.begin(), b.end(), kSentinel);
        };
        c.call = [&b, ni, w] { MPI_Bcast(b.data(), ni, MPI_INT, 0, w); };
        c.check = [&b] {
            long bad = 0;
            for (size_t i = 0; i < b.size(); ++i) bad += b[i] != input(0, i);
            return bad;
        };
    } else if (coll == "allreduce" || coll == "allreduce_inplace") {
        fillInput(n);
        b.resize(n);
        const bool inplace = coll == "allreduce_inplace";
        if (inplace) {
            c.prepare = [&a, &b] { std::copy(a.begin(), a.end(), b.begin()); };
            c.poison = [] {};
            c.call = [&b, ni, w] { MPI_Allreduce(MPI_IN_PLACE, b.data(), ni, MPI_INT, MPI_SUM, w); };
        } else {
            c.call = [&a, &b, ni, w] { MPI_Allreduce(a.data(), b.data(), ni, MPI_INT, MPI_SUM, w); };
        }
        c.check = [&b, sumOver, size] {
            long bad = 0;
            for (size_t i = 0; i < b.size(); ++i) bad += b[i] != sumOver(i, size);
            return bad;
        };
    } else if (coll == "reduce") {
        fillInput(n);
        b.resize(n);
        c.call = [&a, &b, ni, w] { MPI_Reduce(a.data(), b.data(), ni, MPI_INT, MPI_SUM, 0, w); };
        c.check = [&b, sumOver, size, rank] {
            long bad = 0;
            if (rank == 0)
                for (size_t i = 0; i < b.size(); ++i) bad += b[i] != sumOver(i, size);
            return bad;
        };
    } else if (coll == "scan" || coll == "exscan") {
        fillInput(n);
        b.resize(n);
        // Rank r's result sums the inputs of ranks 0..r, or 0..r-1 when exclusive (exscan:
        // rank 0's result is undefined, so not checked).
        const bool exclusive = coll == "exscan";
        const auto prefix = exclusive ? MPI_Exscan : MPI_Scan;
        c.call = [&a, &b, ni, w, prefix] { prefix(a.data(), b.data(), ni, MPI_INT, MPI_SUM, w); };
        const int upto = exclusive ? rank : rank + 1;
        c.check = [&b, sumOver, upto] {
            long bad = 0;
            if (upto > 0)
                for (size_t i = 0; i < b.size(); ++i) bad += b[i] != sumOver(i, upto);
            return bad;
        };
    } else if (coll == "allgather" || coll == "allgatherv" || coll == "gather" || coll == "gatherv") {
        fillInput(n);
        const bool rooted = coll == "gather" || coll == "gatherv";
        b.resize(rooted && rank != 0 ? 0 : n * P);
        if (coll == "allgather") {
            c.call = [&a, &b, ni, w] { MPI_Allgather(a.data(), ni, MPI_INT, b.data(), ni, MPI_INT, w); };
        } else if (coll == "allgatherv") {
            auto counts = std::make_shared<std::vector<int>>(P, ni);
            auto displs = std::make_shared<std::vector<int>>(P);
            for (size_t r = 0; r < P; ++r) (*displs)[r] = static_cast<int>(r * n);
            c.call = [&a, &b, ni, w, counts, displs] {
                MPI_Allgatherv(a.data(), ni, MPI_INT, b.data(), counts->data(), displs->data(), MPI_INT, w);
            };
        } else if (coll == "gatherv") {
            // IMB's Gatherv: the same count from every rank, blocks in rank order.
            auto counts = std::make_shared<std::vector<int>>(P, ni);
            auto displs = std::make_shared<std::vector<int>>(P);
            for (size_t r = 0; r < P; ++r) (*displs)[r] = static_cast<int>(r * n);
            c.call = [&a, &b, ni, w, counts, displs] {
                MPI_Gatherv(a.data(), ni, MPI_INT, b.data(), counts->data(), displs->data(), MPI_INT, 0, w);
            };
        } else {
            c.call = [&a, &b, ni, w] { MPI_Gather(a.data(), ni, MPI_INT, b.data(), ni, MPI_INT, 0, w); };
        }
        c.check = [&b, n, P] {
            long bad = 0;
            for (size_t r = 0; r < (b.empty() ? 0 : P); ++r)
                for (size_t i = 0; i < n; ++i) bad += b[r * n + i] != input(static_cast<int>(r), i);
            return bad;
        };
    } else if (coll == "scatter" || coll == "scatterv") {
        // Root sends block r (the closed form input(r, i)) to rank r.
        a.resize(rank == 0 ? n * P : 0);
        for (size_t r = 0; r < (rank == 0 ? P : 0); ++r)
            for (size_t i = 0; i < n; ++i) a[r * n + i] = input(static_cast<int>(r), i);
        b.resize(n);
        if (coll == "scatterv") {
            auto counts = std::make_shared<std::vector<int>>(P, ni);
            auto displs = std::make_shared<std::vector<int>>(P);
            for (size_t r = 0; r < P; ++r) (*displs)[r] = static_cast<int>(r * n);
            c.call = [&a, &b, ni, w, counts, displs] {
                MPI_Scatterv(a.data(), counts->data(), displs->data(), MPI_INT, b.data(), ni, MPI_INT, 0, w);
            };
        } else {
            c.call = [&a, &b, ni, w] { MPI_Scatter(a.data(), ni, MPI_INT, b.data(), ni, MPI_INT, 0, w); };
        }
        c.check = [&b, rank] {
            long bad = 0;
            for (size_t i = 0; i < b.size(); ++i) bad += b[i] != input(rank, i);
            return bad;
        };
    } else if (coll == "alltoall" || coll == "alltoallv") {
        // Block j of rank r's input goes to rank j; element i of it is input(r, j*n+i).
        fillInput(n * P);
        b.resize(n * P);
        if (coll == "alltoallv") {
            auto counts = std::make_shared<std::vector<int>>(P, ni);
            auto displs = std::make_shared<std::vector<int>>(P);
            for (size_t r = 0; r < P; ++r) (*displs)[r] = static_cast<int>(r * n);
            c.call = [&a, &b, w, counts, displs] {
                MPI_Alltoallv(a.data(), counts->data(), displs->data(), MPI_INT, b.data(), counts->data(),
                              displs->data(), MPI_INT, w);
            };
        } else {
            c.call = [&a, &b, ni, w] { MPI_Alltoall(a.data(), ni, MPI_INT, b.data(), ni, MPI_INT, w); };
        }
        c.check = [&b, n, P, rank] {
            long bad = 0;
            for (size_t r = 0; r < P; ++r)
                for (size_t i = 0; i < n; ++i)
                    bad += b[r * n + i] != input(static_cast<int>(r), static_cast<size_t>(rank) * n + i);
            return bad;
        };
    } else if (coll == "reduce_scatter") {
        // IMB's convention: the whole vector is `bytes`, rank r keeps its share.
        fillInput(n);
        auto counts = std::make_shared<std::vector<int>>(P);
        size_t offset = 0, mine = 0;
        for (size_t r = 0; r < P; ++r) {
            (*counts)[r] = static_cast<int>(n / P + (r < n % P ? 1 : 0));
            if (static_cast<int>(r) == rank) mine = offset;
            offset += (*counts)[r];
        }
        b.resize(std::max(1, (*counts)[rank]));
        c.call = [&a, &b, w, counts] {
            MPI_Reduce_scatter(a.data(), b.data(), counts->data(), MPI_INT, MPI_SUM, w);
        };
        const size_t cnt = (*counts)[rank];
        c.check = [&b, sumOver, size, mine, cnt] {
            long bad = 0;
            for (size_t i = 0; i < cnt; ++i) bad += b[i] != sumOver(mine + i, size);
            return bad;
        };
    }
    return c;
}

// Timed ping-pong between rank 0 and `peer` (decided by rank 0): one-way time in s.
double pingpongOneWay(int rank, int peer, size_t bytes) {
    std::vector<char> buf(bytes, 1);
    const int reps = bytes < 1024 ? 200 : 5;
    p2pBarrier(MPI_COMM_WORLD);
    double t = 0;
    for (int it = -1; it < reps; ++it) {  // it -1 warms the connection up
        const double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf.data(), (int)bytes, MPI_CHAR, peer, kTag, MPI_COMM_WORLD);
            MPI_Recv(buf.data(), (int)bytes, MPI_CHAR, peer, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == peer) {
            MPI_Recv(buf.data(), (int)bytes, MPI_CHAR, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf.data(), (int)bytes, MPI_CHAR, 0, kTag, MPI_COMM_WORLD);
        }
        if (it >= 0) t += MPI_Wtime() - t0;
    }
    return t / reps / 2;
}

// Rank 0 learns the peers, every rank learns them point-to-point.
void sharePeers(int rank, int size, int peers[2]) {
    if (rank == 0)
        for (int r = 1; r < size; ++r) MPI_Send(peers, 2, MPI_INT, r, kTag, MPI_COMM_WORLD);
    else
        MPI_Recv(peers, 2, MPI_INT, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// Rank 0 and the first rank on another host: one-way latency (8 B) and bandwidth
// (4 MiB); rank 0 and the first other rank on its own host: one-way latency (8 B),
// the intra-node cost in the 8 B latency bound (bench/perf_report.py).
void pingpong(int rank, int size, const std::vector<std::string>& hosts) {
    int peers[2] = {-1, -1};  // {another host, this host}: decided by rank 0, the only one that knows every host
    if (rank == 0) {
        for (int r = 1; r < size; ++r) {
            if (hosts[r] != hosts[0] && peers[0] < 0) peers[0] = r;
            if (hosts[r] == hosts[0] && peers[1] < 0) peers[1] = r;
        }
        if (peers[0] < 0 && size > 1) peers[0] = 1;
    }
    sharePeers(rank, size, peers);
    if (peers[0] >= 0) {
        for (size_t bytes : {size_t(8), size_t(4) << 20}) {
            const double oneway = pingpongOneWay(rank, peers[0], bytes);
            if (rank == 0) {
                std::printf("PINGPONG %zu %.1f %.1f\n", bytes, oneway * 1e6, bytes / oneway / 1e6);
                std::fflush(stdout);
            }
        }
    }
    if (peers[0] >= 0) {
        // Both directions at once: what one link carries each way when both are busy
        // (allgather and alltoall load both); the emulated links' per-packet daemon
        // shares the cores with the ranks, so this can be well below the one-way rate.
        const size_t bytes = size_t(4) << 20;
        std::vector<char> out(bytes, 1), in(bytes);
        const int reps = 5;
        p2pBarrier(MPI_COMM_WORLD);
        double t = 0;
        for (int it = -1; it < reps; ++it) {
            const double t0 = MPI_Wtime();
            if (rank == 0 || rank == peers[0])
                MPI_Sendrecv(out.data(), (int)bytes, MPI_CHAR, rank == 0 ? peers[0] : 0, kTag, in.data(), (int)bytes,
                             MPI_CHAR, rank == 0 ? peers[0] : 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (it >= 0) t += MPI_Wtime() - t0;
        }
        if (rank == 0) {
            std::printf("PINGDUPLEX %zu %.1f\n", bytes, bytes / (t / reps) / 1e6);
            std::fflush(stdout);
        }
    }
    if (peers[1] >= 0 && peers[1] != peers[0]) {
        const double oneway = pingpongOneWay(rank, peers[1], 8);
        if (rank == 0) {
            std::printf("PINGLOCAL 8 %.2f\n", oneway * 1e6);
            std::fflush(stdout);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const Options o = parse(argc, argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct Host {
        char name[64];
    } me{};
    gethostname(me.name, sizeof me.name - 1);
    MPI_Datatype hostType;
    MPI_Type_contiguous(sizeof(Host), MPI_CHAR, &hostType);
    MPI_Type_commit(&hostType);
    std::vector<Host> hostList = p2pGather(me, hostType, MPI_COMM_WORLD);
    MPI_Type_free(&hostType);
    std::vector<std::string> hosts;
    for (auto& h : hostList) hosts.emplace_back(h.name);
    if (rank == 0) {
        std::set<std::string> distinct(hosts.begin(), hosts.end());
        std::printf("LAYOUT ranks %d nodes %zu hosts ", size, distinct.size());
        for (int r = 0; r < size; ++r) std::printf("%s%s", r ? "," : "", hosts[r].c_str());
        std::printf("\n");
        std::fflush(stdout);
    }
    if (o.pingpong) pingpong(rank, size, hosts);

    std::vector<int> a, b;
    int wrongCells = 0;
    for (const auto& coll : o.colls) {
        for (size_t k = 0; k < o.sizes.size(); ++k) {
            const size_t bytes = coll == "barrier" ? 0 : o.sizes[k];
            if (coll == "barrier" && k > 0) break;
            const std::string key = coll + ":" + std::to_string(bytes);
            if (o.skip.count(key)) continue;
            const int iters = coll == "barrier" ? o.iters.front() : o.iters[k];
            Cell c = makeCell(coll, bytes, rank, size, a, b);
            if (!c.call) {
                if (rank == 0) std::fprintf(stderr, "hieragg-bench: unknown collective '%s'\n", coll.c_str());
                continue;
            }
            if (rank == 0) {
                std::printf("BEGIN %s %zu\n", coll.c_str(), bytes);
                std::fflush(stdout);
            }
            // Warm-up call (connections, decomposition, schedule cache), checked.
            long bad = 0;
            c.prepare();
            c.poison();
            p2pBarrier(MPI_COMM_WORLD);
            c.call();
            bad += c.check();
            p2pBarrier(MPI_COMM_WORLD);
            // Under callgrind (bench/percall-instructions.sh): count the timed calls only, not
            // the warm-up's set-up (decomposition, connections) and its progress polls.
            HIERAGG_BENCH_ZERO_STATS;
            double total = 0;
            for (int it = 0; it < iters; ++it) {
                c.prepare();
                if (it == iters - 1) c.poison();  // the last timed call is checked too
                if (o.sync) p2pBarrier(MPI_COMM_WORLD);
                const double t0 = MPI_Wtime();
                c.call();
                total += MPI_Wtime() - t0;
            }
            if (coll == o.corrupt && rank == 1 && !b.empty()) b[b.size() / 2] ^= 1;
            bad += c.check();
            const double mean = total / iters * 1e6;
            std::vector<double> times = p2pGather(mean, MPI_DOUBLE, MPI_COMM_WORLD);
            std::vector<long> bads = p2pGather(bad, MPI_LONG, MPI_COMM_WORLD);
            if (rank == 0) {
                const double tmax = *std::max_element(times.begin(), times.end());
                const double tmin = *std::min_element(times.begin(), times.end());
                double tavg = 0;
                for (double t : times) tavg += t / size;
                int badRanks = 0;
                for (long x : bads) badRanks += x != 0;
                std::printf("CELL %s %zu %d %.2f %.2f %.2f %s %d\n", coll.c_str(), bytes, iters, tmax, tmin, tavg,
                            badRanks ? "WRONG" : "ok", badRanks);
                std::fflush(stdout);
                wrongCells += badRanks != 0;
            }
            p2pBarrier(MPI_COMM_WORLD);
        }
    }
    // A wrong result is reported in the table, not as a failed job: the driver
    // tells a crash (no CELL line) from a wrong answer (CELL ... WRONG).
    MPI_Finalize();
    return o.failOnWrong && wrongCells ? 1 : 0;
}
