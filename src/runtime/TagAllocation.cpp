#include "TagAllocation.hpp"

#include <exception>
#include <memory>
#include <new>
#include <string>

#include "CallPreparation.hpp"
#include "CommState.hpp"
#include "Runtime.hpp"

namespace hieragg {

int tagBase(uint32_t seq, TagSpace space, bool localGroup) {
    return Runtime::instance()->tags().callBase(seq, space, localGroup);
}

void sizePairNumbers(TagAllocation& t, size_t peerCount) {
    t.pairSeq.assign(peerCount, 0);
    t.callTags = Runtime::instance()->tags().callRule();
}

int identityExchangeTagBase() { return Runtime::instance()->tags().setupBase(0); }

int offloadExchangeTagBase(int stage) {
    return Runtime::instance()->tags().setupBase(static_cast<uint32_t>(stage) + 1);
}

int calibrationTagBase(int stage) { return offloadExchangeTagBase(5 + stage); }

void takeLocalCallTags(TagAllocation& t, const Schedule& s, size_t localCount, std::vector<int>& out) {
    if (s.localPeers.empty()) return;
    if (t.localPairSeq.empty()) t.localPairSeq.assign(localCount, 0);
    for (int p : s.localPeers) out.push_back(tagBase(t.localPairSeq.at(p)++, TagSpace::Call, true));
}

std::vector<uint32_t> reserveOnEveryPair(TagAllocation& t, size_t size, uint32_t links) {
    std::vector<uint32_t> first = pairNumbers(t, size);
    for (uint32_t& n : t.pairSeq) n += links;
    return first;
}

void takePersistentTags(TagAllocation& t, const Schedule& sched, size_t remoteSize, size_t size, PersistentTags& tags) {
    if (t.persistPairSeq.empty()) t.persistPairSeq.assign(remoteSize, 0);
    if (t.localPersistPairSeq.empty()) t.localPersistPairSeq.assign(size, 0);
    for (int p : sched.peers) tags.peer.push_back(tagBase(t.persistPairSeq.at(p)++, TagSpace::Persistent, false));
    for (int p : sched.localPeers)
        tags.local.push_back(tagBase(t.localPersistPairSeq.at(p)++, TagSpace::Persistent, true));
}

// Intercommunicators (TagAllocation.hpp): Open MPI skips some inits on ranks whose count is 0 (e.g.
// MPIX_Reduce_init at MPI_PROC_NULL), so a per-communicator number would drift there;
// a persistent request is numbered per pair instead, from the schedule (no
// decomposition needed), as calls are.
int numberInterPersistent(hieragg_comm& c, const hieragg_coll_args& args, uint32_t id) {
    try {
        CollCall call;
        std::shared_ptr<const Schedule> sched;
        if (int rc = scheduleFor(c, args, call, sched)) return rc;
        PersistentTags tags;
        takePersistentTags(c.tags, *sched, static_cast<size_t>(c.remoteSize), static_cast<size_t>(c.size), tags);
        c.tags.persistentTags[id] = std::move(tags);
        return 0;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    } catch (const std::exception& e) {
        Runtime::instance()->warn(std::string("hieragg: ") + hieragg_coll_name(args.kind) + ": " + e.what());
        return HIERAGG_ERR_UNSUPPORTED;
    }
}

}  // namespace hieragg
