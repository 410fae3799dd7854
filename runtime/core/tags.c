/* tags.c — tags (see tags.h for the model and the lock order).
 *
 * The edges declared between tags are kept for the tags' lifetime (each tag
 * lists its dependencies and its successors), so that a tag can be restarted
 * and re-armed, removed cleanly, and so that a declaration closing a cycle
 * can be detected and refused instead of hanging the program later.
 */
#include "core/tags.h"
#include "core/job.h"
#include "core/rt.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum tag_state
{
	TAG_UNSET = 0,		/* no task, not done */
	TAG_ASSOCIATED,		/* a task carries it */
	TAG_DONE
};

struct tag
{
	starpu_tag_t id;
	struct tag *hnext;		/* hash chain, under tags_lock */

	/* Everything below is protected by lock. */
	os_mutex_t lock;
	os_cond_t cond;			/* starpu_tag_wait() */
	_Atomic int state;		/* enum tag_state (read unlocked in cycle checks) */
	unsigned npending;		/* dependencies not done yet */
	struct tag **deps;		/* declared dependencies */
	unsigned ndeps, deps_cap;
	struct tag **succ;		/* tags that declared a dependency on us */
	unsigned nsucc, succ_cap;
	struct job *job;		/* the task carrying the tag */
	int job_waiting;		/* job holds a start dependency on our readiness */
	int nwaiters;
};

/* The table. tags_lock protects the buckets and chains only. */
static os_mutex_t tags_lock = OS_MUTEX_INITIALIZER;
static struct tag **buckets;
static unsigned nbuckets;
static unsigned ntags_in_table;

static unsigned hash_id(starpu_tag_t id, unsigned n)
{
	return (unsigned) ((id * 0x9e3779b97f4a7c15ULL) >> 32) & (n - 1);
}

static void table_grow(void)
{
	unsigned n = nbuckets ? nbuckets * 2 : 1024;
	struct tag **b = calloc(n, sizeof(*b));
	if (!b)
		return;	/* keep the old table; chains just get longer */
	for (unsigned i = 0; i < nbuckets; i++)
	{
		struct tag *t = buckets[i];
		while (t)
		{
			struct tag *next = t->hnext;
			unsigned h = hash_id(t->id, n);
			t->hnext = b[h];
			b[h] = t;
			t = next;
		}
	}
	free(buckets);
	buckets = b;
	nbuckets = n;
}

/* Caller holds tags_lock. */
static struct tag *lookup_locked(starpu_tag_t id)
{
	if (!nbuckets)
		return NULL;
	for (struct tag *t = buckets[hash_id(id, nbuckets)]; t; t = t->hnext)
		if (t->id == id)
			return t;
	return NULL;
}

static struct tag *get_or_create(starpu_tag_t id)
{
	os_mutex_lock(&tags_lock);
	struct tag *t = lookup_locked(id);
	if (!t)
	{
		if (ntags_in_table >= nbuckets)
			table_grow();
		t = calloc(1, sizeof(*t));
		if (!t)
		{
			os_mutex_unlock(&tags_lock);
			rt_error("out of memory creating tag %llu", (unsigned long long) id);
			abort();
		}
		t->id = id;
		os_mutex_init(&t->lock);
		os_cond_init(&t->cond);
		unsigned h = hash_id(id, nbuckets);
		t->hnext = buckets[h];
		buckets[h] = t;
		ntags_in_table++;
	}
	os_mutex_unlock(&tags_lock);
	return t;
}

static struct tag *lookup(starpu_tag_t id)
{
	os_mutex_lock(&tags_lock);
	struct tag *t = lookup_locked(id);
	os_mutex_unlock(&tags_lock);
	return t;
}

static int push_ptr(struct tag ***arr, unsigned *n, unsigned *cap, struct tag *t)
{
	if (*n == *cap)
	{
		unsigned c = *cap ? *cap * 2 : 2;
		struct tag **a = realloc(*arr, sizeof(**arr) * c);
		if (!a)
			return -ENOMEM;
		*arr = a;
		*cap = c;
	}
	(*arr)[(*n)++] = t;
	return 0;
}

