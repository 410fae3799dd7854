/* workers.c — the worker table, the worker query API, and the worker state
 * protocol of seed 000 (sched op, relax, wake). See workers.h for the rules.
 */
#include "core/workers.h"
#include "core/combined.h"
#include "core/conf.h"
#include "core/job.h"
#include "core/sched_ctx.h"
#include "core/sim_loader.h"
#include "data/memory.h"
#include "drivers/driver.h"
#include "sim/sim.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each on its own cache line: written by workers as they change state, read
 * by every push. */
_Alignas(64) _Atomic int rt_nidle;
_Alignas(64) _Atomic int rt_npolling;
_Alignas(64) _Atomic long long rt_poll_exec_start;
_Alignas(64) _Atomic long long rt_devices_copying_until;

void worker_device_copy_activity(int starting)
{
	long long until = (long long) os_now_us() + DEVICE_LINGER_US;
	/* Written at most once per 10% of the window: copies come from
	 * several threads, the line stays shared. */
	if (atomic_load_explicit(&rt_devices_copying_until, memory_order_relaxed) >= until - DEVICE_LINGER_US / 10)
		return;
	atomic_store_explicit(&rt_devices_copying_until, until, memory_order_relaxed);
	/* Sleeping workers poll nothing: a copy starting wakes them up to
	 * MAX_POLLERS pollers (each wake-up a system call, once per tenth
	 * of the window at most), where workers poll at all. */
	if (starting && rt.workers_poll)
		for (int k = atomic_load_explicit(&rt_npolling, memory_order_relaxed); k < MAX_POLLERS; k++)
			worker_wake_one_idle(STARPU_NMAX_SCHED_CTXS, ~WORKER_WHERE_RESTRICTED, k + 1);
}

struct worker *worker_self(void)
{
	if (rt.thread_key_backend != os_get_backend())
		return NULL;
	struct rt_thread *t = os_getspecific(rt.thread_key);
	return t ? t->worker : NULL;
}

/* ------------------------------------------------------------------ */
/* Setup. */

static void worker_init_common(struct worker *w, int id)
{
	w->id = id;
	os_mutex_init(&w->sched_mutex);
	os_cond_init(&w->sched_cond);
	atomic_store(&w->status, WS_INIT);
	starpu_task_list_init(&w->local_tasks);
	starpu_task_list_init(&w->ordered_tasks);
	w->next_order = 1;
	w->tstate.worker = w;
	w->tstate.sched_ctx = STARPU_NMAX_SCHED_CTXS;
	w->nsched_ctxs = 1;
	w->sched_ctxs[0] = GLOBAL_SCHED_CTX;
}


/* Worker order is StarPU 1.3's: device workers first (CUDA, then OpenCL),
 * then CPUs. Applications and policies written for StarPU see the same
 * worker ids on the same machine, so simulated schedules (ties go to the
 * lowest id) and traces compare one to one with StarPU's. Memory node 0
 * stays the RAM; device nodes follow in worker order. Without devices (every
 * real run today) CPU worker i is worker i, as before. */
