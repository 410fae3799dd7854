/* test_data_faults.c — the data layer under faults: failed allocations,
 * failed copies (reads from the swap disk) and failed disk writes (the
 * write-back of an eviction), injected by a shim around the memory nodes'
 * drivers (the SQLite testvfs idea, as tests/core/test_os_faults.c does for
 * the OS seam): after starpu_init each node's struct drv_node_ops is
 * replaced by a copy whose malloc/copy fail on demand and otherwise call
 * the real driver. Nothing in the runtime knows about it.
 *
 * The kinds: a failed allocation in RAM (once: retried unnoticed; always:
 * -ENOMEM), a failed copy in RAM (starpu_data_cpy: -EIO), a failed read
 * from the swap disk (-EIO), a failed write to it while evicting (-ENOMEM,
 * saying the write-back failed).
 * What must hold for each kind of fault: the task that needed the memory
 * or the copy fails with the documented error (starpu_task_wait and
 * vela_task_get_error), a message names the task, the data and the node,
 * the run ends, and every datum is byte-exact afterwards — the ones the
 * failed tasks would have written keep their previous content.
 * Internal: links libvela-internal to reach the node table.
 */
#include <starpu.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "vtest.h"
#include "data/memory.h"
#include "drivers/driver.h"

/* ------------------------------------------------------------------ */
/* The shim. */

enum fault { F_NONE, F_ALLOC, F_DISK_READ, F_DISK_WRITE, F_RAM_COPY };

static _Atomic int fault = F_NONE;	/* what fails */
static _Atomic long fault_skip;		/* calls of that kind that succeed first */
static _Atomic long fault_left;		/* then, calls that fail (-1: all) */
static _Atomic long nfaults;		/* calls that failed */

static const struct drv_node_ops *real_ops[STARPU_MAXNODES];
static struct drv_node_ops shim_ops[STARPU_MAXNODES];
static unsigned nshimmed;

static void arm(enum fault f, long skip, long count)
{
	atomic_store(&fault_skip, skip);
	atomic_store(&fault_left, count);
	atomic_store(&nfaults, 0);
	atomic_store(&fault, f);
}

static void disarm(void)
{
	atomic_store(&fault, F_NONE);
}

/* Whether this call of kind f fails. */
static int fails(enum fault f)
{
	if (atomic_load(&fault) != f)
		return 0;
	if (atomic_fetch_sub(&fault_skip, 1) > 0)
		return 0;
	long left = atomic_load(&fault_left);
	while (left != 0)
	{
		if (left < 0 || atomic_compare_exchange_weak(&fault_left, &left, left - 1))
		{
			atomic_fetch_add(&nfaults, 1);
			return 1;
		}
	}
	return 0;
}

static uintptr_t shim_malloc(unsigned node, size_t size, int flags)
{
	if (mem_nodes[node].kind == STARPU_CPU_RAM && fails(F_ALLOC))
		return 0;
	return real_ops[node]->malloc(node, size, flags);
}

/* The kind of a copy between src and dst, from the nodes' kinds. */
static enum fault copy_kind(unsigned src, unsigned dst)
{
	if (mem_nodes[dst].kind == STARPU_DISK_RAM)
		return F_DISK_WRITE;
	if (mem_nodes[src].kind == STARPU_DISK_RAM)
		return F_DISK_READ;
	return F_RAM_COPY;
}

/* The real driver of a copy: the one of the node that is not RAM, as
 * data/memory.c picks it. */
static const struct drv_node_ops *real_copy_ops(unsigned src, unsigned dst)
{
	return real_ops[mem_nodes[dst].kind != STARPU_CPU_RAM ? dst : src];
}

static int shim_copy(uintptr_t src, size_t src_offset, unsigned src_node,
		     uintptr_t dst, size_t dst_offset, unsigned dst_node, size_t size, void *async)
{
	if (fails(copy_kind(src_node, dst_node)))
		return -EIO;
	return real_copy_ops(src_node, dst_node)->copy(src, src_offset, src_node, dst, dst_offset, dst_node, size, async);
}

