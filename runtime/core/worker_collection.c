/* worker_collection.c — the two kinds of struct starpu_worker_collection a
 * scheduling context can keep its workers in (starpu_sched_ctx.h):
 * starpu_worker_list and starpu_worker_tree.
 *
 * Both keep workerids[] in iteration order: the list in insertion order,
 * the tree in hwloc topology order (the logical index of the worker's
 * processing unit, i.e. the order of the leaves of the machine tree), so
 * that iterating visits neighbours one after another. A collection is
 * changed only by its context's membership changes (sched_ctx.c, under the
 * context change mutex and the context's write lock); iterators read it
 * under the context's read lock or from the context's own workers.
 */
#include <starpu.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static unsigned coll_has_next(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it)
{
	return (unsigned) it->cursor < workers->nworkers;
}

static int coll_get_next(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it)
{
	if ((unsigned) it->cursor >= workers->nworkers)
		return -1;
	return workers->workerids[it->cursor++];
}

static int coll_insert_at(struct starpu_worker_collection *workers, int worker, unsigned pos)
{
	memmove(&workers->workerids[pos + 1], &workers->workerids[pos], sizeof(int) * (workers->nworkers - pos));
	workers->workerids[pos] = worker;
	workers->nworkers++;
	workers->present[worker] = 1;
	workers->is_unblocked[worker] = 1;
	workers->nunblocked_workers++;
	return worker;
}

static int coll_add_ok(struct starpu_worker_collection *workers, int worker)
{
	return worker >= 0 && worker < STARPU_NMAXWORKERS && !workers->present[worker];
}

static int list_add(struct starpu_worker_collection *workers, int worker)
{
	if (!coll_add_ok(workers, worker))
		return -1;
	return coll_insert_at(workers, worker, workers->nworkers);
}

/* Topology rank of a worker: its PU's logical index (unbound last). */
static long topo_rank(int worker)
{
	int bind = starpu_worker_get_bindid(worker);
	return (bind < 0 ? (long) INT_MAX : (long) bind) * STARPU_NMAXWORKERS + worker;
}

static int tree_add(struct starpu_worker_collection *workers, int worker)
{
	if (!coll_add_ok(workers, worker))
		return -1;
	long r = topo_rank(worker);
	unsigned pos = 0;
	while (pos < workers->nworkers && topo_rank(workers->workerids[pos]) < r)
		pos++;
	return coll_insert_at(workers, worker, pos);
}

static int coll_remove(struct starpu_worker_collection *workers, int worker)
{
	if (worker < 0 || worker >= STARPU_NMAXWORKERS || !workers->present[worker])
		return -1;
	unsigned j = 0;
	for (unsigned i = 0; i < workers->nworkers; i++)
		if (workers->workerids[i] != worker)
			workers->workerids[j++] = workers->workerids[i];
	workers->nworkers = j;
	workers->present[worker] = 0;
	workers->is_unblocked[worker] = 0;
	workers->nunblocked_workers--;
	return worker;
}

static void coll_init(struct starpu_worker_collection *workers)
{
	workers->workerids = malloc(sizeof(int) * STARPU_NMAXWORKERS);
	workers->nworkers = 0;
	workers->nunblocked_workers = 0;
	workers->nmasters = 0;
	memset(workers->present, 0, sizeof(workers->present));
	memset(workers->is_unblocked, 0, sizeof(workers->is_unblocked));
	memset(workers->is_master, 0, sizeof(workers->is_master));
}

static void coll_deinit(struct starpu_worker_collection *workers)
{
	free(workers->workerids);
	workers->workerids = NULL;
	workers->nworkers = 0;
}

static void coll_init_iterator(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it)
{
	(void) workers;
	it->cursor = 0;
	it->possibly_parallel = -1;
}

static void coll_init_iterator_for_parallel_tasks(struct starpu_worker_collection *workers, struct starpu_sched_ctx_iterator *it, struct starpu_task *task)
{
	coll_init_iterator(workers, it);
	it->possibly_parallel = task ? (int) task->possibly_parallel : 0;
}

struct starpu_worker_collection starpu_worker_list = {
	.has_next = coll_has_next,
	.get_next = coll_get_next,
	.add = list_add,
	.remove = coll_remove,
	.init = coll_init,
	.deinit = coll_deinit,
	.init_iterator = coll_init_iterator,
	.init_iterator_for_parallel_tasks = coll_init_iterator_for_parallel_tasks,
	.type = STARPU_WORKER_LIST,
};

struct starpu_worker_collection starpu_worker_tree = {
	.has_next = coll_has_next,
	.get_next = coll_get_next,
	.add = tree_add,
	.remove = coll_remove,
	.init = coll_init,
	.deinit = coll_deinit,
	.init_iterator = coll_init_iterator,
	.init_iterator_for_parallel_tasks = coll_init_iterator_for_parallel_tasks,
	.type = STARPU_WORKER_TREE,
};
