/* tags.c — tags (see tags.h for the model and the lock order).
 *
 * Each tag keeps the groups it depends on (one per starpu_tag_declare_deps
 * call, owned by the tag) and the groups it is a member of (its
 * successors), for its lifetime: a tag can be restarted, removed cleanly,
 * and a group counts every notification of its members, round after round.
 *
 * A group completes when its members have been notified as many times as
 * it has members; it is then "done" until its tag starts a task, which
 * needs every group of the tag done. This is StarPU's counting, and it is
 * what makes a cycle of tags work with regenerated tasks: each round, the
 * tag closing the cycle notifies the first one again. A declaration that
 * closes a cycle is therefore kept; it is reported as a warning, since a
 * cycle nothing breaks (starpu_tag_notify_from_apps or
 * starpu_tag_notify_restart_from_apps on one of its tags) waits forever.
 * The search for it visits each tag once (a set of visited tags), so that
 * it stays linear on graphs with many paths between two tags (diamonds,
 * grids).
 */
#include "core/tags.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/ptr_set.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum tag_state
{
	TAG_UNSET = 0,		/* never done, no task */
	TAG_ASSOCIATED,		/* a task carries it */
	TAG_BLOCKED,		/* its task waits for its groups, or restarted */
	TAG_READY,		/* its task may run */
	TAG_DONE
};

/* One starpu_tag_declare_deps call: owner waits for its members. Owned by
 * owner (freed with it, or when its last member is removed); listed in
 * each member's succ. owner and the member list are written under owner's
 * lock; owner itself never changes. */
struct tag_group
{
	struct tag *owner;
	unsigned remaining;	/* notifications before it completes again */
	unsigned char done;	/* completed since owner last started a task */
	unsigned ndeps;
	struct tag *deps[];
};

struct tag
{
	starpu_tag_t id;
	struct tag *hnext;		/* hash chain, under tags_lock */

