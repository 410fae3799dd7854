/* trace_merge.c — the traces of the ranks of one distributed run merged
 * into one timeline (trace_reader.h, struct trace_merge).
 *
 * What a merge needs is in the per-rank files (runtime/trace/trace_format.h):
 * TR_PROCESS (run id, rank, number of ranks), TR_CLOCK (this clock against
 * the reference rank's) and TR_COMM (each message, keyed by sender,
 * receiver, channel, tag and sequence number). Nothing here depends on how
 * the files were produced: a real run over MPI and a simulated one write
 * the same records (a simulated run's ranks share one clock: TR_CLOCK with
 * local == ref, or none).
 *
 * Clocks: each rank's times are mapped onto rank 0's through its TR_CLOCK
 * points — an offset with one point, an offset and a drift (through the
 * first and last) with more — then every rank is shifted so that the
 * earliest origin is time 0. A trace with no point keeps its times (a
 * simulated run), with a note.
 *
 * Links: a send and a receive with the same key are one message; when a
 * key occurs more than once (two communicators the channel id cannot tell
 * apart), the k-th send pairs with the k-th receive in time order. A
 * message whose other side is absent (a truncated trace) is counted
 * unmatched; a receive that ends before its send started by more than the
 * two clocks' error bounds is counted inconsistent, with the worst gap.
 */
