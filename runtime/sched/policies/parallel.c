/* parallel.c — policies that run parallel tasks (STARPU_SPMD and
 * STARPU_FORKJOIN codelets) on combined workers (core/combined.h).
 *
 * peager: eager with one central FIFO. A sequential task goes to the
 *   first worker that asks. A parallel task is taken only by a worker that
 *   is the master of a combined worker able to run it, which hands it to
 *   the largest such team (at most cl->max_parallelism workers); with no
 *   such team anywhere, any worker runs it alone.
 * pheft: HEFT over workers and combined workers: each task goes, at push
 *   time, to the candidate that would finish it first, from the expected
 *   length on the candidate's perf arch (a team's arch is one CPU device
 *   with size cores) and the time its workers are already booked. A
 *   candidate whose model has no estimate yet (NaN) is chosen at once, so
 *   that the task calibrates it. Ties (every end is "now" without a model)
 *   go to the larger team, then to the fewest queued tasks plus idle
 *   workers (worker_local_load: an idle worker costs the pusher a wake-up),
 *   then to the pushing worker.
 *
 * Written with the public policy API only, like an application's policy.
 */
#include "sched/sched.h"
#include "sched/queues.h"
#include "core/workers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int is_parallel(const struct starpu_task *task)
{
	return task->cl && task->cl->type != STARPU_SEQ;
}

/* Whether combined worker id may run task (some implementation). */
static int combined_fits(int id, struct starpu_task *task, unsigned *nimpl)
{
	for (unsigned i = 0; i < STARPU_MAXIMPLEMENTATIONS; i++)
		if (starpu_combined_worker_can_execute_task((unsigned) id, task, i))
		{
			if (nimpl)
				*nimpl = i;
			return 1;
		}
	return 0;
}

static int first_combined_id(void)
{
	return (int) starpu_worker_get_count();
}

/* ------------------------------------------------------------------ */
/* peager */

static int peager_push(struct starpu_task *task)
{
	unsigned ctx = task->sched_ctx;
	uint32_t where = worker_task_where(task);
	struct task_fifo *q = sched_fifo_policy_queue(ctx);
	/* The masters that may take it, found before the task may run. */
	int masters[STARPU_NMAX_COMBINEDWORKERS], nmasters = 0;
	if (is_parallel(task))
	{
		int first = first_combined_id(), n = (int) starpu_combined_worker_get_count();
		for (int id = first; id < first + n && nmasters < STARPU_NMAX_COMBINEDWORKERS; id++)
		{
			int size, *members;
			if (combined_fits(id, task, NULL) && starpu_combined_worker_get_description(id, &size, &members) == 0)
				masters[nmasters++] = members[0];
		}
	}
	fifo_push_back(q, task);
	/* The task is not ours any more: it may already be running. */
	for (int i = 0; i < nmasters; i++)
		starpu_wake_worker_relax_light(masters[i]);
	if (!nmasters)
		worker_wake_one_idle(ctx, where, fifo_ntasks(q));
	return 0;
}

/* What worker w does with a parallel task: the largest team it masters
 * that can run it (returned), or -1 to run it alone, or -2 to leave it to
 * another worker's team. */
static int peager_team_for(int w, struct starpu_task *task)
{
	int first = first_combined_id(), n = (int) starpu_combined_worker_get_count();
	int best = -1, best_size = 0, any = 0;
	for (int id = first; id < first + n; id++)
	{
		int size, *members;
		if (!combined_fits(id, task, NULL) || starpu_combined_worker_get_description(id, &size, &members))
			continue;
		any = 1;
		if (members[0] == w && size > best_size)
		{
			best = id;
			best_size = size;
		}
	}
	if (best >= 0)
		return best;
	return any ? -2 : -1;
}

static struct starpu_task *peager_pop(unsigned ctx)
{
	struct task_fifo *q = sched_fifo_policy_queue(ctx);
	if (fifo_ntasks(q) == 0)
		return NULL;
	int w = starpu_worker_get_id();
	int team = -1;
	os_mutex_lock(&q->lock);
	struct starpu_task *t = q->list.head;
	for (; t; t = t->next)
	{
		if (is_parallel(t))
		{
			team = peager_team_for(w, t);
			if (team >= 0)
				break;
			if (team == -2)
				continue;
		}
		if (starpu_worker_can_execute_task_first_impl((unsigned) w, t, NULL))
			break;
	}
	if (t)
	{
		starpu_task_list_erase(&q->list, t);
		atomic_fetch_sub_explicit(&q->ntasks, 1, memory_order_relaxed);
	}
	os_mutex_unlock(&q->lock);
	if (t && team >= 0)
	{
		/* Queued for the team, whose master is this worker: it takes the
		 * task from its local queue on its next look. */
		starpu_push_local_task(team, t, 0);
		return NULL;
	}
	return t;
}

struct starpu_sched_policy sched_policy_peager = {
	.init_sched = sched_fifo_policy_init,
	.deinit_sched = sched_fifo_policy_deinit,
	.push_task = peager_push,
	.pop_task = peager_pop,
	.policy_name = "peager",
	.policy_description = "parallel eager: one central FIFO, parallel tasks on the largest fitting combined worker",
	.worker_type = STARPU_WORKER_LIST,
};

/* ------------------------------------------------------------------ */
/* pheft */

struct pheft_data
{
	os_mutex_t lock;	/* protects exp_end; a leaf */
	double exp_end[STARPU_NMAXWORKERS];	/* when each worker's booked work ends (µs) */
};

