/* starpu_mpi.h — StarPU-MPI: distributed data and task insertion over MPI.
 *
 * Every process (rank) runs the same sequential task flow. A data handle
 * is registered on every rank with the rank that owns it and a tag that
 * names it in messages; starpu_mpi_task_insert() turns each task into a
 * local task on the rank that executes it (by default the owner of the
 * data it writes) plus the sends and receives that bring its inputs there
 * and its outputs back to their owners. Point-to-point calls move a
 * handle's data between ranks explicitly.
 *
 * Vela's implementation (libvela-mpi, mpi/README.md) is a library above
 * the public API. One progression thread makes every MPI call after
 * initialisation, so MPI_THREAD_SERIALIZED is enough; it sleeps when idle.
 * Messages carry 64-bit tags (any tag >= 0 works: STARPU_MPI_TAG_UB reads
 * INT64_MAX) and any size (they are split below MPI's int counts).
 *
 * Errors: calls return 0 or a negative errno and print one line naming
 * the call and the offending value. Every call made before starpu_mpi_init
 * or after starpu_mpi_shutdown fails with -ESHUTDOWN (functions returning
 * void only print). A rank outside the communicator, a handle without an
 * owner rank or tag where one is needed, a tag already registered for
 * another handle: -EINVAL. A message whose size differs from the receiving
 * handle's is dropped, the handle keeps its content, and the request ends
 * with -EMSGSIZE (the callback still runs, so that nothing waits forever).
 * Communications never matched by the peer are listed at shutdown, which
 * then returns -ENOMSG instead of hanging.
 */
#ifndef STARPU_MPI_H
#define STARPU_MPI_H

#include <starpu.h>

#if defined(STARPU_USE_MPI)
#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* ---------------------------------------------------------------- init */

/* Starts the runtime with conf (if it is not running yet; it then stops
 * at starpu_mpi_shutdown) and the MPI layer on comm. initialize_mpi: 1 to
 * let the layer call MPI_Init_thread (MPI_THREAD_SERIALIZED) and
 * MPI_Finalize, 0 when the application did. No core is reserved for the
 * progression thread: it does not spin when idle. */
int starpu_mpi_init_conf(int *argc, char ***argv, int initialize_mpi, MPI_Comm comm, struct starpu_conf *conf);
/* Same on a running runtime (call starpu_init first). */
int starpu_mpi_init_comm(int *argc, char ***argv, int initialize_mpi, MPI_Comm comm);
int starpu_mpi_init(int *argc, char ***argv, int initialize_mpi);
/* Deprecated forms: MPI already initialised; and MPI initialised here,
 * returning the world rank and size. */
int starpu_mpi_initialize(void) STARPU_DEPRECATED;
int starpu_mpi_initialize_extended(int *rank, int *world_size) STARPU_DEPRECATED;
/* Ends every communication (those never matched are reported), stops the
 * progression thread, finalises MPI and the runtime if init started them.
 * 0, or -ENOMSG when communications were left unmatched. */
int starpu_mpi_shutdown(void);

/* Bytes sent to each rank of the world so far (comm_amounts has world
 * size entries). */
void starpu_mpi_comm_amounts_retrieve(size_t *comm_amounts);

int starpu_mpi_comm_size(MPI_Comm comm, int *size);
int starpu_mpi_comm_rank(MPI_Comm comm, int *rank);
int starpu_mpi_world_rank(void);
int starpu_mpi_world_size(void);

/* With starpu_mpi_comm_get_attr(): the largest tag (an int64_t). */
#define STARPU_MPI_TAG_UB MPI_TAG_UB
/* As MPI_Comm_get_attr, but *(int64_t **) attribute_val points to the
 * value. */
int starpu_mpi_comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag);

/* The MPI tag of the layer's envelopes (set it before init, if the
 * application's own MPI traffic on the same communicator needs it). */
int starpu_mpi_get_communication_tag(void);
void starpu_mpi_set_communication_tag(int tag);

/* -------------------------------------------------------- point to point */

