/* events.c — the slow paths of the hooks of trace.h: they turn what the
 * core announces into profiling updates (profiling.c) and trace records
 * (record.c), according to trace_flags. Runs on the thread doing the step;
 * see trace.h for the threading rules.
 */
#include "trace/trace_internal.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"
#include "data/data.h"
#include "data/memory.h"

#include <stdlib.h>
#include <string.h>

unsigned trace_flags;

/* Per worker, written only by the worker's own thread: the end of its
 * last activity (the start of its next look for work), and the record of
 * the task it executed last, kept until the task terminates when that
 * happens right away on this thread (the usual case): one record per task.
 * When an idle span ends with a task in hand, its end stamp is the task's
 * pop time too (popped): one clock read, not two.
 * Each on its own cache lines. */
struct worker_obs
{
	uint64_t last;
	int popped;			/* last ended an idle span that found a task */
	struct job *pending;		/* job of rec, or NULL */
	struct trace_rec_task rec;
} __attribute__((aligned(64)));

static struct worker_obs wobs[STARPU_NMAXWORKERS];

/* Dependencies declared before their tasks were submitted (job ids are
 * given at submission): kept until both ends have an id. pending_lock is
 * a leaf lock; the list is short-lived and only used on that path. */
struct pending_dep
{
	struct job *pred, *succ;
	uint32_t flags;
};

static os_mutex_t pending_lock = OS_MUTEX_INITIALIZER;
static struct pending_dep *pending;	/* owned; freed at shutdown */
static unsigned npending, cappending;
static _Atomic unsigned pending_count;

static unsigned flags_now(void)
{
	return __atomic_load_n(&trace_flags, __ATOMIC_RELAXED);
}

static void to_timespec(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t) (ns / 1000000000ULL);
	ts->tv_nsec = (long) (ns % 1000000000ULL);
}

/* Emits the pending dependencies job completes (it just got its id). */
static void resolve_pending(struct job *job)
{
	struct trace_buf *b = rec_buf_self();
	os_mutex_lock(&pending_lock);
	for (unsigned i = 0; i < npending;)
	{
		struct pending_dep *d = &pending[i];
		if ((d->pred == job || d->succ == job) && d->pred->id && d->succ->id)
		{
			if (b)
				tb_dep(b, d->pred->id, d->succ->id, d->flags);
			*d = pending[--npending];
			atomic_fetch_sub(&pending_count, 1);
		}
		else
			i++;
	}
	os_mutex_unlock(&pending_lock);
}

/* The handle's id in traces: 1, 2, ... in order of first submission,
 * never reused (an address may be, once a handle is freed). */
static _Atomic uint64_t next_handle_id;

