/* test_data_bad_input: misuse of the data API gets a clear one-line error
 * and the documented code, and loses nothing: the runtime and the other
 * handles go on working.
 *
 * Unregistering twice, using a handle after unregistering it, registering
 * a NULL buffer with a home node, elements of no size, a home node that does not exist, disks
 * that cannot be used (missing, not a directory, not writable, too small),
 * a reduction without reduction methods, acquiring on a node the
 * application cannot address, releasing what was not acquired,
 * unregistering acquired data, acquiring twice from one thread; malformed or unusable STARPU_LIMIT_CPU_MEM
 * and STARPU_DISK_SWAP* settings (and a working swap disk from them).
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vtest.h"

static int suite_init(void)
{
	return vtest_start_cpus(1);
}


static void inc_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	(*(int *) STARPU_VARIABLE_GET_PTR(buffers[0]))++;
}

static struct starpu_codelet inc_cl = {
	.cpu_funcs = { inc_cpu }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "inc",
};

static struct starpu_codelet redux_inc_cl = {
	.cpu_funcs = { inc_cpu }, .nbuffers = 1, .modes = { STARPU_REDUX }, .name = "redux_inc",
};

static int submit1(struct starpu_codelet *cl, starpu_data_handle_t h)
{
	struct starpu_task *t = starpu_task_create();
	t->cl = cl;
	t->handles[0] = h;
	int ret = starpu_task_submit(t);
	if (ret)
		starpu_task_destroy(t);
	return ret;
}

/* One line mentioning what (the offending argument). */
static void check_message(const char *err, const char *what)
{
	CU_ASSERT_PTR_NOT_NULL(strstr(err, what));
	const char *nl = strchr(err, '\n');
	CU_ASSERT(nl == NULL || nl[1] == '\0');
}

/* A fresh handle works: nothing was lost. */
static void check_runtime_works(void)
{
	int x = 1;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	CU_ASSERT_EQUAL(submit1(&inc_cl, h), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, 2);
}

static void test_unregister_twice(void)
{
	int x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_data_unregister(h);
	vtest_capture_stderr_begin();
	starpu_data_unregister(h);
	check_message(vtest_capture_stderr_end(), "not registered");
	vtest_capture_stderr_begin();
	starpu_data_unregister_submit(h);
	check_message(vtest_capture_stderr_end(), "not registered");
	check_runtime_works();
}

static void test_use_after_unregister(void)
{
	int x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_data_unregister(h);
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(submit1(&inc_cl, h), -EINVAL);
	check_message(vtest_capture_stderr_end(), "not registered");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), -EINVAL);
	check_message(vtest_capture_stderr_end(), "not registered");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_fetch_on_node(h, STARPU_MAIN_RAM, 0), -EINVAL);
	check_message(vtest_capture_stderr_end(), "not registered");
	CU_ASSERT_EQUAL(starpu_data_is_on_node(h, STARPU_MAIN_RAM), 0);
	CU_ASSERT_PTR_NULL(starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM));
	/* Typed accessors read as empty data, with an error. */
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_variable_get_elemsize(h), 0);
	CU_ASSERT_EQUAL(starpu_vector_get_nx(h), 0);
	CU_ASSERT_EQUAL(starpu_matrix_get_local_ptr(h), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(vtest_capture_stderr_end(), "is not registered (used after starpu_data_unregister?)"));
	CU_ASSERT_EQUAL(x, 0);
	check_runtime_works();
}

static void test_register_null(void)
{
	starpu_data_handle_t h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, 0, 10, sizeof(int));
	check_message(vtest_capture_stderr_end(), "ptr is NULL");
	CU_ASSERT_PTR_NULL(h);

	h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, 0, 10, 10, 10, sizeof(int));
	check_message(vtest_capture_stderr_end(), "NULL");
	CU_ASSERT_PTR_NULL(h);

	h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_block_data_register(&h, STARPU_MAIN_RAM, 0, 4, 16, 4, 4, 4, sizeof(int));
	check_message(vtest_capture_stderr_end(), "NULL");
	CU_ASSERT_PTR_NULL(h);

	uint32_t rowptr[3] = { 0, 1, 2 }, colind[2] = { 0, 1 };
	h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_csr_data_register(&h, STARPU_MAIN_RAM, 2, 2, 0, colind, rowptr, 0, sizeof(double));
	check_message(vtest_capture_stderr_end(), "NULL");
	CU_ASSERT_PTR_NULL(h);

	h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_coo_data_register(&h, STARPU_MAIN_RAM, 4, 4, 2, NULL, rowptr, (uintptr_t) colind, sizeof(int));
	check_message(vtest_capture_stderr_end(), "columns is NULL");
	CU_ASSERT_PTR_NULL(h);

	/* With home node -1, NULL is the norm. */
	starpu_vector_data_register(&h, -1, 0, 10, sizeof(int));
	CU_ASSERT_PTR_NOT_NULL(h);
	starpu_data_unregister(h);
	check_runtime_works();
}

