/*
 * Debian 13's libopenmpi-dev (Open MPI 5.0) names this header in opal_config.h
 * (MCA_threads_mutex_base_include_HEADER) but does not ship it. Open MPI 5 built
 * with the pthreads threads component makes its internal mutex and condition
 * types plain pthread types; opal/mca/threads/mutex.h embeds them in opal_mutex_t,
 * so they must be exactly these for the structures the shim reads (communicators,
 * requests, info objects) to have 5.0's layout. Written for hieragg.
 */
#ifndef HIERAGG_COMPAT_THREADS_PTHREADS_MUTEX_H
#define HIERAGG_COMPAT_THREADS_PTHREADS_MUTEX_H

#include "opal_config.h"

#include <pthread.h>
#include <stdbool.h>

#include "opal/constants.h"

BEGIN_C_DECLS

typedef pthread_mutex_t opal_thread_internal_mutex_t;
typedef pthread_cond_t opal_thread_internal_cond_t;

#define OPAL_THREAD_INTERNAL_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#define OPAL_THREAD_INTERNAL_COND_INITIALIZER PTHREAD_COND_INITIALIZER

static inline int opal_thread_internal_mutex_init(opal_thread_internal_mutex_t* m, bool recursive) {
    pthread_mutexattr_t attr;
    int rc;
    if (!recursive) return 0 == pthread_mutex_init(m, NULL) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
    if (0 != pthread_mutexattr_init(&attr)) return OPAL_ERR_IN_ERRNO;
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    rc = pthread_mutex_init(m, &attr);
    pthread_mutexattr_destroy(&attr);
    return 0 == rc ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_mutex_lock(opal_thread_internal_mutex_t* m) { pthread_mutex_lock(m); }

/* 0 when the lock was taken, 1 when it is held elsewhere (Open MPI's convention). */
static inline int opal_thread_internal_mutex_trylock(opal_thread_internal_mutex_t* m) {
    return 0 == pthread_mutex_trylock(m) ? 0 : 1;
}

static inline void opal_thread_internal_mutex_unlock(opal_thread_internal_mutex_t* m) { pthread_mutex_unlock(m); }

static inline void opal_thread_internal_mutex_destroy(opal_thread_internal_mutex_t* m) { pthread_mutex_destroy(m); }

static inline int opal_thread_internal_cond_init(opal_thread_internal_cond_t* c) {
    return 0 == pthread_cond_init(c, NULL) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_cond_wait(opal_thread_internal_cond_t* c, opal_thread_internal_mutex_t* m) {
    pthread_cond_wait(c, m);
}

static inline void opal_thread_internal_cond_broadcast(opal_thread_internal_cond_t* c) { pthread_cond_broadcast(c); }

static inline void opal_thread_internal_cond_signal(opal_thread_internal_cond_t* c) { pthread_cond_signal(c); }

static inline void opal_thread_internal_cond_destroy(opal_thread_internal_cond_t* c) { pthread_cond_destroy(c); }

END_C_DECLS

#endif
