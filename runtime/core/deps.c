/* deps.c — explicit dependencies between tasks: start dependencies
 * (starpu_task_declare_deps*), end dependencies (declare_end_deps*,
 * end_dep_add/release) and the successor queries.
 *
 * Start dependencies are kept for the tasks' lifetime, as in StarPU: a task
 * submitted again waits again for its predecessors. Each declaration makes
 * a group of predecessors, owned by the dependent task (job->xdeps) and
 * listed by each predecessor. A group is done once each of its members
 * terminated since its task last started, and the task starts once every
 * group is done. A predecessor that terminated before the declaration
 * counts as terminated once; one that is destroyed leaves its groups
 * (nobody waits for it any more). So in the usual pattern (a subgraph
 * submitted again, predecessors first or last, from a callback or not)
 * each round waits for that round's predecessors, and a task never
 * submitted again costs nothing more. (StarPU counts terminations instead,
 * and aborts when a predecessor terminates twice between two starts of its
 * successor; here the second termination waits for the next round.)
 *
 * End dependencies are one-shot, recorded on the predecessor's successor
 * list (job->succ), like implicit data dependencies.
 *
 * A dependency that would close a cycle is refused, with a message naming
 * both tasks; the search visits each task once.
 *
 * Lock: xdeps_lock protects every job's xdeps (groups, counts, the lists
 * of groups); job->xdeps itself is written under the job's lock and
 * xdeps_lock. Order: a tag's lock, a job's lock, then xdeps_lock, a leaf.
 * Jobs a change makes ready are let go after unlocking.
 */
#include "core/job.h"
#include "core/rt.h"
#include "core/ptr_set.h"
#include "perfmodel/bound.h"
#include "trace/trace.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static os_mutex_t xdeps_lock = OS_MUTEX_INITIALIZER;

/* One declaration: owner waits for its members. Freed with owner, or when
 * its last member is destroyed. */
struct xgroup
{
	struct job *owner;
	unsigned n;			/* members still alive */
	unsigned remaining;		/* live members not terminated since owner started */
	unsigned char done;		/* every member terminated since owner started */
	unsigned cap;
	unsigned char *hit;		/* per member: terminated since (points into the allocation) */
	struct job *member[];		/* NULL once destroyed */
};

/* A group a job is a member of, and its place there. */
struct xsucc
{
	struct xgroup *g;
	unsigned idx;
};

struct job_xdeps
{
	struct xgroup **groups;		/* ours, as a dependent task */
	unsigned ngroups, groups_cap, ngroups_done;
	int waiting;			/* submitted; one of its ndeps waits for the groups */
	struct xsucc *succ;		/* groups we are a member of */
	unsigned nsucc, succ_cap;
};

static int push_xgroup(struct xgroup ***arr, unsigned *n, unsigned *cap, struct xgroup *g)
{
	if (*n == *cap)
	{
		unsigned c = *cap ? *cap * 2 : 2;
		struct xgroup **a = realloc(*arr, sizeof(**arr) * c);
		if (!a)
			return -1;
		*arr = a;
		*cap = c;
	}
	(*arr)[(*n)++] = g;
	return 0;
}

static int push_xsucc(struct job_xdeps *x, struct xgroup *g, unsigned idx)
{
	if (x->nsucc == x->succ_cap)
	{
		unsigned c = x->succ_cap ? x->succ_cap * 2 : 2;
		struct xsucc *a = realloc(x->succ, sizeof(*a) * c);
		if (!a)
			return -1;
		x->succ = a;
		x->succ_cap = c;
	}
	x->succ[x->nsucc++] = (struct xsucc) { g, idx };
	return 0;
}

static void remove_xgroup(struct xgroup **arr, unsigned *n, struct xgroup *g)
{
	unsigned j = 0;
	for (unsigned i = 0; i < *n; i++)
		if (arr[i] != g)
			arr[j++] = arr[i];
	*n = j;
}

static void remove_xsucc(struct job_xdeps *x, struct xgroup *g)
{
	unsigned j = 0;
	for (unsigned i = 0; i < x->nsucc; i++)
		if (x->succ[i].g != g)
			x->succ[j++] = x->succ[i];
	x->nsucc = j;
}

/* The job's xdeps, created if needed (job's lock and xdeps_lock held). */
static struct job_xdeps *xdeps_get_locked(struct job *job)
{
	if (!job->xdeps)
	{
		struct job_xdeps *x = calloc(1, sizeof(*x));
		if (!x)
		{
			rt_error("out of memory recording a dependency of task '%s'", starpu_task_get_name(job->task));
			abort();
		}
		__atomic_store_n(&job->xdeps, x, __ATOMIC_RELEASE);
	}
	return job->xdeps;
}

