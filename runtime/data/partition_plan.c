/* partition_plan.c — asynchronous partitioning.
 *
 * starpu_data_partition_plan() creates the pieces once (a "plan"); a handle
 * may have several plans, and at a time either one submitted read-write or
 * any number submitted read-only. Switching between the parent and a
 * plan's pieces is itself a task, ordered by the implicit dependencies like
 * any other:
 *
 *   partition_submit           parent RW, pieces W: parent -> pieces
 *   partition_readonly_submit  parent R,  pieces W: both readable
 *   readwrite_upgrade_submit   parent RW, pieces W: read-only -> pieces only
 *   unpartition_submit         pieces R,  parent W: pieces -> parent
 *   unpartition_readonly_submit pieces R, parent W: back to both readable
 *
 * The pieces are accessed in W even when only read back: a write waits for
 * every earlier access, so the parent is not given back while a task still
 * reads a piece (they share memory). These tasks' buffers are marked
 * DATA_MODE_NOFETCH: the coherency layer leaves them alone and the task's
 * kernel moves the data itself: it only brings the parent, or each piece,
 * up to date in the view buffer (the pieces' views and the parent's buffer
 * are the same memory) and records who owns it.
 *
 * Which accesses are allowed is decided at submission, in submission order
 * (data_check_not_partitioned): the parent is unusable (or read-only) while
 * a plan is submitted, the pieces are usable only then. As in StarPU 1.3,
 * an application's task or acquisition need not submit the switches itself:
 * data_partition_access submits those its access needs first (the plans
 * from the root down to the handle, read-only for a read; the handle's own
 * plans gathered, but for read-only ones when it is only read).
 */
#include "data/data.h"
#include "data/memory.h"
#include "core/job.h"
#include "core/rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct partition_plan
{
	unsigned id;
	unsigned char active;			/* submitted (switches in submission order) */
	unsigned char readonly;			/* submitted read-only */
	unsigned nparts;
	starpu_data_handle_t *children;		/* owned copy of the application's array */
	struct partition_plan *next;
};

/* The plan of h made of exactly these pieces, or NULL (message printed). */
static struct partition_plan *find_plan(starpu_data_handle_t h, unsigned nparts, starpu_data_handle_t *children, const char *fn)
{
	if (!data_handle_valid(h))
	{
		rt_error("%s: handle %p is not registered (-EINVAL)", fn, (void *) h);
		return NULL;
	}
	if (!children)
	{
		rt_error("%s: the array of pieces is NULL (-EINVAL)", fn);
		return NULL;
	}
	for (struct partition_plan *p = h->plans; p; p = p->next)
		if (p->nparts == nparts && !memcmp(p->children, children, nparts * sizeof(*children)))
			return p;
	rt_error("%s: these %u pieces are not a partition plan of handle %p (see starpu_data_partition_plan) (-EINVAL)",
		 fn, nparts, (void *) h);
	return NULL;
}

void starpu_data_partition_plan(starpu_data_handle_t initial_handle, struct starpu_data_filter *f, starpu_data_handle_t *children)
{
	const char *fn = "starpu_data_partition_plan";
	starpu_data_handle_t h = initial_handle;
	if (!data_handle_valid(h))
	{
		rt_error("%s: handle %p is not registered (-EINVAL)", fn, (void *) h);
		return;
	}
	if (!children)
	{
		rt_error("%s: the array for the pieces is NULL (-EINVAL)", fn);
		return;
	}
	if (h->partitioned)
	{
		rt_error("%s: handle %p is partitioned with starpu_data_partition (-EINVAL)", fn, (void *) h);
		return;
	}
	unsigned nparts = data_filter_nparts(h, f, fn);
	if (!nparts)
		return;
	struct partition_plan *plan = calloc(1, sizeof(*plan));
	starpu_data_handle_t *copy = calloc(nparts, sizeof(*copy));
	if (!plan || !copy)
	{
		free(plan);
		free(copy);
		rt_error("%s: out of memory (-ENOMEM)", fn);
		return;
	}
	/* The view buffer must exist before the pieces view it (handles
	 * registered with home node -1 get it now; its content is written
	 * when the plan is submitted). */
	unsigned node = data_view_node(h);
	os_mutex_lock(&h->lock);
	int ret;
	while ((ret = data_rep(h, node)->allocated ? 0 : data_allocate_replicate(h, node)) == -EAGAIN)
	{
		os_mutex_unlock(&h->lock);
		data_wait_memory(node);
		os_mutex_lock(&h->lock);
	}
	if (!ret)
		plan->id = ++h->next_plan_id;
	os_mutex_unlock(&h->lock);
	if (ret || data_make_children(h, f, nparts, plan->id, copy, fn))
	{
		if (ret)
			rt_error("%s: cannot allocate handle %p on node %u (%d)", fn, (void *) h, node, ret);
		free(plan);
		free(copy);
		return;
	}
	plan->nparts = nparts;
	plan->children = copy;
	memcpy(children, copy, nparts * sizeof(*copy));
	os_mutex_lock(&h->lock);
	plan->next = h->plans;
	h->plans = plan;
	os_mutex_unlock(&h->lock);
}

