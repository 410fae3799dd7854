/*
 * tiled_app.h — the driver shared by the tiled factorization examples
 * (cholesky.c, lu.c): options, usage, the tiles' storage and registration,
 * one runtime session per repetition, and the per-scheduler loop with its
 * output lines.
 *
 * A program describes itself in a struct tiled_app (its name, flop and task
 * counts, matrix generator, tile layout, task submission, residual check,
 * sequential LAPACK reference, codelets) and its main() returns
 * tiled_app_main(&app, argc, argv). Everything numerical — kernels,
 * codelets, priorities, which tiles exist and in what order they are stored —
 * stays in the program; what is here is the same for every factorization.
 *
 * Like the programs, this header builds unchanged against Debian's StarPU 1.3
 * and against Vela: the programs are compiled as single source files by the
 * benchmarks (bench/compare-lib.sh), which find it next to them through
 * #include "tiled_app.h". Vela-only calls stay under VELA_VERSION_STRING.
 *
 * The output is parsed by scripts (scripts/demo.sh, bench/compare-sched,
 * bench/sim_accuracy, bench/sim_speed, the *-quick.sh tests here): keep the lines
 * "# tiled ...", "# reference: ...", "# runtime: ..." and
 * "NAME  n=... sched=... time=... GFlop/s=... check=..." as they are.
 *
 * Include it after defining _GNU_SOURCE and including <cblas.h> (see
 * cholesky.c). Everything is static: one program, one copy.
 */
#ifndef VELA_EXAMPLES_TILED_APP_H
#define VELA_EXAMPLES_TILED_APP_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <starpu.h>

#include "tiled_cuda.h"

/*
 * StarPU 1.4 renamed MPI master/slave to server/client (STARPU_MPI_SC):
 * the same workers under the new names, so the programs also build against
 * a StarPU 1.4 (bench/compare-starpusim builds them against StarPU's own
 * simulator).
 */
#if !defined(STARPU_MPI_MS) && defined(STARPU_MPI_SC)
#define STARPU_MPI_MS STARPU_MPI_SC
#define starpu_mpi_ms_worker_get_count starpu_mpi_sc_worker_get_count
#endif

/* OpenBLAS would otherwise start its own threads inside every task. */
extern void openblas_set_num_threads(int num_threads);

#define TILED_DEFAULT_N 4096
#define TILED_DEFAULT_BS 512
#define TILED_QUICK_N 512
#define TILED_QUICK_BS 128
/* Best of two smooths out a noisy machine; the quick run does one. */
#define TILED_DEFAULT_REPS 2
#define TILED_QUICK_REPS 1
#define TILED_DEFAULT_SCHEDS "eager,prio,random,ws,lws"
/* Backward error of a stable factorization is O(n * eps); this leaves margin. */
#define TILED_CHECK_TOLERANCE 1e-10

/*
 * The n x n matrix cut into nt x nt tiles, each allocated on its own with
 * posix_memalign: they outlive every runtime session (registered again in
 * each one and checked after starpu_shutdown), so not starpu_malloc. Which
 * tiles exist and where tile (i, j) is stored is the program's layout
 * (struct tiled_app's tile_count and tile_index).
 *
 * Without data (simulation: kernels do not run, nothing reads or writes the
 * tiles) the tiles are carved from one reservation of address space that is
 * never touched (MAP_NORESERVE: no memory behind it, so a 27 GB matrix
 * costs nothing), and registered in RAM like a real run's. The simulated run
 * then starts where the real one does, the input valid in RAM (transfers
 * to GPUs included), and the runtime sees no read of data that nothing
 * wrote. Where the system refuses the reservation (strict overcommit),
 * tiles is NULL and the handles are registered with home node -1.
 */
struct tiled {
	int n, bs, nt;
	size_t count;                   /* number of stored tiles */
	double **tiles;                 /* [tile_index(i, j)]; owned, free()d by tiled_free; NULL without data */
	void *untouched;                /* without data: the reservation tiles point into (owned, munmap) */
	size_t untouched_bytes;
	starpu_data_handle_t *handles;  /* same indexing; valid between register and unregister */
	long (*index)(const struct tiled *t, int i, int j); /* the program's tile_index */
};