/* x's task starts: its groups count afresh (xdeps_lock held). */
static void rearm_locked(struct job_xdeps *x)
{
	for (unsigned i = 0; i < x->ngroups; i++)
	{
		struct xgroup *g = x->groups[i];
		g->done = 0;
		memset(g->hit, 0, g->cap);
		g->remaining = g->n;
	}
	x->ngroups_done = 0;
}

/* The owner of x may go if it waits and every group is done; returns
 * whether it does (xdeps_lock held). */
static int check_release_locked(struct job_xdeps *x)
{
	if (!x->waiting || x->ngroups_done != x->ngroups)
		return 0;
	rearm_locked(x);
	x->waiting = 0;
	return 1;
}

/* Every member of g terminated since its owner started (xdeps_lock held):
 * returns the job to let go, or NULL. */
static struct job *group_completed_locked(struct xgroup *g)
{
	struct job_xdeps *x = g->owner->xdeps;
	g->done = 1;
	x->ngroups_done++;
	return check_release_locked(x) ? g->owner : NULL;
}

/* Member idx of g terminated (xdeps_lock held). Once the group is done,
 * more terminations wait for its owner to start: they do not count twice. */
static struct job *group_notified_locked(struct xgroup *g, unsigned idx)
{
	if (g->done || g->hit[idx])
		return NULL;
	g->hit[idx] = 1;
	if (--g->remaining > 0)
		return NULL;
	return group_completed_locked(g);
}

/* Jobs to let go once the lock is dropped. */
struct release_list
{
	struct job **job;
	unsigned n, cap;
	struct job *small[4];
};

static void release_add(struct release_list *r, struct job *job)
{
	if (!job)
		return;
	if (r->n == r->cap)
	{
		unsigned cap = r->cap * 2;
		struct job **a = malloc(sizeof(*a) * cap);
		if (!a)
		{
			rt_error("out of memory releasing the successors of a task");
			abort();
		}
		memcpy(a, r->job, sizeof(*a) * r->n);
		if (r->job != r->small)
			free(r->job);
		r->job = a;
		r->cap = cap;
	}
	r->job[r->n++] = job;
}

static void release_init(struct release_list *r)
{
	r->job = r->small;
	r->n = 0;
	r->cap = sizeof(r->small) / sizeof(r->small[0]);
}

static void release_all(struct release_list *r)
{
	for (unsigned i = 0; i < r->n; i++)
		job_dep_release(r->job[i]);
	if (r->job != r->small)
		free(r->job);
}

void deps_job_submitted(struct job *job)
{
	if (!__atomic_load_n(&job->xdeps, __ATOMIC_ACQUIRE))
		return;
	os_mutex_lock(&xdeps_lock);
	struct job_xdeps *x = job->xdeps;
	/* starpu_bound with deps: the declared edges, now that the job has
	 * this submission's id; whichever end is submitted last records
	 * the edge (an id of 0: never submitted yet). */
	if (bound_deps_recording())
	{
		for (unsigned g = 0; g < x->ngroups; g++)
			for (unsigned i = 0; i < x->groups[g]->cap; i++)
				if (x->groups[g]->member[i] && x->groups[g]->member[i]->id)
					bound_on_dep(x->groups[g]->member[i]->id, job->id);
		for (unsigned k = 0; k < x->nsucc; k++)
			if (x->succ[k].g->owner->id)
				bound_on_dep(job->id, x->succ[k].g->owner->id);
	}
	if (x->ngroups_done == x->ngroups)
		rearm_locked(x);
	else
	{
		x->waiting = 1;
		atomic_fetch_add(&job->ndeps, 1);
	}
	os_mutex_unlock(&xdeps_lock);
}

void deps_job_terminated_locked(struct job *job, struct job_succ **extra, unsigned *nextra)
{
	*nextra = 0;
	*extra = NULL;
	struct job_xdeps *x = job->xdeps;
	if (!x)
		return;
	struct release_list r;
	release_init(&r);
	os_mutex_lock(&xdeps_lock);
	for (unsigned i = 0; i < x->nsucc; i++)
		release_add(&r, group_notified_locked(x->succ[i].g, x->succ[i].idx));
	os_mutex_unlock(&xdeps_lock);
	if (!r.n)
		return;
	struct job_succ *s = malloc(sizeof(*s) * r.n);
	if (!s)
	{
		rt_error("out of memory releasing the successors of task '%s'", starpu_task_get_name(job->task));
		abort();
	}
	for (unsigned i = 0; i < r.n; i++)
		s[i] = job_succ_make(r.job[i], 0);
	if (r.job != r.small)
		free(r.job);
	*extra = s;
	*nextra = r.n;
}

