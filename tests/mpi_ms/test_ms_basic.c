/* test_ms_basic.c — a master and its MPI slaves: the workers and memory
 * nodes the slaves become, kernels found by name (cpu_funcs_name, and
 * mpi_ms_funcs through starpu_mpi_ms_register_kernel), cl_arg, data going
 * back and forth, tasks spread by eager and dmda over the master's CPU
 * and the slaves, and two sessions (starpu_init / starpu_shutdown twice:
 * the slaves wait in between).
 */
#include "mstest.h"

#include <stdint.h>

#define N 4096
#define NBLOCKS 16

/* v[i] = v[i] * a + b (a and b from cl_arg). */
void ms_axpb(void *buffers[], void *arg);
void ms_axpb(void *buffers[], void *arg)
{
	double a, b;
	starpu_codelet_unpack_args(arg, &a, &b);
	double *v = (double *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] = v[i] * a + b;
}

/* out[i] += in[i] */
void ms_add(void *buffers[], void *arg);
void ms_add(void *buffers[], void *arg)
{
	(void) arg;
	const double *in = (const double *) STARPU_VECTOR_GET_PTR(buffers[0]);
	double *out = (double *) STARPU_VECTOR_GET_PTR(buffers[1]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		out[i] += in[i];
}

static struct starpu_codelet axpb_cl = {
	.cpu_funcs = { ms_axpb },
	.cpu_funcs_name = { "ms_axpb" },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "axpb",
};

static starpu_mpi_ms_func_symbol_t add_symbol;

static starpu_mpi_ms_kernel_t add_ms(void)
{
	return starpu_mpi_ms_get_kernel(add_symbol);
}

/* No cpu_funcs_name: the slaves find it through mpi_ms_funcs. */
static struct starpu_codelet add_cl = {
	.cpu_funcs = { ms_add },
	.mpi_ms_funcs = { add_ms },
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "add",
};

/* A reduction: contributions on the slaves, each through a scratch
 * buffer, folded by the runtime. */
void ms_r_init(void *buffers[], void *arg);
void ms_r_init(void *buffers[], void *arg)
{
	(void) arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) = 0;
}

void ms_r_add(void *buffers[], void *arg);
void ms_r_add(void *buffers[], void *arg)
{
	(void) arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) += *(long *) STARPU_VARIABLE_GET_PTR(buffers[1]);
}

void ms_r_contrib(void *buffers[], void *arg);
void ms_r_contrib(void *buffers[], void *arg)
{
	long k;
	starpu_codelet_unpack_args(arg, &k);
	long *scratch = (long *) STARPU_VECTOR_GET_PTR(buffers[1]);
	scratch[0] = k;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) += scratch[0];
}

static struct starpu_codelet r_init_cl = {
	.cpu_funcs = { ms_r_init }, .cpu_funcs_name = { "ms_r_init" }, .nbuffers = 1, .modes = { STARPU_W }, .name = "r_init",
};
static struct starpu_codelet r_add_cl = {
	.cpu_funcs = { ms_r_add }, .cpu_funcs_name = { "ms_r_add" }, .nbuffers = 2,
	.modes = { STARPU_RW | STARPU_COMMUTE, STARPU_R }, .name = "r_add",
};
static struct starpu_codelet r_contrib_cl = {
	.cpu_funcs = { ms_r_contrib }, .cpu_funcs_name = { "ms_r_contrib" }, .nbuffers = 2,
	.modes = { STARPU_REDUX, STARPU_SCRATCH }, .name = "r_contrib",
};

static void reduction(void)
{
	long sum = 5, want = 5;
	starpu_data_handle_t h, scratch;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &sum, sizeof(sum));
	starpu_vector_data_register(&scratch, -1, 0, 16, sizeof(long));
	starpu_data_set_reduction_methods(h, &r_add_cl, &r_init_cl);
	for (long k = 1; k <= 100; k++)
	{
		want += k;
		int w = k % 3 == 0 ? starpu_worker_get_by_type(STARPU_CPU_WORKER, 0) : ms_slave_worker((int) (k % 2), 0);
		CHECK_EQ(starpu_task_insert(&r_contrib_cl, STARPU_REDUX, h, STARPU_SCRATCH, scratch, STARPU_VALUE, &k, sizeof(k),
					    STARPU_EXECUTE_ON_WORKER, w, 0), 0);
	}
	starpu_data_unregister(h);
	starpu_data_unregister(scratch);
	CHECK_EQ(sum, want);
}

static void submit_axpb(starpu_data_handle_t h, double a, double b, int worker)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = &axpb_cl;
	t->handles[0] = h;
	starpu_codelet_pack_args(&t->cl_arg, &t->cl_arg_size, STARPU_VALUE, &a, sizeof(a), STARPU_VALUE, &b, sizeof(b), 0);
	t->cl_arg_free = 1;
	if (worker >= 0)
	{
		t->execute_on_a_specific_worker = 1;
		t->workerid = (unsigned) worker;
	}
	CHECK_EQ(starpu_task_submit(t), 0);
}

