// Turning the shim's arguments into a CollCall (datatype layouts filled in) and
// a CollCall into the bindings a Task runs with. Shared by the Open MPI path
// and the simulator so both run exactly the same schedules.
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/Task.hpp"
#include "hieragg/Transport.hpp"

namespace hieragg {

// Intercommunicator rooted collectives: clears what the standard calls insignificant
// (everything at MPI_PROC_NULL, the root's send side of gather/reduce and receive side
// of scatter, the other group's receive side of gather and send side of scatter), so a
// NULL, garbage or count-0 argument there is never read. Called by describeTypes.
void dropInsignificant(CollCall& call);
// Fills the datatype layouts of `call` from call.args via the transport.
void describeTypes(CollCall& call, Transport& tr);
// Peer-type count for alltoallw-like calls (0 otherwise).
int peerTypeCount(const CollCall& call);
TaskBindings bindCall(const CollCall& call, Transport& tr, void* comm, int tagBase, int localTagBase);
// The same into a reused task's bindings (Task::reset): sets the fields bindCall sets,
// reusing the storage of b.types.
void bindCallInto(const CollCall& call, Transport& tr, void* comm, int tagBase, int localTagBase, TaskBindings& b);

}  // namespace hieragg
