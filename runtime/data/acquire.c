/* acquire.c — the application's access to registered data.
 *
 * An acquisition is a job of kind JOB_ACQUIRE with a single buffer: it takes
 * its place in the handle's sequential-consistency order like a task, gets
 * data access like a task, and instead of executing it hands the data to the
 * application (waking the blocked caller, or calling the callback). It ends
 * with starpu_data_release(), which terminates the job and so releases the
 * tasks submitted after the acquisition.
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"

#include <vela_extension.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

struct acquire_sync
{
	os_mutex_t mutex;
	os_cond_t cond;
	int done;
	int result;		/* 0, or why the data could not be made available */
};

/* An acquisition: a job plus what the application asked for. */
struct acquire
{
	struct job job;
	int node;			/* where to make the data valid, or NO_NODE */
	void (*user_cb)(void *arg);	/* starpu_data_acquire_cb's callback */
	void *user_arg;
	struct acquire_sync *sync;	/* blocking acquire: what the caller sleeps on */
	struct rt_thread *owner;	/* the thread of a blocking or try acquisition, else NULL */
	struct acquire *next;		/* the handle's stack of acquisitions */
};

static struct acquire *acq_of(struct job *job)
{
	return (struct acquire *) (void *) ((char *) job - offsetof(struct acquire, job));
}

void data_acquire_free(struct job *job)
{
	free(acq_of(job));
}

int data_blocking_acquisition_locked(starpu_data_handle_t h)
{
	for (struct acquire *a = h->acquisitions ? acq_of(h->acquisitions) : NULL; a; a = a->next)
		if (a->sync || a->owner)
			return 1;
	return 0;
}

static int check_args(starpu_data_handle_t h, int node, enum starpu_data_access_mode mode, const char *fn)
{
	if (!h)
	{
		rt_error("%s: handle is NULL (-EINVAL)", fn);
		return -EINVAL;
	}
	if (!data_handle_valid(h))
	{
		rt_error("%s: handle %p is not registered (-EINVAL)", fn, (void *) h);
		return -EINVAL;
	}
	enum starpu_data_access_mode base = mode & ~(STARPU_COMMUTE | STARPU_SSEND | STARPU_LOCALITY);
	if (base != STARPU_R && base != STARPU_W && base != STARPU_RW)
	{
		rt_error("%s: access mode 0x%x is not valid for an acquisition (use STARPU_R, STARPU_W or STARPU_RW) (-EINVAL)",
			 fn, (unsigned) mode);
		return -EINVAL;
	}
	if (node != STARPU_ACQUIRE_NO_NODE && node != STARPU_ACQUIRE_NO_NODE_LOCK_ALL &&
	    (node < 0 || (unsigned) node >= mem_nnodes))
	{
		rt_error("%s: memory node %d does not exist (-EINVAL)", fn, node);
		return -EINVAL;
	}
	if (node >= 0 && mem_nodes[node].kind != STARPU_CPU_RAM)
	{
		rt_error("%s: memory node %d (%s) is not addressable by the application; acquire on a RAM node (-EINVAL)",
			 fn, node, mem_nodes[node].name);
		return -EINVAL;
	}
	int ret = data_partition_access(h, mode, fn);
	if (ret)
		return ret;
	return 0;
}

static struct job *acquire_job_new(starpu_data_handle_t h, int node, enum starpu_data_access_mode mode, int sequential_consistency)
{
	struct acquire *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	struct job *job = &a->job;
	job_init(job, NULL);
	job->kind = JOB_ACQUIRE;
	job->id = atomic_fetch_add_explicit(&rt.next_job_id, 1, memory_order_relaxed) + 1;
	a->node = node;
	job->nbuffers = 1;
	struct job_buffer *b = &job->buffers[0];
	job_buffer_init(b, job, h, mode & (STARPU_RW | STARPU_COMMUTE), 0);
	b->seq_consistent = sequential_consistency && h->seq_consistency;
	return job;
}

/* The data is ours: make it valid (and pinned) where asked, then record the
 * acquisition on the handle so that starpu_data_release() finds it. On
 * failure (the data cannot fit the node) the acquisition ends here and the
 * error is returned: the job is gone. */
