/*
 * Debian 13's libopenmpi-dev (Open MPI 5.0) names this header in opal_config.h
 * (MCA_threads_tsd_base_include_HEADER) but does not ship it. With the pthreads
 * threads component thread-specific data is a pthread key. Written for hieragg.
 */
#ifndef HIERAGG_COMPAT_THREADS_PTHREADS_TSD_H
#define HIERAGG_COMPAT_THREADS_PTHREADS_TSD_H

#include <pthread.h>

#include "opal/constants.h"

typedef pthread_key_t opal_tsd_key_t;

static inline int opal_tsd_key_delete(opal_tsd_key_t key) {
    return 0 == pthread_key_delete(key) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_set(opal_tsd_key_t key, void* value) {
    return 0 == pthread_setspecific(key, value) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_get(opal_tsd_key_t key, void** value) {
    *value = pthread_getspecific(key);
    return OPAL_SUCCESS;
}

#endif
