/* test_sim_gpu.c — simulated GPUs (issue 7, second part): workers, memory
 * nodes and transfers from a platform file, golden schedules, device
 * capacity and limits, device to device copies, bad input.
 *
 * As in test_sim.c (sim_child.h), each case re-executes this program with
 * a chosen environment and a scenario in VTEST_SIM_CHILD, and checks what
 * the child printed; simulated times are deterministic and asserted
 * exactly.
 */
#define _GNU_SOURCE
#include "vtest.h"
#include "sim_child.h"

#include <starpu.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* The child's scenarios. */

static void kernel(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

/* ---- GPU scenarios (data/2cuda.platform.v4.xml, models in data/models). */

/* A 1 MB vector takes 2000 us on a CPU core, 500 us on either GPU (the
 * hand-made model data/models/codelets/45/vtest_sim_scale.simtest). */
static struct starpu_perfmodel scale_model = { .type = STARPU_NL_REGRESSION_BASED, .symbol = "vtest_sim_scale" };
static struct starpu_codelet scale_cl = {
	.cpu_funcs = { kernel },
	.cuda_funcs = { vela_sim_placeholder },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.model = &scale_model,
	.name = "scale",
};
static struct starpu_codelet scale_gpu_cl = {
	.where = STARPU_CUDA,
	.cuda_funcs = { vela_sim_placeholder },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.model = &scale_model,
	.name = "scale_gpu",
};

static struct starpu_codelet read_gpu_cl = {
	.where = STARPU_CUDA,
	.cuda_funcs = { vela_sim_placeholder },
	.nbuffers = 1,
	.modes = { STARPU_R },
	.model = &scale_model,
	.name = "read_gpu",
};

#define MAX_TASKS 16
static int placed[MAX_TASKS];

static void record_worker(void *arg)
{
	placed[(intptr_t) arg] = starpu_worker_get_id();
}

static void print_topology(void)
{
	printf("nworkers=%u ncuda=%u ncpu=%u nnodes=%u\n", starpu_worker_get_count(), starpu_cuda_worker_get_count(),
	       starpu_cpu_worker_get_count(), starpu_memory_nodes_get_count());
	for (unsigned i = 0; i < starpu_worker_get_count(); i++)
	{
		char name[64], arch[64];
		starpu_worker_get_name((int) i, name, sizeof(name));
		starpu_perfmodel_get_arch_name(starpu_worker_get_perf_archtype((int) i, 0), arch, sizeof(arch), 0);
		printf("worker%u=%s node%u=%u arch%u=%s\n", i, name, i, starpu_worker_get_memory_node(i), i, arch);
	}
	for (unsigned n = 0; n < starpu_memory_nodes_get_count(); n++)
	{
		char name[64];
		starpu_memory_node_get_name(n, name, sizeof(name));
		printf("mem%u=%s kind%u=%d total%u=%zd\n", n, name, n, (int) starpu_node_get_kind(n), n,
		       starpu_memory_get_total(n));
	}
	if (starpu_memory_nodes_get_count() > 1)
		printf("predict01=%.17g bw01=%.17g lat01=%.17g predict12=%.17g\n", starpu_transfer_predict(0, 1, 1000000),
		       starpu_transfer_bandwidth(0, 1), starpu_transfer_latency(0, 1),
		       starpu_memory_nodes_get_count() > 2 ? starpu_transfer_predict(1, 2, 1000000) : -1.0);
}

struct copy_arg
{
	uintptr_t src, dst;
	unsigned src_node, dst_node;
	size_t size;
	double start, end;
	int ret;
};

static void do_copy(struct copy_arg *a)
{
	a->start = starpu_timing_now();
	a->ret = starpu_interface_copy(a->src, 0, a->src_node, a->dst, 0, a->dst_node, a->size, NULL);
	a->end = starpu_timing_now();
}

static void *copy_thread(void *arg)
{
	do_copy(arg);
	return NULL;
}

/* A buffer of size bytes on node: RAM's is real, a device's is not. */
static uintptr_t buffer_on(unsigned node, size_t size)
{
	return starpu_malloc_on_node(node, size);
}

/* Copies of 1 MB: one alone, then two at once (a second thread). */
static void copy_pair(const char *label, unsigned s1, unsigned d1, unsigned s2, unsigned d2)
{
	const size_t size = 1000000;
	struct copy_arg a = { buffer_on(s1, size), buffer_on(d1, size), s1, d1, size, 0, 0, 0 };
	if (s2 == d2)
	{
		do_copy(&a);
		printf("%s=%.17g ret_%s=%d\n", label, a.end - a.start, label, a.ret);
		return;
	}
	struct copy_arg b = { buffer_on(s2, size), buffer_on(d2, size), s2, d2, size, 0, 0, 0 };
	starpu_pthread_t th;
	starpu_pthread_create(&th, NULL, copy_thread, &b);
	do_copy(&a);
	starpu_pthread_join(th, NULL);
	printf("%s_a=%.17g %s_b=%.17g %s_start=%.17g ret_%s=%d\n", label, a.end - a.start, label, b.end - b.start,
	       label, b.start - a.start, label, a.ret | b.ret);
}

static int gpu_child(const char *scenario)
{
	int ret = starpu_init(NULL);
	printf("ret=%d\n", ret);
	if (ret)
		return 0;
	if (!strcmp(scenario, "topology"))
		print_topology();
	else if (!strcmp(scenario, "peer"))
	{
		/* A 1 MB vector written on CUDA0 (worker 0), then read on
		 * CUDA1 (worker 1): a device to device copy. */
		const uint32_t elems = 125000;
		double *v = calloc(elems, sizeof(double));
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, elems, sizeof(double));
		double t0 = starpu_timing_now();
		for (unsigned w = 0; w < 2 && !ret; w++)
		{
			struct starpu_task *t = starpu_task_create();
			t->cl = &scale_gpu_cl;
			t->handles[0] = h;
			t->execute_on_a_specific_worker = 1;
			t->workerid = w;
			ret = starpu_task_submit(t);
		}
		starpu_task_wait_for_all();
		printf("makespan=%.17g submit=%d predict12=%.17g\n", starpu_timing_now() - t0, ret,
		       starpu_transfer_predict(1, 2, elems * sizeof(double)));
		starpu_data_unregister(h);
		free(v);
	}
	else if (!strcmp(scenario, "shared"))
	{
		/* A 1 MB vector read on CUDA0 (copied from RAM: valid in RAM
		 * and on CUDA0), then, after that task, read on CUDA1: copied
		 * from whichever the bus predicts faster. */
		const uint32_t elems = 125000;
		double *v = calloc(elems, sizeof(double));
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, elems, sizeof(double));
		double t0 = starpu_timing_now();
		struct starpu_task *t[2];
		for (unsigned w = 0; w < 2; w++)
		{
			t[w] = starpu_task_create();
			t[w]->cl = &read_gpu_cl;
			t[w]->handles[0] = h;
			t[w]->execute_on_a_specific_worker = 1;
			t[w]->workerid = w;
		}
		starpu_task_declare_deps_array(t[1], 1, &t[0]);
		for (unsigned w = 0; w < 2 && !ret; w++)
			ret = starpu_task_submit(t[w]);
		starpu_task_wait_for_all();
		printf("makespan=%.17g submit=%d\n", starpu_timing_now() - t0, ret);
		starpu_data_unregister(h);
		free(v);
	}
	else if (!strcmp(scenario, "copy"))
	{
		copy_pair("one", 0, 1, 0, 0);		/* RAM -> CUDA0 */
		copy_pair("back", 1, 0, 0, 0);		/* CUDA0 -> RAM */
		copy_pair("peer", 1, 2, 0, 0);		/* CUDA0 -> CUDA1: two links */
		copy_pair("same", 0, 1, 0, 1);		/* both on link RAM-CUDA0 */
		copy_pair("diff", 0, 1, 0, 2);		/* RAM-CUDA0 and RAM-CUDA1 */
	}
	else
	{
		/* golden: ntasks independent tasks, each on its own vector of
		 * elems doubles; capacity: 6 tasks on 3 vectors, pinned to
		 * worker VTEST_SIM_WORKER. */
		int capacity = !strcmp(scenario, "capacity") || !strcmp(scenario, "toobig");
		int nvec = !strcmp(scenario, "toobig") ? 1 : capacity ? 3 : 6;
		int ntasks = !strcmp(scenario, "toobig") ? 1 : 6;
		size_t elems = !strcmp(scenario, "toobig") ? 625000 : capacity ? 187500 : 125000;
		int pin = getenv("VTEST_SIM_WORKER") ? atoi(getenv("VTEST_SIM_WORKER")) : -1;
		double *v[6];
		starpu_data_handle_t h[6];
		for (int i = 0; i < nvec; i++)
		{
			v[i] = malloc(elems * sizeof(double));
			for (size_t k = 0; k < elems; k++)
				v[i][k] = (double) (i + 1) + (double) k;
			starpu_vector_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) v[i], (uint32_t) elems, sizeof(double));
		}
		double t0 = starpu_timing_now();
		for (int i = 0; i < ntasks; i++)
		{
			struct starpu_task *t = starpu_task_create();
			t->cl = capacity ? &scale_gpu_cl : &scale_cl;
			t->handles[0] = h[i % nvec];
			t->callback_func = record_worker;
			t->callback_arg = (void *) (intptr_t) i;
			if (pin >= 0)
			{
				t->execute_on_a_specific_worker = 1;
				t->workerid = (unsigned) pin;
			}
			placed[i] = -1;
			if ((ret = starpu_task_submit(t)))
				break;
		}
		starpu_task_wait_for_all();
		double makespan = starpu_timing_now() - t0;
		/* Copies back to RAM so far (write-backs of evicted data). */
		struct starpu_profiling_bus_info info;
		memset(&info, 0, sizeof(info));
		if (pin >= 0)
			starpu_bus_get_profiling_info(starpu_bus_get_id((int) starpu_worker_get_memory_node((unsigned) pin), 0),
						      &info);
		printf("makespan=%.17g submit=%d writebacks=%d place=", makespan, ret, info.transfer_count);
		for (int i = 0; i < ntasks; i++)
			printf("%d%s", placed[i], i + 1 < ntasks ? "," : "\n");
		double sum = 0.0;
		for (int i = 0; i < nvec; i++)
		{
			starpu_data_unregister(h[i]);
			for (size_t k = 0; k < elems; k++)
				sum += v[i][k];
			free(v[i]);
		}
		printf("checksum=%.17g\n", sum);
	}
	starpu_shutdown();
	return 0;
}

