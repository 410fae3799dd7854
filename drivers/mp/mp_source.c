/* mp_source.c — the source (master) side of the master/slave layer:
 * events, progress over the channel, commands and data messages, the boot
 * (every sink's INFO) and the end of the job (EXIT). See mp_source.h for
 * events and locking, README.md for the protocol.
 */
#include "drivers/mp/mp_source.h"
#include "core/rt.h"
#include "data/memory.h"
#include "os/os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef STARPU_MAXMPIDEVS
#define STARPU_MAXMPIDEVS 1
#endif

/* Every sink of the job (mp_size - 1 of them), in rank order. */
struct mp_sink mp_sinks[STARPU_MAXNODES > 64 ? STARPU_MAXNODES : 64];
unsigned mp_nsinks;

struct mp_event
{
	_Atomic int refs;		/* owners, plus one per piece in flight */
	_Atomic int pending;		/* pieces in flight */
	_Atomic int status;		/* the first failure, else 0 */
	uint64_t value;			/* from a reply, written before its piece ends */
	struct mp_sink *sink;		/* whose silence a waiter watches */
	char *what;			/* a kernel: names it in messages (owned) */
};

/* A channel request of the source's own: a data message (a piece of ev),
 * or a command whose buffer is freed once sent. */
struct lreq
{
	void *req;
	struct mp_event *ev;
	void *freebuf;
	struct lreq *next;
};

/* Protects every channel call, the requests list and the sinks' reply
 * buffers. A leaf. */
static os_mutex_t chan_lock = OS_MUTEX_INITIALIZER;
static struct lreq *lreqs;
static _Atomic unsigned next_tag;
/* Seconds of silence from a sink that is waited for before it is pinged,
 * and as long again before it is declared dead (VELA_MPI_MS_TIMEOUT). */
static double timeout_us = 20e6;

/* ------------------------------------------------------------------ */
/* Events. */

struct mp_event *mp_event_new(struct mp_sink *s, int pieces, int owners)
{
	struct mp_event *ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	atomic_store(&ev->refs, pieces + owners);
	atomic_store(&ev->pending, pieces);
	ev->sink = s;
	return ev;
}

void mp_event_add(struct mp_event *ev, int pieces)
{
	atomic_fetch_add(&ev->refs, pieces);
	atomic_fetch_add(&ev->pending, pieces);
}

void mp_event_ref(struct mp_event *ev)
{
	atomic_fetch_add(&ev->refs, 1);
}

void mp_event_unref(struct mp_event *ev)
{
	if (ev && atomic_fetch_sub_explicit(&ev->refs, 1, memory_order_acq_rel) == 1)
	{
		free(ev->what);
		free(ev);
	}
}

void mp_event_set_what(struct mp_event *ev, char *what)
{
	free(ev->what);
	ev->what = what;
}

uint64_t mp_event_value(const struct mp_event *ev)
{
	return ev->value;
}

/* A piece ended with status (value already stored). */
static void piece_done(struct mp_event *ev, int status)
{
	if (status < 0)
	{
		int zero = 0;
		atomic_compare_exchange_strong(&ev->status, &zero, status);
	}
	atomic_fetch_sub_explicit(&ev->pending, 1, memory_order_acq_rel);
	mp_event_unref(ev);
}

void mp_event_fail(struct mp_event *ev, int n, int status)
{
	for (int i = 0; i < n; i++)
		piece_done(ev, status);
}

static int event_result(struct mp_event *ev)
{
	int st = atomic_load_explicit(&ev->status, memory_order_acquire);
	return st < 0 ? st : 1;
}

int mp_event_test(struct mp_event *ev)
{
	if (atomic_load_explicit(&ev->pending, memory_order_acquire) == 0)
		return event_result(ev);
	mp_progress();
	if (atomic_load_explicit(&ev->pending, memory_order_acquire) == 0)
		return event_result(ev);
	return 0;
}

static void sink_dead(struct mp_sink *s, const char *why)
{
	rt_error("MPI master/slave: slave %d (rank %d on %s) %s; ending the job (every process) instead of waiting for it",
		 s->devid, s->rank, s->host[0] ? s->host : "?", why);
	mp_chan->abort(1);
	abort();	/* abort() returned: should not happen */
}