int workers_setup(void)
{
	int ret;
	struct starpu_conf *conf = &rt.conf;
	/* The cores of the process's binding (STARPU_WORKERS_GETBIND), unless
	 * the application names the workers' PUs. */
	int getbind = 1;
	const char *gb = getenv("STARPU_WORKERS_GETBIND");
	if (gb && *gb && (ret = conf_env_flag("STARPU_WORKERS_GETBIND", &getbind)))
		return ret;
	topo_binding_update(getbind && !conf->use_explicit_workers_bindid);
	/* A process bound to one PU (mpirun --bind-to core, taskset -c N)
	 * runs every thread on that core: a worker polling there only takes
	 * the core from the threads that would give it work (the application
	 * submitting, libvela-mpi's progression thread). Measured with the
	 * StarPU-MPI stencil on 2 ranks of one core each: the worker polled
	 * through its time slices while main submitted, and took its second
	 * task 3.4 ms after it was pushed (bench/results-cluster-sim.md). */
	rt.workers_poll = !os_is_simulated() && topo_self_npus() != 1;
	struct device_spec devs[WORKERS_MAXDEVS];
	int ndevs = workers_devices_setup(conf, devs, sizeof(devs) / sizeof(devs[0]));
	if (ndevs < 0)
		return ndevs;
	/* Device workers: one per device, or several sharing it. */
	int ndevworkers = 0, devcores = 0;
	for (int d = 0; d < ndevs; d++)
	{
		ndevworkers += (int) devs[d].nworkers;
		devcores += (int) devs[d].host_cores;
	}
	unsigned ncores = topo_avail_ncores(), npus = topo_avail_npus();
	int ncpus = conf->ncpus;
	if (ncpus < 0)
	{
		/* One worker per core, less the cores of the device workers'
		 * driver threads (one per GPU worker, one per MPI slave, as
		 * StarPU reserves) and conf.reserve_ncpus. */
		int reserve = devcores + (conf->reserve_ncpus > 0 ? conf->reserve_ncpus : 0);
		ncpus = (int) ncores > reserve ? (int) ncores - reserve : 0;
	}
	if (ncpus > STARPU_MAXCPUS)
		ncpus = STARPU_MAXCPUS;
	if ((unsigned) ncpus > npus)
		rt_warn("starpu_init: %d CPU workers requested on %u processing units; workers will share them", ncpus, npus);

	unsigned nbind = conf->use_explicit_workers_bindid;
	for (unsigned i = 0; i < nbind; i++)
		if (conf->workers_bindid[i] >= topo_npus())
		{
			rt_error("starpu_init: STARPU_WORKERS_CPUID / conf.workers_bindid names processing unit %u, "
				 "but this machine has %u (0..%u)", conf->workers_bindid[i], topo_npus(), topo_npus() - 1);
			return -EINVAL;
		}

	unsigned nworkers = (unsigned) ndevworkers + (unsigned) ncpus;
	if (nworkers > STARPU_NMAXWORKERS)
	{
		rt_error("starpu_init: %d device and %d CPU workers exceed STARPU_NMAXWORKERS (%d); set STARPU_NCPU",
			 ndevworkers, ncpus, STARPU_NMAXWORKERS);
		return -EINVAL;
	}
	rt.workers = NULL;
	rt.nworkers = 0;
	rt.ncpus = (unsigned) ncpus;
	rt.worker_mask = 0;
	if (nworkers > 0)
	{
		rt.workers = aligned_alloc(64, sizeof(struct worker) * (size_t) nworkers);
		if (!rt.workers)
			return -ENOMEM;
		memset(rt.workers, 0, sizeof(struct worker) * (size_t) nworkers);
	}
	rt.nworkers = nworkers;

	int id = 0;
	for (int d = 0; d < ndevs; d++)
		for (unsigned r = 0; r < devs[d].nworkers; r++, id++)
		{
			struct worker *w = &rt.workers[id];
			worker_init_common(w, id);
			w->arch = devs[d].arch;
			w->devid = devs[d].devid;
			w->device_rank = r;
			w->memory_node = devs[d].node;
			w->drv = devs[d].drv;
			w->bindid = -1;
			const char *kind = w->arch == STARPU_CUDA_WORKER ? "CUDA" : w->arch == STARPU_OPENCL_WORKER ? "OpenCL" : "MPI_MS";
			/* Real devices say which device they drive, as StarPU's
			 * names do; workers sharing a device are numbered. */
			char num[8];
			if (devs[d].nworkers > 1)
				snprintf(num, sizeof(num), "%d.%u", w->devid % 100, r % 100);
			else
				snprintf(num, sizeof(num), "%d", w->devid % 1000);
			if (devs[d].devname[0])
				snprintf(w->name, sizeof(w->name), "%s %s (%.40s)", kind, num, devs[d].devname);
			else
				snprintf(w->name, sizeof(w->name), "%s %s", kind, num);
			snprintf(w->short_name, sizeof(w->short_name), "%s%s", kind, num);
			rt.worker_mask |= worker_arch_mask(w->arch);
			if (devs[d].kind && (ret = drv_pipeline_init(w, devs[d].kind)))
			{
				for (int k = 0; k <= id; k++)
					drv_pipeline_fini(&rt.workers[k]);
				free(rt.workers);
				rt.workers = NULL;
				rt.nworkers = 0;
				return ret;
			}
		}
	for (int i = 0; i < ncpus; i++)
	{
		struct worker *w = &rt.workers[ndevworkers + i];
		worker_init_common(w, ndevworkers + i);
		w->arch = STARPU_CPU_WORKER;
		w->devid = i;
		w->memory_node = STARPU_MAIN_RAM;
		w->drv = sim_running() ? sim_cpu_driver() : &drv_cpu_ops;
		if (nbind)
			w->bindid = (int) conf->workers_bindid[i % nbind];
		else
			w->bindid = topo_avail_core_first_pu((unsigned) i);
		snprintf(w->name, sizeof(w->name), "CPU %d", i);
		snprintf(w->short_name, sizeof(w->short_name), "CPU%d", i);
		rt.worker_mask |= STARPU_CPU;
	}

	for (unsigned d = 0; d < conf->n_not_launched_drivers; d++)
	{
		struct starpu_driver *drv = &conf->not_launched_drivers[d];
		int wid = drv->type == STARPU_CPU_WORKER || drv->type == STARPU_CUDA_WORKER
			? starpu_worker_get_by_devid(drv->type, (int) drv->id.cpu_id) : -1;
		if (wid < 0)
		{
			rt_error("starpu_init: conf.not_launched_drivers[%u] names %s worker %u, which does not exist",
				 d, starpu_worker_get_type_as_string(drv->type), drv->id.cpu_id);
			workers_teardown();
			return -EINVAL;
		}
		rt.workers[wid].app_driven = 1;
	}

	atomic_store(&rt_nidle, 0);
	atomic_store(&rt_npolling, 0);
	atomic_store(&rt_poll_exec_start, 0);
	return 0;
}

