// Opening the offload backend for one communicator (docs/offload.md), right after its
// decomposition is built, as further stages of the nonblocking decomposition: the leaders
// open an endpoint, every rank learns every leader's address and state over the PML (one
// ring allgather Task), the leaders join a collective group, and a second allgather makes
// every rank agree on the outcome, so no rank offloads while another does not. The calls
// started meanwhile wait in the communicator's queue, as behind the identity exchange.
#pragma once
#include "CommState.hpp"

namespace hieragg {

// Called with c.mutex held once c.decomp.hierarchy is set. Returns false when there is nothing to
// set up (offload off, no libfabric, auto and the model picks no offloaded stage: no
// message, nothing opened); then the caller releases the calls. Returns true when the
// setup runs: it ends with finishDecomposition(c, status) from the progress engine, with
// c.offload.transport / c.offload.caps set, or left empty (point-to-point) with one warning when the
// backend was asked for and could not be used. The exchanges never block a start; the one
// blocking piece is the leaders' fi_join_collective wait (bounded by coll_hieragg_ofi_join_timeout), run
// from the progress engine when the address exchange completes, only when offload opens.
bool beginOffloadSetup(hieragg_comm& c);

}  // namespace hieragg
