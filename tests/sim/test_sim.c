/* test_sim.c — simulation mode (issue 7, first part): the same binary runs
 * real and simulated, switched by STARPU_SIMGRID at run time.
 *
 * Each case re-executes this program (/proc/self/exe) with a chosen
 * environment and a scenario in VTEST_SIM_CHILD, and checks what the child
 * printed: a simulation starts in the environment of a new process (the
 * hijack boot runs main() inside SimGrid), and one process gets one
 * simulation. Simulated times are deterministic, so makespans are asserted
 * exactly (to 1e-9 relative, the rounding of summed sleeps). Simulated
 * GPUs: test_sim_gpu.c.
 */
#define _GNU_SOURCE
#include "vtest.h"
#include "sim_child.h"

#include <starpu.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TASK_US 10.0

/* ------------------------------------------------------------------ */
/* The child's scenarios. */

static int executed;

static void kernel(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	__atomic_fetch_add(&executed, 1, __ATOMIC_RELAXED);	/* real runs: several workers */
}

static double cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	(void) task;
	(void) arch;
	(void) nimpl;
	return TASK_US;
}

static struct starpu_perfmodel model = { .type = STARPU_PER_ARCH, .arch_cost_function = cost };
static struct starpu_codelet modelled_cl = { .cpu_funcs = { kernel }, .nbuffers = 0, .model = &model, .name = "modelled" };
static struct starpu_perfmodel history = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_sim_history" };
static struct starpu_codelet history_cl = { .cpu_funcs = { kernel }, .nbuffers = 0, .model = &history, .name = "history" };
static struct starpu_codelet unmodelled_cl = { .cpu_funcs = { kernel }, .nbuffers = 0, .name = "unmodelled" };
/* A history model whose tasks all have footprint FIRST_FP (its file is
 * written by the test: test_first_runs_charged). */
#define FIRST_FP 0x00c0ffeeu
static uint32_t first_fp(struct starpu_task *task)
{
	(void) task;
	return FIRST_FP;
}
static struct starpu_perfmodel first_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_sim_first", .footprint = first_fp };
static struct starpu_codelet first_cl = { .cpu_funcs = { kernel }, .nbuffers = 0, .model = &first_model, .name = "first" };

static int submit_and_wait(struct starpu_codelet *cl, int n, double *makespan)
{
	double t0 = starpu_timing_now();
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = cl;
		int ret = starpu_task_submit(t);
		if (ret)
			return ret;
	}
	starpu_task_wait_for_all();
	*makespan = starpu_timing_now() - t0;
	return 0;
}

static void *plain_thread(void *arg)
{
	(void) arg;
	struct starpu_task *t = starpu_task_create();
	t->cl = &modelled_cl;
	int ret = starpu_task_submit(t);
	printf("plain thread submitted: %d\n", ret);
	return NULL;
}


/* ---- "locks": the SimGrid backend's contended paths. Uncontended locks
 * are plain writes there (sim/README.md, Locks); these make an actor wait
 * for a mutex, a condition, a timed condition and a rwlock held by another
 * over simulated time, and print when it got them (µs after t0). */
static starpu_pthread_mutex_t lk_mutex;
static starpu_pthread_cond_t lk_cond;
static starpu_pthread_rwlock_t lk_rw;
static int lk_flag;
/* The timed wait's deadline: 30 ms of wall-clock time after the waiter
 * reads the clock (at +150, when it gets the condition), in simulated time
 * once converted; main holds the rwlock until well after it. */
#define LK_TIMEOUT_US 30000.0
#define LK_RW_END_US (150.0 + LK_TIMEOUT_US + 10000.0)
static double lk_t0, lk_mutex_at, lk_cond_at, lk_timeout_at, lk_read_at, lk_timeout_real;
static int lk_timeout_ret, lk_trylock_ret;