void workers_teardown(void)
{
	for (unsigned i = 0; i < rt.nworkers; i++)
	{
		struct worker *w = &rt.workers[i];
		drv_pipeline_fini(w);
		os_cond_destroy(&w->sched_cond);
		os_mutex_destroy(&w->sched_mutex);
	}
	free(rt.workers);
	rt.workers = NULL;
	rt.nworkers = 0;
	rt.ncpus = 0;
	rt.worker_mask = 0;
	/* The devices' memory nodes go with the others
	 * (memory_nodes_teardown). */
}

/* ------------------------------------------------------------------ */
/* Seed 000 state protocol. */

/* Entering and leaving cost two atomic operations when no context change
 * is pending: the worker publishes state_sched_op_pending, then reads the
 * notice; a changer publishes the notice, then reads the flag (both
 * sequentially consistent, so at least one sees the other). */
void worker_enter_sched_op(struct worker *w)
{
	atomic_store_explicit(&w->state_sched_op_pending, 1, memory_order_seq_cst);
	if (!atomic_load_explicit(&w->state_changing_ctx_notice, memory_order_seq_cst))
		return;
	/* A change is pending: step back and wait for it to end. */
	os_mutex_lock(&w->sched_mutex);
	atomic_store_explicit(&w->state_sched_op_pending, 0, memory_order_seq_cst);
	os_cond_broadcast(&w->sched_cond);
	while (atomic_load_explicit(&w->state_changing_ctx_notice, memory_order_acquire))
		os_cond_wait(&w->sched_cond, &w->sched_mutex);
	atomic_store_explicit(&w->state_sched_op_pending, 1, memory_order_seq_cst);
	os_mutex_unlock(&w->sched_mutex);
}

void worker_leave_sched_op(struct worker *w)
{
	atomic_store_explicit(&w->state_sched_op_pending, 0, memory_order_seq_cst);
	/* A waiter sets state_changing_ctx_waiting before it reads our flag,
	 * and sleeps under sched_mutex: lock it to wake the waiter. */
	if (atomic_load_explicit(&w->state_changing_ctx_waiting, memory_order_seq_cst))
	{
		os_mutex_lock(&w->sched_mutex);
		atomic_store_explicit(&w->state_changing_ctx_waiting, 0, memory_order_relaxed);
		os_cond_broadcast(&w->sched_cond);
		os_mutex_unlock(&w->sched_mutex);
	}
}

void worker_ctx_notice_begin(struct worker *w)
{
	os_mutex_lock(&w->sched_mutex);
	atomic_store_explicit(&w->state_changing_ctx_notice, 1, memory_order_seq_cst);
	for (;;)
	{
		atomic_store_explicit(&w->state_changing_ctx_waiting, 1, memory_order_seq_cst);
		if (!atomic_load_explicit(&w->state_sched_op_pending, memory_order_seq_cst))
			break;
		os_cond_wait(&w->sched_cond, &w->sched_mutex);
	}
	os_mutex_unlock(&w->sched_mutex);
}

void worker_ctx_notice_end(struct worker *w)
{
	os_mutex_lock(&w->sched_mutex);
	atomic_store_explicit(&w->state_changing_ctx_notice, 0, memory_order_release);
	os_cond_broadcast(&w->sched_cond);
	os_mutex_unlock(&w->sched_mutex);
}

void worker_relax_on_locked(struct worker *w)
{
	w->state_relax_refcnt++;
	os_cond_broadcast(&w->sched_cond);
}

void worker_relax_off_locked(struct worker *w)
{
	w->state_relax_refcnt--;
}

void worker_lock(struct worker *w)
{
	os_mutex_lock(&w->sched_mutex);
	if (worker_self() == w)
		return;
	for (;;)
	{
		atomic_store_explicit(&w->state_changing_ctx_waiting, 1, memory_order_seq_cst);
		if (!atomic_load_explicit(&w->state_sched_op_pending, memory_order_seq_cst) || w->state_relax_refcnt)
			break;
		os_cond_wait(&w->sched_cond, &w->sched_mutex);
	}
}

