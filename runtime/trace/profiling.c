/* profiling.c — the profiling observer and StarPU's profiling API: worker,
 * bus and memory-node counters, per-codelet totals, and the reports
 * STARPU_WORKER_STATS, STARPU_BUS_STATS, STARPU_MEMORY_STATS and
 * STARPU_PROFILING_STATS print at shutdown. The per-task records
 * (task->profiling_info) are filled by events.c.
 *
 * A worker's counters are updated by its own thread after each task and
 * each idle period, under the worker's profiling lock, which readers take
 * too; bus and node counters are atomics (any thread may copy data).
 */
#include "trace/trace_internal.h"
#include "core/rt.h"
#include "core/workers.h"
#include "data/memory.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The requested status; persists across sessions, as in StarPU. */
static _Atomic int prof_requested;

struct prof_codelet
{
	const char *name;		/* the codelet's name string (not owned) */
	uint64_t n;
	uint64_t ns;
	double flops;
};

#define PROF_NCL 32

struct prof_worker
{
	/* Protects every field below. A leaf lock: the worker takes it after
	 * each task and idle period, readers to copy and reset. */
	os_mutex_t lock;
	uint64_t start;			/* absolute ns: start of the interval */
	uint64_t exec_ns;
	uint64_t sleep_ns;
	uint64_t ntasks;
	double flops;
	/* Per codelet, over the session (starpu_profiling_display_stats). */
	struct prof_codelet cl[PROF_NCL];
	unsigned ncl;
	uint64_t other_n, other_ns;	/* codelets beyond PROF_NCL */
};

static struct prof_worker prof_w[STARPU_NMAXWORKERS];

struct prof_bus
{
	_Atomic unsigned long long bytes;
	_Atomic int count;
	_Atomic uint64_t start;
	_Atomic int direct;
	_Atomic int ngpus;
};

static struct prof_bus prof_b[STARPU_MAXNODES][STARPU_MAXNODES];

struct prof_node
{
	_Atomic long long used;
	_Atomic long long peak;
	_Atomic unsigned long long nalloc, nfree, nevict;
};

static struct prof_node prof_n[STARPU_MAXNODES];

int prof_enabled(void)
{
	return atomic_load_explicit(&prof_requested, memory_order_relaxed);
}

static void to_timespec(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t) (ns / 1000000000ULL);
	ts->tv_nsec = (long) (ns % 1000000000ULL);
}

static void reset_counters(void)
{
	uint64_t now = trace_now();
	for (unsigned i = 0; i < STARPU_NMAXWORKERS; i++)
	{
		struct prof_worker *p = &prof_w[i];
		os_mutex_lock(&p->lock);
		p->start = now;
		p->exec_ns = p->sleep_ns = p->ntasks = 0;
		p->flops = 0;
		memset(p->cl, 0, sizeof(p->cl));
		p->ncl = 0;
		p->other_n = p->other_ns = 0;
		os_mutex_unlock(&p->lock);
	}
	for (unsigned s = 0; s < STARPU_MAXNODES; s++)
	{
		for (unsigned d = 0; d < STARPU_MAXNODES; d++)
		{
			atomic_store(&prof_b[s][d].bytes, 0);
			atomic_store(&prof_b[s][d].count, 0);
			atomic_store(&prof_b[s][d].start, now);
		}
		atomic_store(&prof_n[s].used, 0);
		atomic_store(&prof_n[s].peak, 0);
		atomic_store(&prof_n[s].nalloc, 0);
		atomic_store(&prof_n[s].nfree, 0);
		atomic_store(&prof_n[s].nevict, 0);
	}
}

static int env_positive(const char *name)
{
	const char *s = getenv(name);
	return s && atoi(s) > 0;
}

void prof_session_start(void)
{
	if (env_positive("STARPU_PROFILING") || env_positive("STARPU_PROFILING_STATS") ||
	    env_positive("STARPU_WORKER_STATS") || env_positive("STARPU_BUS_STATS") ||
	    env_positive("STARPU_MEMORY_STATS"))
		atomic_store(&prof_requested, 1);
	reset_counters();
}

void prof_session_end(void)
{
	if (env_positive("STARPU_PROFILING_STATS"))
	{
		starpu_profiling_display_stats();
		return;
	}
	starpu_profiling_worker_helper_display_summary();
	starpu_profiling_bus_helper_display_summary();
	starpu_data_display_memory_stats();
}

/* ------------------------------------------------------------------ */
/* Observer entry points (events.c). */