uint64_t trace_handle_id(starpu_data_handle_t h)
{
	uint64_t id = __atomic_load_n(&h->trace_id, __ATOMIC_RELAXED);
	if (id)
		return id;
	uint64_t mine = atomic_fetch_add_explicit(&next_handle_id, 1, memory_order_relaxed) + 1;
	if (__atomic_compare_exchange_n(&h->trace_id, &id, mine, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return mine;
	return id;	/* another thread named it first */
}

/* TR_TASK_DATA: the task's codelet, model and buffers, for replays;
 * returns the total size of the buffers it names. */
static uint64_t record_task_data(struct trace_buf *b, struct job *job)
{
	struct starpu_task *task = job->task;
	struct starpu_codelet *cl = task->cl;
	struct starpu_perfmodel *m = cl->model;
	uint32_t model_sid = m && m->symbol ? tb_string(b, m->symbol) : 0;
	unsigned nbuffers = STARPU_TASK_GET_NBUFFERS(task), n = nbuffers;
	struct trace_task_buffer *e = tb_task_data(b, job->id, model_sid, m ? (uint32_t) m->type + 1 : 0,
						   cl->where, &n);
	uint64_t total = 0;
	/* The task was submitted: its handles are valid (checked anyway). */
	for (unsigned i = 0; i < nbuffers; i++)
	{
		starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
		if (!data_handle_valid(h))
			continue;
		uint64_t size = starpu_data_get_size(h);
		total += size;
		if (i < n)	/* a truncated record counts the rest, lists none */
			e[i] = (struct trace_task_buffer) { trace_handle_id(h), size, (uint32_t) STARPU_TASK_GET_MODE(task, i),
							    h->home_node };
	}
	return total;
}

void trace_submit_slow(struct job *job)
{
	struct starpu_task *task = job->task;
	memset(&job->tt, 0, sizeof(job->tt));
	job->tt.submit = trace_now();
	if (flags_now() & TRACE_RECORDING)
	{
		if (atomic_load_explicit(&pending_count, memory_order_relaxed))
			resolve_pending(job);
		/* Handles are named in order of first submission, whatever
		 * order their tasks then run in. */
		for (unsigned i = 0, n = task->cl ? STARPU_TASK_GET_NBUFFERS(task) : 0; i < n; i++)
		{
			starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
			if (data_handle_valid(h))
				trace_handle_id(h);
		}
	}
	if (!(flags_now() & TRACE_PROFILING))
		return;
	if (!task->profiling_info)
	{
		/* As in StarPU: the runtime provides the record when the
		 * application did not; it lives as long as the task's job
		 * (freed by trace_on_job_fini). */
		task->profiling_info = calloc(1, sizeof(*task->profiling_info));
		if (!task->profiling_info)
			return;
		job->owns_profiling_info = 1;
	}
	struct starpu_profiling_task_info *pi = task->profiling_info;
	memset(pi, 0, sizeof(*pi));
	to_timespec(job->tt.submit, &pi->submit_time);
	pi->workerid = -1;
}

void trace_job_fini_slow(struct job *job)
{
	if (job->task)
	{
		free(job->task->profiling_info);
		job->task->profiling_info = NULL;
	}
	job->owns_profiling_info = 0;
}

void trace_dep_slow(struct job *pred, struct job *succ, int end_dep)
{
	if (!(flags_now() & TRACE_RECORDING) || pred->kind != JOB_TASK || succ->kind != JOB_TASK)
		return;
	uint32_t flags = end_dep ? TDF_END_DEP : 0;
	if (!pred->id || !succ->id)
	{
		/* Declared before submission: emitted once both have ids. */
		os_mutex_lock(&pending_lock);
		if (npending == cappending)
		{
			unsigned cap = cappending ? cappending * 2 : 64;
			struct pending_dep *p = realloc(pending, cap * sizeof(*p));
			if (!p)
			{
				os_mutex_unlock(&pending_lock);
				return;
			}
			pending = p;
			cappending = cap;
		}
		pending[npending++] = (struct pending_dep) { pred, succ, flags };
		atomic_fetch_add(&pending_count, 1);
		os_mutex_unlock(&pending_lock);
		return;
	}
	struct trace_buf *b = rec_buf_self();
	if (b)
		tb_dep(b, pred->id, succ->id, flags);
}

void trace_ghost_dep_slow(uint64_t pred, struct job *succ)
{
	if (succ->kind != JOB_TASK || !succ->id || !pred)
		return;
	struct trace_buf *b = rec_buf_self();
	if (b)
		tb_dep(b, pred, succ->id, 0);
}

void trace_tag_dep_slow(starpu_tag_t tag, starpu_tag_t dep)
{
	if (!(flags_now() & TRACE_RECORDING))
		return;
	struct trace_buf *b = rec_buf_self();
	if (b)
		tb_tag_dep(b, tag, dep);
}

void trace_pop_refused_slow(struct worker *w)
{
	wobs[w->id].popped = 0;
}

void trace_pop_slow(struct worker *w, struct job *job)
{
	struct worker_obs *o = &wobs[w->id];
	if (o->popped)
	{
		o->popped = 0;
		job->tt.pop_start = job->tt.pop_end = o->last;
		return;
	}
	uint64_t now = trace_now();
	uint64_t last = o->last;
	job->tt.pop_end = now;
	job->tt.pop_start = last && last <= now ? last : now;
}

/* The footprint the task's performance model files it under on w (the
 * data footprint when it has no model or did not run). */
static uint32_t task_footprint(struct job *job, struct worker *w)
{
	struct starpu_task *task = job->task;
	struct starpu_perfmodel_arch *arch = w && task->cl->model ? starpu_worker_get_perf_archtype(w->id, job->sched_ctx) : NULL;
	if (arch)
		return starpu_task_footprint(task->cl->model, task, arch, job->nimpl);
	return starpu_task_data_footprint(task);
}

/* Fills r, but for the execution fields, and records the task's
 * TR_TASK_DATA beside it. */
static void fill_task_record(struct trace_buf *b, struct job *job, struct worker *w, struct trace_rec_task *r)
{
	struct starpu_task *task = job->task;
	r->job = job->id;
	if (task->use_tag)
	{
		r->tag = task->tag_id;
		r->flags |= TTF_HAS_TAG;
	}
	r->submit = rec_rel(job->tt.submit);
	r->push = rec_rel(job->tt.push);
	const char *name = starpu_task_get_name(task), *cname = trace_codelet_name(task);
	r->codelet_sid = tb_string(b, cname);
	r->name_sid = name == cname ? r->codelet_sid : tb_string(b, name);
	r->worker = -1;
	r->priority = task->priority;
	r->flops = task->flops;
	r->nbuffers = (uint16_t) job->nbuffers;
	r->sched_ctx = (uint8_t) job->sched_ctx;
	if (task->cl)
	{
		r->footprint = task_footprint(job, w);
		r->data_bytes = record_task_data(b, job);
	}
}

static void emit_pending(struct trace_buf *b, struct worker_obs *o)
{
	tb_task(b, &o->rec);
	o->pending = NULL;
}

void trace_exec_end_slow(struct worker *w, struct job *job, int failed)
{
	uint64_t end = trace_now();
	unsigned f = flags_now();
	struct starpu_task *task = job->task;
	uint64_t start = job->tt.exec_start ? job->tt.exec_start : end;
	struct worker_obs *o = &wobs[w->id];
	o->last = end;

	if (f & TRACE_PROFILING)
	{
		if (!failed)
			prof_exec(w, job, start, end);
		struct starpu_profiling_task_info *pi = task->profiling_info;
		if (pi)
		{
			to_timespec(job->tt.push, &pi->push_start_time);
			to_timespec(job->tt.push, &pi->push_end_time);
			to_timespec(job->tt.pop_start, &pi->pop_start_time);
			to_timespec(job->tt.pop_end, &pi->pop_end_time);
			to_timespec(job->tt.pop_end, &pi->acquire_data_start_time);
			to_timespec(start, &pi->acquire_data_end_time);
			to_timespec(start, &pi->start_time);
			to_timespec(end, &pi->end_time);
			pi->workerid = w->id;
		}
	}
	if (f & TRACE_RECORDING)
	{
		struct trace_buf *b = rec_buf_worker(w);
		if (!b)
			return;
		if (o->pending)
			emit_pending(b, o);	/* its termination went elsewhere */
		struct trace_rec_task *r = &o->rec;
		memset(r, 0, sizeof(*r));
		r->h.type = TR_TASK;
		r->h.size = sizeof(*r);
		fill_task_record(b, job, w, r);
		r->pop_start = rec_rel(job->tt.pop_start);
		r->pop_end = rec_rel(job->tt.pop_end);
		r->exec_start = rec_rel(start);
		r->exec_end = rec_rel(end);
		r->worker = w->id;
		r->node = (uint8_t) w->memory_node;
		r->impl = (uint8_t) job->nimpl;
		r->flags |= TTF_EXECUTED | (failed ? TTF_FAILED : 0);
		/* With no end dependency left, this thread terminates the task
		 * as soon as we return: the record waits for it. */
		if (atomic_load_explicit(&job->term_calls, memory_order_relaxed) == 1)
			o->pending = job;
		else
			emit_pending(b, o);
	}
}

void trace_terminate_slow(struct job *job)
{
	uint64_t end = trace_now();
	unsigned f = flags_now();
	struct starpu_task *task = job->task;
	struct rt_thread *t = rt_thread();
	int self = t->worker ? t->worker->id : -1;
	struct worker_obs *o = self >= 0 ? &wobs[self] : NULL;
	if (o)
		o->last = end;

	if (f & TRACE_PROFILING)
	{
		struct starpu_profiling_task_info *pi = task->profiling_info;
		if (pi)
		{
			if (!job->worker)
			{
				/* Nothing executed: the task ends where it became ready. */
				uint64_t at = job->tt.push ? job->tt.push : end;
				to_timespec(at, &pi->push_start_time);
				to_timespec(at, &pi->push_end_time);
				to_timespec(end, &pi->start_time);
				to_timespec(end, &pi->end_time);
			}
			pi->release_data_start_time = pi->end_time;
			to_timespec(end, &pi->release_data_end_time);
		}
	}
	if (!(f & TRACE_RECORDING))
		return;
	struct trace_buf *b = o ? rec_buf_worker(t->worker) : rec_buf_self();
	if (!b)
		return;
	if (o && o->pending == job)
	{
		o->rec.end = rec_rel(end);
		o->rec.flags |= TTF_ENDED;
		emit_pending(b, o);
	}
	else if (job->worker)
		tb_task_end(b, job->id, rec_rel(end), self);
	else
	{
		struct trace_rec_task *r = tb_task_reserve(b);
		fill_task_record(b, job, NULL, r);
		r->end = rec_rel(end);
		r->flags |= TTF_NOOP | TTF_ENDED;
	}
}

void trace_callback_times_slow(struct starpu_profiling_task_info *pi, uint64_t start, uint64_t end)
{
	to_timespec(start, &pi->callback_start_time);
	to_timespec(end, &pi->callback_end_time);
}

void trace_callback_slow(unsigned long job_id, uint64_t start, uint64_t end)
{
	struct rt_thread *t = rt_thread();
	struct trace_buf *b = t->worker ? rec_buf_worker(t->worker) : rec_buf_self();
	if (b)
		tb_state(b, t->worker ? t->worker->id : -1, TS_CALLBACK, rec_rel(start), rec_rel(end), job_id);
}

void trace_idle_slow(struct worker *w, uint64_t start, int found)
{
	uint64_t end = trace_now();
	unsigned f = flags_now();
	wobs[w->id].last = end;
	wobs[w->id].popped = found;
	if (end < start)
		return;
	if (f & TRACE_PROFILING)
		prof_idle(w, end - start);
	if (f & TRACE_RECORDING)
	{
		struct trace_buf *b = rec_buf_worker(w);
		if (b)
			tb_state(b, w->id, TS_IDLE, rec_rel(start), rec_rel(end), 0);
	}
}

void trace_sleep_slow(struct worker *w, uint64_t start)
{
	if (!(flags_now() & TRACE_RECORDING))
		return;
	uint64_t end = trace_now();
	struct trace_buf *b = rec_buf_worker(w);
	if (b && end >= start)
		tb_state(b, w->id, TS_SLEEP, rec_rel(start), rec_rel(end), 0);
}

void trace_transfer_slow(unsigned src, unsigned dst, size_t bytes, uint64_t start)
{
	uint64_t end = trace_now();
	unsigned f = flags_now();
	if (f & TRACE_PROFILING)
		prof_transfer(src, dst, bytes);
	if (f & TRACE_RECORDING)
	{
		struct trace_buf *b = rec_buf_self();
		if (b)
			tb_transfer(b, src, dst, bytes, rec_rel(start), rec_rel(end), 0, rec_self_worker());
	}
}

void trace_mem_slow(unsigned node, int op, size_t bytes, uintptr_t addr)
{
	unsigned f = flags_now();
	if (f & TRACE_PROFILING)
		prof_mem(node, op, bytes);
	if ((f & TRACE_RECORDING) && rt_is_up())
	{
		struct trace_buf *b = rec_buf_self();
		if (b)
			tb_mem(b, node, (uint32_t) op, bytes, rec_rel(trace_now()), addr);
	}
}

/* ------------------------------------------------------------------ */

void trace_init(void)
{
	memset(wobs, 0, sizeof(wobs));
	prof_session_start();
	rec_session_start();
	trace_flags_update();
}

void trace_shutdown(void)
{
	/* Records still waiting for a termination that will not come now. */
	for (unsigned i = 0; i < rt.nworkers && i < STARPU_NMAXWORKERS; i++)
	{
		struct trace_buf *b = wobs[i].pending ? rec_buf_worker(&rt.workers[i]) : NULL;
		if (b)
			emit_pending(b, &wobs[i]);
		wobs[i].pending = NULL;
	}
	/* The trace first: its end record says the run ended cleanly, and a
	 * report printed afterwards cannot lose it. */
	rec_session_end();
	trace_flags_update();
	prof_session_end();
	/* Dependencies whose tasks were never submitted. */
	os_mutex_lock(&pending_lock);
	free(pending);
	pending = NULL;
	npending = cappending = 0;
	atomic_store(&pending_count, 0);
	os_mutex_unlock(&pending_lock);
}
