/* starpu_sched_component.h — modular schedulers built as trees of components.
 *
 * A scheduling policy can be assembled from small components, each with one
 * job: storing tasks (fifo, prio), deciding where a task goes (eager,
 * random, work_stealing, mct, heft), routing by model state
 * (perfmodel_select, best_implementation), or standing for a worker (the
 * leaves). Tasks flow down by push, from the root (where the runtime hands
 * ready tasks) to a child; workers take tasks by pull, from their leaf up
 * through the parents. Two notifications keep the flow going: a component
 * that has room again calls can_push on its parents so that a storing
 * component above sends more tasks down, and a component that received tasks
 * calls can_pull on its children so that an idle worker below comes to take
 * them.
 *
 * Components that store tasks are reservoirs; they split the tree into
 * areas. Something must move tasks through each area: the runtime's push at
 * the root, the workers' pull at the leaves, and the can_push handlers of the
 * storing components in between (they are the pumps). A tree is checked when
 * its workers are set (starpu_sched_tree_update_workers): a cycle, or a path
 * that does not end at a worker, makes the tree invalid; the runtime then
 * reports why and runs the context's tasks from one shared queue.
 *
 * Each component protects its own state; no component holds its lock while
 * calling another. The tree's lock is taken shared by push and pop and
 * exclusively while workers are added or removed.
 */
#ifndef STARPU_SCHED_COMPONENT_H
#define STARPU_SCHED_COMPONENT_H

#include <starpu.h>
#include <starpu_bitmap.h>
#include <hwloc.h>

