/* reduction.c — STARPU_REDUX accesses.
 *
 * Tasks accessing a handle in REDUX mode do not touch the data itself: each
 * worker gets its own contribution buffer, initialised with the handle's
 * init_cl the first time the worker contributes, and the tasks of a worker
 * accumulate into it (one at a time per worker, so several workers
 * contribute in parallel). The contributions are folded into the data with
 * redux_cl lazily, by a reduction job that the first non-REDUX access
 * after the contributions brings in (implicit.c): it depends on every
 * contributing task and the access depends on it. Data with nothing
 * written to it (registered with home node -1, or invalidated since, in
 * submission order) is first set by init_cl, as StarPU does.
 *
 * The kernels of init_cl and redux_cl run directly on the worker, their
 * CPU implementation. A device worker's contribution lives on its device:
 * it is initialised in a RAM buffer and copied there, and brought back to
 * RAM to be folded, so that reductions need CPU methods only.
 *
 * Out of core: a contribution is at rest while no job uses it (between its
 * worker's REDUX tasks, until the fold), and at-rest contributions in RAM
 * do not count as memory in use. When RAM is short, eviction moves them to
 * the swap disk (data_redux_spill); the worker's next task or the fold
 * reads them back. Without a swap disk (or with a full one) they stay, and
 * a task that cannot get its memory fails with -ENOMEM saying so.
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The handles with contributions, for data_redux_spill. Order: a handle's
 * lock, then this one; under it, handle locks are only tried. */
static os_mutex_t redux_list_lock = OS_MUTEX_INITIALIZER;
static starpu_data_handle_t redux_list;

static void list_add(starpu_data_handle_t h)
{
	os_mutex_lock(&redux_list_lock);
	if (!h->redux_listed)
	{
		h->redux_prev = NULL;
		h->redux_next = redux_list;
		if (redux_list)
			redux_list->redux_prev = h;
		redux_list = h;
		h->redux_listed = 1;
	}
	os_mutex_unlock(&redux_list_lock);
}

static void list_remove(starpu_data_handle_t h)
{
	os_mutex_lock(&redux_list_lock);
	if (h->redux_listed)
	{
		if (h->redux_prev)
			h->redux_prev->redux_next = h->redux_next;
		else
			redux_list = h->redux_next;
		if (h->redux_next)
			h->redux_next->redux_prev = h->redux_prev;
		h->redux_listed = 0;
	}
	os_mutex_unlock(&redux_list_lock);
}

/* Bytes of contributions at rest on node (h->lock held, or the
 * contributions detached from h). */
static ssize_t alloc_size(starpu_data_handle_t h)
{
	/* As data_allocate_private counts it. */
	if (h->ops->get_alloc_size)
		return (ssize_t) h->ops->get_alloc_size(h);
	return h->ops->get_size ? (ssize_t) h->ops->get_size(h) : 0;
}

static void rest_add(starpu_data_handle_t h, unsigned node, int sign)
{
	atomic_fetch_add(&mem_nodes[node].redux_rest_bytes, sign * alloc_size(h));
}

static starpu_cpu_func_t cpu_impl(struct starpu_codelet *cl)
{
	if (!cl)
		return NULL;
	task_codelet_check(cl);
	for (unsigned i = 0; i < STARPU_MAXIMPLEMENTATIONS; i++)
		if (cl->cpu_funcs[i])
			return cl->cpu_funcs[i];
	return NULL;
}

int data_redux_check(starpu_data_handle_t h, const char *fn)
{
	if (!h->redux_cl || !h->init_cl)
	{
		rt_error("%s: handle %p is accessed in STARPU_REDUX mode but starpu_data_set_reduction_methods was not called for it (-EINVAL)",
			 fn, (void *) h);
		return -EINVAL;
	}
	if (!cpu_impl(h->redux_cl) || !cpu_impl(h->init_cl))
	{
		rt_error("%s: the reduction methods of handle %p need a CPU implementation (-ENODEV)", fn, (void *) h);
		return -ENODEV;
	}
	return 0;
}

