/* compat_partition: partition plans used as StarPU 1.3 applications use
 * them (issue 23, group 2). Tasks and acquisitions on the pieces of a plan
 * that was never submitted submit it implicitly (read-only when they only
 * read, upgraded when they write); using the parent again gathers the
 * pieces implicitly; switching from one plan to another does both; several
 * read-only plans of one handle may be active at once; acquiring and
 * releasing pieces prints nothing on stderr.
 */
#include "compat.h"

#include <fcntl.h>

#define N 64

static void add_cpu(void *b[], void *arg)
{
	int *v = (int *) STARPU_VECTOR_GET_PTR(b[0]);
	unsigned n = STARPU_VECTOR_GET_NX(b[0]);
	for (unsigned i = 0; i < n; i++)
		v[i] += (int) (intptr_t) arg;
}

/* b[1] (a variable) = the sum of the vector b[0] */
static void sum_cpu(void *b[], void *arg)
{
	(void) arg;
	int *v = (int *) STARPU_VECTOR_GET_PTR(b[0]);
	unsigned n = STARPU_VECTOR_GET_NX(b[0]);
	int s = 0;
	for (unsigned i = 0; i < n; i++)
		s += v[i];
	*(int *) STARPU_VARIABLE_GET_PTR(b[1]) = s;
}

static struct starpu_codelet add_cl = { .cpu_funcs = { add_cpu }, .nbuffers = 1, .modes = { STARPU_RW } };
static struct starpu_codelet sum_cl = { .cpu_funcs = { sum_cpu }, .nbuffers = 2, .modes = { STARPU_R, STARPU_W } };

static int sum_of(starpu_data_handle_t v)
{
	int s = -1;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &s, sizeof(s));
	CHECK(starpu_task_insert(&sum_cl, STARPU_R, v, STARPU_W, h, 0) == 0);
	starpu_data_unregister(h);
	return s;
}

static void add(starpu_data_handle_t v, int k)
{
	CHECK(starpu_task_insert(&add_cl, STARPU_RW, v, STARPU_CL_ARGS_NFREE, (void *) (intptr_t) k, (size_t) 0, 0) == 0);
}

/* The sum of k*i for i in [from, from + n): the initial content. */
static int initial_sum(int k, int from, int n)
{
	int s = 0;
	for (int i = from; i < from + n; i++)
		s += k * i;
	return s;
}

/* Pieces written with no partition_submit, then the parent used again. */
static void implicit_switches(void)
{
	int x[N];
	for (int i = 0; i < N; i++)
		x[i] = i;
	starpu_data_handle_t v, quarters[4], halves[2];
	starpu_vector_data_register(&v, STARPU_MAIN_RAM, (uintptr_t) x, N, sizeof(int));
	struct starpu_data_filter f4 = { .filter_func = starpu_vector_filter_block, .nchildren = 4 };
	struct starpu_data_filter f2 = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };
	starpu_data_partition_plan(v, &f4, quarters);
	starpu_data_partition_plan(v, &f2, halves);

	int s0 = initial_sum(1, 0, N);
	for (int i = 0; i < 4; i++)
		add(quarters[i], i + 1);		/* implicit partition */
	int s1 = s0 + (N / 4) * (1 + 2 + 3 + 4);
	CHECK(sum_of(v) == s1);			/* implicit unpartition */
	add(v, 1);
	int s2 = s1 + N;
	CHECK(sum_of(quarters[0]) + sum_of(quarters[1]) + sum_of(quarters[2]) + sum_of(quarters[3]) == s2);
	add(halves[1], 10);			/* from one plan to the other */
	int s3 = s2 + (N / 2) * 10;
	CHECK(sum_of(halves[0]) + sum_of(halves[1]) == s3);
	CHECK(sum_of(quarters[3]) == initial_sum(1, 3 * N / 4, N / 4) + (N / 4) * (4 + 1 + 10));

	/* an acquisition of a piece, then of the parent */
	CHECK(starpu_data_acquire(quarters[2], STARPU_RW) == 0);
	int *q = (int *) starpu_data_get_local_ptr(quarters[2]);
	CHECK(q != NULL && q[0] == 2 * N / 4 + 3 + 1 + 10);
	if (q)
		q[0] = 1000;
	starpu_data_release(quarters[2]);
	CHECK(starpu_data_acquire(v, STARPU_R) == 0);
	CHECK(x[2 * N / 4] == 1000 && x[N - 1] == N - 1 + 4 + 1 + 10);
	starpu_data_release(v);

	starpu_data_partition_clean(v, 4, quarters);
	starpu_data_partition_clean(v, 2, halves);
	starpu_data_unregister(v);
	CHECK(x[0] == 0 + 1 + 1 && x[N / 2] == 1000 && x[N / 2 + 1] == N / 2 + 1 + 3 + 1 + 10);
}

