// Opening the offload backend for one communicator (docs/offload.md), right after its
// decomposition is built and sequenced after the identity exchange: the leaders open an
// endpoint, every rank learns every leader's address and state over the PML (one
// allgather), the leaders join a collective group, and a second allgather makes every
// rank agree on the outcome, so no rank offloads while another does not.
#pragma once
#include "CommState.hpp"

namespace hieragg {

// Sets c.offload / c.offloadCaps, or leaves them empty (point-to-point) with one warning
// when the backend was asked for and could not be used. Blocking; returns an error code
// only when the PML exchange itself failed.
int setupOffload(hieragg_comm& c);

}  // namespace hieragg