/* A copy of h's interface on node into iface (its shape; the pointers are
 * set by the allocation). Under h->lock: eviction may change the
 * replicate meanwhile. */
static void shape_of(starpu_data_handle_t h, unsigned node, void *iface)
{
	os_mutex_lock(&h->lock);
	memcpy(iface, data_rep(h, node)->interface, h->ops->interface_size);
	os_mutex_unlock(&h->lock);
}

/* A contribution on a device, through a RAM buffer of its shape: fold 0
 * initialises it there with init_cl and copies it to the device; fold 1
 * copies it back and folds it into dst (the data, valid in RAM). */
static int through_ram(starpu_data_handle_t h, void *dev_iface, unsigned node, int fold, void *dst)
{
	void *ram = malloc(h->ops->interface_size);
	if (!ram)
		return -ENOMEM;
	shape_of(h, STARPU_MAIN_RAM, ram);
	int ret = data_allocate_private_quiet(h, ram, STARPU_MAIN_RAM);
	if (ret)
	{
		free(ram);
		return ret;
	}
	if (!fold)
	{
		void *buffers[1] = { ram };
		cpu_impl(h->init_cl)(buffers, NULL);
		ret = data_copy_ifaces(h, ram, STARPU_MAIN_RAM, dev_iface, node, NULL);
	}
	else if (!(ret = data_copy_ifaces(h, dev_iface, node, ram, STARPU_MAIN_RAM, NULL)))
	{
		void *pair[2] = { dst, ram };
		cpu_impl(h->redux_cl)(pair, NULL);
	}
	if (ret)
		rt_error("data %p: its reduction contribution could not be copied between memory nodes %u and %u (%d)",
			 (void *) h, node, STARPU_MAIN_RAM, ret);
	data_free_private(h, ram, STARPU_MAIN_RAM);
	free(ram);
	return ret;
}

int data_redux_contribution(starpu_data_handle_t h, int workerid, unsigned node, void **ifacep)
{
	os_mutex_lock(&h->lock);
	if (!h->redux_contrib)
	{
		h->redux_contrib = calloc(STARPU_NMAXWORKERS, sizeof(void *));
		h->redux_node = calloc(STARPU_NMAXWORKERS, sizeof(unsigned));
		h->redux_busy = calloc(STARPU_NMAXWORKERS, sizeof(unsigned));
		if (!h->redux_contrib || !h->redux_node || !h->redux_busy)
		{
			free(h->redux_contrib);
			free(h->redux_node);
			free(h->redux_busy);
			h->redux_contrib = NULL;
			h->redux_node = NULL;
			h->redux_busy = NULL;
			os_mutex_unlock(&h->lock);
			return -ENOMEM;
		}
		list_add(h);
	}
	void *iface = h->redux_contrib[workerid];
	if (iface)
	{
		if (h->redux_busy[workerid]++ == 0)
			rest_add(h, h->redux_node[workerid], -1);
		unsigned at = h->redux_node[workerid];
		os_mutex_unlock(&h->lock);
		if (at == node)
		{
			*ifacep = iface;
			return 0;
		}
		/* Spilled to the swap disk while at rest: back to the worker's
		 * node (busy meanwhile, so nothing moves it again). */
		void *back = malloc(h->ops->interface_size);
		int ret = back ? 0 : -ENOMEM;
		if (!ret)
		{
			shape_of(h, node, back);
			ret = data_allocate_private(h, back, node);
			if (ret)
				free(back);
		}
		if (!ret && (ret = data_copy_ifaces(h, iface, at, back, node, NULL)))
		{
			rt_error("data %p: its reduction contribution could not be read back from memory node %u (%d)",
				 (void *) h, at, ret);
			data_free_private(h, back, node);
			free(back);
		}
		os_mutex_lock(&h->lock);
		if (ret)
		{
			if (--h->redux_busy[workerid] == 0)
				rest_add(h, at, 1);
			os_mutex_unlock(&h->lock);
			return ret;
		}
		h->redux_contrib[workerid] = back;
		h->redux_node[workerid] = node;
		os_mutex_unlock(&h->lock);
		data_free_private(h, iface, at);
		free(iface);
		*ifacep = back;
		return 0;
	}
	os_mutex_unlock(&h->lock);
	/* A buffer of the data's shape, initialised by init_cl. Only this
	 * worker creates its own contribution: no race on the slot. */
	iface = malloc(h->ops->interface_size);
	if (!iface)
		return -ENOMEM;
	shape_of(h, node, iface);
	int ret = data_allocate_private(h, iface, node);
	if (ret)
	{
		free(iface);
		if (ret != -EAGAIN)
			rt_error("cannot allocate the reduction contribution of worker %d for handle %p (%d)", workerid, (void *) h, ret);
		return ret;
	}
	if (mem_nodes[node].kind == STARPU_CPU_RAM)
	{
		void *buffers[1] = { iface };
		cpu_impl(h->init_cl)(buffers, NULL);
	}
	else if ((ret = through_ram(h, iface, node, 0, NULL)))
	{
		data_free_private(h, iface, node);
		free(iface);
		return ret;
	}
	os_mutex_lock(&h->lock);
	h->redux_contrib[workerid] = iface;
	h->redux_node[workerid] = node;
	h->redux_busy[workerid] = 1;
	os_mutex_unlock(&h->lock);
	*ifacep = iface;
	return 0;
}

