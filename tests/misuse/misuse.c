/* misuse.c — kinds of StarPU API misuse, one per case, for comparing what
 * StarPU 1.3 and Vela do with them (issue 22): the cases of init, tasks,
 * tags and contexts, the table of all cases and main (the data cases are
 * in misuse_data.c). Plain StarPU 1.3 API only:
 * the same source is built against both (tests/misuse/compare.sh) and
 * against Vela alone in `make check` (tests/misuse/check_misuse.sh).
 *
 *   misuse list           the cases, one a line: name, tab, what it does
 *   misuse expect [CASE]  what Vela documents for CASE (every case), one
 *                         line each, tab-separated: the name, the return
 *                         code, the "after:" state, what the case does, a
 *                         part of the one-line message
 *   misuse CASE           runs CASE
 *
 * A run prints on stdout "returned <rc>" (the misused call's return code,
 * "void" for a call that returns nothing) as soon as the call returns, then
 * checks that the runtime still works (a task updates a fresh variable)
 * and prints "after: ok", "after: broken (...)" or "after: not
 * initialized", and exits 0. An abort, a crash or a hang is seen by the
 * caller as the process's end. Each case undoes what it blocked (tags,
 * acquisitions) so that only the misuse itself can hang.
 */
#include <starpu.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "misuse.h"


