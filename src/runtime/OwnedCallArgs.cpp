#include "OwnedCallArgs.hpp"

#include <cstring>

namespace hieragg {

namespace {

// Elements of each array a call reads on this rank (0: not significant here).
struct Lengths {
    size_t scounts = 0, sdispls = 0, rcounts = 0, rdispls = 0;
    size_t sdisplsBytes = 0, rdisplsBytes = 0;
    size_t stypes = 0, rtypes = 0;
    size_t sources = 0, destinations = 0;
    size_t ints() const { return scounts + sdispls + rcounts + rdispls + sources + destinations; }
};

size_t count(int n) { return n > 0 ? static_cast<size_t>(n) : 0; }

Lengths significant(const hieragg_coll_args& a, const CallSide& s) {
    Lengths l;
    // Per-peer vectors of a call on the whole communicator: the remote group's on an
    // intercommunicator. A rooted call's vectors count only at its root (MPI_ROOT there).
    const size_t peers = count(s.inter ? s.remoteSize : s.size);
    const bool atRoot = s.inter ? a.root == HIERAGG_ROOT : a.root == s.rank;
    const size_t in = count(a.indegree), out = count(a.outdegree);
    const bool sends = !a.in_place;  // MPI_IN_PLACE: the send vectors are ignored
    switch (a.kind) {
    case HIERAGG_ALLGATHERV: l.rcounts = l.rdispls = peers; break;
    case HIERAGG_GATHERV: l.rcounts = l.rdispls = atRoot ? peers : 0; break;
    case HIERAGG_SCATTERV: l.scounts = l.sdispls = atRoot ? peers : 0; break;
    case HIERAGG_ALLTOALLW:
        l.stypes = sends ? peers : 0;
        l.rtypes = peers;
        [[fallthrough]];
    case HIERAGG_ALLTOALLV:
        l.scounts = l.sdispls = sends ? peers : 0;
        l.rcounts = l.rdispls = peers;
        break;
    // The result's blocks of this (local) group.
    case HIERAGG_REDUCE_SCATTER: l.rcounts = count(s.size); break;
    case HIERAGG_NEIGHBOR_ALLGATHERV: l.rcounts = l.rdispls = in; break;
    case HIERAGG_NEIGHBOR_ALLTOALLV:
        l.scounts = l.sdispls = out;
        l.rcounts = l.rdispls = in;
        break;
    case HIERAGG_NEIGHBOR_ALLTOALLW:
        l.scounts = l.sdisplsBytes = l.stypes = out;
        l.rcounts = l.rdisplsBytes = l.rtypes = in;
        break;
    default: break;
    }
    switch (a.kind) {
    case HIERAGG_NEIGHBOR_ALLGATHER:
    case HIERAGG_NEIGHBOR_ALLGATHERV:
    case HIERAGG_NEIGHBOR_ALLTOALL:
    case HIERAGG_NEIGHBOR_ALLTOALLV:
    case HIERAGG_NEIGHBOR_ALLTOALLW:
        l.sources = in;
        l.destinations = out;
        break;
    default: break;
    }
    return l;
}

// Copies n elements of `from` (if n and from) to `at`, advances it; the copy or null.
template <class T>
const T* take(const T* from, size_t n, T*& at) {
    if (!from || n == 0) return nullptr;
    std::memcpy(at, from, n * sizeof(T));
    const T* copy = at;
    at += n;
    return copy;
}

}  // namespace

OwnedCallArgs OwnedCallArgs::borrowed(const hieragg_coll_args& a) {
    OwnedCallArgs o;
    o.args_ = a;
    return o;
}

OwnedCallArgs OwnedCallArgs::copied(const hieragg_coll_args& a, const CallSide& side) {
    OwnedCallArgs o;
    o.assign(a, side);
    return o;
}

void OwnedCallArgs::assign(const hieragg_coll_args& a, const CallSide& side) {
    const Lengths l = significant(a, side);
    // Sized before any pointer into them is taken: nothing moves afterwards.
    ints_.resize(l.ints());
    bytes_.resize(l.sdisplsBytes + l.rdisplsBytes);
    types_.resize(l.stypes + l.rtypes);
    args_ = a;
    int* i = ints_.data();
    args_.scounts = take(a.scounts, l.scounts, i);
    args_.sdispls = take(a.sdispls, l.sdispls, i);
    args_.rcounts = take(a.rcounts, l.rcounts, i);
    args_.rdispls = take(a.rdispls, l.rdispls, i);
    args_.sources = take(a.sources, l.sources, i);
    args_.destinations = take(a.destinations, l.destinations, i);
    ptrdiff_t* b = bytes_.data();
    args_.sdispls_bytes = take(a.sdispls_bytes, l.sdisplsBytes, b);
    args_.rdispls_bytes = take(a.rdispls_bytes, l.rdisplsBytes, b);
    void** t = types_.data();
    args_.stypes = take(a.stypes, l.stypes, t);
    args_.rtypes = take(a.rtypes, l.rtypes, t);
    // The datatype of a rooted call's side that does not count on this rank (gather's
    // receive side, scatter's send side, away from the root): Open MPI's MPI layer retains
    // only the significant ones until completion, so the application may free this one
    // now; nothing reads it (intercommunicators: dropInsignificant clears it alike).
    if (!side.inter && a.root != side.rank) {
        if (a.kind == HIERAGG_GATHER || a.kind == HIERAGG_GATHERV) args_.rtype = nullptr;
        if (a.kind == HIERAGG_SCATTER || a.kind == HIERAGG_SCATTERV) args_.stype = nullptr;
    }
}

size_t OwnedCallArgs::heldBytes() const {
    return ints_.capacity() * sizeof(int) + bytes_.capacity() * sizeof(ptrdiff_t) + types_.capacity() * sizeof(void*);
}

}  // namespace hieragg
