#include "hieragg/CallBinding.hpp"

#include <algorithm>

namespace hieragg {

namespace {
bool usesPeerTypes(hieragg_coll_kind k) {
    return k == HIERAGG_ALLTOALLW || k == HIERAGG_NEIGHBOR_ALLTOALLW;
}

void dropSend(hieragg_coll_args& a) {
    a.sbuf = nullptr;
    a.scount = 0;
    a.scounts = a.sdispls = nullptr;
    a.stype = nullptr;
}
void dropRecv(hieragg_coll_args& a) {
    a.rbuf = nullptr;
    a.rcount = 0;
    a.rcounts = a.rdispls = nullptr;
    a.rtype = nullptr;
}
}  // namespace

void dropInsignificant(CollCall& call) {
    hieragg_coll_args& a = call.args;
    if (!call.inter) return;
    const hieragg_coll_kind k = a.kind;
    const bool rooted = k == HIERAGG_BCAST || k == HIERAGG_REDUCE || k == HIERAGG_GATHER ||
                        k == HIERAGG_GATHERV || k == HIERAGG_SCATTER || k == HIERAGG_SCATTERV;
    if (!rooted) return;
    if (a.root == HIERAGG_PROC_NULL) {
        dropSend(a);
        dropRecv(a);
        a.op = nullptr;
        return;
    }
    const bool gathers = k == HIERAGG_GATHER || k == HIERAGG_GATHERV;
    const bool scatters = k == HIERAGG_SCATTER || k == HIERAGG_SCATTERV;
    if (a.root == HIERAGG_ROOT) {
        if (gathers) dropSend(a);
        if (scatters) dropRecv(a);
        if (k == HIERAGG_REDUCE) a.sbuf = nullptr;
    } else {
        if (gathers) dropRecv(a);
        if (scatters) dropSend(a);
    }
}

int peerTypeCount(const CollCall& call) {
    const hieragg_coll_kind k = call.args.kind;
    if (!usesPeerTypes(k)) return 0;
    if (k == HIERAGG_NEIGHBOR_ALLTOALLW)
        return std::max(call.args.indegree, call.args.outdegree);
    return call.inter ? call.remoteSize : call.size;
}

void describeTypes(CollCall& call, Transport& tr) {
    dropInsignificant(call);
    const hieragg_coll_args& a = call.args;
    if (a.stype) call.stype = tr.typeInfo(a.stype);
    // Most calls name one type on both sides: ask the transport once.
    if (a.rtype) call.rtype = a.rtype == a.stype ? call.stype : tr.typeInfo(a.rtype);
    if (usesPeerTypes(a.kind)) {
        const int n = peerTypeCount(call);
        const int ns = a.kind == HIERAGG_NEIGHBOR_ALLTOALLW ? a.outdegree : n;
        const int nr = a.kind == HIERAGG_NEIGHBOR_ALLTOALLW ? a.indegree : n;
        call.stypes.assign(n, hieragg_dtype_info{});
        call.rtypes.assign(n, hieragg_dtype_info{});
        for (int i = 0; i < ns && a.stypes && !a.in_place; ++i) call.stypes[i] = tr.typeInfo(a.stypes[i]);
        for (int i = 0; i < nr && a.rtypes; ++i) call.rtypes[i] = tr.typeInfo(a.rtypes[i]);
    }
}

TaskBindings bindCall(const CollCall& call, Transport& tr, void* comm, int tagBase, int localTagBase) {
    TaskBindings b;
    bindCallInto(call, tr, comm, tagBase, localTagBase, b);
    return b;
}

void bindCallInto(const CollCall& call, Transport& tr, void* comm, int tagBase, int localTagBase, TaskBindings& b) {
    const hieragg_coll_args& a = call.args;
    b.sbuf = a.sbuf;
    b.rbuf = a.rbuf;
    b.op = a.op;
    b.comm = comm;
    b.tagBase = tagBase;
    b.localTagBase = localTagBase;
    const int n = peerTypeCount(call);
    b.types.assign(kFirstPeerType + 2 * static_cast<size_t>(n), nullptr);
    b.types[kSendType] = a.stype;
    b.types[kRecvType] = a.rtype;
    b.types[kPackedType] = tr.packedType();
    const int ns = a.kind == HIERAGG_NEIGHBOR_ALLTOALLW ? a.outdegree : n;
    const int nr = a.kind == HIERAGG_NEIGHBOR_ALLTOALLW ? a.indegree : n;
    for (int i = 0; i < ns && a.stypes && !a.in_place; ++i) b.types[kFirstPeerType + i] = a.stypes[i];
    for (int i = 0; i < nr && a.rtypes; ++i) b.types[kFirstPeerType + n + i] = a.rtypes[i];
}

}  // namespace hieragg
