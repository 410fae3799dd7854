/*
 * gemm.c — tiled dense matrix product C = A * B in double precision, on the
 * CPU workers (OpenBLAS) and, when there are some, the OpenCL workers.
 *
 * Shows: one matrix handle per tile (tiles are allocated separately, no
 * partitioning API), a codelet with two implementations that the scheduler
 * chooses between per task — cblas_dgemm on a CPU worker, an OpenCL kernel
 * on an OpenCL worker, queued without waiting (STARPU_OPENCL_ASYNC) so that
 * the worker can hand the device its next tile product meanwhile — and
 * implicit data dependencies: the NT tasks that accumulate into one C tile
 * all take it in STARPU_RW mode, so the runtime chains them in submission
 * order while tasks on different C tiles run in parallel, and it moves the
 * tiles between RAM and the devices as the tasks need them.
 *
 * The product is computed for each scheduler named with -s, -r times per
 * scheduler, each time in its own starpu_init/starpu_shutdown session; the
 * fastest counts (the first session of a process pays for cold BLAS
 * threads and caches, as in tiled_app.h). Under heteroprio the program says
 * which kind of worker is the faster (conf.sched_policy_init, see hp_init).
 * A history-based performance model per implementation lets dm* schedulers
 * weigh CPU against device (they calibrate it as they go).
 *
 * Layout: matrices and tiles are column-major. In a matrix handle NX is the
 * number of rows (the contiguous dimension), NY the number of columns and LD
 * the distance between columns. The last tile row/column is smaller when BS
 * does not divide N.
 *
 * Each run is compared with one whole-matrix cblas_dgemm, computed once:
 * ‖C − C_ref‖_F / ‖C_ref‖_F must stay under 1e-12 whichever worker did
 * which tile (the sums run in another order on the device, hence not exact).
 * --no-ref skips that reference, and with it the check (bench/sim_accuracy
 * times many runs and checks none).
 *
 * Simulated runs (Vela with STARPU_SIMGRID=1, or a StarPU built with
 * SimGrid): kernels never run, so nothing is checked, and the tiles stay
 * registered in RAM as in a real run, so that the simulation moves them to
 * the devices as the real run does. Tile products are counted per kind of
 * worker in the task's callback, which runs on the worker that ran the task
 * in real and simulated runs alike.
 *
 * OpenCL devices: StarPU (and Vela) use CPU devices such as PoCL's only with
 * STARPU_OPENCL_ON_CPUS=1. The kernel needs double precision (cl_khr_fp64,
 * which PoCL has).
 *
 * Usage: gemm [-n N] [-b BS] [-s SCHED,SCHED,...] [-r REPS] [-w any|cpu|opencl]
 *             [--no-check] [--no-ref]
 * Exit: 0 success, 1 wrong result or error, 77 no worker of the kind asked.
 */
/*
 * OpenBLAS's cblas.h defines _GNU_SOURCE part-way through the includes, which
 * makes StarPU's STARPU_CHECK_RETURN_VALUE pick the GNU strerror_r while
 * <string.h> declared the XSI one. Defining it first keeps both consistent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <starpu.h>
#include <starpu_heteroprio.h>

/* OpenBLAS would otherwise start its own threads inside every task. */
extern void openblas_set_num_threads(int num_threads);

/* Tile products per kind of worker, to show where the work went, counted
 * by count_tile (the tasks' callback). Relaxed atomics: only the totals
 * after starpu_task_wait_for_all matter. */
static unsigned long ran_on_cpu, ran_on_opencl;

static void count_tile(void *arg)
{
	(void)arg;
	int w = starpu_worker_get_id();
	if (w < 0)
		return;
	if (starpu_worker_get_type(w) == STARPU_OPENCL_WORKER)
		__atomic_fetch_add(&ran_on_opencl, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&ran_on_cpu, 1, __ATOMIC_RELAXED);
}

/* Is this run simulated? Vela decides at run time (known before
 * starpu_init when STARPU_SIMGRID=1 is set at process start); a StarPU
 * built with SimGrid says so at compile time. */
