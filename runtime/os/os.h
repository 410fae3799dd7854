/* os.h — the OS seam: everything the runtime needs from "the operating
 * system", behind one ops table chosen at starpu_init().
 *
 * The runtime (runtime/, drivers/) never includes pthread.h, never reads a
 * clock and never sleeps by itself: it calls the os_* wrappers declared here
 * (implemented in os.c, the single choke point), which call the current
 * backend. Two backends exist:
 *   - posix (os_posix.c): pthreads and CLOCK_MONOTONIC, for real runs;
 *   - SimGrid (sim/, a plugin loaded only in simulation): actors, SimGrid
 *     mutexes and conditions, simulated time.
 * Because raw SimGrid contexts run every actor on one OS thread, per-thread
 * state must go through os_getspecific(), never through __thread variables,
 * and every wait must block in a seam primitive (never spin or take an OS
 * lock across a wait): otherwise simulated time cannot advance.
 *
 * Objects are opaque storage of fixed size (the public starpu_pthread_*
 * types); all-zero storage is a valid unlocked mutex, condition or rwlock,
 * so OS_MUTEX_INITIALIZER and friends are zeros. Backends may create their
 * underlying objects lazily.
 *
 * The table is versioned the SQLite way: new methods are appended and
 * version bumped; a NULL method means "not supported". Tests install a
 * fault-injecting backend through os_set_backend().
 */
#ifndef VELA_OS_H
#define VELA_OS_H

#include <starpu_thread.h>
#include <stddef.h>
#include <stdint.h>

typedef starpu_pthread_mutex_t os_mutex_t;
typedef starpu_pthread_cond_t os_cond_t;
typedef starpu_pthread_rwlock_t os_rwlock_t;
typedef uintptr_t os_thread_t;
typedef unsigned os_key_t;

#define OS_MUTEX_INITIALIZER STARPU_PTHREAD_MUTEX_INITIALIZER
#define OS_COND_INITIALIZER STARPU_PTHREAD_COND_INITIALIZER
#define OS_RWLOCK_INITIALIZER STARPU_PTHREAD_RWLOCK_INITIALIZER

/* Where and how to start a thread. */
struct os_thread_attr
{
	const char *name;	/* for debuggers and simulated actor names */
	const char *host;	/* simulation: platform host to run on (NULL: the caller's) */
	size_t stacksize;	/* 0: backend default */
	int detached;
};

#define OS_OPS_VERSION 3

struct os_ops
{
	unsigned version;
	const char *name;
	int simulated;		/* time is simulated; binding and spinning are meaningless */

	/* Threads. */
	int (*thread_create)(os_thread_t *thread, const struct os_thread_attr *attr, void *(*fn)(void *), void *arg);
	int (*thread_join)(os_thread_t thread, void **retval);
	os_thread_t (*thread_self)(void);
	void (*thread_exit)(void *retval);
	void (*thread_setname)(const char *name);

	/* Per-thread data. */
	int (*key_create)(os_key_t *key, void (*destructor)(void *));
	int (*key_delete)(os_key_t key);
	void *(*getspecific)(os_key_t key);
	int (*setspecific)(os_key_t key, const void *value);

	/* Mutexes; recursive is nonzero for a recursive mutex. */
	int (*mutex_init)(os_mutex_t *mutex, int recursive);
	int (*mutex_destroy)(os_mutex_t *mutex);
	int (*mutex_lock)(os_mutex_t *mutex);
	int (*mutex_trylock)(os_mutex_t *mutex);
	int (*mutex_unlock)(os_mutex_t *mutex);

	/* Conditions. timedwait's deadline is absolute, on the now_us() scale;
	 * it returns ETIMEDOUT when the deadline passes. */
	int (*cond_init)(os_cond_t *cond);
	int (*cond_destroy)(os_cond_t *cond);
	int (*cond_signal)(os_cond_t *cond);
	int (*cond_broadcast)(os_cond_t *cond);
	int (*cond_wait)(os_cond_t *cond, os_mutex_t *mutex);
	int (*cond_timedwait)(os_cond_t *cond, os_mutex_t *mutex, double deadline_us);

