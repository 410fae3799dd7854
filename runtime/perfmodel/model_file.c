/* model_file.c — StarPU 1.3's performance-model file format (version 45):
 * a pure parser (buffer in, struct pm_data or "file:line: reason" out) and
 * the writer. No runtime state is touched, so the fuzzer (tests/perfmodel/
 * fuzz_model_file.c) drives the parser directly.
 *
 * The format, as StarPU writes it: lines starting with '#' are comments and
 * blank lines separate sections; the values, one item per line, are
 *   version (45)
 *   number of combinations, then per combination:
 *     number of devices, then per device: type (CPU 0, CUDA 1, OpenCL 2,
 *       MIC 3, MPI_MS 5), device id, number of cores
 *     number of implementations, then per implementation:
 *       number of history entries
 *       sumlnx sumlnx2 sumlny sumlnxlny alpha beta n minx maxx
 *       a b c
 *       k, then k multiple-regression coefficients on the same line
 *         (k = 0: "not multiple-regression-base", and then the entries)
 *       entries: hash size flops mean dev sum sum2 n
 * Numbers are printf'd "%-15e" (NAN prints "nan"), sizes "%-15lu", hashes
 * "%08x", columns separated by tabs; the writer reproduces StarPU's bytes so
 * that its tools and ours show the same thing.
 *
 * Leniency: StarPU rewrites a file in place without truncating it, so a
 * file may end with stale lines of a previous, longer version; like StarPU,
 * we stop reading after the last combination. Everything else that is out of
 * place is an error: hostile files (huge counts, NaN durations, negative
 * sizes, truncation) are rejected, never half-loaded.
 */
#include "perfmodel/perfmodel.h"
#include "os/regular_file.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LINE 4096

struct reader
{
	const char *p, *end;
	const char *name;
	unsigned line;			/* of the last line returned */
	char buf[MAX_LINE];		/* the current data line, NUL-terminated */
	char comment[256];		/* the last comment line seen (multiple regression names) */
	char *note;			/* "# Vela:" lines seen (provenance), owned */
	size_t notelen;
	char *err;
	size_t errsize;
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->err && r->errsize)
		snprintf(r->err, r->errsize, "%s:%u: %s", r->name, r->line, msg);
	return -EINVAL;
}

/* Next line that holds data (comments and blank lines skipped), into
 * r->buf; what names the expected item for the end-of-file message. */
static int next_line(struct reader *r, const char *what)
{
	for (;;)
	{
		if (r->p >= r->end)
		{
			r->line++;
			return fail(r, "unexpected end of file, expected %s (the file is truncated)", what);
		}
		const char *nl = memchr(r->p, '\n', (size_t) (r->end - r->p));
		const char *stop = nl ? nl : r->end;
		size_t len = (size_t) (stop - r->p);
		r->line++;
		if (memchr(r->p, '\0', len))
			return fail(r, "NUL byte in the file (not a text model file)");
		if (len >= MAX_LINE)
			return fail(r, "line longer than %d characters", MAX_LINE - 1);
		memcpy(r->buf, r->p, len);
		r->buf[len] = '\0';
		/* A line ends at '\n', with every '\r' before it dropped: a
		 * CRLF file reads as its LF twin, and so does a line ending in
		 * "\r\r\n" (keeping one '\r' of a comment that is written
		 * back, "# Vela:" lines or a multiple-regression header, lost
		 * one per rewrite: writing was not a fixed point). */
		while (len && r->buf[len - 1] == '\r')
			r->buf[--len] = '\0';
		r->p = nl ? nl + 1 : r->end;
		const char *s = r->buf;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#')
		{
			snprintf(r->comment, sizeof(r->comment), "%.255s", s);
			if (!strncmp(s, "# Vela:", 7) && r->notelen < 65536)
			{
				size_t n = strlen(s);
				char *nn = realloc(r->note, r->notelen + n + 2);
				if (nn)
				{
					memcpy(nn + r->notelen, s, n);
					nn[r->notelen + n] = '\n';
					nn[r->notelen + n + 1] = '\0';
					r->note = nn;
					r->notelen += n + 1;
				}
			}
			continue;
		}
		if (*s == '\0')
			continue;
		return 0;
	}
}

