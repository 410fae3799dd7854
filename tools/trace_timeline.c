/* trace_timeline.c — what the timeline views share (trace_reader.h): the
 * span of a trace, each worker's activity flattened into segments that do
 * not overlap, and the colors and names of what is drawn. Split from
 * trace_reader.c, which loads the file.
 */
#include "trace_reader.h"
#include "trace/trace_format.h"

#include <stdlib.h>
#include <string.h>

/* Growable arrays. */
#define PUSH(arr, n, cap, val) do { \
	if ((n) == (cap)) { \
		size_t c_ = (cap) ? (size_t) (cap) * 2 : 64; \
		void *p_ = realloc((arr), c_ * sizeof(*(arr))); \
		if (!p_) goto nomem; \
		(arr) = p_; \
		(cap) = (unsigned) c_; \
	} \
	(arr)[(n)++] = (val); \
} while (0)

/* qsort, which may not be given a NULL array even when empty. */
static void sort_n(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

void trace_span(const struct trace *t, uint64_t *first, uint64_t *last)
{
	uint64_t a = UINT64_MAX, b = 0;
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		uint64_t s = k->submit ? k->submit : (k->exec_start ? k->exec_start : k->end);
		if (s < a)
			a = s;
		if (k->end > b)
			b = k->end;
	}
	if (a == UINT64_MAX)
		a = 0;
	*first = a;
	*last = b;
}

/* ------------------------------------------------------------------ */
/* Worker timelines: the highest-priority state at each instant. */

struct span
{
	uint64_t start, end;
	int prio;
	enum tr_seg_kind kind;
	int task;
};

struct edge
{
	uint64_t time;
	int open;	/* 1 open, 0 close */
	unsigned span;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->open != y->open)
		return x->open - y->open;	/* closes first */
	return x->span < y->span ? -1 : x->span > y->span;
}

static int seg_prio(enum tr_seg_kind k)
{
	switch (k)
	{
	case SEG_EXEC: return 5;
	case SEG_CALLBACK: return 4;
	case SEG_FETCH: return 3;
	case SEG_SLEEP: return 2;
	case SEG_IDLE: return 1;
	default: return 0;
	}
}

int trace_worker_timeline(const struct trace *t, int wid, uint64_t end, struct tr_segment **out)
{
	struct span *sp = NULL;
	unsigned nsp = 0, capsp = 0;
	struct edge *ev = NULL;
	struct tr_segment *segs = NULL;
	unsigned nseg = 0, capseg = 0;
	int *active = NULL;
	unsigned nactive = 0;

	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		if (k->worker != wid || !(k->flags & TTF_EXECUTED))
			continue;
		if (k->exec_start > k->pop_end)
			PUSH(sp, nsp, capsp, ((struct span) { k->pop_end, k->exec_start, seg_prio(SEG_FETCH), SEG_FETCH, (int) i }));
		PUSH(sp, nsp, capsp, ((struct span) { k->exec_start, k->exec_end, seg_prio(SEG_EXEC), SEG_EXEC, (int) i }));
	}
	for (unsigned i = 0; i < t->nstates; i++)
	{
		const struct tr_state *s = &t->states[i];
		if (s->worker != wid)
			continue;
		enum tr_seg_kind kind = s->state == TS_SLEEP ? SEG_SLEEP : s->state == TS_IDLE ? SEG_IDLE :
			s->state == TS_FETCH ? SEG_FETCH : s->state == TS_CALLBACK ? SEG_CALLBACK : SEG_OVERHEAD;
		int task = s->job ? trace_find_task(t, s->job) : -1;
		PUSH(sp, nsp, capsp, ((struct span) { s->start, s->end, seg_prio(kind), kind, task }));
	}
	ev = malloc((2 * nsp + 1) * sizeof(*ev));
	active = malloc((nsp + 1) * sizeof(*active));
	if (!ev || !active)
		goto nomem;
	for (unsigned i = 0; i < nsp; i++)
	{
		ev[2 * i] = (struct edge) { sp[i].start, 1, i };
		ev[2 * i + 1] = (struct edge) { sp[i].end, 0, i };
	}
	sort_n(ev, 2 * nsp, sizeof(*ev), cmp_edge);
	uint64_t cur = 0;
	for (unsigned e = 0; e <= 2 * nsp; e++)
	{
		uint64_t time = e < 2 * nsp ? ev[e].time : end;
		if (time > end)
			time = end;
		if (time > cur)
		{
			/* [cur, time): the best active span, or overhead. */
			int best = -1;
			for (unsigned a = 0; a < nactive; a++)
				if (best < 0 || sp[active[a]].prio > sp[best].prio)
					best = active[a];
			enum tr_seg_kind kind = best >= 0 ? sp[best].kind : SEG_OVERHEAD;
			int task = best >= 0 ? sp[best].task : -1;
			if (nseg && segs[nseg - 1].kind == kind && segs[nseg - 1].task == task && segs[nseg - 1].end == cur)
				segs[nseg - 1].end = time;
			else
				PUSH(segs, nseg, capseg, ((struct tr_segment) { cur, time, kind, task }));
			cur = time;
		}
		if (e == 2 * nsp)
			break;
		if (ev[e].open)
			active[nactive++] = (int) ev[e].span;
		else
			for (unsigned a = 0; a < nactive; a++)
				if (active[a] == (int) ev[e].span)
				{
					active[a] = active[--nactive];
					break;
				}
	}
	free(sp);
	free(ev);
	free(active);
	*out = segs;
	return (int) nseg;

nomem:
	free(sp);
	free(ev);
	free(active);
	free(segs);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Colors. */

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#2f4b7c", "#a05195", "#665191",
};

const char *trace_codelet_color(unsigned i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

const char *trace_seg_color(enum tr_seg_kind k)
{
	switch (k)
	{
	case SEG_FETCH: return "#c9b3e6";
	case SEG_CALLBACK: return "#8e6c8a";
	case SEG_SLEEP: return "#bdbdbd";
	case SEG_IDLE: return "#e6e6e6";
	case SEG_OVERHEAD: return "#f4cccc";
	default: return "#4e79a7";
	}
}

const char *trace_seg_name(enum tr_seg_kind k)
{
	switch (k)
	{
	case SEG_EXEC: return "Executing";
	case SEG_FETCH: return "Fetching input";
	case SEG_CALLBACK: return "Callback";
	case SEG_SLEEP: return "Sleeping";
	case SEG_IDLE: return "Idle";
	case SEG_OVERHEAD: return "Overhead";
	default: return "?";
	}
}