void prof_exec(struct worker *w, struct job *job, uint64_t start, uint64_t end)
{
	struct prof_worker *p = &prof_w[w->id];
	uint64_t ns = end - start;
	const char *name = trace_codelet_name(job->task);
	os_mutex_lock(&p->lock);
	p->exec_ns += ns;
	p->ntasks++;
	p->flops += job->task->flops;
	unsigned i;
	for (i = 0; i < p->ncl && p->cl[i].name != name; i++)
		;
	if (i == p->ncl && p->ncl < PROF_NCL)
		p->cl[p->ncl++].name = name;
	if (i < p->ncl)
	{
		p->cl[i].n++;
		p->cl[i].ns += ns;
		p->cl[i].flops += job->task->flops;
	}
	else
	{
		p->other_n++;
		p->other_ns += ns;
	}
	os_mutex_unlock(&p->lock);
}

void prof_idle(struct worker *w, uint64_t ns)
{
	struct prof_worker *p = &prof_w[w->id];
	os_mutex_lock(&p->lock);
	p->sleep_ns += ns;
	os_mutex_unlock(&p->lock);
}

void prof_transfer(unsigned src, unsigned dst, size_t bytes)
{
	if (src >= STARPU_MAXNODES || dst >= STARPU_MAXNODES)
		return;
	atomic_fetch_add_explicit(&prof_b[src][dst].bytes, bytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&prof_b[src][dst].count, 1, memory_order_relaxed);
}

void prof_mem(unsigned node, int op, size_t bytes)
{
	if (node >= STARPU_MAXNODES)
		return;
	struct prof_node *n = &prof_n[node];
	if (op == TM_ALLOC)
	{
		long long used = atomic_fetch_add(&n->used, (long long) bytes) + (long long) bytes;
		long long peak = atomic_load(&n->peak);
		while (used > peak && !atomic_compare_exchange_weak(&n->peak, &peak, used))
			;
		atomic_fetch_add(&n->nalloc, 1);
	}
	else
	{
		atomic_fetch_sub(&n->used, (long long) bytes);
		atomic_fetch_add(op == TM_EVICT ? &n->nevict : &n->nfree, 1);
	}
}

/* ------------------------------------------------------------------ */
/* The API. */

void starpu_profiling_init(void)
{
	reset_counters();
	if (env_positive("STARPU_PROFILING"))
		atomic_store(&prof_requested, 1);
	trace_flags_update();
}

int starpu_profiling_status_set(int status)
{
	if (status != STARPU_PROFILING_DISABLE && status != STARPU_PROFILING_ENABLE)
	{
		rt_error("starpu_profiling_status_set: status %d is neither STARPU_PROFILING_ENABLE (1) nor STARPU_PROFILING_DISABLE (0) (-EINVAL)", status);
		return -EINVAL;
	}
	int old = atomic_exchange(&prof_requested, status);
	reset_counters();
	trace_flags_update();
	return old;
}

int starpu_profiling_status_get(void)
{
	return prof_enabled();
}

int starpu_profiling_worker_get_info(int workerid, struct starpu_profiling_worker_info *info)
{
	if (workerid < 0 || (unsigned) workerid >= rt.nworkers)
	{
		rt_error("starpu_profiling_worker_get_info: no worker %d (there are %u) (-EINVAL)", workerid, rt.nworkers);
		return -EINVAL;
	}
	struct prof_worker *p = &prof_w[workerid];
	uint64_t now = trace_now();
	os_mutex_lock(&p->lock);
	if (info)
	{
		memset(info, 0, sizeof(*info));
		to_timespec(p->start, &info->start_time);
		to_timespec(now > p->start ? now - p->start : 0, &info->total_time);
		to_timespec(p->exec_ns, &info->executing_time);
		to_timespec(p->sleep_ns, &info->sleeping_time);
		info->executed_tasks = (int) p->ntasks;
		info->flops = p->flops;
	}
	p->start = now;
	p->exec_ns = p->sleep_ns = p->ntasks = 0;
	p->flops = 0;
	os_mutex_unlock(&p->lock);
	return 0;
}

/* Buses: the ordered pairs (src, dst), src != dst, of the current nodes,
 * numbered src-major. */
int starpu_bus_get_count(void)
{
	return (int) (mem_nnodes * (mem_nnodes ? mem_nnodes - 1 : 0));
}

int starpu_bus_get_id(int src, int dst)
{
	int n = (int) mem_nnodes;
	if (src < 0 || dst < 0 || src >= n || dst >= n || src == dst)
		return -1;
	return src * (n - 1) + (dst < src ? dst : dst - 1);
}

static int bus_valid(int busid)
{
	return busid >= 0 && busid < starpu_bus_get_count();
}

