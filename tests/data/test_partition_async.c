/* test_partition_async.c — partitioning data the asynchronous way
 * (partition plans: partition_submit, readonly_submit, unpartition_submit,
 * nested plans, data with no home buffer).
 *
 * The implicit dependencies are checked by values: tasks on the parent and
 * on the pieces compose different affine steps, so that any reordering
 * changes the result, and a slow first task gives a missing dependency the
 * chance to show.
 */
#include <starpu.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filters_common.h"
#include "vtest.h"

/* ---- asynchronous partitioning ----------------------------------------- */

/* Vector steps: x <- x * mul + add (add may depend on the piece). */
struct step
{
	int64_t mul, add;
	int slow;
};

static void step_cpu(void *buffers[], void *arg)
{
	const struct step *s = arg;
	if (s->slow)
		vtest_sleep_ms(20);
	int64_t *v = (int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		v[i] = v[i] * s->mul + s->add;
}

static struct starpu_codelet step_cl = {
	.cpu_funcs = { step_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "step",
};

/* Sets every element to the value given (W: the data need not exist). */
static void vset_cpu(void *buffers[], void *arg)
{
	int64_t *v = (int64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		v[i] = (int64_t) (intptr_t) arg;
}

static struct starpu_codelet vset_cl = {
	.cpu_funcs = { vset_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "vset",
};

/* Applies x * mul + add to ref[first .. first + len). */
static void ref_step(int64_t *ref, unsigned first, unsigned len, int64_t mul, int64_t add)
{
	for (unsigned i = first; i < first + len; i++)
		ref[i] = ref[i] * mul + add;
}

enum { AN = 12 };

/* Reads of a vector, into a snapshot of AN values. */
struct vsnap
{
	int64_t values[AN];
	unsigned n;
	int slow;
};

static void vsnap_cpu(void *buffers[], void *arg)
{
	struct vsnap *s = arg;
	if (s->slow)
		vtest_sleep_ms(20);
	s->n = STARPU_VECTOR_GET_NX(buffers[0]);
	if (s->n <= AN)
		memcpy(s->values, (void *) STARPU_VECTOR_GET_PTR(buffers[0]), s->n * sizeof(int64_t));
}

static struct starpu_codelet vsnap_cl = {
	.cpu_funcs = { vsnap_cpu },
	.nbuffers = 1,
	.modes = { STARPU_R },
	.name = "vsnap",
};

/* Tasks on the parent before partition_submit run before the pieces'
 * tasks, which run before the parent's tasks after unpartition_submit;
 * two plans (3 and 4 pieces) alternate on the same handle, nothing waited
 * for in between. */
static void test_async_two_plans(void)
{
	int64_t v[AN], ref[AN];
	for (int i = 0; i < AN; i++)
		v[i] = ref[i] = i;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, AN, sizeof(int64_t));
	struct starpu_data_filter fa = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	struct starpu_data_filter fb = { .filter_func = starpu_vector_filter_divide_in_2, .nchildren = 2, .filter_arg = 5 };
	starpu_data_handle_t a[3], b[2];
	starpu_data_partition_plan(h, &fa, a);
	starpu_data_partition_plan(h, &fb, b);
	for (int i = 0; i < 3; i++)
	{
		CU_ASSERT_PTR_NOT_NULL_FATAL(a[i]);
		CU_ASSERT_EQUAL(starpu_vector_get_nx(a[i]), 4);
	}
	CU_ASSERT_EQUAL(starpu_vector_get_nx(b[0]), 5);
	CU_ASSERT_EQUAL(starpu_vector_get_nx(b[1]), 7);
	CU_ASSERT_EQUAL(starpu_vector_get_local_ptr(b[1]), (uintptr_t) (v + 5));

	static struct step parent_steps[3] = { { 1, 1, 1 }, { 3, 0, 1 }, { 1, -7, 0 } };
	static struct step a_steps[3] = { { 2, 0, 1 }, { 2, 1, 0 }, { 2, 2, 0 } };
	static struct step b_steps[2] = { { 5, 1, 1 }, { 7, 0, 0 } };
	static struct vsnap seen[3];
	int64_t seen_ref[3][7];
	memset(seen, 0, sizeof(seen));
	for (int round = 0; round < 3; round++)
		seen[round].slow = 1;
	for (int round = 0; round < 3; round++)
	{
		CU_ASSERT_EQUAL(submit(&step_cl, &parent_steps[0], h), 0);
		ref_step(ref, 0, AN, parent_steps[0].mul, parent_steps[0].add);

		starpu_data_partition_submit(h, 3, a);
		for (unsigned i = 0; i < 3; i++)
		{
			unsigned first, len;
			split(AN, 3, i, &first, &len);
			CU_ASSERT_EQUAL(submit(&step_cl, &a_steps[i], a[i]), 0);
			ref_step(ref, first, len, a_steps[i].mul, a_steps[i].add);
		}
		starpu_data_unpartition_submit(h, 3, a, STARPU_MAIN_RAM);

		CU_ASSERT_EQUAL(submit(&step_cl, &parent_steps[1], h), 0);
		ref_step(ref, 0, AN, parent_steps[1].mul, parent_steps[1].add);

		starpu_data_partition_submit(h, 2, b);
		CU_ASSERT_EQUAL(submit(&step_cl, &b_steps[0], b[0]), 0);
		CU_ASSERT_EQUAL(submit(&step_cl, &b_steps[1], b[1]), 0);
		CU_ASSERT_EQUAL(submit(&step_cl, &b_steps[0], b[1]), 0);
		ref_step(ref, 0, 5, b_steps[0].mul, b_steps[0].add);
		ref_step(ref, 5, 7, b_steps[1].mul, b_steps[1].add);
		ref_step(ref, 5, 7, b_steps[0].mul, b_steps[0].add);
		/* a slow reader of a piece: the parent's next writer waits for it */
		CU_ASSERT_EQUAL(submit(&vsnap_cl, &seen[round], b[1]), 0);
		memcpy(seen_ref[round], ref + 5, 7 * sizeof(int64_t));
		starpu_data_unpartition_submit(h, 2, b, STARPU_MAIN_RAM);

		CU_ASSERT_EQUAL(submit(&step_cl, &parent_steps[2], h), 0);
		ref_step(ref, 0, AN, parent_steps[2].mul, parent_steps[2].add);
	}
	/* an acquisition comes after all of it */
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(v, ref, sizeof(v)) == 0);
	starpu_data_release(h);
	for (int round = 0; round < 3; round++)
	{
		CU_ASSERT_EQUAL(seen[round].n, 7);
		CU_ASSERT(memcmp(seen[round].values, seen_ref[round], 7 * sizeof(int64_t)) == 0);
	}
	starpu_data_partition_clean(h, 3, a);
	starpu_data_partition_clean(h, 2, b);
	CU_ASSERT_EQUAL(submit(&step_cl, &parent_steps[1], h), 0);
	ref_step(ref, 0, AN, parent_steps[1].mul, parent_steps[1].add);
	starpu_data_unregister(h);
	CU_ASSERT(memcmp(v, ref, sizeof(v)) == 0);
}

/* A read-only partition: the parent and the pieces are read side by side
 * and see the same data; upgraded, the pieces are written. */
static void test_async_readonly(void)
{
	int64_t v[AN], ref[AN];
	for (int i = 0; i < AN; i++)
		v[i] = ref[i] = 5 * i;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, AN, sizeof(int64_t));
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	starpu_data_handle_t c[3];
	starpu_data_partition_plan(h, &f, c);

	static struct step first = { 2, 3, 1 };
	CU_ASSERT_EQUAL(submit(&step_cl, &first, h), 0);
	ref_step(ref, 0, AN, 2, 3);
	starpu_data_partition_readonly_submit(h, 3, c);
	static struct vsnap ps[2], cs[3];
	memset(ps, 0, sizeof(ps));
	memset(cs, 0, sizeof(cs));
	ps[0].slow = 1;
	CU_ASSERT_EQUAL(submit(&vsnap_cl, &ps[0], h), 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&vsnap_cl, &cs[i], c[i]), 0);
	CU_ASSERT_EQUAL(submit(&vsnap_cl, &ps[1], h), 0);
	/* the application may read the parent too */
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(v, ref, sizeof(v)) == 0);
	starpu_data_release(h);

	/* upgraded: the pieces are written, after the readers above */
	starpu_data_partition_readwrite_upgrade_submit(h, 3, c);
	static struct step mul[3] = { { 2, 0, 0 }, { 3, 0, 0 }, { 4, 0, 0 } };
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&step_cl, &mul[i], c[i]), 0);
	int64_t after_reads[AN];
	memcpy(after_reads, ref, sizeof(ref));
	for (unsigned i = 0; i < 3; i++)
	{
		unsigned fst, len;
		split(AN, 3, i, &fst, &len);
		ref_step(ref, fst, len, mul[i].mul, 0);
	}
	starpu_data_unpartition_submit(h, 3, c, STARPU_MAIN_RAM);
	static struct step last = { 1, 1, 0 };
	CU_ASSERT_EQUAL(submit(&step_cl, &last, h), 0);
	ref_step(ref, 0, AN, 1, 1);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	for (int k = 0; k < 2; k++)
	{
		CU_ASSERT_EQUAL(ps[k].n, AN);
		CU_ASSERT(memcmp(ps[k].values, after_reads, sizeof(after_reads)) == 0);
	}
	for (unsigned i = 0; i < 3; i++)
	{
		unsigned fst, len;
		split(AN, 3, i, &fst, &len);
		CU_ASSERT_EQUAL(cs[i].n, len);
		CU_ASSERT(memcmp(cs[i].values, after_reads + fst, len * sizeof(int64_t)) == 0);
	}
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(v, ref, sizeof(v)) == 0);
	starpu_data_release(h);

	/* read-only and straight back: nothing written, nothing lost */
	starpu_data_partition_readonly_submit(h, 3, c);
	memset(cs, 0, sizeof(cs));
	cs[0].slow = 1;
	CU_ASSERT_EQUAL(submit(&vsnap_cl, &cs[0], c[0]), 0);
	starpu_data_unpartition_submit(h, 3, c, STARPU_MAIN_RAM);
	/* waits for the reader of the piece */
	CU_ASSERT_EQUAL(submit(&step_cl, &last, h), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT(memcmp(cs[0].values, ref, 4 * sizeof(int64_t)) == 0);
	ref_step(ref, 0, AN, 1, 1);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(v, ref, sizeof(v)) == 0);
	starpu_data_release(h);

	starpu_data_partition_clean(h, 3, c);
	starpu_data_unregister(h);
	CU_ASSERT(memcmp(v, ref, sizeof(v)) == 0);
}

