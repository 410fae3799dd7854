/* footprint.c — which history entry a task belongs to (its footprint) and
 * the size its regressions use.
 *
 * As in StarPU 1.3 (checked against its files, see tests/perfmodel/
 * test_footprint.c):
 *   - the model's footprint callback, if any, gives the footprint as is;
 *   - else with a size_base (per arch, or the model's), the footprint is
 *     the CRC of that size as a size_t;
 *   - else each buffer's data footprint (the interface's footprint hashed
 *     with the interface id) is folded in order, from 0.
 * The size is the size_base, or the sum of the buffers' data sizes.
 */
#include "perfmodel/perfmodel.h"
#include "core/job.h"

#include <starpu_hash.h>

uint32_t pm_handle_footprint(starpu_data_handle_t handle)
{
	struct starpu_data_interface_ops *ops = starpu_data_get_interface_ops(handle);
	if (!ops)
		return 0;
	uint32_t fp = ops->footprint ? ops->footprint(handle) : 0;
	return starpu_hash_crc32c_be(fp, (uint32_t) ops->interfaceid);
}

/* The per-arch size_base of (comb, impl), if the application set one. */
static starpu_perfmodel_per_arch_size_base per_arch_size_base(struct starpu_perfmodel *model, int comb, unsigned impl)
{
	struct starpu_perfmodel_state *st = __atomic_load_n(&model->state, __ATOMIC_ACQUIRE);
	if (!st || comb < 0 || impl >= STARPU_MAXIMPLEMENTATIONS ||
	    !atomic_load_explicit(&st->pa_given, memory_order_relaxed))
		return NULL;
	starpu_perfmodel_per_arch_size_base f = NULL;
	os_rwlock_rdlock(&st->lock);
	if ((unsigned) comb < st->data.ncombs && st->data.combs[comb])
		f = st->data.combs[comb]->impl[impl].pa.size_base;
	os_rwlock_unlock(&st->lock);
	return f;
}

/* Whether a size_base applies, and its value. */
static int size_base(struct starpu_perfmodel *model, struct starpu_task *task, const struct starpu_perfmodel_arch *arch, int comb, unsigned impl, size_t *size)
{
	if (!model)
		return 0;
	starpu_perfmodel_per_arch_size_base f = per_arch_size_base(model, comb, impl);
	if (f)
	{
		*size = f(task, (struct starpu_perfmodel_arch *) arch, impl);
		return 1;
	}
	if (model->size_base)
	{
		*size = model->size_base(task, impl);
		return 1;
	}
	return 0;
}

size_t pm_task_size(struct starpu_perfmodel *model, struct starpu_task *task, const struct starpu_perfmodel_arch *arch, int comb, unsigned impl)
{
	size_t size;
	if (size_base(model, task, arch, comb, impl, &size))
		return size;
	size = 0;
	if (!task->cl)
		return 0;
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	for (unsigned i = 0; i < n; i++)
	{
		starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
		if (starpu_data_get_interface_ops(h))
			size += starpu_data_get_size(h);
	}
	return size;
}

uint32_t starpu_task_data_footprint(struct starpu_task *task)
{
	if (!task || !task->cl)
		return 0;
	/* Computed once per submission, kept until the task terminates
	 * (struct job, data_fp_state). */
	struct job *job = job_of(task);
	unsigned char state = job ? __atomic_load_n(&job->data_fp_state, __ATOMIC_ACQUIRE) : 0;
	if (state == 2)
		return __atomic_load_n(&job->data_fp, __ATOMIC_RELAXED);
	uint32_t fp = 0;
	unsigned n = STARPU_TASK_GET_NBUFFERS(task);
	for (unsigned i = 0; i < n; i++)
		fp = starpu_hash_crc32c_be(pm_handle_footprint(STARPU_TASK_GET_HANDLE(task, i)), fp);
	if (state == 1)
	{
		__atomic_store_n(&job->data_fp, fp, __ATOMIC_RELAXED);	/* the same value whoever writes it */
		__atomic_compare_exchange_n(&job->data_fp_state, &state, 2, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
	return fp;
}

uint32_t pm_task_footprint(struct starpu_perfmodel *model, struct starpu_task *task, const struct starpu_perfmodel_arch *arch, int comb, unsigned impl)
{
	if (model && model->footprint)
		return model->footprint(task);
	size_t size;
	if (size_base(model, task, arch, comb, impl, &size))
		return starpu_hash_crc32c_be_n(&size, sizeof(size), 0);
	return starpu_task_data_footprint(task);
}

uint32_t starpu_task_footprint(struct starpu_perfmodel *model, struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	if (!task)
		return 0;
	return pm_task_footprint(model, task, arch, arch ? pm_arch_comb(arch) : -1, nimpl);
}