void data_redux_release(starpu_data_handle_t h, int workerid)
{
	os_mutex_lock(&h->lock);
	if (h->redux_busy && h->redux_contrib[workerid] && h->redux_busy[workerid]
	    && --h->redux_busy[workerid] == 0)
		rest_add(h, h->redux_node[workerid], 1);
	os_mutex_unlock(&h->lock);
}

/* Moves h's contributions at rest on node to the swap disk (h->lock
 * held); adds the bytes freed to *freed. 0, or -1 when the disk has no
 * room (stop trying). */
static int spill_handle(starpu_data_handle_t h, unsigned node, unsigned disk, ssize_t *freed)
{
	ssize_t size = alloc_size(h);
	for (unsigned w = 0; w < STARPU_NMAXWORKERS; w++)
	{
		void *iface = h->redux_contrib[w];
		if (!iface || h->redux_node[w] != node || h->redux_busy[w])
			continue;
		void *d = malloc(h->ops->interface_size);
		if (!d)
			return -1;
		memcpy(d, data_rep(h, disk)->interface, h->ops->interface_size);
		if (data_allocate_private_quiet(h, d, disk))
		{
			free(d);
			return -1;
		}
		int ret = data_copy_ifaces(h, iface, node, d, disk, NULL);
		if (ret)
		{
			data_free_private(h, d, disk);
			free(d);
			return -1;
		}
		rest_add(h, node, -1);
		rest_add(h, disk, 1);
		h->redux_contrib[w] = d;
		h->redux_node[w] = disk;
		data_free_private(h, iface, node);
		free(iface);
		*freed += size;
	}
	return 0;
}

ssize_t data_redux_spill(unsigned node, ssize_t need)
{
	int disk = starpu_disk_swap_node;
	if (disk < 0)
		return 0;
	ssize_t freed = 0;
	os_mutex_lock(&redux_list_lock);
	for (starpu_data_handle_t h = redux_list; h && freed < need; h = h->redux_next)
	{
		if (os_mutex_trylock(&h->lock))
			continue;	/* busy: someone else uses it, skip */
		int full = h->redux_contrib && h->ooc ? spill_handle(h, node, (unsigned) disk, &freed) : 0;
		os_mutex_unlock(&h->lock);
		if (full)
			break;
	}
	os_mutex_unlock(&redux_list_lock);
	return freed;
}

/* The reduction job's kernel: fold every contribution into the data. The
 * worker runs it with the data valid in RAM (buffers[0]). */
