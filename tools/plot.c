/* plot.c — `vela perfmodel plot`: an SVG of a model, time versus data
 * size on log-log axes, one colour per arch and implementation: the
 * history entries (mean, with the standard deviation as an error bar) and
 * the model's fits (alpha s^beta dashed, a s^b + c solid). A history-only
 * model gets an a s^b + c fit of its entries, drawn dotted and labelled
 * as computed for the plot. Self-contained SVG, no plotting library.
 */
#include "tools/vela.h"
#include "perfmodel/perfmodel.h"

#include <errno.h>
#include <math.h>
#include <starpu.h>
#include <stdlib.h>
#include <string.h>

#define W 900
#define H 560
#define ML 90		/* margins: left, right, top, bottom */
#define MR 290
#define MT 60
#define MB 70
#define NCURVE 160

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vela perfmodel plot SYMBOL [-o FILE.svg] [-a ARCH] [--file PATH]\n"
		"Draws time (us) versus data size (bytes), log-log, per arch and\n"
		"implementation: measured means with their standard deviation, and the\n"
		"regressions (alpha*s^beta dashed, a*s^b+c solid).\n"
		"  -o FILE    output (default SYMBOL.svg)\n"
		"  -a ARCH    only this arch: cpu, cuda, opencl (any device), or cuda_D\n");
}

struct series
{
	char label[160];
	const struct pm_comb *comb;
	const struct pm_impl *impl;
	int own_fit;			/* a, b, c computed here */
	double a, b, c;
};

struct frame
{
	double lx0, lx1, ly0, ly1;	/* log10 ranges */
};

/* An entry drawn as a point: measured, of a size, not of first runs
 * (which pay for loading code: runtime/perfmodel/README.md). */
static int plotted(const struct starpu_perfmodel_history_entry *e)
{
	return e->nsample && e->mean > 0 && e->size && !pm_entry_is_first_run(e);
}

static double px(const struct frame *fr, double x)
{
	return ML + (log10(x) - fr->lx0) / (fr->lx1 - fr->lx0) * (W - ML - MR);
}

static double py(const struct frame *fr, double y)
{
	return H - MB - (log10(y) - fr->ly0) / (fr->ly1 - fr->ly0) * (H - MT - MB);
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s)
		{
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

static int arch_selected(const char *filter, const struct pm_comb *comb)
{
	if (!filter)
		return 1;
	const char *name = pm_archtype_name(comb->devices[0].type);
	size_t n = strlen(name);
	if (strncmp(filter, name, n))
		return 0;
	if (!filter[n])
		return 1;
	if (filter[n] == '_' || filter[n] == ':')
		return atoi(filter + n + 1) == (filter[n] == ':' ? comb->devices[0].ncores : comb->devices[0].devid);
	return 0;
}

/* Curve value of a series at size s, for the fit kind k (0 linear, 1 nl). */
static double curve(const struct series *sr, int k, double s)
{
	const struct starpu_perfmodel_regression_model *r = &sr->impl->pa.regression;
	if (k == 0)
		return r->alpha * pow(s, r->beta);
	if (sr->own_fit)
		return sr->a * pow(s, sr->b) + sr->c;
	return r->a * pow(s, r->b) + r->c;
}

static int has_curve(const struct series *sr, int k)
{
	const struct starpu_perfmodel_regression_model *r = &sr->impl->pa.regression;
	if (k == 0)
		return isfinite(r->alpha) && isfinite(r->beta) && r->alpha > 0;
	return sr->own_fit || (isfinite(r->a) && isfinite(r->b) && isfinite(r->c));
}

static void draw_axes(FILE *f, const struct frame *fr)
{
	int x0 = ML, x1 = W - MR, y0 = MT, y1 = H - MB;
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", x0, y0, x1 - x0, y1 - y0);
	for (int d = (int) floor(fr->lx0); d <= (int) ceil(fr->lx1); d++)
		for (int m = 1; m < 10; m++)
		{
			double v = log10(m) + d;
			if (v < fr->lx0 || v > fr->lx1)
				continue;
			double x = ML + (v - fr->lx0) / (fr->lx1 - fr->lx0) * (W - ML - MR);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n", x, y0, x, y1, m == 1 ? "#ccc" : "#eee");
			if (m == 1)
				fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">10<tspan dy=\"-7\" font-size=\"10\">%d</tspan></text>\n", x, y1 + 20, d);
		}
	for (int d = (int) floor(fr->ly0); d <= (int) ceil(fr->ly1); d++)
		for (int m = 1; m < 10; m++)
		{
			double v = log10(m) + d;
			if (v < fr->ly0 || v > fr->ly1)
				continue;
			double y = H - MB - (v - fr->ly0) / (fr->ly1 - fr->ly0) * (H - MT - MB);
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>\n", x0, y, x1, y, m == 1 ? "#ccc" : "#eee");
			if (m == 1)
				fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">10<tspan dy=\"-7\" font-size=\"10\">%d</tspan></text>\n", x0 - 8, y + 4, d);
		}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">data size (bytes)</text>\n", (x0 + x1) / 2, H - 25);
	fprintf(f, "<text transform=\"translate(25,%d) rotate(-90)\" text-anchor=\"middle\">time (µs)</text>\n", (y0 + y1) / 2);
}

