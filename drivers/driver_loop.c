/* driver_loop.c — the worker cycle of seed 000, shared by every kind of
 * worker: get a task (local queue, then the contexts' policies), fetch its
 * data to the worker's memory node, execute it through the driver, then
 * terminate it. Also the application-driven drivers (starpu_driver_*).
 *
 * An idle worker first polls for a short while (rt.workers_poll: real
 * runs only, polling cannot advance simulated time; and not in a process
 * bound to one PU, where it would take the core from whoever submits),
 * then announces itself idle and sleeps on
 * its sched_cond; see workers.h for the wake-up handshake.
 */
#include "drivers/driver.h"
#include "core/combined.h"
#include "core/conf.h"
#include "core/hooks.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/sim_loader.h"
#include "core/workers.h"
#include "data/data.h"
#include "data/memory.h"
#include "perfmodel/perfmodel.h"
#include "sched/sched.h"
#include "trace/trace.h"

#include <errno.h>
#include <string.h>

static int should_stop(struct worker *w)
{
	if (!atomic_load_explicit(&rt.running, memory_order_acquire))
		return 1;
	return w->app_driven && atomic_load_explicit(&rt.drivers_termination_requested, memory_order_acquire);
}

/* Blocks while the runtime is paused (starpu_pause). */
static void wait_if_paused(struct worker *w)
{
	os_mutex_lock(&rt.pause_mutex);
	while (rt.pause_depth > 0 && !should_stop(w))
		os_cond_wait(&rt.pause_cond, &rt.pause_mutex);
	os_mutex_unlock(&rt.pause_mutex);
}

static int paused(void)
{
	return atomic_load_explicit(&rt.pause_depth, memory_order_seq_cst) > 0;
}

/* Pops a task unless the runtime is paused. The popping flag and
 * pause_depth form a store-load pair with starpu_pause(): either the pause
 * sees us popping and waits for the pop to end, or we see the pause. */
static struct starpu_task *pop(struct worker *w)
{
	atomic_store_explicit(&w->popping, 1, memory_order_seq_cst);
	struct starpu_task *task = paused() ? NULL : sched_pop_task(w);
	atomic_store_explicit(&w->popping, 0, memory_order_release);
	if (task)
		job_prefetch_task(task);	/* its lines, side by side */
	return task;
}

/* Announces w idle, looks for work a last time, and sleeps unless work
 * arrived. Returns a task found on the way, or NULL once woken. */
static struct starpu_task *worker_idle(struct worker *w)
{
	os_mutex_lock(&w->sched_mutex);
	w->state_keep_awake = 0;
	atomic_store_explicit(&w->status, WS_SLEEP_PENDING, memory_order_release);
	os_mutex_unlock(&w->sched_mutex);
	atomic_fetch_add_explicit(&rt_nidle, 1, memory_order_seq_cst);
	/* Pairs with the fence in worker_wake_one_idle(). */
	atomic_thread_fence(memory_order_seq_cst);

	struct starpu_task *task = pop(w);
	/* Data requests count as work too (a prefetch wakes us like a task),
	 * and copies in flight into our node keep us up: we end them. */
	int progressed = !task && (data_progress_for_worker(w->memory_node, 1) || data_xfer_pending(w->memory_node));

	uint64_t slept = 0;
	os_mutex_lock(&w->sched_mutex);
	/* A master asking us to join its team counts as work. */
	if (!task && !progressed && !w->state_keep_awake && !team_requested(w) && !should_stop(w))
	{
		atomic_store_explicit(&w->status, WS_SLEEPING, memory_order_release);
		slept = trace_stamp();
		while (atomic_load_explicit(&w->status, memory_order_relaxed) == WS_SLEEPING && !team_requested(w) && !should_stop(w))
			os_cond_wait(&w->sched_cond, &w->sched_mutex);
	}
	atomic_store_explicit(&w->status, WS_RUNNING, memory_order_relaxed);
	w->state_keep_awake = 0;
	os_mutex_unlock(&w->sched_mutex);
	atomic_fetch_sub_explicit(&rt_nidle, 1, memory_order_seq_cst);
	trace_on_sleep(w, slept);	/* observers: the worker slept (after unlocking) */
	return task;
}

static void job_end(struct worker *w, struct job *job, int ret, const char *why);

