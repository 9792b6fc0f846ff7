// A communicator's call numbering and the functions that turn numbers into tags
// (docs/architecture.md, "Messages and tags"): per pair of ranks, the calls that exchanged
// messages with that peer; the persistent requests' own numbers; an intercommunicator's
// persistent requests numbered per pair at their init. Tag regions come from TagLayout.hpp.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "TagLayout.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/abi.h"

struct hieragg_comm;

namespace hieragg {

// Tag bases of an intercommunicator's persistent request, per peer (Schedule::peers / localPeers).
struct PersistentTags {
    std::vector<int> peer, local;
};

struct TagAllocation {
    // Calls so far that exchanged messages with each peer (communicator / remote group,
    // and an intercommunicator's local group): the same count on both ends of a pair.
    // Sized at first use (pairNumbers), when callTags is set too.
    std::vector<uint32_t> pairSeq, localPairSeq;
    // The Runtime's call-region tag rule (TagLayout::callRule), copied with pairSeq's sizing:
    // a communicator lives inside one Runtime, whose layout never changes.
    CallTagRule callTags;
    uint32_t persistentCount = 0;  // persistent requests initialised (their own tag spaces)
    // Intercommunicators number persistent requests per pair too (numberInterPersistent).
    std::vector<uint32_t> persistPairSeq, localPersistPairSeq;
    std::unordered_map<uint32_t, PersistentTags> persistentTags;
};

// Tag regions (TagLayout.hpp, sized from the PML's MPI_TAG_UB): per-pair call numbers,
// persistent requests' own numbers, and the identity exchange's fixed channel block.
int tagBase(uint32_t seq, TagSpace space, bool localGroup);
int identityExchangeTagBase();
// The offload setup's fixed blocks below the identity exchange's, like it not tied to a
// call number: 0 addresses, 1 join results, 2 failure notices, 3 leader re-runs over the
// PML, 4 join notices (docs/offload.md).
int offloadExchangeTagBase(int stage);
// The network calibration's ping-pongs (stage 0) and its agreement (stage 1): fixed blocks
// below the offload setup's five (a rank still calibrating must not match a notice).
int calibrationTagBase(int stage);
constexpr uint32_t kMaxChannels = TagLayout::kChannels;

// pairSeq, sized for `peerCount` peers at its first use (with callTags).
void sizePairNumbers(TagAllocation& t, size_t peerCount);
inline std::vector<uint32_t>& pairNumbers(TagAllocation& t, size_t peerCount) {
    if (t.pairSeq.empty()) sizePairNumbers(t, peerCount);
    return t.pairSeq;
}
// The tag bases of the next call on each of the schedule's peers (aligned with s.peers);
// `peerCount`: the communicator's size, or the remote group's. Inline: every call takes them.
inline void takeCallTags(TagAllocation& t, const Schedule& s, size_t peerCount, int* out) {
    std::vector<uint32_t>& seq = pairNumbers(t, peerCount);
    for (size_t i = 0; i < s.peers.size(); ++i) out[i] = t.callTags.base(seq.at(s.peers[i])++);
}
// The same for an intercommunicator's local group (s.localPeers), appended to `out`.
void takeLocalCallTags(TagAllocation& t, const Schedule& s, size_t localCount, std::vector<int>& out);
// A chain of `links` calls (a strong reduction, a two-stage v-collective) reserves that
// many consecutive numbers on EVERY pair of an intracommunicator of `size` ranks; returns
// the first number per peer (link k uses it + k).
std::vector<uint32_t> reserveOnEveryPair(TagAllocation& t, size_t size, uint32_t links);
// Per-peer tag bases of an intercommunicator's persistent request, taken at its init.
void takePersistentTags(TagAllocation& t, const Schedule& sched, size_t remoteSize, size_t size, PersistentTags& tags);
// Intercommunicators: numbers the persistent request `id` per pair from its schedule.
int numberInterPersistent(hieragg_comm& c, const hieragg_coll_args& args, uint32_t id);

}  // namespace hieragg
