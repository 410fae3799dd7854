/* os_sg.c — the SimGrid backend of the OS seam (runtime/os/os.h).
 *
 * Threads are actors, placed on the platform host the caller names;
 * mutexes and conditions are SimGrid's; time is the simulated clock.
 * The seam's objects are fixed-size zeroed storage (static initializers
 * are zeros): the SimGrid object is created on first use and the storage
 * marked with a magic word, so a mutex last used by the posix backend (a
 * real run before this simulated one) starts afresh. One actor runs at a
 * time, so that lazy creation needs no lock.
 *
 * Calls from outside any actor are refused with a message: a thread made
 * with plain pthread_create cannot take part in a simulation (SimGrid
 * 3.32 cannot attach it safely), and maestro may not block. Once the
 * simulation is over (hijack boot: atexit handlers in maestro) the process
 * is single-threaded and the locks do nothing.
 */
#include "sim/sg_internal.h"

#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/mutex.h>
#include <xbt/config.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Time-shared hosts (below, "Time"). */
static double host_timer_overshoot(sg_host_t h);
static void woke(void);
static struct sg_thread *thread_host(struct sg_thread *t);

#define SG_MAGIC_MUTEX 0x4d584c56u	/* "VLXM" */
#define SG_MAGIC_COND 0x44434c56u	/* "VLCD" */
#define SG_MAGIC_RWLOCK 0x4b574c56u	/* "VLWK" */

struct sg_mutex_st
{
	uint32_t magic;
	uint32_t depth;			/* recursive locks held by owner */
	struct sg_thread *owner;	/* while locked */
	uint32_t nwaiters;		/* actors blocked in mutex_acquire */
	int32_t recursive;
	sg_mutex_t m;			/* contended waits only: NULL until then */
	sg_cond_t c;
};

/* A waiter on a condition whose waits are blocking waits (sg_blocking):
 * on its stack, listed in the condition's FIFO until woken. */
struct sg_waiter
{
	struct sg_delay_slot *slot;
	struct sg_waiter *next, *prev;
	int listed;
};

struct sg_cond_st
{
	uint32_t magic;
	uint32_t nwaiters;
	uint64_t seq;			/* signals given so far */
	sg_mutex_t m;			/* NULL until the first wait (cond_notify) */
	sg_cond_t c;
	struct sg_waiter *head, *tail;	/* blocking waits: their waiters */
};

struct sg_rwlock_st
{
	uint32_t magic;
	uint32_t readers;
	int32_t writer;
	uint32_t nwaiters;
	sg_mutex_t m;			/* contended waits only: NULL until then */
	sg_cond_t c;
};

_Static_assert(sizeof(struct sg_mutex_st) <= sizeof(os_mutex_t), "os_mutex_t too small");
_Static_assert(sizeof(struct sg_cond_st) <= sizeof(os_cond_t), "os_cond_t too small");
_Static_assert(sizeof(struct sg_rwlock_st) <= sizeof(os_rwlock_t), "os_rwlock_t too small");

/* ------------------------------------------------------------------ */
/* Who is calling. The runtime asks around every lock, and SimGrid's
 * answer (sg_self: Actor::self, is_maestro, get_data) costs several
 * thread-local lookups inside a dlopen()ed library: ~13% of a simulated
 * dmda run's time went there. Each actor's stack is its own memory, so
 * the top of it identifies the actor: self_fast() first checks whether
 * the stack pointer lies in the window of the actor that asked last, a
 * range just below the frame its runtime code starts from (trampoline,
 * the hijacked main), no larger than a quarter of the configured stack
 * so that it cannot reach another actor's stack. Deeper calls, maestro,
 * and actors without a window (the attached main thread, whose frames may
 * lie above the attach point) ask SimGrid. One actor runs at a time, so
 * the cache needs no lock; it is cleared before an actor's struct goes. */
static uintptr_t self_window;		/* bytes; 0: no caching */
static struct sg_thread *self_cache;	/* has a window */

