// MPI integration test harness: GoogleTest under mpirun.
//
// Every rank runs every test in the same order. A test never stops early on a
// mismatch: it records it in `chk` and goes on calling all its collectives, so
// the other ranks never wait for a call that will not come. At the end of each
// test (fixture TearDown) every rank sends its failures to rank 0 with
// MPI_Send/MPI_Recv on MPI_COMM_WORLD (never with a collective: collectives are
// what is under test); rank 0 prints them and sends the verdict back, so every
// rank fails the same tests and exits with the same code. A watchdog thread
// turns a hang into a clear message and a non-zero exit.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>
// After mpi.h: Open MPI's extensions; MPIX_*_init (persistent collectives) on 4.1 and 5.0.
#include <mpi-ext.h>
#include "persistent_names.hpp"

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace mpitest {

int worldRank();
int worldSize();

// Records mismatches of one test on this rank (first few in detail).
struct Check {
    long fails = 0;
    std::string msgs;
    void fail(const std::string& m);
    // MPI return code check: records an error with the MPI error string.
    bool ok(int rc, const char* what);
    template <class T, class U>
    bool eq(const T& got, const U& exp, const std::string& what, long idx = -1) {
        if (got == static_cast<T>(exp)) return true;
        std::ostringstream os;
        os << what;
        if (idx >= 0) os << "[" << idx << "]";
        os << ": got " << got << ", expected " << exp;
        fail(os.str());
        return false;
    }
    bool truth(bool c, const std::string& what) {
        if (!c) fail(what);
        return c;
    }
};

std::string mpiErrorString(int rc);

// The fixture every MPI test uses: `chk` is reported (and gathered) in TearDown.
class MpiTest : public ::testing::Test {
protected:
    Check chk;
    int rank = worldRank();
    int size = worldSize();
    void TearDown() override;
};

// How a collective is invoked.
enum class Mode { Blocking, Nonblocking, Persistent };
const char* modeName(Mode m);
std::string modeParamName(const ::testing::TestParamInfo<Mode>& info);

template <class Base = MpiTest>
class MpiModeTestT : public Base, public ::testing::WithParamInterface<Mode> {};
using MpiModeTest = MpiModeTestT<MpiTest>;

// One collective in its three forms. `blocking` runs the MPI_X call, `start`
// the MPI_IX call, `init` the MPIX_X_init call (may be empty: then persistent
// mode falls back to nonblocking).
struct Coll {
    const char* name;
    std::function<int()> blocking;
    std::function<int(MPI_Request*)> start;
    std::function<int(MPI_Request*)> init;
};

// Runs `c` in mode `m`: prepare(); call; verify(). Persistent mode: init once,
// then three times prepare(); MPI_Start; MPI_Wait; verify(). An error return
// is recorded in `chk` (and verify is skipped).
void run(Check& chk, Mode m, const Coll& c, const std::function<void()>& prepare,
         const std::function<void()>& verify);

// Closed-form test data.
inline int val(int rank, long i) { return rank * 1000 + static_cast<int>(i % 997) + 1; }

// Derived datatypes used across tests (committed; freed at exit).
struct Types {
    MPI_Datatype vec3;     // 3 ints with stride 2 (extent 5 ints): signature 3 x MPI_INT
    MPI_Datatype contig3;  // MPI_Type_contiguous(3, MPI_INT)
    MPI_Datatype contig2;  // MPI_Type_contiguous(2, MPI_INT)
    MPI_Datatype gapint;   // one int at offset 0, lb = -4, extent 12: gaps around each int
};
const Types& types();

// Report channel tags (point-to-point on MPI_COMM_WORLD).
constexpr int kReportTag = 31001;
constexpr int kVerdictTag = 31002;

}  // namespace mpitest
