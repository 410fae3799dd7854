/*
 * cuda_copy: bandwidth of the runtime's copies between main RAM and a GPU's
 * memory, through the public data API only, for vectors of 16 MiB to 1 GiB
 * (by default) in both directions, against cudaMemcpy alone.
 *
 * Written only against the public StarPU 1.3 C API and the CUDA runtime, so
 * the same source builds against Vela and against StarPU 1.3 built with
 * CUDA (bench/compare-cuda does both). Needs a GPU: without one it exits
 * 77 with the reason. STARPU_NCPU defaults to 0 (only the CUDA worker).
 *
 * The vector is starpu_malloc'd, which both runtimes pin (cudaHostAlloc)
 * while a GPU is in use; a "#" line says whether CUDA sees it pinned.
 * The GPU's node is the memory node of the first CUDA worker.
 *
 * One repetition (bench_copy.h): the runtime's copy each way, timed and
 * checked.
 *
 * Reference ("bare-h2d", "bare-d2h"), before starpu_init, no runtime: a
 * cudaMemcpy of the same size each way between a cudaHostAlloc'd buffer and
 * a cudaMalloc'd one, after one warm-up copy each way; the most the runtime
 * can reach on this machine. And "bare-w-h2d", "bare-w-d2h": the same with
 * the host buffer written by the CPU just before each copy, as the runtime
 * side's repetitions do (bench_copy.h): what the copy costs when the CPU's
 * caches hold the buffer's last lines. And "bare-q-h2d", "bare-q-d2h": those
 * written copies queued as a runtime queues them (cudaMemcpyAsync on a
 * non-blocking stream, an event recorded after it, cudaEventQuery polled).
 *
 * Output per size and direction: the median bandwidth over the
 * repetitions, the best, and the median time, with MB = 10^6 bytes; the
 * human-readable output ends with the ratio runtime/bare per line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <starpu.h>

#include "bench_util.h"
#include "bench_cuda.h"
#include "bench_copy.h"

#define MAX_SIZES 16

static void empty_host(void *buffers[], void *arg)
{
	(void)buffers;
	(void)arg;
}

/* Makes the GPU the owner: RW on the CUDA worker, which already has a
 * valid copy, so nothing is transferred. */
static struct starpu_codelet own_cl = {
	.where = STARPU_CUDA,
	.cuda_funcs = { empty_host },
	.nbuffers = 1,
	.modes = { STARPU_RW },
	.name = "own_on_gpu",
};

/* One copy: cudaMemcpy, or with stream queued on it and its event polled. */
static void bare_copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (!stream) {
		cuda_check(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");
		return;
	}
	cudaEvent_t ev;
	cuda_check(cudaMemcpyAsync(dst, src, bytes, kind, stream), "cudaMemcpyAsync");
	cuda_check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreateWithFlags");
	cuda_check(cudaEventRecord(ev, stream), "cudaEventRecord");
	cudaError_t err;
	while ((err = cudaEventQuery(ev)) == cudaErrorNotReady)
		;
	cuda_check(err, "cudaEventQuery");
	cuda_check(cudaEventDestroy(ev), "cudaEventDestroy");
}

/* The copies without the runtime: reps each way, after one of each for
 * warm-up; µs per copy in h2d[] and d2h[]. written: the host buffer is
 * written before each copy (off the clock); queued: see bare_copy. */
static void bare_copies(size_t bytes, unsigned reps, int written, int queued, double *h2d, double *d2h)
{
	void *host = NULL, *dev = NULL;
	cudaStream_t stream = NULL;

	if (queued)
		cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");

	cuda_check(cudaHostAlloc(&host, bytes, cudaHostAllocDefault), "cudaHostAlloc");
	cuda_check(cudaMalloc(&dev, bytes), "cudaMalloc");
	memset(host, 0x5a, bytes);
	for (unsigned r = 0; r <= reps; r++) {
		if (written)
			memset(host, 0x5a, bytes);
		double t0 = now_us();
		bare_copy(dev, host, bytes, cudaMemcpyHostToDevice, stream);
		double t1 = now_us();
		if (written)
			memset(host, 0xa5, bytes);
		double t2 = now_us();
		bare_copy(host, dev, bytes, cudaMemcpyDeviceToHost, stream);
		double t3 = now_us();
		if (r > 0) {
			h2d[r - 1] = t1 - t0;
			d2h[r - 1] = t3 - t2;
		}
	}
	if (!copy_all_bytes(host, bytes, 0x5a))
		copy_fail("the bare round trip brought the data back wrong", bytes, 0);
	cuda_check(cudaFree(dev), "cudaFree");
	cuda_check(cudaFreeHost(host), "cudaFreeHost");
	if (stream)
		cuda_check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cuda_copy [-S \"SIZES\"] [-r R] [-B] [-m]\n"
		"  -S SIZES   space-separated sizes in bytes, K/M/G suffixes allowed\n"
		"             (default \"16M 64M 256M 1G\"; at most %d sizes)\n"
		"  -r R       repetitions per size (default: 512 MiB worth, between 5 and 20)\n"
		"  -B         leave out the bare cudaMemcpy reference\n"
		"  -m         machine-readable output: dir bytes MB/s(median) MB/s(best) us(median);\n"
		"             dir is h2d, d2h, or bare-h2d, bare-d2h for cudaMemcpy without the runtime\n"
		"Needs a CUDA GPU (exits 77 without one); STARPU_NCPU defaults to 0 here.\n",
		MAX_SIZES);
}