/* What a factorization program tells the driver about itself. */
struct tiled_app {
	const char *name;        /* "cholesky": message prefix and result lines */
	const char *title;       /* "Cholesky": the "# tiled ..." header line */
	const char *check_what;  /* "||A - L L^T||", for usage */
	const char *ref_routine; /* "dpotrf": the LAPACK call timed as a yardstick */

	double (*flops)(int n);
	long (*tasks)(int nt);
	/* Fill the n x n column-major input; the same every call. */
	void (*generate)(double *a, int n);
	/* One sequential ref_routine on a copy of the whole matrix: seconds, or -1. */
	double (*reference)(const double *a, int n);

	/* Layout: how many tiles an nt x nt tiling stores, and where (i, j) is
	 * stored in [0, count), or -1 when the layout has no tile (i, j). */
	size_t (*tile_count)(int nt);
	long (*tile_index)(const struct tiled *t, int i, int j);

	/* Submit the whole factorization; 0 or the first submission error. */
	int (*submit)(struct tiled *t);
	/* Before each submission: forget what the kernels reported last time. */
	void (*reset_kernel_status)(void);
	/* After a real run: nonzero (having said why on stderr) when a kernel
	 * reported a failure. */
	int (*kernel_failed)(const char *sched);
	/* ||A - factors||_F / ||A||_F on the host; may modify the tiles. */
	double (*residual)(struct tiled *t, const double *a_full);

	/* NULL-terminated: given Vela's vela_sim_placeholder as CUDA
	 * implementation in a simulated run, so simulated GPUs take tasks. */
	struct starpu_codelet *const *codelets;
};

/*
 * Is this run simulated? Vela decides at run time (vela_is_simulated, known
 * before starpu_init when STARPU_SIMGRID=1 is in the environment at process
 * start); a StarPU built with SimGrid says so at compile time.
 */
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

/* Tile accessors for kernels: column-major, NX rows, NY columns, LD leading dimension. */
static double *tile_ptr(void *buffer)
{
	return (double *)STARPU_MATRIX_GET_PTR(buffer);
}

static int tile_rows(void *buffer)
{
	return (int)STARPU_MATRIX_GET_NX(buffer);
}

static int tile_cols(void *buffer)
{
	return (int)STARPU_MATRIX_GET_NY(buffer);
}

static int tile_ld(void *buffer)
{
	return (int)STARPU_MATRIX_GET_LD(buffer);
}

/* Rows (or columns) of tile row (or column) index: the last one is smaller when bs does not divide n. */
static int tile_dim(const struct tiled *t, int index)
{
	return index < t->nt - 1 ? t->bs : t->n - (t->nt - 1) * t->bs;
}

/* The stored tile (i, j), which the layout must have. */
static double *tile_at(const struct tiled *t, int i, int j)
{
	return t->tiles[t->index(t, i, j)];
}

static starpu_data_handle_t tile_handle(const struct tiled *t, int i, int j)
{
	return t->handles[t->index(t, i, j)];
}

/* Copy tile (i, j) of the full column-major matrix into a rows x cols buffer. */
static void copy_tile(const struct tiled *t, const double *full, int i, int j, double *dst)
{
	int rows = tile_dim(t, i), cols = tile_dim(t, j);
	const double *corner = full + (size_t)j * t->bs * t->n + (size_t)i * t->bs;
	for (int c = 0; c < cols; c++)
		memcpy(dst + (size_t)c * rows, corner + (size_t)c * t->n, rows * sizeof(double));
}

