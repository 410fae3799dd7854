/* device.c — what every kind of device shares: the table of device kinds
 * built in, and the pipeline of tasks in flight on a device worker.
 *
 * A device worker queues a task's kernels and, when the codelet allows it
 * (STARPU_*_ASYNC), goes on with the next task without waiting: the driver
 * records an event after the kernels (drv_ops.event_record) and the task
 * joins the worker's pipeline. Tasks end in launch order, when their
 * events are done: the worker tests them between tasks and waits for the
 * oldest when it has nothing else to do or its pipeline is full
 * (driver_loop.c). Copies in flight are the data layer's (data/transfer.c),
 * through the node drivers' test/wait.
 */
#include "drivers/driver.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"
#include "perfmodel/perfmodel.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdlib.h>

#ifdef STARPU_USE_CUDA
extern const struct drv_device_kind drv_cuda_kind;
#endif
#ifdef STARPU_USE_OPENCL
extern const struct drv_device_kind drv_opencl_kind;
#endif
#ifdef STARPU_USE_MPI_MASTER_SLAVE
#include "drivers/mp/mp_driver.h"
#endif

const struct drv_device_kind *const drv_device_kinds[] = {
#ifdef STARPU_USE_CUDA
	&drv_cuda_kind,
#endif
#ifdef STARPU_USE_OPENCL
	&drv_opencl_kind,
#endif
#ifdef STARPU_USE_MPI_MASTER_SLAVE
	&drv_mpi_ms_kind,
#endif
	NULL
};

int drv_devices_boot(const struct starpu_conf *conf)
{
	for (const struct drv_device_kind *const *k = drv_device_kinds; *k; k++)
		if ((*k)->version >= 3 && (*k)->boot)
		{
			int ret = (*k)->boot(conf);
			if (ret)
				return ret;
		}
	return 0;
}

int drv_host_alloc(void **ptr, size_t size)
{
	for (const struct drv_device_kind *const *k = drv_device_kinds; *k; k++)
		if ((*k)->host_alloc)
		{
			int ret = (*k)->host_alloc(ptr, size);
			if (ret != -ENODEV)
				return ret;
		}
	return -ENODEV;
}

int drv_host_free(void *ptr)
{
	for (const struct drv_device_kind *const *k = drv_device_kinds; *k; k++)
		if ((*k)->host_free && (*k)->host_free(ptr))
			return 1;
	return 0;
}

int drv_host_register(void *ptr, size_t size)
{
	for (const struct drv_device_kind *const *k = drv_device_kinds; *k; k++)
		if ((*k)->host_register)
		{
			int ret = (*k)->host_register(ptr, size);
			if (ret != -ENODEV)
				return ret;
		}
	return -ENODEV;
}

int drv_host_unregister(void *ptr)
{
	for (const struct drv_device_kind *const *k = drv_device_kinds; *k; k++)
		if ((*k)->host_unregister)
		{
			int ret = (*k)->host_unregister(ptr);
			if (ret != -ENODEV)
				return ret;
		}
	return -ENODEV;
}

/* A ring of jobs in flight with their events, oldest at head. Owned by
 * the worker's thread. The newest may have no event yet: it is recorded
 * only when another task is queued after it (drv_pipeline_mark), so that
 * a worker that waits right after queuing a task waits for its queue
 * instead (drv_ops.sync): no event at all on a chain of dependent tasks. */
struct drv_pipeline
{
	unsigned depth;			/* capacity */
	unsigned head, n;
	struct job **jobs;
	void **events;
	void **starts;			/* a measured job's timed start event, else NULL */
};

/* STARPU_<KIND>_PIPELINE: how many tasks a device worker keeps in flight
 * (StarPU's meaning: 0 waits for each task). */
int drv_pipeline_depth(const struct drv_device_kind *kind)
{
	const char *s = kind->pipeline_env ? getenv(kind->pipeline_env) : NULL;
	if (!s || !*s)
		return (int) kind->pipeline_default;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 64)
	{
		rt_error("starpu_init: %s='%s' must be a number of tasks between 0 and 64 (-EINVAL)", kind->pipeline_env, s);
		return -EINVAL;
	}
	return (int) v;
}

int drv_pipeline_init(struct worker *w, const struct drv_device_kind *kind)
{
	int d = drv_pipeline_depth(kind);
	if (d < 0)
		return d;
	unsigned depth = (unsigned) d;
	w->device_kind = kind;
	w->pipeline = NULL;
	if (depth == 0)
		return 0;
	struct drv_pipeline *p = calloc(1, sizeof(*p));
	if (!p || !(p->jobs = calloc(depth, sizeof(*p->jobs))) || !(p->events = calloc(depth, sizeof(*p->events)))
	    || !(p->starts = calloc(depth, sizeof(*p->starts))))
	{
		if (p)
		{
			free(p->jobs);
			free(p->events);
		}
		free(p);
		return -ENOMEM;
	}
	p->depth = depth;
	w->pipeline = p;
	return 0;
}

void drv_pipeline_fini(struct worker *w)
{
	struct drv_pipeline *p = w->pipeline;
	if (!p)
		return;
	w->pipeline = NULL;
	free(p->jobs);
	free(p->events);
	free(p->starts);
	free(p);
}

