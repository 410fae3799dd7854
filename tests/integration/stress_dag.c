/* stress_dag: a large randomized task graph that mixes the three ways a task
 * can wait for another one -- tags, explicit task dependencies and implicit
 * data dependencies -- and checks the runtime honoured all of them.
 *
 * Every task applies a non-commutative update to the handles it writes, fed
 * by the handles it reads, so any reordering of two conflicting accesses
 * shows up in the final values; these are compared with a sequential replay
 * in submission order, which is what sequential consistency promises.
 * Explicit and tag predecessors do not touch data, so each task also checks,
 * when it starts, that every predecessor it declared has already finished.
 *
 * Usage: stress_dag [-n ntasks] [-s seed] [-q] [-p policy]
 *   -q  quick mode (10,000 tasks for every policy)
 * Without -n or -q, VELA_STRESS_DAG_NTASKS sets the number of tasks
 * (the sanitizer runs, make check-asan and check-tsan, use fewer).
 *   -p  run only this policy (default: every built-in policy)
 * Exit status: 0 pass, 1 failure, 77 skipped (no CPU worker).
 */
#include <starpu.h>

#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NHANDLES	64
#define MAXBUF		4	/* data accesses per task */
#define MAXEXPL		3	/* explicit task predecessors per task */
#define MAXTAGDEPS	3	/* tag predecessors per tagged task */
#define RECENT		64	/* window for "recent" predecessors */
#define PRIME		2147483647u	/* 2^31 - 1: a*x + b stays in 64 bits */

#define DEFAULT_NTASKS	100000
#define QUICK_NTASKS	10000

/* What one task does; generated once, read by the codelet and by the
 * sequential replay, so both apply exactly the same arithmetic. */
struct tdesc
{
	unsigned nbuf;
	unsigned handle[MAXBUF];	/* distinct indices into the pool */
	enum starpu_data_access_mode mode[MAXBUF];
	uint32_t a[MAXBUF], b[MAXBUF];	/* per-access constants, < PRIME */

	/* All predecessors (explicit and tag) by task index, for the
	 * "did they run first" check. */
	unsigned npred;
	unsigned pred[MAXEXPL + MAXTAGDEPS];
	unsigned nexpl;			/* the first nexpl of pred are explicit */

	int tagged;
};

static struct tdesc *descs;
static atomic_uint *done;		/* per task: 1 once its codelet finished */
static atomic_uint *nruns;		/* per task: how often the codelet ran */
static atomic_ulong violations;		/* predecessor not finished when a task ran */

static uint64_t rng_state;

/* xorshift64*: deterministic across platforms and libcs, unlike rand(). */
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

/* The update applied to one written handle. W accesses must not depend on
 * the previous content (the runtime need not provide it), RW ones must. */
static uint64_t update(enum starpu_data_access_mode mode, uint64_t old,
		       uint32_t a, uint32_t b, uint64_t rsum)
{
	if (mode == STARPU_W)
		return ((uint64_t) a * (rsum % PRIME) + b) % PRIME;
	return ((uint64_t) a * old + b + rsum) % PRIME;
}

/* Both the codelet and the replay go through this: reads first (including
 * the old values of RW handles, so RW handles also feed each other), then
 * writes in access order. */
static void apply(const struct tdesc *d, uint64_t *const val[MAXBUF])
{
	uint64_t rsum = 0;
	for (unsigned k = 0; k < d->nbuf; k++)
		if (d->mode[k] != STARPU_W)
			rsum += *val[k];
	for (unsigned k = 0; k < d->nbuf; k++)
		if (d->mode[k] != STARPU_R)
			*val[k] = update(d->mode[k], *val[k], d->a[k], d->b[k], rsum);
}

