/* test_sim_model.c — the simulation's cost model (issue 7): the runtime's
 * own overheads (STARPU_SIMGRID_*_COST), asking for simulation from code
 * (conf.vela_simulate), a platform file written by StarPU's
 * starpu_calibrate_bus, and trace records of simulated transfers.
 *
 * As in test_sim.c, each case runs a scenario in a child process
 * (sim_child.h) whose overhead costs are 0 unless the case sets them, and
 * asserts exact simulated times.
 */
#define _GNU_SOURCE
#include "vtest.h"
#include "sim_child.h"
#include "trace_reader.h"

#include <starpu.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>

#define TASK_US 10.0
#define GPU_TASK_US 500.0

/* ------------------------------------------------------------------ */
/* The child's scenarios. */

static int executed;

static void kernel(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	__atomic_fetch_add(&executed, 1, __ATOMIC_RELAXED);
}

static double cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	(void) task;
	(void) nimpl;
	return arch->devices[0].type == STARPU_CPU_WORKER ? TASK_US : GPU_TASK_US;
}

static struct starpu_perfmodel model = { .type = STARPU_PER_ARCH, .arch_cost_function = cost };
static struct starpu_codelet cl0 = { .cpu_funcs = { kernel }, .nbuffers = 0, .model = &model, .name = "cl0" };
static struct starpu_codelet cl2 = {
	.cpu_funcs = { kernel },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_RW },
	.model = &model,
	.name = "cl2",
};
static struct starpu_codelet gpu_cl = {
	.where = STARPU_CUDA,
	.cuda_funcs = { vela_sim_placeholder },
	/* Queued asynchronously: the only kernels whose queueing costs
	 * (STARPU_SIMGRID_CUDA_QUEUE_COST, as in StarPU's simulation). */
	.cuda_flags = { STARPU_CUDA_ASYNC },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.model = &model,
	.name = "gpu",
};

/* The same kernel, synchronous: the worker waits for it. */
static struct starpu_codelet gpu_sync_cl = {
	.where = STARPU_CUDA,
	.cuda_funcs = { vela_sim_placeholder },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.model = &model,
	.name = "gpu_sync",
};

static int env_int(const char *name, int def)
{
	const char *s = getenv(name);
	return s ? atoi(s) : def;
}

/* n tasks of cl (chain: each depends on the one before, through tags),
 * on h when cl has buffers; the simulated (or real) time they took. */
static int run_tasks(struct starpu_codelet *cl, int n, int chain, starpu_data_handle_t *h, double *makespan)
{
	static starpu_tag_t base = 1000;
	double t0 = starpu_timing_now();
	int ret = 0;
	for (int i = 0; i < n && !ret; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = cl;
		for (unsigned b = 0; b < cl->nbuffers; b++)
			t->handles[b] = h[b];
		if (chain)
		{
			t->use_tag = 1;
			t->tag_id = base + (starpu_tag_t) i;
			if (i > 0)
				starpu_tag_declare_deps(t->tag_id, 1, t->tag_id - 1);
		}
		ret = starpu_task_submit(t);
	}
	starpu_task_wait_for_all();
	*makespan = starpu_timing_now() - t0;
	base += (starpu_tag_t) n;
	return ret;
}

/* One 1 MB vector on CUDA0 (worker 0 of the 2cuda platforms), then back
 * to RAM at unregistration. */
static int gpu_round_trip(double *makespan)
{
	const uint32_t elems = 125000;
	double *v = calloc(elems, sizeof(double));
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, elems, sizeof(double));
	double t0 = starpu_timing_now();
	struct starpu_task *t = starpu_task_create();
	t->cl = &gpu_cl;
	t->handles[0] = h;
	t->execute_on_a_specific_worker = 1;
	t->workerid = 0;
	int ret = starpu_task_submit(t);
	starpu_task_wait_for_all();
	*makespan = starpu_timing_now() - t0;
	starpu_data_unregister(h);
	printf("unregistered=%.17g\n", starpu_timing_now() - t0);
	free(v);
	return ret;
}

/* n independent tasks of cl on CUDA0, each on a 1 MB vector of its own:
 * the time until the last ends. */