/* Runs the multiformat conversion codelet cl on w, on iface of h (in
 * w's memory node, fetched), waiting for its kernels. */
static int run_conversion(struct worker *w, struct starpu_codelet *cl, starpu_data_handle_t h, void *iface)
{
	struct starpu_task ct;
	starpu_task_init(&ct);
	ct.cl = cl;
	ct.name = "conversion_task";
	ct.handles[0] = h;
	ct.interfaces[0] = iface;
	ct.detach = 0;
	int ret = -EINVAL;
	int impl = worker_first_impl(w, &ct);
	if (impl < 0)
		rt_error("multiformat: the conversion codelet for data %p has no implementation %s can run", (void *) h, w->name);
	else
	{
		struct job *cj = job_get(&ct);
		cj->nimpl = (unsigned) impl;
		cj->worker = w;
		ret = w->drv->execute(w, cj);
		if (ret == -EAGAIN)
			ret = w->drv->sync ? w->drv->sync(w) : -EIO;
	}
	starpu_task_clean(&ct);
	return ret;
}

/* Multiformat data a task is about to fetch: what w's node's layout needs
 * is there (before anything is allocated or copied). */
static int check_inputs(struct worker *w, struct job *job)
{
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		if (!job->buffers[i].handle->ops->is_multiformat)
			continue;
		int ret = mf_check_for(job->buffers[i].handle, w->memory_node, job->buffers[i].mode);
		if (ret)
			return ret;
	}
	return 0;
}

/* Multiformat data fetched on w's node in the CPU layout is converted to
 * the node's own before the task uses it (data/interfaces/multiformat.c). */
static int convert_inputs(struct worker *w, struct job *job)
{
	struct starpu_task *task = job->task;
	void **ifs = task->dyn_interfaces ? task->dyn_interfaces : task->interfaces;
	for (unsigned i = 0; i < job->nbuffers; i++)
	{
		struct job_buffer *b = &job->buffers[i];
		if (!b->handle->ops->is_multiformat)
			continue;
		struct starpu_codelet *cl;
		int ret = mf_conversion_for(b->handle, w->memory_node, b->mode, ifs[b->index], &cl);
		if (ret)
			return ret;
		if (!cl)
			continue;
		if ((ret = run_conversion(w, cl, b->handle, ifs[b->index])))
			return ret;
		mf_conversion_done(ifs[b->index]);
	}
	return 0;
}

/* Whether the implementation w runs queues its kernels on the device
 * (an asynchronous codelet: it ends with an event, not when it returns). */
static int kernel_queued(const struct worker *w, const struct job *job)
{
	const struct starpu_codelet *cl = job->task->cl;
	return (w->arch == STARPU_CUDA_WORKER && (cl->cuda_flags[job->nimpl] & STARPU_CUDA_ASYNC)) ||
	       (w->arch == STARPU_OPENCL_WORKER && (cl->opencl_flags[job->nimpl] & STARPU_OPENCL_ASYNC));
}

