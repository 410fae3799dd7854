/* os.c — the wrappers of the OS seam (see os.h) and the public
 * starpu_pthread_* API, which is the same seam offered to applications.
 *
 * Every call from the runtime to threads, locks or time goes through the
 * functions of this file: it is where a fault-injecting or tracing backend
 * takes effect, and where a failing lock (always a bug) is reported.
 */
#include "os/os.h"
#include <starpu_stdlib.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The current backend. Written only while no runtime thread exists (at
 * starpu_init or by the simulation bootstrap), read everywhere. */
static const struct os_ops *os_cur = &os_posix_ops;

const struct os_ops *os_set_backend(const struct os_ops *ops)
{
	const struct os_ops *old = os_cur;
	os_cur = ops ? ops : &os_posix_ops;
	return old;
}

const struct os_ops *os_get_backend(void)
{
	return os_cur;
}

int os_is_simulated(void)
{
	return os_cur->simulated;
}

static void os_fatal(const char *what, int err)
{
	char buf[128];
	starpu_strerror_r(err, buf, sizeof(buf));
	fprintf(stderr, "[vela] fatal: %s failed in the %s OS backend: %s\n", what, os_cur->name, buf);
	abort();
}

int os_thread_create(os_thread_t *thread, const struct os_thread_attr *attr, void *(*fn)(void *), void *arg)
{
	return os_cur->thread_create(thread, attr, fn, arg);
}

int os_thread_join(os_thread_t thread, void **retval)
{
	return os_cur->thread_join(thread, retval);
}

os_thread_t os_thread_self(void)
{
	return os_cur->thread_self();
}

void os_thread_setname(const char *name)
{
	if (os_cur->thread_setname)
		os_cur->thread_setname(name);
}

int os_key_create(os_key_t *key, void (*destructor)(void *))
{
	return os_cur->key_create(key, destructor);
}

int os_key_delete(os_key_t key)
{
	return os_cur->key_delete(key);
}

void *os_getspecific(os_key_t key)
{
	return os_cur->getspecific(key);
}

int os_setspecific(os_key_t key, const void *value)
{
	return os_cur->setspecific(key, value);
}

int os_mutex_init(os_mutex_t *mutex)
{
	return os_cur->mutex_init(mutex, 0);
}

int os_mutex_init_recursive(os_mutex_t *mutex)
{
	return os_cur->mutex_init(mutex, 1);
}

int os_mutex_destroy(os_mutex_t *mutex)
{
	return os_cur->mutex_destroy(mutex);
}

void os_mutex_lock(os_mutex_t *mutex)
{
	int ret = os_cur->mutex_lock(mutex);
	if (ret)
		os_fatal("mutex_lock", ret);
}

int os_mutex_trylock(os_mutex_t *mutex)
{
	int ret = os_cur->mutex_trylock(mutex);
	if (ret && ret != EBUSY)
		os_fatal("mutex_trylock", ret);
	return ret;
}

void os_mutex_unlock(os_mutex_t *mutex)
{
	int ret = os_cur->mutex_unlock(mutex);
	if (ret)
		os_fatal("mutex_unlock", ret);
}

int os_cond_init(os_cond_t *cond)
{
	return os_cur->cond_init(cond);
}

int os_cond_destroy(os_cond_t *cond)
{
	return os_cur->cond_destroy(cond);
}

void os_cond_signal(os_cond_t *cond)
{
	int ret = os_cur->cond_signal(cond);
	if (ret)
		os_fatal("cond_signal", ret);
}

void os_cond_broadcast(os_cond_t *cond)
{
	int ret = os_cur->cond_broadcast(cond);
	if (ret)
		os_fatal("cond_broadcast", ret);
}

void os_cond_wait(os_cond_t *cond, os_mutex_t *mutex)
{
	int ret = os_cur->cond_wait(cond, mutex);
	if (ret)
		os_fatal("cond_wait", ret);
}

int os_cond_timedwait(os_cond_t *cond, os_mutex_t *mutex, double deadline_us)
{
	int ret = os_cur->cond_timedwait(cond, mutex, deadline_us);
	if (ret && ret != ETIMEDOUT)
		os_fatal("cond_timedwait", ret);
	return ret;
}

int os_rwlock_init(os_rwlock_t *rwlock)
{
	return os_cur->rwlock_init(rwlock);
}

