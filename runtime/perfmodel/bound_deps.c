/* bound_deps.c — starpu_bound with dependencies (starpu_bound_start(1, prio)):
 * the recorded task graph and its linear programs.
 *
 * Recording: every submission between start and stop is a node (its job
 * id, its kind from bound.c, its priority and tag); the dependency layers
 * report the edges by job id (bound_on_dep: declared task dependencies at
 * submission, implicit data dependencies, finished predecessors included,
 * so the graph does not depend on timing); a task's tag dependencies are
 * read when it is submitted and resolved, when the program is built, to
 * the last recorded task carrying each tag. An edge whose end was not
 * recorded (an internal job, an acquisition, a task submitted before
 * start) keeps that end as a node of length zero, so that the order it
 * carries is kept.
 *
 * The programs (lengths in µs, T the makespan, s[i] task i's start):
 *
 *  integer = 0 (starpu_bound_compute's res): x[i][c] the share of task i
 *  given to worker class c,
 *     sum_c x[i][c] = 1;   end[i] = s[i] + sum_c len[i][c] x[i][c] <= T;
 *     s[j] >= end[i] for each edge i -> j;
 *     sum_i len[i][c] x[i][c] <= nworkers[c] T  (the area bound's rows),
 *  so it is at least the bound without dependencies and the critical path.
 *
 *  integer = 1 (integer_res, print_lp, print_mps; StarPU's program): each
 *  task on one worker (y[i][w] binary), and for each pair of tasks no path
 *  orders and each worker both can run, a binary a[i][j] (i after j) with
 *     s[i] >= end[j] - M (3 - y[i][w] - y[j][w] - a[i][j])
 *     s[j] >= end[i] - M (2 - y[i][w] - y[j][w] + a[i][j]),
 *  M larger than any schedule: solved, it is the shortest schedule.
 *
 * With prio, of two tasks no path orders, the one of higher priority
 * starts first: s[high] <= s[low] (StarPU writes this term with a big M
 * tied to the pair's order; this form is the same in both programs, so
 * the integer bound stays at least the other).
 *
 * All under bound_lock (bound_graph.h).
 */
#include "core/rt.h"
#include "perfmodel/bound.h"
#include "perfmodel/bound_graph.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct bound_task *tasks;	/* owned, in submission order */
static size_t ntasks, cap_tasks;
static struct bound_edge *edges;	/* owned */
static size_t nedges, cap_edges;

void bound_deps_forget(void)
{
	for (size_t i = 0; i < ntasks; i++)
		free(tasks[i].tagdeps);
	free(tasks);
	free(edges);
	tasks = NULL;
	edges = NULL;
	ntasks = cap_tasks = nedges = cap_edges = 0;
}

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	void *p = realloc(*arr, c * size);
	if (!p)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}

void bound_deps_add_task(const struct bound_task *t)
{
	if (grow((void **) &tasks, &cap_tasks, ntasks, sizeof(*tasks)))
	{
		rt_error("starpu_bound: out of memory recording task %lu; the bound will miss it", t->id);
		free(t->tagdeps);
		return;
	}
	tasks[ntasks++] = *t;
}

void bound_dep_slow(unsigned long pred, unsigned long succ)
{
	if (pred == succ)
		return;
	os_mutex_lock(&bound_lock);
	if (bound_with_deps && !grow((void **) &edges, &cap_edges, nedges, sizeof(*edges)))
		edges[nedges++] = (struct bound_edge) { pred, succ };
	else if (bound_with_deps)
		rt_error("starpu_bound: out of memory recording a dependency; the bound will miss it");
	os_mutex_unlock(&bound_lock);
}

/* ---- the graph, resolved to indices ---- */

struct graph
{
	size_t n;			/* nodes: the recorded tasks, then the unrecorded ends */
	size_t nt;			/* recorded tasks (0 .. nt-1) */
	unsigned long *id;		/* per node */
	size_t ne;
	size_t (*e)[2];			/* pred, succ indices; sorted, no duplicates */
	unsigned char *reach;		/* n x n bits: reach[i][j], a path i -> j */
};

