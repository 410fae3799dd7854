/* calibrate_helper: calibrates two small models (history with two
 * implementations, non-linear regression) over vectors of six sizes, for
 * the script tests (the vela command, and Debian's StarPU reading the
 * files Vela writes). Run it with STARPU_CALIBRATE=1.
 */
#include <starpu.h>
#include <stdio.h>

static void kernel(void *buffers[], void *arg)
{
	(void) arg;
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	double *x = (double *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned r = 0; r < 8; r++)
		for (unsigned i = 0; i < n; i++)
			x[i] = x[i] * 1.0001 + 1;
}

static struct starpu_perfmodel hist = { .type = STARPU_HISTORY_BASED, .symbol = "vela_rt_hist" };
static struct starpu_perfmodel nl = { .type = STARPU_NL_REGRESSION_BASED, .symbol = "vela_rt_nl" };
static struct starpu_codelet hist_cl = { .cpu_funcs = { kernel, kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &hist };
static struct starpu_codelet nl_cl = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &nl };

int main(void)
{
	if (starpu_init(NULL))
		return 1;
	static double a[1 << 15];
	for (unsigned n = 1000; n <= 32000; n *= 2)
	{
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) a, n, sizeof(double));
		for (int r = 0; r < 4; r++)
		{
			struct starpu_task *t = starpu_task_create();
			t->cl = &hist_cl;
			t->handles[0] = h;
			t->flops = 16.0 * n;
			starpu_task_set_implementation(t, (unsigned) (r % 2));
			if (starpu_task_submit(t))
				return 1;
			t = starpu_task_create();
			t->cl = &nl_cl;
			t->handles[0] = h;
			if (starpu_task_submit(t))
				return 1;
		}
		starpu_task_wait_for_all();
		starpu_data_unregister(h);
	}
	starpu_shutdown();
	return 0;
}
