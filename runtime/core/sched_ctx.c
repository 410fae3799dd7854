/* sched_ctx.c — scheduling contexts: the global context, its worker
 * collection, priorities and policy data, and the public accessors.
 *
 * Only the global context exists so far; creating and resizing contexts at
 * run time (seed 000's protocol) builds on this table.
 */
#include "core/sched_ctx.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct sched_ctx sched_ctxs[STARPU_NMAX_SCHED_CTXS];

/* ------------------------------------------------------------------ */
/* The list worker collection: workerids[] holds the members in order. */

static unsigned list_has_next(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it)
{
	return (unsigned) it->cursor < workers->nworkers;
}

static int list_get_next(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it)
{
	if ((unsigned) it->cursor >= workers->nworkers)
		return -1;
	return workers->workerids[it->cursor++];
}

static int list_add(struct starpu_worker_collection *workers, int worker)
{
	if (worker < 0 || worker >= STARPU_NMAXWORKERS)
		return -1;
	if (workers->present[worker])
		return -1;
	workers->workerids[workers->nworkers++] = worker;
	workers->present[worker] = 1;
	workers->is_unblocked[worker] = 1;
	workers->nunblocked_workers++;
	return worker;
}

static int list_remove(struct starpu_worker_collection *workers, int worker)
{
	if (worker < 0 || worker >= STARPU_NMAXWORKERS || !workers->present[worker])
		return -1;
	unsigned j = 0;
	for (unsigned i = 0; i < workers->nworkers; i++)
		if (workers->workerids[i] != worker)
			workers->workerids[j++] = workers->workerids[i];
	workers->nworkers = j;
	workers->present[worker] = 0;
	workers->is_unblocked[worker] = 0;
	workers->nunblocked_workers--;
	return worker;
}

static void list_init(struct starpu_worker_collection *workers)
{
	workers->workerids = malloc(sizeof(int) * STARPU_NMAXWORKERS);
	workers->nworkers = 0;
	workers->nunblocked_workers = 0;
	workers->nmasters = 0;
	memset(workers->present, 0, sizeof(workers->present));
	memset(workers->is_unblocked, 0, sizeof(workers->is_unblocked));
	memset(workers->is_master, 0, sizeof(workers->is_master));
}

static void list_deinit(struct starpu_worker_collection *workers)
{
	free(workers->workerids);
	workers->workerids = NULL;
	workers->nworkers = 0;
}

static void list_init_iterator(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it)
{
	(void) workers;
	it->cursor = 0;
	it->possibly_parallel = -1;
}

static void list_init_iterator_for_parallel_tasks(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it, struct starpu_task *task)
{
	list_init_iterator(workers, it);
	it->possibly_parallel = task ? (int) task->possibly_parallel : 0;
}

struct starpu_worker_collection starpu_worker_list = {
	.has_next = list_has_next,
	.get_next = list_get_next,
	.add = list_add,
	.remove = list_remove,
	.init = list_init,
	.deinit = list_deinit,
	.init_iterator = list_init_iterator,
	.init_iterator_for_parallel_tasks = list_init_iterator_for_parallel_tasks,
	.type = STARPU_WORKER_LIST,
};

struct starpu_worker_collection *starpu_sched_ctx_create_worker_collection(unsigned sched_ctx_id, enum starpu_worker_collection_type type)
{
	struct sched_ctx *ctx = sched_ctx_get(sched_ctx_id);
	struct starpu_worker_collection *c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	/* Every collection is a list so far; a tree type is accepted and
	 * iterates in the same order. */
	*c = starpu_worker_list;
	c->type = type;
	c->init(c);
	ctx->workers = c;
	ctx->collection_by_runtime = 0;
	return c;
}

void starpu_sched_ctx_delete_worker_collection(unsigned sched_ctx_id)
{
	struct sched_ctx *ctx = sched_ctx_get(sched_ctx_id);
	if (!ctx->workers)
		return;
	ctx->workers->deinit(ctx->workers);
	free(ctx->workers);
	ctx->workers = NULL;
}

struct starpu_worker_collection *starpu_sched_ctx_get_worker_collection(unsigned sched_ctx_id)
{
	if (sched_ctx_id >= STARPU_NMAX_SCHED_CTXS)
		return NULL;
	return sched_ctx_get(sched_ctx_id)->workers;
}

/* ------------------------------------------------------------------ */

