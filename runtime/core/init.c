/* init.c — starting and stopping the runtime.
 *
 * starpu_init: resolve the configuration (conf + environment), discover the
 * machine, create memory nodes, workers and the scheduling policy, start the
 * worker threads. starpu_shutdown: wait for the ready tasks, stop the workers
 * and free everything, so that starpu_init can run again in the same
 * process. Nested init/shutdown pairs are counted as in StarPU.
 *
 * Init steps unwind in reverse order on failure (goto fail_*).
 */
#include "core/conf.h"
#include "core/combined.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/sched_ctx.h"
#include "core/sim_loader.h"
#include "core/tags.h"
#include "core/workers.h"
#include "data/data.h"
#include "data/memory.h"
#include "drivers/driver.h"
#include "perfmodel/perfmodel.h"
#include "sched/sched.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Serialises init and shutdown; a leaf lock. */
static os_mutex_t init_mutex = OS_MUTEX_INITIALIZER;
static os_cond_t init_cond = OS_COND_INITIALIZER;
static int init_count;

static void reset_counters(void)
{
	atomic_store(&rt.nsubmitted, 0);
	atomic_store(&rt.nready, 0);
	atomic_store(&rt.nwaiters, 0);
	atomic_store(&rt.wait_threshold, -1);
	atomic_store(&rt.drivers_termination_requested, 0);
	atomic_store(&rt.pause_depth, 0);
	failures_reset();
}

int starpu_initialize(struct starpu_conf *user_conf, int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	int ret;

	/* Simulation switches the OS backend: before any lock is taken. */
	if ((ret = sim_start(user_conf)))
		return ret;
	os_mutex_lock(&init_mutex);
	if (atomic_load(&rt.state) == RT_UP)
	{
		init_count++;
		os_mutex_unlock(&init_mutex);
		return 0;
	}
	atomic_store(&rt.state, RT_STARTING);

	if ((ret = conf_resolve(&rt.conf, user_conf)) || (ret = watchdog_conf()))
		goto fail_conf;
	/* Device kinds whose devices are processes (MPI slaves) decide here,
	 * once per process, what this one is; a slave never comes back. */
	if ((ret = drv_devices_boot(&rt.conf)))
		goto fail_conf;
	os_mutex_init(&rt.pause_mutex);
	os_cond_init(&rt.pause_cond);
	os_mutex_init(&rt.submit_mutex);
	os_cond_init(&rt.submit_cond);
	reset_counters();
	(void) rt_thread();	/* creates the per-thread key for this backend */

	if ((ret = topo_load()))
		goto fail_conf;
	if ((ret = memory_nodes_setup()))
		goto fail_conf;
	/* Workers add their devices' memory nodes, right after RAM (node 0);
	 * the swap disk comes after them, as StarPU numbers nodes. */
	if ((ret = workers_setup()))
		goto fail_nodes;
	if ((ret = mem_swap_setup()))
		goto fail_workers;
	if ((ret = data_requests_start()))
		goto fail_workers;
	if (rt.nworkers == 0)
	{
		rt_error("starpu_init: no worker to run tasks (STARPU_NCPU=0 or conf.ncpus=0, and no device) (-ENODEV)");
		ret = -ENODEV;
		goto fail_workers;
	}
	/* Performance models: worker archs, settings, and the bus model
	 * (calibrated here, before any worker runs, the first time). */
	if ((ret = pm_init()))
		goto fail_workers;
	/* Combined workers need the perfmodel archs (their own is one more). */
	if ((ret = combined_setup()))
		goto fail_perfmodel;
	if ((ret = sched_setup()))
		goto fail_perfmodel;

	trace_init();	/* observers: profiling and trace recording, per the environment */
	atomic_store(&rt.running, 1);
	drv_reset_start_count();
	unsigned launched = 0;
	for (unsigned i = 0; i < rt.nworkers; i++)
	{
		struct worker *w = &rt.workers[i];
		if (w->app_driven)
			continue;
		struct os_thread_attr attr = { .name = w->short_name, .host = sim_worker_host(w) };
		if ((ret = os_thread_create(&w->thread, &attr, drv_worker_thread, w)))
		{
			rt_error("starpu_init: cannot start the thread of %s (%d)", w->name, ret);
			ret = -ret;
			goto fail_threads;
		}
		w->thread_started = 1;
		launched++;
	}
	drv_wait_started(launched);
	if ((ret = watchdog_start()))
		goto fail_threads;

	init_count = 1;
	atomic_store(&rt.state, RT_UP);
	os_cond_broadcast(&init_cond);
	os_mutex_unlock(&init_mutex);
	return 0;

fail_threads:
	atomic_store(&rt.running, 0);
	worker_wake_all();
	for (unsigned i = 0; i < rt.nworkers; i++)
		if (rt.workers[i].thread_started)
			os_thread_join(rt.workers[i].thread, NULL);
	trace_shutdown();
	sched_teardown();
fail_perfmodel:
	combined_teardown();
	pm_shutdown();
fail_workers:
	workers_teardown();
fail_nodes:
	memory_nodes_teardown();
	workers_devices_teardown();
fail_conf:
	atomic_store(&rt.state, RT_DOWN);
	os_mutex_unlock(&init_mutex);
	return ret;
}

