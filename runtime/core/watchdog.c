/* watchdog.c — StarPU's watchdog: a report when no task completes for a
 * while, so that a hang in an application becomes a diagnosis.
 *
 * STARPU_WATCHDOG_TIMEOUT=us turns it on: a thread (an actor in a
 * simulation, on simulated time) wakes every timeout; when tasks are
 * submitted and none terminated since it last looked, it prints what each
 * unfinished task waits for: the tasks it depends on (found through their
 * successor lists), its tag, access to a datum (and who holds it), a
 * worker to take it, its data on a worker (memory). STARPU_WATCHDOG_CRASH=1
 * aborts after the report; STARPU_WATCHDOG_DELAY=us waits that long after
 * starpu_init before the first check. Malformed values: starpu_init fails
 * with -EINVAL.
 *
 * While it is on, submitted tasks are kept in a table (wd_mutex; a job's
 * wd_slot is its place there): the cost is one lock per submission and termination,
 * only then. The report reads other threads' jobs without their locks (a
 * snapshot for a human; tests/tsan.supp says so); it takes each job's
 * lock to read its successors. Lock order: wd_mutex, then a job's lock.
 */
#include "core/rt.h"
#include "core/conf.h"
#include "core/job.h"
#include "core/workers.h"
#include "data/data.h"
#include "data/memory.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Protects the list, stop and the thread's sleep (see the header). */
static os_mutex_t wd_mutex = OS_MUTEX_INITIALIZER;
static os_cond_t wd_cond = OS_COND_INITIALIZER;
static struct job **wd_jobs;		/* owned: the unfinished tasks' jobs */
static long wd_count, wd_cap;
static int wd_stop;
static os_thread_t wd_thread;
static int wd_running;

/* Settings, written at starpu_init before any task. */
static int wd_on;
static double wd_timeout_us, wd_delay_us;
static int wd_crash;
static _Atomic unsigned long wd_done;	/* terminations so far */

