/* test_coherency: data moving between memory nodes under memory limits.
 *
 * Main RAM is limited (STARPU_LIMIT_CPU_MEM=8 MiB) and a disk node is
 * registered in a temporary directory, so data the runtime allocates is
 * evicted to disk and read back: contents are checked byte for byte after
 * several sweeps. Also: wont_use data evicted first, fetch / prefetch /
 * idle prefetch / allocation requests to the disk, write-through masks,
 * invalidation, the per-node memory accounting, application buffers given
 * with ptr_register, register_same, and tasks whose data cannot all be
 * pinned at once (they wait for each other, nothing deadlocks).
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <errno.h>
#include <ftw.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vtest.h"

#define LIMIT_MIB 8
#define MIB (1024 * 1024)
#define DISK_SIZE (256 * MIB)

static char disk_dir[] = "/tmp/vela-test-coherency-XXXXXX";
static int disk_node = -1;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	return remove(path);
}

static int suite_init(void)
{
	if (!mkdtemp(disk_dir))
		return -1;
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "8");
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	if (starpu_init(&conf))
		return -1;
	disk_node = starpu_disk_register(&starpu_disk_unistd_ops, disk_dir, DISK_SIZE);
	return disk_node >= 0 ? 0 : -1;
}

static int suite_clean(void)
{
	starpu_task_wait_for_all();
	starpu_shutdown();
	vtest_env_restore();
	nftw(disk_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* Bytes the runtime holds on the disk node. */
static ssize_t disk_used(void)
{
	return starpu_memory_get_total((unsigned) disk_node) - starpu_memory_get_available((unsigned) disk_node);
}

static int submit1(struct starpu_codelet *cl, void *arg, starpu_data_handle_t h)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->cl_arg = arg;
	t->handles[0] = h;
	return starpu_task_submit(t);
}

/* Vectors of ints: fill with base+i, add one. */
static void fill_cpu(void *buffers[], void *cl_arg)
{
	int *p = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	int base = (int) (intptr_t) cl_arg;
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		p[i] = base + (int) i;
}

static void add1_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	for (unsigned b = 0; b < STARPU_TASK_GET_NBUFFERS(starpu_task_get_current()); b++)
	{
		int *p = (int *) STARPU_VECTOR_GET_PTR(buffers[b]);
		for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[b]); i++)
			p[i]++;
	}
}

static struct starpu_codelet fill_cl = {
	.cpu_funcs = { fill_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "fill",
};
static struct starpu_codelet add1_cl = {
	.cpu_funcs = { add1_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "add1",
};

/* Checks that h holds base+i+add everywhere (acquired in RAM). */
static int check_vector(starpu_data_handle_t h, int base, int add)
{
	if (starpu_data_acquire(h, STARPU_R))
		return 0;
	const int *p = (const int *) starpu_vector_get_local_ptr(h);
	int ok = p != NULL;
	for (unsigned i = 0; ok && i < starpu_vector_get_nx(h); i++)
		ok = p[i] == base + (int) i + add;
	starpu_data_release(h);
	return ok;
}

#define ELEMS (MIB / (int) sizeof(int))	/* 1 MiB vectors */

static void test_out_of_core_roundtrip(void)
{
	enum { N = 24, SWEEPS = 3 };	/* 24 MiB through 8 MiB of RAM */
	starpu_data_handle_t h[N];
	for (int i = 0; i < N; i++)
	{
		starpu_vector_data_register(&h[i], -1, 0, ELEMS, sizeof(int));
		CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, (void *) (intptr_t) (i * 1000003), h[i]), 0);
	}
	for (int s = 0; s < SWEEPS; s++)
		for (int i = 0; i < N; i++)
			CU_ASSERT_EQUAL_FATAL(submit1(&add1_cl, NULL, h[i]), 0);
	starpu_task_wait_for_all();
	/* Most of the data is on disk now, and RAM stayed within its limit. */
	int on_disk = 0, in_ram = 0;
	for (int i = 0; i < N; i++)
	{
		on_disk += starpu_data_is_on_node(h[i], (unsigned) disk_node) != 0;
		in_ram += starpu_data_is_on_node(h[i], STARPU_MAIN_RAM) != 0;
	}
	CU_ASSERT(on_disk >= N - LIMIT_MIB);
	CU_ASSERT(in_ram <= LIMIT_MIB);
	CU_ASSERT(disk_used() >= (ssize_t) (N - LIMIT_MIB) * MIB);
	CU_ASSERT(starpu_memory_get_available(STARPU_MAIN_RAM) >= 0);
	int bad = 0;
	for (int i = 0; i < N; i++)
		bad += !check_vector(h[i], i * 1000003, SWEEPS);
	CU_ASSERT_EQUAL(bad, 0);
	for (int i = 0; i < N; i++)
		starpu_data_unregister(h[i]);
	/* The disk copies are free (kept in the node's allocation cache,
	 * which counts as available). */
	starpu_memchunk_tidy((unsigned) disk_node);
	CU_ASSERT_EQUAL(disk_used(), 0);
}

