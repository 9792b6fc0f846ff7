/*
 * Debian's libopenmpi-dev ships ompi/op/op.h, which includes this header, but
 * not the header itself. op.h only needs OMPI_INT_2_FINT (Fortran user ops).
 * Written for hieragg from the definition of the conversion: a C int to a
 * Fortran INTEGER of OMPI_SIZEOF_FORTRAN_INTEGER bytes.
 */
#ifndef HIERAGG_COMPAT_FINT_2_INT_H
#define HIERAGG_COMPAT_FINT_2_INT_H

#include "ompi_config.h"

#if OMPI_SIZEOF_FORTRAN_INTEGER == SIZEOF_INT || !defined(OMPI_SIZEOF_FORTRAN_INTEGER)
#define OMPI_INT_2_FINT(a) ((MPI_Fint)(a))
#define OMPI_FINT_2_INT(a) ((int)(a))
#else
#define OMPI_INT_2_FINT(a) ((MPI_Fint)(a))
#define OMPI_FINT_2_INT(a) ((int)(a))
#endif

#endif