#include "trace_reader.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t len, const char *fmt, ...)
{
	if (!err || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static void add_note(struct trace_merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_note(struct trace_merge *m, const char *fmt, ...)
{
	size_t used = strlen(m->notes);
	if (used + 2 >= sizeof(m->notes))
		return;
	if (used)
		m->notes[used++] = '\n';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->notes + used, sizeof(m->notes) - used, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* Clocks. */

/* Fits rank r's map local -> reference from its clock points. */
static void fit_clock(struct trace_merge *m, unsigned r)
{
	const struct trace *t = &m->ranks[r];
	struct tr_rank_clock *c = &m->clocks[r];
	c->drift = 1.0;
	c->offset_ns = 0;
	c->err_ns = 0;
	c->nsync = 0;
	const struct tr_clock *first = NULL, *last = NULL;
	for (unsigned i = 0; i < t->nclocks; i++)
	{
		const struct tr_clock *k = &t->clocks[i];
		if (k->ref_rank != 0)
			continue;
		if (!first)
			first = k;
		last = k;
		c->nsync++;
		if (k->err > c->err_ns)
			c->err_ns = k->err;
	}
	if (!first)
	{
		if (r != 0 && !(t->flags & TRACE_FILE_SIMULATED))
			add_note(m, "'%s' (rank %u) has no clock synchronisation with rank 0: its times are taken as they are",
				 t->path, r);
		return;
	}
	if (last != first && last->local > first->local)
	{
		double drift = ((double) last->ref - (double) first->ref) / ((double) last->local - (double) first->local);
		/* Clocks differ by parts per million (a TSC calibrated in
		 * each process on a loaded machine: up to a few hundred);
		 * beyond 2% a point is wrong, not the rate. */
		if (drift > 0.98 && drift < 1.02)
			c->drift = drift;
		else
			add_note(m, "'%s' (rank %u): clock points imply a rate of %.6f against rank 0; using the offset only",
				 t->path, r, drift);
	}
	c->offset_ns = (double) first->ref - c->drift * (double) first->local;
}

static double map_time(const struct tr_rank_clock *c, uint64_t local)
{
	return c->offset_ns + c->drift * (double) local;
}

/* Times on the merged clock; 0 stays 0 ("not observed"). */
static uint64_t retime1(const struct tr_rank_clock *c, double origin, uint64_t v)
{
	if (!v)
		return 0;
	double g = map_time(c, v) - origin;
	return g < 1 ? 1 : (uint64_t) llround(g);
}

static void retime(struct trace *t, const struct tr_rank_clock *c, double origin)
{
#define RT(x) ((x) = retime1(c, origin, (x)))
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		struct tr_task *k = &t->tasks[i];
		RT(k->submit);
		RT(k->push);
		RT(k->pop_start);
		RT(k->pop_end);
		RT(k->exec_start);
		RT(k->exec_end);
		RT(k->end);
	}
	for (unsigned i = 0; i < t->nstates; i++)
	{
		RT(t->states[i].start);
		RT(t->states[i].end);
	}
	for (unsigned i = 0; i < t->ntransfers; i++)
	{
		RT(t->transfers[i].start);
		RT(t->transfers[i].end);
	}
	for (unsigned i = 0; i < t->nmems; i++)
		RT(t->mems[i].time);
	for (unsigned i = 0; i < t->nusers; i++)
		RT(t->users[i].time);
	for (unsigned i = 0; i < t->ncomms; i++)
	{
		RT(t->comms[i].submit);
		RT(t->comms[i].start);
		RT(t->comms[i].end);
	}
	RT(t->end_time);
#undef RT
}

/* ------------------------------------------------------------------ */
/* Links. */

struct side
{
	int sender, receiver;
	uint64_t channel, seq;
	int64_t tag;
	int is_send;
	unsigned rank, idx;
	uint64_t start;
};

static int cmp_side(const void *a, const void *b)
{
	const struct side *x = a, *y = b;
#define C(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	C(sender);
	C(receiver);
	C(channel);
	C(tag);
	C(seq);
	C(is_send);
	C(start);
	C(rank);
	C(idx);
#undef C
	return 0;
}

static int same_key(const struct side *x, const struct side *y)
{
	return x->sender == y->sender && x->receiver == y->receiver && x->channel == y->channel && x->tag == y->tag &&
	       x->seq == y->seq;
}

static int cmp_link_start(const void *a, const void *b, void *ctx);

static const struct trace_merge *sort_m;

static int cmp_link(const void *a, const void *b)
{
	return cmp_link_start(a, b, (void *) sort_m);
}

static int cmp_link_start(const void *a, const void *b, void *ctx)
{
	const struct trace_merge *m = ctx;
	const struct tr_link *x = a, *y = b;
	uint64_t sx = m->ranks[x->send_rank].comms[x->send].start, sy = m->ranks[y->send_rank].comms[y->send].start;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	if (x->send_rank != y->send_rank)
		return x->send_rank < y->send_rank ? -1 : 1;
	return x->send < y->send ? -1 : x->send > y->send;
}

static int link_messages(struct trace_merge *m, char *err, size_t errlen)
{
	size_t n = 0;
	for (unsigned r = 0; r < m->nranks; r++)
		n += m->ranks[r].ncomms;
	struct side *v = malloc((n ? n : 1) * sizeof(*v));
	m->links = malloc((n ? n : 1) * sizeof(*m->links));
	if (!v || !m->links)
	{
		free(v);
		set_err(err, errlen, "out of memory linking %zu messages", n);
		return -ENOMEM;
	}
	size_t k = 0;
	for (unsigned r = 0; r < m->nranks; r++)
		for (unsigned i = 0; i < m->ranks[r].ncomms; i++)
		{
			const struct tr_comm *c = &m->ranks[r].comms[i];
			if (c->peer < 0)
			{
				m->outside++;
				continue;
			}
			int snd = (c->flags & TCF_SEND) != 0;
			v[k++] = (struct side) { snd ? (int) r : c->peer, snd ? c->peer : (int) r, c->channel, c->seq, c->tag, snd,
						 r, i, c->start };
		}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_side);
	for (size_t i = 0; i < k;)
	{
		size_t j = i;
		while (j < k && same_key(&v[i], &v[j]))
			j++;
		/* [i, j): receives first (is_send 0), then sends. */
		size_t nr = i;
		while (nr < j && !v[nr].is_send)
			nr++;
		size_t nrecv = nr - i, nsend = j - nr;
		size_t pairs = nrecv < nsend ? nrecv : nsend;
		for (size_t p = 0; p < pairs; p++)
		{
			const struct side *s = &v[nr + p], *q = &v[i + p];
			const struct tr_comm *cs = &m->ranks[s->rank].comms[s->idx], *cr = &m->ranks[q->rank].comms[q->idx];
			if (cs->bytes != cr->bytes)
			{
				set_err(err, errlen,
					"message tag %lld #%llu from rank %d to rank %d: '%s' sent %llu bytes (record at byte %llu), "
					"'%s' received %llu (record at byte %llu): the traces do not describe one run",
					(long long) s->tag, (unsigned long long) s->seq, s->sender, s->receiver, m->ranks[s->rank].path,
					(unsigned long long) cs->bytes, (unsigned long long) cs->offset, m->ranks[q->rank].path,
					(unsigned long long) cr->bytes, (unsigned long long) cr->offset);
				free(v);
				return -EINVAL;
			}
			m->links[m->nlinks++] = (struct tr_link) { s->rank, s->idx, q->rank, q->idx };
			/* Beyond what the two clocks' error bounds allow. */
			uint64_t slack = m->clocks[s->rank].err_ns + m->clocks[q->rank].err_ns;
			if (cr->end + slack < cs->start)
			{
				m->inconsistent++;
				if (cs->start - cr->end > m->worst_ns)
					m->worst_ns = cs->start - cr->end;
			}
		}
		m->unmatched += (nrecv - pairs) + (nsend - pairs);
		i = j;
	}
	free(v);
	sort_m = m;
	if (m->nlinks > 1)
		qsort(m->links, m->nlinks, sizeof(*m->links), cmp_link);
	return 0;
}

/* ------------------------------------------------------------------ */

void trace_merge_free(struct trace_merge *m)
{
	if (m->ranks)
		for (unsigned r = 0; r < m->nranks; r++)
			trace_free(&m->ranks[r]);
	free(m->ranks);
	free(m->clocks);
	free(m->links);
	memset(m, 0, sizeof(*m));
}

int trace_merge(struct trace *ts, unsigned n, struct trace_merge *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	int ret = -EINVAL;
	if (n == 0)
	{
		set_err(err, errlen, "no trace to merge");
		goto fail_in;
	}
	for (unsigned i = 0; i < n; i++)
		if (!ts[i].has_process)
		{
			set_err(err, errlen,
				"'%s' has no process record: it is not the trace of one rank of a distributed run "
				"(StarPU-MPI programs write one per rank)", ts[i].path);
			goto fail_in;
		}
	const struct trace *t0 = &ts[0];
	for (unsigned i = 1; i < n; i++)
	{
		const struct trace *t = &ts[i];
		if (t->run_id != t0->run_id || t->nranks != t0->nranks)
		{
			set_err(err, errlen,
				"'%s' (process record at byte %llu) is rank %d of %u of run %016llx, but '%s' is rank %d of %u "
				"of run %016llx: traces of different runs",
				t->path, (unsigned long long) t->process_offset, t->rank, t->nranks, (unsigned long long) t->run_id,
				t0->path, t0->rank, t0->nranks, (unsigned long long) t0->run_id);
			goto fail_in;
		}
	}
	unsigned nranks = t0->nranks;
	int *by_rank = malloc(nranks * sizeof(*by_rank));
	if (!by_rank)
	{
		set_err(err, errlen, "out of memory for %u ranks", nranks);
		ret = -ENOMEM;
		goto fail_in;
	}
	for (unsigned r = 0; r < nranks; r++)
		by_rank[r] = -1;
	for (unsigned i = 0; i < n; i++)
	{
		int r = ts[i].rank;
		if (by_rank[r] >= 0)
		{
			set_err(err, errlen, "'%s' and '%s' are both rank %d of run %016llx", ts[by_rank[r]].path, ts[i].path, r,
				(unsigned long long) t0->run_id);
			free(by_rank);
			goto fail_in;
		}
		by_rank[r] = (int) i;
	}
	for (unsigned r = 0; r < nranks; r++)
		if (by_rank[r] < 0)
		{
			char list[256] = "";
			size_t used = 0;
			for (unsigned i = 0; i < n && used + 1 < sizeof(list); i++)
			{
				int w = snprintf(list + used, sizeof(list) - used, "%s'%s' (rank %d)", i ? ", " : "", ts[i].path, ts[i].rank);
				if (w < 0)
					break;
				used += (size_t) w;
			}
			set_err(err, errlen, "rank %u of the %u of run %016llx is missing: given %s", r, nranks,
				(unsigned long long) t0->run_id, list);
			free(by_rank);
			goto fail_in;
		}

	/* The traces move into m, by rank. */
	m->nranks = nranks;
	m->run_id = t0->run_id;
	m->ranks = calloc(nranks, sizeof(*m->ranks));
	m->clocks = calloc(nranks, sizeof(*m->clocks));
	if (!m->ranks || !m->clocks)
	{
		free(by_rank);
		set_err(err, errlen, "out of memory for %u ranks", nranks);
		ret = -ENOMEM;
		goto fail_in;
	}
	for (unsigned r = 0; r < nranks; r++)
	{
		m->ranks[r] = ts[by_rank[r]];
		memset(&ts[by_rank[r]], 0, sizeof(ts[0]));
	}
	free(by_rank);

	double origin = INFINITY;
	for (unsigned r = 0; r < nranks; r++)
	{
		fit_clock(m, r);
		double o = map_time(&m->clocks[r], 0);
		if (o < origin)
			origin = o;
		if (!m->ranks[r].complete)
			add_note(m, "'%s' (rank %u) is incomplete: %s", m->ranks[r].path, r, m->ranks[r].stop_reason);
	}
	for (unsigned r = 0; r < nranks; r++)
	{
		m->clocks[r].origin_ns = map_time(&m->clocks[r], 0) - origin;
		retime(&m->ranks[r], &m->clocks[r], origin);
		if (m->ranks[r].end_time > m->end_time)
			m->end_time = m->ranks[r].end_time;
	}
	ret = link_messages(m, err, errlen);
	if (ret)
	{
		trace_merge_free(m);
		return ret;
	}
	if (m->unmatched)
		add_note(m, "%lu message ends have no other side in the traces (a rank's trace cut short?)", m->unmatched);
	if (m->inconsistent)
		add_note(m, "%lu messages are received before they were sent on the merged clock (by up to %.3f us): "
			 "the clocks were not synchronised well enough", m->inconsistent, (double) m->worst_ns / 1e3);
	return 0;

fail_in:
	for (unsigned i = 0; i < n; i++)
		trace_free(&ts[i]);
	return ret;
}

int trace_merge_load(const char *const *paths, unsigned n, struct trace_merge *m, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	struct trace *ts = calloc(n ? n : 1, sizeof(*ts));
	if (!ts)
	{
		set_err(err, errlen, "out of memory for %u traces", n);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++)
	{
		int ret = trace_load(paths[i], &ts[i], err, errlen);
		if (ret)
		{
			for (unsigned j = 0; j < i; j++)
				trace_free(&ts[j]);
			free(ts);
			return ret;
		}
	}
	int ret = trace_merge(ts, n, m, err, errlen);
	free(ts);
	return ret;
}

int trace_merge_print(const struct trace_merge *m, FILE *f)
{
	fprintf(f, "run %016llx: %u ranks, %u messages linked, %lu unmatched, %lu outside the run, %lu received before sent\n",
		(unsigned long long) m->run_id, m->nranks, m->nlinks, m->unmatched, m->outside, m->inconsistent);
	for (unsigned r = 0; r < m->nranks; r++)
	{
		const struct trace *t = &m->ranks[r];
		const struct tr_rank_clock *c = &m->clocks[r];
		unsigned long sends = 0;
		for (unsigned i = 0; i < t->ncomms; i++)
			sends += (t->comms[i].flags & TCF_SEND) != 0;
		fprintf(f, "rank %u: %s (%s, pid %u): %u tasks, %lu sends, %lu receives, starts at %.3f us, "
			"%u clock points, rate %.9f, error <= %.3f us\n",
			r, t->path, t->host ? t->host : "?", t->pid, t->ntasks, sends, (unsigned long) t->ncomms - sends,
			c->origin_ns / 1e3, c->nsync, c->drift, (double) c->err_ns / 1e3);
	}
	fprintf(f, "end: %.3f us\n", (double) m->end_time / 1e3);
	return ferror(f) ? -EIO : 0;
}
