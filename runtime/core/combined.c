/* combined.c — combined workers (built from the hwloc topology at init, or
 * by starpu_combined_worker_assign_workerid) and the team protocol that runs
 * a parallel task on one. See combined.h for the design.
 */
#include "core/combined.h"
#include "core/conf.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/sim_loader.h"
#include "core/workers.h"
#include "drivers/driver.h"
#include "perfmodel/perfmodel.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static struct combined_worker table[STARPU_NMAX_COMBINEDWORKERS];
/* Entries [0, ncombined) are complete; grows under add_lock (a leaf). */
static _Atomic unsigned ncombined;
static os_mutex_t add_lock = OS_MUTEX_INITIALIZER;

unsigned combined_count(void)
{
	return atomic_load_explicit(&ncombined, memory_order_acquire);
}

const struct combined_worker *combined_get(int id)
{
	if (id < (int) rt.nworkers)
		return NULL;
	unsigned k = (unsigned) id - rt.nworkers;
	return k < combined_count() ? &table[k] : NULL;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *) a, y = *(const int *) b;
	return (x > y) - (x < y);
}

/* Adds a combined worker of ids (n of them, sorted, distinct); returns its
 * id, or -ENOSPC. Same set twice: the existing one when dedup is set. */
static int add(const int *ids, int n, int dedup)
{
	os_mutex_lock(&add_lock);
	unsigned k = atomic_load_explicit(&ncombined, memory_order_relaxed);
	if (dedup)
		for (unsigned i = 0; i < k; i++)
			if (table[i].size == n && memcmp(table[i].members, ids, sizeof(int) * (size_t) n) == 0)
			{
				os_mutex_unlock(&add_lock);
				return table[i].id;
			}
	if (k == STARPU_NMAX_COMBINEDWORKERS)
	{
		os_mutex_unlock(&add_lock);
		return -ENOSPC;
	}
	struct combined_worker *cw = &table[k];
	cw->id = (int) (rt.nworkers + k);
	cw->size = n;
	memcpy(cw->members, ids, sizeof(int) * (size_t) n);
	struct starpu_perfmodel_device d = { .type = STARPU_CPU_WORKER, .devid = 0, .ncores = n };
	cw->comb = pm_comb_add(1, &d);
	atomic_store_explicit(&ncombined, k + 1, memory_order_release);
	os_mutex_unlock(&add_lock);
	return cw->id;
}

/* ------------------------------------------------------------------ */
/* Building them at init. */

/* A size from the environment: def when unset; a bad value is reported and
 * replaced by def. */
static int env_size(const char *var, int def, int ncpus)
{
	const char *s = getenv(var);
	if (!s || !*s)
		return def;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	while (isspace((unsigned char) *end))
		end++;
	if (end == s || *end || errno)
	{
		rt_error("starpu_init: %s='%s' is not a number; using %d", var, s, def);
		return def;
	}
	if (v < 1)
	{
		rt_error("starpu_init: %s=%ld must be at least 1; using %d", var, v, def);
		return def;
	}
	if (v > ncpus)
	{
		rt_error("starpu_init: %s=%ld exceeds the %d CPU workers; using %d", var, v, ncpus, ncpus);
		return ncpus;
	}
	return (int) v;
}

static int single_requested(void)
{
	int conf = rt.conf.single_combined_worker;
	const char *s = getenv("STARPU_SINGLE_COMBINED_WORKER");
	if (!s || !*s || (rt.conf.precedence_over_environment_variables && conf != -1))
		return conf > 0;
	if (strcmp(s, "0") == 0)
		return 0;
	if (strcmp(s, "1") != 0)
	{
		rt_error("starpu_init: STARPU_SINGLE_COMBINED_WORKER='%s' must be 0 or 1; using %d", s, conf > 0);
		return conf > 0;
	}
	return 1;
}