static void session(const char *sched)
{
	setenv("STARPU_SCHED", sched, 1);
	ms_start("test_ms_basic", 1, 2);
	CHECK_EQ(starpu_mpi_ms_worker_get_count(), 2 * (unsigned) atoi(getenv("STARPU_NMPIMSTHREADS") ? getenv("STARPU_NMPIMSTHREADS") : "1"));
	CHECK_EQ(starpu_cpu_worker_get_count(), 1);
	/* RAM, then one node per slave. */
	CHECK_EQ(starpu_memory_nodes_get_count(), 3);
	CHECK_EQ(starpu_node_get_kind(1), STARPU_MPI_MS_RAM);
	CHECK_EQ(starpu_node_get_kind(2), STARPU_MPI_MS_RAM);
	CHECK(starpu_memory_get_total(1) > 0);
	char name[64];
	starpu_worker_get_name(ms_slave_worker(1, 0), name, sizeof(name));
	CHECK(strstr(name, "MPI_MS 1") == name);
	CHECK_EQ(starpu_worker_get_devid(ms_slave_worker(1, 0)), 1);
	CHECK_EQ(starpu_mpi_ms_register_kernel(&add_symbol, "ms_add"), 0);

	static double v[NBLOCKS][N], acc[N];
	starpu_data_handle_t h[NBLOCKS], hacc;
	for (int b = 0; b < NBLOCKS; b++)
	{
		for (int i = 0; i < N; i++)
			v[b][i] = b + i * 0.5;
		starpu_vector_data_register(&h[b], STARPU_MAIN_RAM, (uintptr_t) v[b], N, sizeof(double));
	}
	for (int i = 0; i < N; i++)
		acc[i] = 1.0;
	starpu_vector_data_register(&hacc, STARPU_MAIN_RAM, (uintptr_t) acc, N, sizeof(double));

	/* Pinned: each block visits slave 0, slave 1 and the master's CPU. */
	int cpu = starpu_worker_get_by_type(STARPU_CPU_WORKER, 0);
	for (int b = 0; b < NBLOCKS; b++)
	{
		submit_axpb(h[b], 2.0, 1.0, ms_slave_worker(0, 0));
		submit_axpb(h[b], 3.0, -1.0, ms_slave_worker(1, 0));
		submit_axpb(h[b], 0.5, 0.0, cpu);
	}
	/* Anywhere, as the policy likes; then every block into acc. */
	for (int r = 0; r < 3; r++)
		for (int b = 0; b < NBLOCKS; b++)
			submit_axpb(h[b], 1.0, 1.0, -1);
	for (int b = 0; b < NBLOCKS; b++)
		CHECK_EQ(starpu_task_insert(&add_cl, STARPU_R, h[b], STARPU_RW, hacc, 0), 0);
	CHECK_EQ(starpu_task_wait_for_all(), 0);

	unsigned on_slaves = 0;
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
		if (starpu_worker_get_type((int) w) == STARPU_MPI_MS_WORKER)
			on_slaves += axpb_cl.per_worker_stats[w] + add_cl.per_worker_stats[w];
	CHECK(on_slaves >= 2 * NBLOCKS);

	for (int b = 0; b < NBLOCKS; b++)
		starpu_data_unregister(h[b]);
	starpu_data_unregister(hacc);
	for (int i = 0; i < N; i++)
	{
		double want_acc = 1.0;
		for (int b = 0; b < NBLOCKS; b++)
		{
			double x = b + i * 0.5;
			x = ((x * 2.0 + 1.0) * 3.0 - 1.0) * 0.5 + 3.0;
			if (v[b][i] != x)
			{
				fprintf(stderr, "[%s] %s: block %d element %d is %g, expected %g\n", ms_name, sched, b, i, v[b][i], x);
				exit(1);
			}
			want_acc += x;
		}
		if (acc[i] != want_acc)
		{
			fprintf(stderr, "[%s] %s: acc[%d] is %g, expected %g\n", ms_name, sched, i, acc[i], want_acc);
			exit(1);
		}
	}
	reduction();
	fprintf(stderr, "[%s] %s: %u of %u tasks ran on the slaves, results right\n", ms_name, sched, on_slaves, 4 * NBLOCKS + NBLOCKS);
	memset(axpb_cl.per_worker_stats, 0, sizeof(axpb_cl.per_worker_stats));
	memset(add_cl.per_worker_stats, 0, sizeof(add_cl.per_worker_stats));
	starpu_shutdown();
}

int main(void)
{
	session("eager");
	session("dmda");
	return 0;
}