/* ------------------------------------------------------------------ */
/* The switching tasks. */

enum switch_kind
{
	SWITCH_TO_PIECES,	/* the parent's data goes to the pieces */
	SWITCH_TO_PARENT,	/* the pieces' data goes back to the parent */
	SWITCH_ORDER_ONLY	/* read-only pieces dropped: nothing moves */
};

struct switch_arg
{
	enum switch_kind kind;
	int readonly;			/* the parent stays valid (read-only partition) */
	starpu_data_handle_t parent;
	unsigned nparts;
	starpu_data_handle_t children[];
};

/* Brings h up to date in its buffer on node. Data never written
 * (registered with no home) has nothing to bring when only_if_written. */
static void make_valid_on(starpu_data_handle_t h, unsigned node, int only_if_written)
{
	if (only_if_written)
	{
		int valid = 0;
		os_mutex_lock(&h->lock);
		for (unsigned n = 0; n < mem_nnodes && !valid; n++)
			valid = rep_valid(data_rep(h, n));
		os_mutex_unlock(&h->lock);
		if (!valid)
			return;
	}
	int ret;
	while ((ret = data_make_valid(h, node, STARPU_R)) == -EAGAIN)
		data_wait_memory(node);
	if (ret)
	{
		rt_error("partitioning: handle %p could not be brought to node %u (%d)", (void *) h, node, ret);
		return;
	}
	data_unpin(h, node, STARPU_R);
}

static void owner_on(starpu_data_handle_t h, unsigned node)
{
	os_mutex_lock(&h->lock);
	data_invalidate_others_locked(h, node);
	os_mutex_unlock(&h->lock);
}

static void switch_cpu(void *buffers[], void *cl_arg)
{
	(void) buffers;
	struct switch_arg *a = cl_arg;
	unsigned node = data_view_node(a->parent);
	if (a->kind == SWITCH_TO_PIECES)
	{
		/* The pieces of data never written write it: nothing to bring
		 * (but a read-only partition reads it). */
		make_valid_on(a->parent, node, !a->readonly);
		if (!a->readonly)
			owner_on(a->parent, node);
		for (unsigned i = 0; i < a->nparts; i++)
			owner_on(a->children[i], node);
	}
	else if (a->kind == SWITCH_TO_PARENT)
	{
		for (unsigned i = 0; i < a->nparts; i++)
			make_valid_on(a->children[i], node, 0);
		owner_on(a->parent, node);
	}
}

static struct starpu_codelet switch_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { switch_cpu },
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
	.name = "partition_switch",
};

