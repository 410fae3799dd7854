/* data_cpy.c — starpu_data_cpy: one handle's content copied into another
 * of the same interface and size, by a task (destination written, source
 * read) ordered by the implicit dependencies like any access. The copy
 * itself is the interface's own copy method between two buffers of the
 * worker's node, so it works for every interface, custom ones included.
 */
#include "core/rt.h"
#include "core/job.h"
#include "data/data.h"

#include <errno.h>

static void copy_cpu(void *buffers[], void *cl_arg)
{
	struct starpu_data_interface_ops *ops = cl_arg;
	int node = starpu_task_get_current_data_node(0);
	unsigned n = node < 0 ? STARPU_MAIN_RAM : (unsigned) node;
	const struct starpu_data_copy_methods *m = ops->copy_methods;
	int ret = -ENOSYS;
	if (m && m->any_to_any)
		ret = m->any_to_any(buffers[1], n, buffers[0], n, NULL);
	else if (m && m->ram_to_ram)
		ret = m->ram_to_ram(buffers[1], n, buffers[0], n);
	if (ret)
	{
		/* The task fails with the copy's error (vela_task_get_error, and
		 * what a synchronous starpu_data_cpy returns): the destination
		 * keeps what it held, and the application knows. */
		struct starpu_task *task = starpu_task_get_current();
		struct job *job = task ? task->starpu_private : NULL;
		if (job)
			job->error = (short) ret;
		rt_error("starpu_data_cpy: the interface '%s' could not copy on memory node %u (%d)",
			 ops->name ? ops->name : "?", n, ret);
	}
}

static struct starpu_codelet copy_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { copy_cpu },
	.nbuffers = 2,
	.modes = { STARPU_W, STARPU_R },
	.name = "starpu_data_cpy",
};

int starpu_data_cpy(starpu_data_handle_t dst_handle, starpu_data_handle_t src_handle, int asynchronous,
		    void (*callback_func)(void *), void *callback_arg)
{
	const char *fn = "starpu_data_cpy";
	if (!data_handle_valid(dst_handle) || !data_handle_valid(src_handle))
	{
		rt_error("%s: %s handle %p is not registered (-EINVAL)", fn, data_handle_valid(dst_handle) ? "source" : "destination",
			 (void *) (data_handle_valid(dst_handle) ? src_handle : dst_handle));
		return -EINVAL;
	}
	struct starpu_data_interface_ops *ops = starpu_data_get_interface_ops(dst_handle);
	if (ops != starpu_data_get_interface_ops(src_handle) ||
	    starpu_data_get_size(dst_handle) != starpu_data_get_size(src_handle))
	{
		rt_error("%s: handles %p and %p differ in interface or size (%zu and %zu bytes) (-EINVAL)", fn,
			 (void *) dst_handle, (void *) src_handle, starpu_data_get_size(dst_handle), starpu_data_get_size(src_handle));
		return -EINVAL;
	}
	if (dst_handle == src_handle)
	{
		if (callback_func)
			callback_func(callback_arg);
		return 0;
	}
	if (!asynchronous && rt_may_not_block(fn))
		return -EDEADLK;
	struct starpu_task *t = starpu_task_create();
	if (!t)
		return -ENOMEM;
	t->cl = &copy_cl;
	t->cl_arg = ops;
	t->handles[0] = dst_handle;
	t->handles[1] = src_handle;
	t->callback_func = callback_func;
	t->callback_arg = callback_arg;
	t->synchronous = !asynchronous;
	t->name = "starpu_data_cpy";
	/* Synchronous: the submission returns the copy's error too, and the
	 * task is ours to destroy whatever happened. */
	t->destroy = asynchronous;
	int ret = starpu_task_submit(t);
	if (ret || !asynchronous)
		starpu_task_destroy(t);
	return ret;
}
