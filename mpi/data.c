/* data.c — what the layer records per handle: owner rank, tag, cache
 * state, REDUX contributors, datatype functions; the tag table; the
 * sequence counters of messages; the cache API.
 *
 * A record lives inside its handle (vela_data_layer_area,
 * vela_extension.h: the public API does not let a library extend a
 * handle); the records are also listed (mpi.records) for the calls that
 * go through all of them. The runtime's unregister hook removes a record
 * when its handle goes.
 * Everything here is under mpi.lock.
 */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

static struct mkey tag_key(struct mcomm *c, int64_t tag)
{
	struct mkey k = { .a = (uintptr_t) c, .b = tag };
	return k;
}

_Static_assert(sizeof(struct mdata) <= VELA_DATA_LAYER_BYTES, "struct mdata must fit in a handle's layer area");

struct mdata *mdata_find_locked(starpu_data_handle_t h)
{
	struct mdata *d = h ? vela_data_layer_area(h) : NULL;
	return d && d->handle ? d : NULL;
}

static void record_free(struct mdata *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		mpi.records = d->next;
	if (d->next)
		d->next->prev = d->prev;
	free(d->sent);
	memset(d, 0, sizeof(*d));
}

/* The runtime frees h: forget it (its communications are over: each held
 * the handle acquired, and unregistration waited for them). */
