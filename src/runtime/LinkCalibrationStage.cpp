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
// Each end of a pair times kReps round trips of every size of hier::calibrationSizes above
// the eager limit and kSmallReps of those below it (LinkCalibration.hpp), the two ends in
// turn and the sizes interleaved, so a burst of load delays samples of every size and both
// ends rather than all of one; a back-to-back stream of kStreamMessages small messages per
// rep, then kExchangeRounds rounds in which both send at once. On the 50 us / 1 Gbit/s
// emulated link about 2 x (8 x (0.1 + 0.25 + 0.4 + 0.2) + 4 x (1.3 + 2.4)) ms = 45 ms. The minimum per size drops
// whatever a busy machine adds (samples of 140 us to 9 ms were seen for that link).
constexpr int kReps = 4;
// The sizes below the eager limit and the stream are cheap: twice as many of them.
constexpr int kSmallReps = 8;
constexpr size_t kSmallBytes = 8;
constexpr int kStreamMessages = 8;
// Both ends send 8 B and receive 8 B at once, each round when the last one's message
// arrived: what one dissemination / butterfly round costs when every leader sends and
// receives across the network together (every pair measures at once).
constexpr int kExchangeRounds = 8;
// A rejected measurement (no pair valid) is taken again once, then the defaults stay.
constexpr int kAttempts = 2;

struct Round {
    enum Kind { PingPong, Stream, Exchange } kind;
    size_t bytes;
    int side;  // which end times it: 0 the lower index of the pair, 1 the upper
};

std::vector<Round> roundPlan(const std::vector<size_t>& sizes, size_t eagerBytes) {
    std::vector<Round> out;
    for (int rep = 0; rep < kSmallReps; ++rep) {
        for (size_t b : sizes)
            if (rep < kReps || !(eagerBytes > 0 && b >= eagerBytes))
                for (int side : {0, 1}) out.push_back({Round::PingPong, b, side});
        for (int side : {0, 1}) out.push_back({Round::Stream, kSmallBytes, side});
    }
    for (int i = 0; i < kExchangeRounds; ++i) out.push_back({Round::Exchange, kSmallBytes, 0});
    return out;
}

// What every rank contributes to the agreement: its own estimate as one end of its pair
// (invalid if it has no peer), and the peer's index (-1: none). Doubles only.
struct CalibrationRecord {
    hier::LinkRecord link;
    double peer;
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

size_t eagerLimit() {
    const hieragg_config& cfg = Runtime::instance()->config();
    return cfg.network_eager_limit;
}

// What the measurement added beyond alpha, beta and the exchange round, for the verbose line.
std::string measuredExtras(const hier::LinkCost& net, const hier::MeasuredLink& m, double closeFraction) {
    const hieragg_config& cfg = Runtime::instance()->config();
    std::string s = "; eager beta=" + fixed(m.eager_beta_ns_per_byte, 2) + " ns/B";
    if (m.eager_bytes > 0)
        s += ", rendezvous=" + fixed(net.rendezvous_us, 1) + " us at >= " + fixed(m.eager_bytes, 0) + " B (" +
             (cfg.network_eager_source && *cfg.network_eager_source ? cfg.network_eager_source : "eager limit") + ")";
    else
        s += ", no size above an eager limit timed";
    s += ", burst=" + fixed(hier::burstUs(net), 1) + " us per further message" +
         (m.burst_us > 0 ? "" : " (not measured)") + ", noise=" + fixed(m.noise * 100, 0) +
         "%: predictions within " + fixed(closeFraction * 100, 0) + "% keep the earlier row";
    return s;
}
}  // namespace

// Between the stage's steps (owned by c.selection.calibration while it runs).
struct LinkCalibrationState {
    int peer = -1;  // the other end of this rank's pair, -1: not measuring
    int side = 0;   // 0: the lower index of the pair, 1: the upper
    int attempt = 0;
    size_t round = 0;
    std::vector<Round> plan;
    std::vector<size_t> sizes;
    size_t maxBytes = 0;
    std::vector<char> buf;  // maxBytes sent/received, then 8 bytes of reply
    std::vector<hier::RoundTrips> pingPong;  // per size, the rounds this end timed
    std::vector<double> stream, exchangeRound;
    std::chrono::steady_clock::time_point t0;
    std::vector<CalibrationRecord> records;
    std::string rejected;  // why the last attempt's pairs were rejected
};