static int child_main(const char *scenario)
{
	if (!strncmp(scenario, "gpu-", 4))
		return gpu_child(scenario + 4);
	if (!strcmp(scenario, "badconf"))
	{
		struct starpu_conf conf;
		starpu_conf_init(&conf);
		conf.ncuda = -2;
		int r1 = starpu_init(&conf);
		starpu_conf_init(&conf);
		conf.nopencl = STARPU_MAXOPENCLDEVS + 1;
		int r2 = starpu_init(&conf);
		printf("ncuda_ret=%d nopencl_ret=%d\n", r1, r2);
		return 0;
	}
	/* "run" (a platform refused at starpu_init), "placeholder". */
	int ret = starpu_init(NULL);
	printf("ret=%d\n", ret);
	if (ret)
		return 0;
	if (!strcmp(scenario, "placeholder"))
		vela_sim_placeholder(NULL, NULL);
	starpu_shutdown();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Simulated GPUs (issue 7, second part): data/2cuda.platform.v4.xml has
 * 4 CPU hosts, RAM, CUDA0 (4,000,000 bytes) and CUDA1 (16,000,000); every
 * link 1 GB/s and 10 us. Workers, as StarPU numbers them: 0 CUDA0 (memory
 * node 1), 1 CUDA1 (node 2), 2 CPU0, 3 CPU1 (node 0): one core per GPU is
 * reserved. The hand-made model data/models (host "simtest") gives a 1 MB
 * vector 2000 us on a core, 500 us on a GPU; a lone 1 MB copy between RAM
 * and a GPU takes 10 + 1000 = 1010 us. */

#define GPU_ENV "STARPU_SIMGRID=1", "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/2cuda.platform.v4.xml", \
	"STARPU_PERF_MODEL_DIR=" VTEST_SIM_DATA "/models", "STARPU_HOSTNAME=simtest"

static void test_gpu_topology(void)
{
	NEED_SIMGRID();
	const char *env[] = { GPU_ENV, NULL };
	struct child c;
	run_child("gpu-topology", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(out_num(&c, "nworkers"), 4);
	CU_ASSERT_EQUAL(out_num(&c, "ncuda"), 2);
	CU_ASSERT_EQUAL(out_num(&c, "ncpu"), 2);	/* 4 cores less one per GPU */
	CU_ASSERT_EQUAL(out_num(&c, "nnodes"), 3);
	CU_ASSERT_EQUAL(out_num(&c, "node0"), 1);
	CU_ASSERT_EQUAL(out_num(&c, "node1"), 2);
	CU_ASSERT_EQUAL(out_num(&c, "node2"), 0);
	CU_ASSERT_EQUAL(out_num(&c, "node3"), 0);
	expect_str(&c, "arch0", "cuda0_impl0");
	expect_str(&c, "arch1", "cuda1_impl0");
	expect_str(&c, "arch2", "cpu0_impl0");
	CU_ASSERT_EQUAL(out_num(&c, "kind1"), STARPU_CUDA_RAM);
	CU_ASSERT_EQUAL(out_num(&c, "total0"), 8589934592.0);	/* the platform's RAM */
	CU_ASSERT_EQUAL(out_num(&c, "total1"), 4000000);
	CU_ASSERT_EQUAL(out_num(&c, "total2"), 16000000);
	/* The bus model is the platform's (dmda's transfer estimates); as
	 * StarPU's, a prediction counts the time on the wire twice per GPU
	 * in use: 10 us + 1000 us x 2 x 2. */
	CU_ASSERT(close_to(out_num(&c, "bw01"), 1000.0));	/* MB/s */
	CU_ASSERT(close_to(out_num(&c, "lat01"), 10.0));	/* us */
	CU_ASSERT(close_to(out_num(&c, "predict01"), 4010.0));
	CU_ASSERT(close_to(out_num(&c, "predict12"), 4020.0));	/* two links */
}

/* (a) one copy lasts latency + bytes / bandwidth; (b) two copies started at
 * once between the same two nodes run one after the other (a DMA stream
 * per pair: sim/README.md): 1010 and 2020 us, while copies on different
 * links run together and do not slow each other down. */
static void test_gpu_transfers(void)
{
	NEED_SIMGRID();
	const char *env[] = { GPU_ENV, NULL };
	struct child c;
	run_child("gpu-copy", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT(close_to(out_num(&c, "one"), 1010.0));
	CU_ASSERT(close_to(out_num(&c, "back"), 1010.0));
	CU_ASSERT(close_to(out_num(&c, "peer"), 1020.0));	/* CUDA0-RAM then RAM-CUDA1: 20 us + 1000 us */
	double a = out_num(&c, "same_a"), b = out_num(&c, "same_b");
	CU_ASSERT((close_to(a, 1010.0) && close_to(b, 2020.0)) || (close_to(a, 2020.0) && close_to(b, 1010.0)));
	CU_ASSERT_EQUAL(out_num(&c, "same_start"), 0.0);	/* both were started at once */
	CU_ASSERT(close_to(out_num(&c, "diff_a"), 1010.0));
	CU_ASSERT(close_to(out_num(&c, "diff_b"), 1010.0));
	CU_ASSERT_EQUAL(out_num(&c, "ret_one") + out_num(&c, "ret_same") + out_num(&c, "ret_diff"), 0);
}

/* (c) Golden schedules: six independent tasks T0..T5, each on its own 1 MB
 * vector in RAM, all submitted at t = 0; "scale" has a CPU kernel and a
 * CUDA one (vela_sim_placeholder).
 *
 * dmda (alpha = beta = 1), as StarPU's: a copy of a vector to a GPU is
 * predicted 10 + 1000 x 2 x 2 = 4010 us (twice per GPU in use), counted
 * in the GPU's expected end (4010 + 500) and again in the fitness (beta),
 * so a CPU, 2000 us per task, always wins; ties go to the first worker.
 * The main actor submits all six before any worker runs (in simulation an
 * uncontended lock is not a SimGrid call), so pushed tasks stay queued.
 *   T0: CPU0 and CPU1 end at 2000, tie -> CPU0 (w2); T1: CPU1 (w3);
 *   T2: both end at 4000 -> CPU0; T3: CPU1; T4: CPU0; T5: CPU1.
 * Each CPU runs three tasks: makespan 6000 us.
 *
 * eager (one central queue, no prefetch): the four idle workers take T0..T3
 * as they are pushed, GPUs first (woken first): CUDA0 T0, CUDA1 T1, CPU0
 * T2, CPU1 T3. Each GPU fetches its vector itself, [0, 1010], and runs
 * [1010, 1510]; the CPUs run until 2000. At 1510 both GPUs take the last
 * two tasks (CUDA1 resumes first, taking T4: a tie between two actors
 * waking at the same date, decided by SimGrid's order), copy [1510, 2520]
 * and run [2520, 3020]. Makespan 3020 us. */
static void run_golden(const char *sched, struct child *c)
{
	char sched_env[64];
	snprintf(sched_env, sizeof(sched_env), "STARPU_SCHED=%s", sched);
	const char *env[] = { GPU_ENV, sched_env, NULL };
	run_child("gpu-golden", env, c);
}

static void test_gpu_golden(void)
{
	NEED_SIMGRID();
	struct child c;
	run_golden("dmda", &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(out_num(&c, "submit"), 0);
	CU_ASSERT(close_to(out_num(&c, "makespan"), 6000.0));
	expect_str(&c, "place", "2,3,2,3,2,3");

	run_golden("eager", &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT(close_to(out_num(&c, "makespan"), 3020.0));
	expect_str(&c, "place", "0,1,2,3,1,0");
	CU_ASSERT_PTR_NULL(strstr(c.err, "vela_sim_placeholder"));	/* never called */
}

/* (g) Same program, platform, models and scheduler: same makespan and
 * placement, bit for bit. */
static void test_gpu_deterministic(void)
{
	NEED_SIMGRID();
	struct child a, b;
	char pa[64], pb[64];
	run_golden("dmda", &a);
	run_golden("dmda", &b);
	CU_ASSERT(exited_ok(&a) && exited_ok(&b));
	CU_ASSERT(out_num(&a, "makespan") == out_num(&b, "makespan"));
	CU_ASSERT_STRING_EQUAL(out_str(&a, "place", pa, sizeof(pa)), out_str(&b, "place", pb, sizeof(pb)));
}

/* (d) STARPU_NCUDA restricts the simulated GPUs (and so the reserved
 * cores); STARPU_NCPU, when given, is taken as it is. */
static void test_gpu_ncuda(void)
{
	NEED_SIMGRID();
	const char *one[] = { GPU_ENV, "STARPU_NCUDA=1", NULL };
	struct child c;
	run_child("gpu-topology", one, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(out_num(&c, "ncuda"), 1);
	CU_ASSERT_EQUAL(out_num(&c, "ncpu"), 3);
	CU_ASSERT_EQUAL(out_num(&c, "nnodes"), 2);
	expect_str(&c, "arch0", "cuda0_impl0");

	const char *none[] = { GPU_ENV, "STARPU_NCUDA=0", NULL };
	run_child("gpu-topology", none, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(out_num(&c, "ncuda"), 0);
	CU_ASSERT_EQUAL(out_num(&c, "ncpu"), 4);
	CU_ASSERT_EQUAL(out_num(&c, "nnodes"), 1);

	const char *ncpu[] = { GPU_ENV, "STARPU_NCPU=1", NULL };
	run_child("gpu-topology", ncpu, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(out_num(&c, "ncuda"), 2);
	CU_ASSERT_EQUAL(out_num(&c, "ncpu"), 1);

	const char *bad[] = { GPU_ENV, "STARPU_NCUDA=x", NULL };
	run_child("gpu-topology", bad, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "STARPU_NCUDA"));
}

/* (e) Device capacity. Six CUDA-only tasks on three 1.5 MB vectors
 * (v0 v1 v2 v0 v1 v2, read-write), pinned to one GPU. A copy of 1.5 MB
 * takes 10 + 1500 = 1510 us, a task 750 us.
 *   CUDA1 (16 MB): all three fit. T0..T2 copy then run (3 x 2260 us), T3..T5
 *   find their data there (3 x 750): 9030 us, nothing written back.
 *   CUDA0 (4 MB): two fit. T0, T1 as above (4520 us); T2 must evict the
 *   least recently used, v0, whose only valid copy is on the GPU: written
 *   back (1510), then v2 is copied in (1510) and T2 runs (750); T3, T4, T5
 *   each evict the next one the same way: 4520 + 4 x 3770 = 19600 us, with
 *   4 copies back to RAM. The tasks and the data's content are the same. */
static void run_capacity(const char *worker, struct child *c)
{
	const char *env[] = { GPU_ENV, "STARPU_PROFILING=1", worker, NULL };
	run_child("gpu-capacity", env, c);
}

static void test_gpu_capacity(void)
{
	NEED_SIMGRID();
	struct child big, small;
	run_capacity("VTEST_SIM_WORKER=1", &big);
	run_capacity("VTEST_SIM_WORKER=0", &small);
	CU_ASSERT(exited_ok(&big) && exited_ok(&small));
	CU_ASSERT(close_to(out_num(&big, "makespan"), 9030.0));
	CU_ASSERT_EQUAL(out_num(&big, "writebacks"), 0);
	expect_str(&big, "place", "1,1,1,1,1,1");
	CU_ASSERT(close_to(out_num(&small, "makespan"), 19600.0));
	CU_ASSERT_EQUAL(out_num(&small, "writebacks"), 4);
	expect_str(&small, "place", "0,0,0,0,0,0");
	CU_ASSERT(out_num(&small, "checksum") == out_num(&big, "checksum"));
	CU_ASSERT_PTR_NULL(strstr(small.err, "error"));
}

/* (e) A datum larger than the device: a clear error naming the node and
 * the task, which does not run; the program goes on. */
static void test_gpu_too_big(void)
{
	NEED_SIMGRID();
	const char *env[] = { GPU_ENV, "VTEST_SIM_WORKER=0", NULL };
	struct child c;
	run_child("gpu-toobig", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "(5000000 bytes) can never fit in memory node 1 (CUDA 0)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "task 'scale_gpu' not executed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "CUDA 0 (-12)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.out, "checksum="));	/* it went on */
}

/* Bad device counts in conf, and the placeholder called for real. */
static void test_gpu_bad_input(void)
{
	const char *env[] = { "STARPU_SIMGRID", NULL };
	struct child c;
	run_child("badconf", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(out_num(&c, "ncuda_ret"), -EINVAL);
	CU_ASSERT_EQUAL(out_num(&c, "nopencl_ret"), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "conf.ncuda=-2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "conf.nopencl="));

	run_child("placeholder", env, &c);
	CU_ASSERT(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGABRT);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "vela_sim_placeholder called for real"));
}

/* (f) A platform without CPU hosts is refused, naming the file. */
static void test_gpu_no_cpu_host(void)
{
	NEED_SIMGRID();
	const char *boots[] = { "VELA_SIM_BOOT=hijack", "VELA_SIM_BOOT=attach" };
	for (int i = 0; i < 2; i++)
	{
		const char *env[] = { "STARPU_SIMGRID=1", boots[i],
				      "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/nocpu.platform.v4.xml", NULL };
		struct child c;
		run_child("run", env, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "nocpu.platform.v4.xml"));
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "no CPU0 host"));
	}
}

/* STARPU_LIMIT_CUDA_MEM and STARPU_LIMIT_CUDA_<devid>_MEM (MiB) cap the
 * simulated devices below their memsize, the per-device one first; a
 * limit above memsize leaves it. */
static void test_gpu_limit_mem(void)
{
	NEED_SIMGRID();
	const char *all[] = { GPU_ENV, "STARPU_LIMIT_CUDA_MEM=2", NULL };
	struct child c;
	run_child("gpu-topology", all, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(out_num(&c, "total1"), 2 << 20);
	CU_ASSERT_EQUAL(out_num(&c, "total2"), 2 << 20);

	const char *one[] = { GPU_ENV, "STARPU_LIMIT_CUDA_MEM=2", "STARPU_LIMIT_CUDA_1_MEM=1", NULL };
	run_child("gpu-topology", one, &c);
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(out_num(&c, "total1"), 2 << 20);
	CU_ASSERT_EQUAL(out_num(&c, "total2"), 1 << 20);

	const char *above[] = { GPU_ENV, "STARPU_LIMIT_CUDA_MEM=100", "STARPU_LIMIT_OPENCL_MEM=1", NULL };
	run_child("gpu-topology", above, &c);
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(out_num(&c, "total1"), 4000000);
	CU_ASSERT_EQUAL(out_num(&c, "total2"), 16000000);

	/* CUDA1 capped at 3 MiB holds two 1.5 MB vectors, not three: the
	 * capacity case behaves as on CUDA0 (test_gpu_capacity). */
	const char *cap[] = { GPU_ENV, "STARPU_PROFILING=1", "VTEST_SIM_WORKER=1", "STARPU_LIMIT_CUDA_1_MEM=3", NULL };
	run_child("gpu-capacity", cap, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT(close_to(out_num(&c, "makespan"), 19600.0));
	CU_ASSERT_EQUAL(out_num(&c, "writebacks"), 4);
	expect_str(&c, "place", "1,1,1,1,1,1");

	const char *const bad[][2] = { { "STARPU_LIMIT_CUDA_MEM=lots", "STARPU_LIMIT_CUDA_MEM='lots'" },
				       { "STARPU_LIMIT_CUDA_0_MEM=-3", "STARPU_LIMIT_CUDA_0_MEM='-3'" },
				       { "STARPU_LIMIT_CUDA_1_MEM=1.5", "STARPU_LIMIT_CUDA_1_MEM='1.5'" } };
	for (int i = 0; i < 3; i++)
	{
		const char *env[] = { GPU_ENV, bad[i][0], NULL };
		run_child("gpu-topology", env, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, bad[i][1]));
	}
}

/* Device to device copies follow the platform's route between the two
 * devices' hosts when there is one, in one copy, and the bus model
 * (dmda's estimates) predicts the same, the time on the wire counted twice
 * per GPU in use (x 4 here, as StarPU's estimate); without a route they go
 * through RAM, two copies, and are predicted so. A 1 MB vector: CUDA0
 * reads it from RAM (1010 us) and runs (500 us), then CUDA1 gets it from
 * CUDA0 and runs (500 us): 2010 us + the copy.
 *   2cuda-nvlink: a direct link, 4 GB/s and 2 us: 2 + 250 = 252 us
 *     (predicted 2 + 4 x 250 = 1002);
 *   2cuda: the route crosses the host's two links: 20 + 1000 = 1020 us
 *     (predicted 20 + 4 x 1000 = 4020);
 *   2cuda-noroute: CUDA0 -> RAM then RAM -> CUDA1: 2 x 1010 = 2020 us
 *     (predicted 2 x 4010 = 8020). */
static void test_gpu_peer_copies(void)
{
	NEED_SIMGRID();
	const struct
	{
		const char *platform;
		double copy, predict;
	} cases[] = {
		{ "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/2cuda-nvlink.platform.v4.xml", 252.0, 1002.0 },
		{ "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/2cuda.platform.v4.xml", 1020.0, 4020.0 },
		{ "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/2cuda-noroute.platform.v4.xml", 2020.0, 8020.0 },
	};
	for (int i = 0; i < 3; i++)
	{
		const char *env[] = { GPU_ENV, cases[i].platform, NULL };
		struct child c;
		run_child("gpu-peer", env, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, 0);
		CU_ASSERT_EQUAL(out_num(&c, "submit"), 0);
		if (!close_to(out_num(&c, "makespan"), 2010.0 + cases[i].copy))
			fprintf(stderr, "%s: makespan %.17g, want %.17g\n", cases[i].platform, out_num(&c, "makespan"),
				2010.0 + cases[i].copy);
		CU_ASSERT(close_to(out_num(&c, "makespan"), 2010.0 + cases[i].copy));
		CU_ASSERT(close_to(out_num(&c, "predict12"), cases[i].predict));
	}
}

/* A copy's source among several valid replicates is the one the bus
 * predicts fastest, as StarPU's (the first in node order at equal
 * times). The 1 MB vector of test_gpu_peer_copies, read by CUDA0 (1010 us
 * from RAM, 500 us run), then by CUDA1 (500 us run), valid in RAM and on
 * CUDA0 meanwhile:
 *   2cuda-nvlink: from CUDA0 (predicted 1002 us against 4010 from RAM):
 *     252 us, makespan 2262;
 *   2cuda: from RAM (4010 against 4020 through the host): 1010 us,
 *     makespan 3020. */
static void test_gpu_copy_source(void)
{
	NEED_SIMGRID();
	const struct
	{
		const char *platform;
		double makespan;
	} cases[] = {
		{ "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/2cuda-nvlink.platform.v4.xml", 2262.0 },
		{ "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/2cuda.platform.v4.xml", 3020.0 },
	};
	for (int i = 0; i < 2; i++)
	{
		const char *env[] = { GPU_ENV, cases[i].platform, NULL };
		struct child c;
		run_child("gpu-shared", env, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, 0);
		CU_ASSERT_EQUAL(out_num(&c, "submit"), 0);
		if (!close_to(out_num(&c, "makespan"), cases[i].makespan))
			fprintf(stderr, "%s: makespan %.17g, want %.17g\n", cases[i].platform, out_num(&c, "makespan"),
				cases[i].makespan);
		CU_ASSERT(close_to(out_num(&c, "makespan"), cases[i].makespan));
	}
}

/* ------------------------------------------------------------------ */
/* Cases. */

static const struct vtest_case cases[] = {
	{ "GPU platform: workers, nodes, archs, bus", test_gpu_topology },
	{ "simulated transfers: latency, bandwidth, sharing", test_gpu_transfers },
	{ "golden GPU schedules (dmda, eager)", test_gpu_golden },
	{ "GPU simulation is deterministic", test_gpu_deterministic },
	{ "STARPU_NCUDA restricts simulated GPUs", test_gpu_ncuda },
	{ "device capacity: eviction", test_gpu_capacity },
	{ "datum larger than the device", test_gpu_too_big },
	{ "platform without CPU hosts", test_gpu_no_cpu_host },
	{ "bad device counts, placeholder called for real", test_gpu_bad_input },
	{ "STARPU_LIMIT_CUDA[_<devid>]_MEM", test_gpu_limit_mem },
	{ "device to device copies along platform routes", test_gpu_peer_copies },
	{ "a copy comes from the replicate the bus predicts fastest", test_gpu_copy_source },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "simulated GPUs", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return sim_test_main(argc, argv, suites, child_main);
}
