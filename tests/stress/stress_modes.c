/* stress_modes: a randomized task graph that uses every access mode -- R,
 * W, RW, RW|COMMUTE, REDUX, SCRATCH, and handles under an arbiter -- run
 * under every scheduling policy and compared, byte for byte, with a
 * sequential run of the same graph in submission order.
 *
 * Each handle is a vector of L 64-bit values below a prime P. A task reads
 * its R and RW handles (their sum, element by element, is its input), then
 * updates what it writes:
 *   W        x = a*in + b + e               (ignores the old value)
 *   RW       x = a*x + b + in               (order-dependent: a wrong order
 *                                            of two writers shows)
 *   COMMUTE  x = x + (a*in + b)             (addition: any order of a run of
 *   REDUX    x = x + (a*in + b)              commuting writers or reduction
 *                                            contributors gives one result)
 * all modulo P, e the element's index. A task with a SCRATCH buffer first
 * fills it with its inputs, then takes each element's input from the
 * scratch as s[e] + s[L-1-e], so a scratch buffer shared by two running
 * tasks would change the result. The sequential run applies the same
 * function to plain arrays: sequential consistency promises the same bytes.
 *
 * The first tasks write every handle once (W), so the handles may be
 * allocated by the runtime (home node -1): with -m LIMIT -d DIR the data
 * set can be several times STARPU_LIMIT_CPU_MEM and goes through the swap
 * disk of STARPU_DISK_SWAP=DIR (out of core), which must not change a byte.
 *
 * Only the StarPU 1.3 API is used, so the program builds against StarPU too.
 *
 * Usage: stress_modes [-n ntasks] [-s seed] [-H handles] [-L elements]
 *                     [-w window] [-p policy] [-m limit_MiB -d swap_dir]
 *   -w  handles are picked mostly in a window of this many handles that
 *       moves along the pool (locality; default: the whole pool)
 *   -p  run only this policy, any name starpu_init accepts (default:
 *       every built-in policy)
 *   -x  leave out these kinds of access, comma-separated (commute, redux,
 *       scratch, arbiter; the first two become RW)
 * Prints one line per policy: tasks, workers, wall time, result.
 * Exit status: 0 pass, 1 failure, 77 skipped (no CPU worker).
 */
#include <starpu.h>

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXACC		4		/* data accesses per task, scratch aside */
#define PRIME		2147483647u	/* 2^31 - 1: a*x + b stays in 64 bits */
#define THROTTLE	20000		/* tasks in flight at most (memory) */

enum kind { K_R, K_W, K_RW, K_COMMUTE, K_REDUX, K_SCRATCH };

static const char *const kind_name[] = { "R", "W", "RW", "RW|COMMUTE", "REDUX", "SCRATCH" };

/* One task, generated once and read by the codelet and by the sequential
 * run. The constants a, b of access k come from seed (hash), which keeps
 * a million descriptions small. The scratch access, if any, is last. */
struct tdesc
{
	uint64_t seed;
	uint32_t handle[MAXACC + 1];
	uint8_t kind[MAXACC + 1];
	uint8_t nacc;
};

static unsigned nhandles = 64, narbitered, L = 4;
static struct tdesc *descs;
static atomic_uchar *nruns;		/* per task: how often its codelet ran */
static atomic_ulong bad_shape;		/* a buffer of the wrong size reached a codelet */
static unsigned long count_kind[6];
static unsigned excluded;		/* -x: kinds (bits) the graph leaves out */

static uint64_t rng_state;