static int gpu_independent(struct starpu_codelet *cl, int n, double *makespan)
{
	const uint32_t elems = 125000;
	starpu_data_handle_t h[8];
	double *v[8];
	if (n > 8)
		n = 8;
	for (int i = 0; i < n; i++)
	{
		v[i] = calloc(elems, sizeof(double));
		starpu_vector_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) v[i], elems, sizeof(double));
	}
	double t0 = starpu_timing_now();
	int ret = 0;
	for (int i = 0; i < n && !ret; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = cl;
		t->handles[0] = h[i];
		t->execute_on_a_specific_worker = 1;
		t->workerid = 0;
		ret = starpu_task_submit(t);
	}
	starpu_task_wait_for_all();
	*makespan = starpu_timing_now() - t0;
	for (int i = 0; i < n; i++)
	{
		starpu_data_unregister(h[i]);
		free(v[i]);
	}
	return ret;
}

/* An asynchronous kernel without data (500 us) on CUDA0, two 1 MB vectors
 * prefetched there meanwhile, then a task on a third: the time until it
 * ends. */
static struct starpu_codelet gpu0_cl = {
	.where = STARPU_CUDA,
	.cuda_funcs = { vela_sim_placeholder },
	.cuda_flags = { STARPU_CUDA_ASYNC },
	.nbuffers = 0,
	.model = &model,
	.name = "gpu0",
};

/* Two kernels on one 1 MB vector on CUDA0, queued together; 1220.7 us in,
 * while the first runs, the main thread fetches another 1 MB vector to
 * CUDA0 and prints when that copy ended ("fetched"). */
static int gpu_engine(double *makespan)
{
	const uint32_t elems = 125000;
	double *v = calloc(elems, sizeof(double)), *u = calloc(elems, sizeof(double));
	starpu_data_handle_t h, g;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, elems, sizeof(double));
	starpu_vector_data_register(&g, STARPU_MAIN_RAM, (uintptr_t) u, elems, sizeof(double));
	double t0 = starpu_timing_now();
	int ret = 0;
	for (int i = 0; i < 2 && !ret; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &gpu_cl;
		t->handles[0] = h;
		t->execute_on_a_specific_worker = 1;
		t->workerid = 0;
		ret = starpu_task_submit(t);
	}
	starpu_sleep(0x1.4p-10f);	/* 1220.703125 us, exact in a float */
	if (!ret)
		ret = starpu_data_fetch_on_node(g, starpu_worker_get_memory_node(0), 0);
	printf("fetched=%.17g\n", starpu_timing_now() - t0);
	starpu_task_wait_for_all();
	*makespan = starpu_timing_now() - t0;
	starpu_data_unregister(h);
	starpu_data_unregister(g);
	free(v);
	free(u);
	return ret;
}

static int gpu_behind_prefetches(double *makespan)
{
	const uint32_t elems = 125000;
	starpu_data_handle_t h[3];
	double *v[3];
	for (int i = 0; i < 3; i++)
	{
		v[i] = calloc(elems, sizeof(double));
		starpu_vector_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) v[i], elems, sizeof(double));
	}
	double t0 = starpu_timing_now();
	struct starpu_task *t = starpu_task_create();
	t->cl = &gpu0_cl;
	t->execute_on_a_specific_worker = 1;
	t->workerid = 0;
	int ret = starpu_task_submit(t);
	unsigned node = starpu_worker_get_memory_node(0);
	for (int i = 0; i < 2 && !ret; i++)
		ret = starpu_data_prefetch_on_node(h[i], node, 1);
	if (!ret)
	{
		t = starpu_task_create();
		t->cl = &gpu_cl;
		t->handles[0] = h[2];
		t->execute_on_a_specific_worker = 1;
		t->workerid = 0;
		ret = starpu_task_submit(t);
	}
	starpu_task_wait_for_all();
	*makespan = starpu_timing_now() - t0;
	for (int i = 0; i < 3; i++)
	{
		starpu_data_unregister(h[i]);
		free(v[i]);
	}
	return ret;
}

