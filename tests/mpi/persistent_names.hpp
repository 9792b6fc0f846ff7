// Persistent collectives under one name on both Open MPI series: 4.1 has them
// only as the pcollreq extension (MPIX_*_init from <mpi-ext.h>); 5.0 has them
// under their MPI-4 names (MPI_*_init) and no longer ships the extension. The
// tests call the MPIX_ names, which on 5.0 are the MPI-4 functions.
#pragma once

#include <mpi.h>
#include <mpi-ext.h>

#if !defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5
#define MPIX_Allgather_init MPI_Allgather_init
#define MPIX_Allgatherv_init MPI_Allgatherv_init
#define MPIX_Allreduce_init MPI_Allreduce_init
#define MPIX_Alltoall_init MPI_Alltoall_init
#define MPIX_Alltoallv_init MPI_Alltoallv_init
#define MPIX_Alltoallw_init MPI_Alltoallw_init
#define MPIX_Barrier_init MPI_Barrier_init
#define MPIX_Bcast_init MPI_Bcast_init
#define MPIX_Exscan_init MPI_Exscan_init
#define MPIX_Gather_init MPI_Gather_init
#define MPIX_Gatherv_init MPI_Gatherv_init
#define MPIX_Reduce_init MPI_Reduce_init
#define MPIX_Reduce_scatter_init MPI_Reduce_scatter_init
#define MPIX_Reduce_scatter_block_init MPI_Reduce_scatter_block_init
#define MPIX_Scan_init MPI_Scan_init
#define MPIX_Scatter_init MPI_Scatter_init
#define MPIX_Scatterv_init MPI_Scatterv_init
#define MPIX_Neighbor_allgather_init MPI_Neighbor_allgather_init
#define MPIX_Neighbor_allgatherv_init MPI_Neighbor_allgatherv_init
#define MPIX_Neighbor_alltoall_init MPI_Neighbor_alltoall_init
#define MPIX_Neighbor_alltoallv_init MPI_Neighbor_alltoallv_init
#define MPIX_Neighbor_alltoallw_init MPI_Neighbor_alltoallw_init
#endif
