/* trace_paje.c — a trace in the Paje format, which ViTE (and pajeng)
 * open: the container hierarchy machine → memory nodes → workers (as in
 * StarPU's paje.trace), one state per worker at each instant (the codelet
 * it executes, or fetching input, callback, idle, sleeping, overhead),
 * links between memory nodes for transfers, user events, and the memory
 * allocated on each node as a variable; the messages of a rank of a
 * distributed run as events of a "Messages" container. The ranks of a run
 * merged (trace_merge.c): a machine container per rank (aliases prefixed
 * r<rank>_) and a link from the sender's to the receiver's for each
 * message. Times are milliseconds.
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

/* One trace's containers and events: its machine container (alias
 * px "m", in parent, named name) holding its memory nodes, workers, the
 * application and, when the trace has messages, a container for them.
 * cmap[i] is the value index of the trace's codelet i. */
static int emit_trace(struct lines *l, const struct trace *t, const char *px, const char *name, const unsigned *cmap,
		      uint64_t last)
{
	char b1[256], b2[64];
	/* Containers, at time 0. */
	add(l, 0, "%d %.6f %sm MT 0 \"%s\"", EV_CREATE, 0.0, px, q(name, b1, sizeof(b1)));
	for (unsigned i = 0; i < t->nnodes; i++)
		add(l, 0, "%d %.6f %sn%u MN %sm \"%s\"", EV_CREATE, 0.0, px, t->nodes[i].id, px,
		    q(trace_node_name(t, t->nodes[i].id, b2, sizeof(b2)), b1, sizeof(b1)));
	for (unsigned i = 0; i < t->nworkers; i++)
		add(l, 0, "%d %.6f %sw%d W %sn%u \"%s\"", EV_CREATE, 0.0, px, t->workers[i].id, px, t->workers[i].node,
		    q(t->workers[i].name, b1, sizeof(b1)));
	add(l, 0, "%d %.6f %sapp AT %sm \"Application\"", EV_CREATE, 0.0, px, px);
	if (t->ncomms)
		add(l, 0, "%d %.6f %smsg MC %sm \"Messages\"", EV_CREATE, 0.0, px, px);

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
			{
				int c = t->tasks[g->task].codelet_index;
				add(l, g->start, "%d %.6f %sw%d S c%d", EV_SET_STATE, ms(g->start), px, t->workers[i].id,
				    c >= 0 ? (int) cmap[c] : -1);
			}
			else
				add(l, g->start, "%d %.6f %sw%d S %s", EV_SET_STATE, ms(g->start), px, t->workers[i].id,
				    seg_alias(g->kind));
		}
		free(segs);
	}

	/* Transfers. */
	for (unsigned i = 0; i < t->ntransfers; i++)
	{
		const struct tr_transfer *x = &t->transfers[i];
		add(l, x->start, "%d %.6f %sm L %sn%u \"%llu\" %st%u", EV_START_LINK, ms(x->start), px, px, x->src,
		    (unsigned long long) x->bytes, px, i);
		add(l, x->end, "%d %.6f %sm L %sn%u \"%llu\" %st%u", EV_END_LINK, ms(x->end), px, px, x->dst,
		    (unsigned long long) x->bytes, px, i);
	}

	/* Messages, as events where they start (sends) or end (receives). */
	for (unsigned i = 0; i < t->ncomms; i++)
	{
		const struct tr_comm *c = &t->comms[i];
		int send = (c->flags & TCF_SEND) != 0;
		uint64_t when = send ? c->start : c->end;
		add(l, when, "%d %.6f %smsg %s \"%s rank %d, tag %lld, %llu bytes\"", EV_NEW_EVENT, ms(when), px,
		    send ? "MS" : "MR", send ? "send to" : "received from", c->peer, (long long) c->tag,
		    (unsigned long long) c->bytes);
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
			add(l, u->time, "%d %.6f %sw%d UE \"%s\"", EV_NEW_EVENT, ms(u->time), px, u->worker,
			    q(u->str ? u->str : v, b1, sizeof(b1)));
		else
			add(l, u->time, "%d %.6f %sapp AUE \"%s\"", EV_NEW_EVENT, ms(u->time), px, q(u->str ? u->str : v, b1, sizeof(b1)));
	}

	/* Memory allocated per node. */
	double used[256] = { 0 };
	for (unsigned i = 0; i < t->nmems; i++)
	{
		const struct tr_mem *m = &t->mems[i];
		if (m->node >= 256)
			continue;
		used[m->node] += (m->op == TM_ALLOC ? 1.0 : -1.0) * (double) m->bytes / 1048576.0;
		add(l, m->time, "%d %.6f %sn%u use %.6f", EV_SET_VARIABLE, ms(m->time), px, m->node, used[m->node]);
	}

	/* Everything ends with the trace. */
	for (unsigned i = 0; i < t->nworkers; i++)
		add(l, last, "%d %.6f W %sw%d", EV_DESTROY, ms(last), px, t->workers[i].id);
	add(l, last, "%d %.6f AT %sapp", EV_DESTROY, ms(last), px);
	if (t->ncomms)
		add(l, last, "%d %.6f MC %smsg", EV_DESTROY, ms(last), px);
	for (unsigned i = 0; i < t->nnodes; i++)
		add(l, last, "%d %.6f MN %sn%u", EV_DESTROY, ms(last), px, t->nodes[i].id);
	add(l, last, "%d %.6f MT %sm", EV_DESTROY, ms(last), px);
	return 0;
}

