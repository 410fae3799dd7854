/* starpu_thread_util.h — checked forms of the starpu_pthread_* calls.
 *
 * Each STARPU_PTHREAD_X(...) macro performs the call and, if it fails, prints
 * the call, the error and the call site, then aborts: applications use these
 * where a failing lock means a bug, not a condition to handle.
 */
#ifndef STARPU_THREAD_UTIL_H
#define STARPU_THREAD_UTIL_H

#include <starpu_util.h>
#include <starpu_thread.h>
#include <errno.h>

#define STARPU_PTHREAD_CHECK_(call, what) do { \
	int vela_ret_ = (call); \
	if (STARPU_UNLIKELY(vela_ret_ != 0)) { \
		char vela_buf_[128]; \
		starpu_strerror_r(vela_ret_, vela_buf_, sizeof(vela_buf_)); \
		fprintf(stderr, "[vela] %s:%d: %s failed: %s\n", __FILE__, __LINE__, what, vela_buf_); \
		STARPU_ABORT(); \
	} \
} while (0)

#define STARPU_PTHREAD_CREATE_ON(name, thread, attr, routine, arg, where) STARPU_PTHREAD_CHECK_(starpu_pthread_create_on(name, thread, attr, routine, arg, where), "starpu_pthread_create_on")
#define STARPU_PTHREAD_CREATE(thread, attr, routine, arg) STARPU_PTHREAD_CHECK_(starpu_pthread_create(thread, attr, routine, arg), "starpu_pthread_create")
#define STARPU_PTHREAD_JOIN(thread, retval) STARPU_PTHREAD_CHECK_(starpu_pthread_join(thread, retval), "starpu_pthread_join")
#define STARPU_PTHREAD_MUTEX_INIT(mutex, attr) STARPU_PTHREAD_CHECK_(starpu_pthread_mutex_init(mutex, attr), "starpu_pthread_mutex_init")
#define STARPU_PTHREAD_MUTEX_DESTROY(mutex) STARPU_PTHREAD_CHECK_(starpu_pthread_mutex_destroy(mutex), "starpu_pthread_mutex_destroy")
#define STARPU_PTHREAD_MUTEX_LOCK(mutex) STARPU_PTHREAD_CHECK_(starpu_pthread_mutex_lock(mutex), "starpu_pthread_mutex_lock")
#define STARPU_PTHREAD_MUTEX_UNLOCK(mutex) STARPU_PTHREAD_CHECK_(starpu_pthread_mutex_unlock(mutex), "starpu_pthread_mutex_unlock")
#define STARPU_PTHREAD_MUTEX_LOCK_SCHED(mutex) STARPU_PTHREAD_CHECK_(starpu_pthread_mutex_lock_sched(mutex), "starpu_pthread_mutex_lock_sched")
#define STARPU_PTHREAD_MUTEX_UNLOCK_SCHED(mutex) STARPU_PTHREAD_CHECK_(starpu_pthread_mutex_unlock_sched(mutex), "starpu_pthread_mutex_unlock_sched")
#define STARPU_PTHREAD_KEY_CREATE(key, destr) STARPU_PTHREAD_CHECK_(starpu_pthread_key_create(key, destr), "starpu_pthread_key_create")
#define STARPU_PTHREAD_KEY_DELETE(key) STARPU_PTHREAD_CHECK_(starpu_pthread_key_delete(key), "starpu_pthread_key_delete")
#define STARPU_PTHREAD_SETSPECIFIC(key, ptr) STARPU_PTHREAD_CHECK_(starpu_pthread_setspecific(key, ptr), "starpu_pthread_setspecific")
#define STARPU_PTHREAD_RWLOCK_INIT(rwlock, attr) STARPU_PTHREAD_CHECK_(starpu_pthread_rwlock_init(rwlock, attr), "starpu_pthread_rwlock_init")
#define STARPU_PTHREAD_RWLOCK_RDLOCK(rwlock) STARPU_PTHREAD_CHECK_(starpu_pthread_rwlock_rdlock(rwlock), "starpu_pthread_rwlock_rdlock")
#define STARPU_PTHREAD_RWLOCK_WRLOCK(rwlock) STARPU_PTHREAD_CHECK_(starpu_pthread_rwlock_wrlock(rwlock), "starpu_pthread_rwlock_wrlock")
#define STARPU_PTHREAD_RWLOCK_UNLOCK(rwlock) STARPU_PTHREAD_CHECK_(starpu_pthread_rwlock_unlock(rwlock), "starpu_pthread_rwlock_unlock")
#define STARPU_PTHREAD_RWLOCK_DESTROY(rwlock) STARPU_PTHREAD_CHECK_(starpu_pthread_rwlock_destroy(rwlock), "starpu_pthread_rwlock_destroy")
#define STARPU_PTHREAD_COND_INIT(cond, attr) STARPU_PTHREAD_CHECK_(starpu_pthread_cond_init(cond, attr), "starpu_pthread_cond_init")
#define STARPU_PTHREAD_COND_DESTROY(cond) STARPU_PTHREAD_CHECK_(starpu_pthread_cond_destroy(cond), "starpu_pthread_cond_destroy")
#define STARPU_PTHREAD_COND_SIGNAL(cond) STARPU_PTHREAD_CHECK_(starpu_pthread_cond_signal(cond), "starpu_pthread_cond_signal")
#define STARPU_PTHREAD_COND_BROADCAST(cond) STARPU_PTHREAD_CHECK_(starpu_pthread_cond_broadcast(cond), "starpu_pthread_cond_broadcast")
#define STARPU_PTHREAD_COND_WAIT(cond, mutex) STARPU_PTHREAD_CHECK_(starpu_pthread_cond_wait(cond, mutex), "starpu_pthread_cond_wait")
#define STARPU_PTHREAD_BARRIER_INIT(barrier, attr, count) STARPU_PTHREAD_CHECK_(starpu_pthread_barrier_init(barrier, attr, count), "starpu_pthread_barrier_init")
#define STARPU_PTHREAD_BARRIER_DESTROY(barrier) STARPU_PTHREAD_CHECK_(starpu_pthread_barrier_destroy(barrier), "starpu_pthread_barrier_destroy")

