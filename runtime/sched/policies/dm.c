/* dm.c — the "deque model" policies dm, dmda, dmdar and dmdas.
 *
 * Every worker of the context has its own queue and an estimate of when it
 * will be done with it: exp_start (when the task it runs now, if any, should
 * end), exp_len (the predicted lengths of the tasks queued behind it) and
 * the queue's end, exp_start + exp_len. A pushed task goes to the (worker,
 * implementation) pair with the best fitness:
 *   dm:    the earliest expected termination (queue's end + length);
 *   dmda:  alpha * (termination - best termination) + beta * data transfer
 *          time + gamma * energy (+ idle power of the other workers),
 *          STARPU_SCHED_ALPHA/BETA/GAMMA and STARPU_IDLE_POWER as in StarPU;
 *   dmdar: dmda, and a worker takes first the queued tasks whose input data
 *          are already on its memory node;
 *   dmdas: dmda, each queue sorted by priority (FIFO among equals); a
 *          worker takes, among the queued tasks of the highest priority,
 *          the first whose input data are on its node (StarPU's choice).
 * A task whose model is not calibrated for some arch able to run it (NaN
 * prediction) goes to the least loaded such worker instead, so that every
 * arch and implementation gets measured; with no model at all (0.0 lengths)
 * the policy balances queued tasks. The estimates are updated on push, on
 * pop, and in post_exec_hook with the actual completion time.
 *
 * Written with the public policy API only; queues are never stolen from, so
 * the policy must keep a removed worker's tasks: remove_workers re-pushes
 * them to the remaining workers.
 */
#include "sched/sched.h"
#include "sched/queues.h"
#include "core/workers.h"
#include "core/job.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum dm_kind
{
	DM_DM,
	DM_DMDA,
	DM_DMDAR,
	DM_DMDAS,
};

struct dm_worker
{
	/* Protects everything below. A leaf lock, except that dmdar's pop
	 * asks data handles (their lock) whether they are on the node while
	 * holding it; nothing is pushed while a handle lock is held. */
	os_mutex_t lock;
	struct starpu_task_list tasks;
	/* Written under lock; read without it to skip empty queues. */
	_Atomic int ntasks;
	_Atomic int member;		/* in the context: may be pushed to */
	double exp_start, exp_len;	/* µs, starpu_timing_now() clock */
	/* exp_start and exp_len as of the last update, for the pushes of
	 * dm and dmda, which read them without the lock (publish()). */
	_Atomic double pub_start, pub_len;
	/* The worker's, read at init (fixed from then on): asked of every
	 * worker at every push. */
	struct starpu_perfmodel_arch *arch;
	unsigned node;
	enum starpu_worker_archtype type;
} __attribute__((aligned(64)));

struct dm_data
{
	enum dm_kind kind;
	double alpha, beta, gamma, idle_power;
	unsigned nworkers;		/* size of w[] (every worker of the machine) */
	struct dm_worker w[];
};

/* ------------------------------------------------------------------ */

static double env_double(const char *name, double def)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return def;
	char *end;
	double v = strtod(s, &end);
	if (*end || !isfinite(v))
	{
		rt_error("starpu_init: environment variable %s='%s' is not a number; using %g", name, s, def);
		return def;
	}
	return v;
}

static void dm_init_common(unsigned ctx, enum dm_kind kind)
{
	unsigned n = starpu_worker_get_count();
	struct dm_data *d = sched_zalloc_aligned(sizeof(*d) + sizeof(struct dm_worker) * (n ? n : 1));
	if (!d)
		abort();
	d->kind = kind;
	d->nworkers = n;
	d->alpha = 1.0;
	if (kind != DM_DM)
	{
		d->alpha = env_double("STARPU_SCHED_ALPHA", 1.0);
		d->beta = env_double("STARPU_SCHED_BETA", 1.0);
		d->gamma = env_double("STARPU_SCHED_GAMMA", 1000.0);
		d->idle_power = env_double("STARPU_IDLE_POWER", 0.0);
	}
	for (unsigned i = 0; i < n; i++)
	{
		os_mutex_init(&d->w[i].lock);
		starpu_task_list_init(&d->w[i].tasks);
		d->w[i].arch = starpu_worker_get_perf_archtype((int) i, ctx);
		d->w[i].node = starpu_worker_get_memory_node(i);
		d->w[i].type = starpu_worker_get_type((int) i);
	}
	starpu_sched_ctx_set_policy_data(ctx, d);
	if (kind == DM_DMDAS)
	{
		starpu_sched_ctx_set_min_priority(ctx, INT_MIN);
		starpu_sched_ctx_set_max_priority(ctx, INT_MAX);
	}
}

