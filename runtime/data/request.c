/* request.c — prefetches: copies of data to a node ahead of need.
 *
 * A prefetch is queued on its destination node and run by a worker that
 * makes transfers progress (the "data transfer processing" step of the
 * worker cycle, drivers/driver_loop.c): regular prefetches whenever a
 * worker looks for work, idle ones only when it has none. A real device's
 * worker starts the copy and goes on: its driver runs it in flight, and
 * the worker ends it later (transfer.c), so copies overlap kernels.
 * Simulated devices copy synchronously (a copy blocks the actor making it
 * for the simulated transfer time: data/README.md), so their nodes have a
 * transfer thread of their own instead, which runs their queue (regular
 * prefetches first) as requests arrive, as a GPU's copy engine would.
 * A prefetch takes
 * a buffer only if the node has room (it never evicts), holds a reference
 * on the handle so that it cannot be unregistered meanwhile, and needs no
 * access right: if the data is written while it is copied, the copy is
 * marked stale and dropped (transfer.c).
 *
 * A real device runs its copies from RAM on one stream, in the order they
 * were started: a task's own copy waits for every prefetch its worker
 * started before (drivers/cuda: the `in` stream). So in a simulation, a
 * worker about to copy a task's input to its device first waits for the
 * prefetches it released to the transfer thread (data_requests_wait_started,
 * unless VELA_SIM_COPY_FIFO=0). The worker of a real device sets its
 * prefetches up (allocates, queues the copy) while the stream still
 * copies: a prefetch the transfer thread takes as soon as the previous one
 * ends is charged no set-up costs (data_requests_setup_hidden). */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/sim_loader.h"
