/* mpi_internal.h — the inside of libvela-mpi: the layer's state, requests,
 * the progression thread's interface, data descriptions, handle records.
 *
 * Design (mpi/README.md has the longer story):
 *  - A communication is a request (struct mreq): its data is acquired
 *    through the public API (starpu_data_acquire_on_node_cb), then the
 *    engine (progress.c, ops.c, match.c) posts and tests its MPI operations.
 *    After initialisation MPI is called only under the engine lock
 *    (mpi.elock), by whichever thread holds it: the submitter of a send
 *    whose data is ready, a thread blocked in starpu_mpi_wait, or the
 *    progression thread, which does what nobody else does (progress.c's
 *    header says who does what). Calls never overlap, so
 *    MPI_THREAD_SERIALIZED suffices; under MULTIPLE the lock still guards
 *    the engine's own state.
 *  - A message is an envelope (struct menv: 64-bit tag, sequence number,
 *    size, how the data is laid out) on one reserved MPI tag, then the data
 *    in chunks of at most max_message bytes on a data tag picked per
 *    message; a small message travels inside its envelope's MPI message
 *    (inline, at most inline_max bytes). Receivers always have an envelope
 *    receive posted, so data arriving before its receive (an early
 *    message) is taken into a buffer at once and the sender never waits
 *    for the receiver's task flow.
 *  - Sends and receives between two ranks with the same tag are numbered
 *    at submission on both sides (seq); an envelope matches the receive of
 *    the same (peer, tag, seq). Matching thus follows the order of the task
 *    flows, not the order in which data became ready, and at shutdown the
 *    ranks exchange how many messages each sent per tag (a "bye"), which
 *    tells exactly which receives can never be matched.
 *
 * Locks, in order: mpi.elock (the engine: every MPI call after init, the
 * operations in flight, matching, the fields of requests marked "engine";
 * held while completing requests, so the runtime and callbacks are called
 * under it, and it is only ever taken with trylock by threads that may be
 * inside the runtime: whoever fails queues its command instead), then
 * mpi.lock (handle records, tag table, sequence counters, cache state,
 * comm list), then mpi.qlock (the command queue, request completion,
 * live-request list). Neither mpi.lock nor mpi.qlock is held while calling
 * the runtime or MPI.
 */
#ifndef VELA_MPI_INTERNAL_H
#define VELA_MPI_INTERNAL_H

#include <starpu.h>
#include <starpu_mpi.h>
#include <vela_extension.h>

/* A simulated cluster charges each starpu_mpi_task_insert its measured
 * cost, and each send and receive it posts theirs (sim/mpi/mpi.h);
 * nothing in a real run. */
#ifdef VELA_SIMULATED_MPI
#define MPI_SIM_INSERT_COST(n, here) vsg_mpi_insert_cost(n, here)
#define MPI_SIM_EXCHANGE_COST(recv) vsg_mpi_exchange_cost(recv)
#else
#define MPI_SIM_INSERT_COST(n, here) ((void) (n), (void) (here))
#define MPI_SIM_EXCHANGE_COST(recv) ((void) (recv))
#endif

/* Per-thread variables (MPI_TLS(type, name): name_get(), name_set(v)).
 * In a simulated cluster (sim/mpi/mpi.h) every actor — each of a rank's
 * threads — runs on the process's one OS thread, so a __thread variable
 * would be shared by all of them; there, the runtime's per-thread keys
 * (per actor) hold them, made on first use (actors run one at a time). */