static int child_main(const char *scenario)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	if (!strcmp(scenario, "conf-switch"))
	{
		/* A real run asked for in code, then a simulated one. */
		double real;
		conf.vela_simulate = 0;
		if (starpu_init(&conf))
			return 3;
		int ret = run_tasks(&cl0, 8, 0, NULL, &real);
		printf("first_simulated=%d first_executed=%d\n", vela_is_simulated(), executed);
		starpu_shutdown();
		if (ret)
			return 4;
		executed = 0;
		conf.vela_simulate = 1;
	}
	else if (!strcmp(scenario, "conf-real"))
		conf.vela_simulate = 0;
	else if (!strcmp(scenario, "conf-bad"))
		conf.vela_simulate = 2;
	int ret = starpu_init(&conf);
	printf("ret=%d\n", ret);
	if (ret)
		return 0;
	double makespan = 0.0;
	int n = env_int("VTEST_SIM_N", 10);
	if (!strcmp(scenario, "chain") || !strcmp(scenario, "indep") || !strcmp(scenario, "conf-switch") ||
	    !strcmp(scenario, "conf-real") || !strcmp(scenario, "run"))
		ret = run_tasks(&cl0, n, !strcmp(scenario, "chain"), NULL, &makespan);
	else if (!strcmp(scenario, "data"))
	{
		float a[16], b[16];
		starpu_data_handle_t h[2];
		starpu_vector_data_register(&h[0], STARPU_MAIN_RAM, (uintptr_t) a, 16, sizeof(float));
		starpu_vector_data_register(&h[1], STARPU_MAIN_RAM, (uintptr_t) b, 16, sizeof(float));
		ret = run_tasks(&cl2, n, 0, h, &makespan);	/* a chain through the data */
		starpu_data_unregister(h[0]);
		starpu_data_unregister(h[1]);
	}
	else if (!strcmp(scenario, "gpu"))
		ret = gpu_round_trip(&makespan);
	else if (!strcmp(scenario, "gpu-fifo"))
		ret = gpu_behind_prefetches(&makespan);
	else if (!strcmp(scenario, "gpu-engine"))
		ret = gpu_engine(&makespan);
	else if (!strcmp(scenario, "gpu-async") || !strcmp(scenario, "gpu-sync"))
		ret = gpu_independent(!strcmp(scenario, "gpu-async") ? &gpu_cl : &gpu_sync_cl, n, &makespan);
	printf("sim=%d nworkers=%u makespan=%.17g executed=%d submit=%d\n", vela_is_simulated(),
	       starpu_worker_get_count(), makespan, executed, ret);
	starpu_shutdown();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Overhead costs. */

#define ONE_CPU "STARPU_SIMGRID=1", "STARPU_NCPU=1"

/* A chain of N tasks on one worker, each lasting D = 10 us: with a
 * submission cost S and a scheduling cost P (charged to the thread that
 * pushes the task: the submitter for the first, then the worker that ends
 * its predecessor and releases it), task i is submitted at (i + 1) S and,
 * S being smaller than P + D, is pushed P after task i - 1 ends and starts
 * then: the makespan is S + N (P + D), S + N P more than without costs. */
static void test_costs_chain(void)
{
	NEED_SIMGRID();
	const char *none[] = { ONE_CPU, "VTEST_SIM_N=50", NULL };
	const char *costs[] = { ONE_CPU, "VTEST_SIM_N=50", "STARPU_SIMGRID_TASK_SUBMIT_COST=3",
				"STARPU_SIMGRID_SCHED_COST=2", NULL };
	struct child a, b;
	run_child("chain", none, &a);
	run_child("chain", costs, &b);
	CU_ASSERT(exited_ok(&a) && exited_ok(&b));
	CU_ASSERT_EQUAL(b.ret, 0);
	CU_ASSERT_EQUAL(b.submit, 0);
	CU_ASSERT(close_to(a.makespan, 50 * TASK_US));
	CU_ASSERT(close_to(b.makespan, 3 + 50 * (2 + TASK_US)));
	CU_ASSERT(close_to(b.makespan - a.makespan, 3 + 50 * 2));
}

/* Submission slower than execution: independent tasks start as they are
 * submitted and pushed, the submitting thread paying S = 20 us and P = 0.5
 * us for each (the pusher pays the push, as in StarPU's simulation); the
 * last starts at 10 (S + P) and ends D later. */
