/* starpu_data.h — data handles and how tasks and the application access them.
 *
 * A handle names a piece of data registered with the runtime. Tasks list the
 * handles they use with an access mode; from the modes and the submission
 * order the runtime derives the dependencies between tasks (sequential
 * consistency) and keeps replicates coherent across memory nodes. The
 * application itself reaches registered data only between acquire and
 * release.
 */
#ifndef STARPU_DATA_H
#define STARPU_DATA_H

#include <starpu_config.h>
#include <starpu_util.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_data_state;
typedef struct starpu_data_state *starpu_data_handle_t;

/* How a task or the application uses a handle. Values are bit flags: a
 * mode may be combined with STARPU_COMMUTE, STARPU_SSEND or STARPU_LOCALITY. */
enum starpu_data_access_mode
{
	STARPU_NONE = 0,
	STARPU_R = (1 << 0),
	STARPU_W = (1 << 1),
	STARPU_RW = (STARPU_R | STARPU_W),
	STARPU_SCRATCH = (1 << 2),
	STARPU_REDUX = (1 << 3),
	STARPU_COMMUTE = (1 << 4),
	STARPU_SSEND = (1 << 5),
	STARPU_LOCALITY = (1 << 6),
	STARPU_NOPLAN = (1 << 8),
	STARPU_ACCESS_MODE_MAX = (1 << 9)
};

struct starpu_data_interface_ops;
struct starpu_codelet;

void starpu_data_set_name(starpu_data_handle_t handle, const char *name);
void starpu_data_set_coordinates_array(starpu_data_handle_t handle, unsigned dimensions, int dims[]);
void starpu_data_set_coordinates(starpu_data_handle_t handle, unsigned dimensions, ...);
unsigned starpu_data_get_coordinates_array(starpu_data_handle_t handle, unsigned dimensions, int dims[]);

/* Unregistration waits for the tasks using the handle, brings the data back
 * to its home node and frees the handle. _no_coherency skips the write-back;
 * _submit returns at once and unregisters when the last task is done. */
void starpu_data_unregister(starpu_data_handle_t handle);
void starpu_data_unregister_no_coherency(starpu_data_handle_t handle);
void starpu_data_unregister_submit(starpu_data_handle_t handle);

#define STARPU_ACQUIRE_NO_NODE -1
#define STARPU_ACQUIRE_NO_NODE_LOCK_ALL -2

/* Acquire gives the application access to the data in the given mode once
 * the tasks submitted before (in sequential-consistency order) are done. It
 * returns -EDEADLK when called from a codelet or callback, where blocking
 * would deadlock. Release ends the access. */
int starpu_data_acquire(starpu_data_handle_t handle, enum starpu_data_access_mode mode);
int starpu_data_acquire_on_node(starpu_data_handle_t handle, int node, enum starpu_data_access_mode mode);
int starpu_data_acquire_cb(starpu_data_handle_t handle, enum starpu_data_access_mode mode, void (*callback)(void *), void *arg);
int starpu_data_acquire_on_node_cb(starpu_data_handle_t handle, int node, enum starpu_data_access_mode mode, void (*callback)(void *), void *arg);
int starpu_data_acquire_cb_sequential_consistency(starpu_data_handle_t handle, enum starpu_data_access_mode mode, void (*callback)(void *), void *arg, int sequential_consistency);
int starpu_data_acquire_on_node_cb_sequential_consistency(starpu_data_handle_t handle, int node, enum starpu_data_access_mode mode, void (*callback)(void *), void *arg, int sequential_consistency);
/* Non-blocking: -EAGAIN when the access cannot be granted right now. */
int starpu_data_acquire_try(starpu_data_handle_t handle, enum starpu_data_access_mode mode);
int starpu_data_acquire_on_node_try(starpu_data_handle_t handle, int node, enum starpu_data_access_mode mode);
void starpu_data_release(starpu_data_handle_t handle);
void starpu_data_release_on_node(starpu_data_handle_t handle, int node);

