/* test_ms_eviction.c — slaves whose memory is limited
 * (STARPU_LIMIT_MPI_MS_MEM=1, MiB): more data than fits goes through them,
 * buffers are evicted (written back to the master when they hold the only
 * valid copy) and brought back, and every result is right.
 */
#include "mstest.h"

#include <stdint.h>

#define NVEC 24
#define LEN (32 * 1024)	/* 128 KiB of floats: 8 fit in 1 MiB */
#define ROUNDS 4

void ms_inc_float(void *buffers[], void *arg);
void ms_inc_float(void *buffers[], void *arg)
{
	(void) arg;
	float *v = (float *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] += 1.0f;
}

static struct starpu_codelet inc_cl = {
	.cpu_funcs = { ms_inc_float },
	.cpu_funcs_name = { "ms_inc_float" },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "inc",
};

int main(void)
{
	setenv("STARPU_LIMIT_MPI_MS_MEM", "1", 1);
	ms_start("test_ms_eviction", 1, 2);
	for (int s = 0; s < 2; s++)
		CHECK_EQ(starpu_memory_get_total(ms_slave_node(s)), 1 << 20);
	static float v[NVEC][LEN];
	starpu_data_handle_t h[NVEC];
	for (int d = 0; d < NVEC; d++)
	{
		for (int i = 0; i < LEN; i++)
			v[d][i] = (float) (d + i % 7);
		starpu_vector_data_register(&h[d], STARPU_MAIN_RAM, (uintptr_t) v[d], LEN, sizeof(float));
	}
	/* Round r: datum d on slave (d + r) % 2, so each goes back and forth
	 * and each slave sees all of them. */
	for (int r = 0; r < ROUNDS; r++)
		for (int d = 0; d < NVEC; d++)
		{
			struct starpu_task *t = starpu_task_create();
			t->cl = &inc_cl;
			t->handles[0] = h[d];
			t->execute_on_a_specific_worker = 1;
			t->workerid = (unsigned) ms_slave_worker((d + r) % 2, 0);
			CHECK_EQ(starpu_task_submit(t), 0);
		}
	CHECK_EQ(starpu_task_wait_for_all(), 0);
	for (int s = 0; s < 2; s++)
		CHECK(starpu_memory_get_available(ms_slave_node(s)) >= 0);
	for (int d = 0; d < NVEC; d++)
		starpu_data_unregister(h[d]);
	starpu_shutdown();
	for (int d = 0; d < NVEC; d++)
		for (int i = 0; i < LEN; i++)
			if (v[d][i] != (float) (d + i % 7 + ROUNDS))
			{
				fprintf(stderr, "[%s] datum %d element %d is %g, expected %g\n", ms_name, d, i, v[d][i],
					(double) (d + i % 7 + ROUNDS));
				return 1;
			}
	fprintf(stderr, "[%s] %d x 128 KiB through slaves of 1 MiB, %d rounds: results right\n", ms_name, NVEC, ROUNDS);
	return 0;
}
