/* rt.h — the runtime's global state, per-thread state and messages.
 *
 * One struct runtime exists per process (rt). starpu_init() fills it and
 * starpu_shutdown() empties it so that init can run again. Fields written
 * after init are either atomics or protected by the lock named next to them.
 *
 * Per-thread state (struct rt_thread) goes through the OS seam's keys, never
 * through __thread variables: in a simulated run all actors may share one OS
 * thread.
 */
#ifndef VELA_RT_H
#define VELA_RT_H

#include <starpu.h>
#include <stdatomic.h>
#include "os/os.h"

struct worker;
struct job;

/* Lifecycle of the runtime, in rt.state. */
enum rt_state
{
	RT_DOWN = 0,
	RT_STARTING,
	RT_UP,
	RT_STOPPING
};

/* Per-thread runtime state. Workers embed theirs in struct worker;
 * application threads get one lazily (rt_thread()). */
struct rt_thread
{
	struct worker *worker;		/* NULL in application threads */
	struct starpu_task *current_task;	/* task whose codelet/callback runs here */
	int in_codelet;			/* blocking runtime calls return -EDEADLK */
	int in_callback;
	unsigned sched_ctx;		/* starpu_sched_ctx_set_context(), or STARPU_NMAX_SCHED_CTXS */
	/* Jobs with nothing to execute whose termination is deferred to avoid
	 * recursing through long chains of such jobs (job.c). */
	struct job *deferred_head;
	struct job *deferred_tail;
	int draining;
	int heap_allocated;
	/* The job whose buffers this thread is fetching, and how many of them
	 * it has pinned so far: eviction does not count those pins as memory
	 * that may yet be released (data/coherency.c, data/memalloc.c). */
	struct job *fetching;
	unsigned fetching_npinned;
	/* Between rt_capture_begin and rt_capture_end, the first error
	 * message is kept here instead of printed (core/failures.c). */
	int capturing;
	char captured[512];
	/* This thread's trace buffer (trace/record.c), valid while trace_gen
	 * matches the recording session's generation. */
	void *trace_buf;
	unsigned trace_gen;
};

struct runtime
{
	_Atomic int state;		/* enum rt_state */
	struct starpu_conf conf;	/* user conf with the environment applied */
	int silent;			/* STARPU_SILENT */
	/* STARPU_LIMIT_MAX_SUBMITTED_TASKS / _MIN_: an application thread
	 * submitting while more than limit_max tasks are in flight waits
	 * until at most limit_min are (core/task.c); -1: no limit. */
	int limit_max_submitted;
	int limit_min_submitted;

	unsigned nworkers;
	unsigned ncpus;
	/* Idle workers poll a while before sleeping (drivers/driver_loop.c);
	 * not in a simulation (polling cannot advance simulated time), nor
	 * when the process may run on one PU only (workers_setup). */
	int workers_poll;
	uint32_t worker_mask;		/* STARPU_CPU | ... for the kinds present */
	struct worker *workers;		/* array of nworkers, owned by rt */

	_Atomic int running;		/* worker loops continue while set */

	/* starpu_pause(): pause_depth > 0 keeps workers from taking tasks.
	 * Written under pause_mutex (a leaf lock), read without it. */
	os_mutex_t pause_mutex;
	os_cond_t pause_cond;
	_Atomic int pause_depth;

	/* Task accounting. The counters are atomics, each on its own cache
	 * line: they are written by every submission and termination, and
	 * must not drag the read-mostly fields above along. submit_mutex
	 * protects the waiters' sleep against the last decrement. */
	_Alignas(64) _Atomic long nsubmitted;	/* submitted, not yet terminated */
	_Alignas(64) _Atomic long nready;	/* dependencies met, not yet terminated */
	_Alignas(64) _Atomic unsigned long next_job_id;
	_Alignas(64) _Atomic int nwaiters;	/* threads in a wait_for_* call */
	_Atomic long wait_threshold;		/* wake waiters when nsubmitted <= this */
	os_mutex_t submit_mutex;
	os_cond_t submit_cond;

	/* Workers told to stop by starpu_drivers_request_termination(). */
	_Atomic int drivers_termination_requested;

	/* Key of the per-thread state, created with the current backend. */
	os_key_t thread_key;
	const struct os_ops *thread_key_backend;
};

extern struct runtime rt;

static inline int rt_is_up(void)
{
	return atomic_load_explicit(&rt.state, memory_order_acquire) == RT_UP;
}

/* The calling thread's state, created on first use. */
struct rt_thread *rt_thread(void);
/* Forgets the calling application thread's state (at shutdown). */
void rt_thread_release(void);
/* Installs a worker thread's state (its struct is owned by the worker). */
void rt_thread_set(struct rt_thread *state);

/* Nonzero when the calling thread runs a codelet or callback, where a
 * blocking runtime call could deadlock; what names the call for the message. */
int rt_may_not_block(const char *what);

/* Messages. Errors are always printed; warnings and information are
 * silenced by STARPU_SILENT. Each names the API call and offending value. */
void rt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Keeps the first error message this thread prints from begin to end
 * instead of printing it (the cause of a failing task, core/failures.c).
 * end returns it ("" if none) and prints it after all when print is set
 * (the task did not fail after all). */
void rt_capture_begin(struct rt_thread *t);
const char *rt_capture_end(struct rt_thread *t, int print);
/* Failed tasks (core/failures.c): records that job failed with err on w;
 * what is the failure ("failed on", followed by the worker's name), why
 * the captured cause or "". The first task of each cause prints a line;
 * failures_report (at shutdown) prints a line per cause with its count. */
void failures_record(struct job *job, struct worker *w, int err, const char *what, const char *why);
void failures_report(void);
void failures_reset(void);
/* The watchdog (core/watchdog.c): conf reads STARPU_WATCHDOG_* (-EINVAL
 * when malformed), start runs its thread if STARPU_WATCHDOG_TIMEOUT is
 * set, stop ends it; while enabled, submission tracks each job and
 * termination untracks it. */
int watchdog_conf(void);
int watchdog_start(void);
void watchdog_stop(void);
int watchdog_enabled(void);
void watchdog_track(struct job *job);
void watchdog_untrack(struct job *job);
void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Task accounting (task.c). */
void rt_task_counters_done(int was_ready);

#endif /* VELA_RT_H */