void sg_self_configure(void)
{
	long kib = sg_cfg_get_int("contexts/stack-size");
	uintptr_t w = kib > 0 ? (uintptr_t) kib * 1024 / 4 : 0;
	self_window = w < 64 * 1024 ? w : 64 * 1024;
}

void sg_self_enter(struct sg_thread *t)
{
	if (!self_window)
		return;
	/* A little above our frame: the caller's frame belongs to t too. */
	t->win_hi = (uintptr_t) __builtin_frame_address(0) + 256;
	t->win_lo = t->win_hi - self_window;
}

void sg_self_leave(struct sg_thread *t)
{
	if (self_cache == t)
		self_cache = NULL;
	t->win_lo = t->win_hi = 0;
}

__attribute__((noinline)) static struct sg_thread *self_slow(void)
{
	struct sg_thread *t = sg_self();
	if (t && t->win_hi)
		self_cache = t;
	return t;
}

static inline struct sg_thread *self_fast(void)
{
	uintptr_t sp = (uintptr_t) __builtin_frame_address(0);
	struct sg_thread *t = self_cache;
	if (__builtin_expect(t && sp - t->win_lo < t->win_hi - t->win_lo, 1))
		return t;
	return self_slow();
}

/* Called from outside the simulation while it runs: dies with the reason. */
__attribute__((noinline, cold)) static struct sg_thread *not_an_actor(const char *op)
{
	fprintf(stderr, "[vela] fatal: %s called from a thread that is not part of the simulation: with STARPU_SIMGRID=1 "
		"only main() and threads made by Vela (starpu_pthread_create) may call Vela; threads made with "
		"pthread_create cannot (a SimGrid limitation)\n", op);
	abort();
}

/* The calling thread, or NULL when the simulation is over; dies with the
 * reason when called from outside the simulation while it runs. Inline:
 * every lock and unlock asks (about a hundred times per simulated task). */
static inline struct sg_thread *self_or_die(const char *op)
{
	struct sg_thread *t = self_fast();
	if (__builtin_expect(t != NULL, 1) || sg_over)
		return t;
	return not_an_actor(op);
}

/* ------------------------------------------------------------------ */
/* Threads. */

static void run_key_destructors(struct sg_thread *t);

static void trampoline(int argc, char **argv)
{
	(void) argc;
	(void) argv;
	struct sg_thread *t = sg_self();
	sg_self_enter(t);
	t->ret = t->fn(t->arg);
	run_key_destructors(t);
	if (t->wait_mutex)
	{
		sg_mutex_destroy(t->wait_mutex);
		t->wait_mutex = NULL;
	}
	sg_self_leave(t);
	if (t->detached)
	{
		sg_actor_self_set_data(NULL);
		free(t);
	}
}

static int sg_thread_create(os_thread_t *thread, const struct os_thread_attr *attr, void *(*fn)(void *), void *arg)
{
	self_or_die("os_thread_create");
	sg_host_t host = sg_host_self();
	if (attr && attr->host)
	{
		host = sg_host_named(attr->host);
		if (!host)
		{
			fprintf(stderr, "[vela] error: cannot start thread '%s': the simulated platform has no host '%s'\n",
				attr->name ? attr->name : "?", attr->host);
			return ENOENT;
		}
	}
	struct sg_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return ENOMEM;
	t->fn = fn;
	t->arg = arg;
	t->detached = attr && attr->detached;
	sg_actor_t a = sg_actor_init(attr && attr->name ? attr->name : "thread", host);
	sg_actor_set_data(a, t);
	if (!t->detached)
		sg_actor_ref(a);	/* dropped by join */
	t->actor = a;
	*thread = (os_thread_t) t;
	sg_actor_start(a, trampoline, 0, NULL);
	return 0;
}

static int sg_thread_join(os_thread_t thread, void **retval)
{
	struct sg_thread *t = (struct sg_thread *) thread;
	self_or_die("os_thread_join");
	if (!t || t->detached)
		return EINVAL;
	sg_actor_join(t->actor, -1);
	sg_actor_unref(t->actor);
	if (retval)
		*retval = t->ret;
	free(t);
	return 0;
}