/* Runs one popped task on w, up to handing it to termination. */
static void execute_job(struct worker *w, struct job *job)
{
	struct starpu_task *task = job->task;
	/* A task queued for a combined worker runs on its team, w (the
	 * master) at rank 0. */
	const struct combined_worker *cw = job->combined ? combined_get(job->combined) : NULL;
	if (cw && cw->members[0] != w->id)
		cw = NULL;
	int impl = cw ? combined_first_impl(cw, task) : worker_first_impl(w, task);
	if (job->nimpl && (cw ? combined_can_execute(cw, task, job->nimpl) : worker_can_execute(w, task, job->nimpl)))
		impl = (int) job->nimpl;	/* starpu_task_set_implementation */
	if (impl < 0)
	{
		/* A policy handed us a task we cannot run: give it back. */
		rt_error("worker %s was given task '%s' it cannot run; pushing it back", w->name, starpu_task_get_name(task));
		trace_on_pop_refused(w);
		sched_job_done(job);
		sched_push_job(job);
		return;
	}
	job->nimpl = (unsigned) impl;
	job->worker = w;
	task->status = STARPU_TASK_RUNNING;
	trace_on_pop(w, job);	/* observers: w got the task */

	struct rt_thread *t = &w->tstate;
	if (task->prologue_callback_pop_func)
	{
		t->in_callback = 1;
		t->current_task = task;
		task->prologue_callback_pop_func(task->prologue_callback_pop_arg);
		t->in_callback = 0;
	}

	/* Gather the team before fetching: its members finish what they run
	 * first, and the data must stay valid until every part is done. */
	struct team team;
	if (cw)
		team_build(&team, w, job, cw);
	/* Simulation: the runtime's costs for this task (none in a real run). */
	sim_cost(SIM_COST_FETCH, job->nbuffers);
	/* Why the task fails, if it does, is the first error printed while
	 * it is fetched and run (core/failures.c). */
	rt_capture_begin(t);
	int ret = check_inputs(w, job);
	if (!ret)
		ret = data_fetch_for_job(job, w->memory_node);
	if (ret)
	{
		if (cw)
			team_go(&team, 1);
		trace_on_exec_end(w, job, 1);	/* observers: the task could not run */
		failures_record(job, w, ret, "not executed: its data could not be made available on",
				rt_capture_end(t, 0));
	}
	else
	{
		w->current_task = task;
		t->current_task = task;
		t->in_codelet = 1;
		/* Calibration: time the kernel alone when its model learns from
		 * measurements (perfmodel/perfmodel.h; never in simulation). A
		 * device runs it with nothing else in flight: neither kernels
		 * nor copies, which a device may run on the engine of its
		 * kernels (PoCL's CPU device: they would be timed as the
		 * kernel's, and the simulation charges them apart). */
		sched_pre_exec(w, job);
		int measure = pm_measure_wanted(job, w);
		int queued = kernel_queued(w, job);
		/* A device whose events tell the time times a queued kernel
		 * between events around it, the others in flight. (Timing
		 * only kernels queued behind another one, whose start hides
		 * the launch, and the others alone, was tried: each task timed
		 * alone leaves the queue empty for the next, so that all were.) */
		int timed = 0;
		if (measure && w->pipeline)
		{
			if (!pm_measure_kept(job, w))
				measure = 0;	/* calibrated: it may run in flight */
			else if (queued && w->drv->event_elapsed_us)
				timed = 1;
			else
			{
				drv_pipeline_drain(w);
				data_xfer_drain(w->memory_node);
			}
		}
		double start = measure && !timed ? os_now_us() : 0.0;	/* timed: by the device */
		/* Simulation: queueing the kernel, for a kernel that is queued
		 * (an asynchronous codelet), as StarPU's simulation charges it. */
		if (queued)
			sim_cost(SIM_COST_DEV_QUEUE, 1);
		trace_on_exec_start(job);	/* observers: data fetched, kernel starts */
		if (cw)
			team_go(&team, 0);
		/* A device: the task queued before this one gets its event now,
		 * so that its end is told apart from this one's. */
		if (w->pipeline)
			drv_pipeline_mark(w);
		void *tstart = timed ? w->drv->event_record_timed(w) : NULL;
		if (timed && !tstart)
			measure = 0;	/* said by the driver: no sample this time */
		/* FORKJOIN: only the master runs the kernel, which forks its own
		 * threads; SPMD: every member runs it. */
		ret = convert_inputs(w, job);
		/* Simulation: a device's worker thread waiting for its kernel
		 * sets nothing up meanwhile (data/memory.h, mem_driver_lock);
		 * released once the kernel is queued or done. */
		int drv = 0;
		if (!ret)
		{
			drv = !cw && sim_running() ? mem_driver_lock(w->memory_node) : 0;
			ret = w->drv->execute(w, job);
		}
		if (ret == -EAGAIN)
		{
			/* Queued on a device: it ends with the event recorded
			 * after it; when the worker waits at once (no pipeline,
			 * a measured task) it waits for its queue instead. */
			t->in_codelet = 0;
			t->current_task = NULL;
			w->current_task = NULL;
			if (!measure && w->pipeline)
			{
				/* Its event is recorded when another task is queued
				 * after it, if one is before the worker waits. */
				if (drv)
					mem_driver_unlock(w->memory_node);
				rt_capture_end(t, 1);
				drv_pipeline_push(w, job, NULL);
				return;
			}
			void *tend = tstart ? w->drv->event_record_timed(w) : NULL;
			if (tend)
			{
				/* Measured on the device when it ends (device.c). */
				if (drv)
					mem_driver_unlock(w->memory_node);
				rt_capture_end(t, 1);
				drv_pipeline_push_timed(w, job, tstart, tend);
				return;
			}
			if (tstart)
			{
				w->drv->event_release(tstart);
				tstart = NULL;
				measure = 0;	/* not timed alone either: no sample */
			}
			if (w->drv->sync)
				ret = w->drv->sync(w);
			else
			{
				void *ev = w->drv->event_record(w);
				ret = ev ? w->drv->event_wait(ev) : -EIO;
				if (ev)
					w->drv->event_release(ev);
			}
		}
		if (tstart)
		{
			/* The kernel was not queued (it failed): no sample. */
			w->drv->event_release(tstart);
			measure = 0;
		}
		if (drv)
			mem_driver_unlock(w->memory_node);
		if (cw)
			team_wait_parts(&team);
		double elapsed = measure ? os_now_us() - start : 0.0;
		if (measure && !ret)
		{
			/* A team's time calibrates the combined worker's arch. */
			if (cw)
				pm_record(task->cl->model, task, cw->comb, job->nimpl, elapsed);
			else
				pm_measure_record(job, w, elapsed);
		}
		t->in_codelet = 0;
		t->current_task = NULL;
		w->current_task = NULL;
		const char *why = rt_capture_end(t, ret == 0);
		if (cw)
		{
			trace_on_exec_end(w, job, ret != 0);	/* observers: kernel done */
			sched_post_exec(w, job);
			if (ret)
				failures_record(job, w, ret, "failed on", why);
			data_job_done_on_node(job, w->memory_node);
			team_release(&team);
			sched_job_done(job);
			w->executed++;
			if (task->cl)
				task->cl->per_worker_stats[w->id]++;
			job_term_release(job);
			return;
		}
		job_end(w, job, ret, why);
		return;
	}
	if (cw)
		team_release(&team);
	/* Done with its context's policy (hooks included): from here on the
	 * context may be deleted. */
	sched_job_done(job);
	w->executed++;
	if (task->cl)
		task->cl->per_worker_stats[w->id]++;
	job_term_release(job);
}

