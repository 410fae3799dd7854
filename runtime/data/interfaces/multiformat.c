/* multiformat.c — the multiformat interface: nx objects in one layout on
 * CPUs and another on devices (starpu_multiformat_data_interface_ops).
 *
 * What layout a node holds is its driver's answer (drv_node_ops.mf_format:
 * NULL for the CPU layout), so nothing here knows a device kind. A
 * replicate keeps the data in its node's own layout, as StarPU 1.3 does:
 *
 *   - in RAM, cpu_ptr; on a device node, the device layout (opencl_ptr,
 *     cuda_ptr) and a buffer in the CPU layout (cpu_ptr) to receive copies;
 *   - a copy from RAM to a device carries the CPU layout into the device's
 *     cpu_ptr and marks the replicate vela_convert: before a task uses it
 *     there, the worker of that node runs the conversion codelet
 *     (cpu_to_opencl_cl, ...) on it (mf_conversion_for, called by the
 *     driver loop with the data fetched);
 *   - a copy from a device to RAM carries the device layout into a buffer
 *     of that layout in RAM (allocated on first use, freed with the
 *     replicate) and converts it to cpu_ptr at once with the CPU
 *     implementation of opencl_to_cpu_cl, ..., whoever copies (a CPU
 *     worker, an unregistration, an acquisition, an eviction);
 *   - copies are synchronous: a conversion follows each.
 *
 * So a RAM -> device -> RAM round trip converts twice, as in StarPU; a
 * replicate only read on a device stays valid in RAM, where StarPU would
 * convert back once more (its conversions are read-write tasks).
 */
#include "data/data.h"
#include "data/memory.h"
#include "drivers/driver.h"
#include "core/rt.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* node's layout; 0 for the CPU one, 1 for a device one (f filled). */
static int node_format(const struct starpu_multiformat_data_interface_ops *ops, unsigned node, struct drv_mf_format *f)
{
	const struct drv_node_ops *no = node < mem_nnodes ? mem_nodes[node].ops : NULL;
	if (!no || !no->mf_format)
		return 0;
	memset(f, 0, sizeof(*f));
	no->mf_format(ops, f);
	return 1;
}

static void **field(struct starpu_multiformat_interface *m, const struct drv_mf_format *f)
{
	return (void **) ((char *) m + f->ptr_offset);
}

static void mf_register(starpu_data_handle_t handle, unsigned home_node, void *data_interface)
{
	struct starpu_multiformat_interface *src = data_interface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
	{
		struct starpu_multiformat_interface *m = starpu_data_get_interface_on_node(handle, node);
		memset(m, 0, sizeof(*m));
		m->id = STARPU_MULTIFORMAT_INTERFACE_ID;
		m->nx = src->nx;
		m->ops = src->ops;
		if (node == home_node)
			m->cpu_ptr = src->cpu_ptr;
	}
}

void starpu_multiformat_data_register(starpu_data_handle_t *handleptr, int home_node, void *ptr, uint32_t nobjects,
				      struct starpu_multiformat_data_interface_ops *format_ops)
{
	const char *bad = NULL;
	if (!format_ops)
		bad = "format_ops is NULL";
	else if (!format_ops->cpu_elemsize)
		bad = "format_ops->cpu_elemsize is 0";
	else if (home_node >= 0 && !ptr)
		bad = "ptr is NULL with a home node (use home node -1 for data the runtime allocates)";
	if (bad)
	{
		rt_error("starpu_multiformat_data_register: %s", bad);
		if (handleptr)
			*handleptr = NULL;
		return;
	}
	struct starpu_multiformat_interface m = {
		.id = STARPU_MULTIFORMAT_INTERFACE_ID,
		.cpu_ptr = ptr,
		.nx = nobjects,
		.ops = format_ops,
	};
	data_register_common(handleptr, home_node, &m, &starpu_interface_multiformat_ops);
}

static void free_staging(struct starpu_multiformat_interface *m)
{
	/* buffers of device layouts that came back to RAM (plain malloc) */
	free(m->cuda_ptr);
	free(m->opencl_ptr);
	free(m->mic_ptr);
	m->cuda_ptr = m->opencl_ptr = m->mic_ptr = NULL;
}

