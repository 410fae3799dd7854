/* mstest.h — what the master/slave tests share. They are plain programs
 * run by run-ms-test.sh under mpirun (3 processes unless the entry's name
 * says otherwise): rank 0 is the application, the others become MPI
 * slaves inside starpu_init and never come back from it. Exit status 0
 * passes, anything else fails, 77 skips.
 *
 * A failed check exits the master with status 1; its exit handler still
 * tells the slaves to leave, so mpirun ends instead of hanging.
 */
#ifndef MSTEST_H
#define MSTEST_H

#include <starpu.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ms_name = "test";

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "[%s] %s:%d: check failed: %s\n", ms_name, __FILE__, __LINE__, #cond); \
		fflush(stderr); \
		exit(1); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long a_ = (long long) (a), b_ = (long long) (b); \
	if (a_ != b_) { \
		fprintf(stderr, "[%s] %s:%d: check failed: %s == %s (%lld != %lld)\n", ms_name, __FILE__, __LINE__, #a, #b, a_, b_); \
		fflush(stderr); \
		exit(1); \
	} \
} while (0)

/* starpu_init with ncpus CPU workers here (-1: the default) and no GPU;
 * skips (77) when the job has fewer than min_slaves slaves. Only the
 * master returns. */
static inline void ms_start(const char *name, int ncpus, unsigned min_slaves)
{
	ms_name = name;
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	if (ncpus >= 0)
		conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = 0;
	int ret = starpu_init(&conf);
	if (ret == -ENODEV)
	{
		fprintf(stderr, "[%s] skipped: no worker\n", name);
		exit(77);
	}
	CHECK_EQ(ret, 0);
	unsigned nslaves = 0;
	for (unsigned n = 0; n < starpu_memory_nodes_get_count(); n++)
		nslaves += starpu_node_get_kind(n) == STARPU_MPI_MS_RAM;
	if (nslaves < min_slaves)
	{
		fprintf(stderr, "[%s] skipped: %u MPI slave(s), %u needed (run it with mpirun -np %u)\n", name, nslaves,
			min_slaves, min_slaves + 1);
		starpu_shutdown();
		exit(77);
	}
}

/* The worker ids of slave devid's workers (first one, and how many). */
static inline int ms_slave_worker(int devid, unsigned k)
{
	unsigned seen = 0;
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
		if (starpu_worker_get_type((int) w) == STARPU_MPI_MS_WORKER && starpu_worker_get_devid((int) w) == devid)
			if (seen++ == k)
				return (int) w;
	return -1;
}

/* The memory node of slave devid. */
static inline unsigned ms_slave_node(int devid)
{
	int w = ms_slave_worker(devid, 0);
	CHECK(w >= 0);
	return starpu_worker_get_memory_node((unsigned) w);
}

#endif /* MSTEST_H */
