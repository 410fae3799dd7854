/* vela_extension.h — what Vela's own layers above the public API need
 * from the runtime beyond StarPU 1.3's API.
 *
 * libvela-mpi (mpi/, StarPU-MPI) is written against the public headers
 * only, as an application would be; StarPU's own MPI layer reaches into
 * the core for three things that the public API does not give, and this
 * header gives exactly those, no more:
 *  - building a task from a starpu_task_insert argument list that the
 *    caller already holds as a va_list (starpu_mpi_task_insert walks the
 *    list to find the data and the executing node, then builds the local
 *    task from the same list);
 *  - a hook run when a handle is freed, so that the layer forgets the
 *    handle's owner rank, tag and cache state and never sees a reused
 *    address as the old handle;
 *  - the reduction methods of a handle (starpu_mpi_redux_data folds the
 *    contributions of other ranks with the handle's redux_cl);
 *  - a condition wait bounded by a duration rather than a wall-clock
 *    date (the progression thread's back-off; in a simulation the
 *    duration is simulated time, and the same in every run).
 * Applications need none of it; names are vela_* so that they never clash
 * with StarPU's.
 */
#ifndef VELA_EXTENSION_H
#define VELA_EXTENSION_H

#include <stdarg.h>
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

/* The codelets given to starpu_data_set_reduction_methods (NULL when
 * none); either pointer may be NULL. */
void vela_data_get_reduction_methods(starpu_data_handle_t handle, struct starpu_codelet **redux_cl, struct starpu_codelet **init_cl);

/* starpu_pthread_cond_timedwait for at most us microseconds of the
 * runtime's clock (simulated time in a simulation): 0, or ETIMEDOUT. */
int vela_cond_timedwait_us(starpu_pthread_cond_t *cond, starpu_pthread_mutex_t *mutex, double us);

#ifdef __cplusplus
}
#endif

#endif /* VELA_EXTENSION_H */