static os_thread_t sg_thread_self(void)
{
	return (os_thread_t) self_fast();
}

static void sg_thread_exit(void *retval)
{
	struct sg_thread *t = self_or_die("starpu_pthread_exit");
	if (!t)
		exit(0);
	t->ret = retval;
	run_key_destructors(t);
	sg_self_leave(t);
	if (t->detached)
	{
		sg_actor_self_set_data(NULL);
		free(t);
	}
	sg_actor_exit();
}

/* ------------------------------------------------------------------ */
/* Keys: slots in each actor's struct sg_thread. */

static unsigned nkeys;
static void (*key_destructors[SG_MAX_KEYS])(void *);

static int sg_key_create(os_key_t *key, void (*destructor)(void *))
{
	if (nkeys >= SG_MAX_KEYS)
		return EAGAIN;
	key_destructors[nkeys] = destructor;
	*key = nkeys++;
	return 0;
}

static int sg_key_delete(os_key_t key)
{
	if (key >= nkeys)
		return EINVAL;
	key_destructors[key] = NULL;
	return 0;
}

static void *sg_getspecific(os_key_t key)
{
	struct sg_thread *t = self_fast();
	return t && key < SG_MAX_KEYS ? t->keys[key] : NULL;
}

static int sg_setspecific(os_key_t key, const void *value)
{
	struct sg_thread *t = self_or_die("os_setspecific");
	if (!t || key >= SG_MAX_KEYS)
		return EINVAL;
	t->keys[key] = (void *) value;
	return 0;
}

static void run_key_destructors(struct sg_thread *t)
{
	for (unsigned k = 0; k < nkeys; k++)
		if (t->keys[k] && key_destructors[k])
		{
			void *v = t->keys[k];
			t->keys[k] = NULL;
			key_destructors[k](v);
		}
}

/* ------------------------------------------------------------------ */
/* Mutexes.
 *
 * One actor runs at a time, so an uncontended lock or unlock is a plain
 * write to the owner field: no SimGrid call. That matters twice: a
 * SimGrid call is a trip through maestro (the runtime takes several locks
 * per task), and it is a point where other actors may run, so taking one
 * more uncontended lock (e.g. to record a trace) would change the order in
 * which actors run at the same simulated instant, hence the schedule.
 * Only an actor that finds the mutex held blocks, on the mutex's own
 * SimGrid mutex and condition (created on first contention), and checks
 * the owner again under that SimGrid mutex; an unlock with waiters
 * notifies under it, so no wake-up is lost: the owner field is cleared
 * before the notifier takes the SimGrid mutex, and a waiter reads it
 * holding that mutex until it sleeps. */

static struct sg_mutex_st *mutex_get(os_mutex_t *mutex)
{
	struct sg_mutex_st *s = (struct sg_mutex_st *) (void *) mutex;
	if (__builtin_expect(s->magic != SG_MAGIC_MUTEX, 0))
	{
		memset(s, 0, sizeof(*s));
		s->magic = SG_MAGIC_MUTEX;
	}
	return s;
}

/* The SimGrid objects contended waits need. */
static void mutex_wait_objects(struct sg_mutex_st *s)
{
	if (!s->m)
	{
		s->m = sg_mutex_init();
		s->c = sg_cond_init();
	}
}

static int sg_mutex_init_(os_mutex_t *mutex, int recursive)
{
	memset(mutex, 0, sizeof(*mutex));
	if (sg_over)
		return 0;
	struct sg_mutex_st *s = mutex_get(mutex);
	s->recursive = recursive;
	return 0;
}

static int sg_mutex_destroy_(os_mutex_t *mutex)
{
	struct sg_mutex_st *s = (struct sg_mutex_st *) (void *) mutex;
	if (s->magic == SG_MAGIC_MUTEX && s->m && !sg_over)
	{
		sg_cond_destroy(s->c);
		sg_mutex_destroy(s->m);
	}
	memset(mutex, 0, sizeof(*mutex));
	return 0;
}