static void test_costs_submit_bound(void)
{
	NEED_SIMGRID();
	const char *env[] = { ONE_CPU, "VTEST_SIM_N=10", "STARPU_SIMGRID_TASK_SUBMIT_COST=20",
			      "STARPU_SIMGRID_SCHED_COST=0.5", NULL };
	struct child c;
	run_child("indep", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT(close_to(c.makespan, 10 * (20 + 0.5) + TASK_US));
}

/* The input fetch costs F per datum: a chain (through two RW vectors) of
 * N tasks with two data each takes N (2 F + D). */
static void test_costs_fetch(void)
{
	NEED_SIMGRID();
	const char *env[] = { ONE_CPU, "VTEST_SIM_N=20", "STARPU_SIMGRID_FETCHING_INPUT_COST=1.5", NULL };
	struct child c;
	run_child("data", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.submit, 0);
	CU_ASSERT(close_to(c.makespan, 20 * (2 * 1.5 + TASK_US)));
}

/* A task on CUDA0 (2cuda platform) reading a 1 MB vector from RAM: the
 * device allocation (M), the copy's set-up (T), the copy (1010 us), the
 * kernel's queueing (Q) and the kernel (500 us), one after the other. */
#define GPU_PLATFORM "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/2cuda.platform.v4.xml"

static void test_costs_device(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "STARPU_SIMGRID_CUDA_MALLOC_COST=11",
			      "STARPU_SIMGRID_TRANSFER_COST=7", "STARPU_SIMGRID_CUDA_QUEUE_COST=13", NULL };
	struct child c;
	run_child("gpu", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT(close_to(c.makespan, 11 + 7 + 1010 + 13 + GPU_TASK_US));
	/* Unregistering copies it back: one more set-up and copy. */
	CU_ASSERT(close_to(out_num(&c, "unregistered"), 11 + 7 + 1010 + 13 + GPU_TASK_US + 7 + 1010));
}

/* Three independent tasks on CUDA0, each reading a 1 MB vector of its own
 * (a 1010 us copy) then running 500 us. Asynchronous kernels are queued
 * and the worker fetches the next task's data while the kernel runs, up
 * to STARPU_CUDA_PIPELINE tasks in flight (default 2), as the real CUDA
 * worker does: the copies follow one another and only the last kernel is
 * not hidden, 3 x 1010 + 500. Without a pipeline (0), or for a
 * synchronous codelet, each task's copy and kernel follow one another:
 * 3 x (1010 + 500). */
static void test_gpu_pipeline(void)
{
	NEED_SIMGRID();
	const char *dflt[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "VTEST_SIM_N=3", "STARPU_CUDA_PIPELINE", NULL };
	const char *off[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "VTEST_SIM_N=3", "STARPU_CUDA_PIPELINE=0", NULL };
	const char *bad[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "VTEST_SIM_N=3", "STARPU_CUDA_PIPELINE=x", NULL };
	struct child a, s, o, b;
	run_child("gpu-async", dflt, &a);
	run_child("gpu-sync", dflt, &s);
	run_child("gpu-async", off, &o);
	run_child("gpu-async", bad, &b);
	CU_ASSERT(exited_ok(&a) && exited_ok(&s) && exited_ok(&o) && exited_ok(&b));
	CU_ASSERT(a.ret == 0 && s.ret == 0 && o.ret == 0);
	CU_ASSERT(a.submit == 0 && s.submit == 0 && o.submit == 0);
	CU_ASSERT(close_to(a.makespan, 3 * 1010 + GPU_TASK_US));
	CU_ASSERT(close_to(s.makespan, 3 * (1010 + GPU_TASK_US)));
	CU_ASSERT(close_to(o.makespan, 3 * (1010 + GPU_TASK_US)));
	/* A malformed depth: starpu_init refuses it, naming the variable. */
	CU_ASSERT_EQUAL(b.ret, -EINVAL);
	CU_ASSERT(strstr(b.err, "STARPU_CUDA_PIPELINE='x'") != NULL);
}

/* A device's copies from RAM run in the order its worker started them,
 * as on a real device's copy stream: while a first kernel runs, two
 * prefetches (1010 us each) are started; the next task's own copy comes
 * after both, then its kernel: 3 x 1010 + 500. With VELA_SIM_COPY_FIFO=0
 * (StarPU's simulation) the node's two transfer threads set both
 * prefetches up at once (StarPU's device worker sets up every prefetch
 * released in one pass), so the task's copy is also third: 3 x 1010 + 500.
 * With set-up costs (allocation M = 11, copy set-up T = 7): the first
 * prefetch and the task's copy pay them, the second prefetch, taken as
 * soon as the first ended, was set up while it copied (a real worker
 * queues it on the stream meanwhile): 3 x 1010 + 500 + 2 (M + T). With
 * VELA_SIM_COPY_FIFO=0 every copy pays them, one set-up at a time on the
 * device's driver thread (data/memory.h), the device's own worker first
 * (a GPU worker handles its task's fetch before the prefetches queued):
 * the first prefetch's allocation runs (M), then the task's allocation
 * and copy set-up (M + T), so the task's copy starts at 2 M + T, before
 * both prefetches': 2 M + T + 1010 + 500.
 * A malformed value: starpu_init refuses it, naming the variable. */
static void test_gpu_copy_order(void)
{
	NEED_SIMGRID();
	const char *fifo[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "VELA_SIM_COPY_FIFO", NULL };
	const char *over[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "VELA_SIM_COPY_FIFO=0", NULL };
	const char *bad[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "VELA_SIM_COPY_FIFO=yes", NULL };
	const char *fifo_costs[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "VELA_SIM_COPY_FIFO",
				     "STARPU_SIMGRID_CUDA_MALLOC_COST=11", "STARPU_SIMGRID_TRANSFER_COST=7", NULL };
	const char *over_costs[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "VELA_SIM_COPY_FIFO=0",
				     "STARPU_SIMGRID_CUDA_MALLOC_COST=11", "STARPU_SIMGRID_TRANSFER_COST=7", NULL };
	struct child f, o, b, fc, oc;
	run_child("gpu-fifo", fifo, &f);
	run_child("gpu-fifo", over, &o);
	run_child("gpu-fifo", bad, &b);
	run_child("gpu-fifo", fifo_costs, &fc);
	run_child("gpu-fifo", over_costs, &oc);
	CU_ASSERT(exited_ok(&fc) && exited_ok(&oc) && fc.ret == 0 && oc.ret == 0);
	CU_ASSERT(close_to(fc.makespan, 3 * 1010 + GPU_TASK_US + 2 * (11 + 7)));
	CU_ASSERT(close_to(oc.makespan, 2 * 11 + 7 + 1010 + GPU_TASK_US));
	CU_ASSERT(exited_ok(&f) && exited_ok(&o) && exited_ok(&b));
	CU_ASSERT(f.ret == 0 && o.ret == 0 && f.submit == 0 && o.submit == 0);
	CU_ASSERT(close_to(f.makespan, 3 * 1010 + GPU_TASK_US));
	CU_ASSERT(close_to(o.makespan, 3 * 1010 + GPU_TASK_US));
	CU_ASSERT_EQUAL(b.ret, -EINVAL);
	CU_ASSERT(strstr(b.err, "VELA_SIM_COPY_FIFO='yes'") != NULL);
}

/* A device's allocation cost from the platform (what `vela calibrate-bus`
 * measured there): CUDA0 given malloc_cost_us=3 and
 * malloc_cost_us_per_mib=8, the 1 MB vector's allocation costs
 * 3 + 8 x 10^6 / 2^20 us; STARPU_SIMGRID_CUDA_MALLOC_COST, when set,
 * still wins. */
/* Writes a copy of the 2cuda platform whose CUDA0 host has the lines
 * props added, into path (a mkstemp template); 0 or -1. */
static int platform_with(char *path, const char *props)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	FILE *in = fopen(VTEST_SIM_DATA "/2cuda.platform.v4.xml", "r"), *out = fdopen(fd, "w");
	if (!in || !out)
		return -1;
	char line[512];
	int added = 0;
	while (fgets(line, sizeof(line), in))
	{
		fputs(line, out);
		if (strstr(line, "<host id=\"CUDA0\""))
		{
			fputs(props, out);
			added = 1;
		}
	}
	fclose(in);
	fclose(out);
	return added ? 0 : -1;
}

