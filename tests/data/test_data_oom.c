/* test_data_oom: the data layer's out-of-memory paths fail cleanly.
 *
 * Allocations fail through tests/common/failing_calloc.c: the calling
 * thread's callocs of at least some size, while armed.
 *
 * A handle is sized for the memory nodes that exist when it is registered;
 * adding a disk gives every live handle a replicate for it first. The
 * tests: a registration whose handle cannot be allocated (reported, handle
 * NULL, the runtime unharmed), and a disk that cannot be added because the
 * live handles cannot grow (-ENOMEM, no node added, the handles still
 * work, a later disk is added and used).
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "failing_calloc.h"
#include "vtest.h"

/* ---- runtime */

#define ELEMS 1024

static char disk_dir[64];

static int suite_init(void)
{
	return vtest_start_cpus(1);
}

static int suite_clean(void)
{
	vtest_stop();
	if (disk_dir[0])
		rmdir(disk_dir);
	return 0;
}

static void inc_cpu(void *buffers[], void *arg)
{
	(void) arg;
	int *v = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		v[i]++;
}

static struct starpu_codelet inc_cl =
{
	.cpu_funcs = { inc_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "oom_inc",
};

static int inc(starpu_data_handle_t h)
{
	return starpu_task_insert(&inc_cl, STARPU_RW, h, 0);
}

static void test_register_fails(void)
{
	static int v[ELEMS];
	starpu_data_handle_t h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	failing_calloc_arm(1);
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, ELEMS, sizeof(int));
	unsigned failed_calls = failing_calloc_disarm();
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT(failed_calls >= 1);
	CU_ASSERT_PTR_NULL(h);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "starpu_data_register: out of memory"));

	/* The same registration works once memory is back, and the data is
	 * usable. */
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, ELEMS, sizeof(int));
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(inc(h), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(v[0], 1);
	CU_ASSERT_EQUAL(v[ELEMS - 1], 1);
}

static void test_disk_cannot_grow_handles(void)
{
	enum { N = 8 };
	static int v[N][ELEMS];
	starpu_data_handle_t h[N];
	for (int i = 0; i < N; i++)
		starpu_vector_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) v[i], ELEMS, sizeof(int));
	unsigned nodes = starpu_memory_nodes_get_count();

	strcpy(disk_dir, "/tmp/vela-oom-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(disk_dir));
	/* The handles' late replicates are the only allocations this large
	 * that adding a disk makes. */
	vtest_capture_stderr_begin();
	failing_calloc_arm(1024);
	int node = starpu_disk_register(&starpu_disk_unistd_ops, disk_dir, 64 << 20);
	unsigned failed_calls = failing_calloc_disarm();
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(node, -ENOMEM);
	CU_ASSERT(failed_calls >= 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "out of memory for the data handles' replicates"));
	CU_ASSERT_EQUAL(starpu_memory_nodes_get_count(), nodes);

	/* Nothing lost: the handles work... */
	for (int i = 0; i < N; i++)
		CU_ASSERT_EQUAL(inc(h[i]), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	/* ...and the disk can be added once memory is back; every handle
	 * registered before it can be stored there. */
	node = starpu_disk_register(&starpu_disk_unistd_ops, disk_dir, 64 << 20);
	CU_ASSERT_FATAL(node >= 0);
	CU_ASSERT_EQUAL(starpu_memory_nodes_get_count(), nodes + 1);
	for (int i = 0; i < N; i++)
	{
		CU_ASSERT_EQUAL(starpu_data_fetch_on_node(h[i], (unsigned) node, 0), 0);
		CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h[i], (unsigned) node), 0);
		CU_ASSERT_EQUAL(inc(h[i]), 0);
	}
	for (int i = 0; i < N; i++)
		starpu_data_unregister(h[i]);
	int bad = 0;
	for (int i = 0; i < N; i++)
		for (int k = 0; k < ELEMS; k++)
			bad += v[i][k] != 2;
	CU_ASSERT_EQUAL(bad, 0);
}

static const struct vtest_case cases[] =
{
	{ "registration without memory", test_register_fails },
	{ "disk added while handles cannot grow", test_disk_cannot_grow_handles },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "data_oom", suite_init, suite_clean, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
