/* ws.c — the work-stealing policies "ws" and "lws".
 *
 * Every worker has its own priority queue. A task made ready by a worker goes
 * to that worker's queue (its data is likely hot there); a task submitted by
 * the application goes to the next worker in turn, from the worker after the
 * last one chosen (the first push goes to the second worker, as in StarPU;
 * which worker runs the first task of an LU decides where its panels run:
 * bench/results-simulation.md, compare-starpusim, cause 9). An idle worker takes from
 * its own queue first, then steals:
 *   ws:  from the worker with the most queued tasks;
 *   lws: from the nearest workers first (in hwloc order: the workers that
 *        follow it, wrapping around), which keeps data within a socket.
 *
 * Context resizing: queues are indexed by worker id for every worker, so a
 * worker's queue outlives its membership; add_workers and remove_workers
 * hand the tasks queued on non-members to the members (sched_ctx.c calls
 * them with the context to itself), so that none is stranded.
 */
#include "sched/sched.h"
#include "sched/queues.h"
#include "core/workers.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>

struct ws_data
{
	int locality;			/* lws */
	_Atomic unsigned next;		/* round robin for application pushes: the position last chosen */
	struct task_prioq queues[];	/* one per worker id */
};

static void ws_init_common(unsigned ctx, int locality)
{
	unsigned n = starpu_worker_get_count();
	struct ws_data *d = sched_zalloc_aligned(sizeof(*d) + sizeof(struct task_prioq) * (n ? n : 1));
	if (!d)
		abort();
	d->locality = locality;
	for (unsigned i = 0; i < n; i++)
		prioq_init(&d->queues[i]);
	starpu_sched_ctx_set_policy_data(ctx, d);
	starpu_sched_ctx_set_min_priority(ctx, INT_MIN);
	starpu_sched_ctx_set_max_priority(ctx, INT_MAX);
}

static void ws_init(unsigned ctx)
{
	ws_init_common(ctx, 0);
}

static void lws_init(unsigned ctx)
{
	ws_init_common(ctx, 1);
}

static void ws_deinit(unsigned ctx)
{
	struct ws_data *d = starpu_sched_ctx_get_policy_data(ctx);
	for (unsigned i = 0; i < starpu_worker_get_count(); i++)
		prioq_destroy(&d->queues[i]);
	free(d);
	starpu_sched_ctx_set_policy_data(ctx, NULL);
}

static void *ws_queue(void *d, int w)
{
	return &((struct ws_data *) d)->queues[w];
}

static int ws_ntasks(void *q)
{
	return prioq_ntasks(q);
}

static struct starpu_task *ws_pop_for(void *q, int to)
{
	return prioq_pop_for_worker(q, to);
}

static void ws_push_to(void *q, struct starpu_task *t)
{
	prioq_push(q, t);
}

static const struct worker_queues_ops ws_queues = { ws_queue, ws_ntasks, ws_pop_for, ws_push_to };

static void ws_workers_changed(unsigned ctx, int *workerids, unsigned nworkers)
{
	(void) workerids;
	(void) nworkers;
	sched_rebalance_orphans(ctx, starpu_sched_ctx_get_policy_data(ctx), &ws_queues);
}

static int ws_push(struct starpu_task *task)
{
	unsigned ctx = task->sched_ctx;
	struct ws_data *d = starpu_sched_ctx_get_policy_data(ctx);
	int *ids;
	unsigned n = starpu_sched_ctx_get_workers_list_raw(ctx, &ids);
	if (n == 0)
		return -ENODEV;

	int target = starpu_worker_get_id();
	if (target < 0 || !starpu_sched_ctx_contains_worker(target, ctx) ||
	    !starpu_worker_can_execute_task_first_impl((unsigned) target, task, NULL))
	{
		/* Round robin from the worker after the last one chosen (the
		 * first push goes to the context's second worker, as in
		 * StarPU), skipping those that cannot run the task. Two
		 * concurrent pushes may pick the same worker: harmless. */
		target = -1;
		unsigned last = atomic_load_explicit(&d->next, memory_order_relaxed);
		for (unsigned k = 1; k <= n && target < 0; k++)
		{
			unsigned pos = (last + k) % n;
			if (starpu_worker_can_execute_task_first_impl((unsigned) ids[pos], task, NULL))
			{
				target = ids[pos];
				atomic_store_explicit(&d->next, pos, memory_order_relaxed);
			}
		}
		if (target < 0)
			return -ENODEV;
	}
	uint32_t where = worker_task_where(task);
	prioq_push(&d->queues[target], task);
	/* The target may be asleep; if it is busy, an idle worker can steal.
	 * The task may already be running: only what was read before. */
	if (target == starpu_worker_get_id() || !worker_wake(worker_get(target)))
		worker_wake_one_idle(ctx, where, prioq_ntasks(&d->queues[target]));
	return 0;
}

static struct starpu_task *ws_pop(unsigned ctx)
{
	struct ws_data *d = starpu_sched_ctx_get_policy_data(ctx);
	int me = starpu_worker_get_id();
	struct starpu_task *task = prioq_pop_for_worker(&d->queues[me], me);
	if (task)
		return task;

	int *ids;
	unsigned n = starpu_sched_ctx_get_workers_list_raw(ctx, &ids);
	if (d->locality)
	{
		/* Nearest first: the workers after me in (hwloc-ordered) id order. */
		unsigned pos = 0;
		while (pos < n && ids[pos] != me)
			pos++;
		for (unsigned k = 1; k < n; k++)
		{
			int victim = ids[(pos + k) % n];
			if (prioq_ntasks(&d->queues[victim]) &&
			    (task = prioq_pop_for_worker(&d->queues[victim], me)))
				return task;
		}
		return NULL;
	}
	/* The most loaded worker first; retry once if it was emptied meanwhile. */
	for (int attempt = 0; attempt < 2; attempt++)
	{
		int victim = -1, best = 0;
		for (unsigned k = 0; k < n; k++)
		{
			int w = ids[k];
			int q = prioq_ntasks(&d->queues[w]);
			if (w != me && q > best)
			{
				best = q;
				victim = w;
			}
		}
		if (victim < 0)
			return NULL;
		if ((task = prioq_pop_for_worker(&d->queues[victim], me)))
			return task;
	}
	return NULL;
}

struct starpu_sched_policy sched_policy_ws = {
	.init_sched = ws_init,
	.deinit_sched = ws_deinit,
	.push_task = ws_push,
	.pop_task = ws_pop,
	.add_workers = ws_workers_changed,
	.remove_workers = ws_workers_changed,
	.policy_name = "ws",
	.policy_description = "work stealing: per-worker queues, idle workers steal from the most loaded",
	.worker_type = STARPU_WORKER_LIST,
};

struct starpu_sched_policy sched_policy_lws = {
	.init_sched = lws_init,
	.deinit_sched = ws_deinit,
	.push_task = ws_push,
	.pop_task = ws_pop,
	.add_workers = ws_workers_changed,
	.remove_workers = ws_workers_changed,
	.policy_name = "lws",
	.policy_description = "locality work stealing: per-worker queues, idle workers steal from their neighbours first",
	.worker_type = STARPU_WORKER_LIST,
};