/* Two read-only plans of one handle active together, the parent readable. */
static void readonly_plans(void)
{
	int x[N];
	for (int i = 0; i < N; i++)
		x[i] = 2 * i;
	starpu_data_handle_t v, quarters[4], halves[2];
	starpu_vector_data_register(&v, STARPU_MAIN_RAM, (uintptr_t) x, N, sizeof(int));
	struct starpu_data_filter f4 = { .filter_func = starpu_vector_filter_block, .nchildren = 4 };
	struct starpu_data_filter f2 = { .filter_func = starpu_vector_filter_block, .nchildren = 2 };
	starpu_data_partition_plan(v, &f4, quarters);
	starpu_data_partition_plan(v, &f2, halves);
	starpu_data_partition_readonly_submit(v, 4, quarters);
	starpu_data_partition_readonly_submit(v, 2, halves);
	int s = initial_sum(2, 0, N);
	CHECK(sum_of(quarters[0]) + sum_of(quarters[1]) + sum_of(quarters[2]) + sum_of(quarters[3]) == s);
	CHECK(sum_of(halves[0]) + sum_of(halves[1]) == s);
	CHECK(sum_of(v) == s);
	starpu_data_unpartition_submit(v, 4, quarters, -1);
	starpu_data_unpartition_submit(v, 2, halves, -1);
	add(v, 1);
	CHECK(sum_of(v) == s + N);

	/* pieces only read: a read-only partition, implicitly */
	CHECK(sum_of(halves[0]) == initial_sum(2, 0, N / 2) + N / 2);
	CHECK(sum_of(quarters[3]) == initial_sum(2, 3 * N / 4, N / 4) + N / 4);
	CHECK(sum_of(v) == s + N);
	add(quarters[0], 1);			/* written: the others are gathered */
	CHECK(sum_of(v) == s + N + N / 4);

	starpu_data_partition_clean(v, 4, quarters);
	starpu_data_partition_clean(v, 2, halves);
	starpu_data_unregister(v);
	CHECK(x[0] == 2 && x[N - 1] == 2 * (N - 1) + 1);
}

/* Acquiring and releasing the pieces of a submitted plan, then
 * unpartitioning: nothing printed on stderr. */
static void acquire_pieces_quietly(void)
{
	int x[N];
	for (int i = 0; i < N; i++)
		x[i] = i;
	starpu_data_handle_t v, pieces[4];
	starpu_vector_data_register(&v, STARPU_MAIN_RAM, (uintptr_t) x, N, sizeof(int));
	struct starpu_data_filter f4 = { .filter_func = starpu_vector_filter_block, .nchildren = 4 };
	starpu_data_partition_plan(v, &f4, pieces);

	fflush(stderr);
	char path[] = "/tmp/compat_partition_XXXXXX";
	int fd = mkstemp(path);
	int saved = dup(2);
	CHECK(fd >= 0 && saved >= 0);
	if (fd < 0 || saved < 0)
		return;
	unlink(path);
	dup2(fd, 2);

	starpu_data_partition_submit(v, 4, pieces);
	for (int i = 0; i < 4; i++)
	{
		CHECK(starpu_data_acquire(pieces[i], STARPU_RW) == 0);
		((int *) starpu_data_get_local_ptr(pieces[i]))[0] = -i;
		starpu_data_release(pieces[i]);
	}
	for (int i = 0; i < 4; i++)
	{
		CHECK(starpu_data_acquire(pieces[i], STARPU_R) == 0);
		starpu_data_release(pieces[i]);
	}
	starpu_data_unpartition_submit(v, 4, pieces, STARPU_MAIN_RAM);
	CHECK(starpu_data_acquire(v, STARPU_R) == 0);
	starpu_data_release(v);

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n > 0)
	{
		buf[n] = 0;
		fprintf(stderr, "printed while acquiring pieces: %s\n", buf);
	}
	CHECK(n == 0);
	CHECK(x[0] == 0 && x[N / 4] == -1 && x[3 * N / 4] == -3 && x[1] == 1);

	starpu_data_partition_clean(v, 4, pieces);
	starpu_data_unregister(v);
}

int main(void)
{
	int ret = compat_start(2, NULL);
	if (ret == -ENODEV)
		return 77;
	if (ret)
		return 1;
	implicit_switches();
	readonly_plans();
	acquire_pieces_quietly();
	starpu_shutdown();
	return compat_result("compat_partition");
}
