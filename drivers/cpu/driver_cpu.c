/* driver_cpu.c — the CPU driver (a worker running codelets' CPU functions
 * on one core) and the RAM memory-node driver (malloc, memcpy).
 */
#define _GNU_SOURCE
#include "drivers/driver.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int cpu_execute(struct worker *w, struct job *j)
{
	(void) w;
	struct starpu_task *task = j->task;
	struct starpu_codelet *cl = task->cl;
	starpu_cpu_func_t f = cl->cpu_funcs[j->nimpl];
	if (!f)
	{
		/* Only a symbol name was given: look it up in the process. */
		const char *name = cl->cpu_funcs_name[j->nimpl];
		f = (starpu_cpu_func_t) dlsym(RTLD_DEFAULT, name);
		if (!f)
		{
			rt_error("codelet '%s': CPU implementation %u named '%s' was not found in the program (-ENOENT)",
				 starpu_task_get_name(task), j->nimpl, name);
			return -ENOENT;
		}
	}
	void **buffers = task->dyn_interfaces ? task->dyn_interfaces : task->interfaces;
	f(buffers, task->cl_arg);
	/* The runtime's own kernels (starpu_data_cpy's copy) may fail the
	 * task: they set its error (0 until then: reset at submission). */
	return j->error;
}

const struct drv_ops drv_cpu_ops = {
	.version = DRV_OPS_VERSION,
	.name = "cpu",
	.arch = STARPU_CPU_WORKER,
	.execute = cpu_execute,
};

/* ------------------------------------------------------------------ */
/* RAM. */

/* Large buffers are mapped directly: the C allocator keeps freed aligned
 * blocks in its heap and may not reuse them for the next aligned request,
 * so under eviction churn the process would grow far beyond what the
 * runtime accounts (STARPU_LIMIT_CPU_MEM). Mapped memory goes back to the
 * system on free. */
#define RAM_MMAP_THRESHOLD (256 * 1024)

static uintptr_t ram_malloc(unsigned node, size_t size, int flags)
{
	(void) node;
	(void) flags;
	if (size >= RAM_MMAP_THRESHOLD)
	{
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? 0 : (uintptr_t) p;
	}
	void *p = NULL;
	if (posix_memalign(&p, 64, size ? size : 1))
		return 0;
	return (uintptr_t) p;
}

static void ram_free(unsigned node, uintptr_t addr, size_t size, int flags)
{
	(void) node;
	(void) flags;
	if (size >= RAM_MMAP_THRESHOLD)
		munmap((void *) addr, size);
	else
		free((void *) addr);
}

static int ram_copy(uintptr_t src, size_t src_offset, unsigned src_node,
		    uintptr_t dst, size_t dst_offset, unsigned dst_node, size_t size, void *async)
{
	(void) src_node;
	(void) dst_node;
	(void) async;
	memcpy((char *) dst + dst_offset, (const char *) src + src_offset, size);
	return 0;
}

static int ram_copy2d(uintptr_t src, size_t src_offset, unsigned src_node,
		      uintptr_t dst, size_t dst_offset, unsigned dst_node,
		      size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst, void *async)
{
	(void) src_node;
	(void) dst_node;
	(void) async;
	for (size_t i = 0; i < numblocks; i++)
		memcpy((char *) dst + dst_offset + i * ld_dst, (const char *) src + src_offset + i * ld_src, blocksize);
	return 0;
}

static ssize_t ram_total_memory(unsigned node)
{
	(void) node;
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || page <= 0)
		return -1;
	return (ssize_t) pages * page;
}

const struct drv_node_ops drv_ram_node_ops = {
	.version = DRV_OPS_VERSION,
	.name = "ram",
	.kind = STARPU_CPU_RAM,
	.malloc = ram_malloc,
	.free = ram_free,
	.copy = ram_copy,
	.copy2d = ram_copy2d,
	.total_memory = ram_total_memory,
};
