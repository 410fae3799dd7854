/* simrun_mpi.c — the MPI of a simulated cluster (sim/mpi/mpi.h), inside
 * vela-simrun, shared by every rank of the simulation.
 *
 * A rank is known by the host its calling actor runs on (n<r>.*): every
 * actor of a rank (its main, Vela's workers, its progression thread)
 * lives on its node's hosts, so any of them may call MPI as that rank —
 * what SimGrid's SMPI does not allow (simrun.c says why that matters).
 *
 * A message is packed at the send, then a courier actor carries its bytes
 * from the sender's node host RAM to the receiver's along the platform's
 * route (latency + bytes / bottleneck bandwidth, links shared with the
 * other transfers); when it arrives it is delivered — to the first posted
 * receive that matches it (source, tag), else to the unexpected queue —
 * in the order the messages of that pair of ranks were sent (MPI's
 * non-overtaking rule). A send completes when its message is delivered
 * (but see "Eager sends"), a synchronous send once it is also matched.
 * Nothing here reads the wall clock: the same run gives the same
 * simulated times.
 *
 * Eager sends: to a node whose RAM host says mpi_copy_above (shared
 * memory, the eager limit), a send of at most that many bytes (not a
 * synchronous one) completes as it is posted, as Open MPI's shared-memory
 * eager sends do (the bytes are in the transport's buffers; a real
 * StarPU-MPI send of 8 bytes ends before starpu_mpi_isend returns); its
 * message still arrives after the route's latency.
 *
 * Copies by the receiver: on a node whose RAM host says mpi_copy_above
 * (bytes) and mpi_copy_Bps (make-cluster.py --copy-above, written for
 * localhost by calibrate-mpi.sh), a larger message sent to it goes as
 * shared-memory MPI sends it (a rendezvous, Open MPI's single copy): only
 * its header crosses the route (latency), and the receiving rank's thread
 * that next tests or waits for the matched receive copies the bytes
 * itself, bytes / mpi_copy_Bps of its CPU (an execution on a time-shared
 * host, sharing the core with the rank's worker; else a delay); the send
 * completes with the copy. The header's arrival wakes the rank's
 * spinning threads, as a polling thread would see it.
 *
 * Bytes: a message of at most VELA_SIMRUN_COPY_MAX bytes (default 65536)
 * carries its bytes; a larger one only its size, leaving the receive
 * buffer as it was. In a simulation kernels do not run, so a tile's values
 * mean nothing, while copying them would cost the time and memory of the
 * real data (a 1M-task Cholesky moves terabytes); libvela-mpi's envelopes
 * and small messages, which the runtime reads, are far below the limit.
 * VELA_SIMRUN_COPY_MAX=-1 copies every message.
 *
 * Locks: none. Actors run one at a time and these functions never block
 * except in vsg_mpi_wait, on one SimGrid condition that every completion
 * signals.
 */
#define _GNU_SOURCE
#include "sim/mpi/mpi.h"

#include <simgrid/actor.h>
#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mutex.h>
#include <xbt/config.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/sg_delay.h"
#include "sim/simrun_internal.h"


enum { REQ_SEND, REQ_RECV, REQ_BARRIER };

struct msg;
struct courier;

struct vsg_request
{
	int kind;
	int rank;		/* whose request */
	int complete;
	MPI_Status st;
	/* receives */
	void *buf;
	int count;
	MPI_Datatype dt;
	int source, tag, comm;
	struct vsg_request *next;	/* in the rank's posted list */
	/* sends */
	struct msg *m;
	/* receives: matched to a message whose bytes this rank copies */
	struct msg *rndv;
};

struct msg
{
	int src, dst, tag, sync, comm;
	size_t bytes;
	unsigned char *data;
	unsigned long long seq;
	struct vsg_request *sreq;	/* the send, until it completes */
	int delivered, matched;
	int rndv;		/* copied by the receiver (mpi_copy_above) */
	struct msg *next;
};