static void test_costs_platform_malloc(void)
{
	NEED_SIMGRID();
	char path[] = "/tmp/vtest_sim_platXXXXXX";
	CU_ASSERT_FATAL(platform_with(path, "      <prop id=\"malloc_cost_us\" value=\"3\"/>\n"
					    "      <prop id=\"malloc_cost_us_per_mib\" value=\"8\"/>\n") == 0);
	char plat[600];
	snprintf(plat, sizeof(plat), "STARPU_SIMGRID_PLATFORM=%s", path);
	const char *measured[] = { "STARPU_SIMGRID=1", plat, "STARPU_SIMGRID_CUDA_MALLOC_COST", NULL };
	const char *forced[] = { "STARPU_SIMGRID=1", plat, "STARPU_SIMGRID_CUDA_MALLOC_COST=11", NULL };
	struct child m, f;
	run_child("gpu", measured, &m);
	run_child("gpu", forced, &f);
	unlink(path);
	CU_ASSERT(exited_ok(&m) && exited_ok(&f));
	CU_ASSERT(m.ret == 0 && f.ret == 0);
	CU_ASSERT(close_to(m.makespan, 3 + 8 * 1e6 / 1048576.0 + 1010 + GPU_TASK_US));
	CU_ASSERT(close_to(f.makespan, 11 + 1010 + GPU_TASK_US));
}