static starpu_ssize_t mf_allocate(void *data_interface, unsigned node)
{
	struct starpu_multiformat_interface *m = data_interface;
	struct drv_mf_format f;
	size_t cpu = (size_t) m->nx * m->ops->cpu_elemsize;
	uintptr_t p = starpu_malloc_on_node(node, cpu);
	if (!p)
		return -ENOMEM;
	m->cpu_ptr = (void *) p;
	m->vela_convert = 0;
	if (!node_format(m->ops, node, &f))
		return (starpu_ssize_t) cpu;
	if (!f.elemsize)
	{
		starpu_free_on_node(node, p, cpu);
		m->cpu_ptr = NULL;
		rt_error("starpu_multiformat_data_register: format_ops->%s_elemsize is 0: the data cannot go to node %u (%s)",
			 f.ptr_offset == offsetof(struct starpu_multiformat_interface, opencl_ptr) ? "opencl" : "cuda", node, f.kind);
		return -EINVAL;
	}
	size_t dev = (size_t) m->nx * f.elemsize;
	uintptr_t q = starpu_malloc_on_node(node, dev);
	if (!q)
	{
		starpu_free_on_node(node, p, cpu);
		m->cpu_ptr = NULL;
		return -ENOMEM;
	}
	*field(m, &f) = (void *) q;
	return (starpu_ssize_t) (cpu + dev);
}

static void mf_free(void *data_interface, unsigned node)
{
	struct starpu_multiformat_interface *m = data_interface;
	struct drv_mf_format f;
	starpu_free_on_node(node, (uintptr_t) m->cpu_ptr, (size_t) m->nx * m->ops->cpu_elemsize);
	m->cpu_ptr = NULL;
	if (node_format(m->ops, node, &f))
	{
		starpu_free_on_node(node, (uintptr_t) *field(m, &f), (size_t) m->nx * f.elemsize);
		*field(m, &f) = NULL;
	}
	else
		free_staging(m);
}

static void mf_unregister(starpu_data_handle_t handle)
{
	/* the staging buffers of RAM replicates the application owns */
	for (unsigned node = 0; node < mem_nnodes; node++)
	{
		struct starpu_multiformat_interface *m = starpu_data_get_interface_on_node(handle, node);
		struct drv_mf_format f;
		if (!node_format(m->ops, node, &f))
			free_staging(m);
	}
}

/* Runs the CPU implementation of cl on the RAM replicate m. */
static int convert_on_cpu(struct starpu_codelet *cl, const char *name, struct starpu_multiformat_interface *m, unsigned node)
{
	starpu_cpu_func_t fn = cl ? cl->cpu_funcs[0] : NULL;
	if (!fn && cl && cl->cpu_func && cl->cpu_func != STARPU_MULTIPLE_CPU_IMPLEMENTATIONS)
		fn = cl->cpu_func;
	if (!fn)
	{
		rt_error("starpu_multiformat_data_register: format_ops->%s %s: the data cannot come back to node %u in the CPU format",
			 name, cl ? "has no CPU implementation" : "is NULL", node);
		return -EINVAL;
	}
	void *buffers[1] = { m };
	fn(buffers, NULL);
	return 0;
}

static int mf_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data)
{
	(void) async_data;	/* synchronous: a conversion may follow */
	struct starpu_multiformat_interface *s = src_interface, *d = dst_interface;
	struct drv_mf_format fs, fd;
	int sdev = node_format(s->ops, src_node, &fs), ddev = node_format(d->ops, dst_node, &fd);
	size_t cpu = (size_t) s->nx * s->ops->cpu_elemsize;
	if (!sdev || s->vela_convert || (ddev && fs.ptr_offset != fd.ptr_offset))
	{
		/* the CPU layout is what the source holds (or the common
		 * ground of two device layouts, converted on arrival) */
		if (sdev && !s->vela_convert)
		{
			rt_error("multiformat: no conversion between the %s and %s layouts (nodes %u and %u)", fs.kind, fd.kind, src_node, dst_node);
			return -EINVAL;
		}
		int ret = starpu_interface_copy((uintptr_t) s->cpu_ptr, 0, src_node, (uintptr_t) d->cpu_ptr, 0, dst_node, cpu, NULL);
		d->vela_convert = (unsigned char) ddev;
		return ret;
	}
	size_t dev = (size_t) s->nx * fs.elemsize;
	if (ddev)
	{
		/* device to device of the same layout */
		d->vela_convert = 0;
		return starpu_interface_copy((uintptr_t) *field(s, &fs), 0, src_node, (uintptr_t) *field(d, &fd), 0, dst_node, dev, NULL);
	}
	/* device layout into RAM, then converted there */
	void **stage = field(d, &fs);
	if (!*stage && !(*stage = malloc(dev ? dev : 1)))
		return -ENOMEM;
	int ret = starpu_interface_copy((uintptr_t) *field(s, &fs), 0, src_node, (uintptr_t) *stage, 0, dst_node, dev, NULL);
	if (ret)
		return ret;
	d->vela_convert = 0;
	return convert_on_cpu(fs.from_cl, fs.from_name, d, dst_node);
}

