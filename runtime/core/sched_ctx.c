/* sched_ctx.c — scheduling contexts: creation, resizing and deletion at
 * run time, worker collections (list and tree); the public accessors are
 * sched_ctx_query.c's.
 *
 * Design (seed 000's protocol):
 *
 * Membership. A context's worker set lives in three places that change
 * together: ctx->workerids (raw, by worker id, which is hwloc order), the
 * worker collection policies iterate, and each member's sched_ctxs[] list
 * that its driver loop pops from. A worker may belong to several contexts.
 *
 * Who reads what. A worker reads its own sched_ctxs[] and calls the
 * policies' pop_task only inside a scheduling operation
 * (worker_enter_sched_op/leave in sched_pop_task). Every push into a
 * policy runs under the context's rwlock taken for reading
 * (sched_push_job). Hence a change that holds the write lock and keeps the
 * affected workers out of scheduling operations has the context to itself.
 *
 * A change (ctx_change), under sched_ctx_change_mutex so that changes never
 * interleave (the notice flags are not counters):
 *   1. notice: every worker of the union of the old and new sets gets
 *      state_changing_ctx_notice; the changer waits (setting
 *      state_changing_ctx_waiting) until each is out of its scheduling
 *      operation. A noticed worker starts no new one: it blocks in
 *      worker_enter_sched_op. The calling thread's own worker is skipped:
 *      it is running a task or a callback, not a scheduling operation;
 *   2. the write lock: pushes in flight finish, new ones wait;
 *   3. update workerids, the collection and the workers' lists, then call
 *      the policy's remove_workers / add_workers (the collection already
 *      shows the new set). Contract for policies: remove_workers must keep
 *      every task queued for the removed workers, moving it to remaining
 *      members (or keeping it until workers are added: add_workers must then
 *      hand such tasks to the new members);
 *   4. release the write lock, clear the notices and wake the waiters, and
 *      wake the added workers (work may be waiting for them).
 * No lock is held while waiting on a worker except the change mutex, which
 * no worker needs to finish a scheduling operation or a push.
 *
 * Empty contexts are allowed (as in StarPU): a task pushed to a context
 * with no worker is parked by the runtime (never given to the policy) and
 * pushed to the policy when workers are added, or to the heir on deletion.
 *
 * Accounting. nsubmitted counts tasks submitted to the context and not
 * terminated (finished_submit, and a deleted slot is not reused while jobs
 * still name it); nactive counts tasks pushed to the policy that have not
 * finished executing (pre/post hooks included).
 *
 * Deletion: (1) mark the context deleting and set its heir (the inheritor,
 * else the parent of a nested context, else the global context): from now
 * on pushes go to the heir, parked tasks move there; (2) if tasks remain in
 * the policy and nobody can pop them, lend the heir's workers to the
 * context; (3) wait, without the change mutex, until nactive drops to 0:
 * queued tasks run on the context's workers, none is lost or run twice;
 * (4) remove every worker; a worker left in no context joins the parent
 * (nested) or the global context; then deinit the policy. Tasks submitted
 * before the deletion but made ready after it go to the heir; a task
 * submitted to a deleted id is refused with -EINVAL.
 *
 * Errors are one line naming the call and the argument. Calls returning a
 * context id return STARPU_NMAX_SCHED_CTXS on error (StarPU's "no context"
 * value); void calls change nothing when an argument is invalid.
 */
#include "core/sched_ctx.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"
#include "sched/sched.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct sched_ctx sched_ctxs[STARPU_NMAX_SCHED_CTXS];

os_mutex_t sched_ctx_change_mutex = OS_MUTEX_INITIALIZER;

#define NO_CTX STARPU_NMAX_SCHED_CTXS

/* ------------------------------------------------------------------ */
/* A context's worker collection (the list and tree kinds live in
 * worker_collection.c). */

struct starpu_worker_collection *starpu_sched_ctx_create_worker_collection(unsigned sched_ctx_id, enum starpu_worker_collection_type type)
{
	if (sched_ctx_id >= STARPU_NMAX_SCHED_CTXS)
	{
		rt_error("starpu_sched_ctx_create_worker_collection: no scheduling context %u", sched_ctx_id);
		return NULL;
	}
	struct sched_ctx *ctx = sched_ctx_get(sched_ctx_id);
	struct starpu_worker_collection *c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	*c = type == STARPU_WORKER_TREE ? starpu_worker_tree : starpu_worker_list;
	c->init(c);
	ctx->workers = c;
	ctx->collection_by_runtime = 0;
	return c;
}

