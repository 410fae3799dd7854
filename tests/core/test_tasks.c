/* test_tasks: the life of a task.
 *
 * Creation, submission and the ways to wait for tasks (starpu_task_wait,
 * starpu_task_wait_for_all, synchronous tasks, starpu_task_wait_for_n_submitted),
 * callbacks and prologues, codelet arguments, codelet-less tasks, automatic
 * destruction, stack tasks (starpu_task_init / starpu_task_clean),
 * regeneration, explicit worker placement, priorities under the "prio"
 * policy, tasks with more buffers than STARPU_NMAXBUFS, and codelet fields
 * (where, cpu_funcs_name). Each case starts and stops its own runtime.
 */
#include <starpu.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "vtest.h"

/* Starts StarPU with ncpus CPU workers and the given policy (NULL: the
 * default), whatever STARPU_NCPU / STARPU_SCHED say outside. STARPU_SCHED
 * wins over conf.sched_policy_name even with the precedence flag, so it is
 * unset for the duration of the init. */
static int start(int ncpus, const char *sched)
{
	const char *old = getenv("STARPU_SCHED");
	char *saved = old ? strdup(old) : NULL;
	unsetenv("STARPU_SCHED");

	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.sched_policy_name = sched;
	conf.precedence_over_environment_variables = 1;
	int ret = starpu_init(&conf);

	if (saved)
		setenv("STARPU_SCHED", saved, 1);
	free(saved);
	return ret;
}

static atomic_int counter;
static atomic_int seq;

static void count_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	atomic_fetch_add(&counter, 1);
}

static struct starpu_codelet count_cl =
{
	.cpu_funcs = { count_cpu },
	.nbuffers = 0,
};

/* n tasks from starpu_task_create run, each once. */
static void run_created(int n)
{
	atomic_store(&counter, 0);
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *task = starpu_task_create();
		CU_ASSERT_PTR_NOT_NULL_FATAL(task);
		task->cl = &count_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), n);
}

/* ---- create / submit / wait ------------------------------------------ */

static void test_submit_wait(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);

	struct starpu_task *task = starpu_task_create();
	CU_ASSERT_PTR_NOT_NULL_FATAL(task);
	CU_ASSERT_EQUAL(task->detach, 1);
	CU_ASSERT_EQUAL(task->destroy, 1);
	task->cl = &count_cl;
	task->detach = 0;
	task->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(task), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 1);
	starpu_task_destroy(task);

	/* detach=0 with destroy=1: the wait frees it */
	task = starpu_task_create();
	task->cl = &count_cl;
	task->detach = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(task), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 2);

	starpu_shutdown();
}

static void test_wait_for_all(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);
	for (int i = 0; i < 200; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &count_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 200);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 0);
	CU_ASSERT_EQUAL(starpu_task_nready(), 0);
	/* nothing to wait for: returns at once */
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_shutdown();
}

static void test_synchronous(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);
	for (int i = 1; i <= 10; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &count_cl;
		task->synchronous = 1;
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
		/* done by the time submit returns */
		CU_ASSERT_EQUAL(atomic_load(&counter), i);
	}
	starpu_shutdown();
}

/* ---- callbacks, prologues, arguments --------------------------------- */

struct trace
{
	int prologue_at;	/* value of seq when each ran, -1 if never */
	int codelet_at;
	int callback_at;
	atomic_int ncallbacks;
	atomic_int nprologues;
	void *callback_arg_seen;
	void *prologue_arg_seen;
};

static void trace_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	struct trace *t = cl_arg;
	t->codelet_at = atomic_fetch_add(&seq, 1);
}

static struct starpu_codelet trace_cl =
{
	.cpu_funcs = { trace_cpu },
	.nbuffers = 0,
};

static struct trace *cb_target;	/* where callbacks record (single test) */

static void trace_callback(void *arg)
{
	cb_target->callback_arg_seen = arg;
	cb_target->callback_at = atomic_fetch_add(&seq, 1);
	atomic_fetch_add(&cb_target->ncallbacks, 1);
}

static void trace_prologue(void *arg)
{
	cb_target->prologue_arg_seen = arg;
	cb_target->prologue_at = atomic_fetch_add(&seq, 1);
	atomic_fetch_add(&cb_target->nprologues, 1);
}