static int run_is_simulated(void)
{
#if defined(VELA_VERSION_STRING)
	return vela_is_simulated();
#elif defined(STARPU_SIMGRID)
	return 1;
#else
	return 0;
#endif
}

static void gemm_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	const double *a = (const double *)STARPU_MATRIX_GET_PTR(buffers[0]);
	const double *b = (const double *)STARPU_MATRIX_GET_PTR(buffers[1]);
	double *c = (double *)STARPU_MATRIX_GET_PTR(buffers[2]);
	const int m = (int)STARPU_MATRIX_GET_NX(buffers[2]);
	const int n = (int)STARPU_MATRIX_GET_NY(buffers[2]);
	const int k = (int)STARPU_MATRIX_GET_NY(buffers[0]);

	/* C += A * B: the C tiles start at zero and accumulate over k. */
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k,
		    1.0, a, (int)STARPU_MATRIX_GET_LD(buffers[0]),
		    b, (int)STARPU_MATRIX_GET_LD(buffers[1]),
		    1.0, c, (int)STARPU_MATRIX_GET_LD(buffers[2]));
}

#ifdef STARPU_USE_OPENCL
/*
 * The device kernel: C(m×n) += A(m×k) · B(k×n), column-major with leading
 * dimensions, offsets in elements. Work-item (r, q) computes the 8×8 block
 * of C at rows 8r.., columns 8q..: per step of the k loop it loads 8
 * consecutive elements of a column of A as one double8 (a CPU device turns
 * that into one vector load) and 8 elements of a row of B, and does 8
 * vector multiply-adds into 8 double8 accumulators that stay in registers.
 * Blocks cut by the tile's edge take the scalar path.
 */
#define GEMM_BLOCK 8	/* rows and columns of C per work-item */
static const char *gemm_kernel_source =
	"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	"#define ACC(q) acc##q = fma(x, (double8)(b[p + q * ldb]), acc##q)\n"
	"#define STORE(q) vstore8(vload8(0, c + q * ldc) + acc##q, 0, c + q * ldc)\n"
	"__kernel void gemm_tile(int m, int n, int k,\n"
	"	__global const double *a, int a_off, int lda,\n"
	"	__global const double *b, int b_off, int ldb,\n"
	"	__global double *c, int c_off, int ldc)\n"
	"{\n"
	"	int i0 = get_global_id(0) * 8, j0 = get_global_id(1) * 8;\n"
	"	if (i0 >= m || j0 >= n)\n"
	"		return;\n"
	"	a += a_off + i0;\n"
	"	b += b_off + j0 * ldb;\n"
	"	c += c_off + i0 + j0 * ldc;\n"
	"	if (i0 + 8 <= m && j0 + 8 <= n) {\n"
	"		double8 acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0, acc4 = 0, acc5 = 0, acc6 = 0, acc7 = 0;\n"
	"		for (int p = 0; p < k; p++) {\n"
	"			double8 x = vload8(0, a + p * lda);\n"
	"			ACC(0); ACC(1); ACC(2); ACC(3); ACC(4); ACC(5); ACC(6); ACC(7);\n"
	"		}\n"
	"		STORE(0); STORE(1); STORE(2); STORE(3); STORE(4); STORE(5); STORE(6); STORE(7);\n"
	"		return;\n"
	"	}\n"
	"	int mi = min(8, m - i0), nj = min(8, n - j0);\n"
	"	for (int q = 0; q < nj; q++)\n"
	"		for (int r = 0; r < mi; r++) {\n"
	"			double s = 0.0;\n"
	"			for (int p = 0; p < k; p++)\n"
	"				s = fma(a[r + p * lda], b[p + q * ldb], s);\n"
	"			c[r + q * ldc] += s;\n"
	"		}\n"
	"}\n";

/* Built for every OpenCL device after starpu_init, released before shutdown. */
static struct starpu_opencl_program gemm_program;

