/* engine_sg.c — simulated devices that run their copies on the engine of
 * their kernels (the host's property copies_on_compute=1; sg_internal.h).
 *
 * On such a device (PoCL's CPU device: its threads run the commands of
 * every queue), commands run one at a time, each queue in order, the
 * engine taking whichever command became ready first. A device worker's
 * kernels wait for each other (one in-order queue); a copy is ready as
 * soon as it is queued. So a copy queued while a kernel runs starts when
 * that kernel ends, before the kernels queued behind it, which start
 * later by as much; copies queued together run in the order queued.
 *
 * The engine keeps its kernels not yet ended, each with the dates it
 * starts and ends as they stand; a copy moves the kernels not started yet
 * after its end. The worker's events are its kernels (driver_sg.c): one
 * waiting for a kernel sleeps until its end, and again while a copy moves
 * it. Entries are counted references: the engine's list holds one until
 * the kernel ends, each event one. Actors run one at a time, and nothing
 * here calls SimGrid between reading and writing an engine.
 */
#include "sim/sg_internal.h"

#include <simgrid/engine.h>
#include <stdlib.h>
#include <string.h>

struct sg_kernel
{
	double start, end;	/* simulated seconds, as they stand */
	unsigned refs;
	struct sg_kernel *next;
};

struct sg_engine
{
	sg_host_t host;
	int shared;			/* the property says so */
	struct sg_kernel *head, *tail;	/* kernels not ended yet, in order */
	double copies_end;		/* when the copies queued so far end */
};

static struct sg_engine engines[SG_MAX_DEVICES];
static unsigned nengines;

struct sg_engine *sg_engine_of(sg_host_t host)
{
	if (!host)
		return NULL;
	for (unsigned i = 0; i < nengines; i++)
		if (engines[i].host == host)
			return engines[i].shared ? &engines[i] : NULL;
	if (nengines == SG_MAX_DEVICES)
		return NULL;
	const char *v = sg_host_get_property_value(host, SG_PROP_COPIES_ON_COMPUTE);
	struct sg_engine *e = &engines[nengines++];
	memset(e, 0, sizeof(*e));
	e->host = host;
	e->shared = v && !strcmp(v, "1");
	return e->shared ? e : NULL;
}

void sg_kernel_put(struct sg_kernel *k)
{
	if (k && --k->refs == 0)
		free(k);
}

struct sg_kernel *sg_kernel_get(struct sg_kernel *k)
{
	if (k)
		k->refs++;
	return k;
}

double sg_kernel_end(const struct sg_kernel *k)
{
	return k->end;
}

/* Drops the kernels that have ended by now. */
static void prune(struct sg_engine *e, double now)
{
	while (e->head && e->head->end <= now)
	{
		struct sg_kernel *k = e->head;
		e->head = k->next;
		if (!e->head)
			e->tail = NULL;
		k->next = NULL;
		sg_kernel_put(k);
	}
}

struct sg_kernel *sg_engine_kernel(struct sg_engine *e, double seconds)
{
	double now = sg_clock();
	prune(e, now);
	struct sg_kernel *k = malloc(sizeof(*k));
	if (!k)
		return NULL;
	/* After the kernels queued before it and the copies queued before it
	 * (ready first), at once if the engine is idle. */
	double start = now;
	if (e->tail && e->tail->end > start)
		start = e->tail->end;
	if (e->copies_end > start)
		start = e->copies_end;
	k->start = start;
	k->end = start + (seconds > 0 ? seconds : 0.0);
	k->refs = 2;	/* the engine's list and the caller */
	k->next = NULL;
	if (e->tail)
		e->tail->next = k;
	else
		e->head = k;
	e->tail = k;
	return k;
}

double sg_engine_last_end(struct sg_engine *e)
{
	return e->tail ? e->tail->end : 0.0;
}

/* When a copy queued now on e may start: after the command running and
 * the copies queued before it. */
static double copy_start(struct sg_engine *e, double now)
{
	prune(e, now);
	double start = now;
	if (e->head && e->head->start <= now && e->head->end > start)
		start = e->head->end;	/* the kernel running */
	if (e->copies_end > start)
		start = e->copies_end;
	return start;
}

/* A copy on e ending at end: the kernels not started by now start after it. */
static void copy_queued(struct sg_engine *e, double now, double end)
{
	e->copies_end = end;
	double floor = end;
	for (struct sg_kernel *k = e->head; k; k = k->next)
	{
		if (k->start <= now)
			continue;	/* running (or ended): not moved */
		double len = k->end - k->start;
		if (k->start < floor)
			k->start = floor;
		k->end = k->start + len;
		floor = k->end;
	}
}

void sg_engine_copy(struct sg_engine *a, struct sg_engine *b, double seconds)
{
	double now = sg_clock();
	double start = now;
	if (a)
	{
		double s = copy_start(a, now);
		if (s > start)
			start = s;
	}
	if (b && b != a)
	{
		double s = copy_start(b, now);
		if (s > start)
			start = s;
	}
	double end = start + (seconds > 0 ? seconds : 0.0);
	if (a)
		copy_queued(a, now, end);
	if (b && b != a)
		copy_queued(b, now, end);
	double left = end - sg_clock();
	if (left > 0)
		sg_sleep(left);
}

void sg_kernel_wait(const struct sg_kernel *k)
{
	/* A copy queued meanwhile may move its end: sleep again. */
	for (;;)
	{
		double left = k->end - sg_clock();
		if (left <= 1e-12)	/* a sleep may wake an ulp early */
			return;
		sg_sleep(left);
	}
}