static void test_callback_prologue(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	static struct trace t;
	t.prologue_at = t.codelet_at = t.callback_at = -1;
	atomic_store(&t.ncallbacks, 0);
	atomic_store(&t.nprologues, 0);
	cb_target = &t;
	atomic_store(&seq, 0);
	int cb_token, pro_token;

	struct starpu_task *task = starpu_task_create();
	task->cl = &trace_cl;
	task->cl_arg = &t;
	task->cl_arg_size = sizeof(t);
	task->callback_func = trace_callback;
	task->callback_arg = &cb_token;
	task->prologue_callback_func = trace_prologue;
	task->prologue_callback_arg = &pro_token;
	task->detach = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(task), 0);

	/* the callback has run by the time the wait returns */
	CU_ASSERT_EQUAL(atomic_load(&t.ncallbacks), 1);
	CU_ASSERT_EQUAL(atomic_load(&t.nprologues), 1);
	CU_ASSERT_EQUAL(t.prologue_at, 0);
	CU_ASSERT_EQUAL(t.codelet_at, 1);
	CU_ASSERT_EQUAL(t.callback_at, 2);
	CU_ASSERT_PTR_EQUAL(t.callback_arg_seen, &cb_token);
	CU_ASSERT_PTR_EQUAL(t.prologue_arg_seen, &pro_token);

	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&t.ncallbacks), 1);
	starpu_shutdown();
}

struct args
{
	int i;
	double d;
	char s[16];
	atomic_int seen_ok;
};

static void args_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	struct args *a = cl_arg;
	if (a->i == 42 && a->d == 2.5 && strcmp(a->s, "vela") == 0)
		atomic_fetch_add(&a->seen_ok, 1);
}

static struct starpu_codelet args_cl =
{
	.cpu_funcs = { args_cpu },
	.nbuffers = 0,
};

static void test_cl_arg(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	/* the codelet gets the very pointer given (no copy) */
	struct args *a = calloc(1, sizeof(*a));
	a->i = 42;
	a->d = 2.5;
	strcpy(a->s, "vela");
	struct starpu_task *task = starpu_task_create();
	task->cl = &args_cl;
	task->cl_arg = a;
	task->cl_arg_size = sizeof(*a);
	task->cl_arg_free = 1;	/* StarPU frees a with the task */
	task->detach = 0;
	task->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(task), 0);
	CU_ASSERT_EQUAL(atomic_load(&a->seen_ok), 1);
	starpu_task_destroy(task);
	starpu_shutdown();
}

/* A callback may submit further tasks; wait_for_all covers them too. */
static void chain_callback(void *arg)
{
	int left = (int) (intptr_t) arg;
	if (left <= 0)
		return;
	struct starpu_task *task = starpu_task_create();
	task->cl = &count_cl;
	task->callback_func = chain_callback;
	task->callback_arg = (void *) (intptr_t) (left - 1);
	if (starpu_task_submit(task) != 0)
		atomic_fetch_add(&counter, 1000);
}

static void test_submit_from_callback(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);
	struct starpu_task *task = starpu_task_create();
	task->cl = &count_cl;
	task->callback_func = chain_callback;
	task->callback_arg = (void *) (intptr_t) 9;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 10);
	starpu_shutdown();
}

/* ---- codelet-less tasks, destroy, stack tasks ------------------------ */

static void snapshot_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	*(int *) cl_arg = atomic_load(&counter);
}

static struct starpu_codelet snapshot_cl =
{
	.cpu_funcs = { snapshot_cpu },
	.nbuffers = 0,
};

static void count_callback(void *arg)
{
	atomic_fetch_add((atomic_int *) arg, 1);
}

static void test_null_codelet(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);

	/* alone, with a callback */
	atomic_int ncb = 0;
	struct starpu_task *empty = starpu_task_create();
	empty->cl = NULL;
	empty->callback_func = count_callback;
	empty->callback_arg = &ncb;
	empty->detach = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(empty), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(empty), 0);
	CU_ASSERT_EQUAL(atomic_load(&ncb), 1);

	/* as a synchronisation point: 4 producers -> sync -> consumer */
	struct starpu_task *producers[4];
	for (int i = 0; i < 4; i++)
	{
		producers[i] = starpu_task_create();
		producers[i]->cl = &count_cl;
	}
	struct starpu_task *sync = starpu_task_create();
	starpu_task_declare_deps_array(sync, 4, producers);
	int seen = -1;
	struct starpu_task *consumer = starpu_task_create();
	consumer->cl = &snapshot_cl;
	consumer->cl_arg = &seen;
	starpu_task_declare_deps_array(consumer, 1, &sync);

	/* submitted in reverse to make the dependencies do the ordering */
	CU_ASSERT_EQUAL(starpu_task_submit(consumer), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(sync), 0);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(starpu_task_submit(producers[i]), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(seen, 4);
	starpu_shutdown();
}