static void gemm_opencl(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	const size_t es = sizeof(double);
	cl_mem a = (cl_mem)STARPU_MATRIX_GET_DEV_HANDLE(buffers[0]);
	cl_mem b = (cl_mem)STARPU_MATRIX_GET_DEV_HANDLE(buffers[1]);
	cl_mem c = (cl_mem)STARPU_MATRIX_GET_DEV_HANDLE(buffers[2]);
	cl_int m = (cl_int)STARPU_MATRIX_GET_NX(buffers[2]);
	cl_int n = (cl_int)STARPU_MATRIX_GET_NY(buffers[2]);
	cl_int k = (cl_int)STARPU_MATRIX_GET_NY(buffers[0]);
	cl_int a_off = (cl_int)(STARPU_MATRIX_GET_OFFSET(buffers[0]) / es);
	cl_int b_off = (cl_int)(STARPU_MATRIX_GET_OFFSET(buffers[1]) / es);
	cl_int c_off = (cl_int)(STARPU_MATRIX_GET_OFFSET(buffers[2]) / es);
	cl_int lda = (cl_int)STARPU_MATRIX_GET_LD(buffers[0]);
	cl_int ldb = (cl_int)STARPU_MATRIX_GET_LD(buffers[1]);
	cl_int ldc = (cl_int)STARPU_MATRIX_GET_LD(buffers[2]);

	cl_kernel kernel;
	cl_command_queue queue;
	int devid = starpu_worker_get_devid(starpu_worker_get_id_check());
	cl_int err = starpu_opencl_load_kernel(&kernel, &queue, &gemm_program, "gemm_tile", devid);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	int nargs = starpu_opencl_set_kernel_args(&err, &kernel,
						  sizeof(m), &m, sizeof(n), &n, sizeof(k), &k,
						  sizeof(a), &a, sizeof(a_off), &a_off, sizeof(lda), &lda,
						  sizeof(b), &b, sizeof(b_off), &b_off, sizeof(ldb), &ldb,
						  sizeof(c), &c, sizeof(c_off), &c_off, sizeof(ldc), &ldc,
						  0);
	if (nargs != 12)
		STARPU_OPENCL_REPORT_ERROR(err);
	size_t global[2] = { ((size_t)m + GEMM_BLOCK - 1) / GEMM_BLOCK,
			     ((size_t)n + GEMM_BLOCK - 1) / GEMM_BLOCK };
	/* STARPU_OPENCL_ASYNC: queue and return, no clFinish; the runtime
	 * learns from the queue when the kernel is done. */
	err = clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	/* The queued kernel keeps its own reference (OpenCL's rule). */
	starpu_opencl_release_kernel(kernel);
}
#endif /* STARPU_USE_OPENCL */

/* Keyed by the tile sizes (the default footprint), one entry per
 * implementation and worker kind: the CPU and the device each get theirs. */
static struct starpu_perfmodel gemm_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "vela_gemm_tile",
};

static struct starpu_codelet gemm_cl = {
	.cpu_funcs = { gemm_cpu },
	.cpu_funcs_name = { "gemm_cpu" },
#ifdef STARPU_USE_OPENCL
	.opencl_funcs = { gemm_opencl },
	.opencl_flags = { STARPU_OPENCL_ASYNC },
#endif
	.nbuffers = 3,
	.modes = { STARPU_R, STARPU_R, STARPU_RW },
	.model = &gemm_model,
	.name = "gemm",
};

/*
 * heteroprio: every tile product has priority 0, so one bucket that both
 * kinds of worker take from. The CPU (OpenBLAS) is named the faster kind
 * and the device may take a product only while more than two wait per CPU
 * worker: on this project's CI machine the "device" is PoCL on one core,
 * several times slower than OpenBLAS, so the last products go to the CPU.
 * On a machine with a real GPU, name STARPU_OPENCL_IDX the faster instead.
 */