/* A waiter's view of sink s: pinged after timeout_us of silence, dead
 * after as long again. */
static void watch(struct mp_sink *s, double now)
{
	if (!s)
		return;
	long long heard = atomic_load_explicit(&s->last_heard, memory_order_relaxed);
	if (now - (double) heard < timeout_us)
		return;
	long long pinged = atomic_load_explicit(&s->ping_sent, memory_order_relaxed);
	if (!pinged)
	{
		if (atomic_compare_exchange_strong(&s->ping_sent, &pinged, (long long) now))
		{
			struct mp_cmd c = { .op = MP_CMD_PING };
			mp_send_cmd(s, &c, NULL, 0, NULL);
		}
		return;
	}
	if (now - (double) pinged > timeout_us)
	{
		char why[128];
		snprintf(why, sizeof(why), "has not answered for %.0f s (dead, or its process stopped)",
			 (now - (double) heard) / 1e6);
		sink_dead(s, why);
	}
}

int mp_event_wait(struct mp_event *ev)
{
	double start = os_now_us(), last_check = start;
	unsigned spins = 0;
	while (atomic_load_explicit(&ev->pending, memory_order_acquire))
	{
		if (mp_progress())
		{
			spins = 0;
			continue;
		}
		/* Yield first (the reply is near), then sleep a little longer
		 * each time, up to 200 µs: a kernel of a second should not
		 * cost its worker's core on the master. */
		double now = os_now_us();
		if (++spins < 64 || now - start < 50.0)
			os_yield();
		else
			os_sleep_us(spins < 256 ? 20.0 : 200.0);
		if (now - last_check > 100000.0)
		{
			last_check = now;
			watch(ev->sink, now);
		}
	}
	int st = atomic_load_explicit(&ev->status, memory_order_acquire);
	return st < 0 ? st : 0;
}

/* ------------------------------------------------------------------ */
/* Replies. */

static void handle_reply(struct mp_sink *s, const struct mp_reply *r)
{
	long long now = (long long) os_now_us();
	atomic_store_explicit(&s->last_heard, now, memory_order_relaxed);
	atomic_store_explicit(&s->ping_sent, 0, memory_order_relaxed);
	struct mp_event *ev = (struct mp_event *) (uintptr_t) r->token;
	switch (r->kind)
	{
	case MP_REP_INFO:
		s->ncores = (unsigned) r->value;
		s->memsize = (ssize_t) r->value2;
		snprintf(s->host, sizeof(s->host), "%.*s", (int) sizeof(s->host) - 1, r->text);
		s->info = 1;
		return;
	case MP_REP_DYING:
	{
		char why[300];
		snprintf(why, sizeof(why), "is going down: %.*s", (int) sizeof(r->text), r->text);
		sink_dead(s, why);
		return;
	}
	case MP_REP_DONE:
		if (r->status < 0 && ev)
			rt_error("MPI slave %d (rank %d): %s: %.*s (%d)", s->devid, s->rank, ev->what ? ev->what : "a kernel",
				 (int) sizeof(r->text), r->text, r->status);
		break;
	case MP_REP_ACK:
		if (r->status < 0 && r->text[0])
			rt_error("MPI slave %d (rank %d): %.*s (%d)", s->devid, s->rank, (int) sizeof(r->text), r->text,
				 r->status);
		break;
	default:
		rt_error("MPI master/slave: slave %d sent a reply of unknown kind %u (ignored)", s->devid, r->kind);
		return;
	}
	if (ev)
	{
		ev->value = r->value;
		piece_done(ev, r->status);
	}
}

/* chan_lock held. */
static int post_reply(struct mp_sink *s)
{
	int ret = mp_chan->irecv(s->rank, MP_TAG_REPLY, &s->reply, sizeof(s->reply), 1, sizeof(s->reply), &s->reply_req);
	if (ret)
		s->reply_req = NULL;
	return ret;
}

