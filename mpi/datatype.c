/* datatype.c — how a handle's data goes on the wire.
 *
 * The built-in interfaces are described as a list of (address, length)
 * segments read from their RAM interface: a vector is one segment, a
 * matrix with ld > nx one per column, a CSR matrix three arrays. A message
 * is the concatenation of the segments, cut into chunks of at most
 * mpi.max_message bytes (MPI counts are ints: 2 GiB and more must be
 * split); a chunk spanning several segments is sent with an hindexed
 * datatype on absolute addresses, so nothing is copied. An interface the
 * layer does not know goes through the MPI datatype registered for the
 * handle or its interface (starpu_mpi_datatype_register), else through
 * its pack_data/unpack_data methods.
 */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Registrations. */

/* Per interface id (per handle ones live in struct mdata). Under mpi.lock. */
static struct mhash iface_types;
static int iface_types_ready;
/* Whether any datatype was ever registered (atomic; never reset): until
 * then desc_build needs no lookup under mpi.lock. */
static int any_registered;

struct dt_funcs
{
	starpu_mpi_datatype_allocate_func_t alloc;
	starpu_mpi_datatype_free_func_t free;
};

int starpu_mpi_datatype_register(starpu_data_handle_t handle, starpu_mpi_datatype_allocate_func_t allocate_datatype_func, starpu_mpi_datatype_free_func_t free_datatype_func)
{
	int ret = mpi_check_ready("starpu_mpi_datatype_register");
	if (ret)
		return ret;
	if (!handle || !allocate_datatype_func)
	{
		mpi_error("starpu_mpi_datatype_register: %s is NULL (-EINVAL)", handle ? "allocate_datatype_func" : "handle");
		return -EINVAL;
	}
	__atomic_store_n(&any_registered, 1, __ATOMIC_RELEASE);
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_make_locked(handle);
	if (d)
	{
		d->dt_alloc = allocate_datatype_func;
		d->dt_free = free_datatype_func;
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
	return d ? 0 : -ENOMEM;
}

int starpu_mpi_datatype_unregister(starpu_data_handle_t handle)
{
	int ret = mpi_check_ready("starpu_mpi_datatype_unregister");
	if (ret)
		return ret;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(handle);
	if (d)
	{
		d->dt_alloc = NULL;
		d->dt_free = NULL;
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
	return 0;
}

int starpu_mpi_interface_datatype_register(enum starpu_data_interface_id id, starpu_mpi_datatype_allocate_func_t allocate_datatype_func, starpu_mpi_datatype_free_func_t free_datatype_func)
{
	if (!allocate_datatype_func)
	{
		mpi_error("starpu_mpi_interface_datatype_register: allocate_datatype_func is NULL for interface %d (-EINVAL)", (int) id);
		return -EINVAL;
	}
	struct dt_funcs *f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->alloc = allocate_datatype_func;
	f->free = free_datatype_func;
	__atomic_store_n(&any_registered, 1, __ATOMIC_RELEASE);
	/* Allowed before init: applications register their interfaces early.
	 * The lock exists from the library's load (init.c). */
	starpu_pthread_mutex_lock(&mpi.lock);
	if (!iface_types_ready)
	{
		mhash_init(&iface_types);
		iface_types_ready = 1;
	}
	struct mkey k = { .b = (int64_t) id };
	struct mhash_entry *e = mhash_get(&iface_types, &k);
	if (e)
	{
		free(e->v.ptr);
		e->v.ptr = f;
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
	if (!e)
	{
		free(f);
		return -ENOMEM;
	}
	return 0;
}

int starpu_mpi_interface_datatype_unregister(enum starpu_data_interface_id id)
{
	starpu_pthread_mutex_lock(&mpi.lock);
	if (iface_types_ready)
	{
		struct mkey k = { .b = (int64_t) id };
		struct mhash_entry *e = mhash_find(&iface_types, &k);
		if (e)
		{
			free(e->v.ptr);
			mhash_remove(&iface_types, &k);
		}
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
	return 0;
}

static void free_funcs(struct mhash_entry *e, void *arg)
{
	(void) arg;
	free(e->v.ptr);
}

void datatype_fini(void)
{
	starpu_pthread_mutex_lock(&mpi.lock);
	if (iface_types_ready)
	{
		mhash_foreach(&iface_types, free_funcs, NULL);
		mhash_fini(&iface_types);
		iface_types_ready = 0;
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
}

/* ------------------------------------------------------------------ */
/* Descriptions. */

static int seg_add(struct mdesc *d, const void *ptr, size_t len)
{
	if (!len)
		return 0;
	d->size += len;
	if (d->nseg)
	{
		/* Adjacent pieces (a matrix with ld == nx) make one segment. */
		struct mseg *last = &d->seg[d->nseg - 1];
		if (last->ptr + last->len == (const char *) ptr)
		{
			last->len += len;
			return 0;
		}
	}
	if (d->nseg == d->capseg)
	{
		int cap = d->capseg ? d->capseg * 2 : 8;
		struct mseg *s = malloc(sizeof(*s) * (size_t) cap);
		if (!s)
			return -ENOMEM;
		if (d->nseg)
			memcpy(s, d->seg, sizeof(*s) * (size_t) d->nseg);
		if (d->seg != &d->seg1)
			free(d->seg);
		d->seg = s;
		d->capseg = cap;
	}
	d->seg[d->nseg].ptr = (char *) ptr;
	d->seg[d->nseg].len = len;
	d->nseg++;
	return 0;
}

/* Segments of the built-in interfaces; 1 if the interface is not one. */
static int builtin_segments(struct mdesc *d, starpu_data_handle_t h, void *iface)
{
	int ret = 0;
	switch (starpu_data_get_interface_id(h))
	{
	case STARPU_VOID_INTERFACE_ID:
		break;
	case STARPU_VARIABLE_INTERFACE_ID:
	{
		struct starpu_variable_interface *v = iface;
		ret = seg_add(d, (void *) v->ptr, v->elemsize);
		break;
	}
	case STARPU_VECTOR_INTERFACE_ID:
	{
		struct starpu_vector_interface *v = iface;
		ret = seg_add(d, (void *) v->ptr, (size_t) v->nx * v->elemsize);
		break;
	}
	case STARPU_MATRIX_INTERFACE_ID:
	{
		struct starpu_matrix_interface *m = iface;
		size_t col = (size_t) m->nx * m->elemsize;
		for (uint32_t y = 0; y < m->ny && !ret; y++)
			ret = seg_add(d, (char *) m->ptr + (size_t) y * m->ld * m->elemsize, col);
		break;
	}
	case STARPU_BLOCK_INTERFACE_ID:
	{
		struct starpu_block_interface *b = iface;
		size_t row = (size_t) b->nx * b->elemsize;
		for (uint32_t z = 0; z < b->nz && !ret; z++)
			for (uint32_t y = 0; y < b->ny && !ret; y++)
				ret = seg_add(d, (char *) b->ptr + ((size_t) z * b->ldz + (size_t) y * b->ldy) * b->elemsize, row);
		break;
	}
	case STARPU_CSR_INTERFACE_ID:
	{
		struct starpu_csr_interface *c = iface;
		ret = seg_add(d, (void *) c->nzval, (size_t) c->nnz * c->elemsize);
		if (!ret)
			ret = seg_add(d, c->colind, (size_t) c->nnz * sizeof(uint32_t));
		if (!ret)
			ret = seg_add(d, c->rowptr, ((size_t) c->nrow + 1) * sizeof(uint32_t));
		break;
	}
	case STARPU_BCSR_INTERFACE_ID:
	{
		struct starpu_bcsr_interface *c = iface;
		ret = seg_add(d, (void *) c->nzval, (size_t) c->nnz * c->r * c->c * c->elemsize);
		if (!ret)
			ret = seg_add(d, c->colind, (size_t) c->nnz * sizeof(uint32_t));
		if (!ret)
			ret = seg_add(d, c->rowptr, ((size_t) c->nrow + 1) * sizeof(uint32_t));
		break;
	}
	case STARPU_COO_INTERFACE_ID:
	{
		struct starpu_coo_interface *c = iface;
		ret = seg_add(d, c->columns, (size_t) c->n_values * sizeof(uint32_t));
		if (!ret)
			ret = seg_add(d, c->rows, (size_t) c->n_values * sizeof(uint32_t));
		if (!ret)
			ret = seg_add(d, (void *) c->values, (size_t) c->n_values * c->elemsize);
		break;
	}
	default:
		return 1;
	}
	return ret;
}

int desc_build(struct mdesc *d, starpu_data_handle_t h, int for_send, const char *fn)
{
	memset(d, 0, sizeof(*d));
	d->seg = &d->seg1;
	d->capseg = 1;
	d->dt = MPI_DATATYPE_NULL;

	/* A datatype registered for the handle, else for its interface. */
	struct dt_funcs f = { NULL, NULL };
	if (__atomic_load_n(&any_registered, __ATOMIC_ACQUIRE))
	{
		starpu_pthread_mutex_lock(&mpi.lock);
		struct mdata *md = mdata_find_locked(h);
		if (md && md->dt_alloc)
		{
			f.alloc = md->dt_alloc;
			f.free = md->dt_free;
		}
		else if (iface_types_ready)
		{
			struct mkey k = { .b = (int64_t) starpu_data_get_interface_id(h) };
			struct mhash_entry *e = mhash_find(&iface_types, &k);
			if (e)
				f = *(struct dt_funcs *) e->v.ptr;
		}
		starpu_pthread_mutex_unlock(&mpi.lock);
	}

	char lbl[64];
	if (f.alloc)
	{
		int ret = f.alloc(h, &d->dt);
		if (ret || d->dt == MPI_DATATYPE_NULL)
		{
			mpi_error("%s: the MPI datatype function of handle %s failed (%d) (-EINVAL)", fn, mpi_handle_label(h, lbl, sizeof(lbl)), ret);
			d->dt = MPI_DATATYPE_NULL;
			return -EINVAL;
		}
		int tsize = 0, psize = 0;
		MPI_Type_size(d->dt, &tsize);
		MPI_Pack_size(1, d->dt, MPI_COMM_WORLD, &psize);
		d->how = HOW_USER;
		d->free_dt = f.free;
		d->size = (size_t) tsize;
		d->wire = (size_t) psize;
		d->base = starpu_data_handle_to_pointer(h, STARPU_MAIN_RAM);
		if (!d->base)
			d->base = MPI_BOTTOM;
		return 0;
	}

	void *iface = starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
	int ret = iface ? builtin_segments(d, h, iface) : 1;
	if (ret <= 0)
	{
		if (ret)
		{
			mpi_error("%s: out of memory describing handle %s (-ENOMEM)", fn, mpi_handle_label(h, lbl, sizeof(lbl)));
			desc_free(d);
			return ret;
		}
		d->how = HOW_SEGMENTS;
		d->wire = d->size;
		return 0;
	}

	struct starpu_data_interface_ops *ops = starpu_data_get_interface_ops(h);
	if (!ops || !ops->pack_data || !ops->unpack_data)
	{
		mpi_error("%s: handle %s has interface '%s' (id %d), which has no MPI datatype (starpu_mpi_datatype_register) and no pack_data/unpack_data methods (-ENOTSUP)",
			  fn, mpi_handle_label(h, lbl, sizeof(lbl)), ops && ops->name ? ops->name : "?", (int) starpu_data_get_interface_id(h));
		return -ENOTSUP;
	}
	d->how = HOW_PACKED;
	if (!for_send)
		return 0;	/* the size comes with the envelope */
	void *ptr = NULL;
	starpu_ssize_t count = 0;
	ret = starpu_data_pack(h, &ptr, &count);
	if (ret || count < 0)
	{
		mpi_error("%s: packing handle %s failed (%d) (-EINVAL)", fn, mpi_handle_label(h, lbl, sizeof(lbl)), ret);
		return ret ? ret : -EINVAL;
	}
	d->packed = ptr;
	d->size = (size_t) count;
	d->wire = d->size;
	if (count)
		seg_add(d, ptr, (size_t) count);
	d->size = (size_t) count;	/* seg_add counted it twice */
	return 0;
}

int desc_build_plain(struct mdesc *d, starpu_data_handle_t h, void *iface)
{
	memset(d, 0, sizeof(*d));
	d->seg = &d->seg1;
	d->capseg = 1;
	d->dt = MPI_DATATYPE_NULL;
	/* A registered datatype would take precedence: not plain. */
	if (__atomic_load_n(&any_registered, __ATOMIC_ACQUIRE) || !iface)
		return -1;
	if (builtin_segments(d, h, iface))
	{
		desc_free(d);
		return -1;
	}
	d->how = HOW_SEGMENTS;
	d->wire = d->size;
	return 0;
}

void desc_free(struct mdesc *d)
{
	if (d->seg && d->seg != &d->seg1)
		free(d->seg);
	d->seg = &d->seg1;
	d->nseg = 0;
	if (d->packed)
		starpu_free_on_node_flags(STARPU_MAIN_RAM, (uintptr_t) d->packed, d->size, 0);
	d->packed = NULL;
	if (d->how == HOW_USER && d->dt != MPI_DATATYPE_NULL)
	{
		if (d->free_dt)
			d->free_dt(&d->dt);
		d->dt = MPI_DATATYPE_NULL;
	}
}

size_t desc_nchunks(size_t size)
{
	return (size + mpi.max_message - 1) / mpi.max_message;
}

int desc_chunk(const struct mdesc *d, size_t k, void **buf, int *count, MPI_Datatype *dt, int *owned)
{
	size_t lo = k * mpi.max_message;
	size_t hi = lo + mpi.max_message < d->size ? lo + mpi.max_message : d->size;
	/* The pieces of the segments within [lo, hi). */
	int n = 0, first = -1;
	size_t off = 0;
	for (int i = 0; i < d->nseg && off < hi; i++)
	{
		size_t end = off + d->seg[i].len;
		if (end > lo)
		{
			if (first < 0)
				first = i;
			n++;
		}
		off = end;
	}
	*owned = 0;
	if (n == 1)
	{
		/* Find the offset of lo in the first segment again. */
		size_t s = 0;
		for (int i = 0; i < first; i++)
			s += d->seg[i].len;
		*buf = d->seg[first].ptr + (lo - s);
		*count = (int) (hi - lo);
		*dt = MPI_BYTE;
		return 0;
	}
	int *lens = malloc(sizeof(int) * (size_t) n);
	MPI_Aint *displs = malloc(sizeof(MPI_Aint) * (size_t) n);
	if (!lens || !displs)
	{
		free(lens);
		free(displs);
		return -ENOMEM;
	}
	off = 0;
	int j = 0;
	for (int i = 0; i < d->nseg && off < hi; i++)
	{
		size_t start = off, end = off + d->seg[i].len;
		off = end;
		if (end <= lo)
			continue;
		size_t a = start < lo ? lo : start;
		size_t b = end > hi ? hi : end;
		MPI_Get_address(d->seg[i].ptr + (a - start), &displs[j]);
		lens[j] = (int) (b - a);
		j++;
	}
	int ret = MPI_Type_create_hindexed(n, lens, displs, MPI_BYTE, dt);
	free(lens);
	free(displs);
	if (ret != MPI_SUCCESS || MPI_Type_commit(dt) != MPI_SUCCESS)
		return -EINVAL;
	*buf = MPI_BOTTOM;
	*count = 1;
	*owned = 1;
	return 0;
}

void desc_scatter(const struct mdesc *d, const char *stream)
{
	for (int i = 0; i < d->nseg; i++)
	{
		memcpy(d->seg[i].ptr, stream, d->seg[i].len);
		stream += d->seg[i].len;
	}
}