void starpu_sched_ctx_delete_worker_collection(unsigned sched_ctx_id)
{
	if (sched_ctx_id >= STARPU_NMAX_SCHED_CTXS)
		return;
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
/* Membership changes (see the design note above). */

static int ctx_alive(unsigned id)
{
	return id < STARPU_NMAX_SCHED_CTXS && atomic_load(&sched_ctxs[id].in_use) && !atomic_load(&sched_ctxs[id].deleting);
}

int sched_ctx_has_worker(const struct sched_ctx *ctx, int workerid)
{
	for (unsigned i = 0; i < ctx->nworkers; i++)
		if (ctx->workerids[i] == workerid)
			return 1;
	return 0;
}

static void worker_list_add(struct worker *w, unsigned ctx_id)
{
	w->sched_ctxs[w->nsched_ctxs++] = ctx_id;
}

static void worker_list_remove(struct worker *w, unsigned ctx_id)
{
	unsigned j = 0;
	for (unsigned i = 0; i < w->nsched_ctxs; i++)
		if (w->sched_ctxs[i] != ctx_id)
			w->sched_ctxs[j++] = w->sched_ctxs[i];
	w->nsched_ctxs = j;
}

/* Adds the workers add[] (not members) and removes rem[] (members) from
 * ctx. The caller holds sched_ctx_change_mutex. */
static void ctx_change(struct sched_ctx *ctx, const int *add, unsigned nadd, const int *rem, unsigned nrem)
{
	if (!nadd && !nrem)
		return;
	struct worker *self = worker_self();
	int uni[2 * STARPU_NMAXWORKERS];
	unsigned nuni = 0;
	for (unsigned i = 0; i < ctx->nworkers; i++)
		uni[nuni++] = ctx->workerids[i];
	for (unsigned i = 0; i < nadd; i++)
		uni[nuni++] = add[i];

	for (unsigned i = 0; i < nuni; i++)
		if (worker_get(uni[i]) != self)
			worker_ctx_notice_begin(worker_get(uni[i]));

	os_rwlock_wrlock(&ctx->rwlock);
	for (unsigned i = 0; i < nrem; i++)
	{
		unsigned j = 0;
		for (unsigned k = 0; k < ctx->nworkers; k++)
			if (ctx->workerids[k] != rem[i])
				ctx->workerids[j++] = ctx->workerids[k];
		ctx->nworkers = j;
		ctx->workers->remove(ctx->workers, rem[i]);
		worker_list_remove(worker_get(rem[i]), ctx->id);
	}
	for (unsigned i = 0; i < nadd; i++)
	{
		/* workerids[] stays sorted by id (hwloc order): lws relies on it. */
		unsigned pos = ctx->nworkers;
		while (pos > 0 && ctx->workerids[pos - 1] > add[i])
		{
			ctx->workerids[pos] = ctx->workerids[pos - 1];
			pos--;
		}
		ctx->workerids[pos] = add[i];
		ctx->nworkers++;
		ctx->workers->add(ctx->workers, add[i]);
		worker_list_add(worker_get(add[i]), ctx->id);
	}
	if (nrem && ctx->policy->remove_workers)
		ctx->policy->remove_workers(ctx->id, (int *) rem, nrem);
	if (nadd && ctx->policy->add_workers)
		ctx->policy->add_workers(ctx->id, (int *) add, nadd);
	os_rwlock_unlock(&ctx->rwlock);

	for (unsigned i = 0; i < nuni; i++)
		if (worker_get(uni[i]) != self)
			worker_ctx_notice_end(worker_get(uni[i]));
	for (unsigned i = 0; i < nadd; i++)
		worker_wake(worker_get(add[i]));
}

void sched_ctx_park(struct sched_ctx *ctx, struct starpu_task *task)
{
	os_mutex_lock(&ctx->parked_mutex);
	starpu_task_list_push_back(&ctx->parked, task);
	os_mutex_unlock(&ctx->parked_mutex);
}

/* Pushes again the tasks parked on ctx (now with workers, or deleted: they
 * then go to the heir). */
static void ctx_unpark(struct sched_ctx *ctx)
{
	os_mutex_lock(&ctx->parked_mutex);
	struct starpu_task *t = ctx->parked.head;
	starpu_task_list_init(&ctx->parked);
	os_mutex_unlock(&ctx->parked_mutex);
	while (t)
	{
		struct starpu_task *next = t->next;
		t->next = t->prev = NULL;
		sched_push_job_again(job_of(t));
		t = next;
	}
}

/* Validates a worker array given to call fn; 0 if every id names a
 * worker. */
static int check_workers(const char *fn, const int *ids, int n)
{
	if (n > 0 && !ids)
	{
		rt_error("%s: workerids is NULL but nworkers is %d (-EINVAL)", fn, n);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++)
		if (ids[i] < 0 || (unsigned) ids[i] >= rt.nworkers)
		{
			rt_error("%s: workerids[%d] = %d is not a worker (0..%u) (-EINVAL)", fn, i, ids[i], rt.nworkers - 1);
			return -EINVAL;
		}
	return 0;
}

/* Moves the workers of ctx that belong to no context any more to its
 * parent (nested) or the global context. change_mutex held. */
static void rehome_orphans(struct sched_ctx *ctx, const int *ids, unsigned n)
{
	unsigned home = ctx_alive(ctx->nesting) ? ctx->nesting : GLOBAL_SCHED_CTX;
	int orphans[STARPU_NMAXWORKERS];
	unsigned norphans = 0;
	for (unsigned i = 0; i < n; i++)
		if (worker_get(ids[i])->nsched_ctxs == 0 && !sched_ctx_has_worker(sched_ctx_get(home), ids[i]))
			orphans[norphans++] = ids[i];
	if (norphans)
	{
		ctx_change(sched_ctx_get(home), orphans, norphans, NULL, 0);
		ctx_unpark(sched_ctx_get(home));
	}
}

/* ------------------------------------------------------------------ */
/* Creation and the global context. */

static void ctx_reset(struct sched_ctx *ctx, unsigned id, const char *name, struct starpu_sched_policy *policy)
{
	/* Locks, the parked list and the counters outlive a context in its
	 * slot: jobs of a deleted context may still read them. */
	ctx->id = id;
	snprintf(ctx->name, sizeof(ctx->name), "%s", name ? name : "");
	ctx->policy = policy;
	ctx->policy_data = NULL;
	ctx->user_data = NULL;
	ctx->policy_init = NULL;
	ctx->workers = NULL;
	ctx->collection_by_runtime = 0;
	ctx->min_prio = ctx->max_prio = 0;
	ctx->min_prio_set = ctx->max_prio_set = 0;
	ctx->inheritor = NO_CTX;
	ctx->nesting = NO_CTX;
	ctx->hierarchy_level = 0;
	ctx->awake_workers = 0;
	ctx->finished_submit = 0;
	ctx->close_callback = NULL;
	ctx->close_args = NULL;
	ctx->redirect = NO_CTX;
	ctx->nworkers = 0;
	atomic_store(&ctx->deleting, 0);
}

/* Runs the policy's init and makes sure a collection exists. */
static int ctx_policy_init(struct sched_ctx *ctx)
{
	if (ctx->policy->init_sched)
		ctx->policy->init_sched(ctx->id);
	if (!ctx->workers)
	{
		starpu_sched_ctx_create_worker_collection(ctx->id, ctx->policy->worker_type);
		ctx->collection_by_runtime = 1;
	}
	return ctx->workers ? 0 : -ENOMEM;
}

static void ctx_policy_deinit(struct sched_ctx *ctx)
{
	if (ctx->policy->deinit_sched)
		ctx->policy->deinit_sched(ctx->id);
	if (ctx->workers)
		starpu_sched_ctx_delete_worker_collection(ctx->id);
}

int sched_ctx_setup_global(struct starpu_sched_policy *policy, int min_prio, int max_prio)
{
	for (unsigned id = 0; id < STARPU_NMAX_SCHED_CTXS; id++)
	{
		struct sched_ctx *c = sched_ctx_get(id);
		memset(c, 0, sizeof(*c));
		os_rwlock_init(&c->rwlock);
		os_mutex_init(&c->parked_mutex);
		starpu_task_list_init(&c->parked);
		c->id = id;
		c->inheritor = c->nesting = c->redirect = NO_CTX;
	}
	struct sched_ctx *ctx = sched_ctx_get(GLOBAL_SCHED_CTX);
	ctx_reset(ctx, GLOBAL_SCHED_CTX, "init", policy);
	ctx->policy_init = rt.conf.sched_policy_init;
	ctx->min_prio = min_prio;
	ctx->max_prio = max_prio;
	atomic_store(&ctx->in_use, 1);
	int ret = ctx_policy_init(ctx);
	if (ret)
		return ret;
	/* No worker runs yet: fill the set directly. */
	for (unsigned i = 0; i < rt.nworkers; i++)
	{
		ctx->workerids[ctx->nworkers++] = (int) i;
		ctx->workers->add(ctx->workers, (int) i);
	}
	if (policy->add_workers && ctx->nworkers)
		policy->add_workers(GLOBAL_SCHED_CTX, ctx->workerids, ctx->nworkers);
	return 0;
}

void sched_ctx_teardown_all(void)
{
	for (unsigned id = 0; id < STARPU_NMAX_SCHED_CTXS; id++)
	{
		struct sched_ctx *ctx = sched_ctx_get(id);
		if (atomic_load(&ctx->in_use))
		{
			if (ctx->policy->remove_workers && ctx->nworkers)
				ctx->policy->remove_workers(id, ctx->workerids, ctx->nworkers);
			ctx_policy_deinit(ctx);
			atomic_store(&ctx->in_use, 0);
		}
		os_rwlock_destroy(&ctx->rwlock);
		os_mutex_destroy(&ctx->parked_mutex);
	}
}

static struct starpu_sched_policy *default_policy(void)
{
	const char *env = getenv("STARPU_SCHED");
	struct starpu_sched_policy *p = env && *env ? sched_find_policy(env) : NULL;
	return p ? p : sched_find_policy(SCHED_DEFAULT_POLICY);
}

unsigned starpu_sched_ctx_create(int *workerids, int nworkers, const char *sched_ctx_name, ...)
{
	static const char fn[] = "starpu_sched_ctx_create";
	const char *pname = NULL;
	struct starpu_sched_policy *policy = NULL;
	int min_prio = 0, max_prio = 0, min_set = 0, max_set = 0, awake = 0;
	unsigned level = 0, nesting = NO_CTX;
	int level_set = 0;
	void (*init)(unsigned) = NULL;
	void *user_data = NULL;

	if (!rt_is_up())
	{
		rt_error("%s: the runtime is not initialised", fn);
		return NO_CTX;
	}
	va_list ap;
	va_start(ap, sched_ctx_name);
	int arg;
	while ((arg = va_arg(ap, int)) != 0)
	{
		switch (arg)
		{
		case STARPU_SCHED_CTX_POLICY_NAME: pname = va_arg(ap, const char *); break;
		case STARPU_SCHED_CTX_POLICY_STRUCT: policy = va_arg(ap, struct starpu_sched_policy *); break;
		case STARPU_SCHED_CTX_POLICY_MIN_PRIO: min_prio = va_arg(ap, int); min_set = 1; break;
		case STARPU_SCHED_CTX_POLICY_MAX_PRIO: max_prio = va_arg(ap, int); max_set = 1; break;
		case STARPU_SCHED_CTX_HIERARCHY_LEVEL: level = va_arg(ap, unsigned); level_set = 1; break;
		case STARPU_SCHED_CTX_NESTED: nesting = va_arg(ap, unsigned); break;
		case STARPU_SCHED_CTX_AWAKE_WORKERS: awake = 1; break;
		case STARPU_SCHED_CTX_POLICY_INIT: init = va_arg(ap, void (*)(unsigned)); break;
		case STARPU_SCHED_CTX_USER_DATA: user_data = va_arg(ap, void *); break;
		case STARPU_SCHED_CTX_CUDA_NSMS: (void) va_arg(ap, int); break;	/* no CUDA workers */
		case STARPU_SCHED_CTX_SUB_CTXS: (void) va_arg(ap, int *); (void) va_arg(ap, int); break;
		default:
			va_end(ap);
			rt_error("%s: unknown argument type %d in the list after the name '%s' (end it with 0)",
				 fn, arg, sched_ctx_name ? sched_ctx_name : "");
			return NO_CTX;
		}
	}
	va_end(ap);

	if (!policy && pname && *pname && !(policy = sched_find_policy(pname)))
	{
		rt_error("%s: unknown scheduling policy '%s' (STARPU_SCHED_CTX_POLICY_NAME)", fn, pname);
		return NO_CTX;
	}
	if (!policy)
		policy = default_policy();
	if (!policy->push_task || !policy->pop_task)
	{
		rt_error("%s: scheduling policy '%s' (STARPU_SCHED_CTX_POLICY_STRUCT) lacks push_task or pop_task",
			 fn, policy->policy_name ? policy->policy_name : "(unnamed)");
		return NO_CTX;
	}
	if (nesting != NO_CTX && !ctx_alive(nesting))
	{
		rt_error("%s: STARPU_SCHED_CTX_NESTED names %u, which is not a scheduling context", fn, nesting);
		return NO_CTX;
	}

	/* -1 workers: all of them, as in StarPU. */
	int all[STARPU_NMAXWORKERS];
	if (nworkers == -1)
	{
		nworkers = (int) rt.nworkers;
		for (int i = 0; i < nworkers; i++)
			all[i] = i;
		workerids = all;
	}
	if (nworkers < 0)
	{
		rt_error("%s: nworkers is %d (-1 for all workers, 0 for an empty context)", fn, nworkers);
		return NO_CTX;
	}
	if (check_workers(fn, workerids, nworkers))
		return NO_CTX;
	int ids[STARPU_NMAXWORKERS];
	unsigned n = 0;
	char seen[STARPU_NMAXWORKERS] = { 0 };
	for (int i = 0; i < nworkers; i++)
		if (!seen[workerids[i]])
		{
			seen[workerids[i]] = 1;
			ids[n++] = workerids[i];
		}

	os_mutex_lock(&sched_ctx_change_mutex);
	unsigned id;
	for (id = 1; id < STARPU_NMAX_SCHED_CTXS; id++)
		if (!atomic_load(&sched_ctxs[id].in_use) && atomic_load(&sched_ctxs[id].nsubmitted) == 0 &&
		    atomic_load(&sched_ctxs[id].nactive) == 0)
			break;
	if (id == STARPU_NMAX_SCHED_CTXS)
	{
		os_mutex_unlock(&sched_ctx_change_mutex);
		rt_error("%s: all %d scheduling contexts are in use (STARPU_NMAX_SCHED_CTXS); delete one first",
			 fn, STARPU_NMAX_SCHED_CTXS);
		return NO_CTX;
	}
	struct sched_ctx *ctx = sched_ctx_get(id);
	ctx_reset(ctx, id, sched_ctx_name, policy);
	ctx->user_data = user_data;
	ctx->policy_init = init;
	ctx->nesting = nesting;
	ctx->hierarchy_level = level_set ? level : nesting != NO_CTX ? sched_ctx_get(nesting)->hierarchy_level + 1 : 0;
	ctx->awake_workers = awake;
	atomic_store(&ctx->in_use, 1);
	if (ctx_policy_init(ctx))
	{
		ctx_policy_deinit(ctx);
		atomic_store(&ctx->in_use, 0);
		os_mutex_unlock(&sched_ctx_change_mutex);
		rt_error("%s: out of memory creating context '%s'", fn, ctx->name);
		return NO_CTX;
	}
	/* The application's priorities win over the policy's defaults. */
	if (min_set)
		starpu_sched_ctx_set_min_priority(id, min_prio);
	if (max_set)
		starpu_sched_ctx_set_max_priority(id, max_prio);
	ctx_change(ctx, ids, n, NULL, 0);
	if (init)
		init(id);
	os_mutex_unlock(&sched_ctx_change_mutex);
	return id;
}

unsigned starpu_sched_ctx_create_inside_interval(const char *policy_name, const char *sched_ctx_name,
						 int min_ncpus, int max_ncpus, int min_ngpus, int max_ngpus, unsigned allow_overlap)
{
	(void) min_ngpus;
	(void) max_ngpus;
	(void) allow_overlap;
	int ids[STARPU_NMAXWORKERS];
	int n = starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, ids, STARPU_NMAXWORKERS);
	if (n < min_ncpus)
	{
		rt_error("starpu_sched_ctx_create_inside_interval: min_ncpus is %d but there are %d CPU workers", min_ncpus, n);
		return NO_CTX;
	}
	if (max_ncpus >= 0 && n > max_ncpus)
		n = max_ncpus;
	return starpu_sched_ctx_create(ids, n, sched_ctx_name, STARPU_SCHED_CTX_POLICY_NAME, policy_name ? policy_name : "", 0);
}

