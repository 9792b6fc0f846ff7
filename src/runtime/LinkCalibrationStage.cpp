#include "LinkCalibrationStage.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "CalibrationRounds.hpp"
#include "FixedText.hpp"
#include "ReduceRateProbe.hpp"
#include "Runtime.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg {

namespace {
using calibration::kSmallBytes;
using calibration::kStreamMessages;
using calibration::Round;
using calibration::roundPlan;
// A rejected measurement (no pair valid) is taken again once, then the defaults stay.
constexpr int kAttempts = 2;

// What every rank contributes to the agreement: its own estimate as one end of its pair
// (invalid if it has no peer), and the peer's index (-1: none). Doubles only.
struct CalibrationRecord {
    hier::LinkRecord link;
    double peer;
};

// Test hook (tests/mpi/CMakeLists.txt): calibrate the network on one host as if the ranks were
// on several.
bool oneHostAllowed() {
    const char* v = std::getenv("HIERAGG_TEST_CALIBRATE_ONE_HOST");
    return v && *v == '1';
}

// The eager limit of the link's path (the shim reads it from Open MPI) and its source.
size_t eagerLimit(int link) {
    const hieragg_config& cfg = Runtime::instance()->config();
    return link == hier::kLinkNode ? cfg.node_eager_limit : cfg.network_eager_limit;
}
const char* eagerSource(int link) {
    const hieragg_config& cfg = Runtime::instance()->config();
    const char* s = link == hier::kLinkNode ? cfg.node_eager_source : cfg.network_eager_source;
    return s && *s ? s : "eager limit";
}

// The start of every line about the link: "hieragg: node:", "hieragg: network:".
std::string prefix(int link) { return std::string("hieragg: ") + hier::linkClassName(link) + ":"; }
std::string mcaName(int link, const char* param) {
    return std::string("coll_hieragg_cost_") + hier::linkClassName(link) + "_" + param;
}
// Inside a node the times are fractions of a microsecond: one more digit.
int usDigits(int link) { return link == hier::kLinkNode ? 2 : 1; }

// What the measurement added beyond alpha, beta and the exchange round, for the verbose line.
std::string measuredExtras(int link, const hier::LinkCost& net, const hier::MeasuredLink& m, double closeFraction) {
    std::string s = "; eager beta=" + fixed(m.eager_beta_ns_per_byte, 2) + " ns/B";
    if (m.duplex_beta_ns_per_byte > 0)
        s += ", duplex beta=" + fixed(hier::duplexBetaUs(net) * 1000, 2) + " ns/B (both directions at once)";
    if (m.eager_bytes > 0)
        s += ", rendezvous=" + fixed(net.rendezvous_us, usDigits(link)) + " us at >= " + fixed(m.eager_bytes, 0) +
             " B (" + eagerSource(link) + ")";
    else
        s += ", no size above an eager limit timed";
    s += ", burst=" + fixed(hier::burstUs(net), usDigits(link)) + " us per further message" +
         (m.burst_us > 0 ? "" : " (not measured)") + ", noise=" + fixed(m.noise * 100, 0) +
         "%: predictions within " + fixed(closeFraction * 100, 0) + "% keep the earlier row";
    return s;
}
}  // namespace

// One link class to measure: this rank's end of its pair in it.
struct CalibrationPass {
    int link = hier::kLinkNetwork;
    int peer = -1;  // the other end of this rank's pair, -1: not measuring
    int side = 0;   // 0: the lower index of the pair, 1: the upper
};

// Between the stage's steps (owned by c.selection.calibration while it runs).
struct LinkCalibrationState {
    std::vector<CalibrationPass> passes;  // the node link first, then the network
    size_t pass = 0;                      // the one measuring now
    int link = hier::kLinkNetwork;        // passes[pass]'s
    int peer = -1;
    int side = 0;
    int attempt = 0;
    size_t round = 0;
    std::vector<Round> plan;
    std::vector<size_t> sizes;
    size_t maxBytes = 0;
    std::vector<char> buf;  // maxBytes sent/received, 8 bytes of reply, a duplex round's receipt
    std::vector<hier::RoundTrips> pingPong;  // per size, the rounds this end timed
    std::vector<double> stream, exchangeRound, duplexRound;
    std::chrono::steady_clock::time_point t0;
    std::vector<CalibrationRecord> records;
    std::string rejected;  // why the last attempt's pairs were rejected
    std::chrono::steady_clock::time_point passStart;
};