struct rank
{
	int initialized, finalized, level;
	sg_host_t ram;
	struct vsg_request *posted, *posted_tail;
	struct msg *unexpected, *unexpected_tail;
	unsigned long long *sent;	/* per destination: messages sent */
	unsigned long long *delivered;	/* per source: messages delivered */
	struct msg **early;		/* per source: arrived before their turn */
	struct courier *idle;		/* couriers of this rank's messages, waiting */
	unsigned long activity;		/* requests of this rank completed so far */
	int nwatching;			/* actors in vsg_mpi_wait_activity */
	sg_cond_t activity_cond;
	/* Those of them blocked with sg_block (sg_blocking): on their stacks. */
	struct watcher *watchers;
	/* Messages above copy_above bytes to this rank are copied by it at
	 * copy_Bps (negative copy_above: none). */
	double copy_above, copy_Bps;
	/* µs per starpu_mpi_task_insert: [0] fixed, [1] per datum, of a task
	 * another rank runs; [2], [3] of one this rank runs. */
	double insert_us[4];
	/* µs per send, per receive an insertion posts. */
	double exchange_us[2];
};

struct watcher
{
	struct sg_delay_slot slot;
	struct watcher *next;
	int listed;
};

static struct rank *ranks;
static int nranks;
static int blocking;		/* sg_blocking(), at set-up */
/* Per pair of ranks (nranks x nranks), the route's latency (s; < 0: not
 * yet read) and its rate for a transfer alone (B/s): small_transfer_s. */
static double *route_lat, *route_Bps;
static int tag_ub = INT_MAX;
static sg_cond_t done_cond;
static sg_mutex_t done_mutex;
static int nwaiting;		/* actors in vsg_mpi_wait */
/* Ibarrier: those waiting in the current round. */
static struct vsg_request **barrier_reqs;
static int barrier_n;
static long long copy_max = 65536;	/* VELA_SIMRUN_COPY_MAX; -1: no limit */
static int *ndups;			/* per rank: communicators duplicated */


static void die(const char *fn, const char *what)
{
	fprintf(stderr, "[vela-simrun] error: %s: %s\n", fn, what);
	fflush(NULL);
	_exit(1);
}

void simrun_mpi_setup(int np);
void simrun_mpi_setup(int np)
{
	nranks = np;
	blocking = sg_blocking();
	ranks = calloc((size_t) np, sizeof(*ranks));
	route_lat = malloc((size_t) np * (size_t) np * sizeof(*route_lat));
	route_Bps = calloc((size_t) np * (size_t) np, sizeof(*route_Bps));
	if (route_lat)
		for (size_t i = 0; i < (size_t) np * (size_t) np; i++)
			route_lat[i] = -1;
	barrier_reqs = calloc((size_t) np, sizeof(*barrier_reqs));
	if (!ranks || !barrier_reqs || !route_lat || !route_Bps)
		die("setup", "out of memory");
	for (int r = 0; r < np; r++)
	{
		ranks[r].sent = calloc((size_t) np, sizeof(unsigned long long));
		ranks[r].delivered = calloc((size_t) np, sizeof(unsigned long long));
		ranks[r].early = calloc((size_t) np, sizeof(struct msg *));
		ranks[r].activity_cond = sg_cond_init();
		if (!ranks[r].sent || !ranks[r].delivered || !ranks[r].early)
			die("setup", "out of memory");
		char name[64];
		const char *try[] = { "RAM", "MAIN", "CPU0" };
		for (int k = 0; k < 3 && !ranks[r].ram; k++)
		{
			snprintf(name, sizeof(name), "n%d.%s", r, try[k]);
			ranks[r].ram = sg_host_by_name(name);
		}
		ranks[r].copy_above = -1;
		const char *ca = ranks[r].ram ? sg_host_get_property_value(ranks[r].ram, "mpi_copy_above") : NULL;
		const char *cb = ranks[r].ram ? sg_host_get_property_value(ranks[r].ram, "mpi_copy_Bps") : NULL;
		if (ca || cb)
		{
			char *e1 = NULL, *e2 = NULL;
			double a = ca ? strtod(ca, &e1) : -1, b = cb ? strtod(cb, &e2) : -1;
			if (!ca || !cb || *e1 || *e2 || !(a >= 0) || !(b > 0) || !isfinite(a) || !isfinite(b))
			{
				char why[200];
				snprintf(why, sizeof(why), "host %s: mpi_copy_above and mpi_copy_Bps go together, a number of "
					 "bytes >= 0 and a bandwidth > 0", name);
				die("setup", why);
			}
			ranks[r].copy_above = a;
			ranks[r].copy_Bps = b;
		}
		const char *ins[6] = { "mpi_insert_us", "mpi_insert_us_per_datum", "mpi_insert_local_us",
				       "mpi_insert_local_us_per_datum", "mpi_insert_send_us", "mpi_insert_recv_us" };
		for (int k = 0; k < 6; k++)
		{
			const char *v = ranks[r].ram ? sg_host_get_property_value(ranks[r].ram, ins[k]) : NULL;
			char *end = NULL;
			double us = v ? strtod(v, &end) : 0;
			if (v && (*end || !(us >= 0) || !isfinite(us)))
			{
				char why[200];
				snprintf(why, sizeof(why), "host %s: %s='%s' must be a cost in microseconds (>= 0)", name, ins[k], v);
				die("setup", why);
			}
			if (k < 4)
				ranks[r].insert_us[k] = us;
			else
				ranks[r].exchange_us[k - 4] = us;
		}
	}
	ndups = calloc((size_t) np, sizeof(int));
	if (!ndups)
		die("setup", "out of memory");
	done_cond = sg_cond_init();
	done_mutex = sg_mutex_init();
	const char *cm = getenv("VELA_SIMRUN_COPY_MAX");
	if (cm && *cm)
	{
		char *end;
		copy_max = strtoll(cm, &end, 10);
		if (*end || copy_max < -1)
			die("setup", "VELA_SIMRUN_COPY_MAX must be a number of bytes, or -1 (copy every message)");
	}
}