static void test_destroy_detached(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);
	atomic_int ncb = 0;
	for (int i = 0; i < 50; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &count_cl;
		task->detach = 1;
		task->destroy = 1;
		task->callback_func = count_callback;
		task->callback_arg = &ncb;
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 50);
	CU_ASSERT_EQUAL(atomic_load(&ncb), 50);
	starpu_shutdown();
}

/* More tasks alive at once than one chunk of the task pool holds (about
 * 2,500 per 2 MiB; runtime/core/task_pool.c), all destroyed, then as many
 * again: every task comes initialised, none overlaps another, and the
 * chunks emptied go back without harm (ASan would see a reuse of memory
 * returned to the system). */
static void test_many_tasks(void)
{
	CU_ASSERT_EQUAL_FATAL(start(1, NULL), 0);
	enum { N = 12000 };
	struct starpu_task **t = malloc(N * sizeof(*t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (int round = 0; round < 2; round++)
	{
		for (int i = 0; i < N; i++)
		{
			t[i] = starpu_task_create();
			CU_ASSERT_PTR_NOT_NULL_FATAL(t[i]);
			CU_ASSERT_PTR_NULL(t[i]->cl);
			CU_ASSERT_EQUAL(t[i]->priority, STARPU_DEFAULT_PRIO);
			CU_ASSERT_EQUAL(t[i]->destroy, 1);
			t[i]->tag_id = (starpu_tag_t) i;	/* marks the memory */
		}
		int distinct = 1;
		for (int i = 0; i < N; i++)
			distinct &= t[i]->tag_id == (starpu_tag_t) i;
		CU_ASSERT(distinct);
		for (int i = 0; i < N; i++)
			starpu_task_destroy(t[i]);
	}
	/* The pool still gives tasks that run. */
	run_created(100);
	free(t);
	starpu_shutdown();
}

/* starpu_task_create with no memory for another chunk of tasks (the
 * address space limited to what the process maps, plus 1 MiB, less than
 * a chunk's mapping): NULL and a one-line error naming the call, nothing
 * lost; once memory is back, tasks are created and run again. Not under
 * AddressSanitizer or ThreadSanitizer, whose runtimes need address space
 * of their own at any time (they abort, or report, on an mmap failure of
 * their own allocator). */
static void test_create_no_memory(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	printf("\n  (not run under a sanitizer: limiting the address space breaks its runtime) ");
	return;
#else
	CU_ASSERT_EQUAL_FATAL(start(1, NULL), 0);
	enum { N = 20000 };
	struct starpu_task **t = malloc(N * sizeof(*t));
	char *err = malloc(4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(err);
	unsigned long pages = 0;
	FILE *statm = fopen("/proc/self/statm", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(statm);
	CU_ASSERT_EQUAL(fscanf(statm, "%lu", &pages), 1);
	fclose(statm);
	FILE *log = tmpfile();
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	struct rlimit old, low;
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_AS, &old), 0);
	low = old;
	low.rlim_cur = (rlim_t) pages * (rlim_t) sysconf(_SC_PAGESIZE) + ((rlim_t) 1 << 20);
	fflush(stderr);
	int saved = dup(2);
	CU_ASSERT_FATAL(saved >= 0);
	dup2(fileno(log), 2);
	CU_ASSERT_EQUAL(setrlimit(RLIMIT_AS, &low), 0);
	int n = 0;
	while (n < N && (t[n] = starpu_task_create()) != NULL)
		n++;
	setrlimit(RLIMIT_AS, &old);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	CU_ASSERT(n < N);	/* NULL came, within a few chunks */
	printf("(%d tasks, then NULL) ", n);
	rewind(log);
	size_t len = fread(err, 1, 4095, log);
	err[len] = 0;
	fclose(log);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "starpu_task_create: no memory for more tasks"));
	/* The tasks made before are whole. */
	int intact = 1;
	for (int i = 0; i < n; i++)
		intact &= t[i]->cl == NULL && t[i]->destroy == 1;
	CU_ASSERT(intact);
	for (int i = 0; i < n; i++)
		starpu_task_destroy(t[i]);
	run_created(10);
	free(err);
	free(t);
	starpu_shutdown();
#endif
}