static int shim_copy2d(uintptr_t src, size_t src_offset, unsigned src_node,
		       uintptr_t dst, size_t dst_offset, unsigned dst_node,
		       size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst, void *async)
{
	if (fails(copy_kind(src_node, dst_node)))
		return -EIO;
	return real_copy_ops(src_node, dst_node)->copy2d(src, src_offset, src_node, dst, dst_offset, dst_node,
							  blocksize, numblocks, ld_src, ld_dst, async);
}

/* Before any data uses the nodes (the runtime has no task yet). */
static void shim_install(void)
{
	nshimmed = mem_nnodes;
	for (unsigned n = 0; n < nshimmed; n++)
	{
		real_ops[n] = mem_nodes[n].ops;
		shim_ops[n] = *real_ops[n];
		shim_ops[n].malloc = shim_malloc;
		shim_ops[n].copy = shim_copy;
		if (real_ops[n]->copy2d)
			shim_ops[n].copy2d = shim_copy2d;
		mem_nodes[n].ops = &shim_ops[n];
	}
}

static void shim_remove(void)
{
	disarm();
	for (unsigned n = 0; n < nshimmed; n++)
		mem_nodes[n].ops = real_ops[n];
	nshimmed = 0;
}

/* ------------------------------------------------------------------ */
/* Data: NV vectors of NE values, allocated by the runtime (home -1). */

#define NV 8
static size_t NE;			/* values per vector */
static starpu_data_handle_t vec[NV];
static uint64_t *expect[NV];		/* what each vector must hold */
static int written[NV];
static char swapdir[64];

static uint64_t pattern(unsigned v, unsigned gen, size_t e)
{
	return ((uint64_t) v << 48) ^ ((uint64_t) gen << 32) ^ (e * 2654435761u);
}

static void fill_cpu(void *buffers[], void *arg)
{
	uintptr_t a = (uintptr_t) arg;
	uint64_t *x = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (size_t e = 0; e < STARPU_VECTOR_GET_NX(buffers[0]); e++)
		x[e] = pattern((unsigned) (a >> 16), (unsigned) (a & 0xffff), e);
}

static void bump_cpu(void *buffers[], void *arg)
{
	(void) arg;
	uint64_t *x = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (size_t e = 0; e < STARPU_VECTOR_GET_NX(buffers[0]); e++)
		x[e] = x[e] * 3 + 1;
}