int starpu_init(struct starpu_conf *conf)
{
	return starpu_initialize(conf, NULL, NULL);
}

int starpu_is_initialized(void)
{
	return rt_is_up();
}

void starpu_wait_initialized(void)
{
	os_mutex_lock(&init_mutex);
	while (!rt_is_up())
		os_cond_wait(&init_cond, &init_mutex);
	os_mutex_unlock(&init_mutex);
}

void starpu_shutdown(void)
{
	if (rt_may_not_block("starpu_shutdown"))
		return;
	os_mutex_lock(&init_mutex);
	if (atomic_load(&rt.state) != RT_UP)
	{
		os_mutex_unlock(&init_mutex);
		rt_error("starpu_shutdown: the runtime is not initialised");
		return;
	}
	if (--init_count > 0)
	{
		os_mutex_unlock(&init_mutex);
		return;
	}

	os_mutex_lock(&rt.pause_mutex);
	int was_paused = atomic_load(&rt.pause_depth) > 0;
	atomic_store(&rt.pause_depth, 0);
	os_cond_broadcast(&rt.pause_cond);
	os_mutex_unlock(&rt.pause_mutex);
	if (was_paused)
		rt_warn("starpu_shutdown: the runtime was paused; resuming it to let the ready tasks finish");

	starpu_task_wait_for_no_ready();
	long left = atomic_load(&rt.nsubmitted);
	if (left > 0)
		rt_warn("starpu_shutdown: %ld submitted task(s) never became ready (unmet tag, task or data dependencies); they are dropped", left);

	atomic_store(&rt.state, RT_STOPPING);
	atomic_store(&rt.running, 0);
	worker_wake_all();
	os_mutex_lock(&rt.pause_mutex);
	os_cond_broadcast(&rt.pause_cond);
	os_mutex_unlock(&rt.pause_mutex);
	for (unsigned i = 0; i < rt.nworkers; i++)
		if (rt.workers[i].thread_started)
		{
			os_thread_join(rt.workers[i].thread, NULL);
			rt.workers[i].thread_started = 0;
		}

	watchdog_stop();
	failures_report();
	/* Calibration results go to the model files once no kernel runs. */
	pm_shutdown();
	trace_shutdown();	/* observers: STARPU_*_STATS reports, trace file closed */
	sched_teardown();
	tags_fini();
	combined_teardown();
	workers_teardown();
	memory_nodes_teardown();
	workers_devices_teardown();
	data_lookup_fini();
	rt_thread_release();
	os_cond_destroy(&rt.submit_cond);
	os_mutex_destroy(&rt.submit_mutex);
	os_cond_destroy(&rt.pause_cond);
	os_mutex_destroy(&rt.pause_mutex);
	atomic_store(&rt.state, RT_DOWN);
	os_mutex_unlock(&init_mutex);
}

