/* starpu_task_dep.h — explicit dependencies: between tasks, and through tags.
 *
 * Besides the dependencies the runtime infers from data accesses, an
 * application may order tasks explicitly, either directly (task B waits for
 * task A) or through tags: 64-bit names a task carries (task->tag_id with
 * task->use_tag) and that other tags may depend on. A tag is done when the
 * task carrying it has terminated, or when the application notifies it.
 */
#ifndef STARPU_TASK_DEP_H
#define STARPU_TASK_DEP_H

#include <starpu_config.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_task;

/* task will not start before every task of task_array has terminated.
 * Must be called before task is submitted. */
void starpu_task_declare_deps_array(struct starpu_task *task, unsigned ndeps, struct starpu_task *task_array[]);
void starpu_task_declare_deps(struct starpu_task *task, unsigned ndeps, ...);

/* task will not be considered terminated before every task of task_array
 * has terminated. */
void starpu_task_declare_end_deps_array(struct starpu_task *task, unsigned ndeps, struct starpu_task *task_array[]);
void starpu_task_declare_end_deps(struct starpu_task *task, unsigned ndeps, ...);

/* Fills task_array with up to ndeps successors of task; returns how many
 * successors there are (which may exceed ndeps). */
int starpu_task_get_task_succs(struct starpu_task *task, unsigned ndeps, struct starpu_task *task_array[]);
int starpu_task_get_task_scheduled_succs(struct starpu_task *task, unsigned ndeps, struct starpu_task *task_array[]);

/* Holds task's termination until nb_deps calls of starpu_task_end_dep_release. */
void starpu_task_end_dep_add(struct starpu_task *t, int nb_deps);
void starpu_task_end_dep_release(struct starpu_task *t);

typedef uint64_t starpu_tag_t;

/* Tag id depends on the ndeps tags that follow. A dependency that would
 * close a cycle is refused with an error message naming the tags. */
void starpu_tag_declare_deps(starpu_tag_t id, unsigned ndeps, ...);
void starpu_tag_declare_deps_array(starpu_tag_t id, unsigned ndeps, starpu_tag_t *array);

/* Blocks until the tag(s) are done; -EDEADLK from a codelet or callback. */
int starpu_tag_wait(starpu_tag_t id);
int starpu_tag_wait_array(unsigned ntags, starpu_tag_t *id);

/* Makes a done tag usable again (it may be notified or reached again). */
void starpu_tag_restart(starpu_tag_t id);
/* Forgets the tag and what depends on it. */
void starpu_tag_remove(starpu_tag_t id);
/* Marks the tag done from the application (for tags with no task). */
void starpu_tag_notify_from_apps(starpu_tag_t id);
void starpu_tag_notify_restart_from_apps(starpu_tag_t id);

/* The task currently carrying the tag, or NULL. */
struct starpu_task *starpu_tag_get_task(starpu_tag_t id);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_TASK_DEP_H */
