/* starpu_profiling.h — profiling: what happened to each task, how each
 * worker spent its time, how much data crossed each bus.
 *
 * Profiling is off by default; STARPU_PROFILING=1 or
 * starpu_profiling_status_set(STARPU_PROFILING_ENABLE) switches it on. Then
 * each submitted task gets a task->profiling_info record (the runtime
 * allocates one if the application did not, and frees it with the task),
 * complete when the task's callback runs, and the worker and bus counters
 * run. Times are on the runtime's clock, the one starpu_timing_now() reads
 * (simulated time in a simulated run).
 *
 * At starpu_shutdown(), STARPU_WORKER_STATS=1, STARPU_BUS_STATS=1,
 * STARPU_MEMORY_STATS=1 and STARPU_PROFILING_STATS=1 print reports on
 * stderr (each also switches profiling on).
 */
#ifndef STARPU_PROFILING_H
#define STARPU_PROFILING_H

#include <starpu_config.h>
#include <starpu_util.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define STARPU_PROFILING_DISABLE 0
#define STARPU_PROFILING_ENABLE 1

/* One task's life; each time is when the step began or ended. */
struct starpu_profiling_task_info
{
	struct timespec submit_time;
	struct timespec push_start_time;	/* handed to the scheduler */
	struct timespec push_end_time;
	struct timespec pop_start_time;		/* its worker started looking for work */
	struct timespec pop_end_time;		/* its worker got it */
	struct timespec acquire_data_start_time;
	struct timespec acquire_data_end_time;
	struct timespec start_time;		/* execution */
	struct timespec end_time;
	struct timespec release_data_start_time;
	struct timespec release_data_end_time;
	struct timespec callback_start_time;
	struct timespec callback_end_time;
	int workerid;				/* -1 if it did not run on a worker */
	uint64_t used_cycles;			/* 0 when unknown */
	uint64_t stall_cycles;
	double energy_consumed;			/* Joules; 0 when unknown */
};

/* A worker's activity since the previous starpu_profiling_worker_get_info
 * (or since profiling was switched on). */
struct starpu_profiling_worker_info
{
	struct timespec start_time;
	struct timespec total_time;
	struct timespec executing_time;
	struct timespec sleeping_time;		/* idle: looking for work or asleep */
	int executed_tasks;
	uint64_t used_cycles;
	uint64_t stall_cycles;
	double energy_consumed;
	double flops;				/* sum of the executed tasks' task->flops */
};

/* Traffic on one bus (an ordered pair of memory nodes) since the previous
 * starpu_bus_get_profiling_info. */
struct starpu_profiling_bus_info
{
	struct timespec start_time;
	struct timespec total_time;
	int long long transferred_bytes;
	int transfer_count;
};

/* Resets the counters; switches profiling on if STARPU_PROFILING > 0. */
void starpu_profiling_init(void);
/* The number used in the trace file's name instead of the process id
 * (call before starpu_init). */
void starpu_profiling_set_id(int new_id);
/* Switches profiling on or off and resets every counter; returns the
 * previous status, or -EINVAL for a status other than the two above. */
int starpu_profiling_status_set(int status);
int starpu_profiling_status_get(void);

/* Copies and resets worker workerid's counters (worker_info NULL: only
 * resets). 0, or -EINVAL for a worker that does not exist. */
int starpu_profiling_worker_get_info(int workerid, struct starpu_profiling_worker_info *worker_info);

/* Buses: one per ordered pair of distinct memory nodes. */
int starpu_bus_get_count(void);
/* -1 if there is no such bus. */
int starpu_bus_get_id(int src, int dst);
int starpu_bus_get_src(int busid);
int starpu_bus_get_dst(int busid);
void starpu_bus_set_direct(int busid, int direct);
int starpu_bus_get_direct(int busid);
void starpu_bus_set_ngpus(int busid, int ngpus);
int starpu_bus_get_ngpus(int busid);
/* Copies and resets the bus's counters; 0 or -EINVAL. */
int starpu_bus_get_profiling_info(int busid, struct starpu_profiling_bus_info *bus_info);

/* timespec arithmetic. */
static inline void starpu_timespec_clear(struct timespec *tsp)
{
	tsp->tv_sec = 0;
	tsp->tv_nsec = 0;
}

#define STARPU_NS_PER_S 1000000000

/* result = a + b */
static inline void starpu_timespec_add(struct timespec *a, struct timespec *b, struct timespec *result)
{
	long ns = a->tv_nsec + b->tv_nsec;
	result->tv_sec = a->tv_sec + b->tv_sec + (ns >= STARPU_NS_PER_S);
	result->tv_nsec = ns >= STARPU_NS_PER_S ? ns - STARPU_NS_PER_S : ns;
}

/* result += a */
static inline void starpu_timespec_accumulate(struct timespec *result, struct timespec *a)
{
	struct timespec r;
	starpu_timespec_add(result, a, &r);
	*result = r;
}

/* result = a - b */
static inline void starpu_timespec_sub(const struct timespec *a, const struct timespec *b, struct timespec *result)
{
	long ns = a->tv_nsec - b->tv_nsec;
	result->tv_sec = a->tv_sec - b->tv_sec - (ns < 0);
	result->tv_nsec = ns < 0 ? ns + STARPU_NS_PER_S : ns;
}

#define starpu_timespec_cmp(a, b, CMP) \
	(((a)->tv_sec == (b)->tv_sec) ? ((a)->tv_nsec CMP (b)->tv_nsec) : ((a)->tv_sec CMP (b)->tv_sec))

/* end - start, in microseconds. */
double starpu_timing_timespec_delay_us(struct timespec *start, struct timespec *end);
double starpu_timing_timespec_to_us(struct timespec *ts);

/* Reports on stderr. Each prints only if its environment variable is set
 * (STARPU_BUS_STATS, STARPU_WORKER_STATS, STARPU_MEMORY_STATS), as in
 * StarPU; starpu_shutdown() calls them. */
void starpu_profiling_bus_helper_display_summary(void);
void starpu_profiling_worker_helper_display_summary(void);
void starpu_data_display_memory_stats(void);

/* Vela addition: everything profiling knows — per codelet (tasks, mean and
 * total execution time), per worker, per bus, per memory node — on stderr,
 * whatever the environment. STARPU_PROFILING_STATS=1 prints it at
 * starpu_shutdown(). Call it while no task runs. */
void starpu_profiling_display_stats(void);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_PROFILING_H */
