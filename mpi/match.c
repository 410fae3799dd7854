/* match.c — the receiving side of the progression thread: matching
 * envelopes with receives, early messages, size checks, and the shutdown
 * handshake that finds what can never be matched.
 *
 * A receive is keyed by (comm, source, tag, seq), seq counting the
 * receives with that source and tag at submission; the sender numbers its
 * sends the same way, so an envelope names the receive it is for. A
 * receive waits for two things in any order: its envelope and its data
 * (the handle acquired in write mode on RAM). An envelope without its
 * receive is an early message: its data is taken into a buffer at once
 * (unless the sender asked for a synchronous send, which then waits), and
 * copied into the handle when the receive comes.
 *
 * A small message comes inline: its bytes follow the envelope in the same
 * MPI message, and are copied into the handle straight from the envelope
 * receive's buffer when the receive is ready, else kept like an early
 * message's.
 *
 * At shutdown every rank sends each peer a bye listing how many messages
 * it sent per tag. A receive numbered at or beyond that count can never be
 * matched: it is reported and ended (-ENOMSG), which also frees the tasks
 * waiting for it. Once every bye and every envelope it announced arrived,
 * early messages nobody received are reported too.
 *
 * Everything here runs under the engine lock (mpi.elock).
 */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

static struct mhash posted;	/* key -> struct mreq (waiting for its envelope) */
static struct mhash early;	/* key -> struct mearly */
static struct mhash byecount;	/* (comm, peer, tag) -> messages the peer sent */
static struct mearly *deferred;	/* early messages whose data waits (deadline order) */
static struct mearly *deferred_tail;
static int nbye_ops;		/* bye sends and receives in flight */
static int nunmatched;

struct mdrain
{
	char *buf;
	size_t size;
	int nmpi;
};

struct mbye
{
	struct mcomm *comm;
	int peer;
	struct menv env;
	int64_t *pairs;			/* (tag, count) */
	size_t size;
	int nmpi;
	int send;
};

static struct mkey key_of(struct mcomm *c, int peer, int64_t tag, int64_t seq)
{
	struct mkey k = { .a = (uintptr_t) c, .b = peer, .c = tag, .d = seq };
	return k;
}

void match_init(void)
{
	mhash_init(&posted);
	mhash_init(&early);
	mhash_init(&byecount);
	deferred = deferred_tail = NULL;
	nbye_ops = 0;
	nunmatched = 0;
}

static void free_early(struct mhash_entry *e, void *arg)
{
	(void) arg;
	struct mearly *m = e->v.ptr;
	free(m->buf);
	free(m);
}

void match_fini(void)
{
	mhash_foreach(&early, free_early, NULL);
	mhash_fini(&posted);
	mhash_fini(&early);
	mhash_fini(&byecount);
	deferred = deferred_tail = NULL;
}

static const char *how_name(int how)
{
	switch (how)
	{
	case HOW_SEGMENTS: return "the built-in layout of its interface";
	case HOW_PACKED: return "packed bytes (pack_data)";
	case HOW_USER: return "an MPI datatype (starpu_mpi_datatype_register)";
	default: return "?";
	}
}

/* Describes r's handle for this envelope; a message naming both sizes
 * when they differ. */
static int recv_check(struct mreq *r)
{
	int ret = desc_build(&r->desc, r->handle, 0, r->fn);
	if (ret)
		return ret;
	char lbl[64];
	if (r->env.how != (int32_t) r->desc.how)
	{
		mpi_error("%s: the message from rank %d with tag %lld was sent as %s, but handle %s is received as %s: dropped (-EINVAL)",
			  r->fn, r->status_source, (long long) r->tag, how_name(r->env.how),
			  mpi_handle_label(r->handle, lbl, sizeof(lbl)), how_name(r->desc.how));
		return -EINVAL;
	}
	if (r->desc.how != HOW_PACKED && (size_t) r->env.size != r->desc.size)
	{
		mpi_error("%s: the message from rank %d with tag %lld holds %lld bytes, but handle %s holds %zu bytes: dropped, the handle keeps its content (-EMSGSIZE)",
			  r->fn, r->status_source, (long long) r->tag, (long long) r->env.size,
			  mpi_handle_label(r->handle, lbl, sizeof(lbl)), r->desc.size);
		return -EMSGSIZE;
	}
	return 0;
}

/* Buffers handed to starpu_data_unpack come from the RAM node's
 * allocator, which frees them. */