/* unpartition_readonly_submit: the pieces' writes are gathered and both the
 * parent and the pieces can be read; then back to the parent alone. */
static void test_async_unpartition_readonly(void)
{
	int64_t v[AN], ref[AN];
	for (int i = 0; i < AN; i++)
		v[i] = ref[i] = 100 - i;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, AN, sizeof(int64_t));
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 4 };
	starpu_data_handle_t c[4];
	starpu_data_partition_plan(h, &f, c);
	starpu_data_partition_submit(h, 4, c);
	static struct step w[4] = { { 3, 1, 1 }, { 3, 2, 0 }, { 3, 3, 1 }, { 3, 4, 0 } };
	for (unsigned i = 0; i < 4; i++)
	{
		unsigned fst, len;
		split(AN, 4, i, &fst, &len);
		CU_ASSERT_EQUAL(submit(&step_cl, &w[i], c[i]), 0);
		ref_step(ref, fst, len, w[i].mul, w[i].add);
	}
	starpu_data_unpartition_readonly_submit(h, 4, c, STARPU_MAIN_RAM);
	static struct vsnap ps, cs[4];
	memset(&ps, 0, sizeof(ps));
	memset(cs, 0, sizeof(cs));
	CU_ASSERT_EQUAL(submit(&vsnap_cl, &ps, h), 0);
	for (unsigned i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(submit(&vsnap_cl, &cs[i], c[i]), 0);
	int64_t gathered[AN];
	memcpy(gathered, ref, sizeof(ref));
	starpu_data_unpartition_submit(h, 4, c, STARPU_MAIN_RAM);
	static struct step last = { -1, 0, 0 };
	CU_ASSERT_EQUAL(submit(&step_cl, &last, h), 0);
	ref_step(ref, 0, AN, -1, 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(ps.n, AN);
	CU_ASSERT(memcmp(ps.values, gathered, sizeof(gathered)) == 0);
	for (unsigned i = 0; i < 4; i++)
	{
		unsigned fst, len;
		split(AN, 4, i, &fst, &len);
		CU_ASSERT_EQUAL(cs[i].n, len);
		CU_ASSERT(memcmp(cs[i].values, gathered + fst, len * sizeof(int64_t)) == 0);
	}
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(v, ref, sizeof(v)) == 0);
	starpu_data_release(h);
	starpu_data_partition_clean(h, 4, c);
	starpu_data_unregister(h);
}

