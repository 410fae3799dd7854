/* stats.c — what the layer reports at shutdown: bytes sent per rank
 * (STARPU_COMM_STATS=1), what the cache saved (STARPU_MPI_CACHE_STATS=1)
 * and the insertions' costs (VELA_MPI_INSERT_STATS=FILE, below).
 * starpu_mpi_comm_amounts_retrieve (init.c) reads the same counters.
 */
#include "mpi_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void stats_print(void)
{
	starpu_pthread_mutex_lock(&mpi.lock);
	if (mpi.comm_stats && mpi.comm_amounts)
	{
		size_t total = 0;
		for (int r = 0; r < mpi.world_size; r++)
			total += mpi.comm_amounts[r];
		fprintf(stderr, "[starpu_comm_stats][%d] %zu bytes (%.3f MiB) sent in all\n", mpi.world_rank, total, total / 1048576.0);
		for (int r = 0; r < mpi.world_size; r++)
			if (r != mpi.world_rank)
				fprintf(stderr, "[starpu_comm_stats][%d:%d] %zu bytes (%.3f MiB)\n", mpi.world_rank, r,
					mpi.comm_amounts[r], mpi.comm_amounts[r] / 1048576.0);
	}
	if (mpi.cache_stats)
		fprintf(stderr, "[starpu_mpi_cache_stats][%d] cache %s: %llu sends and %llu receives avoided, %llu bytes not sent\n",
			mpi.world_rank, mpi.cache_enabled ? "on" : "off", (unsigned long long) mpi.cache_hits_send,
			(unsigned long long) mpi.cache_hits_recv, (unsigned long long) mpi.cache_bytes_saved);
	starpu_pthread_mutex_unlock(&mpi.lock);
}

/* ------------------------------------------------------------------ */
/* Insertion costs (VELA_MPI_INSERT_STATS=FILE, real runs): the calling
 * thread's CPU time in each starpu_mpi_task_insert that posts no
 * exchange, less what reading the clock costs, summed per kind (a task
 * another rank runs, one this rank runs) for a fit a + b x data; appended
 * to FILE at shutdown, one line per kind. What a simulated cluster charges
 * per insertion (mpi_insert_us and the others: sim/README.md, "Clusters")
 * can so be calibrated on an application's own insertions, which take
 * fresh memory, as `mpi_insert_cost`'s repeated rounds do not
 * (bench/cluster_sim_accuracy). */

static struct
{
	const char *path;
	double clock_us;	/* what a pair of readings costs */
	double n[2], d[2], t[2], dd[2], dt[2];
} ins;

static double thread_cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

void insert_stats_init(void)
{
	memset(&ins, 0, sizeof(ins));
	const char *p = getenv("VELA_MPI_INSERT_STATS");
	if (!p || !*p)
		return;
#ifdef VELA_SIMULATED_MPI
	/* A simulated insertion's time is what the platform charges, not a
	 * measurement: nothing to write. Said once, by rank 0. */
	if (mpi.world_rank == 0)
		mpi_error("VELA_MPI_INSERT_STATS=%s: ignored in a simulated cluster (it times real runs' insertions); "
			  "nothing is written", p);
#else
	/* The cheapest of a few pairs: a reading's own cost. */
	double best = 1e300;
	for (int i = 0; i < 64; i++)
	{
		double a = thread_cpu_us(), b = thread_cpu_us();
		if (b - a < best)
			best = b - a;
	}
	ins.clock_us = best;
	ins.path = p;
#endif
}

double insert_stats_begin(void)
{
	return ins.path ? thread_cpu_us() : 0.0;
}

void insert_stats_end(double t0, int here, int ndata, int exchanges)
{
	if (!ins.path || exchanges)
		return;
	double t = thread_cpu_us() - t0 - ins.clock_us;
	int k = here ? 1 : 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	ins.n[k] += 1;
	ins.d[k] += ndata;
	ins.t[k] += t;
	ins.dd[k] += (double) ndata * ndata;
	ins.dt[k] += ndata * t;
	starpu_pthread_mutex_unlock(&mpi.lock);
}

void insert_stats_write(void)
{
	if (!ins.path)
		return;
	FILE *f = fopen(ins.path, "a");
	if (!f)
	{
		mpi_error("VELA_MPI_INSERT_STATS=%s: cannot open it for appending (%s); the insertion costs of rank %d are not written",
			  ins.path, strerror(errno), mpi.world_rank);
		ins.path = NULL;
		return;
	}
	/* One write per line, so that ranks appending at once do not mix. */
	for (int k = 0; k < 2; k++)
	{
		char line[256];
		int len = snprintf(line, sizeof(line), "%s rank %d n %.0f sum_data %.0f sum_us %.6f sum_data2 %.0f sum_data_us %.6f\n",
				   k ? "here" : "elsewhere", mpi.world_rank, ins.n[k], ins.d[k], ins.t[k], ins.dd[k], ins.dt[k]);
		fwrite(line, 1, (size_t) len, f);
		fflush(f);
	}
	if (fclose(f))
		mpi_error("VELA_MPI_INSERT_STATS=%s: writing failed (%s)", ins.path, strerror(errno));
	ins.path = NULL;
}
