#include "CommState.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "OffloadSetup.hpp"
#include "Runtime.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/hier/Decomposition.hpp"
#include "hieragg/hier/LocalIdentity.hpp"
#include "hieragg/hier/SplitSpec.hpp"

namespace hieragg {

namespace {
// Open MPI reserves tags below MCA_COLL_BASE_TAG_NONBLOCKING_BASE (-27) for
// nonblocking collectives; a communicator served by hieragg sends no others there.
constexpr int kTagTop = -28;
constexpr uint32_t kSeqWindow = 1u << 16;  // collectives in flight per communicator, at most
constexpr int kLocalGroupOffset = 1 << 28;

// What every rank sends in the identity exchange. `inputs` fingerprints the split
// value and the files it names, so ranks that read different files notice it.
struct IdentityRecord {
    int32_t worldRank;
    int32_t numa;
    uint64_t inputs;
    char hostname[64];
};

uint64_t fingerprintInputs(const std::string& split) {
    std::string all = split;
    hier::SplitSpec spec;
    std::string err;
    if (hier::parseSplitSpec(split, spec, err)) {
        for (const auto& l : spec.levels) {
            if (l.path.empty()) continue;
            std::ifstream in(l.path, std::ios::binary);
            std::stringstream ss;
            if (in) ss << in.rdbuf();
            all += in ? "\n<" + ss.str() + ">" : "\n<missing>";
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

int tagBase(uint32_t seq, bool localGroup) {
    return kTagTop - static_cast<int>((seq % kSeqWindow) * kMaxChannels) -
           (localGroup ? kLocalGroupOffset : 0);
}

int allgatherRecords(hieragg_comm& c, void* recs, size_t recordBytes) {
    Runtime& rt = *Runtime::instance();
    auto sched = std::make_shared<const Schedule>(ringAllgather(c.rank, c.size, recordBytes));
    TaskBindings bind;
    bind.rbuf = recs;
    bind.types = {nullptr, nullptr, rt.transport().packedType()};
    bind.comm = c.comm;
    bind.tagBase = tagBase(c.seq, false);
    bind.localTagBase = tagBase(c.seq, true);
    ++c.seq;
    Task t(sched, rt.transport(), bind);
    int rc = t.start();
    while (rc == 0 && !t.progress()) rt.transport().progress();
    return rc != 0 ? rc : t.status();
}

int ensureDecomposition(hieragg_comm& c) {
    if (c.decomposed) return 0;
    c.decomposed = true;
    Runtime& rt = *Runtime::instance();
    if (c.inter || c.size <= 1 || rt.config().hierarchy == 0) return 0;

    const std::string& split = rt.split();
    std::vector<hier::RankIdentity> ids(c.size);
    bool consistent = true;
    if (needsExchange(split)) {
        std::vector<IdentityRecord> recs(c.size);
        hier::RankIdentity me = hier::localIdentity(c.worldRank);
        IdentityRecord& mine = recs[c.rank];
        std::memset(&mine, 0, sizeof mine);
        mine.worldRank = me.worldRank;
        mine.numa = me.numa;
        mine.inputs = fingerprintInputs(split);
        std::strncpy(mine.hostname, me.hostname.c_str(), sizeof mine.hostname - 1);

        if (int rc = allgatherRecords(c, recs.data(), sizeof(IdentityRecord))) return rc;
        for (int r = 0; r < c.size; ++r) {
            recs[r].hostname[sizeof recs[r].hostname - 1] = '\0';
            ids[r] = {recs[r].worldRank, recs[r].hostname, recs[r].numa};
            if (recs[r].inputs != recs[0].inputs) consistent = false;
        }
    } else {
        for (int r = 0; r < c.size; ++r) ids[r].worldRank = r;
    }

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
        rt.warnOnce("coll_hieragg_split=" + split +
                ": ranks of this communicator see different values or file contents; using 'node'");
    else if (d.fellBack() && speaker)
        rt.warnOnce(d.warning);
    if (c.rank == 0) rt.verbose(1, "hieragg: communicator of " + std::to_string(c.size) + " ranks (world rank " +
                      std::to_string(c.worldRank) + " is rank " + std::to_string(c.rank) + "): split=" +
                      d.applied.text() + "; " + d.hierarchy.describe(d.levelNames));
    if (!d.hierarchy.isTrivial()) {
        c.stageLinks = hier::stageLinks(d.levelNames, d.hierarchy.levels());
        c.hierarchy = std::make_unique<hier::Hierarchy>(std::move(d.hierarchy));
        // Sequenced after the identity exchange, before any collective of the communicator.
        return setupOffload(c);
    }
    return 0;
}

}  // namespace hieragg
