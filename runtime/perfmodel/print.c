/* print.c — showing models: the listing of model files, the per-arch
 * tables and parameters that starpu_perfmodel_display prints (same layout,
 * so that scripts reading either tool's output keep working), and an XML
 * dump.
 */
#include "perfmodel/perfmodel.h"
#include "core/rt.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

int starpu_perfmodel_list(FILE *output)
{
	char dir[4096];
	pm_codelets_dir(dir, sizeof(dir));
	DIR *d = opendir(dir);
	if (!d)
	{
		rt_error("starpu_perfmodel_list: cannot open the model directory %s: %s", dir, strerror(errno));
		return 1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)))
	{
		/* Hidden files, and the temporary files of a save in progress. */
		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp."))
			continue;
		if (n == cap)
		{
			cap = cap ? 2 * cap : 64;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++)
	{
		fprintf(output, "file: <%s>\n", names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}

void starpu_perfmodel_directory(FILE *output)
{
	char dir[4096];
	pm_codelets_dir(dir, sizeof(dir));
	fprintf(output, "directory: <%s/>\n", dir);
}

static void print_entry_line(FILE *f, const struct starpu_perfmodel_history_entry *e)
{
	fprintf(f, "%08" PRIx32 "\t%-15lu\t%-15e\t%-15e\t%-15e\t%u\n", e->footprint, (unsigned long) e->size,
		e->flops, e->mean, e->deviation, e->nsample);
}

/* Prints one (comb, impl) of a state; the state's lock is held. */
static void print_impl(FILE *f, struct pm_impl *im, const struct starpu_perfmodel_arch *arch, int comb, unsigned impl,
		       const char *parameter, const uint32_t *footprint)
{
	char name[128];
	pm_arch_name(arch, comb, impl, name, sizeof(name));
	const struct starpu_perfmodel_regression_model *r = &im->pa.regression;
	fprintf(f, "# performance model for %s\n", name);
	if (parameter)
	{
		if (!strcmp(parameter, "a"))
			fprintf(f, "%e\n", r->a);
		else if (!strcmp(parameter, "b"))
			fprintf(f, "%e\n", r->b);
		else if (!strcmp(parameter, "c"))
			fprintf(f, "%e\n", r->c);
		else if (!strcmp(parameter, "alpha"))
			fprintf(f, "%e\n", r->alpha);
		else if (!strcmp(parameter, "beta"))
			fprintf(f, "%e\n", r->beta);
		else if (!strcmp(parameter, "path-file-debug"))
			fprintf(f, "\n");
		else if (!strcmp(parameter, "mean") || !strcmp(parameter, "stddev"))
		{
			int mean = !strcmp(parameter, "mean");
			for (struct starpu_perfmodel_history_list *l = im->pa.list; l; l = l->next)
				if (!footprint || l->entry->footprint == *footprint)
					fprintf(f, "%-15e\n", mean ? l->entry->mean : l->entry->deviation);
		}
		else
			rt_error("starpu_perfmodel_print: unknown parameter '%s' (a, b, c, alpha, beta, mean, stddev, path-file-debug)", parameter);
		return;
	}
	if (r->nsample || r->valid || r->nl_valid)
	{
		fprintf(f, "\tRegression : #sample = %u\n", r->nsample);
		fprintf(f, "\tLinear: y = alpha size ^ beta\n\t\talpha = %e\n\t\tbeta = %e\n", r->alpha, r->beta);
		fprintf(f, "\tNon-Linear: y = a size ^b + c\n\t\ta = %e\n\t\tb = %e\n\t\tc = %e\n", r->a, r->b, r->c);
	}
	if (r->ncoeff && r->coeff)
	{
		fprintf(f, "\tMultiple regression: %u coefficients\n", r->ncoeff);
		for (unsigned k = 0; k < r->ncoeff; k++)
			fprintf(f, "\t\tc%u = %e\n", k, r->coeff[k]);
	}
	fprintf(f, "# hash\t\tsize\t\tflops\t\tmean (us)\tstddev (us)\t\tn\n");
	for (struct starpu_perfmodel_history_list *l = im->pa.list; l; l = l->next)
		if (!footprint || l->entry->footprint == *footprint)
			print_entry_line(f, l->entry);
}

static struct starpu_perfmodel_state *model_state(struct starpu_perfmodel *model)
{
	return model ? __atomic_load_n(&model->state, __ATOMIC_ACQUIRE) : NULL;
}

void starpu_perfmodel_print(struct starpu_perfmodel *model, struct starpu_perfmodel_arch *arch, unsigned nimpl, char *parameter, uint32_t *footprint, FILE *output)
{
	struct starpu_perfmodel_state *st = model_state(model);
	int comb = pm_arch_comb(arch);
	if (!st || comb < 0 || nimpl >= STARPU_MAXIMPLEMENTATIONS)
		return;
	os_rwlock_rdlock(&st->lock);
	struct pm_comb *c = (unsigned) comb < st->data.ncombs ? st->data.combs[comb] : NULL;
	if (c && nimpl < c->nimpls)
		print_impl(output, &c->impl[nimpl], arch, comb, nimpl, parameter, footprint);
	os_rwlock_unlock(&st->lock);
}

/* Whether comb's first device matches an arch filter: "cpu", "cpu:K",
 * "cuda", "cuda_D", "opencl", "opencl_D", "mic", "mpi_ms". -1: bad filter. */
static int arch_matches(const char *filter, const struct starpu_perfmodel_arch *a)
{
	if (!filter)
		return 1;
	const struct starpu_perfmodel_device *d = &a->devices[0];
	static const struct { const char *name; enum starpu_worker_archtype type; } kinds[] = {
		{ "cpu", STARPU_CPU_WORKER }, { "cuda", STARPU_CUDA_WORKER }, { "opencl", STARPU_OPENCL_WORKER },
		{ "mic", STARPU_MIC_WORKER }, { "mpi_ms", STARPU_MPI_MS_WORKER },
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
	{
		size_t n = strlen(kinds[k].name);
		if (strncmp(filter, kinds[k].name, n))
			continue;
		const char *rest = filter + n;
		if (*rest == '\0')
			return d->type == kinds[k].type;
		char *e;
		long v = strtol(rest + 1, &e, 10);
		if (*e || e == rest + 1)
			return -1;
		if (kinds[k].type == STARPU_CPU_WORKER && *rest == ':')
			return d->type == STARPU_CPU_WORKER && d->ncores == v;
		if (*rest == '_' && kinds[k].type != STARPU_CPU_WORKER)
			return d->type == kinds[k].type && d->devid == v;
		return -1;
	}
	return -1;
}

int starpu_perfmodel_print_all(struct starpu_perfmodel *model, char *arch, char *parameter, uint32_t *footprint, FILE *output)
{
	struct starpu_perfmodel_state *st = model_state(model);
	if (!st)
	{
		rt_error("starpu_perfmodel_print_all: the model is not loaded");
		return -EINVAL;
	}
	int found = 0, bad = 0;
	os_rwlock_rdlock(&st->lock);
	for (unsigned c = 0; c < st->data.ncombs && !bad; c++)
	{
		struct pm_comb *comb = st->data.combs[c];
		const struct starpu_perfmodel_arch *a = pm_comb_arch((int) c);
		if (!comb || !a)
			continue;
		int m = arch_matches(arch, a);
		if (m < 0)
			bad = 1;
		if (m <= 0)
			continue;
		for (unsigned i = 0; i < comb->nimpls; i++)
		{
			print_impl(output, &comb->impl[i], a, (int) c, i, parameter, footprint);
			found = 1;
		}
	}
	os_rwlock_unlock(&st->lock);
	if (bad)
	{
		rt_error("starpu_perfmodel_print_all: unknown arch '%s' (cpu, cpu:K, cuda, cuda_D, opencl, opencl_D, mic, mpi_ms)", arch);
		return -EINVAL;
	}
	(void) found;
	return 0;
}

int starpu_perfmodel_print_estimations(struct starpu_perfmodel *model, uint32_t footprint, FILE *output)
{
	struct starpu_perfmodel_state *st = model_state(model);
	if (!st)
		return -EINVAL;
	os_rwlock_rdlock(&st->lock);
	for (unsigned c = 0; c < st->data.ncombs; c++)
	{
		struct pm_comb *comb = st->data.combs[c];
		const struct starpu_perfmodel_arch *a = pm_comb_arch((int) c);
		if (!comb || !a)
			continue;
		for (unsigned i = 0; i < comb->nimpls; i++)
		{
			struct pm_entry *en = pm_history_find(&comb->impl[i], footprint);
			if (!en)
				continue;
			char name[128];
			pm_arch_name(a, (int) c, i, name, sizeof(name));
			fprintf(output, "%s\t%e\t%e\n", name, en->e.mean, en->e.deviation);
		}
	}
	os_rwlock_unlock(&st->lock);
	return 0;
}

int starpu_perfmodel_list_combs(FILE *output, struct starpu_perfmodel *model)
{
	struct starpu_perfmodel_state *st = model_state(model);
	if (!st)
		return -EINVAL;
	fprintf(output, "Model <%s>\n", model->symbol ? model->symbol : "");
	os_rwlock_rdlock(&st->lock);
	for (unsigned c = 0; c < st->data.ncombs; c++)
	{
		struct pm_comb *comb = st->data.combs[c];
		if (!comb)
			continue;
		fprintf(output, "\tComb %u: %d device%s\n", c, comb->ndevices, comb->ndevices > 1 ? "s" : "");
		for (int d = 0; d < comb->ndevices; d++)
			fprintf(output, "\t\tDevice %d: type: %s - devid: %d - ncores: %d\n", d,
				pm_archtype_name(comb->devices[d].type), comb->devices[d].devid, comb->devices[d].ncores);
	}
	os_rwlock_unlock(&st->lock);
	return 0;
}

void starpu_perfmodel_dump_xml(FILE *f, struct starpu_perfmodel *model)
{
	struct starpu_perfmodel_state *st = model_state(model);
	if (!st)
		return;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<!-- symbol %s -->\n<!-- All times in us -->\n", model->symbol ? model->symbol : "");
	fprintf(f, "<perfmodel version=\"%d\">\n", PM_FILE_VERSION);
	os_rwlock_rdlock(&st->lock);
	for (unsigned c = 0; c < st->data.ncombs; c++)
	{
		struct pm_comb *comb = st->data.combs[c];
		if (!comb)
			continue;
		fprintf(f, "  <combination>\n");
		for (int d = 0; d < comb->ndevices; d++)
		{
			static const char *const up[] = { "CPU", "CUDA", "OpenCL", "MIC", "?", "MPI_MS" };
			unsigned t = (unsigned) comb->devices[d].type;
			fprintf(f, "    <device type=\"%s\" id=\"%d\" ncores=\"%d\"/>\n", t < 6 ? up[t] : "?",
				comb->devices[d].devid, comb->devices[d].ncores);
		}
		for (unsigned i = 0; i < comb->nimpls; i++)
		{
			struct pm_impl *im = &comb->impl[i];
			const struct starpu_perfmodel_regression_model *r = &im->pa.regression;
			char name[128];
			struct starpu_perfmodel_arch a = { comb->ndevices, comb->devices };
			pm_arch_name(&a, (int) c, i, name, sizeof(name));
			fprintf(f, "    <implementation id=\"%u\">\n      <!-- %s -->\n", i, name);
			if (!isnan(r->alpha) || r->nsample)
				fprintf(f, "      <!-- time = alpha size ^beta -->\n      <l_regression sumlnx=\"%e\" sumlnx2=\"%e\" sumlny=\"%e\" sumlnxlny=\"%e\" alpha=\"%e\" beta=\"%e\" nsample=\"%u\" minx=\"%lu\" maxx=\"%lu\"/>\n",
					r->sumlnx, r->sumlnx2, r->sumlny, r->sumlnxlny, r->alpha, r->beta, r->nsample, r->minx, r->maxx);
			if (!isnan(r->a))
				fprintf(f, "      <!-- time = a size ^b + c -->\n      <nl_regression a=\"%e\" b=\"%e\" c=\"%e\"/>\n", r->a, r->b, r->c);
			if (r->ncoeff && r->coeff)
			{
				fprintf(f, "      <ml_regression>\n");
				for (unsigned k = 0; k < r->ncoeff; k++)
					fprintf(f, "        <coeff index=\"%u\" value=\"%e\"/>\n", k, r->coeff[k]);
				fprintf(f, "      </ml_regression>\n");
			}
			for (struct starpu_perfmodel_history_list *l = im->pa.list; l; l = l->next)
			{
				const struct starpu_perfmodel_history_entry *e = l->entry;
				fprintf(f, "      <entry footprint=\"%08" PRIx32 "\" size=\"%lu\" flops=\"%e\" mean=\"%e\" deviation=\"%e\" sum=\"%e\" sum2=\"%e\" nsample=\"%u\"/>\n",
					e->footprint, (unsigned long) e->size, e->flops, e->mean, e->deviation, e->sum, e->sum2, e->nsample);
			}
			fprintf(f, "    </implementation>\n");
		}
		fprintf(f, "  </combination>\n");
	}
	os_rwlock_unlock(&st->lock);
	fprintf(f, "</perfmodel>\n");
}
