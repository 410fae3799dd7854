/* record.c — the trace recorder: one trace file per runtime session,
 * switched on by STARPU_FXT_TRACE=1 / STARPU_TRACE=1 (or conf.vela_trace),
 * written to STARPU_FXT_PREFIX (or conf.vela_trace_prefix, or the current
 * directory) as vela_trace_<user>_<id>, where id is the one given to
 * starpu_profiling_set_id() or the process id. Also the recording side of
 * StarPU's FxT API (starpu_fxt.h): pause/resume and user events.
 *
 * Each worker has its buffer from the start; application threads get
 * theirs on their first event (cached in their rt_thread, tagged with the
 * session's generation so that a later session does not reuse it). A
 * buffer is STARPU_TRACE_BUFFER_SIZE MiB, or conf.trace_buffer_size bytes,
 * 1 MiB by default, and is flushed to the file each time it fills up.
 *
 * A trace that cannot be written is never fatal: the run goes on, with one
 * warning that says why.
 */
#define _GNU_SOURCE
#include "trace/trace_internal.h"
#include "core/rt.h"
#include "core/sched_ctx.h"
#include "core/workers.h"
#include "data/memory.h"
#include "perfmodel/perfmodel.h"

#include <vela_extension.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_BUFFER (1u << 20)

uint64_t rec_origin;

/* State of the current session; written by init/shutdown (one thread,
 * with no worker running) and the start/stop API. */
static struct trace_writer rec_w;
static int rec_open;		/* the file is open */
static int rec_paused;		/* starpu_fxt_stop_profiling */
static int rec_autostart = 1;	/* starpu_fxt_autostart_profiling */
static unsigned rec_gen;	/* session generation (rt_thread cache) */
static size_t rec_bufsize;
static struct trace_buf *rec_wbufs[STARPU_NMAXWORKERS];
static char rec_path[4096];
static int rec_id = -1;		/* starpu_profiling_set_id */
static int rec_written;		/* rec_path names the last trace written */
static _Atomic int rec_write_warned;
/* vela_trace_set_process: set by the layer above (its init and shutdown,
 * one thread), read when a session starts. */
static struct
{
	uint64_t run_id;
	int rank;
	unsigned nranks;
} rec_group = { 0, -1, 0 };

int rec_is_open(void)
{
	return rec_open;
}

static void on_write_error(struct trace_writer *w, int err)
{
	(void) w;
	if (atomic_exchange(&rec_write_warned, 1))
		return;
	char buf[128];
	starpu_strerror_r(err, buf, sizeof(buf));
	rt_warn("trace: writing '%s' failed (%s); later events are dropped, the run continues", rec_path, buf);
}

static size_t buffer_size(void)
{
	if (rt.conf.trace_buffer_size)
		return (size_t) rt.conf.trace_buffer_size;
	const char *s = getenv("STARPU_TRACE_BUFFER_SIZE");
	if (s && *s)
	{
		char *end;
		long mb = strtol(s, &end, 10);
		if (*end || mb <= 0 || mb > 4096)
			rt_warn("starpu_init: STARPU_TRACE_BUFFER_SIZE='%s' is not a size in MiB (1..4096); using 1", s);
		else
			return (size_t) mb << 20;
	}
	return DEFAULT_BUFFER;
}

int rec_self_worker(void)
{
	struct worker *w = worker_self();
	return w ? w->id : -1;
}

struct trace_buf *rec_buf_worker(struct worker *w)
{
	return rec_open ? rec_wbufs[w->id] : NULL;
}

struct trace_buf *rec_buf_self(void)
{
	if (!rec_open)
		return NULL;
	struct rt_thread *t = rt_thread();
	if (t->trace_gen == rec_gen && t->trace_buf)
		return t->trace_buf;
	struct trace_buf *b = t->worker ? rec_wbufs[t->worker->id] : tw_buf_new(&rec_w, rec_bufsize, -1);
	t->trace_buf = b;
	t->trace_gen = rec_gen;
	return b;
}