static void job_end(struct worker *w, struct job *job, int ret, const char *why)
{
	struct starpu_task *task = job->task;
	trace_on_exec_end(w, job, ret != 0);	/* observers: kernel done */
	sched_post_exec(w, job);
	if (ret)
		failures_record(job, w, ret, "failed on", why);
	data_job_done_on_node(job, w->memory_node);
	/* Done with its context's policy (hooks included): from here on the
	 * context may be deleted. */
	sched_job_done(job);
	w->executed++;
	if (task->cl)
		task->cl->per_worker_stats[w->id]++;
	job_term_release(job);
}

void drv_job_end(struct worker *w, struct job *job, int ret)
{
	job_end(w, job, ret, NULL);
}

/* How long an idle worker polls before sleeping, in microseconds, and how
 * many workers may poll at once. Polling lets a worker take the next task
 * without the pushing thread paying for a wake-up; more pollers would take
 * cores from the threads submitting the work. Two, not one: work queued for
 * one worker (its local queue, a per-worker policy queue) can only be taken
 * by that worker, and with a single slot the worker that has just pushed
 * such work to the poller finds the slot taken and sleeps, so the next
 * task pushed back to it costs a wake-up (random on a chain of tasks: 5 µs
 * per task with one slot, 0.7 with two, 2 workers on 2 cores; the other
 * policies are unchanged or faster, measured with bench/compare-sched). */
#define POLL_US 100.0

/* Polls for a task for up to POLL_US; counted in rt_npolling meanwhile.
 * *from_poll tells whether the task was found while polling. */
