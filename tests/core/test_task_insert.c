/* test_task_insert: the variadic task helpers.
 *
 * starpu_task_insert / starpu_insert_task / starpu_task_build with data
 * (R, W, RW, SCRATCH, REDUX, RW|COMMUTE, DATA_ARRAY, DATA_MODE_ARRAY on
 * variable, vector and matrix handles), codelet arguments (STARPU_VALUE,
 * STARPU_CL_ARGS and the pack / unpack helpers), callbacks, priority, tags,
 * name, flops and placement (STARPU_EXECUTE_ON_WORKER, STARPU_EXECUTE_WHERE).
 * Every effect is checked: data written, values seen by the codelet, fields
 * of the built task, callbacks called once with their argument.
 *
 * Note: STARPU_CALLBACK_ARG and STARPU_CALLBACK_WITH_ARG hand the argument
 * over to the task (it is freed with the task), so those arguments are
 * malloc'd here; STARPU_CALLBACK_ARG_NFREE leaves it to the caller.
 */
#include <starpu.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

static int suite_init(void)
{
	return vtest_start_cpus(2);
}


/* ---- data access modes ------------------------------------------------- */

static void incr_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	int *x = (int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	*x += 1;
}

static struct starpu_codelet incr_cl =
{
	.cpu_funcs = { incr_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
};

/* v[i] *= factor (factor passed as a STARPU_VALUE int) */
static void vscale_cpu(void *buffers[], void *cl_arg)
{
	int factor;
	starpu_codelet_unpack_args(cl_arg, &factor);
	int *v = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		v[i] *= factor;
}

static struct starpu_codelet vscale_cl =
{
	.cpu_funcs = { vscale_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW },
};

/* dst[i] = src[i] + 1 */
static void vcopy_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	const int *src = (const int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	int *dst = (int *) STARPU_VECTOR_GET_PTR(buffers[1]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		dst[i] = src[i] + 1;
}

static struct starpu_codelet vcopy_cl =
{
	.cpu_funcs = { vcopy_cpu },
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_W },
};

/* m(i, j) = i + 100 * j, padding left alone */
static void mfill_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	int *m = (int *) STARPU_MATRIX_GET_PTR(buffers[0]);
	unsigned nx = STARPU_MATRIX_GET_NX(buffers[0]);
	unsigned ny = STARPU_MATRIX_GET_NY(buffers[0]);
	unsigned ld = STARPU_MATRIX_GET_LD(buffers[0]);
	for (unsigned j = 0; j < ny; j++)
		for (unsigned i = 0; i < nx; i++)
			m[j * ld + i] = (int) (i + 100 * j);
}