static void test_wont_use_evicted_first(void)
{
	enum { N = LIMIT_MIB };
	starpu_data_handle_t h[N + 1];
	starpu_memchunk_tidy(STARPU_MAIN_RAM);
	for (int i = 0; i < N; i++)
	{
		starpu_vector_data_register(&h[i], -1, 0, ELEMS, sizeof(int));
		CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, (void *) (intptr_t) i, h[i]), 0);
		starpu_task_wait_for_all();
	}
	/* RAM is full; h[0] is the least recently used, h[5] is marked. */
	starpu_data_wont_use(h[5]);
	starpu_vector_data_register(&h[N], -1, 0, ELEMS, sizeof(int));
	CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, (void *) (intptr_t) N, h[N]), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(starpu_data_is_on_node(h[5], STARPU_MAIN_RAM), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h[5], (unsigned) disk_node), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h[N], STARPU_MAIN_RAM), 0);

	/* h[5] is only on the disk: to a second disk it goes through RAM
	 * (two disks cannot copy directly). */
	char dir2[] = "/tmp/vela-test-disk2-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir2));
	int disk2 = starpu_disk_register(&starpu_disk_unistd_ops, dir2, 64 * MIB);
	CU_ASSERT_FATAL(disk2 > disk_node);
	/* The handles predate that disk: their replicate there is made when
	 * it is added, shaped like the data, without a buffer. */
	struct starpu_vector_interface *there = starpu_data_get_interface_on_node(h[5], (unsigned) disk2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(there);
	CU_ASSERT_EQUAL(there->nx, ELEMS);
	CU_ASSERT_EQUAL(there->elemsize, sizeof(int));
	CU_ASSERT_EQUAL(there->ptr, 0);
	CU_ASSERT_EQUAL(starpu_data_is_on_node(h[5], (unsigned) disk2), 0);
	CU_ASSERT_EQUAL(starpu_data_fetch_on_node(h[5], (unsigned) disk2, 0), 0);
	CU_ASSERT_NOT_EQUAL(there->ptr, 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h[5], (unsigned) disk2), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h[5], STARPU_MAIN_RAM), 0);
	rmdir(dir2);	/* its swap file is already unlinked */

	int bad = 0;
	for (int i = 0; i <= N; i++)
		bad += !check_vector(h[i], i, 0);
	CU_ASSERT_EQUAL(bad, 0);
	for (int i = 0; i <= N; i++)
		starpu_data_unregister(h[i]);
}

