/* simrun_dt.c — the datatypes of a simulated cluster's MPI (sim/mpi/mpi.h):
 * built-in ones and the hindexed bytes libvela-mpi makes; packing, and
 * gathering a message's bytes at the send and scattering them at the
 * receive (simrun_mpi.c).
 */
#include "sim/mpi/mpi.h"
#include "sim/simrun_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hindexed bytes (the only derived type libvela-mpi makes). */
struct vsg_datatype
{
	int n;
	int *lens;
	MPI_Aint *displs;
	size_t size;
};

/* ------------------------------------------------------------------ */
/* Datatypes */

static size_t builtin_size(MPI_Datatype dt)
{
	switch ((intptr_t) dt)
	{
	case 1: case 2: case 3:
		return 1;
	case 4:
		return sizeof(int);
	case 5:
		return sizeof(double);
	case 6:
		return sizeof(long);
	case 7:
		return sizeof(uint64_t);
	default:
		return 0;
	}
}

static int is_builtin(MPI_Datatype dt)
{
	return (intptr_t) dt > 0 && (intptr_t) dt < 4096;
}

size_t simrun_type_size(MPI_Datatype dt)
{
	if (!dt)
		return 0;
	return is_builtin(dt) ? builtin_size(dt) : dt->size;
}

/* count elements of dt at buf into out (contiguous). */
void simrun_gather(const void *buf, int count, MPI_Datatype dt, unsigned char *out)
{
	if (is_builtin(dt))
	{
		memcpy(out, buf, (size_t) count * builtin_size(dt));
		return;
	}
	for (int c = 0; c < count; c++)
		for (int i = 0; i < dt->n; i++)
		{
			memcpy(out, (const char *) buf + dt->displs[i] + (MPI_Aint) c * (MPI_Aint) dt->size, (size_t) dt->lens[i]);
			out += dt->lens[i];
		}
}

/* The inverse; at most bytes are taken from in. */
void simrun_scatter(const unsigned char *in, size_t bytes, void *buf, int count, MPI_Datatype dt)
{
	if (is_builtin(dt))
	{
		memcpy(buf, in, bytes);
		return;
	}
	for (int c = 0; c < count && bytes; c++)
		for (int i = 0; i < dt->n && bytes; i++)
		{
			size_t n = (size_t) dt->lens[i] < bytes ? (size_t) dt->lens[i] : bytes;
			memcpy((char *) buf + dt->displs[i] + (MPI_Aint) c * (MPI_Aint) dt->size, in, n);
			in += n;
			bytes -= n;
		}
}

EXPORT int vsg_mpi_type_size(MPI_Datatype dt, int *size)
{
	*size = (int) simrun_type_size(dt);
	return dt ? MPI_SUCCESS : MPI_ERR_TYPE;
}

EXPORT int vsg_mpi_pack_size(int count, MPI_Datatype dt, MPI_Comm comm, int *size)
{
	(void) comm;
	*size = (int) ((size_t) count * simrun_type_size(dt));
	return dt ? MPI_SUCCESS : MPI_ERR_TYPE;
}

EXPORT int vsg_mpi_type_create_hindexed(int count, const int lens[], const MPI_Aint displs[], MPI_Datatype old,
					 MPI_Datatype *dt)
{
	if (old != MPI_BYTE || count < 0)
	{
		fprintf(stderr, "[vela-simrun] error: MPI_Type_create_hindexed: only blocks of MPI_BYTE are simulated\n");
		return MPI_ERR_TYPE;
	}
	struct vsg_datatype *t = calloc(1, sizeof(*t));
	t->n = count;
	t->lens = malloc(sizeof(int) * (size_t) (count ? count : 1));
	t->displs = malloc(sizeof(MPI_Aint) * (size_t) (count ? count : 1));
	for (int i = 0; i < count; i++)
	{
		t->lens[i] = lens[i];
		t->displs[i] = displs[i];
		t->size += (size_t) lens[i];
	}
	*dt = t;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_type_commit(MPI_Datatype *dt)
{
	(void) dt;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_type_free(MPI_Datatype *dt)
{
	if (*dt && !is_builtin(*dt))
	{
		free((*dt)->lens);
		free((*dt)->displs);
		free(*dt);
	}
	*dt = MPI_DATATYPE_NULL;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_get_address(const void *p, MPI_Aint *a)
{
	*a = (MPI_Aint) p;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_pack(const void *in, int count, MPI_Datatype dt, void *out, int outsize, int *pos, MPI_Comm comm)
{
	(void) comm;
	size_t n = (size_t) count * simrun_type_size(dt);
	if (*pos < 0 || (size_t) *pos + n > (size_t) outsize)
		return MPI_ERR_ARG;
	simrun_gather(in, count, dt, (unsigned char *) out + *pos);
	*pos += (int) n;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_unpack(const void *in, int insize, int *pos, void *out, int count, MPI_Datatype dt, MPI_Comm comm)
{
	(void) comm;
	size_t n = (size_t) count * simrun_type_size(dt);
	if (*pos < 0 || (size_t) *pos + n > (size_t) insize)
		return MPI_ERR_ARG;
	simrun_scatter((const unsigned char *) in + *pos, n, out, count, dt);
	*pos += (int) n;
	return MPI_SUCCESS;
}