static struct starpu_codelet mfill_cl =
{
	.cpu_funcs = { mfill_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
};

static void test_r_w_rw(void)
{
	int x = 3;
	int v[16], v2[16];
	enum { NX = 4, NY = 3, LD = 5 };
	int m[LD * NY];
	for (int i = 0; i < 16; i++)
	{
		v[i] = i;
		v2[i] = -1;
	}
	for (int i = 0; i < LD * NY; i++)
		m[i] = -7;

	starpu_data_handle_t hx, hv, hv2, hm;
	starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_vector_data_register(&hv, STARPU_MAIN_RAM, (uintptr_t) v, 16, sizeof(int));
	starpu_vector_data_register(&hv2, STARPU_MAIN_RAM, (uintptr_t) v2, 16, sizeof(int));
	starpu_matrix_data_register(&hm, STARPU_MAIN_RAM, (uintptr_t) m, LD, NX, NY, sizeof(int));

	int factor = 3;
	for (int k = 0; k < 5; k++)
		CU_ASSERT_EQUAL(starpu_task_insert(&incr_cl, STARPU_RW, hx, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&vscale_cl, STARPU_RW, hv,
					   STARPU_VALUE, &factor, sizeof(factor), 0), 0);
	/* the value was copied at insertion time */
	factor = 1000;
	CU_ASSERT_EQUAL(starpu_task_insert(&vcopy_cl, STARPU_R, hv, STARPU_W, hv2, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&mfill_cl, STARPU_W, hm, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	starpu_data_unregister(hx);
	starpu_data_unregister(hv);
	starpu_data_unregister(hv2);
	starpu_data_unregister(hm);

	CU_ASSERT_EQUAL(x, 8);
	for (int i = 0; i < 16; i++)
	{
		CU_ASSERT_EQUAL(v[i], 3 * i);
		CU_ASSERT_EQUAL(v2[i], 3 * i + 1);
	}
	for (int j = 0; j < NY; j++)
		for (int i = 0; i < LD; i++)
		{
			int expect = i < NX ? i + 100 * j : -7;
			CU_ASSERT_EQUAL(m[j * LD + i], expect);
		}
}

/* Fills the scratch vector with 1..n and writes its sum to the output. */
static void scratch_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	int *tmp = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	int *out = (int *) STARPU_VARIABLE_GET_PTR(buffers[1]);
	if (!tmp)
	{
		*out = -1;
		return;
	}
	for (unsigned i = 0; i < n; i++)
		tmp[i] = (int) i + 1;
	int s = 0;
	for (unsigned i = 0; i < n; i++)
		s += tmp[i];
	*out = s;
}

static struct starpu_codelet scratch_cl =
{
	.cpu_funcs = { scratch_cpu },
	.nbuffers = 2,
	.modes = { STARPU_SCRATCH, STARPU_W },
};

static void test_scratch(void)
{
	enum { N = 64 };
	starpu_data_handle_t htmp, hout;
	/* no home: StarPU allocates the scratch space itself */
	starpu_vector_data_register(&htmp, -1, 0, N, sizeof(int));
	int out[4] = { 0, 0, 0, 0 };
	for (int k = 0; k < 4; k++)
	{
		starpu_variable_data_register(&hout, STARPU_MAIN_RAM, (uintptr_t) &out[k], sizeof(int));
		CU_ASSERT_EQUAL(starpu_task_insert(&scratch_cl, STARPU_SCRATCH, htmp, STARPU_W, hout, 0), 0);
		starpu_data_unregister_submit(hout);
	}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	starpu_data_unregister(htmp);
	for (int k = 0; k < 4; k++)
		CU_ASSERT_EQUAL(out[k], N * (N + 1) / 2);
}

/* ---- reduction -------------------------------------------------------- */

static void redux_init_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) = 0;
}

static void redux_add_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	long *dst = (long *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	const long *src = (const long *) STARPU_VARIABLE_GET_PTR(buffers[1]);
	*dst += *src;
}

static struct starpu_codelet redux_init_cl =
{
	.cpu_funcs = { redux_init_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
};

static struct starpu_codelet redux_add_cl =
{
	.cpu_funcs = { redux_add_cpu },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_R },
};

/* acc += value */
static void accumulate_cpu(void *buffers[], void *cl_arg)
{
	long value;
	starpu_codelet_unpack_args(cl_arg, &value);
	*(long *) STARPU_VARIABLE_GET_PTR(buffers[0]) += value;
}

static struct starpu_codelet accumulate_redux_cl =
{
	.cpu_funcs = { accumulate_cpu },
	.nbuffers = 1,
	.modes = { STARPU_REDUX },
};

static void test_redux(void)
{
	long acc = 1000;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &acc, sizeof(acc));
	starpu_data_set_reduction_methods(h, &redux_add_cl, &redux_init_cl);
	enum { N = 100 };
	for (long i = 1; i <= N; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&accumulate_redux_cl, STARPU_REDUX, h,
						   STARPU_VALUE, &i, sizeof(i), 0), 0);
	/* reading it back combines the contributions with the initial value */
	CU_ASSERT_EQUAL(starpu_data_acquire(h, STARPU_R), 0);
	CU_ASSERT_EQUAL(acc, 1000 + N * (N + 1) / 2);
	starpu_data_release(h);

	/* a second round on the same handle */
	for (long i = 1; i <= N; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&accumulate_redux_cl, STARPU_REDUX, h,
						   STARPU_VALUE, &i, sizeof(i), 0), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(acc, 1000 + N * (N + 1));
}

/* ---- commute ------------------------------------------------------------ */

static atomic_int commute_inside;
static atomic_int commute_overlap;

/* Non-atomic read-modify-write, made slow on purpose: commuting tasks must
 * still run one at a time. */
