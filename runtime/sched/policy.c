/* policy.c — the table of predefined policies, policy selection at init,
 * and the runtime's push/pop entry points into the policies.
 */
#include "sched/sched.h"
#include "core/combined.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/sched_ctx.h"
#include "core/sim_loader.h"
#include "core/workers.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* In the order STARPU_SCHED=help lists them. */
struct starpu_sched_policy *const sched_predefined[] = {
	&sched_policy_eager,
	&sched_policy_prio,
	&sched_policy_random,
	&sched_policy_ws,
	&sched_policy_lws,
	&sched_policy_tree_eager,
	&sched_policy_tree_eager_prefetching,
	&sched_policy_tree_prio,
	&sched_policy_tree_prio_prefetching,
	&sched_policy_tree_random,
	&sched_policy_tree_random_prefetching,
	&sched_policy_tree_ws,
	&sched_policy_tree_heft,
	&sched_policy_tree_heft2,
	&sched_policy_tree_heft_prio,
	&sched_policy_peager,
	&sched_policy_pheft,
	&sched_policy_dm,
	&sched_policy_dmda,
	&sched_policy_dmdar,
	&sched_policy_dmdas,
	&sched_policy_heteroprio,
	NULL
};

struct starpu_sched_policy **starpu_sched_get_predefined_policies(void)
{
	return (struct starpu_sched_policy **) sched_predefined;
}

struct starpu_sched_policy *sched_find_policy(const char *name)
{
	for (unsigned i = 0; sched_predefined[i]; i++)
		if (strcmp(sched_predefined[i]->policy_name, name) == 0)
			return sched_predefined[i];
	/* StarPU 1.3 calls the component-tree policies modular-X; ours are
	 * tree-X (the seeds' names): accept both. */
	if (strncmp(name, "modular-", 8) == 0)
	{
		char tree[64];
		snprintf(tree, sizeof(tree), "tree-%s", name + 8);
		return sched_find_policy(tree);
	}
	return NULL;
}

void sched_print_policies(FILE *f)
{
	fprintf(f, "STARPU_SCHED can be set to one of these scheduling policies (default: %s):\n", SCHED_DEFAULT_POLICY);
	for (unsigned i = 0; sched_predefined[i]; i++)
		fprintf(f, "%-20s -> %s\n", sched_predefined[i]->policy_name, sched_predefined[i]->policy_description);
}

/* STARPU_PREFETCH: whether policies prefetch a task's input to the worker
 * they map it to (default 1, as in StarPU). Set once by sched_setup. */
static int prefetch_flag = 1;

static void read_prefetch_flag(void)
{
	const char *s = getenv("STARPU_PREFETCH");
	prefetch_flag = 1;
	if (!s)
		return;
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == 0 || *end)
		rt_error("starpu_init: environment variable STARPU_PREFETCH='%s' must be 0 or 1; prefetching", s);
	else
		prefetch_flag = v != 0;
}

void sched_policy_names(char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (unsigned i = 0; sched_predefined[i] && off < len; i++)
		off += (size_t) snprintf(buf + off, len - off, "%s%s", i ? ", " : "", sched_predefined[i]->policy_name);
}

int sched_setup(void)
{
	struct starpu_conf *conf = &rt.conf;
	read_prefetch_flag();
	struct starpu_sched_policy *policy = conf->sched_policy;
	const char *name = conf->sched_policy_name;
	if (!policy && name && *name)
	{
		if (strcmp(name, "help") == 0)
			sched_print_policies(stderr);
		else if (!(policy = sched_find_policy(name)))
		{
			/* conf_resolve refuses it first; kept for callers that
			 * did not go through it. */
			char names[512];
			sched_policy_names(names, sizeof(names));
			rt_error("starpu_init: unknown scheduling policy '%s'; valid policies: %s (-EINVAL)", name, names);
			return -EINVAL;
		}
	}
	if (!policy)
		policy = sched_find_policy(SCHED_DEFAULT_POLICY);
	if (!policy->push_task || !policy->pop_task)
	{
		rt_error("starpu_init: scheduling policy '%s' lacks push_task or pop_task",
			 policy->policy_name ? policy->policy_name : "(unnamed)");
		return -EINVAL;
	}

	int ret = sched_ctx_setup_global(policy, 0, 0);
	if (ret)
		return ret;
	/* Priorities the application gives in its configuration win over the
	 * policy's defaults. */
	if (conf->global_sched_ctx_min_priority != -1)
		starpu_sched_ctx_set_min_priority(GLOBAL_SCHED_CTX, conf->global_sched_ctx_min_priority);
	if (conf->global_sched_ctx_max_priority != -1)
		starpu_sched_ctx_set_max_priority(GLOBAL_SCHED_CTX, conf->global_sched_ctx_max_priority);
	return 0;
}

void sched_teardown(void)
{
	sched_ctx_teardown_all();
}

/* Follows deleted contexts to their heir, moving the job's accounting
 * along; returns the context, read-locked. */
