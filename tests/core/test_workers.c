/* test_workers: the worker query API.
 *
 * Worker counts, ids, types, names, device ids and memory nodes, as seen from
 * the application thread and from inside a codelet, and the CPU binding knobs
 * STARPU_WORKERS_NOBIND, STARPU_WORKERS_CPUID and STARPU_WORKERS_GETBIND
 * (the workers stay inside the CPU binding of the thread calling
 * starpu_init, as under mpirun --bind-to core). The query suite shares one
 * runtime with two CPU workers; the binding cases start their own.
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vtest.h"

#define NWORKERS 2

static int query_init(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = NWORKERS;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf) == 0 ? 0 : -1;
}

static int query_clean(void)
{
	starpu_shutdown();
	return 0;
}

/* What a codelet saw about the worker running it. */
struct seen
{
	int workerid;
	int type;
	unsigned local_node;
	cpu_set_t affinity;
	int affinity_ok;
};

static void record_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	struct seen *s = cl_arg;
	s->workerid = starpu_worker_get_id();
	s->type = s->workerid >= 0 ? (int) starpu_worker_get_type(s->workerid) : -1;
	s->local_node = starpu_worker_get_local_memory_node();
	CPU_ZERO(&s->affinity);
	s->affinity_ok = pthread_getaffinity_np(pthread_self(), sizeof(s->affinity), &s->affinity) == 0;
}

static struct starpu_codelet record_cl =
{
	.cpu_funcs = { record_cpu },
	.nbuffers = 0,
};

/* Runs record_cl synchronously on worker `workerid` and fills *s. */
static int run_on_worker(int workerid, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->workerid = -2;
	struct starpu_task *task = starpu_task_create();
	task->cl = &record_cl;
	task->cl_arg = s;
	task->execute_on_a_specific_worker = 1;
	task->workerid = (unsigned) workerid;
	task->synchronous = 1;
	return starpu_task_submit(task);
}

static void test_counts(void)
{
	CU_ASSERT_EQUAL(starpu_worker_get_count(), NWORKERS);
	CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), NWORKERS);
	CU_ASSERT_EQUAL(starpu_worker_get_count_by_type(STARPU_CPU_WORKER), NWORKERS);
	CU_ASSERT_EQUAL(starpu_worker_get_count_by_type(STARPU_CUDA_WORKER), 0);
	CU_ASSERT_EQUAL(starpu_cuda_worker_get_count(), 0);
	CU_ASSERT_EQUAL(starpu_opencl_worker_get_count(), 0);
	CU_ASSERT(starpu_memory_nodes_get_count() >= 1);
}

static void test_id_outside_worker(void)
{
	CU_ASSERT_EQUAL(starpu_worker_get_id(), -1);
}

static void test_id_inside_codelet(void)
{
	for (int w = 0; w < NWORKERS; w++)
	{
		struct seen s;
		CU_ASSERT_EQUAL_FATAL(run_on_worker(w, &s), 0);
		CU_ASSERT_EQUAL(s.workerid, w);
		CU_ASSERT_EQUAL(s.type, STARPU_CPU_WORKER);
		CU_ASSERT_EQUAL(s.local_node, 0);
	}
	/* back in the application thread */
	CU_ASSERT_EQUAL(starpu_worker_get_id(), -1);
}

static void test_type_name_node(void)
{
	for (int w = 0; w < NWORKERS; w++)
	{
		CU_ASSERT_EQUAL(starpu_worker_get_type(w), STARPU_CPU_WORKER);
		CU_ASSERT_EQUAL(starpu_worker_get_memory_node((unsigned) w), 0);

		char name[128];
		memset(name, 0, sizeof(name));
		starpu_worker_get_name(w, name, sizeof(name));
		CU_ASSERT(strlen(name) > 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(name, "CPU"));

		/* a short buffer still gets a terminated (truncated) name */
		char small[3];
		memset(small, 'x', sizeof(small));
		starpu_worker_get_name(w, small, sizeof(small));
		CU_ASSERT(memchr(small, '\0', sizeof(small)) != NULL);
	}
	/* both workers get different names */
	char n0[128], n1[128];
	starpu_worker_get_name(0, n0, sizeof(n0));
	starpu_worker_get_name(1, n1, sizeof(n1));
	CU_ASSERT_STRING_NOT_EQUAL(n0, n1);

	const char *tname = starpu_worker_get_type_as_string(STARPU_CPU_WORKER);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tname);
	CU_ASSERT_PTR_NOT_NULL(strstr(tname, "CPU"));
}

