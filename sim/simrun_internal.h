/* simrun_internal.h — what the files of vela-simrun's simulated MPI share
 * (simrun_mpi.c: messages and requests; simrun_dt.c: datatypes). Not
 * seen by the ranks' programs, which see sim/mpi/mpi.h.
 */
#ifndef VELA_SIMRUN_INTERNAL_H
#define VELA_SIMRUN_INTERNAL_H

#include "sim/mpi/mpi.h"

#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

/* Bytes of count elements of dt (0 for no type). */
size_t type_size(MPI_Datatype dt);
/* count elements of dt at buf into out, contiguous. */
void gather(const void *buf, int count, MPI_Datatype dt, unsigned char *out);
/* The inverse; at most bytes are taken from in. */
void scatter(const unsigned char *in, size_t bytes, void *buf, int count, MPI_Datatype dt);

#endif /* VELA_SIMRUN_INTERNAL_H */
