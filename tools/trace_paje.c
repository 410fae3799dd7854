/* trace_paje.c — a trace in the Paje format, which ViTE (and pajeng)
 * open: the container hierarchy machine → memory nodes → workers (as in
 * StarPU's paje.trace), one state per worker at each instant (the codelet
 * it executes, or fetching input, callback, idle, sleeping, overhead),
 * links between memory nodes for transfers, user events, and the memory
 * allocated on each node as a variable. Times are milliseconds.
 *
 * Paje wants events in time order; they are collected, then sorted.
 */
#define _GNU_SOURCE
#include "trace_reader.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum
{
	EV_DEF_CONTAINER = 0,
	EV_DEF_STATE,
	EV_DEF_EVENT,
	EV_DEF_LINK,
	EV_DEF_VARIABLE,
	EV_DEF_VALUE,
	EV_CREATE,
	EV_DESTROY,
	EV_SET_STATE,
	EV_NEW_EVENT,
	EV_START_LINK,
	EV_END_LINK,
	EV_SET_VARIABLE
};

static const char header[] =
	"%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
	"%EventDef PajeDefineStateType 1\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
	"%EventDef PajeDefineEventType 2\n%       Alias string\n%       Type string\n%       Name string\n%EndEventDef\n"
	"%EventDef PajeDefineLinkType 3\n%       Alias string\n%       Type string\n%       StartContainerType string\n"
	"%       EndContainerType string\n%       Name string\n%EndEventDef\n"
	"%EventDef PajeDefineVariableType 4\n%       Alias string\n%       Type string\n%       Name string\n%       Color color\n%EndEventDef\n"
	"%EventDef PajeDefineEntityValue 5\n%       Alias string\n%       Type string\n%       Name string\n%       Color color\n%EndEventDef\n"
	"%EventDef PajeCreateContainer 6\n%       Time date\n%       Alias string\n%       Type string\n%       Container string\n"
	"%       Name string\n%EndEventDef\n"
	"%EventDef PajeDestroyContainer 7\n%       Time date\n%       Type string\n%       Name string\n%EndEventDef\n"
	"%EventDef PajeSetState 8\n%       Time date\n%       Container string\n%       Type string\n%       Value string\n%EndEventDef\n"
	"%EventDef PajeNewEvent 9\n%       Time date\n%       Container string\n%       Type string\n%       Value string\n%EndEventDef\n"
	"%EventDef PajeStartLink 10\n%       Time date\n%       Container string\n%       Type string\n%       StartContainer string\n"
	"%       Value string\n%       Key string\n%EndEventDef\n"
	"%EventDef PajeEndLink 11\n%       Time date\n%       Container string\n%       Type string\n%       EndContainer string\n"
	"%       Value string\n%       Key string\n%EndEventDef\n"
	"%EventDef PajeSetVariable 12\n%       Time date\n%       Container string\n%       Type string\n%       Value double\n%EndEventDef\n";

struct line
{
	uint64_t time;
	unsigned long seq;
	char *text;
};

struct lines
{
	struct line *v;
	unsigned long n, cap;
	int failed;
};