static void dm_init(unsigned ctx) { dm_init_common(ctx, DM_DM); }
static void dmda_init(unsigned ctx) { dm_init_common(ctx, DM_DMDA); }
static void dmdar_init(unsigned ctx) { dm_init_common(ctx, DM_DMDAR); }
static void dmdas_init(unsigned ctx) { dm_init_common(ctx, DM_DMDAS); }

static void dm_deinit(unsigned ctx)
{
	struct dm_data *d = starpu_sched_ctx_get_policy_data(ctx);
	for (unsigned i = 0; i < d->nworkers; i++)
		os_mutex_destroy(&d->w[i].lock);
	free(d);
	starpu_sched_ctx_set_policy_data(ctx, NULL);
}

/* ------------------------------------------------------------------ */
/* Queues (under the worker's lock). */

static void enqueue_locked(struct dm_data *d, struct dm_worker *q, struct starpu_task *task)
{
	if (d->kind != DM_DMDAS)
	{
		starpu_task_list_push_back(&q->tasks, task);
		return;
	}
	/* After the last task of at least its priority: FIFO among equals. */
	struct starpu_task *after = q->tasks.tail;
	while (after && after->priority < task->priority)
		after = after->prev;
	if (!after)
	{
		starpu_task_list_push_front(&q->tasks, task);
		return;
	}
	task->prev = after;
	task->next = after->next;
	if (after->next)
		after->next->prev = task;
	else
		q->tasks.tail = task;
	after->next = task;
}

/* Whether task's input data are all valid on memory node node already. */
static int task_ready_on(struct starpu_task *task, unsigned node)
{
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	for (unsigned i = 0; i < n; i++)
		if ((STARPU_TASK_GET_MODE(task, i) & STARPU_R) &&
		    !starpu_data_is_on_node(STARPU_TASK_GET_HANDLE(task, i), node))
			return 0;
	return 1;
}

/* How many of task's input data are not valid on node yet. */
static unsigned task_missing_on(struct starpu_task *task, unsigned node)
{
	unsigned n = STARPU_TASK_GET_NBUFFERS(task), missing = 0;
	for (unsigned i = 0; i < n; i++)
		if ((STARPU_TASK_GET_MODE(task, i) & STARPU_R) &&
		    !starpu_data_is_on_node(STARPU_TASK_GET_HANDLE(task, i), node))
			missing++;
	return missing;
}

/* dmdar looks this far into a queue for a ready task (bounds the time the
 * lock is held). */
#define DMDAR_LOOKAHEAD 32

static struct starpu_task *dequeue_locked(struct dm_data *d, struct dm_worker *q)
{
	struct starpu_task *task = starpu_task_list_front(&q->tasks);
	if (task && d->kind == DM_DMDAS)
	{
		/* As StarPU's dmdas: among the tasks of the first one's
		 * priority, the first whose data are all on the node, else the
		 * one with the fewest missing. */
		unsigned node = q->node;
		int first_prio = task->priority;
		unsigned best_missing = UINT_MAX;
		for (struct starpu_task *t = task; t && t->priority >= first_prio; t = t->next)
		{
			unsigned missing = task_missing_on(t, node);
			if (missing < best_missing)
			{
				best_missing = missing;
				task = t;
				if (!missing)
					break;
			}
		}
	}
	else if (task && d->kind == DM_DMDAR)
	{
		unsigned node = q->node;
		unsigned k = 0;
		for (struct starpu_task *t = task; t && k < DMDAR_LOOKAHEAD; t = t->next, k++)
			if (task_ready_on(t, node))
			{
				task = t;
				break;
			}
	}
	if (task)
	{
		starpu_task_list_erase(&q->tasks, task);
		atomic_fetch_sub_explicit(&q->ntasks, 1, memory_order_relaxed);
	}
	return task;
}

/* The part of exp_len a queued task accounts for. */
static double booked_length(const struct starpu_task *task)
{
	return isnan(task->predicted) ? 0.0 : task->predicted;
}

/* Whether a push reads the queues' expectations without their locks (the
 * published copies): dm's and dmda's critical sections never wait, so a
 * push taking the lock would only read the same figures; dmdar's and
 * dmdas's pops ask data handles under the queue's lock, so theirs may. */