static void *lock_waiter(void *arg)
{
	(void) arg;
	lk_trylock_ret = starpu_pthread_mutex_trylock(&lk_mutex);	/* held by main */
	starpu_pthread_mutex_lock(&lk_mutex);			/* main unlocks at +100 */
	lk_mutex_at = starpu_timing_now() - lk_t0;
	while (!lk_flag)					/* main signals at +150 */
		starpu_pthread_cond_wait(&lk_cond, &lk_mutex);
	lk_cond_at = starpu_timing_now() - lk_t0;
	struct timespec base, deadline, after;
	clock_gettime(CLOCK_REALTIME, &base);
	deadline = base;
	deadline.tv_nsec += (long) (LK_TIMEOUT_US * 1000.0);	/* nobody signals: times out */
	if (deadline.tv_nsec >= 1000000000L)
	{
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	lk_timeout_ret = starpu_pthread_cond_timedwait(&lk_cond, &lk_mutex, &deadline);
	lk_timeout_at = starpu_timing_now() - lk_t0;
	/* The real time the conversion may have taken off the deadline is at
	 * most the real time spent from reading the clock to here. */
	clock_gettime(CLOCK_REALTIME, &after);
	lk_timeout_real = (after.tv_sec - base.tv_sec) * 1e6 + (after.tv_nsec - base.tv_nsec) / 1e3;
	starpu_pthread_mutex_unlock(&lk_mutex);
	starpu_pthread_rwlock_rdlock(&lk_rw);			/* main's write lock ends at LK_RW_END_US */
	lk_read_at = starpu_timing_now() - lk_t0;
	starpu_pthread_rwlock_unlock(&lk_rw);
	return NULL;
}

static void locks_child(void)
{
	starpu_pthread_mutex_init(&lk_mutex, NULL);
	starpu_pthread_cond_init(&lk_cond, NULL);
	starpu_pthread_rwlock_init(&lk_rw, NULL);
	lk_t0 = starpu_timing_now();
	starpu_pthread_mutex_lock(&lk_mutex);
	starpu_pthread_rwlock_wrlock(&lk_rw);
	starpu_pthread_t th;
	starpu_pthread_create(&th, NULL, lock_waiter, NULL);
	starpu_usleep(100);
	starpu_pthread_mutex_unlock(&lk_mutex);
	starpu_usleep(50);
	starpu_pthread_mutex_lock(&lk_mutex);
	lk_flag = 1;
	starpu_pthread_cond_signal(&lk_cond);
	starpu_pthread_mutex_unlock(&lk_mutex);
	starpu_usleep(LK_RW_END_US - 150.0);
	starpu_pthread_rwlock_unlock(&lk_rw);
	starpu_pthread_join(th, NULL);
	printf("trylock=%d mutex_at=%.17g cond_at=%.17g timeout_ret=%d timeout_at=%.17g timeout_real=%.17g "
	       "read_at=%.17g\n", lk_trylock_ret, lk_mutex_at, lk_cond_at, lk_timeout_ret, lk_timeout_at,
	       lk_timeout_real, lk_read_at);
	starpu_pthread_rwlock_destroy(&lk_rw);
	starpu_pthread_cond_destroy(&lk_cond);
	starpu_pthread_mutex_destroy(&lk_mutex);
}

/* Who is calling, as the SimGrid backend sees it (it remembers the last
 * actor by stack address): each actor, at a shallow and at a deep stack
 * depth (past the backend's 64 KiB window), between sleeps that let the
 * others run, must see its own identity and its own key values. */
static starpu_pthread_key_t id_key;
static int id_errors;

static void id_check(starpu_pthread_t me, intptr_t value)
{
	if (!starpu_pthread_equal(starpu_pthread_self(), me) ||
	    (intptr_t) starpu_pthread_getspecific(id_key) != value)
		id_errors++;
}

static void id_deep(starpu_pthread_t me, intptr_t value, int levels)
{
	volatile char pad[8192];
	pad[0] = (char) levels;
	if (levels > 0)
		id_deep(me, value, levels - 1);
	else
	{
		id_check(me, value);
		starpu_usleep(3);	/* others run, then us again, this deep */
		id_check(me, value);
	}
	(void) pad[0];
}

static void *id_actor(void *arg)
{
	intptr_t value = (intptr_t) arg;
	starpu_pthread_t me = starpu_pthread_self();
	starpu_pthread_setspecific(id_key, (void *) value);
	for (int round = 0; round < 5; round++)
	{
		id_check(me, value);
		starpu_usleep(1 + (unsigned) value);
		id_deep(me, value, 12);
		id_check(me, value);
	}
	return NULL;
}

static void identity_child(void)
{
	starpu_pthread_key_create(&id_key, NULL);
	starpu_pthread_t th[3];
	for (intptr_t i = 0; i < 3; i++)
		starpu_pthread_create(&th[i], NULL, id_actor, (void *) (i + 1));
	id_actor((void *) 7);	/* main too */
	for (int i = 0; i < 3; i++)
		starpu_pthread_join(th[i], NULL);
	starpu_pthread_key_delete(id_key);
	printf("identity_errors=%d\n", id_errors);
}

/* The simulated machine's topology: CPU worker i on PU i, whatever this
 * machine has; this machine's hwloc topology still there when asked for;
 * one team of all the CPU workers (a flat machine). */
static void topology_child(void)
{
	int bind_ok = 1;
	for (unsigned i = 0; i < starpu_worker_get_count(); i++)
		if (starpu_worker_get_bindid((int) i) != (int) i)
			bind_ok = 0;
	int size = 0, *members = NULL;
	int ncombined = (int) starpu_combined_worker_get_count();
	if (ncombined > 0)
		starpu_combined_worker_get_description((int) starpu_worker_get_count(), &size, &members);
	printf("bind_ok=%d topology=%d ncombined=%d team=%d\n", bind_ok, starpu_get_hwloc_topology() != NULL,
	       ncombined, size);
}

/* lws: the tasks the application submits go round robin from the
 * context's second worker on (StarPU's lws: its round robin starts after
 * the last worker chosen, initially the first), each to the worker that
 * runs it (woken for it; no other worker is woken to steal). */
static int lws_ran_on[3] = { -1, -1, -1 };

static void lws_note_worker(void *arg)
{
	lws_ran_on[(intptr_t) arg] = starpu_worker_get_id();
}

static void lws_child(void)
{
	for (intptr_t i = 0; i < 3; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &modelled_cl;
		t->callback_func = lws_note_worker;
		t->callback_arg = (void *) i;
		if (starpu_task_submit(t))
			return;
	}
	starpu_task_wait_for_all();
	printf("lws_first=%d lws_second=%d lws_third=%d\n", lws_ran_on[0], lws_ran_on[1], lws_ran_on[2]);
}

static int child_main(const char *scenario)
{
	int n = getenv("VTEST_SIM_N") ? atoi(getenv("VTEST_SIM_N")) : 100;
	if (!strcmp(scenario, "real-then-sim"))
	{
		/* A real run first, then simulation switched on at starpu_init
		 * (the attach boot). */
		double real_makespan;
		int ret = starpu_init(NULL);
		if (ret || submit_and_wait(&modelled_cl, n, &real_makespan) || vela_is_simulated())
			return 3;
		starpu_shutdown();
		if (executed != n)
			return 4;
		executed = 0;
		setenv("STARPU_SIMGRID", "1", 1);
		scenario = "run";
	}
	int ret = starpu_init(NULL);
	printf("ret=%d\n", ret);
	if (ret)
		return 0;
	double makespan = 0.0;
	if (!strcmp(scenario, "run"))
		ret = submit_and_wait(&modelled_cl, n, &makespan);
	else if (!strcmp(scenario, "nomodel"))
		ret = submit_and_wait(&unmodelled_cl, n, &makespan);
	else if (!strcmp(scenario, "history"))
		ret = submit_and_wait(&history_cl, n, &makespan);
	else if (!strcmp(scenario, "first"))
		ret = submit_and_wait(&first_cl, n, &makespan);
	else if (!strcmp(scenario, "first-again"))
	{
		/* A second session in the process: its first runs are not. */
		ret = submit_and_wait(&first_cl, n, &makespan);
		starpu_shutdown();
		if (!ret)
			ret = starpu_init(NULL);
		if (!ret)
			ret = submit_and_wait(&first_cl, n, &makespan);
	}
	else if (!strcmp(scenario, "locks"))
		locks_child();	/* a real run calling it: aborts */
	else if (!strcmp(scenario, "identity"))
		identity_child();
	else if (!strcmp(scenario, "topology"))
		topology_child();
	else if (!strcmp(scenario, "lws"))
		lws_child();
	else if (!strcmp(scenario, "pthread"))
	{
		pthread_t th;
		pthread_create(&th, NULL, plain_thread, NULL);
		pthread_join(th, NULL);
	}
	printf("sim=%d nworkers=%u makespan=%.17g executed=%d submit=%d\n", vela_is_simulated(),
	       starpu_worker_get_count(), makespan, executed, ret);
	starpu_shutdown();
	return 0;
}


/* ------------------------------------------------------------------ */
/* Cases. */

static void test_real_run(void)
{
	const char *env[] = { "STARPU_SIMGRID", "VTEST_SIM_N=20", NULL };
	struct child c;
	run_child("run", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 0);
	CU_ASSERT_EQUAL(c.executed, 20);
}

static void test_hijack_makespan(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=1001", NULL };
	struct child a, b;
	run_child("run", env, &a);
	run_child("run", env, &b);
	CU_ASSERT(exited_ok(&a));
	CU_ASSERT_EQUAL(a.ret, 0);
	CU_ASSERT_EQUAL(a.sim, 1);
	CU_ASSERT_EQUAL(a.nworkers, 4);
	CU_ASSERT_EQUAL(a.executed, 0);	/* kernels are not run */
	/* starpu_timing_now advanced by ceil(1001/4) task durations. */
	CU_ASSERT(close_to(a.makespan, 251 * TASK_US));
	/* Deterministic: bit for bit. */
	CU_ASSERT(a.makespan == b.makespan);
}

static void test_attach_same_makespan(void)
{
	NEED_SIMGRID();
	const char *hijack[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=201", NULL };
	const char *attach[] = { "STARPU_SIMGRID=1", "VELA_SIM_BOOT=attach", "VTEST_SIM_N=201", NULL };
	struct child h, a;
	run_child("run", hijack, &h);
	run_child("run", attach, &a);
	CU_ASSERT(exited_ok(&a));
	CU_ASSERT_EQUAL(a.ret, 0);
	CU_ASSERT_EQUAL(a.sim, 1);
	CU_ASSERT_EQUAL(a.executed, 0);
	CU_ASSERT(close_to(a.makespan, 51 * TASK_US));
	CU_ASSERT(close_to(a.makespan, h.makespan));
}

static void test_real_then_simulated(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID", "VTEST_SIM_N=41", NULL };
	struct child c;
	run_child("real-then-sim", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 1);
	CU_ASSERT_EQUAL(c.executed, 0);
	CU_ASSERT(close_to(c.makespan, 11 * TASK_US));
}

static void test_ncpu_restricts(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", "STARPU_NCPU=3", "VTEST_SIM_N=30", NULL };
	struct child c;
	run_child("run", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.nworkers, 3);
	CU_ASSERT(close_to(c.makespan, 10 * TASK_US));
}

static void test_no_model(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=4", NULL };
	struct child c;
	run_child("nomodel", env, &c);
	CU_ASSERT(exited_ok(&c));	/* the task fails, the program goes on */
	CU_ASSERT_EQUAL(c.executed, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "codelet 'unmodelled'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "cpu"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "STARPU_SIMGRID_DEFAULT_TASK_US"));

	const char *fallback[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=9", "STARPU_SIMGRID_DEFAULT_TASK_US=5", NULL };
	run_child("nomodel", fallback, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT(close_to(c.makespan, 3 * 5.0));
	CU_ASSERT_PTR_NULL(strstr(c.err, "unmodelled"));
}

/* A simulated kernel lasts what the model predicts (here the fallback, the
 * history being empty): recording that as a measurement would feed the
 * model its own output, so a simulated run never writes a sample, even
 * with STARPU_CALIBRATE=1. */
static void test_no_calibration_in_simulation(void)
{
	NEED_SIMGRID();
	char home[] = "/tmp/vtest_sim_homeXXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(home));
	char home_env[64], dir[128], cmd[256];
	snprintf(home_env, sizeof(home_env), "STARPU_HOME=%s", home);
	const char *env[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=40", "STARPU_SIMGRID_DEFAULT_TASK_US=5",
			      "STARPU_CALIBRATE=1", home_env, "STARPU_PERF_MODEL_DIR", NULL };
	struct child c;
	run_child("history", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(c.sim, 1);
	CU_ASSERT_EQUAL(c.executed, 0);
	CU_ASSERT(close_to(c.makespan, 10 * 5.0));
	/* No model file for the symbol appeared. */
	snprintf(dir, sizeof(dir), "%s/.starpu/sampling/codelets/45", home);
	snprintf(cmd, sizeof(cmd), "ls %s 2>/dev/null | grep -q '^vtest_sim_history'", dir);
	CU_ASSERT_NOT_EQUAL(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Writes vtest_sim_first's model for host vtesthost in home: one CPU
 * entry of footprint FIRST_FP, 100 us over 10 samples, and with
 * first_us > 0 its first-run entry (footprint FIRST_FP ^ 0x9e3779b9,
 * flops nan), first_us over 10 samples. */
static void write_first_model(const char *home, double first_us)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/.starpu/sampling/codelets/45", home);
	char cmd[320];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	CU_ASSERT_FATAL(system(cmd) == 0);
	strncat(path, "/vtest_sim_first.vtesthost", sizeof(path) - strlen(path) - 1);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "##################\n# Performance Model Version\n45\n\n# number of combinations\n1\n"
		   "# number of types devices\n1\n# device type\n0\n# device id\n0\n# number of cores\n1\n"
		   "# number of implementations\n1\n# number of entries\n%d\n"
		   "0 0 0 0 nan nan 0 0 0\nnan nan nan\n0\n", first_us > 0 ? 2 : 1);
	fprintf(f, "%08x 0 0 1.000000e+02 0 1.000000e+03 1.000000e+05 10\n", FIRST_FP);
	if (first_us > 0)
		fprintf(f, "%08x 0 nan %e 0 %e %e 10\n", FIRST_FP ^ 0x9e3779b9u, first_us, 10 * first_us,
			10 * first_us * first_us);
	CU_ASSERT(fclose(f) == 0);
}

/* A calibration keeps each footprint's first run in a process apart (it
 * pays for loading code); a simulation charges what those runs took more,
 * once per footprint and process: 5 tasks of 100 us on one CPU worker take
 * 500 us, 1,500 us when first runs took 1,100 us, and 500 us again in a
 * second starpu_init of the process. */
static void test_first_runs_charged(void)
{
	NEED_SIMGRID();
	char home[] = "/tmp/vtest_sim_homeXXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(home));
	char home_env[64], cmd[128];
	snprintf(home_env, sizeof(home_env), "STARPU_HOME=%s", home);
	const char *env[] = { "STARPU_SIMGRID=1", "VTEST_SIM_N=5", "STARPU_NCPU=1", "STARPU_HOSTNAME=vtesthost",
			      "STARPU_SCHED=eager", home_env, "STARPU_PERF_MODEL_DIR", NULL };
	struct child plain, first, again, second;
	write_first_model(home, 0);
	run_child("first", env, &plain);
	write_first_model(home, 1100);
	run_child("first", env, &first);
	run_child("first", env, &again);
	run_child("first-again", env, &second);
	CU_ASSERT(exited_ok(&plain) && exited_ok(&first));
	CU_ASSERT_EQUAL(first.sim, 1);
	CU_ASSERT_EQUAL(first.submit, 0);
	CU_ASSERT(close_to(plain.makespan, 5 * 100.0));
	CU_ASSERT(close_to(first.makespan - plain.makespan, 1000.0));
	CU_ASSERT(first.makespan == again.makespan);
	CU_ASSERT(exited_ok(&second) && second.submit == 0);
	CU_ASSERT(close_to(second.makespan, 5 * 100.0));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_plugin_missing(void)
{
	/* Both boots, and in a build without SimGrid. */
	const char *hijack[] = { "STARPU_SIMGRID=1", "VELA_SIM_PLUGIN=/nonexistent/libvela-sim.so", NULL };
	const char *attach[] = { "STARPU_SIMGRID=1", "VELA_SIM_BOOT=attach", "VELA_SIM_PLUGIN=/nonexistent/libvela-sim.so", NULL };
	const char *const *envs[] = { hijack, attach };
	for (int i = 0; i < 2; i++)
	{
		struct child c;
		run_child("run", envs[i], &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -ENODEV);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "STARPU_SIMGRID"));
#ifdef VELA_HAVE_SIMGRID
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "/nonexistent/libvela-sim.so"));
#else
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "no SimGrid support"));
#endif
	}
}

static void test_bad_platform(void)
{
	NEED_SIMGRID();
	const char *boots[] = { "VELA_SIM_BOOT=hijack", "VELA_SIM_BOOT=attach" };
	for (int i = 0; i < 2; i++)
	{
		const char *missing[] = { "STARPU_SIMGRID=1", boots[i], "STARPU_SIMGRID_PLATFORM=/nonexistent/p.xml", NULL };
		struct child c;
		run_child("run", missing, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "/nonexistent/p.xml"));

		const char *corrupt[] = { "STARPU_SIMGRID=1", boots[i],
					  "STARPU_SIMGRID_PLATFORM=" VTEST_SIM_DATA "/corrupt.platform.v4.xml", NULL };
		run_child("run", corrupt, &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(c.ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "corrupt.platform.v4.xml:"));	/* file:line */
	}
	/* No STARPU_SIMGRID_PLATFORM, and no calibration for that host. */
	const char *nohost[] = { "STARPU_SIMGRID=1", "STARPU_SIMGRID_PLATFORM", "STARPU_HOSTNAME=no-such-host", NULL };
	struct child c;
	run_child("run", nohost, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "no-such-host.platform"));
}