/* The run's description: machine, memory nodes, workers. */
static void write_metadata(void)
{
	struct trace_buf *b = rec_buf_self();
	if (!b)
		return;
	/* The machine as the performance models name it (STARPU_HOSTNAME, or
	 * this host's short name): in simulation, the simulated machine. */
	char host[256] = "";
	if (pm_conf.hostname[0])
		snprintf(host, sizeof(host), "%s", pm_conf.hostname);
	else
		gethostname(host, sizeof(host) - 1);
	struct sched_ctx *ctx = sched_ctx_get(GLOBAL_SCHED_CTX);
	struct trace_rec_run run;
	memset(&run, 0, sizeof(run));
	run.wall_origin_ns = (uint64_t) time(NULL) * 1000000000ULL;
	run.nworkers = rt.nworkers;
	run.nnodes = mem_nnodes;
	run.pid = (uint32_t) getpid();
	run.host_sid = tb_string(b, host);
	run.policy_sid = tb_string(b, ctx && ctx->policy ? ctx->policy->policy_name : NULL);
	run.program_sid = tb_string(b, program_invocation_short_name);
	tb_run(b, &run);
	for (unsigned n = 0; n < mem_nnodes; n++)
		tb_node(b, n, (uint32_t) mem_nodes[n].kind, mem_nodes[n].name);
	for (unsigned i = 0; i < rt.nworkers; i++)
	{
		struct worker *w = &rt.workers[i];
		tb_worker(b, w->id, (uint32_t) w->arch, w->memory_node, w->name, w->bindid);
	}
	if (rec_group.rank >= 0)
		tb_process(b, rec_group.run_id, rec_group.rank, rec_group.nranks);
	tb_flush(b);
}

void rec_session_start(void)
{
	if (rt.conf.vela_trace != 1)
		return;
	const char *dir = rt.conf.vela_trace_prefix && *rt.conf.vela_trace_prefix ? rt.conf.vela_trace_prefix : ".";
	const char *user = getenv("USER");
	if (!user || !*user)
		user = getenv("LOGNAME");
	size_t dl = strlen(dir);
	int n = snprintf(rec_path, sizeof(rec_path), "%s%svela_trace_%s_%d", dir,
			 dl && dir[dl - 1] == '/' ? "" : "/", user && *user ? user : "user",
			 rec_id >= 0 ? rec_id : (int) getpid());
	if (n < 0 || (size_t) n >= sizeof(rec_path))
	{
		rt_warn("starpu_init: STARPU_FXT_PREFIX='%s' is too long; no trace is recorded, the run continues", dir);
		return;
	}
	rec_written = 0;
	int ret = tw_open(&rec_w, rec_path, os_is_simulated() ? TRACE_FILE_SIMULATED : 0);
	if (ret)
	{
		char buf[128];
		starpu_strerror_r(-ret, buf, sizeof(buf));
		rt_warn("starpu_init: cannot create the trace file '%s' (STARPU_FXT_PREFIX='%s'): %s; no trace is recorded, the run continues",
			rec_path, dir, buf);
		return;
	}
	rec_w.on_error = on_write_error;
	atomic_store(&rec_write_warned, 0);
	rec_origin = trace_now();
	rec_gen++;
	rec_bufsize = buffer_size();
	memset(rec_wbufs, 0, sizeof(rec_wbufs));
	for (unsigned i = 0; i < rt.nworkers; i++)
	{
		rec_wbufs[i] = tw_buf_new(&rec_w, rec_bufsize, (int) i);
		if (!rec_wbufs[i])
		{
			rt_warn("starpu_init: out of memory for the trace buffers (%zu bytes per thread); no trace is recorded", rec_bufsize);
			tw_close(&rec_w, 0);
			unlink(rec_path);
			return;
		}
		rt.workers[i].tstate.trace_buf = rec_wbufs[i];
		rt.workers[i].tstate.trace_gen = rec_gen;
	}
	rec_open = 1;
	rec_written = 1;
	rec_paused = !rec_autostart;
	write_metadata();
}