static void commute_add_cpu(void *buffers[], void *cl_arg)
{
	int value;
	starpu_codelet_unpack_args(cl_arg, &value);
	if (atomic_fetch_add(&commute_inside, 1) != 0)
		atomic_store(&commute_overlap, 1);
	volatile int *x = (volatile int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	int old = *x;
	for (volatile int spin = 0; spin < 20000; spin++)
		;
	*x = old + value;
	atomic_fetch_sub(&commute_inside, 1);
}

static struct starpu_codelet commute_cl =
{
	.cpu_funcs = { commute_add_cpu },
	.nbuffers = 1,
	.modes = { STARPU_RW | STARPU_COMMUTE },
};

static void test_commute(void)
{
	int x = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	atomic_store(&commute_inside, 0);
	atomic_store(&commute_overlap, 0);
	enum { N = 60 };
	for (int i = 1; i <= N; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&commute_cl, STARPU_RW | STARPU_COMMUTE, h,
						   STARPU_VALUE, &i, sizeof(i), 0), 0);
	/* a plain RW task afterwards sees all the commuting updates */
	CU_ASSERT_EQUAL(starpu_task_insert(&incr_cl, STARPU_RW, h, 0), 0);
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(x, N * (N + 1) / 2 + 1);
	CU_ASSERT_EQUAL(atomic_load(&commute_overlap), 0);
}

/* ---- codelet arguments -------------------------------------------------- */

struct small
{
	short a;
	double b;
	char c[5];
};

struct values_seen
{
	int i;
	double d;
	char ch;
	struct small s;
	char str[16];
	long long ll;
	int runs;
};

static struct values_seen vseen;

static void values_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	struct values_seen *r = &vseen;
	starpu_codelet_unpack_args(cl_arg, &r->i, &r->d, &r->ch, &r->s, r->str, &r->ll);
	r->runs++;
}

static struct starpu_codelet values_cl =
{
	.cpu_funcs = { values_cpu },
	.nbuffers = 0,
};

static void check_values_seen(void)
{
	CU_ASSERT_EQUAL(vseen.runs, 1);
	CU_ASSERT_EQUAL(vseen.i, -12345);
	CU_ASSERT_DOUBLE_EQUAL(vseen.d, 3.25, 0.0);
	CU_ASSERT_EQUAL(vseen.ch, 'q');
	CU_ASSERT_EQUAL(vseen.s.a, 7);
	CU_ASSERT_DOUBLE_EQUAL(vseen.s.b, -0.5, 0.0);
	CU_ASSERT_STRING_EQUAL(vseen.s.c, "abcd");
	CU_ASSERT_STRING_EQUAL(vseen.str, "hello vela");
	CU_ASSERT_EQUAL(vseen.ll, 1LL << 40);
}

static void test_values(void)
{
	memset(&vseen, 0, sizeof(vseen));
	int i = -12345;
	double d = 3.25;
	char ch = 'q';
	struct small s = { 7, -0.5, "abcd" };
	char str[16] = "hello vela";
	long long ll = 1LL << 40;
	CU_ASSERT_EQUAL(starpu_task_insert(&values_cl,
					   STARPU_VALUE, &i, sizeof(i),
					   STARPU_VALUE, &d, sizeof(d),
					   STARPU_VALUE, &ch, sizeof(ch),
					   STARPU_VALUE, &s, sizeof(s),
					   STARPU_VALUE, str, sizeof(str),
					   STARPU_VALUE, &ll, sizeof(ll),
					   0), 0);
	/* values were copied: changing them now is harmless */
	i = 0;
	strcpy(str, "changed");
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	check_values_seen();
}