static void *pbuf_alloc(size_t size)
{
	return (void *) starpu_malloc_on_node_flags(STARPU_MAIN_RAM, size ? size : 1, 0);
}

static size_t wire_bytes(const struct menv *env)
{
	return (size_t) (env->how == HOW_USER ? env->wire : env->size);
}

/* Posts the receives of a message's data into a contiguous buffer. */
static int post_into(char *buf, const struct menv *env, struct mcomm *c, int source, enum op_kind kind, void *ptr)
{
	if (env->how == HOW_USER)
		return post_one(buf, (int) env->wire, MPI_PACKED, 0, 0, c, source, env->data_tag, kind, ptr);
	return post_contiguous(buf, (size_t) env->size, 0, env->ssend, c, source, env->data_tag, kind, ptr);
}

/* Takes a message nobody will keep, so that its sender completes. */
static void drain(struct mcomm *c, int source, const struct menv *env)
{
	struct mdrain *d = calloc(1, sizeof(*d));
	if (d)
	{
		d->size = wire_bytes(env);
		d->buf = malloc(d->size ? d->size : 1);
	}
	if (!d || !d->buf)
	{
		mpi_error("out of memory taking a dropped message of %zu bytes from rank %d: its sender will wait", wire_bytes(env), source);
		free(d);
		return;
	}
	d->nmpi = post_into(d->buf, env, c, source, OP_DRAIN, d);
	if (!d->nmpi)
	{
		free(d->buf);
		free(d);
	}
}

/* Early messages of at least this many bytes wait for their receive a
 * little before their data is taken into a buffer: below it, the copy
 * costs less than a wait would. */
#define DEFER_MIN_BYTES ((size_t) 64 << 10)

static void defer_unlink(struct mearly *m)
{
	if (!m->deferred)
		return;
	if (m->dprev)
		m->dprev->dnext = m->dnext;
	else
		deferred = m->dnext;
	if (m->dnext)
		m->dnext->dprev = m->dprev;
	else
		deferred_tail = m->dprev;
	m->dprev = m->dnext = NULL;
	m->deferred = 0;
}

/* Whether m's data waits for its receive: large messages, for at most
 * early_defer_us and about what taking it would cost (a buffer, its page
 * faults and a copy: 1 µs per kB here), so that waiting in vain at most
 * doubles that cost, while a receive that comes meanwhile (a blocking
 * ping-pong: the peer posts it microseconds later) saves all of it. */
static int early_defer(struct mearly *m)
{
	size_t bytes = wire_bytes(&m->env);
	if (!mpi.early_defer_us || bytes < DEFER_MIN_BYTES)
		return 0;
	double wait = (double) bytes / 1000.0;
	if (wait > mpi.early_defer_us)
		wait = mpi.early_defer_us;
	m->deadline = starpu_timing_now() + wait;
	m->deferred = 1;
	/* Deadlines grow with the size: insert from the tail. */
	struct mearly *p = deferred_tail;
	while (p && p->deadline > m->deadline)
		p = p->dprev;
	m->dprev = p;
	m->dnext = p ? p->dnext : deferred;
	if (m->dnext)
		m->dnext->dprev = m;
	else
		deferred_tail = m;
	if (p)
		p->dnext = m;
	else
		deferred = m;
	return 1;
}

/* Takes an early message's data into a buffer now. */
static void take_early(struct mearly *m)
{
	m->bufsize = wire_bytes(&m->env);
	m->buf = malloc(m->bufsize ? m->bufsize : 1);
	if (!m->buf)
	{
		mpi_error("out of memory taking an early message of %zu bytes from rank %d: it waits for its receive", m->bufsize, m->source);
		return;
	}
	m->nmpi = post_into(m->buf, &m->env, m->comm, m->source, OP_EARLY_RECV, m);
	if (!m->nmpi)
		m->complete = 1;
}

int match_expire_deferred(void)
{
	if (!deferred)
		return 0;
	double now = starpu_timing_now();
	int did = 0;
	while (deferred && deferred->deadline <= now)
	{
		struct mearly *m = deferred;
		defer_unlink(m);
		take_early(m);
		did = 1;
	}
	return did;
}

double match_deferred_left_us(void)
{
	if (!deferred)
		return -1;
	double left = deferred->deadline - starpu_timing_now();
	return left > 0 ? left : 0;
}

