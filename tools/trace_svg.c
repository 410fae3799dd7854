/* trace_svg.c — a trace as a self-contained SVG Gantt chart: a row per
 * worker (tasks colored by codelet, input fetches, callbacks, idle and
 * sleeping shown), a row per bus link below (transfers), a time axis, and
 * a legend. Each rectangle has a tooltip (<title>). Segments thinner than
 * a pixel are merged with their neighbours of the same color, so that a
 * run with millions of tasks still gives a chart a browser can draw.
 */
#include "trace_reader.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1200
#define LEFT 150
#define RIGHT 20
#define TOP 56
#define ROW 26
#define ROWGAP 6

static void xml(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s)
		{
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char) *s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks. */
static double tick_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* Draws one row. Segments at least a pixel wide become rectangles with
 * their own tooltip; thinner ones are tallied per pixel column, and each
 * column is then painted with the color that covered most of it (drawn
 * first, under the wide ones). */
struct row_painter
{
	FILE *f;
	const struct trace *t;
	double x0;		/* pixel of time origin */
	double scale;		/* pixels per ns */
	double y, h;
	unsigned ncolors;	/* codelets, then segment kinds */
	unsigned ncols;		/* pixel columns */
	double *tally;		/* ncols * ncolors */
	int used;
	/* Wide rectangles, drawn after the columns. */
	char *wide;
	size_t wide_len, wide_cap;
};

static const char *color_of(const struct row_painter *p, unsigned c)
{
	if (c < p->t->ncodelets)
		return trace_codelet_color(c);
	if (c < p->t->ncodelets + SEG_NKINDS)
		return trace_seg_color((enum tr_seg_kind) (c - p->t->ncodelets));
	return "#d62728";	/* transfers */
}

static int painter_init(struct row_painter *p, FILE *f, const struct trace *t, double scale, double y, double h, double plot)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->t = t;
	p->x0 = LEFT;
	p->scale = scale;
	p->y = y;
	p->h = h;
	p->ncolors = t->ncodelets + SEG_NKINDS + 1;
	p->ncols = (unsigned) plot + 2;
	p->tally = calloc((size_t) p->ncols * p->ncolors, sizeof(double));
	return p->tally ? 0 : -ENOMEM;
}

static void wide_append(struct row_painter *p, const char *s)
{
	size_t n = strlen(s);
	if (p->wide_len + n + 1 > p->wide_cap)
	{
		size_t c = (p->wide_cap + n + 1) * 2;
		char *w = realloc(p->wide, c);
		if (!w)
			return;
		p->wide = w;
		p->wide_cap = c;
	}
	memcpy(p->wide + p->wide_len, s, n + 1);
	p->wide_len += n;
}

static void paint(struct row_painter *p, uint64_t start, uint64_t end, unsigned color, const char *title)
{
	double a = p->x0 + (double) start * p->scale, b = p->x0 + (double) end * p->scale;
	if (b - a >= 1.0)
	{
		char buf[512], esc[400];
		size_t k = 0;
		for (const char *s = title; *s && k + 7 < sizeof(esc); s++)
		{
			const char *r = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" : NULL;
			if (r)
				k += (size_t) snprintf(esc + k, sizeof(esc) - k, "%s", r);
			else if ((unsigned char) *s >= 0x20)
				esc[k++] = *s;
		}
		esc[k] = 0;
		snprintf(buf, sizeof(buf), "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>\n",
			 a, p->y, b - a, p->h, color_of(p, color), esc);
		wide_append(p, buf);
		return;
	}
	/* Spread over the columns it touches. */
	double x = a - p->x0;
	double xe = b - p->x0;
	while (x < xe || (x == xe && x == a - p->x0))
	{
		if (!(x < (double) p->ncols))	/* beyond the plot, or NaN: no cast */
			break;
		unsigned c = x < 0 ? 0 : (unsigned) x;
		double stop = (double) c + 1 < xe ? (double) c + 1 : xe;
		p->tally[(size_t) c * p->ncolors + color] += stop > x ? stop - x : 1e-9;
		p->used = 1;
		if (stop <= x)
			break;
		x = stop;
	}
}