/* Token cursor over r->buf. */
static char *token(char **cur)
{
	char *s = *cur;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
	{
		*cur = s;
		return NULL;
	}
	char *t = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*cur = s;
	return t;
}

static int no_more_tokens(struct reader *r, char **cur, const char *what)
{
	char *t = token(cur);
	if (t)
		return fail(r, "unexpected '%s' after %s", t, what);
	return 0;
}

/* Unsigned integer, decimal, at most max. */
static int get_uint(struct reader *r, const char *t, unsigned long long max, const char *what, unsigned long long *out)
{
	if (!t)
		return fail(r, "missing %s", what);
	if (t[0] == '-')
		return fail(r, "%s is negative ('%s')", what, t);
	if (!isdigit((unsigned char) t[0]))
		return fail(r, "%s: '%s' is not a number", what, t);
	char *e;
	errno = 0;
	unsigned long long v = strtoull(t, &e, 10);
	if (*e)
		return fail(r, "%s: '%s' is not an integer", what, t);
	if (errno || v > max)
		return fail(r, "%s %s is too large (at most %llu)", what, t, max);
	*out = v;
	return 0;
}

static int get_int(struct reader *r, const char *t, long long min, long long max, const char *what, long long *out)
{
	if (!t)
		return fail(r, "missing %s", what);
	char *e;
	errno = 0;
	long long v = strtoll(t, &e, 10);
	if (e == t || *e)
		return fail(r, "%s: '%s' is not an integer", what, t);
	if (errno || v < min || v > max)
		return fail(r, "%s %s is out of range [%lld, %lld]", what, t, min, max);
	*out = v;
	return 0;
}

enum dbl_rule
{
	DBL_ANY,		/* finite or NAN (regression coefficients) */
	DBL_FINITE,		/* finite (regression sums) */
	DBL_NONNEG,		/* finite and >= 0 (sums) */
	DBL_DURATION,		/* >= 0 and at most MAX_DURATION_US (means, deviations) */
	DBL_FLOPS		/* >= 0 and at most MAX_FLOPS, or NaN (an entry of first runs) */
};

/* Beyond these a value is a corrupt file, not a measure: a kernel of 11
 * days, a task of a zettaflop. (StarPU 1.3 takes them, and a simulation
 * then reports an infinite time.) */
#define MAX_DURATION_US 1e12
#define MAX_FLOPS 1e21

static int get_double(struct reader *r, const char *t, enum dbl_rule rule, const char *what, double *out)
{
	if (!t)
		return fail(r, "missing %s", what);
	char *e;
	double v = strtod(t, &e);
	if (e == t || *e)
		return fail(r, "%s: '%s' is not a number", what, t);
	if (isinf(v))
		return fail(r, "%s is infinite", what);
	if (isnan(v) && rule != DBL_ANY && rule != DBL_FLOPS)
		return fail(r, "%s is NaN", what);
	if (rule >= DBL_NONNEG && v < 0)
		return fail(r, "%s %s is negative", what, t);
	if (rule == DBL_DURATION && v > MAX_DURATION_US)
		return fail(r, "%s %s is not a plausible duration (more than %g us)", what, t, MAX_DURATION_US);
	if (rule == DBL_FLOPS && v > MAX_FLOPS)
		return fail(r, "%s %s is not a plausible flop count (more than %g)", what, t, MAX_FLOPS);
	*out = v;
	return 0;
}

/* A line holding one unsigned integer. */
static int line_uint(struct reader *r, unsigned long long max, const char *what, unsigned long long *out)
{
	int ret = next_line(r, what);
	if (ret)
		return ret;
	char *cur = r->buf;
	if ((ret = get_uint(r, token(&cur), max, what, out)))
		return ret;
	return no_more_tokens(r, &cur, what);
}

static int line_int(struct reader *r, long long min, long long max, const char *what, long long *out)
{
	int ret = next_line(r, what);
	if (ret)
		return ret;
	char *cur = r->buf;
	if ((ret = get_int(r, token(&cur), min, max, what, out)))
		return ret;
	return no_more_tokens(r, &cur, what);
}

