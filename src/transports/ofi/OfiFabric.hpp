// The process's libfabric provider (SPEC 3.3; docs/offload.md): one fabric and one
// domain per process, opened the first time a communicator wants offload, with the
// table of collectives the provider offers (fi_query_collective). Plain libfabric C
// API, no Open MPI headers.
#pragma once
#include <memory>
#include <string>

#include "hieragg/CollCall.hpp"

struct fi_info;
struct fid_fabric;
struct fid_domain;

namespace hieragg::ofi {

// libfabric's enum fi_datatype / fi_op value of a HIERAGG_ELEM_* / HIERAGG_OPK_*.
int fiDatatype(int elem);
int fiOp(int opKind);

class Fabric {
public:
    // The provider named `provider` ("" = the first that offers FI_COLLECTIVE, else the first
    // that offers FI_TRIGGER; caps().triggered says which), or null
    // with *why saying what failed. Shared: later calls return the same one.
    // `manualProgress`: ask a provider with triggered operations for FI_PROGRESS_MANUAL.
    static std::shared_ptr<Fabric> open(const std::string& provider, bool manualProgress, std::string* why);
    ~Fabric();
    Fabric(const Fabric&) = delete;
    Fabric& operator=(const Fabric&) = delete;

    fi_info* info() const { return info_; }
    fid_domain* domain() const { return domain_; }
    fid_fabric* fabric() const { return fabric_; }
    const std::string& name() const { return name_; }
    // What the provider's collectives accept (members filled in per group).
    const OffloadCaps& caps() const { return caps_; }

private:
    Fabric() = default;
    fi_info* info_ = nullptr;
    fid_fabric* fabric_ = nullptr;
    fid_domain* domain_ = nullptr;
    std::string name_;
    OffloadCaps caps_;
};

}  // namespace hieragg::ofi