int combined_setup(void)
{
	atomic_store(&ncombined, 0);
	/* Members: CPU workers the runtime drives (an application-driven one
	 * may never come back to serve a team request). */
	int ids[STARPU_MAXCPUS];
	int n = 0;
	for (unsigned i = 0; i < rt.nworkers && n < STARPU_MAXCPUS; i++)
		if (rt.workers[i].arch == STARPU_CPU_WORKER && !rt.workers[i].app_driven)
			ids[n++] = (int) i;
	if (n < 2)
		return 0;

	if (single_requested())
	{
		add(ids, n, 1);
		return 0;
	}

	int min = env_size("STARPU_MIN_WORKERSIZE", 2, n);
	int max = env_size("STARPU_MAX_WORKERSIZE", n, n);
	if (min > max)
	{
		rt_error("starpu_init: STARPU_MIN_WORKERSIZE=%d is larger than STARPU_MAX_WORKERSIZE=%d; using 2 and %d", min, max, n);
		min = 2;
		max = n;
	}
	if (min < 2)
		min = 2;	/* a team of one is the worker itself */
	if (max < min)
		return 0;

	/* One candidate per topology object (machine, packages, caches,
	 * cores...): the workers bound inside it. Shallow objects first. A
	 * simulated machine is flat (its platform names no caches or
	 * packages), whatever the machine that simulates it. */
	hwloc_topology_t topo = sim_running() ? NULL : topo_hwloc();
	int found = 0;
	if (topo)
	{
		int depth = hwloc_topology_get_depth(topo);
		for (int d = 0; d < depth; d++)
		{
			unsigned nobjs = (unsigned) hwloc_get_nbobjs_by_depth(topo, d);
			for (unsigned o = 0; o < nobjs; o++)
			{
				hwloc_obj_t obj = hwloc_get_obj_by_depth(topo, d, o);
				if (!obj || !obj->cpuset || obj->type == HWLOC_OBJ_PU)
					continue;
				int g[STARPU_MAXCPUS], k = 0;
				for (int i = 0; i < n; i++)
				{
					hwloc_obj_t pu = worker_hwloc_obj(&rt.workers[ids[i]]);
					if (pu && pu->cpuset && hwloc_bitmap_isincluded(pu->cpuset, obj->cpuset))
						g[k++] = ids[i];
				}
				if (k >= min && k <= max && add(g, k, 1) >= 0)
					found = 1;
			}
		}
	}
	/* A flat machine, or sizes no object has: consecutive workers in
	 * groups of max. */
	if (!found)
		for (int i = 0; i + min <= n; i += max)
			add(ids + i, n - i < max ? n - i : max, 1);
	return 0;
}

void combined_teardown(void)
{
	atomic_store(&ncombined, 0);
}

/* ------------------------------------------------------------------ */
/* What a combined worker can run. */

int combined_can_execute(const struct combined_worker *cw, struct starpu_task *task, unsigned nimpl)
{
	struct starpu_codelet *cl = task->cl;
	if (!cl || nimpl >= STARPU_MAXIMPLEMENTATIONS)
		return 0;
	if (!__atomic_load_n(&cl->checked, __ATOMIC_ACQUIRE))
		task_codelet_check(cl);
	/* A size of 1 runs anything a worker runs; larger teams need a
	 * parallel codelet that accepts that many workers (no max_parallelism:
	 * any). */
	if (cw->size > 1 && (cl->type == STARPU_SEQ || (cl->max_parallelism > 0 && cw->size > cl->max_parallelism)))
		return 0;
	uint32_t where = worker_task_where(task);
	if (!(where & STARPU_CPU))
		return 0;
	if (!cl->cpu_funcs[nimpl] && !cl->cpu_funcs_name[nimpl])
		return 0;
	if (task->execute_on_a_specific_worker && task->workerid != (unsigned) cw->id)
		return 0;
	for (int m = 0; m < cw->size; m++)
		if (!worker_task_allowed(task, (unsigned) cw->members[m]))
			return 0;
	if (cl->can_execute && !cl->can_execute((unsigned) cw->id, task, nimpl))
		return 0;
	return 1;
}

int combined_first_impl(const struct combined_worker *cw, struct starpu_task *task)
{
	for (unsigned i = 0; i < STARPU_MAXIMPLEMENTATIONS; i++)
		if (combined_can_execute(cw, task, i))
			return (int) i;
	return -1;
}

void combined_push_local(const struct combined_worker *cw, struct starpu_task *task, int back)
{
	struct job *job = job_get(task);
	job->combined = cw->id;
	worker_push_local(worker_get(cw->members[0]), task, back);
}

/* ------------------------------------------------------------------ */
/* Teams. */

int team_requested(struct worker *w)
{
	return atomic_load_explicit(&w->state_block_in_parallel_req, memory_order_acquire) != NULL;
}