/* A parent with no home buffer: written by a task, partitioned by a plan,
 * gathered back. */
static void test_async_no_home(void)
{
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, -1, 0, AN, sizeof(int64_t));
	CU_ASSERT_EQUAL(submit(&vset_cl, (void *) (intptr_t) 7, h), 0);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	starpu_data_handle_t c[3];
	starpu_data_partition_plan(h, &f, c);
	starpu_data_partition_submit(h, 3, c);
	static struct step cstep[3] = { { 2, 0, 1 }, { 3, 0, 0 }, { 4, 0, 0 } };
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&step_cl, &cstep[i], c[i]), 0);
	starpu_data_unpartition_submit(h, 3, c, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const int64_t *v = (const int64_t *) starpu_vector_get_local_ptr(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	for (unsigned i = 0; i < 3; i++)
	{
		unsigned fst, len;
		split(AN, 3, i, &fst, &len);
		for (unsigned k = fst; k < fst + len; k++)
			CU_ASSERT_EQUAL(v[k], 7 * cstep[i].mul);
	}
	starpu_data_release(h);
	starpu_data_partition_clean(h, 3, c);
	starpu_data_unregister(h);

}

/* Synchronous partitioning of data with no home buffer, written by a task
 * (the partition waits for it). */
static void test_sync_no_home(void)
{
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, -1, 0, AN, sizeof(int64_t));
	CU_ASSERT_EQUAL(submit(&vset_cl, (void *) (intptr_t) 11, h), 0);
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 5 };
	starpu_data_partition(h, &f);
	CU_ASSERT_EQUAL_FATAL(starpu_data_get_nb_children(h), 5);
	static struct step s[5] = { { 1, 1, 1 }, { 1, 2, 0 }, { 1, 3, 1 }, { 1, 4, 0 }, { 1, 5, 0 } };
	for (unsigned i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(submit(&step_cl, &s[i], starpu_data_get_child(h, i)), 0);
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	const int64_t *v = (const int64_t *) starpu_vector_get_local_ptr(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	for (unsigned i = 0; i < 5; i++)
	{
		unsigned fst, len;
		split(AN, 5, i, &fst, &len);
		for (unsigned k = fst; k < fst + len; k++)
			CU_ASSERT_EQUAL(v[k], 11 + s[i].add);
	}
	starpu_data_release(h);
	starpu_data_unregister(h);
}


/* A plan on a piece of a plan: the pieces' pieces are written, gathered in
 * the piece, then in the parent, all in task order. */
static void test_async_nested(void)
{
	int64_t v[AN], ref[AN];
	for (int i = 0; i < AN; i++)
		v[i] = ref[i] = 3 * i + 1;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, AN, sizeof(int64_t));
	struct starpu_data_filter f2 = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };
	struct starpu_data_filter f3 = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	starpu_data_handle_t a[2], b[3];
	starpu_data_partition_plan(h, &f2, a);
	starpu_data_partition_plan(a[0], &f3, b);
	CU_ASSERT_EQUAL(starpu_vector_get_local_ptr(b[2]), (uintptr_t) (v + 4));
	CU_ASSERT_EQUAL(starpu_vector_get_nx(b[2]), 2);

	static struct step s_parent = { 2, 1, 1 }, s_a = { 3, 0, 1 }, s_b[3] = { { 5, 1, 1 }, { 5, 2, 0 }, { 5, 3, 0 } };
	CU_ASSERT_EQUAL(submit(&step_cl, &s_parent, h), 0);
	ref_step(ref, 0, AN, s_parent.mul, s_parent.add);
	starpu_data_partition_submit(h, 2, a);
	CU_ASSERT_EQUAL(submit(&step_cl, &s_a, a[0]), 0);
	ref_step(ref, 0, 6, s_a.mul, s_a.add);
	starpu_data_partition_submit(a[0], 3, b);
	for (unsigned i = 0; i < 3; i++)
	{
		CU_ASSERT_EQUAL(submit(&step_cl, &s_b[i], b[i]), 0);
		ref_step(ref, 2 * i, 2, s_b[i].mul, s_b[i].add);
	}
	CU_ASSERT_EQUAL(submit(&step_cl, &s_a, a[1]), 0);
	ref_step(ref, 6, 6, s_a.mul, s_a.add);
	starpu_data_unpartition_submit(a[0], 3, b, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(submit(&step_cl, &s_a, a[0]), 0);
	ref_step(ref, 0, 6, s_a.mul, s_a.add);
	starpu_data_unpartition_submit(h, 2, a, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(submit(&step_cl, &s_parent, h), 0);
	ref_step(ref, 0, AN, s_parent.mul, s_parent.add);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT(memcmp(v, ref, sizeof(v)) == 0);
	starpu_data_release(h);

	/* cleaning the outer plan while both are submitted gathers both */
	starpu_data_partition_submit(h, 2, a);
	starpu_data_partition_submit(a[0], 3, b);
	CU_ASSERT_EQUAL(submit(&step_cl, &s_b[0], b[1]), 0);
	ref_step(ref, 2, 2, s_b[0].mul, s_b[0].add);
	starpu_data_partition_clean(h, 2, a);
	CU_ASSERT_EQUAL(submit(&step_cl, &s_parent, h), 0);
	ref_step(ref, 0, AN, s_parent.mul, s_parent.add);
	starpu_data_unregister(h);
	CU_ASSERT(memcmp(v, ref, sizeof(v)) == 0);
}

/* Partitioning data never written, for its pieces to write it, reads
 * nothing: no warning about reading unwritten data (the runtime is not
 * silent in this suite). A read-only partition of it does read it: the
 * warning shows there, which also proves the capture sees warnings. */
static int start_verbose(void)
{
	vtest_setenv("STARPU_SILENT", "0");
	int ret = start_runtime();
	vtest_env_restore();
	return ret;
}

static void test_unwritten_quiet(void)
{
	struct starpu_data_filter f = { .filter_func = starpu_vector_filter_block, .nchildren = 3 };
	starpu_data_handle_t h, c[3];
	const char *msg;

	starpu_vector_data_register(&h, -1, 0, AN, sizeof(int64_t));
	vtest_capture_stderr_begin();
	starpu_data_partition(h, &f);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&vset_cl, (void *) (intptr_t) (i + 1), starpu_data_get_child(h, i)), 0);
	starpu_data_unpartition(h, STARPU_MAIN_RAM);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_STRING_EQUAL(msg, "");
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT_EQUAL(((int64_t *) starpu_vector_get_local_ptr(h))[AN - 1], 3);
	starpu_data_release(h);
	starpu_data_unregister(h);

	starpu_vector_data_register(&h, -1, 0, AN, sizeof(int64_t));
	vtest_capture_stderr_begin();
	starpu_data_partition_plan(h, &f, c);
	starpu_data_partition_submit(h, 3, c);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(submit(&vset_cl, (void *) (intptr_t) (i + 4), c[i]), 0);
	starpu_data_unpartition_submit(h, 3, c, STARPU_MAIN_RAM);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_STRING_EQUAL(msg, "");
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT_EQUAL(((int64_t *) starpu_vector_get_local_ptr(h))[0], 4);
	starpu_data_release(h);
	starpu_data_partition_clean(h, 3, c);
	starpu_data_unregister(h);

	starpu_vector_data_register(&h, -1, 0, AN, sizeof(int64_t));
	starpu_data_partition_plan(h, &f, c);
	vtest_capture_stderr_begin();
	starpu_data_partition_readonly_submit(h, 3, c);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	msg = vtest_capture_stderr_end();
	CU_ASSERT(strstr(msg, "read before anything was written") != NULL);
	starpu_data_unpartition_submit(h, 3, c, STARPU_MAIN_RAM);
	starpu_data_partition_clean(h, 3, c);
	starpu_data_unregister(h);
}

static const struct vtest_case quiet_cases[] = {
	{ "unwritten_data_partitioned_quietly", test_unwritten_quiet },
	VTEST_END
};

static const struct vtest_case async_cases[] = {
	{ "two_plans_alternating", test_async_two_plans },
	{ "readonly_and_upgrade", test_async_readonly },
	{ "unpartition_readonly", test_async_unpartition_readonly },
	{ "no_home", test_async_no_home },
	{ "sync_no_home", test_sync_no_home },
	{ "nested_plans", test_async_nested },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "async", start_runtime, stop_runtime, async_cases },
	{ "unwritten", start_verbose, stop_runtime, quiet_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
