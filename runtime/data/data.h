/* data.h — data handles, runtime side.
 *
 * A handle (struct starpu_data_state) holds one replicate per memory node:
 * the interface describing the data there, whether a buffer is allocated,
 * and its MSI state (OWNER: the only valid copy, possibly modified; SHARED:
 * one of several valid copies; INVALID). Tasks see it through three layers:
 *
 *  - implicit dependencies (implicit.c): from the submission order and the
 *    access modes (sequential consistency), which earlier jobs a new job
 *    waits for. Commuting writes and reductions form "groups" whose members
 *    do not wait for each other;
 *  - access arbitration (access.c, arbiter.c): readers share, writers are
 *    exclusive, waiting requests are served in order;
 *  - coherency (coherency.c): before a task runs, each of its buffers is
 *    made valid (or allocated, for W) on the worker's memory node and pinned
 *    there; copies go through the node drivers (drivers/driver.h), chained
 *    through RAM when two nodes cannot copy directly. Memory for replicates
 *    comes from memalloc.c (allocation cache, LRU eviction with write-back).
 *
 * Locks. A handle's lock protects everything in the handle and its
 * replicates' state; a memory node's lock (memory.h) protects that node's
 * LRU list, cache and accounting. Order: handle lock, then node lock; a
 * thread holding a node lock only ever *tries* a handle lock (eviction). A
 * job's lock (job.h) may be taken with a handle's held. An arbiter's lock is
 * taken before the handle locks of its handles.
 */
#ifndef VELA_DATA_H
#define VELA_DATA_H

#include <starpu.h>
#include "os/os.h"
#include <vela_extension.h>

struct job;
struct job_buffer;
struct starpu_arbiter;
struct partition_plan;

enum replicate_state
{
	REP_INVALID = 0,
	REP_SHARED,
	REP_OWNER
};

struct data_replicate
{
	void *interface;		/* ops->interface_size bytes, owned by the handle */
	struct starpu_data_state *handle;
	unsigned node;
	int refcnt;			/* pins: running tasks, copies from or to it */
	int reading;			/* copies out of it in progress (a writer waits) */
	int writing;			/* tasks, acquisitions writing it (no copy reads it) */
	unsigned char allocated;	/* a buffer exists on this node */
	unsigned char allocated_by_runtime;	/* ours to free, cache or evict */
	unsigned char state;		/* enum replicate_state */
	unsigned char transferring;	/* a copy into this replicate is running */
	unsigned char stale;		/* written elsewhere during that copy */
	unsigned char allocating;	/* a thread is allocating it (lock dropped) */
	unsigned char requested;	/* a prefetch to this node is queued */
	unsigned char in_lru;		/* in the node's LRU list (node lock) */
	size_t alloc_size;		/* bytes of the runtime's buffer */
	/* The node's LRU list of evictable buffers (node lock). */
	struct data_replicate *lru_prev, *lru_next;
};

/* Members of a commute or reduction group (implicit.c). */
enum group_kind
{
	GROUP_NONE = 0,
	GROUP_COMMUTE,
	GROUP_REDUX
};

#define DATA_MAGIC 0x7e1a7e1a

struct starpu_data_state
{
	int magic;				/* DATA_MAGIC while registered */
	/* The MPI layer's record of the handle (vela_extension.h), zeroed at
	 * registration, never read by the runtime. First, beside magic: every
	 * rank of a distributed run reads both for every handle of every
	 * task, and the part it reads (its first 32 bytes) and magic then
	 * share a cache line, or two. */
	unsigned char layer_area[VELA_DATA_LAYER_BYTES] __attribute__((aligned(8)));
	os_mutex_t lock;
	struct starpu_data_interface_ops *ops;
	int home_node;				/* -1: none yet */
	/* Registration number, unique: a job's buffers are sorted by it
	 * (the order they are locked and fetched in), not by address, so
	 * that a simulated run does not depend on where malloc put handles. */
	uint64_t order;
	/* Waiters for a replicate to finish a copy or an allocation, and for
	 * nrefs to reach 0 (unregistration). */
	os_cond_t busy_cond;