/* The header's types; messages (MC, its events) only when any trace has
 * some, links between ranks only in a merged timeline. */
static void emit_types(FILE *f, const char *const *codelets, unsigned ncodelets, int messages, int merged)
{
	char b1[256], col[64];
	fputs("# Vela trace in the Paje format (open with ViTE); times in ms\n", f);
	fputs(header, f);
	fprintf(f, "%d MT 0 \"Machine\"\n", EV_DEF_CONTAINER);
	fprintf(f, "%d MN MT \"Memory node\"\n", EV_DEF_CONTAINER);
	fprintf(f, "%d W MN \"Worker\"\n", EV_DEF_CONTAINER);
	fprintf(f, "%d AT MT \"Application\"\n", EV_DEF_CONTAINER);
	if (messages)
		fprintf(f, "%d MC MT \"Messages\"\n", EV_DEF_CONTAINER);
	fprintf(f, "%d S W \"Worker State\"\n", EV_DEF_STATE);
	fprintf(f, "%d UE W \"User event\"\n", EV_DEF_EVENT);
	fprintf(f, "%d AUE AT \"Application user event\"\n", EV_DEF_EVENT);
	if (messages)
	{
		fprintf(f, "%d MS MC \"Send\"\n", EV_DEF_EVENT);
		fprintf(f, "%d MR MC \"Receive\"\n", EV_DEF_EVENT);
	}
	fprintf(f, "%d L MT MN MN \"Transfer\"\n", EV_DEF_LINK);
	if (merged)
		fprintf(f, "%d ML 0 MT MT \"Message\"\n", EV_DEF_LINK);
	fprintf(f, "%d use MN \"Memory allocated (MiB)\" \"1 0 0\"\n", EV_DEF_VARIABLE);
	for (unsigned c = 0; c < ncodelets; c++)
		fprintf(f, "%d c%u S \"%s\" \"%s\"\n", EV_DEF_VALUE, c, q(codelets[c], b1, sizeof(b1)),
			pcolor(trace_codelet_color(c), col, sizeof(col)));
	for (int k = SEG_FETCH; k < SEG_NKINDS; k++)
		fprintf(f, "%d %s S \"%s\" \"%s\"\n", EV_DEF_VALUE, seg_alias((enum tr_seg_kind) k),
			trace_seg_name((enum tr_seg_kind) k), pcolor(trace_seg_color((enum tr_seg_kind) k), col, sizeof(col)));
}

