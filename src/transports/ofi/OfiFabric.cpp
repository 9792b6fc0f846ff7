#include "OfiFabric.hpp"

#include <rdma/fabric.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace hieragg::ofi {

namespace {
// HIERAGG_ELEM_* -> fi_datatype, HIERAGG_OPK_* -> fi_op (index 0 unused).
const fi_datatype kTypes[HIERAGG_ELEM_COUNT] = {FI_INT8,  FI_INT8,   FI_UINT8, FI_INT16, FI_UINT16, FI_INT32,
                                                FI_UINT32, FI_INT64, FI_UINT64, FI_FLOAT, FI_DOUBLE};
const fi_op kOps[HIERAGG_OPK_COUNT] = {FI_MIN, FI_MIN, FI_MAX,  FI_SUM,  FI_PROD, FI_LOR,
                                       FI_LAND, FI_BOR, FI_BAND, FI_LXOR, FI_BXOR};

std::mutex gMutex;
std::weak_ptr<Fabric> gFabric;
std::string gProvider;
}  // namespace

int fiDatatype(int elem) { return kTypes[elem > 0 && elem < HIERAGG_ELEM_COUNT ? elem : 0]; }
int fiOp(int opKind) { return kOps[opKind > 0 && opKind < HIERAGG_OPK_COUNT ? opKind : 0]; }

std::shared_ptr<Fabric> Fabric::open(const std::string& provider, bool manualProgress, std::string* why) {
    std::lock_guard<std::mutex> lock(gMutex);
    if (auto f = gFabric.lock()) {
        if (provider == gProvider) return f;
        if (why) *why = "another provider (" + f->name() + ") is already open in this process";
        return nullptr;
    }
    // A provider with collectives (FI_COLLECTIVE) first; else one with triggered operations
    // (FI_TRIGGER, counters, sends in order for the chain's thresholds; OfiTriggeredChain.hpp).
    auto ask = [&](uint64_t caps, fi_info** info) {
        fi_info* hints = fi_allocinfo();
        if (!hints) return -FI_ENOMEM;
        hints->caps = caps | FI_TAGGED | FI_MSG;
        hints->mode = FI_CONTEXT | FI_CONTEXT2;
        hints->ep_attr->type = FI_EP_RDM;
        hints->domain_attr->threading = FI_THREAD_SAFE;
        if (caps & FI_TRIGGER) hints->tx_attr->msg_order = hints->rx_attr->msg_order = FI_ORDER_SAS;
        if ((caps & FI_TRIGGER) && manualProgress) hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
        if (!provider.empty()) hints->fabric_attr->prov_name = strdup(provider.c_str());
        const int rc = fi_getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, hints, info);
        fi_freeinfo(hints);
        return rc;
    };
    fi_info* info = nullptr;
    bool triggered = false;
    int rc = ask(FI_COLLECTIVE, &info);
    if (rc != 0 || !info) {
        info = nullptr;
        rc = ask(FI_TRIGGER, &info);
        triggered = rc == 0 && info;
    }
    if (rc != 0 || !info) {
        if (why)
            *why = std::string(provider.empty() ? "no provider" : "no provider named '" + provider + "'") +
                   " offers FI_COLLECTIVE or FI_TRIGGER on an RDM endpoint (fi_getinfo: " + fi_strerror(-rc) + ")";
        return nullptr;
    }
    std::shared_ptr<Fabric> f(new Fabric);
    f->info_ = fi_dupinfo(info);
    fi_freeinfo(info);
    f->name_ = f->info_->fabric_attr->prov_name ? f->info_->fabric_attr->prov_name : "?";
    rc = fi_fabric(f->info_->fabric_attr, &f->fabric_, nullptr);
    if (rc == 0) rc = fi_domain(f->fabric_, f->info_, &f->domain_, nullptr);
    if (rc != 0) {
        if (why) *why = "provider '" + f->name_ + "' failed to open (" + fi_strerror(-rc) + ")";
        return nullptr;
    }
    // What its collectives accept: asked once, so a call decides without the provider.
    OffloadCaps& c = f->caps_;
    c.triggered = triggered;
    fi_collective_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.op = FI_NOOP;
    attr.datatype = FI_UINT8;
    c.barrier = !triggered && fi_query_collective(f->domain_, FI_BARRIER, &attr, 0) == 0;
    std::memset(&attr, 0, sizeof attr);
    attr.op = FI_NOOP;
    attr.datatype = FI_UINT8;
    c.bcast = !triggered && fi_query_collective(f->domain_, FI_BROADCAST, &attr, 0) == 0;
    // The software collectives take int counts. Their messages must stay within ofi_rxm's
    // eager size: over its rendezvous path (longer messages) an fi_allreduce of 32 KiB never
    // completed here (libfabric 1.17, tcp;ofi_rxm), so recipes cut operations to this size.
    c.maxCount = INT_MAX;
    c.maxBytes = SIZE_MAX;
    if (f->name_.find("ofi_rxm") != std::string::npos) {
        const char* env = std::getenv("FI_OFI_RXM_BUFFER_SIZE");
        const long v = env ? std::atol(env) : 0;
        c.maxBytes = v >= 1024 ? static_cast<size_t>(v) : 16384;
    }
    for (int e = 1; e < HIERAGG_ELEM_COUNT && !triggered; ++e)
        for (int o = 1; o < HIERAGG_OPK_COUNT; ++o) {
            std::memset(&attr, 0, sizeof attr);
            attr.op = kOps[o];
            attr.datatype = kTypes[e];
            if (fi_query_collective(f->domain_, FI_ALLREDUCE, &attr, 0) == 0) c.allreduceOps[e] |= 1u << o;
        }
    // No provider documents a fixed combination order: treat none as fixed.
    c.fixedOrder = false;
    gFabric = f;
    gProvider = provider;
    return f;
}

Fabric::~Fabric() {
    if (domain_) fi_close(&domain_->fid);
    if (fabric_) fi_close(&fabric_->fid);
    if (info_) fi_freeinfo(info_);
}

}  // namespace hieragg::ofi