namespace {

void roundMeasured(hieragg_comm& c, LinkCalibrationState& st);

// Every calibration callback: under the communicator's mutex, with its calibration state
// (held here, so that the step may end the calibration). Nothing when the calibration is
// gone; a failed operation finishes the setup with its status.
template <void (*Step)(hieragg_comm&, LinkCalibrationState&)>
void calibrationCallback(void* ctx, int status) {
    hieragg_comm& c = *static_cast<hieragg_comm*>(ctx);
    std::lock_guard<CommMutex> lock(c.mutex);
    const std::shared_ptr<LinkCalibrationState> st = c.selection.calibration;
    if (!st) return;
    if (status != 0) return finishDecomposition(c, status);
    Step(c, *st);
}
int startAgreement(hieragg_comm& c, LinkCalibrationState& st);

void resetSamples(LinkCalibrationState& st) {
    st.round = 0;
    st.pingPong.clear();
    for (size_t b : st.sizes) st.pingPong.push_back({b, {}});
    st.stream.clear();
    st.exchangeRound.clear();
    st.duplexRound.clear();
    for (CalibrationRecord& r : st.records) {
        std::memset(&r, 0, sizeof r);
        r.peer = -1;
    }
}

int startRound(hieragg_comm& c, LinkCalibrationState& st) {
    Runtime& rt = *Runtime::instance();
    const Round& r = st.plan[st.round];
    ScheduleBuilder b(r.kind == Round::Exchange ? "calibration-exchange"
                      : r.kind == Round::Duplex ? "calibration-duplex"
                                                : "calibration-pingpong");
    const BufRef data{kRecvBuf, 0}, reply{kRecvBuf, static_cast<ptrdiff_t>(st.maxBytes)};
    const bool initiator = r.side == st.side;
    if (r.kind == Round::Exchange) {  // both send and receive at once
        b.send(st.peer, data, {kPackedType, kSmallBytes});
        b.recv(st.peer, reply, {kPackedType, kSmallBytes});
    } else if (r.kind == Round::Duplex) {  // both send and receive r.bytes at once, apart
        b.send(st.peer, data, {kPackedType, r.bytes});
        b.recv(st.peer, {kRecvBuf, static_cast<ptrdiff_t>(st.maxBytes + kSmallBytes)}, {kPackedType, r.bytes});
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
    rt.track(std::move(task), calibrationCallback<roundMeasured>, &c);
    return 0;
}

// Starts (or, after a rejected attempt, restarts) this rank's part: its rounds if it has a
// peer, else straight to the agreement.
int startMeasuring(hieragg_comm& c, LinkCalibrationState& st) {
    resetSamples(st);
    if (st.peer < 0) return startAgreement(c, st);
    // Sent, reply and, where the plan has duplex rounds, their receipt apart from what is sent.
    const bool duplex = std::any_of(st.plan.begin(), st.plan.end(), [](const Round& r) { return r.kind == Round::Duplex; });
    st.buf.assign((duplex ? 2 : 1) * st.maxBytes + kSmallBytes, 0);
    return startRound(c, st);
}

// The verbose line of an agreed measurement (rank 0 of the communicator that measured).
std::string measuredLine(int link, const hier::CostParams& costs, const hier::MeasuredLink& agreed,
                         const hier::CalibrationPolicy& policy, size_t pairs, int measuredPairs, double ms) {
    const hier::LinkCost& l = costs.link[link];
    const int d = usDigits(link);
    auto set = [&](bool explicitly, const char* param) {
        return explicitly ? " (set by " + mcaName(link, param) + ")" : std::string();
    };
    std::string s = prefix(link) + " alpha=" + fixed(l.alpha_us, d) + " us" + set(policy.alphaExplicit, "alpha") +
                    " beta=" + fixed(l.beta_us_per_byte * 1000, 2) + " ns/B" + set(policy.betaExplicit, "beta");
    if (link == hier::kLinkNode)  // the measured gap is the node's theta (applyMeasuredLink)
        s += " theta=" + fixed(l.theta_us, d) + " us" +
             (policy.thetaExplicit ? set(true, "theta") : agreed.burst_us > 0 ? "" : " (not measured)");
    s += " exchange=" + fixed(hier::exchangeRoundUs(l), d) + " us" +
         (policy.exchangeExplicit ? set(true, "exchange")
          : agreed.exchange_us > 0 ? ""
                                   : " (not measured: alpha+theta)");
    if (link == hier::kLinkNode)
        s += " (measured at setup in " + fixed(ms, 1) + " ms, " + std::to_string(pairs) + " of " +
             std::to_string(measuredPairs) + " pairs)";
    else
        s += " (measured at setup, " + std::to_string(2 * pairs) + " leaders)";
    s += measuredExtras(link, l, agreed, costs.closeFraction);
    // The node's time is in its parentheses; the network's (every attempt) goes last, where
    // scripts matching the line's start do not see it.
    return link == hier::kLinkNode ? s : s + "; measured in " + fixed(ms, 1) + " ms";
}

int startPass(hieragg_comm& c, LinkCalibrationState& st);

// Every rank has every end's estimate: the same agreed value everywhere.
void agreementArrived(hieragg_comm& c, LinkCalibrationState& st) {
    Runtime& rt = *Runtime::instance();
    const int link = st.link;
    // Pairs (r, peer) with r the lower index: both ends must agree (combinePair).
    std::vector<hier::MeasuredLink> pairs;
    std::string why, disagreed;  // the first invalid pair's reason; the first pair whose ends disagreed
    int measuredPairs = 0;
    for (size_t r = 0; r < st.records.size(); ++r) {
        const double p = st.records[r].peer;
        if (!(p > static_cast<double>(r)) || p >= static_cast<double>(st.records.size())) continue;
        const CalibrationRecord& other = st.records[static_cast<size_t>(p)];
        if (other.peer != static_cast<double>(r)) continue;
        ++measuredPairs;
        std::string ends;
        const hier::MeasuredLink m = hier::combinePair(hier::fromRecord(st.records[r].link),
                                                       hier::fromRecord(other.link), &ends);
        const std::string ranks = "ranks " + std::to_string(r) + " and " + std::to_string(static_cast<int>(p)) + ": ";
        if (m.valid) {
            pairs.push_back(m);
            if (!ends.empty() && disagreed.empty()) disagreed = ranks + ends;
        } else if (why.empty()) {
            why = ranks + "one end measured nothing valid";
        }
    }
    const hier::MeasuredLink agreed = hier::agreeLink(pairs);
    if (!agreed.valid && measuredPairs > 0 && st.attempt + 1 < kAttempts) {
        // Every rank holds the same records, so every rank measures again.
        if (c.rank == 0) rt.verbose(2, prefix(link) + " calibration rejected (" + why + "); measuring again");
        st.rejected = why;
        ++st.attempt;
        if (int rc = startMeasuring(c, st)) finishDecomposition(c, rc);
        return;
    }
    const hier::CalibrationPolicy& policy = rt.calibrationPolicy(link);
    if (agreed.valid) {
        hier::applyMeasuredLink(c.selection.costs, link, agreed, policy);
        c.selection.measured[static_cast<size_t>(link)] = true;
        rt.setMeasuredLink(link, agreed);
    } else if (measuredPairs > 0 && !rt.measuredLink(link).valid) {
        // Later communicators keep the MCA values too (their identity records say so).
        hier::MeasuredLink no;
        no.rejected = true;
        rt.setMeasuredLink(link, no);
    }
    // One line per job in practice: rank 0 of the communicator that measured (later
    // communicators take the value from their identity records, verbose level 2).
    if (c.rank == 0) {
        const hier::LinkCost& l = c.selection.costs.link[link];
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - st.passStart).count();
        if (agreed.valid) {
            rt.verbose(1, measuredLine(link, c.selection.costs, agreed, policy, pairs.size(), measuredPairs, ms) +
                              reduceRateNote(c, link) +
                              (disagreed.empty() ? ""
                                                 : "; the ends of a pair disagreed (" + disagreed +
                                                       "): the less loaded end kept") +
                              (st.attempt > 0 ? "; measured twice, the first rejected (" + st.rejected + ")"
                                               : ""));
        } else {
            rt.verbose(1, measuredPairs > 0
                              ? prefix(link) + " calibration rejected twice (" + why + "); the cost model keeps " +
                                    mcaName(link, "*") + " (alpha=" + fixed(l.alpha_us, usDigits(link)) +
                                    " us beta=" + fixed(l.beta_us_per_byte * 1000, 2) + " ns/B)"
                              : prefix(link) + " calibration measured nothing; the cost model keeps " +
                                    mcaName(link, "*"));
        }
    }
    if (++st.pass < st.passes.size()) {
        if (int rc = startPass(c, st)) finishDecomposition(c, rc);
        return;
    }
    c.selection.calibration.reset();
    continueSetupAfterCalibration(c);
}

int startAgreement(hieragg_comm& c, LinkCalibrationState& st) {
    return startRecordExchange(c, st.records.data(), sizeof(CalibrationRecord), calibrationTagBase(1),
                               calibrationCallback<agreementArrived>);
}

// This end's estimate from the rounds it timed.
hier::MeasuredLink estimateOwn(const hieragg_comm& c, const LinkCalibrationState& st) {
    std::string why, note;
    // An unknown rate is rejected on the first attempt only: measured again, the second stands.
    hier::MeasuredLink m = hier::estimateLink(st.pingPong, kSmallBytes, eagerLimit(st.link), &why, &note,
                                              st.attempt + 1 < kAttempts);
    std::vector<double> single;
    for (const hier::RoundTrips& r : st.pingPong)
        if (r.bytes == kSmallBytes) single = r.us;
    if (m.valid) {
        m.exchange_us = hier::estimateExchangeRound(st.exchangeRound, m.alpha_us);
        m.burst_us = hier::estimateBurst(st.stream, single, kStreamMessages, m.alpha_us);
        const double bytes = static_cast<double>(st.maxBytes);
        m.duplex_beta_ns_per_byte = hier::estimateDuplexBeta(
            st.duplexRound, bytes, m.exchange_us > 0 ? m.exchange_us : m.alpha_us,
            m.eager_bytes > 0 && bytes >= m.eager_bytes ? m.rendezvous_us : 0.0, m.beta_ns_per_byte);
    }
    Runtime& rt = *Runtime::instance();
    // Each end's own verdict on its fit (every end that measured, attempt by attempt): what it
    // set aside or rejected, and why; the agreement's line (rank 0) says what was kept.
    const std::string end = prefix(st.link) + " rank " + std::to_string(c.rank) + " timing " +
                            std::to_string(st.peer) + " (attempt " + std::to_string(st.attempt + 1) + "): ";
    if (!m.valid)
        rt.verbose(2, end + "estimate rejected: " + why);
    else if (!note.empty())
        rt.verbose(2, end + note + " (alpha " + fixed(m.alpha_us, usDigits(st.link)) + " us, beta " +
                          fixed(m.beta_ns_per_byte, 2) + " ns/B, noise " + fixed(m.noise * 100, 0) + "%)");
    if (rt.config().verbose >= 3) {  // the raw samples, to judge the estimate
        std::string text = "hieragg: " + std::string(hier::linkClassName(st.link)) + " calibration, rank " + std::to_string(c.rank) + " timing " +
                           std::to_string(st.peer) + ", round trips [us]";
        for (const hier::RoundTrips& r : st.pingPong) {
            text += "; of " + std::to_string(r.bytes) + " B:";
            for (double t : r.us) text += " " + fixed(t, 1);
        }
        text += "; of " + std::to_string(kStreamMessages) + " x 8 B back to back:";
        for (double t : st.stream) text += " " + fixed(t, 1);
        text += "; exchange rounds of 8 B each way:";
        for (double t : st.exchangeRound) text += " " + fixed(t, 1);
        if (!st.duplexRound.empty()) {
            text += "; duplex rounds of " + std::to_string(st.maxBytes) + " B each way:";
            for (double t : st.duplexRound) text += " " + fixed(t, 1);
        }
        text += m.valid ? "; alpha " + fixed(m.alpha_us, 1) + " us, beta " + fixed(m.beta_ns_per_byte, 2) +
                              " ns/B, eager beta " + fixed(m.eager_beta_ns_per_byte, 2) + " ns/B, rendezvous " +
                              fixed(m.rendezvous_us, 1) + " us, burst " + fixed(m.burst_us, 1) + " us"
                        : "; rejected: " + why;
        rt.verbose(3, text);
    }
    return m;
}

void roundMeasured(hieragg_comm& c, LinkCalibrationState& st) {
    const Round& r = st.plan[st.round];
    if (r.side == st.side || r.kind == Round::Exchange || r.kind == Round::Duplex) {
        const double us =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - st.t0).count();
        if (r.kind == Round::Exchange)
            st.exchangeRound.push_back(us);
        else if (r.kind == Round::Duplex)
            st.duplexRound.push_back(us);
        else if (r.kind == Round::Stream)
            st.stream.push_back(us);
        else
            for (hier::RoundTrips& s : st.pingPong)
                if (s.bytes == r.bytes) s.us.push_back(us);
    }
    if (++st.round < st.plan.size()) {
        if (int rc = startRound(c, st)) finishDecomposition(c, rc);
        return;
    }
    CalibrationRecord& mine = st.records[c.rank];
    mine.link = hier::toRecord(estimateOwn(c, st));
    mine.peer = st.peer;
    std::vector<char>().swap(st.buf);
    if (int rc = startAgreement(c, st)) finishDecomposition(c, rc);
}

}  // namespace

