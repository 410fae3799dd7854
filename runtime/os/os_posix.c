/* os_posix.c — the real-run backend of the OS seam: POSIX threads and the
 * monotonic clock. The opaque seam objects hold the pthread objects in
 * place; glibc's static initializers are all-zero, which is what makes the
 * zero-filled seam initializers valid here (checked once, see below).
 */
#define _GNU_SOURCE
#include "os/os.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

_Static_assert(sizeof(pthread_mutex_t) <= sizeof(os_mutex_t), "os_mutex_t too small for pthread_mutex_t");
_Static_assert(sizeof(pthread_cond_t) <= sizeof(os_cond_t), "os_cond_t too small for pthread_cond_t");
_Static_assert(sizeof(pthread_rwlock_t) <= sizeof(os_rwlock_t), "os_rwlock_t too small for pthread_rwlock_t");
_Static_assert(sizeof(pthread_t) <= sizeof(os_thread_t), "os_thread_t too small for pthread_t");
_Static_assert(sizeof(pthread_key_t) <= sizeof(os_key_t), "os_key_t too small for pthread_key_t");

#define PM(m) ((pthread_mutex_t *) (void *) (m))
#define PC(c) ((pthread_cond_t *) (void *) (c))
#define PRW(r) ((pthread_rwlock_t *) (void *) (r))

/* The zero-initializer assumption, verified at load time rather than on
 * every lock: a libc whose initializers are not all-zero is not supported. */
__attribute__((constructor)) static void posix_check_initializers(void)
{
	static const pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	static const pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	static const pthread_rwlock_t r = PTHREAD_RWLOCK_INITIALIZER;
	static const unsigned char zero[sizeof(pthread_rwlock_t) + sizeof(pthread_cond_t) + sizeof(pthread_mutex_t)];
	if (memcmp(&m, zero, sizeof(m)) || memcmp(&c, zero, sizeof(c)) || memcmp(&r, zero, sizeof(r)))
	{
		fprintf(stderr, "[vela] fatal: this C library's pthread initializers are not zero-filled; unsupported\n");
		abort();
	}
}

static int posix_thread_create(os_thread_t *thread, const struct os_thread_attr *attr, void *(*fn)(void *), void *arg)
{
	pthread_attr_t pattr;
	pthread_attr_init(&pattr);
	if (attr && attr->stacksize)
		pthread_attr_setstacksize(&pattr, attr->stacksize);
	if (attr && attr->detached)
		pthread_attr_setdetachstate(&pattr, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	int ret = pthread_create(&t, &pattr, fn, arg);
	pthread_attr_destroy(&pattr);
	if (ret)
		return ret;
	if (attr && attr->name)
	{
		/* Linux limits thread names to 15 characters. */
		char name[16];
		snprintf(name, sizeof(name), "%s", attr->name);
		pthread_setname_np(t, name);
	}
	*thread = (os_thread_t) t;
	return 0;
}

static int posix_thread_join(os_thread_t thread, void **retval)
{
	return pthread_join((pthread_t) thread, retval);
}

static os_thread_t posix_thread_self(void)
{
	return (os_thread_t) pthread_self();
}

static void posix_thread_exit(void *retval)
{
	pthread_exit(retval);
}

static void posix_thread_setname(const char *name)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%s", name);
	pthread_setname_np(pthread_self(), buf);
}

static int posix_key_create(os_key_t *key, void (*destructor)(void *))
{
	pthread_key_t k;
	int ret = pthread_key_create(&k, destructor);
	if (ret == 0)
		*key = (os_key_t) k;
	return ret;
}

static int posix_key_delete(os_key_t key)
{
	return pthread_key_delete((pthread_key_t) key);
}

static void *posix_getspecific(os_key_t key)
{
	return pthread_getspecific((pthread_key_t) key);
}

static int posix_setspecific(os_key_t key, const void *value)
{
	return pthread_setspecific((pthread_key_t) key, value);
}