static void test_plain_pthread(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", NULL };
	struct child c;
	run_child("pthread", env, &c);
	/* A clear fatal error, not a hang. */
	CU_ASSERT(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGABRT);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "pthread_create"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "not part of the simulation"));
}


/* The waits of the SimGrid backend, when another actor holds the lock:
 * each ends exactly when the holder lets go (simulated time), a trylock on
 * a held mutex is EBUSY, a timed wait nobody signals times out at its
 * deadline. */
static void test_sim_contended_locks(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", NULL };
	struct child c;
	run_child("locks", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(c.ret, 0);
	CU_ASSERT_EQUAL(out_num(&c, "trylock"), EBUSY);
	CU_ASSERT(close_to(out_num(&c, "mutex_at"), 100.0));
	CU_ASSERT(close_to(out_num(&c, "cond_at"), 150.0));
	CU_ASSERT_EQUAL(out_num(&c, "timeout_ret"), ETIMEDOUT);
	/* The deadline is a wall-clock time, converted at the call: the real
	 * time the child spent since reading the clock comes off it, and that
	 * is at most the real time it measured around the call (no bound on
	 * how long that takes: a loaded or sanitized run is slow). */
	double at = out_num(&c, "timeout_at"), real = out_num(&c, "timeout_real");
	CU_ASSERT(real >= 0.0);
	CU_ASSERT(at <= 150.0 + LK_TIMEOUT_US + 1e-6);
	CU_ASSERT(at >= 150.0 - 1e-6);
	CU_ASSERT(at >= 150.0 + LK_TIMEOUT_US - real - 1e-6);
	CU_ASSERT(close_to(out_num(&c, "read_at"), LK_RW_END_US));
}

/* The backend's cache of the calling actor never answers for another
 * actor, at any stack depth, in either boot. */
static void test_sim_identity(void)
{
	NEED_SIMGRID();
	const char *hijack[] = { "STARPU_SIMGRID=1", NULL };
	const char *attach[] = { "STARPU_SIMGRID=1", "VELA_SIM_BOOT=attach", NULL };
	const char *const *envs[] = { hijack, attach };
	for (unsigned i = 0; i < 2; i++)
	{
		struct child c;
		run_child("identity", envs[i], &c);
		CU_ASSERT(exited_ok(&c));
		CU_ASSERT_EQUAL(out_num(&c, "sim"), 1);
		CU_ASSERT_EQUAL(out_num(&c, "identity_errors"), 0);
	}
}

/* The simulated machine is the platform's (sim/README.md): its 4 CPU
 * hosts give 4 workers on PUs 0..3 (this machine may have fewer, or
 * several PUs per core) and one team of 4. */
static void test_sim_topology(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", NULL };
	struct child c;
	run_child("topology", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(out_num(&c, "sim"), 1);
	CU_ASSERT_EQUAL(out_num(&c, "bind_ok"), 1);
	CU_ASSERT_EQUAL(out_num(&c, "topology"), 1);
	CU_ASSERT_EQUAL(out_num(&c, "ncombined"), 1);
	CU_ASSERT_EQUAL(out_num(&c, "team"), 4);
}

static void test_sim_lws_round_robin(void)
{
	NEED_SIMGRID();
	const char *env[] = { "STARPU_SIMGRID=1", "STARPU_SCHED=lws", NULL };
	struct child c;
	run_child("lws", env, &c);
	CU_ASSERT(exited_ok(&c));
	CU_ASSERT_EQUAL(out_num(&c, "sim"), 1);
	CU_ASSERT_EQUAL(out_num(&c, "lws_first"), 1);
	CU_ASSERT_EQUAL(out_num(&c, "lws_second"), 2);
	CU_ASSERT_EQUAL(out_num(&c, "lws_third"), 3);
}

static const struct vtest_case cases[] = {
	{ "real run of the same binary", test_real_run },
	{ "hijack boot: exact, deterministic makespan", test_hijack_makespan },
	{ "attach boot: same makespan", test_attach_same_makespan },
	{ "real run, then simulated, in one process", test_real_then_simulated },
	{ "STARPU_NCPU restricts simulated CPUs", test_ncpu_restricts },
	{ "task without a model", test_no_model },
	{ "simulated runs record no calibration", test_no_calibration_in_simulation },
	{ "a footprint's first runs are charged once", test_first_runs_charged },
	{ "plugin cannot be loaded", test_plugin_missing },
	{ "missing or corrupt platform", test_bad_platform },
	{ "plain pthread calling Vela", test_plain_pthread },
	{ "contended mutex, condition, timed wait, rwlock", test_sim_contended_locks },
	{ "each actor sees itself, at any stack depth", test_sim_identity },
	{ "the simulated machine's topology", test_sim_topology },
	{ "lws: application tasks round robin from the second worker", test_sim_lws_round_robin },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "simulation", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return sim_test_main(argc, argv, suites, child_main);
}
