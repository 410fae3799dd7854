/* simrun_coll.c — the collectives of numbers libvela-mpi's traces use
 * (MPI_Bcast, MPI_Allreduce) in a simulated cluster: point to point through
 * rank 0, on tags no application uses (simrun_mpi.c carries them). */
#include "sim/mpi/mpi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/simrun_internal.h"

#define TAG_BCAST (-100)
#define TAG_REDUCE (-101)

EXPORT int vsg_mpi_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	int ret = simrun_check_comm(comm, "MPI_Bcast");
	if (ret)
		return ret;
	int me = simrun_self_rank("MPI_Bcast");
	if (root < 0 || root >= simrun_nranks())
		return MPI_ERR_RANK;
	if (me != root)
		return vsg_mpi_recv(buf, count, dt, root, TAG_BCAST, comm, MPI_STATUS_IGNORE);
	for (int p = 0; p < simrun_nranks() && !ret; p++)
		if (p != root)
			ret = vsg_mpi_send(buf, count, dt, p, TAG_BCAST, comm);
	return ret;
}

/* acc op= in, count numbers of dt. */
static int fold(void *acc, const void *in, int count, MPI_Datatype dt, MPI_Op op)
{
	intptr_t o = (intptr_t) op;
	if (o < 1 || o > 3)
		return MPI_ERR_ARG;
#define FOLD(T) \
	do \
	{ \
		T *a = acc; \
		const T *b = in; \
		for (int i = 0; i < count; i++) \
			a[i] = o == 1 ? (a[i] > b[i] ? a[i] : b[i]) : o == 2 ? (a[i] < b[i] ? a[i] : b[i]) : a[i] + b[i]; \
	} while (0)
	if (dt == MPI_INT)
		FOLD(int);
	else if (dt == MPI_DOUBLE)
		FOLD(double);
	else if (dt == MPI_LONG)
		FOLD(long);
	else if (dt == MPI_UINT64_T)
		FOLD(uint64_t);
	else
		return MPI_ERR_TYPE;
#undef FOLD
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_allreduce(const void *in, void *out, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
	int ret = simrun_check_comm(comm, "MPI_Allreduce");
	if (ret)
		return ret;
	int me = simrun_self_rank("MPI_Allreduce");
	size_t bytes = (size_t) count * simrun_type_size(dt);
	if (out != in)
		memmove(out, in, bytes);
	if (me != 0)
	{
		ret = vsg_mpi_send(out, count, dt, 0, TAG_REDUCE, comm);
		return ret ? ret : vsg_mpi_bcast(out, count, dt, 0, comm);
	}
	void *tmp = malloc(bytes ? bytes : 1);
	for (int p = 1; p < simrun_nranks() && !ret; p++)
	{
		ret = vsg_mpi_recv(tmp, count, dt, p, TAG_REDUCE, comm, MPI_STATUS_IGNORE);
		if (!ret)
			ret = fold(out, tmp, count, dt, op);
	}
	free(tmp);
	return ret ? ret : vsg_mpi_bcast(out, count, dt, 0, comm);
}