/* A duration in microseconds from var (unset: *out untouched). */
static int env_us(const char *var, double *out)
{
	const char *s = getenv(var);
	if (!s || !*s)
		return 0;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	while (isspace((unsigned char) *end))
		end++;
	if (end == s || *end || errno || !(v >= 0) || v > 1e15)
	{
		rt_error("starpu_init: environment variable %s='%s' must be a duration in microseconds (-EINVAL)", var, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int watchdog_conf(void)
{
	wd_on = 0;
	wd_timeout_us = 0;
	wd_delay_us = 0;
	int ret = env_us("STARPU_WATCHDOG_TIMEOUT", &wd_timeout_us);
	ret |= env_us("STARPU_WATCHDOG_DELAY", &wd_delay_us);
	ret |= conf_env_flag("STARPU_WATCHDOG_CRASH", &wd_crash);
	if (ret)
		return -EINVAL;
	wd_on = wd_timeout_us > 0;
	return 0;
}

int watchdog_enabled(void)
{
	return wd_on;
}

void watchdog_track(struct job *job)
{
	os_mutex_lock(&wd_mutex);
	if (!job->wd_slot && wd_count == wd_cap)
	{
		long cap = wd_cap ? 2 * wd_cap : 1024;
		struct job **jobs = realloc(wd_jobs, (size_t) cap * sizeof(*jobs));
		if (jobs)
		{
			wd_jobs = jobs;
			wd_cap = cap;
		}
	}
	if (!job->wd_slot && wd_count < wd_cap)	/* out of memory: not reported */
	{
		wd_jobs[wd_count++] = job;
		job->wd_slot = (int) wd_count;
	}
	os_mutex_unlock(&wd_mutex);
}

void watchdog_untrack(struct job *job)
{
	atomic_fetch_add(&wd_done, 1);
	os_mutex_lock(&wd_mutex);
	if (job->wd_slot)
	{
		struct job *last = wd_jobs[--wd_count];
		wd_jobs[job->wd_slot - 1] = last;
		last->wd_slot = job->wd_slot;
		job->wd_slot = 0;
	}
	os_mutex_unlock(&wd_mutex);
}

/* Appends to buf what job waits for (wd_mutex held). */
static void watchdog_describe(struct job *job, char *buf, size_t size)
{
	struct starpu_task *task = job->task;
	size_t len = 0;
#define ADD(...) do { if (len < size) len += (size_t) snprintf(buf + len, size - len, __VA_ARGS__); } while (0)
	ADD("task '%s' (job %lu): ", starpu_task_get_name(task), job->id);
	enum starpu_task_status st = __atomic_load_n(&task->status, __ATOMIC_RELAXED);
	if (st == STARPU_TASK_BLOCKED)
	{
		/* Its predecessors are the listed jobs whose successors it is. */
		unsigned found = 0;
		for (long k = 0; k < wd_count; k++)
		{
			struct job *p = wd_jobs[k];
			if (p == job)
				continue;
			os_mutex_lock(job_lock(p));
			int pred = 0;
			for (unsigned i = 0; i < p->nsucc && !pred; i++)
				pred = job_succ_job(p->succ[i]) == job && !job_succ_end_dep(p->succ[i]);
			os_mutex_unlock(job_lock(p));
			if (pred)
			{
				if (found < 8)
					ADD("%s'%s' (job %lu)", found ? ", " : "waits for task(s) ", starpu_task_get_name(p->task), p->id);
				found++;
			}
		}
		if (found > 8)
			ADD(" and %u more", found - 8);
		/* Declared dependencies (starpu_task_declare_deps*). */
		char names[256];
		unsigned declared = deps_pending_names(job, names, sizeof(names));
		if (declared)
			ADD("%sdeclared dependencies on task(s) %s", found ? "; " : "waits for ", names);
		found += declared ? 1 : 0;	/* one of ndeps covers them all */
		/* Data the application holds (starpu_data_acquire). */
		for (unsigned i = 0; i < job->nbuffers; i++)
		{
			starpu_data_handle_t h = job->buffers[i].handle;
			if (os_mutex_trylock(&h->lock))
				continue;
			struct job *lw = h->last_writer;
			int app = lw && lw->kind == JOB_ACQUIRE && !lw->terminated;
			os_mutex_unlock(&h->lock);
			if (app)
			{
				char label[96];
				ADD("%sdata %s, which the application holds (starpu_data_acquire without release)",
				    found ? "; " : "waits for ", data_label(h, label, sizeof(label)));
				found++;
			}
		}
		int ndeps = atomic_load(&job->ndeps);
		if ((unsigned) ndeps > found)
			ADD("%s%d dependenc%s not on a submitted task", found ? "; " : "waits for ", ndeps - (int) found,
			    ndeps - (int) found > 1 ? "ies" : "y");
		if (task->use_tag)
			ADD(" (it carries tag %llu: its tag dependencies, or a task or tag never submitted or notified)",
			    (unsigned long long) task->tag_id);
		else if ((unsigned) ndeps > found)
			ADD(" (a task never submitted, or an end dependency)");
	}
	else if (st == STARPU_TASK_READY && job->nacquired < job->nbuffers)
	{
		starpu_data_handle_t h = job->buffers[job->nacquired].handle;
		char label[96];
		ADD("ready, waits for access to data %s (held by %d reader(s)%s: tasks, or the application's "
		    "starpu_data_acquire)", data_label(h, label, sizeof(label)), __atomic_load_n(&h->busy_readers, __ATOMIC_RELAXED),
		    __atomic_load_n(&h->busy_writer, __ATOMIC_RELAXED) ? " and a writer" : "");
	}
	else if (st == STARPU_TASK_READY)
		ADD("ready, queued in its scheduling context %u: no worker took it", job->sched_ctx);
	else if (st == STARPU_TASK_RUNNING)
	{
		struct worker *w = job->worker;
		if (w && __atomic_load_n(&w->current_task, __ATOMIC_RELAXED) == task)
			ADD("running on %s (its codelet has not returned)", w->name);
		else if (w)
			ADD("on %s, waits for its data on memory node %u (%s): a copy, or memory", w->name, w->memory_node,
			    mem_nodes[w->memory_node].name);
		else
			ADD("running");
	}
	else
		ADD("status %d", (int) st);
#undef ADD
}

static void report(double idle_us)
{
	os_mutex_lock(&wd_mutex);
	long n = wd_count;
	rt_error("watchdog: no task completed in the last %.3f s; %ld task(s) submitted and not done%s", idle_us / 1e6, n,
		 n > 20 ? " (the first 20):" : ":");
	int shown = 0;
	for (long k = 0; k < wd_count && shown < 20; k++, shown++)
	{
		char line[1024];
		watchdog_describe(wd_jobs[k], line, sizeof(line));
		rt_error("watchdog:   %s", line);
	}
	os_mutex_unlock(&wd_mutex);
	if (wd_crash)
	{
		rt_error("watchdog: STARPU_WATCHDOG_CRASH is set: aborting");
		abort();
	}
}

static void *watchdog_thread(void *arg)
{
	(void) arg;
	os_mutex_lock(&wd_mutex);
	double start = os_now_us();
	while (!wd_stop && os_now_us() < start + wd_delay_us)
		os_cond_timedwait(&wd_cond, &wd_mutex, start + wd_delay_us);
	unsigned long seen = atomic_load(&wd_done);
	double since = os_now_us();
	while (!wd_stop)
	{
		os_cond_timedwait(&wd_cond, &wd_mutex, os_now_us() + wd_timeout_us);
		if (wd_stop)
			break;
		unsigned long done = atomic_load(&wd_done);
		double now = os_now_us();
		if (done != seen || !wd_count)
		{
			seen = done;
			since = now;
			continue;
		}
		if (now - since < wd_timeout_us)
			continue;
		os_mutex_unlock(&wd_mutex);
		report(now - since);
		os_mutex_lock(&wd_mutex);
		since = now;	/* the next report after another timeout */
	}
	os_mutex_unlock(&wd_mutex);
	return NULL;
}

int watchdog_start(void)
{
	if (!wd_on)
		return 0;
	wd_stop = 0;
	atomic_store(&wd_done, 0);
	struct os_thread_attr attr = { .name = "watchdog" };
	int ret = os_thread_create(&wd_thread, &attr, watchdog_thread, NULL);
	if (ret)
	{
		rt_error("starpu_init: cannot start the watchdog thread (%d)", ret);
		return -ret;
	}
	wd_running = 1;
	return 0;
}

void watchdog_stop(void)
{
	if (!wd_running)
		return;
	os_mutex_lock(&wd_mutex);
	wd_stop = 1;
	os_cond_broadcast(&wd_cond);
	os_mutex_unlock(&wd_mutex);
	os_thread_join(wd_thread, NULL);
	wd_running = 0;
	/* Tasks dropped at shutdown (never ready) leave the list. */
	os_mutex_lock(&wd_mutex);
	for (long k = 0; k < wd_count; k++)
		wd_jobs[k]->wd_slot = 0;
	free(wd_jobs);
	wd_jobs = NULL;
	wd_count = wd_cap = 0;
	os_mutex_unlock(&wd_mutex);
}
