// Turning the shim's arguments into a CollCall (datatype layouts filled in) and
// a CollCall into the bindings a Task runs with. Shared by the Open MPI path
// and the simulator so both run exactly the same schedules.
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/Task.hpp"
#include "hieragg/Transport.hpp"

namespace hieragg {

// Fills the datatype layouts of `call` from call.args via the transport.
void describeTypes(CollCall& call, Transport& tr);
// Peer-type count for alltoallw-like calls (0 otherwise).
int peerTypeCount(const CollCall& call);
TaskBindings bindCall(const CollCall& call, Transport& tr, void* comm, int tagBase, int localTagBase);

}  // namespace hieragg