static int acquired(struct job *job)
{
	struct acquire *a = acq_of(job);
	starpu_data_handle_t h = job->buffers[0].handle;
	if (a->node >= 0)
	{
		int ret;
		while ((ret = data_make_valid(h, (unsigned) a->node, (enum starpu_data_access_mode) job->buffers[0].mode)) == -EAGAIN)
			data_wait_memory((unsigned) a->node);
		if (ret)
		{
			rt_error("starpu_data_acquire: handle %p could not be made available on node %d (%d)", (void *) h, a->node, ret);
			job_term_release(job);
			return ret;
		}
	}
	os_mutex_lock(&h->lock);
	a->next = h->acquisitions ? acq_of(h->acquisitions) : NULL;
	h->acquisitions = job;
	os_mutex_unlock(&h->lock);
	return 0;
}

static void granted_sync(struct job *job)
{
	struct acquire_sync *s = acq_of(job)->sync;
	int ret = acquired(job);
	os_mutex_lock(&s->mutex);
	s->result = ret;
	s->done = 1;
	os_cond_signal(&s->cond);
	os_mutex_unlock(&s->mutex);
}

static void granted_cb(struct job *job)
{
	void (*cb)(void *) = acq_of(job)->user_cb;
	void *arg = acq_of(job)->user_arg;
	/* Without the data the callback cannot run: the error says why. */
	if (acquired(job))
		return;
	struct rt_thread *t = rt_thread();
	int was = t->in_callback;
	t->in_callback = 1;
	cb(arg);
	t->in_callback = was;
}

/* A blocking acquisition that conflicts with one the calling thread holds
 * (a write on either side) would wait for that thread to release it, i.e.
 * for ever: StarPU 1.3 hangs there. Acquisitions through a callback have
 * no owner (any thread may release them) and are not counted. */
int data_held_by_caller(starpu_data_handle_t h, enum starpu_data_access_mode mode, const char *fn)
{
	struct rt_thread *self = rt_thread();
	int conflict = 0;
	os_mutex_lock(&h->lock);
	for (struct acquire *a = h->acquisitions ? acq_of(h->acquisitions) : NULL; a; a = a->next)
		if (a->owner == self && ((a->job.buffers[0].mode | mode) & STARPU_W))
		{
			conflict = a->job.buffers[0].mode;
			break;
		}
	os_mutex_unlock(&h->lock);
	if (conflict)
		rt_error("%s: handle %p is already acquired by this thread in mode %s; accessing it "
			 "in mode %s would wait for its own release (-EDEADLK)", fn, (void *) h,
			 (conflict & STARPU_RW) == STARPU_RW ? "STARPU_RW" : conflict & STARPU_W ? "STARPU_W" : "STARPU_R",
			 (mode & STARPU_RW) == STARPU_RW ? "STARPU_RW" : mode & STARPU_W ? "STARPU_W" : "STARPU_R");
	return conflict != 0;
}

int starpu_data_acquire_on_node(starpu_data_handle_t handle, int node, enum starpu_data_access_mode mode)
{
	int ret = check_args(handle, node, mode, "starpu_data_acquire");
	if (ret)
		return ret;
	if (rt_may_not_block("starpu_data_acquire"))
		return -EDEADLK;
	if (data_held_by_caller(handle, mode, "starpu_data_acquire"))
		return -EDEADLK;
	struct job *job = acquire_job_new(handle, node, mode, 1);
	if (!job)
		return -ENOMEM;
	acq_of(job)->owner = rt_thread();
	struct acquire_sync s = { .done = 0 };
	os_mutex_init(&s.mutex);
	os_cond_init(&s.cond);
	job->acquire_cb = granted_sync;
	acq_of(job)->sync = &s;

	data_implicit_deps(job);
	job_dep_release(job);

	os_mutex_lock(&s.mutex);
	while (!s.done)
		os_cond_wait(&s.cond, &s.mutex);
	os_mutex_unlock(&s.mutex);
	os_cond_destroy(&s.cond);
	os_mutex_destroy(&s.mutex);
	return s.result;
}

int starpu_data_acquire(starpu_data_handle_t handle, enum starpu_data_access_mode mode)
{
	return starpu_data_acquire_on_node(handle, STARPU_MAIN_RAM, mode);
}

int starpu_data_acquire_on_node_cb_sequential_consistency(starpu_data_handle_t handle, int node, enum starpu_data_access_mode mode,
							  void (*callback)(void *), void *arg, int sequential_consistency)
{
	int ret = check_args(handle, node, mode, "starpu_data_acquire_cb");
	if (ret)
		return ret;
	if (!callback)
	{
		rt_error("starpu_data_acquire_cb: callback is NULL (-EINVAL)");
		return -EINVAL;
	}
	struct job *job = acquire_job_new(handle, node, mode, sequential_consistency);
	if (!job)
		return -ENOMEM;
	job->acquire_cb = granted_cb;
	acq_of(job)->user_cb = callback;
	acq_of(job)->user_arg = arg;
	data_implicit_deps(job);
	job_dep_release(job);
	return 0;
}