int os_rwlock_destroy(os_rwlock_t *rwlock)
{
	return os_cur->rwlock_destroy(rwlock);
}

void os_rwlock_rdlock(os_rwlock_t *rwlock)
{
	int ret = os_cur->rwlock_rdlock(rwlock);
	if (ret)
		os_fatal("rwlock_rdlock", ret);
}

void os_rwlock_wrlock(os_rwlock_t *rwlock)
{
	int ret = os_cur->rwlock_wrlock(rwlock);
	if (ret)
		os_fatal("rwlock_wrlock", ret);
}

void os_rwlock_unlock(os_rwlock_t *rwlock)
{
	int ret = os_cur->rwlock_unlock(rwlock);
	if (ret)
		os_fatal("rwlock_unlock", ret);
}

double os_now_us(void)
{
	return os_cur->now_us();
}

uint64_t os_timestamp_ns(void)
{
	if (os_cur->version >= 2 && os_cur->timestamp_ns)
		return os_cur->timestamp_ns();
	return (uint64_t) (os_cur->now_us() * 1e3);
}

void os_sleep_us(double us)
{
	os_cur->sleep_us(us);
}

void os_model_cost(double us)
{
	if (os_cur->version >= 3 && os_cur->model_cost && us > 0)
		os_cur->model_cost(us);
}

void os_yield(void)
{
	if (os_cur->yield)
		os_cur->yield();
}

/* ------------------------------------------------------------------ */
/* The public starpu_pthread_* API: the same seam, POSIX-style returns. */

/* Trampoline for threads created by the application: keeps the pthread
 * signature (void *(*)(void *)) on both backends. */
int starpu_pthread_create_on(const char *name, starpu_pthread_t *thread, const starpu_pthread_attr_t *attr,
			     void *(*start_routine)(void *), void *arg, const char *where)
{
	struct os_thread_attr a = {
		.name = name,
		.host = where,
		.stacksize = attr ? attr->stacksize : 0,
		.detached = attr ? attr->detachstate : 0,
	};
	return os_thread_create(thread, &a, start_routine, arg);
}

int starpu_pthread_create(starpu_pthread_t *thread, const starpu_pthread_attr_t *attr, void *(*start_routine)(void *), void *arg)
{
	return starpu_pthread_create_on("app", thread, attr, start_routine, arg, NULL);
}

int starpu_pthread_join(starpu_pthread_t thread, void **retval)
{
	return os_thread_join(thread, retval);
}

void starpu_pthread_exit(void *retval)
{
	os_cur->thread_exit(retval);
	abort(); /* thread_exit does not return */
}

starpu_pthread_t starpu_pthread_self(void)
{
	return os_thread_self();
}

int starpu_pthread_equal(starpu_pthread_t t1, starpu_pthread_t t2)
{
	return t1 == t2;
}

int starpu_pthread_attr_init(starpu_pthread_attr_t *attr)
{
	attr->detachstate = 0;
	attr->stacksize = 0;
	return 0;
}

int starpu_pthread_attr_destroy(starpu_pthread_attr_t *attr)
{
	(void) attr;
	return 0;
}

int starpu_pthread_attr_setdetachstate(starpu_pthread_attr_t *attr, int detachstate)
{
	attr->detachstate = detachstate;
	return 0;
}

void starpu_pthread_setname(const char *name)
{
	os_thread_setname(name);
}

int starpu_pthread_mutex_init(starpu_pthread_mutex_t *mutex, const starpu_pthread_mutexattr_t *attr)
{
	/* PTHREAD_MUTEX_RECURSIVE is 1 in glibc; applications pass that value. */
	return os_cur->mutex_init(mutex, attr && attr->type == 1);
}

int starpu_pthread_mutex_destroy(starpu_pthread_mutex_t *mutex)
{
	return os_cur->mutex_destroy(mutex);
}

int starpu_pthread_mutex_lock(starpu_pthread_mutex_t *mutex)
{
	return os_cur->mutex_lock(mutex);
}

int starpu_pthread_mutex_unlock(starpu_pthread_mutex_t *mutex)
{
	return os_cur->mutex_unlock(mutex);
}

int starpu_pthread_mutex_trylock(starpu_pthread_mutex_t *mutex)
{
	return os_cur->mutex_trylock(mutex);
}