void deps_job_fini(struct job *job)
{
	if (!__atomic_load_n(&job->xdeps, __ATOMIC_ACQUIRE))
		return;
	struct release_list r;
	release_init(&r);
	os_mutex_lock(job_lock(job));
	os_mutex_lock(&xdeps_lock);
	struct job_xdeps *x = job->xdeps;
	/* Our groups: their members forget them. */
	for (unsigned i = 0; i < x->ngroups; i++)
	{
		struct xgroup *g = x->groups[i];
		for (unsigned k = 0; k < g->cap; k++)
			if (g->member[k] && g->member[k]->xdeps)
				remove_xsucc(g->member[k]->xdeps, g);
		free(g);
	}
	/* The groups we are a member of stop waiting for us. */
	for (unsigned i = 0; i < x->nsucc; i++)
	{
		struct xgroup *g = x->succ[i].g;
		unsigned idx = x->succ[i].idx;
		if (!g)
			continue;	/* freed at an earlier entry */
		struct job_xdeps *ox = g->owner->xdeps;
		g->member[idx] = NULL;
		g->n--;
		if (!g->hit[idx])
			g->remaining--;
		g->hit[idx] = 1;	/* never counted again */
		if (g->n == 0)
		{
			/* Nothing left to wait for: the group goes. */
			if (g->done)
				ox->ngroups_done--;
			remove_xgroup(ox->groups, &ox->ngroups, g);
			struct job *owner = g->owner;
			/* Its other entries in our list: none (n was 1 per entry). */
			for (unsigned k = i + 1; k < x->nsucc; k++)
				if (x->succ[k].g == g)
					x->succ[k].g = NULL;
			free(g);
			if (check_release_locked(ox))
				release_add(&r, owner);
		}
		else if (!g->done && g->remaining == 0)
			release_add(&r, group_completed_locked(g));	/* it waited for us only */
	}
	free(x->groups);
	free(x->succ);
	free(x);
	job->xdeps = NULL;
	os_mutex_unlock(&xdeps_lock);
	os_mutex_unlock(job_lock(job));
	release_all(&r);
}

/* ------------------------------------------------------------------ */
/* The search for cycles. */

struct job_queue
{
	struct job **q;
	size_t head, tail, cap;
};

static void visit(struct ptr_set *seen, struct job_queue *q, struct job *j)
{
	if (ptr_set_add(seen, j) != 1)
		return;
	if (q->tail == q->cap)
	{
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct job **a = realloc(q->q, sizeof(*a) * cap);
		if (!a)
			return;
		q->q = a;
		q->cap = cap;
	}
	q->q[q->tail++] = j;
}

/* Whether target is reachable from start through successor edges (start
 * dependencies, kept or one-shot). The graph only grows while we look,
 * which cannot create a false "no". */
static int reaches(struct job *start, struct job *target)
{
	struct ptr_set seen = { 0 };
	struct job_queue q = { 0 };
	int found = 0;
	visit(&seen, &q, start);
	while (q.head < q.tail && !found)
	{
		struct job *j = q.q[q.head++];
		if (j == target)
		{
			found = 1;
			break;
		}
		os_mutex_lock(job_lock(j));
		for (unsigned i = 0; i < j->nsucc; i++)
			if (!job_succ_end_dep(j->succ[i]))
				visit(&seen, &q, job_succ_job(j->succ[i]));
		os_mutex_lock(&xdeps_lock);
		if (j->xdeps)
			for (unsigned i = 0; i < j->xdeps->nsucc; i++)
				visit(&seen, &q, j->xdeps->succ[i].g->owner);
		os_mutex_unlock(&xdeps_lock);
		os_mutex_unlock(job_lock(j));
	}
	free(q.q);
	ptr_set_free(&seen);
	return found;
}

/* ------------------------------------------------------------------ */
/* Declarations. */