static void painter_finish(struct row_painter *p)
{
	if (p->used)
	{
		int run_color = -1;
		unsigned run_start = 0;
		for (unsigned c = 0; c <= p->ncols; c++)
		{
			int best = -1;
			double bv = 0;
			if (c < p->ncols)
				for (unsigned k = 0; k < p->ncolors; k++)
					if (p->tally[(size_t) c * p->ncolors + k] > bv)
					{
						bv = p->tally[(size_t) c * p->ncolors + k];
						best = (int) k;
					}
			if (best != run_color)
			{
				if (run_color >= 0)
				{
					fprintf(p->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%u\" height=\"%.1f\" fill=\"%s\"><title>",
						p->x0 + run_start, p->y, c - run_start, p->h, color_of(p, (unsigned) run_color));
					unsigned rc = (unsigned) run_color;
					xml(p->f, rc < p->t->ncodelets ? p->t->codelets[rc] :
					    rc < p->t->ncodelets + SEG_NKINDS ? trace_seg_name((enum tr_seg_kind) (rc - p->t->ncodelets)) :
					    "Transfers");
					fputs(" (mostly; short segments)</title></rect>\n", p->f);
				}
				run_color = best;
				run_start = c;
			}
		}
	}
	if (p->wide)
		fputs(p->wide, p->f);
	free(p->wide);
	free(p->tally);
}