int starpu_pthread_mutex_lock_sched(starpu_pthread_mutex_t *mutex)
{
	return os_cur->mutex_lock(mutex);
}

int starpu_pthread_mutex_unlock_sched(starpu_pthread_mutex_t *mutex)
{
	return os_cur->mutex_unlock(mutex);
}

int starpu_pthread_mutex_trylock_sched(starpu_pthread_mutex_t *mutex)
{
	return os_cur->mutex_trylock(mutex);
}

int starpu_pthread_mutexattr_init(starpu_pthread_mutexattr_t *attr)
{
	attr->type = 0;
	return 0;
}

int starpu_pthread_mutexattr_destroy(starpu_pthread_mutexattr_t *attr)
{
	(void) attr;
	return 0;
}

int starpu_pthread_mutexattr_gettype(const starpu_pthread_mutexattr_t *attr, int *type)
{
	*type = attr->type;
	return 0;
}

int starpu_pthread_mutexattr_settype(starpu_pthread_mutexattr_t *attr, int type)
{
	attr->type = type;
	return 0;
}

int starpu_pthread_cond_init(starpu_pthread_cond_t *cond, starpu_pthread_condattr_t *attr)
{
	(void) attr;
	return os_cur->cond_init(cond);
}

int starpu_pthread_cond_destroy(starpu_pthread_cond_t *cond)
{
	return os_cur->cond_destroy(cond);
}

int starpu_pthread_cond_signal(starpu_pthread_cond_t *cond)
{
	return os_cur->cond_signal(cond);
}

int starpu_pthread_cond_broadcast(starpu_pthread_cond_t *cond)
{
	return os_cur->cond_broadcast(cond);
}

int starpu_pthread_cond_wait(starpu_pthread_cond_t *cond, starpu_pthread_mutex_t *mutex)
{
	return os_cur->cond_wait(cond, mutex);
}

int starpu_pthread_cond_timedwait(starpu_pthread_cond_t *cond, starpu_pthread_mutex_t *mutex, const struct timespec *abstime)
{
	/* Convert the wall-clock deadline into the backend's time scale. */
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	double delta_us = (abstime->tv_sec - wall.tv_sec) * 1e6 + (abstime->tv_nsec - wall.tv_nsec) / 1e3;
	return os_cur->cond_timedwait(cond, mutex, os_now_us() + (delta_us > 0 ? delta_us : 0));
}

/* vela_extension.h: a relative deadline, in the backend's time (simulated
 * time in a simulation: no wall clock read, so the wait is the same in
 * every run). */
int vela_cond_timedwait_us(starpu_pthread_cond_t *cond, starpu_pthread_mutex_t *mutex, double us)
{
	return os_cur->cond_timedwait(cond, mutex, os_now_us() + (us > 0 ? us : 0));
}

int starpu_pthread_rwlock_init(starpu_pthread_rwlock_t *rwlock, const starpu_pthread_rwlockattr_t *attr)
{
	(void) attr;
	return os_cur->rwlock_init(rwlock);
}

int starpu_pthread_rwlock_destroy(starpu_pthread_rwlock_t *rwlock)
{
	return os_cur->rwlock_destroy(rwlock);
}

int starpu_pthread_rwlock_rdlock(starpu_pthread_rwlock_t *rwlock)
{
	return os_cur->rwlock_rdlock(rwlock);
}

int starpu_pthread_rwlock_tryrdlock(starpu_pthread_rwlock_t *rwlock)
{
	return os_cur->rwlock_tryrdlock(rwlock);
}

int starpu_pthread_rwlock_wrlock(starpu_pthread_rwlock_t *rwlock)
{
	return os_cur->rwlock_wrlock(rwlock);
}

int starpu_pthread_rwlock_trywrlock(starpu_pthread_rwlock_t *rwlock)
{
	return os_cur->rwlock_trywrlock(rwlock);
}

int starpu_pthread_rwlock_unlock(starpu_pthread_rwlock_t *rwlock)
{
	return os_cur->rwlock_unlock(rwlock);
}

/* Barriers and semaphores are built from a mutex and a condition, so they
 * work on every backend without a method of their own. */
