/*
 * ULFM: the lifetime of a communicator a process failure has touched
 * (docs/fault-tolerance.md, "Communicators created and freed around a failure").
 *
 * Open MPI marks a communicator's collectives failed (coll_revoked, through the PML's
 * revoke_comm) when it learns of a death, for the communicators that exist then. Two
 * windows are left open, and hieragg closes both for the communicators it serves:
 *
 * - Created after the news. A communicator whose creation completes just after this
 *   process handled the failure event (an MPI_Comm_dup whose context-id allreduce the
 *   victim still joined) has a dead member but collectives that are not marked failed:
 *   a survivor's collective there waits for a live peer that has already left with
 *   MPIX_ERR_PROC_FAILED, and nothing ever fails its receive. module enable marks it
 *   as the failure event would have (ompi_comm_set_rank_failed). The event marks the
 *   process dead before it walks the communicators, and the communicator is in that
 *   list before its modules are enabled, so one of the two always sees the other.
 *
 * - Freed before a peer's message arrives. A survivor frees a failed communicator while
 *   a live peer's message of the failed call is still on its way (the peer had not
 *   learned of the failure when it sent). Arriving for a context id (CID) that no longer
 *   exists, ob1 keeps the fragment and hands it to the next communicator created on that
 *   CID (pml_ob1.c, add_comm), and MPIX_Comm_shrink takes the lowest free CID, often
 *   this one: the fragment takes a place in the sender's message sequence there, so a
 *   receive gets the wrong message (MPI_ERR_TRUNCATE, wrong data) or the real one is
 *   never matched (a hang). So the free leaves a reference of hieragg's on a
 *   communicator whose collectives failed: the communicator stays, its CID is not
 *   reused, and a late fragment meets a communicator whose collectives are revoked,
 *   where ob1 drops it (a rendezvous one is refused, so its sender ends too). Open
 *   MPI's MPI_Finalize releases every communicator still allocated (ompi_comm_finalize),
 *   these with the rest. The cost: one communicator and one CID per communicator freed
 *   after a failure, until MPI_Finalize.
 */
#include "coll_hieragg.h"

#if HIERAGG_ULFM

#include "ompi/group/group.h"
#include "opal/util/output.h"

/* Marks the collectives of COMM failed for each dead member of GROUP; returns how many. */
static int mark_dead_members(struct ompi_communicator_t* comm, ompi_group_t* group, bool remote) {
    const int n = ompi_group_size(group);
    int dead = 0;
    for (int p = 0; p < n; ++p) {
        if (ompi_comm_is_proc_active(comm, p, remote)) continue;
        ompi_comm_set_rank_failed(comm, p, remote);
        ++dead;
    }
    return dead;
}

static int mark_dead(struct ompi_communicator_t* comm) {
    int dead = mark_dead_members(comm, comm->c_local_group, false);
    if (OMPI_COMM_IS_INTER(comm)) dead += mark_dead_members(comm, comm->c_remote_group, true);
    return dead;
}

void mca_coll_hieragg_failed_comm_created(struct ompi_communicator_t* comm) {
    if (!ompi_ftmpi_enabled || 0 == mark_dead(comm)) return;
    opal_output_verbose(2, mca_coll_hieragg_component.output,
                        "coll:hieragg: ULFM: a communicator of %d ranks was created with a dead member: "
                        "its collectives fail",
                        ompi_comm_size(comm));
}

void mca_coll_hieragg_failed_comm_freeing(struct ompi_communicator_t* comm) {
    if (!ompi_ftmpi_enabled) return;
    /* A dead member not yet marked counts too (the failure event may not have reached
     * this communicator's flags). */
    if (!(ompi_comm_coll_revoked(comm) || ompi_comm_is_revoked(comm)) && 0 == mark_dead(comm)) return;
    OBJ_RETAIN(comm);
    opal_output_verbose(2, mca_coll_hieragg_component.output,
                        "coll:hieragg: ULFM: a failed communicator of %d ranks is freed: its context id %u "
                        "stays reserved until MPI_Finalize (a peer's message may still be on its way to it)",
                        ompi_comm_size(comm), (unsigned)comm->c_index);
}

#endif