void worker_unlock(struct worker *w)
{
	os_mutex_unlock(&w->sched_mutex);
}

int worker_wake(struct worker *w)
{
	/* A running worker needs nothing: before sleeping it announces itself
	 * and looks for work once more, under the lock of the queue the work
	 * was pushed to, so it will see it. */
	int st = atomic_load_explicit(&w->status, memory_order_acquire);
	if (st != WS_SLEEPING && st != WS_SLEEP_PENDING)
		return 0;
	int woken = 0;
	os_mutex_lock(&w->sched_mutex);
	st = atomic_load_explicit(&w->status, memory_order_relaxed);
	if (st == WS_SLEEPING)
	{
		atomic_store_explicit(&w->status, WS_RUNNING, memory_order_relaxed);
		os_cond_broadcast(&w->sched_cond);
		woken = 1;
	}
	else if (st == WS_SLEEP_PENDING && !w->state_keep_awake)
	{
		w->state_keep_awake = 1;
		woken = 1;
	}
	os_mutex_unlock(&w->sched_mutex);
	return woken;
}


uint32_t worker_task_where(const struct starpu_task *task)
{
	if (!task->cl)
		return ~WORKER_WHERE_RESTRICTED;
	uint32_t where = task->cl->where;
	if (task->where != -1)
		where &= (uint32_t) task->where;
	if (task->workerids_len && !task->execute_on_a_specific_worker)
		where |= WORKER_WHERE_RESTRICTED;
	return where;
}

/* Whether polling workers among ids[0..n) (NULL: every worker) that can
 * run work for where will take backlog tasks: those polling, plus one that
 * runs the task its polling found, for POLL_GRACE_US. The global counters
 * answer when the candidates are every worker; otherwise the members'
 * own flags do (a poller outside the context would never look at its
 * queues). */
static int pollers_cover(const int *ids, unsigned n, uint32_t where, int backlog)
{
	int npolling = atomic_load_explicit(&rt_npolling, memory_order_relaxed);
	long long t0 = atomic_load_explicit(&rt_poll_exec_start, memory_order_relaxed);
	if (npolling == 0 && t0 == 0)
		return 0;
	if (!ids || (n == rt.nworkers && (where & rt.worker_mask) == rt.worker_mask))
	{
		if (backlog <= npolling)
			return 1;
		return t0 && backlog <= npolling + 1 && (long long) os_now_us() - t0 < POLL_GRACE_US;
	}
	int polling = 0, returning = 0;
	for (unsigned k = 0; k < n; k++)
	{
		struct worker *w = &rt.workers[ids[k]];
		if (!(where & worker_arch_mask(w->arch)))
			continue;
		if (atomic_load_explicit(&w->polling, memory_order_relaxed))
			polling++;
		else if ((t0 = atomic_load_explicit(&w->poll_exec_start, memory_order_relaxed)) != 0 &&
			 (long long) os_now_us() - t0 < POLL_GRACE_US)
			returning = 1;
	}
	return backlog <= polling || (returning && backlog <= polling + 1);
}

void worker_wake_one_idle(unsigned ctx_id, uint32_t where, int backlog)
{
	/* Pairs with the fence of a worker between announcing itself idle (or
	 * stopping to poll) and looking at the queues: either it sees the work
	 * pushed before this fence, or the loads below see it idle. */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&rt_nidle, memory_order_relaxed) == 0)
		return;
	const int *ids = NULL;
	unsigned n = rt.nworkers;
	if (ctx_id < STARPU_NMAX_SCHED_CTXS)
	{
		struct sched_ctx *ctx = sched_ctx_get(ctx_id);
		n = ctx->nworkers;
		ids = ctx->workerids;
	}
	int restricted = (where & WORKER_WHERE_RESTRICTED) != 0;
	if (!restricted && pollers_cover(ids, n, where, backlog))
		return;
	static _Atomic unsigned rr;
	unsigned start = atomic_fetch_add_explicit(&rr, 1, memory_order_relaxed);
	for (unsigned k = 0; k < n; k++)
	{
		struct worker *w = &rt.workers[ids ? ids[(start + k) % n] : (start + k) % n];
		int st = atomic_load_explicit(&w->status, memory_order_acquire);
		if (st != WS_SLEEPING && st != WS_SLEEP_PENDING)
			continue;
		if (!(where & worker_arch_mask(w->arch)))
			continue;
		if (worker_wake(w) && !restricted)
			return;
	}
}

void worker_wake_all(void)
{
	for (unsigned i = 0; i < rt.nworkers; i++)
		worker_wake(&rt.workers[i]);
}

/* ------------------------------------------------------------------ */
/* Local queue: tasks for this worker only, highest priority first,
 * submission order among equals. */