namespace {

void roundDone(void* ctx, int status);
int startAgreement(hieragg_comm& c, LinkCalibrationState& st);

void resetSamples(LinkCalibrationState& st) {
    st.round = 0;
    st.pingPong.clear();
    for (size_t b : st.sizes) st.pingPong.push_back({b, {}});
    st.stream.clear();
    st.exchangeRound.clear();
    for (CalibrationRecord& r : st.records) {
        std::memset(&r, 0, sizeof r);
        r.peer = -1;
    }
}

int startRound(hieragg_comm& c, LinkCalibrationState& st) {
    Runtime& rt = *Runtime::instance();
    const Round& r = st.plan[st.round];
    ScheduleBuilder b(r.kind == Round::Exchange ? "calibration-exchange" : "calibration-pingpong");
    const BufRef data{kRecvBuf, 0}, reply{kRecvBuf, static_cast<ptrdiff_t>(st.maxBytes)};
    const bool initiator = r.side == st.side;
    if (r.kind == Round::Exchange) {  // both send and receive at once
        b.send(st.peer, data, {kPackedType, kSmallBytes});
        b.recv(st.peer, reply, {kPackedType, kSmallBytes});
    } else if (initiator) {
        const int count = r.kind == Round::Stream ? kStreamMessages : 1;
        for (int i = 0; i < count; ++i) b.send(st.peer, data, {kPackedType, r.bytes});
        b.recv(st.peer, reply, {kPackedType, kSmallBytes});  // posted at once: no wait for the sends
    } else {
        const int count = r.kind == Round::Stream ? kStreamMessages : 1;
        std::vector<StepId> got;
        for (int i = 0; i < count; ++i)
            got.push_back(b.recv(st.peer, {kRecvBuf, static_cast<ptrdiff_t>(i * kSmallBytes)}, {kPackedType, r.bytes}));
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

// Starts (or, after a rejected attempt, restarts) this rank's part: its rounds if it has a
// peer, else straight to the agreement.
int startMeasuring(hieragg_comm& c, LinkCalibrationState& st) {
    resetSamples(st);
    if (st.peer < 0) return startAgreement(c, st);
    st.buf.assign(st.maxBytes + kSmallBytes, 0);
    return startRound(c, st);
}

// Every rank has every end's estimate: the same agreed value everywhere.
void agreementDone(void* ctx, int status) {
    hieragg_comm& c = *static_cast<hieragg_comm*>(ctx);
    std::lock_guard<CommMutex> lock(c.mutex);
    std::shared_ptr<LinkCalibrationState> st = c.selection.calibration;
    if (!st) return;
    if (status != 0) return finishDecomposition(c, status);
    Runtime& rt = *Runtime::instance();
    // Pairs (r, peer) with r the lower index: both ends must agree (combinePair).
    std::vector<hier::MeasuredLink> pairs;
    std::string why;
    int measuredPairs = 0;
    for (size_t r = 0; r < st->records.size(); ++r) {
        const double p = st->records[r].peer;
        if (!(p > static_cast<double>(r)) || p >= static_cast<double>(st->records.size())) continue;
        const CalibrationRecord& other = st->records[static_cast<size_t>(p)];
        if (other.peer != static_cast<double>(r)) continue;
        ++measuredPairs;
        std::string pairWhy;
        const hier::MeasuredLink m = hier::combinePair(hier::fromRecord(st->records[r].link),
                                                       hier::fromRecord(other.link), &pairWhy);
        if (m.valid)
            pairs.push_back(m);
        else if (why.empty())
            why = "ranks " + std::to_string(r) + " and " + std::to_string(static_cast<int>(p)) + ": " + pairWhy;
    }
    const hier::MeasuredLink agreed = hier::agreeLink(pairs);
    if (!agreed.valid && measuredPairs > 0 && st->attempt + 1 < kAttempts) {
        // Every rank holds the same records, so every rank measures again.
        if (c.rank == 0) rt.verbose(2, "hieragg: network: calibration rejected (" + why + "); measuring again");
        st->rejected = why;
        ++st->attempt;
        if (int rc = startMeasuring(c, *st)) finishDecomposition(c, rc);
        return;
    }
    const hier::CalibrationPolicy& policy = rt.networkPolicy();
    if (agreed.valid) {
        hier::applyMeasuredLink(c.selection.costs, hier::kLinkNetwork, agreed, policy);
        rt.setNetworkMeasured(agreed);
    } else if (measuredPairs > 0) {
        hier::MeasuredLink settled;
        settled.rejected = true;
        rt.setNetworkMeasured(settled);
    }
    // One line per job in practice: rank 0 of the communicator that measured (later
    // communicators take the value from their identity records, verbose level 2).
    if (c.rank == 0) {
        const hier::LinkCost& net = c.selection.costs.link[hier::kLinkNetwork];
        if (agreed.valid) {
            rt.verbose(1, "hieragg: network: alpha=" + fixed(net.alpha_us, 1) + " us" +
                              (policy.alphaExplicit ? " (set by coll_hieragg_cost_network_alpha)" : "") +
                              " beta=" + fixed(net.beta_us_per_byte * 1000, 2) + " ns/B" +
                              (policy.betaExplicit ? " (set by coll_hieragg_cost_network_beta)" : "") +
                              " exchange=" + fixed(hier::exchangeRoundUs(net), 1) + " us" +
                              (policy.exchangeExplicit ? " (set by coll_hieragg_cost_network_exchange)"
                               : agreed.exchange_us > 0 ? "" : " (not measured: alpha+theta)") +
                              " (measured at setup, " + std::to_string(2 * pairs.size()) + " leaders)" +
                              measuredExtras(net, agreed, c.selection.costs.closeFraction) +
                              (st->attempt > 0 ? "; measured twice, the first rejected (" + st->rejected + ")"
                                               : ""));
        } else {
            rt.verbose(1, measuredPairs > 0
                              ? "hieragg: network: calibration rejected twice (" + why +
                                    "); the cost model keeps coll_hieragg_cost_network_* (alpha=" +
                                    fixed(net.alpha_us, 1) + " us beta=" + fixed(net.beta_us_per_byte * 1000, 2) +
                                    " ns/B)"
                              : "hieragg: network: calibration measured nothing; the cost model keeps "
                                "coll_hieragg_cost_network_*");
        }
    }
    c.selection.calibration.reset();
    continueSetupAfterCalibration(c);
}

int startAgreement(hieragg_comm& c, LinkCalibrationState& st) {
    return startRecordExchange(c, st.records.data(), sizeof(CalibrationRecord), calibrationTagBase(1),
                               agreementDone);
}

// This end's estimate from the rounds it timed.
hier::MeasuredLink estimateOwn(const hieragg_comm& c, const LinkCalibrationState& st) {
    std::string why;
    hier::MeasuredLink m = hier::estimateLink(st.pingPong, kSmallBytes, eagerLimit(), &why);
    std::vector<double> single;
    for (const hier::RoundTrips& r : st.pingPong)
        if (r.bytes == kSmallBytes) single = r.us;
    if (m.valid) {
        m.exchange_us = hier::estimateExchangeRound(st.exchangeRound, m.alpha_us);
        m.burst_us = hier::estimateBurst(st.stream, single, kStreamMessages, m.alpha_us);
    }
    Runtime& rt = *Runtime::instance();
    if (rt.config().verbose >= 3) {  // the raw samples, to judge the estimate
        std::string text = "hieragg: network calibration, rank " + std::to_string(c.rank) + " timing " +
                           std::to_string(st.peer) + ", round trips [us]";
        for (const hier::RoundTrips& r : st.pingPong) {
            text += "; of " + std::to_string(r.bytes) + " B:";
            for (double t : r.us) text += " " + fixed(t, 1);
        }
        text += "; of " + std::to_string(kStreamMessages) + " x 8 B back to back:";
        for (double t : st.stream) text += " " + fixed(t, 1);
        text += "; exchange rounds of 8 B each way:";
        for (double t : st.exchangeRound) text += " " + fixed(t, 1);
        text += m.valid ? "; alpha " + fixed(m.alpha_us, 1) + " us, beta " + fixed(m.beta_ns_per_byte, 2) +
                              " ns/B, eager beta " + fixed(m.eager_beta_ns_per_byte, 2) + " ns/B, rendezvous " +
                              fixed(m.rendezvous_us, 1) + " us, burst " + fixed(m.burst_us, 1) + " us"
                        : "; rejected: " + why;
        rt.verbose(3, text);
    }
    return m;
}

void roundDone(void* ctx, int status) {
    hieragg_comm& c = *static_cast<hieragg_comm*>(ctx);
    std::lock_guard<CommMutex> lock(c.mutex);
    std::shared_ptr<LinkCalibrationState> st = c.selection.calibration;
    if (!st) return;
    if (status != 0) return finishDecomposition(c, status);
    const Round& r = st->plan[st->round];
    if (r.side == st->side || r.kind == Round::Exchange) {
        const double us =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - st->t0).count();
        if (r.kind == Round::Exchange)
            st->exchangeRound.push_back(us);
        else if (r.kind == Round::Stream)
            st->stream.push_back(us);
        else
            for (hier::RoundTrips& s : st->pingPong)
                if (s.bytes == r.bytes) s.us.push_back(us);
    }
    if (++st->round < st->plan.size()) {
        if (int rc = startRound(c, *st)) finishDecomposition(c, rc);
        return;
    }
    CalibrationRecord& mine = st->records[c.rank];
    mine.link = hier::toRecord(estimateOwn(c, *st));
    mine.peer = st->peer;
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
        const hier::LinkCost& net = c.selection.costs.link[hier::kLinkNetwork];
        if (c.rank == 0)
            rt.verbose(2, "hieragg: network: alpha=" + fixed(net.alpha_us, 1) + " us beta=" +
                              fixed(net.beta_us_per_byte * 1000, 2) + " ns/B exchange=" +
                              fixed(hier::exchangeRoundUs(net), 1) +
                              " us (measured earlier, carried by the identity exchange)" +
                              measuredExtras(net, carried, c.selection.costs.closeFraction));
        return false;
    }
    // Rejected twice by processes of this communicator: every rank sees the same records,
    // so none measures again and all keep the MCA values.
    if (std::any_of(in.carried.begin(), in.carried.end(), [](const hier::MeasuredLink& m) { return m.rejected; })) {
        if (c.rank == 0)
            rt.verbose(2, "hieragg: network: not measured again (rejected twice on an earlier communicator); the "
                          "cost model keeps coll_hieragg_cost_network_*");
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
                st->side = static_cast<int>(i % 2);
            }
        }
        st->sizes = hier::calibrationSizes(eagerLimit());
        st->maxBytes = *std::max_element(st->sizes.begin(), st->sizes.end());
        st->plan = roundPlan(st->sizes, eagerLimit());
        st->records.assign(static_cast<size_t>(c.size), CalibrationRecord{});
        c.selection.calibration = st;
        if (int rc = startMeasuring(c, *st)) finishDecomposition(c, rc);
    } catch (const std::bad_alloc&) {
        finishDecomposition(c, HIERAGG_ERR_NO_MEM);
    }
    return true;
}

}  // namespace hieragg

