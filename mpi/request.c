/* request.c — StarPU-MPI requests: allocation from a pool (with their
 * inline send buffer), the list of live requests, and completion (data
 * released, callbacks, tags, groups, waiters woken). The engine that
 * drives them is progress.c's. Locks: mpi.qlock guards the pool and the
 * live list; req_complete runs with the engine lock held. */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

/* Requests are recycled, with their inline send buffer: a message would
 * otherwise cost an allocation and a free of each (under qlock). */
#define REQ_POOL_MAX 256
static struct mreq *req_pool;
static int req_npool;

static void req_free_locked(struct mreq *r)
{
	if (req_npool < REQ_POOL_MAX)
	{
		r->qnext = req_pool;
		req_pool = r;
		req_npool++;
		return;
	}
	free(r->wbuf);
	free(r);
}

void req_free(struct mreq *r)
{
	starpu_pthread_mutex_lock(&mpi.qlock);
	req_free_locked(r);
	starpu_pthread_mutex_unlock(&mpi.qlock);
}

/* At shutdown (nothing is live). */
void req_pool_drain(void)
{
	starpu_pthread_mutex_lock(&mpi.qlock);
	while (req_pool)
	{
		struct mreq *r = req_pool;
		req_pool = r->qnext;
		free(r->wbuf);
		free(r);
	}
	req_npool = 0;
	starpu_pthread_mutex_unlock(&mpi.qlock);
}

struct mreq *req_new(enum mreq_type t, const char *fn)
{
	starpu_pthread_mutex_lock(&mpi.qlock);
	struct mreq *r = req_pool;
	char *wbuf = NULL;
	if (r)
	{
		req_pool = r->qnext;
		req_npool--;
		wbuf = r->wbuf;
	}
	else if (!(r = malloc(sizeof(*r))))
	{
		starpu_pthread_mutex_unlock(&mpi.qlock);
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	r->wbuf = wbuf;
	r->type = t;
	r->fn = fn;
	r->peer = -1;
	r->desc.seg = &r->desc.seg1;
	r->desc.dt = MPI_DATATYPE_NULL;
	r->lnext = mpi.live;
	if (mpi.live)
		mpi.live->lprev = r;
	mpi.live = r;
	mpi.nlive++;
	starpu_pthread_mutex_unlock(&mpi.qlock);
	return r;
}

void req_complete(struct mreq *r, int result)
{
	/* A send that held a place in its peer's window gives it to the
	 * next one (engine lock held: only the engine windows sends). */
	if (r->type == MREQ_SEND && r->windowed)
		send_window_done(r);
	if (mpi.tracing && !result && (r->type == MREQ_SEND || r->type == MREQ_RECV))
		mtrace_comm(r);
	if ((r->type == MREQ_SEND || r->type == MREQ_RECV) && r->ready && !r->snap)
		starpu_data_release_on_node(r->handle, STARPU_MAIN_RAM);
	desc_free(&r->desc);
	if (r->buf)
	{
		starpu_free_on_node_flags(STARPU_MAIN_RAM, (uintptr_t) r->buf, r->bufsize, 0);
		r->buf = NULL;
	}
	r->result = result;
	if (r->callback)
		r->callback(r->arg);
	if (r->has_unlock_tag)
		starpu_tag_notify_from_apps(r->unlock_tag);
	struct mgroup *g = r->group;
	if (g && __atomic_sub_fetch(&g->remaining, 1, __ATOMIC_ACQ_REL) == 0)
	{
		if (g->callback)
			g->callback(g->arg);
		if (g->has_tag)
			starpu_tag_notify_from_apps(g->tag);
		free(g);
	}
	int detached = r->detached;
	starpu_pthread_mutex_lock(&mpi.qlock);
	if (r->lprev)
		r->lprev->lnext = r->lnext;
	else
		mpi.live = r->lnext;
	if (r->lnext)
		r->lnext->lprev = r->lprev;
	mpi.nlive--;
	if (!detached)
		__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);	/* the waiter frees it: not touched after this */
	/* Who sleeps on donecond: the waiter of a request that is not
	 * detached, and those waiting for no request to be live. Waking
	 * them at every detached completion would cost wait_for_all a
	 * context switch per message. */
	if (!detached || !mpi.nlive)
		starpu_pthread_cond_broadcast(&mpi.donecond);
	if (detached)
		req_free_locked(r);
	starpu_pthread_mutex_unlock(&mpi.qlock);
}