void starpu_pause(void)
{
	os_mutex_lock(&rt.pause_mutex);
	atomic_fetch_add_explicit(&rt.pause_depth, 1, memory_order_seq_cst);
	os_mutex_unlock(&rt.pause_mutex);
	/* Let pops that started before the pause finish: after this, no worker
	 * takes a task submitted after starpu_pause() returned. */
	for (unsigned i = 0; i < rt.nworkers; i++)
		while (atomic_load_explicit(&rt.workers[i].popping, memory_order_seq_cst))
			os_yield();
}

void starpu_resume(void)
{
	os_mutex_lock(&rt.pause_mutex);
	if (atomic_load(&rt.pause_depth) > 0 && atomic_fetch_sub(&rt.pause_depth, 1) == 1)
		os_cond_broadcast(&rt.pause_cond);
	os_mutex_unlock(&rt.pause_mutex);
	/* Workers asleep while tasks were queued during the pause. */
	worker_wake_all();
}

void starpu_get_version(int *major, int *minor, int *release)
{
	*major = STARPU_MAJOR_VERSION;
	*minor = STARPU_MINOR_VERSION;
	*release = STARPU_RELEASE_VERSION;
}

int starpu_asynchronous_copy_disabled(void)
{
	return rt.conf.disable_asynchronous_copy == 1;
}

void starpu_display_stats(void)
{
	fprintf(stderr, "Tasks executed per worker:\n");
	for (unsigned i = 0; i < rt.nworkers; i++)
		fprintf(stderr, "\t%-12s %lu\n", rt.workers[i].name, rt.workers[i].executed);
}

/* ------------------------------------------------------------------ */
/* starpu_execute_on_each_worker: one task pinned to each chosen worker. */

struct on_worker_arg
{
	void (*func)(void *);
	void *arg;
};

static void on_worker_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	struct on_worker_arg *a = cl_arg;
	a->func(a->arg);
}

/* The same function for every kind of worker: it runs on the worker's
 * thread (a device's is current there). */
static struct starpu_codelet on_worker_cl = {
	.where = STARPU_CPU | STARPU_CUDA | STARPU_OPENCL,
	.cpu_funcs = { on_worker_cpu },
	.cuda_funcs = { on_worker_cpu },
	.opencl_funcs = { on_worker_cpu },
	.nbuffers = 0,
	.name = "execute_on_worker",
};

void starpu_execute_on_specific_workers(void (*func)(void *), void *arg, unsigned num_workers, unsigned *workers, const char *name)
{
	struct on_worker_arg a = { func, arg };
	struct starpu_task *tasks[STARPU_NMAXWORKERS];
	unsigned n = 0;
	for (unsigned i = 0; i < num_workers && n < STARPU_NMAXWORKERS; i++)
	{
		if (workers[i] >= rt.nworkers)
		{
			rt_error("starpu_execute_on_specific_workers: no worker %u", workers[i]);
			continue;
		}
		struct starpu_task *t = starpu_task_create();
		if (!t)
			break;
		t->cl = &on_worker_cl;
		t->cl_arg = &a;
		t->name = name;
		t->execute_on_a_specific_worker = 1;
		t->workerid = workers[i];
		t->detach = 0;
		t->destroy = 0;
		if (starpu_task_submit(t))
		{
			starpu_task_destroy(t);
			continue;
		}
		tasks[n++] = t;
	}
	for (unsigned i = 0; i < n; i++)
	{
		if (starpu_task_wait(tasks[i]) == 0)
			starpu_task_destroy(tasks[i]);
	}
}

void starpu_execute_on_each_worker_ex(void (*func)(void *), void *arg, uint32_t where, const char *name)
{
	unsigned ids[STARPU_NMAXWORKERS], n = 0;
	for (unsigned i = 0; i < rt.nworkers; i++)
		if (where & worker_arch_mask(rt.workers[i].arch))
			ids[n++] = i;
	starpu_execute_on_specific_workers(func, arg, n, ids, name);
}

void starpu_execute_on_each_worker(void (*func)(void *), void *arg, uint32_t where)
{
	starpu_execute_on_each_worker_ex(func, arg, where, "execute_on_each_worker");
}
