/* starpu_thread.h — threads and synchronisation that work in real and
 * simulated runs alike.
 *
 * In StarPU these types change with the build (pthread types, or SimGrid
 * types in a simulation build). Vela has one build, so they are opaque
 * objects of fixed size whose operations go through the runtime's OS seam:
 * POSIX threads in a real run, SimGrid actors and their synchronisation in a
 * simulated one. Zero-filled storage is a valid, unlocked object, so the
 * static initializers are plain zeros.
 *
 * An application that takes a lock inside a codelet or callback, or creates
 * helper threads, should use these rather than raw pthreads: only these keep
 * working when the same binary is run with STARPU_SIMGRID=1.
 */
#ifndef STARPU_THREAD_H
#define STARPU_THREAD_H

#include <starpu_config.h>
#include <starpu_util.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Room for the largest backend object (glibc's pthread objects need at most
 * 56 bytes; the simulated backend stores one pointer). */
#define STARPU_PTHREAD_OPAQUE_SIZE 64

typedef uintptr_t starpu_pthread_t;
typedef struct starpu_pthread_attr { int detachstate; size_t stacksize; } starpu_pthread_attr_t;

typedef struct starpu_pthread_mutex
{
	union { unsigned char opaque[STARPU_PTHREAD_OPAQUE_SIZE]; long long align_; void *ptr_; } u;
} starpu_pthread_mutex_t;
typedef struct starpu_pthread_mutexattr { int type; } starpu_pthread_mutexattr_t;

typedef struct starpu_pthread_cond
{
	union { unsigned char opaque[STARPU_PTHREAD_OPAQUE_SIZE]; long long align_; void *ptr_; } u;
} starpu_pthread_cond_t;
typedef struct starpu_pthread_condattr { int unused_; } starpu_pthread_condattr_t;

typedef struct starpu_pthread_rwlock
{
	union { unsigned char opaque[STARPU_PTHREAD_OPAQUE_SIZE]; long long align_; void *ptr_; } u;
} starpu_pthread_rwlock_t;
typedef struct starpu_pthread_rwlockattr { int unused_; } starpu_pthread_rwlockattr_t;

typedef struct starpu_pthread_barrier
{
	starpu_pthread_mutex_t mutex;
	starpu_pthread_cond_t cond;
	unsigned count;		/* threads expected per round */
	unsigned arrived;	/* threads arrived in the current round */
	unsigned long round;	/* bumped when a round completes */
} starpu_pthread_barrier_t;
typedef struct starpu_pthread_barrierattr { int unused_; } starpu_pthread_barrierattr_t;
#define STARPU_PTHREAD_BARRIER_SERIAL_THREAD -1

typedef struct starpu_pthread_spinlock { starpu_pthread_mutex_t mutex; } starpu_pthread_spinlock_t;

typedef unsigned starpu_pthread_key_t;

typedef struct starpu_sem
{
	starpu_pthread_mutex_t mutex;
	starpu_pthread_cond_t cond;
	unsigned value;
} starpu_sem_t;

#define STARPU_PTHREAD_MUTEX_INITIALIZER { { { 0 } } }
#define STARPU_PTHREAD_COND_INITIALIZER { { { 0 } } }
#define STARPU_PTHREAD_RWLOCK_INITIALIZER { { { 0 } } }

/* Threads. A simulated run places the thread on the host named by where
 * (NULL: the caller's host); a real run ignores it. */
int starpu_pthread_create(starpu_pthread_t *thread, const starpu_pthread_attr_t *attr, void *(*start_routine)(void *), void *arg);
int starpu_pthread_create_on(const char *name, starpu_pthread_t *thread, const starpu_pthread_attr_t *attr, void *(*start_routine)(void *), void *arg, const char *where);
int starpu_pthread_join(starpu_pthread_t thread, void **retval);
void starpu_pthread_exit(void *retval) STARPU_ATTRIBUTE_NORETURN;
starpu_pthread_t starpu_pthread_self(void);
int starpu_pthread_equal(starpu_pthread_t t1, starpu_pthread_t t2);
int starpu_pthread_attr_init(starpu_pthread_attr_t *attr);
int starpu_pthread_attr_destroy(starpu_pthread_attr_t *attr);
int starpu_pthread_attr_setdetachstate(starpu_pthread_attr_t *attr, int detachstate);
void starpu_pthread_setname(const char *name);

