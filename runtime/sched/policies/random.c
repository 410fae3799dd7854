/* random.c — the "random" policy: each task goes to a worker drawn at
 * random among those able to run it, weighted by their relative speed (all
 * equal until performance models exist), then waits in that worker's queue.
 *
 * The draws are reproducible: the n-th push of a run uses a hash of n and the
 * seed (STARPU_RAND_SEED, default 0), so a run with the same submission order
 * makes the same choices.
 *
 * Context resizing: a removed worker's queue is dealt out to the remaining
 * members, and tasks left on non-members (the context had none) go to the
 * workers added later (see ws.c).
 */
#include "sched/sched.h"
#include "sched/queues.h"
#include "core/workers.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct rnd_policy_data
{
	uint64_t seed;
	_Atomic uint64_t ndraws;
	struct task_fifo queues[];	/* one per worker id */
};

static uint64_t mix64(uint64_t x)
{
	/* SplitMix64 finaliser: a good bijective scrambler. */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void random_init(unsigned ctx)
{
	unsigned n = starpu_worker_get_count();
	struct rnd_policy_data *d = sched_zalloc_aligned(sizeof(*d) + sizeof(struct task_fifo) * (n ? n : 1));
	if (!d)
		abort();
	d->seed = (uint64_t) starpu_get_env_number_default("STARPU_RAND_SEED", 0);
	for (unsigned i = 0; i < n; i++)
		fifo_init(&d->queues[i]);
	starpu_sched_ctx_set_policy_data(ctx, d);
}

static void random_deinit(unsigned ctx)
{
	struct rnd_policy_data *d = starpu_sched_ctx_get_policy_data(ctx);
	for (unsigned i = 0; i < starpu_worker_get_count(); i++)
		fifo_destroy(&d->queues[i]);
	free(d);
	starpu_sched_ctx_set_policy_data(ctx, NULL);
}

static void *rnd_queue(void *d, int w)
{
	return &((struct rnd_policy_data *) d)->queues[w];
}

static int rnd_ntasks(void *q)
{
	return fifo_ntasks(q);
}

static struct starpu_task *rnd_pop_for(void *q, int to)
{
	return fifo_pop_for_worker(q, to, 0);
}

static void rnd_push(void *q, struct starpu_task *t)
{
	fifo_push_back(q, t);
}

static const struct worker_queues_ops rnd_queues = { rnd_queue, rnd_ntasks, rnd_pop_for, rnd_push };

static void random_rebalance(unsigned ctx, int *changed, unsigned nchanged)
{
	(void) changed;
	(void) nchanged;
	sched_rebalance_orphans(ctx, starpu_sched_ctx_get_policy_data(ctx), &rnd_queues);
}

static int random_push(struct starpu_task *task)
{
	unsigned ctx = task->sched_ctx;
	struct rnd_policy_data *d = starpu_sched_ctx_get_policy_data(ctx);
	struct starpu_worker_collection *workers = starpu_sched_ctx_get_worker_collection(ctx);

	int candidates[STARPU_NMAXWORKERS];
	unsigned n = 0;
	struct starpu_sched_ctx_iterator it;
	workers->init_iterator(workers, &it);
	while (workers->has_next(workers, &it))
	{
		int w = workers->get_next(workers, &it);
		if (starpu_worker_can_execute_task_first_impl((unsigned) w, task, NULL))
			candidates[n++] = w;
	}
	if (n == 0)
		return -ENODEV;
	uint64_t draw = mix64(d->seed ^ atomic_fetch_add_explicit(&d->ndraws, 1, memory_order_relaxed));
	int chosen = candidates[draw % n];
	fifo_push_back(&d->queues[chosen], task);
	worker_wake(worker_get(chosen));
	return 0;
}

static struct starpu_task *random_pop(unsigned ctx)
{
	struct rnd_policy_data *d = starpu_sched_ctx_get_policy_data(ctx);
	return fifo_pop_front(&d->queues[starpu_worker_get_id()]);
}

struct starpu_sched_policy sched_policy_random = {
	.init_sched = random_init,
	.deinit_sched = random_deinit,
	.push_task = random_push,
	.pop_task = random_pop,
	.add_workers = random_rebalance,
	.remove_workers = random_rebalance,
	.policy_name = "random",
	.policy_description = "each task to a random worker, weighted by worker speed (seeded by STARPU_RAND_SEED)",
	.worker_type = STARPU_WORKER_LIST,
};