static void hp_init(unsigned sched_ctx)
{
	starpu_heteroprio_set_nb_prios(sched_ctx, STARPU_CPU_IDX, 1);
	starpu_heteroprio_set_mapping(sched_ctx, STARPU_CPU_IDX, 0, 0);
	starpu_heteroprio_set_faster_arch(sched_ctx, STARPU_CPU_IDX, 0);
#ifdef STARPU_USE_OPENCL
	starpu_heteroprio_set_nb_prios(sched_ctx, STARPU_OPENCL_IDX, 1);
	starpu_heteroprio_set_mapping(sched_ctx, STARPU_OPENCL_IDX, 0, 0);
	starpu_heteroprio_set_arch_slow_factor(sched_ctx, STARPU_OPENCL_IDX, 0, 2.0f);
#endif
}

/* A square tiling of an n x n column-major matrix. */
struct tiled {
	int n, bs, nt;
	double **tiles;                 /* nt*nt tiles, tile (i,j) at [j*nt+i]; owned */
	starpu_data_handle_t *handles;  /* same indexing; valid while registered */
};

static int tile_dim(const struct tiled *t, int index)
{
	return index < t->nt - 1 ? t->bs : t->n - (t->nt - 1) * t->bs;
}

static double **tile_at(const struct tiled *t, int i, int j)
{
	return &t->tiles[(size_t)j * t->nt + i];
}

/* Plain malloc, not starpu_malloc: the tiles outlive the runtime sessions
 * (one per scheduler), and starpu_malloc's memory is the runtime's. */
static int tiled_alloc(struct tiled *t, int n, int bs)
{
	t->n = n;
	t->bs = bs;
	t->nt = (n + bs - 1) / bs;
	size_t count = (size_t)t->nt * t->nt;
	t->tiles = calloc(count, sizeof(*t->tiles));
	t->handles = calloc(count, sizeof(*t->handles));
	if (!t->tiles || !t->handles)
		return -ENOMEM;
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			size_t bytes = (size_t)tile_dim(t, i) * tile_dim(t, j) * sizeof(double);
			if (!(*tile_at(t, i, j) = malloc(bytes)))
				return -ENOMEM;
		}
	return 0;
}

static void tiled_free(struct tiled *t)
{
	if (t->tiles)
		for (size_t k = 0; k < (size_t)t->nt * t->nt; k++)
			free(t->tiles[k]);
	free(t->tiles);
	free(t->handles);
}

/* Copy between a full column-major matrix (leading dimension n) and the tiles. */
static void tiled_copy(struct tiled *t, double *full, int to_tiles)
{
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			int rows = tile_dim(t, i), cols = tile_dim(t, j);
			double *tile = *tile_at(t, i, j);
			double *corner = full + (size_t)j * t->bs * t->n + (size_t)i * t->bs;
			for (int c = 0; c < cols; c++) {
				double *tcol = tile + (size_t)c * rows;
				double *fcol = corner + (size_t)c * t->n;
				if (to_tiles)
					memcpy(tcol, fcol, rows * sizeof(double));
				else
					memcpy(fcol, tcol, rows * sizeof(double));
			}
		}
}

static void tiled_register(struct tiled *t)
{
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			int rows = tile_dim(t, i);
			starpu_matrix_data_register(&t->handles[(size_t)j * t->nt + i], STARPU_MAIN_RAM,
						    (uintptr_t)*tile_at(t, i, j), rows, rows,
						    tile_dim(t, j), sizeof(double));
		}
}

static void tiled_unregister(struct tiled *t)
{
	for (size_t k = 0; k < (size_t)t->nt * t->nt; k++)
		starpu_data_unregister(t->handles[k]);
}

static starpu_data_handle_t handle_at(const struct tiled *t, int i, int j)
{
	return t->handles[(size_t)j * t->nt + i];
}

/* Deterministic values in [-1, 1): the same run always gives the same inputs. */
static void fill_random(double *m, size_t count, uint64_t seed)
{
	uint64_t state = seed;
	for (size_t k = 0; k < count; k++) {
		state = state * 6364136223846793005ULL + 1442695040888963407ULL;
		m[k] = (double)(state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
	}
}

static double frobenius(const double *m, size_t count)
{
	double sum = 0.0;
	for (size_t k = 0; k < count; k++)
		sum += m[k] * m[k];
	return sqrt(sum);
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-n N] [-b BS] [-s SCHED,SCHED,...] [-r REPS] [-w any|cpu|opencl] [--no-check] [--no-ref]\n"
		"  -r REPS     sessions per scheduler, the fastest reported, all checked (default 1)\n"
		"  --no-check  do not compare the result with the reference\n"
		"  --no-ref    do not compute the whole-matrix reference (implies --no-check)\n",
		prog);
}

