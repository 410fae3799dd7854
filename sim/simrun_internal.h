/* simrun_internal.h — what the files of vela-simrun's simulated MPI share
 * (simrun_mpi.c: messages and requests; simrun_dt.c: datatypes;
 * simrun_coll.c: collectives). Not seen by the ranks' programs, which see
 * sim/mpi/mpi.h.
 */
#ifndef VELA_SIMRUN_INTERNAL_H
#define VELA_SIMRUN_INTERNAL_H

#include "sim/mpi/mpi.h"

#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))
/* vela-simrun exports its symbols to the ranks' libraries (the vsg_mpi_*
 * functions): these stay inside. */
#define SIMRUN_INTERNAL __attribute__((visibility("hidden")))

/* simrun_mpi.c: the calling actor's rank (dies, naming fn, if it runs on
 * no rank's node), the ranks, and whether comm is one of the cluster's
 * communicators (0, or MPI_ERR_COMM after a message naming fn). */
SIMRUN_INTERNAL int simrun_self_rank(const char *fn);
SIMRUN_INTERNAL int simrun_nranks(void);
SIMRUN_INTERNAL int simrun_check_comm(MPI_Comm comm, const char *fn);
/* Bytes of count elements of dt (0 for no type). */
SIMRUN_INTERNAL size_t simrun_type_size(MPI_Datatype dt);
/* count elements of dt at buf into out, contiguous. */
SIMRUN_INTERNAL void simrun_gather(const void *buf, int count, MPI_Datatype dt, unsigned char *out);
/* The inverse; at most bytes are taken from in. */
SIMRUN_INTERNAL void simrun_scatter(const unsigned char *in, size_t bytes, void *buf, int count, MPI_Datatype dt);

#endif /* VELA_SIMRUN_INTERNAL_H */
