/* trace_chrome.c — a trace as Chrome trace-event JSON, which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open: one process "Workers" with
 * a track per worker (tasks, input fetches, callbacks, idle and sleep), one
 * process "Bus" with a track per link between memory nodes (transfers),
 * flow arrows from each task to the tasks that waited for it, user events
 * as instants and memory use as counters. Times are microseconds.
 */
#include "trace_reader.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <string.h>

#define PID_WORKERS 1
#define PID_BUS 2
#define PID_APP 3

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

int trace_export_chrome(const struct trace *t, FILE *f)
{
	struct out o = { f, 1 };
	char b1[32], b2[32];
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{", f);
	fputs("\"generator\":\"vela trace export\",\"program\":", f);
	jstr(f, t->program ? t->program : "");
	fputs(",\"host\":", f);
	jstr(f, t->host ? t->host : "");
	fputs(",\"policy\":", f);
	jstr(f, t->policy ? t->policy : "");
	fprintf(f, ",\"clock\":\"%s\",\"complete\":%s},\n\"traceEvents\":[",
		t->flags & TRACE_FILE_SIMULATED ? "simulated" : t->flags & TRACE_FILE_SYNTHETIC ? "synthetic" : "real",
		t->complete ? "true" : "false");

	meta(&o, "process_name", PID_WORKERS, -1, "Workers");
	sort_index(&o, PID_WORKERS, -1, 0);
	for (unsigned i = 0; i < t->nworkers; i++)
	{
		meta(&o, "thread_name", PID_WORKERS, t->workers[i].id, t->workers[i].name);
		sort_index(&o, PID_WORKERS, t->workers[i].id, (int) i);
	}
	meta(&o, "process_name", PID_BUS, -1, "Bus");
	sort_index(&o, PID_BUS, -1, 1);
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
		meta(&o, "thread_name", PID_BUS, link_tid(x->src, x->dst), name);
	}
	meta(&o, "process_name", PID_APP, -1, "Application");
	sort_index(&o, PID_APP, -1, 2);
	meta(&o, "thread_name", PID_APP, 0, "application threads");

	/* Tasks and what surrounds them. */
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		if (!(k->flags & TTF_EXECUTED))
			continue;
		if (k->exec_start > k->pop_end)
		{
			slice(&o, "fetch input", "fetch", PID_WORKERS, k->worker, k->pop_end, k->exec_start);
			fprintf(f, ",\"args\":{\"job\":%llu}}", (unsigned long long) k->job);
		}
		slice(&o, k->name, "task", PID_WORKERS, k->worker, k->exec_start, k->exec_end);
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
			slice(&o, name, "state", PID_APP, 0, s->start, s->end);
			fputs("}", f);
			continue;
		}
		slice(&o, name, "state", PID_WORKERS, s->worker, s->start, s->end);
		if (s->job)
			fprintf(f, ",\"args\":{\"job\":%llu}", (unsigned long long) s->job);
		fputs("}", f);
	}

	/* Dependencies as flows: from the middle of the predecessor's slice
	 * to the start of the successor's, between executed tasks. */
	unsigned long flow = 0;
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
			flow++;
			sep(&o);
			fprintf(f, "{\"name\":\"dependency\",\"cat\":\"dep\",\"ph\":\"s\",\"id\":%lu,\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
				flow, PID_WORKERS, p->worker, us(p->exec_start + (p->exec_end - p->exec_start) / 2));
			sep(&o);
			fprintf(f, "{\"name\":\"dependency\",\"cat\":\"dep\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%lu,\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
				flow, PID_WORKERS, k->worker, us(k->exec_start));
		}
	}

	for (unsigned i = 0; i < t->ntransfers; i++)
	{
		const struct tr_transfer *x = &t->transfers[i];
		char name[64];
		snprintf(name, sizeof(name), "%llu bytes", (unsigned long long) x->bytes);
		slice(&o, name, "transfer", PID_BUS, link_tid(x->src, x->dst), x->start, x->end);
		fprintf(f, ",\"args\":{\"src\":%u,\"dst\":%u,\"bytes\":%llu,\"handle\":\"%llx\"}}", x->src, x->dst,
			(unsigned long long) x->bytes, (unsigned long long) x->handle);
	}

	for (unsigned i = 0; i < t->nusers; i++)
	{
		const struct tr_user *u = &t->users[i];
		char name[64];
		if (!u->str)
			snprintf(name, sizeof(name), "user event %llu", (unsigned long long) u->code);
		sep(&o);
		fputs("{\"name\":", f);
		jstr(f, u->str ? u->str : name);
		fprintf(f, ",\"cat\":\"user\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f}",
			u->worker >= 0 ? PID_WORKERS : PID_APP, u->worker >= 0 ? u->worker : 0, us(u->time));
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
		sep(&o);
		fputs("{\"name\":", f);
		char name[64];
		snprintf(name, sizeof(name), "allocated on %s", trace_node_name(t, m->node, b1, sizeof(b1)));
		jstr(f, name);
		fprintf(f, ",\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"args\":{\"bytes\":%lld}}", PID_APP, us(m->time), (long long) used[m->node]);
	}
	fputs("\n]}\n", f);
	return ferror(f) ? -EIO : 0;
}
