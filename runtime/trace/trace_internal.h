/* trace_internal.h — what the observers of runtime/trace/ share: the
 * recorder (record.c) and the profiler (profiling.c), both fed by the hook
 * slow paths (events.c). Nothing outside runtime/trace/ includes this.
 */
#ifndef VELA_TRACE_INTERNAL_H
#define VELA_TRACE_INTERNAL_H

#include "trace/trace.h"
#include "trace/writer.h"

struct worker;

/* The name under which a task's codelet is reported. */
static inline const char *trace_codelet_name(const struct starpu_task *task)
{
	const struct starpu_codelet *cl = task->cl;
	if (!cl)
		return "(no codelet)";
	if (cl->name)
		return cl->name;
	if (cl->model && cl->model->symbol)
		return cl->model->symbol;
	return "(unnamed)";
}

/* ------------------------------------------------------------------ */
/* Recorder (record.c). */

/* Origin of the trace's times (absolute ns); valid while recording. */
extern uint64_t rec_origin;

static inline uint64_t rec_rel(uint64_t abs_ns)
{
	return abs_ns > rec_origin ? abs_ns - rec_origin : (abs_ns ? 1 : 0);
}

/* Opens the trace file if the configuration asks for one. */
void rec_session_start(void);
/* Writes the end record and closes the file. */
void rec_session_end(void);
/* Whether a trace file is open in this session (it may be paused). */
int rec_is_open(void);
/* The buffer of worker w, or of the calling thread (NULL if none could be
 * made). Only while recording. */
struct trace_buf *rec_buf_worker(struct worker *w);
struct trace_buf *rec_buf_self(void);
/* The calling thread's worker id, or -1. */
int rec_self_worker(void);
/* A handle's id in traces (events.c): 1, 2, ... never reused. */
uint64_t trace_handle_id(starpu_data_handle_t h);

/* ------------------------------------------------------------------ */
/* Profiler (profiling.c). */

/* Reads STARPU_PROFILING and the STARPU_*_STATS variables; resets the
 * counters. */
void prof_session_start(void);
/* Prints the reports the environment asked for. */
void prof_session_end(void);
/* The requested profiling status (starpu_profiling_status_set), which
 * outlives a session as in StarPU. */
int prof_enabled(void);

void prof_exec(struct worker *w, struct job *job, uint64_t start, uint64_t end);
void prof_idle(struct worker *w, uint64_t ns);
void prof_transfer(unsigned src, unsigned dst, size_t bytes);
void prof_mem(unsigned node, int op, size_t bytes);

/* Recomputes trace_flags from the observers' states. */
void trace_flags_update(void);

#endif /* VELA_TRACE_INTERNAL_H */
