/* hooks.h — the application's progression and idle hooks (starpu_expert.h),
 * run by idle workers (drivers/driver_loop.c). */
#ifndef VELA_HOOKS_H
#define VELA_HOOKS_H

/* Runs the registered hooks (progression, then idle); non-zero when one
 * asked to be called again soon (the worker does not sleep then). Cheap
 * when none is registered. */
int hooks_run(void);

#endif /* VELA_HOOKS_H */
