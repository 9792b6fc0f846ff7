#include "harness.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace mpitest {

namespace {
int g_rank = 0, g_size = 1;
Types g_types;

// ---- watchdog: a hang becomes a message and a non-zero exit ----
std::mutex g_wd_mutex;
std::string g_wd_test;
std::atomic<long long> g_wd_deadline{0};  // ms since epoch, 0 = idle
std::atomic<bool> g_wd_stop{false};
int g_wd_seconds = 60;

long long nowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void watchdogLoop() {
    while (!g_wd_stop.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        long long d = g_wd_deadline.load();
        if (d != 0 && nowMs() > d) {
            std::string name;
            {
                std::lock_guard<std::mutex> lk(g_wd_mutex);
                name = g_wd_test;
            }
            std::fprintf(stderr,
                         "[rank %d] WATCHDOG: test %s still running after %d s (hang?); exiting "
                         "with code 3\n",
                         g_rank, name.c_str(), g_wd_seconds);
            std::fflush(stderr);
            std::fflush(stdout);
            _exit(3);
        }
    }
}

class WatchdogListener : public ::testing::EmptyTestEventListener {
    void OnTestStart(const ::testing::TestInfo& t) override {
        {
            std::lock_guard<std::mutex> lk(g_wd_mutex);
            g_wd_test = std::string(t.test_suite_name()) + "." + t.name();
        }
        g_wd_deadline.store(nowMs() + 1000LL * g_wd_seconds);
    }
    void OnTestEnd(const ::testing::TestInfo&) override { g_wd_deadline.store(0); }
};

void makeTypes() {
    MPI_Type_vector(3, 1, 2, MPI_INT, &g_types.vec3);
    MPI_Type_commit(&g_types.vec3);
    MPI_Type_contiguous(3, MPI_INT, &g_types.contig3);
    MPI_Type_commit(&g_types.contig3);
    MPI_Type_contiguous(2, MPI_INT, &g_types.contig2);
    MPI_Type_commit(&g_types.contig2);
    // A struct of one int, resized: lb = -4, extent 12, so every element has a
    // 4-byte gap before and a 4-byte gap after its int.
    int bl = 1;
    MPI_Aint disp = 0;
    MPI_Datatype t = MPI_INT, st;
    MPI_Type_create_struct(1, &bl, &disp, &t, &st);
    MPI_Type_create_resized(st, -4, 12, &g_types.gapint);
    MPI_Type_commit(&g_types.gapint);
    MPI_Type_free(&st);
}

void freeTypes() {
    MPI_Type_free(&g_types.vec3);
    MPI_Type_free(&g_types.contig3);
    MPI_Type_free(&g_types.contig2);
    MPI_Type_free(&g_types.gapint);
}
}  // namespace

int worldRank() { return g_rank; }
int worldSize() { return g_size; }
const Types& types() { return g_types; }

std::string mpiErrorString(int rc) {
    char buf[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS) return "error " + std::to_string(rc);
    int cls = 0;
    MPI_Error_class(rc, &cls);
    return "error " + std::to_string(rc) + " (class " + std::to_string(cls) + "): " +
           std::string(buf, len);
}

void Check::fail(const std::string& m) {
    if (fails < 5) msgs += "    " + m + "\n";
    else if (fails == 5) msgs += "    ... (further mismatches not shown)\n";
    ++fails;
}

bool Check::ok(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return true;
    fail(std::string(what) + " returned " + mpiErrorString(rc));
    return false;
}

void MpiTest::TearDown() {
    long total = chk.fails;
    std::string text;
    if (g_rank == 0) {
        if (chk.fails) text += "  rank 0: " + std::to_string(chk.fails) + " mismatch(es)\n" + chk.msgs;
        for (int r = 1; r < g_size; ++r) {
            long f = 0;
            MPI_Recv(&f, 1, MPI_LONG, r, kReportTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Status st;
            MPI_Probe(r, kReportTag, MPI_COMM_WORLD, &st);
            int n = 0;
            MPI_Get_count(&st, MPI_CHAR, &n);
            std::string m(static_cast<size_t>(n), '\0');
            MPI_Recv(n ? &m[0] : nullptr, n, MPI_CHAR, r, kReportTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (f) text += "  rank " + std::to_string(r) + ": " + std::to_string(f) + " mismatch(es)\n" + m;
            total += f;
        }
        for (int r = 1; r < g_size; ++r) MPI_Send(&total, 1, MPI_LONG, r, kVerdictTag, MPI_COMM_WORLD);
    } else {
        MPI_Send(&chk.fails, 1, MPI_LONG, 0, kReportTag, MPI_COMM_WORLD);
        MPI_Send(chk.msgs.data(), static_cast<int>(chk.msgs.size()), MPI_CHAR, 0, kReportTag,
                 MPI_COMM_WORLD);
        MPI_Recv(&total, 1, MPI_LONG, 0, kVerdictTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (total) {
        if (g_rank == 0) ADD_FAILURE() << "failures on " << g_size << " ranks:\n" << text;
        else ADD_FAILURE() << "a rank failed (details in rank 0's output)";
    }
}

const char* modeName(Mode m) {
    switch (m) {
        case Mode::Blocking: return "Blocking";
        case Mode::Nonblocking: return "Nonblocking";
        case Mode::Persistent: return "Persistent";
    }
    return "?";
}

std::string modeParamName(const ::testing::TestParamInfo<Mode>& info) { return modeName(info.param); }

void run(Check& chk, Mode m, const Coll& c, const std::function<void()>& prepare,
         const std::function<void()>& verify) {
    std::string what = std::string(c.name) + " (" + modeName(m) + ")";
    if (m == Mode::Blocking) {
        prepare();
        if (chk.ok(c.blocking(), what.c_str())) verify();
        return;
    }
    if (m == Mode::Nonblocking || !c.init) {
        prepare();
        MPI_Request r = MPI_REQUEST_NULL;
        if (!chk.ok(c.start(&r), what.c_str())) return;
        if (chk.ok(MPI_Wait(&r, MPI_STATUS_IGNORE), (what + " MPI_Wait").c_str())) verify();
        return;
    }
    MPI_Request r = MPI_REQUEST_NULL;
    if (!chk.ok(c.init(&r), (what + " init").c_str())) return;
    for (int it = 0; it < 3; ++it) {
        prepare();
        if (!chk.ok(MPI_Start(&r), (what + " MPI_Start").c_str())) break;
        if (!chk.ok(MPI_Wait(&r, MPI_STATUS_IGNORE), (what + " MPI_Wait").c_str())) break;
        verify();
    }
    MPI_Request_free(&r);
}

}  // namespace mpitest

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    using namespace mpitest;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (const char* s = std::getenv("HIERAGG_TEST_WATCHDOG")) g_wd_seconds = std::atoi(s);
    ::testing::InitGoogleTest(&argc, argv);
    ::testing::TestEventListeners& ls = ::testing::UnitTest::GetInstance()->listeners();
    if (g_rank != 0) delete ls.Release(ls.default_result_printer());
    ls.Append(new WatchdogListener);
    makeTypes();
    std::thread wd(watchdogLoop);
    int rc = RUN_ALL_TESTS();
    g_wd_stop.store(true);
    wd.join();
    freeTypes();
    MPI_Finalize();
    return rc;
}