/* Takes s for me, blocking while another actor holds it. */
static void mutex_acquire(struct sg_mutex_st *s, struct sg_thread *me)
{
	if (__builtin_expect(s->owner == NULL, 1))
	{
		s->owner = me;
		return;
	}
	mutex_wait_objects(s);
	s->nwaiters++;
	sg_mutex_lock(s->m);
	while (s->owner)
		sg_cond_wait(s->c, s->m);
	s->owner = me;		/* before any other actor can run */
	s->nwaiters--;
	sg_mutex_unlock(s->m);
}

static void mutex_release(struct sg_mutex_st *s)
{
	s->owner = NULL;
	if (__builtin_expect(s->nwaiters == 0, 1))
		return;
	sg_mutex_lock(s->m);
	sg_cond_notify_one(s->c);
	sg_mutex_unlock(s->m);
}

static int sg_mutex_lock_(os_mutex_t *mutex)
{
	struct sg_thread *me = self_or_die("mutex_lock");
	if (!me)
		return 0;
	struct sg_mutex_st *s = mutex_get(mutex);
	if (s->owner == me)
	{
		if (!s->recursive)
			return EDEADLK;
		s->depth++;
		return 0;
	}
	mutex_acquire(s, me);
	s->depth = 1;
	return 0;
}

static int sg_mutex_trylock_(os_mutex_t *mutex)
{
	struct sg_thread *me = self_or_die("mutex_trylock");
	if (!me)
		return 0;
	struct sg_mutex_st *s = mutex_get(mutex);
	if (s->owner == me && s->recursive)
	{
		s->depth++;
		return 0;
	}
	if (s->owner)
		return EBUSY;
	s->owner = me;
	s->depth = 1;
	return 0;
}

static int sg_mutex_unlock_(os_mutex_t *mutex)
{
	struct sg_thread *me = self_or_die("mutex_unlock");
	if (!me)
		return 0;
	struct sg_mutex_st *s = mutex_get(mutex);
	if (s->owner != me)
		return EPERM;
	if (--s->depth > 0)
		return 0;
	mutex_release(s);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Conditions.
 *
 * A condition counts its signals (seq). A waiter notes the count while it
 * still holds the mutex, releases the mutex, then sleeps on the
 * condition's own SimGrid mutex and condition until the count moves (or
 * the delay passes), and takes the mutex again. A signal bumps the count
 * and, only when some actor waits, notifies under the SimGrid mutex; as a
 * waiter compares the count holding that mutex until it sleeps, no signal
 * given after it released the mutex is lost. Wake-ups may be spurious, as
 * with pthreads: callers wait in a loop on their predicate. */

static struct sg_cond_st *cond_get(os_cond_t *cond)
{
	struct sg_cond_st *s = (struct sg_cond_st *) (void *) cond;
	if (__builtin_expect(s->magic != SG_MAGIC_COND, 0))
	{
		memset(s, 0, sizeof(*s));
		s->magic = SG_MAGIC_COND;
	}
	return s;
}

static int sg_cond_init_(os_cond_t *cond)
{
	memset(cond, 0, sizeof(*cond));
	if (!sg_over)
		cond_get(cond);
	return 0;
}

static int sg_cond_destroy_(os_cond_t *cond)
{
	struct sg_cond_st *s = (struct sg_cond_st *) (void *) cond;
	if (s->magic == SG_MAGIC_COND && s->m && !sg_over)
	{
		sg_cond_destroy(s->c);
		sg_mutex_destroy(s->m);
	}
	memset(cond, 0, sizeof(*cond));
	return 0;
}

/* Untimed waiters wait with the condition's SimGrid mutex, which the
 * notifier takes too; a timed waiter waits with a mutex of its own
 * (struct sg_thread's wait_mutex), which nobody else ever locks: SimGrid
 * 3.32 mishandles a timed wait that times out while its mutex is held by
 * another actor (the waiter returns without owning it, then "Cannot
 * release that mutex: you're not the owner"). Either kind checks the
 * condition's sequence number after locking and before waiting, with no
 * simcall in between, so no notification is lost.
 *
 * Where blocking waits are served (sg_blocking: the ranks of a cluster),
 * none of that: a waiter lists itself in the condition's FIFO and blocks
 * (sg_block, with its deadline if timed); a notification takes the first
 * or every waiter off the list and unblocks it, in one step of maestro
 * (sg_in_kernel). No SimGrid mutex, condition or sleep. */
