/* test_parallel: combined workers and parallel tasks.
 *
 * Combined workers come from the topology (sizes within
 * STARPU_MIN/MAX_WORKERSIZE) or from STARPU_SINGLE_COMBINED_WORKER; an SPMD
 * task runs its kernel once per team member with ranks 0..size-1, a
 * FORKJOIN task once on the master, and either completes once; a team's
 * members run nothing else meanwhile; peager and pheft run a mix of
 * sequential and parallel tasks correctly; a team's run calibrates the
 * combined arch; bad sizes and bad starpu_combined_worker_assign_workerid
 * calls are reported.
 *
 * The machine may have fewer cores than workers (STARPU_NCPU=4 on 2): the
 * checks are about who runs what, never about timings.
 */
#include "vtest.h"

#include <starpu.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int start(const char *policy, int ncpus)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = policy;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.ncpus = ncpus;
	return starpu_init(&conf);
}

/* The largest combined worker, or -1. */
static int largest_combined(int *size_out)
{
	int best = -1, best_size = 0;
	unsigned n = starpu_combined_worker_get_count();
	for (unsigned k = 0; k < n; k++)
	{
		int id = (int) (starpu_worker_get_count() + k), size, *members;
		if (starpu_combined_worker_get_description(id, &size, &members) == 0 && size > best_size)
		{
			best = id;
			best_size = size;
		}
	}
	if (size_out)
		*size_out = best_size;
	return best;
}

/* Every combined worker is a sorted set of distinct CPU workers, sized
 * within [min, max], with a perf arch of size cores. */