void team_build(struct team *t, struct worker *master, struct job *job, const struct combined_worker *cw)
{
	t->job = job;
	t->cw = cw;
	t->spmd = job->task->cl && job->task->cl->type == STARPU_SPMD;
	os_mutex_init(&t->lock);
	os_cond_init(&t->cond);
	t->go = t->failed = t->ndone = t->release = t->nleft = 0;
	master->team = t;
	master->team_rank = 0;
	for (int r = 1; r < cw->size; r++)
	{
		struct worker *x = worker_get(cw->members[r]);
		worker_lock(x);
		/* One request at a time: another master may be waiting for x
		 * (x then joins its team first, or x is a lower id of ours). */
		while (atomic_load_explicit(&x->state_block_in_parallel_req, memory_order_relaxed))
			os_cond_wait(&x->sched_cond, &x->sched_mutex);
		x->state_block_in_parallel_rank = r;
		x->state_block_in_parallel_ack = 0;
		atomic_store_explicit(&x->state_block_in_parallel_req, t, memory_order_release);
		/* Get its attention: asleep, wake it; about to sleep, keep it
		 * awake; busy, it serves the request after its task. */
		if (atomic_load_explicit(&x->status, memory_order_relaxed) == WS_SLEEPING)
			atomic_store_explicit(&x->status, WS_RUNNING, memory_order_relaxed);
		else
			x->state_keep_awake = 1;
		os_cond_broadcast(&x->sched_cond);
		/* x clears the request when it joins (acks). */
		while (atomic_load_explicit(&x->state_block_in_parallel_req, memory_order_relaxed) == t)
			os_cond_wait(&x->sched_cond, &x->sched_mutex);
		worker_unlock(x);
	}
}

void team_go(struct team *t, int failed)
{
	os_mutex_lock(&t->lock);
	t->go = 1;
	t->failed = failed;
	os_cond_broadcast(&t->cond);
	os_mutex_unlock(&t->lock);
}

void team_wait_parts(struct team *t)
{
	os_mutex_lock(&t->lock);
	while (t->ndone < t->cw->size - 1)
		os_cond_wait(&t->cond, &t->lock);
	os_mutex_unlock(&t->lock);
}

void team_release(struct team *t)
{
	os_mutex_lock(&t->lock);
	t->release = 1;
	os_cond_broadcast(&t->cond);
	/* The team lives on our stack: wait until no member touches it. */
	while (t->nleft < t->cw->size - 1)
		os_cond_wait(&t->cond, &t->lock);
	os_mutex_unlock(&t->lock);
	os_cond_destroy(&t->cond);
	os_mutex_destroy(&t->lock);
	struct worker *master = worker_get(t->cw->members[0]);
	master->team = NULL;
	master->team_rank = 0;
}

int team_serve(struct worker *w)
{
	if (!team_requested(w))
		return 0;
	os_mutex_lock(&w->sched_mutex);
	struct team *t = atomic_load_explicit(&w->state_block_in_parallel_req, memory_order_relaxed);
	if (!t)
	{
		os_mutex_unlock(&w->sched_mutex);
		return 0;
	}
	atomic_store_explicit(&w->state_block_in_parallel_req, NULL, memory_order_relaxed);
	w->state_blocked_in_parallel = 1;
	w->state_block_in_parallel_ack = 1;
	w->team_rank = w->state_block_in_parallel_rank;
	os_cond_broadcast(&w->sched_cond);
	os_mutex_unlock(&w->sched_mutex);

	os_mutex_lock(&t->lock);
	while (!t->go)
		os_cond_wait(&t->cond, &t->lock);
	int run = t->spmd && !t->failed;
	os_mutex_unlock(&t->lock);

	if (run)
	{
		struct job *job = t->job;
		struct rt_thread *ts = &w->tstate;
		w->team = t;
		w->current_task = job->task;
		ts->current_task = job->task;
		ts->in_codelet = 1;
		int ret = w->drv->execute(w, job);
		ts->in_codelet = 0;
		ts->current_task = NULL;
		w->current_task = NULL;
		w->team = NULL;
		if (ret)
			rt_error("task '%s' failed on %s (rank %d of combined worker %d) (%d)",
				 starpu_task_get_name(job->task), w->name, w->team_rank, t->cw->id, ret);
	}

	os_mutex_lock(&t->lock);
	t->ndone++;
	os_cond_broadcast(&t->cond);
	while (!t->release)
		os_cond_wait(&t->cond, &t->lock);
	os_mutex_unlock(&t->lock);

	/* Unblocked before the master terminates the task: whoever waits for
	 * the task sees the team gone. */
	os_mutex_lock(&w->sched_mutex);
	w->state_blocked_in_parallel = 0;
	os_mutex_unlock(&w->sched_mutex);
	w->team_rank = 0;

	os_mutex_lock(&t->lock);
	t->nleft++;
	os_cond_broadcast(&t->cond);
	os_mutex_unlock(&t->lock);	/* t may be gone from here on */
	return 1;
}

