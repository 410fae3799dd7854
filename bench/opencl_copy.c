/*
 * opencl_copy: bandwidth of the runtime's copies between main RAM and an
 * OpenCL device's memory, through the public data API only, for vectors of
 * 4 KB to 64 MB in both directions.
 *
 * Written only against the public StarPU 1.3 C API, so the same source builds
 * against Vela and against StarPU (bench/compare-opencl does both). It needs
 * an OpenCL worker: for a CPU device such as PoCL's, run it with
 * STARPU_OPENCL_ON_CPUS=1 (and POCL_CPU_MAX_CU_COUNT=1 on a small machine).
 *
 * One repetition, for a vector registered in RAM (starpu_malloc'd):
 *   1. off the clock: starpu_data_acquire(W) in RAM, fill the vector with
 *      this repetition's byte, release: RAM holds the only valid copy, the
 *      device's buffer (allocated by the warm-up) is stale;
 *   2. timed, h2d: starpu_data_fetch_on_node(device node, synchronous);
 *   3. off the clock: an empty task on the OpenCL worker takes the vector in
 *      RW mode (no copy, it is valid there), which leaves the device with
 *      the only valid copy; the RAM buffer is then overwritten behind the
 *      runtime's back;
 *   4. timed, d2h: starpu_data_fetch_on_node(STARPU_MAIN_RAM, synchronous);
 *   5. off the clock: the RAM buffer must hold this repetition's byte again
 *      everywhere, and starpu_data_query_status must have said before each
 *      timed fetch that the destination was not valid and after it that it
 *      was: each timed fetch is one real copy of the whole vector.
 * The timed region is the runtime's whole path for one copy: the request,
 * the copy itself, and the wake-up of the waiting application thread.
 *
 * Output per size and direction: the median bandwidth over the repetitions,
 * the best, and the median time, with MB = 10^6 bytes. A reference line per
 * size and direction ("bare-h2d", "bare-d2h") times the same copy without
 * the runtime: a blocking clEnqueueWriteBuffer / clEnqueueReadBuffer between
 * the same RAM buffer and a buffer of our own, on a context and queue of our
 * own on the same device, by the application thread while the runtime's
 * workers are idle. It is the most the runtime can reach on this device.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <starpu.h>

#include "bench_util.h"

static void empty_opencl(void *buffers[], void *arg)
{
	(void)buffers;
	(void)arg;
}

/* Makes the device the owner: RW on the OpenCL worker, which already has a
 * valid copy, so nothing is transferred. */
static struct starpu_codelet own_cl = {
	.where = STARPU_OPENCL,
	.opencl_funcs = { empty_opencl },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "own_on_device",
};

static int is_valid(starpu_data_handle_t h, unsigned node)
{
	int allocated = 0, valid = 0, requested = 0;

	starpu_data_query_status(h, (int)node, &allocated, &valid, &requested);
	return valid;
}

static void fail(const char *what, size_t bytes, unsigned rep)
{
	fprintf(stderr, "opencl_copy: %s (size %zu bytes, repetition %u)\n", what, bytes, rep);
	exit(EXIT_FAILURE);
}

/* RAM becomes the only valid copy, filled with byte. */
static void own_in_ram(starpu_data_handle_t h, unsigned char *buf, size_t bytes, unsigned char byte)
{
	int ret = starpu_data_acquire(h, STARPU_W);

	if (ret != 0)
		die("starpu_data_acquire(W)", ret);
	memset(buf, byte, bytes);
	starpu_data_release(h);
}

static void own_on_device(starpu_data_handle_t h)
{
	int ret = starpu_task_insert(&own_cl, STARPU_RW, h, 0);

	if (ret != 0)
		die("starpu_task_insert", ret);
	ret = starpu_task_wait_for_all();
	if (ret != 0)
		die("starpu_task_wait_for_all", ret);
}

/* A synchronous fetch to node, in µs; checks that it really copied. */
static double timed_fetch(starpu_data_handle_t h, unsigned node, size_t bytes, unsigned rep)
{
	if (is_valid(h, node))
		fail("the destination is already valid before the copy", bytes, rep);
	double t0 = starpu_timing_now();
	int ret = starpu_data_fetch_on_node(h, node, 0);
	double t1 = starpu_timing_now();
	if (ret != 0)
		die("starpu_data_fetch_on_node", ret);
	if (!is_valid(h, node))
		fail("the destination is not valid after a synchronous fetch", bytes, rep);
	return t1 - t0;
}

struct result {
	double h2d_us, d2h_us;
};

/* One repetition of steps 1-5 (see the top of the file); warm-up when rep
 * is 0 (the device buffer gets allocated there). */
static struct result one_round(starpu_data_handle_t h, unsigned char *buf, size_t bytes,
			       unsigned ocl_node, unsigned rep)
{
	struct result r;
	unsigned char byte = (unsigned char)(rep * 37u + 11u);

	own_in_ram(h, buf, bytes, byte);
	r.h2d_us = timed_fetch(h, ocl_node, bytes, rep);
	own_on_device(h);
	if (is_valid(h, STARPU_MAIN_RAM))
		fail("RAM still valid after RW on the device", bytes, rep);
	memset(buf, (unsigned char)~byte, bytes);
	r.d2h_us = timed_fetch(h, STARPU_MAIN_RAM, bytes, rep);
	for (size_t i = 0; i < bytes; i++)
		if (buf[i] != byte)
			fail("the data came back wrong", bytes, rep);
	return r;
}

