/* progress.c — the engine that calls MPI: its lock, the command queue,
 * and the threads that drive it (waiters and the progression thread). The
 * MPI operations in flight are ops.c's, the sending side send.c's, the
 * receiving side match.c's.
 *
 * After initialisation MPI is called only by a thread holding the engine
 * lock (mpi.elock), so that calls never overlap: MPI_THREAD_SERIALIZED is
 * enough, and the same code is right under MPI_THREAD_MULTIPLE (where the
 * lock is still what guards the matching tables and the operations in
 * flight). Three kinds of thread take it:
 *  - a thread that submits a send whose data is ready (the acquisition
 *    callback runs in the submitter, or in the worker ending the task that
 *    wrote the data) posts the send itself and tests it once: an eager
 *    message is then complete before the call returns (post_now);
 *  - a thread blocked in starpu_mpi_wait (and send, recv, barrier) drives
 *    the engine itself, spinning while anything happens and for spin_us
 *    after, then sleeps until the request completes (req_wait). One thread
 *    drives at a time (mpi.driver); others sleep on mpi.donecond and take
 *    over when it leaves;
 *  - the progression thread does everything else: commands queued by other
 *    threads (receives, sends whose data became ready under the engine
 *    lock, barriers, calls), and polling for messages while requests are
 *    pending and nobody waits for them.
 * Whoever holds the engine lock takes the whole queue and tests every
 * operation with one MPI_Testsome, so any driver progresses every request.
 * A thread already inside the engine (a callback of a completed request)
 * never re-enters it: what it submits is queued (engine_held).
 *
 * MPI cannot block a thread without spinning, so the progression thread
 * polls with a back-off: after any activity it polls continuously for
 * spin_us (a reply is often a few microseconds away), then sleeps on
 * mpi.qcond between polls, an eighth of the time it has been waiting (so
 * the delay it adds to a message is at most about 12% of the wait), and
 * at most busy_poll_us while requests are live, idle_poll_us when nothing
 * but the envelope receives is posted. While data moves (MPI progresses
 * large messages only when called) it does not sleep. It does not spin
 * either while the runtime has more ready tasks than workers (every
 * worker is busy and has more to do: the thread would only take their
 * cores), but sleeps at most busy_poll_us/4; when it has no core of its
 * own (its CPUs all have a worker), not while every worker has a task,
 * and it then sleeps at least busy_poll_us/10. While an application thread
 * drives, it naps (busy_poll_us/4) instead of competing for the core. A
 * queued command wakes it at once. So an idle rank costs a few hundred
 * wake-ups a second, not a core (mpi/README.md gives the measured
 * figures).
 */
#define _GNU_SOURCE	/* sched_getaffinity */
#include "mpi_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Spinning. With Open MPI a thread that expects a message soon polls
 * for it for spin_us, yielding now and then (the peer may share its
 * core), after QUIET_POLLS polls without activity it starts reading the
 * clock, every SPIN_CHECK polls. In a simulated cluster a poll takes no
 * simulated time and nothing completes while an actor runs, so one quiet
 * poll says all there is: the thread instead waits until something of its
 * rank completes, or the rest of the spin window passes (simulated time,
 * vsg_mpi_wait_activity: sim/mpi/mpi.h), which is what spinning achieves
 * in a real run — it sees a message as soon as it arrives; new commands
 * for the engine end such a wait too (SPIN_POKE), as a spinning thread
 * would see them at its next poll. */
#ifdef VELA_SIMULATED_MPI
#define SPIN_YIELD() ((void) 0)
#define SPIN_WAIT(us) vsg_mpi_wait_activity((us) * 1e-6)
#define SPIN_POKE() vsg_mpi_poke()
#define QUIET_POLLS 1
#define SPIN_CHECK 1
#else
#define SPIN_YIELD() sched_yield()
#define SPIN_WAIT(us) ((void) (us))
#define SPIN_POKE() ((void) 0)
#define QUIET_POLLS 64
#define SPIN_CHECK 16
#endif
/* How long a spinning waiter polls before yielding its core (drive):
 * between YIELD_MIN_NS and YIELD_MAX_NS, adapted by what its yields do; a
 * yield lasting more than YIELD_AWAY_US gave the core to another thread. */
