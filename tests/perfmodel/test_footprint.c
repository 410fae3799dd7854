/* test_footprint: the footprint hash and task footprints agree with
 * StarPU 1.3's.
 *
 * The expected values were computed by Debian's StarPU 1.3.10 (a probe
 * program calling starpu_hash_crc32c_be*, and starpu_task_data_footprint
 * on tasks over the same data shapes), and some are visible in the model
 * files it wrote (tests/perfmodel/data/starpu13): files keyed by footprint
 * are interchangeable only if these match.
 */
#include <starpu.h>

#include <stdlib.h>
#include <string.h>

#include "vtest.h"

static int suite_init(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	return starpu_init(&conf) == 0 ? 0 : -1;
}

static int suite_clean(void)
{
	starpu_shutdown();
	return 0;
}

static void test_crc(void)
{
	CU_ASSERT(starpu_hash_crc32c_be(0, 0) == 0);
	CU_ASSERT(starpu_hash_crc32c_be(1, 0) == 0xfc93054a);
	CU_ASSERT(starpu_hash_crc32c_be(240, 0) == 0x34db22f7);
	CU_ASSERT(starpu_hash_crc32c_be(0x12345678, 0xdeadbeef) == 0x2187cba9);
	const unsigned char b[5] = { 1, 2, 3, 4, 5 };
	CU_ASSERT(starpu_hash_crc32c_be_n(b, 5, 0) == 0xa1d4612a);
	CU_ASSERT(starpu_hash_crc32c_be_n(b, 5, 7) == 0x5e2f9bf4);
	CU_ASSERT(starpu_hash_crc32c_string("abc", 0) == 0x72eb4694);
	CU_ASSERT(starpu_hash_crc32c_string("abc", 9) == 0x7beb4694);
}

static uint32_t iface_fp(starpu_data_handle_t h)
{
	return starpu_data_get_interface_ops(h)->footprint(h);
}

static void test_interfaces(void)
{
	static double A[240 * 240];
	starpu_data_handle_t m, m2, v, var;
	starpu_matrix_data_register(&m, STARPU_MAIN_RAM, (uintptr_t) A, 240, 240, 240, sizeof(double));
	starpu_matrix_data_register(&m2, STARPU_MAIN_RAM, (uintptr_t) A, 240, 100, 30, sizeof(double));
	starpu_vector_data_register(&v, STARPU_MAIN_RAM, (uintptr_t) A, 100, sizeof(double));
	starpu_variable_data_register(&var, STARPU_MAIN_RAM, (uintptr_t) A, sizeof(double));
	CU_ASSERT(iface_fp(m) == 0x10e7ea8d);
	CU_ASSERT(iface_fp(m2) == 0xdc508417);
	CU_ASSERT(iface_fp(v) == 0x9f6006c8);
	CU_ASSERT(iface_fp(var) == 0xbc8d2697);

	static struct starpu_codelet cl1 = { .nbuffers = 1, .modes = { STARPU_RW } };
	static struct starpu_codelet cl3 = { .nbuffers = 3, .modes = { STARPU_R, STARPU_R, STARPU_RW } };
	struct starpu_task *t = starpu_task_create();
	t->destroy = 0;
	t->cl = &cl1;
	t->handles[0] = m;
	/* chol_model_11 of cholesky_implicit on 240x240 tiles. */
	CU_ASSERT(starpu_task_data_footprint(t) == 0x7602c8ce);
	t->cl = &cl3;
	t->handles[1] = m;
	t->handles[2] = m;
	/* chol_model_22 on the same tiles. */
	CU_ASSERT(starpu_task_data_footprint(t) == 0x3d24f508);
	t->handles[0] = m2;
	t->handles[1] = v;
	t->handles[2] = var;
	CU_ASSERT(starpu_task_data_footprint(t) == 0x652cd933);
	starpu_task_destroy(t);
	starpu_data_unregister(m);
	starpu_data_unregister(m2);
	starpu_data_unregister(v);
	starpu_data_unregister(var);
}