static int tiled_alloc(const struct tiled_app *app, struct tiled *t, int n, int bs, int with_data)
{
	t->n = n;
	t->bs = bs;
	t->nt = (n + bs - 1) / bs;
	t->count = app->tile_count(t->nt);
	t->index = app->tile_index;
	t->handles = calloc(t->count, sizeof(*t->handles));
	if (!t->handles)
		return -ENOMEM;
	t->tiles = calloc(t->count, sizeof(*t->tiles));
	if (!t->tiles)
		return -ENOMEM;
	if (!with_data) {
		/* Simulation: addresses only (see struct tiled). */
		size_t total = 0;
		for (int j = 0; j < t->nt; j++)
			for (int i = 0; i < t->nt; i++)
				if (t->index(t, i, j) >= 0)
					total += ((size_t)tile_dim(t, i) * tile_dim(t, j) * sizeof(double) + 63) & ~(size_t)63;
		void *area = mmap(NULL, total ? total : 1, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (area == MAP_FAILED) {
			free(t->tiles);
			t->tiles = NULL;	/* registered with home node -1 */
			return 0;
		}
		t->untouched = area;
		t->untouched_bytes = total ? total : 1;
		size_t off = 0;
		for (int j = 0; j < t->nt; j++)
			for (int i = 0; i < t->nt; i++) {
				long k = t->index(t, i, j);
				if (k < 0)
					continue;
				t->tiles[k] = (double *)((char *)area + off);
				off += ((size_t)tile_dim(t, i) * tile_dim(t, j) * sizeof(double) + 63) & ~(size_t)63;
			}
		return 0;
	}
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			long k = t->index(t, i, j);
			if (k < 0)
				continue;
			size_t bytes = (size_t)tile_dim(t, i) * tile_dim(t, j) * sizeof(double);
			void *tile = NULL;
			if (posix_memalign(&tile, 64, bytes) != 0)
				return -ENOMEM;
			t->tiles[k] = tile;
		}
	return 0;
}

static void tiled_free(struct tiled *t)
{
	if (t->untouched)
		munmap(t->untouched, t->untouched_bytes);
	else if (t->tiles)
		for (size_t k = 0; k < t->count; k++)
			free(t->tiles[k]);
	t->untouched = NULL;
	free(t->tiles);
	free(t->handles);
	t->tiles = NULL;
	t->handles = NULL;
}

/* Refill the tiles from the saved matrix: every run factorizes the same input. */
static void tiled_load(struct tiled *t, const double *full)
{
	if (!t->tiles || !full)
		return;
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++)
			if (t->index(t, i, j) >= 0)
				copy_tile(t, full, i, j, tile_at(t, i, j));
}

static void tiled_register(struct tiled *t)
{
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			long k = t->index(t, i, j);
			if (k < 0)
				continue;
			int rows = tile_dim(t, i);
			starpu_matrix_data_register(&t->handles[k], t->tiles ? STARPU_MAIN_RAM : -1,
						    t->tiles ? (uintptr_t)t->tiles[k] : 0,
						    rows, rows, tile_dim(t, j), sizeof(double));
		}
}

/* --pin: page-lock the tiles for the GPUs' copies (a no-op without GPUs). */
static void tiled_pin(struct tiled *t, int pin)
{
	if (!t->tiles || t->untouched)
		return;
	for (int j = 0; j < t->nt; j++)
		for (int i = 0; i < t->nt; i++) {
			long k = t->index(t, i, j);
			if (k < 0)
				continue;
			size_t bytes = (size_t)tile_dim(t, i) * tile_dim(t, j) * sizeof(double);
			if (pin)
				starpu_memory_pin(t->tiles[k], bytes);
			else
				starpu_memory_unpin(t->tiles[k], bytes);
		}
}

/*
 * --prefetch: every tile copied to the first CUDA worker's memory before the
 * clock starts (synchronously, one after the other), so that the time is the
 * factorization's on data already on the GPU. Without a GPU it does nothing.
 */
static void tiled_prefetch(struct tiled *t)
{
	int worker = -1;
	if (starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, &worker, 1) < 1 || worker < 0)
		return;
	unsigned node = starpu_worker_get_memory_node(worker);
	for (size_t k = 0; k < t->count; k++) {
		int ret = t->handles[k] ? starpu_data_fetch_on_node(t->handles[k], node, 0) : 0;
		if (ret) {
			/* The GPU is full (the matrix is larger than its memory):
			 * the rest starts in RAM. */
			fprintf(stderr, "tiled: --prefetch stopped at tile %zu of %zu: %s\n", k, t->count, strerror(-ret));
			break;
		}
	}
}

