/* bench_copy.h — the runtime side of the per-device copy benchmarks
 * (opencl_copy.c, cuda_copy.c): one repetition of a timed copy each way
 * between RAM and a device's node through the public data API, checked,
 * and the sizes and lines they print. The bare references (the device's
 * own copies without a runtime) stay in each benchmark. Header-only, like
 * bench_util.h (included first), so that each benchmark stays one source
 * file built against Vela and StarPU alike.
 *
 * One repetition, for a vector registered in RAM (starpu_malloc'd):
 *   1. off the clock: starpu_data_acquire(W) in RAM, fill the vector with
 *      this repetition's byte, release: RAM holds the only valid copy, the
 *      device's buffer (allocated by the warm-up) is stale;
 *   2. timed, h2d: starpu_data_fetch_on_node(device node, synchronous);
 *   3. off the clock: an empty task on the device's worker (the caller's
 *      codelet, RW) takes the vector, valid there, so nothing is copied,
 *      which leaves the device with the only valid copy; the RAM buffer is
 *      then overwritten behind the runtime's back;
 *   4. timed, d2h: starpu_data_fetch_on_node(STARPU_MAIN_RAM, synchronous);
 *   5. off the clock: the RAM buffer must hold this repetition's byte again
 *      everywhere, and starpu_data_query_status must have said before each
 *      timed fetch that the destination was not valid and after it that it
 *      was: each timed fetch is one real copy of the whole vector.
 * The timed region is the runtime's whole path for one copy: the request,
 * the copy itself, and the wake-up of the waiting application thread.
 */
#ifndef BENCH_COPY_H
#define BENCH_COPY_H

#include <stdint.h>
#include <string.h>

#include "bench_util.h"

static inline int copy_is_valid(starpu_data_handle_t h, unsigned node)
{
	int allocated = 0, valid = 0, requested = 0;

	starpu_data_query_status(h, (int)node, &allocated, &valid, &requested);
	return valid;
}

static inline void copy_fail(const char *what, size_t bytes, unsigned rep)
{
	fprintf(stderr, "%s: %s (size %zu bytes, repetition %u)\n", bench_name, what, bytes, rep);
	exit(EXIT_FAILURE);
}

/* Whether every byte of buf is byte (8 at a time: a 1 GiB check stays
 * short). */
static inline int copy_all_bytes(const unsigned char *buf, size_t bytes, unsigned char byte)
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

/* A synchronous fetch to node, in µs; checks that it really copied. */
static inline double copy_timed_fetch(starpu_data_handle_t h, unsigned node, size_t bytes, unsigned rep)
{
	if (copy_is_valid(h, node))
		copy_fail("the destination is already valid before the copy", bytes, rep);
	double t0 = starpu_timing_now();
	int ret = starpu_data_fetch_on_node(h, node, 0);
	double t1 = starpu_timing_now();
	if (ret != 0)
		die("starpu_data_fetch_on_node", ret);
	if (!copy_is_valid(h, node))
		copy_fail("the destination is not valid after a synchronous fetch", bytes, rep);
	return t1 - t0;
}

struct copy_result {
	double h2d_us, d2h_us;
};

/* One repetition of steps 1-5 (see the top of the file); warm-up when rep
 * is 0 (the device buffer gets allocated there). own_cl: an empty RW
 * codelet that runs only on the device's worker. */
static inline struct copy_result copy_round(starpu_data_handle_t h, unsigned char *buf, size_t bytes,
					    unsigned dev_node, unsigned rep, struct starpu_codelet *own_cl)
{
	struct copy_result r;
	unsigned char byte = (unsigned char)(rep * 37u + 11u);

	int ret = starpu_data_acquire(h, STARPU_W);
	if (ret != 0)
		die("starpu_data_acquire(W)", ret);
	memset(buf, byte, bytes);
	starpu_data_release(h);

	r.h2d_us = copy_timed_fetch(h, dev_node, bytes, rep);
	if ((ret = starpu_task_insert(own_cl, STARPU_RW, h, 0)) != 0)
		die("starpu_task_insert", ret);
	if ((ret = starpu_task_wait_for_all()) != 0)
		die("starpu_task_wait_for_all", ret);
	if (copy_is_valid(h, STARPU_MAIN_RAM))
		copy_fail("RAM still valid after RW on the device", bytes, rep);
	memset(buf, (unsigned char)~byte, bytes);
	r.d2h_us = copy_timed_fetch(h, STARPU_MAIN_RAM, bytes, rep);
	if (!copy_all_bytes(buf, bytes, byte))
		copy_fail("the data came back wrong", bytes, rep);
	return r;
}

/* A size in bytes, K/M/G suffixes allowed, from 4 bytes to max, rounded
 * down to whole floats; exits with a message otherwise. */
static inline size_t copy_parse_size(const char *s, unsigned long long max)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (end == s || *s == '-' || *end != '\0' || v < sizeof(float) || v > max) {
		fprintf(stderr, "%s: bad size '%s' (4 bytes to %llu)\n", bench_name, s, max);
		exit(EXIT_FAILURE);
	}
	return (size_t)(v / sizeof(float) * sizeof(float));
}

/* Prints one line: dir bytes MB/s(median) MB/s(best) us(median) with -m,
 * else a sentence; returns the median in µs. Sorts us. */
static inline double copy_report(int machine, const char *dir, size_t bytes, double *us, unsigned reps)
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

#endif
