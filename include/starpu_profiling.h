/* starpu_profiling.h — per-task and per-worker profiling records.
 *
 * task->profiling_info points to one of these when profiling is enabled;
 * the profiling API and the trace observers come with the observability
 * work (runtime/trace/). Times are on the runtime's clock.
 */
#ifndef STARPU_PROFILING_H
#define STARPU_PROFILING_H

#include <starpu_config.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_profiling_task_info
{
	struct timespec submit_time;
	struct timespec push_start_time;
	struct timespec push_end_time;
	struct timespec pop_start_time;
	struct timespec pop_end_time;
	struct timespec acquire_data_start_time;
	struct timespec acquire_data_end_time;
	struct timespec start_time;
	struct timespec end_time;
	struct timespec release_data_start_time;
	struct timespec release_data_end_time;
	struct timespec callback_start_time;
	struct timespec callback_end_time;
	int workerid;
	uint64_t used_cycles;
	uint64_t stall_cycles;
	double energy_consumed;
};

#ifdef __cplusplus
}
#endif

#endif /* STARPU_PROFILING_H */