static void recv_done(struct mreq *r)
{
	int ret = 0;
	if (r->desc.how == HOW_PACKED)
	{
		ret = starpu_data_unpack(r->handle, r->buf, r->bufsize);
		if (ret)
		{
			char lbl[64];
			mpi_error("%s: unpacking %zu bytes from rank %d tag %lld into handle %s failed (%d)",
				  r->fn, r->bufsize, r->status_source, (long long) r->tag, mpi_handle_label(r->handle, lbl, sizeof(lbl)), ret);
		}
		else
			r->buf = NULL;	/* unpack freed it */
	}
	if (mpi.comm_debug)
	{
		char lbl[64];
		fprintf(stderr, MPI_ERR_PREFIX "rank %d: received %s tag %lld (#%lld) from rank %d: %lld bytes\n", r->comm->rank,
			mpi_handle_label(r->handle, lbl, sizeof(lbl)), (long long) r->tag, (long long) r->seq, r->status_source,
			(long long) r->env.size);
	}
	req_complete(r, ret);
}

/* r is ready and has its envelope; the data is still with the sender. */
static void start_recv(struct mreq *r)
{
	int ret = recv_check(r);
	if (ret)
	{
		drain(r->comm, r->status_source, &r->env);
		req_complete(r, ret);
		return;
	}
	if (r->desc.how == HOW_PACKED)
	{
		r->bufsize = (size_t) r->env.size;
		r->buf = pbuf_alloc(r->bufsize);
		if (!r->buf)
		{
			mpi_error("%s: out of memory receiving %zu packed bytes from rank %d", r->fn, r->bufsize, r->status_source);
			drain(r->comm, r->status_source, &r->env);
			req_complete(r, -ENOMEM);
			return;
		}
		r->nmpi = post_contiguous(r->buf, r->bufsize, 0, r->env.ssend, r->comm, r->status_source, r->env.data_tag, OP_DATA_RECV, r);
	}
	else
		r->nmpi = post_chunks(&r->desc, 0, r->env.ssend, r->comm, r->status_source, r->env.data_tag, OP_DATA_RECV, r);
	if (!r->nmpi)
		recv_done(r);
}

/* r is ready, has its envelope (r->env), and its bytes are in bytes
 * (an early buffer or an inline message): copies them into the handle. */
static void deliver(struct mreq *r, const char *bytes)
{
	int ret = recv_check(r);
	if (!ret)
	{
		switch (r->desc.how)
		{
		case HOW_SEGMENTS:
			desc_scatter(&r->desc, bytes);
			break;
		case HOW_PACKED:
			/* Unpack frees what the RAM allocator gave. */
			r->bufsize = (size_t) r->env.size;
			r->buf = pbuf_alloc(r->bufsize);
			if (!r->buf)
				ret = -ENOMEM;
			else
				memcpy(r->buf, bytes, r->bufsize);
			break;
		case HOW_USER:
		{
			int pos = 0;
			if (MPI_Unpack(bytes, (int) r->env.wire, &pos, r->desc.base, 1, r->desc.dt, r->comm->comm) != MPI_SUCCESS)
				ret = -EINVAL;
			break;
		}
		default:
			break;
		}
	}
	if (ret)
		req_complete(r, ret);
	else
		recv_done(r);
}

/* r is ready and took an early message whose data has arrived. */
static void finish_from_early(struct mreq *r)
{
	struct mearly *e = r->early;
	r->early = NULL;
	r->env = e->env;
	r->status_source = e->source;
	deliver(r, e->buf);
	free(e->buf);
	free(e);
}

/* r is ready and holds an early message. */
static void consume_early(struct mreq *r)
{
	struct mearly *e = r->early;
	if (!e->buf)
	{
		/* A synchronous send, or a large message, whose data was left
		 * with the sender: receive it now, straight into the handle,
		 * as if the envelope had just come. */
		defer_unlink(e);
		r->early = NULL;
		r->env = e->env;
		r->env_arrived = 1;
		r->status_source = e->source;
		free(e);
		start_recv(r);
		return;
	}
	if (!e->complete)
	{
		e->waiter = r;	/* finished when its data has arrived */
		return;
	}
	finish_from_early(r);
}

static void cancel_recv(struct mreq *r, int64_t sent, const char *why);