/* What the command line asked for, and the matrices all runs share. */
struct gemm_run {
	int n, bs, reps, check;
	uint32_t where;			/* STARPU_CPU and/or STARPU_OPENCL */
	const char *where_name;
	struct tiled a, b, c;
	double *c_full, *c_ref;		/* c_ref: NULL without a check */
};

/* What one session measured. */
struct gemm_session {
	double elapsed_us;
	unsigned long on_cpu, on_opencl;	/* tile products per kind of worker */
	unsigned ncpu, nocl;			/* workers */
	double rel_error;			/* -1: not checked */
	char ocl_name[128];			/* the first OpenCL worker, or "none" */
};

/* Skips (77) unless the session has a worker of every kind that -w names
 * (any: a CPU or an OpenCL worker). */
static int check_workers(const struct gemm_run *r)
{
	unsigned ncpu = starpu_cpu_worker_get_count(), nocl = starpu_opencl_worker_get_count();
	if (r->where == STARPU_CPU && ncpu == 0)
		fprintf(stderr, "gemm: skipped, no CPU worker available\n");
	else if (r->where == STARPU_OPENCL && nocl == 0)
		fprintf(stderr, "gemm: skipped, no OpenCL worker (for a CPU OpenCL device such as PoCL, "
			"set STARPU_OPENCL_ON_CPUS=1)\n");
	else if (ncpu + nocl == 0)
		fprintf(stderr, "gemm: skipped, neither a CPU nor an OpenCL worker\n");
	else
		return 0;
	return 77;
}

/* The first OpenCL worker's name, or "none". */
static void opencl_worker_name(char *name, size_t size)
{
	int w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	if (w < 0)
		snprintf(name, size, "none");
	else
		starpu_worker_get_name(w, name, size);
}

/* One session under one scheduler (NULL: the runtime's default): submit
 * the tile products, wait, check. Returns 0, 1 (error) or 77; a wrong
 * result is 0 with s->rel_error too large (the caller judges). */
static int run_session(struct gemm_run *r, const char *sched, struct gemm_session *s)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	if (sched) {
		conf.sched_policy_name = sched;
		if (strcmp(sched, "heteroprio") == 0)
			conf.sched_policy_init = hp_init;
	}
	int ret = starpu_init(&conf);
	if (ret == -ENODEV) {
		fprintf(stderr, "gemm: skipped, starpu_init found no worker (-ENODEV)\n");
		return 77;
	}
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_init");
	if (check_workers(r) != 0) {
		starpu_shutdown();
		return 77;
	}
	gemm_cl.where = r->where;
#ifdef STARPU_USE_OPENCL
	int have_program = 0;
	if ((r->where & STARPU_OPENCL) && starpu_opencl_worker_get_count() > 0) {
		ret = starpu_opencl_load_opencl_from_string(gemm_kernel_source, &gemm_program, NULL);
		if (ret != CL_SUCCESS) {
			fprintf(stderr, "gemm: building the OpenCL kernel failed (%d)\n", ret);
			starpu_shutdown();
			return 1;
		}
		have_program = 1;
	}
