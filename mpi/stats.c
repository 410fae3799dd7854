/* stats.c — what the layer reports at shutdown: bytes sent per rank
 * (STARPU_COMM_STATS=1) and what the cache saved (STARPU_MPI_CACHE_STATS=1).
 * starpu_mpi_comm_amounts_retrieve (init.c) reads the same counters.
 */
#include "mpi_internal.h"

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
