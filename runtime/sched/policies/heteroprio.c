/* heteroprio.c — the "heteroprio" policy and its configuration API
 * (starpu_heteroprio.h).
 *
 * Tasks wait in STARPU_HETEROPRIO_MAX_PRIO buckets, chosen by their
 * priority. Each kind of worker has an ordered list of buckets (its priority
 * levels); an idle worker takes the oldest task it can run from the first
 * non-empty bucket in its list. For a bucket with a declared fastest kind,
 * workers of another kind take a task only while more than their slow
 * factor's worth of tasks per fastest worker wait there, so that the slow
 * workers do not take the last tasks the fast ones would finish sooner.
 *
 * One lock per context protects the buckets and the configuration (a leaf:
 * nothing else is locked under it, except a codelet's can_execute call).
 */
#include "sched/sched.h"
#include "core/sched_ctx.h"
#include "core/workers.h"

#include <starpu_heteroprio.h>

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#define HP_NB_BUCKETS STARPU_HETEROPRIO_MAX_PRIO

struct hp_bucket
{
	struct starpu_task_list tasks;
	unsigned ntasks;
	unsigned valid_kinds;		/* bit k: kind k has this bucket in its list */
	int faster;			/* kind index, -1: none declared */
	float slow_factor[STARPU_NB_TYPES];
};

struct hp_data
{
	os_mutex_t lock;		/* protects everything below but ntasks */
	_Atomic int ntasks;		/* queued in all buckets; read without lock */
	unsigned nb_prios[STARPU_NB_TYPES];
	unsigned mapping[STARPU_NB_TYPES][HP_NB_BUCKETS];
	unsigned nworkers_of[STARPU_NB_TYPES];
	unsigned char member[STARPU_NMAXWORKERS];
	struct hp_bucket buckets[HP_NB_BUCKETS];
};

/* The heteroprio kind of worker w, or -1. */
static int kind_of(int w)
{
	switch (starpu_worker_get_type(w))
	{
	case STARPU_CPU_WORKER:
		return STARPU_CPU_IDX;
	case STARPU_CUDA_WORKER:
		return STARPU_CUDA_IDX;
	case STARPU_OPENCL_WORKER:
		return STARPU_OPENCL_IDX;
	case STARPU_MIC_WORKER:
		return STARPU_MIC_IDX;
	case STARPU_MPI_MS_WORKER:
		return STARPU_MPI_MS_IDX;
	default:
		return -1;
	}
}

/* The context's heteroprio data, or NULL after reporting why not. */
static struct hp_data *hp_data_of(unsigned ctx, const char *fn)
{
	if (ctx >= STARPU_NMAX_SCHED_CTXS || !sched_ctx_get(ctx)->in_use)
	{
		rt_error("%s: no scheduling context %u", fn, ctx);
		return NULL;
	}
	struct sched_ctx *c = sched_ctx_get(ctx);
	if (c->policy != &sched_policy_heteroprio || !c->policy_data)
	{
		rt_error("%s: scheduling context %u does not use the heteroprio policy (it uses '%s')",
			 fn, ctx, c->policy && c->policy->policy_name ? c->policy->policy_name : "?");
		return NULL;
	}
	return c->policy_data;
}

static int check_kind(enum starpu_heteroprio_types arch, const char *fn)
{
	if ((unsigned) arch >= STARPU_NB_TYPES)
	{
		rt_error("%s: unknown kind of worker %d (valid: 0 to %d, enum starpu_heteroprio_types)",
			 fn, (int) arch, STARPU_NB_TYPES - 1);
		return -EINVAL;
	}
	return 0;
}

static int check_bucket(unsigned bucket, const char *fn, const char *what)
{
	if (bucket >= HP_NB_BUCKETS)
	{
		rt_error("%s: %s %u out of range (0 to %d)", fn, what, bucket, HP_NB_BUCKETS - 1);
		return -EINVAL;
	}
	return 0;
}

/* Which kinds see each bucket, from the priority lists (under lock). */
static void update_valid_kinds(struct hp_data *d)
{
	for (unsigned b = 0; b < HP_NB_BUCKETS; b++)
		d->buckets[b].valid_kinds = 0;
	for (unsigned k = 0; k < STARPU_NB_TYPES; k++)
		for (unsigned p = 0; p < d->nb_prios[k]; p++)
			d->buckets[d->mapping[k][p]].valid_kinds |= 1u << k;
}

void starpu_heteroprio_set_nb_prios(unsigned sched_ctx_id, enum starpu_heteroprio_types arch, unsigned max_prio)
{
	const char *fn = "starpu_heteroprio_set_nb_prios";
	struct hp_data *d = hp_data_of(sched_ctx_id, fn);
	if (!d || check_kind(arch, fn))
		return;
	if (max_prio > HP_NB_BUCKETS)
	{
		rt_error("%s: %u priority levels, more than STARPU_HETEROPRIO_MAX_PRIO (%d)", fn, max_prio, HP_NB_BUCKETS);
		return;
	}
	os_mutex_lock(&d->lock);
	d->nb_prios[arch] = max_prio;
	update_valid_kinds(d);
	os_mutex_unlock(&d->lock);
}