static void test_fetch_prefetch_to_disk(void)
{
	static int a[1000], b[1000], c[1000];
	for (int i = 0; i < 1000; i++)
		a[i] = b[i] = c[i] = i;
	starpu_data_handle_t ha, hb, hc;
	starpu_vector_data_register(&ha, STARPU_MAIN_RAM, (uintptr_t) a, 1000, sizeof(int));
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t) b, 1000, sizeof(int));
	starpu_vector_data_register(&hc, STARPU_MAIN_RAM, (uintptr_t) c, 1000, sizeof(int));
	unsigned disk = (unsigned) disk_node;
	CU_ASSERT_EQUAL(starpu_data_is_on_node(ha, disk), 0);
	CU_ASSERT_EQUAL(starpu_data_fetch_on_node(ha, disk, 0), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(ha, disk), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(ha, STARPU_MAIN_RAM), 0);
	CU_ASSERT_EQUAL(starpu_data_prefetch_on_node(hb, disk, 1), 0);
	CU_ASSERT_EQUAL(starpu_data_idle_prefetch_on_node(hc, disk, 1), 0);
	int done = 0;
	for (int i = 0; i < 5000 && !done; i++)
	{
		done = starpu_data_is_on_node(hb, disk) && starpu_data_is_on_node(hc, disk);
		if (!done)
			vtest_sleep_ms(1);
	}
	CU_ASSERT(done);
	if (!done)
	{
		int al, va, rq;
		starpu_data_query_status(hb, disk_node, &al, &va, &rq);
		fprintf(stderr, "DEBUG avail disk %zd ram %zd: hb alloc %d valid %d req %d\n", starpu_memory_get_available(disk), starpu_memory_get_available(0), al, va, rq);
	}
	/* A write in RAM makes the disk copies stale. */
	CU_ASSERT_EQUAL_FATAL(submit1(&add1_cl, NULL, ha), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(starpu_data_is_on_node(ha, disk), 0);
	int allocated = 0, valid = 1, requested = 1;
	starpu_data_query_status(ha, disk_node, &allocated, &valid, &requested);
	CU_ASSERT_EQUAL(allocated, 1);	/* the buffer stays for reuse */
	CU_ASSERT_EQUAL(valid, 0);
	CU_ASSERT_EQUAL(requested, 0);
	starpu_data_unregister(ha);
	starpu_data_unregister(hb);
	starpu_data_unregister(hc);
	CU_ASSERT_EQUAL(a[999], 1000);

	/* Allocation only. */
	starpu_data_handle_t hd;
	starpu_vector_data_register(&hd, -1, 0, 4096, sizeof(int));
	CU_ASSERT_EQUAL(starpu_data_test_if_allocated_on_node(hd, disk), 0);
	CU_ASSERT_EQUAL(starpu_data_request_allocation(hd, disk), 0);
	CU_ASSERT_EQUAL(starpu_data_test_if_allocated_on_node(hd, disk), 1);
	CU_ASSERT_EQUAL(starpu_data_is_on_node(hd, disk), 0);
	starpu_data_unregister(hd);
}

/* A prefetch runs while the application writes the data (acquired in W
 * mode): it must not copy the half-written content out and publish it as
 * a valid copy on the disk (the prefetch is given up), and a prefetch
 * after the release brings the written content. */
static void test_prefetch_while_written(void)
{
	static int v[1000];
	for (int i = 0; i < 1000; i++)
		v[i] = i;
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, 1000, sizeof(int));
	unsigned disk = (unsigned) disk_node;
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_W), 0);
	for (int i = 0; i < 500; i++)
		v[i] = -1;	/* half written */
	CU_ASSERT_EQUAL(starpu_data_prefetch_on_node(h, disk, 1), 0);
	/* An idle worker runs the request (requested drops to 0); give a
	 * copy, if one was made, time to end. */
	int allocated = 0, valid = 0, requested = 1;
	for (int i = 0; i < 5000 && requested; i++)
	{
		starpu_data_query_status(h, disk_node, &allocated, &valid, &requested);
		if (requested)
			vtest_sleep_ms(1);
	}
	CU_ASSERT_EQUAL(requested, 0);
	for (int i = 0; i < 100 && !valid; i++)
	{
		vtest_sleep_ms(1);
		starpu_data_query_status(h, disk_node, &allocated, &valid, &requested);
	}
	CU_ASSERT_EQUAL(valid, 0);
	for (int i = 500; i < 1000; i++)
		v[i] = -1;
	starpu_data_release(h);
	CU_ASSERT_EQUAL(starpu_data_is_on_node(h, disk), 0);

	/* Written, then prefetched: the disk copy is the written one. */
	CU_ASSERT_EQUAL(starpu_data_prefetch_on_node(h, disk, 0), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h, disk), 0);
	CU_ASSERT_EQUAL_FATAL(submit1(&add1_cl, NULL, h), 0);	/* RAM: -1 + 1 */
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(starpu_data_is_on_node(h, disk), 0);
	/* The task's write is over: a prefetch copies again. */
	CU_ASSERT_EQUAL(starpu_data_prefetch_on_node(h, disk, 1), 0);
	for (int i = 0; i < 5000 && !starpu_data_is_on_node(h, disk); i++)
		vtest_sleep_ms(1);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h, disk), 0);
	starpu_data_unregister(h);
	int bad = 0;
	for (int i = 0; i < 1000; i++)
		bad += v[i] != 0;
	CU_ASSERT_EQUAL(bad, 0);
}

