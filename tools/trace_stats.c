/* trace_stats.c — `vela trace stats` and `vela trace diff`: per codelet
 * counts and times, per worker shares of the run (executing, fetching,
 * callbacks, idle, sleeping, overhead), transfer volume per link, the
 * critical path (longest chain of execution times along the dependencies)
 * and the lower bound on the makespan it gives with the total work divided
 * among the workers. The diff compares two traces of the same application
 * (say, a real and a simulated run) codelet by codelet and worker by worker.
 */
#include "trace_reader.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static double dur_us(uint64_t a, uint64_t b)
{
	return b > a ? (double) (b - a) / 1e3 : 0.0;
}

static int cmp_codelet_total(const void *a, const void *b)
{
	const struct trace_stats_codelet *x = a, *y = b;
	if (x->total_us != y->total_us)
		return x->total_us > y->total_us ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Longest path where a task weighs its execution time. */
static int critical_path(const struct trace *t, struct trace_stats *s)
{
	unsigned n = t->ntasks;
	unsigned *indeg = calloc(n + 1, sizeof(*indeg));
	unsigned *nsucc = calloc(n + 1, sizeof(*nsucc));
	unsigned *first = calloc(n + 2, sizeof(*first));
	unsigned *succ = malloc((t->nedges + 1) * sizeof(*succ));
	unsigned *queue = malloc((n + 1) * sizeof(*queue));
	double *dist = calloc(n + 1, sizeof(*dist));
	int *from = malloc((n + 1) * sizeof(*from));
	int ret = -ENOMEM;
	if (!indeg || !nsucc || !first || !succ || !queue || !dist || !from)
		goto out;
	for (unsigned i = 0; i < n; i++)
	{
		indeg[i] = t->tasks[i].npreds;
		for (unsigned d = 0; d < t->tasks[i].npreds; d++)
			nsucc[t->tasks[i].preds[d]]++;
	}
	for (unsigned i = 0; i < n; i++)
		first[i + 1] = first[i] + nsucc[i];
	memset(nsucc, 0, n * sizeof(*nsucc));
	for (unsigned i = 0; i < n; i++)
		for (unsigned d = 0; d < t->tasks[i].npreds; d++)
		{
			unsigned p = t->tasks[i].preds[d];
			succ[first[p] + nsucc[p]++] = i;
		}
	unsigned head = 0, tail = 0;
	for (unsigned i = 0; i < n; i++)
	{
		from[i] = -1;
		const struct tr_task *k = &t->tasks[i];
		dist[i] = k->flags & TTF_EXECUTED ? dur_us(k->exec_start, k->exec_end) : 0;
		if (!indeg[i])
			queue[tail++] = i;
	}
	/* dist[i] starts as i's own weight; a predecessor adds its chain. */
	double *own = malloc((n + 1) * sizeof(*own));
	if (!own)
		goto out;
	memcpy(own, dist, n * sizeof(*own));
	int best = -1;
	while (head < tail)
	{
		unsigned i = queue[head++];
		if (best < 0 || dist[i] > dist[best])
			best = (int) i;
		for (unsigned e = first[i]; e < first[i + 1]; e++)
		{
			unsigned j = succ[e];
			double c = dist[i] + own[j];
			if (from[j] < 0 ? c >= dist[j] : c > dist[j])
			{
				dist[j] = c;
				from[j] = (int) i;
			}
			if (--indeg[j] == 0)
				queue[tail++] = j;
		}
	}
	free(own);
	s->critical_path_us = best >= 0 ? dist[best] : 0;
	unsigned len = 0;
	for (int i = best; i >= 0; i = from[i])
		len++;
	s->critical_path = malloc((len + 1) * sizeof(*s->critical_path));
	if (!s->critical_path)
		goto out;
	s->critical_path_len = len;
	unsigned k = len;
	for (int i = best; i >= 0; i = from[i])
		s->critical_path[--k] = (unsigned) i;
	ret = 0;
out:
	free(indeg);
	free(nsucc);
	free(first);
	free(succ);
	free(queue);
	free(dist);
	free(from);
	return ret;
}

int trace_compute_stats(const struct trace *t, struct trace_stats *s)
{
	memset(s, 0, sizeof(*s));
	uint64_t first, last;
	trace_span(t, &first, &last);
	s->makespan_us = dur_us(first, last);
	uint64_t xs = UINT64_MAX, xe = 0;
	s->codelets = calloc(t->ncodelets + 1, sizeof(*s->codelets));
	s->workers = calloc(t->nworkers + 1, sizeof(*s->workers));
	if (!s->codelets || !s->workers)
		goto nomem;
	s->ncodelets = t->ncodelets;
	s->nworkers = t->nworkers;
	for (unsigned c = 0; c < t->ncodelets; c++)
		s->codelets[c].name = t->codelets[c];
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		s->ntasks++;
		if (k->flags & TTF_NOOP)
			s->nnoop++;
		if (!(k->flags & TTF_EXECUTED))
			continue;
		s->nexecuted++;
		double d = dur_us(k->exec_start, k->exec_end);
		s->total_work_us += d;
		if (k->exec_start < xs)
			xs = k->exec_start;
		if (k->exec_end > xe)
			xe = k->exec_end;
		if (k->codelet_index >= 0)
		{
			struct trace_stats_codelet *c = &s->codelets[k->codelet_index];
			if (!c->n || d < c->min_us)
				c->min_us = d;
			if (d > c->max_us)
				c->max_us = d;
			c->n++;
			c->total_us += d;
		}
		int w = trace_worker_index(t, k->worker);
		if (w >= 0)
			s->workers[w].ntasks++;
	}
	s->exec_window_us = xe > xs ? dur_us(xs, xe) : 0;
	for (unsigned c = 0; c < s->ncodelets; c++)
		s->codelets[c].mean_us = s->codelets[c].n ? s->codelets[c].total_us / (double) s->codelets[c].n : 0;
	if (s->ncodelets > 1)
		qsort(s->codelets, s->ncodelets, sizeof(*s->codelets), cmp_codelet_total);

	for (unsigned w = 0; w < t->nworkers; w++)
	{
		struct trace_stats_worker *sw = &s->workers[w];
		sw->name = t->workers[w].name;
		struct tr_segment *segs;
		int n = trace_worker_timeline(t, t->workers[w].id, last, &segs);
		if (n < 0)
			goto nomem;
		for (int g = 0; g < n; g++)
		{
			uint64_t a = segs[g].start > first ? segs[g].start : first, b = segs[g].end;
			if (b <= a)
				continue;
			double d = dur_us(a, b);
			switch (segs[g].kind)
			{
			case SEG_EXEC: sw->exec_us += d; break;
			case SEG_FETCH: sw->fetch_us += d; break;
			case SEG_CALLBACK: sw->callback_us += d; break;
			case SEG_SLEEP: sw->sleep_us += d; break;
			case SEG_IDLE: sw->idle_us += d; break;
			default: sw->overhead_us += d; break;
			}
		}
		free(segs);
	}

	if (critical_path(t, s))
		goto nomem;
	double share = t->nworkers ? s->total_work_us / t->nworkers : s->total_work_us;
	s->bound_us = share > s->critical_path_us ? share : s->critical_path_us;
	return 0;
nomem:
	trace_stats_free(s);
	return -ENOMEM;
}