static void fold_cpu(void *buffers[], void *cl_arg)
{
	starpu_data_handle_t h = cl_arg;
	starpu_cpu_func_t redux = cpu_impl(h->redux_cl);
	os_mutex_lock(&h->lock);
	void **contrib = h->redux_contrib;
	unsigned *nodes = h->redux_node;
	unsigned *busy = h->redux_busy;
	h->redux_contrib = NULL;
	h->redux_node = NULL;
	h->redux_busy = NULL;
	/* Every contributing task is done: all at rest. */
	for (unsigned w = 0; contrib && w < STARPU_NMAXWORKERS; w++)
		if (contrib[w] && !busy[w])
			rest_add(h, nodes[w], -1);
	os_mutex_unlock(&h->lock);
	if (!contrib)
		return;
	list_remove(h);
	/* Those in RAM first: freeing them makes room for reading back the
	 * others (on a device, or spilled to the swap disk). */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned w = 0; w < STARPU_NMAXWORKERS; w++)
		{
			if (!contrib[w] || (mem_nodes[nodes[w]].kind == STARPU_CPU_RAM) != (pass == 0))
				continue;
			if (pass == 0)
			{
				void *pair[2] = { buffers[0], contrib[w] };
				redux(pair, NULL);
			}
			else
			{
				int ret;
				while ((ret = through_ram(h, contrib[w], nodes[w], 1, buffers[0])) == -EAGAIN)
					data_wait_memory(STARPU_MAIN_RAM);
				if (ret)
				{
					char label[96];
					rt_error("data %s: the reduction contribution of worker %u on memory node %u could not be "
						 "folded (%d): the data misses it", data_label(h, label, sizeof(label)), w, nodes[w], ret);
					/* The fold job fails with it (vela_task_get_error,
					 * the count at shutdown): the result is wrong. */
					struct starpu_task *task = starpu_task_get_current();
					struct job *job = task ? task->starpu_private : NULL;
					if (job && !job->error)
						job->error = (short) ret;
				}
			}
			data_free_private(h, contrib[w], nodes[w]);
			free(contrib[w]);
		}
	free(contrib);
	free(nodes);
	free(busy);
}

static struct starpu_codelet fold_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { fold_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "redux_fold",
};

/* The same for data with nothing written (never, or invalidated since):
 * as StarPU does, the data itself starts from init_cl. */
static void fold_init_cpu(void *buffers[], void *cl_arg)
{
	starpu_data_handle_t h = cl_arg;
	cpu_impl(h->init_cl)(buffers, NULL);
	fold_cpu(buffers, cl_arg);
}

static struct starpu_codelet fold_init_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { fold_init_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "redux_fold",
};

struct job *data_redux_job_locked(starpu_data_handle_t h)
{
	struct starpu_task *t = job_alloc_task();
	if (!t)
	{
		rt_error("out of memory creating the reduction of handle %p", (void *) h);
		abort();
	}
	int undefined = h->seq_undefined;
	h->seq_undefined = 0;
	struct starpu_codelet *cl = undefined ? &fold_init_cl : &fold_cl;
	t->cl = cl;
	t->cl_arg = h;
	t->handles[0] = h;
	t->name = "redux_fold";
	task_codelet_check(cl);
	return data_internal_job_locked(h, t, undefined ? STARPU_W : STARPU_RW, 0);
}

void data_redux_free(starpu_data_handle_t h)
{
	list_remove(h);
	if (!h->redux_contrib)
		return;
	for (unsigned w = 0; w < STARPU_NMAXWORKERS; w++)
		if (h->redux_contrib[w])
		{
			if (!h->redux_busy[w])
				rest_add(h, h->redux_node[w], -1);
			data_free_private(h, h->redux_contrib[w], h->redux_node[w]);
			free(h->redux_contrib[w]);
		}
	free(h->redux_contrib);
	free(h->redux_node);
	free(h->redux_busy);
	h->redux_contrib = NULL;
	h->redux_node = NULL;
	h->redux_busy = NULL;
}