/* Elements of no size: refused, no handle. */
static void test_register_zero_elemsize(void)
{
	static int buf[64];
	starpu_data_handle_t h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, 16, 0);
	check_message(vtest_capture_stderr_end(), "starpu_vector_data_register: elemsize is 0 (16 elements");
	CU_ASSERT_PTR_NULL(h);
	h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_matrix_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, 4, 4, 4, 0);
	check_message(vtest_capture_stderr_end(), "starpu_matrix_data_register: elemsize is 0 (4x4 elements");
	CU_ASSERT_PTR_NULL(h);
	h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_block_data_register(&h, -1, 0, 4, 16, 4, 4, 4, 0);
	check_message(vtest_capture_stderr_end(), "starpu_block_data_register: elemsize is 0 (4x4x4 elements");
	CU_ASSERT_PTR_NULL(h);
	check_runtime_works();
}

static void test_register_bad_home(void)
{
	int x;
	starpu_data_handle_t h = (starpu_data_handle_t) (uintptr_t) 1;
	vtest_capture_stderr_begin();
	starpu_variable_data_register(&h, 42, (uintptr_t) &x, sizeof(x));
	check_message(vtest_capture_stderr_end(), "home node 42");
	CU_ASSERT_PTR_NULL(h);
	vtest_capture_stderr_begin();
	starpu_variable_data_register(&h, -3, (uintptr_t) &x, sizeof(x));
	check_message(vtest_capture_stderr_end(), "home node -3");
	CU_ASSERT_PTR_NULL(h);
}

static void test_disk_unusable(void)
{
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_disk_register(&starpu_disk_unistd_ops, (void *) "/nonexistent/vela-disk", 64 << 20), -ENOENT);
	check_message(vtest_capture_stderr_end(), "/nonexistent/vela-disk");

	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_disk_register(&starpu_disk_unistd_ops, (void *) "/etc/hostname", 64 << 20), -ENOTDIR);
	check_message(vtest_capture_stderr_end(), "/etc/hostname");

	/* Not writable: a read-only directory for ordinary users; root
	 * writes anywhere permissions allow, but not in /sys. */
	char dir[] = "/tmp/vela-ro-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	chmod(dir, 0555);
	const char *ro = geteuid() == 0 ? "/sys" : dir;
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_disk_register(&starpu_disk_unistd_ops, (void *) ro, 64 << 20), -EACCES);
	check_message(vtest_capture_stderr_end(), ro);
	rmdir(dir);

	char ok[] = "/tmp/vela-disk-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(ok));
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_disk_register(&starpu_disk_unistd_ops, ok, 1024), -EINVAL);
	check_message(vtest_capture_stderr_end(), "size 1024");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_disk_register(NULL, ok, 64 << 20), -EINVAL);
	check_message(vtest_capture_stderr_end(), "operations");
	/* A negative size is no limit, as in StarPU. */
	int unlimited = starpu_disk_register(&starpu_disk_unistd_ops, ok, -1);
	CU_ASSERT(unlimited > 0);
	CU_ASSERT_EQUAL(starpu_memory_get_total((unsigned) unlimited), -1);
	rmdir(ok);
	check_runtime_works();
}

static void test_redux_without_methods(void)
{
	int x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(submit1(&redux_inc_cl, h), -EINVAL);
	check_message(vtest_capture_stderr_end(), "starpu_data_set_reduction_methods");
	CU_ASSERT_EQUAL(submit1(&inc_cl, h), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, 1);
}

static void test_acquire_release_misuse(void)
{
	int x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire_on_node(h, 7, STARPU_R), -EINVAL);
	check_message(vtest_capture_stderr_end(), "memory node 7");
	vtest_capture_stderr_begin();
	starpu_data_release(h);
	check_message(vtest_capture_stderr_end(), "not acquired");
	/* Unregistering acquired data is refused, the data stays usable. */
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_RW), 0);
	x = 5;
	vtest_capture_stderr_begin();
	starpu_data_unregister_no_coherency(h);
	check_message(vtest_capture_stderr_end(), "still acquired");
	starpu_data_release(h);
	CU_ASSERT_EQUAL(submit1(&inc_cl, h), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, 6);
}