static void test_ids_by_type(void)
{
	int ids[STARPU_NMAXWORKERS];
	for (int i = 0; i < STARPU_NMAXWORKERS; i++)
		ids[i] = -7;
	unsigned n = starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, ids, STARPU_NMAXWORKERS);
	CU_ASSERT_EQUAL(n, NWORKERS);
	int seen_mask = 0;
	for (unsigned i = 0; i < n && i < NWORKERS; i++)
	{
		CU_ASSERT(ids[i] >= 0 && ids[i] < NWORKERS);
		if (ids[i] >= 0 && ids[i] < NWORKERS)
			seen_mask |= 1 << ids[i];
		CU_ASSERT_EQUAL(starpu_worker_get_type(ids[i]), STARPU_CPU_WORKER);
	}
	CU_ASSERT_EQUAL(seen_mask, (1 << NWORKERS) - 1);
	/* entries past the count are untouched */
	CU_ASSERT_EQUAL(ids[NWORKERS], -7);

	/* no CUDA worker here */
	CU_ASSERT_EQUAL(starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, ids, STARPU_NMAXWORKERS), 0);

	/* an array too small for all the workers is an -ERANGE error (returned
	 * through the unsigned result) */
	int one[1];
	unsigned r = starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, one, 1);
	CU_ASSERT_EQUAL((int) r, -ERANGE);
}

static void test_get_by_type(void)
{
	int mask = 0;
	for (int num = 0; num < NWORKERS; num++)
	{
		int id = starpu_worker_get_by_type(STARPU_CPU_WORKER, num);
		CU_ASSERT(id >= 0 && id < NWORKERS);
		if (id >= 0 && id < NWORKERS)
			mask |= 1 << id;
	}
	CU_ASSERT_EQUAL(mask, (1 << NWORKERS) - 1);
	CU_ASSERT_EQUAL(starpu_worker_get_by_type(STARPU_CPU_WORKER, NWORKERS), -1);
	CU_ASSERT_EQUAL(starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0), -1);
}

static void test_devids(void)
{
	int mask = 0;
	for (int w = 0; w < NWORKERS; w++)
	{
		int devid = starpu_worker_get_devid(w);
		CU_ASSERT(devid >= 0 && devid < NWORKERS);
		if (devid >= 0 && devid < NWORKERS)
		{
			CU_ASSERT_EQUAL(mask & (1 << devid), 0);
			mask |= 1 << devid;
			CU_ASSERT_EQUAL(starpu_worker_get_by_devid(STARPU_CPU_WORKER, devid), w);
		}
	}
	CU_ASSERT_EQUAL(mask, (1 << NWORKERS) - 1);
	CU_ASSERT_EQUAL(starpu_worker_get_by_devid(STARPU_CPU_WORKER, NWORKERS + 5), -1);
}

/* The next cases need at least two usable cores. */
static int usable_cpus(cpu_set_t *set)
{
	CPU_ZERO(set);
	if (sched_getaffinity(0, sizeof(*set), set) != 0)
		return 0;
	return CPU_COUNT(set);
}

static int start_two_workers(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	return starpu_init(&conf);
}

static void test_nobind(void)
{
	cpu_set_t process_set;
	int navail = usable_cpus(&process_set);
	if (navail < 2 || !CPU_ISSET(0, &process_set) || !CPU_ISSET(1, &process_set))
	{
		printf("(needs CPUs 0 and 1) ");
		return;
	}
	vtest_setenv("STARPU_WORKERS_NOBIND", "1");
	int ret = start_two_workers();
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);

	for (int w = 0; w < 2; w++)
	{
		struct seen s;
		CU_ASSERT_EQUAL(run_on_worker(w, &s), 0);
		CU_ASSERT_EQUAL(s.workerid, w);
		CU_ASSERT(s.affinity_ok);
		/* unbound: the worker thread keeps the process' whole CPU set */
		CU_ASSERT(CPU_EQUAL(&s.affinity, &process_set));
	}
	starpu_shutdown();
}

static void test_workers_cpuid(void)
{
	cpu_set_t process_set;
	int navail = usable_cpus(&process_set);
	if (navail < 2 || !CPU_ISSET(0, &process_set) || !CPU_ISSET(1, &process_set))
	{
		printf("(needs CPUs 0 and 1) ");
		return;
	}
	vtest_setenv("STARPU_WORKERS_CPUID", "1 0");
	int ret = start_two_workers();
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), 2);

	/* worker 0 goes on CPU 1 and worker 1 on CPU 0 */
	CU_ASSERT_EQUAL(starpu_worker_get_bindid(0), 1);
	CU_ASSERT_EQUAL(starpu_worker_get_bindid(1), 0);
	for (int w = 0; w < 2; w++)
	{
		struct seen s;
		CU_ASSERT_EQUAL(run_on_worker(w, &s), 0);
		CU_ASSERT_EQUAL(s.workerid, w);
		CU_ASSERT(s.affinity_ok);
		CU_ASSERT_EQUAL(CPU_COUNT(&s.affinity), 1);
		CU_ASSERT(CPU_ISSET(w == 0 ? 1 : 0, &s.affinity));
	}
	starpu_shutdown();
}