static int blocking_waits;

void sg_waits_configure(void)
{
	blocking_waits = sg_blocking();
}

static void waiter_unlink(struct sg_cond_st *c, struct sg_waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		c->head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		c->tail = w->prev;
	w->listed = 0;
}

struct wake_order
{
	struct sg_cond_st *c;
	int all;
};

/* In maestro. */
static void wake_waiters(void *arg)
{
	struct wake_order *o = arg;
	struct sg_cond_st *c = o->c;
	while (c->head)
	{
		struct sg_waiter *w = c->head;
		waiter_unlink(c, w);
		sg_unblock(w->slot);
		if (!o->all)
			break;
	}
}

static void cond_notify(struct sg_cond_st *c, int all)
{
	c->seq++;
	if (__builtin_expect(c->nwaiters == 0, 1))
		return;
	if (blocking_waits)
	{
		if (c->head)
		{
			struct wake_order o = {c, all};
			sg_in_kernel(wake_waiters, &o);
		}
		return;
	}
	sg_mutex_lock(c->m);
	if (all)
		sg_cond_notify_all(c->c);
	else
		sg_cond_notify_one(c->c);
	sg_mutex_unlock(c->m);
}

static int sg_cond_signal_(os_cond_t *cond)
{
	if (!self_or_die("cond_signal"))
		return 0;
	cond_notify(cond_get(cond), 0);
	return 0;
}

static int sg_cond_broadcast_(os_cond_t *cond)
{
	if (!self_or_die("cond_broadcast"))
		return 0;
	cond_notify(cond_get(cond), 1);
	return 0;
}

/* A blocking wait (sg_blocking) for a signal after seq, until deadline_s
 * if timed: whether it timed out. me has released the mutex. */
static int cond_block(struct sg_cond_st *c, struct sg_thread *me, struct sg_waiter *w, unsigned long seq,
		      double deadline_s, int timed, int *waited)
{
	int timedout = 0;
	while (c->seq == seq && !timedout)
	{
		*waited = 1;
		if (!timed)
			sg_block(&me->delay, -1);
		else
			timedout = deadline_s - sg_clock() <= 0 || sg_block(&me->delay, deadline_s);
	}
	if (w->listed)
		waiter_unlink(c, w);
	return timedout;
}

/* Waits with the mutex released whatever its recursion depth, as
 * pthread_cond_wait does for a mutex locked once; timed: until the
 * simulated clock reaches deadline_s. */
static int cond_wait_common(os_cond_t *cond, os_mutex_t *mutex, double deadline_s, int timed)
{
	struct sg_thread *me = self_or_die("cond_wait");
	if (!me)
	{
		fprintf(stderr, "[vela] fatal: a condition wait after the end of the simulation would never return\n");
		abort();
	}
	struct sg_mutex_st *m = mutex_get(mutex);
	if (m->owner != me)
		return EPERM;
	struct sg_cond_st *c = cond_get(cond);
	unsigned depth = m->depth;
	unsigned long seq = c->seq;
	int timedout = 0, waited = 0;
	if (blocking_waits)
	{
		struct sg_waiter w = {&me->delay, NULL, c->tail, 1};
		me->delay.signalled = 0;
		if (c->tail)
			c->tail->next = &w;
		else
			c->head = &w;
		c->tail = &w;
		c->nwaiters++;
		m->depth = 0;
		mutex_release(m);
		timedout = cond_block(c, me, &w, seq, deadline_s, timed, &waited);
		c->nwaiters--;
	}
	else
	{
		if (!c->m)
		{
			c->m = sg_mutex_init();
			c->c = sg_cond_init();
		}
		if (timed && !me->wait_mutex)
			me->wait_mutex = sg_mutex_init();
		sg_mutex_t wm = timed ? me->wait_mutex : c->m;
		c->nwaiters++;
		m->depth = 0;
		mutex_release(m);
		sg_mutex_lock(wm);
		while (c->seq == seq && !timedout)
		{
			waited = 1;
			if (!timed)
				sg_cond_wait(c->c, wm);
			else
			{
				double left = deadline_s - sg_clock();
				timedout = left <= 0 || sg_cond_wait_for(c->c, wm, left);
			}
		}
		c->nwaiters--;
		sg_mutex_unlock(wm);
	}
	if (waited)
		woke();
	mutex_acquire(m, me);
	m->depth = depth;
	return timedout && c->seq == seq ? ETIMEDOUT : 0;
}

