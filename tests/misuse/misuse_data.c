/* misuse_data.c — the data cases of misuse.c: registration, unregistration,
 * acquisition, partitioning and the other data calls, misused. Each
 * returns the misused call's return code, VOID_RC, or PRINTED_RC when it
 * printed "returned ..." itself (then shows what the misuse leads to).
 */
#include <starpu.h>
#include <stdio.h>
#include <string.h>

#include "misuse.h"

/* ------------------------------------------------------------------- data */

int unregister_twice(void)
{
	start_with_var();
	starpu_data_unregister(xh);
	starpu_data_unregister(xh);
	xh = NULL;
	return VOID_RC;
}

int use_after_unregister(void)
{
	start_with_var();
	starpu_data_unregister(xh);
	int rc = starpu_task_insert(&inc_cl, STARPU_RW, xh, 0);
	starpu_task_wait_for_all();
	xh = NULL;
	return rc;
}

int unregister_while_acquired(void)
{
	start_with_var();
	if (starpu_data_acquire(xh, STARPU_RW) != 0)
		return 2;
	starpu_data_unregister(xh);
	starpu_data_release(xh);
	return VOID_RC;
}

int acquire_twice(void)
{
	start_with_var();
	if (starpu_data_acquire(xh, STARPU_RW) != 0)
		return 2;
	int rc = starpu_data_acquire(xh, STARPU_RW);
	starpu_data_release(xh);
	if (rc == 0)
		starpu_data_release(xh);
	return rc;
}

int release_without_acquire(void)
{
	start_with_var();
	starpu_data_release(xh);
	return VOID_RC;
}

int acquire_bad_node(void)
{
	start_with_var();
	int rc = starpu_data_acquire_on_node(xh, 99, STARPU_R);
	if (rc == 0)
		starpu_data_release_on_node(xh, 99);
	return rc;
}

/* After a registration call that returns void: says so, and uses the
 * handle if it was accepted anyway (what that leads to is the outcome). */
static int registered_outcome(starpu_data_handle_t h)
{
	printf("returned void\n");
	fflush(stdout);
	if (h)
	{
		starpu_task_insert(&read_cl, STARPU_R, h, 0);
		starpu_data_unregister(h);
	}
	return PRINTED_RC;
}

int register_null_ptr(void)
{
	start_with_var();
	starpu_data_handle_t h = NULL;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) NULL, 16, sizeof(int));
	return registered_outcome(h);
}

int register_bad_node(void)
{
	start_with_var();
	static int y;
	starpu_data_handle_t h = NULL;
	starpu_variable_data_register(&h, 42, (uintptr_t) &y, sizeof(y));
	printf("returned void\n");
	fflush(stdout);
	if (h)
	{
		starpu_task_insert(&inc_cl, STARPU_RW, h, 0);
		starpu_data_unregister(h);
	}
	return PRINTED_RC;
}

/* ------------------------------------------------------------- partitions */

static int vec[16];
static starpu_data_handle_t vh;

static void start_with_vector(unsigned n)
{
	start_with_var();
	starpu_vector_data_register(&vh, STARPU_MAIN_RAM, (uintptr_t) vec, n, sizeof(vec[0]));
}

static struct starpu_data_filter block_filter(unsigned nparts)
{
	struct starpu_data_filter f;
	memset(&f, 0, sizeof(f));
	f.filter_func = starpu_vector_filter_block;
	f.nchildren = nparts;
	return f;
}

int partition_twice(void)
{
	start_with_vector(16);
	struct starpu_data_filter f = block_filter(4);
	starpu_data_partition(vh, &f);
	starpu_data_partition(vh, &f);
	printf("returned void\n");
	fflush(stdout);
	starpu_data_unpartition(vh, STARPU_MAIN_RAM);
	starpu_data_unregister(vh);
	return PRINTED_RC;
}

int unpartition_bad_node(void)
{
	start_with_vector(16);
	struct starpu_data_filter f = block_filter(4);
	starpu_data_partition(vh, &f);
	starpu_data_unpartition(vh, 99);
	printf("returned void\n");
	fflush(stdout);
	if (starpu_data_get_nb_children(vh) > 0)
		starpu_data_unpartition(vh, STARPU_MAIN_RAM);
	starpu_data_unregister(vh);
	return PRINTED_RC;
}

int unpartition_not_partitioned(void)
{
	start_with_vector(16);
	starpu_data_unpartition(vh, STARPU_MAIN_RAM);
	printf("returned void\n");
	fflush(stdout);
	starpu_data_unregister(vh);
	return PRINTED_RC;
}

int filter_too_many_parts(void)
{
	start_with_vector(4);
	struct starpu_data_filter f = block_filter(8);
	starpu_data_partition(vh, &f);
	printf("returned void\n");
	fflush(stdout);
	if (starpu_data_get_nb_children(vh) > 0)
		starpu_data_unpartition(vh, STARPU_MAIN_RAM);
	starpu_data_unregister(vh);
	return PRINTED_RC;
}