static void unregister_hook(starpu_data_handle_t h)
{
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(h);
	if (d)
	{
		if (d->tag >= 0 && d->comm)
		{
			struct mkey tk = tag_key(d->comm, d->tag);
			struct mhash_entry *te = mhash_find(&mpi.tags, &tk);
			if (te && te->v.ptr == h)
				mhash_remove(&mpi.tags, &tk);
		}
		record_free(d);
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
}

struct mdata *mdata_make_locked(starpu_data_handle_t h)
{
	struct mdata *d = h ? vela_data_layer_area(h) : NULL;
	if (!d || d->handle)
		return d;
	memset(d, 0, sizeof(*d));
	d->handle = h;
	d->tag = -1;
	d->rank = -1;
	d->next = mpi.records;
	if (d->next)
		d->next->prev = d;
	mpi.records = d;
	vela_data_set_unregister_hook(h, unregister_hook);
	return d;
}

void mdata_fini(void)
{
	starpu_pthread_mutex_lock(&mpi.lock);
	while (mpi.records)
	{
		struct mdata *d = mpi.records;
		vela_data_set_unregister_hook(d->handle, NULL);
		record_free(d);
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
}

/* Per-rank arrays follow the comm of the record. */
static int arrays_locked(struct mdata *d)
{
	if (d->sent)
		return 0;
	int n = d->comm ? d->comm->size : mpi.world_size;
	d->sent = calloc((size_t) n, 2);
	if (!d->sent)
		return -ENOMEM;
	d->redux = d->sent + n;
	return 0;
}

int mdata_flush_locked(struct mdata *d)
{
	int drop = d->received;
	d->received = 0;
	if (d->sent && d->comm)
		memset(d->sent, 0, (size_t) d->comm->size);
	return drop;
}

void mdata_drop_copy(starpu_data_handle_t h)
{
	/* The copy goes once the tasks submitted so far are done. */
	starpu_data_invalidate_submit(h);
}

/* Handles whose received copy a flush drops, invalidated once mpi.lock is
 * released (the runtime is never called under it). */
struct drops
{
	starpu_data_handle_t *h;
	size_t n, cap;
};

static void drops_add(struct drops *dr, starpu_data_handle_t h)
{
	if (dr->n == dr->cap)
	{
		size_t cap = dr->cap ? dr->cap * 2 : 16;
		starpu_data_handle_t *p = realloc(dr->h, cap * sizeof(*p));
		if (!p)
		{
			mpi_error("out of memory flushing the cache: the received copy of handle %p stays", (void *) h);
			return;
		}
		dr->h = p;
		dr->cap = cap;
	}
	dr->h[dr->n++] = h;
}

static void drops_run(struct drops *dr)
{
	for (size_t i = 0; i < dr->n; i++)
		mdata_drop_copy(dr->h[i]);
	free(dr->h);
}

/* ------------------------------------------------------------------ */
/* Registration. */

static int set_tag_locked(struct mdata *d, int64_t tag, const char *fn)
{
	char lbl[64], lbl2[64];
	if (tag < -1)
	{
		mpi_error("%s: tag %lld of handle %s is negative (-EINVAL)", fn, (long long) tag, mpi_handle_label(d->handle, lbl, sizeof(lbl)));
		return -EINVAL;
	}
	if (tag >= 0)
	{
		struct mkey tk = tag_key(d->comm, tag);
		struct mhash_entry *te = mhash_find(&mpi.tags, &tk);
		if (te && te->v.ptr != d->handle)
		{
			mpi_error("%s: tag %lld is already registered for handle %s; handle %s keeps no tag (-EINVAL)",
				  fn, (long long) tag, mpi_handle_label(te->v.ptr, lbl2, sizeof(lbl2)), mpi_handle_label(d->handle, lbl, sizeof(lbl)));
			return -EINVAL;
		}
	}
	if (d->tag >= 0 && d->tag != tag)
	{
		struct mkey old = tag_key(d->comm, d->tag);
		mhash_remove(&mpi.tags, &old);
	}
	d->tag = tag;
	if (tag >= 0)
	{
		struct mkey tk = tag_key(d->comm, tag);
		struct mhash_entry *te = mhash_get(&mpi.tags, &tk);
		if (!te)
		{
			d->tag = -1;
			return -ENOMEM;
		}
		te->v.ptr = d->handle;
	}
	return 0;
}

static int set_rank_locked(struct mdata *d, int rank, struct mcomm *c, const char *fn)
{
	char lbl[64];
	if (rank != STARPU_MPI_PER_NODE && (rank < 0 || rank >= c->size))
	{
		mpi_error("%s: rank %d of handle %s is outside the communicator (size %d) (-EINVAL)",
			  fn, rank, mpi_handle_label(d->handle, lbl, sizeof(lbl)), c->size);
		return -EINVAL;
	}
	if (d->comm && d->comm != c)
	{
		/* The tag moves to the new communicator's table. */
		int64_t tag = d->tag;
		if (tag >= 0)
		{
			struct mkey old = tag_key(d->comm, tag);
			mhash_remove(&mpi.tags, &old);
			d->tag = -1;
		}
		free(d->sent);
		d->sent = d->redux = NULL;
		d->comm = c;
		if (tag >= 0 && set_tag_locked(d, tag, fn))
			return -EINVAL;
	}
	d->comm = c;
	if (d->rank != rank)
	{
		/* A received copy stays: the application changes owners only
		 * at points where every rank agrees on the values. */
		mdata_flush_locked(d);
		d->rank = rank;
	}
	return arrays_locked(d);
}

static int data_register(starpu_data_handle_t h, int64_t tag, int set_tag, int rank, int set_rank, MPI_Comm comm, const char *fn)
{
	int ret = mpi_check_ready(fn);
	if (ret)
		return ret;
	if (!h)
	{
		mpi_error("%s: the handle is NULL (-EINVAL)", fn);
		return -EINVAL;
	}
	struct mcomm *c = mpi_comm_get(comm, fn);
	if (!c)
		return -EINVAL;
	char lbl[64];
	if (set_rank && rank != STARPU_MPI_PER_NODE && (rank < 0 || rank >= c->size))
	{
		mpi_error("%s: rank %d of handle %s is outside the communicator (size %d) (-EINVAL)",
			  fn, rank, mpi_handle_label(h, lbl, sizeof(lbl)), c->size);
		return -EINVAL;
	}
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_make_locked(h);
	if (!d)
		ret = -EINVAL;
	if (!ret && !d->comm)
		d->comm = c;
	/* The tag first: a tag taken by another handle leaves this one
	 * without owner, so that tasks using it fail clearly. */
	if (!ret && set_tag)
		ret = set_tag_locked(d, tag, fn);
	if (!ret && set_rank)
		ret = set_rank_locked(d, rank, c, fn);
	starpu_pthread_mutex_unlock(&mpi.lock);
	if (!d)
		mpi_error("%s: handle %p is not registered (-EINVAL)", fn, (void *) h);
	return ret;
}

void starpu_mpi_data_register_comm(starpu_data_handle_t data_handle, starpu_mpi_tag_t data_tag, int rank, MPI_Comm comm)
{
	data_register(data_handle, data_tag, 1, rank, 1, comm, "starpu_mpi_data_register");
}

void starpu_mpi_data_set_tag(starpu_data_handle_t handle, starpu_mpi_tag_t data_tag)
{
	int ret = mpi_check_ready("starpu_mpi_data_set_tag");
	if (ret)
		return;
	/* The communicator of the record, or the world for a new one. */
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(handle);
	MPI_Comm comm = d && d->comm ? d->comm->comm : MPI_COMM_WORLD;
	starpu_pthread_mutex_unlock(&mpi.lock);
	data_register(handle, data_tag, 1, 0, 0, comm, "starpu_mpi_data_set_tag");
}

void starpu_mpi_data_set_rank_comm(starpu_data_handle_t handle, int rank, MPI_Comm comm)
{
	data_register(handle, 0, 0, rank, 1, comm, "starpu_mpi_data_set_rank");
}

int starpu_mpi_data_get_rank(starpu_data_handle_t handle)
{
	if (!__atomic_load_n(&mpi.initialized, __ATOMIC_ACQUIRE))
		return -1;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(handle);
	int rank = d ? d->rank : -1;
	starpu_pthread_mutex_unlock(&mpi.lock);
	return rank;
}

starpu_mpi_tag_t starpu_mpi_data_get_tag(starpu_data_handle_t handle)
{
	if (!__atomic_load_n(&mpi.initialized, __ATOMIC_ACQUIRE))
		return -1;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(handle);
	int64_t tag = d ? d->tag : -1;
	starpu_pthread_mutex_unlock(&mpi.lock);
	return tag;
}

/* ------------------------------------------------------------------ */
/* Sequence numbers. */

static int64_t seq_next(struct mhash *h, struct mcomm *c, int peer, int64_t tag)
{
	struct mkey k = { .a = (uintptr_t) c, .b = peer, .c = tag };
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mhash_entry *e = mhash_get(h, &k);
	int64_t s = e ? e->v.n++ : -1;
	starpu_pthread_mutex_unlock(&mpi.lock);
	return s;
}

int64_t seq_next_send(struct mcomm *c, int peer, int64_t tag)
{
	return seq_next(&mpi.seq_send, c, peer, tag);
}

int64_t seq_next_recv(struct mcomm *c, int peer, int64_t tag)
{
	return seq_next(&mpi.seq_recv, c, peer, tag);
}

struct bye_collect
{
	struct mcomm *c;
	int peer;
	int64_t *pairs;
	size_t n, cap;
	int failed;
};

static void collect(struct mhash_entry *e, void *arg)
{
	struct bye_collect *b = arg;
	if (e->key.a != (uintptr_t) b->c || e->key.b != b->peer || b->failed)
		return;
	if (b->n == b->cap)
	{
		size_t cap = b->cap ? b->cap * 2 : 16;
		int64_t *p = realloc(b->pairs, cap * 2 * sizeof(int64_t));
		if (!p)
		{
			b->failed = 1;
			return;
		}
		b->pairs = p;
		b->cap = cap;
	}
	b->pairs[2 * b->n] = e->key.c;
	b->pairs[2 * b->n + 1] = e->v.n;
	b->n++;
}

int seq_bye_payload(struct mcomm *c, int peer, int64_t **pairs, size_t *npairs)
{
	struct bye_collect b = { .c = c, .peer = peer };
	starpu_pthread_mutex_lock(&mpi.lock);
	mhash_foreach(&mpi.seq_send, collect, &b);
	starpu_pthread_mutex_unlock(&mpi.lock);
	if (b.failed)
	{
		free(b.pairs);
		return -ENOMEM;
	}
	*pairs = b.pairs;
	*npairs = b.n;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The cache API. */

void cache_stat_hit(int send, size_t bytes)
{
	if (send)
		mpi.cache_hits_send++;
	else
		mpi.cache_hits_recv++;
	mpi.cache_bytes_saved += bytes;
}

int starpu_mpi_cache_is_enabled(void)
{
	return mpi.cache_enabled;
}

static void flush_all_locked(struct drops *dr)
{
	for (struct mdata *d = mpi.records; d; d = d->next)
		if (mdata_flush_locked(d))
			drops_add(dr, d->handle);
}

int starpu_mpi_cache_set(int enabled)
{
	int ret = mpi_check_ready("starpu_mpi_cache_set");
	if (ret)
		return ret;
	struct drops dr = { 0 };
	starpu_pthread_mutex_lock(&mpi.lock);
	if (mpi.cache_enabled && !enabled)
		flush_all_locked(&dr);
	mpi.cache_enabled = enabled ? 1 : 0;
	starpu_pthread_mutex_unlock(&mpi.lock);
	drops_run(&dr);
	return 0;
}

void starpu_mpi_cache_flush(MPI_Comm comm, starpu_data_handle_t data_handle)
{
	(void) comm;
	if (mpi_check_ready("starpu_mpi_cache_flush"))
		return;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(data_handle);
	int drop = d && mpi.cache_enabled && mdata_flush_locked(d);
	starpu_pthread_mutex_unlock(&mpi.lock);
	if (drop)
		mdata_drop_copy(data_handle);
}

void starpu_mpi_cache_flush_all_data(MPI_Comm comm)
{
	(void) comm;
	if (mpi_check_ready("starpu_mpi_cache_flush_all_data"))
		return;
	struct drops dr = { 0 };
	starpu_pthread_mutex_lock(&mpi.lock);
	if (mpi.cache_enabled)
		flush_all_locked(&dr);
	starpu_pthread_mutex_unlock(&mpi.lock);
	drops_run(&dr);
}

int starpu_mpi_cached_receive(starpu_data_handle_t data_handle)
{
	if (mpi_check_ready("starpu_mpi_cached_receive"))
		return 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(data_handle);
	int r = d ? d->received : 0;
	starpu_pthread_mutex_unlock(&mpi.lock);
	return r;
}

int starpu_mpi_cached_receive_set(starpu_data_handle_t data)
{
	if (mpi_check_ready("starpu_mpi_cached_receive_set"))
		return 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_make_locked(data);
	int was = d ? d->received : 0;
	if (d && mpi.cache_enabled)
		d->received = 1;
	starpu_pthread_mutex_unlock(&mpi.lock);
	return was;
}

void starpu_mpi_cached_receive_clear(starpu_data_handle_t data)
{
	if (mpi_check_ready("starpu_mpi_cached_receive_clear"))
		return;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(data);
	if (d)
		d->received = 0;
	starpu_pthread_mutex_unlock(&mpi.lock);
}

int starpu_mpi_cached_send(starpu_data_handle_t data_handle, int dest)
{
	if (mpi_check_ready("starpu_mpi_cached_send"))
		return 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(data_handle);
	int r = d && d->sent && d->comm && dest >= 0 && dest < d->comm->size ? d->sent[dest] : 0;
	starpu_pthread_mutex_unlock(&mpi.lock);
	return r;
}

int starpu_mpi_cached_send_set(starpu_data_handle_t data, int dest)
{
	if (mpi_check_ready("starpu_mpi_cached_send_set"))
		return 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(data);
	int was = 0;
	if (d && d->sent && d->comm && dest >= 0 && dest < d->comm->size)
	{
		was = d->sent[dest];
		if (mpi.cache_enabled)
			d->sent[dest] = 1;
	}
	else
		mpi_error("starpu_mpi_cached_send_set: handle %p has no owner or rank %d is outside its communicator", (void *) data, dest);
	starpu_pthread_mutex_unlock(&mpi.lock);
	return was;
}

void starpu_mpi_cached_send_clear(starpu_data_handle_t data)
{
	if (mpi_check_ready("starpu_mpi_cached_send_clear"))
		return;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(data);
	if (d && d->sent && d->comm)
		memset(d->sent, 0, (size_t) d->comm->size);
	starpu_pthread_mutex_unlock(&mpi.lock);
}