/* Queues task among w's ordered tasks (sched_mutex held); returns 0, or -1
 * if its order is taken or past (it then goes to the local queue). */
static int push_ordered_locked(struct worker *w, struct starpu_task *task)
{
	unsigned order = task->workerorder;
	if (order < w->next_order)
		return -1;
	struct starpu_task *pos = w->ordered_tasks.tail;
	while (pos && pos->workerorder > order)
		pos = pos->prev;
	if (pos && pos->workerorder == order)
		return -1;
	if (!pos)
		starpu_task_list_push_front(&w->ordered_tasks, task);
	else if (pos == w->ordered_tasks.tail)
		starpu_task_list_push_back(&w->ordered_tasks, task);
	else
	{
		task->prev = pos;
		task->next = pos->next;
		pos->next->prev = task;
		pos->next = task;
	}
	return 0;
}

void worker_push_local(struct worker *w, struct starpu_task *task, int back)
{
	os_mutex_lock(&w->sched_mutex);
	if (task->workerorder && task->execute_on_a_specific_worker)
	{
		unsigned order = task->workerorder, next = w->next_order;
		if (push_ordered_locked(w, task) == 0)
		{
			atomic_fetch_add(&w->nlocal_tasks, 1);
			os_mutex_unlock(&w->sched_mutex);
			if (order == next)
				worker_wake(w);
			return;
		}
		os_mutex_unlock(&w->sched_mutex);
		rt_error("task '%s': worker %d already ran or holds a task of order %u (task->workerorder, STARPU_WORKER_ORDER); "
			 "running it without order", starpu_task_get_name(task), w->id, order);
		os_mutex_lock(&w->sched_mutex);
	}
	/* Insert after the last task of at least the same priority, searching
	 * from the tail: tasks of equal priority (the common case) append in
	 * O(1). Searching from the head made each push walk the whole queue,
	 * under the lock the worker needs to pop: a pusher that got ahead
	 * stayed ahead, at tens of µs per task. */
	struct starpu_task *pos = w->local_tasks.tail;
	if (!back)
		while (pos && pos->priority < task->priority)
			pos = pos->prev;
	if (pos == w->local_tasks.tail)
		starpu_task_list_push_back(&w->local_tasks, task);
	else if (!pos)
		starpu_task_list_push_front(&w->local_tasks, task);
	else
	{
		task->prev = pos;
		task->next = pos->next;
		pos->next->prev = task;
		pos->next = task;
	}
	atomic_fetch_add(&w->nlocal_tasks, 1);
	os_mutex_unlock(&w->sched_mutex);
	worker_wake(w);
}

struct starpu_task *worker_pop_local(struct worker *w)
{
	if (atomic_load_explicit(&w->nlocal_tasks, memory_order_relaxed) == 0)
		return NULL;
	os_mutex_lock(&w->sched_mutex);
	struct starpu_task *t = starpu_task_list_front(&w->ordered_tasks);
	if (t && t->workerorder == w->next_order)
	{
		starpu_task_list_erase(&w->ordered_tasks, t);
		w->next_order++;
	}
	else
		t = starpu_task_list_pop_front(&w->local_tasks);
	if (t)
		atomic_fetch_sub(&w->nlocal_tasks, 1);
	os_mutex_unlock(&w->sched_mutex);
	return t;
}

/* ------------------------------------------------------------------ */
/* Which worker can run what. */

uint32_t worker_arch_mask(enum starpu_worker_archtype arch)
{
	switch (arch)
	{
	case STARPU_CPU_WORKER: return STARPU_CPU;
	case STARPU_CUDA_WORKER: return STARPU_CUDA;
	case STARPU_OPENCL_WORKER: return STARPU_OPENCL;
	case STARPU_MIC_WORKER: return STARPU_MIC;
	case STARPU_MPI_MS_WORKER: return STARPU_MPI_MS;
	default: return 0;
	}
}

static inline int impl_exists(const struct starpu_codelet *cl, enum starpu_worker_archtype arch, unsigned nimpl)
{
	switch (arch)
	{
	case STARPU_CPU_WORKER:
		return cl->cpu_funcs[nimpl] != NULL || cl->cpu_funcs_name[nimpl] != NULL;
	case STARPU_CUDA_WORKER:
		return cl->cuda_funcs[nimpl] != NULL;
	case STARPU_OPENCL_WORKER:
		return cl->opencl_funcs[nimpl] != NULL;
	case STARPU_MPI_MS_WORKER:
		/* A slave finds its kernel by name. */
		return cl->cpu_funcs_name[nimpl] != NULL || cl->mpi_ms_funcs[nimpl] != NULL;
	default:
		return 0;
	}
}