static void remove_ptr(struct tag **arr, unsigned *n, struct tag *t)
{
	for (unsigned i = 0; i < *n; i++)
		if (arr[i] == t)
		{
			arr[i] = arr[--*n];
			return;
		}
}

/* Copies t's successors under its lock (they may be appended concurrently). */
static struct tag **snapshot_succ(struct tag *t, unsigned *n, struct tag **small, unsigned nsmall)
{
	struct tag **copy = small;
	if (t->nsucc > nsmall)
	{
		copy = malloc(sizeof(*copy) * t->nsucc);
		if (!copy)
		{
			rt_error("out of memory notifying tag %llu", (unsigned long long) t->id);
			abort();
		}
	}
	if (t->nsucc)
		memcpy(copy, t->succ, sizeof(*copy) * t->nsucc);
	*n = t->nsucc;
	return copy;
}

/* One dependency of s is done. */
static void dep_done(struct tag *s)
{
	struct job *release = NULL;
	os_mutex_lock(&s->lock);
	if (s->npending > 0 && --s->npending == 0 && s->job_waiting)
	{
		s->job_waiting = 0;
		release = s->job;
	}
	os_mutex_unlock(&s->lock);
	if (release)
		job_dep_release(release);
}

/* Marks t done and notifies its successors. */
static void tag_set_done(struct tag *t)
{
	struct tag *small[8];
	unsigned n;
	os_mutex_lock(&t->lock);
	if (atomic_load(&t->state) == TAG_DONE)
	{
		os_mutex_unlock(&t->lock);
		return;
	}
	atomic_store(&t->state, TAG_DONE);
	struct tag **succ = snapshot_succ(t, &n, small, 8);
	if (t->nwaiters)
		os_cond_broadcast(&t->cond);
	os_mutex_unlock(&t->lock);
	for (unsigned i = 0; i < n; i++)
		dep_done(succ[i]);
	if (succ != small)
		free(succ);
}

/* Re-arms t (locked by the caller): pending = dependencies not done now. */
static void rearm_locked(struct tag *t)
{
	unsigned pending = 0;
	for (unsigned i = 0; i < t->ndeps; i++)
		if (atomic_load(&t->deps[i]->state) != TAG_DONE)
			pending++;
	t->npending = pending;
	atomic_store(&t->state, t->job ? TAG_ASSOCIATED : TAG_UNSET);
}

int tag_attach_job(struct job *job, starpu_tag_t id)
{
	struct tag *t = get_or_create(id);
	os_mutex_lock(&t->lock);
	if (t->job && t->job != job && t->job->submitted)
	{
		os_mutex_unlock(&t->lock);
		rt_error("starpu_task_submit: tag %llu is already carried by the unfinished task '%s' (-EINVAL)",
			 (unsigned long long) id, starpu_task_get_name(t->job->task));
		return -EINVAL;
	}
	if (t->job && t->job != job)
		t->job->tag = NULL;
	t->job = job;
	job->tag = t;
	if (atomic_load(&t->state) == TAG_DONE)
		rearm_locked(t);	/* reused tag: its dependencies count again */
	else
		atomic_store(&t->state, TAG_ASSOCIATED);
	if (t->npending > 0)
	{
		t->job_waiting = 1;
		atomic_fetch_add(&job->ndeps, 1);
	}
	os_mutex_unlock(&t->lock);
	return 0;
}

void tag_job_done(struct job *job, int keep)
{
	struct tag *t = job->tag;
	/* Unless regenerated, the task lets go of its tag: the tag may be
	 * removed, or carried by a new task, as soon as it is done. */
	if (!keep)
		tag_job_forget(job);
	tag_set_done(t);
}

void tag_job_restart(struct job *job)
{
	struct tag *t = job->tag;
	os_mutex_lock(&t->lock);
	rearm_locked(t);
	if (t->npending > 0)
	{
		t->job_waiting = 1;
		atomic_fetch_add(&job->ndeps, 1);
	}
	os_mutex_unlock(&t->lock);
}