static int sg_cond_wait_(os_cond_t *cond, os_mutex_t *mutex)
{
	return cond_wait_common(cond, mutex, 0, 0);
}

/* A timed wait that times out ends late by the host's timer overshoot
 * (a real thread's timer fires after its deadline: Linux's timer slack,
 * 50 µs by default, and the wake-up); one that is signalled is not. */

static int sg_cond_timedwait_(os_cond_t *cond, os_mutex_t *mutex, double deadline_us)
{
	struct sg_thread *t = self_fast();
	double overshoot = t ? thread_host(t)->overshoot_us * 1e-6 : host_timer_overshoot(sg_host_self());
	return cond_wait_common(cond, mutex, deadline_us * 1e-6 + overshoot, 1);
}

/* ------------------------------------------------------------------ */
/* Reader-writer locks: readers and one writer (writer preference is not
 * needed by the runtime), with the mutexes' scheme: free for what is
 * asked, a plain update; otherwise wait on the lock's SimGrid mutex and
 * condition, checking the state under that mutex. */

static struct sg_rwlock_st *rwlock_get(os_rwlock_t *rwlock)
{
	struct sg_rwlock_st *s = (struct sg_rwlock_st *) (void *) rwlock;
	if (__builtin_expect(s->magic != SG_MAGIC_RWLOCK, 0))
	{
		memset(s, 0, sizeof(*s));
		s->magic = SG_MAGIC_RWLOCK;
	}
	return s;
}

static int sg_rwlock_init_(os_rwlock_t *rwlock)
{
	memset(rwlock, 0, sizeof(*rwlock));
	if (!sg_over)
		rwlock_get(rwlock);
	return 0;
}

static int sg_rwlock_destroy_(os_rwlock_t *rwlock)
{
	struct sg_rwlock_st *s = (struct sg_rwlock_st *) (void *) rwlock;
	if (s->magic == SG_MAGIC_RWLOCK && s->m && !sg_over)
	{
		sg_cond_destroy(s->c);
		sg_mutex_destroy(s->m);
	}
	memset(rwlock, 0, sizeof(*rwlock));
	return 0;
}

static int rwlock_busy(const struct sg_rwlock_st *s, int write)
{
	return write ? s->writer || s->readers : s->writer;
}

static int rwlock_acquire(os_rwlock_t *rwlock, int write, int try)
{
	if (!self_or_die(write ? "rwlock_wrlock" : "rwlock_rdlock"))
		return 0;
	struct sg_rwlock_st *s = rwlock_get(rwlock);
	if (rwlock_busy(s, write))
	{
		if (try)
			return EBUSY;
		if (!s->m)
		{
			s->m = sg_mutex_init();
			s->c = sg_cond_init();
		}
		s->nwaiters++;
		sg_mutex_lock(s->m);
		while (rwlock_busy(s, write))
			sg_cond_wait(s->c, s->m);
		s->nwaiters--;
		if (write)	/* before any other actor can run */
			s->writer = 1;
		else
			s->readers++;
		sg_mutex_unlock(s->m);
		return 0;
	}
	if (write)
		s->writer = 1;
	else
		s->readers++;
	return 0;
}

static int sg_rwlock_rdlock_(os_rwlock_t *rwlock)
{
	return rwlock_acquire(rwlock, 0, 0);
}

static int sg_rwlock_tryrdlock_(os_rwlock_t *rwlock)
{
	return rwlock_acquire(rwlock, 0, 1);
}

