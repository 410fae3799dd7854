/* bound.c — starpu_bound.h: a lower bound of the execution time of the
 * tasks submitted between starpu_bound_start and starpu_bound_stop.
 *
 * Recording (bound_record, at submission): each task is counted in its
 * kind — its codelet and data footprint — and the kind keeps, for each
 * class of workers (workers sharing a performance-model arch), the best
 * expected length over the implementations that class can run. Tasks
 * with no codelet or no prediction anywhere are counted apart (they make
 * the bound unknown).
 *
 * The bound (as StarPU's "area" bound): a linear program whose variables
 * are T and n[k][c], the number of tasks of kind k given to class c:
 *
 *   minimize T  subject to
 *     for each kind k:   sum_c n[k][c] = count[k]
 *     for each class c:  sum_k length[k][c] n[k][c] <= nworkers[c] T
 *
 * Solved by GLPK (simplex; branch and bound with integer n for the integer
 * bound). With starpu_bound_start(deps=1, ...) each submission and the
 * edges of the task graph are recorded too, and the program is the one of
 * bound_deps.c: a start time per task, ordered by the dependencies.
 *
 * Locking: bound_lock protects everything here and in bound_deps.c; it is
 * a leaf (predictions and tag queries are made before it is taken).
 */
#include "core/rt.h"
#include "core/tags.h"
#include "perfmodel/bound.h"
#include "perfmodel/bound_graph.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


atomic_int bound_recording;

os_mutex_t bound_lock = OS_MUTEX_INITIALIZER;
struct bound_kind *bound_kinds;			/* owned */
unsigned bound_nkinds;
unsigned long bound_unknown;			/* tasks with no prediction at all */
int bound_with_deps, bound_with_prio;
struct bound_class bound_classes[BOUND_MAX_CLASSES];
unsigned bound_nclasses;

static void forget_all(void)
{
	while (bound_kinds)
	{
		struct bound_kind *k = bound_kinds;
		bound_kinds = k->next;
		free(k);
	}
	bound_nkinds = 0;
	bound_unknown = 0;
	bound_deps_forget();
}

void starpu_bound_start(int deps, int prio)
{
	os_mutex_lock(&bound_lock);
	forget_all();
	bound_with_deps = deps;
	bound_with_prio = prio;
	bound_nclasses = 0;
	unsigned nw = starpu_worker_get_count();
	for (unsigned w = 0; w < nw; w++)
	{
		struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype((int) w, 0);
		unsigned c = 0;
		while (c < bound_nclasses && bound_classes[c].arch != arch)
			c++;
		if (c == bound_nclasses)
		{
			if (bound_nclasses == BOUND_MAX_CLASSES)
				continue;
			bound_classes[c].arch = arch;
			bound_classes[c].worker = (int) w;
			bound_classes[c].nworkers = 0;
			bound_nclasses++;
		}
		bound_classes[c].nworkers++;
	}
	os_mutex_unlock(&bound_lock);
	atomic_store(&bound_recording, deps ? 2 : 1);
}

void starpu_bound_stop(void)
{
	atomic_store(&bound_recording, 0);
}

static int same_lengths(const double *a, const double *b, unsigned n)
{
	for (unsigned c = 0; c < n; c++)
		if (!(a[c] == b[c] || (isnan(a[c]) && isnan(b[c]))))
			return 0;
	return 1;
}

