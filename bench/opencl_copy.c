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
 * One repetition (bench_copy.h): the runtime's copy each way, timed and
 * checked, of a vector registered in RAM (starpu_malloc'd).
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
#include "bench_copy.h"

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
		"  -S SIZES   space-separated sizes in bytes, K/M/G suffixes allowed\n"
		"             (default \"4K 64K 1M 16M 64M\")\n"
		"  -r R       repetitions per size (default: 256 MB worth, between 5 and 50)\n"
		"  -m         machine-readable output: dir bytes MB/s(median) MB/s(best) us(median);\n"
		"             dir is h2d, d2h, or bare-h2d, bare-d2h for the copies without the runtime\n"
		"Needs an OpenCL worker: STARPU_OPENCL_ON_CPUS=1 for a CPU device (PoCL).\n");
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
		size_t bytes = copy_parse_size(s, 1ULL << 34);
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
		copy_round(h, buf, bytes, ocl_node, 0, &own_cl);
		for (unsigned r = 0; r < reps; r++) {
			struct copy_result res = copy_round(h, buf, bytes, ocl_node, r + 1, &own_cl);
			h2d[r] = res.h2d_us;
			d2h[r] = res.d2h_us;
		}
		starpu_data_unregister(h);
		copy_report(machine, "h2d", bytes, h2d, reps);
		copy_report(machine, "d2h", bytes, d2h, reps);
#ifdef STARPU_USE_OPENCL
		bare_copies(buf, bytes, reps, h2d, d2h);
		copy_report(machine, "bare-h2d", bytes, h2d, reps);
		copy_report(machine, "bare-d2h", bytes, d2h, reps);
#endif
		starpu_free(buf);
		free(h2d);
		free(d2h);
	}

	starpu_shutdown();
	return EXIT_SUCCESS;
}
