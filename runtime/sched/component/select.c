/* select.c — the special-purpose components: perfmodel_select routes a
 * task by the state of its model (needs calibration / no model /
 * calibrated), best_implementation picks the implementation of least
 * predicted length for the workers below it (an uncalibrated one first, so
 * that it gets measured), records it with starpu_task_set_implementation and
 * its prediction in task->predicted, and passes the task to its only child.
 */
#include "sched/component/component_internal.h"

#include <math.h>
#include <stdlib.h>

static int select_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	struct starpu_sched_component_perfmodel_select_data *d = c->data;
	double len;
	if (!starpu_sched_component_execute_preds(c, task, &len))
		return 1;
	struct starpu_sched_component *to;
	if (!task->cl || !task->cl->model)
		to = d->no_perfmodel_component;
	else if (isnan(len))
		to = d->calibrator_component;
	else
		to = d->perfmodel_component;
	if (!to)
		to = d->perfmodel_component ? d->perfmodel_component : d->no_perfmodel_component;
	return to ? to->push_task(to, task) : 1;
}

static void select_deinit(struct starpu_sched_component *c)
{
	free(c->data);
}

struct starpu_sched_component *starpu_sched_component_perfmodel_select_create(struct starpu_sched_tree *tree,
									      struct starpu_sched_component_perfmodel_select_data *p)
{
	struct starpu_sched_component *c = starpu_sched_component_create(tree, "perfmodel_select");
	struct starpu_sched_component_perfmodel_select_data *d = calloc(1, sizeof(*d));
	if (!c || !d)
		abort();
	if (p)
		*d = *p;
	c->data = d;
	c->push_task = select_push;
	c->deinit_data = select_deinit;
	struct starpu_sched_component *kids[3] = { d->calibrator_component, d->no_perfmodel_component, d->perfmodel_component };
	for (unsigned i = 0; i < 3; i++)
		if (kids[i])
			starpu_sched_component_connect(c, kids[i]);
	return c;
}

int starpu_sched_component_is_perfmodel_select(struct starpu_sched_component *c)
{
	return c && c->push_task == select_push;
}

static int best_impl_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	if (c->nchildren == 0)
		return 1;
	unsigned ctx = c->tree ? c->tree->sched_ctx_id : 0;
	struct starpu_bitmap *ws = starpu_bitmap_cardinal(c->workers_in_ctx) ? c->workers_in_ctx : c->workers;
	/* The workers below are of one kind (the component sits above one
	 * worker, or a homogeneous group): the first capable one decides. */
	for (int w = starpu_bitmap_first(ws); w >= 0; w = starpu_bitmap_next(ws, w))
	{
		double best = INFINITY;
		int best_impl = -1;
		for (unsigned impl = 0; impl < STARPU_MAXIMPLEMENTATIONS; impl++)
		{
			if (!starpu_worker_can_execute_task((unsigned) w, task, impl))
				continue;
			double l = starpu_task_expected_length(task, starpu_worker_get_perf_archtype(w, ctx), impl);
			if (isnan(l))
			{
				/* Not calibrated: run this one, so that it gets measured. */
				best = NAN;
				best_impl = (int) impl;
				break;
			}
			if (best_impl < 0 || l < best)
			{
				best = l;
				best_impl = (int) impl;
			}
		}
		if (best_impl >= 0)
		{
			starpu_task_set_implementation(task, (unsigned) best_impl);
			task->predicted = best;
			task->predicted_transfer = starpu_task_expected_data_transfer_time_for(task, (unsigned) w);
			break;
		}
	}
	struct starpu_sched_component *ch = c->children[0];
	return ch->push_task(ch, task);
}

struct starpu_sched_component *starpu_sched_component_best_implementation_create(struct starpu_sched_tree *tree, void *arg)
{
	(void) arg;
	struct starpu_sched_component *c = starpu_sched_component_create(tree, "best_implementation");
	if (!c)
		abort();
	c->push_task = best_impl_push;
	return c;
}
