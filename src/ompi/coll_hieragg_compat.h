/*
 * The one place where the Open MPI series differ for the shim. hieragg builds
 * against 4.1 (coll framework 2.0.0) and 5.0 (coll framework 2.4.0); the rest
 * of src/ompi is written once against what both share.
 *
 * CMake reads the headers it builds against and defines (src/ompi/CMakeLists.txt):
 *   HIERAGG_OMPI_COLL_2_4        coll.h declares MCA_COLL_BASE_VERSION_2_4_0 (5.0)
 *   HIERAGG_OMPI_INFO_CSTRING    opal_info_get() hands out an opal_cstring_t (5.0)
 *
 * What 4.1 and 5.0 share and so needs nothing here: the module still carries
 * its own function table that the base copies into the communicator after
 * coll_module_enable (5.0.x keeps 4.1's scheme; only Open MPI 6 installs
 * functions from enable), int counts in the coll signatures, the *_init
 * persistent entry points with their info argument, ompi_request_t and the
 * ompi_coll_base_nbc_request_t the MPI layer expects (its layout changed, but
 * we only extend it), MCA_PML_CALL isend/irecv, ompi_datatype_sndrcv and
 * ompi_op_reduce, and the MPI_T performance variable registration
 * (mca_base_component_pvar_register, its get_value/notify callbacks, the pvar
 * classes, MCA_BASE_VAR_BIND_MPI_COMM: 5.0.7's mca_base_pvar.h declares them
 * exactly as 4.1's), and reading another component's MCA variable
 * (mca_base_var_find_by_name, mca_base_var_get, mca_base_var_get_value, the
 * storage union; the network eager limit) or the selected PML's name
 * (mca_pml_base_selected_component).
 */
#ifndef MCA_COLL_HIERAGG_COMPAT_H
#define MCA_COLL_HIERAGG_COMPAT_H

#include <stdbool.h>
#include <string.h>

#include "ompi_config.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/request/request.h"
#include "opal/util/info.h"

/* ULFM (MPI fault tolerance, docs/fault-tolerance.md): Open MPI 5 built with it
 * (OPAL_ENABLE_FT_MPI; enabled at run time by mpi_ft_enable / mpirun --with-ft ulfm).
 * 4.1 has none of it: HIERAGG_ULFM is 0 there and hieragg behaves as it always did. */
#if defined(OPAL_ENABLE_FT_MPI) && OPAL_ENABLE_FT_MPI
#define HIERAGG_ULFM 1
#include "ompi/runtime/params.h" /* ompi_ftmpi_enabled */
#else
#define HIERAGG_ULFM 0
#endif

/* The highest tag hieragg uses, just below the ones Open MPI reserves: 4.1 ends them at
 * -27 (so -28), 5.0 at -33 (-27..-30 are ULFM's shrink and agreement, -31 UCC's; so -34).
 * ULFM counts every tag from -7 down as a collective's, except its own -27..-30: a
 * hieragg message there would not be failed with the communicator's collectives, and
 * could match an agreement's. */
#define HIERAGG_TAG_TOP (MCA_COLL_BASE_TAG_NONBLOCKING_BASE - 1)

/* Has the PML request R ended? With ULFM, also asks whether its peer died or its
 * communicator was revoked (for collectives: any member died): ULFM fails a pending
 * request only when a test or wait asks ompi_request_is_failed (libnbc's NBC_Progress
 * does the same); the request is then cancelled and completes with
 * MPI_ERR_PROC_FAILED or MPI_ERR_REVOKED in its status. */
static inline bool hieragg_compat_request_ended(ompi_request_t* r) {
    if (REQUEST_COMPLETE(r)) return true;
#if HIERAGG_ULFM
    if (ompi_request_is_failed(r)) return REQUEST_COMPLETE(r);
#endif
    return false;
}

/* The component header names its framework version. */
#if HIERAGG_OMPI_COLL_2_4
#define HIERAGG_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_4_0
#else
#define HIERAGG_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
#endif

/* The component structure must be visible to Open MPI's dlsym; 5.0 dropped
 * OMPI_MODULE_DECLSPEC, which said so on 4.1. */
/* The attribute layer's copy-callback type: 4.1 casts the public MPI_COMM_NULL_COPY_FN to
 * its internal function type, 5.0's union holds the public type itself. */
#if HIERAGG_OMPI_COLL_2_4
#define HIERAGG_COMM_NULL_COPY_FN MPI_COMM_NULL_COPY_FN
#else
#define HIERAGG_COMM_NULL_COPY_FN ((MPI_Comm_internal_copy_attr_function*)MPI_COMM_NULL_COPY_FN)
#endif

#ifdef OMPI_MODULE_DECLSPEC
#define HIERAGG_COMPONENT_EXPORT OMPI_MODULE_DECLSPEC
#else
#define HIERAGG_COMPONENT_EXPORT __attribute__((visibility("default")))
#endif

/* Copies the value of info key KEY into VALUE (at most LEN-1 bytes, always
 * terminated); false when the key is absent or cannot be read. */
static inline bool hieragg_compat_info_get(opal_info_t* info, const char* key, char* value, size_t len) {
    int flag = 0;
    if (NULL == info || 0 == len) return false;
#if HIERAGG_OMPI_INFO_CSTRING
    /* 5.0: a reference-counted string we must release. */
    opal_cstring_t* s = NULL;
    if (OPAL_SUCCESS != opal_info_get(info, key, &s, &flag) || !flag || NULL == s) return false;
    strncpy(value, s->string, len - 1);
    value[len - 1] = '\0';
    OBJ_RELEASE(s);
#else
    /* 4.1: copies into the caller's buffer. */
    if (OPAL_SUCCESS != opal_info_get(info, key, (int)len - 1, value, &flag) || !flag) return false;
    value[len - 1] = '\0';
#endif
    return true;
}

#endif