static int posix_mutex_init(os_mutex_t *mutex, int recursive)
{
	memset(mutex, 0, sizeof(*mutex));
	pthread_mutexattr_t attr;
	pthread_mutexattr_init(&attr);
	/* The runtime's critical sections are a few instructions long: spinning
	 * a little before sleeping in the kernel saves a system call on most
	 * contended acquisitions. */
	pthread_mutexattr_settype(&attr, recursive ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_ADAPTIVE_NP);
	int ret = pthread_mutex_init(PM(mutex), &attr);
	pthread_mutexattr_destroy(&attr);
	return ret;
}

static int posix_mutex_destroy(os_mutex_t *mutex)
{
	return pthread_mutex_destroy(PM(mutex));
}

static int posix_mutex_lock(os_mutex_t *mutex)
{
	return pthread_mutex_lock(PM(mutex));
}

static int posix_mutex_trylock(os_mutex_t *mutex)
{
	return pthread_mutex_trylock(PM(mutex));
}

static int posix_mutex_unlock(os_mutex_t *mutex)
{
	return pthread_mutex_unlock(PM(mutex));
}

/* Conditions keep the default clock (CLOCK_REALTIME), the one zero-filled
 * conditions have; timedwait converts the monotonic deadline into it. */
static int posix_cond_init(os_cond_t *cond)
{
	memset(cond, 0, sizeof(*cond));
	return pthread_cond_init(PC(cond), NULL);
}

static int posix_cond_destroy(os_cond_t *cond)
{
	return pthread_cond_destroy(PC(cond));
}

static int posix_cond_signal(os_cond_t *cond)
{
	return pthread_cond_signal(PC(cond));
}

static int posix_cond_broadcast(os_cond_t *cond)
{
	return pthread_cond_broadcast(PC(cond));
}

static int posix_cond_wait(os_cond_t *cond, os_mutex_t *mutex)
{
	return pthread_cond_wait(PC(cond), PM(mutex));
}

static double posix_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Timestamps for observers (os_ops.timestamp_ns). On x86 with an
 * invariant TSC, reading the cycle counter costs about a third of a vDSO
 * clock_gettime, which matters when a trace stamps every task several
 * times. The counter is calibrated once against CLOCK_MONOTONIC over a few
 * milliseconds and anchored there, so stamps stay on the now_us() time
 * base (to within the calibration error, ~1e-5 relative). Elsewhere, or
 * without an invariant TSC, it is clock_gettime. */
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>

static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;
static int tsc_ready;	/* calibration done (release-stored last) */
static int tsc_usable;
static uint64_t tsc_base, tsc_base_ns;
static double tsc_ns_per_tick;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

/* A reading of both clocks at one instant: the counter read just before
 * and just after clock_gettime, the narrowest of a few tries, its middle
 * taken. A thread preempted between two reads (a loaded machine) would
 * otherwise pair readings milliseconds apart, an error that the 5 ms
 * calibration turns into a slope off by a share of a percent. */
static void clock_pair(uint64_t *ns, uint64_t *tsc)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 16; i++)
	{
		uint64_t a = __rdtsc(), n = mono_ns(), b = __rdtsc();
		if (b >= a && b - a < best)
		{
			best = b - a;
			*ns = n;
			*tsc = a + (b - a) / 2;
		}
	}
}

static void tsc_measure(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	if (!(d & (1u << 8)))	/* invariant TSC */
		return;
	uint64_t n0 = 0, t0 = 0, n1 = 0, t1 = 0;
	clock_pair(&n0, &t0);
	do
		clock_pair(&n1, &t1);
	while (n1 - n0 < 5000000);
	if (t1 <= t0)
		return;
	tsc_ns_per_tick = (double) (n1 - n0) / (double) (t1 - t0);
	tsc_base = t1;
	tsc_base_ns = n1;
	tsc_usable = 1;
}

static void tsc_calibrate(void)
{
	tsc_measure();
	__atomic_store_n(&tsc_ready, 1, __ATOMIC_RELEASE);
}

