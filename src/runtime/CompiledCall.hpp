// A small schedule compiled into a flat array of actions for repeated blocking calls of
// one signature (docs/architecture.md, "The compiled fast path"): every action's peer,
// channel, addresses (a slot and an offset, temporaries already resolved), element
// counts, type slot and bytes are worked out once, and its dependencies are a bit mask.
// Running it needs no allocation, no datatype description and none of the Task's
// step-DAG bookkeeping (ready queue, posted list, fragment windows).
//
// compile() declines (returns false and says why) whatever it does not run exactly as a
// Task would: fragment templates, offloaded collectives, per-peer datatypes, local-group
// messages, more than kMaxActions steps, temporaries over kArenaBytes. The caller then
// keeps the Task path. A compiled call keeps its schedule alive and is bound to the
// datatype layouts it was compiled for; CallCache decides when it may run.
#pragma once
#include <cstdint>
#include <memory>

#include "TagLayout.hpp"
#include "../transports/pml/PmlTransport.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/TaskObserver.hpp"
#include "hieragg/Transport.hpp"
#include "hieragg/abi.h"

namespace hieragg {

class CompiledCall {
public:
    static constexpr size_t kMaxActions = 64;   // one bit each in a dependency mask
    static constexpr size_t kArenaBytes = 4096; // temporaries of the compiled call, all of them

    // What one call binds: buffers, handles and the per-peer tag bases (aligned with the
    // schedule's peers, as TaskBindings::peerTagBase; start() copies them), or null when
    // takeTags() has taken this call's.
    struct Binding {
        const void* sbuf = nullptr;
        void* rbuf = nullptr;
        void* stype = nullptr;
        void* rtype = nullptr;
        void* packed = nullptr;
        void* op = nullptr;
        void* comm = nullptr;
        const int* peerTagBase = nullptr;
        TaskObserver* observer = nullptr;  // counts sends and temporaries (null: nobody counts)
    };

    CompiledCall() = default;
    CompiledCall(const CompiledCall&) = delete;
    CompiledCall& operator=(const CompiledCall&) = delete;

    // Prepares the actions of `s` for calls whose send and receive types have the layouts
    // `stype` and `rtype` (the packed type is one byte). False (with *why set) declines.
    bool compile(std::shared_ptr<const Schedule> s, const hieragg_dtype_info& stype,
                 const hieragg_dtype_info& rtype, const char** why);
    bool compiled() const { return sched_ != nullptr; }
    const Schedule* schedule() const { return sched_.get(); }
    size_t actions() const { return count_; }
    // One more than the largest peer the schedule lists (0: none): takeTags' pairSeq holds
    // at least that many numbers.
    uint32_t peerBound() const { return peerBound_; }
    // Binds the communicator's per-pair call numbers for takeTags: `pairSeq`
    // (TagAllocation::pairSeq, at least peerBound() long) and its call-region rule. The
    // compiled call keeps the address of each of its peers' numbers, so pairSeq must not move
    // while it is bound: TagAllocation sizes it once for the communicator's life and never
    // again (sizePairNumbers), and runRepeat binds on every admission (compiledForLast).
    void bindPairNumbers(uint32_t* pairSeq, CallTagRule rule) {
        for (uint32_t i = 0; i < peerSlots_; ++i) seq_[i] = pairSeq + peers_[i];
        rule_ = rule;
    }
    // Takes the next call's per-pair numbers, one on each of the schedule's peers (as
    // takeCallTags does for a Task: slot i's base is rule.base(n), n its peer's number before
    // the call, and the number goes up by one), into the tag bases the next start() uses
    // when its Binding has no peerTagBase. Needs bindPairNumbers. The same numbers and tags
    // as takeCallTags, so a compiled rank and a Task rank agree on every pair. Two peers per
    // turn (the schedule's peers are distinct, so the two numbers are two words): about 10
    // instructions a peer instead of 13 (no index to scale per peer, one loop test per two).
    void takeTags() {
        const CallTagRule rule = rule_;
        const uint32_t n = peerSlots_;
        uint32_t i = n & 1;  // an odd one first, so that the loop's end needs no remainder
        if (i) tags_[0] = rule.base((*seq_[0])++);
        for (; i < n; i += 2) {
            uint32_t* a = seq_[i];
            uint32_t* b = seq_[i + 1];
            const uint32_t na = (*a)++;
            const uint32_t nb = (*b)++;
            tags_[i] = rule.base(na);
            tags_[i + 1] = rule.base(nb);
        }
    }
    // The tag base the next start() posts peer slot `slot`'s messages on (Schedule::peers'
    // order): takeTags' or the last Binding's.
    int tagBase(uint32_t slot) const { return tags_[slot]; }

