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
 *   list before its modules are enabled, so one of the two always sees the other. The
 *   dead members are found from Open MPI's list of failed processes, not only from each
 *   member's state, which reads "alive" for a member never contacted (mark_failed_members).
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

/* Marks the collectives of COMM failed for each member of GROUP that this process knows
 * to have failed; returns how many.
 *
 * The failed processes are looked up in GROUP (ompi_group_proc_lookup_rank also matches a
 * member the group still holds as a sentinel: a process on another node that this one never
 * exchanged a message with, Open MPI's lazy proc allocation, mpi_add_procs_cutoff 0). Asking
 * ompi_comm_is_proc_active for each member would not do alone: for a sentinel it answers
 * "alive" even when that process died (it assumes a dead process's entry was filled in,
 * which release builds of Open MPI 5.0.7 do not do, open-mpi/ompi#13501), so a survivor that
 * never talked to the victim would leave the new communicator unmarked and wait forever in
 * its first collective. The per-member pass stays for the moment between the failure event
 * marking a process dead and adding it to the list of failed processes. */
static int mark_failed_members(struct ompi_communicator_t* comm, ompi_group_t* group, bool remote) {
    OPAL_THREAD_LOCK(&ompi_group_afp_mutex);
    ompi_group_t* failed = ompi_group_all_failed_procs;
    if (NULL != failed) OBJ_RETAIN(failed);
    OPAL_THREAD_UNLOCK(&ompi_group_afp_mutex);
    int dead = 0;
    const int nfailed = NULL == failed ? 0 : ompi_group_size(failed);
    for (int i = 0; i < nfailed; ++i) {
        ompi_proc_t* proc = ompi_group_get_proc_ptr(failed, i, true);
        const int p = NULL == proc ? -1 : ompi_group_proc_lookup_rank(group, proc);
        if (p < 0) continue; /* not a member (or an empty group: MPI_PROC_NULL) */
        ompi_comm_set_rank_failed(comm, p, remote);
        ++dead;
    }
    if (NULL != failed) OBJ_RELEASE(failed);
    if (dead) return dead;
    const int n = ompi_group_size(group);
    for (int p = 0; p < n; ++p) {
        if (ompi_comm_is_proc_active(comm, p, remote)) continue;
        ompi_comm_set_rank_failed(comm, p, remote);
        ++dead;
    }
    return dead;
}

static int mark_dead(struct ompi_communicator_t* comm) {
    int dead = mark_failed_members(comm, comm->c_local_group, false);
    if (OMPI_COMM_IS_INTER(comm)) dead += mark_failed_members(comm, comm->c_remote_group, true);
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