void bound_record_slow(struct starpu_task *task, unsigned long job_id)
{
	if (!task->cl || (task->type & STARPU_TASK_TYPE_INTERNAL))
		return;
	double length[BOUND_MAX_CLASSES];
	int known = 0;
	os_mutex_lock(&bound_lock);
	unsigned nc = bound_nclasses;
	struct starpu_perfmodel_arch *arch0 = nc ? bound_classes[0].arch : NULL;
	int workers[BOUND_MAX_CLASSES];
	struct starpu_perfmodel_arch *archs[BOUND_MAX_CLASSES];
	for (unsigned c = 0; c < nc; c++)
	{
		workers[c] = bound_classes[c].worker;
		archs[c] = bound_classes[c].arch;
	}
	os_mutex_unlock(&bound_lock);
	for (unsigned c = 0; c < nc; c++)
	{
		length[c] = NAN;
		unsigned mask = 0;
		if (!starpu_worker_can_execute_task_impl((unsigned) workers[c], task, &mask))
			continue;
		for (unsigned impl = 0; impl < STARPU_MAXIMPLEMENTATIONS; impl++)
		{
			if (!(mask & (1u << impl)))
				continue;
			double l = starpu_task_expected_length(task, archs[c], impl);
			if (!isnan(l) && (isnan(length[c]) || l < length[c]))
				length[c] = l;
		}
		known |= !isnan(length[c]);
	}
	uint32_t fp = task->cl->model && arch0 ? starpu_task_footprint(task->cl->model, task, arch0, 0)
					    : starpu_task_data_footprint(task);
	struct bound_task bt = { .id = job_id, .prio = task->priority, .use_tag = task->use_tag, .tag = task->tag_id };
	if (bound_deps_recording() && task->use_tag)
	{
		/* the tags this one waits for, as declared now */
		unsigned n = tag_dep_ids(task->tag_id, NULL, 0);
		if (n && (bt.tagdeps = malloc(n * sizeof(*bt.tagdeps))))
			bt.ntagdeps = tag_dep_ids(task->tag_id, bt.tagdeps, n);
	}
	os_mutex_lock(&bound_lock);
	if (!known)
		bound_unknown++;
	else
	{
		struct bound_kind *k = bound_kinds;
		/* the same prediction too (a cost function may tell apart
		 * tasks of one footprint) */
		while (k && (k->cl != task->cl || k->footprint != fp || !same_lengths(k->length, length, nc)))
			k = k->next;
		if (!k && (k = calloc(1, sizeof(*k))))
		{
			k->cl = task->cl;
			k->footprint = fp;
			memcpy(k->length, length, sizeof(length));
			k->next = bound_kinds;
			bound_kinds = k;
			bound_nkinds++;
		}
		if (k)
			k->count++;
		else
			bound_unknown++;
		bt.kind = k;
	}
	if (bound_with_deps)
		bound_deps_add_task(&bt);	/* takes bt.tagdeps */
	else
		free(bt.tagdeps);
	os_mutex_unlock(&bound_lock);
}

const char *bound_kind_name(const struct bound_kind *k)
{
	if (k->cl->name)
		return k->cl->name;
	if (k->cl->model && k->cl->model->symbol)
		return k->cl->model->symbol;
	return "codelet";
}

#ifdef STARPU_HAVE_GLPK_H
/* The LP of the recorded bound_kinds (bound_lock held); column 1 is T, then one
 * column per (kind, class) that can run. NULL when there is nothing. */