#ifdef VELA_SIMULATED_MPI
#define MPI_TLS(type, name) \
	static starpu_pthread_key_t name##_key; \
	static int name##_key_made; \
	static inline starpu_pthread_key_t name##_k(void) \
	{ \
		if (!name##_key_made) \
		{ \
			starpu_pthread_key_create(&name##_key, NULL); \
			name##_key_made = 1; \
		} \
		return name##_key; \
	} \
	static inline type name##_get(void) { return (type) (intptr_t) starpu_pthread_getspecific(name##_k()); } \
	static inline void name##_set(type v) { starpu_pthread_setspecific(name##_k(), (void *) (intptr_t) v); }
#else
#define MPI_TLS(type, name) \
	static __thread type name##_tls; \
	static inline type name##_get(void) { return name##_tls; } \
	static inline void name##_set(type v) { name##_tls = v; }
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------ messages */

#define MPI_ERR_PREFIX "[starpu_mpi] "
/* One line on stderr, prefixed with the rank when known. */
void mpi_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Informational: silenced by STARPU_SILENT. */
void mpi_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A label for a handle in messages: "'name' (0x...)" or "0x...". */
const char *mpi_handle_label(starpu_data_handle_t h, char *buf, size_t size);

/* ---------------------------------------------------------- small hash */

/* Chained hash keyed by four integers (hash.c). The progression thread
 * keeps its own; shared ones are under mpi.lock. */
struct mkey
{
	uintptr_t a;
	int64_t b, c, d;
};
struct mhash_entry
{
	struct mkey key;
	union { void *ptr; int64_t n; } v;
	struct mhash_entry *next;
};
struct mhash
{
	struct mhash_entry **buckets;	/* a power of two of them */
	size_t nbuckets, count;
	struct mhash_entry *spare;	/* removed entries, reused */
	size_t nspare;
};
void mhash_init(struct mhash *h);
void mhash_fini(struct mhash *h);	/* frees the entries, not what they point to */
struct mhash_entry *mhash_find(struct mhash *h, const struct mkey *k);
/* The entry for k, created with v = 0 if absent (NULL: out of memory). */
struct mhash_entry *mhash_get(struct mhash *h, const struct mkey *k);
void mhash_remove(struct mhash *h, const struct mkey *k);
/* Calls fn on each entry; fn may remove the entry it is given. */
void mhash_foreach(struct mhash *h, void (*fn)(struct mhash_entry *e, void *arg), void *arg);

/* --------------------------------------------------------------- comms */

/* A communicator the layer uses. The first fields are set once and read by
 * anyone; the rest belong to the engine (mpi.elock). */
struct mcomm
{
	MPI_Comm comm;
	int rank, size;
	int *world;			/* world rank of each rank (owned) */
	int bye;			/* takes part in the shutdown handshake */
	struct mcomm *next;		/* the comm list (append only) */

	/* engine only */
	int listening;
	int next_data_tag;
	int64_t *env_count;		/* data envelopes received per peer */
	int64_t *env_expected;		/* per peer, from its bye (-1 before) */
	int nbye_missing;		/* peers whose bye has not arrived */
	struct menv_slot *lslot;	/* the posted envelope receive */
	struct msends *sends;		/* per peer: sends in flight and waiting (engine) */
};

/* Sends to one peer (engine only): how many are posted to MPI, and those
 * waiting for one of them to complete (a FIFO through mreq.wnext). */
struct msends
{
	int inflight;
	struct mreq *head, *tail;
};

/* The comm record of comm: looked up, or registered (a collective-free
 * call made under the engine lock). NULL with a message naming fn when
 * comm is unusable. */
struct mcomm *mpi_comm_get(MPI_Comm comm, const char *fn);
/* Registration itself, in the thread allowed to call MPI. */
struct mcomm *mcomm_register_now(MPI_Comm comm, int bye);

/* ---------------------------------------------------- data descriptions */

enum mhow { HOW_NONE = 0, HOW_SEGMENTS = 1, HOW_PACKED = 2, HOW_USER = 3 };

struct mseg
{
	char *ptr;
	size_t len;
};

/* How a handle's bytes go on the wire (datatype.c): built by the engine
 * once the data is acquired on STARPU_MAIN_RAM. */
struct mdesc
{
	enum mhow how;
	size_t size;			/* bytes of data */
	size_t wire;			/* bytes an early buffer needs */
	int nseg, capseg;
	struct mseg *seg;		/* owned unless == &seg1 */
	struct mseg seg1;
	void *packed;			/* HOW_PACKED send: owned buffer */
	MPI_Datatype dt;		/* HOW_USER */
	void *base;			/* HOW_USER: buffer given with dt */
	starpu_mpi_datatype_free_func_t free_dt;
};

/* Describes handle h (acquired on RAM). for_send: packs when the interface
 * needs it. 0, or -ENOTSUP/-ENOMEM with a message naming fn. */
int desc_build(struct mdesc *d, starpu_data_handle_t h, int for_send, const char *fn);
void desc_free(struct mdesc *d);
/* desc_build of a built-in interface from its RAM interface iface, taking
 * no lock and calling nothing but the interface getters: 0, or -1 (other
 * interfaces, registered datatypes, no memory: use desc_build). */
int desc_build_plain(struct mdesc *d, starpu_data_handle_t h, void *iface);
/* Chunks of a message of size bytes. */
size_t desc_nchunks(size_t size);
/* The buffer, count and datatype of chunk k of d (segments or packed). The
 * datatype is committed and must be freed (MPI_Type_free) when *owned. */
int desc_chunk(const struct mdesc *d, size_t k, void **buf, int *count, MPI_Datatype *dt, int *owned);
/* Copies a contiguous stream of d->size bytes into d's segments. */
void desc_scatter(const struct mdesc *d, const char *stream);
/* Datatype registrations (datatype.c, under mpi.lock). */
void datatype_fini(void);

/* ------------------------------------------------------------ envelopes */

enum menv_type { ENV_DATA = 1, ENV_BYE = 2 };

/* What precedes every message, on the envelope tag. */
struct menv
{
	int32_t type;
	int32_t how;			/* enum mhow */
	int64_t tag;
	int64_t seq;
	int64_t size;
	int64_t wire;
	int32_t data_tag;		/* MPI tag of the chunks, or ENV_INLINE */
	int32_t ssend;
};

/* data_tag of a message whose size bytes follow the envelope in the same
 * MPI message (small ones: a single MPI message and no second match). */
#define ENV_INLINE (-1)
/* Room for inline bytes in every envelope receive: an envelope and its
 * bytes stay within 4 KiB, the eager limit of Open MPI's shared-memory
 * transport. Senders use at most mpi.inline_max (VELA_MPI_INLINE_MAX, no
 * more than this), so ranks with different settings still agree. */
#define VELA_MPI_INLINE_CAP (4096 - sizeof(struct menv))
/* The buffer of an inline send: envelope and bytes. */
#define WBUF_SIZE (sizeof(struct menv) + VELA_MPI_INLINE_CAP)

/* ------------------------------------------------------------- requests */

enum mreq_type { MREQ_SEND = 1, MREQ_RECV, MREQ_BARRIER };

/* Commands a request carries to the engine (bit flags). */
#define CMD_SUBMIT 1u		/* a receive enters matching; a barrier starts */
#define CMD_READY 2u		/* the data is acquired */

/* Completion of several requests as one (array forms, collectives). */
struct mgroup
{
	int remaining;			/* atomic */
	void (*callback)(void *);
	void *arg;
	int has_tag;
	starpu_tag_t tag;
};

struct mreq
{
	enum mreq_type type;
	const char *fn;			/* the API call, for messages */
	starpu_data_handle_t handle;
	struct mcomm *comm;
	int peer;
	int64_t tag, seq;
	int prio;
	unsigned detached:1, ssend:1;
	unsigned sync_ready:1;		/* a receive's data was acquired during its submission, in its submitter */
	unsigned snap:1;		/* a small send whose bytes were copied into wbuf at submission: no acquisition */
	int seq_consistency;
	void (*callback)(void *);
	void *arg;
	int has_unlock_tag;
	starpu_tag_t unlock_tag;
	struct mgroup *group;

	/* engine only (mpi.elock) */
	struct mdesc desc;
	int ready, env_arrived, cancelled, posted;
	int nmpi;			/* MPI operations in flight */
	int windowed;			/* counted in its peer's sends in flight */
	struct mreq *wnext;		/* the peer's waiting sends */
	struct menv env;		/* sent (send) or received (receive) */
	struct mearly *early;		/* the early message it takes */
	void *buf;			/* packed receive buffer (starpu_malloc_on_node_flags; owned until unpacked) */
	size_t bufsize;
	char *wbuf;			/* an inline send's envelope + bytes (WBUF_SIZE bytes, malloc; kept with the recycled request) */
	int result;

	/* under mpi.qlock */
	unsigned cmd;
	int queued;
	struct mreq *qnext;
	struct mreq *lprev, *lnext;	/* live requests */
	int done;			/* written under qlock, atomically: waiters spin on it */
	int status_source;

	/* Trace times (vela_trace_now), while mpi.tracing: submission, and
	 * when the data was ready (a send handed to MPI, a receive able to
	 * take its data). */
	uint64_t t_submit, t_start;
};

/* An envelope that arrived before its receive (match.c). */
struct mearly
{
	struct mcomm *comm;
	int source;
	struct menv env;
	char *buf;			/* the data, taken at once unless ssend */
	size_t bufsize;
	int nmpi, complete;
	struct mreq *waiter;		/* the receive that took it meanwhile */
	/* A large message whose data is left with its sender for a while,
	 * in case its receive comes (then received straight into the
	 * handle): on the deferred list until then or its deadline. */
	int deferred;
	double deadline;		/* µs (starpu_timing_now) */
	struct mearly *dprev, *dnext;
};

/* A posted envelope receive. */
struct menv_slot
{
	struct mcomm *comm;
	struct menv *msg;		/* the envelope, then VELA_MPI_INLINE_CAP bytes (owned) */
};

/* ------------------------------------------------------------- progress */

/* Starts / stops the progression thread (progress.c). stop sends the byes,
 * ends every communication and returns the number reported unmatched. */
int prog_start(void);
int prog_stop(void);
/* The engine lock: try_enter takes it (1) unless this thread holds it
 * already, another does, or the engine is not running (0). */
int engine_try_enter(void);
void engine_leave(void);
int engine_held(void);
/* One pass, engine lock held: runs the queued commands, tests every MPI
 * operation in flight and dispatches what completed; 1 if anything
 * happened. */
int engine_poll(void);
/* Queues r with the given command(s) and wakes the progression thread. */
void prog_push(struct mreq *r, unsigned cmd);
/* Queues r, then runs the queue in this thread if the engine is free
 * (else the progression thread is woken). */
void prog_push_kick(struct mreq *r, unsigned cmd);
/* Runs r's command(s) now, engine lock held. */
void prog_run(struct mreq *r, unsigned cmd);
/* Posts r's envelope and data (send.c, engine lock held); the number of
 * MPI operations posted, 0 if r was completed (with an error). */
int send_start(struct mreq *r);
/* A send r that held a place in its peer's window completed (engine lock
 * held): the next waiting ones go. */
void send_window_done(struct mreq *r);
/* How many sends wait for their place (engine lock held): whoever polls
 * keeps polling meanwhile, as while data moves. */
int send_window_queued(void);
/* For send.c, engine lock held: whether the last n operations completed
 * (then dropped); the last operation is an eager message, not data that
 * keeps a thread polling. */
int ops_tail_test(int n);
void op_last_not_data(void);
/* Wakes the progression thread unless an application thread drives. */
void prog_wake_unless_driven(void);
/* A send whose data this thread just acquired: posted and tested here if
 * the engine is free (1; r may be complete, even freed, on return), else
 * 0 and nothing done. */
int post_now(struct mreq *r);
/* A small send whose data can be read now without waiting: copies the
 * bytes into r->wbuf (vela_data_read_now) and marks r snap (1), so that
 * it is posted without acquiring the data; 0: acquire it as usual. */
int send_snapshot(struct mreq *r);
/* Runs fn(arg) under the engine lock (the thread allowed to call MPI). */
int prog_call(void (*fn)(void *), void *arg);
/* New request of type t (zeroed, from the pool, listed live). */
struct mreq *req_new(enum mreq_type t, const char *fn);
/* Ends r with result: releases its data, runs its callback, notifies its
 * tag and group, wakes its waiter or frees it (detached). Progression
 * thread (or, for a request that never reached it, the submitter). */
void req_complete(struct mreq *r, int result);
/* Gives back a request that is not live any more (recycled). */
void req_free(struct mreq *r);
/* Frees the recycled requests (shutdown: nothing is live). */
void req_pool_drain(void);
/* Waits for r (not detached) to complete; returns its result and frees
 * it. */
int req_wait(struct mreq *r, int *source);
/* 1 and the result if r is complete (then freed), else 0. */
int req_test(struct mreq *r, int *result, int *source);
/* Waits until no request is live. */
void req_wait_none_live(void);

/* The MPI operations in flight (ops.c), engine lock held. For match.c
 * and the sender: posting them; kind says what completion means, ptr is
 * its object. */
enum op_kind { OP_LISTEN = 1, OP_ENV_SEND, OP_DATA_SEND, OP_DATA_RECV, OP_EARLY_RECV, OP_BARRIER, OP_BYE_SEND, OP_BYE_RECV, OP_DRAIN };
void op_add(MPI_Request mr, enum op_kind kind, void *ptr);
int prog_next_data_tag(struct mcomm *c);
/* Posts the chunk sends (send=1) or receives of d with peer on data_tag;
 * returns the number posted, each an operation of kind with ptr. */
int post_chunks(const struct mdesc *d, int send, int ssend, struct mcomm *c, int peer, int data_tag, enum op_kind kind, void *ptr);
int post_contiguous(char *buf, size_t size, int send, int ssend, struct mcomm *c, int peer, int data_tag, enum op_kind kind, void *ptr);
/* One operation (dt is not freed); 1 if posted, 0 (reported) if not. */
int post_one(void *buf, int count, MPI_Datatype dt, int send, int ssend, struct mcomm *c, int peer, int tag, enum op_kind kind, void *ptr);
/* For the engine (progress.c): tests every operation with one
 * MPI_Testsome and dispatches what completed (1 if anything did); whether
 * whoever polls must keep polling (data moving, sends waiting for their
 * window); whether operations other than the envelope receives are in
 * flight (pending), or none (only_listeners). */
int ops_test(void);
int ops_moving(void);
int ops_pending(void);
int ops_only_listeners(void);
/* Posts the envelope receive of c (once). */
void ops_listen(struct mcomm *c);
/* Shutdown: cancels the envelope receives and frees their buffers (then
 * nothing is in flight). */
void ops_cancel_listeners(void);
/* Forgets / frees the table (the engine starts / has stopped). */
void ops_reset(void);
void ops_fini(void);

/* ---------------------------------------------------------------- match */

/* The receive side (match.c), engine lock held. */
void match_init(void);
void match_fini(void);
void match_submit_recv(struct mreq *r);
void match_ready_recv(struct mreq *r);
/* An envelope received (count bytes: an inline message's bytes follow
 * it, read in place before the receive is posted again). */
void match_envelope(struct mcomm *c, int source, const struct menv *env, size_t count);
void match_op_done(enum op_kind kind, void *ptr);
/* Takes the data of the deferred early messages whose deadline passed
 * (1 if any); how long until the next deadline, µs (-1: none). */
int match_expire_deferred(void);
double match_deferred_left_us(void);
/* Shutdown: sends the byes; whether every bye and envelope has arrived;
 * reports what was never matched (count returned). */
void match_send_byes(void);
int match_byes_complete(void);
/* Then takes the data of synchronous sends nobody received (so that
 * their senders end): the number of operations that posted. */
int match_drain_unclaimed(void);
int match_report_unclaimed(void);
/* Counts for the bye: the sends submitted per (comm, peer, tag). */
int seq_bye_payload(struct mcomm *c, int peer, int64_t **pairs, size_t *npairs);

/* ------------------------------------------------------ sequence numbers */

/* Next sequence number of a send / receive with (comm, peer, tag); under
 * mpi.lock inside. */
int64_t seq_next_send(struct mcomm *c, int peer, int64_t tag);
int64_t seq_next_recv(struct mcomm *c, int peer, int64_t tag);

/* --------------------------------------------------------- handle records */

/* What the layer knows of a handle (data.c), under mpi.lock. It lives
 * inside the handle (vela_data_layer_area), the fields every rank reads
 * for every handle of every task first: a record elsewhere cost a cache
 * miss per handle per task on every rank. */
struct mdata
{
	int64_t tag;			/* -1: none */
	int rank;			/* -1: none; STARPU_MPI_PER_NODE */
	unsigned char received;		/* cache: this rank holds the current value */
	struct mcomm *comm;
	starpu_data_handle_t handle;	/* NULL: no record */
	struct mdata *prev, *next;	/* mpi.records */
	unsigned char *sent;		/* cache, on the owner: who holds it (comm size; owns redux too) */
	unsigned char *redux;		/* ranks with REDUX contributions pending (comm size; in sent's block) */
	starpu_mpi_datatype_allocate_func_t dt_alloc;
	starpu_mpi_datatype_free_func_t dt_free;
};
/* The record of h (NULL if none); _make creates it (mpi.lock held). */
struct mdata *mdata_find_locked(starpu_data_handle_t h);
struct mdata *mdata_make_locked(starpu_data_handle_t h);
void mdata_fini(void);
/* Forgets the cache state of d (lock held); 1 when this rank held a
 * received copy, which the caller then drops with mdata_drop_copy once
 * the lock is released (the runtime is never called under mpi.lock). */
int mdata_flush_locked(struct mdata *d);
void mdata_drop_copy(starpu_data_handle_t h);
void cache_stat_hit(int send, size_t bytes);

/* --------------------------------------------------------------- p2p */

/* The one entry of every point-to-point call (p2p.c): validates, creates
 * and submits a request. req NULL: detached. */
struct mp2p
{
	const char *fn;
	enum mreq_type type;
	starpu_data_handle_t handle;
	int peer;
	starpu_mpi_tag_t tag;
	MPI_Comm comm;
	int prio;
	int ssend;
	int seq_consistency;
	void (*callback)(void *);
	void *arg;
	int has_unlock_tag;
	starpu_tag_t unlock_tag;
	struct mgroup *group;
};
int p2p_submit(const struct mp2p *p, starpu_mpi_req *req);
/* The checks of p2p_submit without the submission. */
int p2p_check(const struct mp2p *p, struct mcomm **cp);

/* ----------------------------------------------------------- the layer */

struct mpi_state
{
	int initialized;		/* between init and shutdown */
	int stopping;			/* shutdown began: submissions refused */
	int mpi_initialized_here, starpu_initialized_here;
	int thread_level;
	int world_rank, world_size;
	MPI_Comm init_comm;
	int env_tag, data_tag_min, data_tag_max;
	size_t max_message;		/* chunk size (VELA_MPI_MAX_MESSAGE) */
	int cache_enabled;
	int cache_stats, comm_stats, comm_debug;
	unsigned spin_us, busy_poll_us, idle_poll_us;
	int shared_cores;		/* the progression thread has no core of its own */
	int nworkers;			/* the runtime's workers (at init); more ready tasks than this: all have work */
	int tracing;			/* this rank records its communications (trace.c; set at init) */
	int trace_sync;			/* the ranks synchronise clocks at shutdown (same on all) */
	int *trace_rank;		/* world rank -> rank in the init communicator, -1 (owned; while trace_sync) */
	size_t inline_max;		/* largest message sent inside its envelope (VELA_MPI_INLINE_MAX) */
	unsigned send_window;		/* sends posted to MPI at once per peer (VELA_MPI_SEND_WINDOW) */
	unsigned early_defer_us;	/* longest wait for the receive of a large early message (VELA_MPI_EARLY_DEFER_US) */
	struct mcomm *comms;		/* under lock */
	struct mcomm *comm_init[2];	/* the records of init's communicator and the world (set before the threads start) */

	starpu_pthread_mutex_t elock;	/* the engine (see the top of this file) */
	int driver;			/* an application thread drives the engine (atomic) */
	uint64_t drive_end;		/* when the last one stopped, µs (atomic; 0: it gave up) */

	starpu_pthread_mutex_t lock;
	struct mdata *records;		/* every handle record (the handle points to its own) */
	struct mhash tags;		/* (comm, tag) -> handle */
	struct mhash seq_send, seq_recv;	/* (comm, peer, tag) -> next seq */
	size_t *comm_amounts;		/* bytes sent per world rank (atomic counters; the array is set at init) */
	uint64_t cache_hits_send, cache_hits_recv, cache_bytes_saved;

	starpu_pthread_mutex_t qlock;
	starpu_pthread_cond_t qcond;	/* work for the progression thread */
	starpu_pthread_cond_t donecond;	/* a request that is not detached completed, none is live, or a driver left */
	struct mreq *qhead, *qtail;
	struct mreq *live;		/* live requests (for shutdown reports) */
	int nlive;
};
extern struct mpi_state mpi;

/* 0 when the layer is usable; else a message naming fn and -ESHUTDOWN. */
int mpi_check_ready(const char *fn);
/* Submissions are also refused once shutdown began. */
int mpi_check_submit(const char *fn);

/* The rank a node selection policy picks (select.c); -EINVAL (reported)
 * for an unknown policy or a rank outside the communicator. */
int select_node(int policy, int me, int size, struct starpu_data_descr *descr, int n, const char *fn);
/* Reductions as tasks running the handle's CPU methods (task_insert.c). */
int redux_submit_fold(starpu_data_handle_t dst, starpu_data_handle_t src, int prio);
/* Posts the envelope receive of a comm registered after start. */
void prog_listen_new_comm(struct mcomm *c);

/* Traces of distributed runs (trace.c). At init (collective over the
 * init communicator, before the engine starts): whether any rank records
 * a trace; if so the ranks agree on a run id, each records its rank and a
 * clock synchronisation with rank 0, and mpi.tracing is set where a
 * trace is open. At shutdown (after the engine stopped): a second
 * synchronisation, so that merging corrects clock drift. */
int mtrace_init(void);
void mtrace_fini(void);
/* A send or receive that completed successfully (engine). */
void mtrace_comm(const struct mreq *r);

/* Parts of init/shutdown in other files. */
void select_init(void);
void insert_hooks_init(void);
void stats_print(void);
/* VELA_MPI_INSERT_STATS (stats.c): read at init; begin gives the time to
 * pass to end (0 when off); write appends the sums at shutdown. */
void insert_stats_init(void);
double insert_stats_begin(void);
void insert_stats_end(double t0, int here, int ndata, int exchanges);
void insert_stats_write(void);

#endif /* VELA_MPI_INTERNAL_H */