static void submit_switch(struct partition_plan *plan, starpu_data_handle_t h, enum switch_kind kind, int readonly,
			  enum starpu_data_access_mode parent_mode, enum starpu_data_access_mode children_mode, const char *fn)
{
	unsigned n = plan->nparts + 1;
	struct switch_arg *a = malloc(sizeof(*a) + plan->nparts * sizeof(starpu_data_handle_t));
	starpu_data_handle_t *handles = malloc(n * sizeof(*handles));
	enum starpu_data_access_mode *modes = malloc(n * sizeof(*modes));
	struct starpu_task *t = starpu_task_create();
	if (!a || !handles || !modes || !t)
	{
		free(a);
		free(handles);
		free(modes);
		if (t)
			starpu_task_destroy(t);
		rt_error("%s: out of memory (-ENOMEM)", fn);
		return;
	}
	a->kind = kind;
	a->readonly = readonly;
	a->parent = h;
	a->nparts = plan->nparts;
	memcpy(a->children, plan->children, plan->nparts * sizeof(starpu_data_handle_t));
	handles[0] = h;
	modes[0] = parent_mode | DATA_MODE_NOFETCH;
	for (unsigned i = 0; i < plan->nparts; i++)
	{
		handles[i + 1] = plan->children[i];
		modes[i + 1] = children_mode | DATA_MODE_NOFETCH;
	}
	t->cl = &switch_cl;
	t->cl_arg = a;
	t->cl_arg_free = 1;
	t->nbuffers = (int) n;
	t->dyn_handles = handles;
	t->dyn_modes = modes;
	job_get(t)->owns_dyn_handles = 1;
	t->type = STARPU_TASK_TYPE_INTERNAL;
	t->name = kind == SWITCH_TO_PIECES ? "partition" : "unpartition";
	int ret = starpu_task_submit(t);
	if (ret)
	{
		rt_error("%s: the partitioning task could not be submitted (%d)", fn, ret);
		starpu_task_destroy(t);
	}
}

/* Whether a piece of the plan is itself partitioned (its data is in its own
 * pieces, which must be gathered first); message printed. */
static int pieces_partitioned(struct partition_plan *plan, const char *fn)
{
	for (unsigned i = 0; i < plan->nparts; i++)
	{
		starpu_data_handle_t c = plan->children[i];
		if (c->partitioned || c->active_plans)
		{
			rt_error("%s: piece %u (%p) is partitioned in turn: unpartition it first (-EINVAL)", fn, i, (void *) c);
			return 1;
		}
	}
	return 0;
}

/* Submits the switch of h to the pieces of plan: read-only (the parent
 * stays readable, the pieces may only be read; several read-only plans may
 * be active together) or not (no other plan active). The handle itself must
 * be accessible in the mode the switch uses (a piece of a plan that is not
 * submitted, or of a read-only one, may not be partitioned for writing). */
static int partition_plan_submit(starpu_data_handle_t h, struct partition_plan *plan, int readonly, const char *fn)
{
	if (h->partitioned)
	{
		rt_error("%s: handle %p is already partitioned with starpu_data_partition (call starpu_data_unpartition first) (-EINVAL)",
			 fn, (void *) h);
		return -EINVAL;
	}
	if (plan->active)
	{
		rt_error("%s: handle %p is already partitioned with these pieces (-EINVAL)", fn, (void *) h);
		return -EINVAL;
	}
	if (h->active_plans && (!readonly || !h->partition_readonly))
	{
		rt_error("%s: handle %p is already partitioned%s (unpartition it first) (-EINVAL)", fn, (void *) h,
			 h->partition_readonly ? " read-only" : "");
		return -EINVAL;
	}
	int ret = data_check_not_partitioned(h, readonly ? STARPU_R : STARPU_RW, fn);
	if (ret)
		return ret;
	plan->active = 1;
	plan->readonly = (unsigned char) readonly;
	h->active_plans++;
	h->partition_readonly = (unsigned char) readonly;
	submit_switch(plan, h, SWITCH_TO_PIECES, readonly, readonly ? STARPU_R : STARPU_RW, STARPU_W, fn);
	return 0;
}

static void partition_submit(starpu_data_handle_t h, unsigned nparts, starpu_data_handle_t *children, int readonly, const char *fn)
{
	struct partition_plan *plan = find_plan(h, nparts, children, fn);
	if (plan)
		partition_plan_submit(h, plan, readonly, fn);
}

void starpu_data_partition_submit(starpu_data_handle_t initial_handle, unsigned nparts, starpu_data_handle_t *children)
{
	partition_submit(initial_handle, nparts, children, 0, "starpu_data_partition_submit");
}

void starpu_data_partition_readonly_submit(starpu_data_handle_t initial_handle, unsigned nparts, starpu_data_handle_t *children)
{
	partition_submit(initial_handle, nparts, children, 1, "starpu_data_partition_readonly_submit");
}