/* ------------------------------------------------------------------ */
/* Resizing. */

static struct sched_ctx *ctx_for_change(unsigned id, const char *fn)
{
	if (!ctx_alive(id))
	{
		rt_error("%s: sched_ctx_id %u is not a scheduling context (never created or deleted)", fn, id);
		return NULL;
	}
	return sched_ctx_get(id);
}

void starpu_sched_ctx_add_workers(int *workerids, unsigned nworkers, unsigned sched_ctx_id)
{
	static const char fn[] = "starpu_sched_ctx_add_workers";
	if (check_workers(fn, workerids, (int) nworkers))
		return;
	os_mutex_lock(&sched_ctx_change_mutex);
	struct sched_ctx *ctx = ctx_for_change(sched_ctx_id, fn);
	if (ctx)
	{
		int ids[STARPU_NMAXWORKERS];
		unsigned n = 0;
		for (unsigned i = 0; i < nworkers; i++)
		{
			int dup = sched_ctx_has_worker(ctx, workerids[i]);
			for (unsigned k = 0; k < n && !dup; k++)
				dup = ids[k] == workerids[i];
			if (!dup)
				ids[n++] = workerids[i];
		}
		ctx_change(ctx, ids, n, NULL, 0);
		ctx_unpark(ctx);
	}
	os_mutex_unlock(&sched_ctx_change_mutex);
}