static glp_prob *build_lp(int integer)
{
	if (!bound_nkinds || !bound_nclasses)
		return NULL;
	glp_prob *lp = glp_create_prob();
	glp_set_prob_name(lp, "starpu_bound");
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_rows(lp, (int) (bound_nkinds + bound_nclasses));
	int ncols = 1;
	for (struct bound_kind *k = bound_kinds; k; k = k->next)
		for (unsigned c = 0; c < bound_nclasses; c++)
			ncols += !isnan(k->length[c]);
	glp_add_cols(lp, ncols);
	glp_set_col_name(lp, 1, "T");
	glp_set_col_bnds(lp, 1, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(lp, 1, 1.0);
	size_t cap = (size_t) ncols * 2 + 1;
	int *ia = malloc(cap * sizeof(int)), *ja = malloc(cap * sizeof(int));
	double *ar = malloc(cap * sizeof(double));
	if (!ia || !ja || !ar)
	{
		free(ia);
		free(ja);
		free(ar);
		glp_delete_prob(lp);
		return NULL;
	}
	int ne = 0, col = 1, row = 1;
	char name[64];
	for (struct bound_kind *k = bound_kinds; k; k = k->next, row++)
	{
		snprintf(name, sizeof(name), "count_%s_%08x", bound_kind_name(k), k->footprint);
		glp_set_row_name(lp, row, name);
		glp_set_row_bnds(lp, row, GLP_FX, (double) k->count, (double) k->count);
		for (unsigned c = 0; c < bound_nclasses; c++)
		{
			if (isnan(k->length[c]))
				continue;
			col++;
			snprintf(name, sizeof(name), "n_%s_%08x_class%u", bound_kind_name(k), k->footprint, c);
			glp_set_col_name(lp, col, name);
			glp_set_col_bnds(lp, col, GLP_LO, 0.0, 0.0);
			if (integer)
				glp_set_col_kind(lp, col, GLP_IV);
			ne++;
			ia[ne] = row, ja[ne] = col, ar[ne] = 1.0;
			ne++;
			ia[ne] = (int) bound_nkinds + 1 + (int) c, ja[ne] = col, ar[ne] = k->length[c];
		}
	}
	for (unsigned c = 0; c < bound_nclasses; c++)
	{
		int r = (int) bound_nkinds + 1 + (int) c;
		snprintf(name, sizeof(name), "time_class%u", c);
		glp_set_row_name(lp, r, name);
		glp_set_row_bnds(lp, r, GLP_UP, 0.0, 0.0);
		ne++;
		ia[ne] = r, ja[ne] = 1, ar[ne] = -(double) bound_classes[c].nworkers;
	}
	glp_load_matrix(lp, ne, ia, ja, ar);
	free(ia);
	free(ja);
	free(ar);
	return lp;
}

/* Solves; returns T in µs, or -1. */
static double solve(glp_prob *lp, int integer)
{
	glp_smcp smcp;
	glp_init_smcp(&smcp);
	smcp.msg_lev = GLP_MSG_OFF;
	if (glp_simplex(lp, &smcp) || glp_get_status(lp) != GLP_OPT)
		return -1.0;
	if (!integer)
		return glp_get_obj_val(lp);
	glp_iocp iocp;
	glp_init_iocp(&iocp);
	iocp.msg_lev = GLP_MSG_OFF;
	/* the scheduling program of a large graph may take forever */
	iocp.tm_lim = 60000;
	int ret = glp_intopt(lp, &iocp);
	if (ret || glp_mip_status(lp) != GLP_OPT)
	{
		rt_error("starpu_bound_compute: GLPK found no optimal whole-task solution (%s): no integer bound",
			 ret == GLP_ETMLIM ? "time limit of 60 s reached" : "solver failure");
		return -1.0;
	}
	return glp_mip_obj_val(lp);
}
#endif

void starpu_bound_compute(double *res, double *integer_res, int integer)
{
	if (res)
		*res = -1.0;
	if (integer && integer_res)
		*integer_res = -1.0;
#ifdef STARPU_HAVE_GLPK_H
	if (glpk_load("starpu_bound_compute"))
		return;
	os_mutex_lock(&bound_lock);
	if (bound_unknown)
	{
		unsigned long n = bound_unknown;
		os_mutex_unlock(&bound_lock);
		rt_error("starpu_bound_compute: %lu recorded task(s) have no performance prediction (calibrate their models): no bound", n);
		return;
	}
	glp_prob *lp, *ilp;
	if (bound_with_deps)
	{
		lp = bound_deps_build(0, "starpu_bound_compute");
		ilp = integer && lp ? bound_deps_build(1, "starpu_bound_compute") : NULL;
	}
	else
	{
		lp = build_lp(0);
		ilp = integer ? build_lp(1) : NULL;
	}
	os_mutex_unlock(&bound_lock);
	if (lp && res)
	{
		double t = solve(lp, 0);
		*res = t < 0 ? -1.0 : t / 1000.0;
	}
	if (ilp && integer_res)
	{
		double t = solve(ilp, 1);
		*integer_res = t < 0 ? -1.0 : t / 1000.0;
	}
	if (lp)
		glp_delete_prob(lp);
	if (ilp)
		glp_delete_prob(ilp);
#else
	rt_error("starpu_bound_compute: Vela was built without GLPK (Debian: libglpk-dev): no bound");
#endif
}

#ifdef STARPU_HAVE_GLPK_H
/* Writes the LP through GLPK's writer (which wants a file name) into out:
 * with dependencies, the whole scheduling program (whole tasks on
 * workers), as StarPU writes it. */
static void write_lp(FILE *out, int mps, const char *fn)
{
	if (glpk_load(fn))
	{
		fprintf(out, mps ? "* %s: GLPK cannot be loaded\n" : "/* %s: GLPK cannot be loaded */\n", fn);
		return;
	}
	os_mutex_lock(&bound_lock);
	glp_prob *lp = bound_with_deps ? bound_deps_build(1, fn) : build_lp(0);
	os_mutex_unlock(&bound_lock);
	if (!lp)
	{
		fprintf(out, "/* %s: no task recorded */\n", fn);
		return;
	}
	char path[] = "/tmp/vela_bound_XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
	{
		rt_error("%s: cannot create a temporary file (%d)", fn, -errno);
		glp_delete_prob(lp);
		return;
	}
	close(fd);
	int was = glp_term_out(GLP_OFF);
	int ret = mps ? glp_write_mps(lp, GLP_MPS_FILE, NULL, path) : glp_write_lp(lp, NULL, path);
	glp_term_out(was);
	glp_delete_prob(lp);
	FILE *in = ret ? NULL : fopen(path, "r");
	if (in)
	{
		char buf[4096];
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, out);
		fclose(in);
	}
	else
		rt_error("%s: GLPK could not write the program", fn);
	unlink(path);
}
#endif