void noop(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

void inc_var(void *buffers[], void *arg)
{
	(void) arg;
	(*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
}

/* Reads the first element of a vector (of a vector registered at NULL). */
void read_vector(void *buffers[], void *arg)
{
	(void) arg;
	volatile int *v = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	(void) v[0];
}

struct starpu_codelet cl0 = { .cpu_funcs = { noop }, .nbuffers = 0, .name = "cl0" };
struct starpu_codelet inc_cl = { .cpu_funcs = { inc_var }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "inc" };
static struct starpu_codelet two_cl = { .cpu_funcs = { noop }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "two" };
struct starpu_codelet read_cl = { .cpu_funcs = { read_vector }, .nbuffers = 1, .modes = { STARPU_R }, .name = "read" };

/* The default start: two CPU workers, no device. */
int start(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncuda = 0;
	conf.nopencl = 0;
	return starpu_init(&conf);
}

int x_var;
starpu_data_handle_t xh;

void start_with_var(void)
{
	if (start() != 0)
	{
		fprintf(stderr, "misuse: starpu_init failed\n");
		exit(2);
	}
	starpu_variable_data_register(&xh, STARPU_MAIN_RAM, (uintptr_t) &x_var, sizeof(x_var));
}

/* A task held back by a tag that the case notifies when it is done. */
#define HOLD_TAG ((starpu_tag_t) 0x5eed)
static struct starpu_task *held_task(int detached)
{
	starpu_tag_declare_deps((starpu_tag_t) 0x5eee, 1, HOLD_TAG);
	struct starpu_task *t = starpu_task_create();
	t->cl = &cl0;
	t->use_tag = 1;
	t->tag_id = 0x5eee;
	t->detach = detached;
	/* A task the application waits for and destroys itself. */
	t->destroy = detached;
	return t;
}

/* A task whose submission failed is the application's to free (StarPU
 * 1.3 refuses starpu_task_destroy on a task with destroy = 1). */
void discard(struct starpu_task *t)
{
	t->destroy = 0;
	starpu_task_destroy(t);
}

/* ------------------------------------------------------------ environment */

static int init_env(void)
{
	int rc = start();
	return rc;
}

/* ----------------------------------------------------------- init/shutdown */

static int shutdown_without_init(void)
{
	starpu_shutdown();
	return VOID_RC;
}

static int shutdown_twice(void)
{
	if (start() != 0)
		return 2;
	starpu_shutdown();
	starpu_shutdown();
	return VOID_RC;
}

static int submit_after_shutdown(void)
{
	if (start() != 0)
		return 2;
	starpu_shutdown();
	return starpu_task_insert(&cl0, 0);
}

static int submit_before_init(void)
{
	return starpu_task_insert(&cl0, 0);
}

/* ------------------------------------------------------------- task_insert */

static int insert_unknown_arg(void)
{
	start_with_var();
	return starpu_task_insert(&cl0, (int) (77 << STARPU_MODE_SHIFT), 0);
}

static int insert_null_handle(void)
{
	start_with_var();
	return starpu_task_insert(&inc_cl, STARPU_RW, (starpu_data_handle_t) NULL, 0);
}

static int insert_value_null(void)
{
	start_with_var();
	return starpu_task_insert(&cl0, STARPU_VALUE, NULL, (size_t) 16, 0);
}

static int insert_too_few_handles(void)
{
	start_with_var();
	return starpu_task_insert(&two_cl, STARPU_RW, xh, 0);
}

static int insert_too_many_handles(void)
{
	start_with_var();
	return starpu_task_insert(&inc_cl, STARPU_RW, xh, STARPU_R, xh, 0);
}

static int insert_bad_worker(void)
{
	start_with_var();
	return starpu_task_insert(&cl0, STARPU_EXECUTE_ON_WORKER, 9999, 0);
}

static int insert_bad_sched_ctx(void)
{
	start_with_var();
	return starpu_task_insert(&cl0, STARPU_SCHED_CTX, 77u, 0);
}

/* ---------------------------------------------------------- task structure */

static int submit_null_task(void)
{
	start_with_var();
	return starpu_task_submit(NULL);
}

static int task_null_handle(void)
{
	start_with_var();
	struct starpu_task *t = starpu_task_create();
	t->cl = &inc_cl;
	t->handles[0] = NULL;
	int rc = starpu_task_submit(t);
	if (rc != 0)
		discard(t);
	return rc;
}

/* A task_insert argument type where an access mode belongs. */
static int task_bad_access_mode(void)
{
	start_with_var();
	static struct starpu_codelet bad_mode_cl = { .cpu_funcs = { inc_var }, .nbuffers = 1,
		.modes = { (enum starpu_data_access_mode) STARPU_VALUE }, .name = "bad_mode" };
	struct starpu_task *t = starpu_task_create();
	t->cl = &bad_mode_cl;
	t->handles[0] = xh;
	int rc = starpu_task_submit(t);
	if (rc != 0)
		discard(t);
	return rc;
}

static int task_mode_none(void)
{
	start_with_var();
	static struct starpu_codelet none_cl = { .cpu_funcs = { inc_var }, .nbuffers = 1,
		.modes = { STARPU_NONE }, .name = "mode_none" };
	struct starpu_task *t = starpu_task_create();
	t->cl = &none_cl;
	t->handles[0] = xh;
	int rc = starpu_task_submit(t);
	if (rc != 0)
		discard(t);
	return rc;
}

static int task_too_many_buffers(void)
{
	start_with_var();
	static struct starpu_codelet many_cl = { .cpu_funcs = { noop }, .nbuffers = STARPU_NMAXBUFS + 1, .name = "many" };
	struct starpu_task *t = starpu_task_create();
	t->cl = &many_cl;
	for (int i = 0; i < STARPU_NMAXBUFS; i++)
	{
		t->handles[i] = xh;
		t->modes[i] = STARPU_R;
	}
	int rc = starpu_task_submit(t);
	if (rc != 0)
		discard(t);
	return rc;
}

static int task_bad_worker(void)
{
	start_with_var();
	struct starpu_task *t = starpu_task_create();
	t->cl = &cl0;
	t->execute_on_a_specific_worker = 1;
	t->workerid = 9999;
	int rc = starpu_task_submit(t);
	if (rc != 0)
		discard(t);
	return rc;
}

static int task_bad_sched_ctx(void)
{
	start_with_var();
	struct starpu_task *t = starpu_task_create();
	t->cl = &cl0;
	t->sched_ctx = 77;
	int rc = starpu_task_submit(t);
	if (rc != 0)
		discard(t);
	return rc;
}

static int task_submit_twice(void)
{
	start_with_var();
	struct starpu_task *t = held_task(0);
	if (starpu_task_submit(t) != 0)
		return 2;
	int rc = starpu_task_submit(t);
	starpu_tag_notify_from_apps(HOLD_TAG);
	if (starpu_task_wait(t) != 0)
		printf("(the task could not be waited for)\n");
	starpu_task_destroy(t);
	return rc;
}

static int task_destroy_submitted(void)
{
	start_with_var();
	struct starpu_task *t = held_task(0);
	if (starpu_task_submit(t) != 0)
		return 2;
	starpu_task_destroy(t);
	starpu_tag_notify_from_apps(HOLD_TAG);
	starpu_task_wait_for_all();
	return VOID_RC;
}

static int task_wait_detached(void)
{
	start_with_var();
	struct starpu_task *t = held_task(1);
	if (starpu_task_submit(t) != 0)
		return 2;
	int rc = starpu_task_wait(t);
	starpu_tag_notify_from_apps(HOLD_TAG);
	starpu_task_wait_for_all();
	return rc;
}

static int callback_rc = 1;
static void wait_all_callback(void *arg)
{
	(void) arg;
	callback_rc = starpu_task_wait_for_all();
}

static int wait_for_all_in_callback(void)
{
	start_with_var();
	if (starpu_task_insert(&cl0, STARPU_CALLBACK, wait_all_callback, 0) != 0)
		return 2;
	starpu_task_wait_for_all();
	return callback_rc;
}

static int codelet_rc = 1;
static void acquire_in_codelet_fn(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
	codelet_rc = starpu_data_acquire(xh, STARPU_R);
	if (codelet_rc == 0)
		starpu_data_release(xh);
}

static int acquire_in_codelet(void)
{
	start_with_var();
	static struct starpu_codelet acq_cl = { .cpu_funcs = { acquire_in_codelet_fn }, .nbuffers = 0, .name = "acquire_in_codelet" };
	if (starpu_task_insert(&acq_cl, 0) != 0)
		return 2;
	starpu_task_wait_for_all();
	return codelet_rc;
}

/* ------------------------------------------------------------------- tags */

static int tag_wait_undeclared(void)
{
	start_with_var();
	return starpu_tag_wait((starpu_tag_t) 0xdead);
}

static int tag_self_dependency(void)
{
	start_with_var();
	starpu_tag_declare_deps((starpu_tag_t) 7, 1, (starpu_tag_t) 7);
	printf("returned void\n");
	/* What the dependency leads to. */
	struct starpu_task *t = starpu_task_create();
	t->cl = &cl0;
	t->use_tag = 1;
	t->tag_id = 7;
	if (starpu_task_submit(t) == 0 && starpu_tag_wait((starpu_tag_t) 7) != 0)
		printf("(the tag could not be waited for)\n");
	return PRINTED_RC;
}

static int declare_deps_null_task(void)
{
	start_with_var();
	struct starpu_task *t = starpu_task_create();
	t->cl = &cl0;
	struct starpu_task *deps[1] = { NULL };
	starpu_task_declare_deps_array(t, 1, deps);
	printf("returned void\n");
	fflush(stdout);
	if (starpu_task_submit(t) != 0)
		discard(t);
	starpu_task_wait_for_all();
	return PRINTED_RC;
}

static int worker_name_bad_id(void)
{
	start_with_var();
	char name[64] = "";
	starpu_worker_get_name(9999, name, sizeof(name));
	printf("returned void\n");
	fflush(stdout);
	return PRINTED_RC;
}

static int wait_while_paused(void)
{
	start_with_var();
	starpu_pause();
	if (starpu_task_insert(&cl0, 0) != 0)
		return 2;
	int rc = starpu_task_wait_for_all();
	starpu_resume();
	return rc;
}

static int malloc_null_ptr(void)
{
	start_with_var();
	return starpu_malloc(NULL, 64);
}

/* ---------------------------------------------------------- sched contexts */

static int ctx_set_context_bad(void)
{
	start_with_var();
	unsigned bad = 77;
	starpu_sched_ctx_set_context(&bad);
	int rc = starpu_task_insert(&cl0, 0);
	unsigned global = 0;
	starpu_sched_ctx_set_context(&global);
	return rc;
}

static int ctx_add_workers_bad(void)
{
	start_with_var();
	int workers[1] = { 9999 };
	starpu_sched_ctx_add_workers(workers, 1, 0);
	return VOID_RC;
}

static int ctx_submit_deleted(void)
{
	start_with_var();
	int workers[1] = { 0 };
	unsigned ctx = starpu_sched_ctx_create(workers, 1, "gone", 0);
	starpu_sched_ctx_delete(ctx);
	return starpu_task_insert(&cl0, STARPU_SCHED_CTX, ctx, 0);
}

static int ctx_delete_invalid(void)
{
	start_with_var();
	starpu_sched_ctx_delete(77);
	return VOID_RC;
}

static int ctx_add_bad_worker(void)
{
	start_with_var();
	int workers[1] = { 9999 };
	unsigned ctx = starpu_sched_ctx_create(workers, 1, "bad", 0);
	if (ctx >= STARPU_NMAX_SCHED_CTXS)
		printf("returned STARPU_NMAX_SCHED_CTXS\n");
	else
		printf("returned context %u\n", ctx);
	fflush(stdout);
	return PRINTED_RC;
}

/* ------------------------------------------------------------------- table */

struct misuse_case
{
	const char *name;
	const char *env; /* NAME=value set before the case, or NULL */
	int (*run)(void);
	/* What Vela documents: the return code ("void" for a call that
	 * returns nothing) and a part of its one-line message. */
	const char *expect_rc;
	const char *expect_msg;
	const char *what;	/* the misuse, for the table */
};

static const struct misuse_case cases[] =
{
	{ "env_ncpu_negative", "STARPU_NCPU=-1", init_env, "-EINVAL", "STARPU_NCPU='-1'",
	  "STARPU_NCPU=-1" },
	{ "env_ncpu_abc", "STARPU_NCPU=abc", init_env, "-EINVAL", "STARPU_NCPU='abc'",
	  "STARPU_NCPU=abc" },
	{ "env_sched_unknown", "STARPU_SCHED=nonexistent", init_env, "-EINVAL", "STARPU_SCHED='nonexistent' is not a scheduling policy",
	  "STARPU_SCHED=nonexistent" },
	{ "env_limit_cpu_mem_abc", "STARPU_LIMIT_CPU_MEM=abc", init_env, "-EINVAL", "STARPU_LIMIT_CPU_MEM='abc'",
	  "STARPU_LIMIT_CPU_MEM=abc" },
	{ "env_simgrid_abc", "STARPU_SIMGRID=abc", init_env, "-EINVAL", "STARPU_SIMGRID='abc'",
	  "STARPU_SIMGRID=abc" },
	{ "env_calibrate_abc", "STARPU_CALIBRATE=abc", init_env, "-EINVAL", "STARPU_CALIBRATE='abc'",
	  "STARPU_CALIBRATE=abc" },
	{ "env_workers_cpuid_abc", "STARPU_WORKERS_CPUID=0 abc", init_env, "-EINVAL", "STARPU_WORKERS_CPUID='0 abc'",
	  "STARPU_WORKERS_CPUID='0 abc'" },
	{ "shutdown_without_init", NULL, shutdown_without_init, "void", "starpu_shutdown: the runtime is not initialised",
	  "starpu_shutdown without starpu_init" },
	{ "shutdown_twice", NULL, shutdown_twice, "void", "starpu_shutdown: the runtime is not initialised",
	  "starpu_shutdown twice" },
	{ "submit_before_init", NULL, submit_before_init, "-EINVAL", "starpu_task_submit: the runtime is not initialised",
	  "starpu_task_insert before starpu_init" },
	{ "submit_after_shutdown", NULL, submit_after_shutdown, "-EINVAL", "starpu_task_submit: the runtime is not initialised",
	  "starpu_task_insert after starpu_shutdown" },
	{ "insert_unknown_arg", NULL, insert_unknown_arg, "-EINVAL", "unknown argument type 0x9a0000",
	  "starpu_task_insert with an unknown argument type" },
	{ "insert_null_handle", NULL, insert_null_handle, "-EINVAL", "buffer 0: handle is NULL",
	  "starpu_task_insert(STARPU_RW, NULL handle)" },
	{ "insert_value_null", NULL, insert_value_null, "-EINVAL", "STARPU_VALUE argument 1 is NULL",
	  "starpu_task_insert(STARPU_VALUE, NULL, 16)" },
	{ "insert_too_few_handles", NULL, insert_too_few_handles, "-EINVAL", "codelet 'two' takes 2 buffers, 1 were given",
	  "starpu_task_insert: 1 handle for a 2-buffer codelet" },
	{ "insert_too_many_handles", NULL, insert_too_many_handles, "-EINVAL", "codelet 'inc' takes 1 buffers",
	  "starpu_task_insert: 2 handles for a 1-buffer codelet" },
	{ "insert_bad_worker", NULL, insert_bad_worker, "-EINVAL", "asks for worker 9999",
	  "starpu_task_insert(STARPU_EXECUTE_ON_WORKER, 9999)" },
	{ "insert_bad_sched_ctx", NULL, insert_bad_sched_ctx, "-EINVAL", "sched_ctx 77 is not a scheduling context",
	  "starpu_task_insert(STARPU_SCHED_CTX, 77)" },
	{ "submit_null_task", NULL, submit_null_task, "-EINVAL", "starpu_task_submit: task is NULL",
	  "starpu_task_submit(NULL)" },
	{ "task_null_handle", NULL, task_null_handle, "-EINVAL", "buffer 0: handle is NULL",
	  "task with a codelet and a NULL handle" },
	{ "task_bad_access_mode", NULL, task_bad_access_mode, "-EINVAL", "invalid access mode 0x20000",
	  "codelet mode STARPU_VALUE (not an access mode)" },
	{ "task_mode_none", NULL, task_mode_none, "-EINVAL", "invalid access mode 0x0",
	  "codelet mode STARPU_NONE on a buffer" },
	{ "task_too_many_buffers", NULL, task_too_many_buffers, "-EINVAL", "more than STARPU_NMAXBUFS",
	  "nbuffers = STARPU_NMAXBUFS+1 without dyn_handles" },
	{ "task_bad_worker", NULL, task_bad_worker, "-EINVAL", "asks for worker 9999",
	  "execute_on_a_specific_worker, workerid 9999" },
	{ "task_bad_sched_ctx", NULL, task_bad_sched_ctx, "-EINVAL", "task->sched_ctx 77 is not a scheduling context",
	  "task->sched_ctx = 77 (never created)" },
	{ "task_submit_twice", NULL, task_submit_twice, "-EINVAL", "is already submitted",
	  "starpu_task_submit twice, the first not finished" },
	{ "task_destroy_submitted", NULL, task_destroy_submitted, "void", "is submitted and not finished",
	  "starpu_task_destroy of a submitted, unfinished task" },
	{ "task_wait_detached", NULL, task_wait_detached, "-EINVAL", "is detached",
	  "starpu_task_wait on a detached task" },
	{ "wait_for_all_in_callback", NULL, wait_for_all_in_callback, "-EDEADLK", "starpu_task_wait_for_all called from a callback",
	  "starpu_task_wait_for_all from a callback" },
	{ "acquire_in_codelet", NULL, acquire_in_codelet, "-EDEADLK", "starpu_data_acquire called from the codelet",
	  "starpu_data_acquire from a codelet" },
	{ "tag_wait_undeclared", NULL, tag_wait_undeclared, "hang", "",
	  "starpu_tag_wait on a tag nothing declares" },
	{ "tag_self_dependency", NULL, tag_self_dependency, "void", "tag 7 cannot depend on itself",
	  "starpu_tag_declare_deps(7, 1, 7)" },
	{ "unregister_twice", NULL, unregister_twice, "void", "is not registered (unregistered twice?)",
	  "starpu_data_unregister twice" },
	{ "use_after_unregister", NULL, use_after_unregister, "-EINVAL", "is not registered",
	  "starpu_task_insert on an unregistered handle" },
	{ "unregister_while_acquired", NULL, unregister_while_acquired, "void", "is still acquired by the application",
	  "starpu_data_unregister while acquired" },
	{ "acquire_twice", NULL, acquire_twice, "-EDEADLK", "is already acquired by this thread in mode STARPU_RW",
	  "starpu_data_acquire(RW) twice from one thread" },
	{ "release_without_acquire", NULL, release_without_acquire, "void", "is not acquired",
	  "starpu_data_release without acquire" },
	{ "acquire_bad_node", NULL, acquire_bad_node, "-EINVAL", "memory node 99 does not exist",
	  "starpu_data_acquire_on_node(node 99)" },
	{ "register_null_ptr", NULL, register_null_ptr, "void", "ptr is NULL with home node 0",
	  "vector registered at NULL, 16 elements, home RAM" },
	{ "register_bad_node", NULL, register_bad_node, "void", "home node 42 does not exist",
	  "variable registered on home node 42" },
	{ "partition_twice", NULL, partition_twice, "void", "is already partitioned",
	  "starpu_data_partition twice" },
	{ "unpartition_bad_node", NULL, unpartition_bad_node, "void", "gathering node 99 does not exist",
	  "starpu_data_unpartition into node 99" },
	{ "unpartition_not_partitioned", NULL, unpartition_not_partitioned, "void", "is not partitioned",
	  "starpu_data_unpartition of an unpartitioned handle" },
	{ "filter_too_many_parts", NULL, filter_too_many_parts, "void", "8 pieces of 4 elements",
	  "vector of 4 cut into 8 blocks" },
	{ "unregister_partitioned", NULL, unregister_partitioned, "void", "is partitioned; unpartition it first",
	  "starpu_data_unregister of a partitioned handle" },
	{ "child_bad_index", NULL, child_bad_index, "NULL", "piece 9 of 4",
	  "starpu_data_get_sub_data: piece 9 of 4" },
	{ "partition_null_filter", NULL, partition_null_filter, "void", "starpu_data_partition: the filter is NULL",
	  "starpu_data_partition(handle, NULL)" },
	{ "sub_data_unpartitioned", NULL, sub_data_unpartitioned, "NULL", "is not partitioned",
	  "starpu_data_get_sub_data of an unpartitioned handle" },
	{ "register_zero_elemsize", NULL, register_zero_elemsize, "void", "starpu_vector_data_register: elemsize is 0",
	  "vector of 16 elements of 0 bytes" },
	{ "matrix_ld_too_small", NULL, matrix_ld_too_small, "void", "ld=2 is smaller than nx=4",
	  "matrix 4x4 registered with ld = 2" },
	{ "acquire_mode_none", NULL, acquire_mode_none, "-EINVAL", "access mode 0x0 is not valid",
	  "starpu_data_acquire(STARPU_NONE)" },
	{ "unregister_in_callback", NULL, unregister_in_callback, "void", "starpu_data_unregister called from a callback",
	  "starpu_data_unregister from a callback" },
	{ "redux_without_methods", NULL, redux_without_methods, "-EINVAL", "starpu_data_set_reduction_methods was not called",
	  "STARPU_REDUX without reduction methods" },
	{ "declare_deps_null_task", NULL, declare_deps_null_task, "void", "dependency 0 of task 'cl0' is NULL",
	  "starpu_task_declare_deps_array with a NULL task" },
	{ "malloc_null_ptr", NULL, malloc_null_ptr, "-EINVAL", "starpu_malloc: the result pointer is NULL",
	  "starpu_malloc(NULL, 64)" },
	{ "worker_name_bad_id", NULL, worker_name_bad_id, "void", "starpu_worker_get_name: worker 9999 does not exist",
	  "starpu_worker_get_name(9999)" },
	{ "ctx_submit_deleted", NULL, ctx_submit_deleted, "-EINVAL", "task->sched_ctx 1 is not a scheduling context",
	  "task_insert into a deleted context" },
	{ "invalidate_acquired", NULL, invalidate_acquired, "void", "starpu_data_invalidate: handle",
	  "starpu_data_invalidate of data the thread holds" },
	{ "partition_acquired", NULL, partition_acquired, "void", "starpu_data_partition: handle",
	  "starpu_data_partition of data the thread holds" },
	{ "fetch_while_written", NULL, fetch_while_written, "-EDEADLK", "starpu_data_fetch_on_node: handle",
	  "starpu_data_fetch_on_node of data the thread writes" },
	{ "unregister_submit_twice", NULL, unregister_submit_twice, "void", "is not registered (unregistered twice?)",
	  "starpu_data_unregister_submit twice" },
	{ "prefetch_bad_node", NULL, prefetch_bad_node, "-EINVAL", "memory node 99 does not exist",
	  "starpu_data_prefetch_on_node(node 99)" },
	{ "redux_methods_null", NULL, redux_methods_null, "void", "starpu_data_set_reduction_methods: handle (nil)",
	  "starpu_data_set_reduction_methods(NULL, ...)" },
	{ "wont_use_null", NULL, wont_use_null, "void", "starpu_data_wont_use: handle (nil)",
	  "starpu_data_wont_use(NULL)" },
	{ "data_cpy_null", NULL, data_cpy_null, "-EINVAL", "starpu_data_cpy: source handle (nil)",
	  "starpu_data_cpy from a NULL handle" },
	{ "memory_pin_null", NULL, memory_pin_null, "-EINVAL", "starpu_memory_pin: addr is NULL",
	  "starpu_memory_pin(NULL, 100)" },
	{ "wait_while_paused", NULL, wait_while_paused, "hang", "",
	  "starpu_task_wait_for_all between starpu_pause and starpu_resume" },
	{ "ctx_set_context_bad", NULL, ctx_set_context_bad, "-EINVAL", "the thread's context 77",
	  "starpu_sched_ctx_set_context(77), then a task" },
	{ "ctx_add_workers_bad", NULL, ctx_add_workers_bad, "void", "workerids[0] = 9999 is not a worker",
	  "starpu_sched_ctx_add_workers(worker 9999)" },
	{ "ctx_delete_invalid", NULL, ctx_delete_invalid, "void", "sched_ctx_id 77 is not a scheduling context",
	  "starpu_sched_ctx_delete(77)" },
	{ "ctx_create_bad_worker", NULL, ctx_add_bad_worker, "STARPU_NMAX_SCHED_CTXS", "workerids[0] = 9999",
	  "starpu_sched_ctx_create with worker 9999" },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static const char *errname(int rc)
{
	static char buf[32];
	static const struct { int e; const char *n; } names[] =
	{
		{ EINVAL, "EINVAL" }, { ENODEV, "ENODEV" }, { EDEADLK, "EDEADLK" }, { ENOENT, "ENOENT" },
		{ EPERM, "EPERM" }, { ENOMEM, "ENOMEM" }, { EBUSY, "EBUSY" }, { EAGAIN, "EAGAIN" },
		{ ESRCH, "ESRCH" }, { ENOSYS, "ENOSYS" }, { EEXIST, "EEXIST" }, { ERANGE, "ERANGE" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (rc == -names[i].e)
		{
			snprintf(buf, sizeof(buf), "-%s", names[i].n);
			return buf;
		}
	snprintf(buf, sizeof(buf), "%d", rc);
	return buf;
}

/* A correct task after the misuse: the runtime must still work. */
static void check_after(void)
{
	if (!starpu_is_initialized())
	{
		printf("after: not initialized\n");
		return;
	}
	int y = 41;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &y, sizeof(y));
	int rc = starpu_task_insert(&inc_cl, STARPU_RW, h, 0);
	starpu_data_unregister(h);
	if (rc == 0 && y == 42)
		printf("after: ok\n");
	else
		printf("after: broken (submit %d, value %d)\n", rc, y);
	fflush(stdout);
	if (xh)
		starpu_data_unregister(xh);
	starpu_shutdown();
}

static void print_expectation(const struct misuse_case *c)
{
	/* Without a runtime after the case: it failed to start one, or it
	 * was about having none. */
	int none = c->env || c->run == shutdown_without_init || c->run == shutdown_twice ||
		c->run == submit_before_init || c->run == submit_after_shutdown;
	printf("%s\t%s\t%s\t%s\t%s\n", c->name, c->expect_rc, none ? "not initialized" : "ok", c->what, c->expect_msg);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "list"))
	{
		for (size_t i = 0; i < NCASES; i++)
			printf("%s\t%s\n", cases[i].name, cases[i].what);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "expect"))
	{
		for (size_t i = 0; i < NCASES; i++)
			print_expectation(&cases[i]);
		return 0;
	}
	const char *name = argc == 3 && !strcmp(argv[1], "expect") ? argv[2] : argc == 2 ? argv[1] : NULL;
	if (!name)
	{
		fprintf(stderr, "usage: %s list | expect [CASE] | CASE\n", argv[0]);
		return 2;
	}
	const struct misuse_case *c = NULL;
	for (size_t i = 0; i < NCASES; i++)
		if (!strcmp(cases[i].name, name))
			c = &cases[i];
	if (!c)
	{
		fprintf(stderr, "misuse: no case '%s' (misuse list names them)\n", name);
		return 2;
	}
	if (argc == 3)
	{
		print_expectation(c);
		return 0;
	}
	setenv("STARPU_NCPU", "2", 1);
	if (c->env)
	{
		char buf[128];
		snprintf(buf, sizeof(buf), "%s", c->env);
		char *eq = strchr(buf, '=');
		*eq = '\0';
		setenv(buf, eq + 1, 1);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int rc = c->run();
	if (rc == VOID_RC)
		printf("returned void\n");
	else if (rc != PRINTED_RC)
		printf("returned %s\n", errname(rc));
	check_after();
	return 0;
}