static int reads_unlocked(const struct dm_data *d)
{
	return d->kind == DM_DM || d->kind == DM_DMDA;
}

/* Caller holds q->lock, having changed exp_start or exp_len. */
static void publish(struct dm_worker *q)
{
	atomic_store_explicit(&q->pub_start, q->exp_start, memory_order_relaxed);
	atomic_store_explicit(&q->pub_len, q->exp_len, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Choosing a worker. */

/* Predictions repeat for workers of one arch: cache them per push. */
#define PRED_CACHE 16

struct pred_cache
{
	unsigned n;
	struct
	{
		const struct starpu_perfmodel_arch *arch;
		unsigned impl;
		double length, energy;
	} e[PRED_CACHE];
	double transfer[STARPU_MAXNODES];
	unsigned char have_transfer[STARPU_MAXNODES];
};

static void predict(struct dm_data *d, struct pred_cache *c, struct starpu_task *task, struct starpu_perfmodel_arch *arch,
		    unsigned impl, double *length, double *energy)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->e[i].arch == arch && c->e[i].impl == impl)
		{
			*length = c->e[i].length;
			*energy = c->e[i].energy;
			return;
		}
	/* A task of a bundle is placed for the whole bundle (StarPU 1.3). */
	starpu_task_bundle_t b = task->bundle;
	*length = b ? starpu_task_bundle_expected_length(b, arch, impl) : starpu_task_expected_length(task, arch, impl);
	*energy = 0.0;
	if (d->gamma != 0.0 && task->cl->energy_model)
	{
		*energy = b ? starpu_task_bundle_expected_energy(b, arch, impl) : starpu_task_expected_energy(task, arch, impl);
		if (isnan(*energy))
			*energy = 0.0;
	}
	if (c->n < PRED_CACHE)
	{
		c->e[c->n].arch = arch;
		c->e[c->n].impl = impl;
		c->e[c->n].length = *length;
		c->e[c->n].energy = *energy;
		c->n++;
	}
}

static double transfer_time(struct dm_data *d, struct pred_cache *c, struct starpu_task *task, int w)
{
	if (d->kind == DM_DM || d->beta == 0.0)
		return 0.0;
	unsigned node = d->w[w].node;
	if (node >= STARPU_MAXNODES)
		return 0.0;
	if (!c->have_transfer[node])
	{
		c->transfer[node] = task->bundle ? starpu_task_bundle_expected_data_transfer_time(task->bundle, node)
					       : starpu_task_expected_data_transfer_time(node, task);
		if (isnan(c->transfer[node]))
			c->transfer[node] = 0.0;
		c->have_transfer[node] = 1;
	}
	return c->transfer[node];
}

struct candidate
{
	int worker;
	unsigned impl;
	double length;		/* NaN: not calibrated */
	double transfer, energy;
	double end;		/* expected termination (µs) */
	double qend;		/* the worker's queue's end without the task */
	int ntasks;
};

/* Fills cands with every (member worker, implementation) able to run task;
 * returns how many. */