static int sg_rwlock_wrlock_(os_rwlock_t *rwlock)
{
	return rwlock_acquire(rwlock, 1, 0);
}

static int sg_rwlock_trywrlock_(os_rwlock_t *rwlock)
{
	return rwlock_acquire(rwlock, 1, 1);
}

static int sg_rwlock_unlock_(os_rwlock_t *rwlock)
{
	if (!self_or_die("rwlock_unlock"))
		return 0;
	struct sg_rwlock_st *s = rwlock_get(rwlock);
	if (s->writer)
		s->writer = 0;
	else if (s->readers)
		s->readers--;
	if (__builtin_expect(s->nwaiters == 0, 1))
		return 0;
	sg_mutex_lock(s->m);
	sg_cond_notify_all(s->c);
	sg_mutex_unlock(s->m);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Time. */

static double sg_now_us(void)
{
	return sg_clock() * 1e6;
}

static void sg_sleep_us(double us)
{
	struct sg_thread *t = self_or_die("sleep");
	if (!t || !(us > 0))
		return;
	sg_delay(&t->delay, us * 1e-6 + thread_host(t)->overshoot_us * 1e-6);
	woke();
}

void sg_sleep(double seconds)
{
	struct sg_thread *t = self_fast();
	if (t)
		sg_delay(&t->delay, seconds);
	else if (!sg_over)
		sg_actor_sleep_for(seconds);	/* an actor that is no runtime thread */
}

/* Whether host h is time-shared (SG_PROP_TIME_SHARED): the last few
 * hosts asked about, remembered (a rank's actors use one or two). Each
 * rank's plugin has its own copy; actors run one at a time. */
static int host_time_shared(sg_host_t h)
{
	static struct { sg_host_t h; int shared; } seen[8];
	static unsigned nseen;
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i].h == h)
			return seen[i].shared;
	const char *v = sg_host_get_property_value(h, SG_PROP_TIME_SHARED);
	int shared = v && !strcmp(v, "1");
	seen[nseen % 8].h = h;
	seen[nseen % 8].shared = shared;
	if (nseen < 8)
		nseen++;
	return shared;
}

/* A host's timer_overshoot_us and wakeup_us (SG_PROP_TIMER_OVERSHOOT,
 * SG_PROP_WAKEUP_COST), µs, 0 when absent; the wake-up cost only on a
 * time-shared host. Cached like host_time_shared. */
struct host_timing
{
	sg_host_t h;
	double overshoot_us, wakeup_us;
};

static const struct host_timing *host_timing(sg_host_t h)
{
	static struct host_timing seen[8];
	static unsigned nseen;
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i].h == h)
			return &seen[i];
	struct host_timing *t = &seen[nseen % 8];
	if (nseen < 8)
		nseen++;
	t->h = h;
	const char *names[2] = { SG_PROP_TIMER_OVERSHOOT, SG_PROP_WAKEUP_COST };
	double *dst[2] = { &t->overshoot_us, &t->wakeup_us };
	for (int k = 0; k < 2; k++)
	{
		const char *v = h ? sg_host_get_property_value(h, names[k]) : NULL;
		double us = v ? strtod(v, NULL) : 0;
		*dst[k] = us > 0 && isfinite(us) ? us : 0;
	}
	if (!h || !host_time_shared(h))
		t->wakeup_us = 0;
	return t;
}

static double host_timer_overshoot(sg_host_t h)
{
	return host_timing(h)->overshoot_us * 1e-6;
}

/* t, with its host's facts read (each delay and wake-up asks: the lookups
 * above cost a trip into SimGrid and, past 8 hosts, a property search). */
static struct sg_thread *thread_host(struct sg_thread *t)
{
	if (__builtin_expect(!t->host_facts, 0))
	{
		sg_host_t h = sg_host_self();
		const struct host_timing *ht = host_timing(h);
		t->overshoot_us = ht->overshoot_us;
		t->wakeup_us = ht->wakeup_us;
		t->host_facts = h && host_time_shared(h) ? 2 : 1;
	}
	return t;
}