static void test_stack_task(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);

	struct starpu_task task;
	memset(&task, 0x3c, sizeof(task));
	starpu_task_init(&task);
	/* defaults of an initialised task */
	CU_ASSERT_PTR_NULL(task.cl);
	CU_ASSERT_EQUAL(task.detach, 1);
	CU_ASSERT_EQUAL(task.destroy, 0);
	CU_ASSERT_EQUAL(task.synchronous, 0);
	CU_ASSERT_EQUAL(task.regenerate, 0);
	CU_ASSERT_EQUAL(task.use_tag, 0);
	CU_ASSERT_EQUAL(task.execute_on_a_specific_worker, 0);
	CU_ASSERT_EQUAL(task.priority, STARPU_DEFAULT_PRIO);
	CU_ASSERT_PTR_NULL(task.callback_func);
	CU_ASSERT_PTR_NULL(task.prologue_callback_func);
	CU_ASSERT_PTR_NULL(task.cl_arg);

	for (int round = 1; round <= 3; round++)
	{
		task.cl = &count_cl;
		task.detach = 0;
		CU_ASSERT_EQUAL(starpu_task_submit(&task), 0);
		CU_ASSERT_EQUAL(starpu_task_wait(&task), 0);
		CU_ASSERT_EQUAL(atomic_load(&counter), round);
		starpu_task_clean(&task);
		starpu_task_init(&task);
	}

	/* the static initialiser gives a usable task too */
	struct starpu_task task2 = STARPU_TASK_INITIALIZER;
	task2.cl = &count_cl;
	task2.detach = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(&task2), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(&task2), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 4);
	starpu_task_clean(&task2);

	starpu_shutdown();
}

/* ---- regenerate ------------------------------------------------------- */

#define REGEN_RUNS 7
static atomic_int regen_runs;

static void regen_callback(void *arg)
{
	struct starpu_task *task = arg;
	if (atomic_fetch_add(&regen_runs, 1) + 1 == REGEN_RUNS)
		task->regenerate = 0;
}

static void test_regenerate(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);
	atomic_store(&regen_runs, 0);

	struct starpu_task *task = starpu_task_create();
	task->cl = &count_cl;
	task->regenerate = 1;
	task->destroy = 0;
	task->callback_func = regen_callback;
	task->callback_arg = task;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), REGEN_RUNS);
	CU_ASSERT_EQUAL(atomic_load(&regen_runs), REGEN_RUNS);
	CU_ASSERT_EQUAL(task->regenerate, 0);
	starpu_task_destroy(task);

	/* a regenerated stack task */
	atomic_store(&counter, 0);
	atomic_store(&regen_runs, 0);
	struct starpu_task stack_task;
	starpu_task_init(&stack_task);
	stack_task.cl = &count_cl;
	stack_task.regenerate = 1;
	stack_task.callback_func = regen_callback;
	stack_task.callback_arg = &stack_task;
	CU_ASSERT_EQUAL(starpu_task_submit(&stack_task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), REGEN_RUNS);
	starpu_task_clean(&stack_task);

	starpu_shutdown();
}

/* ---- placement and current task -------------------------------------- */

struct where_ran
{
	int workerid;
	struct starpu_task *current;
};

static void where_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	struct where_ran *w = cl_arg;
	w->workerid = starpu_worker_get_id();
	w->current = starpu_task_get_current();
}

static struct starpu_codelet where_cl =
{
	.cpu_funcs = { where_cpu },
	.nbuffers = 0,
};

static void test_specific_worker(void)
{
	CU_ASSERT_EQUAL_FATAL(start(2, NULL), 0);
	enum { PER_WORKER = 10 };
	struct where_ran ran[2][PER_WORKER];
	struct starpu_task *tasks[2][PER_WORKER];
	for (int i = 0; i < PER_WORKER; i++)
		for (int w = 0; w < 2; w++)
		{
			ran[w][i].workerid = -5;
			struct starpu_task *task = starpu_task_create();
			task->cl = &where_cl;
			task->cl_arg = &ran[w][i];
			task->execute_on_a_specific_worker = 1;
			task->workerid = (unsigned) w;
			task->destroy = 0;
			tasks[w][i] = task;
			CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
		}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (int w = 0; w < 2; w++)
		for (int i = 0; i < PER_WORKER; i++)
		{
			CU_ASSERT_EQUAL(ran[w][i].workerid, w);
			CU_ASSERT_PTR_EQUAL(ran[w][i].current, tasks[w][i]);
			starpu_task_destroy(tasks[w][i]);
		}
	starpu_shutdown();
}