static void tiled_unregister(struct tiled *t)
{
	for (size_t k = 0; k < t->count; k++)
		starpu_data_unregister(t->handles[k]);
}

/*
 * Wall clock for the reference run, which happens before starpu_init:
 * starpu_timing_now() is only promised to work while the runtime is up.
 */
static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * In a simulated run (Vela) the codelets also declare a CUDA implementation,
 * Vela's vela_sim_placeholder, so that simulated GPUs take tasks (their
 * durations come from the models' cuda entries, e.g. perfmodels/). Built
 * with CUDA, the codelets have their real cuBLAS/cuSOLVER implementations
 * instead, declared for real and simulated runs alike. A StarPU built with
 * SimGrid (and without CUDA) likewise needs some CUDA implementation to
 * give simulated GPUs tasks; it never calls it.
 */
#if defined(STARPU_SIMGRID) && !defined(VELA_VERSION_STRING) && !defined(STARPU_USE_CUDA)
static void simulated_cuda_kernel(void *buffers[], void *cl_arg)
{
	(void)buffers;
	(void)cl_arg;
	fprintf(stderr, "tiled: a simulated CUDA kernel was called\n");
	abort();
}
#endif

static void enable_simulated_gpus(const struct tiled_app *app)
{
#if !defined(STARPU_USE_CUDA) && (defined(VELA_VERSION_STRING) || defined(STARPU_SIMGRID))
	for (struct starpu_codelet *const *cl = app->codelets; *cl; cl++) {
#if defined(VELA_VERSION_STRING)
		(*cl)->cuda_funcs[0] = vela_sim_placeholder;
#else
		(*cl)->cuda_funcs[0] = simulated_cuda_kernel;
#endif
		(*cl)->where |= STARPU_CUDA;
	}
#else
	(void)app;
#endif
}

struct tiled_options {
	int n, bs, reps, ncpus, check, ref;
	int prefetch; /* --prefetch: tiles on the first GPU before the clock starts */
	int pin;      /* --pin: tiles pinned (starpu_memory_pin) in each session */
	int each;     /* --each: each repetition's time printed too */
	const char *scheds;
};

static void tiled_usage(const struct tiled_app *app, const char *prog)
{
	fprintf(stderr,
		"usage: %s [-n N] [-b BS] [-s SCHED,...] [-r REPS] [-c NCPUS] [-q] [--no-check] [--no-ref]\n"
		"          [--pin] [--prefetch] [--each]\n"
		"  -n N        matrix size (default %d; %d with -q)\n"
		"  -b BS       tile size (default %d; %d with -q)\n"
		"  -s LIST     schedulers to compare (default %s)\n"
		"  -r REPS     runs per scheduler, best time reported, all checked (default %d; %d with -q)\n"
		"  -c NCPUS    number of CPU workers (default: all cores; 0: GPUs only)\n"
		"  -q          quick run for tests\n"
		"  --no-check  skip the %s verification (always skipped when simulated)\n"
		"  --no-ref    skip the sequential %s reference timing (likewise)\n"
		"  --pin       pin the tiles (starpu_memory_pin) after starpu_init, off the clock\n"
		"  --prefetch  copy every tile to the first GPU before the clock starts\n"
		"  --each      also print each run's time (a '# run' line per run)\n",
		prog, TILED_DEFAULT_N, TILED_QUICK_N, TILED_DEFAULT_BS, TILED_QUICK_BS,
		TILED_DEFAULT_SCHEDS, TILED_DEFAULT_REPS, TILED_QUICK_REPS,
		app->check_what, app->ref_routine);
}

/* A strictly positive int; 0 after printing what is wrong with it. */
static int parse_count(const struct tiled_app *app, const char *option, const char *s)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1 << 30) {
		fprintf(stderr, "%s: %s '%s': expected a positive integer\n", app->name, option, s);
		return 0;
	}
	return (int)v;
}