#define STARPU_PTHREAD_GETSPECIFIC(key) starpu_pthread_getspecific((key))

/* The try forms return 0 or EBUSY and abort on any other error. */
static STARPU_INLINE int starpu_pthread_checked_try_(int ret, const char *what, const char *file, int line)
{
	if (STARPU_UNLIKELY(ret != 0 && ret != EBUSY)) {
		char buf[128];
		starpu_strerror_r(ret, buf, sizeof(buf));
		fprintf(stderr, "[vela] %s:%d: %s failed: %s\n", file, line, what, buf);
		STARPU_ABORT();
	}
	return ret;
}
#define STARPU_PTHREAD_MUTEX_TRYLOCK(mutex) starpu_pthread_checked_try_(starpu_pthread_mutex_trylock(mutex), "starpu_pthread_mutex_trylock", __FILE__, __LINE__)
#define STARPU_PTHREAD_MUTEX_TRYLOCK_SCHED(mutex) starpu_pthread_checked_try_(starpu_pthread_mutex_trylock_sched(mutex), "starpu_pthread_mutex_trylock_sched", __FILE__, __LINE__)
#define STARPU_PTHREAD_RWLOCK_TRYRDLOCK(rwlock) starpu_pthread_checked_try_(starpu_pthread_rwlock_tryrdlock(rwlock), "starpu_pthread_rwlock_tryrdlock", __FILE__, __LINE__)
#define STARPU_PTHREAD_RWLOCK_TRYWRLOCK(rwlock) starpu_pthread_checked_try_(starpu_pthread_rwlock_trywrlock(rwlock), "starpu_pthread_rwlock_trywrlock", __FILE__, __LINE__)

/* Timed wait: returns 0 or ETIMEDOUT, aborts on any other error. */
static STARPU_INLINE int starpu_pthread_checked_timedwait_(int ret, const char *file, int line)
{
	if (STARPU_UNLIKELY(ret != 0 && ret != ETIMEDOUT)) {
		char buf[128];
		starpu_strerror_r(ret, buf, sizeof(buf));
		fprintf(stderr, "[vela] %s:%d: starpu_pthread_cond_timedwait failed: %s\n", file, line, buf);
		STARPU_ABORT();
	}
	return ret;
}
#define STARPU_PTHREAD_COND_TIMEDWAIT(cond, mutex, abstime) starpu_pthread_checked_timedwait_(starpu_pthread_cond_timedwait(cond, mutex, abstime), __FILE__, __LINE__)

/* Returns STARPU_PTHREAD_BARRIER_SERIAL_THREAD in one thread, 0 in others. */
#define STARPU_PTHREAD_BARRIER_WAIT(barrier) do { \
	int vela_ret_ = starpu_pthread_barrier_wait(barrier); \
	if (STARPU_UNLIKELY(vela_ret_ != 0 && vela_ret_ != STARPU_PTHREAD_BARRIER_SERIAL_THREAD)) { \
		fprintf(stderr, "[vela] %s:%d: starpu_pthread_barrier_wait failed: %d\n", __FILE__, __LINE__, vela_ret_); \
		STARPU_ABORT(); \
	} \
} while (0)

#endif /* STARPU_THREAD_UTIL_H */
