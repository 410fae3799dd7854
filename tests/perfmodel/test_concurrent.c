/* test_concurrent: two processes calibrating the same models at the same
 * time lose no sample.
 *
 * Each child runs ROUNDS init/shutdown cycles; each cycle records TASKS
 * measurements of two models and saves them at shutdown, so that the saves
 * of the two processes interleave (they start together, released by a
 * pipe). Saving re-reads the file under the directory lock and adds only
 * the new samples, so in the end every entry holds all 2 * ROUNDS * TASKS - 2
 * samples (the first run of each process is in the first-run entry).
 * A third process reads the files continuously meanwhile and
 * must always find a complete file (saves rename a finished temporary
 * file over the old one).
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vtest.h"

#define ROUNDS 6
#define TASKS 5
#define HOST "vtesthost"

static char tmpdir[256];

static void kernel(void *buffers[], void *arg)
{
	(void) arg;
	double *x = (double *) STARPU_VECTOR_GET_PTR(buffers[0]);
	x[0] += 1.0;
}

static struct starpu_perfmodel m1 = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_conc1" };
static struct starpu_perfmodel m2 = { .type = STARPU_REGRESSION_BASED, .symbol = "vtest_conc2" };
static struct starpu_codelet cl1 = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &m1 };
static struct starpu_codelet cl2 = { .cpu_funcs = { kernel }, .nbuffers = 1, .modes = { STARPU_RW }, .model = &m2 };

static int child(int go_fd)
{
	char c;
	if (read(go_fd, &c, 1) != 1)
		return 2;
	static double x[64];
	for (int r = 0; r < ROUNDS; r++)
	{
		if (starpu_init(NULL))
			return 3;
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) x, 64, sizeof(double));
		for (int i = 0; i < TASKS; i++)
		{
			struct starpu_task *t = starpu_task_create();
			t->cl = i % 2 ? &cl2 : &cl1;
			t->handles[0] = h;
			if (starpu_task_submit(t))
				return 4;
			t = starpu_task_create();
			t->cl = i % 2 ? &cl1 : &cl2;
			t->handles[0] = h;
			if (starpu_task_submit(t))
				return 4;
		}
		starpu_task_wait_for_all();
		starpu_data_unregister(h);
		starpu_shutdown();
	}
	return 0;
}

/* Loads a model file again and again while the writers run. */
static int reader(const char *symbol)
{
	for (int i = 0; i < 2000; i++)
	{
		struct starpu_perfmodel m;
		memset(&m, 0, sizeof(m));
		int ret = starpu_perfmodel_load_symbol(symbol, &m);
		if (ret < 0)
			return 5;
		starpu_perfmodel_unload_model(&m);
		usleep(200);
	}
	return 0;
}

static int count(const char *symbol)
{
	struct starpu_perfmodel m;
	memset(&m, 0, sizeof(m));
	if (starpu_perfmodel_load_symbol(symbol, &m))
		return -1;
	struct starpu_perfmodel_device cpu = { STARPU_CPU_WORKER, 0, 1 };
	int comb = starpu_perfmodel_arch_comb_add(1, &cpu);
	struct starpu_perfmodel_per_arch *pa = starpu_perfmodel_get_model_per_arch(&m, starpu_perfmodel_arch_comb_fetch(comb), 0);
	/* One footprint only: its entry and its first-run entry (flops NaN:
	 * the first run of each process). */
	int n = -1, first = -1, others = 0;
	for (struct starpu_perfmodel_history_list *l = pa ? pa->list : NULL; l; l = l->next)
		if (isnan(l->entry->flops))
			first = first < 0 ? (int) l->entry->nsample : -2;
		else
			n = n < 0 ? (int) l->entry->nsample : -2;
	if (n < 0 || first != 2)
		n = -2;
	if (!strcmp(symbol, "vtest_conc2") && pa && pa->regression.nsample != (unsigned) n)
		n = -3;	/* regression sums merged too */
	starpu_perfmodel_unload_model(&m);
	return n;
}

static void test_two_processes(void)
{
	int go[2];
	CU_ASSERT_FATAL(pipe(go) == 0);
	pid_t pids[3];
	for (int k = 0; k < 2; k++)
	{
		pids[k] = fork();
		CU_ASSERT_FATAL(pids[k] >= 0);
		if (pids[k] == 0)
		{
			close(go[1]);
			_exit(child(go[0]));
		}
	}
	pids[2] = fork();
	CU_ASSERT_FATAL(pids[2] >= 0);
	if (pids[2] == 0)
	{
		close(go[1]);
		char c;
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(reader("vtest_conc1"));
	}
	close(go[0]);
	CU_ASSERT(write(go[1], "ggg", 3) == 3);
	close(go[1]);
	for (int k = 0; k < 2; k++)
	{
		int status;
		CU_ASSERT(waitpid(pids[k], &status, 0) == pids[k]);
		CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	kill(pids[2], SIGTERM);
	int status;
	CU_ASSERT(waitpid(pids[2], &status, 0) == pids[2]);
	/* The reader never met a torn file (exit 5). */
	CU_ASSERT(!(WIFEXITED(status) && WEXITSTATUS(status) == 5));
	CU_ASSERT(count("vtest_conc1") == 2 * ROUNDS * TASKS - 2);
	CU_ASSERT(count("vtest_conc2") == 2 * ROUNDS * TASKS - 2);
}

static int suite_init(void)
{
	const char *base = getenv("STARPU_HOME");
	snprintf(tmpdir, sizeof(tmpdir), "%s/vtest-conc-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir))
		return -1;
	char sampling[512];
	snprintf(sampling, sizeof(sampling), "%s/sampling", tmpdir);
	vtest_setenv("STARPU_PERF_MODEL_DIR", sampling);
	vtest_setenv("STARPU_HOSTNAME", HOST);
	vtest_setenv("STARPU_CALIBRATE", "1");
	vtest_setenv("STARPU_NCPU", "1");
	/* No OpenCL: asking the ICD loader for devices loads the installed
	 * implementations, whose threads then outlive starpu_shutdown, and
	 * this test forks afterwards (ThreadSanitizer refuses threads after
	 * a multi-threaded fork). */
	vtest_setenv("STARPU_NOPENCL", "0");
	/* Every sample counts here, however noisy. */
	vtest_setenv("STARPU_HISTORY_MAX_ERROR", "1000000");
	/* The bus calibration is not what this tests: do it once, here. */
	if (starpu_init(NULL))
		return -1;
	starpu_shutdown();
	return 0;
}

static int suite_clean(void)
{
	vtest_env_restore();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct vtest_case cases[] = {
		{ "two processes calibrating the same models lose no sample", test_two_processes },
		VTEST_END
	};
	static const struct vtest_suite suites[] = {
		{ "concurrent", suite_init, suite_clean, cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