static int tiled_parse_options(const struct tiled_app *app, int argc, char **argv,
			       struct tiled_options *opt)
{
	int quick = 0, n = -1, bs = -1, reps = -1; /* -1: not given, 0: bad */

	*opt = (struct tiled_options){ .ncpus = -1, .check = 1, .ref = 1, .scheds = TILED_DEFAULT_SCHEDS };
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const int has_value = i + 1 < argc;
		if (strcmp(arg, "-n") == 0 && has_value)
			n = parse_count(app, arg, argv[++i]);
		else if (strcmp(arg, "-b") == 0 && has_value)
			bs = parse_count(app, arg, argv[++i]);
		else if (strcmp(arg, "-s") == 0 && has_value)
			opt->scheds = argv[++i];
		else if (strcmp(arg, "-r") == 0 && has_value)
			reps = parse_count(app, arg, argv[++i]);
		else if (strcmp(arg, "-c") == 0 && has_value) {
			/* 0 is allowed here: the GPUs alone. -2: bad value. */
			const char *v = argv[++i];
			opt->ncpus = strcmp(v, "0") == 0 ? 0 : parse_count(app, arg, v);
			if (opt->ncpus == 0 && strcmp(v, "0") != 0)
				opt->ncpus = -2;
		} else if (strcmp(arg, "-q") == 0)
			quick = 1;
		else if (strcmp(arg, "--no-check") == 0)
			opt->check = 0;
		else if (strcmp(arg, "--no-ref") == 0)
			opt->ref = 0;
		else if (strcmp(arg, "--pin") == 0)
			opt->pin = 1;
		else if (strcmp(arg, "--prefetch") == 0)
			opt->prefetch = 1;
		else if (strcmp(arg, "--each") == 0)
			opt->each = 1;
		else {
			fprintf(stderr, "%s: unknown option or missing value: '%s'\n", app->name, arg);
			return -1;
		}
	}
	if (n == 0 || bs == 0 || reps == 0 || opt->ncpus == -2)
		return -1;
	if (strspn(opt->scheds, ",") == strlen(opt->scheds)) {
		fprintf(stderr, "%s: -s '%s': expected a comma-separated list of scheduler names\n",
			app->name, opt->scheds);
		return -1;
	}
	/* -q picks the small size but explicit -n/-b/-r still win. */
	opt->n = n != -1 ? n : quick ? TILED_QUICK_N : TILED_DEFAULT_N;
	opt->bs = bs != -1 ? bs : quick ? TILED_QUICK_BS : TILED_DEFAULT_BS;
	opt->reps = reps != -1 ? reps : quick ? TILED_QUICK_REPS : TILED_DEFAULT_REPS;
	if (opt->bs > opt->n)
		opt->bs = opt->n;
	return 0;
}

/* Outcome of all repetitions under one scheduler. */
struct sched_result {
	double best_us;        /* fastest repetition */
	double last_us;        /* the latest one */
	double max_error;      /* worst residual over repetitions, -1 when not checked */
	int failed;            /* a kernel reported a failure or a residual was too large */
	unsigned cpu_workers;  /* as seen by the last session */
	unsigned cuda_workers; /* likewise (simulated GPUs, in Vela) */
	unsigned ms_workers;   /* likewise: workers of MPI slaves (mpirun -np N, master/slave builds) */
	int simulated;         /* the last session was simulated: kernels did not run */
};

/*
 * One repetition is a whole runtime session: init with the scheduler,
 * register the freshly loaded tiles, factorize, unregister, shut down. The
 * check runs afterwards so that BLAS can use every core without competing
 * with idle workers, which poll for work in StarPU.
 * Returns 0, 77 when nothing can run, 1 on a runtime error.
 */