int sched_ctx_setup_global(struct starpu_sched_policy *policy, int min_prio, int max_prio)
{
	struct sched_ctx *ctx = sched_ctx_get(GLOBAL_SCHED_CTX);
	memset(ctx, 0, sizeof(*ctx));
	ctx->id = GLOBAL_SCHED_CTX;
	ctx->in_use = 1;
	snprintf(ctx->name, sizeof(ctx->name), "init");
	ctx->policy = policy;
	ctx->policy_init = rt.conf.sched_policy_init;
	ctx->min_prio = min_prio;
	ctx->max_prio = max_prio;
	os_rwlock_init(&ctx->rwlock);
	for (unsigned i = 0; i < rt.nworkers; i++)
		ctx->workerids[ctx->nworkers++] = (int) i;

	if (policy->init_sched)
		policy->init_sched(GLOBAL_SCHED_CTX);
	if (!ctx->workers)
	{
		starpu_sched_ctx_create_worker_collection(GLOBAL_SCHED_CTX, policy->worker_type);
		ctx->collection_by_runtime = 1;
	}
	if (!ctx->workers)
		return -ENOMEM;
	for (unsigned i = 0; i < ctx->nworkers; i++)
		ctx->workers->add(ctx->workers, ctx->workerids[i]);
	if (policy->add_workers && ctx->nworkers)
		policy->add_workers(GLOBAL_SCHED_CTX, ctx->workerids, ctx->nworkers);
	return 0;
}

void sched_ctx_teardown_all(void)
{
	for (unsigned id = 0; id < STARPU_NMAX_SCHED_CTXS; id++)
	{
		struct sched_ctx *ctx = sched_ctx_get(id);
		if (!ctx->in_use)
			continue;
		if (ctx->policy->remove_workers && ctx->nworkers)
			ctx->policy->remove_workers(id, ctx->workerids, ctx->nworkers);
		if (ctx->policy->deinit_sched)
			ctx->policy->deinit_sched(id);
		if (ctx->workers)
			starpu_sched_ctx_delete_worker_collection(id);
		os_rwlock_destroy(&ctx->rwlock);
		ctx->in_use = 0;
	}
}

unsigned sched_ctx_for_submission(struct starpu_task *task)
{
	if (task->sched_ctx < STARPU_NMAX_SCHED_CTXS && sched_ctxs[task->sched_ctx].in_use)
		return task->sched_ctx;
	struct rt_thread *t = rt.thread_key_backend == os_get_backend() ? os_getspecific(rt.thread_key) : NULL;
	if (t && t->sched_ctx < STARPU_NMAX_SCHED_CTXS && sched_ctxs[t->sched_ctx].in_use)
		return t->sched_ctx;
	return GLOBAL_SCHED_CTX;
}

/* ------------------------------------------------------------------ */
/* Public accessors. */

static struct sched_ctx *ctx_checked(unsigned id, const char *fn)
{
	if (id >= STARPU_NMAX_SCHED_CTXS || !sched_ctxs[id].in_use)
	{
		rt_error("%s: no scheduling context %u", fn, id);
		return NULL;
	}
	return &sched_ctxs[id];
}

void starpu_sched_ctx_set_context(unsigned *sched_ctx_id)
{
	rt_thread()->sched_ctx = sched_ctx_id ? *sched_ctx_id : STARPU_NMAX_SCHED_CTXS;
}

unsigned starpu_sched_ctx_get_context(void)
{
	if (rt.thread_key_backend != os_get_backend())
		return STARPU_NMAX_SCHED_CTXS;
	struct rt_thread *t = os_getspecific(rt.thread_key);
	return t ? t->sched_ctx : STARPU_NMAX_SCHED_CTXS;
}

unsigned starpu_sched_ctx_get_workers_list_raw(unsigned sched_ctx_id, int **workerids)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_get_workers_list_raw");
	if (!ctx)
	{
		*workerids = NULL;
		return 0;
	}
	*workerids = ctx->workerids;
	return ctx->nworkers;
}

unsigned starpu_sched_ctx_get_workers_list(unsigned sched_ctx_id, int **workerids)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_get_workers_list");
	*workerids = NULL;
	if (!ctx || !ctx->nworkers)
		return 0;
	*workerids = malloc(sizeof(int) * ctx->nworkers);
	if (!*workerids)
		return 0;
	memcpy(*workerids, ctx->workerids, sizeof(int) * ctx->nworkers);
	return ctx->nworkers;
}

unsigned starpu_sched_ctx_get_nworkers(unsigned sched_ctx_id)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_get_nworkers");
	return ctx ? ctx->nworkers : 0;
}

unsigned starpu_sched_ctx_contains_worker(int workerid, unsigned sched_ctx_id)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_contains_worker");
	if (!ctx)
		return 0;
	for (unsigned i = 0; i < ctx->nworkers; i++)
		if (ctx->workerids[i] == workerid)
			return 1;
	return 0;
}

