/* queues.h — task queues the built-in policies share.
 *
 * Each queue has its own mutex, a leaf lock: policies take it briefly in
 * push and pop and call nothing while holding it. ntasks is readable without
 * the lock, so idle workers can poll cheaply.
 *
 * fifo: tasks in arrival order.
 * prio: one list per priority value in use, highest first; FIFO within
 *       a priority.
 */
#ifndef VELA_QUEUES_H
#define VELA_QUEUES_H

#include <starpu.h>
#include <stdatomic.h>
#include "os/os.h"

struct task_fifo
{
	os_mutex_t lock;
	struct starpu_task_list list;
	_Atomic int ntasks;
} __attribute__((aligned(64)));

void fifo_init(struct task_fifo *q);
void fifo_destroy(struct task_fifo *q);
void fifo_push_back(struct task_fifo *q, struct starpu_task *task);
void fifo_push_front(struct task_fifo *q, struct starpu_task *task);
struct starpu_task *fifo_pop_front(struct task_fifo *q);
struct starpu_task *fifo_pop_back(struct task_fifo *q);
/* The first task (from the front) that worker workerid can run; NULL if
 * none. Tasks it cannot run stay queued. */
struct starpu_task *fifo_pop_for_worker(struct task_fifo *q, int workerid, int from_back);

static inline int fifo_ntasks(struct task_fifo *q)
{
	return atomic_load_explicit(&q->ntasks, memory_order_relaxed);
}

struct prio_level;

struct task_prioq
{
	os_mutex_t lock;
	int nlevels;
	int cap;
	struct prio_level *levels;	/* decreasing priority: [0] is the highest */
	_Atomic int ntasks;
} __attribute__((aligned(64)));

void prioq_init(struct task_prioq *q);
void prioq_destroy(struct task_prioq *q);
void prioq_push(struct task_prioq *q, struct starpu_task *task);
/* Highest-priority task worker workerid can run, or NULL. */
struct starpu_task *prioq_pop_for_worker(struct task_prioq *q, int workerid);

static inline int prioq_ntasks(struct task_prioq *q)
{
	return atomic_load_explicit(&q->ntasks, memory_order_relaxed);
}

/* A context's single central FIFO, as the eager policy keeps it; other
 * policies built around one FIFO (peager) use the same. */
void sched_fifo_policy_init(unsigned ctx);
void sched_fifo_policy_deinit(unsigned ctx);
struct task_fifo *sched_fifo_policy_queue(unsigned ctx);

/* Per-worker queues of a policy, for sched_rebalance_orphans: the queue
 * of worker w, its length, taking from it a task worker `to` can run, and
 * queueing on it. */
struct worker_queues_ops
{
	void *(*queue)(void *policy_data, int w);
	int (*ntasks)(void *queue);
	struct starpu_task *(*pop_for)(void *queue, int to);
	void (*push)(void *queue, struct starpu_task *task);
};

/* After a context change (add_workers / remove_workers of a policy with a
 * queue per worker id): deals the tasks queued on workers that are not
 * members of ctx out to the members able to run them, in turn, waking
 * each receiver. A task no member can run stays where it is until one
 * that can is added. */
void sched_rebalance_orphans(unsigned ctx, void *policy_data, const struct worker_queues_ops *ops);

/* Zeroed memory aligned for the queues above (calloc does not honour their
 * cache-line alignment). NULL on failure; free() it. */
void *sched_zalloc_aligned(size_t size);

#endif /* VELA_QUEUES_H */