namespace {

// Starts measuring st.passes[st.pass] (its sizes straddle that link's eager limit).
int startPass(hieragg_comm& c, LinkCalibrationState& st) {
    const CalibrationPass& p = st.passes[st.pass];
    st.link = p.link;
    st.peer = p.peer;
    st.side = p.side;
    st.attempt = 0;
    st.rejected.clear();
    st.sizes = hier::calibrationSizes(eagerLimit(p.link), p.link == hier::kLinkNode ? hier::kNodeLargestBytes : 0);
    st.maxBytes = *std::max_element(st.sizes.begin(), st.sizes.end());
    st.plan = roundPlan(st.sizes, eagerLimit(p.link), p.link == hier::kLinkNetwork);
    st.passStart = std::chrono::steady_clock::now();
    return startMeasuring(c, st);
}

// This rank's end in disjoint pairs (0,1), (2,3), ... of `members` (sorted): they all
// measure at once. No peer (-1) for a rank outside or last of an odd count.
CalibrationPass pairIn(int link, std::vector<int> members, int rank) {
    CalibrationPass p;
    p.link = link;
    std::sort(members.begin(), members.end());
    const auto me = std::find(members.begin(), members.end(), rank);
    if (me != members.end()) {
        const size_t i = static_cast<size_t>(me - members.begin());
        if ((i ^ 1) < members.size()) {
            p.peer = members[i ^ 1];
            p.side = static_cast<int>(i % 2);
        }
    }
    return p;
}

// The value measured before by processes of this communicator (usually on MPI_COMM_WORLD):
// every rank agrees from the same records, nothing is sent. A measurement rejected before
// is not taken again either. False if none carried either.
bool applyCarried(hieragg_comm& c, int link, const std::vector<hier::MeasuredLink>& records) {
    const hier::MeasuredLink carried = hier::agreeLink(records);
    Runtime& rt = *Runtime::instance();
    if (carried.rejected) {  // measured and rejected before: not again
        if (c.rank == 0)
            rt.verbose(2, prefix(link) + " calibration rejected earlier (carried by the identity exchange); the "
                                         "cost model keeps " + mcaName(link, "*"));
        return true;
    }
    if (!carried.valid) return false;
    hier::applyMeasuredLink(c.selection.costs, link, carried, rt.calibrationPolicy(link));
    c.selection.measured[static_cast<size_t>(link)] = true;
    rt.setMeasuredLink(link, carried);
    const hier::LinkCost& l = c.selection.costs.link[link];
    const int d = usDigits(link);
    if (c.rank == 0)
        rt.verbose(2, prefix(link) + " alpha=" + fixed(l.alpha_us, d) + " us beta=" +
                          fixed(l.beta_us_per_byte * 1000, 2) + " ns/B" +
                          (link == hier::kLinkNode ? " theta=" + fixed(l.theta_us, d) + " us" : std::string()) +
                          " exchange=" + fixed(hier::exchangeRoundUs(l), d) +
                          " us (measured earlier, carried by the identity exchange)" +
                          measuredExtras(link, l, carried, c.selection.costs.closeFraction));
    return true;
}

// The node link: ranks that share a host (by the identity records) pair up on it, when some
// host holds two ranks of the communicator.
bool nodePass(hieragg_comm& c, const CalibrationInputs& in, std::vector<CalibrationPass>& passes) {
    if (in.hostOf.size() != static_cast<size_t>(c.size)) return false;  // no identities exchanged
    std::vector<int> counts(in.hostOf.size(), 0), mine;
    bool shared = false;
    for (int r = 0; r < c.size; ++r) {
        const int h = in.hostOf[static_cast<size_t>(r)];
        if (h >= 0 && static_cast<size_t>(h) < counts.size()) shared = ++counts[static_cast<size_t>(h)] > 1 || shared;
        if (h == in.hostOf[static_cast<size_t>(c.rank)]) mine.push_back(r);
    }
    if (!shared || applyCarried(c, hier::kLinkNode, in.carried[hier::kLinkNode])) return false;
    passes.push_back(pairIn(hier::kLinkNode, mine, c.rank));
    return true;
}

// The network: the members of the first stage whose messages cross it (the leader space
// of a node split), when the communicator spans hosts.
bool networkPass(hieragg_comm& c, const CalibrationInputs& in, std::vector<CalibrationPass>& passes) {
    if (!c.decomp.hierarchy) return false;
    const auto it = std::find(c.selection.stageLinks.begin(), c.selection.stageLinks.end(),
                              static_cast<int>(hier::kLinkNetwork));
    if (it == c.selection.stageLinks.end()) return false;
    if (applyCarried(c, hier::kLinkNetwork, in.carried[hier::kLinkNetwork])) return false;
    if (!in.spansHosts && !oneHostAllowed()) return false;
    const int stage = static_cast<int>(it - c.selection.stageLinks.begin());
    passes.push_back(pairIn(hier::kLinkNetwork, hier::spaceGroup(*c.decomp.hierarchy, stage, c.rank, -1).group.ranks,
                            c.rank));
    return true;
}

}  // namespace

bool beginLinkCalibration(hieragg_comm& c, const CalibrationInputs& in) {
    Runtime& rt = *Runtime::instance();
    if (c.inter) return false;
    try {
        std::vector<CalibrationPass> passes;
        if (hier::calibrationWanted(rt.calibrationPolicy(hier::kLinkNode))) nodePass(c, in, passes);
        if (hier::calibrationWanted(rt.calibrationPolicy(hier::kLinkNetwork))) networkPass(c, in, passes);
        if (passes.empty()) return false;
        auto st = std::make_shared<LinkCalibrationState>();
        st->passes = std::move(passes);
        st->records.assign(static_cast<size_t>(c.size), CalibrationRecord{});
        c.selection.calibration = st;
        if (int rc = startPass(c, *st)) finishDecomposition(c, rc);
    } catch (const std::bad_alloc&) {
        finishDecomposition(c, HIERAGG_ERR_NO_MEM);
    }
    return true;
}

}  // namespace hieragg