unsigned drv_pipeline_busy(const struct worker *w)
{
	return w->pipeline ? w->pipeline->n : 0;
}

int drv_pipeline_full(const struct worker *w)
{
	return w->pipeline && w->pipeline->n >= w->pipeline->depth;
}

void drv_pipeline_push(struct worker *w, struct job *j, void *ev)
{
	struct drv_pipeline *p = w->pipeline;
	/* The loop pops a task only with room in the pipeline. */
	if (p->n >= p->depth)
		drv_pipeline_progress(w, 1);
	unsigned slot = (p->head + p->n) % p->depth;
	p->jobs[slot] = j;
	p->events[slot] = ev;
	p->starts[slot] = NULL;
	p->n++;
}

void drv_pipeline_push_timed(struct worker *w, struct job *j, void *start, void *end)
{
	drv_pipeline_push(w, j, end);
	struct drv_pipeline *p = w->pipeline;
	p->starts[(p->head + p->n - 1) % p->depth] = start;
}

/* How long a worker waiting for its oldest task polls the event before
 * blocking in the driver: a blocking wait costs the device's thread a
 * wake-up of ours when the task ends (two wake-ups per task on PoCL, where
 * a short task is over in less time than they take). */
#define WAIT_POLL_US 50.0

int drv_async_keep(const struct drv_ops *ops, struct drv_async *a, void *ev)
{
	if (a->event)
		ops->event_release(a->event);
	a->event = ev;
	return -EAGAIN;
}

int drv_async_test(const struct drv_ops *ops, struct drv_async *a)
{
	if (!a->event)
		return 1;
	int ret = ops->event_test(a->event);
	if (ret)
	{
		ops->event_release(a->event);
		a->event = NULL;
	}
	return ret;
}

int drv_async_wait(const struct drv_ops *ops, struct drv_async *a)
{
	if (!a->event)
		return 0;
	int ret = ops->event_wait(a->event);
	ops->event_release(a->event);
	a->event = NULL;
	return ret;
}

static int wait_event(struct worker *w, void *ev)
{
	/* Simulated devices: polling would only step the clock; their wait
	 * sleeps until the event's date. */
	if (os_is_simulated())
		return w->drv->event_wait(ev);
	double deadline = os_now_us() + WAIT_POLL_US;
	do
	{
		int ret = w->drv->event_test(ev);
		if (ret)
			return ret < 0 ? ret : 0;
		os_yield();
	} while (os_now_us() < deadline);
	return w->drv->event_wait(ev);
}

void drv_pipeline_mark(struct worker *w)
{
	struct drv_pipeline *p = w->pipeline;
	if (!p || !p->n)
		return;
	unsigned newest = (p->head + p->n - 1) % p->depth;
	if (!p->events[newest])
		p->events[newest] = w->drv->event_record(w);
}

/* Ends the oldest job with ret (its event, if any, released). */
static void end_oldest(struct worker *w, int ret)
{
	struct drv_pipeline *p = w->pipeline;
	struct job *j = p->jobs[p->head];
	void *start = p->starts[p->head], *end = p->events[p->head];
	if (start)
	{
		/* A measured job: its kernels' time on the device. */
		double us = ret == 0 && end ? w->drv->event_elapsed_us(start, end) : -1.0;
		if (us >= 0.0)
			pm_measure_record(j, w, us);
		w->drv->event_release(start);
		p->starts[p->head] = NULL;
	}
	if (end)
		w->drv->event_release(end);
	p->head = (p->head + 1) % p->depth;
	p->n--;
	/* Ending the job may run callbacks that submit tasks; the ring is
	 * consistent before. */
	drv_job_end(w, j, ret);
	/* The next one queued ran on the device after this one: observers
	 * see it start no earlier (one task at a time on the worker's row
	 * of a trace). */
	if (p->n && trace_on())
	{
		struct job *next = p->jobs[p->head];
		uint64_t now = trace_now();
		if (next->tt.exec_start < now)
			next->tt.exec_start = now;
	}
}

int drv_pipeline_progress(struct worker *w, int wait)
{
	struct drv_pipeline *p = w->pipeline;
	int ended = 0;
	while (p && p->n)
	{
		void *ev = p->events[p->head];
		int must_wait = wait && !ended;
		if (!ev)
		{
			/* Not marked (the newest, nothing queued after it): only a
			 * wait for the whole queue ends it, and with it all. */
			if (!must_wait)
				break;
			int ret = w->drv->sync ? w->drv->sync(w) : -ENOSYS;
			if (ret == -ENOSYS)
			{
				drv_pipeline_mark(w);
				if (!p->events[(p->head + p->n - 1) % p->depth])
					ret = -EIO;
				else
					continue;
			}
			while (p->n)
			{
				end_oldest(w, ret);
				ended++;
			}
			break;
		}
		int ret = must_wait ? wait_event(w, ev) : w->drv->event_test(ev);
		if (ret == 0 && !must_wait)
			break;	/* the oldest is still running: so are the others */
		end_oldest(w, ret > 0 ? 0 : ret);
		ended++;
	}
	return ended;
}

void drv_pipeline_drain(struct worker *w)
{
	while (w->pipeline && w->pipeline->n)
		drv_pipeline_progress(w, 1);
}