/* The calling actor's rank, from its host's name (the last host asked
 * about remembered: a rank's threads call in runs). */
static int self_rank(const char *fn)
{
	static sg_host_t last_host;
	static int last_rank;
	sg_host_t host = sg_host_self();
	if (host == last_host)
		return last_rank;
	const char *h = sg_host_get_name(host);
	char *end;
	long r = h[0] == 'n' ? strtol(h + 1, &end, 10) : -1;
	if (r < 0 || r >= nranks || *end != '.')
	{
		char why[160];
		snprintf(why, sizeof(why), "called on host %s, which is no rank's node (n0.. n%d.)", h, nranks - 1);
		die(fn, why);
	}
	last_host = host;
	last_rank = (int) r;
	return (int) r;
}

int simrun_self_rank(const char *fn)
{
	return self_rank(fn);
}

int simrun_nranks(void)
{
	return nranks;
}

/* Communicators: MPI_COMM_WORLD (1) and its duplicates (2, 3, ...: the
 * same ranks, a message space of their own). Every rank makes the same
 * duplicates in the same order (MPI_Comm_dup is collective), so the
 * number rank r's i-th duplicate gets is the same on every rank. */

static int check_comm(MPI_Comm comm, const char *fn)
{
	intptr_t c = (intptr_t) comm;
	if (c < 1 || c > 1 + 1000000)
	{
		fprintf(stderr, "[vela-simrun] error: %s: not a communicator of the simulated cluster (MPI_COMM_WORLD "
			"or a duplicate of it)\n", fn);
		return MPI_ERR_COMM;
	}
	return MPI_SUCCESS;
}

int simrun_check_comm(MPI_Comm comm, const char *fn)
{
	return check_comm(comm, fn);
}

/* ------------------------------------------------------------------ */
/* Environment */

