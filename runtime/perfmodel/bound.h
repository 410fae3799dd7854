/* bound.h — recording for starpu_bound (bound.c, bound_deps.c): task
 * submission calls bound_record, and the dependency layers report each
 * edge of the task graph with bound_on_dep; each costs one atomic load
 * unless a bound is recording (with starpu_bound_start's deps=1 for the
 * edges). */
#ifndef VELA_BOUND_H
#define VELA_BOUND_H

#include <starpu.h>
#include <stdatomic.h>

/* 0: not recording; 1: recording tasks; 2: tasks and their dependencies. */
extern atomic_int bound_recording;

void bound_record_slow(struct starpu_task *task, unsigned long job_id);
void bound_dep_slow(unsigned long pred_id, unsigned long succ_id);

static inline void bound_record(struct starpu_task *task, unsigned long job_id)
{
	if (atomic_load_explicit(&bound_recording, memory_order_relaxed))
		bound_record_slow(task, job_id);
}

static inline int bound_deps_recording(void)
{
	return atomic_load_explicit(&bound_recording, memory_order_relaxed) == 2;
}

/* The job pred_id must end before the job succ_id starts (task, tag and
 * implicit data dependencies; ids are job ids, one per submission). */
static inline void bound_on_dep(unsigned long pred_id, unsigned long succ_id)
{
	if (bound_deps_recording())
		bound_dep_slow(pred_id, succ_id);
}

#endif /* VELA_BOUND_H */