int starpu_bus_get_src(int busid)
{
	return bus_valid(busid) ? busid / (int) (mem_nnodes - 1) : -1;
}

int starpu_bus_get_dst(int busid)
{
	if (!bus_valid(busid))
		return -1;
	int src = starpu_bus_get_src(busid), r = busid % (int) (mem_nnodes - 1);
	return r < src ? r : r + 1;
}

void starpu_bus_set_direct(int busid, int direct)
{
	if (bus_valid(busid))
		atomic_store(&prof_b[starpu_bus_get_src(busid)][starpu_bus_get_dst(busid)].direct, direct);
}

int starpu_bus_get_direct(int busid)
{
	return bus_valid(busid) ? atomic_load(&prof_b[starpu_bus_get_src(busid)][starpu_bus_get_dst(busid)].direct) : 0;
}

void starpu_bus_set_ngpus(int busid, int ngpus)
{
	if (bus_valid(busid))
		atomic_store(&prof_b[starpu_bus_get_src(busid)][starpu_bus_get_dst(busid)].ngpus, ngpus);
}

int starpu_bus_get_ngpus(int busid)
{
	return bus_valid(busid) ? atomic_load(&prof_b[starpu_bus_get_src(busid)][starpu_bus_get_dst(busid)].ngpus) : 0;
}

int starpu_bus_get_profiling_info(int busid, struct starpu_profiling_bus_info *info)
{
	if (!bus_valid(busid))
	{
		rt_error("starpu_bus_get_profiling_info: no bus %d (there are %d) (-EINVAL)", busid, starpu_bus_get_count());
		return -EINVAL;
	}
	struct prof_bus *b = &prof_b[starpu_bus_get_src(busid)][starpu_bus_get_dst(busid)];
	uint64_t now = trace_now();
	uint64_t start = atomic_exchange(&b->start, now);
	long long bytes = (long long) atomic_exchange(&b->bytes, 0);
	int count = atomic_exchange(&b->count, 0);
	if (info)
	{
		memset(info, 0, sizeof(*info));
		to_timespec(start, &info->start_time);
		to_timespec(now > start ? now - start : 0, &info->total_time);
		info->transferred_bytes = bytes;
		info->transfer_count = count;
	}
	return 0;
}

double starpu_timing_timespec_delay_us(struct timespec *start, struct timespec *end)
{
	return (double) (end->tv_sec - start->tv_sec) * 1e6 + (double) (end->tv_nsec - start->tv_nsec) / 1e3;
}

double starpu_timing_timespec_to_us(struct timespec *ts)
{
	return (double) ts->tv_sec * 1e6 + (double) ts->tv_nsec / 1e3;
}

/* ------------------------------------------------------------------ */
/* Reports. */