int starpu_data_acquire_on_node_cb(starpu_data_handle_t handle, int node, enum starpu_data_access_mode mode, void (*callback)(void *), void *arg)
{
	return starpu_data_acquire_on_node_cb_sequential_consistency(handle, node, mode, callback, arg, 1);
}

int starpu_data_acquire_cb(starpu_data_handle_t handle, enum starpu_data_access_mode mode, void (*callback)(void *), void *arg)
{
	return starpu_data_acquire_on_node_cb_sequential_consistency(handle, STARPU_MAIN_RAM, mode, callback, arg, 1);
}

int starpu_data_acquire_cb_sequential_consistency(starpu_data_handle_t handle, enum starpu_data_access_mode mode,
						  void (*callback)(void *), void *arg, int sequential_consistency)
{
	return starpu_data_acquire_on_node_cb_sequential_consistency(handle, STARPU_MAIN_RAM, mode, callback, arg, sequential_consistency);
}

int starpu_data_acquire_on_node_try(starpu_data_handle_t handle, int node, enum starpu_data_access_mode mode)
{
	int ret = check_args(handle, node, mode, "starpu_data_acquire_try");
	if (ret)
		return ret;
	struct job *job = acquire_job_new(handle, node, mode, 1);
	if (!job)
		return -ENOMEM;
	struct job_buffer *b = &job->buffers[0];
	os_mutex_lock(&handle->lock);
	if ((b->seq_consistent && data_implicit_would_wait(handle, b->mode)) || !data_access_try_locked(handle, b))
	{
		os_mutex_unlock(&handle->lock);
		job_fini(job);
		data_acquire_free(job);
		return -EAGAIN;
	}
	data_implicit_register_locked(b);
	os_mutex_unlock(&handle->lock);
	/* Granted without waiting: the job is ready and holds the data. */
	atomic_store(&job->ndeps, 0);
	job->nacquired = 1;
	acq_of(job)->owner = rt_thread();
	return acquired(job);
}

int starpu_data_acquire_try(starpu_data_handle_t handle, enum starpu_data_access_mode mode)
{
	return starpu_data_acquire_on_node_try(handle, STARPU_MAIN_RAM, mode);
}

void starpu_data_release_on_node(starpu_data_handle_t handle, int node)
{
	(void) node;
	if (!data_handle_valid(handle))
	{
		rt_error("starpu_data_release: handle %p is not registered", (void *) handle);
		return;
	}
	os_mutex_lock(&handle->lock);
	struct job *job = handle->acquisitions;
	if (job)
	{
		struct acquire *next = acq_of(job)->next;
		handle->acquisitions = next ? &next->job : NULL;
	}
	os_mutex_unlock(&handle->lock);
	if (!job)
	{
		rt_error("starpu_data_release: handle %p is not acquired", (void *) handle);
		return;
	}
	if (acq_of(job)->node >= 0)
		data_unpin(handle, (unsigned) acq_of(job)->node, (enum starpu_data_access_mode) job->buffers[0].mode);
	job_term_release(job);
}

void starpu_data_release(starpu_data_handle_t handle)
{
	starpu_data_release_on_node(handle, STARPU_MAIN_RAM);
}

/* A read of the data as it is now, for a caller that copies it out at
 * once (the MPI layer's small sends): no job, no acquisition to release.
 * Only the plain case goes this way; anything else (a writer before it in
 * sequential-consistency order, a writer or reduction running, someone
 * queued, the data not valid on node, partitions, arbiters) is -EAGAIN
 * and the caller takes the ordinary acquisition path. */
int vela_data_read_now(starpu_data_handle_t handle, unsigned node, void (*fn)(void *data_interface, void *arg), void *arg)
{
	if (!data_handle_valid(handle) || !fn || node >= mem_nnodes || mem_nodes[node].kind != STARPU_CPU_RAM)
		return -EAGAIN;
	starpu_data_handle_t h = handle;
	int ret = -EAGAIN;
	os_mutex_lock(&h->lock);
	if (!h->parent && !h->partitioned && !h->plans && !h->arbiter && !h->cleaning &&
	    !h->wait_head && !h->busy_writer && !h->busy_redux && !data_implicit_would_wait(h, STARPU_R))
	{
		struct data_replicate *r = data_rep(h, node);
		if (r->allocated && rep_valid(r))
		{
			fn(starpu_data_get_interface_on_node(h, node), arg);
			ret = 0;
		}
	}
	os_mutex_unlock(&h->lock);
	return ret;
}