typedef void *starpu_mpi_req;
typedef int64_t starpu_mpi_tag_t;

/* Non-blocking: the data is read (send) or written (receive) once the
 * tasks submitted before on the handle are done; *req is then waited for
 * or tested. _detached: no request, callback(arg) on completion.
 * issend: completes once the peer has matched it. prio orders
 * communications that are ready at the same time. */
int starpu_mpi_isend(starpu_data_handle_t data_handle, starpu_mpi_req *req, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm);
int starpu_mpi_isend_prio(starpu_data_handle_t data_handle, starpu_mpi_req *req, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm);
int starpu_mpi_irecv(starpu_data_handle_t data_handle, starpu_mpi_req *req, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm);
int starpu_mpi_send(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm);
int starpu_mpi_send_prio(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm);
/* status may be MPI_STATUS_IGNORE, not NULL. */
int starpu_mpi_recv(starpu_data_handle_t data_handle, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm, MPI_Status *status);
int starpu_mpi_isend_detached(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm, void (*callback)(void *), void *arg);
int starpu_mpi_isend_detached_prio(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm, void (*callback)(void *), void *arg);
int starpu_mpi_irecv_detached(starpu_data_handle_t data_handle, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm, void (*callback)(void *), void *arg);
/* sequential_consistency 0: the receive does not wait for the tasks
 * submitted before on the handle (if the handle's flag allows it too). */
int starpu_mpi_irecv_detached_sequential_consistency(starpu_data_handle_t data_handle, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm, void (*callback)(void *), void *arg, int sequential_consistency);
int starpu_mpi_issend(starpu_data_handle_t data_handle, starpu_mpi_req *req, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm);
int starpu_mpi_issend_prio(starpu_data_handle_t data_handle, starpu_mpi_req *req, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm);
int starpu_mpi_issend_detached(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm, void (*callback)(void *), void *arg);
int starpu_mpi_issend_detached_prio(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm, void (*callback)(void *), void *arg);

/* Waits for (tests) a request; it is freed once complete and *req set to
 * NULL. Returns the request's result: 0, or -EMSGSIZE, -ENOMSG, ... */
int starpu_mpi_wait(starpu_mpi_req *req, MPI_Status *status);
int starpu_mpi_test(starpu_mpi_req *req, int *flag, MPI_Status *status);
/* Every rank of comm reaches it (the layer's other communications go on
 * meanwhile). */
int starpu_mpi_barrier(MPI_Comm comm);
/* Waits for every task and every communication of this rank, then the
 * barrier. */
int starpu_mpi_wait_for_all(MPI_Comm comm);

/* Detached communications that notify tag on completion (the array forms
 * once all of them are complete). */
int starpu_mpi_isend_detached_unlock_tag(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, MPI_Comm comm, starpu_tag_t tag);
int starpu_mpi_isend_detached_unlock_tag_prio(starpu_data_handle_t data_handle, int dest, starpu_mpi_tag_t data_tag, int prio, MPI_Comm comm, starpu_tag_t tag);
int starpu_mpi_irecv_detached_unlock_tag(starpu_data_handle_t data_handle, int source, starpu_mpi_tag_t data_tag, MPI_Comm comm, starpu_tag_t tag);
int starpu_mpi_isend_array_detached_unlock_tag(unsigned array_size, starpu_data_handle_t *data_handle, int *dest, starpu_mpi_tag_t *data_tag, MPI_Comm *comm, starpu_tag_t tag);
int starpu_mpi_isend_array_detached_unlock_tag_prio(unsigned array_size, starpu_data_handle_t *data_handle, int *dest, starpu_mpi_tag_t *data_tag, int *prio, MPI_Comm *comm, starpu_tag_t tag);
int starpu_mpi_irecv_array_detached_unlock_tag(unsigned array_size, starpu_data_handle_t *data_handle, int *source, starpu_mpi_tag_t *data_tag, MPI_Comm *comm, starpu_tag_t tag);

/* ------------------------------------------------------------ datatypes */