#define YIELD_MIN_NS 1000u
#define YIELD_MAX_NS 3000u
#define YIELD_AWAY_US 1.5
#ifndef VELA_SIMULATED_MPI
static unsigned yield_ns = YIELD_MAX_NS;
#endif

/* Whether this thread holds the engine lock. */
MPI_TLS(int, in_engine)

static struct
{
	starpu_pthread_t thread;
	int started;			/* under qlock */
	int stop_requested;		/* under qlock */
	int stopping;			/* byes sent (engine lock) */
	/* The batch of commands being run (engine lock). */
	struct mreq **brs;
	unsigned *bcmds;
	int bcap;
	int running;			/* the engine exists (engine lock; atomic reads) */
	int unmatched;			/* reported at shutdown */
} P;

/* The runtime's clock (simulated time in a simulation). */
static double now_us(void)
{
	return starpu_timing_now();
}

/* ------------------------------------------------------------------ */
/* The engine lock. */

int engine_held(void)
{
	return in_engine_get();
}

int engine_try_enter(void)
{
	if (in_engine_get() || !__atomic_load_n(&P.running, __ATOMIC_ACQUIRE))
		return 0;
	if (starpu_pthread_mutex_trylock(&mpi.elock))
		return 0;
	if (!P.running)
	{
		/* The engine stopped meanwhile (shutdown). */
		starpu_pthread_mutex_unlock(&mpi.elock);
		return 0;
	}
	in_engine_set(1);
	return 1;
}

void engine_leave(void)
{
	in_engine_set(0);
	starpu_pthread_mutex_unlock(&mpi.elock);
}

/* Whether an application thread drives the engine, or did less than
 * spin_us ago (and did not give up): it will poll again shortly. */
static int app_driving(void)
{
	return __atomic_load_n(&mpi.driver, __ATOMIC_ACQUIRE) ||
	       now_us() - (double) __atomic_load_n(&mpi.drive_end, __ATOMIC_RELAXED) < mpi.spin_us;
}

/* Wakes the progression thread (qlock held). */
static void wake_locked(void)
{
	starpu_pthread_cond_signal(&mpi.qcond);
	SPIN_POKE();
}

/* ------------------------------------------------------------------ */
/* Requests: their pool and completion are request.c's. */

/* Adds cmd to r's commands, r to the queue if not there yet (qlock held). */
static void enqueue_locked(struct mreq *r, unsigned cmd)
{
	r->cmd |= cmd;
	if (!r->queued)
	{
		r->queued = 1;
		r->qnext = NULL;
		if (mpi.qtail)
			mpi.qtail->qnext = r;
		else
			__atomic_store_n(&mpi.qhead, r, __ATOMIC_RELEASE);
		mpi.qtail = r;
	}
}

void prog_push(struct mreq *r, unsigned cmd)
{
	starpu_pthread_mutex_lock(&mpi.qlock);
	enqueue_locked(r, cmd);
	wake_locked();
	starpu_pthread_mutex_unlock(&mpi.qlock);
}

