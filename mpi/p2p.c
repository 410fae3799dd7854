/* p2p.c — point-to-point communications on handles, and waiting for them.
 *
 * Every send and receive of the layer (the API below, task insertion,
 * collectives) goes through p2p_submit: checks, a sequence number, then
 * (a small send whose data can be read at once: its bytes are copied and
 * posted without further ado, vela_data_read_now) the acquisition of the
 * data on RAM through the public API — in read
 * mode for a send, write mode for a receive, after the tasks submitted
 * before on the handle — whose callback hands the request to the engine:
 * a send is posted at once by the thread where the callback runs (the
 * submitter when the data is ready, else the worker that ended the last
 * task writing it) unless another thread is inside the engine; a
 * receive's commands are queued and run at once if the engine is free.
 * Nothing is submitted when a check fails.
 */
#include "mpi_internal.h"

#include <limits.h>
#include <stdlib.h>

int p2p_check(const struct mp2p *p, struct mcomm **cp)
{
	int ret = mpi_check_submit(p->fn);
	if (ret)
		return ret;
	if (!p->handle)
	{
		mpi_error("%s: the handle is NULL (-EINVAL)", p->fn);
		return -EINVAL;
	}
	struct mcomm *c = mpi_comm_get(p->comm, p->fn);
	if (!c)
		return -EINVAL;
	char lbl[64];
	if (p->peer < 0 || p->peer >= c->size)
	{
		mpi_error("%s: rank %d (%s of handle %s) is outside the communicator (size %d) (-EINVAL)", p->fn, p->peer,
			  p->type == MREQ_SEND ? "destination" : "source", mpi_handle_label(p->handle, lbl, sizeof(lbl)), c->size);
		return -EINVAL;
	}
	if (p->tag < 0)
	{
		mpi_error("%s: tag %lld of handle %s is negative (-EINVAL)", p->fn, (long long) p->tag, mpi_handle_label(p->handle, lbl, sizeof(lbl)));
		return -EINVAL;
	}
	*cp = c;
	return 0;
}

/* The receive whose data this thread is acquiring in p2p_submit: its
 * callback, when it runs at once in this thread, leaves the rest to
 * p2p_submit (one pass in the engine for both commands). */
MPI_TLS(struct mreq *, submitting)

static void acquired(void *arg)
{
	struct mreq *r = arg;
	if (r->type == MREQ_SEND && post_now(r))
		return;	/* r may be gone already */
	if (r == submitting_get())
	{
		r->sync_ready = 1;
		return;
	}
	prog_push_kick(r, CMD_READY);
}

int p2p_submit(const struct mp2p *p, starpu_mpi_req *req)
{
	struct mcomm *c;
	int ret = p2p_check(p, &c);
	if (ret)
		return ret;
	struct mreq *r = req_new(p->type, p->fn);
	if (!r)
		return -ENOMEM;
	if (mpi.tracing)
		r->t_submit = vela_trace_now();
	r->handle = p->handle;
	r->comm = c;
	r->peer = p->peer;
	r->tag = p->tag;
	r->prio = p->prio;
	r->ssend = p->ssend ? 1 : 0;
	r->detached = req == NULL;
	r->callback = p->callback;
	r->arg = p->arg;
	r->has_unlock_tag = p->has_unlock_tag;
	r->unlock_tag = p->unlock_tag;
	r->group = p->group;
	r->seq = p->type == MREQ_SEND ? seq_next_send(c, p->peer, p->tag) : seq_next_recv(c, p->peer, p->tag);
	if (req)
		*req = r;
	/* A small send whose data is there: its bytes are copied now and it
	 * goes without an acquisition (which costs more than the message);
	 * posted here, or by the engine if another thread is in it. */
	if (p->type == MREQ_SEND && p->seq_consistency && send_snapshot(r))
	{
		if (!post_now(r))
			prog_push_kick(r, CMD_READY);
		return 0;
	}
	/* A receive enters matching after its acquisition is asked for:
	 * the engine copes with either order of its commands. */
	submitting_set(p->type == MREQ_RECV ? r : NULL);
	ret = starpu_data_acquire_on_node_cb_sequential_consistency(p->handle, STARPU_MAIN_RAM,
								     p->type == MREQ_SEND ? STARPU_R : STARPU_W,
								     acquired, r, p->seq_consistency);
	submitting_set(NULL);
	if (ret)
	{
		/* The handle is not usable (unregistered?). Its number was
		 * taken: the peer's message will be reported at shutdown. */
		char lbl[64];
		mpi_error("%s: handle %s cannot be acquired (%d)", p->fn, mpi_handle_label(p->handle, lbl, sizeof(lbl)), ret);
		if (req)
			*req = NULL;
		r->detached = 1;
		r->callback = NULL;
		r->has_unlock_tag = 0;
		r->group = NULL;
		req_complete(r, ret);
		return ret;
	}
	if (p->type == MREQ_RECV)
	{
		/* r cannot complete before it is submitted: it is ours
		 * until the engine runs this. */
		unsigned cmd = r->sync_ready ? CMD_SUBMIT | CMD_READY : CMD_SUBMIT;
		if (engine_try_enter())
		{
			prog_run(r, cmd);
			engine_leave();
		}
		else
			prog_push_kick(r, cmd);
	}
	return 0;
}