static void test_vectors(void)
{
	static double A[32000];
	static const uint32_t one[] = { 0xa10bd9c7, 0x92c50c5b, 0x9710d8d3, 0x7b3907ef };
	starpu_data_handle_t h[4];
	for (unsigned i = 0; i < 4; i++)
		starpu_vector_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) A, i + 1, sizeof(double));
	static struct starpu_codelet cl1 = { .nbuffers = 1, .modes = { STARPU_RW } };
	static struct starpu_codelet cl2 = { .nbuffers = 2, .modes = { STARPU_R, STARPU_RW } };
	struct starpu_task *t = starpu_task_create();
	t->destroy = 0;
	t->cl = &cl1;
	for (unsigned i = 0; i < 4; i++)
	{
		t->handles[0] = h[i];
		CU_ASSERT(starpu_task_data_footprint(t) == one[i]);
	}
	t->cl = &cl2;
	t->handles[0] = h[0];
	t->handles[1] = h[1];
	CU_ASSERT(starpu_task_data_footprint(t) == 0x590241f1);
	t->handles[0] = h[2];
	CU_ASSERT(starpu_task_data_footprint(t) == 0x7b838ed4);
	starpu_task_destroy(t);
	for (unsigned i = 0; i < 4; i++)
		starpu_data_unregister(h[i]);
	/* The vector of 32000 doubles of StarPU's probe_hist file. */
	starpu_data_handle_t big;
	starpu_vector_data_register(&big, STARPU_MAIN_RAM, (uintptr_t) A, 32000, sizeof(double));
	t = starpu_task_create();
	t->destroy = 0;
	t->cl = &cl1;
	t->handles[0] = big;
	CU_ASSERT(starpu_task_data_footprint(t) == 0xfc249856);
	starpu_task_destroy(t);
	starpu_data_unregister(big);
}

static size_t size_base(struct starpu_task *task, unsigned nimpl)
{
	(void) nimpl;
	return 1000 + starpu_vector_get_nx(task->handles[0]);
}

static uint32_t footprint_cb(struct starpu_task *task)
{
	return 42 + starpu_vector_get_nx(task->handles[0]);
}

/* A size_base makes the footprint the CRC of the size (a size_t), a
 * footprint callback gives it as is: values of StarPU's probe_sb and
 * probe_fp files. */
/* A submitted task's data footprint is computed once and kept while it
 * runs (schedulers ask for it per candidate worker); once it terminated,
 * the application may give it other handles, and the footprint follows. */
static void fp_kernel(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static uint32_t fp_seen;

static void fp_callback(void *arg)
{
	fp_seen = starpu_task_data_footprint(arg);
}

static void test_footprint_across_submissions(void)
{
	static double A[16];
	static const uint32_t one[] = { 0xa10bd9c7, 0x92c50c5b };
	starpu_data_handle_t h[2];
	for (unsigned i = 0; i < 2; i++)
		starpu_vector_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) A, i + 1, sizeof(double));
	static struct starpu_codelet cl = { .cpu_funcs = { fp_kernel }, .nbuffers = 1, .modes = { STARPU_RW } };
	struct starpu_task *t = starpu_task_create();
	t->destroy = 0;
	t->detach = 0;
	t->cl = &cl;
	t->callback_func = fp_callback;
	t->callback_arg = t;
	for (unsigned round = 0; round < 4; round++)
	{
		t->handles[0] = h[round % 2];
		fp_seen = 0;
		CU_ASSERT_FATAL(starpu_task_submit(t) == 0);
		CU_ASSERT(starpu_task_wait(t) == 0);
		CU_ASSERT(fp_seen == one[round % 2]);	/* while it ran */
		CU_ASSERT(starpu_task_data_footprint(t) == one[round % 2]);
		t->handles[0] = h[(round + 1) % 2];	/* after: not a stale value */
		CU_ASSERT(starpu_task_data_footprint(t) == one[(round + 1) % 2]);
	}
	starpu_task_destroy(t);
	for (unsigned i = 0; i < 2; i++)
		starpu_data_unregister(h[i]);
}