static int upgrade(starpu_data_handle_t h, struct partition_plan *plan, const char *fn)
{
	if (!plan->active || !plan->readonly)
	{
		rt_error("%s: handle %p is not partitioned read-only with these pieces (-EINVAL)", fn, (void *) h);
		return -EINVAL;
	}
	if (h->active_plans > 1)
	{
		rt_error("%s: handle %p has other read-only partitions submitted: unpartition them first (-EINVAL)", fn, (void *) h);
		return -EINVAL;
	}
	if (pieces_partitioned(plan, fn))
		return -EINVAL;
	int ret = data_check_piece(h, 1, fn);
	if (ret)
		return ret;
	plan->readonly = 0;
	h->partition_readonly = 0;
	submit_switch(plan, h, SWITCH_TO_PIECES, 0, STARPU_RW, STARPU_W, fn);
	return 0;
}

void starpu_data_partition_readwrite_upgrade_submit(starpu_data_handle_t initial_handle, unsigned nparts, starpu_data_handle_t *children)
{
	const char *fn = "starpu_data_partition_readwrite_upgrade_submit";
	struct partition_plan *plan = find_plan(initial_handle, nparts, children, fn);
	if (plan)
		upgrade(initial_handle, plan, fn);
}

/* Submits the switch of h from the pieces of plan back to the parent (or,
 * readonly, to both readable). */
static int unpartition_plan(starpu_data_handle_t h, struct partition_plan *plan, int readonly, const char *fn)
{
	if (!plan->active)
	{
		rt_error("%s: handle %p is not partitioned with these pieces (-EINVAL)", fn, (void *) h);
		return -EINVAL;
	}
	if (readonly && plan->readonly)
	{
		rt_error("%s: handle %p is already partitioned read-only (-EINVAL)", fn, (void *) h);
		return -EINVAL;
	}
	if (pieces_partitioned(plan, fn))
		return -EINVAL;
	/* The data is gathered in the view buffer; gathering_node is a hint. */
	if (plan->readonly)
	{
		/* Nothing was written: only the access rules change, once the
		 * readers of the pieces are done. */
		plan->active = 0;
		plan->readonly = 0;
		if (!--h->active_plans)
			h->partition_readonly = 0;
		submit_switch(plan, h, SWITCH_ORDER_ONLY, 1, STARPU_R, STARPU_W, fn);
		return 0;
	}
	if (readonly)
	{
		plan->readonly = 1;
		h->partition_readonly = 1;
	}
	else
	{
		plan->active = 0;
		h->active_plans--;
	}
	submit_switch(plan, h, SWITCH_TO_PARENT, readonly, STARPU_W, STARPU_W, fn);
	return 0;
}

static void unpartition(starpu_data_handle_t h, unsigned nparts, starpu_data_handle_t *children, int gathering_node,
			int readonly, const char *fn)
{
	struct partition_plan *plan = find_plan(h, nparts, children, fn);
	if (!plan)
		return;
	if (gathering_node < -1 || gathering_node >= (int) mem_nnodes)
	{
		rt_error("%s: gathering node %d does not exist (-EINVAL)", fn, gathering_node);
		return;
	}
	unpartition_plan(h, plan, readonly, fn);
}

void starpu_data_unpartition_submit(starpu_data_handle_t initial_handle, unsigned nparts, starpu_data_handle_t *children, int gathering_node)
{
	unpartition(initial_handle, nparts, children, gathering_node, 0, "starpu_data_unpartition_submit");
}

void starpu_data_unpartition_readonly_submit(starpu_data_handle_t initial_handle, unsigned nparts, starpu_data_handle_t *children, int gathering_node)
{
	unpartition(initial_handle, nparts, children, gathering_node, 1, "starpu_data_unpartition_readonly_submit");
}

/* ------------------------------------------------------------------ */
/* Implicit switches: what an access to a handle needs submitted first. */

static struct partition_plan *plan_of_piece(starpu_data_handle_t h)
{
	if (!h->parent || !h->plan_id)
		return NULL;
	for (struct partition_plan *p = h->parent->plans; p; p = p->next)
		if (p->id == h->plan_id)
			return p;
	return NULL;
}

int data_piece_plan_state(starpu_data_handle_t h)
{
	struct partition_plan *plan = plan_of_piece(h);
	if (!plan || !plan->active)
		return 0;
	return plan->readonly ? 1 : 2;
}

