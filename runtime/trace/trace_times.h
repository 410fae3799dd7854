/* trace_times.h — the timestamps the observers keep in a job while its
 * task goes through the runtime (included by core/job.h; see trace.h).
 *
 * Absolute nanoseconds from os_timestamp_ns(), 0 when the step was not
 * observed (observers off at that moment, or the step did not happen).
 * Cleared at each submission.
 */
#ifndef VELA_TRACE_TIMES_H
#define VELA_TRACE_TIMES_H

#include <stdint.h>

struct trace_job_times
{
	uint64_t submit;
	uint64_t push;		/* handed to the scheduling policy */
	uint64_t pop_start;	/* its worker started looking for work */
	uint64_t pop_end;	/* its worker got it */
	uint64_t exec_start;	/* input data ready */
};

#endif /* VELA_TRACE_TIMES_H */
