/* send.c — the sending side of the engine: how a send's envelope and
 * data are posted (send_start, engine lock held), the submitter posting
 * its own send when the engine is free (post_now), and small sends that
 * copy their bytes at submission (send_snapshot).
 *
 * A send whose data is acquired is described (datatype.c) and goes out as
 * one MPI message when small (inline: the envelope, then the bytes, in a
 * buffer kept with the request), else as an envelope and the data's
 * chunks on a data tag. A small send (at most inline_max bytes, built-in
 * interface) whose data can be read at once is cheaper still: its bytes
 * are copied into that buffer at submission under the handle's lock
 * (vela_data_read_now), so it needs no acquisition and no release, which
 * cost more than the message itself.
 */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

/* Whether a message of d goes inline, in its envelope's MPI message: small
 * messages of the built-in layouts and packed ones, not synchronous sends
 * (whose data must wait for the receive). */
static int goes_inline(const struct mdesc *d, int ssend)
{
	return !ssend && (d->how == HOW_SEGMENTS || d->how == HOW_PACKED) && d->size <= mpi.inline_max;
}

/* Copies the segments of d one after the other into out. */
static void desc_gather(const struct mdesc *d, char *out)
{
	for (int i = 0; i < d->nseg; i++)
	{
		memcpy(out, d->seg[i].ptr, d->seg[i].len);
		out += d->seg[i].len;
	}
}

/* Sends to one peer go to MPI send_window at a time: with thousands of
 * sends posted at once, Open MPI's shared-memory transport runs out of
 * fragments and its ob1 layer walks its whole list of pending sends at
 * every progress call (quadratic: 57 us per message for 20000 detached
 * 8-byte sends, 12 us for 5000). The others wait here, in submission
 * order, and go as earlier ones complete. Synchronous sends are not
 * counted: they wait for the application's receive, which may depend on
 * later messages. */
static int nqueued;	/* sends waiting for a place in a window (engine lock) */

int send_window_queued(void)
{
	return nqueued;
}

void send_window_done(struct mreq *r)
{
	if (!r->windowed)
		return;
	r->windowed = 0;
	struct msends *s = &r->comm->sends[r->peer];
	s->inflight--;
	while (s->head && s->inflight < (int) mpi.send_window)
	{
		struct mreq *next = s->head;
		s->head = next->wnext;
		if (!s->head)
			s->tail = NULL;
		next->wnext = NULL;
		nqueued--;
		send_start(next);
	}
}

/* Posts r's envelope and data; the number of MPI operations posted, 0 if r
 * was completed (with an error) or waits for its place in the window. */