int starpu_pthread_barrier_init(starpu_pthread_barrier_t *barrier, const starpu_pthread_barrierattr_t *attr, unsigned count)
{
	(void) attr;
	if (count == 0)
		return EINVAL;
	memset(barrier, 0, sizeof(*barrier));
	barrier->count = count;
	int ret = os_cur->mutex_init(&barrier->mutex, 0);
	if (ret)
		return ret;
	return os_cur->cond_init(&barrier->cond);
}

int starpu_pthread_barrier_destroy(starpu_pthread_barrier_t *barrier)
{
	os_cur->cond_destroy(&barrier->cond);
	return os_cur->mutex_destroy(&barrier->mutex);
}

int starpu_pthread_barrier_wait(starpu_pthread_barrier_t *barrier)
{
	os_mutex_lock(&barrier->mutex);
	unsigned long round = barrier->round;
	int ret = 0;
	if (++barrier->arrived == barrier->count)
	{
		barrier->arrived = 0;
		barrier->round++;
		os_cond_broadcast(&barrier->cond);
		ret = STARPU_PTHREAD_BARRIER_SERIAL_THREAD;
	}
	else
	{
		while (round == barrier->round)
			os_cond_wait(&barrier->cond, &barrier->mutex);
	}
	os_mutex_unlock(&barrier->mutex);
	return ret;
}

int starpu_pthread_spin_init(starpu_pthread_spinlock_t *lock, int pshared)
{
	(void) pshared;
	return os_cur->mutex_init(&lock->mutex, 0);
}

int starpu_pthread_spin_destroy(starpu_pthread_spinlock_t *lock)
{
	return os_cur->mutex_destroy(&lock->mutex);
}

int starpu_pthread_spin_lock(starpu_pthread_spinlock_t *lock)
{
	return os_cur->mutex_lock(&lock->mutex);
}

int starpu_pthread_spin_trylock(starpu_pthread_spinlock_t *lock)
{
	return os_cur->mutex_trylock(&lock->mutex);
}

int starpu_pthread_spin_unlock(starpu_pthread_spinlock_t *lock)
{
	return os_cur->mutex_unlock(&lock->mutex);
}

int starpu_pthread_key_create(starpu_pthread_key_t *key, void (*destr_function)(void *))
{
	return os_key_create(key, destr_function);
}

int starpu_pthread_key_delete(starpu_pthread_key_t key)
{
	return os_key_delete(key);
}

int starpu_pthread_setspecific(starpu_pthread_key_t key, const void *pointer)
{
	return os_setspecific(key, pointer);
}

void *starpu_pthread_getspecific(starpu_pthread_key_t key)
{
	return os_getspecific(key);
}

int starpu_sem_init(starpu_sem_t *sem, int pshared, unsigned value)
{
	(void) pshared;
	memset(sem, 0, sizeof(*sem));
	sem->value = value;
	int ret = os_cur->mutex_init(&sem->mutex, 0);
	if (ret)
		return ret;
	return os_cur->cond_init(&sem->cond);
}

int starpu_sem_destroy(starpu_sem_t *sem)
{
	os_cur->cond_destroy(&sem->cond);
	return os_cur->mutex_destroy(&sem->mutex);
}

int starpu_sem_post(starpu_sem_t *sem)
{
	os_mutex_lock(&sem->mutex);
	sem->value++;
	os_cond_signal(&sem->cond);
	os_mutex_unlock(&sem->mutex);
	return 0;
}

int starpu_sem_wait(starpu_sem_t *sem)
{
	os_mutex_lock(&sem->mutex);
	while (sem->value == 0)
		os_cond_wait(&sem->cond, &sem->mutex);
	sem->value--;
	os_mutex_unlock(&sem->mutex);
	return 0;
}

int starpu_sem_trywait(starpu_sem_t *sem)
{
	int ret = 0;
	os_mutex_lock(&sem->mutex);
	if (sem->value == 0)
		ret = EAGAIN;
	else
		sem->value--;
	os_mutex_unlock(&sem->mutex);
	return ret;
}

int starpu_sem_getvalue(starpu_sem_t *sem, int *value)
{
	os_mutex_lock(&sem->mutex);
	*value = (int) sem->value;
	os_mutex_unlock(&sem->mutex);
	return 0;
}

double starpu_timing_now(void)
{
	return os_now_us();
}

void starpu_sleep(float nb_sec)
{
	os_sleep_us(nb_sec * 1e6);
}

void starpu_usleep(float nb_micro_sec)
{
	os_sleep_us(nb_micro_sec);
}
