#include "DecompositionStage.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <unordered_map>

#include "LinkCalibrationStage.hpp"
#include "CommState.hpp"
#include "OffloadSetup.hpp"
#include "ReduceRateProbe.hpp"
#include "Runtime.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/aggtree/InputFile.hpp"
#include "hieragg/hier/Decomposition.hpp"
#include "hieragg/hier/LocalIdentity.hpp"
#include "hieragg/aggtree/Printable.hpp"
#include "hieragg/hier/SplitSpec.hpp"

namespace hieragg {

namespace {
// What every rank sends in the identity exchange. `inputs` fingerprints the split
// value and the files it names, so ranks that read different files notice it.
struct IdentityRecord {
    int32_t worldRank;
    int32_t numa;
    uint64_t inputs;
    char hostname[64];
    // The node and network links this process measured or agreed on before
    // (LinkCalibrationStage.hpp).
    hier::LinkRecord node, net;
    double reduceRate;  // this process's local reduction rate [ns/B] (ReduceRateProbe.hpp)
};

uint64_t fingerprintInputs(const std::string& split) {
    std::string all = split;
    hier::SplitSpec spec;
    std::string err;
    if (hier::parseSplitSpec(split, spec, err)) {
        for (const auto& l : spec.levels) {
            if (l.path.empty()) continue;
            // Bounded and never blocking (a FIFO, /dev/zero); the decomposition reports why.
            try {
                all += "\n<" + aggtree::readInputFile(l.path) + ">";
            } catch (const std::exception& e) {
                all += "\n<unreadable: " + std::string(e.what()) + ">";
            }
        }
    }
    return std::hash<std::string>{}(all);
}

bool needsExchange(const std::string& split) {
    hier::SplitSpec spec;
    std::string err;
    if (!hier::parseSplitSpec(split, spec, err)) return true;  // fallback "node" needs hostnames
    for (const auto& l : spec.levels)
        if (l.kind != hier::SplitLevel::Kind::Virtual && l.kind != hier::SplitLevel::Kind::RoundRobin)
            return true;
    return false;
}

// Ring allgather of fixed-size records: size-1 rounds, one message per rank per round.
Schedule ringAllgather(int rank, int size, size_t recordBytes) {
    ScheduleBuilder b("ring-allgather");
    const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    StepId prev = kNoStep;
    for (int r = 0; r < size - 1; ++r) {
        const int sendBlock = (rank - r + size) % size;
        const int recvBlock = (rank - r - 1 + size) % size;
        StepId s = b.send(right, {kRecvBuf, static_cast<ptrdiff_t>(sendBlock * recordBytes)},
                          {kPackedType, recordBytes}, prev, 0);
        StepId rv = b.recv(left, {kRecvBuf, static_cast<ptrdiff_t>(recvBlock * recordBytes)},
                           {kPackedType, recordBytes}, prev, 0);
        prev = b.join({s, rv});
    }
    return b.finish();
}
}  // namespace

int startRecordExchange(hieragg_comm& c, void* recs, size_t recordBytes, int tagBase, hieragg_complete_fn done) {
    Runtime& rt = *Runtime::instance();
    auto sched = std::make_shared<const Schedule>(ringAllgather(c.rank, c.size, recordBytes));
    TaskBindings bind;
    bind.rbuf = recs;
    bind.types = {nullptr, nullptr, rt.transport().packedType()};
    bind.comm = c.comm;
    bind.tagBase = bind.localTagBase = tagBase;
    auto task = std::make_unique<Task>(sched, rt.transport(), bind);
    if (int rc = task->start()) return rc;
    rt.track(std::move(task), done, &c);
    return 0;
}

namespace {

// Every rank computes the same hierarchy from the same identities.
void applyDecomposition(hieragg_comm& c, const std::vector<hier::RankIdentity>& ids, bool consistent) {
    Runtime& rt = *Runtime::instance();
    const std::string& split = rt.split();
    hier::DecompositionResult d = consistent
                                      ? hier::decomposeValue(split, ids)
                                      : hier::decomposeValue("node", ids);
    // One process speaks for the job: world rank 0. Every problem a sub-communicator
    // can have (bad value, bad file, a world rank in no group, an unknown host) also
    // shows on any communicator that contains world rank 0 and that rank, which in
    // practice means MPI_COMM_WORLD; elsewhere it is reported at verbose level 1.
    const bool speaker = c.worldRank == 0;
    if ((d.fellBack() || !consistent) && !speaker && c.rank == 0)
        rt.verbose(1, "hieragg: " + (consistent ? d.warning : std::string("inconsistent split inputs")));
    if (!consistent && speaker)
        rt.warnOnce("coll_hieragg_split=" + aggtree::printable(split) +
                ": ranks of this communicator see different values or file contents; using 'node'");
    else if (d.fellBack() && speaker)
        rt.warnOnce(d.warning);
    // Applied, but trimmed (e.g. more switch levels than the level cap): same speaker rule.
    if (!d.notice.empty()) {
        if (speaker) rt.warnOnce(d.notice);
        else if (c.rank == 0) rt.verbose(1, "hieragg: " + d.notice);
    }
    if (c.rank == 0) rt.verbose(1, "hieragg: communicator of " + std::to_string(c.size) + " ranks (world rank " +
                      std::to_string(c.worldRank) + " is rank " + std::to_string(c.rank) + "): split=" +
                      d.applied.text() + "; " + d.hierarchy.describe(d.levelNames));
    const hieragg_config& cfg = rt.config();
    if (c.rank == 0 && cfg.node_cores > 0 && cfg.node_ranks > cfg.node_cores)
        rt.verbose(1, "hieragg: " + std::to_string(cfg.node_ranks) + " ranks share " + std::to_string(cfg.node_cores) +
                          " cores on this node: the node link's alpha is " +
                          std::to_string(rt.costs().link[hier::kLinkNode].alpha_us) + " us (OversubscribedNode.hpp)");
    if (!d.hierarchy.isTrivial()) {
        c.selection.stageLinks = hier::stageLinks(d.levelNames, d.hierarchy.levels());
        c.decomp.hierarchy = std::make_unique<hier::Hierarchy>(std::move(d.hierarchy));
    }
}

void becomeReady(hieragg_comm& c, int status) {
    c.decomp.state = DecompositionStage::State::Ready;
    std::vector<char>().swap(c.decomp.identityRecords);
    c.offload.setup.reset();
    c.selection.calibration.reset();
    if (c.decomp.onReady) c.decomp.onReady(c, status);
}

// The hierarchy exists: the link calibration (if any), then the offload setup's
// exchanges (which ask the calibrated model), run before the waiting calls.
void afterDecomposition(hieragg_comm& c, const CalibrationInputs& in) {
    if (!beginLinkCalibration(c, in)) continueSetupAfterCalibration(c);
}

// Completion of the identity exchange (from Runtime::progress, or at once from track).
void exchangeDone(void* ctx, int status) {
    hieragg_comm& c = *static_cast<hieragg_comm*>(ctx);
    std::lock_guard<CommMutex> lock(c.mutex);
    if (status == 0) {
        try {
            const auto* recs = reinterpret_cast<IdentityRecord*>(c.decomp.identityRecords.data());
            std::vector<hier::RankIdentity> ids(c.size);
            bool consistent = true;
            CalibrationInputs calib;
            calib.hostOf.resize(static_cast<size_t>(c.size));
            std::unordered_map<std::string, int> hosts;  // host name -> its lowest rank
            std::vector<double> rates(static_cast<size_t>(c.size));
            for (int link : {hier::kLinkNode, hier::kLinkNetwork}) calib.carried[link].resize(static_cast<size_t>(c.size));
            for (int r = 0; r < c.size; ++r) {
                IdentityRecord rec = recs[r];
                rec.hostname[sizeof rec.hostname - 1] = '\0';
                ids[r] = {rec.worldRank, rec.hostname, rec.numa};
                if (rec.inputs != recs[0].inputs) consistent = false;
                if (ids[r].hostname != ids[0].hostname) calib.spansHosts = true;
                calib.hostOf[static_cast<size_t>(r)] = hosts.emplace(ids[r].hostname, r).first->second;
                calib.carried[hier::kLinkNode][static_cast<size_t>(r)] = hier::fromRecord(rec.node);
                calib.carried[hier::kLinkNetwork][static_cast<size_t>(r)] = hier::fromRecord(rec.net);
                rates[static_cast<size_t>(r)] = rec.reduceRate;
            }
            applyAgreedReduceRate(c, rates);
            applyDecomposition(c, ids, consistent);
            std::vector<char>().swap(c.decomp.identityRecords);
            return afterDecomposition(c, calib);
        } catch (const std::bad_alloc&) {
            status = HIERAGG_ERR_NO_MEM;
        }
    }
    becomeReady(c, status);
}

}  // namespace

void finishDecomposition(hieragg_comm& c, int status) { becomeReady(c, status); }

void continueSetupAfterCalibration(hieragg_comm& c) {
    if (!beginOffloadSetup(c)) becomeReady(c, 0);
}

void beginDecomposition(hieragg_comm& c, ReadyFn onReady) {
    if (c.decomp.state != DecompositionStage::State::None) return;
    c.decomp.onReady = onReady;
    c.decomp.state = DecompositionStage::State::Exchanging;
    Runtime& rt = *Runtime::instance();
    if (c.inter || c.size <= 1 || rt.config().hierarchy == 0) return becomeReady(c, 0);

    const std::string& split = rt.split();
    if (!needsExchange(split)) {
        std::vector<hier::RankIdentity> ids(c.size);
        for (int r = 0; r < c.size; ++r) ids[r].worldRank = r;
        applyDecomposition(c, ids, true);
        // No identities exchanged: nothing tells the ranks apart by host, nothing to agree from.
        return afterDecomposition(c, CalibrationInputs{});
    }
    // A ring allgather of identity records on its own tag block, as a Task like any
    // other: the call that triggered it returns at once and waits in c.decomp.pending.
    c.decomp.identityRecords.assign(sizeof(IdentityRecord) * static_cast<size_t>(c.size), 0);
    auto* recs = reinterpret_cast<IdentityRecord*>(c.decomp.identityRecords.data());
    hier::RankIdentity me = hier::localIdentity(c.worldRank);
    IdentityRecord& mine = recs[c.rank];
    mine.worldRank = me.worldRank;
    mine.numa = me.numa;
    mine.inputs = fingerprintInputs(split);
    std::strncpy(mine.hostname, me.hostname.c_str(), sizeof mine.hostname - 1);
    mine.node = hier::toRecord(rt.measuredLink(hier::kLinkNode));
    mine.net = hier::toRecord(rt.measuredLink(hier::kLinkNetwork));
    mine.reduceRate = ownReduceRateForSetup();

    auto sched = std::make_shared<const Schedule>(ringAllgather(c.rank, c.size, sizeof(IdentityRecord)));
    TaskBindings bind;
    bind.rbuf = recs;
    bind.types = {nullptr, nullptr, rt.transport().packedType()};
    bind.comm = c.comm;
    bind.tagBase = bind.localTagBase = identityExchangeTagBase();
    auto task = std::make_unique<Task>(sched, rt.transport(), bind);
    if (int rc = task->start()) return becomeReady(c, rc);
    rt.track(std::move(task), exchangeDone, &c);
}

}  // namespace hieragg