int mp_progress(void)
{
	int n = 0;
	os_mutex_lock(&chan_lock);
	for (unsigned i = 0; i < mp_nsinks; i++)
	{
		struct mp_sink *s = &mp_sinks[i];
		while (s->reply_req)
		{
			int ret = mp_chan->test(s->reply_req, NULL);
			if (ret == 0)
				break;
			s->reply_req = NULL;
			if (ret < 0)
			{
				os_mutex_unlock(&chan_lock);
				sink_dead(s, "cannot be heard from any more (the channel failed)");
			}
			struct mp_reply r = s->reply;
			post_reply(s);
			handle_reply(s, &r);
			n++;
		}
	}
	for (struct lreq **p = &lreqs; *p;)
	{
		struct lreq *q = *p;
		int ret = mp_chan->test(q->req, NULL);
		if (ret == 0)
		{
			p = &q->next;
			continue;
		}
		*p = q->next;
		if (ret < 0)
			rt_error("MPI master/slave: a message to or from a slave failed (%d)", ret);
		if (q->ev)
			piece_done(q->ev, ret < 0 ? -EIO : 0);
		free(q->freebuf);
		free(q);
		n++;
	}
	os_mutex_unlock(&chan_lock);
	return n;
}

/* ------------------------------------------------------------------ */
/* Sending. */