static void test_write_through(void)
{
	static int v[1000];
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, 1000, sizeof(int));
	starpu_data_set_wt_mask(h, 1u << disk_node);
	CU_ASSERT_EQUAL_FATAL(submit1(&add1_cl, NULL, h), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h, (unsigned) disk_node), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h, STARPU_MAIN_RAM), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(v[10], 1);
}

static void test_invalidate(void)
{
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, -1, 0, 1000, sizeof(int));
	CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, (void *) (intptr_t) 5, h), 0);
	CU_ASSERT_EQUAL(starpu_data_fetch_on_node(h, (unsigned) disk_node, 0), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h, STARPU_MAIN_RAM), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h, (unsigned) disk_node), 0);
	starpu_data_invalidate(h);
	CU_ASSERT_EQUAL(starpu_data_is_on_node(h, STARPU_MAIN_RAM), 0);
	CU_ASSERT_EQUAL(starpu_data_is_on_node(h, (unsigned) disk_node), 0);
	/* Written again, it is valid again. */
	CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, (void *) (intptr_t) 6, h), 0);
	CU_ASSERT(check_vector(h, 6, 0));
	/* invalidate_submit comes after the tasks submitted before it. */
	CU_ASSERT_EQUAL_FATAL(submit1(&add1_cl, NULL, h), 0);
	starpu_data_invalidate_submit(h);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(starpu_data_is_on_node(h, STARPU_MAIN_RAM), 0);
	starpu_data_unregister(h);
}