void starpu_heteroprio_set_mapping(unsigned sched_ctx_id, enum starpu_heteroprio_types arch, unsigned source_prio, unsigned dest_bucket_id)
{
	const char *fn = "starpu_heteroprio_set_mapping";
	struct hp_data *d = hp_data_of(sched_ctx_id, fn);
	if (!d || check_kind(arch, fn) || check_bucket(source_prio, fn, "priority level") ||
	    check_bucket(dest_bucket_id, fn, "bucket"))
		return;
	os_mutex_lock(&d->lock);
	d->mapping[arch][source_prio] = dest_bucket_id;
	update_valid_kinds(d);
	os_mutex_unlock(&d->lock);
}

void starpu_heteroprio_set_faster_arch(unsigned sched_ctx_id, enum starpu_heteroprio_types arch, unsigned bucket_id)
{
	const char *fn = "starpu_heteroprio_set_faster_arch";
	struct hp_data *d = hp_data_of(sched_ctx_id, fn);
	if (!d || check_kind(arch, fn) || check_bucket(bucket_id, fn, "bucket"))
		return;
	os_mutex_lock(&d->lock);
	d->buckets[bucket_id].faster = (int) arch;
	d->buckets[bucket_id].slow_factor[arch] = 1.0f;
	os_mutex_unlock(&d->lock);
}

void starpu_heteroprio_set_arch_slow_factor(unsigned sched_ctx_id, enum starpu_heteroprio_types arch, unsigned bucket_id, float slow_factor)
{
	const char *fn = "starpu_heteroprio_set_arch_slow_factor";
	struct hp_data *d = hp_data_of(sched_ctx_id, fn);
	if (!d || check_kind(arch, fn) || check_bucket(bucket_id, fn, "bucket"))
		return;
	if (!(slow_factor > 0.0f) || isinf(slow_factor))
	{
		rt_error("%s: slow factor %g must be a positive number", fn, (double) slow_factor);
		return;
	}
	os_mutex_lock(&d->lock);
	d->buckets[bucket_id].slow_factor[arch] = slow_factor;
	os_mutex_unlock(&d->lock);
}

/* ------------------------------------------------------------------ */

static void hp_init(unsigned ctx)
{
	struct hp_data *d = calloc(1, sizeof(*d));
	if (!d)
		abort();
	os_mutex_init(&d->lock);
	for (unsigned b = 0; b < HP_NB_BUCKETS; b++)
	{
		starpu_task_list_init(&d->buckets[b].tasks);
		d->buckets[b].faster = -1;
		for (unsigned k = 0; k < STARPU_NB_TYPES; k++)
			d->buckets[b].slow_factor[k] = 1.0f;
	}
	for (unsigned k = 0; k < STARPU_NB_TYPES; k++)
		for (unsigned p = 0; p < HP_NB_BUCKETS; p++)
			d->mapping[k][p] = p;
	starpu_sched_ctx_set_policy_data(ctx, d);
	/* Priorities are bucket numbers. */
	starpu_sched_ctx_set_min_priority(ctx, 0);
	starpu_sched_ctx_set_max_priority(ctx, HP_NB_BUCKETS - 1);

	void (*configure)(unsigned) = starpu_sched_ctx_get_sched_policy_init(ctx);
	if (configure)
		configure(ctx);	/* the application's starpu_heteroprio_set_* calls */
	else
	{
		os_mutex_lock(&d->lock);
		for (unsigned k = 0; k < STARPU_NB_TYPES; k++)
			d->nb_prios[k] = HP_NB_BUCKETS;
		update_valid_kinds(d);
		os_mutex_unlock(&d->lock);
	}
}

static void hp_deinit(unsigned ctx)
{
	struct hp_data *d = starpu_sched_ctx_get_policy_data(ctx);
	os_mutex_destroy(&d->lock);
	free(d);
	starpu_sched_ctx_set_policy_data(ctx, NULL);
}

static void hp_add_workers(unsigned ctx, int *ids, unsigned n)
{
	struct hp_data *d = starpu_sched_ctx_get_policy_data(ctx);
	os_mutex_lock(&d->lock);
	for (unsigned i = 0; i < n; i++)
	{
		int k = kind_of(ids[i]);
		if (k < 0 || ids[i] >= STARPU_NMAXWORKERS || d->member[ids[i]])
			continue;
		d->member[ids[i]] = 1;
		d->nworkers_of[k]++;
	}
	os_mutex_unlock(&d->lock);
}

static void hp_remove_workers(unsigned ctx, int *ids, unsigned n)
{
	struct hp_data *d = starpu_sched_ctx_get_policy_data(ctx);
	os_mutex_lock(&d->lock);
	for (unsigned i = 0; i < n; i++)
	{
		int k = kind_of(ids[i]);
		if (k < 0 || ids[i] >= STARPU_NMAXWORKERS || !d->member[ids[i]])
			continue;
		d->member[ids[i]] = 0;
		d->nworkers_of[k]--;
	}
	os_mutex_unlock(&d->lock);
}

