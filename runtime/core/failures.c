/* failures.c — tasks that could not run: their error, a count, and one
 * report line per cause.
 *
 * A task fails when its data cannot be made available on its worker, or
 * when its implementation (a simulated one: its duration) returns an error.
 * It still terminates (its dependents and callback run, as in StarPU), but
 * the application can tell: the job keeps the error (vela_task_get_error,
 * the return of starpu_task_wait), the runtime counts the failed tasks
 * (vela_task_failed_count) and starpu_shutdown reports them.
 *
 * The cause of a failure is the first error message printed while the
 * worker fetched or ran the task, captured on the worker's thread
 * (rt_capture_begin/end in msg.c): the layer that knows why (memory, model)
 * words it, the driver adds the task and worker. The first task failing
 * for a cause prints one line; the next ones are only counted, and the
 * shutdown report gives each cause with its count, so that 10,000 tasks
 * without a model are two lines, not 20,000.
 */
#include "core/rt.h"
#include "core/job.h"
#include "core/workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CAUSES 64

struct cause
{
	char *text;			/* owned: the cause, task-independent */
	long count;
};

/* Protects causes and ncauses (a leaf lock). */
static os_mutex_t failures_mutex = OS_MUTEX_INITIALIZER;
static struct cause causes[MAX_CAUSES];
static unsigned ncauses;
static long nother;			/* causes beyond MAX_CAUSES */
static _Atomic long nfailed;

void failures_reset(void)
{
	os_mutex_lock(&failures_mutex);
	for (unsigned i = 0; i < ncauses; i++)
		free(causes[i].text);
	ncauses = 0;
	nother = 0;
	os_mutex_unlock(&failures_mutex);
	atomic_store(&nfailed, 0);
}

/* Counts one more task for cause; 1 if it is the first. */
static int count_cause(const char *text)
{
	int first = 0;
	os_mutex_lock(&failures_mutex);
	unsigned i;
	for (i = 0; i < ncauses; i++)
		if (strcmp(causes[i].text, text) == 0)
			break;
	if (i < ncauses)
		causes[i].count++;
	else if (ncauses < MAX_CAUSES && (causes[ncauses].text = strdup(text)))
	{
		causes[ncauses++].count = 1;
		first = 1;
	}
	else
	{
		first = nother == 0;
		nother++;
	}
	os_mutex_unlock(&failures_mutex);
	return first;
}

void failures_record(struct job *job, struct worker *w, int err, const char *what, const char *why)
{
	struct starpu_task *task = job->task;
	job->error = err ? err : -EIO;
	atomic_fetch_add(&nfailed, 1);
	char cause[1024];
	if (why && *why)
		snprintf(cause, sizeof(cause), "%s", why);
	else
		snprintf(cause, sizeof(cause), "task '%s' %s (%d)", starpu_task_get_name(task), what, job->error);
	if (count_cause(cause))
		rt_error("task '%s' %s %s (%d)%s%s [later tasks failing so: counted at starpu_shutdown]",
			 starpu_task_get_name(task), what, w ? w->name : "?", job->error, why && *why ? ": " : "",
			 why && *why ? why : "");
}

void failures_report(void)
{
	long n = atomic_load(&nfailed);
	if (!n)
		return;
	rt_error("starpu_shutdown: %ld task(s) failed (never executed, or their implementation returned an error):", n);
	os_mutex_lock(&failures_mutex);
	for (unsigned i = 0; i < ncauses; i++)
		rt_error("  %ld task(s): %s", causes[i].count, causes[i].text);
	if (nother)
		rt_error("  %ld task(s): other causes", nother);
	os_mutex_unlock(&failures_mutex);
}

unsigned long vela_task_failed_count(void)
{
	return (unsigned long) atomic_load(&nfailed);
}

int vela_task_get_error(struct starpu_task *task)
{
	if (!task)
	{
		rt_error("vela_task_get_error: task is NULL (-EINVAL)");
		return -EINVAL;
	}
	struct job *job = task->starpu_private;
	return job ? job->error : 0;
}
