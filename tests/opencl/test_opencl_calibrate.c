/* test_opencl_calibrate.c — calibration times an OpenCL kernel alone: with
 * STARPU_CALIBRATE=1 every task of a learnt model is measured, and before
 * the clock starts the device's worker ends not only its kernels in flight
 * but also the copies in flight into or out of its memory, which PoCL's
 * CPU device runs on the thread of its kernels (they would be timed as the
 * kernel's, while the simulation charges them apart). A 128 MiB copy is
 * set in flight (the data layer's own asynchronous copy, internal API),
 * then a measured task runs: its kernel must find no copy in flight and
 * the copied data valid on the device. Without the draining the copy is
 * still running when the kernel starts.
 * Internal: links libvela-internal to start the copy and count copies in
 * flight.
 */
#include "vtest.h"
#include "data/data.h"

#include <starpu.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static starpu_data_handle_t big;
static unsigned ocl_node;
static _Atomic int seen_pending = -1, seen_valid = -1;

static void look(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	seen_pending = (int) (data_xfer_pending(ocl_node) + data_xfer_pending(STARPU_MAIN_RAM));
	int valid = 0;
	starpu_data_query_status(big, (int) ocl_node, NULL, &valid, NULL);
	seen_valid = valid;
}

static struct starpu_perfmodel model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "test_opencl_calibrate_look",
};

static struct starpu_codelet look_cl = {
	.opencl_funcs = { look },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.model = &model,
	.name = "look",
};

static char home[] = "/tmp/vela-calibrate-XXXXXX";

static int start(void)
{
	if (!mkdtemp(home))
		return -1;
	setenv("STARPU_HOME", home, 1);
	setenv("STARPU_CALIBRATE", "1", 1);
	if (vtest_start_opencl(1, 0))
		return -1;
	int w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	ocl_node = starpu_worker_get_memory_node((unsigned) w);
	return 0;
}

static int stop(void)
{
	int ret = vtest_stop();
	char cmd[sizeof(home) + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", home);
	if (system(cmd) != 0)
		ret = -1;
	return ret;
}

static void test_measured_kernel_runs_alone(void)
{
	size_t n = (size_t) 128 << 20;
	char *v = malloc(n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	memset(v, 7, n);
	starpu_vector_data_register(&big, STARPU_MAIN_RAM, (uintptr_t) v, (uint32_t) (n / 4), 4);
	int x = 0;
	starpu_data_handle_t small;
	starpu_variable_data_register(&small, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));

	CU_ASSERT_EQUAL(data_start_copy(big, ocl_node), 0);
	/* The precondition: the copy is in flight, not done at once. */
	CU_ASSERT_EQUAL(data_xfer_pending(ocl_node), 1);
	struct starpu_task *t = starpu_task_create();
	t->cl = &look_cl;
	t->handles[0] = small;
	t->synchronous = 1;
	CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	CU_ASSERT_EQUAL(seen_pending, 0);
	CU_ASSERT_EQUAL(seen_valid, 1);

	starpu_data_unregister(small);
	starpu_data_unregister(big);
	free(v);
}

static const struct vtest_case cases[] = {
	{ "measured_kernel_runs_alone", test_measured_kernel_runs_alone },
	VTEST_END,
};

static const struct vtest_suite suites[] = {
	{ "opencl_calibrate", start, stop, cases },
	{ NULL, NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	return vtest_run_opencl(argc, argv, suites);
}