static unsigned list_candidates(struct dm_data *d, struct starpu_task *task,
				struct candidate *cands, unsigned max)
{
	struct pred_cache cache;
	cache.n = 0;
	memset(cache.have_transfer, 0, sizeof(cache.have_transfer));
	/* Without a can_execute function or a restriction to some workers,
	 * which implementations a worker may run depends on its type only:
	 * asked once per type (arch_mask[type], 0: not yet, else mask + 1). */
	int by_type = task->cl && !task->cl->can_execute && !task->workerids_len &&
		      !task->execute_on_a_specific_worker;
	unsigned arch_mask[STARPU_ANY_WORKER] = { 0 };
	double now = starpu_timing_now();
	unsigned n = 0;
	for (unsigned k = 0; k < d->nworkers; k++)
	{
		int w = (int) k;
		struct dm_worker *q = &d->w[w];
		if (!atomic_load_explicit(&q->member, memory_order_acquire))
			continue;
		unsigned mask = 0;
		enum starpu_worker_archtype type = by_type ? q->type : STARPU_ANY_WORKER;
		if ((unsigned) type < STARPU_ANY_WORKER && arch_mask[type])
			mask = arch_mask[type] - 1;
		else
		{
			starpu_worker_can_execute_task_impl((unsigned) w, task, &mask);
			if ((unsigned) type < STARPU_ANY_WORKER)
				arch_mask[type] = mask + 1;
		}
		if (!mask)
			continue;
		double start, len;
		int ntasks;
		if (reads_unlocked(d))
		{
			start = atomic_load_explicit(&q->pub_start, memory_order_relaxed);
			len = atomic_load_explicit(&q->pub_len, memory_order_relaxed);
			ntasks = atomic_load_explicit(&q->ntasks, memory_order_relaxed);
		}
		else
		{
			os_mutex_lock(&q->lock);
			start = q->exp_start;
			len = q->exp_len;
			ntasks = atomic_load_explicit(&q->ntasks, memory_order_relaxed);
			os_mutex_unlock(&q->lock);
		}
		double qstart = start > now ? start : now;
		double qend = qstart + len;
		double transfer = transfer_time(d, &cache, task, w);
		for (unsigned m = mask; m && n < max; m &= m - 1)
		{
			unsigned impl = (unsigned) __builtin_ctz(m);
			struct candidate *c = &cands[n++];
			c->worker = w;
			c->impl = impl;
			predict(d, &cache, task, q->arch, impl, &c->length, &c->energy);
			c->transfer = transfer;
			c->ntasks = ntasks;
			c->qend = qend;
			/* Data come while the queue drains (prefetch); the
			 * transfer also weighs in the fitness (beta), and what of
			 * it the queue does not hide is booked at commit. */
			double ready = qend > now + transfer ? qend : now + transfer;
			c->end = ready + (isnan(c->length) ? 0.0 : c->length);
		}
	}
	return n;
}

/* The candidate to use, by the rules in the header comment. */
static const struct candidate *choose(struct dm_data *d, const struct candidate *cands, unsigned n)
{
	/* One pass for what the rules ask first: ties go to the first
	 * candidate in worker order (CUDA, OpenCL, then CPU workers), as in
	 * StarPU: the same schedules as its dmda. */
	const struct candidate *uncalibrated = NULL;	/* the least loaded */
	const struct candidate *least_loaded = &cands[0];
	int unknown = 0;
	double min_end = INFINITY, max_qend = 0.0;
	for (unsigned i = 0; i < n; i++)
	{
		const struct candidate *c = &cands[i];
		if (isnan(c->length))
		{
			if (!uncalibrated || c->ntasks < uncalibrated->ntasks)
				uncalibrated = c;
		}
		else if (c->length == 0.0)
			unknown = 1;
		if (c->ntasks < least_loaded->ntasks)
			least_loaded = c;
		if (c->end < min_end)
			min_end = c->end;
		if (c->qend > max_qend)
			max_qend = c->qend;
	}
	/* Forced calibration: an uncalibrated pair wins; the least loaded. */
	if (uncalibrated)
		return uncalibrated;
	/* No prediction at all (no model: 0.0) for some pair: as StarPU, the
	 * greedy choice, the least loaded in queued tasks. */
	if (unknown)
		return least_loaded;

	const struct candidate *best = NULL;
	double best_fit = INFINITY;
	double idle = d->kind == DM_DM ? 0.0 : d->gamma * d->idle_power / 1e6;
	for (unsigned i = 0; i < n; i++)
	{
		const struct candidate *c = &cands[i];
		double fit = d->kind == DM_DM ? c->end :
			d->alpha * (c->end - min_end) + d->beta * c->transfer + d->gamma * c->energy;
		/* Ending after every queue does: the others idle meanwhile (as
		 * StarPU, against the queues' ends before this task). */
		if (idle != 0.0 && c->end > max_qend)
			fit += idle * (c->end - max_qend);
		if (!best || fit < best_fit)
		{
			best = c;
			best_fit = fit;
		}
	}
	return best;
}

/* Queues task on c's worker; -EAGAIN if the worker left the context
 * meanwhile (choose again). */
