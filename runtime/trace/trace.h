/* trace.h — observers of the runtime: profiling and trace recording.
 *
 * The core does not trace; it announces. At each step of a task's life
 * (submit, dependency, push, pop, execution, termination), of a worker's
 * (idle, asleep) and of the data (transfer, allocation), the core calls one
 * of the tiny inline hooks below. Each hook tests one global word,
 * trace_flags, and returns: with every observer off, the hot path pays a
 * predictable branch per hook and nothing else. With an observer on, the
 * hook stamps the job or calls the out-of-line slow path (events.c), which
 * dispatches to the observers:
 *
 *   - profiling (profiling.c): the StarPU profiling API — task->profiling_info,
 *     per-worker, per-bus and per-node counters, the STARPU_*_STATS reports;
 *   - recording (record.c): a binary trace (trace_format.h) written through
 *     per-thread buffers (writer.h) to STARPU_FXT_PREFIX, read back by the
 *     `vela trace` exporters (tools/), which is where Paje, Chrome JSON, SVG,
 *     tasks.rec, dot and statistics come from: one event stream, many views.
 *
 * Time is os_timestamp_ns() (trace_now()): real time in a real run, simulated time in a
 * simulated one (the OS seam decides), so the same observers serve both.
 *
 * Threads: a hook runs on the thread doing the step. Timestamps of a task go
 * into its job (struct trace_job_times, job.h), whose steps are ordered by
 * the runtime's own synchronisation. Records go to the calling thread's own
 * buffer; nothing on a hook's path takes a lock except when a buffer is full
 * (one chunk write under the writer's lock) or when profiling updates a
 * worker's counters (that worker's leaf lock).
 *
 * Call sites, each a commented one-liner: core/task.c (submit), core/job.c
 * (dependency, callback, termination, job cleanup), core/tags.c (tag
 * dependency), data/implicit.c (dependencies on terminated tasks), sched/policy.c (push), drivers/driver_loop.c (pop, execution,
 * idle, sleep), data/memory.c (copies, allocations), core/init.c (start and
 * stop of the observers).
 */
#ifndef VELA_TRACE_H
#define VELA_TRACE_H

#include <starpu.h>
#include <stdint.h>
#include "core/job.h"
#include "os/os.h"
#include "trace/trace_format.h"

struct worker;

/* Observers switched on. Written by init/shutdown and the on/off API
 * (starpu_profiling_status_set, starpu_fxt_start/stop_profiling), read by
 * every hook with a relaxed load. */
#define TRACE_PROFILING 0x1u
#define TRACE_RECORDING 0x2u
extern unsigned trace_flags;

static inline int trace_on(void)
{
	return __builtin_expect(__atomic_load_n(&trace_flags, __ATOMIC_RELAXED) != 0, 0);
}

/* Whether a trace is being recorded (data/implicit.c keeps ghosts then). */
static inline int trace_recording(void)
{
	return __builtin_expect((__atomic_load_n(&trace_flags, __ATOMIC_RELAXED) & TRACE_RECORDING) != 0, 0);
}

/* The observers' clock: os_timestamp_ns() + 1. A stamp of 0 means "not
 * observed", and a simulation starts at time 0: without the offset, what
 * happens at the first instant of a simulated run would be lost (the
 * first task's start, every submission's time). */
static inline uint64_t trace_now(void)
{
	return os_timestamp_ns() + 1;
}

/* A timestamp when an observer is on, else 0 ("not observed"). */
static inline uint64_t trace_stamp(void)
{
	return trace_on() ? trace_now() : 0;
}

/* Life cycle (core/init.c). trace_init: after the workers and memory nodes
 * exist, before the worker threads start; reads STARPU_PROFILING,
 * STARPU_FXT_TRACE and friends. Never fails the runtime: a trace that cannot
 * be written is a warning. trace_shutdown: after the worker threads stopped;
 * prints the STARPU_*_STATS reports and closes the trace. */
void trace_init(void);
void trace_shutdown(void);

/* Out-of-line parts (events.c). */
void trace_submit_slow(struct job *job);
void trace_dep_slow(struct job *pred, struct job *succ, int end_dep);
void trace_ghost_dep_slow(uint64_t pred, struct job *succ);
void trace_tag_dep_slow(starpu_tag_t tag, starpu_tag_t dep);
void trace_pop_slow(struct worker *w, struct job *job);
void trace_pop_refused_slow(struct worker *w);
void trace_exec_end_slow(struct worker *w, struct job *job, int failed);
void trace_terminate_slow(struct job *job);
void trace_callback_times_slow(struct starpu_profiling_task_info *pi, uint64_t start, uint64_t end);
void trace_callback_slow(unsigned long job_id, uint64_t start, uint64_t end);
void trace_idle_slow(struct worker *w, uint64_t start, int found);
void trace_sleep_slow(struct worker *w, uint64_t start);
void trace_transfer_slow(unsigned src, unsigned dst, size_t bytes, uint64_t start);
void trace_mem_slow(unsigned node, int op, size_t bytes, uintptr_t addr);
void trace_job_fini_slow(struct job *job);