void starpu_sched_ctx_remove_workers(int *workerids, unsigned nworkers, unsigned sched_ctx_id)
{
	static const char fn[] = "starpu_sched_ctx_remove_workers";
	if (check_workers(fn, workerids, (int) nworkers))
		return;
	os_mutex_lock(&sched_ctx_change_mutex);
	struct sched_ctx *ctx = ctx_for_change(sched_ctx_id, fn);
	if (ctx)
	{
		int ids[STARPU_NMAXWORKERS];
		unsigned n = 0;
		for (unsigned i = 0; i < nworkers && ctx; i++)
		{
			if (!sched_ctx_has_worker(ctx, workerids[i]))
			{
				rt_error("%s: workerids[%u] = %d is not in scheduling context %u; nothing removed",
					 fn, i, workerids[i], sched_ctx_id);
				ctx = NULL;
				break;
			}
			int dup = 0;
			for (unsigned k = 0; k < n && !dup; k++)
				dup = ids[k] == workerids[i];
			if (!dup)
				ids[n++] = workerids[i];
		}
		if (ctx)
			ctx_change(ctx, NULL, 0, ids, n);
	}
	os_mutex_unlock(&sched_ctx_change_mutex);
}

/* ------------------------------------------------------------------ */
/* Deletion. */

void starpu_sched_ctx_delete(unsigned sched_ctx_id)
{
	static const char fn[] = "starpu_sched_ctx_delete";
	if (sched_ctx_id == GLOBAL_SCHED_CTX)
	{
		rt_error("%s: sched_ctx_id 0 is the global context, which lives until starpu_shutdown", fn);
		return;
	}
	os_mutex_lock(&sched_ctx_change_mutex);
	struct sched_ctx *ctx = ctx_for_change(sched_ctx_id, fn);
	if (!ctx)
	{
		os_mutex_unlock(&sched_ctx_change_mutex);
		return;
	}
	unsigned heir = ctx_alive(ctx->inheritor) ? ctx->inheritor : ctx_alive(ctx->nesting) ? ctx->nesting : GLOBAL_SCHED_CTX;
	os_rwlock_wrlock(&ctx->rwlock);
	ctx->redirect = heir;
	atomic_store(&ctx->deleting, 1);
	os_rwlock_unlock(&ctx->rwlock);
	/* Parked tasks never reached the policy: they follow the redirect. */
	ctx_unpark(ctx);

	/* Tasks the policy still holds need workers to pop them: lend the
	 * heir's when the context has none but the caller's own. */
	struct worker *self = worker_self();
	unsigned others = ctx->nworkers - (self && sched_ctx_has_worker(ctx, self->id));
	if (atomic_load(&ctx->nactive) > 0 && others == 0)
	{
		struct sched_ctx *h = sched_ctx_get(heir);
		int lend[STARPU_NMAXWORKERS];
		unsigned n = 0;
		for (unsigned i = 0; i < h->nworkers; i++)
			if (!sched_ctx_has_worker(ctx, h->workerids[i]))
				lend[n++] = h->workerids[i];
		if (n == 0)
			for (unsigned i = 0; i < rt.nworkers; i++)
				if (!sched_ctx_has_worker(ctx, (int) i))
					lend[n++] = (int) i;
		ctx_change(ctx, lend, n, NULL, 0);
	}
	os_mutex_unlock(&sched_ctx_change_mutex);

	/* Let the workers run what is queued. A task of this context running
	 * on the caller's worker (deleting from a kernel) is not waited for. */
	long mine = 0;
	if (self && self->current_task)
	{
		struct job *j = job_of(self->current_task);
		mine = j->in_policy && j->sched_ctx == sched_ctx_id;
	}
	while (atomic_load_explicit(&ctx->nactive, memory_order_acquire) > mine)
		os_sleep_us(50);

	os_mutex_lock(&sched_ctx_change_mutex);
	int ids[STARPU_NMAXWORKERS];
	unsigned n = ctx->nworkers;
	memcpy(ids, ctx->workerids, sizeof(int) * n);
	ctx_change(ctx, NULL, 0, ids, n);
	rehome_orphans(ctx, ids, n);
	ctx_policy_deinit(ctx);
	os_rwlock_wrlock(&ctx->rwlock);
	atomic_store(&ctx->in_use, 0);
	os_rwlock_unlock(&ctx->rwlock);
	/* Tasks parked meanwhile (none should be) follow the redirect too. */
	ctx_unpark(ctx);
	os_mutex_unlock(&sched_ctx_change_mutex);
}