/* chan_lock held. */
static int track(void *req, struct mp_event *ev, void *freebuf)
{
	struct lreq *q = malloc(sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->req = req;
	q->ev = ev;
	q->freebuf = freebuf;
	/* Appended: the oldest messages are tested first. */
	struct lreq **p = &lreqs;
	while (*p)
		p = &(*p)->next;
	q->next = NULL;
	*p = q;
	return 0;
}

/* chan_lock held. The request must be tracked: a failure to track it is
 * waited for on the spot. */
static void track_or_wait(void *req, struct mp_event *ev, void *freebuf)
{
	if (track(req, ev, freebuf) == 0)
		return;
	int ret;
	while ((ret = mp_chan->test(req, NULL)) == 0)
		os_yield();
	if (ev)
		piece_done(ev, ret < 0 ? -EIO : 0);
	free(freebuf);
}

int mp_send_cmd(struct mp_sink *s, struct mp_cmd *c, const void *payload, size_t len, struct mp_event *ev)
{
	size_t inl = len <= MP_INLINE ? len : 0;
	struct mp_cmd_msg *m = malloc(sizeof(struct mp_cmd) + inl);
	void *extra = NULL;
	if (!m)
		return -ENOMEM;
	c->token = (uint64_t) (uintptr_t) ev;
	c->payload = (uint32_t) len;
	if (len > UINT32_MAX)
	{
		free(m);
		rt_error("MPI master/slave: a command's payload of %zu bytes is too large (-EINVAL)", len);
		return -EINVAL;
	}
	m->cmd = *c;
	if (inl)
		memcpy(m->inline_payload, payload, inl);
	if (len && !inl)
	{
		if (!(extra = malloc(len)))
		{
			free(m);
			return -ENOMEM;
		}
		memcpy(extra, payload, len);
	}
	void *req, *req2 = NULL;
	os_mutex_lock(&chan_lock);
	int ret = mp_chan->isend(s->rank, MP_TAG_CMD, m, sizeof(struct mp_cmd) + inl, 1, sizeof(struct mp_cmd) + inl, &req);
	/* The payload right after its command: nothing else is sent to this
	 * sink on this tag in between (we hold the lock). */
	if (!ret && extra)
		ret = mp_chan->isend(s->rank, MP_TAG_CMD, extra, len, 1, len, &req2);
	if (ret)
	{
		os_mutex_unlock(&chan_lock);
		rt_error("MPI master/slave: cannot send a command to slave %d (rank %d) (%d)", s->devid, s->rank, ret);
		/* A first message sent without its payload would confuse the
		 * sink: nothing can be trusted after this. */
		if (extra && req)
			sink_dead(s, "could not be sent a command's payload");
		free(m);
		free(extra);
		return ret;
	}
	track_or_wait(req, NULL, m);
	if (req2)
		track_or_wait(req2, NULL, extra);
	os_mutex_unlock(&chan_lock);
	return 0;
}

int mp_data_send(int peer, int tag, const void *buf, size_t blocksize, size_t nblocks, size_t ld, struct mp_event *ev)
{
	void *req;
	os_mutex_lock(&chan_lock);
	int ret = mp_chan->isend(peer, tag, buf, blocksize, nblocks, ld, &req);
	if (!ret)
		track_or_wait(req, ev, NULL);
	os_mutex_unlock(&chan_lock);
	return ret;
}

int mp_data_recv(int peer, int tag, void *buf, size_t blocksize, size_t nblocks, size_t ld, struct mp_event *ev)
{
	void *req;
	os_mutex_lock(&chan_lock);
	int ret = mp_chan->irecv(peer, tag, buf, blocksize, nblocks, ld, &req);
	if (!ret)
		track_or_wait(req, ev, NULL);
	os_mutex_unlock(&chan_lock);
	return ret;
}

int mp_new_tag(void)
{
	unsigned span = (unsigned) (mp_chan->tag_ub() - MP_TAG_DATA);
	return MP_TAG_DATA + (int) (atomic_fetch_add_explicit(&next_tag, 1, memory_order_relaxed) % span);
}

/* ------------------------------------------------------------------ */
/* Boot and exit. */

int mp_source_boot(void)
{
	const char *t = getenv("VELA_MPI_MS_TIMEOUT");
	if (t && *t)
	{
		char *end;
		double v = strtod(t, &end);
		if (*end || !(v > 0))
			rt_warn("VELA_MPI_MS_TIMEOUT='%s' is not a number of seconds; using %.0f", t, timeout_us / 1e6);
		else
			timeout_us = v * 1e6;
	}
	mp_nsinks = 0;
	for (int r = 0; r < mp_size && mp_nsinks < sizeof(mp_sinks) / sizeof(mp_sinks[0]); r++)
	{
		if (r == mp_master)
			continue;
		struct mp_sink *s = &mp_sinks[mp_nsinks];
		memset(s, 0, sizeof(*s));
		s->rank = r;
		s->devid = (int) mp_nsinks;
		atomic_store(&s->last_heard, (long long) os_now_us());
		os_mutex_lock(&chan_lock);
		int ret = post_reply(s);
		os_mutex_unlock(&chan_lock);
		if (ret)
		{
			rt_error("starpu_init: MPI master/slave: cannot listen to rank %d (%d)", r, ret);
			return ret;
		}
		mp_nsinks++;
	}
	/* Every sink says hello first (its cores and memory). */
	double start = os_now_us();
	for (unsigned i = 0; i < mp_nsinks; i++)
		while (!mp_sinks[i].info)
		{
			if (!mp_progress())
				os_sleep_us(100.0);
			if (os_now_us() - start > timeout_us)
			{
				rt_error("starpu_init: MPI master/slave: rank %d did not say hello within %.0f s "
					 "(is it running this program?) (-ETIMEDOUT)", mp_sinks[i].rank, timeout_us / 1e6);
				return -ETIMEDOUT;
			}
		}
	return 0;
}

void mp_source_exit(void)
{
	for (unsigned i = 0; i < mp_nsinks; i++)
	{
		struct mp_cmd c = { .op = MP_CMD_EXIT };
		mp_send_cmd(&mp_sinks[i], &c, NULL, 0, NULL);
	}
	/* Sent: the commands' requests complete (then the replies still
	 * listened for are abandoned). */
	double start = os_now_us();
	for (;;)
	{
		mp_progress();
		os_mutex_lock(&chan_lock);
		int left = lreqs != NULL;
		os_mutex_unlock(&chan_lock);
		if (!left || os_now_us() - start > 5e6)
			break;
		os_sleep_us(50.0);
	}
	os_mutex_lock(&chan_lock);
	for (unsigned i = 0; i < mp_nsinks; i++)
		if (mp_sinks[i].reply_req)
		{
			mp_chan->cancel(mp_sinks[i].reply_req);
			mp_sinks[i].reply_req = NULL;
		}
	os_mutex_unlock(&chan_lock);
	mp_chan->fini(0);
}