/* How a handle's data goes on the wire: the built-in interfaces are
 * described by the layer; another interface by the MPI datatype these
 * functions make (for one handle, or for every handle of an interface),
 * else by its pack_data/unpack_data methods. Register before the first
 * communication of the handle. */
typedef int (*starpu_mpi_datatype_allocate_func_t)(starpu_data_handle_t, MPI_Datatype *);
typedef void (*starpu_mpi_datatype_free_func_t)(MPI_Datatype *);
int starpu_mpi_datatype_register(starpu_data_handle_t handle, starpu_mpi_datatype_allocate_func_t allocate_datatype_func, starpu_mpi_datatype_free_func_t free_datatype_func);
int starpu_mpi_interface_datatype_register(enum starpu_data_interface_id id, starpu_mpi_datatype_allocate_func_t allocate_datatype_func, starpu_mpi_datatype_free_func_t free_datatype_func);
int starpu_mpi_datatype_unregister(starpu_data_handle_t handle);
int starpu_mpi_interface_datatype_unregister(enum starpu_data_interface_id id);

/* ---------------------------------------------------------------- cache */

/* The cache (on unless STARPU_MPI_CACHE=0) remembers which ranks hold the
 * current value of a handle, so that starpu_mpi_task_insert sends it once
 * until it is written again. Flushing forgets it (and drops the received
 * copies); every rank must flush at the same point of the task flow. */
int starpu_mpi_cache_is_enabled(void);
int starpu_mpi_cache_set(int enabled);
void starpu_mpi_cache_flush(MPI_Comm comm, starpu_data_handle_t data_handle);
void starpu_mpi_cache_flush_all_data(MPI_Comm comm);
/* Whether this rank holds a received copy of the current value; _set
 * records one (returns whether it was already), _clear forgets it. */
int starpu_mpi_cached_receive(starpu_data_handle_t data_handle);
int starpu_mpi_cached_receive_set(starpu_data_handle_t data);
void starpu_mpi_cached_receive_clear(starpu_data_handle_t data);
/* On the owner: whether dest holds the current value. */
int starpu_mpi_cached_send(starpu_data_handle_t data_handle, int dest);
int starpu_mpi_cached_send_set(starpu_data_handle_t data, int dest);
void starpu_mpi_cached_send_clear(starpu_data_handle_t data);

/* ---------------------------------------------------------- task insert */

/* Rank of data every rank holds its own value of: tasks writing it run on
 * every rank, reading it needs no communication. */
#define STARPU_MPI_PER_NODE -2

/* Owner rank and tag of a handle (register it on every rank, with the same
 * values). A tag already registered for another live handle is refused
 * (-EINVAL, the handle keeps no owner); the handle forgets both when it is
 * unregistered. */
void starpu_mpi_data_register_comm(starpu_data_handle_t data_handle, starpu_mpi_tag_t data_tag, int rank, MPI_Comm comm);
#define starpu_mpi_data_register(data_handle, data_tag, rank) starpu_mpi_data_register_comm(data_handle, data_tag, rank, MPI_COMM_WORLD)
void starpu_mpi_data_set_tag(starpu_data_handle_t handle, starpu_mpi_tag_t data_tag);
#define starpu_data_set_tag starpu_mpi_data_set_tag
void starpu_mpi_data_set_rank_comm(starpu_data_handle_t handle, int rank, MPI_Comm comm);
#define starpu_mpi_data_set_rank(handle, rank) starpu_mpi_data_set_rank_comm(handle, rank, MPI_COMM_WORLD)
#define starpu_data_set_rank starpu_mpi_data_set_rank
/* -1 when none was set. */
int starpu_mpi_data_get_rank(starpu_data_handle_t handle);
#define starpu_data_get_rank starpu_mpi_data_get_rank
starpu_mpi_tag_t starpu_mpi_data_get_tag(starpu_data_handle_t handle);
#define starpu_data_get_tag starpu_mpi_data_get_tag

