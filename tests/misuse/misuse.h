/* misuse.h — what the cases of misuse.c and misuse_data.c share: the
 * return-code markers, the codelets, the runtime start with a variable
 * registered, and the data cases (misuse_data.c) named in misuse.c's table.
 */
#ifndef MISUSE_H
#define MISUSE_H

#include <starpu.h>
#include <limits.h>

#define VOID_RC INT_MIN			/* the misused call returns nothing */
#define PRINTED_RC (INT_MIN + 1)	/* the case printed what it got itself */

void noop(void *buffers[], void *arg);
void inc_var(void *buffers[], void *arg);
void read_vector(void *buffers[], void *arg);
extern struct starpu_codelet cl0, inc_cl, read_cl;

/* Starts the runtime (2 CPU workers from STARPU_NCPU, no device); the
 * second also registers xh over x_var, or exits 2. */
int start(void);
void start_with_var(void);
extern int x_var;
extern starpu_data_handle_t xh;
/* Frees a task whose submission failed. */
void discard(struct starpu_task *t);

int unregister_twice(void);
int use_after_unregister(void);
int unregister_while_acquired(void);
int acquire_twice(void);
int release_without_acquire(void);
int acquire_bad_node(void);
int register_null_ptr(void);
int register_bad_node(void);
int partition_twice(void);
int unpartition_bad_node(void);
int unpartition_not_partitioned(void);
int filter_too_many_parts(void);
int unregister_partitioned(void);
int child_bad_index(void);
int partition_null_filter(void);
int sub_data_unpartitioned(void);
int register_zero_elemsize(void);
int matrix_ld_too_small(void);
int acquire_mode_none(void);
int unregister_in_callback(void);
int redux_without_methods(void);
int invalidate_acquired(void);
int partition_acquired(void);
int fetch_while_written(void);
int unregister_submit_twice(void);
int prefetch_bad_node(void);
int redux_methods_null(void);
int wont_use_null(void);
int data_cpy_null(void);
int memory_pin_null(void);

#endif