/* Mutexes. */
int starpu_pthread_mutex_init(starpu_pthread_mutex_t *mutex, const starpu_pthread_mutexattr_t *attr);
int starpu_pthread_mutex_destroy(starpu_pthread_mutex_t *mutex);
int starpu_pthread_mutex_lock(starpu_pthread_mutex_t *mutex);
int starpu_pthread_mutex_unlock(starpu_pthread_mutex_t *mutex);
int starpu_pthread_mutex_trylock(starpu_pthread_mutex_t *mutex);
int starpu_pthread_mutexattr_init(starpu_pthread_mutexattr_t *attr);
int starpu_pthread_mutexattr_destroy(starpu_pthread_mutexattr_t *attr);
int starpu_pthread_mutexattr_gettype(const starpu_pthread_mutexattr_t *attr, int *type);
int starpu_pthread_mutexattr_settype(starpu_pthread_mutexattr_t *attr, int type);
/* The *_sched variants exist for source compatibility: scheduling policies
 * use them on workers' sched mutexes. */
int starpu_pthread_mutex_lock_sched(starpu_pthread_mutex_t *mutex);
int starpu_pthread_mutex_unlock_sched(starpu_pthread_mutex_t *mutex);
int starpu_pthread_mutex_trylock_sched(starpu_pthread_mutex_t *mutex);

/* Condition variables. */
int starpu_pthread_cond_init(starpu_pthread_cond_t *cond, starpu_pthread_condattr_t *attr);
int starpu_pthread_cond_destroy(starpu_pthread_cond_t *cond);
int starpu_pthread_cond_signal(starpu_pthread_cond_t *cond);
int starpu_pthread_cond_broadcast(starpu_pthread_cond_t *cond);
int starpu_pthread_cond_wait(starpu_pthread_cond_t *cond, starpu_pthread_mutex_t *mutex);
/* abstime is on the CLOCK_REALTIME scale, as for pthread_cond_timedwait. */
int starpu_pthread_cond_timedwait(starpu_pthread_cond_t *cond, starpu_pthread_mutex_t *mutex, const struct timespec *abstime);

/* Reader-writer locks. */
int starpu_pthread_rwlock_init(starpu_pthread_rwlock_t *rwlock, const starpu_pthread_rwlockattr_t *attr);
int starpu_pthread_rwlock_destroy(starpu_pthread_rwlock_t *rwlock);
int starpu_pthread_rwlock_rdlock(starpu_pthread_rwlock_t *rwlock);
int starpu_pthread_rwlock_tryrdlock(starpu_pthread_rwlock_t *rwlock);
int starpu_pthread_rwlock_wrlock(starpu_pthread_rwlock_t *rwlock);
int starpu_pthread_rwlock_trywrlock(starpu_pthread_rwlock_t *rwlock);
int starpu_pthread_rwlock_unlock(starpu_pthread_rwlock_t *rwlock);

/* Barriers. */
int starpu_pthread_barrier_init(starpu_pthread_barrier_t *barrier, const starpu_pthread_barrierattr_t *attr, unsigned count);
int starpu_pthread_barrier_destroy(starpu_pthread_barrier_t *barrier);
int starpu_pthread_barrier_wait(starpu_pthread_barrier_t *barrier);

/* Spin locks (sleeping locks underneath: spinning cannot work in a
 * simulated run). */
int starpu_pthread_spin_init(starpu_pthread_spinlock_t *lock, int pshared);
int starpu_pthread_spin_destroy(starpu_pthread_spinlock_t *lock);
int starpu_pthread_spin_lock(starpu_pthread_spinlock_t *lock);
int starpu_pthread_spin_trylock(starpu_pthread_spinlock_t *lock);
int starpu_pthread_spin_unlock(starpu_pthread_spinlock_t *lock);

/* Thread-specific data. */
int starpu_pthread_key_create(starpu_pthread_key_t *key, void (*destr_function)(void *));
int starpu_pthread_key_delete(starpu_pthread_key_t key);
int starpu_pthread_setspecific(starpu_pthread_key_t key, const void *pointer);
void *starpu_pthread_getspecific(starpu_pthread_key_t key);

/* Semaphores. */
int starpu_sem_init(starpu_sem_t *sem, int pshared, unsigned value);
int starpu_sem_destroy(starpu_sem_t *sem);
int starpu_sem_post(starpu_sem_t *sem);
int starpu_sem_wait(starpu_sem_t *sem);
int starpu_sem_trywait(starpu_sem_t *sem);
int starpu_sem_getvalue(starpu_sem_t *sem, int *value);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_THREAD_H */
