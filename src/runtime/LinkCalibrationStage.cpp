#include "LinkCalibrationStage.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "Runtime.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg {

namespace {
// About 5 ms on an Ethernet-like link (84 us one way, 116 MB/s): 8 x 170 us + 3 x 1.3 ms.
// The first small round trip often opens the connection; minimums drop it and whatever
// a busy machine adds (samples of 140 us to 9 ms were seen for the same emulated link).
constexpr int kSmallRounds = 8;
constexpr int kLargeRounds = 3;
constexpr size_t kSmallBytes = 8;
constexpr size_t kLargeBytes = 128 * 1024;  // past the eager limits, like a segment
// Then both ends send 8 B and receive 8 B at once, each round when the last one's message
// arrived: what one dissemination / butterfly round costs when every leader sends and
// receives across the network together (every pair measures at once). About 8 x 100-200 us.
constexpr int kExchangeRounds = 8;
constexpr int kPingPongRounds = kSmallRounds + kLargeRounds;

// What every rank contributes to the agreement: its pair's measurement (initiators only).
struct CalibrationRecord {
    double alphaUs, betaNsPerByte, exchangeUs;
    int32_t valid, pad;
};

// Test hook (tests/mpi/CMakeLists.txt): calibrate on one host as if the ranks were on several.
bool oneHostAllowed() {
    const char* v = std::getenv("HIERAGG_TEST_CALIBRATE_ONE_HOST");
    return v && *v == '1';
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}
}  // namespace

// Between the stage's steps (owned by c.selection.calibration while it runs).
struct LinkCalibrationState {
    int peer = -1;           // the other end of this rank's pair, -1: not measuring
    bool initiator = false;  // the lower index of the pair times the round trips
    int round = 0;
    std::vector<char> buf;  // kLargeBytes sent/received, then 8 bytes of reply
    std::vector<double> smallRtt, largeRtt, exchangeRound;
    std::chrono::steady_clock::time_point t0;
    std::vector<CalibrationRecord> records;
};

namespace {

void roundDone(void* ctx, int status);

int startRound(hieragg_comm& c, LinkCalibrationState& st) {
    Runtime& rt = *Runtime::instance();
    const size_t n = st.round < kSmallRounds ? kSmallBytes : kLargeBytes;
    ScheduleBuilder b(st.round < kPingPongRounds ? "calibration-pingpong" : "calibration-exchange");
    const BufRef data{kRecvBuf, 0}, reply{kRecvBuf, static_cast<ptrdiff_t>(kLargeBytes)};
    if (st.round >= kPingPongRounds) {  // both send and receive at once
        b.send(st.peer, data, {kPackedType, kSmallBytes});
        b.recv(st.peer, reply, {kPackedType, kSmallBytes});
    } else if (st.initiator) {
        b.send(st.peer, data, {kPackedType, n});
        b.recv(st.peer, reply, {kPackedType, kSmallBytes});  // posted at once: no wait for the send
    } else {
        const StepId got = b.recv(st.peer, data, {kPackedType, n});
        b.send(st.peer, reply, {kPackedType, kSmallBytes}, got);
    }
    auto sched = std::make_shared<const Schedule>(b.finish());
    TaskBindings bind;
    bind.rbuf = st.buf.data();
    bind.types = {nullptr, nullptr, rt.transport().packedType()};
    bind.comm = c.comm;
    bind.tagBase = bind.localTagBase = calibrationTagBase(0);
    auto task = std::make_unique<Task>(sched, rt.transport(), bind);
    st.t0 = std::chrono::steady_clock::now();
    if (int rc = task->start()) return rc;
    rt.track(std::move(task), roundDone, &c);
    return 0;
}

// Every rank has every pair's measurement: the same agreed value everywhere.
void agreementDone(void* ctx, int status) {
    hieragg_comm& c = *static_cast<hieragg_comm*>(ctx);
    std::lock_guard<std::recursive_mutex> lock(c.mutex);
    std::shared_ptr<LinkCalibrationState> st = c.selection.calibration;
    if (!st) return;
    if (status != 0) return finishDecomposition(c, status);
    Runtime& rt = *Runtime::instance();
    std::vector<hier::MeasuredLink> pairs;
    for (const CalibrationRecord& r : st->records)
        if (r.valid) {
            hier::MeasuredLink m;
            m.valid = true;
            m.alpha_us = r.alphaUs;
            m.beta_ns_per_byte = r.betaNsPerByte;
            m.exchange_us = r.exchangeUs;
            pairs.push_back(m);
        }
    const hier::MeasuredLink agreed = hier::agreeLink(pairs);
    const hier::CalibrationPolicy& policy = rt.networkPolicy();
    if (agreed.valid) {
        hier::applyMeasuredLink(c.selection.costs, hier::kLinkNetwork, agreed, policy);
        rt.setNetworkMeasured(agreed);
    }
    // One line per job in practice: rank 0 of the communicator that measured (later
    // communicators take the value from their identity records, verbose level 2).
    if (c.rank == 0) {
        const hier::LinkCost& net = c.selection.costs.link[hier::kLinkNetwork];
        rt.verbose(1, agreed.valid
                          ? "hieragg: network: alpha=" + fixed(net.alpha_us, 1) + " us" +
                                (policy.alphaExplicit ? " (set by coll_hieragg_cost_network_alpha)" : "") +
                                " beta=" + fixed(net.beta_us_per_byte * 1000, 2) + " ns/B" +
                                (policy.betaExplicit ? " (set by coll_hieragg_cost_network_beta)" : "") +
                                " exchange=" + fixed(hier::exchangeRoundUs(net), 1) + " us" +
                                (policy.exchangeExplicit ? " (set by coll_hieragg_cost_network_exchange)"
                                 : agreed.exchange_us > 0 ? "" : " (not measured: alpha+theta)") +
                                " (measured at setup, " + std::to_string(2 * pairs.size()) + " leaders)"
                          : "hieragg: network: calibration measured nothing; the cost model keeps "
                            "coll_hieragg_cost_network_*");
    }
    c.selection.calibration.reset();
    continueSetupAfterCalibration(c);
}

int startAgreement(hieragg_comm& c, LinkCalibrationState& st) {
    return startRecordExchange(c, st.records.data(), sizeof(CalibrationRecord), calibrationTagBase(1),
                               agreementDone);
}

void roundDone(void* ctx, int status) {
    hieragg_comm& c = *static_cast<hieragg_comm*>(ctx);
    std::lock_guard<std::recursive_mutex> lock(c.mutex);
    std::shared_ptr<LinkCalibrationState> st = c.selection.calibration;
    if (!st) return;
    if (status != 0) return finishDecomposition(c, status);
    if (st->initiator) {
        const double us =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - st->t0).count();
        (st->round < kSmallRounds ? st->smallRtt : st->round < kPingPongRounds ? st->largeRtt : st->exchangeRound)
            .push_back(us);
    }
    if (++st->round < kPingPongRounds + kExchangeRounds) {
        if (int rc = startRound(c, *st)) finishDecomposition(c, rc);
        return;
    }
    if (st->initiator) {
        hier::MeasuredLink m = hier::estimateLink(st->smallRtt, st->largeRtt, kLargeBytes, kSmallBytes);
        if (m.valid) m.exchange_us = hier::estimateExchangeRound(st->exchangeRound, m.alpha_us);
        if (Runtime::instance()->config().verbose >= 3) {  // the raw samples, to judge the estimate
            std::string small, large, exchange;
            for (double t : st->smallRtt) small += " " + fixed(t, 1);
            for (double t : st->largeRtt) large += " " + fixed(t, 1);
            for (double t : st->exchangeRound) exchange += " " + fixed(t, 1);
            Runtime::instance()->verbose(3, "hieragg: network calibration, rank " + std::to_string(c.rank) + " with " +
                                                std::to_string(st->peer) + ": round trips [us] of 8 B:" + small +
                                                "; of " + std::to_string(kLargeBytes) + " B:" + large +
                                                "; exchange rounds [us] of 8 B each way:" + exchange);
        }
        CalibrationRecord& mine = st->records[c.rank];
        mine.valid = m.valid;
        mine.alphaUs = m.alpha_us;
        mine.betaNsPerByte = m.beta_ns_per_byte;
        mine.exchangeUs = m.exchange_us;
    }
    std::vector<char>().swap(st->buf);
    if (int rc = startAgreement(c, *st)) finishDecomposition(c, rc);
}

}  // namespace

