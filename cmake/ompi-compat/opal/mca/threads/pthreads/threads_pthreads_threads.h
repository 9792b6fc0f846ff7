/*
 * Debian 13's libopenmpi-dev (Open MPI 5.0) names this header in opal_config.h
 * (MCA_threads_base_include_HEADER) but does not ship it. With the pthreads
 * threads component a thread is a pthread_t (opal/mca/threads/threads.h uses it
 * directly) and yielding goes through the function pointer libopen-pal exports,
 * which its yield MCA parameter chooses. Written for hieragg.
 */
#ifndef HIERAGG_COMPAT_THREADS_PTHREADS_THREADS_H
#define HIERAGG_COMPAT_THREADS_PTHREADS_THREADS_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>

#include "opal_config.h"

BEGIN_C_DECLS

#define OPAL_THREAD_YIELD_WHEN_IDLE_DEFAULT false

typedef void(opal_threads_pthreads_yield_fn_t)(void);
OPAL_DECLSPEC extern opal_threads_pthreads_yield_fn_t* opal_threads_pthreads_yield_fn;

static inline void opal_thread_yield(void) { opal_threads_pthreads_yield_fn(); }

END_C_DECLS

#endif