	/* Implicit dependencies (implicit.c). */
	unsigned seq_consistency;
	/* In submission order, under lock: nothing was written to the data
	 * yet (home node -1), or it was invalidated since; a reduction then
	 * starts from init_cl, as in StarPU (reduction.c). */
	unsigned char seq_undefined;
	struct job *last_writer;
	struct job_buffer *readers;
	enum group_kind group;			/* open commute/reduction group */
	struct job_buffer *group_members;	/* chained through rd_prev/rd_next */
	/* Recording only (trace/, implicit.c), under lock: the ids of
	 * terminated tasks that implicit dependencies no longer point to but
	 * that a new access would have waited for (the last writer, the
	 * readers since), so that the recorded task graph keeps those edges;
	 * and the handle's id in the trace (0: none yet; set once, atomically,
	 * by trace/events.c). ghost_readers is owned, freed by
	 * data_implicit_free. */
	uint64_t trace_id;
	uint64_t ghost_writer;
	uint64_t *ghost_readers;
	unsigned nghost_readers, capghost_readers;

	/* Access arbitration (access.c). */
	int busy_readers;
	int busy_writer;
	int busy_redux;				/* reduction contributors running */
	struct job_buffer *wait_head;
	struct job_buffer *wait_tail;
	struct starpu_arbiter *arbiter;		/* starpu_data_assign_arbiter */
	struct job *acquisitions;		/* JOB_ACQUIRE jobs holding access */

	/* Submitted jobs using the handle, not yet terminated; unregistration
	 * waits for 0 (or, with unregister_waiting == 2, the last one frees
	 * the handle). */
	unsigned nrefs;
	int unregister_waiting;

	/* Coherency options. */
	uint32_t wt_mask;			/* nodes written through after a write */
	unsigned char ooc;			/* may be evicted to disk (default 1) */
	unsigned char wont_use;			/* evict first */
	unsigned char important;

	/* Reductions (reduction.c): per-worker contributions. */
	struct starpu_codelet *redux_cl;
	struct starpu_codelet *init_cl;
	void **redux_contrib;			/* [worker] interface, or NULL */
	unsigned *redux_node;			/* [worker] node of the contribution */
	unsigned *redux_busy;			/* [worker] jobs using it now (0: at rest, may be spilled) */
	struct starpu_data_state *redux_prev, *redux_next;	/* handles with contributions (reduction.c) */
	unsigned char redux_listed;

	/* Partitioning (filters.c, partition_plan.c). A piece (child) is a
	 * handle whose replicate on its home node (a RAM node: its "view
	 * node") is a view into the parent's buffer there; it pins that buffer
	 * and counts in the parent's nrefs while it exists. */
	struct starpu_data_state *parent;
	unsigned child_index;
	unsigned plan_id;			/* the parent's plan it belongs to (0: synchronous) */
	unsigned char partitioned;		/* synchronous partition: parent unusable */
	unsigned char partition_readonly;	/* the active plans are read-only: the parent stays readable */
	unsigned char cleaning;			/* a piece being unregistered by its parent */
	unsigned nchildren;			/* synchronous partition */
	struct starpu_data_state **children;	/* owned */
	struct partition_plan *plans;		/* asynchronous plans (partition_plan.c) */
	unsigned next_plan_id;
	unsigned active_plans;			/* plans submitted: one read-write, or any number read-only */

	char *name;				/* owned */
	void *user_data;
	/* Called first when the handle is freed (vela_extension.h: the MPI
	 * layer forgets its owner, tag and cache state there). */
	void (*unregister_hook)(starpu_data_handle_t handle);
	int ndims;
	int coords[4];
	void *lookup_key;			/* home pointer registered in the lookup table */

	/* Replicates (use data_rep). A handle is sized for the memory nodes
	 * that exist when it is made: rep[] holds nrep of them, each with its
	 * interface in the same allocation. A node added later (a disk) gets
	 * a replicate in `late`, made for every live handle before the node
	 * is published (data_handles_grow); its interface starts as a copy of
	 * iface_spare, the interface the registration callback wrote for the
	 * nodes beyond rep[] (they all read the same: shapes, no buffer). The
	 * live handles are linked (all_prev/all_next, handle.c's list lock). */
	struct starpu_data_state *all_prev, *all_next;
	unsigned char listed;			/* in the live list */
	unsigned nrep;
	struct data_replicate *late;		/* nodes nrep..STARPU_MAXNODES-1, or NULL */
	void *iface_spare;
	struct data_replicate rep[];
};

/* The replicate of h on node; node is below mem_nnodes (or below h->nrep). */
static inline struct data_replicate *data_rep(struct starpu_data_state *h, unsigned node)
{
	return node < h->nrep ? &h->rep[node] : &h->late[node - h->nrep];
}

