/* channel_mpi.c — the master/slave channel over MPI (../mp_channel.h), the
 * whole of libvela-mpi-ms.so: libvela dlopen()s it when an application is
 * started by an MPI launcher (../mp_loader.c), so that programs that never
 * use master/slave do not load MPI.
 *
 * The channel works on a duplicate of MPI_COMM_WORLD (its tags never meet
 * the application's), with errors returned rather than fatal. Strided
 * messages are MPI derived datatypes (hvector of bytes), so MPI packs and
 * unpacks them; messages over INT_MAX bytes are a struct of 1 GiB chunks
 * and the rest.
 */
#include "drivers/mp/mp_channel.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static MPI_Comm comm = MPI_COMM_NULL;
static int initialized_here;
static int tag_max = 32767;

struct req
{
	MPI_Request r;
	MPI_Datatype type;	/* a derived type to free, or MPI_DATATYPE_NULL */
};

static const char *level_name(int level)
{
	switch (level)
	{
	case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
	case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
	case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
	default: return "MPI_THREAD_MULTIPLE";
	}
}

static int chan_init(int *rank, int *size, char *err, size_t errsize)
{
	int flag = 0, provided = MPI_THREAD_SINGLE;
	MPI_Initialized(&flag);
	if (!flag)
	{
		/* The source calls the channel from several threads, one at a
		 * time: SERIALIZED is enough, MULTIPLE is welcome. */
		if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
		{
			snprintf(err, errsize, "MPI_Init_thread failed");
			return -EIO;
		}
		initialized_here = 1;
	}
	else
		MPI_Query_thread(&provided);
	if (provided < MPI_THREAD_SERIALIZED)
	{
		snprintf(err, errsize, "MPI provides %s; master/slave needs MPI_THREAD_SERIALIZED (the application "
			 "initialised MPI itself at a lower level?)", level_name(provided));
		return -EINVAL;
	}
	if (MPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
	{
		snprintf(err, errsize, "MPI_Comm_dup(MPI_COMM_WORLD) failed");
		return -EIO;
	}
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	MPI_Comm_rank(comm, rank);
	MPI_Comm_size(comm, size);
	int *ub = NULL, has = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has);
	if (has && ub && *ub > tag_max)
		tag_max = *ub;
	return initialized_here ? 0 : 1;
}

static void chan_fini(int end_job)
{
	if (comm != MPI_COMM_NULL)
		MPI_Comm_free(&comm);
	comm = MPI_COMM_NULL;
	int finalized = 0;
	MPI_Finalized(&finalized);
	if ((initialized_here || end_job) && !finalized)
		MPI_Finalize();
	initialized_here = 0;
}

static void chan_abort(int code)
{
	MPI_Abort(MPI_COMM_WORLD, code);
}

/* The datatype and count describing the layout; *type is a derived type
 * to free afterwards, or MPI_DATATYPE_NULL. */
static int layout(size_t blocksize, size_t nblocks, size_t ld, MPI_Datatype *dt, int *count, MPI_Datatype *type)
{
	*type = MPI_DATATYPE_NULL;
	if (nblocks <= 1 || ld == blocksize)
	{
		size_t bytes = blocksize * (nblocks ? nblocks : 1);
		if (bytes <= INT_MAX)
		{
			*dt = MPI_BYTE;
			*count = (int) bytes;
			return 0;
		}
		/* 1 GiB chunks, then the rest. */
		const size_t chunk = (size_t) 1 << 30;
		MPI_Datatype chunk_t;
		if (MPI_Type_contiguous((int) chunk, MPI_BYTE, &chunk_t) != MPI_SUCCESS)
			return -EIO;
		int lens[2] = { (int) (bytes / chunk), (int) (bytes % chunk) };
		MPI_Aint disps[2] = { 0, (MPI_Aint) (bytes / chunk * chunk) };
		MPI_Datatype types[2] = { chunk_t, MPI_BYTE };
		int ret = MPI_Type_create_struct(lens[1] ? 2 : 1, lens, disps, types, type);
		MPI_Type_free(&chunk_t);
		if (ret != MPI_SUCCESS || MPI_Type_commit(type) != MPI_SUCCESS)
			return -EIO;
		*dt = *type;
		*count = 1;
		return 0;
	}
	if (blocksize > INT_MAX || nblocks > INT_MAX)
		return -EINVAL;
	if (MPI_Type_create_hvector((int) nblocks, (int) blocksize, (MPI_Aint) ld, MPI_BYTE, type) != MPI_SUCCESS ||
	    MPI_Type_commit(type) != MPI_SUCCESS)
		return -EIO;
	*dt = *type;
	*count = 1;
	return 0;
}

static int post(int send, int peer, int tag, void *buf, size_t blocksize, size_t nblocks, size_t ld, void **out)
{
	struct req *q = malloc(sizeof(*q));
	if (!q)
		return -ENOMEM;
	MPI_Datatype dt;
	int count;
	int ret = layout(blocksize, nblocks, ld, &dt, &count, &q->type);
	if (ret)
	{
		free(q);
		return ret;
	}
	int err = send ? MPI_Isend(buf, count, dt, peer, tag, comm, &q->r) : MPI_Irecv(buf, count, dt, peer, tag, comm, &q->r);
	if (err != MPI_SUCCESS)
	{
		if (q->type != MPI_DATATYPE_NULL)
			MPI_Type_free(&q->type);
		free(q);
		return -EIO;
	}
	*out = q;
	return 0;
}

static int chan_isend(int peer, int tag, const void *buf, size_t blocksize, size_t nblocks, size_t ld, void **req)
{
	return post(1, peer, tag, (void *) buf, blocksize, nblocks, ld, req);
}

static int chan_irecv(int peer, int tag, void *buf, size_t blocksize, size_t nblocks, size_t ld, void **req)
{
	return post(0, peer, tag, buf, blocksize, nblocks, ld, req);
}

static void release(struct req *q)
{
	if (q->type != MPI_DATATYPE_NULL)
		MPI_Type_free(&q->type);
	free(q);
}

static int chan_test(void *req, size_t *bytes)
{
	struct req *q = req;
	int flag = 0;
	MPI_Status st;
	int err = MPI_Test(&q->r, &flag, &st);
	if (err != MPI_SUCCESS)
	{
		release(q);
		return -EIO;
	}
	if (!flag)
		return 0;
	if (bytes)
	{
		MPI_Count n = 0;
		MPI_Get_elements_x(&st, MPI_BYTE, &n);
		*bytes = n > 0 ? (size_t) n : 0;
	}
	release(q);
	return 1;
}

static void chan_cancel(void *req)
{
	struct req *q = req;
	MPI_Cancel(&q->r);
	MPI_Wait(&q->r, MPI_STATUS_IGNORE);
	release(q);
}

static int chan_tag_ub(void)
{
	return tag_max;
}

__attribute__((visibility("default")))
const struct mp_channel vela_mp_channel = {
	.version = MP_CHANNEL_VERSION,
	.name = "MPI",
	.init = chan_init,
	.fini = chan_fini,
	.abort = chan_abort,
	.isend = chan_isend,
	.irecv = chan_irecv,
	.test = chan_test,
	.cancel = chan_cancel,
	.tag_ub = chan_tag_ub,
};