void trace_stats_free(struct trace_stats *s)
{
	free(s->codelets);
	free(s->workers);
	free(s->critical_path);
	memset(s, 0, sizeof(*s));
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

int trace_print_stats(const struct trace *t, FILE *f)
{
	struct trace_stats s;
	int ret = trace_compute_stats(t, &s);
	if (ret)
		return ret;
	char b1[64], b2[64];
	fprintf(f, "Trace: %s\n", t->path);
	fprintf(f, "  program %s on %s, scheduler %s, %u workers, %s time%s\n", t->program ? t->program : "?",
		t->host ? t->host : "?", t->policy ? t->policy : "?", t->nworkers,
		t->flags & TRACE_FILE_SIMULATED ? "simulated" : t->flags & TRACE_FILE_SYNTHETIC ? "synthetic" : "real",
		t->complete ? "" : " (INCOMPLETE)");
	if (!t->complete)
		fprintf(f, "  incomplete: %s\n", t->stop_reason);
	fprintf(f, "  makespan %.3f ms (first submission to last termination), execution window %.3f ms\n",
		s.makespan_us / 1e3, s.exec_window_us / 1e3);
	fprintf(f, "  tasks: %lu (%lu executed, %lu without codelet), %u dependencies\n", s.ntasks, s.nexecuted, s.nnoop,
		t->nedges);

	fprintf(f, "\nPer codelet:\n  %-24s %8s %12s %12s %12s %12s\n", "codelet", "count", "mean (us)", "total (ms)",
		"min (us)", "max (us)");
	for (unsigned c = 0; c < s.ncodelets; c++)
		fprintf(f, "  %-24s %8lu %12.3f %12.3f %12.3f %12.3f\n", s.codelets[c].name, s.codelets[c].n, s.codelets[c].mean_us,
			s.codelets[c].total_us / 1e3, s.codelets[c].min_us, s.codelets[c].max_us);

	fprintf(f, "\nPer worker (share of the makespan):\n  %-14s %7s %8s %8s %9s %8s %9s %9s %11s\n", "worker", "tasks",
		"busy", "fetch", "callback", "idle", "sleeping", "overhead", "busy (ms)");
	for (unsigned w = 0; w < s.nworkers; w++)
	{
		const struct trace_stats_worker *sw = &s.workers[w];
		double whole = s.makespan_us;
		fprintf(f, "  %-14s %7lu %7.1f%% %7.1f%% %8.1f%% %7.1f%% %8.1f%% %8.1f%% %11.3f\n", sw->name, sw->ntasks,
			pct(sw->exec_us, whole), pct(sw->fetch_us, whole), pct(sw->callback_us, whole), pct(sw->idle_us, whole),
			pct(sw->sleep_us, whole), pct(sw->overhead_us, whole), sw->exec_us / 1e3);
	}

	fprintf(f, "\nTransfers per link:\n");
	unsigned shown = 0;
	for (unsigned i = 0; i < t->ntransfers; i++)
	{
		const struct tr_transfer *x = &t->transfers[i];
		int seen = 0;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = t->transfers[j].src == x->src && t->transfers[j].dst == x->dst;
		if (seen)
			continue;
		unsigned long n = 0;
		unsigned long long bytes = 0;
		double busy = 0;
		for (unsigned j = i; j < t->ntransfers; j++)
			if (t->transfers[j].src == x->src && t->transfers[j].dst == x->dst)
			{
				n++;
				bytes += t->transfers[j].bytes;
				busy += dur_us(t->transfers[j].start, t->transfers[j].end);
			}
		fprintf(f, "  %-12s -> %-12s %8lu transfers %14llu bytes %10.1f MB/s while busy\n",
			trace_node_name(t, x->src, b1, sizeof(b1)), trace_node_name(t, x->dst, b2, sizeof(b2)), n, bytes,
			busy > 0 ? (double) bytes / busy : 0.0);
		shown++;
	}
	if (!shown)
		fprintf(f, "  (none)\n");

	/* A rank of a distributed run: its messages per peer. */
	if (t->has_process || t->ncomms)
	{
		if (t->has_process)
			fprintf(f, "\nMessages (rank %d of %u, run %016llx):\n", t->rank, t->nranks, (unsigned long long) t->run_id);
		else
			fprintf(f, "\nMessages:\n");
		for (unsigned i = 0; i < t->ncomms; i++)
		{
			int seen = 0;
			for (unsigned j = 0; j < i && !seen; j++)
				seen = t->comms[j].peer == t->comms[i].peer;
			if (seen)
				continue;
			unsigned long n[2] = { 0, 0 };
			unsigned long long bytes[2] = { 0, 0 };
			double busy[2] = { 0, 0 };
			for (unsigned j = i; j < t->ncomms; j++)
				if (t->comms[j].peer == t->comms[i].peer)
				{
					int k = (t->comms[j].flags & TCF_SEND) != 0;
					n[k]++;
					bytes[k] += t->comms[j].bytes;
					busy[k] += dur_us(t->comms[j].start, t->comms[j].end);
				}
			fprintf(f, "  rank %-4d %8lu sent %14llu bytes %10.3f ms %8lu received %14llu bytes %10.3f ms\n",
				t->comms[i].peer, n[1], bytes[1], busy[1] / 1e3, n[0], bytes[0], busy[0] / 1e3);
		}
		if (!t->ncomms)
			fprintf(f, "  (none)\n");
	}

	fprintf(f, "\nCritical path: %.3f ms over %u tasks", s.critical_path_us / 1e3, s.critical_path_len);
	for (unsigned i = 0; i < s.critical_path_len && i < 12; i++)
	{
		const struct tr_task *k = &t->tasks[s.critical_path[i]];
		fprintf(f, "%s%s %llu", i ? " -> " : " (", k->name, (unsigned long long) k->job);
	}
	fprintf(f, "%s\n", s.critical_path_len > 12 ? " -> ...)" : s.critical_path_len ? ")" : "");
	fprintf(f, "Bound: %.3f ms = max(total work %.3f ms / %u workers, critical path %.3f ms)", s.bound_us / 1e3,
		s.total_work_us / 1e3, t->nworkers, s.critical_path_us / 1e3);
	if (s.bound_us > 0)
		fprintf(f, "; execution window / bound = %.3f", s.exec_window_us / s.bound_us);
	fputc('\n', f);
	trace_stats_free(&s);
	return ferror(f) ? -EIO : 0;
}

static void ratio(FILE *f, double a, double b)
{
	if (a > 0)
		fprintf(f, " %9.3f", b / a);
	else
		fprintf(f, " %9s", "-");
}

int trace_print_diff(const struct trace *ta, const struct trace *tb, FILE *f)
{
	struct trace_stats a, b;
	int ret = trace_compute_stats(ta, &a);
	if (ret)
		return ret;
	if ((ret = trace_compute_stats(tb, &b)))
	{
		trace_stats_free(&a);
		return ret;
	}
	fprintf(f, "A: %s (%s time, %u workers)\nB: %s (%s time, %u workers)\n\n", ta->path,
		ta->flags & TRACE_FILE_SIMULATED ? "simulated" : "real", ta->nworkers, tb->path,
		tb->flags & TRACE_FILE_SIMULATED ? "simulated" : "real", tb->nworkers);
	fprintf(f, "%-28s %14s %14s %9s\n", "", "A", "B", "B/A");
	fprintf(f, "%-28s %14.3f %14.3f", "makespan (ms)", a.makespan_us / 1e3, b.makespan_us / 1e3);
	ratio(f, a.makespan_us, b.makespan_us);
	fprintf(f, "\n%-28s %14.3f %14.3f", "execution window (ms)", a.exec_window_us / 1e3, b.exec_window_us / 1e3);
	ratio(f, a.exec_window_us, b.exec_window_us);
	fprintf(f, "\n%-28s %14.3f %14.3f", "total work (ms)", a.total_work_us / 1e3, b.total_work_us / 1e3);
	ratio(f, a.total_work_us, b.total_work_us);
	fprintf(f, "\n%-28s %14.3f %14.3f", "critical path (ms)", a.critical_path_us / 1e3, b.critical_path_us / 1e3);
	ratio(f, a.critical_path_us, b.critical_path_us);
	fprintf(f, "\n%-28s %14lu %14lu\n", "tasks", a.ntasks, b.ntasks);

	fprintf(f, "\nPer codelet: %-15s %8s %8s %12s %12s %9s\n", "", "count A", "count B", "mean A (us)", "mean B (us)", "B/A");
	for (unsigned i = 0; i < a.ncodelets; i++)
	{
		const struct trace_stats_codelet *ca = &a.codelets[i], *cb = NULL;
		for (unsigned j = 0; j < b.ncodelets; j++)
			if (strcmp(b.codelets[j].name, ca->name) == 0)
				cb = &b.codelets[j];
		fprintf(f, "  %-25s %8lu %8lu %12.3f %12.3f", ca->name, ca->n, cb ? cb->n : 0, ca->mean_us, cb ? cb->mean_us : 0.0);
		ratio(f, ca->mean_us, cb ? cb->mean_us : 0);
		fputc('\n', f);
	}
	for (unsigned j = 0; j < b.ncodelets; j++)
	{
		int found = 0;
		for (unsigned i = 0; i < a.ncodelets; i++)
			found |= strcmp(a.codelets[i].name, b.codelets[j].name) == 0;
		if (!found)
			fprintf(f, "  %-25s %8d %8lu %12s %12.3f %9s\n", b.codelets[j].name, 0, b.codelets[j].n, "-", b.codelets[j].mean_us, "-");
	}

	fprintf(f, "\nPer worker:  %-15s %8s %8s %12s %12s %9s\n", "", "tasks A", "tasks B", "busy A (ms)", "busy B (ms)", "B/A");
	for (unsigned i = 0; i < a.nworkers; i++)
	{
		const struct trace_stats_worker *wa = &a.workers[i], *wb = NULL;
		for (unsigned j = 0; j < b.nworkers; j++)
			if (strcmp(b.workers[j].name, wa->name) == 0)
				wb = &b.workers[j];
		fprintf(f, "  %-25s %8lu %8lu %12.3f %12.3f", wa->name, wa->ntasks, wb ? wb->ntasks : 0, wa->exec_us / 1e3,
			wb ? wb->exec_us / 1e3 : 0.0);
		ratio(f, wa->exec_us, wb ? wb->exec_us : 0);
		fputc('\n', f);
	}
	for (unsigned j = 0; j < b.nworkers; j++)
	{
		int found = 0;
		for (unsigned i = 0; i < a.nworkers; i++)
			found |= strcmp(a.workers[i].name, b.workers[j].name) == 0;
		if (!found)
			fprintf(f, "  %-25s %8d %8lu %12s %12.3f %9s\n", b.workers[j].name, 0, b.workers[j].ntasks, "-",
				b.workers[j].exec_us / 1e3, "-");
	}
	trace_stats_free(&a);
	trace_stats_free(&b);
	return ferror(f) ? -EIO : 0;
}