static const char *bytes_str(double b, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;
	while (b >= 1024 && u < 4)
	{
		b /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", b, units[u]);
	return buf;
}

static void worker_summary(FILE *f)
{
	fprintf(f, "\n#---------------------\nWorker stats:\n");
	for (unsigned i = 0; i < rt.nworkers; i++)
	{
		struct starpu_profiling_worker_info info;
		if (starpu_profiling_worker_get_info((int) i, &info))
			continue;
		double total = starpu_timing_timespec_to_us(&info.total_time) / 1e3;
		double exec = starpu_timing_timespec_to_us(&info.executing_time) / 1e3;
		double sleep = starpu_timing_timespec_to_us(&info.sleeping_time) / 1e3;
		double overhead = total - exec - sleep;
		fprintf(f, "%-32s\n", rt.workers[i].name);
		fprintf(f, "\t%d task(s)\n", info.executed_tasks);
		fprintf(f, "\ttotal: %.2f ms executing: %.2f ms sleeping: %.2f ms overhead %.2f ms\n",
			total, exec, sleep, overhead > 0 ? overhead : 0.0);
		if (info.flops > 0 && total > 0)
			fprintf(f, "\t%f GFlop/s\n", info.flops / total / 1e6);
		fprintf(f, "\n");
	}
	fprintf(f, "#---------------------\n");
}

static void bus_summary(FILE *f)
{
	fprintf(f, "\n#---------------------\nData transfer stats:\n");
	double total = 0;
	int nbus = starpu_bus_get_count();
	for (int id = 0; id < nbus; id++)
	{
		int src = starpu_bus_get_src(id), dst = starpu_bus_get_dst(id);
		struct starpu_profiling_bus_info info;
		if (starpu_bus_get_profiling_info(id, &info) || info.transfer_count == 0)
			continue;
		char sn[32], dn[32], b1[32], b2[32];
		starpu_memory_node_get_name((unsigned) src, sn, sizeof(sn));
		starpu_memory_node_get_name((unsigned) dst, dn, sizeof(dn));
		double us = starpu_timing_timespec_to_us(&info.total_time);
		fprintf(f, "\t%s -> %s\t%s\t%.2f MB/s\t(transfers: %d - avg %s)\n", sn, dn,
			bytes_str((double) info.transferred_bytes, b1, sizeof(b1)),
			us > 0 ? (double) info.transferred_bytes / us : 0.0, info.transfer_count,
			bytes_str((double) info.transferred_bytes / info.transfer_count, b2, sizeof(b2)));
		total += (double) info.transferred_bytes;
	}
	fprintf(f, "Total transfers: %.4f GB\n#---------------------\n", total / 1e9);
}

static void memory_summary(FILE *f)
{
	fprintf(f, "\n#---------------------\nMemory stats:\n");
	for (unsigned n = 0; n < mem_nnodes; n++)
	{
		struct prof_node *p = &prof_n[n];
		char name[32], b1[32], b2[32];
		starpu_memory_node_get_name(n, name, sizeof(name));
		long long used = atomic_load(&p->used);
		fprintf(f, "\t%s: allocated now %s, peak %s, %llu allocation(s), %llu free(s), %llu eviction(s)\n", name,
			bytes_str((double) (used > 0 ? used : 0), b1, sizeof(b1)),
			bytes_str((double) atomic_load(&p->peak), b2, sizeof(b2)),
			(unsigned long long) atomic_load(&p->nalloc), (unsigned long long) atomic_load(&p->nfree),
			(unsigned long long) atomic_load(&p->nevict));
	}
	fprintf(f, "#---------------------\n");
}

/* Codelets merged over the workers, by name. */
static void codelet_summary(FILE *f)
{
	struct row
	{
		const char *name;
		uint64_t n, ns;
		uint64_t per_worker[STARPU_NMAXWORKERS];
	};
	struct row *rows = calloc(PROF_NCL * (rt.nworkers ? rt.nworkers : 1) + 1, sizeof(*rows));
	if (!rows)
		return;
	unsigned nrows = 0;
	for (unsigned w = 0; w < rt.nworkers; w++)
	{
		struct prof_worker *p = &prof_w[w];
		os_mutex_lock(&p->lock);
		for (unsigned i = 0; i <= p->ncl; i++)
		{
			const char *name = i < p->ncl ? p->cl[i].name : "(other codelets)";
			uint64_t n = i < p->ncl ? p->cl[i].n : p->other_n;
			uint64_t ns = i < p->ncl ? p->cl[i].ns : p->other_ns;
			if (!n)
				continue;
			unsigned r;
			for (r = 0; r < nrows && strcmp(rows[r].name, name) != 0; r++)
				;
			if (r == nrows)
				rows[nrows++].name = name;
			rows[r].n += n;
			rows[r].ns += ns;
			rows[r].per_worker[w] += n;
		}
		os_mutex_unlock(&p->lock);
	}
	fprintf(f, "\n#---------------------\nCodelet stats:\n");
	fprintf(f, "\t%-24s %10s %14s %14s   %s\n", "codelet", "tasks", "mean (us)", "total (ms)", "tasks per worker");
	for (unsigned r = 0; r < nrows; r++)
	{
		fprintf(f, "\t%-24s %10llu %14.2f %14.3f  ", rows[r].name, (unsigned long long) rows[r].n,
			(double) rows[r].ns / 1e3 / (double) rows[r].n, (double) rows[r].ns / 1e6);
		for (unsigned w = 0; w < rt.nworkers; w++)
			if (rows[r].per_worker[w])
				fprintf(f, " %s: %llu", rt.workers[w].short_name, (unsigned long long) rows[r].per_worker[w]);
		fprintf(f, "\n");
	}
	if (!nrows)
		fprintf(f, "\t(no task executed while profiling was on)\n");
	fprintf(f, "#---------------------\n");
	free(rows);
}

void starpu_profiling_worker_helper_display_summary(void)
{
	if (env_positive("STARPU_WORKER_STATS"))
		worker_summary(stderr);
}

void starpu_profiling_bus_helper_display_summary(void)
{
	if (env_positive("STARPU_BUS_STATS"))
		bus_summary(stderr);
}

void starpu_data_display_memory_stats(void)
{
	if (env_positive("STARPU_MEMORY_STATS"))
		memory_summary(stderr);
}

void starpu_profiling_display_stats(void)
{
	codelet_summary(stderr);
	worker_summary(stderr);
	bus_summary(stderr);
	memory_summary(stderr);
}