void rec_session_end(void)
{
	if (!rec_open)
		return;
	rec_open = 0;
	trace_flags_update();
	struct trace_writer *w = &rec_w;
	uint64_t end = rec_rel(trace_now());
	int ret = tw_close(w, end);
	memset(rec_wbufs, 0, sizeof(rec_wbufs));
	if (ret)
	{
		if (!atomic_load(&rec_write_warned))
		{
			char buf[128];
			starpu_strerror_r(-ret, buf, sizeof(buf));
			rt_warn("starpu_shutdown: the trace '%s' could not be completed (%s)", rec_path, buf);
		}
		return;
	}
	rt_info("trace written to %s (%llu tasks, %llu records); see `vela trace --help`",
		rec_path, (unsigned long long) w->ntasks, (unsigned long long) w->nrecords);
}

/* ------------------------------------------------------------------ */
/* StarPU's FxT API, recording side. */

void trace_flags_update(void)
{
	unsigned f = 0;
	if (prof_enabled())
		f |= TRACE_PROFILING;
	if (rec_open && !rec_paused)
		f |= TRACE_RECORDING;
	__atomic_store_n(&trace_flags, f, __ATOMIC_RELEASE);
}

void starpu_fxt_autostart_profiling(int autostart)
{
	rec_autostart = autostart != 0;
}

void starpu_fxt_start_profiling(void)
{
	rec_paused = 0;
	trace_flags_update();
}

void starpu_fxt_stop_profiling(void)
{
	rec_paused = 1;
	trace_flags_update();
}

int starpu_fxt_is_enabled(void)
{
	if (rec_open)
		return 1;
	const char *s = getenv("STARPU_FXT_TRACE");
	if (!s)
		s = getenv("STARPU_TRACE");
	return s && atoi(s) > 0;
}

void starpu_fxt_trace_user_event(unsigned long code)
{
	if (!(__atomic_load_n(&trace_flags, __ATOMIC_RELAXED) & TRACE_RECORDING))
		return;
	struct trace_buf *b = rec_buf_self();
	if (b)
		tb_user(b, rec_self_worker(), NULL, code, rec_rel(trace_now()));
}

void starpu_fxt_trace_user_event_string(const char *s)
{
	if (!s || !(__atomic_load_n(&trace_flags, __ATOMIC_RELAXED) & TRACE_RECORDING))
		return;
	struct trace_buf *b = rec_buf_self();
	if (b)
		tb_user(b, rec_self_worker(), s, 0, rec_rel(trace_now()));
}

void starpu_profiling_set_id(int new_id)
{
	rec_id = new_id;
}

/* ------------------------------------------------------------------ */
/* The trace hook of distributed runs (vela_extension.h). */

int vela_trace_is_open(void)
{
	return rec_open;
}

uint64_t vela_trace_now(void)
{
	return rec_open ? rec_rel(trace_now()) : 0;
}

void vela_trace_set_process(uint64_t run_id, int rank, unsigned nranks)
{
	if (rank < 0 || (unsigned) rank >= nranks)
	{
		rec_group.rank = -1;
		return;
	}
	rec_group.run_id = run_id;
	rec_group.rank = rank;
	rec_group.nranks = nranks;
	struct trace_buf *b = rec_buf_self();
	if (b)
	{
		tb_process(b, run_id, rank, nranks);
		tb_flush(b);	/* in the file before any message of this run */
	}
}

void vela_trace_clock_sync(uint64_t local, uint64_t ref, uint64_t err, int ref_rank)
{
	struct trace_buf *b = rec_buf_self();
	if (b)
		tb_clock(b, local, ref, err, ref_rank);
}

void vela_trace_comm(const struct vela_trace_comm *c)
{
	if (!c || !(__atomic_load_n(&trace_flags, __ATOMIC_RELAXED) & TRACE_RECORDING))
		return;
	struct trace_buf *b = rec_buf_self();
	if (!b)
		return;
	struct trace_rec_comm r;
	memset(&r, 0, sizeof(r));
	r.peer = c->peer;
	r.flags = c->flags & (TCF_SEND | TCF_SYNC);
	r.tag = c->tag;
	r.seq = c->seq;
	r.channel = c->channel;
	r.bytes = c->bytes;
	r.submit = c->submit;
	r.start = c->start;
	r.end = c->end < c->start ? c->start : c->end;
	r.handle = c->handle ? trace_handle_id(c->handle) : 0;
	r.worker = rec_self_worker();
	tb_comm(b, &r);
}

const char *vela_trace_get_path(void)
{
	return rec_written ? rec_path : NULL;
}