static void check_combined_sane(int min, int max)
{
	unsigned nw = starpu_worker_get_count();
	unsigned n = starpu_combined_worker_get_count();
	for (unsigned k = 0; k < n; k++)
	{
		int id = (int) (nw + k), size, *members;
		CU_ASSERT_TRUE(starpu_worker_is_combined_worker(id));
		CU_ASSERT_EQUAL_FATAL(starpu_combined_worker_get_description(id, &size, &members), 0);
		CU_ASSERT_TRUE(size >= min && size <= max);
		for (int i = 0; i < size; i++)
		{
			CU_ASSERT_TRUE(members[i] >= 0 && (unsigned) members[i] < nw);
			if (i)
				CU_ASSERT_TRUE(members[i] > members[i - 1]);
		}
		struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(id, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(arch);
		CU_ASSERT_EQUAL(arch->ndevices, 1);
		CU_ASSERT_EQUAL(arch->devices[0].type, STARPU_CPU_WORKER);
		CU_ASSERT_EQUAL(arch->devices[0].ncores, size);
	}
	CU_ASSERT_FALSE(starpu_worker_is_combined_worker(0));
	CU_ASSERT_FALSE(starpu_worker_is_combined_worker((int) (nw + n)));
}

/* ---- topology ---- */

static void test_combined_ncpu4(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager", 4), 0);
	CU_ASSERT_EQUAL(starpu_worker_get_count(), 4);
	CU_ASSERT_TRUE(starpu_combined_worker_get_count() >= 1);
	check_combined_sane(2, 4);
	int size;
	CU_ASSERT_TRUE(largest_combined(&size) >= 4);
	CU_ASSERT_EQUAL(size, 4);	/* the machine holds every worker */
	starpu_shutdown();

	vtest_setenv("STARPU_MIN_WORKERSIZE", "2");
	vtest_setenv("STARPU_MAX_WORKERSIZE", "2");
	CU_ASSERT_EQUAL_FATAL(start("eager", 4), 0);
	CU_ASSERT_TRUE(starpu_combined_worker_get_count() >= 1);
	check_combined_sane(2, 2);
	starpu_shutdown();
	vtest_env_restore();
}

static void test_single_combined(void)
{
	vtest_setenv("STARPU_SINGLE_COMBINED_WORKER", "1");
	CU_ASSERT_EQUAL_FATAL(start("eager", 3), 0);
	CU_ASSERT_EQUAL(starpu_worker_get_count(), 3);
	CU_ASSERT_EQUAL_FATAL(starpu_combined_worker_get_count(), 1);
	int size, *members;
	CU_ASSERT_EQUAL_FATAL(starpu_combined_worker_get_description(3, &size, &members), 0);
	CU_ASSERT_EQUAL_FATAL(size, 3);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(members[i], i);
	starpu_shutdown();
	vtest_env_restore();

	/* The conf field does the same. */
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.single_combined_worker = 1;
	CU_ASSERT_EQUAL_FATAL(starpu_init(&conf), 0);
	CU_ASSERT_EQUAL(starpu_combined_worker_get_count(), 1);
	starpu_shutdown();
}

/* ---- SPMD and FORKJOIN ---- */

#define NX 64

static _Atomic int ncalls, rank_mask, size_seen, size_bad, id_seen, ncallbacks, member_not_blocked;

static void reset_counters(void)
{
	atomic_store(&ncalls, 0);
	atomic_store(&rank_mask, 0);
	atomic_store(&size_seen, 0);
	atomic_store(&size_bad, 0);
	atomic_store(&id_seen, -1);
	atomic_store(&ncallbacks, 0);
	atomic_store(&member_not_blocked, 0);
}

static void note_call(void)
{
	atomic_fetch_add(&ncalls, 1);
	int size = starpu_combined_worker_get_size();
	int prev = atomic_exchange(&size_seen, size);
	if (prev && prev != size)
		atomic_fetch_add(&size_bad, 1);
	atomic_fetch_or(&rank_mask, 1 << starpu_combined_worker_get_rank());
	atomic_store(&id_seen, starpu_combined_worker_get_id());
}

/* Each rank fills its slice of the vector with rank+1. */
static void spmd_fill(void *buffers[], void *arg)
{
	(void) arg;
	note_call();
	int *v = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	int rank = starpu_combined_worker_get_rank(), size = starpu_combined_worker_get_size();
	unsigned lo = n * (unsigned) rank / (unsigned) size, hi = n * (unsigned) (rank + 1) / (unsigned) size;
	for (unsigned i = lo; i < hi; i++)
		v[i] = rank + 1;
	if (rank == 0)
	{
		/* The other members are blocked in this team. */
		int id = starpu_combined_worker_get_id(), sz, *members;
		if (starpu_combined_worker_get_description(id, &sz, &members) == 0)
			for (int i = 1; i < sz; i++)
				if (!starpu_worker_is_blocked_in_parallel(members[i]))
					atomic_fetch_add(&member_not_blocked, 1);
	}
}

static void forkjoin_fill(void *buffers[], void *arg)
{
	(void) arg;
	note_call();
	int *v = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		v[i] = starpu_combined_worker_get_size();
}

static void count_callback(void *arg)
{
	(void) arg;
	atomic_fetch_add(&ncallbacks, 1);
}

static struct starpu_codelet spmd_cl = {
	.type = STARPU_SPMD,
	.max_parallelism = INT_MAX,
	.cpu_funcs = { spmd_fill },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "spmd_fill",
};

static struct starpu_codelet forkjoin_cl = {
	.type = STARPU_FORKJOIN,
	.max_parallelism = INT_MAX,
	.cpu_funcs = { forkjoin_fill },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "forkjoin_fill",
};

static int run_on(struct starpu_codelet *cl, int workerid, int *v, unsigned n)
{
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, n, sizeof(int));
	struct starpu_task *task = starpu_task_create();
	task->cl = cl;
	task->handles[0] = h;
	task->execute_on_a_specific_worker = 1;
	task->workerid = (unsigned) workerid;
	task->callback_func = count_callback;
	int ret = starpu_task_submit(task);
	starpu_task_wait_for_all();
	starpu_data_unregister(h);
	return ret;
}

static void test_spmd(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager", 4), 0);
	int size, id = largest_combined(&size);
	CU_ASSERT_FATAL(id >= 4 && size == 4);
	for (int round = 0; round < 3; round++)
	{
		int v[NX] = { 0 };
		reset_counters();
		CU_ASSERT_EQUAL_FATAL(run_on(&spmd_cl, id, v, NX), 0);
		CU_ASSERT_EQUAL(atomic_load(&ncalls), size);
		CU_ASSERT_EQUAL(atomic_load(&rank_mask), (1 << size) - 1);
		CU_ASSERT_EQUAL(atomic_load(&size_seen), size);
		CU_ASSERT_EQUAL(atomic_load(&size_bad), 0);
		CU_ASSERT_EQUAL(atomic_load(&id_seen), id);
		CU_ASSERT_EQUAL(atomic_load(&ncallbacks), 1);
		CU_ASSERT_EQUAL(atomic_load(&member_not_blocked), 0);
		for (int i = 0; i < NX; i++)
			CU_ASSERT_EQUAL(v[i], i * size / NX + 1);
	}
	/* Afterwards nobody is blocked any more. */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_FALSE(starpu_worker_is_blocked_in_parallel(i));
	starpu_shutdown();
}