/* Messages the peer announced in its bye for r's tag, or -1 before the bye. */
static int64_t announced(struct mreq *r)
{
	struct mcomm *c = r->comm;
	if (c->env_expected[r->peer] < 0)
		return -1;
	struct mkey ck = { .a = (uintptr_t) c, .b = r->peer, .c = r->tag };
	struct mhash_entry *ce = mhash_find(&byecount, &ck);
	return ce ? ce->v.n : 0;
}

void match_submit_recv(struct mreq *r)
{
	struct mkey k = key_of(r->comm, r->peer, r->tag, r->seq);
	struct mhash_entry *e = mhash_find(&early, &k);
	/* The peer already said goodbye without this message: it never
	 * comes (its envelopes precede its bye, so one not here as an early
	 * message is not on its way). */
	int64_t sent = e ? -1 : announced(r);
	if (sent >= 0 && r->seq >= sent)
	{
		cancel_recv(r, sent, "submitted after the peer's shutdown");
		return;
	}
	if (e)
	{
		r->early = e->v.ptr;
		mhash_remove(&early, &k);
		if (r->ready)
			consume_early(r);
		return;
	}
	e = mhash_get(&posted, &k);
	if (!e)
	{
		mpi_error("%s: out of memory posting a receive", r->fn);
		r->cancelled = 1;
		if (r->ready)
			req_complete(r, -ENOMEM);
		return;
	}
	e->v.ptr = r;
	r->posted = 1;
}

void match_ready_recv(struct mreq *r)
{
	r->ready = 1;
	if (mpi.tracing)
		r->t_start = vela_trace_now();
	if (r->cancelled)
		req_complete(r, -ENOMSG);
	else if (r->early)
		consume_early(r);
	else if (r->env_arrived)
		start_recv(r);
}

/* ------------------------------------------------------------------ */
/* The shutdown handshake. */

/* Ends a receive that can never be matched: sent is how many messages
 * with its tag the peer sent in all. */
static void cancel_recv(struct mreq *r, int64_t sent, const char *why)
{
	char lbl[64];
	mpi_error("starpu_mpi_shutdown: the receive of handle %s with tag %lld from rank %d was never matched: rank %d sent %lld message(s) with this tag to rank %d, this was receive #%lld (%s%s%s; -ENOMSG)",
		  mpi_handle_label(r->handle, lbl, sizeof(lbl)), (long long) r->tag, r->peer, r->peer, (long long) sent,
		  r->comm->rank, (long long) r->seq + 1, r->fn, why ? ", " : "", why ? why : "");
	nunmatched++;
	r->cancelled = 1;
	if (r->ready)
		req_complete(r, -ENOMSG);
}

static void cancel_if_unmatched(struct mhash_entry *e, void *arg)
{
	struct mbye *b = arg;
	struct mreq *r = e->v.ptr;
	if (e->key.a != (uintptr_t) b->comm || e->key.b != b->peer)
		return;
	int64_t sent = announced(r);
	if (r->seq < sent)
		return;
	mhash_remove(&posted, &e->key);
	r->posted = 0;
	cancel_recv(r, sent, NULL);
}

static void bye_process(struct mbye *b)
{
	struct mcomm *c = b->comm;
	int64_t total = 0;
	size_t n = b->size / (2 * sizeof(int64_t));
	for (size_t i = 0; i < n; i++)
	{
		struct mkey k = { .a = (uintptr_t) c, .b = b->peer, .c = b->pairs[2 * i] };
		struct mhash_entry *e = mhash_get(&byecount, &k);
		if (e)
			e->v.n = b->pairs[2 * i + 1];
		total += b->pairs[2 * i + 1];
	}
	c->env_expected[b->peer] = total;
	c->nbye_missing--;
	mhash_foreach(&posted, cancel_if_unmatched, b);
}

static void bye_arrived(struct mcomm *c, int source, const struct menv *env)
{
	struct mbye *b = calloc(1, sizeof(*b));
	if (!b)
	{
		mpi_error("out of memory taking the shutdown message of rank %d", source);
		return;
	}
	b->comm = c;
	b->peer = source;
	b->env = *env;
	b->size = (size_t) env->size;
	if (b->size)
	{
		b->pairs = malloc(b->size);
		if (b->pairs)
			b->nmpi = post_contiguous((char *) b->pairs, b->size, 0, 0, c, source, env->data_tag, OP_BYE_RECV, b);
	}
	if (!b->nmpi)
	{
		bye_process(b);
		free(b->pairs);
		free(b);
		return;
	}
	nbye_ops++;
}