bool beginLinkCalibration(hieragg_comm& c, const CalibrationInputs& in) {
    Runtime& rt = *Runtime::instance();
    const hier::CalibrationPolicy& policy = rt.networkPolicy();
    if (!hier::calibrationWanted(policy) || !c.decomp.hierarchy || c.inter) return false;
    // The first stage whose messages cross the network (the leader space of a node split).
    const auto it = std::find(c.selection.stageLinks.begin(), c.selection.stageLinks.end(), static_cast<int>(hier::kLinkNetwork));
    if (it == c.selection.stageLinks.end()) return false;
    const int stage = static_cast<int>(it - c.selection.stageLinks.begin());
    // Measured before by processes of this communicator (usually on MPI_COMM_WORLD): every
    // rank agrees from the same records, nothing is sent.
    const hier::MeasuredLink carried = hier::agreeLink(in.carried);
    if (carried.valid) {
        hier::applyMeasuredLink(c.selection.costs, hier::kLinkNetwork, carried, policy);
        rt.setNetworkMeasured(carried);
        if (c.rank == 0)
            rt.verbose(2, "hieragg: network: alpha=" + fixed(c.selection.costs.link[hier::kLinkNetwork].alpha_us, 1) +
                              " us beta=" + fixed(c.selection.costs.link[hier::kLinkNetwork].beta_us_per_byte * 1000, 2) +
                              " ns/B exchange=" + fixed(hier::exchangeRoundUs(c.selection.costs.link[hier::kLinkNetwork]), 1) +
                              " us (measured earlier, carried by the identity exchange)");
        return false;
    }
    if (!in.spansHosts && !oneHostAllowed()) return false;
    try {
        auto st = std::make_shared<LinkCalibrationState>();
        std::vector<int> members = hier::spaceGroup(*c.decomp.hierarchy, stage, c.rank, -1).group.ranks;
        std::sort(members.begin(), members.end());
        const auto me = std::find(members.begin(), members.end(), c.rank);
        if (me != members.end()) {
            // Disjoint pairs (0,1), (2,3), ... of the space: they all measure at once.
            const size_t i = static_cast<size_t>(me - members.begin());
            if ((i ^ 1) < members.size()) {
                st->peer = members[i ^ 1];
                st->initiator = i % 2 == 0;
            }
        }
        st->records.assign(static_cast<size_t>(c.size), CalibrationRecord{});
        std::memset(st->records.data(), 0, st->records.size() * sizeof(CalibrationRecord));
        c.selection.calibration = st;
        int rc = 0;
        if (st->peer >= 0) {
            st->buf.assign(kLargeBytes + kSmallBytes, 0);
            rc = startRound(c, *st);
        } else {
            rc = startAgreement(c, *st);
        }
        if (rc) finishDecomposition(c, rc);
    } catch (const std::bad_alloc&) {
        finishDecomposition(c, HIERAGG_ERR_NO_MEM);
    }
    return true;
}

}  // namespace hieragg