static int valid_type(long long t)
{
	return t == STARPU_CPU_WORKER || t == STARPU_CUDA_WORKER || t == STARPU_OPENCL_WORKER ||
	       t == STARPU_MIC_WORKER || t == STARPU_MPI_MS_WORKER;
}

static int parse_impl(struct reader *r, struct pm_impl *impl)
{
	unsigned long long nentries, v;
	int ret;
	if ((ret = line_uint(r, PM_MAX_ENTRIES, "number of history entries", &nentries)))
		return ret;

	/* Linear regression sums and fit. */
	struct starpu_perfmodel_regression_model *reg = &impl->pa.regression;
	if ((ret = next_line(r, "the regression line (sumlnx sumlnx2 sumlny sumlnxlny alpha beta n minx maxx)")))
		return ret;
	char *cur = r->buf;
	if ((ret = get_double(r, token(&cur), DBL_FINITE, "sumlnx", &reg->sumlnx)) ||
	    (ret = get_double(r, token(&cur), DBL_FINITE, "sumlnx2", &reg->sumlnx2)) ||
	    (ret = get_double(r, token(&cur), DBL_FINITE, "sumlny", &reg->sumlny)) ||
	    (ret = get_double(r, token(&cur), DBL_FINITE, "sumlnxlny", &reg->sumlnxlny)) ||
	    (ret = get_double(r, token(&cur), DBL_ANY, "alpha", &reg->alpha)) ||
	    (ret = get_double(r, token(&cur), DBL_ANY, "beta", &reg->beta)))
		return ret;
	if ((ret = get_uint(r, token(&cur), 0x7fffffffu, "regression sample count", &v)))
		return ret;
	reg->nsample = (unsigned) v;
	if ((ret = get_uint(r, token(&cur), ULONG_MAX, "minx", &v)))
		return ret;
	reg->minx = (unsigned long) v;
	if ((ret = get_uint(r, token(&cur), ULONG_MAX, "maxx", &v)))
		return ret;
	reg->maxx = (unsigned long) v;
	if ((ret = no_more_tokens(r, &cur, "the regression line")))
		return ret;
	if (reg->nsample > 0 && reg->minx > reg->maxx)
		return fail(r, "regression minx %lu is larger than maxx %lu", reg->minx, reg->maxx);
	if (reg->sumlnx2 < 0)
		return fail(r, "sumlnx2 is negative");

	/* Non-linear regression. */
	if ((ret = next_line(r, "the non-linear regression line (a b c)")))
		return ret;
	cur = r->buf;
	if ((ret = get_double(r, token(&cur), DBL_ANY, "a", &reg->a)) ||
	    (ret = get_double(r, token(&cur), DBL_ANY, "b", &reg->b)) ||
	    (ret = get_double(r, token(&cur), DBL_ANY, "c", &reg->c)) ||
	    (ret = no_more_tokens(r, &cur, "a b c")))
		return ret;

	/* Multiple regression: k, then k coefficients. */
	r->comment[0] = '\0';
	if ((ret = next_line(r, "the number of multiple-regression coefficients")))
		return ret;
	cur = r->buf;
	if ((ret = get_uint(r, token(&cur), PM_MAX_COEFFS, "number of multiple-regression coefficients", &v)))
		return ret;
	if (v)
	{
		reg->coeff = calloc((size_t) v, sizeof(double));
		if (!reg->coeff)
			return fail(r, "out of memory");
		reg->ncoeff = (unsigned) v;
		for (unsigned i = 0; i < reg->ncoeff; i++)
			if ((ret = get_double(r, token(&cur), DBL_ANY, "multiple-regression coefficient", &reg->coeff[i])))
				return ret;
		if (r->comment[0])
			impl->mlr_header = strdup(r->comment);
	}
	if ((ret = no_more_tokens(r, &cur, "the multiple-regression coefficients")))
		return ret;

	/* History entries. */
	for (unsigned long long i = 0; i < nentries; i++)
	{
		if ((ret = next_line(r, "a history entry (hash size flops mean dev sum sum2 n)")))
			return ret;
		cur = r->buf;
		char *t = token(&cur);
		if (!t || strlen(t) > 8 || strspn(t, "0123456789abcdefABCDEF") != strlen(t))
			return fail(r, "history entry hash '%s' is not a hexadecimal footprint", t ? t : "");
		uint32_t fp = (uint32_t) strtoul(t, NULL, 16);
		if (pm_history_find(impl, fp))
			return fail(r, "history entry %08" PRIx32 " appears twice", fp);
		unsigned long long size;
		double flops, mean, dev, sum, sum2;
		if ((ret = get_uint(r, token(&cur), SIZE_MAX, "entry size", &size)) ||
		    (ret = get_double(r, token(&cur), DBL_FLOPS, "entry flops", &flops)) ||
		    (ret = get_double(r, token(&cur), DBL_DURATION, "entry mean", &mean)) ||
		    (ret = get_double(r, token(&cur), DBL_DURATION, "entry deviation", &dev)) ||
		    (ret = get_double(r, token(&cur), DBL_NONNEG, "entry sum", &sum)) ||
		    (ret = get_double(r, token(&cur), DBL_NONNEG, "entry sum2", &sum2)) ||
		    (ret = get_uint(r, token(&cur), 0x7fffffffu, "entry sample count", &v)) ||
		    (ret = no_more_tokens(r, &cur, "a history entry")))
			return ret;
		struct pm_entry *en = pm_history_insert(impl, fp, 0);
		if (!en)
			return fail(r, "out of memory");
		en->e.size = (size_t) size;
		en->e.flops = flops;
		en->e.mean = mean;
		en->e.deviation = dev;
		en->e.sum = sum;
		en->e.sum2 = sum2;
		en->e.nsample = (unsigned) v;
	}
	impl->present = 1;
	return 0;
}