static void test_forkjoin(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager", 4), 0);
	int size, id = largest_combined(&size);
	CU_ASSERT_FATAL(id >= 4);
	int v[NX] = { 0 };
	reset_counters();
	CU_ASSERT_EQUAL_FATAL(run_on(&forkjoin_cl, id, v, NX), 0);
	CU_ASSERT_EQUAL(atomic_load(&ncalls), 1);
	CU_ASSERT_EQUAL(atomic_load(&size_seen), size);
	CU_ASSERT_EQUAL(atomic_load(&rank_mask), 1);
	CU_ASSERT_EQUAL(atomic_load(&id_seen), id);
	CU_ASSERT_EQUAL(atomic_load(&ncallbacks), 1);
	for (int i = 0; i < NX; i++)
		CU_ASSERT_EQUAL(v[i], size);
	/* On a plain worker, the same codelet sees a team of one. */
	reset_counters();
	CU_ASSERT_EQUAL_FATAL(run_on(&forkjoin_cl, 1, v, NX), 0);
	CU_ASSERT_EQUAL(atomic_load(&size_seen), 1);
	CU_ASSERT_EQUAL(atomic_load(&id_seen), 1);
	starpu_shutdown();
}

/* ---- a team's members run nothing else meanwhile ---- */

static _Atomic int par_running, seq_running, overlaps;

static void par_kernel(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	atomic_fetch_add(&par_running, 1);
	if (atomic_load(&seq_running))
		atomic_fetch_add(&overlaps, 1);
	usleep(5000);
	if (atomic_load(&seq_running))
		atomic_fetch_add(&overlaps, 1);
	atomic_fetch_sub(&par_running, 1);
}

static void seq_kernel(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	atomic_fetch_add(&seq_running, 1);
	if (atomic_load(&par_running))
		atomic_fetch_add(&overlaps, 1);
	usleep(200);
	if (atomic_load(&par_running))
		atomic_fetch_add(&overlaps, 1);
	atomic_fetch_sub(&seq_running, 1);
}

static struct starpu_codelet par_cl = {
	.type = STARPU_SPMD, .max_parallelism = INT_MAX, .cpu_funcs = { par_kernel }, .nbuffers = 0, .name = "par",
};
static struct starpu_codelet seq_cl = {
	.cpu_funcs = { seq_kernel }, .nbuffers = 0, .name = "seq",
};

static void test_team_exclusive(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager", 4), 0);
	int size, id = largest_combined(&size);
	CU_ASSERT_FATAL(id >= 4 && size == 4);	/* the whole machine: every worker */
	atomic_store(&overlaps, 0);
	for (int i = 0; i < 120; i++)
	{
		struct starpu_task *task = starpu_task_create();
		if (i % 20 == 0)
		{
			task->cl = &par_cl;
			task->execute_on_a_specific_worker = 1;
			task->workerid = (unsigned) id;
		}
		else
			task->cl = &seq_cl;
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(task), 0);
	}
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&overlaps), 0);
	starpu_shutdown();
}

/* ---- policies: a mix of sequential and parallel tasks ---- */

#define NPAR 12
#define NSEQ 60

static _Atomic int max_size_seen;

static void par_vec(void *buffers[], void *arg)
{
	(void) arg;
	int *v = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	int rank = starpu_combined_worker_get_rank(), size = starpu_combined_worker_get_size();
	int prev = atomic_load(&max_size_seen);
	while (size > prev && !atomic_compare_exchange_weak(&max_size_seen, &prev, size))
		;
	unsigned lo = n * (unsigned) rank / (unsigned) size, hi = n * (unsigned) (rank + 1) / (unsigned) size;
	for (unsigned i = lo; i < hi; i++)
		v[i] += (int) i;
}