/* xorshift64*: the same sequence on every platform and libc. */
static uint64_t rng_next(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static unsigned rng_below(unsigned n)
{
	return (unsigned) (rng_next() % n);
}

/* splitmix64, for the per-access constants. */
static uint64_t mix(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* The task's function on its buffers p[k] (L elements each); scratch is
 * p[nacc - 1] when the last access is SCRATCH. */
static void apply(const struct tdesc *d, uint64_t *const p[MAXACC + 1])
{
	unsigned n = d->nacc;
	uint64_t *s = NULL;
	if (n && d->kind[n - 1] == K_SCRATCH)
		s = p[--n];
	uint64_t a[MAXACC], b[MAXACC];
	for (unsigned k = 0; k < n; k++)
	{
		uint64_t h = mix(d->seed + k);
		a[k] = 2 + (h >> 33) % (PRIME - 2);
		b[k] = (h & 0xffffffffu) % PRIME;
	}
	if (s)
		for (unsigned e = 0; e < L; e++)
		{
			uint64_t in = 0;
			for (unsigned k = 0; k < n; k++)
				if (d->kind[k] == K_R || d->kind[k] == K_RW)
					in += p[k][e];
			s[e] = in % PRIME;
		}
	for (unsigned e = 0; e < L; e++)
	{
		uint64_t in = 0;
		if (s)
			in = (s[e] + s[L - 1 - e]) % PRIME;
		else
		{
			for (unsigned k = 0; k < n; k++)
				if (d->kind[k] == K_R || d->kind[k] == K_RW)
					in += p[k][e];
			in %= PRIME;
		}
		for (unsigned k = 0; k < n; k++)
		{
			uint64_t *x = &p[k][e];
			switch (d->kind[k])
			{
			case K_W: *x = (a[k] * in + b[k] + e) % PRIME; break;
			case K_RW: *x = (a[k] * *x + b[k] + in) % PRIME; break;
			case K_COMMUTE:
			case K_REDUX: *x = (*x + (a[k] * in + b[k]) % PRIME) % PRIME; break;
			default: break;
			}
		}
	}
}

static void task_cpu(void *buffers[], void *arg)
{
	unsigned i = (unsigned) (uintptr_t) arg;
	const struct tdesc *d = &descs[i];
	uint64_t *p[MAXACC + 1];
	for (unsigned k = 0; k < d->nacc; k++)
	{
		if (STARPU_VECTOR_GET_NX(buffers[k]) != L || STARPU_VECTOR_GET_ELEMSIZE(buffers[k]) != sizeof(uint64_t))
		{
			atomic_fetch_add(&bad_shape, 1);
			return;
		}
		p[k] = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[k]);
	}
	apply(d, p);
	atomic_fetch_add(&nruns[i], 1);
}

static struct starpu_codelet task_cl =
{
	.cpu_funcs = { task_cpu },
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
	.name = "stress_modes",
};

/* Reduction methods: contributions start at 0 and are added modulo P. */
static void redux_init_cpu(void *buffers[], void *arg)
{
	(void) arg;
	uint64_t *x = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	memset(x, 0, STARPU_VECTOR_GET_NX(buffers[0]) * sizeof(*x));
}

static void redux_add_cpu(void *buffers[], void *arg)
{
	(void) arg;
	uint64_t *dst = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[0]);
	const uint64_t *src = (const uint64_t *) STARPU_VECTOR_GET_PTR(buffers[1]);
	for (unsigned e = 0; e < STARPU_VECTOR_GET_NX(buffers[0]); e++)
		dst[e] = (dst[e] + src[e]) % PRIME;
}

static struct starpu_codelet redux_init_cl =
{
	.cpu_funcs = { redux_init_cpu },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "stress_modes_redux_init",
};

static struct starpu_codelet redux_add_cl =
{
	.cpu_funcs = { redux_add_cpu },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_R },
	.name = "stress_modes_redux_add",
};

/* A handle for the next access: mostly in a window of `window` handles
 * that moves along the pool as the graph goes on (what a real application's
 * locality looks like, and what lets an out-of-core run make progress),
 * sometimes anywhere. */
static unsigned pick_handle(unsigned i, unsigned ntasks, unsigned window)
{
	if (window >= nhandles || rng_below(8) == 0)
		return rng_below(nhandles);
	unsigned start = (unsigned) ((uint64_t) i * (nhandles - window) / ntasks);
	return start + rng_below(window);
}

static void generate(unsigned ntasks, uint64_t seed, unsigned window)
{
	rng_state = seed ? seed : 1;
	for (unsigned i = 0; i < ntasks; i++)
	{
		struct tdesc *d = &descs[i];
		memset(d, 0, sizeof(*d));
		d->seed = rng_next();
		if (i < nhandles)
		{
			/* Every handle is written first: its home may be the
			 * runtime's (-1), with nothing to read before. */
			d->nacc = 1;
			d->handle[0] = i;
			d->kind[0] = K_W;
			count_kind[K_W]++;
			continue;
		}
		unsigned n = 1 + rng_below(MAXACC);
		for (unsigned k = 0; k < n; k++)
		{
			unsigned h;
			int dup;
			do
			{
				h = pick_handle(i, ntasks, window);
				dup = 0;
				for (unsigned j = 0; j < k; j++)
					dup |= d->handle[j] == h;
			}
			while (dup);
			d->handle[k] = h;
			unsigned r = rng_below(100);
			enum kind m = r < 30 ? K_R : r < 40 ? K_W : r < 60 ? K_RW : r < 80 ? K_COMMUTE : K_REDUX;
			/* Handles under the arbiter take no reductions. */
			if (m == K_REDUX && h >= nhandles - narbitered)
				m = K_COMMUTE;
			if (excluded & (1u << m))
				m = K_RW;
			d->kind[k] = (uint8_t) m;
			count_kind[m]++;
		}
		if (rng_below(8) == 0 && !(excluded & (1u << K_SCRATCH)))
		{
			d->handle[n] = nhandles;	/* the scratch handle */
			d->kind[n++] = K_SCRATCH;
			count_kind[K_SCRATCH]++;
		}
		d->nacc = (uint8_t) n;
	}
}