static void add(struct lines *l, uint64_t time, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void add(struct lines *l, uint64_t time, const char *fmt, ...)
{
	if (l->failed)
		return;
	if (l->n == l->cap)
	{
		unsigned long c = l->cap ? l->cap * 2 : 1024;
		struct line *v = realloc(l->v, c * sizeof(*v));
		if (!v)
		{
			l->failed = 1;
			return;
		}
		l->v = v;
		l->cap = c;
	}
	va_list ap;
	va_start(ap, fmt);
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
	{
		l->failed = 1;
		va_end(ap);
		return;
	}
	va_end(ap);
	l->v[l->n].time = time;
	l->v[l->n].seq = l->n;
	l->v[l->n].text = s;
	l->n++;
}

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static double ms(uint64_t ns)
{
	return (double) ns / 1e6;
}

/* Paje strings are quoted; quotes inside are replaced. */
static const char *q(const char *s, char *buf, size_t len)
{
	size_t i = 0;
	for (; s && *s && i + 1 < len; s++)
		buf[i++] = *s == '"' ? '\'' : (*s == '\n' ? ' ' : *s);
	buf[i] = 0;
	return buf;
}

/* "#rrggbb" as Paje's "r g b" in [0, 1]. */
static const char *pcolor(const char *hex, char *buf, size_t len)
{
	unsigned r = 0, g = 0, b = 0;
	sscanf(hex + 1, "%2x%2x%2x", &r, &g, &b);
	snprintf(buf, len, "%.3f %.3f %.3f", r / 255.0, g / 255.0, b / 255.0);
	return buf;
}

static const char *seg_alias(enum tr_seg_kind k)
{
	switch (k)
	{
	case SEG_FETCH: return "Fi";
	case SEG_CALLBACK: return "Cb";
	case SEG_SLEEP: return "Sl";
	case SEG_IDLE: return "I";
	default: return "O";
	}
}

int trace_export_paje(const struct trace *t, FILE *f)
{
	struct lines l = { 0 };
	char b1[256], b2[64], col[64];
	uint64_t first, last;
	trace_span(t, &first, &last);
	if (t->end_time > last)
		last = t->end_time;

	fputs("# Vela trace in the Paje format (open with ViTE); times in ms\n", f);
	fputs(header, f);
	/* Types. */
	fprintf(f, "%d MT 0 \"Machine\"\n", EV_DEF_CONTAINER);
	fprintf(f, "%d MN MT \"Memory node\"\n", EV_DEF_CONTAINER);
	fprintf(f, "%d W MN \"Worker\"\n", EV_DEF_CONTAINER);
	fprintf(f, "%d AT MT \"Application\"\n", EV_DEF_CONTAINER);
	fprintf(f, "%d S W \"Worker State\"\n", EV_DEF_STATE);
	fprintf(f, "%d UE W \"User event\"\n", EV_DEF_EVENT);
	fprintf(f, "%d AUE AT \"Application user event\"\n", EV_DEF_EVENT);
	fprintf(f, "%d L MT MN MN \"Transfer\"\n", EV_DEF_LINK);
	fprintf(f, "%d use MN \"Memory allocated (MiB)\" \"1 0 0\"\n", EV_DEF_VARIABLE);
	for (unsigned c = 0; c < t->ncodelets; c++)
		fprintf(f, "%d c%u S \"%s\" \"%s\"\n", EV_DEF_VALUE, c, q(t->codelets[c], b1, sizeof(b1)),
			pcolor(trace_codelet_color(c), col, sizeof(col)));
	for (int k = SEG_FETCH; k < SEG_NKINDS; k++)
		fprintf(f, "%d %s S \"%s\" \"%s\"\n", EV_DEF_VALUE, seg_alias((enum tr_seg_kind) k),
			trace_seg_name((enum tr_seg_kind) k), pcolor(trace_seg_color((enum tr_seg_kind) k), col, sizeof(col)));

	/* Containers, at time 0. */
	add(&l, 0, "%d %.6f m MT 0 \"%s\"", EV_CREATE, 0.0, q(t->host && *t->host ? t->host : "machine", b1, sizeof(b1)));
	for (unsigned i = 0; i < t->nnodes; i++)
		add(&l, 0, "%d %.6f n%u MN m \"%s\"", EV_CREATE, 0.0, t->nodes[i].id,
		    q(trace_node_name(t, t->nodes[i].id, b2, sizeof(b2)), b1, sizeof(b1)));
	for (unsigned i = 0; i < t->nworkers; i++)
		add(&l, 0, "%d %.6f w%d W n%u \"%s\"", EV_CREATE, 0.0, t->workers[i].id, t->workers[i].node,
		    q(t->workers[i].name, b1, sizeof(b1)));
	add(&l, 0, "%d %.6f app AT m \"Application\"", EV_CREATE, 0.0);

	/* Worker states. */
	for (unsigned i = 0; i < t->nworkers; i++)
	{
		struct tr_segment *segs;
		int n = trace_worker_timeline(t, t->workers[i].id, last, &segs);
		if (n < 0)
			return -ENOMEM;
		for (int s = 0; s < n; s++)
		{
			const struct tr_segment *g = &segs[s];
			if (g->kind == SEG_EXEC)
				add(&l, g->start, "%d %.6f w%d S c%d", EV_SET_STATE, ms(g->start), t->workers[i].id,
				    t->tasks[g->task].codelet_index);
			else
				add(&l, g->start, "%d %.6f w%d S %s", EV_SET_STATE, ms(g->start), t->workers[i].id, seg_alias(g->kind));
		}
		free(segs);
	}

	/* Transfers. */
	for (unsigned i = 0; i < t->ntransfers; i++)
	{
		const struct tr_transfer *x = &t->transfers[i];
		add(&l, x->start, "%d %.6f m L n%u \"%llu\" t%u", EV_START_LINK, ms(x->start), x->src, (unsigned long long) x->bytes, i);
		add(&l, x->end, "%d %.6f m L n%u \"%llu\" t%u", EV_END_LINK, ms(x->end), x->dst, (unsigned long long) x->bytes, i);
	}

	/* User events. */
	for (unsigned i = 0; i < t->nusers; i++)
	{
		const struct tr_user *u = &t->users[i];
		char v[64];
		if (!u->str)
			snprintf(v, sizeof(v), "%llu", (unsigned long long) u->code);
		int on_worker = u->worker >= 0 && trace_worker(t, u->worker);
		if (on_worker)
			add(&l, u->time, "%d %.6f w%d UE \"%s\"", EV_NEW_EVENT, ms(u->time), u->worker, q(u->str ? u->str : v, b1, sizeof(b1)));
		else
			add(&l, u->time, "%d %.6f app AUE \"%s\"", EV_NEW_EVENT, ms(u->time), q(u->str ? u->str : v, b1, sizeof(b1)));
	}

	/* Memory allocated per node. */
	double used[256] = { 0 };
	for (unsigned i = 0; i < t->nmems; i++)
	{
		const struct tr_mem *m = &t->mems[i];
		if (m->node >= 256)
			continue;
		used[m->node] += (m->op == TM_ALLOC ? 1.0 : -1.0) * (double) m->bytes / 1048576.0;
		add(&l, m->time, "%d %.6f n%u use %.6f", EV_SET_VARIABLE, ms(m->time), m->node, used[m->node]);
	}

	/* Everything ends with the trace. */
	for (unsigned i = 0; i < t->nworkers; i++)
		add(&l, last, "%d %.6f W w%d", EV_DESTROY, ms(last), t->workers[i].id);
	add(&l, last, "%d %.6f AT app", EV_DESTROY, ms(last));
	for (unsigned i = 0; i < t->nnodes; i++)
		add(&l, last, "%d %.6f MN n%u", EV_DESTROY, ms(last), t->nodes[i].id);
	add(&l, last, "%d %.6f MT m", EV_DESTROY, ms(last));

	if (l.failed)
	{
		for (unsigned long i = 0; i < l.n; i++)
			free(l.v[i].text);
		free(l.v);
		return -ENOMEM;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), cmp_line);
	for (unsigned long i = 0; i < l.n; i++)
	{
		fputs(l.v[i].text, f);
		fputc('\n', f);
		free(l.v[i].text);
	}
	free(l.v);
	return ferror(f) ? -EIO : 0;
}