static void task_cpu(void *buffers[], void *arg)
{
	unsigned i = (unsigned) (uintptr_t) arg;
	const struct tdesc *d = &descs[i];

	for (unsigned p = 0; p < d->npred; p++)
		if (!atomic_load_explicit(&done[d->pred[p]], memory_order_acquire))
			atomic_fetch_add(&violations, 1);

	uint64_t *val[MAXBUF];
	for (unsigned k = 0; k < d->nbuf; k++)
		val[k] = (uint64_t *) STARPU_VARIABLE_GET_PTR(buffers[k]);
	apply(d, val);

	atomic_fetch_add(&nruns[i], 1);
	atomic_store_explicit(&done[i], 1, memory_order_release);
}

static struct starpu_codelet task_cl =
{
	.cpu_funcs = { task_cpu },
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
	.name = "stress_dag",
};

static void pick_unique(unsigned *out, unsigned n, unsigned below, unsigned base)
{
	/* n distinct values in [base, base + below); n <= below, small n. */
	for (unsigned k = 0; k < n; k++)
	{
		unsigned v;
		int dup;
		do
		{
			v = base + rng_below(below);
			dup = 0;
			for (unsigned j = 0; j < k; j++)
				dup |= out[j] == v;
		}
		while (dup);
		out[k] = v;
	}
}

/* A predecessor among tasks [0, i): half the time a recent one (likely
 * still pending, so the dependency really has to be enforced), otherwise
 * anywhere (likely finished: a dependency on a completed task). */
static unsigned pick_earlier(const unsigned *pool, unsigned npool)
{
	if (npool > RECENT && rng_below(2))
		return pool[npool - 1 - rng_below(RECENT)];
	return pool[rng_below(npool)];
}

static void generate(unsigned ntasks, uint64_t seed)
{
	static const enum starpu_data_access_mode modes[3] = { STARPU_R, STARPU_W, STARPU_RW };
	unsigned *all = malloc(ntasks * sizeof(*all));
	unsigned *tagged = malloc(ntasks * sizeof(*tagged));
	unsigned ntagged = 0;

	rng_state = seed ? seed : 1;
	for (unsigned i = 0; i < ntasks; i++)
	{
		struct tdesc *d = &descs[i];
		memset(d, 0, sizeof(*d));

		/* 0..MAXBUF accesses; tasks without data are pure control
		 * nodes that only tags and explicit deps order. */
		d->nbuf = rng_below(MAXBUF + 1);
		pick_unique(d->handle, d->nbuf, NHANDLES, 0);
		for (unsigned k = 0; k < d->nbuf; k++)
		{
			d->mode[k] = modes[rng_below(3)];
			d->a[k] = 2 + rng_below(PRIME - 2);
			d->b[k] = rng_below(PRIME);
		}

		if (i > 0 && rng_below(3) == 0)
		{
			unsigned n = 1 + rng_below(MAXEXPL);
			for (unsigned k = 0; k < n; k++)
			{
				unsigned p = pick_earlier(all, i);
				int dup = 0;
				for (unsigned j = 0; j < d->npred; j++)
					dup |= d->pred[j] == p;
				if (!dup)
					d->pred[d->npred++] = p;
			}
		}
		d->nexpl = d->npred;

		d->tagged = rng_below(2);
		if (d->tagged)
		{
			if (ntagged > 0 && rng_below(2))
			{
				unsigned n = 1 + rng_below(MAXTAGDEPS);
				for (unsigned k = 0; k < n; k++)
				{
					unsigned p = pick_earlier(tagged, ntagged);
					int dup = 0;
					for (unsigned j = d->nexpl; j < d->npred; j++)
						dup |= d->pred[j] == p;
					if (!dup)
						d->pred[d->npred++] = p;
				}
			}
			tagged[ntagged++] = i;
		}
		all[i] = i;
	}
	free(all);
	free(tagged);
}

static uint64_t initial_value(unsigned h)
{
	return (1000003u * (h + 1)) % PRIME;
}