void tag_job_forget(struct job *job)
{
	struct tag *t = job->tag;
	if (!t)
		return;
	os_mutex_lock(&t->lock);
	if (t->job == job)
	{
		t->job = NULL;
		t->job_waiting = 0;
	}
	os_mutex_unlock(&t->lock);
	job->tag = NULL;
}

/* Whether target can be reached from start through successor edges. */
static int tag_reaches(struct tag *start, struct tag *target)
{
	unsigned cap = 64, top = 0, budget = 1u << 20;
	struct tag **stack = malloc(sizeof(*stack) * cap);
	int found = 0;
	if (!stack)
		return 0;
	stack[top++] = start;
	while (top && budget--)
	{
		struct tag *t = stack[--top];
		if (t == target)
		{
			found = 1;
			break;
		}
		os_mutex_lock(&t->lock);
		for (unsigned i = 0; i < t->nsucc; i++)
		{
			if (top == cap)
			{
				struct tag **s = realloc(stack, sizeof(*stack) * cap * 2);
				if (!s)
					break;
				stack = s;
				cap *= 2;
			}
			stack[top++] = t->succ[i];
		}
		os_mutex_unlock(&t->lock);
	}
	free(stack);
	return found;
}

void starpu_tag_declare_deps_array(starpu_tag_t id, unsigned ndeps, starpu_tag_t *array)
{
	if (ndeps && !array)
	{
		rt_error("starpu_tag_declare_deps_array: tag %llu: the array of %u dependencies is NULL", (unsigned long long) id, ndeps);
		return;
	}
	struct tag *t = get_or_create(id);
	for (unsigned i = 0; i < ndeps; i++)
	{
		if (array[i] == id)
		{
			rt_error("starpu_tag_declare_deps: tag %llu cannot depend on itself; dependency ignored", (unsigned long long) id);
			continue;
		}
		struct tag *d = get_or_create(array[i]);
		/* d -> t closes a cycle iff d can already be reached from t. */
		if (tag_reaches(t, d))
		{
			rt_error("starpu_tag_declare_deps: tag %llu depending on tag %llu would close a dependency cycle "
				 "(tag %llu already depends on tag %llu); dependency ignored",
				 (unsigned long long) id, (unsigned long long) array[i],
				 (unsigned long long) array[i], (unsigned long long) id);
			continue;
		}
		/* Record the edge on both ends and count it. If d completes
		 * before t is in its successor list, we see it done below and
		 * uncount it ourselves; after, d's completion decrements. */
		os_mutex_lock(&t->lock);
		if (push_ptr(&t->deps, &t->ndeps, &t->deps_cap, d))
		{
			os_mutex_unlock(&t->lock);
			rt_error("starpu_tag_declare_deps: out of memory");
			return;
		}
		t->npending++;
		os_mutex_unlock(&t->lock);

		os_mutex_lock(&d->lock);
		int done = atomic_load(&d->state) == TAG_DONE;
		if (push_ptr(&d->succ, &d->nsucc, &d->succ_cap, t))
		{
			os_mutex_unlock(&d->lock);
			rt_error("starpu_tag_declare_deps: out of memory");
			return;
		}
		os_mutex_unlock(&d->lock);
		trace_on_tag_dep(id, array[i]);	/* observers: a DAG edge between tags */
		if (done)
			dep_done(t);
	}
}

void starpu_tag_declare_deps(starpu_tag_t id, unsigned ndeps, ...)
{
	starpu_tag_t deps[ndeps ? ndeps : 1];
	va_list ap;
	va_start(ap, ndeps);
	for (unsigned i = 0; i < ndeps; i++)
		deps[i] = va_arg(ap, starpu_tag_t);
	va_end(ap);
	starpu_tag_declare_deps_array(id, ndeps, deps);
}