static uint64_t posix_timestamp_ns(void)
{
	/* After the first call, one load instead of a pthread_once call. */
	if (__builtin_expect(!__atomic_load_n(&tsc_ready, __ATOMIC_ACQUIRE), 0))
		pthread_once(&tsc_once, tsc_calibrate);
	if (!tsc_usable)
		return mono_ns();
	int64_t dt = (int64_t) (__rdtsc() - tsc_base);
	return tsc_base_ns + (uint64_t) (int64_t) ((double) dt * tsc_ns_per_tick);
}
#else
static uint64_t posix_timestamp_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}
#endif

static int posix_cond_timedwait(os_cond_t *cond, os_mutex_t *mutex, double deadline_us)
{
	double delta = deadline_us - posix_now_us();
	if (delta < 0)
		delta = 0;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	long long ns = ts.tv_nsec + (long long) (delta * 1e3);
	ts.tv_sec += ns / 1000000000LL;
	ts.tv_nsec = ns % 1000000000LL;
	return pthread_cond_timedwait(PC(cond), PM(mutex), &ts);
}

static int posix_rwlock_init(os_rwlock_t *rwlock)
{
	memset(rwlock, 0, sizeof(*rwlock));
	return pthread_rwlock_init(PRW(rwlock), NULL);
}

static int posix_rwlock_destroy(os_rwlock_t *rwlock)
{
	return pthread_rwlock_destroy(PRW(rwlock));
}

static int posix_rwlock_rdlock(os_rwlock_t *rwlock)
{
	return pthread_rwlock_rdlock(PRW(rwlock));
}

static int posix_rwlock_tryrdlock(os_rwlock_t *rwlock)
{
	return pthread_rwlock_tryrdlock(PRW(rwlock));
}

static int posix_rwlock_wrlock(os_rwlock_t *rwlock)
{
	return pthread_rwlock_wrlock(PRW(rwlock));
}

static int posix_rwlock_trywrlock(os_rwlock_t *rwlock)
{
	return pthread_rwlock_trywrlock(PRW(rwlock));
}

static int posix_rwlock_unlock(os_rwlock_t *rwlock)
{
	return pthread_rwlock_unlock(PRW(rwlock));
}

static void posix_sleep_us(double us)
{
	if (us <= 0)
		return;
	struct timespec ts = { .tv_sec = (time_t) (us / 1e6), .tv_nsec = (long) ((us - (time_t) (us / 1e6) * 1e6) * 1e3) };
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static void posix_yield(void)
{
	sched_yield();
}

const struct os_ops os_posix_ops = {
	.version = OS_OPS_VERSION,
	.name = "posix",
	.simulated = 0,
	.thread_create = posix_thread_create,
	.thread_join = posix_thread_join,
	.thread_self = posix_thread_self,
	.thread_exit = posix_thread_exit,
	.thread_setname = posix_thread_setname,
	.key_create = posix_key_create,
	.key_delete = posix_key_delete,
	.getspecific = posix_getspecific,
	.setspecific = posix_setspecific,
	.mutex_init = posix_mutex_init,
	.mutex_destroy = posix_mutex_destroy,
	.mutex_lock = posix_mutex_lock,
	.mutex_trylock = posix_mutex_trylock,
	.mutex_unlock = posix_mutex_unlock,
	.cond_init = posix_cond_init,
	.cond_destroy = posix_cond_destroy,
	.cond_signal = posix_cond_signal,
	.cond_broadcast = posix_cond_broadcast,
	.cond_wait = posix_cond_wait,
	.cond_timedwait = posix_cond_timedwait,
	.rwlock_init = posix_rwlock_init,
	.rwlock_destroy = posix_rwlock_destroy,
	.rwlock_rdlock = posix_rwlock_rdlock,
	.rwlock_tryrdlock = posix_rwlock_tryrdlock,
	.rwlock_wrlock = posix_rwlock_wrlock,
	.rwlock_trywrlock = posix_rwlock_trywrlock,
	.rwlock_unlock = posix_rwlock_unlock,
	.now_us = posix_now_us,
	.sleep_us = posix_sleep_us,
	.yield = posix_yield,
	.timestamp_ns = posix_timestamp_ns,
	.model_cost = NULL,	/* real work takes its own time */
};