static struct starpu_codelet fill_cl = { .cpu_funcs = { fill_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "fault_fill" };
static struct starpu_codelet bump_cl = { .cpu_funcs = { bump_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "fault_bump" };

/* Starts the runtime on 2 CPU workers, RAM limited to limit_mib (with a
 * swap disk) or not (limit_mib < 0), with the shim installed. */
static int start(long limit_mib, size_t ne)
{
	NE = ne;
	if (limit_mib >= 0)
	{
		char v[32];
		snprintf(v, sizeof(v), "%ld", limit_mib);
		snprintf(swapdir, sizeof(swapdir), "/tmp/vela-faults.XXXXXX");
		if (!mkdtemp(swapdir))
			return -1;
		vtest_setenv("STARPU_LIMIT_CPU_MEM", v);
		vtest_setenv("STARPU_DISK_SWAP", swapdir);
	}
	else
	{
		swapdir[0] = 0;
		vtest_setenv("STARPU_LIMIT_CPU_MEM", NULL);
		vtest_setenv("STARPU_DISK_SWAP", NULL);
	}
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 2;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.sched_policy_name = "eager";
	int ret = starpu_init(&conf);
	vtest_env_restore();
	if (ret)
		return -1;
	shim_install();
	for (unsigned v = 0; v < NV; v++)
	{
		starpu_vector_data_register(&vec[v], -1, 0, NE, sizeof(uint64_t));
		expect[v] = calloc(NE, sizeof(uint64_t));
		written[v] = 0;
	}
	return 0;
}

static void stop(void)
{
	disarm();
	for (unsigned v = 0; v < NV; v++)
	{
		starpu_data_unregister(vec[v]);
		free(expect[v]);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	shim_remove();
	starpu_shutdown();
	if (swapdir[0])
	{
		/* The swap file is unlinked at once: nothing is left behind. */
		CU_ASSERT_EQUAL(rmdir(swapdir), 0);
		swapdir[0] = 0;
	}
}

/* Submits cl on vector v (fill: generation gen) and waits for it; returns
 * what starpu_task_wait returned, after checking vela_task_get_error says
 * the same. The model of the data follows only when the task succeeded. */
static int run_on(struct starpu_codelet *cl, unsigned v, unsigned gen)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->handles[0] = vec[v];
	t->cl_arg = (void *) (((uintptr_t) v << 16) | gen);
	t->destroy = 0;
	t->detach = 0;
	int ret = starpu_task_submit(t);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	ret = starpu_task_wait(t);
	CU_ASSERT_EQUAL(vela_task_get_error(t), ret);
	starpu_task_destroy(t);
	if (ret == 0)
	{
		for (size_t e = 0; e < NE; e++)
			expect[v][e] = cl == &fill_cl ? pattern(v, gen, e) : expect[v][e] * 3 + 1;
		written[v] = 1;
	}
	return ret;
}

/* Every vector written so far holds exactly what the tasks that succeeded
 * made of it (faults off: this reads back from the disk too). */
static void check_all(void)
{
	for (unsigned v = 0; v < NV; v++)
	{
		if (!written[v])
			continue;
		CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(vec[v], STARPU_R), 0);
		const uint64_t *x = (const uint64_t *) starpu_vector_get_local_ptr(vec[v]);
		CU_ASSERT_PTR_NOT_NULL(x);
		if (x && memcmp(x, expect[v], NE * sizeof(uint64_t)) != 0)
		{
			fprintf(stderr, "vector %u differs from what the successful tasks wrote\n", v);
			CU_FAIL("a datum was corrupted");
		}
		starpu_data_release(vec[v]);
	}
}

/* ------------------------------------------------------------------ */
/* Failed allocation. */

static void test_alloc_fails(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, 512), 0);
	for (unsigned v = 0; v < 4; v++)
		CU_ASSERT_EQUAL(run_on(&fill_cl, v, 1), 0);

	/* One failed allocation: the runtime frees what it can and tries
	 * again, and the task does not notice. */
	arm(F_ALLOC, 0, 1);
	CU_ASSERT_EQUAL(run_on(&fill_cl, 4, 1), 0);
	CU_ASSERT_EQUAL(atomic_load(&nfaults), 1);

	/* Every allocation fails (the system is out of memory): a task
	 * needing a new buffer fails with -ENOMEM, saying which task, data
	 * and node; a task on data already there still runs. */
	arm(F_ALLOC, 0, -1);
	vtest_capture_stderr_begin();
	int ret = run_on(&fill_cl, 5, 1);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -ENOMEM);
	CU_ASSERT(atomic_load(&nfaults) >= 1);
	CU_ASSERT(strstr(msg, "task 'fault_fill'") != NULL);
	CU_ASSERT(strstr(msg, "memory node 0 (RAM 0): its allocator failed") != NULL);
	CU_ASSERT(strstr(msg, "data ") != NULL);
	CU_ASSERT_EQUAL(run_on(&bump_cl, 0, 0), 0);
	CU_ASSERT_EQUAL(run_on(&bump_cl, 4, 0), 0);
	disarm();

	check_all();
	/* Memory is back: the same task succeeds. */
	CU_ASSERT_EQUAL(run_on(&fill_cl, 5, 2), 0);
	check_all();
	CU_ASSERT(vela_task_failed_count() >= 1);
	stop();
}

/* Failed copy in RAM: starpu_data_cpy's copy fails. The call returns the
 * error (it is synchronous), the task's error says it, and the destination
 * keeps what it held. */
