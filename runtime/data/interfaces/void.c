/* void.c — the void interface: a handle with no data, used only to order
 * tasks (a task accessing it in W waits for the earlier ones, in R it
 * runs alongside other readers). Nothing is allocated or copied. */
#include "data/data.h"

#include <errno.h>
#include <stdio.h>

struct void_interface
{
	enum starpu_data_interface_id id;
};

static void void_register(starpu_data_handle_t handle, unsigned home_node, void *data_interface)
{
	(void) home_node;
	(void) data_interface;
	for (unsigned node = 0; node < STARPU_MAXNODES; node++)
		((struct void_interface *) starpu_data_get_interface_on_node(handle, node))->id = STARPU_VOID_INTERFACE_ID;
}

static starpu_ssize_t void_allocate(void *data_interface, unsigned node)
{
	(void) data_interface;
	(void) node;
	return 0;
}

static void void_free(void *data_interface, unsigned node)
{
	(void) data_interface;
	(void) node;
}

static int void_copy(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data)
{
	(void) src_interface;
	(void) src_node;
	(void) dst_interface;
	(void) dst_node;
	(void) async_data;
	return 0;
}

static const struct starpu_data_copy_methods void_copy_methods = {
	.any_to_any = void_copy,
};

static size_t void_get_size(starpu_data_handle_t handle)
{
	(void) handle;
	return 0;
}

static uint32_t void_footprint(starpu_data_handle_t handle)
{
	(void) handle;
	return 0;
}

static int void_compare(void *a, void *b)
{
	(void) a;
	(void) b;
	return 1;
}

static starpu_ssize_t void_describe(void *data_interface, char *buf, size_t size)
{
	(void) data_interface;
	return snprintf(buf, size, "0");
}

static void void_display(starpu_data_handle_t handle, FILE *f)
{
	(void) handle;
	fprintf(f, "void\t");
}

static int void_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	(void) handle;
	(void) node;
	*count = 0;
	if (ptr)
		*ptr = NULL;
	return 0;
}

static int void_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t count)
{
	(void) handle;
	(void) node;
	(void) ptr;
	return count ? -EINVAL : 0;
}

struct starpu_data_interface_ops starpu_interface_void_ops = {
	.register_data_handle = void_register,
	.allocate_data_on_node = void_allocate,
	.free_data_on_node = void_free,
	.copy_methods = &void_copy_methods,
	.get_size = void_get_size,
	.footprint = void_footprint,
	.compare = void_compare,
	.describe = void_describe,
	.display = void_display,
	.pack_data = void_pack,
	.unpack_data = void_unpack,
	.interfaceid = STARPU_VOID_INTERFACE_ID,
	.interface_size = sizeof(struct void_interface),
	.name = "STARPU_VOID_INTERFACE",
};

void starpu_void_data_register(starpu_data_handle_t *handle)
{
	struct void_interface v = { STARPU_VOID_INTERFACE_ID };
	data_register_common(handle, STARPU_MAIN_RAM, &v, &starpu_interface_void_ops);
}