static int req_done(struct mreq *r)
{
	return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

/* Drives the engine until r completes, or until nothing has happened for
 * spin_us (and 64 polls: on a loaded machine this thread may not have run
 * for most of that time), or while data moves. Returns whether another
 * thread should poll now for what is still in flight. */
static int drive(struct mreq *r)
{
	/* quiet: polls since the last activity; the clock is read only
	 * after QUIET_POLLS of them (reading it costs as much as a poll). */
	unsigned quiet = 0, turns = 0;
	double quiet_since = 0, next_yield = 0;
	(void) turns;
	(void) next_yield;
	int pending = 0;
	while (!req_done(r))
	{
		int did = 0, moving = 0;
		if (engine_try_enter())
		{
			did = engine_poll();
			moving = ops_moving();
			pending = ops_pending();
			engine_leave();
		}
		/* The peer may share this core (more threads than cores,
		 * other programs): spinning without a yield would keep it
		 * off the core until the scheduler's next preemption,
		 * hundreds of microseconds. But a yield is a system call
		 * (0.3-0.5 us here, as much as a whole message), so the
		 * waiter yields after spinning yield_us, which adapts: a
		 * yield that returned at once (nobody else wanted the core)
		 * doubles it, up to YIELD_MAX_NS; one that gave the core
		 * away (another thread ran: the peer, maybe) halves it. On
		 * two cores a ping-pong's reply then never waits for a
		 * yield; on one, the peer gets the core within a few polls. */
#ifndef VELA_SIMULATED_MPI
		if (++turns % 4 == 0)
		{
			double t = now_us();
			if (!next_yield)
				next_yield = t + __atomic_load_n(&yield_ns, __ATOMIC_RELAXED) * 1e-3;
			else if (t >= next_yield)
			{
				SPIN_YIELD();
				double t2 = now_us();
				unsigned ns = __atomic_load_n(&yield_ns, __ATOMIC_RELAXED);
				if (t2 - t > YIELD_AWAY_US)
					ns = ns / 2 > YIELD_MIN_NS ? ns / 2 : YIELD_MIN_NS;
				else
					ns = ns * 2 < YIELD_MAX_NS ? ns * 2 : YIELD_MAX_NS;
				__atomic_store_n(&yield_ns, ns, __ATOMIC_RELAXED);
				next_yield = t2 + ns * 1e-3;
			}
		}
#endif
		if (did || moving)
		{
			quiet = 0;
			continue;
		}
		if (++quiet == QUIET_POLLS)
			quiet_since = now_us();
		if (quiet >= QUIET_POLLS && (quiet - QUIET_POLLS) % SPIN_CHECK == 0)
		{
			double left = mpi.spin_us - (now_us() - quiet_since);
			if (left < 0.01)	/* (clock rounding: under 10 ns is none) */
				return 1;	/* a long wait: the progression thread's back-off takes it */
			SPIN_WAIT(left);
		}
	}
	return pending;
}

/* Waits for r: drives the engine when no other thread does, else sleeps
 * until r completes or the driver leaves. */
static void wait_done(struct mreq *r)
{
	int gave_up = 0;
	while (!req_done(r))
	{
		if (!gave_up && __atomic_load_n(&mpi.driver, __ATOMIC_RELAXED) == 0 &&
		    !__atomic_exchange_n(&mpi.driver, 1, __ATOMIC_ACQ_REL))
		{
			int hand_over = drive(r);
			gave_up = !req_done(r);
			starpu_pthread_mutex_lock(&mpi.qlock);
			/* An application that waits again shortly keeps the
			 * progression thread napping (see progress_main). */
			__atomic_store_n(&mpi.drive_end, gave_up ? 0 : (uint64_t) now_us(), __ATOMIC_RELAXED);
			__atomic_store_n(&mpi.driver, 0, __ATOMIC_RELEASE);
			/* Other waiters may take over; the progression thread
			 * polls what is in flight. */
			starpu_pthread_cond_broadcast(&mpi.donecond);
			if (hand_over)
				wake_locked();
			starpu_pthread_mutex_unlock(&mpi.qlock);
			continue;
		}
		starpu_pthread_mutex_lock(&mpi.qlock);
		while (!r->done && (gave_up || __atomic_load_n(&mpi.driver, __ATOMIC_RELAXED)))
			starpu_pthread_cond_wait(&mpi.donecond, &mpi.qlock);
		starpu_pthread_mutex_unlock(&mpi.qlock);
	}
}

int req_wait(struct mreq *r, int *source)
{
	if (!req_done(r))
	{
		if (engine_held())
		{
			/* A callback of a completed request waits for
			 * another, which only this thread could progress:
			 * r stays live (and is never freed). */
			mpi_error("%s: waiting for a communication from a communication's callback would deadlock (-EDEADLK)", r->fn);
			return -EDEADLK;
		}
		wait_done(r);
	}
	int result = r->result;
	if (source)
		*source = r->status_source;
	req_free(r);
	return result;
}

int req_test(struct mreq *r, int *result, int *source)
{
	/* Polled in a loop by applications: progress once here. */
	if (!req_done(r) && engine_try_enter())
	{
		engine_poll();
		engine_leave();
	}
	if (!req_done(r))
		return 0;
	*result = r->result;
	if (source)
		*source = r->status_source;
	req_free(r);
	return 1;
}

void req_wait_none_live(void)
{
	starpu_pthread_mutex_lock(&mpi.qlock);
	while (mpi.nlive)
		starpu_pthread_cond_wait(&mpi.donecond, &mpi.qlock);
	starpu_pthread_mutex_unlock(&mpi.qlock);
}

int prog_call(void (*fn)(void *), void *arg)
{
	/* Before the engine starts and after it stops nobody else calls
	 * MPI; in between, the engine lock serialises the calls. */
	if (in_engine_get())
	{
		fn(arg);
		return 0;
	}
	starpu_pthread_mutex_lock(&mpi.elock);
	in_engine_set(1);
	fn(arg);
	in_engine_set(0);
	starpu_pthread_mutex_unlock(&mpi.elock);
	return 0;
}

void prog_wake_unless_driven(void)
{
	if (app_driving())
		return;
	starpu_pthread_mutex_lock(&mpi.qlock);
	wake_locked();
	starpu_pthread_mutex_unlock(&mpi.qlock);
}

static int cmp_prio(const void *a, const void *b)
{
	const struct mreq *x = *(struct mreq *const *) a, *y = *(struct mreq *const *) b;
	return (x->prio < y->prio) - (x->prio > y->prio);
}

/* Ready sends in a batch go out by priority (qsort is not stable, but
 * sends to one peer with one tag are matched by sequence number anyway). */
static void run_commands(struct mreq **rs, const unsigned *cmds, int nb)
{
	struct mreq *sends_inline[64];
	struct mreq **sends = sends_inline;
	int nsends = 0, cap = 64;
	for (int i = 0; i < nb; i++)
	{
		struct mreq *r = rs[i];
		unsigned cmd = cmds[i];
		switch (r->type)
		{
		case MREQ_BARRIER:
		{
			MPI_Request mr;
			if (MPI_Ibarrier(r->comm->comm, &mr) != MPI_SUCCESS)
				req_complete(r, -EIO);
			else
				op_add(mr, OP_BARRIER, r);
			break;
		}
		case MREQ_RECV:
			if (cmd & CMD_SUBMIT)
				match_submit_recv(r);
			if (cmd & CMD_READY)
				match_ready_recv(r);
			break;
		case MREQ_SEND:
			if (nsends == cap)
			{
				struct mreq **s = malloc(sizeof(*s) * (size_t) cap * 2);
				if (!s)
				{
					send_start(r);
					break;
				}
				memcpy(s, sends, sizeof(*s) * (size_t) nsends);
				if (sends != sends_inline)
					free(sends);
				sends = s;
				cap *= 2;
			}
			sends[nsends++] = r;
			break;
		}
	}
	if (nsends > 1)
		qsort(sends, (size_t) nsends, sizeof(*sends), cmp_prio);
	for (int i = 0; i < nsends; i++)
		send_start(sends[i]);
	if (sends != sends_inline)
		free(sends);
}

void prog_run(struct mreq *r, unsigned cmd)
{
	run_commands(&r, &cmd, 1);
}

/* Takes the queued commands and runs them; 1 if there were any. */
static int take_commands(void)
{
	if (!__atomic_load_n(&mpi.qhead, __ATOMIC_ACQUIRE))
		return 0;
	/* Take the batch under qlock: a request's queue fields and command
	 * bits are the queue's, and it may be queued again (its data
	 * acquired) while this batch runs. */
	starpu_pthread_mutex_lock(&mpi.qlock);
	int nb = 0;
	for (struct mreq *r = mpi.qhead; r; r = r->qnext)
		nb++;
	if (nb > P.bcap)
	{
		free(P.brs);
		free(P.bcmds);
		P.bcap = nb * 2;
		P.brs = malloc(sizeof(*P.brs) * (size_t) P.bcap);
		P.bcmds = malloc(sizeof(*P.bcmds) * (size_t) P.bcap);
		if (!P.brs || !P.bcmds)
		{
			mpi_error("out of memory taking %d commands", nb);
			abort();
		}
	}
	nb = 0;
	for (struct mreq *r = mpi.qhead; r; r = r->qnext)
	{
		P.brs[nb] = r;
		P.bcmds[nb++] = r->cmd;
		r->cmd = 0;
		r->queued = 0;
	}
	__atomic_store_n(&mpi.qhead, NULL, __ATOMIC_RELAXED);
	mpi.qtail = NULL;
	starpu_pthread_mutex_unlock(&mpi.qlock);
	if (!nb)
		return 0;
	run_commands(P.brs, P.bcmds, nb);
	return 1;
}

void prog_push_kick(struct mreq *r, unsigned cmd)
{
	starpu_pthread_mutex_lock(&mpi.qlock);
	enqueue_locked(r, cmd);
	starpu_pthread_mutex_unlock(&mpi.qlock);
	if (engine_try_enter())
	{
		take_commands();
		engine_leave();
		return;
	}
	/* Whoever holds the engine may be leaving: the progression thread
	 * takes the command if so (unless an application thread drives). */
	if (app_driving())
		return;
	starpu_pthread_mutex_lock(&mpi.qlock);
	wake_locked();
	starpu_pthread_mutex_unlock(&mpi.qlock);
}

int engine_poll(void)
{
	int did = take_commands();
	did |= ops_test();
	did |= match_expire_deferred();
	return did;
}

static void dump_pending(void)
{
	char lbl[64];
	starpu_pthread_mutex_lock(&mpi.qlock);
	for (struct mreq *r = mpi.live; r; r = r->lnext)
		if (r->type == MREQ_SEND || r->type == MREQ_RECV)
			mpi_error("starpu_mpi_shutdown: still waiting for %s of handle %s tag %lld %s rank %d (%s)",
				  r->type == MREQ_SEND ? "a send" : "a receive", mpi_handle_label(r->handle, lbl, sizeof(lbl)),
				  (long long) r->tag, r->type == MREQ_SEND ? "to" : "from", r->peer,
				  !r->ready ? "its data is not available yet: a task before it has not ended" : "in flight");
	starpu_pthread_mutex_unlock(&mpi.qlock);
}

/* One turn of the progression thread in the engine: commands, tests, the
 * shutdown handshake. Returns 1 if anything happened, -1 once shutdown is
 * complete (the engine is then stopped). *moving: data in flight. */
static int progress_turn(int stop, double *last_shutdown_progress, int *moving)
{
	int did = engine_poll();
	if (stop && !P.stopping)
	{
		P.stopping = 1;
		match_send_byes();
		did = 1;
		*last_shutdown_progress = now_us();
	}
	if (P.stopping)
	{
		starpu_pthread_mutex_lock(&mpi.qlock);
		int idle = !mpi.nlive && !mpi.qhead;
		starpu_pthread_mutex_unlock(&mpi.qlock);
		if (idle && ops_only_listeners() && match_byes_complete() && !match_drain_unclaimed())
		{
			P.unmatched = match_report_unclaimed();
			ops_cancel_listeners();
			__atomic_store_n(&P.running, 0, __ATOMIC_RELEASE);
			return -1;
		}
		double t = now_us();
		if (did)
			*last_shutdown_progress = t;
		else if (t - *last_shutdown_progress > 10e6)
		{
			dump_pending();
			*last_shutdown_progress = t;
		}
	}
	*moving = ops_moving();
	return did;
}

static void *progress_main(void *arg)
{
	(void) arg;
	starpu_pthread_mutex_lock(&mpi.elock);
	in_engine_set(1);
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mcomm *comms = mpi.comms;
	starpu_pthread_mutex_unlock(&mpi.lock);
	for (struct mcomm *c = comms; c; c = c->next)
		ops_listen(c);
	__atomic_store_n(&P.running, 1, __ATOMIC_RELEASE);
	in_engine_set(0);
	starpu_pthread_mutex_unlock(&mpi.elock);
	starpu_pthread_mutex_lock(&mpi.qlock);
	P.started = 1;
	starpu_pthread_cond_broadcast(&mpi.donecond);
	starpu_pthread_mutex_unlock(&mpi.qlock);

	double last = now_us(), last_shutdown_progress = 0;
	unsigned polls = 0;
	int moving = 0;
	for (;;)
	{
		int stop = __atomic_load_n(&P.stop_requested, __ATOMIC_ACQUIRE);
		/* An application thread driving the engine progresses
		 * everything: this thread only naps meanwhile (but ends the
		 * shutdown whatever happens). One that waits in a loop
		 * (wait, submit, wait) counts as driving between its waits
		 * too, for spin_us after each: polling in those gaps would
		 * only take the core from it. */
		int driven = app_driving();
		int did = 0;
		double defer_left = -1;
		if (!driven || stop)
		{
			starpu_pthread_mutex_lock(&mpi.elock);
			in_engine_set(1);
			did = progress_turn(stop, &last_shutdown_progress, &moving);
			if (did >= 0)
				defer_left = match_deferred_left_us();
			in_engine_set(0);
			starpu_pthread_mutex_unlock(&mpi.elock);
			if (did < 0)
				break;
		}

		double t = now_us();
		if (did)
		{
			last = t;
			polls = 0;
			continue;
		}
		/* Spin for spin_us and a number of polls both: on a loaded
		 * machine the thread may not have run for most of spin_us.
		 * Not while every worker has a task and another waiting,
		 * though: spinning would only take their cores (the thread
		 * shares them), and a message that arrives meanwhile waits
		 * for a worker anyway. (Ready tasks count the running ones;
		 * with no more than one per worker, a worker may soon wait
		 * for a message, and a prompt poll shortens its wait.) Then
		 * it sleeps at once, at most busy_poll_us / 4, so that it
		 * looks again soon after the workers run short of tasks. */
		double quiet = t - last;
		int nready = starpu_task_nready();
		/* Sharing the workers' cores (mpi.shared_cores: no core of
		 * its own), it does not spin either, not even while data
		 * moves, once every worker has a task: a thread spinning with
		 * yields stays runnable, takes the worker's core in slices,
		 * and when a message comes it waits behind the worker for a
		 * whole time slice (2.5-4.3 ms round trips, tests/test_idle);
		 * sleeping between polls, it is woken ahead of the worker
		 * (about 0.5 ms). On mpirun --bind-to core -np 2 with one
		 * worker per rank: Cholesky 25% faster (mpi/README.md "Idle"). */
		int workers_busy = nready > mpi.nworkers || (mpi.shared_cores && nready >= mpi.nworkers);
		int spin_moving = moving && !(mpi.shared_cores && workers_busy);
		if (!driven && (spin_moving || (!workers_busy && (++polls < QUIET_POLLS || quiet < mpi.spin_us))))
		{
			SPIN_YIELD();
			SPIN_WAIT(mpi.spin_us - quiet);
			continue;
		}
		starpu_pthread_mutex_lock(&mpi.qlock);
		int busy = mpi.nlive > 0;
		/* Sharing the workers' cores while they all have work, each
		 * wake-up is paid by a worker: at most one every busy_poll_us/4
		 * then, and up to 3/4 of it. On this project's 2-core VM a
		 * wake-up (its timer's interrupt, two switches, the caches)
		 * made a 31 us stencil kernel last 80-90 us; with the
		 * previous bounds (busy_poll_us/10 and /4: a wake-up every
		 * 170-190 us) the rank's kernels took 13 us longer on average,
		 * and the StarPU-MPI stencil on 2 ranks of one core each ran
		 * 7-12% slower (mpi/README.md, "Idle"). */
		int shared_busy = mpi.shared_cores && workers_busy && !driven;
		unsigned cap = busy ? mpi.busy_poll_us : mpi.idle_poll_us;
		unsigned busy_cap = shared_busy ? 3 * mpi.busy_poll_us / 4 : mpi.busy_poll_us / 4;
		if (busy && workers_busy && cap > busy_cap)
			cap = busy_cap;
		/* Sleeping an eighth of the time already waited bounds what
		 * it adds to a wait to about 12%, and makes long waits cheap. */
		double sleep_us = driven ? mpi.busy_poll_us / 4.0 : 16 + (quiet > mpi.spin_us ? quiet - mpi.spin_us : 0) / 8;
		if (shared_busy && sleep_us < mpi.busy_poll_us / 4.0)
			sleep_us = mpi.busy_poll_us / 4.0;
		if (sleep_us > cap)
			sleep_us = cap;
		/* A large early message waits for its receive until a
		 * deadline, then is taken (match.c). */
		if (defer_left >= 0 && sleep_us > defer_left + 1)
			sleep_us = defer_left + 1;
		if ((driven || !mpi.qhead) && P.stop_requested == stop)
		{
			vela_cond_timedwait_us(&mpi.qcond, &mpi.qlock, sleep_us);
		}
		starpu_pthread_mutex_unlock(&mpi.qlock);
	}
	return NULL;
}

/* Whether the progression thread has no core of its own: every CPU of
 * the binding it inherits (this thread's) has a CPU worker. In a
 * simulated cluster the binding says nothing: no, unless
 * VELA_MPI_SHARED_CORES says otherwise (0 or 1 forces it; vela-simrun
 * sets 1 when the cluster's ranks share their cores, where the thread's
 * wake-ups are charged to the core: sim/README.md, "Clusters"). */
static int cores_shared(void)
{
	const char *force = getenv("VELA_MPI_SHARED_CORES");
	if (force && (!strcmp(force, "0") || !strcmp(force, "1")))
		return force[0] == '1';
	if (force && *force)
		mpi_error("starpu_mpi_init: VELA_MPI_SHARED_CORES=%s is not 0 or 1; deciding from the CPU binding", force);
#if defined(VELA_SIMULATED_MPI) || !defined(CPU_COUNT)
	return 0;
#else
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	int free_cpus = CPU_COUNT(&set);
	unsigned nw = starpu_worker_get_count();
	for (unsigned w = 0; w < nw; w++)
	{
		if (starpu_worker_get_type((int) w) != STARPU_CPU_WORKER)
			continue;
		int b = starpu_worker_get_bindid((int) w);
		int os = b >= 0 ? starpu_get_pu_os_index((unsigned) b) : -1;
		if (os < 0 || os >= CPU_SETSIZE)
			free_cpus--;	/* unbound: it takes one of them */
		else if (CPU_ISSET(os, &set))
		{
			CPU_CLR(os, &set);
			free_cpus--;
		}
	}
	return free_cpus <= 0;
#endif
}

int prog_start(void)
{
	memset(&P, 0, sizeof(P));
	mpi.shared_cores = cores_shared();
	ops_reset();
	match_init();
	/* Named at creation: naming itself would race with the creator's
	 * default name. */
	int ret = starpu_pthread_create_on("mpi-progress", &P.thread, NULL, progress_main, NULL, NULL);
	if (ret)
	{
		mpi_error("starpu_mpi_init: cannot start the progression thread (%d)", ret);
		match_fini();
		return -ret;
	}
	starpu_pthread_mutex_lock(&mpi.qlock);
	while (!P.started)
		starpu_pthread_cond_wait(&mpi.donecond, &mpi.qlock);
	starpu_pthread_mutex_unlock(&mpi.qlock);
	return 0;
}

int prog_stop(void)
{
	starpu_pthread_mutex_lock(&mpi.qlock);
	__atomic_store_n(&P.stop_requested, 1, __ATOMIC_RELEASE);
	starpu_pthread_cond_signal(&mpi.qcond);
	SPIN_POKE();
	starpu_pthread_mutex_unlock(&mpi.qlock);
	starpu_pthread_join(P.thread, NULL);
	/* Under the engine lock: a late waiter may still look at it. */
	starpu_pthread_mutex_lock(&mpi.elock);
	starpu_pthread_mutex_lock(&mpi.qlock);
	P.started = 0;
	starpu_pthread_mutex_unlock(&mpi.qlock);
	match_fini();
	req_pool_drain();
	ops_fini();
	free(P.brs);
	free(P.bcmds);
	int unmatched = P.unmatched;
	memset(&P, 0, sizeof(P));
	starpu_pthread_mutex_unlock(&mpi.elock);
	return unmatched;
}