/* ------------------------------------------------------------------ */
/* Public API. */

unsigned starpu_combined_worker_get_count(void)
{
	return combined_count();
}

unsigned starpu_worker_is_combined_worker(int id)
{
	return combined_get(id) != NULL;
}

int starpu_combined_worker_get_description(int workerid, int *worker_size, int **combined_workerid)
{
	const struct combined_worker *cw = combined_get(workerid);
	if (!cw)
	{
		rt_error("starpu_combined_worker_get_description: %d is not a combined worker (-EINVAL)", workerid);
		return -EINVAL;
	}
	if (worker_size)
		*worker_size = cw->size;
	if (combined_workerid)
		*combined_workerid = (int *) cw->members;
	return 0;
}

int starpu_combined_worker_assign_workerid(int nworkers, int workerid_array[])
{
	if (!rt_is_up())
	{
		rt_error("starpu_combined_worker_assign_workerid: the runtime is not initialised (-ENODEV)");
		return -ENODEV;
	}
	if (nworkers < 1 || nworkers > STARPU_MAXCPUS || !workerid_array)
	{
		rt_error("starpu_combined_worker_assign_workerid: nworkers=%d must be between 1 and %d, with an array of ids (-EINVAL)",
			 nworkers, STARPU_MAXCPUS);
		return -EINVAL;
	}
	int ids[STARPU_MAXCPUS];
	for (int i = 0; i < nworkers; i++)
	{
		int id = workerid_array[i];
		if (id < 0 || (unsigned) id >= rt.nworkers || rt.workers[id].arch != STARPU_CPU_WORKER)
		{
			rt_error("starpu_combined_worker_assign_workerid: %d is not a CPU worker id (0..%u) (-EINVAL)",
				 id, rt.nworkers - 1);
			return -EINVAL;
		}
		if (rt.workers[id].app_driven)
		{
			rt_error("starpu_combined_worker_assign_workerid: worker %d is driven by the application and cannot join a team (-EINVAL)", id);
			return -EINVAL;
		}
		ids[i] = id;
	}
	qsort(ids, (size_t) nworkers, sizeof(int), cmp_int);
	for (int i = 1; i < nworkers; i++)
		if (ids[i] == ids[i - 1])
		{
			rt_error("starpu_combined_worker_assign_workerid: worker %d is listed twice (-EINVAL)", ids[i]);
			return -EINVAL;
		}
	int id = add(ids, nworkers, 0);
	if (id == -ENOSPC)
		rt_error("starpu_combined_worker_assign_workerid: there are already %d combined workers (-ENOSPC)",
			 STARPU_NMAX_COMBINEDWORKERS);
	return id;
}

int starpu_combined_worker_can_execute_task(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
	if (workerid < rt.nworkers)
		return starpu_worker_can_execute_task(workerid, task, nimpl);
	const struct combined_worker *cw = combined_get((int) workerid);
	return cw && task && combined_can_execute(cw, task, nimpl);
}

int starpu_combined_worker_get_id(void)
{
	struct worker *w = worker_self();
	if (!w)
		return -1;
	return w->team ? w->team->cw->id : w->id;
}

int starpu_combined_worker_get_size(void)
{
	struct worker *w = worker_self();
	return w && w->team ? w->team->cw->size : 1;
}

int starpu_combined_worker_get_rank(void)
{
	struct worker *w = worker_self();
	return w && w->team ? w->team_rank : 0;
}

void starpu_parallel_task_barrier_init(struct starpu_task *task, int workerid)
{
	const struct combined_worker *cw = combined_get(workerid);
	if (!task || !cw)
	{
		rt_error("starpu_parallel_task_barrier_init: %d is not a combined worker", workerid);
		return;
	}
	job_get(task)->combined = cw->id;
}

void starpu_parallel_task_barrier_init_n(struct starpu_task *task, int worker_size)
{
	(void) task;
	(void) worker_size;
}
