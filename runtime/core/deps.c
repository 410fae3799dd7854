/* deps.c — explicit dependencies between tasks: start dependencies
 * (starpu_task_declare_deps*), end dependencies (declare_end_deps*,
 * end_dep_add/release) and the successor queries.
 *
 * A start dependency adds one to the successor's ndeps before recording it
 * on the predecessor, so that a predecessor finishing concurrently can never
 * bring ndeps to zero early (the submission guard still holds it up). A
 * dependency that would close a cycle is refused, with a message naming both
 * tasks; the search starts from the dependent task's successors, which a
 * graph built in order does not have yet, so it usually stops at once.
 */
#include "core/job.h"
#include "core/rt.h"

#include <stdarg.h>
#include <stdlib.h>

/* Whether target is reachable from start through successor edges. The
 * lists are read under each job's lock; the graph of unsubmitted or running
 * tasks only grows while we look, which cannot create a false "no". */
static int reaches(struct job *start, struct job *target, unsigned budget)
{
	struct job **stack = malloc(sizeof(*stack) * 64);
	unsigned cap = 64, top = 0;
	int found = 0;
	if (!stack)
		return 0;
	stack[top++] = start;
	while (top && !found && budget--)
	{
		struct job *j = stack[--top];
		if (j == target)
		{
			found = 1;
			break;
		}
		os_mutex_lock(job_lock(j));
		for (unsigned i = 0; i < j->nsucc; i++)
		{
			if (job_succ_end_dep(j->succ[i]))
				continue;
			if (top == cap)
			{
				struct job **s = realloc(stack, sizeof(*stack) * cap * 2);
				if (!s)
					break;
				stack = s;
				cap *= 2;
			}
			stack[top++] = job_succ_job(j->succ[i]);
		}
		os_mutex_unlock(job_lock(j));
	}
	free(stack);
	return found;
}

static void declare_deps(struct starpu_task *task, unsigned ndeps, struct starpu_task **deps, int end_dep, const char *fn)
{
	struct job *job = job_get(task);
	if (!job)
	{
		rt_error("%s: out of memory", fn);
		return;
	}
	if (!end_dep && job->submitted && atomic_load(&job->ndeps) == 0)
	{
		rt_error("%s: task '%s' is already submitted; declare its dependencies before submitting it",
			 fn, starpu_task_get_name(task));
		return;
	}
	for (unsigned i = 0; i < ndeps; i++)
	{
		struct starpu_task *dep = deps[i];
		if (!dep)
		{
			rt_error("%s: dependency %u of task '%s' is NULL; ignored", fn, i, starpu_task_get_name(task));
			continue;
		}
		if (dep == task)
		{
			rt_error("%s: task '%s' cannot depend on itself; ignored", fn, starpu_task_get_name(task));
			continue;
		}
		struct job *pred = job_get(dep);
		if (!pred)
			continue;
		if (!end_dep && reaches(job, pred, 1u << 20))
		{
			rt_error("%s: task '%s' depending on task '%s' would close a dependency cycle; ignored",
				 fn, starpu_task_get_name(task), starpu_task_get_name(dep));
			continue;
		}
		if (end_dep)
		{
			atomic_fetch_add(&job->term_calls, 1);
			if (!job_add_succ(pred, job, 1))
				job_term_release(job);
		}
		else
		{
			atomic_fetch_add(&job->ndeps, 1);
			if (!job_add_succ(pred, job, 0))
				atomic_fetch_sub(&job->ndeps, 1);
		}
	}
}

void starpu_task_declare_deps_array(struct starpu_task *task, unsigned ndeps, struct starpu_task *task_array[])
{
	declare_deps(task, ndeps, task_array, 0, "starpu_task_declare_deps_array");
}

/* The varargs forms: the tasks follow ndeps. */
#define DECLARE_DEPS_VA(task, ndeps, end_dep, fn) do { \
	struct starpu_task *deps_[(ndeps) ? (ndeps) : 1]; \
	va_list ap_; \
	va_start(ap_, ndeps); \
	for (unsigned i_ = 0; i_ < (ndeps); i_++) \
		deps_[i_] = va_arg(ap_, struct starpu_task *); \
	va_end(ap_); \
	declare_deps(task, ndeps, deps_, end_dep, fn); \
} while (0)

void starpu_task_declare_deps(struct starpu_task *task, unsigned ndeps, ...)
{
	DECLARE_DEPS_VA(task, ndeps, 0, "starpu_task_declare_deps");
}

void starpu_task_declare_end_deps_array(struct starpu_task *task, unsigned ndeps, struct starpu_task *task_array[])
{
	declare_deps(task, ndeps, task_array, 1, "starpu_task_declare_end_deps_array");
}

void starpu_task_declare_end_deps(struct starpu_task *task, unsigned ndeps, ...)
{
	DECLARE_DEPS_VA(task, ndeps, 1, "starpu_task_declare_end_deps");
}

void starpu_task_end_dep_add(struct starpu_task *t, int nb_deps)
{
	struct job *job = job_get(t);
	if (!job || nb_deps <= 0)
		return;
	atomic_fetch_add(&job->term_calls, nb_deps);
}

void starpu_task_end_dep_release(struct starpu_task *t)
{
	struct job *job = job_of(t);
	if (!job)
	{
		rt_error("starpu_task_end_dep_release: task '%s' has no end dependency", starpu_task_get_name(t));
		return;
	}
	job_term_release(job);
}

int starpu_task_get_task_succs(struct starpu_task *task, unsigned ndeps, struct starpu_task *task_array[])
{
	struct job *job = job_of(task);
	if (!job)
		return 0;
	os_mutex_lock(job_lock(job));
	unsigned n = 0;
	for (unsigned i = 0; i < job->nsucc; i++)
	{
		if (job_succ_end_dep(job->succ[i]))
			continue;
		if (n < ndeps)
			task_array[n] = job_succ_job(job->succ[i])->task;
		n++;
	}
	os_mutex_unlock(job_lock(job));
	return (int) n;
}

int starpu_task_get_task_scheduled_succs(struct starpu_task *task, unsigned ndeps, struct starpu_task *task_array[])
{
	return starpu_task_get_task_succs(task, ndeps, task_array);
}