/* Data held by an asynchronous acquisition (starpu_data_acquire_cb) is
 * not refused: unregistration waits for the release, which another
 * thread makes later (as the MPI layer does once a message is sent). */
struct cb_hold
{
	starpu_data_handle_t h;
	int *x;
	int granted;
};

static void hold_granted(void *arg)
{
	struct cb_hold *c = arg;
	__atomic_store_n(&c->granted, 1, __ATOMIC_SEQ_CST);
}

static void *release_later(void *arg)
{
	struct cb_hold *c = arg;
	while (!__atomic_load_n(&c->granted, __ATOMIC_SEQ_CST))
		vtest_sleep_ms(1);
	vtest_sleep_ms(100);
	*c->x = 9;
	starpu_data_release(c->h);
	return NULL;
}

static void test_unregister_waits_for_cb_acquisition(void)
{
	int x = 0;
	struct cb_hold c = { .x = &x };
	starpu_variable_data_register(&c.h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire_cb(c.h, STARPU_RW, hold_granted, &c), 0);
	starpu_pthread_t t;
	CU_ASSERT_EQUAL_FATAL(starpu_pthread_create(&t, NULL, release_later, &c), 0);
	vtest_capture_stderr_begin();
	starpu_data_unregister(c.h);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NULL(strstr(msg, "still acquired"));
	CU_ASSERT_EQUAL(x, 9);
	starpu_pthread_join(t, NULL);
}

/* A blocking acquisition that conflicts with one the same thread holds
 * would wait for its own release: -EDEADLK, the first one kept. Two
 * reads do not conflict; an acquisition through a callback has no owner
 * (another thread releases it), so waiting for it is not refused. */
static void test_acquire_twice(void)
{
	int x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_RW), 0);
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_RW), -EDEADLK);
	check_message(vtest_capture_stderr_end(), "already acquired by this thread in mode STARPU_RW; accessing it in mode STARPU_RW");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), -EDEADLK);
	check_message(vtest_capture_stderr_end(), "in mode STARPU_R would wait for its own release");
	CU_ASSERT_EQUAL(starpu_data_acquire_try(h, STARPU_R), -EAGAIN);
	x = 1;
	starpu_data_release(h);

	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h, STARPU_R), 0);
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_W), -EDEADLK);
	check_message(vtest_capture_stderr_end(), "already acquired by this thread in mode STARPU_R;");
	starpu_data_release(h);
	starpu_data_release(h);
	CU_ASSERT_EQUAL(submit1(&inc_cl, h), 0);

	struct cb_hold c = { .h = h, .x = &x };
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire_cb(h, STARPU_RW, hold_granted, &c), 0);
	starpu_pthread_t t;
	CU_ASSERT_EQUAL_FATAL(starpu_pthread_create(&t, NULL, release_later, &c), 0);
	while (!__atomic_load_n(&c.granted, __ATOMIC_SEQ_CST))
		vtest_sleep_ms(1);
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_RW), 0);
	CU_ASSERT_EQUAL(x, 9);
	starpu_data_release(h);
	starpu_pthread_join(t, NULL);

	/* Held through acquire_try, as through acquire: unregistering is
	 * refused (one line), the data stays usable. */
	CU_ASSERT_EQUAL_FATAL(starpu_data_acquire_try(h, STARPU_RW), 0);
	vtest_capture_stderr_begin();
	starpu_data_unregister(h);
	check_message(vtest_capture_stderr_end(), "still acquired");
	starpu_data_release(h);
	CU_ASSERT_EQUAL(submit1(&inc_cl, h), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, 10);
}

static void test_disk_node_not_addressable(void)
{
	char dir[] = "/tmp/vela-disk-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	int node = starpu_disk_register(&starpu_disk_unistd_ops, dir, 64 << 20);
	CU_ASSERT_FATAL(node > 0);
	int x = 3;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(starpu_data_acquire_on_node(h, node, STARPU_R), -EINVAL);
	check_message(vtest_capture_stderr_end(), "not addressable");
	/* Fetching there is fine. */
	CU_ASSERT_EQUAL(starpu_data_fetch_on_node(h, (unsigned) node, 0), 0);
	CU_ASSERT_NOT_EQUAL(starpu_data_is_on_node(h, (unsigned) node), 0);
	starpu_data_unregister(h);
	starpu_memchunk_tidy((unsigned) node);
	rmdir(dir);
}