void starpu_sched_ctx_set_inheritor(unsigned sched_ctx_id, unsigned inheritor)
{
	static const char fn[] = "starpu_sched_ctx_set_inheritor";
	if (!ctx_alive(sched_ctx_id))
	{
		rt_error("%s: sched_ctx_id %u is not a scheduling context", fn, sched_ctx_id);
		return;
	}
	if (inheritor != NO_CTX && (!ctx_alive(inheritor) || inheritor == sched_ctx_id))
	{
		rt_error("%s: inheritor %u is not another scheduling context", fn, inheritor);
		return;
	}
	os_mutex_lock(&sched_ctx_change_mutex);
	sched_ctxs[sched_ctx_id].inheritor = inheritor;
	os_mutex_unlock(&sched_ctx_change_mutex);
}

unsigned starpu_sched_ctx_get_inheritor(unsigned sched_ctx_id)
{
	return sched_ctx_id < STARPU_NMAX_SCHED_CTXS ? sched_ctxs[sched_ctx_id].inheritor : NO_CTX;
}

unsigned starpu_sched_ctx_get_hierarchy_level(unsigned sched_ctx_id)
{
	return sched_ctx_id < STARPU_NMAX_SCHED_CTXS ? sched_ctxs[sched_ctx_id].hierarchy_level : 0;
}

