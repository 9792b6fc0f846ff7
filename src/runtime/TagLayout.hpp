#pragma once
// Where hieragg's messages sit in the PML's tag space (docs/architecture.md, "Messages
// and tags"). Open MPI leaves tags below MCA_COLL_BASE_TAG_NONBLOCKING_BASE (-27) to
// collectives, but a PML carries only as many tag bits as its matching hardware or
// library has: ob1 and mtl ofi's default modes 32 (MPI_TAG_UB 2^31 - 1), pml ucx 24
// (2^23 - 1), mtl ofi's ofi_tag_2 mode 20 (2^19 - 1). The PML keeps the low bits of a
// tag; a negative tag below -(MPI_TAG_UB + 1) would wrap onto another hieragg tag, and
// onto a user tag MPI_ANY_TAG matches. So the layout is sized from the PML's
// MPI_TAG_UB: every tag lies in [-(MPI_TAG_UB + 1), top], where top is the first tag below
// the ones Open MPI keeps for itself (MCA_COLL_BASE_TAG_NONBLOCKING_BASE - 1: -28 on 4.1,
// -34 on 5.0, whose ULFM shrink and agreement use -28 to -30; the shim says which).
//
// A tag is `top - region - (n mod W) * kChannels - channel`, W the call-number window
// (a power of two), region one of: calls 0, an intercommunicator's local group W*kChannels,
// persistent requests 2W*kChannels (and their local group 3W*kChannels), the fixed setup
// blocks from 4W*kChannels on (identity exchange, offload setup, calibration).
#include <cstdint>
#include <string>

namespace hieragg {

enum class TagSpace { Call, Persistent };

// The call region's tag bases (TagSpace::Call, not a local group), fixed for a layout: call
// number n's base is top - (n mod W) * kChannels. W is a power of two, so `n mod W` is
// `n & mask`. A communicator keeps a copy (TagAllocation::callTags) so that taking a call's
// tags reads neither the Runtime nor its layout, and costs no division.
struct CallTagRule {
    int top = -28;
    uint32_t mask = 0;  // W - 1
    int base(uint32_t n) const { return top - static_cast<int>((n & mask) * 4096u); }
};

class TagLayout {
public:
    static constexpr int kDefaultTop = -28;               // Open MPI 4.1's first tag below its own
    static constexpr uint32_t kChannels = 4096;           // channels of one call at most
    static constexpr uint32_t kSetupBlocks = 8;           // identity, 5 offload, 2 calibration
    static constexpr uint32_t kMaxWindow = 1u << 16;      // the window with 32-bit tags
    // Below it hieragg stays out (256 is what pml ucx's 24 bits give). A call whose number
    // is W past a call still in flight here waits for it (CallWindow.hpp), so a small
    // window costs concurrency, not correctness; this keeps it from costing much.
    static constexpr uint32_t kMinWindow = 256;

    // The layout for a PML whose MPI_TAG_UB is `maxTag`, its tags from `top` down (a top of
    // 0 or above, hieragg_config::tag_top left unset, is kDefaultTop); window() == 0 when not
    // even kMinWindow fits, and `why` then says so.
    static TagLayout forMaxTag(long long maxTag, int top, std::string& why);
    static TagLayout forMaxTag(long long maxTag, std::string& why) { return forMaxTag(maxTag, kDefaultTop, why); }
    TagLayout() = default;  // the 32-bit layout

    // This layout with its window cut to at most `limit` (rounded down to a power of two,
    // at least 1; 0: unchanged): coll_hieragg_tag_window, for tests and sites.
    TagLayout capped(uint32_t limit) const;
    uint32_t window() const { return window_; }
    int top() const { return top_; }
    // Call number `seq` (per pair, or a persistent request's init number).
    int callBase(uint32_t seq, TagSpace space, bool localGroup) const;
    // callBase(n, TagSpace::Call, false) for every n, as a value to keep.
    CallTagRule callRule() const { return CallTagRule{top_, window_ ? window_ - 1 : 0}; }
    // Fixed setup block `block` (0: identity exchange, 1..5 offload setup, 6..7 calibration).
    int setupBase(uint32_t block) const;
    // The lowest tag the layout produces (channel kChannels - 1 of the last setup block).
    long long lowest() const;

private:
    TagLayout(uint32_t window, int top) : window_(window), top_(top) {}
    uint32_t window_ = kMaxWindow;
    int top_ = kDefaultTop;
};

static_assert(TagLayout::kChannels == 4096, "CallTagRule::base multiplies by kChannels");

}  // namespace hieragg