static int run_once(const struct tiled_app *app, const struct tiled_options *opt,
		    const char *sched, struct tiled *t, const double *a_full,
		    struct sched_result *res)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = sched;
	if (opt->ncpus >= 0)
		conf.ncpus = opt->ncpus;

	int ret = starpu_init(&conf);
	if (ret == -ENODEV) {
		fprintf(stderr, "%s: skipped, starpu_init found no worker (-ENODEV)\n", app->name);
		return 77;
	}
	if (ret) {
		/* The runtime has said why (e.g. no platform file for a simulation). */
		fprintf(stderr, "%s: starpu_init with sched %s failed: %s\n", app->name, sched,
			strerror(-ret));
		return 1;
	}
	res->cpu_workers = starpu_cpu_worker_get_count();
	res->cuda_workers = starpu_cuda_worker_get_count();
	res->ms_workers = starpu_mpi_ms_worker_get_count();
	/* Also when the simulation started only now (attached by starpu_init). */
	res->simulated = run_is_simulated();
	if (res->simulated)
		enable_simulated_gpus(app);
	if (res->cpu_workers == 0 && res->ms_workers == 0 && res->cuda_workers == 0) {
		fprintf(stderr, "%s: skipped, no CPU or GPU worker available\n", app->name);
		starpu_shutdown();
		return 77;
	}
	/* Real GPUs: cuBLAS and cuSOLVER on each CUDA worker's stream. */
	if (!res->simulated && tiled_cuda_start(opt->bs)) {
		starpu_shutdown();
		return 1;
	}

	tiled_load(t, a_full);
	if (opt->pin)
		tiled_pin(t, 1);
	tiled_register(t);
	app->reset_kernel_status();
	if (opt->prefetch && !res->simulated)
		tiled_prefetch(t);

	double start = starpu_timing_now();
	ret = app->submit(t);
	/* Also on a submission error: what was submitted must finish first. */
	starpu_task_wait_for_all();
	double elapsed = starpu_timing_now() - start;
	/* A task that could not run (no usable model in a simulation, data
	 * that cannot fit in memory) makes the time that of a partial run. */
#ifdef VELA_VERSION_STRING
	unsigned long nfailed = vela_task_failed_count();
#else
	unsigned long nfailed = 0;	/* StarPU 1.3 has no such count */
#endif

	/* Unregistering makes the tiles the application's again. */
	tiled_unregister(t);
	if (opt->pin)
		tiled_pin(t, 0);
	if (!res->simulated)
		tiled_cuda_stop();
	starpu_shutdown();

	if (ret == -ENODEV) {
		fprintf(stderr, "%s: skipped, no worker can run the codelets\n", app->name);
		return 77;
	}
	if (ret) {
		fprintf(stderr, "%s: starpu_task_insert failed under sched %s: %s\n", app->name,
			sched, strerror(-ret));
		return 1;
	}
	if (nfailed) {
		fprintf(stderr, "%s: %lu task(s) failed under sched %s (the runtime said why): "
			"no time is reported for an incomplete run\n", app->name, nfailed, sched);
		return 1;
	}
	res->last_us = elapsed;
	if (elapsed < res->best_us)
		res->best_us = elapsed;
	if (!t->tiles || res->simulated)
		return 0;
	if (app->kernel_failed(sched))
		res->failed = 1;
	if (opt->check) {
		/* Every core, unless OPENBLAS_NUM_THREADS says otherwise (the
		 * test harness sets 1: OpenBLAS's own threads are not
		 * instrumented, and trip ThreadSanitizer). */
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		const char *nt = getenv("OPENBLAS_NUM_THREADS");
		if (nt && atoi(nt) > 0)
			cores = atoi(nt);
		openblas_set_num_threads(cores > 0 ? (int)cores : 1);
		double err = app->residual(t, a_full);
		openblas_set_num_threads(1);
		/* Written so that a NaN residual counts as a failure. */
		if (!(err < TILED_CHECK_TOLERANCE))
			res->failed = 1;
		if (!(err <= res->max_error))
			res->max_error = err;
	}
	return 0;
}

/*
 * The whole program: parse the options, generate the matrix, time the
 * sequential reference, then for each scheduler run the factorization -r
 * times and print one line. Returns main's exit status: 0, 1 on a wrong
 * result or an error, 77 when nothing can run.
 */