static int write_svg(FILE *f, const char *symbol, const char *note, struct series *s, unsigned ns, const struct frame *fr)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"13\">\n", W, H, W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"28\" font-size=\"17\" font-weight=\"bold\">Performance model ", ML);
	xml_text(f, symbol);
	fprintf(f, " (host %s)</text>\n", pm_conf.hostname);
	if (note)
	{
		/* First provenance line, without the "# Vela:" prefix. */
		char line[200];
		const char *p = note + 7;
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int) (n < 190 ? n : 190), p);
		fprintf(f, "<text x=\"%d\" y=\"48\" fill=\"#a00\">", ML);
		xml_text(f, line);
		fprintf(f, "</text>\n");
	}
	draw_axes(f, fr);
	int ly = MT + 10;
	for (unsigned i = 0; i < ns; i++)
	{
		const char *col = colours[i % (sizeof(colours) / sizeof(colours[0]))];
		/* Fits. */
		for (int k = 0; k < 2; k++)
		{
			if (!has_curve(&s[i], k))
				continue;
			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"%s points=\"", col,
				k == 0 ? " stroke-dasharray=\"7,4\"" : s[i].own_fit ? " stroke-dasharray=\"2,3\"" : "");
			for (int q = 0; q <= NCURVE; q++)
			{
				double lx = fr->lx0 + (fr->lx1 - fr->lx0) * q / NCURVE;
				double y = curve(&s[i], k, pow(10, lx));
				if (!(y > 0) || !isfinite(y))
					continue;
				double yy = py(fr, y);
				if (yy < MT - 5 || yy > H - MB + 5)
					continue;
				fprintf(f, "%.1f,%.1f ", px(fr, pow(10, lx)), yy);
			}
			fprintf(f, "\"/>\n");
		}
		/* Measured points. */
		for (struct starpu_perfmodel_history_list *l = s[i].impl->pa.list; l; l = l->next)
		{
			const struct starpu_perfmodel_history_entry *e = l->entry;
			if (!plotted(e))
				continue;
			double x = px(fr, (double) e->size), y = py(fr, e->mean);
			double lo = e->mean - e->deviation > pow(10, fr->ly0) ? e->mean - e->deviation : pow(10, fr->ly0);
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", x, py(fr, lo), x,
				py(fr, e->mean + e->deviation), col);
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>footprint %08x, size %lu, mean %.3f us, sd %.3f, n %u</title></circle>\n",
				x, y, col, (unsigned) e->footprint, (unsigned long) e->size, e->mean, e->deviation, e->nsample);
		}
		/* Legend. */
		int lx = W - MR + 20;
		fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/>\n", lx, ly, col);
		fprintf(f, "<text x=\"%d\" y=\"%d\">", lx + 12, ly + 4);
		xml_text(f, s[i].label);
		fprintf(f, "</text>\n");
		ly += 18;
		const struct starpu_perfmodel_regression_model *r = &s[i].impl->pa.regression;
		if (has_curve(&s[i], 0))
		{
			fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-dasharray=\"7,4\" stroke-width=\"1.6\"/>", lx - 6, ly, lx + 6, ly, col);
			fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.3g·s^%.3f</text>\n", lx + 12, ly + 4, r->alpha, r->beta);
			ly += 16;
		}
		if (has_curve(&s[i], 1))
		{
			double a = s[i].own_fit ? s[i].a : r->a, b = s[i].own_fit ? s[i].b : r->b, c = s[i].own_fit ? s[i].c : r->c;
			fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.6\"%s/>", lx - 6, ly, lx + 6, ly, col,
				s[i].own_fit ? " stroke-dasharray=\"2,3\"" : "");
			fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.3g·s^%.3f %s %.3g%s</text>\n", lx + 12, ly + 4, a, b,
				c < 0 ? "−" : "+", fabs(c), s[i].own_fit ? " (fit for the plot)" : "");
			ly += 16;
		}
		ly += 6;
	}
	if (!ns)
		fprintf(f, "<text x=\"%d\" y=\"%d\">no measurement or fit to draw</text>\n", ML + 20, MT + 30);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -EIO : 0;
}

