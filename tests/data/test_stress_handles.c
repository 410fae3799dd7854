/* test_stress_handles: 10,000 handles, tasks with random handles and random
 * access modes (R, W, RW, commuting RW, REDUX), and the final contents
 * compared with a sequential execution of the same tasks.
 *
 * Each task reads its R and RW buffers, then updates its written ones:
 * W overwrites, RW mixes in what was read (so any reordering changes the
 * result), commuting RW and REDUX add a constant (order-free, as their
 * semantics allow). Arithmetic wraps in 64 bits, so the comparison is
 * exact.
 *
 * Two runs: 1-element vectors in application memory, and 512-element
 * vectors allocated by the runtime under a RAM limit with a disk, so that
 * the same workload also goes through eviction and reloading.
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

#define NH 10000
#define MAXB 4

enum op
{
	OP_R, OP_W, OP_RW, OP_COMMUTE, OP_REDUX, NOPS
};

static const enum starpu_data_access_mode op_mode[NOPS] = {
	STARPU_R, STARPU_W, STARPU_RW, STARPU_RW | STARPU_COMMUTE, STARPU_REDUX
};

struct task_desc
{
	uint64_t id;
	int n;
	int h[MAXB];
	enum op op[MAXB];
};

static unsigned elems;			/* vector length of this run */
static starpu_data_handle_t handles[NH];
static uint64_t *reference;		/* [NH * elems] */
static char disk_dir[64];
static int on_disk;			/* handles found on the disk after the run */

/* What a task does to element j of its buffers. */
static void apply(const struct task_desc *t, uint64_t *v[MAXB], unsigned j)
{
	uint64_t s = t->id;
	for (int b = 0; b < t->n; b++)
		if (t->op[b] == OP_R || t->op[b] == OP_RW)
			s = s * 1000003u + v[b][j];
	for (int b = 0; b < t->n; b++)
		switch (t->op[b])
		{
		case OP_W:
			v[b][j] = t->id * 2654435761u + j;
			break;
		case OP_RW:
			v[b][j] = v[b][j] * 3 + s;
			break;
		case OP_COMMUTE:
		case OP_REDUX:
			v[b][j] += t->id + j;
			break;
		default:
			break;
		}
}

static void task_cpu(void *buffers[], void *cl_arg)
{
	const struct task_desc *t = cl_arg;
	uint64_t *v[MAXB];
	for (int b = 0; b < t->n; b++)
		v[b] = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[b]);
	for (unsigned j = 0; j < elems; j++)
		apply(t, v, j);
}

static struct starpu_codelet task_cl = {
	.cpu_funcs = { task_cpu }, .nbuffers = STARPU_VARIABLE_NBUFFERS, .name = "stress",
};

static void zero_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	memset((void *) STARPU_VECTOR_GET_PTR(buffers[0]), 0, STARPU_VECTOR_GET_NX(buffers[0]) * sizeof(uint64_t));
}

static void add_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	uint64_t *a = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	const uint64_t *b = (const uint64_t *) STARPU_VECTOR_GET_PTR(buffers[1]);
	for (unsigned j = 0; j < STARPU_VECTOR_GET_NX(buffers[0]); j++)
		a[j] += b[j];
}

static void init_cpu(void *buffers[], void *cl_arg)
{
	uint64_t base = (uint64_t) (uintptr_t) cl_arg;
	uint64_t *a = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned j = 0; j < STARPU_VECTOR_GET_NX(buffers[0]); j++)
		a[j] = base * 7 + j;
}

static struct starpu_codelet zero_cl = { .cpu_funcs = { zero_cpu }, .nbuffers = 1, .modes = { STARPU_W } };
static struct starpu_codelet add_cl = { .cpu_funcs = { add_cpu }, .nbuffers = 2, .modes = { STARPU_RW, STARPU_R } };
static struct starpu_codelet init_cl = { .cpu_funcs = { init_cpu }, .nbuffers = 1, .modes = { STARPU_W } };

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	return remove(path);
}

static int init_small(void)
{
	elems = 1;
	return vtest_start_cpus(2);
}

static int init_ooc(void)
{
	elems = 512;	/* 4 KiB per handle, 40 MiB in all, through 16 MiB of RAM */
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "16");
	if (vtest_start_cpus(2))
		return -1;
	strcpy(disk_dir, "/tmp/vela-stress-XXXXXX");
	if (!mkdtemp(disk_dir))
		return -1;
	return starpu_disk_register(&starpu_disk_unistd_ops, disk_dir, 256 << 20) >= 0 ? 0 : -1;
}

