/* combined.h — combined workers and the teams that run parallel tasks.
 *
 * A combined worker is a set of CPU workers that run one parallel task
 * (codelet type STARPU_SPMD or STARPU_FORKJOIN) together. Its id follows the
 * plain workers' (id >= starpu_worker_get_count()); it has no thread of its
 * own. Members are kept in increasing worker id order; the first one is the
 * master: a parallel task for the combined worker goes to the master's local
 * queue, and the master builds the team when it pops the task.
 *
 * Team build-up (seed 000): the master asks each other member, in
 * increasing id order, to block in parallel (state_block_in_parallel_req,
 * under the member's sched_mutex) and waits for its ack. A member serves the
 * request between tasks, marks itself state_blocked_in_parallel and pops
 * nothing else until the master releases the team. Because every master is
 * its team's lowest id and acquires the others in increasing order, two
 * teams being built never wait for each other in a cycle.
 *
 * Then the master fetches the data once (the team shares its memory node),
 * lets the members go (SPMD: each runs the kernel with its rank; FORKJOIN:
 * they stay blocked while the master runs it once), waits for their parts,
 * releases them, and terminates the task once.
 *
 * The table is written at init (and appended to by
 * starpu_combined_worker_assign_workerid: an entry is complete before the
 * count that publishes it grows); it is emptied at shutdown.
 */
#ifndef VELA_COMBINED_H
#define VELA_COMBINED_H

#include <starpu.h>
#include "os/os.h"

struct worker;
struct job;

struct combined_worker
{
	int id;				/* >= rt.nworkers */
	int size;
	int members[STARPU_MAXCPUS];	/* increasing worker ids; [0] is the master */
	int comb;			/* perfmodel arch: 1 CPU device with size cores */
};

/* One parallel execution, owned by the master (on its stack). */
struct team
{
	struct job *job;
	const struct combined_worker *cw;
	int spmd;			/* every member runs the kernel */
	/* lock protects the fields below; a leaf lock, never taken with a
	 * worker's sched_mutex held. */
	os_mutex_t lock;
	os_cond_t cond;
	int go;				/* members may run their part */
	int failed;			/* data could not be fetched: run nothing */
	int ndone;			/* members whose part is over */
	int release;			/* the master lets the members go */
	int nleft;			/* members that no longer touch the team */
};

/* Builds the combined workers from the topology and the environment
 * (after the workers and the perfmodel archs exist). */
int combined_setup(void);
void combined_teardown(void);

unsigned combined_count(void);
/* The combined worker with this id, or NULL. */
const struct combined_worker *combined_get(int id);
/* First implementation the team can run, or -1; whether it can run nimpl. */
int combined_first_impl(const struct combined_worker *cw, struct starpu_task *task);
int combined_can_execute(const struct combined_worker *cw, struct starpu_task *task, unsigned nimpl);
/* Queues task for the combined worker (its master's local queue). */
void combined_push_local(const struct combined_worker *cw, struct starpu_task *task, int back);

/* Master side: gather the team (blocks the other members), let them run
 * their part, wait for the parts, release them. */
void team_build(struct team *t, struct worker *master, struct job *job, const struct combined_worker *cw);
void team_go(struct team *t, int failed);
void team_wait_parts(struct team *t);
void team_release(struct team *t);

/* Member side: if a master asked w to join a team, joins it, runs its part
 * and returns 1 once released; 0 if nothing was asked. */
int team_serve(struct worker *w);
/* Whether a master waits for w (cheap, lock-free). */
int team_requested(struct worker *w);

#endif /* VELA_COMBINED_H */
