/* sched_eval_report.c — what `vela sched-eval` writes: a table per platform
 * (stdout), results.json and results.csv (every figure of every case), and
 * report.html: one self-contained page (inline SVG and CSS, no script, no
 * network) with a bar chart per platform (GPU counts × policies, each bar
 * a link to its case's Gantt chart), a matrix of every policy against the
 * best on each machine, and the tables.
 *
 * Nothing here depends on the time or the order in which cases finished:
 * the same results give the same bytes.
 */
#include "tools/sched_eval.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int gpus_of(const struct se_run *run, const struct se_case *c)
{
	return c->gpus >= 0 ? c->gpus : run->platforms[c->platform].ngpus;
}

static double gflops(const struct se_result *r)
{
	return r->gflop > 0 && r->makespan_ms > 0 ? r->gflop / (r->makespan_ms / 1e3) : 0;
}

static void idle_cell(FILE *f, double share, int width)
{
	if (share < 0)
		fprintf(f, " %*s", width, "-");
	else
		fprintf(f, " %*.1f%%", width - 1, 100 * share);
}

void se_print_tables(const struct se_run *run, FILE *f)
{
	int opencl = 0;
	for (unsigned i = 0; i < run->ncases; i++)
		opencl |= run->cases[i].r.ok && run->cases[i].r.nopencl;
	for (unsigned p = 0; p < run->nplatforms; p++)
	{
		const struct se_platform *pl = &run->platforms[p];
		fprintf(f, "%s== %s (%d GPU%s) ==\n", p ? "\n" : "", pl->name, pl->ngpus, pl->ngpus == 1 ? "" : "s");
		fprintf(f, "%-26s %4s %5s %14s %9s %9s %9s", "policy", "GPUs", "CPUs", "makespan (ms)", "GFlop/s", "idle CPU",
			"idle CUDA");
		if (opencl)
			fprintf(f, " %9s", "idle OCL");
		fprintf(f, " %12s %8s\n", "moved (MB)", "vs best");
		for (unsigned i = 0; i < run->ncases; i++)
		{
			const struct se_case *c = &run->cases[i];
			if (c->platform != p)
				continue;
			const struct se_result *r = &c->r;
			fprintf(f, "%-26s %4d", run->policies[c->policy].name, gpus_of(run, c));
			if (!r->ok)
			{
				fprintf(f, " %5s %14s  (see the error above)\n", "-", "error");
				continue;
			}
			fprintf(f, " %5u %14.3f", r->ncpu, r->makespan_ms);
			if (r->gflop > 0)
				fprintf(f, " %9.1f", gflops(r));
			else
				fprintf(f, " %9s", "-");
			idle_cell(f, r->idle_cpu, 9);
			idle_cell(f, r->idle_cuda, 9);
			if (opencl)
				idle_cell(f, r->idle_opencl, 9);
			fprintf(f, " %12.1f %8.3f%s\n", (double) r->bytes_moved / 1e6, c->vs_best,
				c->vs_best == 1.0 ? " *" : "");
		}
	}
}

/* ------------------------------------------------------------------ */
/* JSON and CSV. */