void starpu_bound_print_lp(FILE *output)
{
	if (!output)
		return;
#ifdef STARPU_HAVE_GLPK_H
	write_lp(output, 0, "starpu_bound_print_lp");
#else
	fprintf(output, "/* starpu_bound_print_lp: Vela was built without GLPK */\n");
#endif
}

void starpu_bound_print_mps(FILE *output)
{
	if (!output)
		return;
#ifdef STARPU_HAVE_GLPK_H
	write_lp(output, 1, "starpu_bound_print_mps");
#else
	fprintf(output, "* starpu_bound_print_mps: Vela was built without GLPK\n");
#endif
}

void starpu_bound_print_dot(FILE *output)
{
	if (!output)
		return;
	os_mutex_lock(&bound_lock);
	if (bound_with_deps)
	{
		bound_deps_print_dot(output);
		os_mutex_unlock(&bound_lock);
		return;
	}
	fprintf(output, "digraph starpu_bound {\n\t/* the recorded tasks by kind (deps=%d, prio=%d) */\n", bound_with_deps, bound_with_prio);
	unsigned i = 0;
	for (struct bound_kind *k = bound_kinds; k; k = k->next, i++)
		fprintf(output, "\tkind%u [label=\"%s %08x x%lu\"];\n", i, bound_kind_name(k), k->footprint, k->count);
	fprintf(output, "}\n");
	os_mutex_unlock(&bound_lock);
}

void starpu_bound_print(FILE *output, int integer)
{
	if (!output)
		return;
	double res = -1.0, ires = -1.0;
	starpu_bound_compute(&res, &ires, integer);
	fprintf(output, "Theoretical minimum execution time%s: %f ms\n", bound_with_deps ? " with dependencies" : "", res);
	if (integer)
		fprintf(output, "Theoretical minimum execution time with whole tasks: %f ms\n", ires);
	os_mutex_lock(&bound_lock);
	for (unsigned c = 0; c < bound_nclasses; c++)
	{
		char name[64];
		starpu_worker_get_name(bound_classes[c].worker, name, sizeof(name));
		fprintf(output, "class %u: %u worker(s) like %s\n", c, bound_classes[c].nworkers, name);
	}
	for (struct bound_kind *k = bound_kinds; k; k = k->next)
	{
		fprintf(output, "%s (footprint %08x): %lu task(s); length per class (us):", bound_kind_name(k), k->footprint, k->count);
		for (unsigned c = 0; c < bound_nclasses; c++)
			fprintf(output, " %g", k->length[c]);
		fputc('\n', output);
	}
	os_mutex_unlock(&bound_lock);
}