static void test_get_current(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	CU_ASSERT_PTR_NULL(starpu_task_get_current());
	struct where_ran ran = { -5, NULL };
	struct starpu_task *task = starpu_task_create();
	task->cl = &where_cl;
	task->cl_arg = &ran;
	task->detach = 0;
	task->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait(task), 0);
	CU_ASSERT_PTR_EQUAL(ran.current, task);
	CU_ASSERT(ran.workerid >= 0 && ran.workerid < (int) starpu_worker_get_count());
	CU_ASSERT_PTR_NULL(starpu_task_get_current());
	starpu_task_destroy(task);
	starpu_shutdown();
}

/* ---- counting submitted / ready tasks -------------------------------- */

static void test_nsubmitted_nready(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 0);
	CU_ASSERT_EQUAL(starpu_task_nready(), 0);

	starpu_pause();
	struct starpu_task *a = starpu_task_create();
	a->cl = &count_cl;
	struct starpu_task *b = starpu_task_create();
	b->cl = &count_cl;
	starpu_task_declare_deps_array(b, 1, &a);
	CU_ASSERT_EQUAL(starpu_task_submit(a), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
	/* both submitted, only a can run */
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 2);
	CU_ASSERT_EQUAL(starpu_task_nready(), 1);
	for (int i = 0; i < 5; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &count_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 7);
	CU_ASSERT_EQUAL(starpu_task_nready(), 6);
	vtest_sleep_ms(20);
	CU_ASSERT_EQUAL(atomic_load(&counter), 0);
	starpu_resume();
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 7);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 0);
	CU_ASSERT_EQUAL(starpu_task_nready(), 0);
	starpu_shutdown();
}

/* A task that holds its worker until released (or 10 s pass, so that a
 * broken runtime fails the test instead of hanging it). */
static atomic_int gate_open;
static atomic_int gate_entered;

static void gate_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	atomic_store(&gate_entered, 1);
	for (int i = 0; i < 10000 && !atomic_load(&gate_open); i++)
		vtest_sleep_ms(1);
}

static struct starpu_codelet gate_cl =
{
	.cpu_funcs = { gate_cpu },
	.nbuffers = 0,
};

static void test_wait_for_n_submitted(void)
{
	/* eager: one shared queue, so the free worker takes all the others */
	CU_ASSERT_EQUAL_FATAL(start(2, "eager"), 0);
	atomic_store(&counter, 0);
	atomic_store(&gate_open, 0);
	atomic_store(&gate_entered, 0);

	struct starpu_task *gate = starpu_task_create();
	gate->cl = &gate_cl;
	CU_ASSERT_EQUAL(starpu_task_submit(gate), 0);
	while (!atomic_load(&gate_entered))
		vtest_sleep_ms(1);
	for (int i = 0; i < 20; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &count_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	/* returns once only the gate is left */
	CU_ASSERT_EQUAL(starpu_task_wait_for_n_submitted(1), 0);
	CU_ASSERT_EQUAL(atomic_load(&counter), 20);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 1);
	CU_ASSERT_EQUAL(atomic_load(&gate_open), 0);
	atomic_store(&gate_open, 1);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 0);

	/* plain bound: at most n left means at least N - n done */
	starpu_pause();
	for (int i = 0; i < 30; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &count_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	starpu_resume();
	CU_ASSERT_EQUAL(starpu_task_wait_for_n_submitted(10), 0);
	CU_ASSERT(atomic_load(&counter) >= 20 + 20);
	CU_ASSERT(starpu_task_nsubmitted() <= 10);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&counter), 50);
	starpu_shutdown();
}

/* ---- priorities -------------------------------------------------------- */

#define NPRIO 9
static int prio_order[NPRIO];
static atomic_int prio_pos;

static void prio_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	int pos = atomic_fetch_add(&prio_pos, 1);
	if (pos < NPRIO)
		prio_order[pos] = (int) (intptr_t) cl_arg;
}

static struct starpu_codelet prio_cl =
{
	.cpu_funcs = { prio_cpu },
	.nbuffers = 0,
};