/* How messages name a handle: its name (starpu_data_set_name) and
 * address, or its address; written into buf, which is returned. */
const char *data_label(starpu_data_handle_t h, char *buf, size_t size);

/* Validates a handle given by the application (NULL, unregistered). */
static inline int data_handle_valid(starpu_data_handle_t h)
{
	return h && h->magic == DATA_MAGIC;
}

static inline int rep_valid(const struct data_replicate *r)
{
	return r->state != REP_INVALID && !r->transferring;
}

/* ---- implicit.c */
/* Computes job's predecessors from each buffer's handle and records job as
 * reader, writer or group member; data_implicit_forget undoes the
 * recording when the job terminates (caller holds the handle's lock). */
void data_implicit_deps(struct job *job);
void data_implicit_forget(struct job_buffer *b);
/* Frees what implicit.c keeps for a handle being freed. */
void data_implicit_free(starpu_data_handle_t h);
/* For starpu_data_acquire_try (caller holds the handle's lock). */
int data_implicit_would_wait(starpu_data_handle_t h, enum starpu_data_access_mode mode);
void data_implicit_register_locked(struct job_buffer *b);
/* A runtime job of task t on h alone (group closers), counted as
 * submitted and holding a reference on h (h->lock held). The caller
 * records its dependencies, then lets it go with job_dep_release. */
struct job *data_internal_job_locked(starpu_data_handle_t h, struct starpu_task *t, unsigned mode, unsigned char flags);

/* ---- access.c */
/* Builds job->buffers from the task (sorted, duplicates merged). Returns 0
 * or a negative errno (message printed). */
int data_prepare_job(struct job *job);
/* Whether h is held by a blocking acquisition (starpu_data_acquire* and
 * _try, not _cb): one its unregistration must refuse, the caller would never release
 * it (h->lock held). An asynchronous one is waited for. */
int data_blocking_acquisition_locked(starpu_data_handle_t h);
/* 1 (after an error naming fn, -EDEADLK) when the calling thread holds an
 * acquisition of h that a blocking acquisition in mode would wait for: it
 * would wait for itself. Without h->lock. */
int data_held_by_caller(starpu_data_handle_t h, enum starpu_data_access_mode mode, const char *fn);
/* Requests access for buffers[job->nacquired..]; 1 when all are granted, 0
 * when the job is queued on a handle (the release that grants it resumes
 * it). */
int data_access_acquire(struct job *job);
int data_access_try_locked(starpu_data_handle_t h, struct job_buffer *b);
/* Releases the job's access to every handle and forgets its implicit
 * dependencies; jobs whose requests become granted are resumed. */
void data_release_job(struct job *job);

/* ---- coherency.c */
/* Makes every buffer of job valid (or allocated) on node, pins it there and
 * fills task->interfaces. 0, or a negative errno: -ENOMEM when the data
 * cannot fit the node at all (message printed). Waits, pinning nothing,
 * while the node is full of pinned data. */
int data_fetch_for_job(struct job *job, unsigned node);
/* Unpins what data_fetch_for_job pinned, after the execution; performs the
 * write-through copies of written data. */
void data_job_done_on_node(struct job *job, unsigned node);
/* Makes h valid on node and pins it (mode: what the caller will do). The
 * caller must hold access to h. A writing mode (W, COMMUTE) also marks the
 * replicate written until data_unpin: meanwhile no copy reads it (a
 * prefetch from it is dropped, other copies wait), as its content is
 * half written. */
int data_make_valid(starpu_data_handle_t h, unsigned node, enum starpu_data_access_mode mode);
/* Same without pinning or marking, h->lock held. */
int data_make_valid_locked_nopin(starpu_data_handle_t h, unsigned node);
/* The same, the copies made as `how` says (DATA_COPY_*, transfer.c). */
int data_make_valid_locked_copy(starpu_data_handle_t h, unsigned node, unsigned how);
/* Ends what data_make_valid(h, node, mode) began. */
void data_unpin(starpu_data_handle_t h, unsigned node, enum starpu_data_access_mode mode);
/* Simulation: before a worker copies its task's input h to device node
 * `node` (h not there, no copy of it running), waits for the prefetches
 * it started there (request.c: copies in order, as on a real device's
 * stream). A no-op for nodes without a transfer thread (real runs). */
void data_requests_wait_started(starpu_data_handle_t h, unsigned node);
/* Simulation: whether the calling thread is node's transfer thread
 * setting up a prefetch that a real device's worker would have set up
 * while the previous copy ran (request.c): its set-up costs (allocation,
 * copy set-up) are then not charged. */