EXPORT int vsg_mpi_init_thread(int *argc, char ***argv, int required, int *provided)
{
	(void) argc;
	(void) argv;
	struct rank *r = &ranks[self_rank("MPI_Init")];
	r->initialized = 1;
	r->level = required;
	if (provided)
		*provided = required;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_init(int *argc, char ***argv)
{
	return vsg_mpi_init_thread(argc, argv, MPI_THREAD_SINGLE, NULL);
}

EXPORT int vsg_mpi_initialized(int *flag)
{
	*flag = ranks[self_rank("MPI_Initialized")].initialized;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_finalize(void)
{
	ranks[self_rank("MPI_Finalize")].finalized = 1;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_finalized(int *flag)
{
	*flag = ranks[self_rank("MPI_Finalized")].finalized;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_query_thread(int *provided)
{
	*provided = ranks[self_rank("MPI_Query_thread")].level;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_abort(MPI_Comm comm, int code)
{
	(void) comm;
	fprintf(stderr, "[vela-simrun] rank %d called MPI_Abort(%d)\n", self_rank("MPI_Abort"), code);
	fflush(NULL);
	_exit(code ? code : 1);
}

EXPORT double vsg_mpi_wtime(void)
{
	return simgrid_get_clock();
}

EXPORT int vsg_mpi_comm_rank(MPI_Comm comm, int *rank)
{
	int ret = check_comm(comm, "MPI_Comm_rank");
	if (!ret)
		*rank = self_rank("MPI_Comm_rank");
	return ret;
}

EXPORT int vsg_mpi_comm_size(MPI_Comm comm, int *size)
{
	int ret = check_comm(comm, "MPI_Comm_size");
	if (!ret)
		*size = nranks;
	return ret;
}

EXPORT int vsg_mpi_comm_group(MPI_Comm comm, MPI_Group *group)
{
	*group = (MPI_Group) (intptr_t) 1;
	return check_comm(comm, "MPI_Comm_group");
}

EXPORT int vsg_mpi_group_translate_ranks(MPI_Group g1, int n, const int *r1, MPI_Group g2, int *r2)
{
	(void) g1;
	(void) g2;
	for (int i = 0; i < n; i++)
		r2[i] = r1[i];
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_group_free(MPI_Group *group)
{
	*group = MPI_GROUP_NULL;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
	int ret = check_comm(comm, "MPI_Comm_get_attr");
	*flag = 0;
	if (!ret && keyval == MPI_TAG_UB)
	{
		*(int **) value = &tag_ub;
		*flag = 1;
	}
	return ret;
}

EXPORT int vsg_mpi_get_processor_name(char *name, int *len)
{
	*len = snprintf(name, MPI_MAX_PROCESSOR_NAME, "n%d", self_rank("MPI_Get_processor_name"));
	return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Point to point */

/* In maestro: unblocks rank r's watchers. */
static void wake_watchers(void *arg)
{
	struct rank *r = arg;
	struct watcher *w = r->watchers;
	r->watchers = NULL;
	for (; w; w = w->next)
	{
		w->listed = 0;
		sg_unblock(&w->slot);
	}
}

/* Rank r's activity moved: wakes the actors watching it. */
static void activity(struct rank *r)
{
	r->activity++;
	if (!r->nwatching)
		return;
	if (blocking)
	{
		if (r->watchers)
			sg_in_kernel(wake_watchers, r);
	}
	else
		sg_cond_notify_all(r->activity_cond);
}

/* May let other actors run (notifying is a simcall): callers touch
 * neither q nor their lists' state after it. */
static void complete(struct vsg_request *q)
{
	q->complete = 1;
	activity(&ranks[q->rank]);
	if (nwaiting)
		sg_cond_notify_all(done_cond);
}

/* Something for rank r's pollers to see that completes nothing yet (a
 * rendezvous header): wakes its spinning and waiting threads. */
static void stir(struct rank *r)
{
	activity(r);
	if (nwaiting)
		sg_cond_notify_all(done_cond);
}

/* The calling actor works for that long: an execution of its host's flops
 * on a time-shared host (its core shared with the rank's other threads),
 * else a delay. */
static void busy(double seconds)
{
	if (!(seconds > 0))
		return;
	sg_host_t h = sg_host_self();
	const char *v = sg_host_get_property_value(h, "time_shared");
	if (v && !strcmp(v, "1"))
		sg_actor_execute(seconds * sg_host_get_speed(h));
	else
		sg_actor_sleep_for(seconds);
}

static int matches(const struct vsg_request *q, const struct msg *m)
{
	return q->comm == m->comm && (q->source == MPI_ANY_SOURCE || q->source == m->src) &&
	       (q->tag == MPI_ANY_TAG || q->tag == m->tag);
}

static void finish(struct vsg_request *q, struct msg *m);

/* m meets receive q: its bytes go into q's buffer. */
static void match(struct vsg_request *q, struct msg *m)
{
	size_t cap = (size_t) q->count * simrun_type_size(q->dt);
	q->st.MPI_SOURCE = m->src;
	q->st.MPI_TAG = m->tag;
	q->st.MPI_ERROR = MPI_SUCCESS;
	q->st.vsg_count = m->bytes;
	if (m->bytes > cap)
	{
		fprintf(stderr, "[vela-simrun] error: rank %d: a message of %zu bytes from rank %d (tag %d) does not fit "
			"its receive of %zu bytes\n", m->dst, m->bytes, m->src, m->tag, cap);
		q->st.MPI_ERROR = MPI_ERR_OTHER;
		q->st.vsg_count = cap;
	}
	if (m->rndv)
	{
		/* The receiver copies the bytes when it next tests q. */
		q->rndv = m;
		stir(&ranks[q->rank]);
		return;
	}
	finish(q, m);
}

/* m's bytes are in q's buffer: both complete. */
static void finish(struct vsg_request *q, struct msg *m)
{
	if (m->data)
		simrun_scatter(m->data, q->st.vsg_count, q->buf, q->count, q->dt);
	/* Everything done before the completions: each may let other actors
	 * run (a notification is a simcall), which may free the requests. */
	struct vsg_request *sq = m->sync || m->rndv ? m->sreq : NULL;
	if (sq)
	{
		sq->m = NULL;
		m->sreq = NULL;
	}
	free(m->data);
	free(m);
	complete(q);
	if (sq)
		complete(sq);
}

/* m's turn has come at its destination. */
static void deliver(struct msg *m)
{
	struct rank *d = &ranks[m->dst];
	m->delivered = 1;
	if (m->sreq && !m->sync && !m->rndv)
	{
		struct vsg_request *sq = m->sreq;
		sq->m = NULL;
		m->sreq = NULL;
		complete(sq);	/* may let other actors run: m is still ours */
	}
	for (struct vsg_request **pq = &d->posted, *prev = NULL; *pq; prev = *pq, pq = &(*pq)->next)
		if (matches(*pq, m))
		{
			struct vsg_request *q = *pq;
			*pq = q->next;
			if (d->posted_tail == q)
				d->posted_tail = prev;
			match(q, m);
			return;
		}
	m->next = NULL;
	if (d->unexpected_tail)
		d->unexpected_tail->next = m;
	else
		d->unexpected = m;
	d->unexpected_tail = m;
}

/* m has crossed the network: deliver it and whatever of its pair waited
 * behind it. */
static void arrived(struct msg *m)
{
	struct rank *d = &ranks[m->dst];
	int s = m->src;
	if (m->seq != d->delivered[s])
	{
		/* Keep the early ones sorted by sequence number. */
		struct msg **p = &d->early[s];
		while (*p && (*p)->seq < m->seq)
			p = &(*p)->next;
		m->next = *p;
		*p = m;
		return;
	}
	deliver(m);
	d->delivered[s]++;
	while (d->early[s] && d->early[s]->seq == d->delivered[s])
	{
		struct msg *e = d->early[s];
		d->early[s] = e->next;
		deliver(e);
		d->delivered[s]++;
	}
}

/* Couriers: each carries one message at a time, then waits for the next
 * on its own condition; idle ones wait in their rank's stack (the last
 * to finish is the first reused). A new one is made only when all are
 * busy, so a rank has as many as it ever had messages in flight at once,
 * without making an actor (and its stack) per message. They are daemons:
 * the simulation ends with the ranks. */
struct courier
{
	struct msg *m;		/* the message to carry; NULL: idle */
	sg_cond_t cond;
	sg_mutex_t mutex;	/* only for cond; never contended */
	struct courier *next;	/* in the rank's idle stack */
	struct sg_delay_slot slot;	/* its delays (small messages) */
};

/* A message of at most SMALL_BYTES (an envelope, a rendezvous header)
 * crosses its route as a delay on vela-simrun's heap (sg_blocking), for
 * the time SimGrid's CM02 model gives a transfer alone on the route:
 * latency + bytes / min(bottleneck bandwidth, TCP-gamma / 2 latency). A
 * network transfer costs SimGrid a max-min variable over the route's
 * links, a solve of every transfer sharing them, and an entry in a list
 * of transfers in flight that each end walks; for a few bytes, sharing
 * the links would change its time by nanoseconds. */
#define SMALL_BYTES 256

static double small_transfer_s(int s, int d, double bytes)
{
	double *lat = &route_lat[(size_t) s * (size_t) nranks + (size_t) d];
	double *Bps = &route_Bps[(size_t) s * (size_t) nranks + (size_t) d];
	if (*lat < 0)
	{
		*lat = sg_host_get_route_latency(ranks[s].ram, ranks[d].ram);
		*Bps = sg_host_get_route_bandwidth(ranks[s].ram, ranks[d].ram);
		double gamma = sg_cfg_get_double("network/TCP-gamma");
		if (*lat > 0 && gamma > 0 && gamma / (2 * *lat) < *Bps)
			*Bps = gamma / (2 * *lat);
	}
	return *lat + (bytes > 0 && *Bps > 0 ? bytes / *Bps : 0);
}

static void courier_main(int argc, char **argv)
{
	(void) argc;
	(void) argv;
	struct courier *c = sg_actor_self_get_data();
	sg_actor_daemonize(sg_actor_self());
	for (;;)
	{
		sg_mutex_lock(c->mutex);
		while (!c->m)
			sg_cond_wait(c->cond, c->mutex);
		sg_mutex_unlock(c->mutex);
		struct msg *m = c->m;
		c->m = NULL;
		struct rank *s = &ranks[m->src];
		double bytes = m->rndv ? 0.0 : (double) m->bytes;
		if (blocking && bytes <= SMALL_BYTES)
			sg_delay(&c->slot, small_transfer_s(m->src, m->dst, bytes));
		else
			sg_host_sendto(s->ram, ranks[m->dst].ram, bytes);
		/* Idle before delivering: what the delivery wakes may send. */
		c->next = s->idle;
		s->idle = c;
		arrived(m);
	}
}

/* A courier runs this file's code only (no application, no runtime):
 * a small stack, from the heap rather than a mapping of its own. */
#define COURIER_STACK 64	/* KiB, as sg_actor_set_stacksize takes it */

static void courier_send(struct msg *m)
{
	struct rank *s = &ranks[m->src];
	struct courier *c = s->idle;
	if (c)
	{
		s->idle = c->next;
		c->m = m;
		sg_cond_notify_one(c->cond);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		die("MPI_Isend", "out of memory");
	c->m = m;
	c->cond = sg_cond_init();
	c->mutex = sg_mutex_init();
	char name[32];
	snprintf(name, sizeof(name), "mpi-courier-%d", m->src);
	sg_actor_t a = sg_actor_init(name, s->ram);
	sg_actor_set_data(a, c);
	sg_actor_set_stacksize(a, COURIER_STACK);
	sg_actor_start(a, courier_main, 0, NULL);
}

static int post_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, int sync,
		     MPI_Request *req, const char *fn)
{
	int ret = check_comm(comm, fn);
	if (ret)
		return ret;
	int src = self_rank(fn);
	if (dest < 0 || dest >= nranks || count < 0 || !dt)
	{
		fprintf(stderr, "[vela-simrun] error: %s: rank %d: bad destination %d or count %d\n", fn, src, dest, count);
		return MPI_ERR_ARG;
	}
	struct msg *m = calloc(1, sizeof(*m));
	struct vsg_request *q = calloc(1, sizeof(*q));
	m->src = src;
	m->dst = dest;
	m->tag = tag;
	m->comm = (int) (intptr_t) comm;
	m->sync = sync;
	m->bytes = (size_t) count * simrun_type_size(dt);
	if (copy_max < 0 || m->bytes <= (unsigned long long) copy_max)
	{
		m->data = malloc(m->bytes ? m->bytes : 1);
		simrun_gather(buf, count, dt, m->data);
	}
	m->seq = ranks[src].sent[dest]++;
	m->rndv = ranks[dest].copy_above >= 0 && (double) m->bytes > ranks[dest].copy_above && src != dest;
	q->kind = REQ_SEND;
	q->rank = src;
	*req = q;
	if (ranks[dest].copy_above >= 0 && !sync && !m->rndv && src != dest)
	{
		/* Eager: the transport took the bytes, the send is complete
		 * before they arrive (nobody can wait on it yet). */
		q->complete = 1;
	}
	else
	{
		m->sreq = q;
		q->m = m;
	}
	if (src == dest || !ranks[src].ram || !ranks[dest].ram)
	{
		arrived(m);
		return MPI_SUCCESS;
	}
	courier_send(m);
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
	return post_send(buf, count, dt, dest, tag, comm, 0, req, "MPI_Isend");
}

EXPORT int vsg_mpi_issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
			  MPI_Request *req)
{
	return post_send(buf, count, dt, dest, tag, comm, 1, req, "MPI_Issend");
}

EXPORT int vsg_mpi_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
	int ret = check_comm(comm, "MPI_Irecv");
	if (ret)
		return ret;
	int me = self_rank("MPI_Irecv");
	if (source != MPI_ANY_SOURCE && (source < 0 || source >= nranks))
	{
		fprintf(stderr, "[vela-simrun] error: MPI_Irecv: rank %d: bad source %d\n", me, source);
		return MPI_ERR_RANK;
	}
	struct vsg_request *q = calloc(1, sizeof(*q));
	q->kind = REQ_RECV;
	q->rank = me;
	q->buf = buf;
	q->count = count;
	q->dt = dt;
	q->source = source;
	q->tag = tag;
	q->comm = (int) (intptr_t) comm;
	*req = q;
	struct rank *r = &ranks[me];
	for (struct msg **pm = &r->unexpected, *prev = NULL; *pm; prev = *pm, pm = &(*pm)->next)
		if (matches(q, *pm))
		{
			struct msg *m = *pm;
			*pm = m->next;
			if (r->unexpected_tail == m)
				r->unexpected_tail = prev;
			match(q, m);
			return MPI_SUCCESS;
		}
	if (r->posted_tail)
		r->posted_tail->next = q;
	else
		r->posted = q;
	r->posted_tail = q;
	return MPI_SUCCESS;
}

/* The calling thread (of q's rank) copies the bytes of the message
 * matched to receive q, if any: q and its send complete. */
static void copy_in(struct vsg_request *q)
{
	struct msg *m = q->rndv;
	if (!m)
		return;
	q->rndv = NULL;
	busy((double) m->bytes / ranks[q->rank].copy_Bps);
	finish(q, m);
}

static void release(MPI_Request *req, MPI_Status *st)
{
	if (st)
		*st = (*req)->st;
	free(*req);
	*req = MPI_REQUEST_NULL;
}

EXPORT int vsg_mpi_test(MPI_Request *req, int *flag, MPI_Status *st)
{
	if (*req)
		copy_in(*req);
	*flag = !*req || (*req)->complete;
	if (*req && *flag)
		release(req, st);
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status st[])
{
	int count = 0, active = 0;
	for (int i = 0; i < n; i++)
		if (reqs[i])
			copy_in(reqs[i]);
	for (int i = 0; i < n; i++)
	{
		if (!reqs[i])
			continue;
		active = 1;
		if (!reqs[i]->complete)
			continue;
		idx[count] = i;
		release(&reqs[i], st ? &st[count] : NULL);
		count++;
	}
	*outcount = active ? count : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_testall(int n, MPI_Request reqs[], int *flag, MPI_Status st[])
{
	for (int i = 0; i < n; i++)
		if (reqs[i])
			copy_in(reqs[i]);
	for (int i = 0; i < n; i++)
		if (reqs[i] && !reqs[i]->complete)
		{
			*flag = 0;
			return MPI_SUCCESS;
		}
	for (int i = 0; i < n; i++)
		if (reqs[i])
			release(&reqs[i], st ? &st[i] : NULL);
	*flag = 1;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_wait(MPI_Request *req, MPI_Status *st)
{
	if (!*req)
		return MPI_SUCCESS;
	for (;;)
	{
		copy_in(*req);
		if ((*req)->complete)
			break;
		sg_mutex_lock(done_mutex);
		nwaiting++;
		while (!(*req)->complete && !(*req)->rndv)
			sg_cond_wait(done_cond, done_mutex);
		nwaiting--;
		sg_mutex_unlock(done_mutex);
	}
	release(req, st);
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_cancel(MPI_Request *req)
{
	struct vsg_request *q = *req;
	if (!q || q->complete || q->kind != REQ_RECV || q->rndv)
		return MPI_SUCCESS;	/* sends are never cancelled: they complete; nor matched receives */
	struct rank *r = &ranks[self_rank("MPI_Cancel")];
	for (struct vsg_request **pq = &r->posted, *prev = NULL; *pq; prev = *pq, pq = &(*pq)->next)
		if (*pq == q)
		{
			*pq = q->next;
			if (r->posted_tail == q)
				r->posted_tail = prev;
			break;
		}
	q->st.vsg_cancelled = 1;
	complete(q);
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_test_cancelled(const MPI_Status *st, int *flag)
{
	*flag = st->vsg_cancelled;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_get_count(const MPI_Status *st, MPI_Datatype dt, int *count)
{
	size_t s = simrun_type_size(dt);
	*count = s ? (int) (st->vsg_count / s) : 0;
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
	MPI_Request q;
	int ret = post_send(buf, count, dt, dest, tag, comm, 0, &q, "MPI_Send");
	return ret ? ret : vsg_mpi_wait(&q, MPI_STATUS_IGNORE);
}

EXPORT int vsg_mpi_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *st)
{
	MPI_Request q;
	int ret = vsg_mpi_irecv(buf, count, dt, source, tag, comm, &q);
	return ret ? ret : vsg_mpi_wait(&q, st);
}

EXPORT void vsg_mpi_poke(void)
{
	activity(&ranks[self_rank("vsg_mpi_poke")]);
}

EXPORT void vsg_mpi_insert_cost(int n, int here)
{
	const double *c = ranks[self_rank("starpu_mpi_task_insert")].insert_us + (here ? 2 : 0);
	busy((c[0] + c[1] * (n > 0 ? n : 0)) * 1e-6);
}

EXPORT void vsg_mpi_exchange_cost(int recv)
{
	busy(ranks[self_rank("starpu_mpi_task_insert")].exchange_us[recv ? 1 : 0] * 1e-6);
}

/* A timed wait with a mutex nobody else takes: SimGrid 3.32 mishandles a
 * timed wait that times out while its mutex is held elsewhere (os_sg.c). */
EXPORT int vsg_mpi_wait_activity(double seconds)
{
	struct rank *r = &ranks[self_rank("vsg_mpi_wait_activity")];
	unsigned long seen = r->activity;
	if (seconds <= 0)
		return 0;
	/* At least 10 ns: a wait shorter than the engine's precision would
	 * not move the clock, and a caller waiting out "the rest" of a window
	 * computed in floating point would wait forever. */
	if (seconds < 1e-8)
		seconds = 1e-8;
	double deadline = simgrid_get_clock() + seconds;
	if (blocking)
	{
		/* Listed once: wake_watchers takes it off only as the
		 * activity moves, which ends the loop. */
		struct watcher w;
		memset(&w, 0, sizeof(w));
		w.next = r->watchers;
		r->watchers = &w;
		w.listed = 1;
		r->nwatching++;
		while (r->activity == seen)
			if (deadline - simgrid_get_clock() <= 0 || sg_block(&w.slot, deadline))
				break;
		if (w.listed)
			for (struct watcher **p = &r->watchers; *p; p = &(*p)->next)
				if (*p == &w)
				{
					*p = w.next;
					break;
				}
		r->nwatching--;
		return r->activity != seen;
	}
	sg_mutex_t m = sg_mutex_init();
	sg_mutex_lock(m);
	r->nwatching++;
	while (r->activity == seen)
	{
		double left = deadline - simgrid_get_clock();
		if (left <= 0 || sg_cond_wait_for(r->activity_cond, m, left))
			break;
	}
	r->nwatching--;
	sg_mutex_unlock(m);
	sg_mutex_destroy(m);
	return r->activity != seen;
}

/* ------------------------------------------------------------------ */
/* Barriers: a round completes when every rank has entered it. */

EXPORT int vsg_mpi_ibarrier(MPI_Comm comm, MPI_Request *req)
{
	int ret = check_comm(comm, "MPI_Ibarrier");
	if (ret)
		return ret;
	int me = self_rank("MPI_Ibarrier");
	struct vsg_request *q = calloc(1, sizeof(*q));
	q->kind = REQ_BARRIER;
	q->rank = me;
	*req = q;
	barrier_reqs[barrier_n++] = q;
	if (barrier_n == nranks)
	{
		/* The next round may start while these complete (a completion
		 * lets other actors run): take this one's requests first. */
		struct vsg_request **round = malloc(sizeof(*round) * (size_t) nranks);
		if (!round)
			die("MPI_Ibarrier", "out of memory");
		memcpy(round, barrier_reqs, sizeof(*round) * (size_t) nranks);
		barrier_n = 0;
		for (int i = 0; i < nranks; i++)
			complete(round[i]);
		free(round);
	}
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_barrier(MPI_Comm comm)
{
	MPI_Request q;
	int ret = vsg_mpi_ibarrier(comm, &q);
	return ret ? ret : vsg_mpi_wait(&q, MPI_STATUS_IGNORE);
}

/* ------------------------------------------------------------------ */
/* Duplicates (the collectives: simrun_coll.c). */

EXPORT int vsg_mpi_comm_dup(MPI_Comm comm, MPI_Comm *dup)
{
	int ret = check_comm(comm, "MPI_Comm_dup");
	if (ret)
		return ret;
	int me = self_rank("MPI_Comm_dup");
	*dup = (MPI_Comm) (intptr_t) (2 + ndups[me]++);
	return MPI_SUCCESS;
}

EXPORT int vsg_mpi_comm_free(MPI_Comm *comm)
{
	*comm = MPI_COMM_NULL;
	return MPI_SUCCESS;
}
