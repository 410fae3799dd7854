/* task_pool.h — memory for tasks made by starpu_task_create() (job.c's
 * job_alloc_task and job_destroy_task; the design in task_pool.c). */
#ifndef VELA_TASK_POOL_H
#define VELA_TASK_POOL_H

#include <starpu.h>

/* Memory for one task (uninitialised), or NULL without memory. */
struct starpu_task *task_pool_get(void);
/* The task's memory, from task_pool_get, is free again (its contents may
 * still be read for a while: a destroyed task's magic). */
void task_pool_put(struct starpu_task *task);

#endif /* VELA_TASK_POOL_H */