int mf_check_for(starpu_data_handle_t h, unsigned node, unsigned mode)
{
	if (h->ops != &starpu_interface_multiformat_ops)
		return 0;
	struct starpu_multiformat_interface *m = starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
	struct drv_mf_format f;
	if (!node_format(m->ops, node, &f))
		return 0;
	const char *missing = NULL;
	char what[48];
	if (!f.elemsize)
	{
		snprintf(what, sizeof(what), "%s_elemsize is 0", f.ptr_offset == offsetof(struct starpu_multiformat_interface, opencl_ptr) ? "opencl" : "cuda");
		missing = what;
	}
	else if (!f.to_cl && !(mode == STARPU_W))
	{
		snprintf(what, sizeof(what), "%s is NULL", f.to_name);
		missing = what;
	}
	else if ((mode & STARPU_W) && (!f.from_cl || (!f.from_cl->cpu_funcs[0] && !f.from_cl->cpu_func)))
	{
		snprintf(what, sizeof(what), "%s %s", f.from_name, f.from_cl ? "has no CPU implementation" : "is NULL");
		missing = what;
	}
	if (!missing)
		return 0;
	rt_error("starpu_multiformat_data_register: format_ops->%s: data %p cannot be used on node %u (%s) (-EINVAL)",
		 missing, (void *) h, node, f.kind);
	return -EINVAL;
}

int mf_conversion_for(starpu_data_handle_t h, unsigned node, unsigned mode, void *iface, struct starpu_codelet **cl)
{
	*cl = NULL;
	if (h->ops != &starpu_interface_multiformat_ops)
		return 0;
	struct starpu_multiformat_interface *m = iface;
	struct drv_mf_format f;
	if (!m->vela_convert || !node_format(m->ops, node, &f))
		return 0;
	if (!(mode & STARPU_R))
	{
		/* written whole in the device layout: nothing to convert (a
		 * buffer from the allocation cache may carry an old mark) */
		m->vela_convert = 0;
		return 0;
	}
	if (!f.to_cl)
	{
		rt_error("starpu_multiformat_data_register: format_ops->%s is NULL: data %p cannot be converted for node %u (%s) (-EINVAL)",
			 f.to_name, (void *) h, node, f.kind);
		return -EINVAL;
	}
	*cl = f.to_cl;
	return 0;
}

void mf_conversion_done(void *iface)
{
	((struct starpu_multiformat_interface *) iface)->vela_convert = 0;
}

static const struct starpu_data_copy_methods mf_copy_methods = {
	.any_to_any = mf_copy,
};

static size_t mf_get_size(starpu_data_handle_t handle)
{
	struct starpu_multiformat_interface *m = starpu_data_get_interface_on_node(handle, STARPU_MAIN_RAM);
	return (size_t) m->nx * m->ops->cpu_elemsize;
}

static uint32_t mf_footprint(starpu_data_handle_t handle)
{
	struct starpu_multiformat_interface *m = starpu_data_get_interface_on_node(handle, STARPU_MAIN_RAM);
	return data_hash_u32(m->nx, 0);
}

static int mf_compare(void *a, void *b)
{
	struct starpu_multiformat_interface *x = a, *y = b;
	return x->nx == y->nx && x->ops == y->ops;
}

static starpu_ssize_t mf_describe(void *data_interface, char *buf, size_t size)
{
	return snprintf(buf, size, "M%u", ((struct starpu_multiformat_interface *) data_interface)->nx);
}

static void mf_display(starpu_data_handle_t handle, FILE *f)
{
	struct starpu_multiformat_interface *m = starpu_data_get_interface_on_node(handle, STARPU_MAIN_RAM);
	fprintf(f, "%u\t", m->nx);
}

static void *mf_to_pointer(void *data_interface, unsigned node)
{
	struct starpu_multiformat_interface *m = data_interface;
	struct drv_mf_format f;
	return node_format(m->ops, node, &f) ? *field(m, &f) : m->cpu_ptr;
}

static struct starpu_multiformat_data_interface_ops *mf_get_ops(void *data_interface)
{
	return ((struct starpu_multiformat_interface *) data_interface)->ops;
}

struct starpu_data_interface_ops starpu_interface_multiformat_ops = {
	.register_data_handle = mf_register,
	.unregister_data_handle = mf_unregister,
	.allocate_data_on_node = mf_allocate,
	.free_data_on_node = mf_free,
	.copy_methods = &mf_copy_methods,
	.get_size = mf_get_size,
	.footprint = mf_footprint,
	.compare = mf_compare,
	.describe = mf_describe,
	.display = mf_display,
	.to_pointer = mf_to_pointer,
	.interfaceid = STARPU_MULTIFORMAT_INTERFACE_ID,
	.interface_size = sizeof(struct starpu_multiformat_interface),
	.is_multiformat = 1,
	.get_mf_ops = mf_get_ops,
	.name = "STARPU_MULTIFORMAT_INTERFACE",
};
