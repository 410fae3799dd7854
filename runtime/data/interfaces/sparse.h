/* sparse.h — what the sparse interfaces (CSR, BCSR, COO) share: their data
 * is a few separate arrays, allocated, copied and packed together. Each
 * array is described by the address of its field in the interface (a
 * pointer or uintptr_t) and its size in bytes. */
#ifndef VELA_SPARSE_H
#define VELA_SPARSE_H

#include <starpu.h>

#define SPARSE_MAX_ARRAYS 3

struct sparse_array
{
	void *field;		/* &iface->nzval, &iface->colind, ... */
	size_t bytes;
};

/* Allocates every array on node; the total bytes, or -ENOMEM (nothing
 * allocated). */
starpu_ssize_t sparse_alloc(unsigned node, struct sparse_array *a, unsigned n);
void sparse_free(unsigned node, struct sparse_array *a, unsigned n);
int sparse_copy(struct sparse_array *src, unsigned src_node, struct sparse_array *dst, unsigned dst_node, unsigned n);
/* Packs the arrays (on a RAM node) end to end into a new buffer, and back. */
int sparse_pack(unsigned node, struct sparse_array *a, unsigned n, void **ptr, starpu_ssize_t *count);
int sparse_unpack(unsigned node, struct sparse_array *a, unsigned n, void *ptr, size_t count);

#endif /* VELA_SPARSE_H */