int unregister_partitioned(void)
{
	start_with_vector(16);
	struct starpu_data_filter f = block_filter(4);
	starpu_data_partition(vh, &f);
	starpu_data_unregister(vh);
	printf("returned void\n");
	fflush(stdout);
	if (starpu_data_get_nb_children(vh) > 0)
	{
		starpu_data_unpartition(vh, STARPU_MAIN_RAM);
		starpu_data_unregister(vh);
	}
	return PRINTED_RC;
}

int child_bad_index(void)
{
	start_with_vector(16);
	struct starpu_data_filter f = block_filter(4);
	starpu_data_partition(vh, &f);
	starpu_data_handle_t c = starpu_data_get_sub_data(vh, 1, 9);
	printf("returned %s\n", c ? "a handle" : "NULL");
	fflush(stdout);
	if (c)
		starpu_task_insert(&read_cl, STARPU_R, c, 0);
	starpu_data_unpartition(vh, STARPU_MAIN_RAM);
	starpu_data_unregister(vh);
	return PRINTED_RC;
}

int partition_null_filter(void)
{
	start_with_vector(16);
	starpu_data_partition(vh, NULL);
	printf("returned void\n");
	fflush(stdout);
	if (starpu_data_get_nb_children(vh) > 0)
		starpu_data_unpartition(vh, STARPU_MAIN_RAM);
	starpu_data_unregister(vh);
	return PRINTED_RC;
}

int sub_data_unpartitioned(void)
{
	start_with_vector(16);
	starpu_data_handle_t c = starpu_data_get_sub_data(vh, 1, 0);
	printf("returned %s\n", c ? "a handle" : "NULL");
	fflush(stdout);
	starpu_data_unregister(vh);
	return PRINTED_RC;
}

int register_zero_elemsize(void)
{
	start_with_var();
	starpu_data_handle_t h = NULL;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) vec, 16, 0);
	return registered_outcome(h);
}

int matrix_ld_too_small(void)
{
	start_with_var();
	starpu_data_handle_t h = NULL;
	/* 4 x 4 elements with rows 2 elements apart: they overlap. */
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) vec, 2, 4, 4, sizeof(vec[0]));
	printf("returned void\n");
	fflush(stdout);
	if (h)
		starpu_data_unregister(h);
	return PRINTED_RC;
}

int acquire_mode_none(void)
{
	start_with_var();
	int rc = starpu_data_acquire(xh, STARPU_NONE);
	if (rc == 0)
		starpu_data_release(xh);
	return rc;
}

static void unregister_callback(void *arg)
{
	(void) arg;
	starpu_data_unregister(xh);
}

int unregister_in_callback(void)
{
	start_with_var();
	if (starpu_task_insert(&inc_cl, STARPU_RW, xh, STARPU_CALLBACK, unregister_callback, 0) != 0)
		return 2;
	starpu_task_wait_for_all();
	return VOID_RC;
}

int redux_without_methods(void)
{
	start_with_var();
	static struct starpu_codelet redux_cl = { .cpu_funcs = { inc_var }, .nbuffers = 1, .modes = { STARPU_REDUX }, .name = "redux" };
	return starpu_task_insert(&redux_cl, STARPU_REDUX, xh, 0);
}

int invalidate_acquired(void)
{
	start_with_var();
	if (starpu_data_acquire(xh, STARPU_RW) != 0)
		return 2;
	starpu_data_invalidate(xh);
	printf("returned void\n");
	fflush(stdout);
	starpu_data_release(xh);
	return PRINTED_RC;
}

int partition_acquired(void)
{
	start_with_vector(16);
	if (starpu_data_acquire(vh, STARPU_R) != 0)
		return 2;
	struct starpu_data_filter f = block_filter(4);
	starpu_data_partition(vh, &f);
	printf("returned void\n");
	fflush(stdout);
	starpu_data_release(vh);
	if (starpu_data_get_nb_children(vh) > 0)
		starpu_data_unpartition(vh, STARPU_MAIN_RAM);
	starpu_data_unregister(vh);
	return PRINTED_RC;
}

int fetch_while_written(void)
{
	start_with_var();
	if (starpu_data_acquire(xh, STARPU_W) != 0)
		return 2;
	int rc = starpu_data_fetch_on_node(xh, STARPU_MAIN_RAM, 0);
	starpu_data_release(xh);
	return rc;
}

int unregister_submit_twice(void)
{
	start_with_var();
	starpu_data_unregister_submit(xh);
	starpu_data_unregister_submit(xh);
	xh = NULL;
	return VOID_RC;
}

int prefetch_bad_node(void)
{
	start_with_var();
	return starpu_data_prefetch_on_node(xh, 99, 0);
}

int redux_methods_null(void)
{
	start_with_var();
	starpu_data_set_reduction_methods(NULL, &inc_cl, &inc_cl);
	return VOID_RC;
}

int wont_use_null(void)
{
	start_with_var();
	starpu_data_wont_use(NULL);
	return VOID_RC;
}

int data_cpy_null(void)
{
	start_with_var();
	return starpu_data_cpy(xh, NULL, 0, NULL, NULL);
}

int memory_pin_null(void)
{
	start_with_var();
	return starpu_memory_pin(NULL, 100);
}
