/* collective.c — operations every rank (or the ranks concerned) calls at
 * the same point of the task flow: bringing data to a rank, migrating its
 * ownership, folding REDUX contributions, scatter and gather. Each is a
 * handful of sends and receives decided, like task insertion, from what
 * every rank knows: the owners, the tags, the cache state.
 */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

/* Owner, tag and comm of h; -EINVAL with a message naming fn if it has no
 * owner, or if node is outside the communicator. */
static int owner_of(starpu_data_handle_t h, MPI_Comm comm, int node, const char *fn, int *rank, int64_t *tag, struct mcomm **cp)
{
	int ret = mpi_check_submit(fn);
	if (ret)
		return ret;
	struct mcomm *c = mpi_comm_get(comm, fn);
	if (!c)
		return -EINVAL;
	char lbl[64];
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = h ? mdata_find_locked(h) : NULL;
	*rank = d ? d->rank : -1;
	*tag = d ? d->tag : -1;
	starpu_pthread_mutex_unlock(&mpi.lock);
	if (*rank < 0)
	{
		mpi_error("%s: handle %s has no owner rank (starpu_mpi_data_register) (-EINVAL)", fn, mpi_handle_label(h, lbl, sizeof(lbl)));
		return -EINVAL;
	}
	if (*tag < 0)
	{
		mpi_error("%s: handle %s has no tag (starpu_mpi_data_register) (-EINVAL)", fn, mpi_handle_label(h, lbl, sizeof(lbl)));
		return -EINVAL;
	}
	if (node != -1 && (node < 0 || node >= c->size))
	{
		mpi_error("%s: rank %d is outside the communicator (size %d) (-EINVAL)", fn, node, c->size);
		return -EINVAL;
	}
	*cp = c;
	return 0;
}

static int move(const char *fn, enum mreq_type type, starpu_data_handle_t h, int peer, int64_t tag, MPI_Comm comm, int prio,
		void (*cb)(void *), void *arg, struct mgroup *g, starpu_mpi_req *req)
{
	struct mp2p p = {
		.fn = fn, .type = type, .handle = h, .peer = peer, .tag = tag, .comm = comm, .prio = prio,
		.seq_consistency = 1, .callback = cb, .arg = arg, .group = g,
	};
	return p2p_submit(&p, req);
}

/* ------------------------------------------------------------------ */
/* Getting data to a rank. */