static int commit(struct dm_data *d, struct starpu_task *task, const struct candidate *c)
{
	struct dm_worker *q = &d->w[c->worker];
	os_mutex_lock(&q->lock);
	if (!atomic_load_explicit(&q->member, memory_order_relaxed))
	{
		os_mutex_unlock(&q->lock);
		return -EAGAIN;
	}
	double now = starpu_timing_now();
	if (q->exp_start < now)
		q->exp_start = now;
	double end = q->exp_start + q->exp_len;
	/* The part of the transfer the queue ahead does not hide delays the
	 * queue (StarPU's booking): held until the task starts (pre_exec). */
	double transfer = task->predicted_transfer;
	transfer = isnan(transfer) || now + transfer < end ? 0.0 : now + transfer - end;
	task->predicted_transfer = transfer;
	q->exp_len += transfer + booked_length(task);
	task->predicted_start = q->exp_start + q->exp_len - booked_length(task);
	publish(q);
	enqueue_locked(d, q, task);
	atomic_fetch_add_explicit(&q->ntasks, 1, memory_order_relaxed);
	os_mutex_unlock(&q->lock);
	/* The task is not ours any more: it may already be running. */
	return 0;
}

static int dm_push(struct starpu_task *task)
{
	unsigned ctx = task->sched_ctx;
	struct dm_data *d = starpu_sched_ctx_get_policy_data(ctx);
	unsigned max = d->nworkers * STARPU_MAXIMPLEMENTATIONS;
	struct candidate stack_cands[128];
	struct candidate *cands = max <= 128 ? stack_cands : malloc(sizeof(*cands) * max);
	if (!cands)
		return -ENOMEM;
	int ret = -ENODEV;
	for (int attempt = 0; attempt < 8; attempt++)
	{
		unsigned n = list_candidates(d, task, cands, max);
		if (n == 0)
			break;
		const struct candidate *c = choose(d, cands, n);
		task->predicted = c->length;
		task->predicted_transfer = c->transfer;
		if (task->bundle)
		{
			/* The worker was chosen for the bundle; the task books
			 * its own length. It stays in the bundle (as in StarPU
			 * 1.3) until the application removes it or it is
			 * freed. */
			struct starpu_perfmodel_arch *arch = d->w[c->worker].arch;
			task->predicted = starpu_task_expected_length(task, arch, c->impl);
			task->predicted_transfer = starpu_task_expected_data_transfer_time(
				d->w[c->worker].node, task);
		}
		/* The worker runs the implementation we chose. */
		starpu_task_set_implementation(task, c->impl);
		int worker = c->worker;
		if (starpu_get_prefetch_flag())
			starpu_prefetch_task_input_for(task, (unsigned) worker);
		ret = commit(d, task, c);
		if (ret == 0)
		{
			/* Pairs with the idle worker's fence before its last
			 * look at its queue (workers.h). */
			atomic_thread_fence(memory_order_seq_cst);
			if (worker != starpu_worker_get_id())
				worker_wake(worker_get(worker));
			break;
		}
	}
	if (cands != stack_cands)
		free(cands);
	return ret;
}

static struct starpu_task *dm_pop(unsigned ctx)
{
	struct dm_data *d = starpu_sched_ctx_get_policy_data(ctx);
	int me = starpu_worker_get_id();
	if (me < 0 || (unsigned) me >= d->nworkers)
		return NULL;
	struct dm_worker *q = &d->w[me];
	if (atomic_load_explicit(&q->ntasks, memory_order_relaxed) == 0)
		return NULL;
	os_mutex_lock(&q->lock);
	struct starpu_task *task = dequeue_locked(d, q);
	if (task)
	{
		double len = booked_length(task);
		q->exp_len -= len;
		/* Left: the bookings of transfers not started yet, this task's
		 * included (pre_exec takes it off). */
		if (q->exp_len < 0.0)
			q->exp_len = 0.0;
		q->exp_start = starpu_timing_now() + len;
		publish(q);
	}
	os_mutex_unlock(&q->lock);
	return task;
}

/* The task's data are there, it starts: its transfer's booking is over. */
static void dm_pre_exec(struct starpu_task *task, unsigned ctx)
{
	struct dm_data *d = starpu_sched_ctx_get_policy_data(ctx);
	int me = starpu_worker_get_id();
	if (!d || me < 0 || (unsigned) me >= d->nworkers)
		return;
	struct dm_worker *q = &d->w[me];
	os_mutex_lock(&q->lock);
	double transfer = task->predicted_transfer;
	if (!isnan(transfer) && transfer > 0.0)
	{
		q->exp_len -= transfer;
		if (q->exp_len < 0.0)
			q->exp_len = 0.0;
	}
	q->exp_start = starpu_timing_now() + booked_length(task);
	publish(q);
	os_mutex_unlock(&q->lock);
}