/* ------------------------------------------------------------------ */
/* Hooks, in the order of a task's life. */

/* starpu_task_submit: the job has its id; dependencies come next. */
static inline void trace_on_submit(struct job *job)
{
	if (trace_on())
		trace_submit_slow(job);
}

/* succ waits for pred (start dependency, or end dependency with end_dep). */
static inline void trace_on_dep(struct job *pred, struct job *succ, int end_dep)
{
	if (trace_on())
		trace_dep_slow(pred, succ, end_dep);
}

/* Recording only: succ would have waited for the job whose id is pred,
 * had pred not terminated before succ was submitted (data/implicit.c). */
static inline void trace_on_ghost_dep(uint64_t pred, struct job *succ)
{
	if (trace_recording())
		trace_ghost_dep_slow(pred, succ);
}

/* starpu_tag_declare_deps: tag waits for dep. */
static inline void trace_on_tag_dep(starpu_tag_t tag, starpu_tag_t dep)
{
	if (trace_on())
		trace_tag_dep_slow(tag, dep);
}

/* The job is handed to the scheduling policy (before: once pushed, a
 * worker may already be running it). */
static inline void trace_on_push(struct job *job)
{
	if (trace_on())
		job->tt.push = trace_now();
}

/* Worker w got the job from the policy or its local queue. */
static inline void trace_on_pop(struct worker *w, struct job *job)
{
	if (trace_on())
		trace_pop_slow(w, job);
}

/* w gives back the task it popped (it cannot run it): the next pop is not
 * the one its last idle span ended with. */
static inline void trace_on_pop_refused(struct worker *w)
{
	if (trace_on())
		trace_pop_refused_slow(w);
}

/* Input data is ready on w's node; the kernel starts. */
static inline void trace_on_exec_start(struct job *job)
{
	/* Without data there was nothing to fetch: no second stamp. */
	if (trace_on())
		job->tt.exec_start = job->nbuffers ? trace_now() : job->tt.pop_end;
}

/* The kernel returned (failed: it did not run, or the driver failed). */
static inline void trace_on_exec_end(struct worker *w, struct job *job, int failed)
{
	if (trace_on())
		trace_exec_end_slow(w, job, failed);
}

/* Termination: data released, dependents about to be released, then the
 * callback (reported on its own below). Called before the task may be
 * submitted again: the job is still this submission's. */
static inline void trace_on_terminate(struct job *job)
{
	if (trace_on())
		trace_terminate_slow(job);
}

/* The task's callback ran from start to end (trace_stamp()'s values
 * around it; 0: not observed). The job may already be submitted again, so
 * it is named by the id it had. trace_on_callback_times completes the
 * task's profiling record, pi, and is called under the job's lock while
 * pi still belongs to that submission (it only stores the times);
 * trace_on_callback records the span, without the job's lock. */
static inline void trace_on_callback_times(struct starpu_profiling_task_info *pi, uint64_t start, uint64_t end)
{
	if (start && pi && (__atomic_load_n(&trace_flags, __ATOMIC_RELAXED) & TRACE_PROFILING))
		trace_callback_times_slow(pi, start, end);
}

static inline void trace_on_callback(unsigned long job_id, uint64_t start, uint64_t end)
{
	if (start && trace_recording())
		trace_callback_slow(job_id, start, end);
}

/* The job's resources are being freed (job_fini): the profiling record the
 * runtime allocated goes with them, observers on or not. */
static inline void trace_on_job_fini(struct job *job)
{
	if (job->owns_profiling_info)
		trace_job_fini_slow(job);
}

/* ------------------------------------------------------------------ */
/* Workers. start is trace_stamp()'s value when the state began. */

/* w found no task from start until now (polling, then maybe sleeping);
 * found: it has one now, and trace_on_pop comes next. */
static inline void trace_on_idle(struct worker *w, uint64_t start, int found)
{
	if (start)
		trace_idle_slow(w, start, found);
}

/* w slept on its condition from start until now. */
static inline void trace_on_sleep(struct worker *w, uint64_t start)
{
	if (start)
		trace_sleep_slow(w, start);
}

/* ------------------------------------------------------------------ */
/* Data. */

/* A copy of bytes from node src to node dst ran from start until now. */
static inline void trace_on_transfer(unsigned src, unsigned dst, size_t bytes, uint64_t start)
{
	if (start)
		trace_transfer_slow(src, dst, bytes, start);
}

/* op is TM_ALLOC, TM_FREE or TM_EVICT (trace_format.h). */
static inline void trace_on_mem(unsigned node, int op, size_t bytes, uintptr_t addr)
{
	if (trace_on())
		trace_mem_slow(node, op, bytes, addr);
}

#endif /* VELA_TRACE_H */
