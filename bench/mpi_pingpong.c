/*
 * mpi_pingpong: point-to-point latency and bandwidth of StarPU-MPI, next to
 * raw MPI measured in the same program (the physical limit of the machine).
 *
 * Written only against the public StarPU-MPI 1.3 API (and MPI), so that the
 * same source builds against Vela (pkg-config vela-mpi) and against Debian's
 * StarPU-MPI 1.3 (starpumpi-1.3); bench/compare-mpi runs both.
 *
 *   mpirun -np 2 ./mpi_pingpong [-m] [-t multiple|serialized] [-s SIZES] [-k MODES] [-T SECONDS]
 *
 * Rank 0 sends a vector of SIZE bytes to rank 1, which sends it back; the
 * one-way time is half the round trip, timed on rank 0 per round trip; each
 * size reports the median (and minimum) over its round trips, and the
 * bandwidth SIZE / median one-way time. Round trips go in batches (rank 0
 * tells rank 1 the size of the next one, or that there is none) until the
 * size's time budget is spent, so a slow library is measured as long as a
 * fast one, not as often; the first trip of each batch is not timed.
 * Modes:
 *   raw    MPI_Send / MPI_Recv on plain buffers, measured before
 *          starpu_mpi_init so that no progression thread runs meanwhile;
 *   rawy   the same messages with MPI_Isend / MPI_Irecv and an MPI_Test
 *          loop that yields the core (sched_yield) every 16 polls, as a
 *          runtime's waiting thread does: MPI_Recv spins without
 *          yielding, and on a machine with more runnable threads than
 *          cores it then keeps the peer off the core for whole time
 *          slices (milliseconds), which says nothing of the transport;
 *   isend  starpu_mpi_isend / starpu_mpi_irecv + starpu_mpi_wait, each
 *          receive posted before the message it takes can arrive (rank 0
 *          posts its receive before its send; rank 1 posts the next one
 *          before echoing, alternating two handles);
 *   send   starpu_mpi_send / starpu_mpi_recv, blocking, one handle per
 *          rank (what examples/pingpong does).
 * MPI is initialised by the program (MPI_Init_thread at the level -t asks,
 * MPI_THREAD_MULTIPLE by default) and handed to the layer
 * (starpu_mpi_init_conf with initialize_mpi 0). Every message of one size
 * uses the same tag (the size's index), as an application's handle keeps
 * its tag. After each size rank 0 checks that the bytes came back
 * unchanged.
 *
 * Output: a table, or with -m one line per (mode, size):
 *   MODE SIZE MEDIAN_US MIN_US MB_PER_S ROUNDTRIPS
 */
#include <starpu_mpi.h>

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define MAX_SIZES 32

static int rank;