/* The task ended on this worker: its queue starts now. */
static void dm_post_exec(struct starpu_task *task, unsigned ctx)
{
	(void) task;
	struct dm_data *d = starpu_sched_ctx_get_policy_data(ctx);
	int me = starpu_worker_get_id();
	if (!d || me < 0 || (unsigned) me >= d->nworkers)
		return;
	struct dm_worker *q = &d->w[me];
	os_mutex_lock(&q->lock);
	q->exp_start = starpu_timing_now();
	publish(q);
	os_mutex_unlock(&q->lock);
}

static void dm_add_workers(unsigned ctx, int *ids, unsigned n)
{
	struct dm_data *d = starpu_sched_ctx_get_policy_data(ctx);
	double now = starpu_timing_now();
	for (unsigned i = 0; i < n; i++)
	{
		if (ids[i] < 0 || (unsigned) ids[i] >= d->nworkers)
			continue;
		struct dm_worker *q = &d->w[ids[i]];
		os_mutex_lock(&q->lock);
		if (!atomic_load_explicit(&q->member, memory_order_relaxed))
		{
			q->exp_start = now;
			q->exp_len = 0.0;
			publish(q);
		}
		atomic_store_explicit(&q->member, 1, memory_order_release);
		os_mutex_unlock(&q->lock);
	}
}

/* The workers leave: nothing is pushed to them any more, and the tasks
 * queued on them go to the remaining ones (or, when none of those can run
 * a task, to a capable worker's local queue, never dropped). */
static void dm_remove_workers(unsigned ctx, int *ids, unsigned n)
{
	struct dm_data *d = starpu_sched_ctx_get_policy_data(ctx);
	struct starpu_task_list orphans;
	starpu_task_list_init(&orphans);
	for (unsigned i = 0; i < n; i++)
	{
		if (ids[i] < 0 || (unsigned) ids[i] >= d->nworkers)
			continue;
		struct dm_worker *q = &d->w[ids[i]];
		os_mutex_lock(&q->lock);
		atomic_store_explicit(&q->member, 0, memory_order_release);
		struct starpu_task *t;
		while ((t = starpu_task_list_pop_front(&q->tasks)))
			starpu_task_list_push_back(&orphans, t);
		atomic_store_explicit(&q->ntasks, 0, memory_order_relaxed);
		q->exp_len = 0.0;
		publish(q);
		os_mutex_unlock(&q->lock);
	}
	struct starpu_task *t;
	while ((t = starpu_task_list_pop_front(&orphans)))
	{
		if (dm_push(t) == 0)
			continue;
		int placed = 0;
		for (unsigned w = 0; w < starpu_worker_get_count() && !placed; w++)
			if (starpu_worker_can_execute_task_first_impl(w, t, NULL))
				placed = starpu_push_local_task((int) w, t, 0) == 0;
		if (!placed)
			rt_error("scheduling policy '%s': no worker left that can run task '%s'",
				 starpu_sched_ctx_get_sched_policy(ctx)->policy_name, starpu_task_get_name(t));
	}
}

/* ------------------------------------------------------------------ */

#define DM_OPS \
	.deinit_sched = dm_deinit, \
	.push_task = dm_push, \
	.pop_task = dm_pop, \
	.pre_exec_hook = dm_pre_exec, \
	.post_exec_hook = dm_post_exec, \
	.add_workers = dm_add_workers, \
	.remove_workers = dm_remove_workers, \
	.worker_type = STARPU_WORKER_LIST

struct starpu_sched_policy sched_policy_dm = {
	.init_sched = dm_init,
	DM_OPS,
	.policy_name = "dm",
	.policy_description = "performance model: per-worker queues, the worker that should finish the task first",
};

struct starpu_sched_policy sched_policy_dmda = {
	.init_sched = dmda_init,
	DM_OPS,
	.policy_name = "dmda",
	.policy_description = "data-aware performance model: dm weighing data transfer time and energy",
};

struct starpu_sched_policy sched_policy_dmdar = {
	.init_sched = dmdar_init,
	DM_OPS,
	.policy_name = "dmdar",
	.policy_description = "data-aware performance model (ready): dmda, workers take tasks whose data are on their node first",
};

struct starpu_sched_policy sched_policy_dmdas = {
	.init_sched = dmdas_init,
	DM_OPS,
	.policy_name = "dmdas",
	.policy_description = "data-aware performance model (sorted): dmda with per-worker queues sorted by priority",
};