void se_json_string(FILE *f, const char *s)
{
	for (; s && *s; s++)
	{
		unsigned char ch = (unsigned char) *s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
}

static void json_kv(FILE *f, const char *key, const char *value, const char *sep)
{
	fprintf(f, "\"%s\": ", key);
	if (!value)
		fputs("null", f);
	else
	{
		fputc('"', f);
		se_json_string(f, value);
		fputc('"', f);
	}
	fputs(sep, f);
}

static void json_share(FILE *f, const char *key, double v, const char *sep)
{
	if (v < 0)
		fprintf(f, "\"%s\": null%s", key, sep);
	else
		fprintf(f, "\"%s\": %.6f%s", key, v, sep);
}

static int finish(FILE *f, const char *path)
{
	int bad = ferror(f);
	if (fclose(f) || bad)
	{
		fprintf(stderr, "vela %s: cannot write %s: %s\n", SE_CMD, path, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

static FILE *create(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "vela %s: cannot create %s: %s\n", SE_CMD, path, strerror(errno));
	return f;
}

int se_write_json(const struct se_run *run, const char *path)
{
	FILE *f = create(path);
	if (!f)
		return -1;
	fprintf(f, "{\n  \"tool\": \"vela sched-eval\",\n  \"format\": 1,\n  \"input\": {");
	if (run->rec)
		json_kv(f, "graph", run->rec, "");
	else
	{
		fprintf(f, "\"program\": [");
		for (unsigned i = 0; run->argv[i]; i++)
		{
			fprintf(f, "%s\"", i ? ", " : "");
			se_json_string(f, run->argv[i]);
			fputc('"', f);
		}
		fputc(']', f);
	}
	fprintf(f, "},\n  \"platforms\": [\n");
	for (unsigned p = 0; p < run->nplatforms; p++)
	{
		const struct se_platform *pl = &run->platforms[p];
		fprintf(f, "    {");
		json_kv(f, "name", pl->name, ", ");
		json_kv(f, "file", pl->file, ", ");
		json_kv(f, "models", pl->models, ", ");
		json_kv(f, "hostname", pl->hostname, ", ");
		fprintf(f, "\"gpus\": %d}%s\n", pl->ngpus, p + 1 < run->nplatforms ? "," : "");
	}
	fprintf(f, "  ],\n  \"cases\": [\n");
	for (unsigned i = 0; i < run->ncases; i++)
	{
		const struct se_case *c = &run->cases[i];
		const struct se_result *r = &c->r;
		fprintf(f, "    {");
		json_kv(f, "platform", run->platforms[c->platform].name, ", ");
		json_kv(f, "policy", run->policies[c->policy].name, ", ");
		fprintf(f, "\"gpus\": %d, ", gpus_of(run, c));
		if (!r->ok)
		{
			json_kv(f, "status", "error", ", ");
			json_kv(f, "error", r->error, "");
		}
		else
		{
			json_kv(f, "status", "ok", ", ");
			fprintf(f, "\"makespan_ms\": %.6f, ", r->makespan_ms);
			if (r->gflop > 0)
				fprintf(f, "\"gflop\": %.6f, \"gflops\": %.3f, ", r->gflop, gflops(r));
			else
				fprintf(f, "\"gflop\": null, \"gflops\": null, ");
			fprintf(f, "\"tasks\": %lu, \"workers\": {\"cpu\": %u, \"cuda\": %u, \"opencl\": %u}, ", r->ntasks, r->ncpu,
				r->ncuda, r->nopencl);
			fprintf(f, "\"idle\": {");
			json_share(f, "cpu", r->idle_cpu, ", ");
			json_share(f, "cuda", r->idle_cuda, ", ");
			json_share(f, "opencl", r->idle_opencl, "}, ");
			fprintf(f, "\"bytes_moved\": %llu, \"transfers\": %lu, \"vs_best\": %.6f, ",
				(unsigned long long) r->bytes_moved, r->ntransfers, c->vs_best);
			json_kv(f, "gantt", *r->gantt ? r->gantt : NULL, "");
		}
		fprintf(f, "}%s\n", i + 1 < run->ncases ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return finish(f, path);
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n"))
	{
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++)
	{
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_share(FILE *f, double v)
{
	if (v >= 0)
		fprintf(f, ",%.6f", v);
	else
		fputc(',', f);
}

int se_write_csv(const struct se_run *run, const char *path)
{
	FILE *f = create(path);
	if (!f)
		return -1;
	fprintf(f, "platform,gpus,policy,status,makespan_ms,gflops,gflop,tasks,cpu_workers,cuda_workers,opencl_workers,"
		"idle_cpu,idle_cuda,idle_opencl,bytes_moved,transfers,vs_best,gantt,error\n");
	for (unsigned i = 0; i < run->ncases; i++)
	{
		const struct se_case *c = &run->cases[i];
		const struct se_result *r = &c->r;
		csv_field(f, run->platforms[c->platform].name);
		fprintf(f, ",%d,", gpus_of(run, c));
		csv_field(f, run->policies[c->policy].name);
		if (!r->ok)
		{
			fprintf(f, ",error,,,,,,,,,,,,,,,");
			csv_field(f, r->error);
			fputc('\n', f);
			continue;
		}
		fprintf(f, ",ok,%.6f,", r->makespan_ms);
		if (r->gflop > 0)
			fprintf(f, "%.3f,%.6f", gflops(r), r->gflop);
		else
			fputc(',', f);
		fprintf(f, ",%lu,%u,%u,%u", r->ntasks, r->ncpu, r->ncuda, r->nopencl);
		csv_share(f, r->idle_cpu);
		csv_share(f, r->idle_cuda);
		csv_share(f, r->idle_opencl);
		fprintf(f, ",%llu,%lu,%.6f,", (unsigned long long) r->bytes_moved, r->ntransfers, c->vs_best);
		csv_field(f, r->gantt);
		fprintf(f, ",\n");
	}
	return finish(f, path);
}

/* ------------------------------------------------------------------ */
/* HTML. */

static const char *palette[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
				 "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#8c564b" };
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

static void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s)
		{
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

/* A round step for an axis up to max. */
static double axis_step(double max)
{
	double raw = max / 5, mag = pow(10, floor(log10(raw > 0 ? raw : 1)));
	double n = raw / mag;
	return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
}

/* GPU counts of platform p in case order (each once); returns how many. */
static unsigned platform_gpus(const struct se_run *run, unsigned p, int *out)
{
	unsigned n = 0;
	for (unsigned i = 0; i < run->ncases; i++)
	{
		const struct se_case *c = &run->cases[i];
		if (c->platform != p)
			continue;
		int g = gpus_of(run, c), seen = 0;
		for (unsigned k = 0; k < n; k++)
			seen |= out[k] == g;
		if (!seen)
			out[n++] = g;
	}
	return n;
}

static void html_chart(FILE *f, const struct se_run *run, unsigned p)
{
	int *gpus = calloc(run->ncases + 1, sizeof(*gpus));
	if (!gpus)
		return;
	unsigned ng = platform_gpus(run, p, gpus), np = run->npolicies;
	double max = 0;
	for (unsigned i = 0; i < run->ncases; i++)
		if (run->cases[i].platform == p && run->cases[i].r.ok && run->cases[i].r.makespan_ms > max)
			max = run->cases[i].r.makespan_ms;
	double step = axis_step(max > 0 ? max : 1), top = ceil((max > 0 ? max : 1) / step) * step;
	const int bw = np > 12 ? 10 : 16, gap = 24, left = 70, h = 240, y0 = 20;
	int width = left + (int) ng * ((int) np * bw + gap) + 10;
	fprintf(f, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n", width, y0 + h + 40);
	for (double v = 0; v <= top + step / 2; v += step)
	{
		double y = y0 + h - v / top * h;
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", left, width - 10, y, y, left - 4, y + 4, v);
	}
	fprintf(f, "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">makespan (ms)</text>\n",
		y0 + h / 2, y0 + h / 2);
	for (unsigned g = 0; g < ng; g++)
	{
		int gx = left + gap / 2 + (int) g * ((int) np * bw + gap);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d GPU%s</text>\n", gx + (int) np * bw / 2,
			y0 + h + 16, gpus[g], gpus[g] == 1 ? "" : "s");
		for (unsigned i = 0; i < run->ncases; i++)
		{
			const struct se_case *c = &run->cases[i];
			if (c->platform != p || gpus_of(run, c) != gpus[g])
				continue;
			int x = gx + (int) c->policy * bw;
			const char *name = run->policies[c->policy].name;
			if (!c->r.ok)
			{
				fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#c00\" text-anchor=\"middle\">&#215;<title>", x + bw / 2,
					y0 + h - 2);
				html_text(f, name);
				fputs(": ", f);
				html_text(f, c->r.error);
				fputs("</title></text>\n", f);
				continue;
			}
			double bh = c->r.makespan_ms / top * h;
			if (*c->r.gantt)
				fprintf(f, "<a href=\"%s\">", c->r.gantt);
			fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"%s><title>", x,
				y0 + h - bh, bw - 2, bh, palette[c->policy % NPALETTE],
				c->vs_best == 1.0 ? " stroke=\"#000\" stroke-width=\"1.5\"" : "");
			html_text(f, name);
			fprintf(f, ", %d GPU%s: %.3f ms, %.3f &#215; the best%s</title></rect>", gpus[g], gpus[g] == 1 ? "" : "s",
				c->r.makespan_ms, c->vs_best, *c->r.gantt ? " (click: Gantt chart)" : "");
			fputs(*c->r.gantt ? "</a>\n" : "\n", f);
		}
	}
	fprintf(f, "</svg>\n");
	free(gpus);
}

static void html_legend(FILE *f, const struct se_run *run)
{
	fputs("<p class=\"legend\">", f);
	for (unsigned k = 0; k < run->npolicies; k++)
	{
		fprintf(f, "<span><i style=\"background:%s\"></i>", palette[k % NPALETTE]);
		html_text(f, run->policies[k].name);
		fputs("</span> ", f);
	}
	fputs("</p>\n", f);
}

/* Policies × (platform, GPU count): vs best, green to red. */
static void html_matrix(FILE *f, const struct se_run *run)
{
	fputs("<h2>Every policy against the best on each machine</h2>\n<table class=\"matrix\"><tr><th>policy</th>", f);
	int *gpus = calloc(run->ncases + 1, sizeof(*gpus));
	if (!gpus)
		return;
	for (unsigned p = 0; p < run->nplatforms; p++)
	{
		unsigned ng = platform_gpus(run, p, gpus);
		for (unsigned g = 0; g < ng; g++)
		{
			fputs("<th>", f);
			html_text(f, run->platforms[p].name);
			fprintf(f, "<br>%d GPU%s</th>", gpus[g], gpus[g] == 1 ? "" : "s");
		}
	}
	fputs("</tr>\n", f);
	for (unsigned k = 0; k < run->npolicies; k++)
	{
		fputs("<tr><th>", f);
		html_text(f, run->policies[k].name);
		fputs("</th>", f);
		for (unsigned p = 0; p < run->nplatforms; p++)
		{
			unsigned ng = platform_gpus(run, p, gpus);
			for (unsigned g = 0; g < ng; g++)
				for (unsigned i = 0; i < run->ncases; i++)
				{
					const struct se_case *c = &run->cases[i];
					if (c->platform != p || c->policy != k || gpus_of(run, c) != gpus[g])
						continue;
					if (!c->r.ok)
					{
						fputs("<td class=\"err\" title=\"", f);
						html_text(f, c->r.error);
						fputs("\">error</td>", f);
						continue;
					}
					double bad = c->vs_best - 1 > 1 ? 1 : c->vs_best - 1;
					fprintf(f, "<td style=\"background:hsl(%d,70%%,80%%)\">", (int) (120 * (1 - bad)));
					if (*c->r.gantt)
						fprintf(f, "<a href=\"%s\">%.3f</a></td>", c->r.gantt, c->vs_best);
					else
						fprintf(f, "%.3f</td>", c->vs_best);
				}
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	free(gpus);
}

static void html_table(FILE *f, const struct se_run *run, unsigned p)
{
	fputs("<table><tr><th>policy</th><th>GPUs</th><th>CPUs</th><th>makespan (ms)</th><th>GFlop/s</th>"
	      "<th>idle CPU</th><th>idle CUDA</th><th>moved (MB)</th><th>vs best</th><th></th></tr>\n", f);
	for (unsigned i = 0; i < run->ncases; i++)
	{
		const struct se_case *c = &run->cases[i];
		const struct se_result *r = &c->r;
		if (c->platform != p)
			continue;
		fputs(c->vs_best == 1.0 ? "<tr class=\"best\"><td>" : "<tr><td>", f);
		html_text(f, run->policies[c->policy].name);
		fprintf(f, "</td><td>%d</td>", gpus_of(run, c));
		if (!r->ok)
		{
			fputs("<td colspan=\"8\" class=\"err\">", f);
			html_text(f, r->error);
			fputs("</td></tr>\n", f);
			continue;
		}
		fprintf(f, "<td>%u</td><td>%.3f</td>", r->ncpu, r->makespan_ms);
		if (r->gflop > 0)
			fprintf(f, "<td>%.1f</td>", gflops(r));
		else
			fputs("<td>-</td>", f);
		double shares[2] = { r->idle_cpu, r->idle_cuda };
		for (unsigned k = 0; k < 2; k++)
			if (shares[k] < 0)
				fputs("<td>-</td>", f);
			else
				fprintf(f, "<td>%.1f%%</td>", 100 * shares[k]);
		fprintf(f, "<td>%.1f</td><td>%.3f</td><td>", (double) r->bytes_moved / 1e6, c->vs_best);
		if (*r->gantt)
			fprintf(f, "<a href=\"%s\">Gantt chart</a>", r->gantt);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int se_write_html(const struct se_run *run, const char *path)
{
	FILE *f = create(path);
	if (!f)
		return -1;
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>vela sched-eval</title>\n<style>\n"
	      "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
	      "table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
	      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}\n"
	      "td:first-child,th:first-child{text-align:left}\n"
	      "tr.best td{font-weight:bold}\n.err{color:#c00;text-align:left}\n"
	      ".legend span{margin-right:1em;white-space:nowrap}\n"
	      ".legend i{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle}\n"
	      "svg.chart a rect:hover{opacity:.7}\n"
	      ".plat{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}\n</style></head><body>\n"
	      "<h1>Scheduling policies compared in simulation</h1>\n<p>Input: <code>", f);
	if (run->rec)
		html_text(f, run->rec);
	else
		for (unsigned i = 0; run->argv[i]; i++)
		{
			fputs(i ? " " : "", f);
			html_text(f, run->argv[i]);
		}
	unsigned nerr = 0;
	for (unsigned i = 0; i < run->ncases; i++)
		nerr += !run->cases[i].r.ok;
	fprintf(f, "</code>. %u case%s, %u failed. Makespan: first submission to last termination, in "
		"simulated time (deterministic). A bar or a figure links to its case's Gantt chart; the best "
		"policy of each machine and GPU count is outlined.</p>\n", run->ncases, run->ncases == 1 ? "" : "s", nerr);
	html_legend(f, run);
	for (unsigned p = 0; p < run->nplatforms; p++)
	{
		const struct se_platform *pl = &run->platforms[p];
		fputs("<h2>", f);
		html_text(f, pl->name);
		fputs("</h2>\n<p><small>", f);
		html_text(f, pl->file ? pl->file : "(no platform file)");
		if (pl->models)
		{
			fputs(", models ", f);
			html_text(f, pl->models);
		}
		fputs("</small></p>\n", f);
		if (pl->error)
		{
			fputs("<p class=\"err\">", f);
			html_text(f, pl->error);
			fputs("</p>\n", f);
		}
		fputs("<div class=\"plat\">\n", f);
		html_chart(f, run, p);
		html_table(f, run, p);
		fputs("</div>\n", f);
	}
	html_matrix(f, run);
	fputs("</body></html>\n", f);
	return finish(f, path);
}
