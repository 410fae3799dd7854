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
 * bound). Dependencies can only lengthen a run, so this bounds it from
 * below whatever they are. deps and prio are accepted (print_dot shows
 * them) but the larger program StarPU builds with deps=1, one start time
 * per task ordered by the dependencies, is not built here.
 *
 * Locking: bound_lock protects everything here; taken alone (predictions
 * are computed before it is taken).
 */
#include "core/rt.h"
#include "perfmodel/bound.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef STARPU_HAVE_GLPK_H
#include <glpk.h>
#endif

#define MAX_CLASSES 16

atomic_int bound_recording;

struct kind
{
	struct starpu_codelet *cl;
	uint32_t footprint;
	unsigned long count;
	double length[MAX_CLASSES];	/* µs; NaN: that class cannot run it */
	struct kind *next;
};

static os_mutex_t bound_lock = OS_MUTEX_INITIALIZER;
static struct kind *kinds;			/* owned */
static unsigned nkinds;
static unsigned long unknown;			/* tasks with no prediction at all */
static int record_deps, record_prio;
static struct
{
	struct starpu_perfmodel_arch *arch;
	int worker;			/* one worker of the class */
	unsigned nworkers;
} classes[MAX_CLASSES];
static unsigned nclasses;

static void forget_all(void)
{
	while (kinds)
	{
		struct kind *k = kinds;
		kinds = k->next;
		free(k);
	}
	nkinds = 0;
	unknown = 0;
}