/* A device whose copies run on the engine of its kernels (PoCL's CPU
 * device; calibrate-bus writes copies_on_compute=1 on its host): the
 * three independent tasks of test_gpu_pipeline no longer overlap their
 * copies (1010 us) with the kernels (500 us): 3 x (1010 + 500), against
 * 3 x 1010 + 500 on the same platform without the property. A copy
 * queued while a kernel runs goes before the kernels queued behind it
 * (gpu-engine: kernels A and B of 500 us queued at 1010 us, a fetch from
 * the main thread at 1220.7 us runs from A's end, 1510, to 2520, and B
 * from 2520 to 3020; without the property the fetch runs from 1220.7 to
 * 2230.7, beside the kernels).
 * first_copy_us_per_mib=100: the first copy into a fresh allocation lasts
 * 100 us per MiB more (1 MB: 95.37 us); the copy back to RAM, into the
 * application's buffer, does not. */
static void test_device_engine_first_copy(void)
{
	NEED_SIMGRID();
	char shared[] = "/tmp/vtest_sim_platXXXXXX", first[] = "/tmp/vtest_sim_platXXXXXX";
	CU_ASSERT_FATAL(platform_with(shared, "      <prop id=\"copies_on_compute\" value=\"1\"/>\n") == 0);
	CU_ASSERT_FATAL(platform_with(first, "      <prop id=\"first_copy_us_per_mib\" value=\"100\"/>\n") == 0);
	char ps[600], pf[600];
	snprintf(ps, sizeof(ps), "STARPU_SIMGRID_PLATFORM=%s", shared);
	snprintf(pf, sizeof(pf), "STARPU_SIMGRID_PLATFORM=%s", first);
	const char *env_shared[] = { "STARPU_SIMGRID=1", ps, "VTEST_SIM_N=3", NULL };
	const char *env_plain[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "VTEST_SIM_N=3", NULL };
	const char *env_first[] = { "STARPU_SIMGRID=1", pf, NULL };
	const char *env_eshared[] = { "STARPU_SIMGRID=1", ps, NULL };
	const char *env_eplain[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, NULL };
	struct child s, p, f, es, ep;
	run_child("gpu-async", env_shared, &s);
	run_child("gpu-async", env_plain, &p);
	run_child("gpu", env_first, &f);
	run_child("gpu-engine", env_eshared, &es);
	run_child("gpu-engine", env_eplain, &ep);
	unlink(shared);
	unlink(first);
	CU_ASSERT(exited_ok(&s) && exited_ok(&p) && exited_ok(&f) && exited_ok(&es) && exited_ok(&ep));
	CU_ASSERT(s.ret == 0 && p.ret == 0 && f.ret == 0 && es.ret == 0 && ep.ret == 0);
	CU_ASSERT(close_to(out_num(&es, "fetched"), 1010 + GPU_TASK_US + 1010));
	CU_ASSERT(close_to(es.makespan, 1010 + GPU_TASK_US + 1010 + GPU_TASK_US));
	CU_ASSERT(close_to(out_num(&ep, "fetched"), 1220.703125 + 1010));
	CU_ASSERT(close_to(ep.makespan, 1220.703125 + 1010));	/* B was over at 2010 */
	CU_ASSERT(close_to(s.makespan, 3 * (1010 + GPU_TASK_US)));
	CU_ASSERT(close_to(p.makespan, 3 * 1010 + GPU_TASK_US));
	double extra = 100 * 1e6 / 1048576.0;
	CU_ASSERT(close_to(f.makespan, 1010 + extra + GPU_TASK_US));
	CU_ASSERT(close_to(out_num(&f, "unregistered"), 1010 + extra + GPU_TASK_US + 1010));
}

/* The defaults (sim/README.md) are not zero: the same chain takes longer
 * than without costs, by what the defaults say (0.21 us per submission,
 * 0.21 us per scheduling). */
static void test_costs_defaults(void)
{
	NEED_SIMGRID();
	const char *env[] = { ONE_CPU, "VTEST_SIM_N=50", "STARPU_SIMGRID_TASK_SUBMIT_COST",
			      "STARPU_SIMGRID_SCHED_COST", NULL };
	struct child c;
	run_child("chain", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT(close_to(c.makespan, 0.21 + 50 * (0.21 + TASK_US)));
}

/* Bad costs: starpu_init fails with -EINVAL naming the variable, in
 * both boots; a real run does not read them. */
static void test_costs_bad(void)
{
	NEED_SIMGRID();
	const char *const bad[] = { "STARPU_SIMGRID_SCHED_COST=-1", "STARPU_SIMGRID_TASK_SUBMIT_COST=fast",
				    "STARPU_SIMGRID_FETCHING_INPUT_COST=nan", "STARPU_SIMGRID_TRANSFER_COST=inf",
				    "STARPU_SIMGRID_CUDA_MALLOC_COST=", "STARPU_SIMGRID_CUDA_QUEUE_COST=1us" };
	const char *boots[] = { "VELA_SIM_BOOT=hijack", "VELA_SIM_BOOT=attach" };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		const char *env[] = { "STARPU_SIMGRID=1", boots[i % 2], bad[i], NULL };
		struct child c;
		run_child("run", env, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -EINVAL);
		char want[128];
		const char *eq = strchr(bad[i], '=');
		snprintf(want, sizeof(want), "%.*s='%s'", (int) (eq - bad[i]), bad[i], eq + 1);
		if (!strstr(c.err, want))
			fprintf(stderr, "want '%s' in the error\n", want);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, want));
	}
	const char *real[] = { "STARPU_SIMGRID", "STARPU_SIMGRID_SCHED_COST=-1", NULL };
	struct child c;
	run_child("run", real, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 0);
	CU_ASSERT_EQUAL(c.executed, 10);
}