#include "core/workers.h"
#include "drivers/driver.h"
#include "perfmodel/dev_costs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Transfer threads per device node when a task's copies may overtake
 * the prefetches (VELA_SIM_COPY_FIFO=0, StarPU's simulation): there the
 * device's worker sets a prefetch up (allocates, queues the copy) and goes
 * on while the copy runs, so it sets the next one up meanwhile; copies
 * between the same two nodes still run one at a time, in order (node
 * driver). Two threads: while one copies, the other sets the next copy up
 * (on the device's driver thread, data/memory.h), which keeps the link
 * busy whenever a set-up is shorter than a copy. (More threads, which set
 * up further ahead, were tried: with 3 or 4, compare-starpusim's dmdas
 * cases went up to 8-19% above StarPU's, against 7% at most with 2.) */
#define XFER_THREADS 2

struct request
{
	starpu_data_handle_t handle;
	struct request *next;
};

/* lock protects the lists and the thread's fields; a leaf (requests run
 * with it released). */
struct request_queue
{
	os_mutex_t lock;
	struct request *head[2], *tail[2];	/* [0] regular, [1] idle */
	/* Device nodes: the transfer thread serving the queue. */
	os_cond_t cond;			/* a request arrived, or stop */
	os_thread_t thread[XFER_THREADS];
	unsigned nthreads;		/* started (1, or XFER_THREADS when copies may overtake) */
	int has_thread;			/* set by data_requests_start, cleared once joined */
	/* Requests the transfer thread may start: those queued when the
	 * node's worker last looked (data_progress), as the worker of a real
	 * device starts its prefetches between tasks, not during a kernel. */
	unsigned released;
	int running;			/* transfer threads running a request */
	/* Simulation: the running request was waiting when the previous
	 * copy ended, so a real device's worker set it up while that copy
	 * ran: its set-up costs are not charged (data_requests_setup_hidden). */
	int hidden;
	os_thread_t thread_self;	/* the (first) transfer thread, as it sees itself */
	os_cond_t idle_cond;		/* released requests all run */
	int stop;			/* drain the queue, then exit */
	char thread_name[32];
};

/* Prefetch copies a device keeps started ahead of its worker's own copies.
 * A task's own copy joins the device's in-order copy stream behind every
 * prefetch started before it: started four at a time between tasks, the
 * prefetches (for tasks that run much later) piled up there and each task
 * waited for four copies or more (an H200 Cholesky's first panel: 0.6-1.5
 * ms per 8 MiB tile's task instead of 0.35). Two keep the copy engine busy
 * from one visit of the worker to the next. The simulation releases as
 * many to its transfer thread (with VELA_SIM_COPY_FIFO=0, StarPU's
 * simulation, all of them). Not for a device whose copies run on the
 * engine of its kernels (PoCL's CPU device: no copy engine to keep busy;
 * its real runs did not change with the limit, its simulation moved 5-8%
 * away from them). */
#define PREFETCH_AHEAD 2

/* Whether node's prefetches in flight are limited (above). */
static int prefetches_limited(unsigned node)
{
	enum starpu_node_kind kind = mem_nodes[node].kind;
	return (kind == STARPU_CUDA_RAM || kind == STARPU_OPENCL_RAM) && !pm_dev_costs[node].copies_on_compute;
}

static struct request_queue queues[STARPU_MAXNODES];
static _Atomic int npending;
/* Simulation: a device's copies from RAM run in the order the worker
 * started them (data_requests_wait_started), as on a real device's copy
 * stream; VELA_SIM_COPY_FIFO=0 lets a task's own copies overtake the
 * prefetches (as StarPU's simulation does). Set by data_requests_start. */
static int copy_fifo;

int data_prefetch(starpu_data_handle_t h, unsigned node, int idle)
{
	if (node >= mem_nnodes)
		return -EINVAL;
	os_mutex_lock(&h->lock);
	struct data_replicate *rep = data_rep(h, node);
	if (rep_valid(rep) || rep->requested || rep->transferring)
	{
		/* The common case (a CPU worker's data in RAM): nothing to do. */
		os_mutex_unlock(&h->lock);
		return 0;
	}
	struct request *r = malloc(sizeof(*r));
	if (!r)
	{
		os_mutex_unlock(&h->lock);
		return -ENOMEM;
	}
	rep->requested = 1;
	h->nrefs++;	/* unregistration waits for the prefetch */
	os_mutex_unlock(&h->lock);

	r->handle = h;
	r->next = NULL;
	struct request_queue *q = &queues[node];
	atomic_fetch_add(&npending, 1);
	os_mutex_lock(&q->lock);
	if (q->tail[idle])
		q->tail[idle]->next = r;
	else
		q->head[idle] = r;
	q->tail[idle] = r;
	int threaded = __atomic_load_n(&q->has_thread, __ATOMIC_RELAXED);
	if (threaded)
		os_cond_broadcast(&q->cond);
	os_mutex_unlock(&q->lock);
	/* Else an idle worker can run it. */
	if (!threaded && rt.nworkers)
		worker_wake_one_idle(STARPU_NMAX_SCHED_CTXS, ~0u, 1);
	return 0;
}

static void run_request(struct request *r, unsigned node)
{
	starpu_data_handle_t h = r->handle;
	int free_handle = 0;
	os_mutex_lock(&h->lock);
	struct data_replicate *rep = data_rep(h, node);
	rep->requested = 0;
	if (!rep_valid(rep) && !rep->transferring && !rep->allocating)
	{
		/* Only if there is room: a prefetch never evicts. */
		struct memory_node *n = &mem_nodes[node];
		size_t size = h->ops->get_alloc_size ? h->ops->get_alloc_size(h) : h->ops->get_size(h);
		int room = n->total < 0 || starpu_memory_get_available(node) >= (ssize_t) size;
		if (rep->allocated || room)
		{
			if (!rep->allocated && h->ops->allocate_data_on_node)
			{
				int ret = data_allocate_replicate_quiet(h, node);
				if (ret)
					goto done;
			}
			/* A device takes the copy and runs it in flight. */
			if (rep->allocated && !rep_valid(rep) && !rep->transferring)
				data_transfer_start_locked(h, node);
		}
	}
done:
	free_handle = data_unref_locked(h);
	os_mutex_unlock(&h->lock);
	if (free_handle)
		data_handle_free_deferred(h);
	free(r);
}

/* Lets the transfer thread start the requests queued in q, as many as the
 * prefetch limit leaves room for (q->lock held): what a look of the node's
 * worker does (data_progress). */
static void release_locked(struct request_queue *q, unsigned node, int idle)
{
	unsigned n = 0;
	for (int level = 0; level <= idle; level++)
		for (struct request *r = q->head[level]; r; r = r->next)
			n++;
	if (copy_fifo && prefetches_limited(node))
	{
		unsigned room = q->running < PREFETCH_AHEAD ? PREFETCH_AHEAD - (unsigned) q->running : 0;
		n = n < room ? n : room;
	}
	if (n > q->released)
	{
		q->released = n;
		os_cond_broadcast(&q->cond);
	}
}

/* Whether every worker of node is asleep: none will look at its requests
 * before something wakes it. */
static int node_workers_asleep(unsigned node)
{
	int any = 0;
	for (unsigned i = 0; i < rt.nworkers; i++)
	{
		const struct worker *w = &rt.workers[i];
		if (w->memory_node != node)
			continue;
		if (atomic_load_explicit(&w->status, memory_order_acquire) != WS_SLEEPING)
			return 0;
		any = 1;
	}
	return any;
}

/* Takes the first request of q, regular ones first (q->lock held). */
static struct request *pop_locked(struct request_queue *q, int idle)
{
	for (int level = 0; level <= idle; level++)
	{
		struct request *r = q->head[level];
		if (r)
		{
			q->head[level] = r->next;
			if (!q->head[level])
				q->tail[level] = NULL;
			return r;
		}
	}
	return NULL;
}

static void *transfer_thread(void *arg)
{
	unsigned node = (unsigned) (uintptr_t) arg;
	struct request_queue *q = &queues[node];
	int waited = 1;
	os_mutex_lock(&q->lock);
	if (!q->thread_self)
		q->thread_self = os_thread_self();
	for (;;)
	{
		/* Requests queued while the node's worker sleeps (a prefetch the
		 * application asked for, or those the limit held back when it
		 * last looked): it would start them once woken, as a prefetch
		 * wakes a real device's worker; nothing else would, and an
		 * unregistration waiting for them would never end. */
		if (!q->released && !q->stop && (q->head[0] || q->head[1]) && node_workers_asleep(node))
			release_locked(q, node, 1);
		struct request *r = q->released || q->stop ? pop_locked(q, 1) : NULL;
		if (!r)
		{
			if (q->stop)
				break;
			os_cond_wait(&q->cond, &q->lock);
			waited = 1;
			continue;
		}
		/* Started while the previous prefetch was copying: on a real
		 * device, queued behind it on the stream, set up meanwhile. */
		__atomic_store_n(&q->hidden, copy_fifo && !waited, __ATOMIC_RELAXED);
		waited = 0;
		if (q->released)
			q->released--;
		q->running++;
		os_mutex_unlock(&q->lock);
		atomic_fetch_sub(&npending, 1);
		run_request(r, node);
		os_mutex_lock(&q->lock);
		__atomic_store_n(&q->hidden, 0, __ATOMIC_RELAXED);
		q->running--;
		if (!q->released || (!q->head[0] && !q->head[1]))
			os_cond_broadcast(&q->idle_cond);
	}
	os_mutex_unlock(&q->lock);
	return NULL;
}

int data_requests_start(void)
{
	const char *fifo = getenv("VELA_SIM_COPY_FIFO");
	copy_fifo = 1;
	if (fifo && *fifo && sim_running())
	{
		if (strcmp(fifo, "0") && strcmp(fifo, "1"))
		{
			rt_error("starpu_init: VELA_SIM_COPY_FIFO='%s' must be 1 (a task's copies wait for the prefetches "
				 "started before them) or 0 (they overtake them) (-EINVAL)", fifo);
			return -EINVAL;
		}
		copy_fifo = fifo[0] == '1';
	}
	for (unsigned node = 0; node < mem_nnodes; node++)
	{
		/* Devices whose driver queues copies need none: their worker
		 * starts the copies and they run in flight (transfer.c). */
		enum starpu_node_kind kind = mem_nodes[node].kind;
		if ((kind != STARPU_CUDA_RAM && kind != STARPU_OPENCL_RAM) || mem_nodes[node].ops->test)
			continue;
		struct request_queue *q = &queues[node];
		os_cond_init(&q->cond);
		os_cond_init(&q->idle_cond);
		char host[32];
		int simulated = sim_running() && sim_node_host(node, host, sizeof(host)) == 0;
		snprintf(q->thread_name, sizeof(q->thread_name), "xfer %s", mem_nodes[node].name);
		/* Simulation: on the device's platform host, as its worker. */
		struct os_thread_attr attr = { .name = q->thread_name, .host = simulated ? host : NULL };
		os_mutex_lock(&q->lock);
		q->stop = 0;
		q->nthreads = 0;
		q->thread_self = 0;
		int ret = 0;
		for (unsigned k = 0; k < (copy_fifo ? 1u : XFER_THREADS) && !ret; k++)
			if (!(ret = os_thread_create(&q->thread[k], &attr, transfer_thread, (void *) (uintptr_t) node)))
				q->nthreads++;
		__atomic_store_n(&q->has_thread, q->nthreads > 0, __ATOMIC_RELAXED);
		os_mutex_unlock(&q->lock);
		if (ret)
		{
			rt_error("starpu_init: cannot start the transfer thread of memory node %u (%s) (%d)", node,
				 mem_nodes[node].name, ret);
			data_requests_fini();
			return -ret;
		}
	}
	return 0;
}

int data_progress(unsigned node, int idle)
{
	if (atomic_load_explicit(&npending, memory_order_relaxed) == 0 || node >= mem_nnodes)
		return 0;
	struct request_queue *q = &queues[node];
	if (__atomic_load_n(&q->has_thread, __ATOMIC_RELAXED))
	{
		/* Its transfer thread runs them: let it start what is queued. */
		os_mutex_lock(&q->lock);
		release_locked(q, node, idle);
		os_mutex_unlock(&q->lock);
		return 0;
	}
	int ran = 0;
	int limited = prefetches_limited(node);
	for (int level = 0; level <= idle; level++)
	{
		/* A few at a time: a worker must get back to its tasks. */
		for (int k = 0; k < 4; k++)
		{
			if (limited && data_xfer_pending(node) >= PREFETCH_AHEAD)
				return ran;
			os_mutex_lock(&q->lock);
			struct request *r = q->head[level];
			if (r)
			{
				q->head[level] = r->next;
				if (!q->head[level])
					q->tail[level] = NULL;
			}
			os_mutex_unlock(&q->lock);
			if (!r)
				break;
			atomic_fetch_sub(&npending, 1);
			run_request(r, node);
			ran++;
		}
	}
	return ran;
}

void data_requests_wait_started(starpu_data_handle_t h, unsigned node)
{
	if (!copy_fifo || node >= mem_nnodes)
		return;
	struct request_queue *q = &queues[node];
	if (!__atomic_load_n(&q->has_thread, __ATOMIC_RELAXED))
		return;
	os_mutex_lock(&h->lock);
	struct data_replicate *r = data_rep(h, node);
	int copy = !rep_valid(r) && !r->transferring;
	os_mutex_unlock(&h->lock);
	if (!copy)
		return;
	os_mutex_lock(&q->lock);
	while (((q->released && (q->head[0] || q->head[1])) || q->running) && !q->stop)
		os_cond_wait(&q->idle_cond, &q->lock);
	os_mutex_unlock(&q->lock);
}

int data_requests_setup_hidden(unsigned node)
{
	if (node >= STARPU_MAXNODES)
		return 0;
	struct request_queue *q = &queues[node];
	return __atomic_load_n(&q->hidden, __ATOMIC_RELAXED) && q->thread_self == os_thread_self();
}

int data_progress_for_worker(unsigned node, int idle)
{
	/* Copies in flight into the node that are done. */
	int ran = data_xfer_pending(node) ? data_xfer_progress(node, 0) : 0;
	if (atomic_load_explicit(&npending, memory_order_relaxed) == 0)
		return ran;
	ran += data_progress(node, idle);
	/* Nodes without workers (disks) are served by the RAM workers. */
	if (mem_nodes[node].kind == STARPU_CPU_RAM)
		for (unsigned n = 0; n < mem_nnodes; n++)
			if (mem_nodes[n].kind == STARPU_DISK_RAM)
				ran += data_progress(n, idle);
	return ran;
}

void data_requests_fini(void)
{
	/* Transfer threads run what is left of their queues, then exit. */
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct request_queue *q = &queues[node];
		if (!__atomic_load_n(&q->has_thread, __ATOMIC_RELAXED))
			continue;
		os_mutex_lock(&q->lock);
		q->stop = 1;
		os_cond_broadcast(&q->cond);
		os_mutex_unlock(&q->lock);
		for (unsigned k = 0; k < q->nthreads; k++)
			os_thread_join(q->thread[k], NULL);
		q->nthreads = 0;
		__atomic_store_n(&q->has_thread, 0, __ATOMIC_RELAXED);
		os_cond_destroy(&q->cond);
		os_cond_destroy(&q->idle_cond);
	}
	/* Run what is left: each request holds a reference on its handle;
	 * then end the copies still in flight. */
	for (unsigned node = 0; node < mem_nnodes; node++)
		while (data_progress(node, 1))
			;
	data_xfer_fini();
}

/* ------------------------------------------------------------------ */
/* Prefetching a task's input (for scheduling policies). */

static int prefetch_task(struct starpu_task *task, unsigned node, int idle)
{
	if (!task->cl || node >= mem_nnodes)
		return node >= mem_nnodes ? -EINVAL : 0;
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	for (unsigned i = 0; i < n; i++)
	{
		enum starpu_data_access_mode mode = STARPU_TASK_GET_MODE(task, i);
		/* Only data the task reads is worth copying ahead. */
		if (!(mode & STARPU_R) || (mode & (STARPU_SCRATCH | STARPU_REDUX)))
			continue;
		starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
		if (data_handle_valid(h))
			data_prefetch(h, node, idle);
	}
	return 0;
}

int starpu_prefetch_task_input_on_node_prio(struct starpu_task *task, unsigned node, int prio)
{
	(void) prio;
	return prefetch_task(task, node, 0);
}

int starpu_prefetch_task_input_on_node(struct starpu_task *task, unsigned node)
{
	return prefetch_task(task, node, 0);
}

int starpu_idle_prefetch_task_input_on_node_prio(struct starpu_task *task, unsigned node, int prio)
{
	(void) prio;
	return prefetch_task(task, node, 1);
}

int starpu_idle_prefetch_task_input_on_node(struct starpu_task *task, unsigned node)
{
	return prefetch_task(task, node, 1);
}

int starpu_prefetch_task_input_for_prio(struct starpu_task *task, unsigned worker, int prio)
{
	return starpu_prefetch_task_input_on_node_prio(task, starpu_worker_get_memory_node(worker), prio);
}

int starpu_prefetch_task_input_for(struct starpu_task *task, unsigned worker)
{
	return starpu_prefetch_task_input_on_node(task, starpu_worker_get_memory_node(worker));
}

int starpu_idle_prefetch_task_input_for_prio(struct starpu_task *task, unsigned worker, int prio)
{
	return starpu_idle_prefetch_task_input_on_node_prio(task, starpu_worker_get_memory_node(worker), prio);
}

int starpu_idle_prefetch_task_input_for(struct starpu_task *task, unsigned worker)
{
	return starpu_idle_prefetch_task_input_on_node(task, starpu_worker_get_memory_node(worker));
}