/* ------------------------------------------------------------------ */
/* Submission and finished_submit. */

int sched_ctx_for_submission(struct starpu_task *task, unsigned *id)
{
	if (task->sched_ctx != NO_CTX)
	{
		if (!ctx_alive(task->sched_ctx))
		{
			rt_error("starpu_task_submit: task->sched_ctx %u is not a scheduling context (never created or deleted) (-EINVAL)",
				 task->sched_ctx);
			return -EINVAL;
		}
		*id = task->sched_ctx;
		return 0;
	}
	struct rt_thread *t = rt.thread_key_backend == os_get_backend() ? os_getspecific(rt.thread_key) : NULL;
	if (t && t->sched_ctx != NO_CTX)
	{
		if (!ctx_alive(t->sched_ctx))
		{
			rt_error("starpu_task_submit: the thread's context %u (starpu_sched_ctx_set_context) is not a scheduling context (deleted?) (-EINVAL)",
				 t->sched_ctx);
			return -EINVAL;
		}
		*id = t->sched_ctx;
		return 0;
	}
	*id = GLOBAL_SCHED_CTX;
	return 0;
}

void sched_ctx_job_submitted(struct job *job)
{
	atomic_fetch_add_explicit(&sched_ctx_get(job->sched_ctx)->nsubmitted, 1, memory_order_relaxed);
}

