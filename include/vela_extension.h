/* vela_extension.h — what Vela's own layers above the public API need
 * from the runtime beyond StarPU 1.3's API.
 *
 * libvela-mpi (mpi/, StarPU-MPI) is written against the public headers
 * only, as an application would be; StarPU's own MPI layer reaches into
 * the core for a few things that the public API does not give, and this
 * header gives exactly those, no more:
 *  - building a task from a starpu_task_insert argument list that the
 *    caller already holds as a va_list (starpu_mpi_task_insert walks the
 *    list to find the data and the executing node, then builds the local
 *    task from the same list);
 *  - a hook run when a handle is freed, so that the layer forgets the
 *    handle's owner rank, tag and cache state and never sees a reused
 *    address as the old handle;
 *  - room inside each handle for the layer's own record of it (owner,
 *    tag, cache state), read on every rank for every handle of every
 *    task: a table keyed by handle, then a record beside the handle,
 *    cost a fifth of a simulated cluster's time in cache misses;
 *  - the reduction methods of a handle (starpu_mpi_redux_data folds the
 *    contributions of other ranks with the handle's redux_cl);
 *  - a read of a handle's data as it is now, without a job (the small
 *    sends of the layer copy the bytes out at once: an acquisition and
 *    its release cost more than the message);
 *  - a condition wait bounded by a duration rather than a wall-clock
 *    date (the progression thread's back-off; in a simulation the
 *    duration is simulated time, and the same in every run);
 *  - a trace hook for distributed runs: which run and rank this process
 *    is, how its clock relates to the reference rank's, and the messages
 *    it sent and received, so that `vela trace` can merge the ranks'
 *    traces into one timeline (runtime/trace/trace_format.h). The runtime
 *    only records what it is told: it knows nothing of MPI.
 * Applications need none of it; names are vela_* so that they never clash
 * with StarPU's.
 */
#ifndef VELA_EXTENSION_H
#define VELA_EXTENSION_H

#include <stdarg.h>
#include <stdint.h>
#include <starpu_data.h>
#include <starpu_task.h>
#include <starpu_thread.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* starpu_task_set() with the argument list as a va_list (copied: the
 * caller's list is left where it was). STARPU_SSEND in a data mode is
 * dropped, STARPU_EXECUTE_ON_NODE, STARPU_EXECUTE_ON_DATA and
 * STARPU_NODE_SELECTION_POLICY are skipped: they concern the MPI layer.
 * 0, or -EINVAL for a malformed list (a message names the argument). */
int vela_task_set_va(struct starpu_task *task, struct starpu_codelet *cl, va_list varg_list);

/* hook(handle) runs once, first thing when the handle is freed
 * (starpu_data_unregister*, or the unregistration of a partition's
 * pieces), in the thread that frees it, with no runtime lock held; the
 * handle is still valid there. One hook per handle; NULL removes it. */
void vela_data_set_unregister_hook(starpu_data_handle_t handle, void (*hook)(starpu_data_handle_t handle));

/* VELA_DATA_LAYER_BYTES bytes inside the handle, 8-byte aligned, right
 * after what tells a registered handle (its first 32 bytes and that are
 * read together, in one or two cache lines), for the layer
 * above the runtime (libvela-mpi's record of the handle): zeroed at
 * registration, never read nor written by the runtime, gone with the
 * handle (the unregister hook is where its user frees what it points
 * to). The caller serialises its own accesses. NULL for a handle that
 * is not registered. */
#define VELA_DATA_LAYER_BYTES 80
void *vela_data_layer_area(starpu_data_handle_t handle);

/* The codelets given to starpu_data_set_reduction_methods (NULL when
 * none); either pointer may be NULL. */
void vela_data_get_reduction_methods(starpu_data_handle_t handle, struct starpu_codelet **redux_cl, struct starpu_codelet **init_cl);

/* Calls fn(the handle's interface on node, arg) if the data can be read
 * there right now without waiting: valid on that RAM node, no writer
 * submitted before and unfinished, none or a reduction running, nobody
 * queued for it (plain handles only: not partitioned, not a piece, no
 * arbiter). fn runs under the handle's lock: it copies the bytes out
 * and returns, calling nothing of the runtime. 0, or -EAGAIN (fn not
 * called): acquire the data the ordinary way. */
int vela_data_read_now(starpu_data_handle_t handle, unsigned node, void (*fn)(void *data_interface, void *arg), void *arg);

/* starpu_pthread_cond_timedwait for at most us microseconds of the
 * runtime's clock (simulated time in a simulation): 0, or ETIMEDOUT. */
int vela_cond_timedwait_us(starpu_pthread_cond_t *cond, starpu_pthread_mutex_t *mutex, double us);
/* Trace hook for distributed runs. Each call is cheap and does nothing
 * when no trace is being recorded. */

/* Whether a trace file is open in this session (recording, or paused by
 * starpu_fxt_stop_profiling). */
int vela_trace_is_open(void);
/* Now on the trace's clock (ns since its origin); 0 when no trace is open. */
uint64_t vela_trace_now(void);
/* This process is rank `rank` of nranks in the run run_id (the same
 * non-zero value on every rank of one run). Kept: a trace opened later in
 * the process (the next starpu_init) records it too. rank -1 forgets it. */
void vela_trace_set_process(uint64_t run_id, int rank, unsigned nranks);
/* At this trace's time `local`, rank ref_rank's trace clock read `ref`,
 * within +-err ns (TR_CLOCK). */
void vela_trace_clock_sync(uint64_t local, uint64_t ref, uint64_t err, int ref_rank);

#define VELA_TRACE_COMM_SEND 0x1u	/* else a receive */
#define VELA_TRACE_COMM_SYNC 0x2u	/* a synchronous send */

/* One message (TR_COMM: its fields are documented there); times from
 * vela_trace_now(). */
struct vela_trace_comm
{
	int peer;			/* the other rank; -1: not a rank of the run */
	unsigned flags;			/* VELA_TRACE_COMM_* */
	int64_t tag;
	uint64_t seq;
	uint64_t channel;
	uint64_t bytes;
	uint64_t submit, start, end;
	starpu_data_handle_t handle;	/* or NULL */
};
void vela_trace_comm(const struct vela_trace_comm *c);

#ifdef __cplusplus
}
#endif

#endif /* VELA_EXTENSION_H */