static int clean(void)
{
	starpu_task_wait_for_all();
	starpu_shutdown();
	vtest_env_restore();
	if (disk_dir[0])
		nftw(disk_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	disk_dir[0] = 0;
	return 0;
}

/* Generates ntasks random tasks, runs them on the runtime and
 * sequentially, and compares. app_memory: the data lives in application
 * arrays (home node 0); else the runtime allocates it (home node -1). */
static void run(int ntasks, int app_memory)
{
	size_t total = (size_t) NH * elems;
	reference = malloc(total * sizeof(uint64_t));
	uint64_t *app = app_memory ? malloc(total * sizeof(uint64_t)) : NULL;
	struct task_desc *tasks = malloc((size_t) ntasks * sizeof(*tasks));
	CU_ASSERT_PTR_NOT_NULL_FATAL(reference);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tasks);
	for (int i = 0; i < NH; i++)
	{
		for (unsigned j = 0; j < elems; j++)
			reference[(size_t) i * elems + j] = (uint64_t) i * 7 + j;
		if (app_memory)
		{
			memcpy(&app[(size_t) i * elems], &reference[(size_t) i * elems], elems * sizeof(uint64_t));
			starpu_vector_data_register(&handles[i], STARPU_MAIN_RAM, (uintptr_t) &app[(size_t) i * elems], elems, sizeof(uint64_t));
		}
		else
		{
			starpu_vector_data_register(&handles[i], -1, 0, elems, sizeof(uint64_t));
			struct starpu_task *t = starpu_task_create();
			t->cl = &init_cl;
			t->cl_arg = (void *) (uintptr_t) i;
			t->handles[0] = handles[i];
			CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
		}
		starpu_data_set_reduction_methods(handles[i], &add_cl, &zero_cl);
	}

	unsigned seed = 20261121;
#define RND() (seed = seed * 1103515245u + 12345u, seed >> 8)
	for (int k = 0; k < ntasks; k++)
	{
		struct task_desc *d = &tasks[k];
		d->id = (uint64_t) k + 1;
		d->n = 1 + (int) (RND() % MAXB);
		for (int b = 0; b < d->n; b++)
		{
			int again;
			do
			{
				/* A hot set makes tasks meet on the same handles. */
				d->h[b] = RND() % 4 ? (int) (RND() % 64) : (int) (RND() % NH);
				again = 0;
				for (int c = 0; c < b; c++)
					again |= d->h[c] == d->h[b];
			} while (again);
			d->op[b] = (enum op) (RND() % NOPS);
		}
		struct starpu_task *t = starpu_task_create();
		t->cl = &task_cl;
		t->cl_arg = d;
		t->nbuffers = d->n;
		for (int b = 0; b < d->n; b++)
		{
			t->handles[b] = handles[d->h[b]];
			t->modes[b] = op_mode[d->op[b]];
		}
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);

		uint64_t *v[MAXB];
		for (int b = 0; b < d->n; b++)
			v[b] = &reference[(size_t) d->h[b] * elems];
		for (unsigned j = 0; j < elems; j++)
			apply(d, v, j);
	}
#undef RND
	starpu_task_wait_for_all();
	on_disk = 0;
	if (!app_memory)
		for (int i = 0; i < NH; i++)
			on_disk += starpu_data_is_on_node(handles[i], 1) != 0;

	int bad = 0;
	for (int i = 0; i < NH; i++)
	{
		if (app_memory)
		{
			starpu_data_unregister(handles[i]);
			bad += memcmp(&app[(size_t) i * elems], &reference[(size_t) i * elems], elems * sizeof(uint64_t)) != 0;
			continue;
		}
		if (starpu_data_acquire(handles[i], STARPU_R) == 0)
		{
			const uint64_t *p = (const uint64_t *) starpu_vector_get_local_ptr(handles[i]);
			bad += !p || memcmp(p, &reference[(size_t) i * elems], elems * sizeof(uint64_t)) != 0;
			starpu_data_release(handles[i]);
		}
		else
			bad++;
		starpu_data_unregister(handles[i]);
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(tasks);
	free(app);
	free(reference);
}

static void test_small_in_app_memory(void)
{
	run(100000, 1);
}

static void test_out_of_core(void)
{
	run(30000, 0);
	/* 40 MiB through 16: most of the data went to the disk (node 1). */
	CU_ASSERT(on_disk > NH / 2);
}

static const struct vtest_case small_cases[] = {
	{ "app_memory_random_modes_10000_handles", test_small_in_app_memory },
	VTEST_END
};

static const struct vtest_case ooc_cases[] = {
	{ "random_modes_10000_handles_out_of_core", test_out_of_core },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "stress_handles", init_small, clean, small_cases },
	{ "stress_handles_ooc", init_ooc, clean, ooc_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