static int submit(const char *fn, enum mreq_type type, starpu_data_handle_t h, starpu_mpi_req *req, int peer, starpu_mpi_tag_t tag,
		  int prio, int ssend, MPI_Comm comm, void (*callback)(void *), void *arg)
{
	struct mp2p p = {
		.fn = fn, .type = type, .handle = h, .peer = peer, .tag = tag, .comm = comm, .prio = prio,
		.ssend = ssend, .seq_consistency = 1, .callback = callback, .arg = arg,
	};
	return p2p_submit(&p, req);
}

static int check_req(const char *fn, starpu_mpi_req *req)
{
	if (!req)
	{
		mpi_error("%s: req is NULL (-EINVAL)", fn);
		return -EINVAL;
	}
	return 0;
}

int starpu_mpi_isend(starpu_data_handle_t data_handle, starpu_mpi_req *req, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm)
{
	int ret = check_req("starpu_mpi_isend", req);
	return ret ? ret : submit("starpu_mpi_isend", MREQ_SEND, data_handle, req, dest, data_tag, 0, 0, comm, NULL, NULL);
}

int starpu_mpi_isend_prio(starpu_data_handle_t data_handle, starpu_mpi_req *req, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm)
{
	int ret = check_req("starpu_mpi_isend_prio", req);
	return ret ? ret : submit("starpu_mpi_isend_prio", MREQ_SEND, data_handle, req, dest, data_tag, prio, 0, comm, NULL, NULL);
}

int starpu_mpi_issend(starpu_data_handle_t data_handle, starpu_mpi_req *req, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm)
{
	int ret = check_req("starpu_mpi_issend", req);
	return ret ? ret : submit("starpu_mpi_issend", MREQ_SEND, data_handle, req, dest, data_tag, 0, 1, comm, NULL, NULL);
}

int starpu_mpi_issend_prio(starpu_data_handle_t data_handle, starpu_mpi_req *req, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm)
{
	int ret = check_req("starpu_mpi_issend_prio", req);
	return ret ? ret : submit("starpu_mpi_issend_prio", MREQ_SEND, data_handle, req, dest, data_tag, prio, 1, comm, NULL, NULL);
}

int starpu_mpi_irecv(starpu_data_handle_t data_handle, starpu_mpi_req *req, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm)
{
	int ret = check_req("starpu_mpi_irecv", req);
	return ret ? ret : submit("starpu_mpi_irecv", MREQ_RECV, data_handle, req, source, data_tag, 0, 0, comm, NULL, NULL);
}

int starpu_mpi_isend_detached(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm, void (*callback)(void *), void *arg)
{
	return submit("starpu_mpi_isend_detached", MREQ_SEND, data_handle, NULL, dest, data_tag, 0, 0, comm, callback, arg);
}

int starpu_mpi_isend_detached_prio(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm, void (*callback)(void *), void *arg)
{
	return submit("starpu_mpi_isend_detached_prio", MREQ_SEND, data_handle, NULL, dest, data_tag, prio, 0, comm, callback, arg);
}

int starpu_mpi_issend_detached(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm, void (*callback)(void *), void *arg)
{
	return submit("starpu_mpi_issend_detached", MREQ_SEND, data_handle, NULL, dest, data_tag, 0, 1, comm, callback, arg);
}

int starpu_mpi_issend_detached_prio(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm, void (*callback)(void *), void *arg)
{
	return submit("starpu_mpi_issend_detached_prio", MREQ_SEND, data_handle, NULL, dest, data_tag, prio, 1, comm, callback, arg);
}