/* Whether a member worker whose list holds bucket b can run task; fills
 * *where with the worker kinds that may take it. Under lock. */
static int bucket_has_runner(struct hp_data *d, unsigned b, struct starpu_task *task, uint32_t *where)
{
	unsigned valid = d->buckets[b].valid_kinds;
	*where = 0;
	for (unsigned k = 0; k < STARPU_NB_TYPES; k++)
		if (valid & (1u << k))
			*where |= starpu_heteroprio_types_to_arch[k];
	unsigned n = starpu_worker_get_count();
	for (unsigned w = 0; w < n && w < STARPU_NMAXWORKERS; w++)
	{
		int k = kind_of((int) w);
		if (d->member[w] && k >= 0 && (valid & (1u << k)) &&
		    starpu_worker_can_execute_task_first_impl(w, task, NULL))
			return 1;
	}
	return 0;
}

static int hp_push(struct starpu_task *task)
{
	unsigned ctx = task->sched_ctx;
	struct hp_data *d = starpu_sched_ctx_get_policy_data(ctx);
	int prio = task->priority;
	unsigned b = prio < 0 ? 0 : prio >= HP_NB_BUCKETS ? HP_NB_BUCKETS - 1 : (unsigned) prio;
	/* Read before queueing: once queued, the task may run and be freed. */
	uint32_t where = worker_task_where(task);
	const char *name = starpu_task_get_name(task);
	uint32_t kinds;
	int backlog = 0;
	os_mutex_lock(&d->lock);
	int runnable = bucket_has_runner(d, b, task, &kinds);
	if (runnable)
	{
		starpu_task_list_push_back(&d->buckets[b].tasks, task);
		d->buckets[b].ntasks++;
		backlog = atomic_fetch_add_explicit(&d->ntasks, 1, memory_order_relaxed) + 1;
	}
	os_mutex_unlock(&d->lock);

	/* One message per bad task. */
	if ((int) b != prio)
		rt_error("heteroprio: task '%s' has priority %d, not a bucket (0 to %d); %s bucket %u",
			 name, prio, HP_NB_BUCKETS - 1,
			 runnable ? "queued in" : "running it on the first capable worker, as no worker takes from", b);
	else if (!runnable)
		rt_error("heteroprio: no worker whose priority levels include bucket %u can run task '%s' "
			 "(starpu_heteroprio_set_mapping); running it on the first capable worker", b, name);
	if (runnable)
	{
		worker_wake_one_idle(ctx, where & (kinds | WORKER_WHERE_RESTRICTED), backlog);
		return 0;
	}
	/* Nobody would ever take it from the bucket. */
	for (unsigned w = 0; w < starpu_worker_get_count(); w++)
		if (starpu_worker_can_execute_task_first_impl(w, task, NULL))
			return starpu_push_local_task((int) w, task, 0);
	return -ENODEV;
}

static struct starpu_task *hp_pop(unsigned ctx)
{
	struct hp_data *d = starpu_sched_ctx_get_policy_data(ctx);
	if (atomic_load_explicit(&d->ntasks, memory_order_relaxed) == 0)
		return NULL;
	int me = starpu_worker_get_id();
	int k = me < 0 ? -1 : kind_of(me);
	if (k < 0)
		return NULL;
	struct starpu_task *task = NULL;
	os_mutex_lock(&d->lock);
	for (unsigned p = 0; p < d->nb_prios[k] && !task; p++)
	{
		struct hp_bucket *bk = &d->buckets[d->mapping[k][p]];
		if (!bk->ntasks)
			continue;
		/* A slower kind leaves the bucket's last tasks to the fastest. */
		if (bk->faster >= 0 && bk->faster != k && d->nworkers_of[bk->faster] > 0 &&
		    (float) bk->ntasks / (float) d->nworkers_of[bk->faster] <= bk->slow_factor[k])
			continue;
		for (struct starpu_task *t = starpu_task_list_begin(&bk->tasks); t; t = starpu_task_list_next(t))
			if (starpu_worker_can_execute_task_first_impl((unsigned) me, t, NULL))
			{
				starpu_task_list_erase(&bk->tasks, t);
				bk->ntasks--;
				atomic_fetch_sub_explicit(&d->ntasks, 1, memory_order_relaxed);
				task = t;
				break;
			}
	}
	os_mutex_unlock(&d->lock);
	return task;
}

struct starpu_sched_policy sched_policy_heteroprio = {
	.init_sched = hp_init,
	.deinit_sched = hp_deinit,
	.push_task = hp_push,
	.pop_task = hp_pop,
	.add_workers = hp_add_workers,
	.remove_workers = hp_remove_workers,
	.policy_name = "heteroprio",
	.policy_description = "priority buckets mapped per kind of worker; slower kinds leave a bucket's last tasks to the fastest",
	.worker_type = STARPU_WORKER_LIST,
};
