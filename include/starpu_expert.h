/* starpu_expert.h — hooks for applications that drive progression
 * themselves. starpu_wake_all_blocked_workers wakes every sleeping worker
 * (they look for work again). Progression hooks run in the workers' loops
 * and idle hooks when a worker finds no work; a hook returning non-zero
 * asks to be called again soon. Registration returns a hook id (>= 0) or
 * -EBUSY when all slots are taken.
 */
#ifndef STARPU_EXPERT_H
#define STARPU_EXPERT_H

#ifdef __cplusplus
extern "C"
{
#endif

void starpu_wake_all_blocked_workers(void);
int starpu_progression_hook_register(unsigned (*func)(void *arg), void *arg);
void starpu_progression_hook_deregister(int hook_id);
int starpu_idle_hook_register(unsigned (*func)(void *arg), void *arg);
void starpu_idle_hook_deregister(int hook_id);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_EXPERT_H */
