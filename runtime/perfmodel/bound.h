/* bound.h — recording for starpu_bound (bound.c): task submission calls
 * bound_record, which costs one atomic load unless a bound is recording. */
#ifndef VELA_BOUND_H
#define VELA_BOUND_H

#include <starpu.h>
#include <stdatomic.h>

extern atomic_int bound_recording;

void bound_record_slow(struct starpu_task *task);

static inline void bound_record(struct starpu_task *task)
{
	if (atomic_load_explicit(&bound_recording, memory_order_relaxed))
		bound_record_slow(task);
}

#endif /* VELA_BOUND_H */
