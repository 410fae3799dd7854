/* filters_common.h — what the partitioning tests (test_filters.c,
 * test_partition_async.c) share: a 2-CPU runtime, one-buffer task
 * submission, and the uneven cut of n elements in nparts pieces that the
 * standard filters make. */
#ifndef VELA_TESTS_FILTERS_COMMON_H
#define VELA_TESTS_FILTERS_COMMON_H

#include <starpu.h>

static inline int start_runtime(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf) == 0 ? 0 : -1;
}

static inline int stop_runtime(void)
{
	starpu_task_wait_for_all();
	starpu_shutdown();
	return 0;
}

static inline int submit(struct starpu_codelet *cl, void *arg, starpu_data_handle_t h)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->cl_arg = arg;
	t->handles[0] = h;
	return starpu_task_submit(t);
}

/* Piece id of n elements cut in nparts: the first n % nparts pieces have
 * one element more. */
static inline void split(unsigned n, unsigned nparts, unsigned id, unsigned *first, unsigned *len)
{
	unsigned pos = 0;
	for (unsigned i = 0; i < id; i++)
		pos += n / nparts + (i < n % nparts);
	*first = pos;
	*len = n / nparts + (id < n % nparts);
}

#endif