int vela_perfmodel_plot(int argc, char **argv)
{
	const char *symbol = NULL, *out = NULL, *arch = NULL, *file = NULL;
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		if (vela_is_help(a))
		{
			usage(stdout);
			return VELA_EXIT_OK;
		}
		if ((!strcmp(a, "-o") || !strcmp(a, "-a") || !strcmp(a, "--file")) && i + 1 >= argc)
		{
			vela_err("perfmodel plot", "%s needs a value", a);
			return VELA_EXIT_USAGE;
		}
		if (!strcmp(a, "-o"))
			out = argv[++i];
		else if (!strcmp(a, "-a"))
			arch = argv[++i];
		else if (!strcmp(a, "--file"))
			file = argv[++i];
		else if (a[0] == '-')
		{
			vela_err("perfmodel plot", "unknown option '%s'", a);
			return VELA_EXIT_USAGE;
		}
		else if (!symbol)
			symbol = a;
		else
		{
			vela_err("perfmodel plot", "one symbol at a time");
			return VELA_EXIT_USAGE;
		}
	}
	if (!symbol && !file)
	{
		vela_err("perfmodel plot", "which model? (a symbol, or --file PATH)");
		usage(stderr);
		return VELA_EXIT_USAGE;
	}
	struct starpu_perfmodel m;
	if (vela_load_model("perfmodel plot", symbol, file, &m))
		return VELA_EXIT_FAIL;
	const char *name = symbol ? symbol : file;
	char defout[512];
	if (!out)
	{
		const char *base = strrchr(name, '/');
		snprintf(defout, sizeof(defout), "%s.svg", base ? base + 1 : name);
		out = defout;
	}

	struct starpu_perfmodel_state *st = m.state;
	struct series s[64];
	unsigned ns = 0;
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	for (unsigned c = 0; c < st->data.ncombs && ns < 64; c++)
	{
		const struct pm_comb *comb = st->data.combs[c];
		if (!comb || !arch_selected(arch, comb))
			continue;
		for (unsigned i = 0; i < comb->nimpls && ns < 64; i++)
		{
			const struct pm_impl *im = &comb->impl[i];
			struct series *sr = &s[ns];
			memset(sr, 0, sizeof(*sr));
			sr->comb = comb;
			sr->impl = im;
			unsigned npts = 0;
			for (struct starpu_perfmodel_history_list *l = im->pa.list; l; l = l->next)
			{
				const struct starpu_perfmodel_history_entry *e = l->entry;
				if (!plotted(e))
					continue;
				npts++;
				xmin = fmin(xmin, (double) e->size);
				xmax = fmax(xmax, (double) e->size);
				ymin = fmin(ymin, e->mean - e->deviation > 0 ? e->mean - e->deviation : e->mean);
				ymax = fmax(ymax, e->mean + e->deviation);
			}
			const struct starpu_perfmodel_regression_model *r = &im->pa.regression;
			if (r->nsample && r->minx)
			{
				xmin = fmin(xmin, (double) r->minx);
				xmax = fmax(xmax, (double) r->maxx);
			}
			if (!(isfinite(r->a) && isfinite(r->b) && isfinite(r->c)) && npts >= 3)
			{
				/* A fit of the entries, for the eye. */
				double *buf = malloc(sizeof(double) * 3 * npts);
				if (buf)
				{
					unsigned k = 0;
					for (struct starpu_perfmodel_history_list *l = im->pa.list; l; l = l->next)
					{
						const struct starpu_perfmodel_history_entry *e = l->entry;
						if (!plotted(e))
							continue;
						buf[k] = (double) e->size;
						buf[npts + k] = e->mean;
						buf[2 * npts + k] = e->nsample / (e->mean * e->mean);
						k++;
					}
					sr->own_fit = pm_fit_power_law(buf, buf + npts, buf + 2 * npts, npts, &sr->a, &sr->b, &sr->c) == 0;
					free(buf);
				}
			}
			struct series probe = *sr;
			if (!npts && !has_curve(&probe, 0) && !has_curve(&probe, 1))
				continue;
			struct starpu_perfmodel_arch a = { comb->ndevices, (struct starpu_perfmodel_device *) comb->devices };
			pm_arch_name(&a, (int) c, i, sr->label, sizeof(sr->label));
			ns++;
		}
	}
	if (!(xmax > 0))
	{
		xmin = 1e3;
		xmax = 1e7;
	}
	struct frame fr;
	fr.lx0 = log10(xmin) - 0.3;
	fr.lx1 = log10(xmax) + 0.3;
	if (fr.lx1 - fr.lx0 < 1)
	{
		fr.lx0 -= 0.5;
		fr.lx1 += 0.5;
	}
	/* y range: points and the curves over the x range. */
	for (unsigned i = 0; i < ns; i++)
		for (int k = 0; k < 2; k++)
			if (has_curve(&s[i], k))
				for (int q = 0; q <= 20; q++)
				{
					double y = curve(&s[i], k, pow(10, fr.lx0 + (fr.lx1 - fr.lx0) * q / 20));
					if (y > 0 && isfinite(y))
					{
						ymin = fmin(ymin, y);
						ymax = fmax(ymax, y);
					}
				}
	if (!(ymax > 0))
	{
		ymin = 1;
		ymax = 1e3;
	}
	fr.ly0 = log10(ymin) - 0.2;
	fr.ly1 = log10(ymax) + 0.2;
	if (fr.ly1 - fr.ly0 < 1)
	{
		fr.ly0 -= 0.5;
		fr.ly1 += 0.5;
	}

	int status = VELA_EXIT_OK;
	FILE *f = fopen(out, "w");
	if (!f)
	{
		vela_err("perfmodel plot", "cannot write %s: %s", out, strerror(errno));
		status = VELA_EXIT_FAIL;
	}
	else
	{
		char *note = vela_model_note(symbol, file);
		int ret = write_svg(f, name, note, s, ns, &fr);
		free(note);
		if (fclose(f) || ret)
		{
			vela_err("perfmodel plot", "cannot write %s", out);
			status = VELA_EXIT_FAIL;
		}
		else
			printf("%s: %u series\n", out, ns);
	}
	starpu_perfmodel_unload_model(&m);
	return status;
}