unsigned starpu_sched_ctx_contains_type_of_worker(enum starpu_worker_archtype arch, unsigned sched_ctx_id)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_contains_type_of_worker");
	if (!ctx)
		return 0;
	for (unsigned i = 0; i < ctx->nworkers; i++)
		if (rt.workers[ctx->workerids[i]].arch == arch)
			return 1;
	return 0;
}

unsigned starpu_sched_ctx_worker_get_id(unsigned sched_ctx_id)
{
	int w = starpu_worker_get_id();
	if (w >= 0 && starpu_sched_ctx_contains_worker(w, sched_ctx_id))
		return (unsigned) w;
	return (unsigned) -1;
}

void *starpu_sched_ctx_get_user_data(unsigned sched_ctx_id)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_get_user_data");
	return ctx ? ctx->user_data : NULL;
}

void starpu_sched_ctx_set_user_data(unsigned sched_ctx_id, void *user_data)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_set_user_data");
	if (ctx)
		ctx->user_data = user_data;
}

void starpu_sched_ctx_set_policy_data(unsigned sched_ctx_id, void *policy_data)
{
	if (sched_ctx_id >= STARPU_NMAX_SCHED_CTXS)
	{
		rt_error("starpu_sched_ctx_set_policy_data: no scheduling context %u", sched_ctx_id);
		return;
	}
	/* Policies may change it while workers read it: keep the access atomic. */
	__atomic_store_n(&sched_ctxs[sched_ctx_id].policy_data, policy_data, __ATOMIC_RELEASE);
}

void *starpu_sched_ctx_get_policy_data(unsigned sched_ctx_id)
{
	if (sched_ctx_id >= STARPU_NMAX_SCHED_CTXS)
		return NULL;
	return __atomic_load_n(&sched_ctxs[sched_ctx_id].policy_data, __ATOMIC_ACQUIRE);
}

void (*starpu_sched_ctx_get_sched_policy_init(unsigned sched_ctx_id))(unsigned)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_get_sched_policy_init");
	return ctx ? ctx->policy_init : NULL;
}

struct starpu_sched_policy *starpu_sched_ctx_get_sched_policy(unsigned sched_ctx_id)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_get_sched_policy");
	return ctx ? ctx->policy : NULL;
}

int starpu_sched_ctx_get_min_priority(unsigned sched_ctx_id)
{
	return sched_ctx_id < STARPU_NMAX_SCHED_CTXS ? sched_ctxs[sched_ctx_id].min_prio : 0;
}

int starpu_sched_ctx_get_max_priority(unsigned sched_ctx_id)
{
	return sched_ctx_id < STARPU_NMAX_SCHED_CTXS ? sched_ctxs[sched_ctx_id].max_prio : 0;
}

int starpu_sched_ctx_set_min_priority(unsigned sched_ctx_id, int min_prio)
{
	if (sched_ctx_id >= STARPU_NMAX_SCHED_CTXS)
		return -EINVAL;
	sched_ctxs[sched_ctx_id].min_prio = min_prio;
	sched_ctxs[sched_ctx_id].min_prio_set = 1;
	return 0;
}

int starpu_sched_ctx_set_max_priority(unsigned sched_ctx_id, int max_prio)
{
	if (sched_ctx_id >= STARPU_NMAX_SCHED_CTXS)
		return -EINVAL;
	sched_ctxs[sched_ctx_id].max_prio = max_prio;
	sched_ctxs[sched_ctx_id].max_prio_set = 1;
	return 0;
}

int starpu_sched_ctx_min_priority_is_set(unsigned sched_ctx_id)
{
	return sched_ctx_id < STARPU_NMAX_SCHED_CTXS && sched_ctxs[sched_ctx_id].min_prio_set;
}

int starpu_sched_ctx_max_priority_is_set(unsigned sched_ctx_id)
{
	return sched_ctx_id < STARPU_NMAX_SCHED_CTXS && sched_ctxs[sched_ctx_id].max_prio_set;
}

int starpu_sched_ctx_get_nready_tasks(unsigned sched_ctx_id)
{
	(void) sched_ctx_id;
	return (int) atomic_load(&rt.nready);
}

/* The global context's priorities, as STARPU_MIN_PRIO / STARPU_MAX_PRIO. */
int starpu_sched_get_min_priority(void)
{
	return starpu_sched_ctx_get_min_priority(GLOBAL_SCHED_CTX);
}

int starpu_sched_get_max_priority(void)
{
	return starpu_sched_ctx_get_max_priority(GLOBAL_SCHED_CTX);
}

int starpu_sched_set_min_priority(int min_prio)
{
	return starpu_sched_ctx_set_min_priority(GLOBAL_SCHED_CTX, min_prio);
}

int starpu_sched_set_max_priority(int max_prio)
{
	return starpu_sched_ctx_set_max_priority(GLOBAL_SCHED_CTX, max_prio);
}