static void sequential(unsigned ntasks, uint64_t *ref, uint64_t *scratch)
{
	for (unsigned i = 0; i < ntasks; i++)
	{
		uint64_t *p[MAXACC + 1];
		for (unsigned k = 0; k < descs[i].nacc; k++)
			p[k] = descs[i].kind[k] == K_SCRATCH ? scratch : &ref[(size_t) descs[i].handle[k] * L];
		apply(&descs[i], p);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static enum starpu_data_access_mode mode_of(enum kind k)
{
	switch (k)
	{
	case K_R: return STARPU_R;
	case K_W: return STARPU_W;
	case K_RW: return STARPU_RW;
	case K_COMMUTE: return STARPU_RW | STARPU_COMMUTE;
	case K_REDUX: return STARPU_REDUX;
	default: return STARPU_SCRATCH;
	}
}

/* Bytes this process read and wrote through system calls so far (Linux
 * /proc/self/io rchar, wchar; -1 elsewhere): out of core, what went to and
 * from the swap file. */
static void io_bytes(long long *rd, long long *wr)
{
	*rd = *wr = -1;
	FILE *f = fopen("/proc/self/io", "r");
	if (!f)
		return;
	char line[128];
	while (fgets(line, sizeof(line), f))
	{
		sscanf(line, "rchar: %lld", rd);
		sscanf(line, "wchar: %lld", wr);
	}
	fclose(f);
}

/* Runs the graph under one policy; returns the number of problems (0:
 * pass), or -1 when there is no CPU worker. ooc: runtime-allocated data. */
static int run_policy(const char *policy, unsigned ntasks, const uint64_t *ref, int ooc)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.sched_policy_name = policy;
	conf.ncuda = 0;
	conf.nopencl = 0;
	int ret = starpu_init(&conf);
	if (ret == -ENODEV)
		return -1;
	if (ret != 0)
	{
		fprintf(stderr, "%s: starpu_init failed: %d\n", policy, ret);
		return 1;
	}
	if (starpu_cpu_worker_get_count() == 0)
	{
		starpu_shutdown();
		return -1;
	}

	int problems = 0;
	long long rd0, wr0;
	io_bytes(&rd0, &wr0);
	double t0 = now();
	size_t bytes = (size_t) nhandles * L * sizeof(uint64_t);
	/* Home buffers (in-core runs): garbage that the first W overwrites. */
	uint64_t *home = ooc ? NULL : malloc(bytes);
	if (home)
		memset(home, 0xa5, bytes);
	else if (!ooc)
	{
		fprintf(stderr, "%s: out of memory\n", policy);
		starpu_shutdown();
		return 1;
	}
	starpu_data_handle_t *handles = malloc((nhandles + 1) * sizeof(*handles));
	starpu_arbiter_t arbiter = starpu_arbiter_create();
	for (unsigned h = 0; h < nhandles; h++)
	{
		if (ooc)
			starpu_vector_data_register(&handles[h], -1, 0, L, sizeof(uint64_t));
		else
			starpu_vector_data_register(&handles[h], STARPU_MAIN_RAM, (uintptr_t) &home[(size_t) h * L],
						    L, sizeof(uint64_t));
		if (h >= nhandles - narbitered)
			starpu_data_assign_arbiter(handles[h], arbiter);
		else
			starpu_data_set_reduction_methods(handles[h], &redux_add_cl, &redux_init_cl);
	}
	starpu_vector_data_register(&handles[nhandles], -1, 0, L, sizeof(uint64_t));
	for (unsigned i = 0; i < ntasks; i++)
		atomic_store_explicit(&nruns[i], 0, memory_order_relaxed);
	atomic_store(&bad_shape, 0);

	for (unsigned i = 0; i < ntasks; i++)
	{
		const struct tdesc *d = &descs[i];
		struct starpu_task *t = starpu_task_create();
		t->cl = &task_cl;
		t->cl_arg = (void *) (uintptr_t) i;
		t->nbuffers = d->nacc;
		for (unsigned k = 0; k < d->nacc; k++)
		{
			t->handles[k] = handles[d->handle[k]];
			t->modes[k] = mode_of(d->kind[k]);
		}
		ret = starpu_task_submit(t);
		if (ret != 0)
		{
			fprintf(stderr, "%s: task %u: starpu_task_submit failed: %d\n", policy, i, ret);
			starpu_task_destroy(t);
			problems++;
			break;
		}
		if (i % THROTTLE == THROTTLE - 1)
			starpu_task_wait_for_n_submitted(THROTTLE);
	}
	ret = starpu_task_wait_for_all();
	if (ret != 0)
	{
		fprintf(stderr, "%s: starpu_task_wait_for_all failed: %d\n", policy, ret);
		problems++;
	}

	/* The results as the application sees them (acquire), then, in-core,
	 * what unregistering wrote back home. */
	unsigned bad_values = 0;
	for (unsigned h = 0; h < nhandles; h++)
	{
		const uint64_t *want = &ref[(size_t) h * L];
		if (starpu_data_acquire(handles[h], STARPU_R) != 0)
		{
			fprintf(stderr, "%s: handle %u: starpu_data_acquire failed\n", policy, h);
			problems++;
			continue;
		}
		const uint64_t *got = (const uint64_t *) starpu_vector_get_local_ptr(handles[h]);
		if (!got || memcmp(got, want, L * sizeof(uint64_t)) != 0)
		{
			if (bad_values++ < 5)
				fprintf(stderr, "%s: handle %u: acquired %" PRIu64 " (element 0), sequential %" PRIu64 "\n",
					policy, h, got ? got[0] : 0, want[0]);
		}
		starpu_data_release(handles[h]);
	}
	for (unsigned h = 0; h <= nhandles; h++)
		starpu_data_unregister(handles[h]);
	starpu_arbiter_destroy(arbiter);
	if (home && memcmp(home, ref, bytes) != 0)
	{
		fprintf(stderr, "%s: the home buffers differ from the sequential run after unregistration\n", policy);
		bad_values++;
	}

	unsigned bad_runs = 0;
	for (unsigned i = 0; i < ntasks; i++)
		if (atomic_load_explicit(&nruns[i], memory_order_relaxed) != 1 && bad_runs++ < 5)
			fprintf(stderr, "%s: task %u ran %u times\n", policy, i, atomic_load(&nruns[i]));
	unsigned long shape = atomic_load(&bad_shape);
	if (shape)
		fprintf(stderr, "%s: %lu task(s) got a buffer of the wrong size\n", policy, shape);
	problems += bad_runs + bad_values + (shape > 0);

	free(handles);
	free(home);
	unsigned nworkers = starpu_worker_get_count();
	starpu_shutdown();
	double wall = now() - t0;
	long long rd1, wr1;
	io_bytes(&rd1, &wr1);
	printf("%-24s %8u tasks on %2u workers: %s  %8.2f s  %9.0f tasks/s", policy, ntasks, nworkers,
	       problems ? "FAIL" : "exact", wall, ntasks / wall);
	if (ooc && rd0 >= 0 && rd1 >= 0)
		printf("  swap: %.0f MiB written, %.0f MiB read", (wr1 - wr0) / 1048576.0, (rd1 - rd0) / 1048576.0);
	printf("\n");
	fflush(stdout);
	return problems;
}

static int usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-n ntasks] [-s seed] [-H handles] [-L elements] [-w window] [-p policy] "
		"[-x commute,redux,scratch,arbiter] [-m limit_MiB -d swap_dir]\n", argv0);
	return 1;
}