static void test_priorities(void)
{
	CU_ASSERT_EQUAL_FATAL(start(1, "prio"), 0);
	int min = STARPU_MIN_PRIO, max = STARPU_MAX_PRIO;
	CU_ASSERT(min < 0);
	CU_ASSERT(max > 0);
	CU_ASSERT_EQUAL(min, starpu_sched_get_min_priority());
	CU_ASSERT_EQUAL(max, starpu_sched_get_max_priority());

	/* submission order mixes priorities; index i of the expected order */
	int prios[NPRIO] = { 0, 3, -2, max, min, 1, -1, 2, 0 };
	int expected[NPRIO] = { max, 3, 2, 1, 0, 0, -1, -2, min };
	atomic_store(&prio_pos, 0);
	starpu_pause();
	for (int i = 0; i < NPRIO; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &prio_cl;
		task->priority = prios[i];
		task->cl_arg = (void *) (intptr_t) prios[i];
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	}
	starpu_resume();
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&prio_pos), NPRIO);
	for (int i = 0; i < NPRIO; i++)
		CU_ASSERT_EQUAL(prio_order[i], expected[i]);
	starpu_shutdown();
}

/* A policy without priorities reports the range 0..0. */
static void test_eager_priority_range(void)
{
	CU_ASSERT_EQUAL_FATAL(start(1, "eager"), 0);
	CU_ASSERT_EQUAL(STARPU_MIN_PRIO, 0);
	CU_ASSERT_EQUAL(STARPU_MAX_PRIO, 0);
	starpu_shutdown();
}

/* ---- many buffers ------------------------------------------------------ */

#define NIN 20

/* Sums the first n-1 int variables into the last one. */
static void sum_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	struct starpu_task *task = starpu_task_get_current();
	int n = STARPU_TASK_GET_NBUFFERS(task);
	int total = 0;
	for (int i = 0; i < n - 1; i++)
		total += *(int *) STARPU_VARIABLE_GET_PTR(buffers[i]);
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[n - 1]) = total;
}

static struct starpu_codelet sum_cl =
{
	.cpu_funcs = { sum_cpu },
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
};

static void test_dyn_handles(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	CU_ASSERT(NIN + 1 > STARPU_NMAXBUFS);

	int in[NIN], out = -1;
	starpu_data_handle_t h[NIN + 1];
	for (int i = 0; i < NIN; i++)
	{
		in[i] = i + 1;
		starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) &in[i], sizeof(int));
	}
	starpu_variable_data_register(&h[NIN], STARPU_MAIN_RAM, (uintptr_t) &out, sizeof(int));

	struct starpu_task *task = starpu_task_create();
	task->cl = &sum_cl;
	task->nbuffers = NIN + 1;
	/* owned by the task from now on: StarPU frees them with it */
	task->dyn_handles = malloc((NIN + 1) * sizeof(*task->dyn_handles));
	task->dyn_modes = malloc((NIN + 1) * sizeof(*task->dyn_modes));
	for (int i = 0; i < NIN; i++)
	{
		task->dyn_handles[i] = h[i];
		task->dyn_modes[i] = STARPU_R;
	}
	task->dyn_handles[NIN] = h[NIN];
	task->dyn_modes[NIN] = STARPU_W;
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);

	/* a second task reading the result through the implicit dependency */
	int out2 = -1;
	starpu_data_handle_t h2;
	starpu_variable_data_register(&h2, STARPU_MAIN_RAM, (uintptr_t) &out2, sizeof(int));
	struct starpu_task *task2 = starpu_task_create();
	task2->cl = &sum_cl;
	task2->nbuffers = 2;
	task2->handles[0] = h[NIN];
	task2->modes[0] = STARPU_R;
	task2->handles[1] = h2;
	task2->modes[1] = STARPU_W;
	CU_ASSERT_EQUAL(starpu_task_submit(task2), 0);

	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (int i = 0; i <= NIN; i++)
		starpu_data_unregister(h[i]);
	starpu_data_unregister(h2);
	CU_ASSERT_EQUAL(out, NIN * (NIN + 1) / 2);
	CU_ASSERT_EQUAL(out2, NIN * (NIN + 1) / 2);
	starpu_shutdown();
}

/* ---- codelet fields ---------------------------------------------------- */

static struct starpu_codelet where_cpu_cl =
{
	.where = STARPU_CPU,
	.cpu_funcs = { count_cpu },
	.cpu_funcs_name = { "count_cpu" },
	.nbuffers = 0,
	.name = "where_cpu",
};