/* The calling actor has woken from a wait or a sleep: on a time-shared
 * host it takes the core for the host's wakeup_us, ahead of the threads
 * computing there, as Linux runs a thread that wakes after sleeping ahead
 * of a thread that has been computing: the MPI progression thread woken by
 * its timer beside a StarPU-MPI worker on one core ran after a median 8 us
 * (perf sched timehist, 2 ranks on the 2-core VM), did its work in one
 * stretch, then the worker resumed; sharing the core equally with the
 * worker would have made each wake-up last twice its cost. An execution
 * with a priority far above the others' (SimGrid shares a core in
 * proportion to priorities) takes the whole core. */
#define WAKEUP_PRIORITY 1e6

static void woke(void)
{
	struct sg_thread *t = self_fast();
	double us = t ? thread_host(t)->wakeup_us : host_timing(sg_host_self())->wakeup_us;
	if (!(us > 0))
		return;
	sg_host_t h = sg_host_self();
	sg_actor_execute_with_priority(us * 1e-6 * sg_host_get_speed(h), WAKEUP_PRIORITY);
}

void sg_busy_us(double us)
{
	if (!(us > 0))
		return;
	struct sg_thread *t = self_fast();
	if (t && thread_host(t)->host_facts == 1)
	{
		sg_delay(&t->delay, us * 1e-6);
		return;
	}
	sg_host_t h = sg_host_self();
	if (h && host_time_shared(h))
		sg_actor_execute(us * 1e-6 * sg_host_get_speed(h));
	else
		sg_sleep(us * 1e-6);
}

/* The runtime's own work (os_ops.model_cost): the actor is busy for that
 * long. A delay rather than flops on its host, for the reason driver_sg.c
 * gives (each runtime thread has a host of its own), except on a
 * time-shared host (sg_busy_us), whose threads take turns on one core. */
static void sg_model_cost(double us)
{
	if (self_or_die("model_cost") && us > 0)
		sg_busy_us(us);
}

/* sg_actor_yield alone would livelock a polling loop (simulated time
 * cannot advance while an actor is runnable): let a nanosecond pass. */
static void sg_yield_(void)
{
	struct sg_thread *t = self_or_die("yield");
	if (t)
		sg_delay(&t->delay, 1e-9);
}

const struct os_ops os_sg_ops = {
	.version = OS_OPS_VERSION,
	.name = "simgrid",
	.simulated = 1,
	.thread_create = sg_thread_create,
	.thread_join = sg_thread_join,
	.thread_self = sg_thread_self,
	.thread_exit = sg_thread_exit,
	.thread_setname = NULL,
	.key_create = sg_key_create,
	.key_delete = sg_key_delete,
	.getspecific = sg_getspecific,
	.setspecific = sg_setspecific,
	.mutex_init = sg_mutex_init_,
	.mutex_destroy = sg_mutex_destroy_,
	.mutex_lock = sg_mutex_lock_,
	.mutex_trylock = sg_mutex_trylock_,
	.mutex_unlock = sg_mutex_unlock_,
	.cond_init = sg_cond_init_,
	.cond_destroy = sg_cond_destroy_,
	.cond_signal = sg_cond_signal_,
	.cond_broadcast = sg_cond_broadcast_,
	.cond_wait = sg_cond_wait_,
	.cond_timedwait = sg_cond_timedwait_,
	.rwlock_init = sg_rwlock_init_,
	.rwlock_destroy = sg_rwlock_destroy_,
	.rwlock_rdlock = sg_rwlock_rdlock_,
	.rwlock_tryrdlock = sg_rwlock_tryrdlock_,
	.rwlock_wrlock = sg_rwlock_wrlock_,
	.rwlock_trywrlock = sg_rwlock_trywrlock_,
	.rwlock_unlock = sg_rwlock_unlock_,
	.now_us = sg_now_us,
	.sleep_us = sg_sleep_us,
	.yield = sg_yield_,
	.timestamp_ns = NULL,
	.model_cost = sg_model_cost,
};
