/* simple.c — starpu_sched_component_initialize_simple_scheduler: the usual
 * shape of a tree around one decision component, as flags describe it:
 *
 *   [fifo|prio above]            reservoir for the runtime's pushes
 *   [perfmodel_select]           uncalibrated / model-less tasks → eager
 *   decision component           eager, random, mct, heft, ...
 *   [fifo|prio per worker]       bounded when there is a reservoir above
 *   [best_implementation]
 *   worker leaf
 *
 * Every worker of the machine gets a leaf; the context's own workers are
 * the leaves' workers_in_ctx, so workers can join and leave the context
 * without rebuilding the tree.
 */
#include "sched/component/component_internal.h"
#include "sched/sched.h"

#include <limits.h>
#include <stdlib.h>

void sched_tree_build_simple(starpu_sched_component_create_t create_decision, void *data, unsigned flags, unsigned ctx, int bounded_below)
{
	struct starpu_sched_tree *t = starpu_sched_tree_create(ctx);
	if (!t)
		abort();
	struct starpu_sched_component *decision = create_decision(t, data);
	struct starpu_sched_component *top = decision;
	struct starpu_sched_component *calib = NULL, *nomodel = NULL;
	if (flags & STARPU_SCHED_SIMPLE_PERFMODEL)
	{
		calib = starpu_sched_component_eager_create(t, NULL);
		nomodel = starpu_sched_component_eager_create(t, NULL);
		struct starpu_sched_component_perfmodel_select_data sd = {
			.calibrator_component = calib,
			.no_perfmodel_component = nomodel,
			.perfmodel_component = decision,
		};
		top = starpu_sched_component_perfmodel_select_create(t, &sd);
	}
	unsigned ntasks_threshold = 0;
	double exp_len_threshold = 0.0;
	if (bounded_below)
	{
		ntasks_threshold = (unsigned) starpu_get_env_number_default("STARPU_NTASKS_THRESHOLD", 2);
		exp_len_threshold = starpu_get_env_float_default("STARPU_EXP_LEN_THRESHOLD", 0.0);
	}
	unsigned nworkers = starpu_worker_get_count();
	for (unsigned w = 0; w < nworkers; w++)
	{
		struct starpu_sched_component *below = starpu_sched_component_worker_new(ctx, (int) w);
		if (flags & STARPU_SCHED_SIMPLE_IMPL)
		{
			struct starpu_sched_component *impl = starpu_sched_component_best_implementation_create(t, NULL);
			starpu_sched_component_connect(impl, below);
			below = impl;
		}
		if (flags & (STARPU_SCHED_SIMPLE_FIFOS_BELOW | STARPU_SCHED_SIMPLE_FIFOS_BELOW_PRIO))
		{
			struct starpu_sched_component *q;
			if (flags & STARPU_SCHED_SIMPLE_FIFOS_BELOW_PRIO)
			{
				struct starpu_sched_component_prio_data pd = { ntasks_threshold, exp_len_threshold,
									      !!(flags & STARPU_SCHED_SIMPLE_FIFOS_BELOW_READY) };
				q = starpu_sched_component_prio_create(t, &pd);
			}
			else
			{
				struct starpu_sched_component_fifo_data fd = { ntasks_threshold, exp_len_threshold,
									      !!(flags & STARPU_SCHED_SIMPLE_FIFOS_BELOW_READY) };
				q = starpu_sched_component_fifo_create(t, &fd);
			}
			starpu_sched_component_connect(q, below);
			below = q;
		}
		starpu_sched_component_connect(decision, below);
		if (calib)
		{
			starpu_sched_component_connect(calib, below);
			starpu_sched_component_connect(nomodel, below);
		}
	}
	if (flags & (STARPU_SCHED_SIMPLE_FIFO_ABOVE | STARPU_SCHED_SIMPLE_FIFO_ABOVE_PRIO))
	{
		struct starpu_sched_component *root = (flags & STARPU_SCHED_SIMPLE_FIFO_ABOVE_PRIO)
			? starpu_sched_component_prio_create(t, NULL)
			: starpu_sched_component_fifo_create(t, NULL);
		starpu_sched_component_connect(root, top);
		top = root;
	}
	t->root = top;
	if (flags & (STARPU_SCHED_SIMPLE_FIFO_ABOVE_PRIO | STARPU_SCHED_SIMPLE_FIFOS_BELOW_PRIO))
	{
		/* Any int is a valid priority, as in the prio policy. */
		if (!starpu_sched_ctx_min_priority_is_set(ctx))
			starpu_sched_ctx_set_min_priority(ctx, INT_MIN);
		if (!starpu_sched_ctx_max_priority_is_set(ctx))
			starpu_sched_ctx_set_max_priority(ctx, INT_MAX);
	}
	starpu_sched_ctx_set_policy_data(ctx, t);
	starpu_sched_tree_update_workers(t);
}

void starpu_sched_component_initialize_simple_scheduler(starpu_sched_component_create_t create_decision_component, void *data,
							 unsigned flags, unsigned sched_ctx_id)
{
	int bounded = (flags & (STARPU_SCHED_SIMPLE_FIFO_ABOVE | STARPU_SCHED_SIMPLE_FIFO_ABOVE_PRIO)) &&
		      (flags & (STARPU_SCHED_SIMPLE_FIFOS_BELOW | STARPU_SCHED_SIMPLE_FIFOS_BELOW_PRIO));
	sched_tree_build_simple(create_decision_component, data, flags, sched_ctx_id, bounded);
}