int data_requests_setup_hidden(unsigned node);
/* Copies the valid data back to the home node (unregistration). */
int data_write_back_home(starpu_data_handle_t h);
/* Invalidates every replicate but node's, which becomes OWNER. Caller
 * holds h->lock. */
void data_invalidate_others_locked(starpu_data_handle_t h, unsigned node);

/* ---- transfer.c */
struct drv_async;
/* How a copy goes (data_transfer_locked's how, bits). */
enum
{
	/* A prefetch's: while the valid copies are being written
	 * (data_make_valid), it gives up with -EBUSY; another copy waits. */
	DATA_COPY_DROP = 1,
	/* A failure prints nothing: an eviction's write-back, whose failure
	 * the full node's message says once (memalloc.c). */
	DATA_COPY_QUIET = 2,
};
/* Copies h into the replicate on dst (allocated, not valid) from a valid
 * one; h->lock held (it is released during the copy). 0 or a negative
 * errno. */
int data_transfer_locked(starpu_data_handle_t h, unsigned dst, unsigned how);
/* A prefetch's copy where a device may keep it in flight: 1 then, 0 when
 * it is done. */
int data_transfer_start_locked(starpu_data_handle_t h, unsigned dst);
/* Starts bringing h to node ahead of a task (allocating, evicting if
 * needed) without waiting for the copy; 0 or a negative errno. No lock
 * held. */
int data_start_copy(starpu_data_handle_t h, unsigned node);
/* Ends h's copies in flight, waiting for them (h->lock held, dropped
 * meanwhile); returns how many. */
int data_xfer_finish_locked(starpu_data_handle_t h);
/* Waits for h's state to change (h->lock held): ends its copies in flight
 * if there are, else sleeps on busy_cond. */
void data_wait_busy_locked(starpu_data_handle_t h);
/* Copies in flight into node; data_xfer_progress ends those done (with
 * wait, the oldest after waiting for it if none is) and returns how many
 * ended; data_xfer_fini ends them all (shutdown). */
unsigned data_xfer_pending(unsigned node);
int data_xfer_progress(unsigned node, int wait);
/* Ends every copy in flight into or out of node, waiting for each: a
 * measured kernel then runs with no copy of its device in flight. */
void data_xfer_drain(unsigned node);
void data_xfer_fini(void);

/* ---- memalloc.c */
/* Allocates h's replicate on node (from the cache, or by evicting least
 * recently used data). h->lock held on entry and exit (dropped while
 * evicting). -ENOMEM if it can never fit, -EAGAIN if it cannot fit now
 * because the node is full of pinned data. */
int data_allocate_replicate(starpu_data_handle_t h, unsigned node);
/* The same without a message when it fails (the caller tries again later,
 * or reports the failure itself). */
int data_allocate_replicate_quiet(starpu_data_handle_t h, unsigned node);
/* Allocates a buffer of h's shape described by iface (a copy of one of
 * h's interfaces), outside the replicates: scratch buffers, reduction
 * contributions. Evicts if needed; -ENOMEM if it can never fit, -EAGAIN if
 * not now. Called without h->lock. */
int data_allocate_private(starpu_data_handle_t h, void *iface, unsigned node);
/* The same without a message (a failure is no error of its own). */
int data_allocate_private_quiet(starpu_data_handle_t h, void *iface, unsigned node);
void data_free_private(starpu_data_handle_t h, void *iface, unsigned node);
/* Frees a runtime-allocated replicate into the node's cache. h->lock held. */
void data_free_replicate(starpu_data_handle_t h, unsigned node);
/* LRU bookkeeping (h->lock held). */
void data_lru_touch(struct data_replicate *r);
void data_lru_remove(struct data_replicate *r);
/* Waits until memory is released on node (after -EAGAIN). */
void data_wait_memory(unsigned node);
void data_memory_released(unsigned node);
/* Before a release on node becomes visible (a pin dropped under the
 * handle's lock, private memory returned): an allocation that found
 * nothing to evict and nothing in use retries if this happened since its
 * eviction began (memalloc.c, no_room). Bumped before, not after: once
 * the release can be seen (the handle unlocked), the bump can be too. */
void data_memory_releasing(unsigned node);
/* The waiting turn of a node: a task that found the node full waits for
 * memory only while it holds the turn; the others wait for the turn
 * holding no pins. Tasks retrying at once would each see the others'
 * pins forever; one at a time, the holder sees the node as it will stay
 * (every pin left is a running task's) and gets -ENOMEM when nothing can
 * be freed. take blocks until the caller holds it. */