static void test_memory_accounting(void)
{
	CU_ASSERT_EQUAL(starpu_memory_get_total(STARPU_MAIN_RAM), (ssize_t) LIMIT_MIB * MIB);
	CU_ASSERT_EQUAL(starpu_memory_get_total((unsigned) disk_node), (ssize_t) DISK_SIZE);
	CU_ASSERT(starpu_memory_get_total_all_nodes() >= (ssize_t) LIMIT_MIB * MIB + DISK_SIZE);
	starpu_memchunk_tidy(STARPU_MAIN_RAM);
	ssize_t before = starpu_memory_get_available(STARPU_MAIN_RAM);
	CU_ASSERT(before > 0 && before <= (ssize_t) LIMIT_MIB * MIB);
	void *p = NULL;
	CU_ASSERT_EQUAL_FATAL(starpu_malloc_flags(&p, MIB, STARPU_MALLOC_COUNT), 0);
	CU_ASSERT_PTR_NOT_NULL(p);
	CU_ASSERT_EQUAL(starpu_memory_get_available(STARPU_MAIN_RAM), before - MIB);
	CU_ASSERT_EQUAL(starpu_free_flags(p, MIB, STARPU_MALLOC_COUNT), 0);
	CU_ASSERT_EQUAL(starpu_memory_get_available(STARPU_MAIN_RAM), before);
	/* More than the node can ever hold. */
	CU_ASSERT_EQUAL(starpu_memory_allocate(STARPU_MAIN_RAM, 2 * LIMIT_MIB * MIB, 0), -ENOMEM);
	CU_ASSERT_EQUAL(starpu_memory_get_available(STARPU_MAIN_RAM), before);
	CU_ASSERT_EQUAL(starpu_memory_allocate(STARPU_MAIN_RAM, MIB, 0), 0);
	starpu_memory_deallocate(STARPU_MAIN_RAM, MIB);
	/* Pinning application memory is accepted. */
	static char buf[4096];
	CU_ASSERT_EQUAL(starpu_memory_pin(buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(starpu_memory_unpin(buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_malloc(&p, 1000), 0);
	CU_ASSERT_EQUAL(starpu_free(p), 0);
}

static void test_ptr_register_and_same(void)
{
	static int mine[500];
	starpu_data_handle_t h, same;
	starpu_vector_data_register(&h, -1, 0, 500, sizeof(int));
	starpu_vector_ptr_register(h, STARPU_MAIN_RAM, (uintptr_t) mine, (uintptr_t) mine, 0);
	CU_ASSERT_EQUAL(starpu_data_test_if_allocated_on_node(h, STARPU_MAIN_RAM), 1);
	/* The task writes into the application's buffer. */
	CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, (void *) (intptr_t) 3, h), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(mine[0], 3);
	CU_ASSERT_EQUAL(mine[499], 502);
	/* A second buffer for the same node is refused. */
	vtest_capture_stderr_begin();
	starpu_vector_ptr_register(h, STARPU_MAIN_RAM, (uintptr_t) 0x1000, (uintptr_t) 0x1000, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(vtest_capture_stderr_end(), "already has a buffer"));
	CU_ASSERT_EQUAL(starpu_vector_get_local_ptr(h), (uintptr_t) mine);

	starpu_data_register_same(&same, h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(same);
	CU_ASSERT_EQUAL(starpu_vector_get_nx(same), 500);
	CU_ASSERT_EQUAL(starpu_data_test_if_allocated_on_node(same, STARPU_MAIN_RAM), 0);
	CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, (void *) (intptr_t) 9, same), 0);
	CU_ASSERT(check_vector(same, 9, 0));
	CU_ASSERT(check_vector(h, 3, 0));
	starpu_data_unregister(same);
	starpu_data_unregister(h);
}

/* Tasks each pinning 3 x 2 MiB on a node of 8 MiB, two at a time: they
 * cannot all hold their data together, and must take turns. */
static struct starpu_codelet add1x3_cl = {
	.cpu_funcs = { add1_cpu }, .nbuffers = 3, .modes = { STARPU_RW, STARPU_RW, STARPU_RW }, .name = "add1x3",
};

static void test_full_of_pinned_data(void)
{
	enum { N = 8, NT = 24 };
	starpu_data_handle_t h[N];
	int count[N] = { 0 };
	for (int i = 0; i < N; i++)
	{
		starpu_vector_data_register(&h[i], -1, 0, 2 * ELEMS, sizeof(int));
		CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, (void *) (intptr_t) (i * 7), h[i]), 0);
	}
	unsigned seed = 4242;
	for (int t = 0; t < NT; t++)
	{
		int idx[3];
		for (int k = 0; k < 3; k++)
		{
			int again;
			do
			{
				seed = seed * 1103515245u + 12345u;
				idx[k] = (int) (seed >> 16) % N;
				again = 0;
				for (int j = 0; j < k; j++)
					again |= idx[j] == idx[k];
			} while (again);
			count[idx[k]]++;
		}
		struct starpu_task *task = starpu_task_create();
		task->cl = &add1x3_cl;
		for (int k = 0; k < 3; k++)
			task->handles[k] = h[idx[k]];
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(task), 0);
	}
	starpu_task_wait_for_all();
	int bad = 0;
	for (int i = 0; i < N; i++)
		bad += !check_vector(h[i], i * 7, count[i]);
	CU_ASSERT_EQUAL(bad, 0);
	for (int i = 0; i < N; i++)
		starpu_data_unregister(h[i]);
}

static void test_datum_larger_than_ram(void)
{
	/* 16 MiB can never fit in 8: a clear error, not a hang. */
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, -1, 0, 16 * ELEMS, sizeof(int));
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, NULL, h), 0);
	starpu_task_wait_for_all();
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), -ENOMEM);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "can never fit"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not executed"));
	/* The rest of the runtime goes on. */
	starpu_data_unregister(h);
	starpu_data_handle_t ok;
	starpu_vector_data_register(&ok, -1, 0, ELEMS, sizeof(int));
	CU_ASSERT_EQUAL_FATAL(submit1(&fill_cl, (void *) (intptr_t) 1, ok), 0);
	CU_ASSERT(check_vector(ok, 1, 0));
	starpu_data_unregister(ok);
}

static const struct vtest_case cases[] =
{
	{ "out_of_core_roundtrip", test_out_of_core_roundtrip },
	{ "wont_use_evicted_first", test_wont_use_evicted_first },
	{ "fetch_prefetch_to_disk", test_fetch_prefetch_to_disk },
	{ "prefetch_while_written", test_prefetch_while_written },
	{ "write_through", test_write_through },
	{ "invalidate", test_invalidate },
	{ "memory_accounting", test_memory_accounting },
	{ "ptr_register_and_same", test_ptr_register_and_same },
	{ "full_of_pinned_data", test_full_of_pinned_data },
	{ "datum_larger_than_ram", test_datum_larger_than_ram },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "coherency", suite_init, suite_clean, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
