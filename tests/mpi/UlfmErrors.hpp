// What the ULFM test programs (process_failure.cpp, stale_message.cpp) make of an MPI
// return code: whether it reports a process failure (the failed process, or a revoked
// communicator), and its text for the log.
#pragma once
#include <mpi.h>
#include <mpi-ext.h>

#include <cstddef>
#include <string>

inline bool isFailure(int rc) {
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    return cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_REVOKED;
}

inline std::string errorName(int rc) {
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, s, &len);
    return std::string(s, static_cast<size_t>(len));
}
