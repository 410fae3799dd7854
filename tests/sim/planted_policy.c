/* planted_policy.c — a scheduling policy in a shared library, for
 * `vela replay --sched-lib` and `vela sched-eval -s LIB.so:SYMBOL`
 * (tests/sim/check_sched_eval.sh), built without linking libvela: its
 * calls reach the runtime of the program that loads it.
 *
 * Two symbols, one policy name ("planted"), so that a baseline made with
 * one is compared case by case with a run of the other:
 *   planted_good   one central FIFO, any worker takes the first task it
 *                  can run;
 *   planted_worse  the same FIFO, but only the first worker that can run
 *                  a task takes it: a deliberately worse policy, the
 *                  regression the CI verdict must catch.
 */
#include <starpu.h>
#include <stdlib.h>

struct fifo
{
	/* Protects list. pop_task runs with the worker's sched mutex held and
	 * takes this one inside it, so push_task wakes workers after
	 * releasing it. */
	starpu_pthread_mutex_t lock;
	struct starpu_task_list list;
	int serial;		/* planted_worse */
};

static void init_common(unsigned ctx, int serial)
{
	struct fifo *f = malloc(sizeof(*f));
	STARPU_ASSERT(f);
	STARPU_PTHREAD_MUTEX_INIT(&f->lock, NULL);
	starpu_task_list_init(&f->list);
	f->serial = serial;
	starpu_sched_ctx_set_policy_data(ctx, f);
}

static void init_good(unsigned ctx)
{
	init_common(ctx, 0);
}

static void init_worse(unsigned ctx)
{
	init_common(ctx, 1);
}

static void deinit(unsigned ctx)
{
	struct fifo *f = starpu_sched_ctx_get_policy_data(ctx);
	STARPU_PTHREAD_MUTEX_DESTROY(&f->lock);
	free(f);
}

static int push(struct starpu_task *task)
{
	struct fifo *f = starpu_sched_ctx_get_policy_data(task->sched_ctx);
	STARPU_PTHREAD_MUTEX_LOCK(&f->lock);
	starpu_task_list_push_back(&f->list, task);
	starpu_push_task_end(task);
	STARPU_PTHREAD_MUTEX_UNLOCK(&f->lock);
	struct starpu_worker_collection *workers = starpu_sched_ctx_get_worker_collection(task->sched_ctx);
	struct starpu_sched_ctx_iterator it;
	workers->init_iterator(workers, &it);
	while (workers->has_next(workers, &it))
		starpu_wake_worker_relax_light(workers->get_next(workers, &it));
	return 0;
}

/* The lowest worker id that can run task (planted_worse gives it only to
 * that one). */
static int first_able(struct starpu_task *task)
{
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
		if (starpu_worker_can_execute_task_first_impl(w, task, NULL))
			return (int) w;
	return -1;
}

static struct starpu_task *pop(unsigned ctx)
{
	struct fifo *f = starpu_sched_ctx_get_policy_data(ctx);
	int worker = starpu_worker_get_id_check();
	STARPU_PTHREAD_MUTEX_LOCK(&f->lock);
	struct starpu_task *task = starpu_task_list_begin(&f->list);
	while (task && (!starpu_worker_can_execute_task_first_impl(worker, task, NULL) ||
			(f->serial && first_able(task) != worker)))
		task = starpu_task_list_next(task);
	if (task)
		starpu_task_list_erase(&f->list, task);
	STARPU_PTHREAD_MUTEX_UNLOCK(&f->lock);
	return task;
}

struct starpu_sched_policy planted_good = {
	.init_sched = init_good,
	.deinit_sched = deinit,
	.push_task = push,
	.pop_task = pop,
	.policy_name = "planted",
	.policy_description = "a central FIFO (test library)",
	.worker_type = STARPU_WORKER_LIST,
};

struct starpu_sched_policy planted_worse = {
	.init_sched = init_worse,
	.deinit_sched = deinit,
	.push_task = push,
	.pop_task = pop,
	.policy_name = "planted",
	.policy_description = "a central FIFO served by one worker (deliberately worse, test library)",
	.worker_type = STARPU_WORKER_LIST,
};

/* The default symbol of --sched-lib. */
struct starpu_sched_policy sched_policy = {
	.init_sched = init_good,
	.deinit_sched = deinit,
	.push_task = push,
	.pop_task = pop,
	.policy_name = "lib-fifo",
	.policy_description = "a central FIFO from a shared library (test library)",
	.worker_type = STARPU_WORKER_LIST,
};