/* starpu_task_insert's arguments, plus STARPU_EXECUTE_ON_NODE (int rank),
 * STARPU_EXECUTE_ON_DATA (handle: its owner executes),
 * STARPU_NODE_SELECTION_POLICY (int) and STARPU_SSEND in a data mode.
 * Without them the task runs on the owner of the data it writes
 * (STARPU_W, STARPU_RW, STARPU_REDUX); when several ranks own written data,
 * the node selection policy picks one. The executing rank receives the
 * data it reads from their owners, and sends what it wrote back to them.
 * Every rank must make the same calls, in the same order. */
int starpu_mpi_task_insert(MPI_Comm comm, struct starpu_codelet *codelet, ...);
int starpu_mpi_insert_task(MPI_Comm comm, struct starpu_codelet *codelet, ...);
/* The two halves of starpu_mpi_task_insert: build posts the receives and
 * sends of the inputs and returns the task on the executing rank (NULL
 * elsewhere) for the application to submit; post_build, called on every
 * rank with the same arguments after that, sends the outputs back. */
struct starpu_task *starpu_mpi_task_build(MPI_Comm comm, struct starpu_codelet *codelet, ...);
int starpu_mpi_task_post_build(MPI_Comm comm, struct starpu_codelet *codelet, ...);

/* Brings the current value of data_handle to rank node (the owner and node
 * must call it; others may). The blocking form returns on node once the
 * data has arrived. */
void starpu_mpi_get_data_on_node(MPI_Comm comm, starpu_data_handle_t data_handle, int node);
void starpu_mpi_get_data_on_node_detached(MPI_Comm comm, starpu_data_handle_t data_handle, int node, void (*callback)(void*), void *arg);
void starpu_mpi_get_data_on_all_nodes_detached(MPI_Comm comm, starpu_data_handle_t data_handle);
/* Moves the data to new_rank, which owns it from then on (every rank
 * calls it at the same point). */
void starpu_mpi_data_migrate(MPI_Comm comm, starpu_data_handle_t handle, int new_rank);

/* ------------------------------------------------------ node selection */

#define STARPU_MPI_NODE_SELECTION_CURRENT_POLICY -1
/* The rank owning the most bytes of the data read by the task. */
#define STARPU_MPI_NODE_SELECTION_MOST_R_DATA 0

typedef int (*starpu_mpi_select_node_policy_func_t)(int me, int nb_nodes, struct starpu_data_descr *descr, int nb_data);
/* Returns the new policy's number, or -ENOSPC when the table is full. */
int starpu_mpi_node_selection_register_policy(starpu_mpi_select_node_policy_func_t policy_func);
int starpu_mpi_node_selection_unregister_policy(int policy);
int starpu_mpi_node_selection_get_current_policy(void);
int starpu_mpi_node_selection_set_current_policy(int policy);

/* ---------------------------------------------------------- collectives */

/* Folds the STARPU_REDUX contributions that tasks made on every rank into
 * the owner's value, with the handle's reduction methods. */
void starpu_mpi_redux_data(MPI_Comm comm, starpu_data_handle_t data_handle);
void starpu_mpi_redux_data_prio(MPI_Comm comm, starpu_data_handle_t data_handle, int prio);

/* root sends each handle to its owner (scatter) or receives each from its
 * owner (gather). scallback(sarg) runs once every send of this rank is
 * complete, rcallback(rarg) once every receive is (at once when there is
 * none). */
int starpu_mpi_scatter_detached(starpu_data_handle_t *data_handles, int count, int root, MPI_Comm comm, void (*scallback)(void *), void *sarg, void (*rcallback)(void *), void *rarg);
int starpu_mpi_gather_detached(starpu_data_handle_t *data_handles, int count, int root, MPI_Comm comm, void (*scallback)(void *), void *sarg, void (*rcallback)(void *), void *rarg);

/* f(task) runs on each task starpu_mpi_task_insert is about to submit. */
int starpu_mpi_pre_submit_hook_register(void (*f)(struct starpu_task *));
int starpu_mpi_pre_submit_hook_unregister(void);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_USE_MPI */
#endif /* STARPU_MPI_H */