int pm_file_parse(const char *buf, size_t len, const char *name, struct pm_data *out, char *err, size_t errsize)
{
	struct reader r = { .p = buf, .end = buf + len, .name = name ? name : "(model)", .err = err, .errsize = errsize };
	unsigned long long v;
	long long iv;
	int ret;
	pm_data_init(out);
	if (err && errsize)
		err[0] = '\0';

	if ((ret = next_line(&r, "the format version")))
		goto fail;
	/* Provenance lines come before the version. */
	out->note = r.note;
	r.note = NULL;
	char *cur = r.buf;
	if ((ret = get_int(&r, token(&cur), LLONG_MIN, LLONG_MAX, "format version", &iv)))
		goto fail;
	if (iv != PM_FILE_VERSION)
	{
		ret = fail(&r, "format version %lld is not supported (Vela reads version %d, StarPU 1.3's)", iv, PM_FILE_VERSION);
		goto fail;
	}
	if ((ret = no_more_tokens(&r, &cur, "the format version")))
		goto fail;

	unsigned long long ncombs;
	if ((ret = line_uint(&r, PM_MAX_COMBS, "number of combinations", &ncombs)))
		goto fail;
	for (unsigned c = 0; c < ncombs; c++)
	{
		unsigned long long ndev;
		if ((ret = line_uint(&r, PM_MAX_DEVICES, "number of devices", &ndev)))
			goto fail;
		if (ndev == 0)
		{
			ret = fail(&r, "combination %u has no device", c);
			goto fail;
		}
		struct starpu_perfmodel_device devs[PM_MAX_DEVICES];
		for (unsigned d = 0; d < ndev; d++)
		{
			long long type, devid, ncores;
			if ((ret = line_int(&r, LLONG_MIN, LLONG_MAX, "device type", &type)))
				goto fail;
			if (!valid_type(type))
			{
				ret = fail(&r, "device type %lld is not one of CPU 0, CUDA 1, OpenCL 2, MIC 3, MPI_MS 5", type);
				goto fail;
			}
			if ((ret = line_int(&r, 0, 1 << 20, "device id", &devid)) ||
			    (ret = line_int(&r, 0, 1 << 20, "number of cores", &ncores)))
				goto fail;
			devs[d].type = (enum starpu_worker_archtype) type;
			devs[d].devid = (int) devid;
			devs[d].ncores = (int) ncores;
		}
		for (unsigned p = 0; p < out->ncombs; p++)
		{
			struct pm_comb *o = out->combs[p];
			if (o->ndevices == (int) ndev && !memcmp(o->devices, devs, sizeof(devs[0]) * ndev))
			{
				ret = fail(&r, "combination %u describes the same devices as combination %u", c, p);
				goto fail;
			}
		}
		struct pm_comb *comb = pm_comb_new((int) ndev, devs);
		if (!comb)
		{
			ret = fail(&r, "out of memory");
			goto fail;
		}
		out->combs[out->ncombs++] = comb;
		if ((ret = line_uint(&r, STARPU_MAXIMPLEMENTATIONS, "number of implementations", &v)))
			goto fail;
		comb->nimpls = (unsigned) v;
		for (unsigned i = 0; i < comb->nimpls; i++)
			if ((ret = parse_impl(&r, &comb->impl[i])))
				goto fail;
	}
	free(r.note);
	return 0;
fail:
	free(r.note);
	pm_data_free(out);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Writer. */

static void write_impl(FILE *f, const struct pm_comb *comb, int fcomb, unsigned i, struct starpu_perfmodel *model)
{
	const struct pm_impl *impl = &comb->impl[i];
	const struct starpu_perfmodel_regression_model *reg = &impl->pa.regression;
	struct starpu_perfmodel_arch arch = { comb->ndevices, (struct starpu_perfmodel_device *) comb->devices };
	char name[128];
	pm_arch_name(&arch, fcomb, i, name, sizeof(name));
	int mlr = reg->ncoeff > 0 && reg->coeff;
	unsigned nentries = 0;
	if (!mlr)
		for (struct starpu_perfmodel_history_list *l = impl->pa.list; l; l = l->next)
			nentries++;

	fprintf(f, "#####\n# Model for %s\n# number of entries\n%u\n", name, nentries);
	fprintf(f, "# sumlnx\tsumlnx2\t\tsumlny\t\tsumlnxlny\talpha\t\tbeta\t\tn\tminx\t\tmaxx\n");
	fprintf(f, "%-15e\t%-15e\t%-15e\t%-15e\t%-15e\t%-15e\t%u\t%-15lu\t%-15lu\n",
		reg->sumlnx, reg->sumlnx2, reg->sumlny, reg->sumlnxlny, reg->alpha, reg->beta,
		reg->nsample, reg->minx, reg->maxx);
	fprintf(f, "# a\t\tb\t\tc\n%-15e\t%-15e\t%-15e\n", reg->a, reg->b, reg->c);
	if (mlr)
	{
		/* Column names: from the model when we have it, else as read. */
		if (model && model->ncombinations + 1 == reg->ncoeff && model->combinations)
		{
			fprintf(f, "# n\tintercept\t");
			for (unsigned k = 0; k < model->ncombinations; k++)
			{
				int first = 1;
				for (unsigned p = 0; p < model->nparameters; p++)
				{
					unsigned e = model->combinations[k][p];
					if (!e)
						continue;
					const char *pn = model->parameters_names && model->parameters_names[p] ? model->parameters_names[p] : "P";
					fprintf(f, "%s%s", first ? "" : "*", pn);
					if (e > 1)
						fprintf(f, "^%u", e);
					first = 0;
				}
				fprintf(f, "\t\t");
			}
			fprintf(f, "\n");
		}
		else
			fprintf(f, "%s\n", impl->mlr_header ? impl->mlr_header : "# n\tintercept\t");
		int computed = 0;
		for (unsigned k = 0; k < reg->ncoeff; k++)
			computed |= !isnan(reg->coeff[k]);
		fprintf(f, "%u", reg->ncoeff);
		for (unsigned k = 0; k < reg->ncoeff; k++)
		{
			if (computed)
				fprintf(f, "\t%-15e", reg->coeff[k]);
			else
				fprintf(f, "\tnan");
		}
		fprintf(f, "\n");
		return;
	}
	fprintf(f, "# not multiple-regression-base\n0\n");
	fprintf(f, "# hash\t\tsize\t\tflops\t\tmean (us)\tdev (us)\tsum\t\tsum2\t\tn\n");
	for (struct starpu_perfmodel_history_list *l = impl->pa.list; l; l = l->next)
	{
		const struct starpu_perfmodel_history_entry *e = l->entry;
		fprintf(f, "%08" PRIx32 "\t%-15lu\t%-15e\t%-15e\t%-15e\t%-15e\t%-15e\t%u\n",
			e->footprint, (unsigned long) e->size, e->flops, e->mean, e->deviation, e->sum, e->sum2, e->nsample);
	}
	fprintf(f, "\n");
}

int pm_file_write(FILE *f, const struct pm_data *d, struct starpu_perfmodel *model)
{
	unsigned ncombs = 0;
	for (unsigned c = 0; c < d->ncombs; c++)
		ncombs += d->combs[c] != NULL;
	if (d->note)
		fputs(d->note, f);
	fprintf(f, "##################\n# Performance Model Version\n%d\n\n", PM_FILE_VERSION);
	fprintf(f, "####################\n# COMBs\n# number of combinations\n%u\n", ncombs);
	int fc = 0;
	for (unsigned c = 0; c < d->ncombs; c++)
	{
		const struct pm_comb *comb = d->combs[c];
		if (!comb)
			continue;
		fprintf(f, "####################\n# COMB_%d\n# number of types devices\n%d\n", fc, comb->ndevices);
		for (int k = 0; k < comb->ndevices; k++)
		{
			fprintf(f, "####################\n# DEV_%d\n# device type (CPU - 0, CUDA - 1, OPENCL - 2, MIC - 3, MPI_MS - 5)\n%d\n",
				k, (int) comb->devices[k].type);
			fprintf(f, "####################\n# DEV_%d\n# device id \n%d\n", k, comb->devices[k].devid);
			fprintf(f, "####################\n# DEV_%d\n# number of cores \n%d\n", k, comb->devices[k].ncores);
		}
		fprintf(f, "##########\n# number of implementations\n%u\n", comb->nimpls);
		for (unsigned i = 0; i < comb->nimpls; i++)
			write_impl(f, comb, fc, i, model);
		fc++;
	}
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------------ */
/* Files. */

int pm_file_read_all(const char *path, char **bufp, size_t *lenp, char *err, size_t errsize)
{
	*bufp = NULL;
	*lenp = 0;
	/* Never blocks: a FIFO named like a model is refused, not waited on. */
	const char *kind;
	int fd = os_open_regular(path, O_RDONLY, 0, NULL, &kind);
	if (fd < 0)
	{
		if (kind)
			snprintf(err, errsize, "%s: %s, not a model file", path, kind);
		else if (fd != -ENOENT)
			snprintf(err, errsize, "%s: cannot open: %s", path, strerror(-fd));
		return fd;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f)
	{
		int e = errno;
		close(fd);
		snprintf(err, errsize, "%s: cannot open: %s", path, strerror(e));
		return -e;
	}
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap + 1);
	while (buf)
	{
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len < cap)
			break;
		if (cap >= (size_t) PM_MAX_FILE_BYTES)
		{
			free(buf);
			fclose(f);
			snprintf(err, errsize, "%s: larger than %ld MiB: not a model file", path, PM_MAX_FILE_BYTES >> 20);
			return -EFBIG;
		}
		cap *= 2;
		char *nb = realloc(buf, cap + 1);
		if (!nb)
			free(buf);
		buf = nb;
	}
	int rerr = ferror(f);
	fclose(f);
	if (!buf)
	{
		snprintf(err, errsize, "%s: out of memory", path);
		return -ENOMEM;
	}
	if (rerr)
	{
		free(buf);
		snprintf(err, errsize, "%s: read error", path);
		return -EIO;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

int pm_file_load(const char *path, struct pm_data *out, char *err, size_t errsize)
{
	char *buf;
	size_t len;
	int ret = pm_file_read_all(path, &buf, &len, err, errsize);
	if (ret)
	{
		pm_data_init(out);
		return ret;
	}
	ret = pm_file_parse(buf, len, path, out, err, errsize);
	free(buf);
	return ret;
}
