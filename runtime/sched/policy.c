/* policy.c — the table of predefined policies, policy selection at init,
 * and the runtime's push/pop entry points into the policies.
 */
#include "sched/sched.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/sched_ctx.h"
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

static void list_names(char *buf, size_t len)
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
	if (!policy && name)
	{
		if (strcmp(name, "help") == 0)
			sched_print_policies(stderr);
		else if (!(policy = sched_find_policy(name)))
		{
			char names[512];
			list_names(names, sizeof(names));
			rt_error("starpu_init: unknown scheduling policy '%s' (STARPU_SCHED or conf.sched_policy_name); "
				 "valid policies: %s; using the default '%s'", name, names, SCHED_DEFAULT_POLICY);
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

void sched_push_job(struct job *job)
{
	struct starpu_task *task = job->task;
	trace_on_push(job);	/* observers: scheduler push (before: a worker may run it at once) */
	if (task->execute_on_a_specific_worker)
	{
		worker_push_local(worker_get((int) task->workerid), task, 0);
		return;
	}
	struct sched_ctx *ctx = sched_ctx_get(job->sched_ctx);
	int ret = ctx->policy->push_task(task);
	if (ret)
	{
		/* A policy that refuses a task would lose it: fall back to the
		 * first worker able to run it. */
		rt_error("scheduling policy '%s' refused task '%s' (%d); running it on the first capable worker",
			 ctx->policy->policy_name, starpu_task_get_name(task), ret);
		for (unsigned i = 0; i < rt.nworkers; i++)
			if (worker_first_impl(&rt.workers[i], task) >= 0)
			{
				worker_push_local(&rt.workers[i], task, 1);
				return;
			}
	}
}

struct starpu_task *sched_pop_task(struct worker *w)
{
	struct starpu_task *task = worker_pop_local(w);
	if (task)
		return task;
	for (unsigned i = 0; i < w->nsched_ctxs; i++)
	{
		unsigned id = w->sched_ctxs[i];
		struct sched_ctx *ctx = sched_ctx_get(id);
		if (!ctx->in_use)
			continue;
		task = ctx->policy->pop_task(id);
		if (task)
			return task;
	}
	return NULL;
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
	if (ctx->policy->post_exec_hook)
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
