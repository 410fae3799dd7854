/* sched_ctx_parallel.c — running the application's own parallel code (an
 * OpenMP region, a threaded library) on the processing units of a
 * scheduling context (starpu_sched_ctx.h): which PUs the context's CPU
 * workers hold, binding a thread to one, and starpu_sched_ctx_exec_parallel_code,
 * which keeps the context's workers from running tasks while the code
 * runs on their PUs.
 *
 * The workers are held by one internal task per worker, pinned to it,
 * that waits until the code is done: a worker busy with a task finishes it
 * first, and the code starts once every worker is held. Everything goes
 * through the public task API and the OS seam, so the same code holds
 * simulated workers.
 */
#include "core/conf.h"
#include "core/rt.h"

#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>

void starpu_sched_ctx_get_available_cpuids(unsigned sched_ctx_id, int **cpuids, int *ncpuids)
{
	if (!cpuids || !ncpuids)
	{
		rt_error("starpu_sched_ctx_get_available_cpuids: %s is NULL (-EINVAL)", cpuids ? "ncpuids" : "cpuids");
		return;
	}
	*cpuids = NULL;
	*ncpuids = 0;
	int *ids = NULL;
	unsigned n = starpu_sched_ctx_get_workers_list(sched_ctx_id, &ids);
	int *out = malloc((n ? n : 1) * sizeof(*out));
	if (!out)
	{
		free(ids);
		rt_error("starpu_sched_ctx_get_available_cpuids: out of memory (-ENOMEM)");
		return;
	}
	int k = 0;
	for (unsigned i = 0; i < n; i++)
		if (starpu_worker_get_type(ids[i]) == STARPU_CPU_WORKER)
			out[k++] = starpu_worker_get_bindid(ids[i]);
	free(ids);
	*cpuids = out;	/* the caller frees it */
	*ncpuids = k;
}

void starpu_sched_ctx_bind_current_thread_to_cpuid(unsigned cpuid)
{
	if (cpuid >= topo_npus())
	{
		rt_error("starpu_sched_ctx_bind_current_thread_to_cpuid: processing unit %u does not exist (0..%u) (-EINVAL)",
			 cpuid, topo_npus() - 1);
		return;
	}
	int ret = topo_bind_self((int) cpuid);
	if (ret)
		rt_warn("starpu_sched_ctx_bind_current_thread_to_cpuid: binding to processing unit %u failed (%d)", cpuid, ret);
}

/* The workers held for one exec_parallel_code call. */
struct hold
{
	starpu_pthread_mutex_t lock;
	starpu_pthread_cond_t cond;
	int arrived;		/* workers held so far */
	int released;		/* the code is done */
	int left;		/* holding tasks past their last use of the hold */
};

static void hold_cpu(void *buffers[], void *arg)
{
	(void) buffers;
	struct hold *h = arg;
	STARPU_PTHREAD_MUTEX_LOCK(&h->lock);
	h->arrived++;
	STARPU_PTHREAD_COND_BROADCAST(&h->cond);
	while (!h->released)
		STARPU_PTHREAD_COND_WAIT(&h->cond, &h->lock);
	h->left++;
	STARPU_PTHREAD_COND_BROADCAST(&h->cond);
	STARPU_PTHREAD_MUTEX_UNLOCK(&h->lock);
}

static struct starpu_codelet hold_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { hold_cpu },
	.nbuffers = 0,
	.name = "sched_ctx_exec_parallel_code",
};

/* Binds the calling thread to the PUs of the held CPU workers; returns the
 * binding to restore (NULL: none). */
static hwloc_bitmap_t bind_to_workers(const int *ids, unsigned n)
{
	hwloc_topology_t topo = topo_hwloc();
	if (!topo || conf_nobind())
		return NULL;
	hwloc_bitmap_t old = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
	if (!old || !set || hwloc_get_cpubind(topo, old, HWLOC_CPUBIND_THREAD))
		goto fail;
	for (unsigned i = 0; i < n; i++)
	{
		hwloc_obj_t pu = topo_pu_obj(starpu_worker_get_bindid(ids[i]));
		if (pu && starpu_worker_get_type(ids[i]) == STARPU_CPU_WORKER)
			hwloc_bitmap_or(set, set, pu->cpuset);
	}
	if (hwloc_bitmap_iszero(set) || hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD))
		goto fail;
	hwloc_bitmap_free(set);
	return old;
fail:
	if (old)
		hwloc_bitmap_free(old);
	if (set)
		hwloc_bitmap_free(set);
	return NULL;
}

void *starpu_sched_ctx_exec_parallel_code(void *(*func)(void *), void *param, unsigned sched_ctx_id)
{
	const char *fn = "starpu_sched_ctx_exec_parallel_code";
	if (!func)
	{
		rt_error("%s: func is NULL (-EINVAL)", fn);
		return NULL;
	}
	if (rt_may_not_block(fn))
		return NULL;
	int *ids = NULL;
	unsigned n = starpu_sched_ctx_get_workers_list(sched_ctx_id, &ids);
	struct hold h = { .arrived = 0, .released = 0, .left = 0 };
	STARPU_PTHREAD_MUTEX_INIT(&h.lock, NULL);
	STARPU_PTHREAD_COND_INIT(&h.cond, NULL);
	int submitted = 0;
	for (unsigned i = 0; i < n; i++)
	{
		struct starpu_task *t = starpu_task_create();
		if (!t)
			break;
		t->cl = &hold_cl;
		t->cl_arg = &h;
		t->execute_on_a_specific_worker = 1;
		t->workerid = (unsigned) ids[i];
		t->priority = STARPU_MAX_PRIO;
		t->sched_ctx = sched_ctx_id;
		if (starpu_task_submit(t))
		{
			starpu_task_destroy(t);
			continue;
		}
		submitted++;
	}
	STARPU_PTHREAD_MUTEX_LOCK(&h.lock);
	while (h.arrived < submitted)
		STARPU_PTHREAD_COND_WAIT(&h.cond, &h.lock);
	STARPU_PTHREAD_MUTEX_UNLOCK(&h.lock);

	hwloc_bitmap_t old = bind_to_workers(ids, n);
	void *ret = func(param);
	if (old)
	{
		hwloc_set_cpubind(topo_hwloc(), old, HWLOC_CPUBIND_THREAD);
		hwloc_bitmap_free(old);
	}

	STARPU_PTHREAD_MUTEX_LOCK(&h.lock);
	h.released = 1;
	STARPU_PTHREAD_COND_BROADCAST(&h.cond);
	while (h.left < submitted)	/* h lives on this stack */
		STARPU_PTHREAD_COND_WAIT(&h.cond, &h.lock);
	STARPU_PTHREAD_MUTEX_UNLOCK(&h.lock);
	STARPU_PTHREAD_COND_DESTROY(&h.cond);
	STARPU_PTHREAD_MUTEX_DESTROY(&h.lock);
	free(ids);
	return ret;
}