void data_memory_turn_take(unsigned node);
/* Whether job's first n buffers hold a pin on h (coherency.c). */
int data_job_pins(struct job *job, unsigned n, starpu_data_handle_t h);
void data_memory_turn_give(unsigned node);

/* ---- request.c: prefetches */
int data_prefetch(starpu_data_handle_t h, unsigned node, int idle);
/* Runs queued prefetches to node; idle: also the idle ones. Returns how
 * many ran. */
int data_progress(unsigned node, int idle);
/* What a worker of node runs: its node's requests, and for a RAM worker
 * those of the nodes that have no worker (disks). */
int data_progress_for_worker(unsigned node, int idle);
void data_requests_fini(void);

/* ---- reduction.c */
int data_redux_check(starpu_data_handle_t h, const char *fn);
/* The contribution of the calling worker (created and initialised if
 * needed) in *iface, given to the REDUX task. 0, or -ENOMEM / -EAGAIN as
 * data_allocate_private. */
int data_redux_contribution(starpu_data_handle_t h, int workerid, unsigned node, void **iface);
/* The job of workerid is done with its contribution (obtained above): it is
 * at rest until the worker's next REDUX task or the fold. */
void data_redux_release(starpu_data_handle_t h, int workerid);
/* Memory is short on RAM node node: moves contributions at rest there to
 * the swap disk (read back by their worker's next task or by the fold);
 * returns the bytes freed. Takes handle locks with trylock only. */
ssize_t data_redux_spill(unsigned node, ssize_t need);
/* Builds the job that folds the contributions into the data, as the last
 * writer of h (h->lock held); the caller releases its guard after
 * unlocking. */
struct job *data_redux_job_locked(starpu_data_handle_t h);
void data_redux_free(starpu_data_handle_t h);

/* Arbitration primitives for arbiter.c (h->lock held). */
int data_access_can_grant_locked(starpu_data_handle_t h, struct job_buffer *b);
void data_access_grant_locked(starpu_data_handle_t h, struct job_buffer *b);

/* ---- arbiter.c */
/* Acquires, all or nothing, the buffers of job managed by arbiters; 1 when
 * granted, 0 when the job is queued (the arbiter resumes it). */
int arbiter_acquire(struct job *job, unsigned *nbuffers_done);
/* Something arbitered was released: grant waiting jobs that now fit. */
void arbiter_release(struct starpu_arbiter *arb);
/* The handle is being freed. */
void arbiter_forget_handle(starpu_data_handle_t h);

/* ---- filters.c, partition_plan.c */
/* Fails (message, -EINVAL) if h may not be accessed in mode because of a
 * partition: a partitioned parent, a piece of an inactive plan. */
int data_check_not_partitioned(starpu_data_handle_t h, enum starpu_data_access_mode mode, const char *fn);
/* The part of data_check_not_partitioned about h being a piece: fails if
 * h is a piece of a plan not submitted, or of a read-only one and writes. */
int data_check_piece(starpu_data_handle_t h, int writes, const char *fn);
/* Makes h usable by an application access in mode (a task's buffer, an
 * acquisition), as StarPU 1.3 does: submits the partition plans that lead
 * from its ancestors to it (read-only when the access only reads) and
 * gathers the plans of h that are in the way, then checks as
 * data_check_not_partitioned. Called in submission order. */
int data_partition_access(starpu_data_handle_t h, enum starpu_data_access_mode mode, const char *fn);
/* The state of the plan the piece h belongs to: 0 not submitted (or h is
 * no piece of a plan), 1 submitted read-only, 2 submitted read-write. */
int data_piece_plan_state(starpu_data_handle_t h);
/* The number of pieces f makes of h, or 0 (message printed: no filter,
 * no filter function, no pieces). */
unsigned data_filter_nparts(starpu_data_handle_t h, struct starpu_data_filter *f, const char *fn);
/* The RAM node where h's pieces view its buffer. */
unsigned data_view_node(starpu_data_handle_t h);
/* Creates the nparts pieces of h cut by f (h's view replicate must be
 * allocated). Returns 0 or a negative errno (message printed, nothing
 * created). */
int data_make_children(starpu_data_handle_t h, struct starpu_data_filter *f, unsigned nparts, unsigned plan_id,
		       starpu_data_handle_t *children, const char *fn);