static void pheft_init(unsigned ctx)
{
	struct pheft_data *d = sched_zalloc_aligned(sizeof(*d));
	if (!d)
		abort();
	os_mutex_init(&d->lock);
	starpu_sched_ctx_set_policy_data(ctx, d);
}

static void pheft_deinit(unsigned ctx)
{
	struct pheft_data *d = starpu_sched_ctx_get_policy_data(ctx);
	os_mutex_destroy(&d->lock);
	free(d);
	starpu_sched_ctx_set_policy_data(ctx, NULL);
}

struct candidate
{
	int id;			/* worker or combined worker */
	int size;
	int *members;		/* size ids (a worker: itself) */
	int self;
	double len;		/* expected length, µs (NaN: uncalibrated) */
	int load;		/* queued tasks and wake-ups, for ties (see below) */
};

/* At most every worker and every combined worker: a fixed buffer on the
 * pusher's stack (about 5 KiB), so that a push allocates nothing. */
#define PHEFT_MAX_CANDIDATES (STARPU_NMAXWORKERS + STARPU_NMAX_COMBINEDWORKERS)

static int in_ctx(const int *ids, unsigned n, int w)
{
	for (unsigned i = 0; i < n; i++)
		if (ids[i] == w)
			return 1;
	return 0;
}

/* What queueing on c costs beyond its expected end: the tasks already
 * waiting for its workers, and a wake-up for each idle one. Without a
 * model every end is "now", and this is what spreads the tasks (instead of
 * queueing them all on the first worker) while keeping them on workers
 * that are awake. */
static int candidate_load(const struct candidate *c)
{
	int load = 0;
	for (int k = 0; k < c->size; k++)
		load += worker_local_load(worker_get(c->members[k]));
	return load;
}

/* Whether c beats best at the same expected end: the larger team (without
 * a model every length is 0, and a parallel task is better off parallel),
 * then the lighter load, then the pushing worker (no wake-up, warm cache). */
static int wins_tie(const struct candidate *c, const struct candidate *best, int self)
{
	if (c->size != best->size)
		return c->size > best->size;
	if (c->load != best->load)
		return c->load < best->load;
	return c->id == self && best->id != self;
}

static int pheft_push(struct starpu_task *task)
{
	unsigned ctx = task->sched_ctx;
	struct pheft_data *d = starpu_sched_ctx_get_policy_data(ctx);
	int *ids;
	unsigned nids = starpu_sched_ctx_get_workers_list_raw(ctx, &ids);
	int first = first_combined_id(), ncomb = (int) starpu_combined_worker_get_count();
	struct candidate c[PHEFT_MAX_CANDIDATES];
	unsigned n = 0;

	/* Expected lengths first, without our lock: models call back into
	 * the application. */
	for (unsigned i = 0; i < nids && n < PHEFT_MAX_CANDIDATES; i++)
	{
		unsigned impl;
		if (!starpu_worker_can_execute_task_first_impl((unsigned) ids[i], task, &impl))
			continue;
		c[n] = (struct candidate) { .id = ids[i], .size = 1, .self = ids[i] };
		c[n].members = &c[n].self;
		c[n].len = starpu_task_expected_length(task, starpu_worker_get_perf_archtype(ids[i], ctx), impl);
		c[n].load = candidate_load(&c[n]);
		n++;
	}
	if (is_parallel(task))
		for (int id = first; id < first + ncomb && n < PHEFT_MAX_CANDIDATES; id++)
		{
			unsigned impl;
			int size, *members;
			if (!combined_fits(id, task, &impl) || starpu_combined_worker_get_description(id, &size, &members))
				continue;
			int ok = 1;
			for (int k = 0; k < size && ok; k++)
				ok = in_ctx(ids, nids, members[k]);
			if (!ok)
				continue;
			c[n] = (struct candidate) { .id = id, .size = size, .members = members };
			c[n].len = starpu_task_expected_length(task, starpu_worker_get_perf_archtype(id, ctx), impl);
			c[n].load = candidate_load(&c[n]);
			n++;
		}
	if (n == 0)
		return -ENODEV;

	int self = starpu_worker_get_id();
	double now = starpu_timing_now();
	int best = -1;
	double best_end = 0.0;
	os_mutex_lock(&d->lock);
	for (unsigned i = 0; i < n; i++)
	{
		double start = now;
		for (int k = 0; k < c[i].size; k++)
			if (d->exp_end[c[i].members[k]] > start)
				start = d->exp_end[c[i].members[k]];
		if (isnan(c[i].len))
		{
			/* No estimate for that arch yet: run it there to get one. */
			best = (int) i;
			best_end = start;
			break;
		}
		double end = start + c[i].len;
		if (best < 0 || end < best_end || (end == best_end && wins_tie(&c[i], &c[best], self)))
		{
			best = (int) i;
			best_end = end;
		}
	}
	for (int k = 0; k < c[best].size; k++)
		d->exp_end[c[best].members[k]] = best_end;
	os_mutex_unlock(&d->lock);

	/* The task is not ours any more once queued. */
	return starpu_push_local_task(c[best].id, task, 0);
}

static struct starpu_task *pheft_pop(unsigned ctx)
{
	(void) ctx;
	return NULL;	/* every task waits in its worker's local queue */
}

struct starpu_sched_policy sched_policy_pheft = {
	.init_sched = pheft_init,
	.deinit_sched = pheft_deinit,
	.push_task = pheft_push,
	.pop_task = pheft_pop,
	.policy_name = "pheft",
	.policy_description = "parallel HEFT: earliest expected finish over workers and combined workers",
	.worker_type = STARPU_WORKER_LIST,
};
