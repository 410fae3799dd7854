/* component_internal.h — what the component files share inside the
 * runtime: the private side of a tree, the task queue the storing
 * components use, and the hooks the tree calls to empty a component's
 * queue when its workers leave the context.
 *
 * Lock order: tree rwlock (shared for push/pop, exclusive for worker
 * changes) → one component queue lock (a leaf: nothing is called while it
 * is held) → a worker's sched_mutex (taken by worker_wake, after every
 * queue lock is released).
 */
#ifndef VELA_COMPONENT_INTERNAL_H
#define VELA_COMPONENT_INTERNAL_H

#include <starpu_sched_component.h>
#include "os/os.h"

/* The tree as the runtime sees it; the public struct comes first so that
 * the two pointers are the same. */
struct tree_priv
{
	struct starpu_sched_tree pub;
	os_rwlock_t rw;
	/* Set when update_workers found the tree invalid: tasks then go to
	 * fallback, which every worker of the context pops. */
	int invalid;
	/* Set once the context added or removed workers: until then the
	 * tree's workers are every worker of the machine. */
	int ctx_workers_known;
	struct starpu_task_list fallback;	/* under fallback_lock */
	int nfallback;				/* its length: written under the lock, read atomically without */
	os_mutex_t fallback_lock;
};

static inline struct tree_priv *tree_priv(struct starpu_sched_tree *t)
{
	return (struct tree_priv *) t;
}

/* Racy-by-design reads of counters other threads update (estimates). */
static inline double load_d(const double *p)
{
	double v;
	__atomic_load(p, &v, __ATOMIC_RELAXED);
	return v;
}

static inline void store_d(double *p, double v)
{
	__atomic_store(p, &v, __ATOMIC_RELAXED);
}

/* A queue of tasks, FIFO or by decreasing priority (FIFO among equals). */
struct comp_queue
{
	os_mutex_t lock;
	struct starpu_task_list list;
	int ntasks;		/* queued, plus pushes accepted but not yet queued */
	double exp_len;		/* sum of the queued tasks' predicted lengths, µs */
	int by_prio;
};

/* Changes the counters, under q->lock; lock-free readers (the load and end
 * estimates) read them with atomic loads, so they are written atomically. */
static inline void cq_count(struct comp_queue *q, int dn, double dlen)
{
	int n = q->ntasks + dn;
	double len = q->exp_len + dlen;
	__atomic_store_n(&q->ntasks, n, __ATOMIC_RELAXED);
	store_d(&q->exp_len, (n == 0 || len < 0) ? 0.0 : len);
}

void cq_init(struct comp_queue *q, int by_prio);
/* Under q->lock. */
void cq_insert(struct comp_queue *q, struct starpu_task *task);
/* The first task `to` can run (to NULL: the first task), removed; under
 * q->lock. from_back: search from the back. */
struct starpu_task *cq_take_for(struct comp_queue *q, struct starpu_sched_component *to, int from_back);
/* Moves every queued task to out (back); takes q->lock. */
void cq_drain(struct comp_queue *q, struct starpu_task_list *out);

/* Predicted length of a task for the exp_len counters: 0 when unknown. */
double comp_task_len(struct starpu_task *task);
/* Whether component `to` (a worker leaf or any component; NULL: anyone)
 * can run task. */
int comp_can_run(struct starpu_sched_component *to, struct starpu_task *task);

/* Per-kind queue drains, used when workers leave: each moves the
 * component's stored tasks to out and returns 1 if c is of its kind. */
int fifo_comp_drain(struct starpu_sched_component *c, struct starpu_task_list *out);
int worker_comp_drain(struct starpu_sched_component *c, struct starpu_task_list *out);
int ws_comp_drain(struct starpu_sched_component *c, struct starpu_task_list *out);
int heft_comp_drain(struct starpu_sched_component *c, struct starpu_task_list *out);

/* Worker leaves: the worker id of a leaf, -1 for other components. */
int worker_comp_id(struct starpu_sched_component *c);
/* Forgets every leaf of context ctx (their tree is being destroyed). */
void worker_comp_forget_ctx(unsigned ctx);

/* The work_stealing component reachable from the root, or NULL. */
struct starpu_sched_component *ws_comp_find(struct starpu_sched_component *root);
/* Pushes task into the queue of worker workerid's child in ws. */
int ws_comp_push_local(struct starpu_sched_component *ws, struct starpu_task *task, int workerid);

/* mct's choice, shared with heft: the child of c where task should go,
 * setting task->predicted / predicted_transfer; NULL if no child can run
 * it. skip: children known to be full (may be NULL). */
struct starpu_sched_component *mct_choose(struct starpu_sched_component *c, struct starpu_sched_component_mct_data *d,
					  struct starpu_task *task, const char *skip);

/* What validation may know of a component's methods (tree.c):
 * whether c's pull_task is the default one, which pulls from the parents
 * and stores nothing. */
int comp_pull_is_generic(struct starpu_sched_component *c);
/* Whether f is the front of a composed chain; if so, *top and *bottom
 * are the chain's ends (composed.c). */
int composed_comp_chain(struct starpu_sched_component *f, struct starpu_sched_component **top,
			struct starpu_sched_component **bottom);

/* Recipes (composed.c). Number of steps (0 for NULL). */
unsigned sched_recipe_length(const struct starpu_sched_component_composed_recipe *recipe);
/* Creates the recipe's components in tree, each linked to the next, with
 * obj as their hwloc object: *top is the first, *bottom the last (both
 * NULL for an empty recipe). -ENOMEM if a constructor returned NULL (the
 * components made so far stay linked from *top). */
int sched_recipe_instantiate(struct starpu_sched_tree *tree, const struct starpu_sched_component_composed_recipe *recipe,
			     hwloc_obj_t obj, struct starpu_sched_component **top, struct starpu_sched_component **bottom);

#endif