/* Whether w may run task at all, whatever the implementation: the checks
 * of worker_can_execute that do not depend on it. */
static inline int worker_may_run(struct worker *w, struct starpu_task *task)
{
	struct starpu_codelet *cl = task->cl;
	if (!__atomic_load_n(&cl->checked, __ATOMIC_ACQUIRE))
		task_codelet_check(cl);	/* a policy asking about an unsubmitted task */
	uint32_t where = cl->where;
	if (task->where != -1)
		where &= (uint32_t) task->where;
	if (!(where & worker_arch_mask(w->arch)))
		return 0;
	if (task->execute_on_a_specific_worker && task->workerid != (unsigned) w->id)
		return 0;
	return worker_task_allowed(task, (unsigned) w->id);
}

/* Whether w may run implementation nimpl of task, once worker_may_run. */
static inline int worker_impl_ok(struct worker *w, struct starpu_task *task, unsigned nimpl)
{
	struct starpu_codelet *cl = task->cl;
	if (nimpl >= STARPU_MAXIMPLEMENTATIONS || !impl_exists(cl, w->arch, nimpl))
		return 0;
	return !cl->can_execute || cl->can_execute((unsigned) w->id, task, nimpl);
}

int worker_can_execute(struct worker *w, struct starpu_task *task, unsigned nimpl)
{
	if (!task->cl)
		return 1;
	return worker_may_run(w, task) && worker_impl_ok(w, task, nimpl);
}