static void seq_var(void *buffers[], void *arg)
{
	(void) arg;
	int *x = (int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	*x = *x * 3 + 1;
}

static void run_mix(const char *policy, int max_parallelism, int *max_seen)
{
	struct starpu_codelet pcl = {
		.type = STARPU_SPMD, .max_parallelism = max_parallelism, .cpu_funcs = { par_vec },
		.nbuffers = 1, .modes = { STARPU_RW }, .name = "par_vec",
	};
	struct starpu_codelet scl = {
		.cpu_funcs = { seq_var }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "seq_var",
	};
	CU_ASSERT_EQUAL_FATAL(start(policy, 4), 0);
	atomic_store(&max_size_seen, 0);
	static int vec[NPAR][NX];
	int vars[4] = { 0 };
	starpu_data_handle_t hv[NPAR], hs[4];
	for (int i = 0; i < NPAR; i++)
	{
		memset(vec[i], 0, sizeof(vec[i]));
		starpu_vector_data_register(&hv[i], STARPU_MAIN_RAM, (uintptr_t) vec[i], NX, sizeof(int));
	}
	for (int i = 0; i < 4; i++)
		starpu_variable_data_register(&hs[i], STARPU_MAIN_RAM, (uintptr_t) &vars[i], sizeof(int));
	for (int k = 0; k < NSEQ; k++)
	{
		CU_ASSERT_EQUAL(starpu_task_insert(&scl, STARPU_RW, hs[k % 4], 0), 0);
		if (k % 5 == 0)
			CU_ASSERT_EQUAL(starpu_task_insert(&pcl, STARPU_RW, hv[(k / 5) % NPAR], 0), 0);
	}
	starpu_task_wait_for_all();
	for (int i = 0; i < NPAR; i++)
		starpu_data_unregister(hv[i]);
	for (int i = 0; i < 4; i++)
		starpu_data_unregister(hs[i]);
	/* Each vector got one parallel task (NSEQ / 5 == NPAR). */
	for (int i = 0; i < NPAR; i++)
		for (int j = 0; j < NX; j++)
			if (vec[i][j] != j) { fprintf(stderr, "vec[%d][%d]=%d\n", i, j, vec[i][j]); CU_FAIL("vec"); }
	int expect = 0;
	for (int k = 0; k < NSEQ / 4; k++)
		expect = expect * 3 + 1;
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(vars[i], expect);
	*max_seen = atomic_load(&max_size_seen);
	starpu_shutdown();
}

static void test_peager_mix(void)
{
	int seen;
	/* Only masters take parallel tasks, each for its largest team: every
	 * parallel task runs on 2 workers or more. */
	run_mix("peager", INT_MAX, &seen);
	CU_ASSERT_TRUE(seen >= 2 && seen <= 4);
	run_mix("peager", 2, &seen);
	CU_ASSERT_EQUAL(seen, 2);
}

static void test_pheft_mix(void)
{
	int seen;
	run_mix("pheft", INT_MAX, &seen);
	CU_ASSERT_TRUE(seen >= 2 && seen <= 4);
	run_mix("pheft", 2, &seen);
	CU_ASSERT_TRUE(seen >= 1 && seen <= 2);
}

/* Without a model every expected end is "now": pheft must still spread
 * the tasks (it used to queue them all on the first worker). */
static _Atomic int ran_on[STARPU_NMAXWORKERS];

static void note_worker(void *descr[], void *arg)
{
	(void) descr;
	(void) arg;
	atomic_fetch_add(&ran_on[starpu_worker_get_id()], 1);
	usleep(2000);
}

static void test_pheft_spreads(void)
{
	struct starpu_codelet cl = { .cpu_funcs = { note_worker }, .name = "pheft_spread" };
	CU_ASSERT_EQUAL_FATAL(start("pheft", 4), 0);
	for (int i = 0; i < STARPU_NMAXWORKERS; i++)
		atomic_store(&ran_on[i], 0);
	for (int i = 0; i < 32; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&cl, 0), 0);
	starpu_task_wait_for_all();
	int used = 0, total = 0, most = 0;
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
	{
		int k = atomic_load(&ran_on[w]);
		used += k > 0;
		total += k;
		if (k > most)
			most = k;
	}
	CU_ASSERT_EQUAL(total, 32);
	/* Every worker got some; none more than half (a fair share is 8; a
	 * push may land on a busy worker while another is still waking). */
	CU_ASSERT_EQUAL(used, 4);
	CU_ASSERT_TRUE(most <= 16);
	starpu_shutdown();
}

/* A worker's local queue runs highest priority first, submission order
 * among equals, whatever order the pushes come in. */
static _Atomic int gate, gate_started;
static int order[16], norder;

static void wait_gate(void *descr[], void *arg)
{
	(void) descr;
	(void) arg;
	atomic_store(&gate_started, 1);
	while (!atomic_load(&gate))
		usleep(100);
}

static void record(void *descr[], void *arg)
{
	(void) descr;
	int id;
	starpu_codelet_unpack_args(arg, &id);
	order[norder++] = id;	/* one worker: no race */
}