// The measured network parameters beyond alpha/beta (MPI_T pvar coll_hieragg_network_calibration).
extern "C" void hieragg_read_network_calibration(void* comm, double out[HIERAGG_NETWORK_CALIBRATION_VALUES]) {
    using namespace hieragg;
    for (int i = 0; i < HIERAGG_NETWORK_CALIBRATION_VALUES; ++i) out[i] = 0;
    Runtime* rt = Runtime::instance();
    if (!rt) return;
    auto fill = [&](const hier::CostParams& p, const hier::MeasuredLink& m) {
        const hier::LinkCost& net = p.link[hier::kLinkNetwork];
        out[0] = m.valid ? m.eager_beta_ns_per_byte : net.beta_us_per_byte * 1000.0;
        out[1] = net.eager_bytes;
        out[2] = net.rendezvous_us;
        out[3] = hier::burstUs(net);
        out[4] = p.closeFraction;
    };
    fill(rt->costs(), hier::MeasuredLink{});
    rt->withComm(comm, [&](hieragg_comm& c) {
        std::lock_guard<CommMutex> lock(c.mutex);  // the calibration may be writing it
        fill(c.selection.costs, c.selection.costs.closeFraction > 0 ? rt->networkMeasured() : hier::MeasuredLink{});
    });
}