static void get_data(MPI_Comm comm, starpu_data_handle_t h, int node, void (*cb)(void *), void *arg, int blocking, const char *fn)
{
	int rank;
	int64_t tag;
	struct mcomm *c;
	if (owner_of(h, comm, node, fn, &rank, &tag, &c))
		return;
	int me = c->rank;
	if (rank == node)
	{
		if (me == node && cb)
			cb(arg);
		return;
	}
	int do_send = 0, do_recv = 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(h);
	if (me == rank)
	{
		do_send = !(mpi.cache_enabled && d->sent && d->sent[node]);
		if (mpi.cache_enabled && d->sent)
			d->sent[node] = 1;
	}
	if (me == node)
	{
		do_recv = !(mpi.cache_enabled && d->received);
		if (mpi.cache_enabled)
			d->received = 1;
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
	if (do_send)
		move(fn, MREQ_SEND, h, node, tag, comm, 0, NULL, NULL, NULL, NULL);
	if (me == node && !do_recv)
	{
		if (cb)
			cb(arg);
		return;
	}
	if (!do_recv)
		return;
	if (blocking)
	{
		starpu_mpi_req req;
		if (!move(fn, MREQ_RECV, h, rank, tag, comm, 0, NULL, NULL, NULL, &req))
			starpu_mpi_wait(&req, MPI_STATUS_IGNORE);
	}
	else
		move(fn, MREQ_RECV, h, rank, tag, comm, 0, cb, arg, NULL, NULL);
}

void starpu_mpi_get_data_on_node(MPI_Comm comm, starpu_data_handle_t data_handle, int node)
{
	get_data(comm, data_handle, node, NULL, NULL, 1, "starpu_mpi_get_data_on_node");
}

void starpu_mpi_get_data_on_node_detached(MPI_Comm comm, starpu_data_handle_t data_handle, int node, void (*callback)(void*), void *arg)
{
	get_data(comm, data_handle, node, callback, arg, 0, "starpu_mpi_get_data_on_node_detached");
}

void starpu_mpi_get_data_on_all_nodes_detached(MPI_Comm comm, starpu_data_handle_t data_handle)
{
	int size;
	if (starpu_mpi_comm_size(comm, &size))
		return;
	for (int node = 0; node < size; node++)
		get_data(comm, data_handle, node, NULL, NULL, 0, "starpu_mpi_get_data_on_all_nodes_detached");
}

/* ------------------------------------------------------------------ */
/* Migration. */

void starpu_mpi_data_migrate(MPI_Comm comm, starpu_data_handle_t handle, int new_rank)
{
	const char *fn = "starpu_mpi_data_migrate";
	int rank;
	int64_t tag;
	struct mcomm *c;
	if (owner_of(handle, comm, new_rank, fn, &rank, &tag, &c))
		return;
	if (rank == new_rank)
		return;
	int me = c->rank, do_send = 0, do_recv = 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(handle);
	if (me == rank)
		do_send = !(mpi.cache_enabled && d->sent && d->sent[new_rank]);
	if (me == new_rank)
		do_recv = !(mpi.cache_enabled && d->received);
	starpu_pthread_mutex_unlock(&mpi.lock);
	if (do_send)
		move(fn, MREQ_SEND, handle, new_rank, tag, comm, 0, NULL, NULL, NULL, NULL);
	if (do_recv)
		move(fn, MREQ_RECV, handle, rank, tag, comm, 0, NULL, NULL, NULL, NULL);
	/* The new owner's value is the one; every cache forgets. */
	starpu_mpi_data_set_rank_comm(handle, new_rank, comm);
}

/* ------------------------------------------------------------------ */
/* Reduction. */

void starpu_mpi_redux_data_prio(MPI_Comm comm, starpu_data_handle_t data_handle, int prio)
{
	const char *fn = "starpu_mpi_redux_data";
	int rank;
	int64_t tag;
	struct mcomm *c;
	if (owner_of(data_handle, comm, -1, fn, &rank, &tag, &c))
		return;
	int me = c->rank, n = c->size;
	unsigned char *contrib = calloc((size_t) n, 1);
	if (!contrib)
	{
		mpi_error("%s: out of memory", fn);
		return;
	}
	int drop = 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = mdata_find_locked(data_handle);
	if (d->redux)
	{
		memcpy(contrib, d->redux, (size_t) n);
		memset(d->redux, 0, (size_t) n);
	}
	/* The owner's value changes: cached copies go. */
	if (me == rank)
	{
		if (d->sent)
			memset(d->sent, 0, (size_t) n);
	}
	else
	{
		drop = d->received;
		d->received = 0;
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
	if (me == rank)
	{
		for (int r = 0; r < n; r++)
		{
			if (r == rank || !contrib[r])
				continue;
			starpu_data_handle_t tmp;
			starpu_data_register_same(&tmp, data_handle);
			if (!tmp)
			{
				mpi_error("%s: cannot make a buffer for the contribution of rank %d", fn, r);
				continue;
			}
			if (!move(fn, MREQ_RECV, tmp, r, tag, comm, prio, NULL, NULL, NULL, NULL))
				redux_submit_fold(data_handle, tmp, prio);
			starpu_data_unregister_submit(tmp);
		}
	}
	else if (contrib[me])
	{
		move(fn, MREQ_SEND, data_handle, rank, tag, comm, prio, NULL, NULL, NULL, NULL);
		drop = 1;	/* its contributions are folded on the owner now */
	}
	free(contrib);
	if (drop)
		mdata_drop_copy(data_handle);
}

void starpu_mpi_redux_data(MPI_Comm comm, starpu_data_handle_t data_handle)
{
	starpu_mpi_redux_data_prio(comm, data_handle, 0);
}

/* ------------------------------------------------------------------ */
/* Scatter and gather. */

static int collective(const char *fn, int scatter, starpu_data_handle_t *handles, int count, int root, MPI_Comm comm,
		      void (*scallback)(void *), void *sarg, void (*rcallback)(void *), void *rarg)
{
	int ret = mpi_check_submit(fn);
	if (ret)
		return ret;
	struct mcomm *c = mpi_comm_get(comm, fn);
	if (!c)
		return -EINVAL;
	if (root < 0 || root >= c->size)
	{
		mpi_error("%s: root %d is outside the communicator (size %d) (-EINVAL)", fn, root, c->size);
		return -EINVAL;
	}
	if (count < 0 || (count && !handles))
	{
		mpi_error("%s: %d handles at %p (-EINVAL)", fn, count, (void *) handles);
		return -EINVAL;
	}
	int *ranks = malloc(sizeof(int) * (size_t) (count ? count : 1));
	int64_t *tags = malloc(sizeof(int64_t) * (size_t) (count ? count : 1));
	if (!ranks || !tags)
	{
		free(ranks);
		free(tags);
		return -ENOMEM;
	}
	/* All checked first. */
	for (int i = 0; i < count && !ret; i++)
	{
		struct mcomm *hc;
		ret = owner_of(handles[i], comm, -1, fn, &ranks[i], &tags[i], &hc);
	}
	int me = c->rank, nsend = 0, nrecv = 0;
	for (int i = 0; i < count && !ret; i++)
	{
		if (ranks[i] == root || ranks[i] == STARPU_MPI_PER_NODE)
			continue;
		int sender = scatter ? root : ranks[i];
		int receiver = scatter ? ranks[i] : root;
		nsend += me == sender;
		nrecv += me == receiver;
	}
	struct mgroup *gs = NULL, *gr = NULL;
	if (!ret && nsend && !(gs = calloc(1, sizeof(*gs))))
		ret = -ENOMEM;
	if (!ret && nrecv && !(gr = calloc(1, sizeof(*gr))))
		ret = -ENOMEM;
	if (ret)
	{
		free(gs);
		free(ranks);
		free(tags);
		return ret;
	}
	/* The root of a scatter sends, the others receive; a gather the
	 * other way round. Each side's callback runs once its part is done. */
	void (*mine_s)(void *) = scatter ? (me == root ? scallback : NULL) : (me != root ? scallback : NULL);
	void (*mine_r)(void *) = scatter ? (me != root ? rcallback : NULL) : (me == root ? rcallback : NULL);
	if (gs)
	{
		gs->remaining = nsend;
		gs->callback = mine_s;
		gs->arg = sarg;
	}
	if (gr)
	{
		gr->remaining = nrecv;
		gr->callback = mine_r;
		gr->arg = rarg;
	}
	for (int i = 0; i < count; i++)
	{
		if (ranks[i] == root || ranks[i] == STARPU_MPI_PER_NODE)
			continue;
		int sender = scatter ? root : ranks[i];
		int receiver = scatter ? ranks[i] : root;
		if (me == sender)
			move(fn, MREQ_SEND, handles[i], receiver, tags[i], comm, 0, NULL, NULL, gs, NULL);
		else if (me == receiver)
			move(fn, MREQ_RECV, handles[i], sender, tags[i], comm, 0, NULL, NULL, gr, NULL);
	}
	if (!nsend && mine_s)
		mine_s(sarg);
	if (!nrecv && mine_r)
		mine_r(rarg);
	free(ranks);
	free(tags);
	return 0;
}

int starpu_mpi_scatter_detached(starpu_data_handle_t *data_handles, int count, int root, MPI_Comm comm, void (*scallback)(void *), void *sarg, void (*rcallback)(void *), void *rarg)
{
	return collective("starpu_mpi_scatter_detached", 1, data_handles, count, root, comm, scallback, sarg, rcallback, rarg);
}

int starpu_mpi_gather_detached(starpu_data_handle_t *data_handles, int count, int root, MPI_Comm comm, void (*scallback)(void *), void *sarg, void (*rcallback)(void *), void *rarg)
{
	return collective("starpu_mpi_gather_detached", 0, data_handles, count, root, comm, scallback, sarg, rcallback, rarg);
}
