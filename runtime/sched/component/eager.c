/* eager.c — the eager and random decision components.
 *
 * eager: the first child that can run the task and has nothing queued,
 * else the least loaded child that accepts it.
 * random: a child drawn at random among those that can run the task,
 * weighted by the relative speed of its workers; if it refuses, the next
 * ones in turn. Draws are reproducible: the n-th draw of a component hashes
 * n with STARPU_RAND_SEED.
 * Both refuse (return 1) only when every capable child refuses.
 */
#include "sched/component/component_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static int eager_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	unsigned n = c->nchildren;
	double load[n ? n : 1];
	for (unsigned i = 0; i < n; i++)
	{
		struct starpu_sched_component *ch = c->children[i];
		load[i] = comp_can_run(ch, task) ? ch->estimated_load(ch) : INFINITY;
	}
	for (unsigned i = 0; i < n; i++)
		if (load[i] == 0.0 && c->children[i]->push_task(c->children[i], task) == 0)
			return 0;
	/* By increasing load; each child tried once. */
	for (;;)
	{
		unsigned best = n;
		for (unsigned i = 0; i < n; i++)
			if (!isinf(load[i]) && (best == n || load[i] < load[best]))
				best = i;
		if (best == n)
			return 1;
		if (c->children[best]->push_task(c->children[best], task) == 0)
			return 0;
		load[best] = INFINITY;
	}
}

struct starpu_sched_component *starpu_sched_component_eager_create(struct starpu_sched_tree *tree, void *arg)
{
	(void) arg;
	struct starpu_sched_component *c = starpu_sched_component_create(tree, "eager");
	if (!c)
		abort();
	c->push_task = eager_push;
	return c;
}

int starpu_sched_component_is_eager(struct starpu_sched_component *c)
{
	return c && c->push_task == eager_push;
}

/* ---- random ---- */

struct random_comp
{
	uint64_t seed;
	uint64_t ndraws;	/* atomic */
};

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static double speed_of(struct starpu_sched_component *ch, unsigned ctx)
{
	double s = 0.0;
	for (int w = starpu_bitmap_first(ch->workers_in_ctx); w >= 0; w = starpu_bitmap_next(ch->workers_in_ctx, w))
	{
		double r = starpu_worker_get_relative_speedup(starpu_worker_get_perf_archtype(w, ctx));
		s += (isnan(r) || r <= 0) ? 1.0 : r;
	}
	return s;
}

static int random_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	struct random_comp *d = c->data;
	unsigned n = c->nchildren;
	double w[n ? n : 1];
	double total = 0.0;
	unsigned ctx = c->tree ? c->tree->sched_ctx_id : 0;
	for (unsigned i = 0; i < n; i++)
	{
		w[i] = comp_can_run(c->children[i], task) ? speed_of(c->children[i], ctx) : 0.0;
		total += w[i];
	}
	if (total <= 0.0)
		return 1;
	uint64_t draw = mix64(d->seed ^ __atomic_fetch_add(&d->ndraws, 1, __ATOMIC_RELAXED));
	double x = (double) (draw >> 11) / (double) (1ULL << 53) * total;
	unsigned pick = 0;
	while (pick + 1 < n && (w[pick] == 0.0 || x >= w[pick]))
	{
		x -= w[pick];
		pick++;
	}
	for (unsigned k = 0; k < n; k++)
	{
		unsigned i = (pick + k) % n;
		if (w[i] > 0.0 && c->children[i]->push_task(c->children[i], task) == 0)
			return 0;
	}
	return 1;
}

static void random_deinit(struct starpu_sched_component *c)
{
	free(c->data);
}

struct starpu_sched_component *starpu_sched_component_random_create(struct starpu_sched_tree *tree, void *arg)
{
	(void) arg;
	struct starpu_sched_component *c = starpu_sched_component_create(tree, "random");
	struct random_comp *d = calloc(1, sizeof(*d));
	if (!c || !d)
		abort();
	d->seed = (uint64_t) starpu_get_env_number_default("STARPU_RAND_SEED", 0);
	c->data = d;
	c->push_task = random_push;
	c->deinit_data = random_deinit;
	return c;
}

int starpu_sched_component_is_random(struct starpu_sched_component *c)
{
	return c && c->push_task == random_push;
}