static struct starpu_task *poll_for_task(struct worker *w, int *from_poll)
{
	struct starpu_task *task = NULL;
	if (atomic_fetch_add_explicit(&rt_npolling, 1, memory_order_seq_cst) >= MAX_POLLERS)
	{
		atomic_fetch_sub_explicit(&rt_npolling, 1, memory_order_seq_cst);
		return NULL;
	}
	/* Before looking: a pusher that sees the flag relies on our looks. */
	atomic_store_explicit(&w->polling, 1, memory_order_seq_cst);
	double deadline = os_now_us() + POLL_US;
	unsigned tries = 0;
	while (!should_stop(w) && !paused())
	{
		/* The thread submitting the work may be waiting for our core. */
		os_poll_pause(&tries);
		if ((task = pop(w)))
			break;
		if (team_requested(w))
			break;
		if (data_progress_for_worker(w->memory_node, 1))
			deadline = os_now_us() + POLL_US;
		double now = os_now_us();
		if (now > deadline &&
		    now > (double) atomic_load_explicit(&rt_devices_copying_until, memory_order_relaxed))
			break;
	}
	if (task)
	{
		/* Publish before leaving the polling count, so that pushers keep
		 * seeing a worker about to come back. */
		long long now = (long long) os_now_us();
		atomic_store_explicit(&w->poll_exec_start, now, memory_order_relaxed);
		atomic_store_explicit(&rt_poll_exec_start, now, memory_order_relaxed);
		*from_poll = 1;
	}
	atomic_store_explicit(&w->polling, 0, memory_order_seq_cst);
	atomic_fetch_sub_explicit(&rt_npolling, 1, memory_order_seq_cst);
	/* Pairs with the fence in worker_wake_one_idle(): a pusher that saw us
	 * polling skipped the wake-up, so look once more now that we stopped. */
	atomic_thread_fence(memory_order_seq_cst);
	if (!task)
		task = pop(w);
	return task;
}

/* One cycle; with may_sleep, an idle worker sleeps until woken. */
static int run_once(struct worker *w, int may_sleep)
{
	/* A master waiting for us to join its team comes first (seed 000:
	 * between tasks, never during one). */
	if (team_serve(w))
		return 0;
	if (paused())
	{
		if (!may_sleep)
			return 0;
		wait_if_paused(w);
	}
	/* A device: end the tasks whose kernels are done, and take a new one
	 * only while there is room in the pipeline. */
	if (drv_pipeline_busy(w))
		drv_pipeline_progress(w, 0);
	struct starpu_task *task = drv_pipeline_full(w) ? NULL : pop(w);
	int from_poll = 0;
	/* No task: move data ahead of need (prefetches, idle ones too). */
	if (!task && data_progress_for_worker(w->memory_node, 1))
		return 0;
	/* The application's progression and idle hooks (starpu_expert.h); one
	 * asking to run again keeps the worker awake (real runs only: in a
	 * simulation that would spin without time passing). */
	if (!task && hooks_run() && !os_is_simulated())
		return 0;
	/* Nothing new to start: wait for what is in flight rather than sleep
	 * (tasks on the device, copies into our node). */
	if (!task && (drv_pipeline_progress(w, 1) || data_xfer_progress(w->memory_node, 1)))
		return 0;
	uint64_t idle = !task && may_sleep ? trace_stamp() : 0;
	if (!task && may_sleep && rt.workers_poll)
		task = poll_for_task(w, &from_poll);
	if (!task && may_sleep)
		task = worker_idle(w);
	trace_on_idle(w, idle, task != NULL);	/* observers: w had nothing to do */
	if (!task)
		return 0;
	execute_job(w, job_of(task));
	if (from_poll)
	{
		atomic_store_explicit(&w->poll_exec_start, 0, memory_order_relaxed);
		atomic_store_explicit(&rt_poll_exec_start, 0, memory_order_relaxed);
	}
	data_progress_for_worker(w->memory_node, 0);
	return 0;
}

int drv_run_once(struct worker *w)
{
	return run_once(w, 1);
}

int drv_run(struct worker *w)
{
	while (!should_stop(w))
		run_once(w, 1);
	return 0;
}

void drv_post_exec(struct worker *w, struct job *j)
{
	(void) w;
	job_term_release(j);
}

/* Called on the worker's thread (or the application thread driving it). */
static int worker_start(struct worker *w)
{
	rt_thread_set(&w->tstate);
	os_thread_setname(w->short_name);
	if (!os_is_simulated() && !conf_nobind() && w->bindid >= 0)
	{
		/* An application thread gets its own binding back at the
		 * end (worker_stop). */
		if (w->app_driven)
			w->app_binding = topo_binding_save();
		int ret = topo_bind_self(w->bindid);
		if (ret)
			rt_warn("%s: could not bind to processing unit %d (%d)", w->name, w->bindid, ret);
	}
	atomic_store(&w->status, WS_RUNNING);
	return w->drv->init ? w->drv->init(w) : 0;
}

