/* init_cycles: what repeated starpu_init / starpu_shutdown leave behind.
 *
 * Runs N cycles (default 100) of init, a few tasks on a registered vector,
 * unregister, shutdown, and samples after cycle 1 and cycle N the process's
 * open file descriptors (/proc/self/fd), threads (/proc/self/status) and
 * heap in use (mallinfo2). A runtime that cleans up keeps all three flat
 * from cycle 1 to N. Written against the StarPU 1.3 API only, so that
 * bench/compare-init-cycles builds it against Vela and StarPU 1.3 alike.
 * Output: one line per sample, then "leak: fds=.. threads=.. heap_kib=.."
 * (cycle N minus cycle 1); -m prints that last line only.
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void inc(void *buffers[], void *arg)
{
	(void) arg;
	int *v = (int *) STARPU_VECTOR_GET_PTR(buffers[0]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);
	for (unsigned i = 0; i < n; i++)
		v[i]++;
}

static struct starpu_codelet cl = { .cpu_funcs = { inc }, .nbuffers = 1, .modes = { STARPU_RW } };

static long count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	long n = 0;
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3;	/* ".", ".." and the directory's own fd */
}

static long count_threads(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long n = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Threads:", 8))
			n = atol(line + 8);
	if (f)
		fclose(f);
	return n;
}

struct sample
{
	long fds, threads;
	double heap_kib;
};

static struct sample take(void)
{
	struct mallinfo2 mi = mallinfo2();
	return (struct sample) { count_fds(), count_threads(), (double) mi.uordblks / 1024.0 };
}

int main(int argc, char **argv)
{
	int cycles = 100, machine = 0;
	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "-m"))
			machine = 1;
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			cycles = atoi(argv[++i]);
		else
		{
			fprintf(stderr, "usage: %s [-n CYCLES] [-m]\n", argv[0]);
			return 2;
		}
	}
	if (cycles < 2)
		cycles = 2;
	int v[1024] = { 0 };
	struct sample first = { 0 }, last = { 0 };
	for (int c = 1; c <= cycles; c++)
	{
		int ret = starpu_init(NULL);
		if (ret == -ENODEV)
			return 77;
		if (ret)
		{
			fprintf(stderr, "cycle %d: starpu_init failed (%d)\n", c, ret);
			return 1;
		}
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, 1024, sizeof(int));
		for (int t = 0; t < 10; t++)
			if (starpu_task_insert(&cl, STARPU_RW, h, 0))
				return 1;
		starpu_task_wait_for_all();
		starpu_data_unregister(h);
		starpu_shutdown();
		struct sample s = take();
		if (c == 1)
			first = s;
		last = s;
		if (!machine && (c == 1 || c == 10 || c == cycles))
			printf("after cycle %3d: fds=%ld threads=%ld heap_kib=%.1f\n", c, s.fds, s.threads, s.heap_kib);
	}
	if (v[0] != 10 * cycles)
	{
		fprintf(stderr, "wrong result: %d, expected %d\n", v[0], 10 * cycles);
		return 1;
	}
	printf("leak: fds=%ld threads=%ld heap_kib=%.1f\n", last.fds - first.fds, last.threads - first.threads,
	       last.heap_kib - first.heap_kib);
	return 0;
}