static void test_local_priorities(void)
{
	struct starpu_codelet gate_cl = { .cpu_funcs = { wait_gate }, .name = "gate" };
	struct starpu_codelet rec_cl = { .cpu_funcs = { record }, .name = "record" };
	CU_ASSERT_EQUAL_FATAL(start("pheft", 2), 0);
	atomic_store(&gate, 0);
	atomic_store(&gate_started, 0);
	norder = 0;
	CU_ASSERT_EQUAL(starpu_task_insert(&gate_cl, STARPU_EXECUTE_ON_WORKER, 0, 0), 0);
	/* Queue the others only once worker 0 is held in the gate. */
	while (!atomic_load(&gate_started))
		usleep(100);
	/* id = 10 * priority + rank among that priority. */
	static const int prio[] = { 1, 3, 2, 3, 1, 5, 0, 2, 5, 3 };
	int rank[6] = { 0 }, expect[10];
	for (int i = 0; i < 10; i++)
	{
		int id = 10 * prio[i] + rank[prio[i]]++;
		expect[i] = id;
		CU_ASSERT_EQUAL(starpu_task_insert(&rec_cl, STARPU_EXECUTE_ON_WORKER, 0, STARPU_PRIORITY, prio[i],
						   STARPU_VALUE, &id, sizeof(id), 0), 0);
	}
	atomic_store(&gate, 1);
	starpu_task_wait_for_all();
	starpu_shutdown();
	/* Sorted descending by priority, stable among equals (ids grow). */
	for (int i = 1; i < 10; i++)
		for (int j = i; j > 0 && expect[j] / 10 > expect[j - 1] / 10; j--)
		{
			int t = expect[j];
			expect[j] = expect[j - 1];
			expect[j - 1] = t;
		}
	CU_ASSERT_EQUAL_FATAL(norder, 10);
	for (int i = 0; i < 10; i++)
		if (order[i] != expect[i])
		{
			fprintf(stderr, "position %d: ran %d, expected %d\n", i, order[i], expect[i]);
			CU_FAIL("local queue order");
		}
}

/* ---- calibration on the combined arch ---- */

static struct starpu_perfmodel par_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "vela_test_parallel_calib",
};

static void test_calibration(void)
{
	char dir[] = "/tmp/vela_test_parallel_XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	vtest_setenv("STARPU_PERF_MODEL_DIR", dir);
	vtest_setenv("STARPU_CALIBRATE", "1");
	/* Few samples, and no outlier rejection: timings on a loaded machine
	 * vary, and only the arch the samples land on matters here. */
	vtest_setenv("STARPU_CALIBRATE_MINIMUM", "3");
	vtest_setenv("STARPU_HISTORY_MAX_ERROR", "100000");
	struct starpu_codelet cl = {
		.type = STARPU_SPMD, .max_parallelism = INT_MAX, .cpu_funcs = { par_vec },
		.nbuffers = 1, .modes = { STARPU_RW }, .model = &par_model, .name = "par_calib",
	};
	CU_ASSERT_EQUAL_FATAL(start("pheft", 4), 0);
	int size, id = largest_combined(&size);
	CU_ASSERT_FATAL(id >= 4);
	static int v[NX];
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, NX, sizeof(int));
	struct starpu_task *probe = starpu_task_create();
	probe->cl = &cl;
	probe->handles[0] = h;
	probe->destroy = 0;
	struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(id, 0);
	CU_ASSERT_TRUE(isnan(starpu_task_expected_length(probe, arch, 0)));
	for (int i = 0; i < 12; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &cl;
		task->handles[0] = h;
		task->execute_on_a_specific_worker = 1;
		task->workerid = (unsigned) id;
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	}
	starpu_task_wait_for_all();
	double len = starpu_task_expected_length(probe, arch, 0);
	CU_ASSERT_FALSE(isnan(len));
	CU_ASSERT_TRUE(len >= 0.0);
	/* pheft now has an estimate for that team: tasks still run fine. */
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&cl, STARPU_RW, h, 0), 0);
	starpu_task_wait_for_all();
	starpu_task_destroy(probe);
	starpu_data_unregister(h);
	starpu_shutdown();
	vtest_env_restore();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* ---- bad input ---- */

static void bad_env(const char *min, const char *max, const char *expect_var)
{
	if (min)
		vtest_setenv("STARPU_MIN_WORKERSIZE", min);
	if (max)
		vtest_setenv("STARPU_MAX_WORKERSIZE", max);
	vtest_capture_stderr_begin();
	int ret = start("eager", 4);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, expect_var));
	check_combined_sane(2, 4);
	CU_ASSERT_TRUE(starpu_combined_worker_get_count() >= 1);
	starpu_shutdown();
	vtest_env_restore();
}