int starpu_mpi_irecv_detached(starpu_data_handle_t data_handle, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm, void (*callback)(void *), void *arg)
{
	return submit("starpu_mpi_irecv_detached", MREQ_RECV, data_handle, NULL, source, data_tag, 0, 0, comm, callback, arg);
}

int starpu_mpi_irecv_detached_sequential_consistency(starpu_data_handle_t data_handle, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm, void (*callback)(void *), void *arg, int sequential_consistency)
{
	struct mp2p p = {
		.fn = "starpu_mpi_irecv_detached_sequential_consistency", .type = MREQ_RECV, .handle = data_handle,
		.peer = source, .tag = data_tag, .comm = comm, .seq_consistency = sequential_consistency,
		.callback = callback, .arg = arg,
	};
	return p2p_submit(&p, NULL);
}

/* ------------------------------------------------------------------ */
/* Blocking forms, waiting, testing. */

static void fill_status(MPI_Status *status, int source, int64_t tag, int result)
{
	if (!status || status == MPI_STATUS_IGNORE)
		return;
	status->MPI_SOURCE = source;
	status->MPI_TAG = tag <= INT_MAX ? (int) tag : -1;
	status->MPI_ERROR = result ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int starpu_mpi_wait(starpu_mpi_req *req, MPI_Status *status)
{
	if (!req || !*req)
	{
		mpi_error("starpu_mpi_wait: %s is NULL (-EINVAL)", req ? "*req" : "req");
		return -EINVAL;
	}
	struct mreq *r = *req;
	int64_t tag = r->tag;
	int source = -1;
	int result = req_wait(r, &source);
	*req = NULL;
	fill_status(status, source, tag, result);
	return result;
}

int starpu_mpi_test(starpu_mpi_req *req, int *flag, MPI_Status *status)
{
	if (!req || !*req || !flag)
	{
		mpi_error("starpu_mpi_test: %s is NULL (-EINVAL)", !req ? "req" : !flag ? "flag" : "*req");
		return -EINVAL;
	}
	struct mreq *r = *req;
	int64_t tag = r->tag;
	int source = -1, result = 0;
	*flag = req_test(r, &result, &source);
	if (*flag)
	{
		*req = NULL;
		fill_status(status, source, tag, result);
		return result;
	}
	return 0;
}

int starpu_mpi_send(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm)
{
	starpu_mpi_req req;
	int ret = submit("starpu_mpi_send", MREQ_SEND, data_handle, &req, dest, data_tag, 0, 0, comm, NULL, NULL);
	return ret ? ret : starpu_mpi_wait(&req, MPI_STATUS_IGNORE);
}

int starpu_mpi_send_prio(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm)
{
	starpu_mpi_req req;
	int ret = submit("starpu_mpi_send_prio", MREQ_SEND, data_handle, &req, dest, data_tag, prio, 0, comm, NULL, NULL);
	return ret ? ret : starpu_mpi_wait(&req, MPI_STATUS_IGNORE);
}

int starpu_mpi_recv(starpu_data_handle_t data_handle, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm, MPI_Status *status)
{
	starpu_mpi_req req;
	int ret = submit("starpu_mpi_recv", MREQ_RECV, data_handle, &req, source, data_tag, 0, 0, comm, NULL, NULL);
	return ret ? ret : starpu_mpi_wait(&req, status);
}

int starpu_mpi_barrier(MPI_Comm comm)
{
	int ret = mpi_check_submit("starpu_mpi_barrier");
	if (ret)
		return ret;
	struct mcomm *c = mpi_comm_get(comm, "starpu_mpi_barrier");
	if (!c)
		return -EINVAL;
	struct mreq *r = req_new(MREQ_BARRIER, "starpu_mpi_barrier");
	if (!r)
		return -ENOMEM;
	r->comm = c;
	prog_push_kick(r, CMD_SUBMIT);
	return req_wait(r, NULL);
}

int starpu_mpi_wait_for_all(MPI_Comm comm)
{
	int ret = mpi_check_submit("starpu_mpi_wait_for_all");
	if (ret)
		return ret;
	/* Receives release tasks, and tasks' callbacks may communicate:
	 * until both are quiet. */
	for (;;)
	{
		starpu_task_wait_for_all();
		req_wait_none_live();
		starpu_pthread_mutex_lock(&mpi.qlock);
		int live = mpi.nlive;
		starpu_pthread_mutex_unlock(&mpi.qlock);
		starpu_task_wait_for_all();
		starpu_pthread_mutex_lock(&mpi.qlock);
		int still = mpi.nlive;
		starpu_pthread_mutex_unlock(&mpi.qlock);
		if (!live && !still)
			break;
	}
	return starpu_mpi_barrier(comm);
}

/* ------------------------------------------------------------------ */
/* Tag unlocking. */

int starpu_mpi_isend_detached_unlock_tag(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm, starpu_tag_t tag)
{
	struct mp2p p = {
		.fn = "starpu_mpi_isend_detached_unlock_tag", .type = MREQ_SEND, .handle = data_handle, .peer = dest,
		.tag = data_tag, .comm = comm, .seq_consistency = 1, .has_unlock_tag = 1, .unlock_tag = tag,
	};
	return p2p_submit(&p, NULL);
}

int starpu_mpi_isend_detached_unlock_tag_prio(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm, starpu_tag_t tag)
{
	struct mp2p p = {
		.fn = "starpu_mpi_isend_detached_unlock_tag_prio", .type = MREQ_SEND, .handle = data_handle, .peer = dest,
		.tag = data_tag, .comm = comm, .prio = prio, .seq_consistency = 1, .has_unlock_tag = 1, .unlock_tag = tag,
	};
	return p2p_submit(&p, NULL);
}

int starpu_mpi_irecv_detached_unlock_tag(starpu_data_handle_t data_handle, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm, starpu_tag_t tag)
{
	struct mp2p p = {
		.fn = "starpu_mpi_irecv_detached_unlock_tag", .type = MREQ_RECV, .handle = data_handle, .peer = source,
		.tag = data_tag, .comm = comm, .seq_consistency = 1, .has_unlock_tag = 1, .unlock_tag = tag,
	};
	return p2p_submit(&p, NULL);
}

static int array_unlock(const char *fn, enum mreq_type type, unsigned n, starpu_data_handle_t *handles, int *peers,
			starpu_mpi_tag_t *tags, int *prios, MPI_Comm *comms, starpu_tag_t tag)
{
	int ret = mpi_check_submit(fn);
	if (ret)
		return ret;
	if (n && (!handles || !peers || !tags || !comms))
	{
		mpi_error("%s: an array is NULL (-EINVAL)", fn);
		return -EINVAL;
	}
	/* Everything checked first: all or nothing. */
	for (unsigned i = 0; i < n; i++)
	{
		struct mp2p p = { .fn = fn, .type = type, .handle = handles[i], .peer = peers[i], .tag = tags[i], .comm = comms[i] };
		struct mcomm *c;
		if ((ret = p2p_check(&p, &c)))
			return ret;
	}
	if (!n)
	{
		starpu_tag_notify_from_apps(tag);
		return 0;
	}
	struct mgroup *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->remaining = (int) n;
	g->has_tag = 1;
	g->tag = tag;
	for (unsigned i = 0; i < n; i++)
	{
		struct mp2p p = {
			.fn = fn, .type = type, .handle = handles[i], .peer = peers[i], .tag = tags[i], .comm = comms[i],
			.prio = prios ? prios[i] : 0, .seq_consistency = 1, .group = g,
		};
		if ((ret = p2p_submit(&p, NULL)))
			return ret;
	}
	return 0;
}

int starpu_mpi_isend_array_detached_unlock_tag(unsigned array_size, starpu_data_handle_t *data_handle, int *dest, starpu_mpi_tag_t *data_tag, MPI_Comm *comm, starpu_tag_t tag)
{
	return array_unlock("starpu_mpi_isend_array_detached_unlock_tag", MREQ_SEND, array_size, data_handle, dest, data_tag, NULL, comm, tag);
}

int starpu_mpi_isend_array_detached_unlock_tag_prio(unsigned array_size, starpu_data_handle_t *data_handle, int *dest, starpu_mpi_tag_t *data_tag, int *prio, MPI_Comm *comm, starpu_tag_t tag)
{
	return array_unlock("starpu_mpi_isend_array_detached_unlock_tag_prio", MREQ_SEND, array_size, data_handle, dest, data_tag, prio, comm, tag);
}

int starpu_mpi_irecv_array_detached_unlock_tag(unsigned array_size, starpu_data_handle_t *data_handle, int *source, starpu_mpi_tag_t *data_tag, MPI_Comm *comm, starpu_tag_t tag)
{
	return array_unlock("starpu_mpi_irecv_array_detached_unlock_tag", MREQ_RECV, array_size, data_handle, source, data_tag, NULL, comm, tag);
}