static void test_cl_args(void)
{
	memset(&vseen, 0, sizeof(vseen));
	int i = -12345;
	double d = 3.25;
	char ch = 'q';
	struct small s = { 7, -0.5, "abcd" };
	char str[16] = "hello vela";
	long long ll = 1LL << 40;
	void *buf = NULL;
	size_t size = 0;
	starpu_codelet_pack_args(&buf, &size,
				 STARPU_VALUE, &i, sizeof(i),
				 STARPU_VALUE, &d, sizeof(d),
				 STARPU_VALUE, &ch, sizeof(ch),
				 STARPU_VALUE, &s, sizeof(s),
				 STARPU_VALUE, str, sizeof(str),
				 STARPU_VALUE, &ll, sizeof(ll),
				 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT(size >= sizeof(i) + sizeof(d) + sizeof(ch) + sizeof(s) + sizeof(str) + sizeof(ll));
	/* buf now belongs to the task */
	CU_ASSERT_EQUAL(starpu_task_insert(&values_cl, STARPU_CL_ARGS, buf, size, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	check_values_seen();

	/* with _NFREE the caller keeps the buffer and may reuse it */
	memset(&vseen, 0, sizeof(vseen));
	buf = NULL;
	starpu_codelet_pack_args(&buf, &size,
				 STARPU_VALUE, &i, sizeof(i),
				 STARPU_VALUE, &d, sizeof(d),
				 STARPU_VALUE, &ch, sizeof(ch),
				 STARPU_VALUE, &s, sizeof(s),
				 STARPU_VALUE, str, sizeof(str),
				 STARPU_VALUE, &ll, sizeof(ll),
				 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&values_cl, STARPU_CL_ARGS_NFREE, buf, size, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	check_values_seen();
	memset(&vseen, 0, sizeof(vseen));
	CU_ASSERT_EQUAL(starpu_task_insert(&values_cl, STARPU_CL_ARGS_NFREE, buf, size, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	check_values_seen();
	free(buf);
}

static void test_pack_unpack_roundtrip(void)
{
	int i = 99;
	double d = -1.75;
	char str[8] = "xyz";
	void *buf = NULL;
	size_t size = 0;
	starpu_codelet_pack_args(&buf, &size,
				 STARPU_VALUE, &i, sizeof(i),
				 STARPU_VALUE, &d, sizeof(d),
				 STARPU_VALUE, str, sizeof(str),
				 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);

	int i2 = 0;
	double d2 = 0;
	char str2[8] = "";
	starpu_codelet_unpack_args(buf, &i2, &d2, str2);
	CU_ASSERT_EQUAL(i2, 99);
	CU_ASSERT_DOUBLE_EQUAL(d2, -1.75, 0.0);
	CU_ASSERT_STRING_EQUAL(str2, "xyz");

	/* a 0 pointer stops the unpacking */
	int i3 = 0;
	double d3 = 42.0;
	starpu_codelet_unpack_args(buf, &i3, 0);
	CU_ASSERT_EQUAL(i3, 99);
	CU_ASSERT_DOUBLE_EQUAL(d3, 42.0, 0.0);
	free(buf);

	/* the incremental packing API produces the same layout */
	struct starpu_codelet_pack_arg_data state;
	starpu_codelet_pack_arg_init(&state);
	starpu_codelet_pack_arg(&state, &i, sizeof(i));
	starpu_codelet_pack_arg(&state, &d, sizeof(d));
	starpu_codelet_pack_arg(&state, str, sizeof(str));
	void *buf2 = NULL;
	size_t size2 = 0;
	starpu_codelet_pack_arg_fini(&state, &buf2, &size2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf2);
	i2 = 0;
	d2 = 0;
	memset(str2, 0, sizeof(str2));
	starpu_codelet_unpack_args(buf2, &i2, &d2, str2);
	CU_ASSERT_EQUAL(i2, 99);
	CU_ASSERT_DOUBLE_EQUAL(d2, -1.75, 0.0);
	CU_ASSERT_STRING_EQUAL(str2, "xyz");
	free(buf2);
}

/* ---- callbacks ---------------------------------------------------------- */

#define MAXCB 8
static atomic_int ncb;
static void *cb_args[MAXCB];
static int cb_payload[MAXCB];

static void record_callback(void *arg)
{
	int k = atomic_fetch_add(&ncb, 1);
	if (k < MAXCB)
	{
		cb_args[k] = arg;
		cb_payload[k] = arg ? *(int *) arg : -1;
	}
}

static void nop_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	(void) cl_arg;
}

static struct starpu_codelet nop_cl =
{
	.cpu_funcs = { nop_cpu },
	.nbuffers = 0,
};

static void test_callbacks(void)
{
	/* STARPU_CALLBACK alone: NULL argument */
	atomic_store(&ncb, 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&nop_cl, STARPU_CALLBACK, record_callback, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&ncb), 1);
	CU_ASSERT_PTR_NULL(cb_args[0]);

	/* STARPU_CALLBACK_WITH_ARG */
	atomic_store(&ncb, 0);
	int *a1 = malloc(sizeof(int));
	*a1 = 11;
	CU_ASSERT_EQUAL(starpu_task_insert(&nop_cl, STARPU_CALLBACK_WITH_ARG, record_callback, a1, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&ncb), 1);
	CU_ASSERT_PTR_EQUAL(cb_args[0], a1);
	CU_ASSERT_EQUAL(cb_payload[0], 11);

	/* STARPU_CALLBACK then STARPU_CALLBACK_ARG, and the reverse order */
	atomic_store(&ncb, 0);
	int *a2 = malloc(sizeof(int));
	*a2 = 22;
	CU_ASSERT_EQUAL(starpu_task_insert(&nop_cl, STARPU_CALLBACK, record_callback,
					   STARPU_CALLBACK_ARG, a2, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	int *a3 = malloc(sizeof(int));
	*a3 = 33;
	CU_ASSERT_EQUAL(starpu_task_insert(&nop_cl, STARPU_CALLBACK_ARG, a3,
					   STARPU_CALLBACK, record_callback, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&ncb), 2);
	CU_ASSERT_PTR_EQUAL(cb_args[0], a2);
	CU_ASSERT_EQUAL(cb_payload[0], 22);
	CU_ASSERT_PTR_EQUAL(cb_args[1], a3);
	CU_ASSERT_EQUAL(cb_payload[1], 33);

	/* _NFREE: the argument stays the caller's */
	atomic_store(&ncb, 0);
	int local = 44;
	CU_ASSERT_EQUAL(starpu_task_insert(&nop_cl, STARPU_CALLBACK, record_callback,
					   STARPU_CALLBACK_ARG_NFREE, &local, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&ncb), 1);
	CU_ASSERT_PTR_EQUAL(cb_args[0], &local);
	CU_ASSERT_EQUAL(cb_payload[0], 44);
	CU_ASSERT_EQUAL(local, 44);
}

/* ---- task fields -------------------------------------------------------- */

struct fields_seen
{
	int priority;
	char name[32];
	double flops;
	int workerid;
	int use_tag;
	starpu_tag_t tag_id;
	int runs;
};

static void fields_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	struct fields_seen *f;
	starpu_codelet_unpack_args(cl_arg, &f);
	struct starpu_task *task = starpu_task_get_current();
	f->priority = task->priority;
	if (task->name)
		snprintf(f->name, sizeof(f->name), "%s", task->name);
	f->flops = task->flops;
	f->workerid = starpu_worker_get_id();
	f->use_tag = task->use_tag;
	f->tag_id = task->tag_id;
	f->runs++;
}

static struct starpu_codelet fields_cl =
{
	.cpu_funcs = { fields_cpu },
	.nbuffers = 0,
};

static void test_priority_name_flops(void)
{
	struct fields_seen f;
	memset(&f, 0, sizeof(f));
	struct fields_seen *fp = &f;
	int prio = starpu_sched_get_max_priority() > 0 ? 1 : 0;
	CU_ASSERT_EQUAL(starpu_task_insert(&fields_cl,
					   STARPU_VALUE, &fp, sizeof(fp),
					   STARPU_PRIORITY, prio,
					   STARPU_NAME, "insert_named",
					   STARPU_FLOPS, (double) 1.5e6,
					   0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(f.runs, 1);
	CU_ASSERT_EQUAL(f.priority, prio);
	CU_ASSERT_STRING_EQUAL(f.name, "insert_named");
	CU_ASSERT_DOUBLE_EQUAL(f.flops, 1.5e6, 0.0);
	CU_ASSERT_EQUAL(f.use_tag, 0);
}

static void test_tag(void)
{
	struct fields_seen f1, f2;
	memset(&f1, 0, sizeof(f1));
	memset(&f2, 0, sizeof(f2));
	struct fields_seen *p1 = &f1, *p2 = &f2;
	const starpu_tag_t t1 = 0xabc0, t2 = 0xabc1, gate = 0xabc2;

	/* t2 waits for t1, which waits for the application */
	starpu_tag_declare_deps(t1, 1, gate);
	starpu_tag_declare_deps(t2, 1, t1);
	CU_ASSERT_EQUAL(starpu_task_insert(&fields_cl, STARPU_VALUE, &p2, sizeof(p2),
					   STARPU_TAG, t2, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_insert(&fields_cl, STARPU_VALUE, &p1, sizeof(p1),
					   STARPU_TAG, t1, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_nsubmitted(), 2);
	starpu_tag_notify_from_apps(gate);
	CU_ASSERT_EQUAL(starpu_tag_wait(t2), 0);
	CU_ASSERT_EQUAL(f1.runs, 1);
	CU_ASSERT_EQUAL(f2.runs, 1);
	CU_ASSERT_EQUAL(f1.use_tag, 1);
	CU_ASSERT_EQUAL(f1.tag_id, t1);
	CU_ASSERT_EQUAL(f2.tag_id, t2);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);

	/* STARPU_TAG_ONLY records the id without making it a dependency tag */
	struct starpu_task *task = starpu_task_build(&nop_cl, STARPU_TAG_ONLY, (starpu_tag_t) 0xabc3, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(task);
	CU_ASSERT_EQUAL(task->tag_id, 0xabc3);
	CU_ASSERT_EQUAL(task->use_tag, 0);
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);

	struct fields_seen f3;
	memset(&f3, 0, sizeof(f3));
	struct fields_seen *p3 = &f3;
	CU_ASSERT_EQUAL(starpu_task_insert(&fields_cl, STARPU_VALUE, &p3, sizeof(p3),
					   STARPU_TAG_ONLY, (starpu_tag_t) 0xabc4, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(f3.runs, 1);
	CU_ASSERT_EQUAL(f3.use_tag, 0);
	CU_ASSERT_EQUAL(f3.tag_id, 0xabc4);
}

static void test_execute_on_worker(void)
{
	enum { PER = 6 };
	struct fields_seen f[2][PER];
	memset(f, 0, sizeof(f));
	for (int k = 0; k < PER; k++)
		for (int w = 0; w < 2; w++)
		{
			struct fields_seen *p = &f[w][k];
			CU_ASSERT_EQUAL(starpu_task_insert(&fields_cl, STARPU_VALUE, &p, sizeof(p),
							   STARPU_EXECUTE_ON_WORKER, w, 0), 0);
		}
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (int w = 0; w < 2; w++)
		for (int k = 0; k < PER; k++)
		{
			CU_ASSERT_EQUAL(f[w][k].runs, 1);
			CU_ASSERT_EQUAL(f[w][k].workerid, w);
		}

	/* and as seen on a built task */
	struct starpu_task *task = starpu_task_build(&nop_cl, STARPU_EXECUTE_ON_WORKER, 1, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(task);
	CU_ASSERT_EQUAL(task->execute_on_a_specific_worker, 1);
	CU_ASSERT_EQUAL(task->workerid, 1);
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
}

static void test_execute_where(void)
{
	struct starpu_task *task = starpu_task_build(&nop_cl,
						     STARPU_EXECUTE_WHERE, (unsigned long long) STARPU_CPU, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(task);
	CU_ASSERT_EQUAL(task->where, STARPU_CPU);
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);

	struct fields_seen f;
	memset(&f, 0, sizeof(f));
	struct fields_seen *p = &f;
	CU_ASSERT_EQUAL(starpu_task_insert(&fields_cl, STARPU_VALUE, &p, sizeof(p),
					   STARPU_EXECUTE_WHERE, (unsigned long long) STARPU_CPU, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(f.runs, 1);
	CU_ASSERT_EQUAL(starpu_worker_get_type(f.workerid), STARPU_CPU_WORKER);

	/* restricting to a kind of worker that is absent: nobody can run it */
	CU_ASSERT_EQUAL(starpu_task_insert(&nop_cl, STARPU_EXECUTE_WHERE,
					   (unsigned long long) STARPU_CUDA, 0), -ENODEV);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
}

/* ---- arrays of data ----------------------------------------------------- */

/* Sums all int variables but the last into the last one. */
static void sum_cpu(void *buffers[], void *cl_arg)
{
	(void) cl_arg;
	int n = STARPU_TASK_GET_NBUFFERS(starpu_task_get_current());
	int s = 0;
	for (int i = 0; i < n - 1; i++)
		s += *(int *) STARPU_VARIABLE_GET_PTR(buffers[i]);
	*(int *) STARPU_VARIABLE_GET_PTR(buffers[n - 1]) = s;
}

static struct starpu_codelet sum4_cl =
{
	.cpu_funcs = { sum_cpu },
	.nbuffers = 4,
	.modes = { STARPU_R, STARPU_R, STARPU_R, STARPU_W },
};

static struct starpu_codelet sumvar_cl =
{
	.cpu_funcs = { sum_cpu },
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
};

static void test_data_array(void)
{
	int in[3] = { 5, 6, 7 }, out = 0, out2 = 0;
	starpu_data_handle_t h[3], hout, hout2;
	for (int i = 0; i < 3; i++)
		starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) &in[i], sizeof(int));
	starpu_variable_data_register(&hout, STARPU_MAIN_RAM, (uintptr_t) &out, sizeof(int));
	starpu_variable_data_register(&hout2, STARPU_MAIN_RAM, (uintptr_t) &out2, sizeof(int));

	/* modes come from the codelet */
	CU_ASSERT_EQUAL(starpu_task_insert(&sum4_cl, STARPU_DATA_ARRAY, h, 3, STARPU_W, hout, 0), 0);
	starpu_data_handle_t all[4] = { h[0], h[1], h[2], hout2 };
	CU_ASSERT_EQUAL(starpu_task_insert(&sum4_cl, STARPU_DATA_ARRAY, all, 4, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (int i = 0; i < 3; i++)
		starpu_data_unregister(h[i]);
	starpu_data_unregister(hout);
	starpu_data_unregister(hout2);
	CU_ASSERT_EQUAL(out, 18);
	CU_ASSERT_EQUAL(out2, 18);
}

static void test_data_mode_array(void)
{
	enum { N = 12 };	/* more than STARPU_NMAXBUFS */
	int v[N];
	starpu_data_handle_t h[N];
	struct starpu_data_descr descr[N];
	for (int i = 0; i < N; i++)
	{
		v[i] = i < N - 1 ? i * i : -1;
		starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) &v[i], sizeof(int));
		descr[i].handle = h[i];
		descr[i].mode = i < N - 1 ? STARPU_R : STARPU_W;
	}
	CU_ASSERT_EQUAL(starpu_task_insert(&sumvar_cl, STARPU_DATA_MODE_ARRAY, descr, N, 0), 0);
	/* mixing an array with a separate handle on a variable-buffer codelet */
	int out = 0;
	starpu_data_handle_t hout;
	starpu_variable_data_register(&hout, STARPU_MAIN_RAM, (uintptr_t) &out, sizeof(int));
	CU_ASSERT_EQUAL(starpu_task_insert(&sumvar_cl, STARPU_DATA_MODE_ARRAY, descr, N - 1,
					   STARPU_R, h[N - 1], STARPU_W, hout, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	for (int i = 0; i < N; i++)
		starpu_data_unregister(h[i]);
	starpu_data_unregister(hout);
	int expect = 0;
	for (int i = 0; i < N - 1; i++)
		expect += i * i;
	CU_ASSERT_EQUAL(v[N - 1], expect);
	CU_ASSERT_EQUAL(out, 2 * expect);
}

/* ---- starpu_task_build / starpu_insert_task ------------------------------ */

static void test_task_build(void)
{
	int x = 10;
	int v[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	starpu_data_handle_t hx, hv;
	starpu_variable_data_register(&hx, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(x));
	starpu_vector_data_register(&hv, STARPU_MAIN_RAM, (uintptr_t) v, 8, sizeof(int));

	int factor = 5;
	atomic_store(&ncb, 0);
	int *arg = malloc(sizeof(int));
	*arg = 77;
	struct starpu_task *task = starpu_task_build(&vscale_cl,
						     STARPU_RW, hv,
						     STARPU_VALUE, &factor, sizeof(factor),
						     STARPU_CALLBACK_WITH_ARG, record_callback, arg,
						     STARPU_NAME, "built",
						     0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(task);
	CU_ASSERT_PTR_EQUAL(task->cl, &vscale_cl);
	CU_ASSERT_EQUAL(STARPU_TASK_GET_NBUFFERS(task), 1);
	CU_ASSERT_PTR_EQUAL(STARPU_TASK_GET_HANDLE(task, 0), hv);
	CU_ASSERT_PTR_NOT_NULL(task->cl_arg);
	CU_ASSERT(task->cl_arg_size >= sizeof(int));
	CU_ASSERT_EQUAL(task->cl_arg_free, 1);
	CU_ASSERT_PTR_EQUAL(task->callback_func, record_callback);
	CU_ASSERT_PTR_EQUAL(task->callback_arg, arg);
	CU_ASSERT_STRING_EQUAL(task->name, "built");
	/* nothing ran yet */
	CU_ASSERT_EQUAL(v[0], 1);
	CU_ASSERT_EQUAL(starpu_task_submit(task), 0);

	/* the old name does the same as starpu_task_insert */
	CU_ASSERT_EQUAL(starpu_insert_task(&incr_cl, STARPU_RW, hx, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(atomic_load(&ncb), 1);
	CU_ASSERT_EQUAL(cb_payload[0], 77);
	starpu_data_unregister(hx);
	starpu_data_unregister(hv);
	CU_ASSERT_EQUAL(x, 11);
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(v[i], 5);
}

/* STARPU_TASK_DEPS_ARRAY and STARPU_TASK_SYNCHRONOUS */
static atomic_int order_seq;

static void order_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	int *slot;
	starpu_codelet_unpack_args(cl_arg, &slot);
	*slot = atomic_fetch_add(&order_seq, 1);
}

static struct starpu_codelet order_cl =
{
	.cpu_funcs = { order_cpu },
	.nbuffers = 0,
};

static void test_deps_array_synchronous(void)
{
	atomic_store(&order_seq, 0);
	int s0 = -1, s1 = -1, s2 = -1;
	int *p0 = &s0, *p1 = &s1, *p2 = &s2;
	struct starpu_task *first = starpu_task_build(&order_cl, STARPU_VALUE, &p0, sizeof(p0), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(first);
	/* the dependent one is inserted before its predecessor is submitted */
	CU_ASSERT_EQUAL(starpu_task_insert(&order_cl, STARPU_VALUE, &p1, sizeof(p1),
					   STARPU_TASK_DEPS_ARRAY, 1, &first, 0), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(first), 0);
	CU_ASSERT_EQUAL(starpu_task_wait_for_all(), 0);
	CU_ASSERT_EQUAL(s0, 0);
	CU_ASSERT_EQUAL(s1, 1);

	CU_ASSERT_EQUAL(starpu_task_insert(&order_cl, STARPU_VALUE, &p2, sizeof(p2),
					   STARPU_TASK_SYNCHRONOUS, 1, 0), 0);
	/* done on return */
	CU_ASSERT_EQUAL(s2, 2);
}

static const struct vtest_case data_cases[] =
{
	{ "r_w_rw", test_r_w_rw },
	{ "scratch", test_scratch },
	{ "redux", test_redux },
	{ "commute", test_commute },
	{ "data_array", test_data_array },
	{ "data_mode_array", test_data_mode_array },
	VTEST_END
};

static const struct vtest_case arg_cases[] =
{
	{ "values", test_values },
	{ "cl_args", test_cl_args },
	{ "pack_unpack_roundtrip", test_pack_unpack_roundtrip },
	{ "callbacks", test_callbacks },
	{ "priority_name_flops", test_priority_name_flops },
	{ "tag", test_tag },
	{ "execute_on_worker", test_execute_on_worker },
	{ "execute_where", test_execute_where },
	{ "task_build", test_task_build },
	{ "deps_array_synchronous", test_deps_array_synchronous },
	VTEST_END
};

static const struct vtest_suite suites[] =
{
	{ "insert_data", suite_init, vtest_stop, data_cases },
	{ "insert_args", suite_init, vtest_stop, arg_cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	return vtest_run(argc, argv, suites);
}