int trace_export_svg(const struct trace *t, FILE *f)
{
	uint64_t first, last;
	trace_span(t, &first, &last);
	if (t->end_time > last)
		last = t->end_time;
	uint64_t origin = 0;
	if (last <= origin)
		last = origin + 1;
	double span = (double) (last - origin);
	double plot = WIDTH - LEFT - RIGHT;
	double scale = plot / span;

	/* Links with transfers, in order of first use. */
	unsigned links[64][2], nlinks = 0;
	for (unsigned i = 0; i < t->ntransfers && nlinks < 64; i++)
	{
		unsigned k;
		for (k = 0; k < nlinks && !(links[k][0] == t->transfers[i].src && links[k][1] == t->transfers[i].dst); k++)
			;
		if (k == nlinks)
		{
			links[nlinks][0] = t->transfers[i].src;
			links[nlinks][1] = t->transfers[i].dst;
			nlinks++;
		}
	}
	double rows_h = t->nworkers * (ROW + ROWGAP);
	double bus_top = TOP + rows_h + (nlinks ? 28 : 0);
	double bus_h = nlinks * (ROW / 2 + ROWGAP);
	double legend_top = bus_top + bus_h + 34;
	unsigned nlegend = t->ncodelets + 5 + (nlinks ? 1 : 0);
	unsigned per_line = 5;
	double height = legend_top + ((nlegend + per_line - 1) / per_line) * 20 + 16;

	char b1[64], b2[64];
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n", WIDTH, height, WIDTH, height);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"white\"/>\n", WIDTH, height);
	fputs("<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", f);
	xml(f, t->program && *t->program ? t->program : "Vela trace");
	fputs("</text>\n<text x=\"10\" y=\"38\" fill=\"#444\">", f);
	fprintf(f, "%u tasks on %u workers, scheduler ", t->ntasks, t->nworkers);
	xml(f, t->policy ? t->policy : "?");
	fprintf(f, ", %s time, makespan %.3f ms%s</text>\n",
		t->flags & TRACE_FILE_SIMULATED ? "simulated" : t->flags & TRACE_FILE_SYNTHETIC ? "synthetic" : "real",
		(double) (last - first) / 1e6, t->complete ? "" : " (incomplete trace)");

	/* Time axis. */
	double step = tick_step(span, 10);
	double axis_y = TOP - 6;
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", LEFT, axis_y, LEFT + plot, axis_y);
	for (double v = 0; v <= span * 1.0000001; v += step)
	{
		double x = LEFT + v * scale;
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x, axis_y,
			x, bus_top + bus_h);
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%g ms</text>\n", x, axis_y - 4,
			v / 1e6);
	}

	/* Worker rows. */
	for (unsigned i = 0; i < t->nworkers; i++)
	{
		double y = TOP + i * (ROW + ROWGAP);
		fputs("<text x=\"8\" y=\"", f);
		fprintf(f, "%.1f\">", y + ROW * 0.65);
		xml(f, t->workers[i].name);
		fputs("</text>\n", f);
		struct tr_segment *segs;
		int n = trace_worker_timeline(t, t->workers[i].id, last, &segs);
		if (n < 0)
			return -ENOMEM;
		struct row_painter p;
		if (painter_init(&p, f, t, scale, y, ROW, plot))
		{
			free(segs);
			return -ENOMEM;
		}
		for (int s = 0; s < n; s++)
		{
			const struct tr_segment *g = &segs[s];
			char title[160];
			unsigned color;
			if (g->kind == SEG_EXEC)
			{
				const struct tr_task *k = &t->tasks[g->task];
				color = (unsigned) (k->codelet_index >= 0 ? k->codelet_index : 0);
				snprintf(title, sizeof(title), "%s (job %llu): %.3f ms, from %.3f ms", k->name,
					 (unsigned long long) k->job, (double) (g->end - g->start) / 1e6, (double) g->start / 1e6);
			}
			else
			{
				color = t->ncodelets + (unsigned) g->kind;
				snprintf(title, sizeof(title), "%s: %.3f ms, from %.3f ms", trace_seg_name(g->kind),
					 (double) (g->end - g->start) / 1e6, (double) g->start / 1e6);
			}
			paint(&p, g->start - origin, g->end - origin, color, title);
		}
		painter_finish(&p);
		free(segs);
	}

	/* Bus rows. */
	if (nlinks)
		fprintf(f, "<text x=\"8\" y=\"%.1f\" font-weight=\"bold\">Transfers</text>\n", bus_top - 8);
	for (unsigned l = 0; l < nlinks; l++)
	{
		double y = bus_top + l * (ROW / 2 + ROWGAP);
		fprintf(f, "<text x=\"8\" y=\"%.1f\" font-size=\"10\">", y + ROW / 2 - 2);
		xml(f, trace_node_name(t, links[l][0], b1, sizeof(b1)));
		fputs(" &#8594; ", f);
		xml(f, trace_node_name(t, links[l][1], b2, sizeof(b2)));
		fputs("</text>\n", f);
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#f7f7f7\"/>\n", LEFT, y, plot, ROW / 2);
		struct row_painter p;
		if (painter_init(&p, f, t, scale, y, ROW / 2, plot))
			return -ENOMEM;
		for (unsigned i = 0; i < t->ntransfers; i++)
		{
			const struct tr_transfer *x = &t->transfers[i];
			if (x->src != links[l][0] || x->dst != links[l][1])
				continue;
			char title[160];
			snprintf(title, sizeof(title), "%llu bytes in %.3f ms, from %.3f ms", (unsigned long long) x->bytes,
				 (double) (x->end - x->start) / 1e6, (double) x->start / 1e6);
			paint(&p, x->start - origin, x->end - origin, t->ncodelets + SEG_NKINDS, title);
		}
		painter_finish(&p);
	}

	/* User events: small marks above the rows. */
	for (unsigned i = 0; i < t->nusers; i++)
	{
		const struct tr_user *u = &t->users[i];
		double x = LEFT + (double) (u->time - origin) * scale;
		int wi = u->worker >= 0 ? trace_worker_index(t, u->worker) : -1;
		double y = wi >= 0 ? TOP + wi * (ROW + ROWGAP) : TOP;
		fprintf(f, "<path d=\"M %.2f %.1f l -4 -6 l 8 0 z\" fill=\"black\"><title>", x, y);
		if (u->str)
			xml(f, u->str);
		else
			fprintf(f, "user event %llu", (unsigned long long) u->code);
		fprintf(f, " at %.3f ms</title></path>\n", (double) u->time / 1e6);
	}

	/* Legend. */
	fprintf(f, "<text x=\"8\" y=\"%.1f\" font-weight=\"bold\">Legend</text>\n", legend_top - 8);
	for (unsigned i = 0; i < nlegend; i++)
	{
		double x = LEFT + (i % per_line) * 200.0, y = legend_top + (i / per_line) * 20.0;
		const char *color, *name;
		if (i < t->ncodelets)
		{
			color = trace_codelet_color(i);
			name = t->codelets[i];
		}
		else if (i < t->ncodelets + 5)
		{
			enum tr_seg_kind k = (enum tr_seg_kind) (SEG_FETCH + (i - t->ncodelets));
			color = trace_seg_color(k);
			name = trace_seg_name(k);
		}
		else
		{
			color = "#d62728";
			name = "Transfer";
		}
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#666\"/>", x, y, color);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 20, y + 11);
		xml(f, name);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