	/* Reader-writer locks. */
	int (*rwlock_init)(os_rwlock_t *rwlock);
	int (*rwlock_destroy)(os_rwlock_t *rwlock);
	int (*rwlock_rdlock)(os_rwlock_t *rwlock);
	int (*rwlock_tryrdlock)(os_rwlock_t *rwlock);
	int (*rwlock_wrlock)(os_rwlock_t *rwlock);
	int (*rwlock_trywrlock)(os_rwlock_t *rwlock);
	int (*rwlock_unlock)(os_rwlock_t *rwlock);

	/* Time, in microseconds since an arbitrary origin. */
	double (*now_us)(void);
	void (*sleep_us)(double us);
	/* Lets other threads run; only meaningful in real runs. */
	void (*yield)(void);

	/* Version 2. A cheap timestamp in nanoseconds on the now_us() time
	 * base, for observers that stamp every task (runtime/trace/): it may
	 * trade a little accuracy for speed (e.g. a calibrated cycle counter).
	 * NULL: derived from now_us(), which is what a simulated backend
	 * wants, since its now_us() is already a cheap read of simulated time. */
	uint64_t (*timestamp_ns)(void);

	/* Version 3. Charges the calling thread us microseconds of the
	 * runtime's own work (submitting, scheduling, setting up a copy: the
	 * simulation's overhead costs, core/sim_loader.h). A simulated backend
	 * lets that much simulated time pass; NULL (real backends) does
	 * nothing: there the work already took its real time. */
	void (*model_cost)(double us);
};

/* The posix backend, always built into libvela. */
extern const struct os_ops os_posix_ops;

/* Installs a backend; returns the previous one. Called by starpu_init() (or
 * the simulation bootstrap) before any runtime thread exists. */
const struct os_ops *os_set_backend(const struct os_ops *ops);
const struct os_ops *os_get_backend(void);
int os_is_simulated(void);

/* The wrappers: the only way runtime/ and drivers/ reach the backend. */
int os_thread_create(os_thread_t *thread, const struct os_thread_attr *attr, void *(*fn)(void *), void *arg);
int os_thread_join(os_thread_t thread, void **retval);
os_thread_t os_thread_self(void);
void os_thread_setname(const char *name);

int os_key_create(os_key_t *key, void (*destructor)(void *));
int os_key_delete(os_key_t key);
void *os_getspecific(os_key_t key);
int os_setspecific(os_key_t key, const void *value);

int os_mutex_init(os_mutex_t *mutex);
int os_mutex_init_recursive(os_mutex_t *mutex);
int os_mutex_destroy(os_mutex_t *mutex);
void os_mutex_lock(os_mutex_t *mutex);
int os_mutex_trylock(os_mutex_t *mutex);
void os_mutex_unlock(os_mutex_t *mutex);

int os_cond_init(os_cond_t *cond);
int os_cond_destroy(os_cond_t *cond);
void os_cond_signal(os_cond_t *cond);
void os_cond_broadcast(os_cond_t *cond);
void os_cond_wait(os_cond_t *cond, os_mutex_t *mutex);
/* Returns 0, or ETIMEDOUT once now() >= deadline_us. */
int os_cond_timedwait(os_cond_t *cond, os_mutex_t *mutex, double deadline_us);

int os_rwlock_init(os_rwlock_t *rwlock);
int os_rwlock_destroy(os_rwlock_t *rwlock);
void os_rwlock_rdlock(os_rwlock_t *rwlock);
void os_rwlock_wrlock(os_rwlock_t *rwlock);
void os_rwlock_unlock(os_rwlock_t *rwlock);

double os_now_us(void);
/* Nanoseconds on the os_now_us() time base, cheap enough to call several
 * times per task (see os_ops.timestamp_ns). */
uint64_t os_timestamp_ns(void);
void os_sleep_us(double us);
void os_yield(void);
/* The runtime's own work, us µs of it, in simulated time (os_ops.model_cost);
 * nothing in a real run. */
void os_model_cost(double us);

/* A hint inside a polling loop (real runs only: simulated runs must not
 * poll, see the header comment). */
static inline void os_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* One pause of a polling loop (real runs only): the first looks spin
 * briefly, later ones yield the core, which on a machine with no spare core
 * the thread being waited for may need. *tries counts the loop's looks,
 * starting at 0. */
static inline void os_poll_pause(unsigned *tries)
{
	if (++*tries < 16)
		for (unsigned k = 0; k < 32; k++)
			os_cpu_relax();
	else
		os_yield();
}

#endif /* VELA_OS_H */
