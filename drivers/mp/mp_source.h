/* mp_source.h — the source side of the master/slave layer, as the MPI_MS
 * drivers (mp_driver.c) use it: the sinks, events, commands and data
 * messages (mp_source.c).
 *
 * Events. Everything the source waits for is an event: a count of pieces
 * still to complete (a reply from a sink, a data message of the source's
 * own) and a status. Its memory is counted by references: each owner (the
 * copy's struct drv_async, a worker's pipeline, a waiting caller) holds
 * one, and each piece in flight holds one, so that a piece completing
 * after its owners gave up touches live memory. The last reference frees
 * the event.
 *
 * Progress. Nothing happens without a thread calling mp_progress (every
 * test and wait does): it completes the channel's requests and handles the
 * sinks' replies. The channel lock serialises every channel call; it is a
 * leaf (nothing else is taken while it is held; replies end events, which
 * takes no lock).
 */
#ifndef VELA_MP_SOURCE_H
#define VELA_MP_SOURCE_H

#include "drivers/mp/mp.h"

#include <stdatomic.h>
#include <sys/types.h>

/* One sink (slave) of the job. Identity fixed at boot; reply and
 * reply_req under the channel lock; the session fields (used, node,
 * nthreads) written by setup/teardown, before and after any worker runs. */
struct mp_sink
{
	int rank;
	unsigned ncores;		/* from its INFO */
	ssize_t memsize;
	char host[64];
	int info;			/* INFO received */
	void *reply_req;		/* the posted receive of its next reply */
	struct mp_reply reply;
	_Atomic long long last_heard;	/* µs, when its last reply came */
	_Atomic long long ping_sent;	/* µs, 0: none since last heard */
	/* The session. */
	int used;
	int devid;
	unsigned node;
	unsigned nthreads;
};

extern struct mp_sink mp_sinks[];
extern unsigned mp_nsinks;

struct mp_event;

/* A new event of pieces pieces, held by owners owners. NULL: no memory. */
struct mp_event *mp_event_new(struct mp_sink *s, int pieces, int owners);
/* More pieces (the next copy of one interface). */
void mp_event_add(struct mp_event *ev, int pieces);
void mp_event_ref(struct mp_event *ev);
/* n pieces that will never start end now, with status. */
void mp_event_fail(struct mp_event *ev, int n, int status);
void mp_event_unref(struct mp_event *ev);
/* 1 done, 0 not yet, <0 failed (progresses the channel). */
int mp_event_test(struct mp_event *ev);
/* 0 or <0, once done. Waits without sleeping for long: the sink's reply
 * is usually a few microseconds away. Reports a sink that stops
 * answering and ends the job. */
int mp_event_wait(struct mp_event *ev);
/* The value a reply gave (ALLOC's address); valid once done. */
uint64_t mp_event_value(const struct mp_event *ev);
/* What to name when a kernel fails (owned by the event from now). */
void mp_event_set_what(struct mp_event *ev, char *what);

/* Sends command c (its token set to ev, whose piece the reply completes;
 * ev NULL: no reply expected) with len bytes of payload. 0 or <0. */
int mp_send_cmd(struct mp_sink *s, struct mp_cmd *c, const void *payload, size_t len, struct mp_event *ev);
/* The data of a copy between the source and rank peer: a piece of ev. */
int mp_data_send(int peer, int tag, const void *buf, size_t blocksize, size_t nblocks, size_t ld, struct mp_event *ev);
int mp_data_recv(int peer, int tag, void *buf, size_t blocksize, size_t nblocks, size_t ld, struct mp_event *ev);
/* A data tag no copy in flight uses. */
int mp_new_tag(void);
/* Completes what the channel can; returns how many things ended. */
int mp_progress(void);
/* The sink behind a memory node, NULL if none. */
struct mp_sink *mp_sink_of_node(unsigned node);

#endif /* VELA_MP_SOURCE_H */