#ifdef __cplusplus
extern "C"
{
#endif

enum starpu_sched_component_properties
{
	/* every worker below has the same architecture */
	STARPU_SCHED_COMPONENT_HOMOGENEOUS = (1 << 0),
	/* every worker below uses the same memory node */
	STARPU_SCHED_COMPONENT_SINGLE_MEMORY_NODE = (1 << 1)
};

#define STARPU_SCHED_COMPONENT_IS_HOMOGENEOUS(component) ((component)->properties & STARPU_SCHED_COMPONENT_HOMOGENEOUS)
#define STARPU_SCHED_COMPONENT_IS_SINGLE_MEMORY_NODE(component) ((component)->properties & STARPU_SCHED_COMPONENT_SINGLE_MEMORY_NODE)

struct starpu_sched_tree;

struct starpu_sched_component
{
	struct starpu_sched_tree *tree;
	/* Workers in this component's subtree, and those of them currently in
	 * the tree's context. Owned by the component; set by
	 * starpu_sched_tree_update_workers(_in_ctx). */
	struct starpu_bitmap *workers;
	struct starpu_bitmap *workers_in_ctx;
	/* The component's own state (its deinit_data frees it). */
	void *data;
	char *name;	/* owned (strdup'ed by starpu_sched_component_create) */

	unsigned nchildren;
	struct starpu_sched_component **children;
	unsigned nparents;
	struct starpu_sched_component **parents;

	void (*add_child)(struct starpu_sched_component *component, struct starpu_sched_component *child);
	void (*remove_child)(struct starpu_sched_component *component, struct starpu_sched_component *child);
	/* add_father / remove_father: the older names of the same methods. */
	union
	{
		void (*add_parent)(struct starpu_sched_component *component, struct starpu_sched_component *parent);
		void (*add_father)(struct starpu_sched_component *component, struct starpu_sched_component *parent);
	};
	union
	{
		void (*remove_parent)(struct starpu_sched_component *component, struct starpu_sched_component *parent);
		void (*remove_father)(struct starpu_sched_component *component, struct starpu_sched_component *parent);
	};

	/* Gives task to the component. 0: the component stored it or passed
	 * it on, and the caller must not touch it again (it may already be
	 * running); non-zero: refused (full), the caller keeps it. */
	int (*push_task)(struct starpu_sched_component *, struct starpu_task *);
	/* pull_task(component, to): a task from component (or its parents)
	 * that a worker under `to` can run, now owned by the caller; NULL if
	 * none. */
	struct starpu_task *(*pull_task)(struct starpu_sched_component *from, struct starpu_sched_component *to);
	/* can_push(component, child): child has room again. Storing
	 * components answer by pushing tasks down; the default asks the
	 * parents. Returns 1 if some task moved. */
	int (*can_push)(struct starpu_sched_component *from, struct starpu_sched_component *to);
	/* can_pull(component): tasks are available above; the default asks
	 * the children, and a worker leaf wakes its worker. Returns 1 if some
	 * worker was woken or will look. */
	int (*can_pull)(struct starpu_sched_component *component);
	int (*notify)(struct starpu_sched_component *component, int message_ID, void *arg);

	/* Tasks queued below, per unit of relative worker speed. */
	double (*estimated_load)(struct starpu_sched_component *component);
	/* When (starpu_timing_now() scale, µs) the workers below run out of
	 * queued work, from the tasks' predicted lengths. */
	double (*estimated_end)(struct starpu_sched_component *component);

	/* Frees data; called by starpu_sched_component_destroy. */
	void (*deinit_data)(struct starpu_sched_component *component);
	/* Called on each component after the context's workers changed. */
	void (*notify_change_workers)(struct starpu_sched_component *component);
	int properties;
	hwloc_obj_t obj;
};

struct starpu_sched_tree
{
	struct starpu_sched_component *root;
	/* The context's workers (owned by the tree). */
	struct starpu_bitmap *workers;
	unsigned sched_ctx_id;
	/* Serialises starpu_sched_tree_add_workers / remove_workers. */
	starpu_pthread_mutex_t lock;
};

/* ---- trees ---- */

/* An empty tree for context sched_ctx_id: set root, then call
 * starpu_sched_tree_update_workers (or let add_workers do it). */
struct starpu_sched_tree *starpu_sched_tree_create(unsigned sched_ctx_id) STARPU_ATTRIBUTE_MALLOC;
/* Destroys the tree and every component reachable from its root (worker
 * leaves included). */
void starpu_sched_tree_destroy(struct starpu_sched_tree *tree);
/* deinit_sched for a policy whose policy data is a tree. */
void starpu_sched_tree_deinitialize(unsigned sched_ctx_id);
struct starpu_sched_tree *starpu_sched_tree_get(unsigned sched_ctx_id);
/* Checks the tree (no cycle, every path ends at a worker) and sets every
 * component's workers bitmap and properties. An invalid tree is reported
 * once and replaced by a shared queue. */
void starpu_sched_tree_update_workers(struct starpu_sched_tree *t);
/* Sets every component's workers_in_ctx from the context's workers. */
void starpu_sched_tree_update_workers_in_ctx(struct starpu_sched_tree *t);
/* push_task / pop_task / add_workers / remove_workers of a tree policy. */
int starpu_sched_tree_push_task(struct starpu_task *task);
struct starpu_task *starpu_sched_tree_pop_task(unsigned sched_ctx);
void starpu_sched_tree_add_workers(unsigned sched_ctx_id, int *workerids, unsigned nworkers);
void starpu_sched_tree_remove_workers(unsigned sched_ctx_id, int *workerids, unsigned nworkers);
/* push_task for a tree with a work_stealing component: a task pushed by a
 * worker goes to that worker's own queue in it; otherwise as
 * starpu_sched_tree_push_task. */
int starpu_sched_tree_work_stealing_push_task(struct starpu_task *task);

/* component->push_task(component, task), and pull_task likewise. */
int starpu_sched_component_push_task(struct starpu_sched_component *from, struct starpu_sched_component *to, struct starpu_task *task);
struct starpu_task *starpu_sched_component_pull_task(struct starpu_sched_component *from, struct starpu_sched_component *to);
/* Moves tasks from component to its child `to` (pull from component, push
 * to `to`) until one is refused or none is left; *success (if not NULL) is
 * set when at least one was pushed. Returns the refused task (the caller
 * holds it now, to queue again), or NULL. pump_downstream does the same to component's
 * only child (component must have exactly one). */
struct starpu_task *starpu_sched_component_pump_to(struct starpu_sched_component *component, struct starpu_sched_component *to, int *success);
struct starpu_task *starpu_sched_component_pump_downstream(struct starpu_sched_component *component, int *success);
/* Calls can_push on every parent; returns 1 if one of them moved a task. */
int starpu_sched_component_send_can_push_to_parents(struct starpu_sched_component *component);
/* Links parent and child both ways. */
void starpu_sched_component_connect(struct starpu_sched_component *parent, struct starpu_sched_component *child);

/* ---- the generic component ---- */

typedef struct starpu_sched_component *(*starpu_sched_component_create_t)(struct starpu_sched_tree *tree, void *data);

/* A component with the default methods: pull_task, can_push and can_pull
 * recurse (to parents, parents and children), estimated_load and
 * estimated_end aggregate the children; push_task is left NULL, to be set
 * by the caller. */
struct starpu_sched_component *starpu_sched_component_create(struct starpu_sched_tree *tree, const char *name) STARPU_ATTRIBUTE_MALLOC;
/* Unlinks the component from its parents and children, calls deinit_data
 * and frees it (worker leaves are freed this way too). */
void starpu_sched_component_destroy(struct starpu_sched_component *component);
/* Destroys the component and everything below it that no other remaining
 * component links to. */
void starpu_sched_component_destroy_rec(struct starpu_sched_component *component);
void starpu_sched_component_add_child(struct starpu_sched_component *component, struct starpu_sched_component *child);
void starpu_sched_component_remove_child(struct starpu_sched_component *component, struct starpu_sched_component *child);
void starpu_sched_component_add_parent(struct starpu_sched_component *component, struct starpu_sched_component *parent);
void starpu_sched_component_remove_parent(struct starpu_sched_component *component, struct starpu_sched_component *parent);

/* Whether some worker of the component, in the context, can run task. */
int starpu_sched_component_can_execute_task(struct starpu_sched_component *component, struct starpu_task *task);
/* Whether some worker below can run task; *length gets the shortest
 * predicted length over those workers and their implementations (NAN if
 * one of them needs calibration, 0.0 without a model). */
int STARPU_WARN_UNUSED_RESULT starpu_sched_component_execute_preds(struct starpu_sched_component *component, struct starpu_task *task, double *length);
/* Mean predicted time to bring task's data to the workers below. */
double starpu_sched_component_transfer_length(struct starpu_sched_component *component, struct starpu_task *task);
/* Prefetches task's input to the memory node of the workers below, when
 * they share one. */
void starpu_sched_component_prefetch_on_node(struct starpu_sched_component *component, struct starpu_task *task);

/* The default methods, for components that override some of them. */
int starpu_sched_component_can_push(struct starpu_sched_component *component, struct starpu_sched_component *to);
int starpu_sched_component_can_pull(struct starpu_sched_component *component);
int starpu_sched_component_can_pull_all(struct starpu_sched_component *component);
double starpu_sched_component_estimated_load(struct starpu_sched_component *component);
double starpu_sched_component_estimated_end_min(struct starpu_sched_component *component);
/* The soonest end of a child plus exp_len spread over the workers below. */
double starpu_sched_component_estimated_end_min_add(struct starpu_sched_component *component, double exp_len);
double starpu_sched_component_estimated_end_average(struct starpu_sched_component *component);

/* ---- worker leaves ---- */

/* The leaf of worker workerid in context sched_ctx: worker_get creates it
 * on first use, worker_new always returns that same one. */
struct starpu_sched_component *starpu_sched_component_worker_get(unsigned sched_ctx, int workerid);
struct starpu_sched_component *starpu_sched_component_worker_new(unsigned sched_ctx, int workerid);
int starpu_sched_component_worker_get_workerid(struct starpu_sched_component *worker_component);
int starpu_sched_component_is_worker(struct starpu_sched_component *component);
int starpu_sched_component_is_simple_worker(struct starpu_sched_component *component);
int starpu_sched_component_is_combined_worker(struct starpu_sched_component *component);
/* pre_exec_hook / post_exec_hook of a tree policy: keep each worker leaf's
 * estimate of when it becomes free. */
void starpu_sched_component_worker_pre_exec_hook(struct starpu_task *task, unsigned sched_ctx_id);
void starpu_sched_component_worker_post_exec_hook(struct starpu_task *task, unsigned sched_ctx_id);

/* ---- flow control: fifo and prio ---- */

/* A queue refuses a push when it already holds ntasks_threshold tasks (0:
 * no limit) or when the predicted lengths it holds would exceed
 * exp_len_threshold µs (0.0: no limit); it always accepts into an empty
 * queue. ready: prefer tasks whose data is already on the puller's node. */
struct starpu_sched_component_fifo_data
{
	unsigned ntasks_threshold;
	double exp_len_threshold;
	int ready;
};
struct starpu_sched_component *starpu_sched_component_fifo_create(struct starpu_sched_tree *tree, struct starpu_sched_component_fifo_data *fifo_data) STARPU_ATTRIBUTE_MALLOC;
int starpu_sched_component_is_fifo(struct starpu_sched_component *component);

struct starpu_sched_component_prio_data
{
	unsigned ntasks_threshold;
	double exp_len_threshold;
	int ready;
};
struct starpu_sched_component *starpu_sched_component_prio_create(struct starpu_sched_tree *tree, struct starpu_sched_component_prio_data *prio_data) STARPU_ATTRIBUTE_MALLOC;
int starpu_sched_component_is_prio(struct starpu_sched_component *component);

/* ---- resource mapping ---- */

/* Round-robin push into one queue per child; a worker that finds its own
 * queue empty steals from the others. */
struct starpu_sched_component *starpu_sched_component_work_stealing_create(struct starpu_sched_tree *tree, void *arg) STARPU_ATTRIBUTE_MALLOC;
int starpu_sched_component_is_work_stealing(struct starpu_sched_component *component);

/* A child drawn at random, weighted by its workers' relative speed. */
struct starpu_sched_component *starpu_sched_component_random_create(struct starpu_sched_tree *tree, void *arg) STARPU_ATTRIBUTE_MALLOC;
int starpu_sched_component_is_random(struct starpu_sched_component *);

/* The first child with nothing queued, else the least loaded that
 * accepts. */
struct starpu_sched_component *starpu_sched_component_eager_create(struct starpu_sched_tree *tree, void *arg) STARPU_ATTRIBUTE_MALLOC;
int starpu_sched_component_is_eager(struct starpu_sched_component *);

/* Minimum completion time: the child where the task would finish first,
 * from its estimated end, the task's predicted length and its transfers,
 * weighted by alpha (computation) and beta (transfers). */
struct starpu_sched_component_mct_data
{
	double alpha;
	double beta;
	double _gamma;
	double idle_power;
};
struct starpu_sched_component *starpu_sched_component_mct_create(struct starpu_sched_tree *tree, struct starpu_sched_component_mct_data *mct_data) STARPU_ATTRIBUTE_MALLOC;
int starpu_sched_component_is_mct(struct starpu_sched_component *component);

/* mct with its own priority queue: it keeps the tasks its children refuse
 * and sends them down, highest priority first, as room appears. */
struct starpu_sched_component *starpu_sched_component_heft_create(struct starpu_sched_tree *tree, struct starpu_sched_component_mct_data *mct_data) STARPU_ATTRIBUTE_MALLOC;
int starpu_sched_component_is_heft(struct starpu_sched_component *component);

/* ---- special purpose ---- */

/* Sets task->predicted (and predicted_transfer) from the best
 * implementation on the first worker below that can run the task, then
 * passes it to its only child. */
struct starpu_sched_component *starpu_sched_component_best_implementation_create(struct starpu_sched_tree *tree, void *arg) STARPU_ATTRIBUTE_MALLOC;

/* Routes a task to calibrator_component when its model needs more
 * measurements, to no_perfmodel_component when it has no model, and to
 * perfmodel_component otherwise. The three are made its children. */
struct starpu_sched_component_perfmodel_select_data
{
	struct starpu_sched_component *calibrator_component;
	struct starpu_sched_component *no_perfmodel_component;
	struct starpu_sched_component *perfmodel_component;
};
struct starpu_sched_component *starpu_sched_component_perfmodel_select_create(struct starpu_sched_tree *tree, struct starpu_sched_component_perfmodel_select_data *perfmodel_select_data) STARPU_ATTRIBUTE_MALLOC;
int starpu_sched_component_is_perfmodel_select(struct starpu_sched_component *component);

/* ---- ready-made trees around one decision component ---- */

#define STARPU_SCHED_SIMPLE_DECIDE_MASK		(3 << 0)
/* the decision component chooses among workers (one queue per worker) */
#define STARPU_SCHED_SIMPLE_DECIDE_WORKERS	(1 << 0)
/* ... among memory nodes (treated as workers here) */
#define STARPU_SCHED_SIMPLE_DECIDE_MEMNODES	(2 << 0)
/* ... among architectures (treated as workers here) */
#define STARPU_SCHED_SIMPLE_DECIDE_ARCHS	(3 << 0)
/* build the decision component even when there is a single choice */
#define STARPU_SCHED_SIMPLE_DECIDE_ALWAYS	(1 << 3)
/* tasks without a calibrated model go to an eager branch first */
#define STARPU_SCHED_SIMPLE_PERFMODEL		(1 << 4)
/* choose the best implementation just above the workers */
#define STARPU_SCHED_SIMPLE_IMPL		(1 << 5)
/* a queue above the decision component */
#define STARPU_SCHED_SIMPLE_FIFO_ABOVE		(1 << 6)
#define STARPU_SCHED_SIMPLE_FIFO_ABOVE_PRIO	(1 << 7)
/* a queue per choice below the decision component */
#define STARPU_SCHED_SIMPLE_FIFOS_BELOW		(1 << 8)
#define STARPU_SCHED_SIMPLE_FIFOS_BELOW_PRIO	(1 << 9)
#define STARPU_SCHED_SIMPLE_FIFOS_BELOW_READY	(1 << 10)
/* accepted, not used yet */
#define STARPU_SCHED_SIMPLE_WS_BELOW		(1 << 11)
#define STARPU_SCHED_SIMPLE_COMBINED_WORKERS	(1 << 12)
#define STARPU_SCHED_SIMPLE_PRE_DECISION	(1 << 14)

/* Builds a tree around the component create_decision_component(tree, data)
 * makes, as flags describe, and makes it the policy data of sched_ctx_id
 * (init_sched of a policy: pair it with starpu_sched_tree_deinitialize).
 * With both FIFO_ABOVE and FIFOS_BELOW, the queues below hold at most
 * STARPU_NTASKS_THRESHOLD tasks (default 2) and STARPU_EXP_LEN_THRESHOLD µs. */
void starpu_sched_component_initialize_simple_scheduler(starpu_sched_component_create_t create_decision_component, void *data, unsigned flags, unsigned sched_ctx_id);

/* ---- recipes and trees shaped like the machine ---- */

/* A recipe: an ordered list of component constructors, each with its
 * argument. Instantiated, each component becomes the only parent of the
 * next; the chain stands for one component. Created empty (or with one
 * step), destroyed by the caller once the components are made. */
struct starpu_sched_component_composed_recipe;

struct starpu_sched_component_composed_recipe *starpu_sched_component_composed_recipe_create(void) STARPU_ATTRIBUTE_MALLOC;
struct starpu_sched_component_composed_recipe *starpu_sched_component_composed_recipe_create_singleton(starpu_sched_component_create_t create_component, void *arg) STARPU_ATTRIBUTE_MALLOC;
/* Appends create_component(tree, arg) below the steps already there. */
void starpu_sched_component_composed_recipe_add(struct starpu_sched_component_composed_recipe *recipe, starpu_sched_component_create_t create_component, void *arg);
void starpu_sched_component_composed_recipe_destroy(struct starpu_sched_component_composed_recipe *recipe);
/* Makes the recipe's components in tree. A one-step recipe gives that
 * component itself; a longer one, a component that the tree sees as the
 * whole chain (connect it and its children as any other; the
 * starpu_sched_component_is_* tests do not see through it). NULL, with a
 * message, for an empty recipe or a constructor returning NULL. */
struct starpu_sched_component *starpu_sched_component_composed_component_create(struct starpu_sched_tree *tree, struct starpu_sched_component_composed_recipe *recipe) STARPU_ATTRIBUTE_MALLOC;

/* How starpu_sched_component_make_scheduler shapes a tree after the
 * machine: a recipe per hwloc level (NULL skips the level), and per worker
 * kind. */
struct starpu_sched_component_specs
{
	/* the root (required) */
	struct starpu_sched_component_composed_recipe *hwloc_machine_composed_sched_component;
	/* per NUMA node ("memory component") */
	struct starpu_sched_component_composed_recipe *hwloc_component_composed_sched_component;
	/* per package (socket) */
	struct starpu_sched_component_composed_recipe *hwloc_socket_composed_sched_component;
	/* per cache */
	struct starpu_sched_component_composed_recipe *hwloc_cache_composed_sched_component;
	/* the recipe just above a worker of kind archtype, or NULL for none;
	 * called once per kind, the recipe stays the caller's */
	struct starpu_sched_component_composed_recipe *(*worker_composed_sched_component)(enum starpu_worker_archtype archtype);
	/* non-zero: devices hang below the components of their processing
	 * unit's NUMA node, package and caches, as CPU workers do; zero: below
	 * the machine components */
	int mix_heterogeneous_workers;
};

/* Builds the tree of context sched_ctx_id after the machine's hwloc
 * topology: the machine recipe at the root, then, for each NUMA node,
 * package or cache that covers more than one worker and not exactly the
 * workers of the nearest level above that got components, that level's
 * recipe; below them each worker's recipe and leaf. Levels that would only
 * repeat the one above are left out, so a small machine gets a flat tree.
 * Sets the workers (starpu_sched_tree_update_workers) but not the policy
 * data: an init_sched hook calls starpu_sched_ctx_set_policy_data(ctx,
 * tree) itself. NULL, with a message, when the machine recipe is missing or
 * a constructor fails. */
struct starpu_sched_tree *starpu_sched_component_make_scheduler(unsigned sched_ctx_id, struct starpu_sched_component_specs specs);

#define STARPU_COMPONENT_MUTEX_LOCK(m) \
	do \
	{ \
		const int vela_relaxed_state_ = starpu_worker_get_relax_state(); \
		if (!vela_relaxed_state_) \
			starpu_worker_relax_on(); \
		STARPU_PTHREAD_MUTEX_LOCK((m)); \
		if (!vela_relaxed_state_) \
			starpu_worker_relax_off(); \
	} while (0)
#define STARPU_COMPONENT_MUTEX_TRYLOCK(m) STARPU_PTHREAD_MUTEX_TRYLOCK((m))
#define STARPU_COMPONENT_MUTEX_UNLOCK(m) STARPU_PTHREAD_MUTEX_UNLOCK((m))

#ifdef __cplusplus
}
#endif

#endif /* STARPU_SCHED_COMPONENT_H */