#ifdef __GNUC__
/* Runs code once the data is acquired, then releases it. */
#define STARPU_DATA_ACQUIRE_CB(handle, mode, code) do { \
	void vela_acquire_cb_(void *arg_) \
	{ \
		(void) arg_; \
		code; \
		starpu_data_release(handle); \
	} \
	starpu_data_acquire_cb(handle, mode, vela_acquire_cb_, NULL); \
} while (0)
#endif

/* Drops every replicate (after the tasks submitted before, for _submit):
 * the next access must write the data. */
void starpu_data_invalidate(starpu_data_handle_t handle);
void starpu_data_invalidate_submit(starpu_data_handle_t handle);
/* Nodes (bit mask) the data is copied to after every write. */
void starpu_data_set_wt_mask(starpu_data_handle_t handle, uint32_t wt_mask);

/* Where the data is, and moving it ahead of need. fetch: now; prefetch:
 * when there is room; idle_prefetch: when there is nothing else to do.
 * async=0 waits for the copy. */
void starpu_data_query_status(starpu_data_handle_t handle, int memory_node, int *is_allocated, int *is_valid, int *is_requested);
unsigned starpu_data_is_on_node(starpu_data_handle_t handle, unsigned node);
unsigned starpu_data_test_if_allocated_on_node(starpu_data_handle_t handle, unsigned memory_node);
int starpu_data_request_allocation(starpu_data_handle_t handle, unsigned node);
int starpu_data_fetch_on_node(starpu_data_handle_t handle, unsigned node, unsigned async);
int starpu_data_prefetch_on_node(starpu_data_handle_t handle, unsigned node, unsigned async);
int starpu_data_prefetch_on_node_prio(starpu_data_handle_t handle, unsigned node, unsigned async, int prio);
int starpu_data_idle_prefetch_on_node(starpu_data_handle_t handle, unsigned node, unsigned async);
int starpu_data_idle_prefetch_on_node_prio(starpu_data_handle_t handle, unsigned node, unsigned async, int prio);
/* The data will not be used soon: evict it first. */
void starpu_data_wont_use(starpu_data_handle_t handle);
void starpu_data_advise_as_important(starpu_data_handle_t handle, unsigned is_important);
/* Whether the data may be evicted to disk (default 1). */
void starpu_data_set_ooc_flag(starpu_data_handle_t handle, unsigned flag);
unsigned starpu_data_get_ooc_flag(starpu_data_handle_t handle);
/* Frees the cached buffers of a node. */
void starpu_memchunk_tidy(unsigned memory_node);

/* Arbiters: handles assigned to one are granted to a task all at once. */
typedef struct starpu_arbiter *starpu_arbiter_t;
starpu_arbiter_t starpu_arbiter_create(void) STARPU_ATTRIBUTE_MALLOC;
void starpu_data_assign_arbiter(starpu_data_handle_t handle, starpu_arbiter_t arbiter);
void starpu_arbiter_destroy(starpu_arbiter_t arbiter);

/* Sequential consistency: on by default for every handle. */
void starpu_data_set_sequential_consistency_flag(starpu_data_handle_t handle, unsigned flag);
unsigned starpu_data_get_sequential_consistency_flag(starpu_data_handle_t handle);
unsigned starpu_data_get_default_sequential_consistency_flag(void);
void starpu_data_set_default_sequential_consistency_flag(unsigned flag);

/* Reduction methods used by STARPU_REDUX accesses. */
void starpu_data_set_reduction_methods(starpu_data_handle_t handle, struct starpu_codelet *redux_cl, struct starpu_codelet *init_cl);

struct starpu_data_interface_ops *starpu_data_get_interface_ops(starpu_data_handle_t handle);

void starpu_data_set_user_data(starpu_data_handle_t handle, void *user_data);
void *starpu_data_get_user_data(starpu_data_handle_t handle);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_DATA_H */