static void test_ram_copy_fails(void)
{
	CU_ASSERT_EQUAL_FATAL(start(-1, 512), 0);
	CU_ASSERT_EQUAL(run_on(&fill_cl, 0, 1), 0);
	CU_ASSERT_EQUAL(run_on(&fill_cl, 1, 1), 0);
	unsigned long failed_before = vela_task_failed_count();

	arm(F_RAM_COPY, 0, -1);
	vtest_capture_stderr_begin();
	int ret = starpu_data_cpy(vec[1], vec[0], 0, NULL, NULL);
	const char *msg = vtest_capture_stderr_end();
	disarm();
	CU_ASSERT_EQUAL(ret, -EIO);
	CU_ASSERT_EQUAL(atomic_load(&nfaults), 1);
	CU_ASSERT(strstr(msg, "starpu_data_cpy") != NULL);
	CU_ASSERT(strstr(msg, "memory node 0") != NULL);
	CU_ASSERT_EQUAL(vela_task_failed_count(), failed_before + 1);
	check_all();

	/* The copy works again. */
	CU_ASSERT_EQUAL(starpu_data_cpy(vec[1], vec[0], 0, NULL, NULL), 0);
	memcpy(expect[1], expect[0], NE * sizeof(uint64_t));
	check_all();
	stop();
}

/* ------------------------------------------------------------------ */
/* Out of core: RAM limited to 1 MiB, vectors of 256 KiB. */

#define OOC_NE (32768)			/* 256 KiB */

/* Failed disk write: evicting to the swap disk fails, so the data must
 * stay in RAM and the task that wanted the room fails. */
static void test_disk_write_fails(void)
{
	CU_ASSERT_EQUAL_FATAL(start(1, OOC_NE), 0);
	for (unsigned v = 0; v < 4; v++)
		CU_ASSERT_EQUAL(run_on(&fill_cl, v, 1), 0);

	arm(F_DISK_WRITE, 0, -1);
	vtest_capture_stderr_begin();
	int ret = run_on(&fill_cl, 4, 1);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -ENOMEM);
	CU_ASSERT(atomic_load(&nfaults) >= 1);
	CU_ASSERT(strstr(msg, "task 'fault_fill'") != NULL);
	CU_ASSERT(strstr(msg, "cannot be allocated on memory node 0 (RAM 0)") != NULL);
	CU_ASSERT(strstr(msg, "writing it back to the swap disk failed (-5)") != NULL);
	/* Said once, not once per write-back tried. */
	int lines = 0;
	for (const char *p = msg; (p = strstr(p, "[vela] error:")); p++)
		lines++;
	CU_ASSERT(lines <= 2);
	/* Data in RAM is still usable meanwhile. */
	CU_ASSERT_EQUAL(run_on(&bump_cl, 1, 0), 0);
	disarm();

	check_all();
	/* The disk works again: the data goes there, and comes back exact. */
	for (unsigned v = 4; v < NV; v++)
		CU_ASSERT_EQUAL(run_on(&fill_cl, v, 2), 0);
	for (unsigned v = 0; v < NV; v++)
		CU_ASSERT_EQUAL(run_on(&bump_cl, v, 0), 0);
	check_all();
	stop();
}

/* Failed copy: reading evicted data back from the swap disk fails. The
 * task needing it fails with -EIO; the copy on the disk is still the data. */
static void test_disk_read_fails(void)
{
	CU_ASSERT_EQUAL_FATAL(start(1, OOC_NE), 0);
	/* 2 MiB of data under 1 MiB: the first ones go to the disk. */
	for (unsigned v = 0; v < NV; v++)
		CU_ASSERT_EQUAL(run_on(&fill_cl, v, 1), 0);

	arm(F_DISK_READ, 0, -1);
	int failed = 0, ok = 0;
	for (unsigned v = 0; v < NV; v++)
	{
		vtest_capture_stderr_begin();
		int ret = run_on(&bump_cl, v, 0);
		const char *msg = vtest_capture_stderr_end();
		if (ret == 0)
		{
			ok++;
			continue;
		}
		failed++;
		CU_ASSERT_EQUAL(ret, -EIO);
		/* The first failure prints the cause; later ones are counted. */
		if (failed == 1)
		{
			CU_ASSERT(strstr(msg, "task 'fault_bump'") != NULL);
			CU_ASSERT(strstr(msg, "copy from memory node 1 (") != NULL);
			CU_ASSERT(strstr(msg, "data ") != NULL);
		}
	}
	disarm();
	CU_ASSERT(failed >= 1);
	CU_ASSERT(ok >= 1);
	CU_ASSERT(atomic_load(&nfaults) >= (long) failed);
	check_all();
	stop();
}

