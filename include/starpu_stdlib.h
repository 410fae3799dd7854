/* starpu_stdlib.h — memory the runtime knows about.
 *
 * starpu_malloc() returns memory suitable for registration (aligned, and
 * pinned once device drivers need it); starpu_memory_* report each memory
 * node's capacity and use.
 */
#ifndef STARPU_STDLIB_H
#define STARPU_STDLIB_H

#include <starpu_config.h>
#include <starpu_util.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define STARPU_MALLOC_PINNED ((1ULL) << 1)
#define STARPU_MALLOC_COUNT ((1ULL) << 2)
#define STARPU_MALLOC_NORECLAIM ((1ULL) << 3)
#define STARPU_MEMORY_WAIT ((1ULL) << 4)
#define STARPU_MEMORY_OVERFLOW ((1ULL) << 5)
#define STARPU_MALLOC_SIMULATION_FOLDED ((1ULL) << 6)

#define starpu_data_malloc_pinned_if_possible starpu_malloc
#define starpu_data_free_pinned_if_possible starpu_free

/* Alignment of later starpu_malloc() results (a power of two). */
void starpu_malloc_set_align(size_t align);
/* 0 on success, -ENOMEM (and *A = NULL) on failure. */
int starpu_malloc(void **A, size_t dim);
int starpu_free(void *A);
int starpu_malloc_flags(void **A, size_t dim, int flags);
int starpu_free_flags(void *A, size_t dim, int flags);

int starpu_memory_pin(void *addr, size_t size);
int starpu_memory_unpin(void *addr, size_t size);

/* Bytes of memory node node in total, and not allocated by the runtime;
 * -1 when unknown. */
ssize_t starpu_memory_get_total(unsigned node);
ssize_t starpu_memory_get_available(unsigned node);
ssize_t starpu_memory_get_total_all_nodes(void);
ssize_t starpu_memory_get_available_all_nodes(void);

/* Accounting of memory used outside the data layer on a node: fails with
 * -ENOMEM when over the node's limit (unless STARPU_MEMORY_OVERFLOW). */
int starpu_memory_allocate(unsigned node, size_t size, int flags);
void starpu_memory_deallocate(unsigned node, size_t size);
void starpu_memory_wait_available(unsigned node, size_t size);

/* Sleeps for the given time: simulated time in a simulated run. */
void starpu_sleep(float nb_sec);
void starpu_usleep(float nb_micro_sec);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_STDLIB_H */