/* Makes h itself usable for reading (read-only plans stay, a read-write
 * one is gathered, as StarPU 1.3 does: the application may submit a plan
 * explicitly afterwards) or writing (every plan gathered). Pieces
 * partitioned in turn are gathered first. */
static int gather(starpu_data_handle_t h, int writes, const char *fn)
{
	if (!h->active_plans || (!writes && h->partition_readonly))
		return 0;
	for (struct partition_plan *p = h->plans; p; p = p->next)
	{
		if (!p->active)
			continue;
		int ret = 0;
		for (unsigned i = 0; i < p->nparts && !ret; i++)
			ret = gather(p->children[i], 1, fn);
		if (!ret)
			ret = unpartition_plan(h, p, 0, fn);
		if (ret)
			return ret;
	}
	return 0;
}

/* Makes the plans leading from h's ancestors down to h active: read-only
 * ones do for reading h, writing needs read-write ones all the way. */
static int reach(starpu_data_handle_t h, int writes, const char *fn)
{
	struct partition_plan *plan = h->cleaning ? NULL : plan_of_piece(h);
	if (!plan || (plan->active && !(writes && plan->readonly)))
		return 0;
	starpu_data_handle_t p = h->parent;
	int ret = reach(p, writes, fn);
	if (ret)
		return ret;
	if (plan->active)
	{
		/* read-only, to be written: alone, and with no piece partitioned */
		for (struct partition_plan *q = p->plans; q && !ret; q = q->next)
			if (q != plan && q->active)
			{
				for (unsigned i = 0; i < q->nparts && !ret; i++)
					ret = gather(q->children[i], 1, fn);
				if (!ret)
					ret = unpartition_plan(p, q, 0, fn);
			}
		for (unsigned i = 0; i < plan->nparts && !ret; i++)
			ret = gather(plan->children[i], 1, fn);
		return ret ? ret : upgrade(p, plan, fn);
	}
	ret = gather(p, writes, fn);
	return ret ? ret : partition_plan_submit(p, plan, !writes, fn);
}

int data_partition_access(starpu_data_handle_t h, enum starpu_data_access_mode mode, const char *fn)
{
	int writes = (mode & (STARPU_W | STARPU_REDUX | STARPU_COMMUTE)) != 0;
	int ret = 0;
	if (!h->partitioned)
	{
		ret = reach(h, writes, fn);
		if (!ret)
			ret = gather(h, writes, fn);
	}
	return ret ? ret : data_check_not_partitioned(h, mode, fn);
}

/* ------------------------------------------------------------------ */
/* Cleaning plans. */

static void clean_plan(starpu_data_handle_t h, struct partition_plan *plan, int wait)
{
	/* Pieces partitioned in turn go first: their own pieces are gathered
	 * before this plan's are (unpartition refuses otherwise). */
	for (unsigned i = 0; i < plan->nparts; i++)
	{
		starpu_data_handle_t c = plan->children[i];
		if (c->partitioned)
			starpu_data_unpartition(c, data_view_node(c));
		while (c->plans)
			clean_plan(c, c->plans, wait);
	}
	if (plan->active)
		unpartition_plan(h, plan, 0, "starpu_data_partition_clean");
	os_mutex_lock(&h->lock);
	for (struct partition_plan **pp = &h->plans; *pp; pp = &(*pp)->next)
		if (*pp == plan)
		{
			*pp = plan->next;
			break;
		}
	os_mutex_unlock(&h->lock);
	for (unsigned i = 0; i < plan->nparts; i++)
	{
		starpu_data_handle_t c = plan->children[i];
		c->cleaning = 1;
		/* Its data is in the parent (gathered above, or never
		 * gathered on purpose): no write-back. */
		if (wait)
			starpu_data_unregister_no_coherency(c);
		else
			starpu_data_unregister_submit(c);
	}
	free(plan->children);
	free(plan);
}

void starpu_data_partition_clean(starpu_data_handle_t root_data, unsigned nparts, starpu_data_handle_t *children)
{
	struct partition_plan *plan = find_plan(root_data, nparts, children, "starpu_data_partition_clean");
	if (plan)
		clean_plan(root_data, plan, 0);
}

void data_plans_clean_all(starpu_data_handle_t h, int wait)
{
	while (h->plans)
		clean_plan(h, h->plans, wait);
}