static void replay(unsigned ntasks, uint64_t *ref)
{
	for (unsigned h = 0; h < NHANDLES; h++)
		ref[h] = initial_value(h);
	for (unsigned i = 0; i < ntasks; i++)
	{
		uint64_t *val[MAXBUF];
		for (unsigned k = 0; k < descs[i].nbuf; k++)
			val[k] = &ref[descs[i].handle[k]];
		apply(&descs[i], val);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Runs the generated graph under one policy; returns the number of
 * problems found (0 = pass), or -1 when there is no CPU worker. */
static int run_policy(const char *policy, unsigned ntasks, const uint64_t *ref, uint64_t tagbase)
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
	double t0 = now();
	uint64_t values[NHANDLES];
	starpu_data_handle_t handles[NHANDLES];
	for (unsigned h = 0; h < NHANDLES; h++)
	{
		values[h] = initial_value(h);
		starpu_variable_data_register(&handles[h], STARPU_MAIN_RAM,
					      (uintptr_t) &values[h], sizeof(values[h]));
	}

	/* Tasks live in one array, are never destroyed by the runtime
	 * (starpu_task_init leaves destroy = 0) and are cleaned after
	 * wait_for_all: any task may be named as an explicit predecessor
	 * long after it finished. */
	struct starpu_task *tasks = calloc(ntasks, sizeof(*tasks));
	for (unsigned i = 0; i < ntasks; i++)
	{
		atomic_store(&done[i], 0);
		atomic_store(&nruns[i], 0);
	}
	atomic_store(&violations, 0);

	unsigned ninit = 0;
	for (unsigned i = 0; i < ntasks && !problems; i++)
	{
		const struct tdesc *d = &descs[i];
		struct starpu_task *t = &tasks[i];
		starpu_task_init(t);
		ninit++;
		t->cl = &task_cl;
		t->cl_arg = (void *) (uintptr_t) i;
		t->nbuffers = d->nbuf;
		for (unsigned k = 0; k < d->nbuf; k++)
		{
			t->handles[k] = handles[d->handle[k]];
			t->modes[k] = d->mode[k];
		}

		if (d->tagged)
		{
			/* Tag ids are offset per run so that no state left by
			 * a previous runtime instance could satisfy them. */
			t->use_tag = 1;
			t->tag_id = tagbase + i;
			unsigned ntag = d->npred - d->nexpl;
			if (ntag > 0)
			{
				starpu_tag_t deps[MAXTAGDEPS];
				for (unsigned k = 0; k < ntag; k++)
					deps[k] = tagbase + d->pred[d->nexpl + k];
				starpu_tag_declare_deps_array(t->tag_id, ntag, deps);
			}
		}

		/* After the tag fields: StarPU 1.3 creates the task's job
		 * (and binds its tag) on the first declare_deps call, so a
		 * use_tag set afterwards leaves the job without its tag and
		 * starpu_task_submit crashes. */
		if (d->nexpl > 0)
		{
			struct starpu_task *pred[MAXEXPL];
			for (unsigned k = 0; k < d->nexpl; k++)
				pred[k] = &tasks[d->pred[k]];
			starpu_task_declare_deps_array(t, d->nexpl, pred);
		}

		ret = starpu_task_submit(t);
		if (ret != 0)
		{
			fprintf(stderr, "%s: task %u: starpu_task_submit failed: %d\n", policy, i, ret);
			problems++;
		}
	}

	ret = starpu_task_wait_for_all();
	if (ret != 0)
	{
		fprintf(stderr, "%s: starpu_task_wait_for_all failed: %d\n", policy, ret);
		problems++;
	}

	/* Read the results through the runtime first (acquire), then check
	 * unregistering wrote the same values back home. */
	uint64_t got[NHANDLES];
	for (unsigned h = 0; h < NHANDLES; h++)
	{
		starpu_data_acquire(handles[h], STARPU_R);
		got[h] = *(uint64_t *) starpu_variable_get_local_ptr(handles[h]);
		starpu_data_release(handles[h]);
		starpu_data_unregister(handles[h]);
	}

	unsigned bad_runs = 0, bad_values = 0;
	for (unsigned i = 0; i < ntasks; i++)
		if (atomic_load(&nruns[i]) != 1)
		{
			if (bad_runs++ < 5)
				fprintf(stderr, "%s: task %u ran %u times\n", policy, i, atomic_load(&nruns[i]));
		}
	for (unsigned h = 0; h < NHANDLES; h++)
		if (got[h] != ref[h] || values[h] != ref[h])
		{
			if (bad_values++ < 5)
				fprintf(stderr, "%s: handle %u: acquired %" PRIu64 ", home %" PRIu64
					", sequential %" PRIu64 "\n", policy, h, got[h], values[h], ref[h]);
		}
	unsigned long viol = atomic_load(&violations);
	if (viol)
		fprintf(stderr, "%s: %lu predecessor(s) had not finished when their successor ran\n",
			policy, viol);
	problems += bad_runs + bad_values + (viol > 0);

	for (unsigned i = 0; i < ninit; i++)
		starpu_task_clean(&tasks[i]);
	free(tasks);

	unsigned nworkers = starpu_worker_get_count();
	starpu_shutdown();
	printf("%-24s %6u tasks on %u workers: %s (%.2f s)\n", policy, ntasks, nworkers,
	       problems ? "FAIL" : "ok", now() - t0);
	return problems;
}

int main(int argc, char **argv)
{
	unsigned ntasks = 0;
	uint64_t seed = (uint64_t) time(NULL);
	int quick = 0;
	const char *only = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:qp:")) != -1)
	{
		switch (opt)
		{
		case 'n': ntasks = (unsigned) strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'q': quick = 1; break;
		case 'p': only = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-n ntasks] [-s seed] [-q] [-p policy]\n", argv[0]);
			return 1;
		}
	}
	const char *env = getenv("VELA_STRESS_DAG_NTASKS");
	if (ntasks == 0 && !quick && env && *env)
	{
		char *end;
		unsigned long v = strtoul(env, &end, 10);
		if (*end || v == 0 || v > 10000000)
		{
			fprintf(stderr, "stress_dag: VELA_STRESS_DAG_NTASKS='%s' must be an integer between 1 and 10000000\n",
				env);
			return 1;
		}
		ntasks = (unsigned) v;
	}
	if (ntasks == 0)
		ntasks = quick ? QUICK_NTASKS : DEFAULT_NTASKS;
	printf("stress_dag: seed %" PRIu64 " (rerun with -s %" PRIu64 "), %u tasks\n", seed, seed, ntasks);

	descs = malloc(ntasks * sizeof(*descs));
	done = malloc(ntasks * sizeof(*done));
	nruns = malloc(ntasks * sizeof(*nruns));
	uint64_t ref[NHANDLES];
	if (!descs || !done || !nruns)
	{
		fprintf(stderr, "stress_dag: out of memory for %u tasks\n", ntasks);
		return 1;
	}
	for (unsigned i = 0; i < ntasks; i++)
	{
		atomic_init(&done[i], 0);
		atomic_init(&nruns[i], 0);
	}
	generate(ntasks, seed);
	replay(ntasks, ref);

	int failed = 0, ran = 0;
	uint64_t tagbase = 1;
	/* Every built-in policy, so that each new one is stressed too. */
	struct starpu_sched_policy **all = starpu_sched_get_predefined_policies();
	for (struct starpu_sched_policy **p = all; *p; p++)
	{
		if (only && strcmp(only, (*p)->policy_name) != 0)
			continue;
		int r = run_policy((*p)->policy_name, ntasks, ref, tagbase);
		tagbase += ntasks;
		if (r < 0)
		{
			printf("SKIP: no CPU worker\n");
			return 77;
		}
		failed |= r != 0;
		ran++;
	}
	if (ran == 0)
	{
		fprintf(stderr, "stress_dag: unknown policy %s\n", only);
		return 1;
	}

	free(descs);
	free(done);
	free(nruns);
	printf("stress_dag: %s\n", failed ? "FAIL" : "PASS");
	return failed ? 1 : 0;
}
