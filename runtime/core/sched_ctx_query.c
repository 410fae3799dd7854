/* sched_ctx_query.c — the public accessors of scheduling contexts: the
 * calling thread's context, members and their lists, user and policy data,
 * priorities. Creation, changes and deletion are sched_ctx.c's (its design
 * note says who reads what). */
#include "core/sched_ctx.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"
#include "sched/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Public accessors. These read the membership without the change mutex:
 * a snapshot, exact when no change runs concurrently. */

static struct sched_ctx *ctx_checked(unsigned id, const char *fn)
{
	if (id >= STARPU_NMAX_SCHED_CTXS || !atomic_load(&sched_ctxs[id].in_use))
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

unsigned starpu_sched_ctx_get_ctx_for_task(struct starpu_task *task)
{
	return task ? task->sched_ctx : STARPU_NMAX_SCHED_CTXS;
}

void starpu_sched_ctx_display_workers(unsigned sched_ctx_id, FILE *f)
{
	struct sched_ctx *ctx = ctx_checked(sched_ctx_id, "starpu_sched_ctx_display_workers");
	if (!ctx)
		return;
	os_mutex_lock(&sched_ctx_change_mutex);
	fprintf(f, "[sched_ctx %u '%s'] %u worker(s):\n", sched_ctx_id, ctx->name, ctx->nworkers);
	for (unsigned i = 0; i < ctx->nworkers; i++)
	{
		char name[64];
		starpu_worker_get_name(ctx->workerids[i], name, sizeof(name));
		fprintf(f, "\t%d: %s\n", ctx->workerids[i], name);
	}
	os_mutex_unlock(&sched_ctx_change_mutex);
}

unsigned starpu_sched_ctx_get_nshared_workers(unsigned sched_ctx_id, unsigned sched_ctx_id2)
{
	struct sched_ctx *a = ctx_checked(sched_ctx_id, "starpu_sched_ctx_get_nshared_workers");
	struct sched_ctx *b = ctx_checked(sched_ctx_id2, "starpu_sched_ctx_get_nshared_workers");
	if (!a || !b)
		return 0;
	unsigned n = 0;
	os_mutex_lock(&sched_ctx_change_mutex);
	for (unsigned i = 0; i < a->nworkers; i++)
		n += sched_ctx_has_worker(b, a->workerids[i]);
	os_mutex_unlock(&sched_ctx_change_mutex);
	return n;
}

unsigned starpu_sched_ctx_overlapping_ctxs_on_worker(int workerid)
{
	if (workerid < 0 || (unsigned) workerid >= rt.nworkers)
		return 0;
	os_mutex_lock(&sched_ctx_change_mutex);
	unsigned n = worker_get(workerid)->nsched_ctxs;
	os_mutex_unlock(&sched_ctx_change_mutex);
	return n > 1;
}

unsigned starpu_worker_get_sched_ctx_list(int workerid, unsigned **sched_ctx)
{
	*sched_ctx = NULL;
	if (workerid < 0 || (unsigned) workerid >= rt.nworkers)
	{
		rt_error("starpu_worker_get_sched_ctx_list: workerid %d is not a worker", workerid);
		return 0;
	}
	struct worker *w = worker_get(workerid);
	os_mutex_lock(&sched_ctx_change_mutex);
	unsigned n = w->nsched_ctxs;
	*sched_ctx = malloc(sizeof(unsigned) * (n ? n : 1));
	if (*sched_ctx)
		memcpy(*sched_ctx, w->sched_ctxs, sizeof(unsigned) * n);
	os_mutex_unlock(&sched_ctx_change_mutex);
	return *sched_ctx ? n : 0;
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
	os_mutex_lock(&sched_ctx_change_mutex);
	/* In the collection's order (list or tree). */
	unsigned n = ctx->workers->nworkers;
	*workerids = malloc(sizeof(int) * (n ? n : 1));
	if (*workerids)
		memcpy(*workerids, ctx->workers->workerids, sizeof(int) * n);
	os_mutex_unlock(&sched_ctx_change_mutex);
	return *workerids ? n : 0;
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