static struct sched_ctx *push_target(struct job *job)
{
	for (unsigned hops = 0;; hops++)
	{
		unsigned id = job->sched_ctx;
		struct sched_ctx *ctx = sched_ctx_get(id);
		os_rwlock_rdlock(&ctx->rwlock);
		if (!atomic_load_explicit(&ctx->deleting, memory_order_relaxed) &&
		    atomic_load_explicit(&ctx->in_use, memory_order_relaxed))
			return ctx;
		unsigned heir = hops < STARPU_NMAX_SCHED_CTXS ? ctx->redirect : GLOBAL_SCHED_CTX;
		os_rwlock_unlock(&ctx->rwlock);
		if (heir >= STARPU_NMAX_SCHED_CTXS)
			heir = GLOBAL_SCHED_CTX;
		if (job->counted)
		{
			atomic_fetch_add_explicit(&sched_ctx_get(heir)->nsubmitted, 1, memory_order_relaxed);
			sched_ctx_job_terminated(id);
		}
		job->sched_ctx = heir;
		job->task->sched_ctx = heir;
	}
}

void sched_push_job(struct job *job)
{
	/* Simulation: the push's cost, paid by the thread that pushes (the
	 * submitter, or the worker whose task released this one) before the
	 * task reaches the policy, as StarPU's simulation charges it: that
	 * worker starts its own next task later (none in a real run). */
	sim_cost(SIM_COST_SCHED, 1);
	trace_on_push(job);	/* observers: scheduler push (before: a worker may run it at once) */
	sched_push_job_again(job);
}

void sched_push_job_again(struct job *job)
{
	struct starpu_task *task = job->task;
	if (task->execute_on_a_specific_worker)
	{
		const struct combined_worker *cw = combined_get((int) task->workerid);
		if (cw)
			combined_push_local(cw, task, 0);
		else
			worker_push_local(worker_get((int) task->workerid), task, 0);
		return;
	}
	struct sched_ctx *ctx = push_target(job);
	if (ctx->nworkers == 0)
	{
		sched_ctx_park(ctx, task);
		os_rwlock_unlock(&ctx->rwlock);
		return;
	}
	/* Counted before the push: once pushed, the task may already run. */
	job->in_policy = 1;
	atomic_fetch_add_explicit(&ctx->nactive, 1, memory_order_relaxed);
	int ret = ctx->policy->push_task(task);
	os_rwlock_unlock(&ctx->rwlock);
	if (ret)
	{
		/* A policy that refuses a task would lose it: fall back to the
		 * first worker able to run it. */
		rt_error("scheduling policy '%s' refused task '%s' (%d); running it on the first capable worker",
			 ctx->policy->policy_name, starpu_task_get_name(task), ret);
		sched_job_done(job);
		for (unsigned i = 0; i < rt.nworkers; i++)
			if (worker_first_impl(&rt.workers[i], task) >= 0)
			{
				worker_push_local(&rt.workers[i], task, 1);
				return;
			}
	}
}

void sched_job_done(struct job *job)
{
	if (!job->in_policy)
		return;
	job->in_policy = 0;
	atomic_fetch_sub_explicit(&sched_ctx_get(job->sched_ctx)->nactive, 1, memory_order_release);
}

struct starpu_task *sched_pop_task(struct worker *w)
{
	struct starpu_task *task = worker_pop_local(w);
	if (task)
		return task;
	/* The context list and the policies' view of w only change while w
	 * is outside a scheduling operation (sched_ctx.c). */
	worker_enter_sched_op(w);
	unsigned n = w->nsched_ctxs;
	/* Start from a different context each time, so that none starves. */
	unsigned start = n > 1 ? (unsigned) (w->executed % n) : 0;
	for (unsigned k = 0; k < n && !task; k++)
	{
		unsigned id = w->sched_ctxs[(start + k) % n];
		task = sched_ctx_get(id)->policy->pop_task(id);
	}
	worker_leave_sched_op(w);
	return task;
}

void sched_pre_exec(struct worker *w, struct job *job)
{
	(void) w;
	struct sched_ctx *ctx = sched_ctx_get(job->sched_ctx);
	if (ctx->policy->pre_exec_hook)
		ctx->policy->pre_exec_hook(job->task, job->sched_ctx);
}

void sched_post_exec(struct worker *w, struct job *job)
{
	(void) w;
	struct sched_ctx *ctx = sched_ctx_get(job->sched_ctx);
	/* A context deleted from this very task's kernel is gone already. */
	if (atomic_load_explicit(&ctx->in_use, memory_order_relaxed) && ctx->policy->post_exec_hook)
		ctx->policy->post_exec_hook(job->task, job->sched_ctx);
}

int starpu_push_task_end(struct starpu_task *task)
{
	(void) task;
	return 0;
}

int starpu_get_prefetch_flag(void)
{
	return prefetch_flag;
}

void starpu_do_schedule(void)
{
	for (unsigned id = 0; id < STARPU_NMAX_SCHED_CTXS; id++)
	{
		struct sched_ctx *ctx = sched_ctx_get(id);
		if (ctx->in_use && ctx->policy->do_schedule)
			ctx->policy->do_schedule(id);
	}
}