/* A piece is being freed: drop its pin and reference on the parent. */
void data_child_gone(starpu_data_handle_t child);
/* Unregisters the pieces of every plan of h (h is being unregistered),
 * waiting for them or not. */
void data_plans_clean_all(starpu_data_handle_t h, int wait);
/* Checks f against the parent's interface for the standard filters
 * (std_filters.c): 0, or -EINVAL with the reason in why. */
int data_filter_validate(struct starpu_data_filter *f, void *father_interface, unsigned nparts, char *why, size_t whylen);

/* Access-mode bit, for internal tasks only: the buffer orders the task but
 * is not fetched (JOB_BUFFER_NOFETCH). */
#define DATA_MODE_NOFETCH (1 << 14)

/* ---- handle.c */
/* starpu_data_ptr_register: the application set a buffer of its own in the
 * interface of node. 0, or a negative errno (message printed). */
int data_ptr_register(starpu_data_handle_t handle, unsigned node, const char *fn);
void data_register_common(starpu_data_handle_t *handleptr, int home_node, void *data_interface, struct starpu_data_interface_ops *ops);
/* A new handle (not yet registered: data_handle_publish makes it so, once
 * ops->register_data_handle filled its interfaces). */
starpu_data_handle_t data_handle_new(struct starpu_data_interface_ops *ops, int home_node);
/* Adds h to the live handles, first giving it the replicates of nodes added
 * since data_handle_new. 0, or -ENOMEM (h unchanged, still to free). */
int data_handle_publish(starpu_data_handle_t h);
/* Gives every live handle replicates for node (about to be published by
 * memory_node_add), under the live list's lock, which it returns holding:
 * the caller publishes the node, then calls data_handles_unlock. 0, or
 * -ENOMEM (the lock released). */
int data_handles_grow(unsigned node);
void data_handles_unlock(void);
void data_handle_free(starpu_data_handle_t h);
void data_handle_free_deferred(starpu_data_handle_t h);
/* Drops one of h's references (h->lock held); wakes an unregistration
 * waiting for the last one. Returns 1 when the caller must free h (after
 * unlocking): starpu_data_unregister_submit left that to the last one. */
int data_unref_locked(starpu_data_handle_t h);
/* At shutdown: the lookup table, and the handles kept to detect reuse. */
void data_lookup_fini(void);
/* starpu_data_lookup knows the RAM buffers the runtime allocates for data
 * with no home buffer there, as StarPU does (h->lock held). */
void data_lookup_note_alloc(starpu_data_handle_t h, unsigned node);
void data_lookup_note_free(starpu_data_handle_t h, unsigned node);

/* The interface of handle on node for the typed accessors
 * (starpu_vector_get_nx, ...): a stale handle gets an error and an
 * all-zero interface, not a crash. */
void *data_accessor_iface(starpu_data_handle_t handle, unsigned node);

/* ---- acquire.c */
void data_acquire_free(struct job *job);

/* ---- interfaces */
uint32_t data_hash_crc32(const void *buf, size_t len, uint32_t crc);
/* The multiformat interface (interfaces/multiformat.c). Before a task
 * uses buffer iface of h on node in mode, *cl is the conversion codelet a
 * worker of node must run on it first (NULL: none); -EINVAL, said, when
 * the application's format_ops lacks it. mf_conversion_done once it ran. */
extern struct starpu_data_interface_ops starpu_interface_multiformat_ops;
int mf_conversion_for(starpu_data_handle_t h, unsigned node, unsigned mode, void *iface, struct starpu_codelet **cl);
/* Before h is fetched on node for a task accessing it in mode: 0, or
 * -EINVAL, said, when format_ops lacks what node's layout needs. */
int mf_check_for(starpu_data_handle_t h, unsigned node, unsigned mode);
void mf_conversion_done(void *iface);
uint32_t data_hash_u32(uint32_t value, uint32_t crc);
/* The generic copy: through the interface's copy methods, between any two
 * nodes that can copy directly; with async non-NULL a device may queue it
 * (-EAGAIN, async->event set). */
int data_copy_interface(starpu_data_handle_t h, unsigned src, unsigned dst, struct drv_async *async);
/* The same between two interfaces of h's kind that are not replicates
 * (private buffers: reduction contributions). */
int data_copy_ifaces(starpu_data_handle_t h, void *si, unsigned src, void *di, unsigned dst, struct drv_async *async);

#endif /* VELA_DATA_H */
