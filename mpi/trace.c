/* trace.c — what a distributed run's traces need from this layer, given
 * to the runtime through its trace hook (vela_extension.h): the run and
 * rank of this process, its clock against rank 0's, and every message
 * sent and received. `vela trace` merges the ranks' files with these
 * (tools/trace_merge.c); the records are in runtime/trace/trace_format.h.
 *
 * Clocks: each process's trace clock starts at its own starpu_init and
 * may run at a slightly different rate (a TSC calibrated per process), so
 * rank 0 measures every other rank's offset at init and again at
 * shutdown, by ping-pong: it reads its clock (t0), the peer reads its own
 * on receipt (t1) and answers, rank 0 reads its clock again (t2); t1 was
 * taken when rank 0's clock read (t0 + t2) / 2, within (t2 - t0) / 2. The
 * best exchange (the shortest round trip) of at least ROUNDS is kept. With
 * two such points the merge corrects the drift too.
 *
 * All of it is collective over the init communicator, on a duplicate of
 * it (no tag of the application's or the engine's is touched), and made
 * only when some rank records a trace; init runs before the engine starts
 * and shutdown after it stopped, so MPI is called directly.
 */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* At least ROUNDS round trips per peer, more (up to MAX_ROUNDS) while the
 * best error bound is above GOOD_ERR_NS (a loaded or oversubscribed
 * machine delays some exchanges). */
#define ROUNDS 12
#define MAX_ROUNDS 100
#define GOOD_ERR_NS 5000

static MPI_Comm sync_comm = MPI_COMM_NULL;

/* One synchronisation of every rank with rank 0, recorded as TR_CLOCK. */
static void clock_sync(void)
{
	int rank, size;
	MPI_Comm_rank(sync_comm, &rank);
	MPI_Comm_size(sync_comm, &size);
	if (rank == 0)
	{
		uint64_t now = vela_trace_now();
		vela_trace_clock_sync(now, now, 0, 0);
		for (int p = 1; p < size; p++)
		{
			uint64_t best_rtt = UINT64_MAX, best[3] = { 0, 0, 0 };	/* round, mid, err */
			for (int k = 0; k < MAX_ROUNDS && (k < ROUNDS || best[2] > GOOD_ERR_NS); k++)
			{
				uint64_t t0 = vela_trace_now(), t1;
				MPI_Send(&k, 1, MPI_INT, p, 1, sync_comm);
				MPI_Recv(&t1, 1, MPI_UINT64_T, p, 2, sync_comm, MPI_STATUS_IGNORE);
				uint64_t t2 = vela_trace_now();
				if (t2 - t0 < best_rtt)
				{
					best_rtt = t2 - t0;
					best[0] = (uint64_t) k;
					best[1] = t0 + (t2 - t0) / 2;
					best[2] = (t2 - t0 + 1) / 2;
				}
			}
			int stop = -1;	/* the peer's loop ends */
			MPI_Send(&stop, 1, MPI_INT, p, 1, sync_comm);
			/* No trace open here (the application shut the runtime
			 * down first): nothing to relate the peer's clock to. */
			if (!vela_trace_is_open())
				best[0] = MAX_ROUNDS;
			MPI_Send(best, 3, MPI_UINT64_T, p, 3, sync_comm);
		}
	}
	else
	{
		uint64_t t1[MAX_ROUNDS], best[3];
		for (;;)
		{
			int k;
			MPI_Recv(&k, 1, MPI_INT, 0, 1, sync_comm, MPI_STATUS_IGNORE);
			if (k < 0 || k >= MAX_ROUNDS)
				break;
			t1[k] = vela_trace_now();
			MPI_Send(&t1[k], 1, MPI_UINT64_T, 0, 2, sync_comm);
		}
		MPI_Recv(best, 3, MPI_UINT64_T, 0, 3, sync_comm, MPI_STATUS_IGNORE);
		if (best[0] < MAX_ROUNDS)
			vela_trace_clock_sync(t1[best[0]], best[1], best[2], 0);
	}
}

int mtrace_init(void)
{
	mpi.tracing = mpi.trace_sync = 0;
	int open = vela_trace_is_open(), any = 0;
	if (MPI_Allreduce(&open, &any, 1, MPI_INT, MPI_MAX, mpi.init_comm) != MPI_SUCCESS)
		return -EIO;
	if (!any)
		return 0;
	if (MPI_Comm_dup(mpi.init_comm, &sync_comm) != MPI_SUCCESS)
		return -EIO;
	struct mcomm *c = mpi.comm_init[0];
	/* Ranks of messages are ranks of the init communicator. */
	mpi.trace_rank = malloc((size_t) mpi.world_size * sizeof(int));
	if (!mpi.trace_rank)
	{
		MPI_Comm_free(&sync_comm);
		return -ENOMEM;
	}
	for (int i = 0; i < mpi.world_size; i++)
		mpi.trace_rank[i] = -1;
	for (int i = 0; i < c->size; i++)
		mpi.trace_rank[c->world[i]] = i;
	/* The run's id: rank 0's date and process id, which no other run
	 * of the same program shares. */
	uint64_t run_id = 0;
	if (c->rank == 0)
	{
		struct timespec ts;
		timespec_get(&ts, TIME_UTC);
		run_id = ((uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec) ^ ((uint64_t) getpid() << 40);
		if (!run_id)
			run_id = 1;
	}
	MPI_Bcast(&run_id, 1, MPI_UINT64_T, 0, sync_comm);
	vela_trace_set_process(run_id, c->rank, (unsigned) c->size);
	clock_sync();
	mpi.trace_sync = 1;
	mpi.tracing = open;
	return 0;
}

void mtrace_fini(void)
{
	if (!mpi.trace_sync)
		return;
	clock_sync();
	MPI_Comm_free(&sync_comm);
	mpi.tracing = mpi.trace_sync = 0;
	free(mpi.trace_rank);
	mpi.trace_rank = NULL;
	vela_trace_set_process(0, -1, 0);
}

/* Which communicator a message went through, alike on both sides: 0 for
 * the init communicator, else a hash of its members' world ranks. */
static uint64_t channel_of(const struct mcomm *c)
{
	if (c == mpi.comm_init[0])
		return 0;
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < c->size; i++)
	{
		h ^= (uint64_t) (unsigned) c->world[i];
		h *= 1099511628211ull;
	}
	return h ? h : 1;
}

void mtrace_comm(const struct mreq *r)
{
	struct vela_trace_comm t;
	memset(&t, 0, sizeof(t));
	const struct mcomm *c = r->comm;
	t.peer = r->peer >= 0 && r->peer < c->size ? mpi.trace_rank[c->world[r->peer]] : -1;
	t.flags = (r->type == MREQ_SEND ? VELA_TRACE_COMM_SEND : 0) | (r->ssend ? VELA_TRACE_COMM_SYNC : 0);
	t.tag = r->tag;
	t.seq = (uint64_t) r->seq;
	t.channel = channel_of(c);
	t.bytes = r->type == MREQ_SEND ? r->desc.size : (uint64_t) r->env.size;
	t.submit = r->t_submit;
	t.start = r->t_start ? r->t_start : r->t_submit;
	t.end = vela_trace_now();
	t.handle = r->handle;
	vela_trace_comm(&t);
}
