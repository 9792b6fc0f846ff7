// The arguments of one collective call, with the arrays they point to (counts,
// displacements, byte displacements, datatype arrays, neighbor lists) held for as
// long as the core may read them. A blocking call's arrays live until it returns,
// which is after it completes; a nonblocking call's may be freed or rewritten as
// soon as MPI_I<coll> returns (Open MPI's own components copy what they need at the
// start, and applications such as mpi4py rely on it), and a persistent request's
// after its init. Whatever reads a call's arguments after its start returned (a call
// queued before the decomposition exists, a two-stage call's data stage, a strong
// reduction's later links, every start of a persistent request) reads them through
// one of these. The datatype handles themselves are kept alive by Open MPI's MPI
// layer (it retains the datatypes of a nonblocking or persistent call's request).
#pragma once
#include <cstddef>
#include <vector>

#include "hieragg/abi.h"

namespace hieragg {

// Whose arrays they are: how long each array of a call is on this rank.
struct CallSide {
    int rank = 0;
    int size = 1;        // the (local) group
    bool inter = false;
    int remoteSize = 0;  // intercommunicators: the remote group
};

// How long the caller keeps the arrays of a call it starts.
enum class ArgsLifetime {
    UntilCompletion,  // a blocking call, or arrays the core already owns
    UntilReturn,      // a nonblocking call: they may be freed once the start returns
};

class OwnedCallArgs {
public:
    OwnedCallArgs() = default;
    // Points at the caller's arrays: they live until the call completes.
    static OwnedCallArgs borrowed(const hieragg_coll_args& a);
    // Copies every array the call reads on this rank (see assign).
    static OwnedCallArgs copied(const hieragg_coll_args& a, const CallSide& side);
    // borrowed or copied, as the caller's lifetime requires.
    static OwnedCallArgs held(const hieragg_coll_args& a, const CallSide& side, ArgsLifetime lifetime) {
        return lifetime == ArgsLifetime::UntilCompletion ? borrowed(a) : copied(a, side);
    }

    // Copies `a` and the arrays it points to that are significant on this rank (MPI's rules:
    // gatherv's receive vectors and scatterv's send vectors at the root only, no send side of
    // an alltoallv/alltoallw in place); an insignificant array's pointer becomes null, so
    // nothing ever reads the caller's memory again, and so does the datatype of a rooted
    // call's insignificant side away from the root (Open MPI does not retain it). Reuses this object's storage (one
    // allocation per kind of array at most, none when it is large enough). Throws bad_alloc.
    void assign(const hieragg_coll_args& a, const CallSide& side);

    const hieragg_coll_args& args() const { return args_; }
    // Bytes this object holds for the arrays (0: borrowed, or a call without arrays).
    size_t heldBytes() const;

    // Moving keeps the copies where they are (a vector's move takes its buffer); a copy
    // would point into the source's storage.
    OwnedCallArgs(OwnedCallArgs&&) noexcept = default;
    OwnedCallArgs& operator=(OwnedCallArgs&&) noexcept = default;
    OwnedCallArgs(const OwnedCallArgs&) = delete;
    OwnedCallArgs& operator=(const OwnedCallArgs&) = delete;

private:
    hieragg_coll_args args_{};
    std::vector<int> ints_;         // counts, displacements, neighbor lists
    std::vector<ptrdiff_t> bytes_;  // neighbor_alltoallw's byte displacements
    std::vector<void*> types_;      // alltoallw / neighbor_alltoallw datatype arrays
};

}  // namespace hieragg