static void check(int ret, const char *what)
{
	if (ret != 0) {
		fprintf(stderr, "%s: rank %d: %s failed (%d)\n", bench_name, rank, what, ret);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void fill(unsigned char *buf, size_t size, unsigned seed)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = (unsigned char) (i * 7 + seed);
}

static int intact(const unsigned char *buf, size_t size, unsigned seed)
{
	for (size_t i = 0; i < size; i++)
		if (buf[i] != (unsigned char) (i * 7 + seed))
			return 0;
	return 1;
}

static void report(int machine, const char *mode, size_t size, double *t, unsigned n)
{
	double min = t[0];
	for (unsigned i = 1; i < n; i++)
		if (t[i] < min)
			min = t[i];
	double med = median(t, n);
	double mbs = med > 0 ? size / med : 0;
	if (machine)
		printf("%s %zu %.3f %.3f %.1f %u\n", mode, size, med, min, mbs, n);
	else
		printf("%-6s %10zu %12.3f %12.3f %12.1f %8u\n", mode, size, med, min, mbs, n);
	fflush(stdout);
}

/* A mode: its buffers and handles, and one round trip per role. */
struct mode
{
	const char *name;
	int starpu;			/* uses the layer (else raw MPI) */
	size_t size;
	unsigned char *a, *b;
	starpu_data_handle_t h[2];
	starpu_mpi_req rr;		/* isend: rank 1's receive posted ahead */
	int tag;
	void (*trip0)(struct mode *m, unsigned i);
	void (*trip1)(struct mode *m, unsigned i, int last);
};

static void raw0(struct mode *m, unsigned i)
{
	(void) i;
	MPI_Send(m->a, (int) m->size, MPI_BYTE, 1, m->tag, MPI_COMM_WORLD);
	MPI_Recv(m->a, (int) m->size, MPI_BYTE, 1, m->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void raw1(struct mode *m, unsigned i, int last)
{
	(void) i;
	(void) last;
	MPI_Recv(m->a, (int) m->size, MPI_BYTE, 0, m->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Send(m->a, (int) m->size, MPI_BYTE, 0, m->tag, MPI_COMM_WORLD);
}

/* Waits for mr, yielding the core every 16 polls. */
static void wait_yield(MPI_Request *mr)
{
	int flag = 0;
	for (unsigned k = 1; !flag; k++) {
		MPI_Test(mr, &flag, MPI_STATUS_IGNORE);
		if (!flag && k % 16 == 0)
			sched_yield();
	}
}

static void rawy_trip(struct mode *m, int peer, int send_first)
{
	MPI_Request mr;
	if (send_first) {
		MPI_Isend(m->a, (int) m->size, MPI_BYTE, peer, m->tag, MPI_COMM_WORLD, &mr);
		wait_yield(&mr);
	}
	MPI_Irecv(m->a, (int) m->size, MPI_BYTE, peer, m->tag, MPI_COMM_WORLD, &mr);
	wait_yield(&mr);
	if (!send_first) {
		MPI_Isend(m->a, (int) m->size, MPI_BYTE, peer, m->tag, MPI_COMM_WORLD, &mr);
		wait_yield(&mr);
	}
}

static void rawy0(struct mode *m, unsigned i)
{
	(void) i;
	rawy_trip(m, 1, 1);
}

static void rawy1(struct mode *m, unsigned i, int last)
{
	(void) i;
	(void) last;
	rawy_trip(m, 0, 0);
}

/* isend: rank 0 sends h[i % 2] and takes the echo into the other handle,
 * its receive posted before its send; rank 1 posts the receive of the
 * next round before echoing this one. */
static void isend0(struct mode *m, unsigned i)
{
	starpu_mpi_req rs, rr;
	check(starpu_mpi_irecv(m->h[(i + 1) % 2], &rr, 1, m->tag, MPI_COMM_WORLD), "starpu_mpi_irecv");
	check(starpu_mpi_isend(m->h[i % 2], &rs, 1, m->tag, MPI_COMM_WORLD), "starpu_mpi_isend");
	check(starpu_mpi_wait(&rs, MPI_STATUS_IGNORE), "starpu_mpi_wait (send)");
	check(starpu_mpi_wait(&rr, MPI_STATUS_IGNORE), "starpu_mpi_wait (recv)");
}

static void isend1(struct mode *m, unsigned i, int last)
{
	starpu_mpi_req rs;
	if (!m->rr)
		check(starpu_mpi_irecv(m->h[i % 2], &m->rr, 0, m->tag, MPI_COMM_WORLD), "starpu_mpi_irecv");
	check(starpu_mpi_wait(&m->rr, MPI_STATUS_IGNORE), "starpu_mpi_wait (recv)");
	m->rr = NULL;
	if (!last)
		check(starpu_mpi_irecv(m->h[(i + 1) % 2], &m->rr, 0, m->tag, MPI_COMM_WORLD), "starpu_mpi_irecv");
	check(starpu_mpi_isend(m->h[i % 2], &rs, 0, m->tag, MPI_COMM_WORLD), "starpu_mpi_isend");
	check(starpu_mpi_wait(&rs, MPI_STATUS_IGNORE), "starpu_mpi_wait (send)");
}

static void send0(struct mode *m, unsigned i)
{
	(void) i;
	check(starpu_mpi_send(m->h[0], 1, m->tag, MPI_COMM_WORLD), "starpu_mpi_send");
	check(starpu_mpi_recv(m->h[0], 1, m->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "starpu_mpi_recv");
}

static void send1(struct mode *m, unsigned i, int last)
{
	(void) i;
	(void) last;
	check(starpu_mpi_recv(m->h[0], 0, m->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "starpu_mpi_recv");
	check(starpu_mpi_send(m->h[0], 0, m->tag, MPI_COMM_WORLD), "starpu_mpi_send");
}

/* Rank 0 tells rank 1 how many round trips the next batch has (0: none). */
static starpu_data_handle_t ctl_handle;
static int ctl_value;

static void ctl_send(const struct mode *m, int n)
{
	if (!m->starpu) {
		MPI_Send(&n, 1, MPI_INT, 1, 999, MPI_COMM_WORLD);
		return;
	}
	starpu_data_acquire(ctl_handle, STARPU_W);
	ctl_value = n;
	starpu_data_release(ctl_handle);
	check(starpu_mpi_send(ctl_handle, 1, 999, MPI_COMM_WORLD), "starpu_mpi_send (control)");
}

static int ctl_recv(const struct mode *m)
{
	int n;
	if (!m->starpu) {
		MPI_Recv(&n, 1, MPI_INT, 0, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		return n;
	}
	check(starpu_mpi_recv(ctl_handle, 0, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "starpu_mpi_recv (control)");
	starpu_data_acquire(ctl_handle, STARPU_R);
	n = ctl_value;
	starpu_data_release(ctl_handle);
	return n;
}

/* Round trips in batches until the size's time budget is spent (at least
 * 8 timed, at most maxtrips); the first trip of each batch is not timed
 * (rank 1 has not posted its receive yet, or the size is new). */
static void run_size(struct mode *m, int machine, size_t size, int tag, double budget, unsigned maxtrips, double *t)
{
	m->size = size;
	m->tag = tag;
	unsigned seed = (unsigned) tag * 3 + (unsigned) (m->trip0 == isend0) + 7 * (unsigned) (m->trip0 == send0) + 11 * (unsigned) (m->trip0 == rawy0);
	if (rank == 0)
		fill(m->a, size, seed);
	else
		memset(m->a, 0, size);
	memset(m->b, 0, size);
	if (m->starpu) {
		starpu_vector_data_register(&m->h[0], STARPU_MAIN_RAM, (uintptr_t) m->a, (uint32_t) size, 1);
		starpu_vector_data_register(&m->h[1], STARPU_MAIN_RAM, (uintptr_t) m->b, (uint32_t) size, 1);
		starpu_mpi_barrier(MPI_COMM_WORLD);
	} else
		MPI_Barrier(MPI_COMM_WORLD);
	m->rr = NULL;
	/* Batches of about a millisecond, at least 2 and at most 16 trips. */
	unsigned batch = 16, done = 0, timed = 0;
	double t_start = starpu_timing_now();
	if (rank == 0) {
		for (;;) {
			double spent = (starpu_timing_now() - t_start) / 1e6;
			int more = timed < 8 || (spent < budget && timed < maxtrips);
			ctl_send(m, more ? (int) batch : 0);
			if (!more)
				break;
			for (unsigned k = 0; k < batch; k++) {
				double t0 = starpu_timing_now();
				m->trip0(m, done++);
				double dt = (starpu_timing_now() - t0) / 2;
				if (k > 0 && timed < maxtrips)
					t[timed++] = dt;
			}
			if (timed && t[timed - 1] > 500 && batch > 2)
				batch /= 2;
		}
	} else if (rank == 1) {
		int n;
		while ((n = ctl_recv(m)) > 0)
			for (int k = 0; k < n; k++, done++)
				m->trip1(m, done, k == n - 1);
	}
	if (m->starpu) {
		starpu_data_unregister(m->h[0]);
		starpu_data_unregister(m->h[1]);
	}
	if (rank == 0) {
		/* isend's last echo landed in h[done % 2]. */
		const unsigned char *back = m->trip0 == isend0 && done % 2 ? m->b : m->a;
		if (!intact(back, size, seed)) {
			fprintf(stderr, "%s: %s: %zu bytes came back changed\n", bench_name, m->name, size);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		report(machine, m->name, size, t, timed);
	}
}

/* Whether MODES (comma-separated) lists mode. */
static int has_mode(const char *modes, const char *mode)
{
	size_t len = strlen(mode);
	for (const char *p = modes; *p;) {
		size_t tok = strcspn(p, ", ");
		if (tok == len && !strncmp(p, mode, len))
			return 1;
		p += tok;
		p += strspn(p, ", ");
	}
	return 0;
}

static int parse_sizes(const char *s, size_t *sizes)
{
	int n = 0;
	char *dup = strdup(s), *save = NULL;
	for (char *tok = strtok_r(dup, ", ", &save); tok && n < MAX_SIZES; tok = strtok_r(NULL, ", ", &save)) {
		char *end;
		unsigned long long v = strtoull(tok, &end, 10);
		if (*end == 'K' || *end == 'k')
			v <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			v <<= 20, end++;
		if (*end || v == 0 || v > (1ull << 30)) {
			fprintf(stderr, "%s: bad size '%s' (1 to 1G, K and M suffixes)\n", bench_name, tok);
			exit(EXIT_FAILURE);
		}
		sizes[n++] = (size_t) v;
	}
	free(dup);
	return n;
}

static void usage(void)
{
	fprintf(stderr, "usage: mpirun -np 2 mpi_pingpong [-m] [-t multiple|serialized] [-s SIZES] [-k MODES] [-T SECONDS] [-M TRIPS]\n"
		"  -m             one machine-readable line per mode and size\n"
		"  -t LEVEL       MPI thread level the program asks for (default multiple)\n"
		"  -s SIZES       comma-separated sizes in bytes, K/M suffixes (default 8,64,512,4K,32K,256K,2M,16M,64M)\n"
		"  -k MODES       comma-separated among raw,rawy,isend,send (default all four)\n"
		"  -T SECONDS     time spent per mode and size (default 0.25; at least 8 round trips)\n"
		"  -M TRIPS       at most this many timed round trips per mode and size (default 2000)\n");
}

int main(int argc, char **argv)
{
	bench_name = "mpi_pingpong";
	int machine = 0, level = MPI_THREAD_MULTIPLE;
	const char *sizes_arg = "8,64,512,4K,32K,256K,2M,16M,64M", *modes = "raw,rawy,isend,send";
	double budget = 0.25;
	unsigned maxtrips = 2000;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-m"))
			machine = 1;
		else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			const char *l = argv[++i];
			if (!strcmp(l, "multiple"))
				level = MPI_THREAD_MULTIPLE;
			else if (!strcmp(l, "serialized"))
				level = MPI_THREAD_SERIALIZED;
			else {
				usage();
				return EXIT_FAILURE;
			}
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			sizes_arg = argv[++i];
		else if (!strcmp(argv[i], "-k") && i + 1 < argc)
			modes = argv[++i];
		else if (!strcmp(argv[i], "-T") && i + 1 < argc)
			budget = atof(argv[++i]);
		else if (!strcmp(argv[i], "-M") && i + 1 < argc)
			maxtrips = (unsigned) parse_count(argv[++i], "round trips", 10000000);
		else {
			usage();
			return EXIT_FAILURE;
		}
	}
	if (!(budget > 0)) {
		usage();
		return EXIT_FAILURE;
	}
	size_t sizes[MAX_SIZES];
	int nsizes = parse_sizes(sizes_arg, sizes);
	size_t max = 0;
	for (int s = 0; s < nsizes; s++)
		if (sizes[s] > max)
			max = sizes[s];

	int provided, nranks;
	MPI_Init_thread(&argc, &argv, level, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (nranks < 2) {
		fprintf(stderr, "%s: needs 2 ranks (mpirun -np 2)\n", bench_name);
		MPI_Finalize();
		return 77;
	}
	if (provided < level) {
		fprintf(stderr, "%s: MPI gives thread level %d, below the %d asked for\n", bench_name, provided, level);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	struct mode m = { 0 };
	m.a = malloc(max);
	m.b = malloc(max);
	double *t = malloc(sizeof(double) * (maxtrips + 16));
	if (!m.a || !m.b || !t) {
		fprintf(stderr, "%s: out of memory\n", bench_name);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	/* Touch the buffers once so that first-touch faults are not timed. */
	memset(m.a, 0, max);
	memset(m.b, 0, max);
	if (rank == 0 && !machine)
		printf("%-6s %10s %12s %12s %12s %8s\n", "mode", "bytes", "one-way us", "min us", "MB/s", "trips");

	if (has_mode(modes, "raw")) {
		m.name = "raw";
		m.trip0 = raw0;
		m.trip1 = raw1;
		for (int s = 0; s < nsizes; s++)
			run_size(&m, machine, sizes[s], s, budget, maxtrips, t);
	}
	if (has_mode(modes, "rawy")) {
		m.name = "rawy";
		m.trip0 = rawy0;
		m.trip1 = rawy1;
		for (int s = 0; s < nsizes; s++)
			run_size(&m, machine, sizes[s], s, budget, maxtrips, t);
	}

	check(starpu_mpi_init_conf(&argc, &argv, 0, MPI_COMM_WORLD, NULL), "starpu_mpi_init_conf");
	starpu_variable_data_register(&ctl_handle, STARPU_MAIN_RAM, (uintptr_t) &ctl_value, sizeof(ctl_value));
	m.starpu = 1;
	if (has_mode(modes, "isend")) {
		m.name = "isend";
		m.trip0 = isend0;
		m.trip1 = isend1;
		for (int s = 0; s < nsizes; s++)
			run_size(&m, machine, sizes[s], s, budget, maxtrips, t);
	}
	if (has_mode(modes, "send")) {
		m.name = "send";
		m.trip0 = send0;
		m.trip1 = send1;
		for (int s = 0; s < nsizes; s++)
			run_size(&m, machine, sizes[s], s, budget, maxtrips, t);
	}
	starpu_data_unregister(ctl_handle);
	/* Also shuts the runtime down: starpu_mpi_init_conf started it. */
	starpu_mpi_shutdown();
	free(m.a);
	free(m.b);
	free(t);
	MPI_Finalize();
	return 0;
}