static int tiled_app_main(const struct tiled_app *app, int argc, char **argv)
{
	struct tiled_options opt;
	if (tiled_parse_options(app, argc, argv, &opt) != 0) {
		tiled_usage(app, argv[0]);
		return 1;
	}

	/* One BLAS thread per worker: the runtime provides the parallelism. */
	openblas_set_num_threads(1);

	/* Known before starpu_init only when STARPU_SIMGRID=1 was set at process start. */
	const int simulated = run_is_simulated();
	if (simulated)
		opt.check = opt.ref = 0;

	const int n = opt.n;
	double *a_full = simulated ? NULL : malloc((size_t)n * n * sizeof(double));
	struct tiled tiles = { 0 };
	char *sched_list = strdup(opt.scheds);
	if ((!simulated && !a_full) || !sched_list
	    || tiled_alloc(app, &tiles, n, opt.bs, !simulated) != 0) {
		fprintf(stderr, "%s: cannot allocate the %dx%d matrix and its tiles\n", app->name, n, n);
		tiled_free(&tiles);
		free(a_full);
		free(sched_list);
		return 1;
	}
	if (a_full)
		app->generate(a_full, n);

	const int nt = tiles.nt;
	const double flops = app->flops(n);
	printf("# tiled %s  n=%d bs=%d  (%dx%d tiles, %ld tasks, %.3g GFlop)  best of %d run(s) per scheduler%s\n",
	       app->title, n, opt.bs, nt, nt, app->tasks(nt), flops * 1e-9, opt.reps,
	       simulated ? "  [simulated: no data, no check]" : "");
	if (opt.ref) {
		double ref_s = app->reference(a_full, n);
		if (ref_s < 0)
			printf("# reference: sequential %s failed\n", app->ref_routine);
		else
			printf("# reference: one sequential %s call on the full matrix, 1 thread:"
			       "  time=%8.1f ms  GFlop/s=%6.1f\n",
			       app->ref_routine, ref_s * 1e3, flops / ref_s * 1e-9);
	}
	fflush(stdout);

	int status = 0, header_printed = 0;
	char *save = NULL;
	for (char *sched = strtok_r(sched_list, ",", &save); sched && status != 77;
	     sched = strtok_r(NULL, ",", &save)) {
		struct sched_result res = { .best_us = INFINITY, .max_error = -1.0 };
		int ret = 0;
		for (int rep = 0; rep < opt.reps && ret == 0; rep++) {
			ret = run_once(app, &opt, sched, &tiles, a_full, &res);
			if (ret == 0 && !header_printed) {
				if (res.ms_workers)
					printf("# runtime: %u CPU worker(s), %u MPI_MS worker(s)\n",
					       res.cpu_workers, res.ms_workers);
				else if (res.cuda_workers)
					printf("# runtime: %u CPU worker(s), %u CUDA worker(s)\n",
					       res.cpu_workers, res.cuda_workers);
				else
					printf("# runtime: %u CPU worker(s)\n", res.cpu_workers);
				header_printed = 1;
			}
			if (ret == 0 && opt.each)
				printf("# run %d of %d  sched=%s  %.3f ms\n", rep + 1, opt.reps, sched,
				       res.last_us / 1e3);
		}
		if (ret) {
			/* A wrong result outranks a skip in the exit status. */
			if (status != 1)
				status = ret;
			continue;
		}

		char check[48];
		if (!opt.check || res.simulated)
			snprintf(check, sizeof(check), "%s", res.failed ? "FAILED" : "skipped");
		else
			snprintf(check, sizeof(check), "%s (%.1e)", res.failed ? "FAILED" : "ok",
				 res.max_error);
		printf("%s  n=%d bs=%d  sched=%-7s time=%8.1f ms  GFlop/s=%6.1f  check=%s\n",
		       app->name, n, opt.bs, sched, res.best_us / 1e3,
		       flops / (res.best_us * 1e3), check);
		fflush(stdout);
		if (res.failed)
			status = 1;
	}

	tiled_free(&tiles);
	free(sched_list);
	free(a_full);
	return status;
}

#endif /* VELA_EXAMPLES_TILED_APP_H */