#ifdef STARPU_USE_OPENCL
/* The copies without the runtime, reps times each way, after one of each
 * for warm-up; µs per copy in h2d[] and d2h[]. */
static void bare_copies(unsigned char *buf, size_t bytes, unsigned reps, double *h2d, double *d2h)
{
	cl_device_id device;
	cl_int err;

	starpu_opencl_get_device(0, &device);
	cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
	if (err != CL_SUCCESS)
		STARPU_OPENCL_REPORT_ERROR(err);
	for (unsigned r = 0; r <= reps; r++) {
		double t0 = starpu_timing_now();
		err = clEnqueueWriteBuffer(queue, mem, CL_TRUE, 0, bytes, buf, 0, NULL, NULL);
		double t1 = starpu_timing_now();
		if (err == CL_SUCCESS)
			err = clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, bytes, buf, 0, NULL, NULL);
		double t2 = starpu_timing_now();
		if (err != CL_SUCCESS)
			STARPU_OPENCL_REPORT_ERROR(err);
		if (r > 0) {
			h2d[r - 1] = t1 - t0;
			d2h[r - 1] = t2 - t1;
		}
	}
	clReleaseMemObject(mem);
	clReleaseCommandQueue(queue);
	clReleaseContext(context);
}
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: opencl_copy [-S \"SIZES\"] [-r R] [-m]\n"
		"  -S SIZES   space-separated sizes in bytes, K/M suffixes allowed\n"
		"             (default \"4K 64K 1M 16M 64M\")\n"
		"  -r R       repetitions per size (default: 256 MB worth, between 5 and 50)\n"
		"  -m         machine-readable output: dir bytes MB/s(median) MB/s(best) us(median);\n"
		"             dir is h2d, d2h, or bare-h2d, bare-d2h for the copies without the runtime\n"
		"Needs an OpenCL worker: STARPU_OPENCL_ON_CPUS=1 for a CPU device (PoCL).\n");
}

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (end == s || *end != '\0' || v < sizeof(float) || v > (1ULL << 34)) {
		fprintf(stderr, "opencl_copy: bad size '%s'\n", s);
		exit(EXIT_FAILURE);
	}
	return (size_t)v;
}

static void report(int machine, const char *dir, size_t bytes, double *us, unsigned reps)
{
	double med = median(us, reps);	/* sorts: us[0] is the fastest */
	double mbps = bytes / med, best = bytes / us[0];

	if (machine)
		printf("%s %zu %.1f %.1f %.2f\n", dir, bytes, mbps, best, med);
	else
		printf("%s size=%zu bytes: %.1f MB/s median (best %.1f), %.2f us median over %u\n",
		       dir, bytes, mbps, best, med, reps);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	bench_name = "opencl_copy";
	char default_sizes[] = "4K 64K 1M 16M 64M";
	char *sizes = default_sizes;
	unsigned reps_opt = 0;
	int machine = 0, c;

	while ((c = getopt(argc, argv, "S:r:mh")) != -1) {
		switch (c) {
		case 'S':
			sizes = optarg;
			break;
		case 'r':
			reps_opt = parse_count(optarg, "repetition count", 100000);
			break;
		case 'm':
			machine = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return EXIT_FAILURE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_FAILURE;
	}
	if (bench_init(NULL) == 77)
		return 77;
	int w = starpu_worker_get_by_type(STARPU_OPENCL_WORKER, 0);
	if (w < 0) {
		fprintf(stderr, "opencl_copy: no OpenCL worker (for a CPU device such as PoCL, "
			"set STARPU_OPENCL_ON_CPUS=1)\n");
		starpu_shutdown();
		return 77;
	}
	unsigned ocl_node = starpu_worker_get_memory_node((unsigned)w);

	char *save = NULL;
	for (char *s = strtok_r(sizes, " ,", &save); s; s = strtok_r(NULL, " ,", &save)) {
		size_t bytes = parse_size(s) / sizeof(float) * sizeof(float);
		unsigned reps = reps_opt ? reps_opt : (unsigned)((256u << 20) / bytes);
		if (!reps_opt)
			reps = reps < 5 ? 5 : reps > 50 ? 50 : reps;
		unsigned char *buf = NULL;
		int ret = starpu_malloc((void **)&buf, bytes);
		double *h2d = calloc(reps, sizeof(double)), *d2h = calloc(reps, sizeof(double));
		if (ret != 0 || !buf || !h2d || !d2h)
			die("allocating the vector", -ENOMEM);

		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)buf,
					    (uint32_t)(bytes / sizeof(float)), sizeof(float));
		one_round(h, buf, bytes, ocl_node, 0);
		for (unsigned r = 0; r < reps; r++) {
			struct result res = one_round(h, buf, bytes, ocl_node, r + 1);
			h2d[r] = res.h2d_us;
			d2h[r] = res.d2h_us;
		}
		starpu_data_unregister(h);
		report(machine, "h2d", bytes, h2d, reps);
		report(machine, "d2h", bytes, d2h, reps);
#ifdef STARPU_USE_OPENCL
		bare_copies(buf, bytes, reps, h2d, d2h);
		report(machine, "bare-h2d", bytes, h2d, reps);
		report(machine, "bare-d2h", bytes, d2h, reps);
#endif
		starpu_free(buf);
		free(h2d);
		free(d2h);
	}

	starpu_shutdown();
	return EXIT_SUCCESS;
}
