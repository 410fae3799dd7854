/* failing_calloc.c — see failing_calloc.h. */
#define _GNU_SOURCE
#include "failing_calloc.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

static __thread int armed;
static __thread size_t fail_min;
static __thread unsigned failed;	/* this thread's calls failed since armed */
static _Atomic size_t exact_n, exact_size;	/* 0: not armed */
static atomic_uint exact_failed;
static void *(*next_calloc)(size_t, size_t);

/* dlsym may itself call calloc before next_calloc is known: served from
 * here (never freed: such memory lives as long as the process). */
static _Alignas(16) char bootstrap[1 << 16];
static size_t bootstrap_used;

/* Not instrumented: a sanitizer's runtime calls it while it sets up a new
 * thread, before it could record the call. */
__attribute__((no_sanitize("address", "thread", "undefined")))
void *calloc(size_t n, size_t size)
{
	size_t bytes = n * size;
	if (size && bytes / size != n)
	{
		errno = ENOMEM;
		return NULL;
	}
	if ((armed && bytes >= fail_min) ||
	    (n == atomic_load_explicit(&exact_n, memory_order_relaxed) &&
	     size == atomic_load_explicit(&exact_size, memory_order_relaxed) && n))
	{
		if (armed)
			failed++;
		else
			atomic_fetch_add(&exact_failed, 1);
		errno = ENOMEM;
		return NULL;
	}
	if (!next_calloc)
	{
		static __thread int resolving;
		if (resolving)
		{
			size_t at = (bootstrap_used + 15) & ~(size_t) 15;
			if (at + bytes > sizeof(bootstrap))
				return NULL;
			bootstrap_used = at + bytes;
			return bootstrap + at;	/* static storage: already zero */
		}
		resolving = 1;
		next_calloc = (void *(*)(size_t, size_t)) dlsym(RTLD_NEXT, "calloc");
		resolving = 0;
		if (!next_calloc)
			abort();
	}
	return next_calloc(n, size);
}

void failing_calloc_arm(size_t min)
{
	fail_min = min;
	failed = 0;
	armed = 1;
}

void failing_calloc_arm_exact(size_t n, size_t size)
{
	atomic_store(&exact_failed, 0);
	atomic_store(&exact_size, size);
	atomic_store(&exact_n, n);
}

unsigned failing_calloc_disarm(void)
{
	unsigned f = failed + atomic_load(&exact_failed);
	armed = 0;
	atomic_store(&exact_n, 0);
	atomic_store(&exact_size, 0);
	return f;
}
