/* eager.c — the "eager" and "prio" policies: one queue shared by every
 * worker of the context. eager serves tasks in arrival order and ignores
 * priorities; prio serves the highest priority first, FIFO among equals.
 * Written with the public policy API only, like an application's policy.
 * The queue belongs to the context, not to workers: adding or removing
 * workers needs nothing from the policy (the runtime wakes added workers).
 */
#include "sched/sched.h"
#include "sched/queues.h"
#include "core/workers.h"

#include <limits.h>
#include <stdlib.h>

struct eager_data
{
	struct task_fifo fifo;
	struct task_prioq prioq;
};

void sched_fifo_policy_init(unsigned ctx)
{
	struct eager_data *d = sched_zalloc_aligned(sizeof(*d));
	if (!d)
		abort();
	fifo_init(&d->fifo);
	starpu_sched_ctx_set_policy_data(ctx, d);
}

static void prio_init(unsigned ctx)
{
	struct eager_data *d = sched_zalloc_aligned(sizeof(*d));
	if (!d)
		abort();
	prioq_init(&d->prioq);
	starpu_sched_ctx_set_policy_data(ctx, d);
	/* Any int is a valid priority, as in StarPU. */
	starpu_sched_ctx_set_min_priority(ctx, INT_MIN);
	starpu_sched_ctx_set_max_priority(ctx, INT_MAX);
}

void sched_fifo_policy_deinit(unsigned ctx)
{
	struct eager_data *d = starpu_sched_ctx_get_policy_data(ctx);
	fifo_destroy(&d->fifo);
	free(d);
	starpu_sched_ctx_set_policy_data(ctx, NULL);
}

struct task_fifo *sched_fifo_policy_queue(unsigned ctx)
{
	struct eager_data *d = starpu_sched_ctx_get_policy_data(ctx);
	return &d->fifo;
}

static void prio_deinit(unsigned ctx)
{
	struct eager_data *d = starpu_sched_ctx_get_policy_data(ctx);
	prioq_destroy(&d->prioq);
	free(d);
	starpu_sched_ctx_set_policy_data(ctx, NULL);
}

static int eager_push(struct starpu_task *task)
{
	unsigned ctx = task->sched_ctx;
	uint32_t where = worker_task_where(task);
	struct eager_data *d = starpu_sched_ctx_get_policy_data(ctx);
	fifo_push_back(&d->fifo, task);
	/* The task is not ours any more: it may already be running. */
	worker_wake_one_idle(ctx, where, fifo_ntasks(&d->fifo));
	return 0;
}

static int prio_push(struct starpu_task *task)
{
	unsigned ctx = task->sched_ctx;
	uint32_t where = worker_task_where(task);
	struct eager_data *d = starpu_sched_ctx_get_policy_data(ctx);
	prioq_push(&d->prioq, task);
	/* The task is not ours any more: it may already be running. */
	worker_wake_one_idle(ctx, where, prioq_ntasks(&d->prioq));
	return 0;
}

static struct starpu_task *eager_pop(unsigned ctx)
{
	struct eager_data *d = starpu_sched_ctx_get_policy_data(ctx);
	return fifo_pop_for_worker(&d->fifo, starpu_worker_get_id(), 0);
}

static struct starpu_task *prio_pop(unsigned ctx)
{
	struct eager_data *d = starpu_sched_ctx_get_policy_data(ctx);
	return prioq_pop_for_worker(&d->prioq, starpu_worker_get_id());
}

struct starpu_sched_policy sched_policy_eager = {
	.init_sched = sched_fifo_policy_init,
	.deinit_sched = sched_fifo_policy_deinit,
	.push_task = eager_push,
	.pop_task = eager_pop,
	.policy_name = "eager",
	.policy_description = "greedy policy with one central FIFO queue",
	.worker_type = STARPU_WORKER_LIST,
};

struct starpu_sched_policy sched_policy_prio = {
	.init_sched = prio_init,
	.deinit_sched = prio_deinit,
	.push_task = prio_push,
	.pop_task = prio_pop,
	.policy_name = "prio",
	.policy_description = "greedy policy with one central queue, highest priority first",
	.worker_type = STARPU_WORKER_LIST,
};