/* ---- environment: RAM limit and swap disk given at init ---------------- */

static int start_with_env(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	conf.ncuda = 0;
	conf.nopencl = 0;
	return starpu_init(&conf);
}

static void test_env_limit_malformed(void)
{
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "12abc");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(start_with_env(), -EINVAL);
	check_message(vtest_capture_stderr_end(), "STARPU_LIMIT_CPU_MEM='12abc'");
	vtest_env_restore();
}

static void test_env_swap_unusable(void)
{
	vtest_setenv("STARPU_DISK_SWAP", "/nonexistent/vela-swap");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(start_with_env(), -ENOENT);
	check_message(vtest_capture_stderr_end(), "/nonexistent/vela-swap");
	vtest_setenv("STARPU_DISK_SWAP", "/tmp");
	vtest_setenv("STARPU_DISK_SWAP_BACKEND", "hdf5");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(start_with_env(), -EINVAL);
	check_message(vtest_capture_stderr_end(), "STARPU_DISK_SWAP_BACKEND='hdf5'");
	vtest_setenv("STARPU_DISK_SWAP_BACKEND", NULL);
	vtest_setenv("STARPU_DISK_SWAP_SIZE", "lots");
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL(start_with_env(), -EINVAL);
	check_message(vtest_capture_stderr_end(), "STARPU_DISK_SWAP_SIZE='lots'");
	vtest_env_restore();
}

static void fill_cpu(void *buffers[], void *cl_arg)
{
	int *p = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	for (unsigned i = 0; i < STARPU_VECTOR_GET_NX(buffers[0]); i++)
		p[i] = (int) (intptr_t) cl_arg + (int) i;
}

static struct starpu_codelet fill_cl = {
	.cpu_funcs = { fill_cpu }, .nbuffers = 1, .modes = { STARPU_W }, .name = "fill",
};

static void test_env_swap_works(void)
{
	enum { N = 12, ELEMS = (1 << 20) / (int) sizeof(int) };
	char dir[] = "/tmp/vela-swap-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	vtest_setenv("STARPU_DISK_SWAP", dir);
	vtest_setenv("STARPU_DISK_SWAP_SIZE", "64");
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "4");
	CU_ASSERT_EQUAL_FATAL(start_with_env(), 0);
	CU_ASSERT_EQUAL(starpu_memory_nodes_get_count(), 2);
	CU_ASSERT_EQUAL(starpu_node_get_kind(1), STARPU_DISK_RAM);
	CU_ASSERT_EQUAL(starpu_memory_get_total(1), (ssize_t) 64 << 20);
	starpu_data_handle_t h[N];
	for (int i = 0; i < N; i++)
	{
		starpu_vector_data_register(&h[i], -1, 0, ELEMS, sizeof(int));
		struct starpu_task *t = starpu_task_create();
		t->cl = &fill_cl;
		t->cl_arg = (void *) (intptr_t) (i * 100);
		t->handles[0] = h[i];
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	starpu_task_wait_for_all();
	int on_disk = 0, bad = 0;
	for (int i = 0; i < N; i++)
		on_disk += starpu_data_is_on_node(h[i], 1) != 0;
	CU_ASSERT(on_disk >= N - 4);
	for (int i = 0; i < N; i++)
	{
		CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h[i], STARPU_R), 0);
		const int *p = (const int *) starpu_vector_get_local_ptr(h[i]);
		bad += p[0] != i * 100 || p[ELEMS - 1] != i * 100 + ELEMS - 1;
		starpu_data_release(h[i]);
		starpu_data_unregister(h[i]);
	}
	CU_ASSERT_EQUAL(bad, 0);
	starpu_shutdown();
	vtest_env_restore();
	CU_ASSERT_EQUAL(rmdir(dir), 0);	/* nothing left behind */
}

/* Fills n vectors of 1 MiB (home -1) one task each; returns how many
 * tasks could not run (their data never got a buffer). */
