/* bundle.c — task bundles (starpu_task_bundle.h).
 *
 * A bundle is a list of tasks the application wants placed together. The
 * data-aware policies (sched/policies/dm.c) weigh the whole bundle when they
 * place one of its tasks (StarPU 1.3 leaves the task in its bundle then,
 * and so do we). A task leaves its bundle when the application removes it
 * or when it is freed (job_fini). A closed bundle is freed as soon as it
 * is empty.
 */
#include "core/job.h"
#include "core/rt.h"
#include "data/data.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct bundle_entry
{
	struct starpu_task *task;
	struct bundle_entry *next;
};

struct starpu_task_bundle_s
{
	os_mutex_t lock;		/* protects the list and closed; taken alone */
	struct bundle_entry *head;	/* owned */
	int closed;
};

static void bundle_free(starpu_task_bundle_t b)
{
	os_mutex_destroy(&b->lock);
	free(b);
}

void starpu_task_bundle_create(starpu_task_bundle_t *bundle)
{
	if (!bundle)
	{
		rt_error("starpu_task_bundle_create: bundle is NULL (-EINVAL)");
		return;
	}
	starpu_task_bundle_t b = calloc(1, sizeof(*b));
	if (!b)
	{
		rt_error("starpu_task_bundle_create: out of memory (-ENOMEM)");
		*bundle = NULL;
		return;
	}
	os_mutex_init(&b->lock);
	*bundle = b;
}

int starpu_task_bundle_insert(starpu_task_bundle_t bundle, struct starpu_task *task)
{
	if (!bundle || !task)
	{
		rt_error("starpu_task_bundle_insert: %s is NULL (-EINVAL)", bundle ? "task" : "bundle");
		return -EINVAL;
	}
	struct job *job = job_of(task);
	if ((job && job->submitted) || (task->bundle && task->bundle != bundle))
	{
		rt_error("starpu_task_bundle_insert: task '%s' is %s (-EINVAL)", starpu_task_get_name(task),
			 job && job->submitted ? "already submitted" : "in another bundle");
		return -EINVAL;
	}
	struct bundle_entry *e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	os_mutex_lock(&bundle->lock);
	if (bundle->closed)
	{
		os_mutex_unlock(&bundle->lock);
		free(e);
		rt_error("starpu_task_bundle_insert: bundle %p is closed (-EPERM)", (void *) bundle);
		return -EPERM;
	}
	for (struct bundle_entry *x = bundle->head; x; x = x->next)
		if (x->task == task)
		{
			os_mutex_unlock(&bundle->lock);
			free(e);
			return 0;
		}
	e->task = task;
	e->next = bundle->head;
	bundle->head = e;
	task->bundle = bundle;
	os_mutex_unlock(&bundle->lock);
	return 0;
}

int starpu_task_bundle_remove(starpu_task_bundle_t bundle, struct starpu_task *task)
{
	if (!bundle || !task)
		return -EINVAL;
	os_mutex_lock(&bundle->lock);
	struct bundle_entry **pp = &bundle->head;
	while (*pp && (*pp)->task != task)
		pp = &(*pp)->next;
	struct bundle_entry *e = *pp;
	if (!e)
	{
		os_mutex_unlock(&bundle->lock);
		return -ENOENT;
	}
	*pp = e->next;
	task->bundle = NULL;
	int gone = bundle->closed && !bundle->head;
	os_mutex_unlock(&bundle->lock);
	free(e);
	if (gone)
		bundle_free(bundle);
	return 0;
}

void starpu_task_bundle_close(starpu_task_bundle_t bundle)
{
	if (!bundle)
		return;
	os_mutex_lock(&bundle->lock);
	bundle->closed = 1;
	int gone = !bundle->head;
	os_mutex_unlock(&bundle->lock);
	if (gone)
		bundle_free(bundle);
}

/* The sum over the bundle's tasks of f (NaN when one is NaN: not
 * calibrated). */
static double sum_over(starpu_task_bundle_t bundle, double (*f)(struct starpu_task *, struct starpu_perfmodel_arch *, unsigned),
		       struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	if (!bundle)
		return 0.0;
	double s = 0.0;
	os_mutex_lock(&bundle->lock);
	for (struct bundle_entry *e = bundle->head; e; e = e->next)
		if (e->task->cl)
			s += f(e->task, arch, nimpl);
	os_mutex_unlock(&bundle->lock);
	return s;
}

double starpu_task_bundle_expected_length(starpu_task_bundle_t bundle, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	return sum_over(bundle, starpu_task_expected_length, arch, nimpl);
}

double starpu_task_bundle_expected_energy(starpu_task_bundle_t bundle, struct starpu_perfmodel_arch *arch, unsigned nimpl)
{
	return sum_over(bundle, starpu_task_expected_energy, arch, nimpl);
}

double starpu_task_bundle_expected_data_transfer_time(starpu_task_bundle_t bundle, unsigned memory_node)
{
	if (!bundle)
		return 0.0;
	/* Each handle counted once, for its first access. */
	double t = 0.0;
	os_mutex_lock(&bundle->lock);
	for (struct bundle_entry *e = bundle->head; e; e = e->next)
	{
		struct starpu_task *task = e->task;
		if (!task->cl)
			continue;
		unsigned n = STARPU_TASK_GET_NBUFFERS(task);
		for (unsigned i = 0; i < n; i++)
		{
			starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
			enum starpu_data_access_mode mode = STARPU_TASK_GET_MODE(task, i);
			int seen = 0;
			for (struct bundle_entry *f = bundle->head; f != e && !seen; f = f->next)
				for (unsigned j = 0; f->task->cl && j < STARPU_TASK_GET_NBUFFERS(f->task) && !seen; j++)
					seen = STARPU_TASK_GET_HANDLE(f->task, j) == h;
			for (unsigned j = 0; j < i && !seen; j++)
				seen = STARPU_TASK_GET_HANDLE(task, j) == h;
			if (seen)
				continue;
			double d = starpu_data_expected_transfer_time(h, memory_node, mode);
			if (!isnan(d))
				t += d;
		}
	}
	os_mutex_unlock(&bundle->lock);
	return t;
}

void bundle_task_gone(struct starpu_task *task)
{
	starpu_task_bundle_t b = task->bundle;
	if (b)
		starpu_task_bundle_remove(b, task);
}
