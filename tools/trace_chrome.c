/* trace_chrome.c — a trace as Chrome trace-event JSON, which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open: one process "Workers" with
 * a track per worker (tasks, input fetches, callbacks, idle and sleep), one
 * process "Bus" with a track per link between memory nodes (transfers),
 * flow arrows from each task to the tasks that waited for it, user events
 * as instants and memory use as counters; in the trace of a rank of a
 * distributed run, a process "Messages" with its sends and receives. The
 * ranks of a run merged (trace_merge.c): those processes for each rank,
 * and an arrow from each send to its receive. Times are microseconds.
 */
#include "trace_reader.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PID_WORKERS 1	/* then the bus (2), the application (3), messages (4) */

/* A JSON string (quotes included). */
static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
	{
		unsigned char c = (unsigned char) *s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static double us(uint64_t ns)
{
	return (double) ns / 1e3;
}

struct out
{
	FILE *f;
	int first;
};

static void sep(struct out *o)
{
	fputs(o->first ? "\n" : ",\n", o->f);
	o->first = 0;
}

static void meta(struct out *o, const char *what, int pid, int tid, const char *name)
{
	sep(o);
	fprintf(o->f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d", what, pid);
	if (tid >= 0)
		fprintf(o->f, ",\"tid\":%d", tid);
	fputs(",\"args\":{\"name\":", o->f);
	jstr(o->f, name);
	fputs("}}", o->f);
}

static void sort_index(struct out *o, int pid, int tid, int index)
{
	sep(o);
	if (tid < 0)
		fprintf(o->f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", pid, index);
	else
		fprintf(o->f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
			pid, tid, index);
}

static void slice(struct out *o, const char *name, const char *cat, int pid, int tid, uint64_t start, uint64_t end)
{
	sep(o);
	fputs("{\"name\":", o->f);
	jstr(o->f, name);
	fprintf(o->f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f", cat, pid, tid, us(start),
		us(end - start));
}

/* Tracks of the bus process: one per (src, dst) pair seen. */
static int link_tid(unsigned src, unsigned dst)
{
	return (int) (src * 256 + dst);
}

/* Lanes of a trace's messages: sends on tids 0, 1, ..., receives on
 * RECV_TID, RECV_TID + 1, ..., each message on the first lane free at its
 * start, so that the slices of one track never overlap (Perfetto nests
 * slices of a track and would misdraw crossing ones). malloc'ed; NULL if
 * out of memory or no messages. */
#define RECV_TID 1000
#define MAX_LANES 64

static int *comm_lanes(const struct trace *t)
{
	if (!t->ncomms)
		return NULL;
	int *lane = malloc(t->ncomms * sizeof(*lane));
	if (!lane)
		return NULL;
	uint64_t busy[2][MAX_LANES];
	unsigned nl[2] = { 0, 0 };
	for (unsigned i = 0; i < t->ncomms; i++)
	{
		const struct tr_comm *c = &t->comms[i];
		int s = (c->flags & TCF_SEND) != 0 ? 0 : 1;
		unsigned k;
		for (k = 0; k < nl[s] && busy[s][k] > c->start; k++)
			;
		if (k == nl[s])
		{
			if (nl[s] < MAX_LANES)
				nl[s]++;
			else
				k = MAX_LANES - 1;	/* beyond: shared (may overlap) */
		}
		busy[s][k] = c->end > c->start ? c->end : c->start + 1;
		lane[i] = s ? RECV_TID + (int) k : (int) k;
	}
	return lane;
}

/* Where a message's flow arrow leaves its send and reaches its receive:
 * inside each slice (Perfetto binds an arrow to the slice enclosing it),
 * and forwards in time when the slices allow it. */
static uint64_t comm_end(const struct tr_comm *c)
{
	return c->end > c->start ? c->end : c->start + 1;
}

static uint64_t send_point(const struct tr_comm *c)
{
	return c->start + (comm_end(c) - c->start) / 2;
}

static uint64_t recv_point(const struct tr_comm *c, uint64_t from)
{
	uint64_t e = comm_end(c), mid = c->start + (e - c->start) / 2;
	/* A receive wholly before its send (clocks within their error
	 * bounds): its middle, not its edge, which rounding may put outside. */
	return mid >= from || from >= e ? mid : from;
}

/* One trace's processes: pid base (workers), base + 1 (bus), base + 2
 * (application), base + 3 (messages, when any); label prefixes their
 * names in a merged timeline. flow numbers the arrows across the file. */
static int emit_trace(struct out *o, const struct trace *t, int base, int sort, const char *label, unsigned long *flow,
		      const int *lanes)
{
	FILE *f = o->f;
	char b1[32], b2[32], pname[96];
	const int pid_workers = base, pid_bus = base + 1, pid_app = base + 2, pid_comm = base + 3;
#define PNAME(s) (label ? (snprintf(pname, sizeof(pname), "%s: %s", label, (s)), pname) : (s))

	meta(o, "process_name", pid_workers, -1, PNAME("Workers"));
	sort_index(o, pid_workers, -1, sort);
	for (unsigned i = 0; i < t->nworkers; i++)
	{
		meta(o, "thread_name", pid_workers, t->workers[i].id, t->workers[i].name);
		sort_index(o, pid_workers, t->workers[i].id, (int) i);
	}
	meta(o, "process_name", pid_bus, -1, PNAME("Bus"));
	sort_index(o, pid_bus, -1, sort + 1);
	for (unsigned i = 0; i < t->ntransfers; i++)
	{
		const struct tr_transfer *x = &t->transfers[i];
		int seen = 0;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = t->transfers[j].src == x->src && t->transfers[j].dst == x->dst;
		if (seen)
			continue;
		char name[80];
		snprintf(name, sizeof(name), "%s -> %s", trace_node_name(t, x->src, b1, sizeof(b1)),
			 trace_node_name(t, x->dst, b2, sizeof(b2)));
		meta(o, "thread_name", pid_bus, link_tid(x->src, x->dst), name);
	}
	meta(o, "process_name", pid_app, -1, PNAME("Application"));
	sort_index(o, pid_app, -1, sort + 2);
	meta(o, "thread_name", pid_app, 0, "application threads");
	if (t->ncomms)
	{
		meta(o, "process_name", pid_comm, -1, PNAME("Messages"));
		sort_index(o, pid_comm, -1, sort + 3);
		int maxl[2] = { -1, -1 };
		for (unsigned i = 0; i < t->ncomms; i++)
		{
			int l = lanes ? lanes[i] : 0, s = l >= RECV_TID;
			if (l - (s ? RECV_TID : 0) > maxl[s])
				maxl[s] = l - (s ? RECV_TID : 0);
		}
		for (int s = 0; s < 2; s++)
			for (int l = 0; l <= maxl[s]; l++)
			{
				char name[32];
				snprintf(name, sizeof(name), l ? "%s (%d)" : "%s", s ? "receives" : "sends", l + 1);
				meta(o, "thread_name", pid_comm, (s ? RECV_TID : 0) + l, name);
				sort_index(o, pid_comm, (s ? RECV_TID : 0) + l, s * MAX_LANES + l);
			}
	}
#undef PNAME

	/* Tasks and what surrounds them. */
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		if (!(k->flags & TTF_EXECUTED))
			continue;
		if (k->exec_start > k->pop_end)
		{
			slice(o, "fetch input", "fetch", pid_workers, k->worker, k->pop_end, k->exec_start);
			fprintf(f, ",\"args\":{\"job\":%llu}}", (unsigned long long) k->job);
		}
		slice(o, k->name, "task", pid_workers, k->worker, k->exec_start, k->exec_end);
		fprintf(f, ",\"args\":{\"job\":%llu,\"codelet\":", (unsigned long long) k->job);
		jstr(f, k->codelet);
		fprintf(f, ",\"priority\":%d,\"footprint\":\"%08x\",\"submit_us\":%.3f,\"push_us\":%.3f,\"pop_us\":%.3f,"
			"\"end_us\":%.3f,\"bytes\":%llu,\"flops\":%.17g", k->priority, k->footprint, us(k->submit), us(k->push),
			us(k->pop_end), us(k->end), (unsigned long long) k->data_bytes, k->flops);
		if (k->flags & TTF_HAS_TAG)
			fprintf(f, ",\"tag\":%llu", (unsigned long long) k->tag);
		if (k->flags & TTF_FAILED)
			fputs(",\"failed\":true", f);
		fputs("}}", f);
	}
	for (unsigned i = 0; i < t->nstates; i++)
	{
		const struct tr_state *s = &t->states[i];
		const char *name = s->state == TS_IDLE ? "idle" : s->state == TS_SLEEP ? "sleeping" :
			s->state == TS_FETCH ? "fetch input" : s->state == TS_CALLBACK ? "callback" : "overhead";
		if (s->worker < 0)
		{
			slice(o, name, "state", pid_app, 0, s->start, s->end);
			fputs("}", f);
			continue;
		}
		slice(o, name, "state", pid_workers, s->worker, s->start, s->end);
		if (s->job)
			fprintf(f, ",\"args\":{\"job\":%llu}", (unsigned long long) s->job);
		fputs("}", f);
	}

	/* Dependencies as flows: from the middle of the predecessor's slice
	 * to the start of the successor's, between executed tasks. */
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		if (!(k->flags & TTF_EXECUTED))
			continue;
		for (unsigned d = 0; d < k->npreds; d++)
		{
			const struct tr_task *p = &t->tasks[k->preds[d]];
			if (!(p->flags & TTF_EXECUTED))
				continue;
			++*flow;
			sep(o);
			fprintf(f, "{\"name\":\"dependency\",\"cat\":\"dep\",\"ph\":\"s\",\"id\":%lu,\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
				*flow, pid_workers, p->worker, us(p->exec_start + (p->exec_end - p->exec_start) / 2));
			sep(o);
			fprintf(f, "{\"name\":\"dependency\",\"cat\":\"dep\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%lu,\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
				*flow, pid_workers, k->worker, us(k->exec_start));
		}
	}

	for (unsigned i = 0; i < t->ntransfers; i++)
	{
		const struct tr_transfer *x = &t->transfers[i];
		char name[64];
		snprintf(name, sizeof(name), "%llu bytes", (unsigned long long) x->bytes);
		slice(o, name, "transfer", pid_bus, link_tid(x->src, x->dst), x->start, x->end);
		fprintf(f, ",\"args\":{\"src\":%u,\"dst\":%u,\"bytes\":%llu,\"handle\":\"%llx\"}}", x->src, x->dst,
			(unsigned long long) x->bytes, (unsigned long long) x->handle);
	}

	/* Messages: a slice per send or receive on its lane. */
	for (unsigned i = 0; i < t->ncomms; i++)
	{
		const struct tr_comm *c = &t->comms[i];
		char name[96];
		int send = (c->flags & TCF_SEND) != 0;
		if (c->peer >= 0)
			snprintf(name, sizeof(name), "%s rank %d, tag %lld", send ? "send to" : "receive from", c->peer, (long long) c->tag);
		else
			snprintf(name, sizeof(name), "%s outside the run, tag %lld", send ? "send" : "receive", (long long) c->tag);
		slice(o, name, send ? "send" : "receive", pid_comm, lanes ? lanes[i] : 0, c->start, comm_end(c));
		fprintf(f, ",\"args\":{\"peer\":%d,\"tag\":%lld,\"seq\":%llu,\"bytes\":%llu,\"submit_us\":%.3f,\"handle\":%llu%s}}",
			c->peer, (long long) c->tag, (unsigned long long) c->seq, (unsigned long long) c->bytes, us(c->submit),
			(unsigned long long) c->handle, c->flags & TCF_SYNC ? ",\"synchronous\":true" : "");
	}

	for (unsigned i = 0; i < t->nusers; i++)
	{
		const struct tr_user *u = &t->users[i];
		char name[64];
		if (!u->str)
			snprintf(name, sizeof(name), "user event %llu", (unsigned long long) u->code);
		sep(o);
		fputs("{\"name\":", f);
		jstr(f, u->str ? u->str : name);
		fprintf(f, ",\"cat\":\"user\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
			u->worker >= 0 ? pid_workers : pid_app, u->worker >= 0 ? u->worker : 0, us(u->time));
	}

	/* Memory allocated per node, as counters. */
	/* Modulo 2^64, printed signed: a corrupt trace's sizes (from the file)
	 * wrap instead of overflowing a signed sum (found by fuzz_trace). */
	uint64_t used[256] = { 0 };
	for (unsigned i = 0; i < t->nmems; i++)
	{
		const struct tr_mem *m = &t->mems[i];
		if (m->node >= 256)
			continue;
		used[m->node] += m->op == TM_ALLOC ? m->bytes : -m->bytes;
		sep(o);
		fputs("{\"name\":", f);
		char name[64];
		snprintf(name, sizeof(name), "allocated on %s", trace_node_name(t, m->node, b1, sizeof(b1)));
		jstr(f, name);
		fprintf(f, ",\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"args\":{\"bytes\":%lld}}", pid_app, us(m->time), (long long) used[m->node]);
	}
	return 0;
}

static const char *clock_name(const struct trace *t)
{
	return t->flags & TRACE_FILE_SIMULATED ? "simulated" : t->flags & TRACE_FILE_SYNTHETIC ? "synthetic" : "real";
}

int trace_export_chrome(const struct trace *t, FILE *f)
{
	struct out o = { f, 1 };
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{", f);
	fputs("\"generator\":\"vela trace export\",\"program\":", f);
	jstr(f, t->program ? t->program : "");
	fputs(",\"host\":", f);
	jstr(f, t->host ? t->host : "");
	fputs(",\"policy\":", f);
	jstr(f, t->policy ? t->policy : "");
	fprintf(f, ",\"clock\":\"%s\",\"complete\":%s},\n\"traceEvents\":[", clock_name(t), t->complete ? "true" : "false");
	unsigned long flow = 0;
	int *lanes = comm_lanes(t);
	if (t->ncomms && !lanes)
		return -ENOMEM;
	emit_trace(&o, t, PID_WORKERS, 0, NULL, &flow, lanes);
	free(lanes);
	fputs("\n]}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* Process ids of rank r in a merged timeline: 4 per rank. */
static int rank_base(unsigned r)
{
	return 1 + 4 * (int) r;
}

int trace_export_chrome_merged(const struct trace_merge *m, FILE *f)
{
	struct out o = { f, 1 };
	const struct trace *t0 = &m->ranks[0];
	int complete = 1;
	for (unsigned r = 0; r < m->nranks; r++)
		complete &= m->ranks[r].complete;
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{", f);
	fputs("\"generator\":\"vela trace export\",\"program\":", f);
	jstr(f, t0->program ? t0->program : "");
	fputs(",\"host\":", f);
	jstr(f, t0->host ? t0->host : "");
	fputs(",\"policy\":", f);
	jstr(f, t0->policy ? t0->policy : "");
	fprintf(f, ",\"clock\":\"%s\",\"complete\":%s,\"run\":\"%016llx\",\"ranks\":%u,\"messages\":%u,\"unmatched\":%lu,"
		"\"clock_error_us\":[", clock_name(t0), complete ? "true" : "false", (unsigned long long) m->run_id, m->nranks,
		m->nlinks, m->unmatched);
	for (unsigned r = 0; r < m->nranks; r++)
		fprintf(f, "%s%.3f", r ? "," : "", (double) m->clocks[r].err_ns / 1e3);
	fputs("]},\n\"traceEvents\":[", f);
	unsigned long flow = 0;
	int **lanes = calloc(m->nranks, sizeof(*lanes));
	if (!lanes)
		return -ENOMEM;
	int ret = 0;
	for (unsigned r = 0; r < m->nranks && !ret; r++)
	{
		const struct trace *t = &m->ranks[r];
		lanes[r] = comm_lanes(t);
		if (t->ncomms && !lanes[r])
		{
			ret = -ENOMEM;
			break;
		}
		char label[96];
		snprintf(label, sizeof(label), "rank %u (%s)", r, t->host && *t->host ? t->host : "?");
		emit_trace(&o, t, rank_base(r), 4 * (int) r, label, &flow, lanes[r]);
	}
	/* Each message as an arrow from its send to its receive. */
	for (unsigned i = 0; i < m->nlinks && !ret; i++)
	{
		const struct tr_link *l = &m->links[i];
		const struct tr_comm *s = &m->ranks[l->send_rank].comms[l->send], *q = &m->ranks[l->recv_rank].comms[l->recv];
		uint64_t from = send_point(s);
		++flow;
		sep(&o);
		fprintf(f, "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":%lu,\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
			"\"args\":{\"tag\":%lld,\"seq\":%llu,\"bytes\":%llu}}",
			flow, rank_base(l->send_rank) + 3, lanes[l->send_rank][l->send], us(from), (long long) s->tag,
			(unsigned long long) s->seq, (unsigned long long) s->bytes);
		sep(&o);
		fprintf(f, "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%lu,\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
			flow, rank_base(l->recv_rank) + 3, lanes[l->recv_rank][l->recv], us(recv_point(q, from)));
	}
	for (unsigned r = 0; r < m->nranks; r++)
		free(lanes[r]);
	free(lanes);
	if (ret)
		return ret;
	fputs("\n]}\n", f);
	return ferror(f) ? -EIO : 0;
}
