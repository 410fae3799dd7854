/* sparse.c — see sparse.h. */
#include "data/interfaces/sparse.h"

#include <errno.h>
#include <string.h>

static uintptr_t get(const struct sparse_array *a)
{
	uintptr_t v;
	memcpy(&v, a->field, sizeof(v));
	return v;
}

static void set(struct sparse_array *a, uintptr_t v)
{
	memcpy(a->field, &v, sizeof(v));
}

starpu_ssize_t sparse_alloc(unsigned node, struct sparse_array *a, unsigned n)
{
	size_t total = 0;
	for (unsigned i = 0; i < n; i++)
	{
		/* Empty arrays still get a buffer: a valid replicate has all
		 * its pointers set. */
		uintptr_t p = starpu_malloc_on_node(node, a[i].bytes ? a[i].bytes : 1);
		if (!p)
		{
			for (unsigned k = 0; k < i; k++)
			{
				starpu_free_on_node(node, get(&a[k]), a[k].bytes ? a[k].bytes : 1);
				set(&a[k], 0);
			}
			return -ENOMEM;
		}
		set(&a[i], p);
		total += a[i].bytes ? a[i].bytes : 1;
	}
	return (starpu_ssize_t) total;
}

void sparse_free(unsigned node, struct sparse_array *a, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
	{
		starpu_free_on_node(node, get(&a[i]), a[i].bytes ? a[i].bytes : 1);
		set(&a[i], 0);
	}
}

int sparse_copy(struct sparse_array *src, unsigned src_node, struct sparse_array *dst, unsigned dst_node, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
	{
		if (!src[i].bytes)
			continue;
		int ret = starpu_interface_copy(get(&src[i]), 0, src_node, get(&dst[i]), 0, dst_node, src[i].bytes, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

int sparse_pack(unsigned node, struct sparse_array *a, unsigned n, void **ptr, starpu_ssize_t *count)
{
	size_t total = 0;
	for (unsigned i = 0; i < n; i++)
		total += a[i].bytes;
	*count = (starpu_ssize_t) total;
	if (!ptr)
		return 0;
	char *buf = (char *) starpu_malloc_on_node_flags(node, total ? total : 1, 0);
	if (!buf)
		return -ENOMEM;
	size_t off = 0;
	for (unsigned i = 0; i < n; i++)
	{
		if (a[i].bytes)
			memcpy(buf + off, (void *) get(&a[i]), a[i].bytes);
		off += a[i].bytes;
	}
	*ptr = buf;
	return 0;
}

int sparse_unpack(unsigned node, struct sparse_array *a, unsigned n, void *ptr, size_t count)
{
	size_t total = 0;
	for (unsigned i = 0; i < n; i++)
		total += a[i].bytes;
	if (count != total)
		return -EINVAL;
	size_t off = 0;
	for (unsigned i = 0; i < n; i++)
	{
		if (a[i].bytes)
			memcpy((void *) get(&a[i]), (char *) ptr + off, a[i].bytes);
		off += a[i].bytes;
	}
	starpu_free_on_node_flags(node, (uintptr_t) ptr, count ? count : 1, 0);
	return 0;
}