static void graph_free(struct graph *g)
{
	free(g->id);
	free(g->e);
	free(g->reach);
}

struct idmap
{
	size_t cap;
	unsigned long *key;
	size_t *val;
};

static size_t slot(const struct idmap *m, unsigned long id)
{
	size_t h = (size_t) (id * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
	while (m->key[h] && m->key[h] != id)
		h = (h + 1) & (m->cap - 1);
	return h;
}

/* The node of id, added (unrecorded) when absent; SIZE_MAX on failure. */
static size_t node_of(struct graph *g, struct idmap *m, unsigned long id)
{
	size_t h = slot(m, id);
	if (m->key[h])
		return m->val[h];
	m->key[h] = id;
	m->val[h] = g->n;
	g->id[g->n] = id;
	return g->n++;
}

static int cmp_edge(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

#define REACH(g, i, j) ((g)->reach[((i) * (g)->n + (j)) / 8] & (1u << (((i) * (g)->n + (j)) % 8)))

/* Builds g (with reach only when asked: n² bits); 0, or -1 with a
 * message naming fn. */
static int graph_build(struct graph *g, int want_reach, const char *fn)
{
	memset(g, 0, sizeof(*g));
	/* tag edges: a task waits for the last recorded task carrying each of
	 * its tag's dependencies */
	size_t ntagedges = 0;
	for (size_t i = 0; i < ntasks; i++)
		ntagedges += tasks[i].ntagdeps;
	size_t maxn = ntasks + 2 * nedges + 1, maxe = nedges + ntagedges + 1;
	struct idmap m = { 1, NULL, NULL };
	while (m.cap < 2 * maxn)
		m.cap *= 2;
	m.key = calloc(m.cap, sizeof(*m.key));
	m.val = calloc(m.cap, sizeof(*m.val));
	g->id = malloc(maxn * sizeof(*g->id));
	g->e = malloc(maxe * sizeof(*g->e));
	if (!m.key || !m.val || !g->id || !g->e)
		goto nomem;
	for (size_t i = 0; i < ntasks; i++)
		node_of(g, &m, tasks[i].id);
	g->nt = g->n;
	for (size_t k = 0; k < nedges; k++)
	{
		size_t a = node_of(g, &m, edges[k].pred), b = node_of(g, &m, edges[k].succ);
		g->e[g->ne][0] = a;
		g->e[g->ne][1] = b;
		g->ne++;
	}
	for (size_t i = 0; i < ntasks; i++)
		for (unsigned d = 0; d < tasks[i].ntagdeps; d++)
		{
			size_t j = ntasks;
			for (size_t k = ntasks; k-- > 0;)
				if (k != i && tasks[k].use_tag && tasks[k].tag == tasks[i].tagdeps[d])
				{
					j = k;
					break;
				}
			if (j == ntasks)
				continue;
			g->e[g->ne][0] = j;
			g->e[g->ne][1] = i;
			g->ne++;
		}
	free(m.key);
	free(m.val);
	m.key = NULL;
	m.val = NULL;
	qsort(g->e, g->ne, sizeof(*g->e), cmp_edge);
	size_t w = 0;
	for (size_t k = 0; k < g->ne; k++)
		if (g->e[k][0] != g->e[k][1] && (!w || cmp_edge(g->e[w - 1], g->e[k])))
		{
			g->e[w][0] = g->e[k][0];
			g->e[w][1] = g->e[k][1];
			w++;
		}
	g->ne = w;

	/* reachability, in a topological order (Kahn); a cycle is refused */
	size_t n = g->n;
	size_t *indeg = calloc(n + 1, sizeof(size_t)), *order = malloc((n + 1) * sizeof(size_t));
	size_t *first = calloc(n + 1, sizeof(size_t));	/* edges of i: first[i] .. first[i+1]-1 (sorted by pred) */
	g->reach = want_reach ? calloc((n * n + 7) / 8 + 1, 1) : NULL;
	if (!indeg || !order || !first || (want_reach && !g->reach))
	{
		free(indeg);
		free(order);
		free(first);
		goto nomem;
	}
	for (size_t k = 0; k < g->ne; k++)
	{
		indeg[g->e[k][1]]++;
		first[g->e[k][0] + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	size_t head = 0, tail = 0;
	for (size_t i = 0; i < n; i++)
		if (!indeg[i])
			order[tail++] = i;
	while (head < tail)
	{
		size_t i = order[head++];
		for (size_t k = first[i]; k < first[i + 1]; k++)
			if (!--indeg[g->e[k][1]])
				order[tail++] = g->e[k][1];
	}
	int cycle = tail < n;
	/* in reverse topological order: i reaches its successors and theirs */
	for (size_t o = tail; want_reach && !cycle && o-- > 0;)
	{
		size_t i = order[o];
		for (size_t k = first[i]; k < first[i + 1]; k++)
		{
			size_t j = g->e[k][1];
			g->reach[(i * n + j) / 8] |= (unsigned char) (1u << ((i * n + j) % 8));
			for (size_t b = 0; b < n; b++)
				if (REACH(g, j, b))
					g->reach[(i * n + b) / 8] |= (unsigned char) (1u << ((i * n + b) % 8));
		}
	}
	free(indeg);
	free(order);
	free(first);
	if (cycle)
	{
		rt_error("%s: the recorded dependencies form a cycle (tags regenerated in a loop?): no bound with dependencies", fn);
		graph_free(g);
		return -1;
	}
	return 0;
nomem:
	free(m.key);
	free(m.val);
	graph_free(g);
	rt_error("%s: out of memory building the task graph", fn);
	return -1;
}

static const char *task_label(const struct bound_task *t)
{
	if (!t->kind)
		return "no prediction";
	const struct starpu_codelet *cl = t->kind->cl;
	if (cl->model && cl->model->symbol)
		return cl->model->symbol;
	return bound_kind_name(t->kind);
}

void bound_deps_print_dot(FILE *out)
{
	struct graph g;
	if (graph_build(&g, 0, "starpu_bound_print_dot"))
		return;
	/* StarPU's layout: a node per task named after its job id, last
	 * submitted first, each after the edges leaving it */
	fprintf(out, "strict digraph bounddeps {\n");
	for (size_t i = g.n; i-- > 0;)
	{
		for (size_t k = 0; k < g.ne; k++)
			if (g.e[k][0] == i)
				fprintf(out, "\"t%lu\" -> \"t%lu\"\n", g.id[i], g.id[g.e[k][1]]);
		fprintf(out, "\"t%lu\" [label=\"%lu: %s\"]\n", g.id[i], g.id[i],
			i < g.nt ? task_label(&tasks[i]) : "not recorded");
	}
	fprintf(out, "}\n");
	graph_free(&g);
}

#ifdef STARPU_HAVE_GLPK_H

/* A growing coefficient list for glp_load_matrix (1-based). */
struct coefs
{
	size_t n, cap;
	int *ia, *ja;
	double *ar;
	int failed;
};

static void coef(struct coefs *c, int row, int col, double v)
{
	if (c->failed)
		return;
	if (c->n + 2 > c->cap)
	{
		size_t cap = c->cap ? c->cap * 2 : 1024;
		int *ia = realloc(c->ia, cap * sizeof(int));
		if (ia)
			c->ia = ia;
		int *ja = realloc(c->ja, cap * sizeof(int));
		if (ja)
			c->ja = ja;
		double *ar = realloc(c->ar, cap * sizeof(double));
		if (ar)
			c->ar = ar;
		if (!ia || !ja || !ar)
		{
			c->failed = 1;
			return;
		}
		c->cap = cap;
	}
	c->n++;
	c->ia[c->n] = row;
	c->ja[c->n] = col;
	c->ar[c->n] = v;
}

static int add_row(glp_prob *lp, int type, double bound, const char *fmt, size_t a, size_t b, size_t w)
{
	int r = glp_add_rows(lp, 1);
	char name[64];
	snprintf(name, sizeof(name), fmt, a, b, w);
	glp_set_row_name(lp, r, name);
	glp_set_row_bnds(lp, r, type, bound, bound);
	return r;
}

static int add_col(glp_prob *lp, int kind, const char *fmt, size_t a, size_t b)
{
	int c = glp_add_cols(lp, 1);
	char name[64];
	snprintf(name, sizeof(name), fmt, a, b);
	glp_set_col_name(lp, c, name);
	if (kind == GLP_BV)
		glp_set_col_kind(lp, c, GLP_BV);
	else
		glp_set_col_bnds(lp, c, GLP_LO, 0.0, 0.0);
	return c;
}

/* The workers as (class, rank) pairs: worker w of the program. */
static unsigned nworkers_total(void)
{
	unsigned n = 0;
	for (unsigned c = 0; c < bound_nclasses; c++)
		n += bound_classes[c].nworkers;
	return n;
}

static unsigned class_of_worker(unsigned w)
{
	unsigned c = 0;
	while (w >= bound_classes[c].nworkers)
		w -= bound_classes[c++].nworkers;
	return c;
}

static double len(const struct graph *g, size_t i, unsigned c)
{
	if (i >= g->nt || !tasks[i].kind)
		return NAN;
	return tasks[i].kind->length[c];
}

glp_prob *bound_deps_build(int integer, const char *fn)
{
	if (!ntasks || !bound_nclasses)
		return NULL;
	struct graph g;
	if (graph_build(&g, integer || bound_with_prio, fn))
		return NULL;
	size_t n = g.n;
	unsigned nw = integer ? nworkers_total() : bound_nclasses;
	glp_prob *lp = glp_create_prob();
	glp_set_prob_name(lp, integer ? "starpu_bound_deps_schedule" : "starpu_bound_deps");
	glp_set_obj_dir(lp, GLP_MIN);
	int *start = malloc(n * sizeof(int));
	int *assign = malloc(n * nw * sizeof(int));	/* column of x/y[i][w], 0: cannot */
	struct coefs cf = { 0 };
	if (!start || !assign)
		goto nomem;
	int colT = add_col(lp, 0, "T", 0, 0);
	glp_set_obj_coef(lp, colT, 1.0);
	double horizon = 1.0;
	for (size_t i = 0; i < n; i++)
	{
		start[i] = add_col(lp, 0, "s_%zu", (size_t) g.id[i], 0);
		double longest = 0.0;
		for (unsigned w = 0; w < nw; w++)
		{
			double l = len(&g, i, integer ? class_of_worker(w) : w);
			assign[i * nw + w] = isnan(l) ? 0 : add_col(lp, integer ? GLP_BV : 0, integer ? "y_%zu_w%zu" : "x_%zu_c%zu", (size_t) g.id[i], w);
			if (!isnan(l) && l > longest)
				longest = l;
		}
		horizon += longest;
	}
	/* each task runs (once), and ends by T */
	for (size_t i = 0; i < g.nt; i++)
	{
		if (!tasks[i].kind)
			continue;
		int r = add_row(lp, GLP_FX, 1.0, "run_%zu", (size_t) g.id[i], 0, 0);
		for (unsigned w = 0; w < nw; w++)
			if (assign[i * nw + w])
				coef(&cf, r, assign[i * nw + w], 1.0);
	}
	for (size_t i = 0; i < n; i++)
	{
		int r = add_row(lp, GLP_UP, 0.0, "end_%zu", (size_t) g.id[i], 0, 0);
		coef(&cf, r, start[i], 1.0);
		coef(&cf, r, colT, -1.0);
		for (unsigned w = 0; w < nw; w++)
			if (assign[i * nw + w])
				coef(&cf, r, assign[i * nw + w], len(&g, i, integer ? class_of_worker(w) : w));
	}
	/* the dependencies: s[j] - s[i] - len(i) >= 0 */
	for (size_t k = 0; k < g.ne; k++)
	{
		size_t i = g.e[k][0], j = g.e[k][1];
		int r = add_row(lp, GLP_LO, 0.0, "dep_%zu_%zu", (size_t) g.id[i], (size_t) g.id[j], 0);
		coef(&cf, r, start[j], 1.0);
		coef(&cf, r, start[i], -1.0);
		for (unsigned w = 0; w < nw; w++)
			if (assign[i * nw + w])
				coef(&cf, r, assign[i * nw + w], -len(&g, i, integer ? class_of_worker(w) : w));
	}
	/* the area of each class of workers */
	for (unsigned c = 0; c < bound_nclasses; c++)
	{
		int r = add_row(lp, GLP_UP, 0.0, "area_class%zu", c, 0, 0);
		coef(&cf, r, colT, -(double) bound_classes[c].nworkers);
		for (size_t i = 0; i < n; i++)
			for (unsigned w = 0; w < nw; w++)
				if (assign[i * nw + w] && (integer ? class_of_worker(w) : w) == c)
					coef(&cf, r, assign[i * nw + w], len(&g, i, c));
	}
	/* pairs no path orders */
	for (size_t i = 0; g.reach && i < g.nt; i++)
		for (size_t j = i + 1; j < g.nt; j++)
		{
			if (REACH(&g, i, j) || REACH(&g, j, i) || !tasks[i].kind || !tasks[j].kind)
				continue;
			if (bound_with_prio && tasks[i].prio != tasks[j].prio)
			{
				size_t hi = tasks[i].prio > tasks[j].prio ? i : j, lo = hi == i ? j : i;
				int r = add_row(lp, GLP_LO, 0.0, "prio_%zu_%zu", (size_t) g.id[hi], (size_t) g.id[lo], 0);
				coef(&cf, r, start[lo], 1.0);
				coef(&cf, r, start[hi], -1.0);
			}
			if (!integer)
				continue;
			int after = 0;	/* a[i][j]: i after j */
			for (unsigned w = 0; w < nw; w++)
			{
				if (!assign[i * nw + w] || !assign[j * nw + w])
					continue;
				if (!after)
					after = add_col(lp, GLP_BV, "a_%zu_after_%zu", (size_t) g.id[i], (size_t) g.id[j]);
				for (int side = 0; side < 2; side++)
				{
					/* side 0: s[i] >= end[j] when a; side 1: s[j] >= end[i] when not a */
					size_t p = side ? j : i, q = side ? i : j;
					int r = add_row(lp, GLP_LO, side ? -2.0 * horizon : -3.0 * horizon,
							side ? "order_%zu_%zu_w%zu" : "order_%zu_after_%zu_w%zu",
							(size_t) g.id[i], (size_t) g.id[j], w);
					coef(&cf, r, start[p], 1.0);
					coef(&cf, r, start[q], -1.0);
					for (unsigned v = 0; v < nw; v++)
						if (assign[q * nw + v])
							coef(&cf, r, assign[q * nw + v], -len(&g, q, class_of_worker(v)));
					coef(&cf, r, assign[p * nw + w], -horizon);
					coef(&cf, r, after, side ? horizon : -horizon);
					/* y[q][w] is already in the row (its length): GLPK
					 * wants one entry per column, so fold -M into it */
					for (size_t e = cf.n; !cf.failed && e > 0 && cf.ia[e] == r; e--)
						if (cf.ja[e] == assign[q * nw + w])
						{
							cf.ar[e] -= horizon;
							break;
						}
				}
			}
		}
	if (cf.failed)
		goto nomem;
	glp_load_matrix(lp, (int) cf.n, cf.ia, cf.ja, cf.ar);
	free(cf.ia);
	free(cf.ja);
	free(cf.ar);
	free(start);
	free(assign);
	graph_free(&g);
	return lp;
nomem:
	free(cf.ia);
	free(cf.ja);
	free(cf.ar);
	free(start);
	free(assign);
	graph_free(&g);
	glp_delete_prob(lp);
	rt_error("%s: out of memory building the linear program", fn);
	return NULL;
}
#endif