    // Starts a call: fires every action that waits for nothing (and whatever completes at
    // once unlocks). Returns an error code; the call is then over (failed).
    int start(Transport& tr, const Binding& b);
    // Binds what of the binding is the communicator's for its life (its handle, MPI_T
    // counters, the transport's packed type) for startBound(); the tag bases are takeTags'
    // (bindPairNumbers binds their numbers).
    void bindCommunicator(void* comm, TaskObserver* observer, void* packed) {
        bind_.comm = comm;
        bind_.observer = observer;
        bind_.packed = packed;
        bind_.peerTagBase = tags_;
        types_[kPackedType] = packed;
    }
    // start() for a caller that bound its communicator (bindCommunicator) and took the
    // call's tags (takeTags): binds this call's buffers, types and op straight into the
    // slots the actions read (no Binding copied) and starts. Inline: it stores five words.
    int startBound(Transport& tr, const void* sbuf, void* rbuf, void* stype, void* rtype, void* op) {
        bases_[kSendBuf] = const_cast<char*>(static_cast<const char*>(sbuf));
        bases_[kRecvBuf] = static_cast<char*>(rbuf);
        types_[kSendType] = stype;
        types_[kRecvType] = rtype;
        bind_.op = op;
        return run(tr);
    }
    // Tests the posted messages and fires what they unlock; true once the call is over.
    bool poll();
    // Every action is a message that waits for nothing (a leaf's receive, a flat root's
    // sends): start() posts them in order and poll() only tests them (no firing loop).
    bool flat() const { return flat_; }
    // Every action waits, directly or through others, for the one before it (a rank of a
    // chain: receive, reduce, send): start() and poll() fire them in order, one message
    // at most in flight, without the firing loop's masks. Never also flat().
    bool straight() const { return straight_; }
    // No action is ever ready before an earlier one: every action's dependencies are
    // waited for, directly or through others, by every later action (a dissemination
    // barrier's rounds, a recursive-doubling allreduce's exchanges). start() and poll() fire
    // them in order while the next one's dependencies are done, several messages in flight,
    // without the firing loop's wake masks; what they fire and when is what the loop would.
    // Never also flat() or straight() (which are special cases of it).
    bool ordered() const { return ordered_; }
    // False when no posted message can have ended since the last poll (their completion
    // words say so, Transport::doneWord): a waiter skips poll() then. True if unknown.
    bool mayHaveMoved() const {
        if (!doneOffset_) return true;
        for (uint64_t posted = fired_ & ~done_; posted; posted &= posted - 1) {
            const char* req = static_cast<const char*>(req_[__builtin_ctzll(posted)]);
            if (*reinterpret_cast<const void* const volatile*>(req + doneOffset_) == doneValue_) return true;
        }
        return false;
    }
    bool done() const { return finished_; }
    int status() const { return status_; }
    // A call is between start() and its end.
    bool running() const { return running_; }

private:
    static constexpr uint32_t kArenaBase = kFirstTemp;  // bases_' slot of the arena (after the two buffers)

    struct Action {
        StepKind kind = StepKind::Nop;
        bool memcpyCopy = false;  // Copy between contiguous layouts: one memcpy of `bytes`
        int peer = -1;
        uint32_t peerSlot = 0, channel = 0;
        uint32_t srcSlot = 0, dstSlot = 0;  // kSendBuf / kRecvBuf, or kFirstTemp: address below
        char* srcFixed = nullptr;           // temporaries: the address itself
        char* dstFixed = nullptr;
        ptrdiff_t srcOffset = 0, dstOffset = 0;
        size_t srcCount = 0, dstCount = 0;
        uint32_t srcType = 0, dstType = 0;  // kSendType / kRecvType / kPackedType
        size_t bytes = 0;                   // Send: payload (MPI_T); Copy by memcpy: bytes copied
        // A message's buffer, resolved once: bases_[msgBase] + msgOffset (the send's source,
        // the receive's destination; a temporary's offset is from the arena), its count and type slot.
        uint32_t msgBase = 0, msgType = 0;
        ptrdiff_t msgOffset = 0;
        size_t msgCount = 0;
        uint64_t deps = 0;                  // actions that must be done first
        uint64_t after = 0;                 // earlier actions on the same pair, kind and channel: fired first
    };

    char* src(const Action& a) const { return a.srcFixed ? a.srcFixed : base(a.srcSlot) + a.srcOffset; }
    char* dst(const Action& a) const { return a.dstFixed ? a.dstFixed : base(a.dstSlot) + a.dstOffset; }
    // The call's buffers and types, from the slots start() or startBound() filled.
    char* base(uint32_t slot) const { return bases_[slot == kSendBuf ? kSendBuf : kRecvBuf]; }
    void* type(uint32_t slot) const {
        return types_[slot == kSendType ? kSendType : slot == kRecvType ? kRecvType : kPackedType];
    }
    // Starts the call bound in the slots (start(), startBound()).
    int run(Transport& tr);