static void declare_start_deps(struct job *job, struct starpu_task *task, unsigned ndeps, struct starpu_task **deps, const char *fn)
{
	struct xgroup *g = malloc(sizeof(*g) + (sizeof(g->member[0]) + 1) * ndeps);
	if (!g)
	{
		rt_error("%s: out of memory", fn);
		return;
	}
	unsigned n = 0;
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
		if (reaches(job, pred))
		{
			rt_error("%s: task '%s' depending on task '%s' would close a dependency cycle; ignored",
				 fn, starpu_task_get_name(task), starpu_task_get_name(dep));
			continue;
		}
		g->member[n++] = pred;
	}
	if (!n)
	{
		free(g);
		return;
	}
	g->owner = job;
	g->n = n;
	g->cap = n;
	g->remaining = n;
	g->done = 0;
	g->hit = (unsigned char *) &g->member[ndeps];
	memset(g->hit, 0, n);

	/* The group counts for the task before its members know it, so that
	 * it cannot start in between; a submitted task not started yet waits
	 * for it too. */
	os_mutex_lock(job_lock(job));
	int submitted = job->submitted;
	os_mutex_lock(&xdeps_lock);
	struct job_xdeps *x = xdeps_get_locked(job);
	int ret = push_xgroup(&x->groups, &x->ngroups, &x->groups_cap, g);
	if (!ret && job->submitted && !x->waiting && atomic_load(&job->ndeps) > 0)
	{
		x->waiting = 1;
		atomic_fetch_add(&job->ndeps, 1);
	}
	os_mutex_unlock(&xdeps_lock);
	os_mutex_unlock(job_lock(job));
	if (ret)
	{
		free(g);
		rt_error("%s: out of memory", fn);
		return;
	}

	for (unsigned i = 0; i < n; i++)
	{
		struct job *pred = g->member[i];
		/* Observers: a DAG edge, even when pred is already done. */
		trace_on_dep(pred, job, 0);
		/* starpu_bound: declared on a submitted task (else at its
		 * submission, deps_job_submitted) */
		if (submitted)
			bound_on_dep(pred->id, job->id);
		struct job *release = NULL;
		os_mutex_lock(job_lock(pred));
		os_mutex_lock(&xdeps_lock);
		struct job_xdeps *px = xdeps_get_locked(pred);
		if (push_xsucc(px, g, i))
		{
			rt_error("%s: out of memory; task '%s' will not wait for task '%s'", fn,
				 starpu_task_get_name(task), starpu_task_get_name(pred->task));
			release = group_notified_locked(g, i);
		}
		/* Terminated, and not submitted again since: done once. */
		else if (pred->released)
			release = group_notified_locked(g, i);
		os_mutex_unlock(&xdeps_lock);
		os_mutex_unlock(job_lock(pred));
		if (release)
			job_dep_release(release);
	}
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
	if (!ndeps)
		return;
	if (!end_dep)
	{
		declare_start_deps(job, task, ndeps, deps, fn);
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
		atomic_fetch_add(&job->term_calls, 1);
		if (!job_add_succ(pred, job, 1))
			job_term_release(job);
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

/* The tasks whose start waits for task: declared ones, then those of the
 * one-shot list (implicit data dependencies). Returns how many there are;
 * the first ndeps are stored. */
int starpu_task_get_task_succs(struct starpu_task *task, unsigned ndeps, struct starpu_task *task_array[])
{
	struct job *job = job_of(task);
	if (!job)
		return 0;
	unsigned n = 0;
	os_mutex_lock(job_lock(job));
	os_mutex_lock(&xdeps_lock);
	if (job->xdeps)
		for (unsigned i = 0; i < job->xdeps->nsucc; i++)
		{
			struct xgroup *g = job->xdeps->succ[i].g;
			unsigned k = 0;
			while (k < i && job->xdeps->succ[k].g->owner != g->owner)
				k++;
			if (k < i)
				continue;	/* listed already */
			if (n < ndeps)
				task_array[n] = g->owner->task;
			n++;
		}
	os_mutex_unlock(&xdeps_lock);
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

unsigned deps_pending_names(struct job *job, char *buf, size_t size)
{
	unsigned n = 0;
	size_t len = 0;
	buf[0] = '\0';
	os_mutex_lock(&xdeps_lock);
	struct job_xdeps *x = job->xdeps;
	for (unsigned g = 0; x && g < x->ngroups; g++)
	{
		struct xgroup *gr = x->groups[g];
		if (gr->done)
			continue;
		for (unsigned i = 0; i < gr->cap; i++)
			if (gr->member[i] && !gr->hit[i])
			{
				if (len < size)
					len += (size_t) snprintf(buf + len, size - len, "%s'%s' (job %lu)", n ? ", " : "",
								 starpu_task_get_name(gr->member[i]->task), gr->member[i]->id);
				n++;
			}
	}
	os_mutex_unlock(&xdeps_lock);
	return n;
}