static int fill_mib_vectors(starpu_data_handle_t *h, int n)
{
	enum { ELEMS = (1 << 20) / (int) sizeof(int) };
	for (int i = 0; i < n; i++)
	{
		starpu_vector_data_register(&h[i], -1, 0, ELEMS, sizeof(int));
		struct starpu_task *t = starpu_task_create();
		t->cl = &fill_cl;
		t->cl_arg = (void *) (intptr_t) (i * 100);
		t->handles[0] = h[i];
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	starpu_task_wait_for_all();
	int missing = 0;
	for (int i = 0; i < n; i++)
		missing += !starpu_data_is_on_node(h[i], STARPU_MAIN_RAM) && (starpu_memory_nodes_get_count() < 2 || !starpu_data_is_on_node(h[i], 1));
	return missing;
}

static void test_limit_without_disk(void)
{
	/* 8 MiB of data through 4 MiB of RAM and no disk: the data that does
	 * not fit is an error, not a hang; the data that fits is intact. */
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "4");
	CU_ASSERT_EQUAL_FATAL(start_with_env(), 0);
	starpu_data_handle_t h[8];
	vtest_capture_stderr_begin();
	int missing = fill_mib_vectors(h, 8);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(missing, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no disk to evict it to"));
	for (int i = 0; i < 4; i++)
	{
		CU_ASSERT_EQUAL_FATAL(starpu_data_acquire(h[i], STARPU_R), 0);
		CU_ASSERT_EQUAL(((int *) starpu_vector_get_local_ptr(h[i]))[5], i * 100 + 5);
		starpu_data_release(h[i]);
	}
	for (int i = 0; i < 8; i++)
		starpu_data_unregister(h[i]);
	starpu_shutdown();
	vtest_env_restore();
}

static void test_swap_disk_full(void)
{
	/* 24 MiB through 4 MiB of RAM and a 16 MiB disk. */
	char dir[] = "/tmp/vela-swap-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	vtest_setenv("STARPU_DISK_SWAP", dir);
	vtest_setenv("STARPU_DISK_SWAP_SIZE", "16");
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "4");
	CU_ASSERT_EQUAL_FATAL(start_with_env(), 0);
	starpu_data_handle_t h[24];
	vtest_capture_stderr_begin();
	int missing = fill_mib_vectors(h, 24);
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(missing, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "the swap disk is full too"));
	for (int i = 0; i < 24; i++)
		starpu_data_unregister(h[i]);
	starpu_shutdown();
	vtest_env_restore();
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

static void add3_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
}

static void test_task_larger_than_ram(void)
{
	/* A task whose three 2 MiB buffers cannot be in 4 MiB at once. */
	static struct starpu_codelet cl = {
		.cpu_funcs = { add3_cpu }, .nbuffers = 3, .modes = { STARPU_W, STARPU_W, STARPU_W }, .name = "three",
	};
	vtest_setenv("STARPU_LIMIT_CPU_MEM", "4");
	CU_ASSERT_EQUAL_FATAL(start_with_env(), 0);
	starpu_data_handle_t h[3];
	for (int i = 0; i < 3; i++)
		starpu_vector_data_register(&h[i], -1, 0, (2 << 20) / (int) sizeof(int), sizeof(int));
	struct starpu_task *t = starpu_task_create();
	t->cl = &cl;
	for (int i = 0; i < 3; i++)
		t->handles[i] = h[i];
	vtest_capture_stderr_begin();
	CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	starpu_task_wait_for_all();
	const char *err = vtest_capture_stderr_end();
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "task 'three' needs 6291456 bytes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "more than its 4194304"));
	for (int i = 0; i < 3; i++)
		starpu_data_unregister(h[i]);
	starpu_shutdown();
	vtest_env_restore();
}

static const struct vtest_case env_cases[] =
{
	{ "env_limit_malformed", test_env_limit_malformed },
	{ "env_swap_unusable", test_env_swap_unusable },
	{ "env_swap_works", test_env_swap_works },
	{ "limit_without_disk", test_limit_without_disk },
	{ "swap_disk_full", test_swap_disk_full },
	{ "task_larger_than_ram", test_task_larger_than_ram },
	VTEST_END
};

static const struct vtest_case cases[] =
{
	{ "unregister_twice", test_unregister_twice },
	{ "use_after_unregister", test_use_after_unregister },
	{ "register_null", test_register_null },
	{ "register_bad_home", test_register_bad_home },
	{ "register_zero_elemsize", test_register_zero_elemsize },
	{ "disk_unusable", test_disk_unusable },
	{ "redux_without_methods", test_redux_without_methods },
	{ "acquire_release_misuse", test_acquire_release_misuse },
	{ "unregister_waits_for_cb_acquisition", test_unregister_waits_for_cb_acquisition },
	{ "acquire_twice", test_acquire_twice },
	{ "disk_node_not_addressable", test_disk_node_not_addressable },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "data_bad_input", suite_init, vtest_stop, cases },
	{ "data_environment", NULL, NULL, env_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
