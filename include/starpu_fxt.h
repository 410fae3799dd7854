/* starpu_fxt.h — recording an execution trace (StarPU's FxT API).
 *
 * StarPU records traces with FxT and converts them afterwards; Vela records
 * its own binary trace (same switches: STARPU_FXT_TRACE=1 or STARPU_TRACE=1,
 * STARPU_FXT_PREFIX for the directory) and converts it with `vela trace
 * export` to Paje (ViTE), Chrome trace JSON (Perfetto), an SVG Gantt chart,
 * tasks.rec or a Graphviz DAG. Only the recording side of StarPU's API is
 * here; StarPU's converter (starpu_fxt_generate_trace and its options) is
 * replaced by the `vela trace` command.
 */
#ifndef STARPU_FXT_H
#define STARPU_FXT_H

#include <starpu_config.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define STARPU_FXT_MAX_FILES 64

/* Whether recording starts with starpu_init (1, the default) or waits for
 * starpu_fxt_start_profiling (0). Call before starpu_init. */
void starpu_fxt_autostart_profiling(int autostart);
/* Resume / pause recording (the trace file stays open between the two). */
void starpu_fxt_start_profiling(void);
void starpu_fxt_stop_profiling(void);
/* Nonzero when a trace is being recorded (or STARPU_FXT_TRACE asks for one). */
int starpu_fxt_is_enabled(void);
/* A user event in the trace, at the current time on the calling thread:
 * a number, or a string. Nothing happens when no trace is recorded. */
void starpu_fxt_trace_user_event(unsigned long code);
void starpu_fxt_trace_user_event_string(const char *s);

/* Vela addition: the path of the trace file of the current session, or of
 * the last one written by this process; NULL if none. */
const char *vela_trace_get_path(void);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_FXT_H */