/* The last task of a context that finished submitting is done: call its
 * close callback and move its workers to the inheritor. */
static void ctx_finished(unsigned id)
{
	struct sched_ctx *ctx = sched_ctx_get(id);
	os_mutex_lock(&sched_ctx_change_mutex);
	int go = ctx_alive(id) && ctx->finished_submit;
	ctx->finished_submit = 0;
	void (*cb)(unsigned, void *) = go ? ctx->close_callback : NULL;
	void *args = ctx->close_args;
	if (go && ctx_alive(ctx->inheritor))
	{
		struct sched_ctx *heir = sched_ctx_get(ctx->inheritor);
		int ids[STARPU_NMAXWORKERS], add[STARPU_NMAXWORKERS];
		unsigned n = ctx->nworkers, nadd = 0;
		memcpy(ids, ctx->workerids, sizeof(int) * n);
		for (unsigned i = 0; i < n; i++)
			if (!sched_ctx_has_worker(heir, ids[i]))
				add[nadd++] = ids[i];
		ctx_change(heir, add, nadd, NULL, 0);
		ctx_change(ctx, NULL, 0, ids, n);
		ctx_unpark(heir);
	}
	os_mutex_unlock(&sched_ctx_change_mutex);
	if (cb)
		cb(id, args);
}

/* Waiters for a context's tasks (starpu_task_wait_for_*_in_ctx) sleep on
 * wait_cond; the thread whose decrement of a context's nsubmitted reaches
 * a waiter's threshold broadcasts. A leaf lock. */