int worker_first_impl(struct worker *w, struct starpu_task *task)
{
	if (!task->cl)
		return 0;
	if (!worker_may_run(w, task))
		return -1;
	for (unsigned i = 0; i < STARPU_MAXIMPLEMENTATIONS; i++)
		if (worker_impl_ok(w, task, i))
			return (int) i;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Public query API. */

static int valid_id(int id)
{
	return id >= 0 && (unsigned) id < rt.nworkers;
}

unsigned starpu_worker_get_count(void)
{
	return rt.nworkers;
}

unsigned starpu_cpu_worker_get_count(void)
{
	return rt.ncpus;
}

unsigned starpu_cuda_worker_get_count(void)
{
	return (unsigned) starpu_worker_get_count_by_type(STARPU_CUDA_WORKER);
}

unsigned starpu_opencl_worker_get_count(void)
{
	return (unsigned) starpu_worker_get_count_by_type(STARPU_OPENCL_WORKER);
}

unsigned starpu_mic_worker_get_count(void)
{
	return 0;
}

unsigned starpu_mpi_ms_worker_get_count(void)
{
	return (unsigned) starpu_worker_get_count_by_type(STARPU_MPI_MS_WORKER);
}

int starpu_worker_get_id(void)
{
	struct worker *w = worker_self();
	return w ? w->id : -1;
}

unsigned vela_worker_get_id_check(const char *f, int l)
{
	int id = starpu_worker_get_id();
	if (id < 0)
	{
		rt_error("%s:%d: starpu_worker_get_id_check() called outside a worker", f, l);
		abort();
	}
	return (unsigned) id;
}

int starpu_worker_get_bindid(int workerid)
{
	return valid_id(workerid) ? rt.workers[workerid].bindid : -1;
}

enum starpu_worker_archtype starpu_worker_get_type(int id)
{
	return valid_id(id) ? rt.workers[id].arch : STARPU_ANY_WORKER;
}

int starpu_worker_get_count_by_type(enum starpu_worker_archtype type)
{
	if (type == STARPU_ANY_WORKER)
		return (int) rt.nworkers;
	int n = 0;
	for (unsigned i = 0; i < rt.nworkers; i++)
		n += rt.workers[i].arch == type;
	return n;
}

unsigned starpu_worker_get_ids_by_type(enum starpu_worker_archtype type, int *workerids, unsigned maxsize)
{
	unsigned n = 0;
	for (unsigned i = 0; i < rt.nworkers; i++)
		if (type == STARPU_ANY_WORKER || rt.workers[i].arch == type)
		{
			/* As in StarPU: an array too small is -ERANGE, through the
			 * unsigned result. */
			if (n == maxsize)
				return (unsigned) -ERANGE;
			workerids[n++] = (int) i;
		}
	return n;
}

int starpu_worker_get_by_type(enum starpu_worker_archtype type, int num)
{
	int n = 0;
	for (unsigned i = 0; i < rt.nworkers; i++)
		if (type == STARPU_ANY_WORKER || rt.workers[i].arch == type)
		{
			if (n == num)
				return (int) i;
			n++;
		}
	return -1;
}

int starpu_worker_get_by_devid(enum starpu_worker_archtype type, int devid)
{
	for (unsigned i = 0; i < rt.nworkers; i++)
		if (rt.workers[i].arch == type && rt.workers[i].devid == devid)
			return (int) i;
	return -1;
}

void starpu_worker_get_name(int id, char *dst, size_t maxlen)
{
	if (!maxlen)
		return;
	if (!valid_id(id))
	{
		rt_error("starpu_worker_get_name: worker %d does not exist (%u workers)", id, rt.nworkers);
		snprintf(dst, maxlen, "(no worker %d)", id);
		return;
	}
	snprintf(dst, maxlen, "%s", rt.workers[id].name);
}

void starpu_worker_display_names(FILE *output, enum starpu_worker_archtype type)
{
	int n = starpu_worker_get_count_by_type(type);
	if (n == 0)
	{
		fprintf(output, "No %s worker\n", starpu_worker_get_type_as_string(type));
		return;
	}
	for (unsigned i = 0; i < rt.nworkers; i++)
		if (type == STARPU_ANY_WORKER || rt.workers[i].arch == type)
			fprintf(output, "\t%s\n", rt.workers[i].name);
}

int starpu_worker_get_devid(int id)
{
	return valid_id(id) ? rt.workers[id].devid : -1;
}

char *starpu_worker_get_type_as_string(enum starpu_worker_archtype type)
{
	switch (type)
	{
	case STARPU_CPU_WORKER: return "STARPU_CPU_WORKER";
	case STARPU_CUDA_WORKER: return "STARPU_CUDA_WORKER";
	case STARPU_OPENCL_WORKER: return "STARPU_OPENCL_WORKER";
	case STARPU_MIC_WORKER: return "STARPU_MIC_WORKER";
	case STARPU_MPI_MS_WORKER: return "STARPU_MPI_MS_WORKER";
	case STARPU_ANY_WORKER: return "STARPU_ANY_WORKER";
	}
	return "STARPU_unknown_WORKER";
}

unsigned starpu_worker_is_blocked_in_parallel(int workerid)
{
	if (!valid_id(workerid))
		return 0;
	struct worker *w = &rt.workers[workerid];
	worker_lock(w);
	unsigned blocked = w->state_blocked_in_parallel != 0;
	/* Taint it: the state may change as soon as we unlock (seed 000). */
	w->state_blocked_in_parallel_observed = 1;
	worker_unlock(w);
	return blocked;
}

unsigned starpu_worker_is_slave_somewhere(int workerid)
{
	(void) workerid;
	return 0;
}

void *worker_hwloc_obj(const struct worker *w)
{
	return topo_pu_obj(w->bindid);
}

hwloc_cpuset_t starpu_worker_get_hwloc_cpuset(int workerid)
{
	hwloc_obj_t pu = valid_id(workerid) ? worker_hwloc_obj(&rt.workers[workerid]) : NULL;
	return pu ? hwloc_bitmap_dup(pu->cpuset) : NULL;
}

hwloc_obj_t starpu_worker_get_hwloc_obj(int workerid)
{
	return valid_id(workerid) ? worker_hwloc_obj(&rt.workers[workerid]) : NULL;
}

unsigned starpu_worker_get_local_memory_node(void)
{
	struct worker *w = worker_self();
	return w ? w->memory_node : STARPU_MAIN_RAM;
}

unsigned starpu_worker_get_memory_node(unsigned workerid)
{
	return workerid < rt.nworkers ? rt.workers[workerid].memory_node : STARPU_MAIN_RAM;
}

int starpu_worker_sched_op_pending(void)
{
	struct worker *w = worker_self();
	return w ? w->state_sched_op_pending : 0;
}

void starpu_worker_relax_on(void)
{
	struct worker *w = worker_self();
	if (!w)
		return;
	os_mutex_lock(&w->sched_mutex);
	worker_relax_on_locked(w);
	os_mutex_unlock(&w->sched_mutex);
}

void starpu_worker_relax_off(void)
{
	struct worker *w = worker_self();
	if (!w)
		return;
	os_mutex_lock(&w->sched_mutex);
	worker_relax_off_locked(w);
	os_mutex_unlock(&w->sched_mutex);
}

int starpu_worker_get_relax_state(void)
{
	struct worker *w = worker_self();
	return w ? w->state_relax_refcnt != 0 : 1;
}

void starpu_worker_lock(int workerid)
{
	if (valid_id(workerid))
		worker_lock(&rt.workers[workerid]);
}

int starpu_worker_trylock(int workerid)
{
	if (!valid_id(workerid))
		return EINVAL;
	struct worker *w = &rt.workers[workerid];
	int ret = os_mutex_trylock(&w->sched_mutex);
	if (ret)
		return ret;
	if (worker_self() != w && w->state_sched_op_pending && w->state_relax_refcnt == 0)
	{
		os_mutex_unlock(&w->sched_mutex);
		return EBUSY;
	}
	return 0;
}

void starpu_worker_unlock(int workerid)
{
	if (valid_id(workerid))
		worker_unlock(&rt.workers[workerid]);
}

void starpu_worker_lock_self(void)
{
	struct worker *w = worker_self();
	if (w)
		os_mutex_lock(&w->sched_mutex);
}

void starpu_worker_unlock_self(void)
{
	struct worker *w = worker_self();
	if (w)
		os_mutex_unlock(&w->sched_mutex);
}

void starpu_worker_get_sched_condition(int workerid, starpu_pthread_mutex_t **sched_mutex, starpu_pthread_cond_t **sched_cond)
{
	if (!valid_id(workerid))
	{
		*sched_mutex = NULL;
		*sched_cond = NULL;
		return;
	}
	*sched_mutex = &rt.workers[workerid].sched_mutex;
	*sched_cond = &rt.workers[workerid].sched_cond;
}

int starpu_wake_worker_relax_light(int workerid)
{
	return valid_id(workerid) ? worker_wake(&rt.workers[workerid]) : 0;
}

int starpu_wake_worker_relax(int workerid)
{
	return starpu_wake_worker_relax_light(workerid);
}

int starpu_wake_worker_no_relax(int workerid)
{
	return starpu_wake_worker_relax_light(workerid);
}

/* The caller holds the worker's sched_mutex. */
int starpu_wake_worker_locked(int workerid)
{
	if (!valid_id(workerid))
		return 0;
	struct worker *w = &rt.workers[workerid];
	int st = atomic_load_explicit(&w->status, memory_order_relaxed);
	if (st == WS_SLEEPING)
	{
		atomic_store_explicit(&w->status, WS_RUNNING, memory_order_relaxed);
		os_cond_broadcast(&w->sched_cond);
		return 1;
	}
	w->state_keep_awake = 1;
	return st == WS_SLEEP_PENDING;
}

int starpu_worker_can_execute_task(unsigned workerid, struct starpu_task *task, unsigned nimpl)
{
	const struct combined_worker *cw = combined_get((int) workerid);
	if (cw)
		return combined_can_execute(cw, task, nimpl);
	return workerid < rt.nworkers && worker_can_execute(&rt.workers[workerid], task, nimpl);
}

int starpu_worker_can_execute_task_impl(unsigned workerid, struct starpu_task *task, unsigned *impl_mask)
{
	if (workerid >= rt.nworkers)
		return 0;
	unsigned mask = 0;
	struct worker *w = &rt.workers[workerid];
	if (!task->cl)
		mask = 1;
	else if (worker_may_run(w, task))
		for (unsigned i = 0; i < STARPU_MAXIMPLEMENTATIONS; i++)
			if (worker_impl_ok(w, task, i))
				mask |= 1u << i;
	if (impl_mask)
		*impl_mask = mask;
	return mask != 0;
}

int starpu_worker_can_execute_task_first_impl(unsigned workerid, struct starpu_task *task, unsigned *nimpl)
{
	if (workerid >= rt.nworkers)
		return 0;
	int impl = worker_first_impl(&rt.workers[workerid], task);
	if (impl < 0)
		return 0;
	if (nimpl)
		*nimpl = (unsigned) impl;
	return 1;
}

int starpu_push_local_task(int workerid, struct starpu_task *task, int back)
{
	const struct combined_worker *cw = combined_get(workerid);
	if (cw)
	{
		combined_push_local(cw, task, back);
		return 0;
	}
	if (!valid_id(workerid))
	{
		rt_error("starpu_push_local_task: no worker or combined worker %d", workerid);
		return -EINVAL;
	}
	struct job *job = job_of(task);
	if (job)
		job->combined = 0;
	worker_push_local(&rt.workers[workerid], task, back);
	return 0;
}

void starpu_display_bindings(void)
{
	for (unsigned i = 0; i < rt.nworkers; i++)
		printf("%s\tbound to PU %d (OS index %d)\n", rt.workers[i].name, rt.workers[i].bindid,
		       starpu_get_pu_os_index((unsigned) rt.workers[i].bindid));
}

void starpu_topology_print(FILE *f)
{
	fprintf(f, "%u cores, %u processing units\n", topo_ncores(), topo_npus());
	for (unsigned i = 0; i < rt.nworkers; i++)
		fprintf(f, "worker %u: %s, PU %d, memory node %u%s\n", i, rt.workers[i].name, rt.workers[i].bindid,
			rt.workers[i].memory_node, rt.workers[i].app_driven ? " (driven by the application)" : "");
}