/* Failed read at a fold: reduction contributions spilled to the swap disk
 * (they outgrow the RAM limit while at rest) cannot be read back when the
 * next reader brings the fold in. The data then misses a contribution: the
 * fold job must fail (counted, reported), never leave a silently wrong
 * value behind. */
static void add_cpu(void *buffers[], void *arg)
{
	(void) arg;
	uint64_t *x = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (size_t e = 0; e < STARPU_VECTOR_GET_NX(buffers[0]); e++)
		x[e] += 1;
}

static void zero_cpu(void *buffers[], void *arg)
{
	(void) arg;
	memset((void *) STARPU_VECTOR_GET_PTR(buffers[0]), 0, STARPU_VECTOR_GET_NX(buffers[0]) * sizeof(uint64_t));
}

static void sum_cpu(void *buffers[], void *arg)
{
	(void) arg;
	uint64_t *x = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	const uint64_t *y = (const uint64_t *) STARPU_VECTOR_GET_PTR(buffers[1]);
	for (size_t e = 0; e < STARPU_VECTOR_GET_NX(buffers[0]); e++)
		x[e] += y[e];
}

static struct starpu_codelet add_cl = { .cpu_funcs = { add_cpu }, .nbuffers = 1, .modes = { STARPU_REDUX }, .name = "fault_add" };
static struct starpu_codelet zero_cl = { .cpu_funcs = { zero_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "fault_zero" };
static struct starpu_codelet sum_cl = { .cpu_funcs = { sum_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R }, .name = "fault_sum" };

static void test_fold_read_fails(void)
{
	CU_ASSERT_EQUAL_FATAL(start(1, OOC_NE), 0);
	for (unsigned v = 0; v < NV; v++)
		CU_ASSERT_EQUAL(run_on(&fill_cl, v, 1), 0);
	/* Contributions of 8 handles on 2 workers: up to 4 MiB at rest. */
	enum { NADD = 4 };
	for (unsigned v = 0; v < NV; v++)
	{
		starpu_data_set_reduction_methods(vec[v], &sum_cl, &zero_cl);
		for (int k = 0; k < NADD; k++)
			CU_ASSERT_EQUAL(starpu_task_insert(&add_cl, STARPU_REDUX, vec[v], 0), 0);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	/* Per reader, the first read from the disk succeeds (the data itself,
	 * evicted before any contribution was spilled), the next ones fail
	 * (its contributions on the disk). */
	vtest_capture_stderr_begin();
	int exact = 0, silent = 0;
	long nf = 0;
	for (unsigned v = 0; v < NV; v++)
	{
		unsigned long before = vela_task_failed_count();
		arm(F_DISK_READ, 1, -1);
		int ret = starpu_data_acquire(vec[v], STARPU_R);
		nf += atomic_load(&nfaults);
		disarm();
		int ok = 0;
		if (ret == 0)
		{
			const uint64_t *x = (const uint64_t *) starpu_vector_get_local_ptr(vec[v]);
			ok = x != NULL;
			for (size_t e = 0; ok && e < NE; e++)
				ok = x[e] == pattern(v, 1, e) + NADD;
			starpu_data_release(vec[v]);
		}
		exact += ok;
		/* A value that misses something must come with a failed task
		 * (the fold's) or a failed acquisition. */
		if (!ok && ret == 0 && vela_task_failed_count() == before)
			silent++;
	}
	const char *err = vtest_capture_stderr_end();
	/* The faults hit: some reads failed, and a fold lost a contribution. */
	CU_ASSERT(nf >= 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "could not be folded"));
	CU_ASSERT(exact < (int) NV);
	CU_ASSERT_EQUAL(silent, 0);
	for (unsigned v = 0; v < NV; v++)
		written[v] = 0;	/* their values are the faults' */
	stop();
}

static const struct vtest_case cases[] =
{
	{ "alloc_fails", test_alloc_fails },
	{ "ram_copy_fails", test_ram_copy_fails },
	{ "disk_write_fails", test_disk_write_fails },
	{ "disk_read_fails", test_disk_read_fails },
	{ "fold_read_fails", test_fold_read_fails },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "data_faults", NULL, NULL, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