static os_mutex_t wait_mutex = OS_MUTEX_INITIALIZER;
static os_cond_t wait_cond = OS_COND_INITIALIZER;

void sched_ctx_job_terminated(unsigned ctx_id)
{
	struct sched_ctx *ctx = sched_ctx_get(ctx_id);
	/* Sequentially consistent with the waiter's increment of nwaiters
	 * and its read of nsubmitted: one of the two sees the other. */
	long left = atomic_fetch_sub_explicit(&ctx->nsubmitted, 1, memory_order_seq_cst) - 1;
	if (left == 0 && __atomic_load_n(&ctx->finished_submit, __ATOMIC_ACQUIRE))
		ctx_finished(ctx_id);
	if (atomic_load_explicit(&ctx->nwaiters, memory_order_seq_cst) &&
	    left <= atomic_load_explicit(&ctx->wait_threshold, memory_order_seq_cst))
	{
		os_mutex_lock(&wait_mutex);
		os_cond_broadcast(&wait_cond);
		os_mutex_unlock(&wait_mutex);
	}
}

/* Waits until at most n tasks submitted to context id are left. */
static int ctx_wait_submitted(const char *fn, unsigned id, long n)
{
	if (!rt_is_up())
	{
		rt_error("%s: the runtime is not initialised (-EINVAL)", fn);
		return -EINVAL;
	}
	if (id >= STARPU_NMAX_SCHED_CTXS || !atomic_load(&sched_ctxs[id].in_use))
	{
		rt_error("%s: sched_ctx_id %u is not a scheduling context (-EINVAL)", fn, id);
		return -EINVAL;
	}
	if (rt_may_not_block(fn))
		return -EDEADLK;
	struct sched_ctx *ctx = sched_ctx_get(id);
	os_mutex_lock(&wait_mutex);
	if (atomic_fetch_add_explicit(&ctx->nwaiters, 1, memory_order_seq_cst) == 0 ||
	    n > atomic_load_explicit(&ctx->wait_threshold, memory_order_relaxed))
		atomic_store_explicit(&ctx->wait_threshold, n, memory_order_seq_cst);
	while (atomic_load_explicit(&ctx->nsubmitted, memory_order_seq_cst) > n)
		os_cond_wait(&wait_cond, &wait_mutex);
	if (atomic_fetch_sub_explicit(&ctx->nwaiters, 1, memory_order_seq_cst) == 1)
		atomic_store_explicit(&ctx->wait_threshold, -1, memory_order_relaxed);
	os_mutex_unlock(&wait_mutex);
	return 0;
}

int starpu_task_wait_for_all_in_ctx(unsigned sched_ctx_id)
{
	return ctx_wait_submitted("starpu_task_wait_for_all_in_ctx", sched_ctx_id, 0);
}

int starpu_task_wait_for_n_submitted_in_ctx(unsigned sched_ctx_id, unsigned n)
{
	return ctx_wait_submitted("starpu_task_wait_for_n_submitted_in_ctx", sched_ctx_id, (long) n);
}

void starpu_sched_ctx_finished_submit(unsigned sched_ctx_id)
{
	if (!ctx_alive(sched_ctx_id))
	{
		rt_error("starpu_sched_ctx_finished_submit: sched_ctx_id %u is not a scheduling context", sched_ctx_id);
		return;
	}
	__atomic_store_n(&sched_ctxs[sched_ctx_id].finished_submit, 1, __ATOMIC_RELEASE);
	/* Pairs with the decrement above: one of the two sees the other. */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&sched_ctxs[sched_ctx_id].nsubmitted) == 0)
		ctx_finished(sched_ctx_id);
}

void starpu_sched_ctx_register_close_callback(unsigned sched_ctx_id, void (*close_callback)(unsigned, void *), void *args)
{
	if (!ctx_alive(sched_ctx_id))
	{
		rt_error("starpu_sched_ctx_register_close_callback: sched_ctx_id %u is not a scheduling context", sched_ctx_id);
		return;
	}
	os_mutex_lock(&sched_ctx_change_mutex);
	sched_ctxs[sched_ctx_id].close_callback = close_callback;
	sched_ctxs[sched_ctx_id].close_args = args;
	os_mutex_unlock(&sched_ctx_change_mutex);
}

void starpu_sched_ctx_stop_task_submission(void)
{
	/* StarPU uses it to flush its empty-context lists; Vela has none
	 * (tasks of an empty context are parked), so there is nothing to do. */
}
