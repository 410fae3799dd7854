/* hooks.c — progression and idle hooks (starpu_expert.h). An application
 * that must make something progress while the runtime works (its own
 * communication library, a device it drives) registers a function; idle
 * workers call it between looking for tasks. A hook returning non-zero
 * keeps the worker awake to call it again. Hooks run concurrently on
 * several workers: they must be thread-safe, as in StarPU.
 */
#include "core/hooks.h"
#include "core/rt.h"
#include "core/workers.h"

#include <errno.h>

#define NHOOKS 16

struct hook
{
	unsigned (*func)(void *arg);
	void *arg;
};

/* Slot tables, written under hooks_lock and read under it by hooks_run when
 * nhooks says there is something to run. */
static os_mutex_t hooks_lock = OS_MUTEX_INITIALIZER;	/* taken alone, never while a hook runs */
static struct hook progression[NHOOKS], idle[NHOOKS];
static atomic_int nhooks;

static int reg(struct hook *table, unsigned (*func)(void *), void *arg, const char *fn)
{
	if (!func)
	{
		rt_error("%s: func is NULL (-EINVAL)", fn);
		return -EINVAL;
	}
	os_mutex_lock(&hooks_lock);
	for (int i = 0; i < NHOOKS; i++)
		if (!table[i].func)
		{
			table[i].func = func;
			table[i].arg = arg;
			atomic_fetch_add(&nhooks, 1);
			os_mutex_unlock(&hooks_lock);
			return i;
		}
	os_mutex_unlock(&hooks_lock);
	rt_error("%s: all %d hook slots are taken (-EBUSY)", fn, NHOOKS);
	return -EBUSY;
}

static void dereg(struct hook *table, int id, const char *fn)
{
	os_mutex_lock(&hooks_lock);
	if (id < 0 || id >= NHOOKS || !table[id].func)
	{
		os_mutex_unlock(&hooks_lock);
		rt_error("%s: hook %d is not registered (-EINVAL)", fn, id);
		return;
	}
	table[id].func = NULL;
	table[id].arg = NULL;
	atomic_fetch_sub(&nhooks, 1);
	os_mutex_unlock(&hooks_lock);
}

int starpu_progression_hook_register(unsigned (*func)(void *arg), void *arg)
{
	return reg(progression, func, arg, "starpu_progression_hook_register");
}

void starpu_progression_hook_deregister(int hook_id)
{
	dereg(progression, hook_id, "starpu_progression_hook_deregister");
}

int starpu_idle_hook_register(unsigned (*func)(void *arg), void *arg)
{
	return reg(idle, func, arg, "starpu_idle_hook_register");
}

void starpu_idle_hook_deregister(int hook_id)
{
	dereg(idle, hook_id, "starpu_idle_hook_deregister");
}

int hooks_run(void)
{
	if (!atomic_load_explicit(&nhooks, memory_order_relaxed))
		return 0;
	/* Copy the tables, then call without the lock (a hook may register
	 * or deregister hooks). */
	struct hook todo[2 * NHOOKS];
	int n = 0;
	os_mutex_lock(&hooks_lock);
	for (int i = 0; i < NHOOKS; i++)
		if (progression[i].func)
			todo[n++] = progression[i];
	for (int i = 0; i < NHOOKS; i++)
		if (idle[i].func)
			todo[n++] = idle[i];
	os_mutex_unlock(&hooks_lock);
	int again = 0;
	for (int i = 0; i < n; i++)
		if (todo[i].func(todo[i].arg))
			again = 1;
	return again;
}

void starpu_wake_all_blocked_workers(void)
{
	worker_wake_all();
}