/* ------------------------------------------------------------------ */
/* conf.vela_simulate. */

/* One process: a real run (conf.vela_simulate = 0), shutdown, then a
 * simulated one asked for in code (1), without STARPU_SIMGRID. */
static void test_conf_switch(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID", "VTEST_SIM_N=41", NULL };
	struct child c;
	run_child("conf-switch", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(out_num(&c, "first_simulated"), 0);
	CU_ASSERT_EQUAL(out_num(&c, "first_executed"), 8);
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 1);
	CU_ASSERT_EQUAL(c.nworkers, 4);
	CU_ASSERT_EQUAL(c.executed, 0);
	CU_ASSERT(close_to(c.makespan, 11 * TASK_US));	/* ceil(41 / 4) tasks per worker */
}

/* conf wins over STARPU_SIMGRID set only before starpu_init; it cannot
 * leave a simulation the process started in; out of range is -EINVAL. */
static void test_conf_switch_bad(void)
{
	NEED_SIMGRID();
	const char *attach[] = { "STARPU_SIMGRID=1", "VELA_SIM_BOOT=attach", NULL };
	struct child c;
	run_child("conf-real", attach, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 0);
	CU_ASSERT_EQUAL(c.executed, 10);

	const char *hijack[] = { "STARPU_SIMGRID=1", NULL };
	run_child("conf-real", hijack, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "conf.vela_simulate=0"));

	const char *none[] = { "STARPU_SIMGRID", NULL };
	run_child("conf-bad", none, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "conf.vela_simulate=2"));
}

/* ------------------------------------------------------------------ */
/* A platform written by StarPU 1.3's starpu_calibrate_bus (Debian's
 * starpu-tools, on the 2-core VM this was developed on: host "vm"), named
 * explicitly or found where StarPU keeps it ($STARPU_HOME/.starpu/sampling/
 * bus/<host>.platform.v4.xml). Its CPU0 and CPU1 hosts are the workers;
 * its links and routes are empty (no device), which is fine. */
static void test_starpu_platform(void)
{
	NEED_SIMGRID();
	const char *named[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=10",
				"STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/starpu-vm.platform.v4.xml", NULL };
	struct child c;
	run_child("run", named, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 1);
	CU_ASSERT_EQUAL(c.nworkers, 2);
	CU_ASSERT(close_to(c.makespan, 5 * TASK_US));

	/* The SimGrid v3 file StarPU writes beside it does not load in SimGrid
	 * 3.32: a clear error, with file:line and the way out. */
	const char *v3[] = { "STARPU_SIMGRID=1", "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/starpu-vm.platform.xml", NULL };
	run_child("run", v3, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "starpu-vm.platform.xml:2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "use the <host>.platform.v4.xml"));

	char home[] = "/tmp/vtest_sim_spXXXXXX", cmd[512], home_env[64];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(home));
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/.starpu/sampling/bus && cp %s/starpu-vm.platform.v4.xml "
		 "%s/.starpu/sampling/bus/vm.platform.v4.xml", home, VTEST_SIM_DATA, home);
	CU_ASSERT_EQUAL(system(cmd), 0);
	snprintf(home_env, sizeof(home_env), "STARPU_HOME=%s", home);
	const char *found[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=10", "STARPU_SIMGRID_PLATFORM", "STARPU_HOSTNAME=vm",
				home_env, NULL };
	run_child("run", found, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.nworkers, 2);
	CU_ASSERT(close_to(c.makespan, 5 * TASK_US));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* ------------------------------------------------------------------ */
/* Trace records of simulated transfers. */

