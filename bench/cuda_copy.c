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
 * One repetition (as in opencl_copy.c):
 *   1. off the clock: starpu_data_acquire(W) in RAM, fill the vector with
 *      this repetition's byte, release: RAM holds the only valid copy, the
 *      GPU's buffer (allocated by the warm-up) is stale;
 *   2. timed, h2d: starpu_data_fetch_on_node(GPU node, synchronous);
 *   3. off the clock: an empty task on the CUDA worker takes the vector in
 *      RW mode (no copy, it is valid there), which leaves the GPU with the
 *      only valid copy; the RAM buffer is then overwritten behind the
 *      runtime's back;
 *   4. timed, d2h: starpu_data_fetch_on_node(STARPU_MAIN_RAM, synchronous);
 *   5. off the clock: the RAM buffer must hold this repetition's byte again
 *      everywhere, and starpu_data_query_status must have said before each
 *      timed fetch that the destination was not valid and after it that it
 *      was: each timed fetch is one real copy of the whole vector.
 * The timed region is the runtime's whole path for one copy: the request,
 * the copy itself, and the wake-up of the waiting application thread.
 *
 * Reference ("bare-h2d", "bare-d2h"), before starpu_init, no runtime: a
 * cudaMemcpy of the same size each way between a cudaHostAlloc'd buffer and
 * a cudaMalloc'd one, after one warm-up copy each way; the most the runtime
 * can reach on this machine.
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

static int is_valid(starpu_data_handle_t h, unsigned node)
{
	int allocated = 0, valid = 0, requested = 0;

	starpu_data_query_status(h, (int)node, &allocated, &valid, &requested);
	return valid;
}

static void fail(const char *what, size_t bytes, unsigned rep)
{
	fprintf(stderr, "cuda_copy: %s (size %zu bytes, repetition %u)\n", what, bytes, rep);
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

static void own_on_gpu(starpu_data_handle_t h)
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
	double t0 = now_us();
	int ret = starpu_data_fetch_on_node(h, node, 0);
	double t1 = now_us();
	if (ret != 0)
		die("starpu_data_fetch_on_node", ret);
	if (!is_valid(h, node))
		fail("the destination is not valid after a synchronous fetch", bytes, rep);
	return t1 - t0;
}

/* Whether every byte of buf is byte (8 at a time: a 1 GiB check stays
 * short). */
static int all_bytes(const unsigned char *buf, size_t bytes, unsigned char byte)
{
	uint64_t word = 0x0101010101010101ULL * byte;
	size_t i = 0;

	for (; i + 8 <= bytes; i += 8) {
		uint64_t w;

		memcpy(&w, buf + i, 8);
		if (w != word)
			return 0;
	}
	for (; i < bytes; i++)
		if (buf[i] != byte)
			return 0;
	return 1;
}

struct result {
	double h2d_us, d2h_us;
};

/* One repetition of steps 1-5 (see the top of the file); warm-up when rep
 * is 0 (the GPU buffer gets allocated there). */
static struct result one_round(starpu_data_handle_t h, unsigned char *buf, size_t bytes,
			       unsigned gpu_node, unsigned rep)
{
	struct result r;
	unsigned char byte = (unsigned char)(rep * 37u + 11u);

	own_in_ram(h, buf, bytes, byte);
	r.h2d_us = timed_fetch(h, gpu_node, bytes, rep);
	own_on_gpu(h);
	if (is_valid(h, STARPU_MAIN_RAM))
		fail("RAM still valid after RW on the GPU", bytes, rep);
	memset(buf, (unsigned char)~byte, bytes);
	r.d2h_us = timed_fetch(h, STARPU_MAIN_RAM, bytes, rep);
	if (!all_bytes(buf, bytes, byte))
		fail("the data came back wrong", bytes, rep);
	return r;
}

/* The copies without the runtime: reps each way, after one of each for
 * warm-up; µs per copy in h2d[] and d2h[]. */
static void bare_copies(size_t bytes, unsigned reps, double *h2d, double *d2h)
{
	void *host = NULL, *dev = NULL;

	cuda_check(cudaHostAlloc(&host, bytes, cudaHostAllocDefault), "cudaHostAlloc");
	cuda_check(cudaMalloc(&dev, bytes), "cudaMalloc");
	memset(host, 0x5a, bytes);
	for (unsigned r = 0; r <= reps; r++) {
		double t0 = now_us();
		cuda_check(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(host to device)");
		double t1 = now_us();
		cuda_check(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(device to host)");
		double t2 = now_us();
		if (r > 0) {
			h2d[r - 1] = t1 - t0;
			d2h[r - 1] = t2 - t1;
		}
	}
	if (!all_bytes(host, bytes, 0x5a))
		fail("the bare round trip brought the data back wrong", bytes, 0);
	cuda_check(cudaFree(dev), "cudaFree");
	cuda_check(cudaFreeHost(host), "cudaFreeHost");
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

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (end == s || *s == '-' || *end != '\0' || v < sizeof(float) || v > (1ULL << 33)) {
		fprintf(stderr, "cuda_copy: bad size '%s' (4 bytes to 8G)\n", s);
		exit(EXIT_FAILURE);
	}
	return (size_t)(v / sizeof(float) * sizeof(float));
}

/* Prints one line; returns the median in µs. */
static double report(int machine, const char *dir, size_t bytes, double *us, unsigned reps)
{
	double med = median(us, reps);	/* sorts: us[0] is the fastest */
	double mbps = bytes / med, best = bytes / us[0];

	if (machine)
		printf("%s %zu %.1f %.1f %.2f\n", dir, bytes, mbps, best, med);
	else
		printf("%s size=%zu bytes: %.1f MB/s median (best %.1f), %.2f us median over %u\n",
		       dir, bytes, mbps, best, med, reps);
	fflush(stdout);
	return med;
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
		size[nsizes++] = parse_size(s);
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
			bare_copies(size[k], reps, h2d, d2h);
			bare_h2d[k] = report(machine, "bare-h2d", size[k], h2d, reps);
			bare_d2h[k] = report(machine, "bare-d2h", size[k], d2h, reps);
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
		one_round(h, buf, bytes, gpu_node, 0);
		for (unsigned r = 0; r < reps; r++) {
			struct result res = one_round(h, buf, bytes, gpu_node, r + 1);
			h2d[r] = res.h2d_us;
			d2h[r] = res.d2h_us;
		}
		starpu_data_unregister(h);
		rt_h2d[k] = report(machine, "h2d", bytes, h2d, reps);
		rt_d2h[k] = report(machine, "d2h", bytes, d2h, reps);
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