    // How the messages are posted and tested: straight into the PML (ViaPml: the shim gave
    // its entry points, PmlDirect) or through the Transport (ViaTransport: the simulator,
    // libfabric, the shim's callbacks under ULFM). Each of the loops below is a template over
    // the two, chosen once per start() or poll(), so neither pays a test per message for the
    // other.
    struct ViaPml;
    struct ViaTransport;
    // Starts (first) or goes on with the call, in the loop its shape needs.
    template <class Via>
    __attribute__((always_inline)) inline void step(bool first);
    // Posts message action i, keeping its request for the tests (or done at once, the
    // request released). Its send counts (MPI_T) when the call ends (finish).
    template <class Via>
    __attribute__((always_inline)) inline int postMessage(size_t i);
    // A failed call: counts the sends whose post succeeded (fired_), one by one.
    __attribute__((noinline, cold)) void countFiredSends();
    // Removes the joins (Nop) of the first n actions, their dependents waiting for their
    // dependencies instead; returns the actions left.
    size_t dropJoins(size_t n);
    // Fires the ready actions among `wake` and what they unlock, and tests the posted
    // messages, until nothing moves.
    template <class Via>
    void advance(uint64_t wake);
    // Tests every posted message once (a test releases the ones that ended, failed or
    // not); returns the first error code, 0 if none.
    template <class Via>
    __attribute__((always_inline)) inline int testPosted();
    // A flat call (flat()): posts every action in the schedule's order; the ones that did
    // not end inside their post are left to poll().
    template <class Via>
    __attribute__((always_inline)) inline void postAll();
    // A flat call: tests the posted messages once (nothing waits for them).
    template <class Via>
    __attribute__((always_inline)) inline void testFlat();
    // A straight call (straight()): tests the message in flight, fires the next actions in
    // order while the one before is done, ends the call after the last.
    // Inline in run() and poll() (both its callers): a chain's call crosses no frame more.
    template <class Via>
    __attribute__((always_inline)) inline void runStraight();
    // An ordered call (ordered()): fires the actions from next_ on while the next one's
    // dependencies are done, tests the posted messages, again while that moved something.
    // Inline in run() and poll(), as runStraight.
    template <class Via>
    __attribute__((always_inline)) inline void runOrdered();
    // Runs local action `a` (copy, reduce); an error code.
    __attribute__((always_inline)) inline int runLocal(const Action& a);
    // Ends the call with `status` (a failure drains its messages first) and counts its
    // sends (MPI_T). Inline: every call ends through it.
    __attribute__((always_inline)) inline void finish(int status);
    // A failed call: waits for the messages a cancel cannot end (finish, out of the common path).
    __attribute__((noinline, cold)) void drain();

    std::shared_ptr<const Schedule> sched_;
    Action actions_[kMaxActions];
    size_t count_ = 0;
    uint64_t all_ = 0;
    bool flat_ = false;
    bool straight_ = false;
    bool ordered_ = false;
    size_t tempBytes_ = 0;
    uint32_t peers_[kMaxActions] = {};  // the schedule's peers, by peer slot
    // bindPairNumbers': each peer slot's number in the communicator's pairSeq, and the rule.
    uint32_t* seq_[kMaxActions] = {};
    CallTagRule rule_;
    uint32_t peerSlots_ = 0, peerBound_ = 0;
    uint64_t dependents_[kMaxActions] = {};  // per action: the actions that depend on it
    uint64_t followers_[kMaxActions] = {};   // per action: the messages that keep its order (Action::after)
    // The sends among the actions, in order (peer, payload): a call that succeeds reports
    // them to the observer together when it ends (TaskObserver::sentPrepared).
    int sendPeers_[kMaxActions] = {};
    size_t sendBytes_[kMaxActions] = {};
    size_t sends_ = 0;
    // Those sends folded by the observer they were last counted into (TaskObserver::SendBatch):
    // the counters of the one communicator whose calls this compiled call runs.
    TaskObserver::SendBatch batch_;
    const TaskObserver* batchFor_ = nullptr;
    alignas(64) char arena_[kArenaBytes];

    // One call's state.
    Transport* tr_ = nullptr;
    // tr_ when it is the PML's (Open MPI): its reductions go to the shim without the virtual call.
    PmlTransport* pml_ = nullptr;
    // The PML's entry points (PmlDirect), copied once per transport, when pml_ has them
    // (`direct_`): the call's messages go straight into the PML (ViaPml).
    PmlDirect pmlDirect_;
    bool direct_ = false;
    size_t doneOffset_ = 0;           // tr_'s doneWord (0: none, test every posted message)
    const void* doneValue_ = nullptr;
    Binding bind_;
    // The call's buffers and types by message slot (Action::msgBase, msgType): the send and
    // receive buffers and the arena; the send, receive and packed types (set by start()).
    char* bases_[3] = {};
    void* types_[3] = {};
    int tags_[kMaxActions] = {};  // the call's per-peer tag bases (copied from the Binding)
    void* req_[kMaxActions] = {};
    uint64_t fired_ = 0, done_ = 0;
    size_t next_ = 0;  // straight(), ordered(): the next action to fire
    bool finished_ = true, running_ = false;
    int status_ = 0;
};

}  // namespace hieragg