/* The one trace file in dir, loaded into t: 0, or -1. */
static int load_trace(const char *dir, struct trace *t)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char path[512] = "";
	struct dirent *e;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "vela_trace_", 11))
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
	closedir(d);
	char err[256];
	if (!path[0] || trace_load(path, t, err, sizeof(err)))
	{
		fprintf(stderr, "no trace in %s: %s\n", dir, path[0] ? err : "no file");
		return -1;
	}
	return 0;
}

/* The round trip of test_costs_device recorded (STARPU_FXT_TRACE=1): each
 * transfer is recorded at its completion with its simulated start and end,
 * which differ by latency + bytes / bandwidth (10 us + 1 MB at 1 GB/s);
 * a copy's set-up cost (T) comes before its start. */
static void run_traced(const char *transfer_cost, double t)
{
	char dir[] = "/tmp/vtest_sim_traceXXXXXX", prefix[64], cmd[128];
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "STARPU_FXT_PREFIX=%s", dir);
	const char *env[] = { "STARPU_SIMGRID=1", GPU_PLATFORM, "STARPU_FXT_TRACE=1", prefix, transfer_cost, NULL };
	struct child c;
	run_child("gpu", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	struct trace tr;
	if (load_trace(dir, &tr) == 0)
	{
		if (tr.ntransfers != 2)
			for (unsigned i = 0; i < tr.ntransfers; i++)
				fprintf(stderr, "transfer %u: %u -> %u, %llu bytes, [%llu, %llu] ns\n", i, tr.transfers[i].src,
					tr.transfers[i].dst, (unsigned long long) tr.transfers[i].bytes,
					(unsigned long long) tr.transfers[i].start, (unsigned long long) tr.transfers[i].end);
		CU_ASSERT_EQUAL(tr.ntransfers, 2);
		if (tr.ntransfers == 2)
		{
			/* ns; the first copy starts at t (its set-up), the
			 * second after the task, at t + 1010 + 500 + t. */
			const struct tr_transfer *in = &tr.transfers[0], *out = &tr.transfers[1];
			CU_ASSERT_EQUAL(in->src, 0);
			CU_ASSERT_EQUAL(in->dst, 1);
			CU_ASSERT_EQUAL(in->bytes, 1000000);
			CU_ASSERT(llabs((long long) in->start - (long long) (t * 1e3)) <= 1);
			CU_ASSERT(llabs((long long) in->end - (long long) ((t + 1010) * 1e3)) <= 1);
			CU_ASSERT_EQUAL(out->src, 1);
			CU_ASSERT_EQUAL(out->dst, 0);
			CU_ASSERT(llabs((long long) out->start - (long long) ((2 * t + 1510) * 1e3)) <= 1);
			CU_ASSERT(llabs((long long) out->end - (long long) ((2 * t + 2520) * 1e3)) <= 1);
			/* Within the observers' clock offset (1 ns: a stamp is
			 * never 0, runtime/trace/trace.h). */
			CU_ASSERT(llabs((long long) (out->end - out->start) - (long long) (in->end - in->start)) <= 1);
		}
		trace_free(&tr);
	}
	else
		CU_FAIL("no trace recorded");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_trace_transfers(void)
{
	NEED_SIMGRID();
	run_traced("STARPU_SIMGRID_TRANSFER_COST=0", 0.0);
	run_traced("STARPU_SIMGRID_TRANSFER_COST=5", 5.0);
}

static const struct vtest_case cases[] = {
	{ "submit and sched costs: a chain of tasks", test_costs_chain },
	{ "submit cost bounds independent tasks", test_costs_submit_bound },
	{ "input fetch cost per datum", test_costs_fetch },
	{ "device costs: allocation, copy set-up, queueing", test_costs_device },
	{ "default costs", test_costs_defaults },
	{ "GPU pipeline: asynchronous kernels overlap the next copies", test_gpu_pipeline },
	{ "device allocation cost from the platform", test_costs_platform_malloc },
	{ "copies on the kernels' engine, first copies into fresh buffers", test_device_engine_first_copy },
	{ "a device's copies in the order started", test_gpu_copy_order },
	{ "bad cost values", test_costs_bad },
	{ "conf.vela_simulate: real, then simulated", test_conf_switch },
	{ "conf.vela_simulate: precedence and bad values", test_conf_switch_bad },
	{ "platform written by StarPU's starpu_calibrate_bus", test_starpu_platform },
	{ "traced simulated transfers: start and end", test_trace_transfers },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "simulation cost model", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return sim_test_main(argc, argv, suites, child_main);
}