void starpu_bound_start(int deps, int prio)
{
	os_mutex_lock(&bound_lock);
	forget_all();
	record_deps = deps;
	record_prio = prio;
	nclasses = 0;
	unsigned nw = starpu_worker_get_count();
	for (unsigned w = 0; w < nw; w++)
	{
		struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype((int) w, 0);
		unsigned c = 0;
		while (c < nclasses && classes[c].arch != arch)
			c++;
		if (c == nclasses)
		{
			if (nclasses == MAX_CLASSES)
				continue;
			classes[c].arch = arch;
			classes[c].worker = (int) w;
			classes[c].nworkers = 0;
			nclasses++;
		}
		classes[c].nworkers++;
	}
	os_mutex_unlock(&bound_lock);
	atomic_store(&bound_recording, 1);
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

void bound_record_slow(struct starpu_task *task)
{
	if (!task->cl || (task->type & STARPU_TASK_TYPE_INTERNAL))
		return;
	double length[MAX_CLASSES];
	int known = 0;
	os_mutex_lock(&bound_lock);
	unsigned nc = nclasses;
	struct starpu_perfmodel_arch *arch0 = nc ? classes[0].arch : NULL;
	int workers[MAX_CLASSES];
	struct starpu_perfmodel_arch *archs[MAX_CLASSES];
	for (unsigned c = 0; c < nc; c++)
	{
		workers[c] = classes[c].worker;
		archs[c] = classes[c].arch;
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
	os_mutex_lock(&bound_lock);
	if (!known)
		unknown++;
	else
	{
		struct kind *k = kinds;
		/* the same prediction too (a cost function may tell apart
		 * tasks of one footprint) */
		while (k && (k->cl != task->cl || k->footprint != fp || !same_lengths(k->length, length, nc)))
			k = k->next;
		if (!k && (k = calloc(1, sizeof(*k))))
		{
			k->cl = task->cl;
			k->footprint = fp;
			memcpy(k->length, length, sizeof(length));
			k->next = kinds;
			kinds = k;
			nkinds++;
		}
		if (k)
			k->count++;
		else
			unknown++;
	}
	os_mutex_unlock(&bound_lock);
}

static const char *kind_name(const struct kind *k)
{
	if (k->cl->name)
		return k->cl->name;
	if (k->cl->model && k->cl->model->symbol)
		return k->cl->model->symbol;
	return "codelet";
}

#ifdef STARPU_HAVE_GLPK_H
/* The LP of the recorded kinds (bound_lock held); column 1 is T, then one
 * column per (kind, class) that can run. NULL when there is nothing. */
static glp_prob *build_lp(int integer)
{
	if (!nkinds || !nclasses)
		return NULL;
	glp_prob *lp = glp_create_prob();
	glp_set_prob_name(lp, "starpu_bound");
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_rows(lp, (int) (nkinds + nclasses));
	int ncols = 1;
	for (struct kind *k = kinds; k; k = k->next)
		for (unsigned c = 0; c < nclasses; c++)
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
	for (struct kind *k = kinds; k; k = k->next, row++)
	{
		snprintf(name, sizeof(name), "count_%s_%08x", kind_name(k), k->footprint);
		glp_set_row_name(lp, row, name);
		glp_set_row_bnds(lp, row, GLP_FX, (double) k->count, (double) k->count);
		for (unsigned c = 0; c < nclasses; c++)
		{
			if (isnan(k->length[c]))
				continue;
			col++;
			snprintf(name, sizeof(name), "n_%s_%08x_class%u", kind_name(k), k->footprint, c);
			glp_set_col_name(lp, col, name);
			glp_set_col_bnds(lp, col, GLP_LO, 0.0, 0.0);
			if (integer)
				glp_set_col_kind(lp, col, GLP_IV);
			ne++;
			ia[ne] = row, ja[ne] = col, ar[ne] = 1.0;
			ne++;
			ia[ne] = (int) nkinds + 1 + (int) c, ja[ne] = col, ar[ne] = k->length[c];
		}
	}
	for (unsigned c = 0; c < nclasses; c++)
	{
		int r = (int) nkinds + 1 + (int) c;
		snprintf(name, sizeof(name), "time_class%u", c);
		glp_set_row_name(lp, r, name);
		glp_set_row_bnds(lp, r, GLP_UP, 0.0, 0.0);
		ne++;
		ia[ne] = r, ja[ne] = 1, ar[ne] = -(double) classes[c].nworkers;
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
	if (glp_intopt(lp, &iocp) || glp_mip_status(lp) != GLP_OPT)
		return -1.0;
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
	os_mutex_lock(&bound_lock);
	if (unknown)
	{
		unsigned long n = unknown;
		os_mutex_unlock(&bound_lock);
		rt_error("starpu_bound_compute: %lu recorded task(s) have no performance prediction (calibrate their models): no bound", n);
		return;
	}
	glp_prob *lp = build_lp(0);
	glp_prob *ilp = integer ? build_lp(1) : NULL;
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
/* Writes the LP through GLPK's writer (which wants a file name) into out. */
static void write_lp(FILE *out, int mps, const char *fn)
{
	os_mutex_lock(&bound_lock);
	glp_prob *lp = build_lp(0);
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
	fprintf(output, "digraph starpu_bound {\n\t/* the recorded tasks by kind (deps=%d, prio=%d) */\n", record_deps, record_prio);
	unsigned i = 0;
	for (struct kind *k = kinds; k; k = k->next, i++)
		fprintf(output, "\tkind%u [label=\"%s %08x x%lu\"];\n", i, kind_name(k), k->footprint, k->count);
	fprintf(output, "}\n");
	os_mutex_unlock(&bound_lock);
}

void starpu_bound_print(FILE *output, int integer)
{
	if (!output)
		return;
	double res = -1.0, ires = -1.0;
	starpu_bound_compute(&res, &ires, integer);
	fprintf(output, "Theoretical minimum execution time: %f ms\n", res);
	if (integer)
		fprintf(output, "Theoretical minimum execution time with whole tasks: %f ms\n", ires);
	os_mutex_lock(&bound_lock);
	for (unsigned c = 0; c < nclasses; c++)
	{
		char name[64];
		starpu_worker_get_name(classes[c].worker, name, sizeof(name));
		fprintf(output, "class %u: %u worker(s) like %s\n", c, classes[c].nworkers, name);
	}
	for (struct kind *k = kinds; k; k = k->next)
	{
		fprintf(output, "%s (footprint %08x): %lu task(s); length per class (us):", kind_name(k), k->footprint, k->count);
		for (unsigned c = 0; c < nclasses; c++)
			fprintf(output, " %g", k->length[c]);
		fputc('\n', output);
	}
	os_mutex_unlock(&bound_lock);
}