static unsigned reps_for(size_t bytes, unsigned reps_opt)
{
	if (reps_opt)
		return reps_opt;
	size_t r = ((size_t)512 << 20) / bytes;
	return r < 5 ? 5 : r > 20 ? 20 : (unsigned)r;
}

int main(int argc, char **argv)
{
	bench_name = "cuda_copy";
	char default_sizes[] = "16M 64M 256M 1G";
	char *sizes = default_sizes;
	unsigned reps_opt = 0;
	int machine = 0, bare = 1, c;

	while ((c = getopt(argc, argv, "S:r:Bmh")) != -1) {
		switch (c) {
		case 'S':
			sizes = optarg;
			break;
		case 'r':
			reps_opt = parse_count(optarg, "repetition count", 100000);
			break;
		case 'B':
			bare = 0;
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
	size_t size[MAX_SIZES];
	unsigned nsizes = 0;
	char *save = NULL;
	for (char *s = strtok_r(sizes, " ,", &save); s; s = strtok_r(NULL, " ,", &save)) {
		if (nsizes == MAX_SIZES) {
			fprintf(stderr, "cuda_copy: too many sizes (at most %d)\n", MAX_SIZES);
			return EXIT_FAILURE;
		}
		size[nsizes++] = copy_parse_size(s, 1ULL << 33);
	}
	if (nsizes == 0) {
		fprintf(stderr, "cuda_copy: no size given to -S\n");
		return EXIT_FAILURE;
	}
	if (bench_cuda_gpu_or_skip() == 77)
		return 77;
	char device[160];
	bench_cuda_describe(device, sizeof(device));
	printf("# device: %s\n", device);

	/* The references first, before the runtime exists. */
	double bare_h2d[MAX_SIZES], bare_d2h[MAX_SIZES];
	if (bare) {
		cuda_check(cudaSetDevice(0), "cudaSetDevice(0)");
		for (unsigned k = 0; k < nsizes; k++) {
			unsigned reps = reps_for(size[k], reps_opt);
			double *h2d = calloc(reps, sizeof(double)), *d2h = calloc(reps, sizeof(double));

			if (!h2d || !d2h)
				die("calloc", -ENOMEM);
			bare_copies(size[k], reps, 0, 0, h2d, d2h);
			bare_h2d[k] = copy_report(machine, "bare-h2d", size[k], h2d, reps);
			bare_d2h[k] = copy_report(machine, "bare-d2h", size[k], d2h, reps);
			bare_copies(size[k], reps, 1, 0, h2d, d2h);
			copy_report(machine, "bare-w-h2d", size[k], h2d, reps);
			copy_report(machine, "bare-w-d2h", size[k], d2h, reps);
			bare_copies(size[k], reps, 1, 1, h2d, d2h);
			copy_report(machine, "bare-q-h2d", size[k], h2d, reps);
			copy_report(machine, "bare-q-d2h", size[k], d2h, reps);
			free(h2d);
			free(d2h);
		}
	}

	bench_cuda_only_worker();
	if (bench_init(NULL) == 77)
		return 77;
	int w = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
	if (w < 0) {
		fprintf(stderr, "cuda_copy: the runtime started no CUDA worker (STARPU_NCUDA=0?); skipped\n");
		starpu_shutdown();
		return 77;
	}
	unsigned gpu_node = starpu_worker_get_memory_node((unsigned)w);
	double rt_h2d[MAX_SIZES], rt_d2h[MAX_SIZES];

	for (unsigned k = 0; k < nsizes; k++) {
		size_t bytes = size[k];
		unsigned reps = reps_for(bytes, reps_opt);
		unsigned char *buf = NULL;
		int ret = starpu_malloc((void **)&buf, bytes);
		double *h2d = calloc(reps, sizeof(double)), *d2h = calloc(reps, sizeof(double));
		if (ret != 0 || !buf || !h2d || !d2h)
			die("allocating the vector", -ENOMEM);
		struct cudaPointerAttributes attr;
		int pinned = cudaPointerGetAttributes(&attr, buf) == cudaSuccess && attr.type == cudaMemoryTypeHost;
		cudaGetLastError();	/* a pageable pointer may leave an error behind */
		printf("# vector of %zu bytes in RAM: %s\n", bytes,
		       pinned ? "pinned" : "NOT pinned (pageable: starpu_malloc did not pin it)");

		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)buf,
					    (uint32_t)(bytes / sizeof(float)), sizeof(float));
		copy_round(h, buf, bytes, gpu_node, 0, &own_cl);
		for (unsigned r = 0; r < reps; r++) {
			struct copy_result res = copy_round(h, buf, bytes, gpu_node, r + 1, &own_cl);
			h2d[r] = res.h2d_us;
			d2h[r] = res.d2h_us;
		}
		starpu_data_unregister(h);
		rt_h2d[k] = copy_report(machine, "h2d", bytes, h2d, reps);
		rt_d2h[k] = copy_report(machine, "d2h", bytes, d2h, reps);
		starpu_free(buf);
		free(h2d);
		free(d2h);
	}
	/* Bandwidth ratio = inverse time ratio. */
	if (bare && !machine)
		for (unsigned k = 0; k < nsizes; k++)
			printf("runtime/bare size=%zu bytes: h2d %.3f, d2h %.3f (target >= 0.95)\n", size[k],
			       bare_h2d[k] / rt_h2d[k], bare_d2h[k] / rt_d2h[k]);

	starpu_shutdown();
	return EXIT_SUCCESS;
}
