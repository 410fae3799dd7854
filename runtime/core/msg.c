/* msg.c — messages, per-thread state and the environment helpers of
 * starpu_util.h.
 *
 * Every message starts with "[vela]" and names the API call and the value at
 * fault, so that a user can find the offending line of their program.
 */
#define _GNU_SOURCE
#include "core/rt.h"
#include "core/workers.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct runtime rt;

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	char buf[1024];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "[vela]%s %s\n", kind, buf);
}

/* The calling thread's state if it has one and is capturing. */
static struct rt_thread *capturing_thread(void)
{
	if (rt.thread_key_backend != os_get_backend())
		return NULL;
	struct rt_thread *t = os_getspecific(rt.thread_key);
	return t && t->capturing ? t : NULL;
}

void rt_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct rt_thread *t = capturing_thread();
	if (t && !t->captured[0])
		vsnprintf(t->captured, sizeof(t->captured), fmt, ap);
	else
		vmsg(" error:", fmt, ap);
	va_end(ap);
}

void rt_capture_begin(struct rt_thread *t)
{
	t->captured[0] = 0;
	t->capturing = 1;
}

const char *rt_capture_end(struct rt_thread *t, int print)
{
	t->capturing = 0;
	if (print && t->captured[0])
	{
		fprintf(stderr, "[vela] error: %s\n", t->captured);
		t->captured[0] = 0;
	}
	return t->captured;
}

void rt_warn(const char *fmt, ...)
{
	if (rt.silent)
		return;
	va_list ap;
	va_start(ap, fmt);
	vmsg(" warning:", fmt, ap);
	va_end(ap);
}

void rt_info(const char *fmt, ...)
{
	if (rt.silent)
		return;
	va_list ap;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void starpu_strerror_r(int errnum, char *buf, size_t buflen)
{
	if (!buflen)
		return;
	/* The GNU strerror_r may return a static string instead of filling buf. */
	char *s = strerror_r(errnum, buf, buflen);
	if (s != buf)
		snprintf(buf, buflen, "%s", s);
}

/* ------------------------------------------------------------------ */
/* Per-thread state. */

static void thread_state_free(void *p)
{
	struct rt_thread *t = p;
	if (t && t->heap_allocated)
		free(t);
}

static void ensure_thread_key(void)
{
	/* The key belongs to the backend that created it; a simulated run
	 * after a real one needs a new key. Called at init, before any
	 * runtime thread exists. */
	if (rt.thread_key_backend == os_get_backend())
		return;
	os_key_t key;
	if (os_key_create(&key, thread_state_free) != 0)
	{
		rt_error("cannot create the per-thread key of the %s backend", os_get_backend()->name);
		abort();
	}
	rt.thread_key = key;
	rt.thread_key_backend = os_get_backend();
}

struct rt_thread *rt_thread(void)
{
	ensure_thread_key();
	struct rt_thread *t = os_getspecific(rt.thread_key);
	if (STARPU_LIKELY(t != NULL))
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
	{
		rt_error("out of memory allocating per-thread state");
		abort();
	}
	t->heap_allocated = 1;
	t->sched_ctx = STARPU_NMAX_SCHED_CTXS;
	os_setspecific(rt.thread_key, t);
	return t;
}

void rt_thread_set(struct rt_thread *state)
{
	ensure_thread_key();
	os_setspecific(rt.thread_key, state);
}

void rt_thread_release(void)
{
	if (rt.thread_key_backend != os_get_backend())
		return;
	struct rt_thread *t = os_getspecific(rt.thread_key);
	if (t && t->heap_allocated)
	{
		os_setspecific(rt.thread_key, NULL);
		free(t);
	}
}

int rt_may_not_block(const char *what)
{
	if (rt.thread_key_backend != os_get_backend())
		return 0;
	struct rt_thread *t = os_getspecific(rt.thread_key);
	if (t && (t->in_codelet || t->in_callback))
	{
		rt_error("%s called from %s of task '%s': this would deadlock (-EDEADLK)",
			 what, t->in_codelet ? "the codelet" : "a callback",
			 t->current_task ? starpu_task_get_name(t->current_task) : "?");
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Environment helpers (starpu_util.h). */

char *starpu_getenv(const char *str)
{
	return getenv(str);
}

int starpu_get_env_number(const char *str)
{
	const char *s = starpu_getenv(str);
	if (!s)
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	while (*end && isspace((unsigned char) *end))
		end++;
	if (end == s || *end || errno || v < 0 || v > 0x7fffffff)
	{
		rt_error("environment variable %s='%s' is not a non-negative integer; ignored", str, s);
		return -1;
	}
	return (int) v;
}

float starpu_get_env_float_default(const char *str, float defval)
{
	const char *s = starpu_getenv(str);
	if (!s)
		return defval;
	char *end;
	float v = strtof(s, &end);
	if (end == s || *end)
	{
		rt_error("environment variable %s='%s' is not a number; using %g", str, s, defval);
		return defval;
	}
	return v;
}

int starpu_get_env_string_var_default(const char *str, const char *strings[], int defvalue)
{
	const char *s = starpu_getenv(str);
	if (!s)
		return defvalue;
	for (int i = 0; strings[i]; i++)
		if (strcmp(s, strings[i]) == 0)
			return i;
	rt_error("environment variable %s='%s' is not one of the accepted values; using the default", str, s);
	return defvalue;
}

int starpu_get_env_size_default(const char *str, int defval)
{
	const char *s = starpu_getenv(str);
	if (!s)
		return defval;
	char *end;
	long long v = strtoll(s, &end, 10);
	switch (tolower((unsigned char) *end))
	{
	case 'k': v <<= 10; end++; break;
	case 'm': v <<= 20; end++; break;
	case 'g': v <<= 30; end++; break;
	case 'b': end++; break;
	default: break;
	}
	if (end == s || *end || v < 0 || v > 0x7fffffff)
	{
		rt_error("environment variable %s='%s' is not a size; using the default", str, s);
		return defval;
	}
	return (int) v;
}