int send_start(struct mreq *r)
{
	r->ready = 1;
	if (!r->ssend)
	{
		struct msends *s = &r->comm->sends[r->peer];
		if (s->inflight >= (int) mpi.send_window)
		{
			if (s->tail)
				s->tail->wnext = r;
			else
				s->head = r;
			s->tail = r;
			nqueued++;
			return 0;
		}
		s->inflight++;
		r->windowed = 1;
	}
	if (mpi.tracing)
		r->t_start = vela_trace_now();
	if (!r->snap)
	{
		int ret = desc_build(&r->desc, r->handle, 1, r->fn);
		if (ret)
		{
			req_complete(r, ret);
			return 0;
		}
	}
	struct mcomm *c = r->comm;
	r->env.type = ENV_DATA;
	r->env.how = r->desc.how;
	r->env.tag = r->tag;
	r->env.seq = r->seq;
	r->env.size = (int64_t) r->desc.size;
	r->env.wire = (int64_t) r->desc.wire;
	r->env.ssend = r->ssend;
	int nmpi;
	if (r->snap || goes_inline(&r->desc, r->ssend))
	{
		/* One message: the envelope, then the bytes (copied at
		 * submission already for a snapshot). */
		r->env.data_tag = ENV_INLINE;
		if (!r->wbuf)
			r->wbuf = malloc(WBUF_SIZE);
		if (!r->wbuf)
		{
			mpi_error("%s: out of memory sending %zu bytes to rank %d", r->fn, r->desc.size, r->peer);
			req_complete(r, -ENOMEM);
			return 0;
		}
		memcpy(r->wbuf, &r->env, sizeof(r->env));
		if (!r->snap)
			desc_gather(&r->desc, r->wbuf + sizeof(r->env));
		nmpi = post_one(r->wbuf, (int) (sizeof(r->env) + r->desc.size), MPI_BYTE, 1, 0, c, r->peer, mpi.env_tag, OP_ENV_SEND, r);
		if (!nmpi)
		{
			req_complete(r, -EIO);
			return 0;
		}
		/* Counted as data in flight by post_one: an eager message
		 * is not; it completes on the first test. */
		op_last_not_data();
	}
	else
	{
		r->env.data_tag = prog_next_data_tag(c);
		MPI_Request mr;
		if (MPI_Isend(&r->env, sizeof(r->env), MPI_BYTE, r->peer, mpi.env_tag, c->comm, &mr) != MPI_SUCCESS)
		{
			mpi_error("%s: sending the envelope of tag %lld to rank %d failed", r->fn, (long long) r->tag, r->peer);
			req_complete(r, -EIO);
			return 0;
		}
		op_add(mr, OP_ENV_SEND, r);
		nmpi = 1 + post_chunks(&r->desc, 1, r->ssend, c, r->peer, r->env.data_tag, OP_DATA_SEND, r);
	}
	r->nmpi = nmpi;
	/* Set at init, freed after the engine stops. */
	if (mpi.comm_amounts)
		__atomic_add_fetch(&mpi.comm_amounts[c->world[r->peer]], r->desc.size, __ATOMIC_RELAXED);
	if (mpi.comm_debug)
	{
		char lbl[64];
		fprintf(stderr, MPI_ERR_PREFIX "rank %d: send %s tag %lld (#%lld) to rank %d: %zu bytes%s\n", c->rank,
			mpi_handle_label(r->handle, lbl, sizeof(lbl)), (long long) r->tag, (long long) r->seq, r->peer,
			r->desc.size, r->ssend ? " (synchronous)" : "");
	}
	return nmpi;
}

int post_now(struct mreq *r)
{
	if (!engine_try_enter())
		return 0;
	int n = send_start(r);
	/* Its operations are the last ones: an eager message has left
	 * already and the request ends here, in the submitter's thread. */
	if (n && ops_tail_test(n))
	{
		req_complete(r, 0);
		n = 0;
	}
	engine_leave();
	/* Data in flight: the progression thread polls it. */
	if (n)
		prog_wake_unless_driven();
	return 1;
}

struct snap
{
	struct mreq *r;
	int ok;
};

/* Under the handle's lock (vela_data_read_now): describe and copy. */
static void snap_copy(void *iface, void *arg)
{
	struct snap *s = arg;
	struct mreq *r = s->r;
	if (desc_build_plain(&r->desc, r->handle, iface))
		return;
	if (r->desc.size > mpi.inline_max)
	{
		desc_free(&r->desc);
		return;
	}
	desc_gather(&r->desc, r->wbuf + sizeof(struct menv));
	s->ok = 1;
}

int send_snapshot(struct mreq *r)
{
	if (r->ssend || !mpi.inline_max)
		return 0;
	if (!r->wbuf && !(r->wbuf = malloc(WBUF_SIZE)))
		return 0;
	struct snap s = { r, 0 };
	if (vela_data_read_now(r->handle, STARPU_MAIN_RAM, snap_copy, &s) || !s.ok)
		return 0;
	/* The segments point into the handle, which is not ours any more:
	 * only the size and layout are used from now on. */
	desc_free(&r->desc);
	r->snap = 1;
	return 1;
}
