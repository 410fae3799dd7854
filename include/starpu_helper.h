/* starpu_helper.h — helpers StarPU 1.3 gathers here: environment readers,
 * running a function on each worker, timing, the machine's hwloc topology,
 * and starpu_data_cpy. Most are declared in starpu_util.h (included); this
 * header adds what only it declares in StarPU.
 */
#ifndef STARPU_HELPER_H
#define STARPU_HELPER_H

#include <starpu_config.h>
#include <starpu_util.h>
#include <starpu_data.h>

#ifdef STARPU_HAVE_HWLOC
#include <hwloc.h>
#endif

#ifdef __cplusplus
extern "C"
{
#endif

/* Copies the content of src_handle into dst_handle (same interface and
 * shape) with a task ordered like any other access (dst written, src
 * read). asynchronous: returns once submitted, callback_func(callback_arg)
 * runs when done; else returns when done. 0, or a negative errno with a
 * message. */
int starpu_data_cpy(starpu_data_handle_t dst_handle, starpu_data_handle_t src_handle, int asynchronous,
		    void (*callback_func)(void *), void *callback_arg);

#ifdef STARPU_HAVE_HWLOC
/* The topology the runtime discovered (valid between starpu_init and
 * starpu_shutdown; NULL outside). */
hwloc_topology_t starpu_get_hwloc_topology(void);
#endif

#ifdef __cplusplus
}
#endif

#endif /* STARPU_HELPER_H */