/* Without any knob the workers are bound, each to one CPU, all different. */
static void test_default_binding(void)
{
	cpu_set_t process_set;
	if (usable_cpus(&process_set) < 2)
	{
		printf("(needs two CPUs) ");
		return;
	}
	const char *nobind = getenv("STARPU_WORKERS_NOBIND");
	const char *cpuid = getenv("STARPU_WORKERS_CPUID");
	if (nobind || cpuid)
	{
		printf("(binding variables set outside) ");
		return;
	}
	CU_ASSERT_EQUAL_FATAL(start_two_workers(), 0);
	cpu_set_t s0, s1;
	for (int w = 0; w < 2; w++)
	{
		struct seen s;
		CU_ASSERT_EQUAL(run_on_worker(w, &s), 0);
		CU_ASSERT_EQUAL(CPU_COUNT(&s.affinity), 1);
		CU_ASSERT(CPU_ISSET(starpu_worker_get_bindid(w), &s.affinity));
		if (w == 0)
			s0 = s.affinity;
		else
			s1 = s.affinity;
	}
	CU_ASSERT(!CPU_EQUAL(&s0, &s1));
	starpu_shutdown();
}

static const struct vtest_case query_cases[] =
{
	{ "counts", test_counts },
	{ "id_outside_worker", test_id_outside_worker },
	{ "id_inside_codelet", test_id_inside_codelet },
	{ "type_name_node", test_type_name_node },
	{ "ids_by_type", test_ids_by_type },
	{ "get_by_type", test_get_by_type },
	{ "devids", test_devids },
	VTEST_END
};

/* Starts the runtime with the default number of CPU workers (one per
 * usable core) from a thread bound to CPU 1 alone. */
static int start_bound_to_cpu1(const char *getbind)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		return -1;
	vtest_setenv("STARPU_WORKERS_GETBIND", getbind);	/* NULL: unset */
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = -1;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	int ret = starpu_init(&conf);
	vtest_env_restore();
	return ret;
}

/* A process bound to one core (mpirun --bind-to core) gets one worker on
 * that core, by default; STARPU_WORKERS_GETBIND=0 ignores the binding (one
 * worker per core of the machine, the first on CPU 0: StarPU 1.3's
 * default). */
static void test_getbind(void)
{
	cpu_set_t process_set;
	int navail = usable_cpus(&process_set);
	if (navail < 2 || !CPU_ISSET(0, &process_set) || !CPU_ISSET(1, &process_set))
	{
		printf("(needs CPUs 0 and 1) ");
		return;
	}
	if (getenv("STARPU_WORKERS_NOBIND") || getenv("STARPU_WORKERS_CPUID") ||
	    getenv("STARPU_NCPU") || getenv("STARPU_NCPUS"))
	{
		printf("(binding or worker variables set outside) ");
		return;
	}
	/* Unbound: one worker per core of the machine. */
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncuda = 0;
	conf.nopencl = 0;
	CU_ASSERT_EQUAL_FATAL(starpu_init(&conf), 0);
	unsigned full = starpu_cpu_worker_get_count();
	starpu_shutdown();
	CU_ASSERT(full >= 2);

	int ret = start_bound_to_cpu1(NULL);
	if (ret == 0)
	{
		CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), 1);
		CU_ASSERT_EQUAL(starpu_worker_get_bindid(0), 1);
		struct seen s;
		CU_ASSERT_EQUAL(run_on_worker(0, &s), 0);
		CU_ASSERT(s.affinity_ok);
		CU_ASSERT_EQUAL(CPU_COUNT(&s.affinity), 1);
		CU_ASSERT(CPU_ISSET(1, &s.affinity));
		starpu_shutdown();
	}
	int ret0 = start_bound_to_cpu1("0");
	if (ret0 == 0)
	{
		CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), full);
		CU_ASSERT_EQUAL(starpu_worker_get_bindid(0), 0);
		starpu_shutdown();
	}
	sched_setaffinity(0, sizeof(process_set), &process_set);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(ret0, 0);
	/* Unbound again: every core again. */
	CU_ASSERT_EQUAL_FATAL(starpu_init(&conf), 0);
	CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), full);
	/* The application binding its thread through the runtime is the
	 * application's binding too: the next init uses that core. */
	starpu_sched_ctx_bind_current_thread_to_cpuid(1);
	starpu_shutdown();
	CU_ASSERT_EQUAL_FATAL(starpu_init(&conf), 0);
	CU_ASSERT_EQUAL(starpu_cpu_worker_get_count(), 1);
	CU_ASSERT_EQUAL(starpu_worker_get_bindid(0), 1);
	starpu_shutdown();
	sched_setaffinity(0, sizeof(process_set), &process_set);
}

static const struct vtest_case binding_cases[] =
{
	{ "default_binding", test_default_binding },
	{ "nobind", test_nobind },
	{ "workers_cpuid", test_workers_cpuid },
	{ "getbind", test_getbind },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "query", query_init, query_clean, query_cases },
	{ "binding", NULL, NULL, binding_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