int starpu_tag_wait_array(unsigned ntags, starpu_tag_t *id)
{
	if (rt_may_not_block("starpu_tag_wait"))
		return -EDEADLK;
	for (unsigned i = 0; i < ntags; i++)
	{
		struct tag *t = get_or_create(id[i]);
		os_mutex_lock(&t->lock);
		t->nwaiters++;
		while (atomic_load(&t->state) != TAG_DONE)
			os_cond_wait(&t->cond, &t->lock);
		t->nwaiters--;
		os_mutex_unlock(&t->lock);
	}
	return 0;
}

int starpu_tag_wait(starpu_tag_t id)
{
	return starpu_tag_wait_array(1, &id);
}

void starpu_tag_notify_from_apps(starpu_tag_t id)
{
	tag_set_done(get_or_create(id));
}

void starpu_tag_restart(starpu_tag_t id)
{
	struct tag *t = lookup(id);
	if (!t)
		return;
	os_mutex_lock(&t->lock);
	if (atomic_load(&t->state) == TAG_DONE)
		rearm_locked(t);
	os_mutex_unlock(&t->lock);
}

void starpu_tag_notify_restart_from_apps(starpu_tag_t id)
{
	starpu_tag_notify_from_apps(id);
	starpu_tag_restart(id);
}

struct starpu_task *starpu_tag_get_task(starpu_tag_t id)
{
	struct tag *t = lookup(id);
	if (!t)
		return NULL;
	os_mutex_lock(&t->lock);
	struct starpu_task *task = t->job ? t->job->task : NULL;
	os_mutex_unlock(&t->lock);
	return task;
}

static void tag_free(struct tag *t)
{
	free(t->deps);
	free(t->succ);
	os_cond_destroy(&t->cond);
	os_mutex_destroy(&t->lock);
	free(t);
}

void starpu_tag_remove(starpu_tag_t id)
{
	os_mutex_lock(&tags_lock);
	struct tag *t = lookup_locked(id);
	if (!t)
	{
		os_mutex_unlock(&tags_lock);
		return;
	}
	os_mutex_lock(&t->lock);
	if ((t->job && t->job->submitted) || t->nwaiters)
	{
		os_mutex_unlock(&t->lock);
		os_mutex_unlock(&tags_lock);
		rt_error("starpu_tag_remove: tag %llu is still in use (by an unfinished task or a waiter); not removed",
			 (unsigned long long) id);
		return;
	}
	os_mutex_unlock(&t->lock);
	/* Unlink from the table, then drop the edges on both sides. Holding
	 * tags_lock keeps anyone from finding t meanwhile. */
	struct tag **pp = &buckets[hash_id(id, nbuckets)];
	while (*pp != t)
		pp = &(*pp)->hnext;
	*pp = t->hnext;
	ntags_in_table--;
	for (unsigned i = 0; i < t->ndeps; i++)
	{
		struct tag *d = t->deps[i];
		os_mutex_lock(&d->lock);
		remove_ptr(d->succ, &d->nsucc, t);
		os_mutex_unlock(&d->lock);
	}
	int released = 0;
	for (unsigned i = 0; i < t->nsucc; i++)
	{
		struct tag *s = t->succ[i];
		os_mutex_lock(&s->lock);
		remove_ptr(s->deps, &s->ndeps, t);
		os_mutex_unlock(&s->lock);
		if (atomic_load(&t->state) != TAG_DONE)
		{
			/* s was counting on t: it stops waiting for it. */
			dep_done(s);
			released++;
		}
	}
	os_mutex_unlock(&tags_lock);
	if (released)
		rt_warn("starpu_tag_remove: tag %llu was removed before being done; %d tag(s) depending on it no longer wait for it",
			(unsigned long long) id, released);
	if (t->job)
		t->job->tag = NULL;
	tag_free(t);
}

void tags_fini(void)
{
	os_mutex_lock(&tags_lock);
	for (unsigned i = 0; i < nbuckets; i++)
	{
		struct tag *t = buckets[i];
		while (t)
		{
			struct tag *next = t->hnext;
			if (t->job)
				t->job->tag = NULL;
			tag_free(t);
			t = next;
		}
	}
	free(buckets);
	buckets = NULL;
	nbuckets = 0;
	ntags_in_table = 0;
	os_mutex_unlock(&tags_lock);
}