void match_send_byes(void)
{
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mcomm *comms = mpi.comms;
	starpu_pthread_mutex_unlock(&mpi.lock);
	for (struct mcomm *c = comms; c; c = c->next)
	{
		if (!c->bye)
			continue;
		for (int p = 0; p < c->size; p++)
		{
			if (p == c->rank)
				continue;
			struct mbye *b = calloc(1, sizeof(*b));
			size_t npairs = 0;
			if (!b || seq_bye_payload(c, p, &b->pairs, &npairs))
			{
				mpi_error("starpu_mpi_shutdown: out of memory telling rank %d how many messages were sent", p);
				free(b);
				continue;
			}
			b->comm = c;
			b->peer = p;
			b->send = 1;
			b->size = npairs * 2 * sizeof(int64_t);
			b->env.type = ENV_BYE;
			b->env.size = (int64_t) b->size;
			b->env.wire = (int64_t) b->size;
			b->env.data_tag = prog_next_data_tag(c);
			b->nmpi = post_one(&b->env, sizeof(b->env), MPI_BYTE, 1, 0, c, p, mpi.env_tag, OP_BYE_SEND, b);
			b->nmpi += post_contiguous((char *) b->pairs, b->size, 1, 0, c, p, b->env.data_tag, OP_BYE_SEND, b);
			if (!b->nmpi)
			{
				free(b->pairs);
				free(b);
				continue;
			}
			nbye_ops++;
		}
	}
}

int match_byes_complete(void)
{
	if (nbye_ops)
		return 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mcomm *comms = mpi.comms;
	starpu_pthread_mutex_unlock(&mpi.lock);
	for (struct mcomm *c = comms; c; c = c->next)
	{
		if (!c->bye)
			continue;
		if (c->nbye_missing)
			return 0;
		for (int p = 0; p < c->size; p++)
			if (p != c->rank && c->env_count[p] < c->env_expected[p])
				return 0;
	}
	return 1;
}

/* A synchronous send nobody receives would keep its sender waiting
 * forever: once every envelope is in, take the data of those (dropped,
 * reported below). */
static void drain_sync(struct mhash_entry *e, void *arg)
{
	int *pending = arg;
	struct mearly *m = e->v.ptr;
	if (m->buf)
		return;
	if (m->deferred)
	{
		defer_unlink(m);
		take_early(m);
		*pending += m->nmpi;
		return;
	}
	if (!m->env.ssend)
		return;
	m->bufsize = wire_bytes(&m->env);
	m->buf = malloc(m->bufsize ? m->bufsize : 1);
	if (!m->buf)
		return;
	m->nmpi = post_into(m->buf, &m->env, m->comm, m->source, OP_EARLY_RECV, m);
	if (!m->nmpi)
		m->complete = 1;
	*pending += m->nmpi;
}

int match_drain_unclaimed(void)
{
	int pending = 0;
	mhash_foreach(&early, drain_sync, &pending);
	return pending;
}

static void report_early(struct mhash_entry *e, void *arg)
{
	(void) arg;
	struct mearly *m = e->v.ptr;
	/* Name the handle this rank registered with the tag, if any. */
	char lbl[64] = "none";
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mkey tk = { .a = (uintptr_t) m->comm, .b = m->env.tag };
	struct mhash_entry *te = mhash_find(&mpi.tags, &tk);
	if (te)
		mpi_handle_label(te->v.ptr, lbl, sizeof(lbl));
	starpu_pthread_mutex_unlock(&mpi.lock);
	mpi_error("starpu_mpi_shutdown: a message from rank %d with tag %lld (#%lld with this tag, %lld bytes) was never received: no receive matched it (handle registered here with this tag: %s; -ENOMSG)",
		  m->source, (long long) m->env.tag, (long long) m->env.seq + 1, (long long) m->env.size, lbl);
	nunmatched++;
}

int match_report_unclaimed(void)
{
	mhash_foreach(&early, report_early, NULL);
	return nunmatched;
}

/* ------------------------------------------------------------------ */
/* Envelopes and completions. */

/* The bytes of an inline message that cannot go into its handle yet, as
 * an early message whose data has arrived. */
static struct mearly *early_inline(struct mcomm *c, int source, const struct menv *env, const char *bytes)
{
	struct mearly *m = calloc(1, sizeof(*m));
	if (m)
		m->buf = malloc(env->size ? (size_t) env->size : 1);
	if (!m || !m->buf)
	{
		mpi_error("out of memory keeping a message of %lld bytes from rank %d tag %lld: dropped", (long long) env->size, source, (long long) env->tag);
		free(m);
		return NULL;
	}
	m->comm = c;
	m->source = source;
	m->env = *env;
	m->bufsize = (size_t) env->size;
	memcpy(m->buf, bytes, m->bufsize);
	m->complete = 1;
	return m;
}

