/* starpu_task_bundle.h — task bundles: tasks an application groups so that
 * the data-aware policies (dm, dmda, dmdar, dmdas) place them together. A
 * bundle is filled before its tasks are submitted; when the policy places a
 * task of a bundle it weighs the whole bundle (the sum of its tasks'
 * expected lengths and of the transfers their data needs). A task leaves
 * its bundle when removed or freed. A closed bundle takes no more tasks
 * and is freed once its last task has left.
 */
#ifndef STARPU_TASK_BUNDLE_H
#define STARPU_TASK_BUNDLE_H

#include <starpu_task.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_perfmodel_arch;

/* An empty open bundle in *bundle. */
void starpu_task_bundle_create(starpu_task_bundle_t *bundle);
/* Adds a task not submitted yet: 0; -EPERM if the bundle is closed,
 * -EINVAL if the task is submitted or in another bundle. */
int starpu_task_bundle_insert(starpu_task_bundle_t bundle, struct starpu_task *task);
/* Takes a task out: 0, or -ENOENT when it is not in the bundle. */
int starpu_task_bundle_remove(starpu_task_bundle_t bundle, struct starpu_task *task);
/* No more insertions; the bundle is freed when it is empty. */
void starpu_task_bundle_close(starpu_task_bundle_t bundle);
/* Sums over the bundle's tasks of their expected length, energy, and of
 * the time to bring their data to memory_node (each handle counted once). */
double starpu_task_bundle_expected_length(starpu_task_bundle_t bundle, struct starpu_perfmodel_arch *arch, unsigned nimpl);
double starpu_task_bundle_expected_data_transfer_time(starpu_task_bundle_t bundle, unsigned memory_node);
double starpu_task_bundle_expected_energy(starpu_task_bundle_t bundle, struct starpu_perfmodel_arch *arch, unsigned nimpl);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_TASK_BUNDLE_H */