static void worker_stop(struct worker *w)
{
	drv_pipeline_drain(w);
	if (w->drv->deinit)
		w->drv->deinit(w);
	topo_binding_restore(w->app_binding);
	w->app_binding = NULL;
	atomic_store(&w->status, WS_STOPPED);
}

/* Worker threads report their start here so that starpu_init returns with
 * every worker ready. */
static os_mutex_t start_mutex = OS_MUTEX_INITIALIZER;
static os_cond_t start_cond = OS_COND_INITIALIZER;
static unsigned nstarted;

void drv_reset_start_count(void)
{
	os_mutex_lock(&start_mutex);
	nstarted = 0;
	os_mutex_unlock(&start_mutex);
}

void drv_wait_started(unsigned n)
{
	os_mutex_lock(&start_mutex);
	while (nstarted < n)
		os_cond_wait(&start_cond, &start_mutex);
	os_mutex_unlock(&start_mutex);
}

void *drv_worker_thread(void *arg)
{
	struct worker *w = arg;
	int ret = worker_start(w);
	os_mutex_lock(&start_mutex);
	nstarted++;
	os_cond_broadcast(&start_cond);
	os_mutex_unlock(&start_mutex);
	if (ret)
	{
		rt_error("%s: driver %s failed to start (%d)", w->name, w->drv->name, ret);
		return NULL;
	}
	if (w->drv->run)
		w->drv->run(w);
	else
		drv_run(w);
	worker_stop(w);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Application-driven workers (starpu_driver.h). */

static struct worker *app_worker(struct starpu_driver *d, const char *fn)
{
	if (!rt_is_up())
	{
		rt_error("%s: the runtime is not initialised (-ENODEV)", fn);
		return NULL;
	}
	if (!d)
	{
		rt_error("%s: driver is NULL (-EINVAL)", fn);
		return NULL;
	}
	for (unsigned i = 0; i < rt.nworkers; i++)
	{
		struct worker *w = &rt.workers[i];
		if (w->arch == d->type && (unsigned) w->devid == d->id.cpu_id && w->app_driven)
			return w;
	}
	rt_error("%s: no %s worker %u is left to the application (list it in conf.not_launched_drivers) (-EINVAL)",
		 fn, starpu_worker_get_type_as_string(d->type), d->id.cpu_id);
	return NULL;
}

int starpu_driver_init(struct starpu_driver *d)
{
	struct worker *w = app_worker(d, "starpu_driver_init");
	if (!w)
		return rt_is_up() ? -EINVAL : -ENODEV;
	if (w->driver_initialized)
		return 0;
	w->thread = os_thread_self();
	w->app_tstate = rt.thread_key_backend == os_get_backend() ? os_getspecific(rt.thread_key) : NULL;
	int ret = worker_start(w);
	if (ret)
		return ret;
	w->driver_initialized = 1;
	return 0;
}

int starpu_driver_run_once(struct starpu_driver *d)
{
	struct worker *w = app_worker(d, "starpu_driver_run_once");
	if (!w)
		return rt_is_up() ? -EINVAL : -ENODEV;
	if (!w->driver_initialized)
	{
		rt_error("starpu_driver_run_once: call starpu_driver_init first (-EINVAL)");
		return -EINVAL;
	}
	/* Without sleeping: the application decides when to call again. */
	return run_once(w, 0);
}

int starpu_driver_deinit(struct starpu_driver *d)
{
	struct worker *w = app_worker(d, "starpu_driver_deinit");
	if (!w)
		return rt_is_up() ? -EINVAL : -ENODEV;
	if (!w->driver_initialized)
		return 0;
	worker_stop(w);
	w->driver_initialized = 0;
	rt_thread_set(w->app_tstate);
	w->app_tstate = NULL;
	return 0;
}

int starpu_driver_run(struct starpu_driver *d)
{
	int ret = starpu_driver_init(d);
	if (ret)
		return ret;
	struct worker *w = app_worker(d, "starpu_driver_run");
	while (!should_stop(w))
		run_once(w, 1);
	return starpu_driver_deinit(d);
}

void starpu_drivers_request_termination(void)
{
	atomic_store(&rt.drivers_termination_requested, 1);
	worker_wake_all();
	os_mutex_lock(&rt.pause_mutex);
	os_cond_broadcast(&rt.pause_cond);
	os_mutex_unlock(&rt.pause_mutex);
}