void match_envelope(struct mcomm *c, int source, const struct menv *env, size_t count)
{
	if (count < sizeof(*env))
	{
		mpi_error("a message of %zu bytes came from rank %d on the envelope tag %d: another program uses the layer's MPI tag on this communicator?",
			  count, source, mpi.env_tag);
		return;
	}
	if (env->type == ENV_BYE)
	{
		bye_arrived(c, source, env);
		return;
	}
	if (env->type != ENV_DATA || source < 0 || source >= c->size)
	{
		mpi_error("an envelope of unknown type %d came from rank %d: another program uses the layer's MPI tag %d on this communicator?",
			  (int) env->type, source, mpi.env_tag);
		return;
	}
	int inl = env->data_tag == ENV_INLINE;
	const char *bytes = (const char *) (env + 1);
	if (inl && (env->size < 0 || count != sizeof(*env) + (size_t) env->size))
	{
		mpi_error("a message from rank %d with tag %lld announces %lld bytes but carries %zu: dropped",
			  source, (long long) env->tag, (long long) env->size, count - sizeof(*env));
		return;
	}
	c->env_count[source]++;
	struct mkey k = key_of(c, source, env->tag, env->seq);
	struct mhash_entry *pe = mhash_find(&posted, &k);
	if (pe)
	{
		struct mreq *r = pe->v.ptr;
		mhash_remove(&posted, &k);
		r->posted = 0;
		r->env = *env;
		r->env_arrived = 1;
		r->status_source = source;
		if (inl)
		{
			if (r->ready)
				deliver(r, bytes);
			else if (!(r->early = early_inline(c, source, env, bytes)))
			{
				/* Lost: the receive waits, reported at shutdown. */
				r->env_arrived = 0;
				struct mhash_entry *again = mhash_get(&posted, &k);
				if (again)
				{
					again->v.ptr = r;
					r->posted = 1;
				}
			}
			return;
		}
		if (r->ready)
			start_recv(r);
		return;
	}
	if (inl)
	{
		struct mearly *m = early_inline(c, source, env, bytes);
		struct mhash_entry *ee = m ? mhash_get(&early, &k) : NULL;
		if (!ee)
		{
			if (m)
			{
				mpi_error("out of memory keeping an early message from rank %d tag %lld: dropped", source, (long long) env->tag);
				free(m->buf);
				free(m);
			}
			return;
		}
		ee->v.ptr = m;
		return;
	}
	struct mearly *m = calloc(1, sizeof(*m));
	struct mhash_entry *ee = m ? mhash_get(&early, &k) : NULL;
	if (!ee)
	{
		mpi_error("out of memory keeping an early message from rank %d tag %lld: dropped", source, (long long) env->tag);
		free(m);
		drain(c, source, env);
		return;
	}
	ee->v.ptr = m;
	m->comm = c;
	m->source = source;
	m->env = *env;
	if (env->ssend)
		return;		/* the sender waits for the receive */
	if (early_defer(m))
		return;		/* for a while */
	take_early(m);
}

void match_op_done(enum op_kind kind, void *ptr)
{
	switch (kind)
	{
	case OP_DATA_RECV:
	{
		struct mreq *r = ptr;
		if (--r->nmpi == 0)
			recv_done(r);
		break;
	}
	case OP_EARLY_RECV:
	{
		struct mearly *m = ptr;
		if (--m->nmpi == 0)
		{
			m->complete = 1;
			if (m->waiter)
				finish_from_early(m->waiter);
		}
		break;
	}
	case OP_DRAIN:
	{
		struct mdrain *d = ptr;
		if (--d->nmpi == 0)
		{
			free(d->buf);
			free(d);
		}
		break;
	}
	case OP_BYE_SEND:
	case OP_BYE_RECV:
	{
		struct mbye *b = ptr;
		if (--b->nmpi == 0)
		{
			if (!b->send)
				bye_process(b);
			free(b->pairs);
			free(b);
			nbye_ops--;
		}
		break;
	}
	default:
		mpi_error("an MPI operation of unknown kind %d completed", (int) kind);
		break;
	}
}
