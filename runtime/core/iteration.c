/* iteration.c — starpu_iteration_push/pop: the application numbers its
 * submission loops, per scheduling context (the context of the calling
 * thread, starpu_sched_ctx_get_context), nested. Each push and pop is a
 * user event in the execution trace ("starpu_iteration_push <n>" at the
 * depth it opens), so trace viewers show where each iteration's tasks were
 * submitted. A pop without its push is refused with a message.
 */
#include "core/rt.h"

#include <stdio.h>

#define MAX_DEPTH 16	/* deeper pushes are counted, not recorded */

static os_mutex_t iter_lock = OS_MUTEX_INITIALIZER;	/* protects iters; taken alone */
static struct
{
	unsigned depth;
	unsigned long value[MAX_DEPTH];
} iters[STARPU_NMAX_SCHED_CTXS + 1];

static unsigned current_ctx(void)
{
	unsigned ctx = starpu_sched_ctx_get_context();
	return ctx < STARPU_NMAX_SCHED_CTXS ? ctx : STARPU_NMAX_SCHED_CTXS;
}

void starpu_iteration_push(unsigned long iteration)
{
	unsigned ctx = current_ctx();
	os_mutex_lock(&iter_lock);
	unsigned depth = iters[ctx].depth++;
	if (depth < MAX_DEPTH)
		iters[ctx].value[depth] = iteration;
	os_mutex_unlock(&iter_lock);
	char ev[64];
	snprintf(ev, sizeof(ev), "starpu_iteration_push %lu (level %u)", iteration, depth);
	starpu_fxt_trace_user_event_string(ev);
}

void starpu_iteration_pop(void)
{
	unsigned ctx = current_ctx();
	os_mutex_lock(&iter_lock);
	if (!iters[ctx].depth)
	{
		os_mutex_unlock(&iter_lock);
		rt_error("starpu_iteration_pop: no starpu_iteration_push to match in context %u (-EINVAL)",
			 ctx < STARPU_NMAX_SCHED_CTXS ? ctx : 0);
		return;
	}
	unsigned depth = --iters[ctx].depth;
	unsigned long value = depth < MAX_DEPTH ? iters[ctx].value[depth] : 0;
	os_mutex_unlock(&iter_lock);
	char ev[64];
	snprintf(ev, sizeof(ev), "starpu_iteration_pop %lu (level %u)", value, depth);
	starpu_fxt_trace_user_event_string(ev);
}