static struct starpu_codelet where_cuda_cl =
{
	.where = STARPU_CUDA,
	.cpu_funcs = { count_cpu },
	.nbuffers = 0,
};

static struct starpu_codelet cuda_only_cl =
{
	.cuda_funcs = { count_cpu },
	.nbuffers = 0,
};

static void test_codelet_where(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, NULL), 0);
	atomic_store(&counter, 0);
	for (int i = 0; i < 5; i++)
	{
		struct starpu_task *task = starpu_task_create();
		task->cl = &where_cpu_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	}
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&counter), 5);

	/* nobody can run these: submission fails with -ENODEV */
	struct starpu_task *task = starpu_task_create();
	task->cl = &where_cuda_cl;
	task->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(task), -ENODEV);
	starpu_task_destroy(task);
	task = starpu_task_create();
	task->cl = &cuda_only_cl;
	task->destroy = 0;
	CU_ASSERT_EQUAL(starpu_task_submit(task), -ENODEV);
	starpu_task_destroy(task);

	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(atomic_load(&counter), 5);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 0);
	starpu_shutdown();
}

/* STARPU_LIMIT_MAX/MIN_SUBMITTED_TASKS: the application thread never has
 * more than MAX + 1 tasks in flight when its submission returns, and a
 * callback that submits past the limit does not wait (it would deadlock). */
static atomic_int throttle_cb_submitted;

static void slow_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
	usleep(100);
	atomic_fetch_add(&counter, 1);
}

static struct starpu_codelet slow_cl =
{
	.cpu_funcs = { slow_cpu },
	.nbuffers = 0,
};

static void submit_many_cb(void *arg)
{
	(void) arg;
	for (int i = 0; i < 20; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &slow_cl;
		if (starpu_task_submit(t) == 0)
			atomic_fetch_add(&throttle_cb_submitted, 1);
	}
}

static void test_limit_submitted(void)
{
	vtest_setenv("STARPU_LIMIT_MAX_SUBMITTED_TASKS", "8");
	vtest_setenv("STARPU_LIMIT_MIN_SUBMITTED_TASKS", "4");
	int ret = start(2, "eager");
	vtest_env_restore();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	atomic_store(&counter, 0);
	atomic_store(&throttle_cb_submitted, 0);
	int most = 0;
	for (int i = 0; i < 200; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &slow_cl;
		if (i == 100)
			t->callback_func = submit_many_cb;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
		int n = starpu_task_nsubmitted();
		if (n > most)
			most = n;
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT(most <= 9);
	CU_ASSERT(most >= 5);	/* it did let tasks pile up to the limit */
	CU_ASSERT_EQUAL(atomic_load(&throttle_cb_submitted), 20);
	CU_ASSERT_EQUAL(atomic_load(&counter), 220);
	starpu_shutdown();

	/* Without the variables, the same loop is not held back. */
	CU_ASSERT_EQUAL_FATAL(start(2, "eager"), 0);
	starpu_pause();
	for (int i = 0; i < 50; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &slow_cl;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 50);
	starpu_resume();
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_shutdown();
}

static const struct vtest_case basic_cases[] =
{
	{ "submit_wait", test_submit_wait },
	{ "wait_for_all", test_wait_for_all },
	{ "synchronous", test_synchronous },
	{ "callback_prologue", test_callback_prologue },
	{ "cl_arg", test_cl_arg },
	{ "submit_from_callback", test_submit_from_callback },
	{ "null_codelet", test_null_codelet },
	{ "destroy_detached", test_destroy_detached },
	{ "many_tasks", test_many_tasks },
	{ "create_no_memory", test_create_no_memory },
	{ "stack_task", test_stack_task },
	{ "regenerate", test_regenerate },
	VTEST_END
};

static const struct vtest_case exec_cases[] =
{
	{ "specific_worker", test_specific_worker },
	{ "get_current", test_get_current },
	{ "nsubmitted_nready", test_nsubmitted_nready },
	{ "wait_for_n_submitted", test_wait_for_n_submitted },
	{ "limit_submitted_tasks", test_limit_submitted },
	{ "priorities", test_priorities },
	{ "eager_priority_range", test_eager_priority_range },
	{ "dyn_handles", test_dyn_handles },
	{ "codelet_where", test_codelet_where },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "task_basics", NULL, NULL, basic_cases },
	{ "task_execution", NULL, NULL, exec_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