#endif
	ran_on_cpu = ran_on_opencl = 0;
	memset(r->c_full, 0, (size_t)r->n * r->n * sizeof(double));
	tiled_copy(&r->c, r->c_full, 1);
	tiled_register(&r->a);
	tiled_register(&r->b);
	tiled_register(&r->c);

	int status = 0;
	const struct tiled *c = &r->c;
	double start = starpu_timing_now();
	for (int i = 0; i < c->nt && status == 0; i++)
		for (int j = 0; j < c->nt && status == 0; j++)
			for (int k = 0; k < c->nt; k++) {
				double flops = 2.0 * tile_dim(c, i) * tile_dim(c, j) * tile_dim(c, k);
				ret = starpu_task_insert(&gemm_cl,
							 STARPU_R, handle_at(&r->a, i, k),
							 STARPU_R, handle_at(&r->b, k, j),
							 STARPU_RW, handle_at(c, i, j),
							 STARPU_FLOPS, flops,
							 STARPU_CALLBACK, count_tile,
							 0);
				if (ret == -ENODEV) {
					fprintf(stderr, "gemm: skipped, no worker can run the codelet\n");
					status = 77;
					break;
				}
				STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert gemm");
			}
	starpu_task_wait_for_all();
	s->elapsed_us = starpu_timing_now() - start;
	/* A task that could not run makes the time that of a partial run. */
#ifdef VELA_VERSION_STRING
	unsigned long nfailed = vela_task_failed_count();
#else
	unsigned long nfailed = 0;	/* StarPU 1.3 has no such count */
#endif
	if (nfailed && status == 0) {
		fprintf(stderr, "gemm: %lu task(s) failed (the runtime said why): "
			"no time is reported for an incomplete run\n", nfailed);
		status = 1;
	}

	/* Unregistering brings the up-to-date tiles back to RAM, to the application. */
	tiled_unregister(&r->a);
	tiled_unregister(&r->b);
	tiled_unregister(&r->c);

	opencl_worker_name(s->ocl_name, sizeof(s->ocl_name));
	s->ncpu = starpu_cpu_worker_get_count();
	s->nocl = starpu_opencl_worker_get_count();
	s->on_cpu = ran_on_cpu;
	s->on_opencl = ran_on_opencl;
#ifdef STARPU_USE_OPENCL
	if (have_program)
		starpu_opencl_unload_opencl(&gemm_program);
#endif
	starpu_shutdown();
	if (status != 0)
		return status;

	s->rel_error = -1.0;
	if (r->c_ref) {
		size_t elems = (size_t)r->n * r->n;
		tiled_copy(&r->c, r->c_full, 0);
		double diff = 0.0;
		for (size_t e = 0; e < elems; e++) {
			double d = r->c_ref[e] - r->c_full[e];
			diff += d * d;
		}
		s->rel_error = sqrt(diff) / frobenius(r->c_ref, elems);
	}
	return 0;
}

/* -r sessions under one scheduler; one line with the fastest session's
 * time and tile counts, and the worst error of all. Returns 0, 1 (wrong
 * result, error) or 77. */
static int run_sched(struct gemm_run *r, const char *sched)
{
	struct gemm_session best = { .elapsed_us = INFINITY };
	double worst_error = -1.0;
	int failed = 0;
	for (int rep = 0; rep < r->reps; rep++) {
		struct gemm_session s;
		int ret = run_session(r, sched, &s);
		if (ret != 0)
			return ret;
		/* Written so that a NaN error counts as a failure. */
		if (s.rel_error >= 0.0 && !(s.rel_error < 1e-12))
			failed = 1;
		if (!(s.rel_error <= worst_error))
			worst_error = s.rel_error;
		if (s.elapsed_us < best.elapsed_us)
			best = s;
	}
	const char *verdict = worst_error < 0.0 ? "skipped" : failed ? "FAILED" : "ok";
	double gflops = 2.0 * r->n * (double)r->n * r->n / (best.elapsed_us * 1e3);
	printf("gemm  n=%d bs=%d  sched=%s  workers=%ucpu+%uopencl  time=%8.1f ms  GFlop/s=%6.2f  "
	       "tiles cpu=%lu opencl=%lu  rel_error=%.2e  check=%s\n",
	       r->n, r->bs, sched ? sched : "default", best.ncpu, best.nocl, best.elapsed_us / 1000.0,
	       gflops, best.on_cpu, best.on_opencl, worst_error < 0.0 ? 0.0 : worst_error, verdict);
	if (best.nocl > 0)
		printf("#   OpenCL worker: %s\n", best.ocl_name);
	fflush(stdout);
	return failed;
}