static void test_bad_env(void)
{
	bad_env("abc", NULL, "STARPU_MIN_WORKERSIZE='abc'");
	bad_env(NULL, "0", "STARPU_MAX_WORKERSIZE=0");
	bad_env(NULL, "99", "STARPU_MAX_WORKERSIZE=99");
	bad_env("3", "2", "STARPU_MIN_WORKERSIZE=3 is larger than STARPU_MAX_WORKERSIZE=2");
	bad_env("2x", "4", "STARPU_MIN_WORKERSIZE='2x'");
}

static void test_assign(void)
{
	CU_ASSERT_EQUAL_FATAL(start("eager", 4), 0);
	unsigned before = starpu_combined_worker_get_count();
	int bad_id[] = { 0, 99 };
	vtest_capture_stderr_begin();
	int ret = starpu_combined_worker_assign_workerid(2, bad_id);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "starpu_combined_worker_assign_workerid: 99"));

	int dup[] = { 1, 2, 1 };
	vtest_capture_stderr_begin();
	ret = starpu_combined_worker_assign_workerid(3, dup);
	err = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "worker 1 is listed twice"));

	vtest_capture_stderr_begin();
	ret = starpu_combined_worker_assign_workerid(0, dup);
	err = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nworkers=0"));
	CU_ASSERT_EQUAL(starpu_combined_worker_get_count(), before);

	/* A valid one: usable at once. */
	int pair[] = { 3, 1 };
	int id = starpu_combined_worker_assign_workerid(2, pair);
	CU_ASSERT_EQUAL_FATAL(id, (int) (4 + before));
	int size, *members;
	CU_ASSERT_EQUAL(starpu_combined_worker_get_description(id, &size, &members), 0);
	CU_ASSERT_EQUAL(size, 2);
	CU_ASSERT_EQUAL(members[0], 1);
	CU_ASSERT_EQUAL(members[1], 3);
	int v[NX] = { 0 };
	reset_counters();
	CU_ASSERT_EQUAL(run_on(&spmd_cl, id, v, NX), 0);
	CU_ASSERT_EQUAL(atomic_load(&ncalls), 2);
	CU_ASSERT_EQUAL(atomic_load(&rank_mask), 3);
	CU_ASSERT_EQUAL(atomic_load(&ncallbacks), 1);

	/* A sequential codelet cannot go to a team. */
	CU_ASSERT_FALSE(starpu_combined_worker_can_execute_task((unsigned) id, &(struct starpu_task) { .cl = &seq_cl, .where = -1 }, 0));
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_combined_worker_get_description(2, &size, &members), -EINVAL);
	vtest_capture_stderr_end();
	starpu_shutdown();
}

static const struct vtest_case topo_cases[] = {
	{ "combined_ncpu4", test_combined_ncpu4 },
	{ "single_combined", test_single_combined },
	VTEST_END
};

static const struct vtest_case exec_cases[] = {
	{ "spmd", test_spmd },
	{ "forkjoin", test_forkjoin },
	{ "team_exclusive", test_team_exclusive },
	{ "peager_mix", test_peager_mix },
	{ "pheft_mix", test_pheft_mix },
	{ "pheft_spreads", test_pheft_spreads },
	{ "local_priorities", test_local_priorities },
	{ "calibration", test_calibration },
	VTEST_END
};

static const struct vtest_case bad_cases[] = {
	{ "bad_env", test_bad_env },
	{ "assign", test_assign },
	VTEST_END
};

int main(int argc, char **argv)
{
	/* Only the environment these tests set. */
	unsetenv("STARPU_SCHED");
	unsetenv("STARPU_NCPU");
	unsetenv("STARPU_MIN_WORKERSIZE");
	unsetenv("STARPU_MAX_WORKERSIZE");
	unsetenv("STARPU_SINGLE_COMBINED_WORKER");
	setenv("STARPU_SILENT", "1", 1);
	static const struct vtest_suite suites[] = {
		{ "topology", NULL, NULL, topo_cases },
		{ "execution", NULL, NULL, exec_cases },
		{ "bad_input", NULL, NULL, bad_cases },
		{ NULL, NULL, NULL, NULL },
	};
	return vtest_run(argc, argv, suites);
}