	/* Everything below is protected by lock. */
	os_mutex_t lock;
	os_cond_t cond;			/* starpu_tag_wait() */
	int state;			/* enum tag_state */
	unsigned ndone;			/* notifications so far (waiters see a done-then-restarted tag) */
	struct tag_group **groups;	/* ours */
	unsigned ngroups, groups_cap, ngroups_done;
	struct tag_group **succ;	/* groups we are a member of */
	unsigned nsucc, succ_cap;
	struct job *job;		/* the task that carried it last (starpu_tag_get_task) */
	unsigned ncarriers;		/* tasks carrying it, not yet terminated */
	int job_waiting;		/* job holds a start dependency on our groups */
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

starpu_tag_t tag_id_of(const struct tag *t)
{
	return t->id;
}

unsigned tag_dep_ids(starpu_tag_t id, starpu_tag_t *out, unsigned max)
{
	struct tag *t = lookup(id);
	if (!t)
		return 0;
	unsigned n = 0;
	os_mutex_lock(&t->lock);
	for (unsigned g = 0; g < t->ngroups; g++)
		for (unsigned i = 0; i < t->groups[g]->ndeps; i++, n++)
			if (n < max)
				out[n] = t->groups[g]->deps[i]->id;
	os_mutex_unlock(&t->lock);
	return n;
}

static int push_group(struct tag_group ***arr, unsigned *n, unsigned *cap, struct tag_group *g)
{
	if (*n == *cap)
	{
		unsigned c = *cap ? *cap * 2 : 2;
		struct tag_group **a = realloc(*arr, sizeof(**arr) * c);
		if (!a)
			return -ENOMEM;
		*arr = a;
		*cap = c;
	}
	(*arr)[(*n)++] = g;
	return 0;
}

/* Removes every occurrence of g; returns how many there were. */
static unsigned remove_group(struct tag_group **arr, unsigned *n, struct tag_group *g)
{
	unsigned j = 0, removed = 0;
	for (unsigned i = 0; i < *n; i++)
		if (arr[i] == g)
			removed++;
		else
			arr[j++] = arr[i];
	*n = j;
	return removed;
}

/* A task carrying t starts: its groups count afresh (t locked). */
static void groups_rearm_locked(struct tag *t)
{
	for (unsigned i = 0; i < t->ngroups; i++)
		t->groups[i]->done = 0;
	t->ngroups_done = 0;
}

/* Group g of s completed (s locked): returns the job to let go, if any. */
static struct job *group_completed_locked(struct tag *s, struct tag_group *g)
{
	g->remaining = g->ndeps;
	if (!g->done)
	{
		g->done = 1;
		s->ngroups_done++;
	}
	if (s->job_waiting && s->ngroups_done == s->ngroups)
	{
		groups_rearm_locked(s);
		s->state = TAG_READY;
		s->job_waiting = 0;
		return s->job;
	}
	return NULL;
}

/* One member of g was notified. */
static void group_notified(struct tag_group *g)
{
	struct tag *s = g->owner;
	struct job *release = NULL;
	os_mutex_lock(&s->lock);
	if (g->remaining > 0 && --g->remaining == 0)
		release = group_completed_locked(s, g);
	os_mutex_unlock(&s->lock);
	if (release)
		job_dep_release(release);
}

/* Copies t's successor groups under its lock (they may be appended to
 * concurrently). */
static struct tag_group **snapshot_succ(struct tag *t, unsigned *n, struct tag_group **small, unsigned nsmall)
{
	struct tag_group **copy = small;
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

/* Marks t done (t locked; restart: it is not done any more right after,
 * as starpu_tag_notify_restart_from_apps wants) and returns the groups to
 * notify, or NULL (n = 0) if it was done already. */
static struct tag_group **set_done_locked(struct tag *t, int restart, unsigned *n, struct tag_group **small, unsigned nsmall)
{
	*n = 0;
	if (t->state == TAG_DONE)
	{
		if (restart)
			t->state = TAG_BLOCKED;
		return NULL;
	}
	t->state = restart ? TAG_BLOCKED : TAG_DONE;
	t->ndone++;
	if (t->nwaiters)
		os_cond_broadcast(&t->cond);
	return snapshot_succ(t, n, small, nsmall);
}

static void notify_groups(struct tag_group **succ, unsigned n, struct tag_group **small)
{
	for (unsigned i = 0; i < n; i++)
		group_notified(succ[i]);
	if (succ && succ != small)
		free(succ);
}

static void tag_set_done(struct tag *t, int restart)
{
	struct tag_group *small[8], **succ;
	unsigned n;
	os_mutex_lock(&t->lock);
	succ = set_done_locked(t, restart, &n, small, 8);
	os_mutex_unlock(&t->lock);
	notify_groups(succ, n, small);
}

void tag_job_done(struct tag *t, struct job *job, void (*close_locked)(struct job *job, void *arg), void *arg)
{
	struct tag_group *small[8], **succ;
	unsigned n;
	os_mutex_lock(&t->lock);
	os_mutex_lock(job_lock(job));
	close_locked(job, arg);
	/* A task that another one replaced as the tag's carrier lets go of it
	 * (the tag no longer knows it). */
	if (t->job != job)
		__atomic_store_n(&job->tag, NULL, __ATOMIC_RELEASE);
	os_mutex_unlock(job_lock(job));
	if (t->ncarriers)
		t->ncarriers--;
	succ = set_done_locked(t, 0, &n, small, 8);
	os_mutex_unlock(&t->lock);
	notify_groups(succ, n, small);
}

/* job starts carrying t (t locked). rearm: the same task again, or a
 * regenerated one, which makes a done tag not done; another task leaves a
 * done tag done (several tasks may carry one tag: it is done when the
 * first ends). The job waits for the groups not done yet. */
static void arm_locked(struct tag *t, struct job *job, int rearm)
{
	if (rearm || t->state != TAG_DONE)
		t->state = TAG_ASSOCIATED;
	if (t->ngroups_done != t->ngroups)
	{
		t->state = TAG_BLOCKED;
		t->job_waiting = 1;
		atomic_fetch_add(&job->ndeps, 1);
	}
	else
	{
		if (t->state != TAG_DONE)
			t->state = TAG_READY;
		groups_rearm_locked(t);
	}
	t->ncarriers++;
}

int tag_attach_job(struct job *job, starpu_tag_t id, int again)
{
	struct tag *t = get_or_create(id);
	os_mutex_lock(&t->lock);
	if (t->ngroups && t->job && t->job != job && t->ncarriers)
	{
		const char *other = starpu_task_get_name(t->job->task);
		os_mutex_unlock(&t->lock);
		rt_error("starpu_task_submit: tag %llu has dependencies (starpu_tag_declare_deps) and is already carried by "
			 "the unfinished task '%s'; a tag with dependencies starts one task at a time (-EINVAL)",
			 (unsigned long long) id, other);
		return -EINVAL;
	}
	struct job *old = t->job;
	if (old && old != job)
	{
		/* The task that carried it before lets go of it, unless it is
		 * still running (its termination does it then). */
		os_mutex_lock(job_lock(old));
		if (!old->submitted && !old->ending && old->tag == t)
			__atomic_store_n(&old->tag, NULL, __ATOMIC_RELEASE);
		os_mutex_unlock(job_lock(old));
	}
	t->job = job;
	__atomic_store_n(&job->tag, t, __ATOMIC_RELEASE);
	arm_locked(t, job, again || job->task->regenerate);
	os_mutex_unlock(&t->lock);
	return 0;
}

void tag_job_restart(struct job *job)
{
	struct tag *t = __atomic_load_n(&job->tag, __ATOMIC_ACQUIRE);
	os_mutex_lock(&t->lock);
	t->job = job;
	arm_locked(t, job, 1);
	os_mutex_unlock(&t->lock);
}

void tag_job_forget(struct job *job)
{
	if (!__atomic_load_n(&job->tag, __ATOMIC_ACQUIRE))
		return;
	/* Under tags_lock, starpu_tag_remove cannot free the tag meanwhile;
	 * job->tag is read under the job's lock: a task taking the tag over,
	 * or the tag's removal, may clear it. */
	os_mutex_lock(&tags_lock);
	os_mutex_lock(job_lock(job));
	struct tag *t = job->tag;
	__atomic_store_n(&job->tag, NULL, __ATOMIC_RELEASE);
	os_mutex_unlock(job_lock(job));
	if (t)
	{
		os_mutex_lock(&t->lock);
		if (t->job == job)
		{
			t->job = NULL;
			t->job_waiting = 0;
		}
		os_mutex_unlock(&t->lock);
	}
	os_mutex_unlock(&tags_lock);
}

/* ------------------------------------------------------------------ */
/* Declaring dependencies. */

/* Whether target can be reached from start through successor edges: each
 * tag is visited once. */
static int tag_reaches(struct tag *start, struct tag *target)
{
	struct ptr_set seen = { 0 };
	struct tag **queue = NULL;
	size_t head = 0, tail = 0, qcap = 0;
	int found = 0;
	if (ptr_set_add(&seen, start) < 0)
		return 0;
	queue = malloc(sizeof(*queue) * 16);
	if (!queue)
		goto out;
	qcap = 16;
	queue[tail++] = start;
	while (head < tail && !found)
	{
		struct tag *t = queue[head++];
		if (t == target)
		{
			found = 1;
			break;
		}
		os_mutex_lock(&t->lock);
		for (unsigned i = 0; i < t->nsucc; i++)
		{
			struct tag *s = t->succ[i]->owner;
			int r = ptr_set_add(&seen, s);
			if (r < 0)
				break;
			if (!r)
				continue;
			if (tail == qcap)
			{
				struct tag **q = realloc(queue, sizeof(*queue) * qcap * 2);
				if (!q)
					break;
				queue = q;
				qcap *= 2;
			}
			queue[tail++] = s;
		}
		os_mutex_unlock(&t->lock);
	}
out:
	free(queue);
	ptr_set_free(&seen);
	return found;
}

void starpu_tag_declare_deps_array(starpu_tag_t id, unsigned ndeps, starpu_tag_t *array)
{
	if (ndeps && !array)
	{
		rt_error("starpu_tag_declare_deps_array: tag %llu: the array of %u dependencies is NULL", (unsigned long long) id, ndeps);
		return;
	}
	if (!ndeps)
		return;
	struct tag *t = get_or_create(id);
	struct tag_group *g = malloc(sizeof(*g) + sizeof(g->deps[0]) * ndeps);
	if (!g)
	{
		rt_error("starpu_tag_declare_deps: tag %llu: out of memory", (unsigned long long) id);
		return;
	}
	g->owner = t;
	g->done = 0;
	unsigned n = 0;
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
			rt_warn("starpu_tag_declare_deps: tag %llu depending on tag %llu closes a dependency cycle "
				"(tag %llu already depends on tag %llu); its tasks wait until one of its tags is notified "
				"(starpu_tag_notify_from_apps, starpu_tag_notify_restart_from_apps)",
				(unsigned long long) id, (unsigned long long) array[i],
				(unsigned long long) array[i], (unsigned long long) id);
		g->deps[n++] = d;
	}
	if (!n)
	{
		free(g);
		return;
	}
	g->ndeps = n;
	g->remaining = n;
	/* The group counts for t before its members know it, so that a task
	 * of t cannot start in between. */
	os_mutex_lock(&t->lock);
	int ret = push_group(&t->groups, &t->ngroups, &t->groups_cap, g);
	os_mutex_unlock(&t->lock);
	if (ret)
	{
		free(g);
		rt_error("starpu_tag_declare_deps: tag %llu: out of memory", (unsigned long long) id);
		return;
	}
	/* A member done already counts as notified, as in StarPU. */
	for (unsigned i = 0; i < n; i++)
	{
		struct tag *d = g->deps[i];
		os_mutex_lock(&d->lock);
		int done = d->state == TAG_DONE;
		ret = push_group(&d->succ, &d->nsucc, &d->succ_cap, g);
		os_mutex_unlock(&d->lock);
		if (ret)
		{
			rt_error("starpu_tag_declare_deps: tag %llu: out of memory; it will not wait for tag %llu",
				 (unsigned long long) id, (unsigned long long) d->id);
			done = 1;
		}
		trace_on_tag_dep(id, d->id);	/* observers: a DAG edge between tags */
		if (done)
			group_notified(g);
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

/* ------------------------------------------------------------------ */
/* The application's side. */

int starpu_tag_wait_array(unsigned ntags, starpu_tag_t *id)
{
	if (rt_may_not_block("starpu_tag_wait"))
		return -EDEADLK;
	for (unsigned i = 0; i < ntags; i++)
	{
		struct tag *t = get_or_create(id[i]);
		os_mutex_lock(&t->lock);
		t->nwaiters++;
		unsigned seen = t->ndone;
		while (t->state != TAG_DONE && t->ndone == seen)
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
	tag_set_done(get_or_create(id), 0);
}

void starpu_tag_notify_restart_from_apps(starpu_tag_t id)
{
	tag_set_done(get_or_create(id), 1);
}

void starpu_tag_restart(starpu_tag_t id)
{
	struct tag *t = lookup(id);
	if (!t)
		return;
	os_mutex_lock(&t->lock);
	if (t->state == TAG_READY && t->ncarriers)
	{
		os_mutex_unlock(&t->lock);
		rt_error("starpu_tag_restart: tag %llu is carried by a task that may be running; only a tag that is done "
			 "or waiting can be restarted", (unsigned long long) id);
		return;
	}
	/* Not done any more: waiting on it waits for its next notification. */
	t->state = TAG_BLOCKED;
	os_mutex_unlock(&t->lock);
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
	for (unsigned i = 0; i < t->ngroups; i++)
		free(t->groups[i]);
	free(t->groups);
	free(t->succ);
	os_cond_destroy(&t->cond);
	os_mutex_destroy(&t->lock);
	free(t);
}

/* t, removed, leaves group g of another tag s: s stops waiting for it. */
static int leave_group(struct tag *t, struct tag_group *g, int t_done)
{
	struct tag *s = g->owner;
	struct job *release = NULL;
	int waited = 0;
	os_mutex_lock(&s->lock);
	unsigned j = 0, k = 0;
	for (unsigned i = 0; i < g->ndeps; i++)
		if (g->deps[i] == t)
			k++;
		else
			g->deps[j++] = g->deps[i];
	g->ndeps = j;
	if (!k)
		goto out;
	if (!t_done)
	{
		waited = 1;
		g->remaining = g->remaining > k ? g->remaining - k : 0;
	}
	if (g->remaining > g->ndeps)
		g->remaining = g->ndeps;
	if (!g->ndeps)
	{
		/* Nothing left to wait for: the group goes. */
		if (g->done)
			s->ngroups_done--;
		remove_group(s->groups, &s->ngroups, g);
		free(g);
		if (s->job_waiting && s->ngroups_done == s->ngroups)
		{
			groups_rearm_locked(s);
			s->state = TAG_READY;
			s->job_waiting = 0;
			release = s->job;
		}
	}
	else if (g->remaining == 0)
		release = group_completed_locked(s, g);
out:
	os_mutex_unlock(&s->lock);
	if (release)
		job_dep_release(release);
	return waited;
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
	if (t->ncarriers || t->job_waiting || t->nwaiters)
	{
		os_mutex_unlock(&t->lock);
		os_mutex_unlock(&tags_lock);
		rt_error("starpu_tag_remove: tag %llu is still in use (by an unfinished task or a waiter); not removed",
			 (unsigned long long) id);
		return;
	}
	int t_done = t->state == TAG_DONE;
	/* The task that carried it last forgets it (it cannot be freed
	 * meanwhile: its tag_job_forget waits for tags_lock). */
	struct job *carrier = t->job;
	t->job = NULL;
	if (carrier)
	{
		os_mutex_lock(job_lock(carrier));
		if (carrier->tag == t)
			__atomic_store_n(&carrier->tag, NULL, __ATOMIC_RELEASE);
		os_mutex_unlock(job_lock(carrier));
	}
	os_mutex_unlock(&t->lock);
	/* Unlink from the table, then drop the edges on both sides. Holding
	 * tags_lock keeps anyone from finding t meanwhile. */
	struct tag **pp = &buckets[hash_id(id, nbuckets)];
	while (*pp != t)
		pp = &(*pp)->hnext;
	*pp = t->hnext;
	ntags_in_table--;
	for (unsigned i = 0; i < t->ngroups; i++)
	{
		struct tag_group *g = t->groups[i];
		for (unsigned k = 0; k < g->ndeps; k++)
		{
			struct tag *d = g->deps[k];
			os_mutex_lock(&d->lock);
			remove_group(d->succ, &d->nsucc, g);
			os_mutex_unlock(&d->lock);
		}
	}
	int released = 0;
	for (unsigned i = 0; i < t->nsucc; i++)
	{
		/* A group listing t twice is in t->succ twice: once is enough
		 * (leave_group may free it). */
		unsigned k = 0;
		while (k < i && t->succ[k] != t->succ[i])
			k++;
		if (k == i)
			released += leave_group(t, t->succ[i], t_done);
	}
	os_mutex_unlock(&tags_lock);
	if (released)
		rt_warn("starpu_tag_remove: tag %llu was removed before being done; %d tag(s) depending on it no longer wait for it",
			(unsigned long long) id, released);
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
				__atomic_store_n(&t->job->tag, NULL, __ATOMIC_RELEASE);
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