/* Sorts and writes the lines (freed), or frees them on failure. */
static int flush_lines(struct lines *l, FILE *f, int ret)
{
	if (!ret && l->failed)
		ret = -ENOMEM;
	if (!ret && l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp_line);
	for (unsigned long i = 0; i < l->n; i++)
	{
		if (!ret)
		{
			fputs(l->v[i].text, f);
			fputc('\n', f);
		}
		free(l->v[i].text);
	}
	free(l->v);
	if (ret)
		return ret;
	return ferror(f) ? -EIO : 0;
}

int trace_export_paje(const struct trace *t, FILE *f)
{
	struct lines l = { 0 };
	uint64_t first, last;
	trace_span(t, &first, &last);
	if (t->end_time > last)
		last = t->end_time;
	emit_types(f, t->codelets, t->ncodelets, t->ncomms > 0, 0);
	unsigned *cmap = malloc((t->ncodelets ? t->ncodelets : 1) * sizeof(*cmap));
	if (!cmap)
		return -ENOMEM;
	for (unsigned c = 0; c < t->ncodelets; c++)
		cmap[c] = c;
	int ret = emit_trace(&l, t, "", t->host && *t->host ? t->host : "machine", cmap, last);
	free(cmap);
	return flush_lines(&l, f, ret);
}

int trace_export_paje_merged(const struct trace_merge *m, FILE *f)
{
	struct lines l = { 0 };
	/* Codelets of all ranks, each named once. */
	unsigned total = 0, messages = 0;
	for (unsigned r = 0; r < m->nranks; r++)
	{
		total += m->ranks[r].ncodelets;
		messages += m->ranks[r].ncomms;
	}
	const char **names = malloc((total ? total : 1) * sizeof(*names));
	unsigned **cmaps = calloc(m->nranks, sizeof(*cmaps));
	unsigned n = 0;
	int ret = names && cmaps ? 0 : -ENOMEM;
	for (unsigned r = 0; r < m->nranks && !ret; r++)
	{
		const struct trace *t = &m->ranks[r];
		cmaps[r] = malloc((t->ncodelets ? t->ncodelets : 1) * sizeof(**cmaps));
		if (!cmaps[r])
		{
			ret = -ENOMEM;
			break;
		}
		for (unsigned c = 0; c < t->ncodelets; c++)
		{
			unsigned k;
			for (k = 0; k < n && strcmp(names[k], t->codelets[c]); k++)
				;
			if (k == n)
				names[n++] = t->codelets[c];
			cmaps[r][c] = k;
		}
	}
	if (!ret)
	{
		emit_types(f, names, n, messages > 0, 1);
		uint64_t last = m->end_time;
		for (unsigned r = 0; r < m->nranks; r++)
		{
			uint64_t first, lr;
			trace_span(&m->ranks[r], &first, &lr);
			if (lr > last)
				last = lr;
		}
		for (unsigned r = 0; r < m->nranks && !ret; r++)
		{
			const struct trace *t = &m->ranks[r];
			char px[24], name[160];
			snprintf(px, sizeof(px), "r%u_", r);
			snprintf(name, sizeof(name), "rank %u (%s)", r, t->host && *t->host ? t->host : "machine");
			ret = emit_trace(&l, t, px, name, cmaps[r], last);
		}
		/* Messages as links from the sender's machine to the
		 * receiver's, from the send's start to the receive's end. */
		for (unsigned i = 0; i < m->nlinks && !ret; i++)
		{
			const struct tr_link *k = &m->links[i];
			const struct tr_comm *s = &m->ranks[k->send_rank].comms[k->send], *q = &m->ranks[k->recv_rank].comms[k->recv];
			uint64_t end = q->end > s->start ? q->end : s->start;
			add(&l, s->start, "%d %.6f 0 ML r%u_m \"%llu\" msg%u", EV_START_LINK, ms(s->start), k->send_rank,
			    (unsigned long long) s->bytes, i);
			add(&l, end, "%d %.6f 0 ML r%u_m \"%llu\" msg%u", EV_END_LINK, ms(end), k->recv_rank,
			    (unsigned long long) s->bytes, i);
		}
	}
	if (cmaps)
		for (unsigned r = 0; r < m->nranks; r++)
			free(cmaps[r]);
	free(cmaps);
	free(names);
	return flush_lines(&l, f, ret);
}
