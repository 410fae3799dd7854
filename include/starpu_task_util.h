/* starpu_task_util.h — building and submitting a task in one call.
 *
 * starpu_task_insert(cl, args..., 0) takes a list of (kind, value) pairs:
 * an access mode followed by a handle adds a buffer; the STARPU_* keys below
 * set the other task fields. The list ends with 0.
 *
 * Arguments passed with STARPU_VALUE are copied into one buffer that the
 * codelet unpacks, in the same order, with starpu_codelet_unpack_args().
 */
#ifndef STARPU_TASK_UTIL_H
#define STARPU_TASK_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <assert.h>
#include <starpu_task.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Keys live above the access-mode bits so that both can share the list. */
#define STARPU_MODE_SHIFT 17
#define STARPU_VALUE (1 << STARPU_MODE_SHIFT)			/* ptr, size */
#define STARPU_CALLBACK (2 << STARPU_MODE_SHIFT)		/* func */
#define STARPU_CALLBACK_WITH_ARG (3 << STARPU_MODE_SHIFT)	/* func, arg */
#define STARPU_CALLBACK_ARG (4 << STARPU_MODE_SHIFT)		/* arg */
#define STARPU_PRIORITY (5 << STARPU_MODE_SHIFT)		/* int */
#define STARPU_EXECUTE_ON_NODE (6 << STARPU_MODE_SHIFT)
#define STARPU_EXECUTE_ON_DATA (7 << STARPU_MODE_SHIFT)
#define STARPU_DATA_ARRAY (8 << STARPU_MODE_SHIFT)		/* handles[], n (mode from the codelet) */
#define STARPU_DATA_MODE_ARRAY (9 << STARPU_MODE_SHIFT)		/* struct starpu_data_descr[], n */
#define STARPU_TAG (10 << STARPU_MODE_SHIFT)			/* starpu_tag_t */
#define STARPU_HYPERVISOR_TAG (11 << STARPU_MODE_SHIFT)
#define STARPU_FLOPS (12 << STARPU_MODE_SHIFT)			/* double */
#define STARPU_SCHED_CTX (13 << STARPU_MODE_SHIFT)		/* unsigned */
#define STARPU_PROLOGUE_CALLBACK (14 << STARPU_MODE_SHIFT)
#define STARPU_PROLOGUE_CALLBACK_ARG (15 << STARPU_MODE_SHIFT)
#define STARPU_PROLOGUE_CALLBACK_POP (16 << STARPU_MODE_SHIFT)
#define STARPU_PROLOGUE_CALLBACK_POP_ARG (17 << STARPU_MODE_SHIFT)
#define STARPU_EXECUTE_ON_WORKER (18 << STARPU_MODE_SHIFT)	/* int worker, -1 for any */
#define STARPU_EXECUTE_WHERE (19 << STARPU_MODE_SHIFT)		/* unsigned long long mask */
#define STARPU_TAG_ONLY (20 << STARPU_MODE_SHIFT)		/* starpu_tag_t, without use_tag deps */
#define STARPU_POSSIBLY_PARALLEL (21 << STARPU_MODE_SHIFT)
#define STARPU_WORKER_ORDER (22 << STARPU_MODE_SHIFT)
#define STARPU_NODE_SELECTION_POLICY (23 << STARPU_MODE_SHIFT)
#define STARPU_NAME (24 << STARPU_MODE_SHIFT)			/* const char * */
#define STARPU_CL_ARGS (25 << STARPU_MODE_SHIFT)		/* ptr, size; freed with the task */
#define STARPU_CL_ARGS_NFREE (26 << STARPU_MODE_SHIFT)		/* ptr, size; not freed */
#define STARPU_TASK_DEPS_ARRAY (27 << STARPU_MODE_SHIFT)	/* n, tasks[] */
#define STARPU_TASK_COLOR (28 << STARPU_MODE_SHIFT)
#define STARPU_HANDLES_SEQUENTIAL_CONSISTENCY (29 << STARPU_MODE_SHIFT)
#define STARPU_TASK_SYNCHRONOUS (30 << STARPU_MODE_SHIFT)
#define STARPU_TASK_END_DEPS_ARRAY (31 << STARPU_MODE_SHIFT)
#define STARPU_TASK_END_DEP (32 << STARPU_MODE_SHIFT)
#define STARPU_TASK_WORKERIDS (33 << STARPU_MODE_SHIFT)
#define STARPU_SEQUENTIAL_CONSISTENCY (34 << STARPU_MODE_SHIFT)
#define STARPU_TASK_PROFILING_INFO (35 << STARPU_MODE_SHIFT)
#define STARPU_TASK_NO_SUBMITORDER (36 << STARPU_MODE_SHIFT)
#define STARPU_CALLBACK_ARG_NFREE (37 << STARPU_MODE_SHIFT)
#define STARPU_CALLBACK_WITH_ARG_NFREE (38 << STARPU_MODE_SHIFT)
#define STARPU_PROLOGUE_CALLBACK_ARG_NFREE (39 << STARPU_MODE_SHIFT)
#define STARPU_PROLOGUE_CALLBACK_POP_ARG_NFREE (40 << STARPU_MODE_SHIFT)
#define STARPU_TASK_SCHED_DATA (41 << STARPU_MODE_SHIFT)
#define STARPU_SHIFTED_MODE_MAX (42 << STARPU_MODE_SHIFT)

/* Fills an initialised task from the list; returns 0 or -EINVAL. */
int starpu_task_set(struct starpu_task *task, struct starpu_codelet *cl, ...);
/* A new task (destroy=1) built from the list, not submitted; NULL on error. */
struct starpu_task *starpu_task_build(struct starpu_codelet *cl, ...);
/* Builds and submits; returns starpu_task_submit()'s result, or -EINVAL
 * for a malformed list (an unknown key is named on stderr). */
int starpu_task_insert(struct starpu_codelet *cl, ...);
int starpu_insert_task(struct starpu_codelet *cl, ...);

/* Packs (pointer, size) pairs, terminated by 0, into a new buffer that
 * the caller frees. */
void starpu_codelet_pack_args(void **arg_buffer, size_t *arg_buffer_size, ...);

struct starpu_codelet_pack_arg_data
{
	char *arg_buffer;
	size_t arg_buffer_size;
	size_t current_offset;
	int nargs;
};
void starpu_codelet_pack_arg_init(struct starpu_codelet_pack_arg_data *state);
void starpu_codelet_pack_arg(struct starpu_codelet_pack_arg_data *state, const void *ptr, size_t ptr_size);
void starpu_codelet_pack_arg_fini(struct starpu_codelet_pack_arg_data *state, void **cl_arg, size_t *cl_arg_size);

/* Copies the packed values into the pointers that follow, in packing order;
 * stops at a NULL pointer or when all values are consumed. */
void starpu_codelet_unpack_args(void *cl_arg, ...);
/* Same, then copies what was not unpacked into buffer. */
void starpu_codelet_unpack_args_and_copyleft(void *cl_arg, void *buffer, size_t buffer_size, ...);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_TASK_UTIL_H */