int main(int argc, char **argv)
{
	struct gemm_run r = { .n = 1024, .bs = 256, .reps = 1, .check = 1,
			      .where = STARPU_CPU | STARPU_OPENCL, .where_name = "any" };
	char *scheds = NULL;
	int ref = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
			r.n = atoi(argv[++i]);
		} else if (strcmp(argv[i], "-b") == 0 && i + 1 < argc) {
			r.bs = atoi(argv[++i]);
		} else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
			scheds = argv[++i];
		} else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
			r.reps = atoi(argv[++i]);
		} else if (strcmp(argv[i], "-w") == 0 && i + 1 < argc) {
			r.where_name = argv[++i];
			if (strcmp(r.where_name, "cpu") == 0)
				r.where = STARPU_CPU;
			else if (strcmp(r.where_name, "opencl") == 0)
				r.where = STARPU_OPENCL;
			else if (strcmp(r.where_name, "any") == 0)
				r.where = STARPU_CPU | STARPU_OPENCL;
			else {
				fprintf(stderr, "gemm: -w must be any, cpu or opencl, not '%s'\n", r.where_name);
				return 1;
			}
		} else if (strcmp(argv[i], "--no-check") == 0) {
			r.check = 0;
		} else if (strcmp(argv[i], "--no-ref") == 0) {
			ref = 0;
		} else {
			usage(argv[0]);
			return 1;
		}
	}
	if (r.n < 1 || r.bs < 1 || r.reps < 1) {
		fprintf(stderr, "gemm: N, BS and REPS must be positive (got n=%d bs=%d r=%d)\n",
			r.n, r.bs, r.reps);
		return 1;
	}
	if (r.bs > r.n)
		r.bs = r.n;
#ifndef STARPU_USE_OPENCL
	if (r.where == STARPU_OPENCL) {
		fprintf(stderr, "gemm: skipped, built without OpenCL (STARPU_USE_OPENCL undefined)\n");
		return 77;
	}
#endif
	/* The check compares with the reference; a simulation runs no kernel. */
	if (!ref || run_is_simulated())
		r.check = 0;
	/* An explicit -s must win over STARPU_SCHED, which takes precedence
	 * over conf.sched_policy_name. */
	if (scheds)
		unsetenv("STARPU_SCHED");

	openblas_set_num_threads(1);

	size_t elems = (size_t)r.n * r.n;
	double *a_full = malloc(elems * sizeof(double));
	double *b_full = malloc(elems * sizeof(double));
	r.c_full = malloc(elems * sizeof(double));
	r.c_ref = r.check ? malloc(elems * sizeof(double)) : NULL;
	int status = 1;

	if (!a_full || !b_full || !r.c_full || (r.check && !r.c_ref) || tiled_alloc(&r.a, r.n, r.bs) != 0
	    || tiled_alloc(&r.b, r.n, r.bs) != 0 || tiled_alloc(&r.c, r.n, r.bs) != 0) {
		fprintf(stderr, "gemm: out of memory for n=%d\n", r.n);
		goto out;
	}
	fill_random(a_full, elems, 1);
	fill_random(b_full, elems, 2);
	tiled_copy(&r.a, a_full, 1);
	tiled_copy(&r.b, b_full, 1);
	if (r.c_ref)
		cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, r.n, r.n, r.n,
			    1.0, a_full, r.n, b_full, r.n, 0.0, r.c_ref, r.n);

	/* One line per scheduler; the worst status wins (1 over 77 over 0). */
	status = 0;
	if (!scheds) {
		status = run_sched(&r, NULL);
	} else {
		char *save = NULL;
		for (char *s = strtok_r(scheds, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
			int st = run_sched(&r, s);
			if (st == 1 || (st == 77 && status == 0))
				status = st;
			if (st == 77)
				break;	/* the same workers under every scheduler */
		}
	}

out:
	tiled_free(&r.a);
	tiled_free(&r.b);
	tiled_free(&r.c);
	free(a_full);
	free(b_full);
	free(r.c_full);
	free(r.c_ref);
	return status;
}