static void test_model_callbacks(void)
{
	static double A[32000];
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) A, 32000, sizeof(double));
	static struct starpu_perfmodel msb = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_fp_sb", .size_base = size_base };
	static struct starpu_perfmodel mfp = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_fp_cb", .footprint = footprint_cb };
	static struct starpu_perfmodel mnone = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_fp_none" };
	static struct starpu_codelet cl = { .nbuffers = 1, .modes = { STARPU_RW } };
	struct starpu_task *t = starpu_task_create();
	t->destroy = 0;
	t->cl = &cl;
	t->handles[0] = h;
	struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(0, 0);
	CU_ASSERT_FATAL(arch != NULL);
	CU_ASSERT(starpu_task_footprint(&msb, t, arch, 0) == 0x1e043468);
	CU_ASSERT(starpu_task_footprint(&mfp, t, arch, 0) == 0x00007d2a);
	CU_ASSERT(starpu_task_footprint(&mnone, t, arch, 0) == 0xfc249856);
	CU_ASSERT(starpu_task_footprint(NULL, t, arch, 0) == 0xfc249856);
	starpu_task_destroy(t);
	starpu_data_unregister(h);
}

/* CPU workers share one arch {CPU, 0, 1} (comb 0), as in StarPU. */
static void test_worker_arch(void)
{
	struct starpu_perfmodel_arch *a = starpu_worker_get_perf_archtype(0, 0);
	CU_ASSERT_FATAL(a != NULL);
	CU_ASSERT(a->ndevices == 1);
	CU_ASSERT(a->devices[0].type == STARPU_CPU_WORKER);
	CU_ASSERT(a->devices[0].devid == 0 && a->devices[0].ncores == 1);
	CU_ASSERT(starpu_perfmodel_arch_comb_get(a->ndevices, a->devices) == 0);
	char name[64];
	starpu_perfmodel_get_arch_name(a, name, sizeof(name), 1);
	CU_ASSERT_STRING_EQUAL(name, "cpu0_impl1 (Comb0)");
	struct starpu_perfmodel_device cuda = { STARPU_CUDA_WORKER, 1, 1 };
	int c = starpu_perfmodel_arch_comb_add(1, &cuda);
	CU_ASSERT(c > 0);
	CU_ASSERT(starpu_perfmodel_arch_comb_get(1, &cuda) == c);
	CU_ASSERT(starpu_perfmodel_arch_comb_add(1, &cuda) == c);
	struct starpu_perfmodel_arch *ca = starpu_perfmodel_arch_comb_fetch(c);
	CU_ASSERT_FATAL(ca != NULL);
	starpu_perfmodel_get_arch_name(ca, name, sizeof(name), 0);
	char want[64];
	snprintf(want, sizeof(want), "cuda1_impl0 (Comb%d)", c);
	CU_ASSERT_STRING_EQUAL(name, want);
	CU_ASSERT(starpu_worker_get_relative_speedup(ca) > starpu_worker_get_relative_speedup(a));
	CU_ASSERT_STRING_EQUAL(starpu_perfmodel_get_archtype_name(STARPU_OPENCL_WORKER), "opencl");
	vtest_capture_stderr_begin();
	CU_ASSERT(starpu_worker_get_perf_archtype(999, 0) == NULL);
	CU_ASSERT(strstr(vtest_capture_stderr_end(), "no worker 999") != NULL);
}

int main(int argc, char **argv)
{
	static const struct vtest_case cases[] = {
		{ "starpu_hash_crc32c_* give StarPU 1.3's values", test_crc },
		{ "matrix, vector, variable footprints; task footprints of cholesky tiles", test_interfaces },
		{ "task footprints over vectors", test_vectors },
		{ "a submitted task's footprint is kept while it runs, not after", test_footprint_across_submissions },
		{ "size_base and footprint callbacks", test_model_callbacks },
		{ "perf archs of workers and arch combinations", test_worker_arch },
		VTEST_END
	};
	static const struct vtest_suite suites[] = {
		{ "footprint", suite_init, suite_clean, cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