int main(int argc, char **argv)
{
	unsigned ntasks = 20000, window = 0;
	uint64_t seed = 1;
	const char *only = NULL, *swapdir = NULL;
	long limit = -1;
	int opt, arbiter = 1;
	while ((opt = getopt(argc, argv, "n:s:H:L:w:p:m:d:x:")) != -1)
	{
		char *end;
		unsigned long v = strtoul(optarg, &end, 0);
		int numeric = *optarg && !*end;
		switch (opt)
		{
		case 'n': ntasks = (unsigned) v; break;
		case 's': seed = strtoull(optarg, &end, 0); break;
		case 'H': nhandles = (unsigned) v; break;
		case 'L': L = (unsigned) v; break;
		case 'w': window = (unsigned) v; break;
		case 'm': limit = (long) v; break;
		case 'p': only = optarg; numeric = 1; break;
		case 'd': swapdir = optarg; numeric = 1; break;
		case 'x':
			numeric = 1;
			for (char *tok = strtok(optarg, ","); tok; tok = strtok(NULL, ","))
			{
				if (strcmp(tok, "commute") == 0)
					excluded |= 1u << K_COMMUTE;
				else if (strcmp(tok, "redux") == 0)
					excluded |= 1u << K_REDUX;
				else if (strcmp(tok, "scratch") == 0)
					excluded |= 1u << K_SCRATCH;
				else if (strcmp(tok, "arbiter") == 0)
					arbiter = 0;
				else
				{
					fprintf(stderr, "%s: -x '%s': not one of commute, redux, scratch, arbiter\n", argv[0], tok);
					return usage(argv[0]);
				}
			}
			break;
		default: return usage(argv[0]);
		}
		if (!numeric)
		{
			fprintf(stderr, "%s: -%c '%s' is not a number\n", argv[0], opt, optarg);
			return usage(argv[0]);
		}
	}
	if (optind < argc || nhandles < 2 || nhandles > 1u << 24 || L == 0 || L > 1u << 24 || ntasks < nhandles
	    || (limit >= 0) != (swapdir != NULL))
	{
		if (ntasks < nhandles)
			fprintf(stderr, "%s: -n %u: fewer tasks than handles (%u)\n", argv[0], ntasks, nhandles);
		else if ((limit >= 0) != (swapdir != NULL))
			fprintf(stderr, "%s: -m and -d go together\n", argv[0]);
		return usage(argv[0]);
	}
	if (window == 0 || window > nhandles)
		window = nhandles;
	narbitered = arbiter ? nhandles / 8 : 0;
	int ooc = limit >= 0;
	if (ooc)
	{
		char v[32];
		snprintf(v, sizeof(v), "%ld", limit);
		setenv("STARPU_LIMIT_CPU_MEM", v, 1);
		setenv("STARPU_DISK_SWAP", swapdir, 1);
	}

	size_t bytes = (size_t) nhandles * L * sizeof(uint64_t);
	descs = malloc((size_t) ntasks * sizeof(*descs));
	nruns = malloc((size_t) ntasks * sizeof(*nruns));
	uint64_t *ref = malloc(bytes), *scratch = malloc(L * sizeof(uint64_t));
	if (!descs || !nruns || !ref || !scratch)
	{
		fprintf(stderr, "stress_modes: out of memory for %u tasks\n", ntasks);
		return 1;
	}
	for (unsigned i = 0; i < ntasks; i++)
		atomic_init(&nruns[i], 0);
	generate(ntasks, seed, window);
	double t0 = now();
	sequential(ntasks, ref, scratch);
	double tseq = now() - t0;
	printf("stress_modes: seed %" PRIu64 ", %u tasks, %u handles (%u under an arbiter) of %u x 8 bytes = %.1f MiB",
	       seed, ntasks, nhandles, narbitered, L, bytes / 1048576.0);
	if (window < nhandles)
		printf(", window %u", window);
	if (ooc)
		printf(", STARPU_LIMIT_CPU_MEM=%ld MiB, swap in %s", limit, swapdir);
	printf("\naccesses:");
	for (unsigned k = 0; k < 6; k++)
		printf(" %s %lu", kind_name[k], count_kind[k]);
	printf("\n%-24s %8u tasks on %2u workers: ref    %8.2f s\n", "sequential", ntasks, 1, tseq);
	fflush(stdout);

	int failed = 0;
	/* -p: that name as given (also an alias, e.g. StarPU's modular-X for
	 * Vela's tree-X; an unknown one fails at starpu_init). */
	struct starpu_sched_policy *given[2] = { NULL, NULL }, pol;
	struct starpu_sched_policy **all = starpu_sched_get_predefined_policies();
	if (only)
	{
		memset(&pol, 0, sizeof(pol));
		pol.policy_name = only;
		given[0] = &pol;
		all = given;
	}
	for (struct starpu_sched_policy **p = all; *p; p++)
	{
		int r = run_policy((*p)->policy_name, ntasks, ref, ooc);
		if (r < 0)
		{
			printf("SKIP: no CPU worker\n");
			return 77;
		}
		failed |= r != 0;
	}
	free(descs);
	free(nruns);
	free(ref);
	free(scratch);
	printf("stress_modes: %s\n", failed ? "FAIL" : "PASS");
	return failed ? 1 : 0;
}
