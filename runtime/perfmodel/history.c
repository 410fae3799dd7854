/* history.c — history entries of one (comb, implementation): per data
 * footprint, the count, sum and sum of squares of the measured durations,
 * from which the mean and standard deviation follow.
 *
 * Entries live in the public list (pa.list, newest first, the order StarPU
 * writes them in) and are found by footprint through an open-addressing
 * table (pa.history). Callers hold the model's lock.
 */
#include "perfmodel/perfmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The table behind the public opaque pointer. */
struct starpu_perfmodel_history_table
{
	unsigned cap;			/* power of two */
	unsigned n;
	struct pm_entry **slots;
};

static unsigned slot_of(uint32_t footprint, unsigned cap)
{
	/* Footprints are CRCs already; mix anyway, for hand-made ones. */
	return (unsigned) ((footprint * 0x9e3779b1u) >> 7) & (cap - 1);
}

struct pm_entry *pm_history_find(struct pm_impl *impl, uint32_t footprint)
{
	struct starpu_perfmodel_history_table *t = impl->pa.history;
	if (!t)
		return NULL;
	for (unsigned i = slot_of(footprint, t->cap);; i = (i + 1) & (t->cap - 1))
	{
		struct pm_entry *en = t->slots[i];
		if (!en)
			return NULL;
		if (en->e.footprint == footprint)
			return en;
	}
}

static int table_grow(struct starpu_perfmodel_history_table *t)
{
	unsigned cap = t->cap ? t->cap * 2 : 16;
	struct pm_entry **slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (unsigned i = 0; i < t->cap; i++)
	{
		struct pm_entry *en = t->slots[i];
		if (!en)
			continue;
		unsigned j = slot_of(en->e.footprint, cap);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = en;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

struct pm_entry *pm_history_insert(struct pm_impl *impl, uint32_t footprint, int at_head)
{
	struct starpu_perfmodel_history_table *t = impl->pa.history;
	if (!t)
	{
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		impl->pa.history = t;
	}
	/* Keep the load under 1/2. */
	if (2 * (t->n + 1) > t->cap && table_grow(t))
		return NULL;
	struct pm_entry *en = calloc(1, sizeof(*en));
	struct starpu_perfmodel_history_list *node = calloc(1, sizeof(*node));
	if (!en || !node)
	{
		free(en);
		free(node);
		return NULL;
	}
	en->e.footprint = footprint;
	node->entry = &en->e;
	if (at_head || !impl->pa.list)
	{
		node->next = impl->pa.list;
		impl->pa.list = node;
	}
	else
	{
		struct starpu_perfmodel_history_list *l = impl->pa.list;
		while (l->next)
			l = l->next;
		l->next = node;
	}
	unsigned j = slot_of(footprint, t->cap);
	while (t->slots[j])
		j = (j + 1) & (t->cap - 1);
	t->slots[j] = en;
	t->n++;
	impl->nentries++;
	impl->has_first_runs = -1;
	impl->present = 1;
	return en;
}

void pm_entry_finish(struct starpu_perfmodel_history_entry *e)
{
	if (e->nsample == 0)
	{
		e->mean = 0.0;
		e->deviation = 0.0;
		return;
	}
	double n = e->nsample;
	e->mean = e->sum / n;
	/* Population standard deviation, as the files hold; rounding can make
	 * the variance slightly negative for identical samples. */
	double var = e->sum2 / n - e->mean * e->mean;
	e->deviation = var > 0.0 ? sqrt(var) : 0.0;
}

void pm_entry_add_sample(struct pm_entry *en, double us, int as_new)
{
	struct starpu_perfmodel_history_entry *e = &en->e;
	e->nsample++;
	e->sum += us;
	e->sum2 += us * us;
	pm_entry_finish(e);
	if (as_new)
	{
		en->new_n++;
		en->new_sum += us;
		en->new_sum2 += us * us;
	}
}

void pm_history_free(struct pm_impl *impl)
{
	struct starpu_perfmodel_history_list *l = impl->pa.list;
	while (l)
	{
		struct starpu_perfmodel_history_list *next = l->next;
		/* The entry is the first member of its pm_entry. */
		free(l->entry->parameters);
		free((struct pm_entry *) (void *) l->entry);
		free(l);
		l = next;
	}
	impl->pa.list = NULL;
	if (impl->pa.history)
	{
		free(impl->pa.history->slots);
		free(impl->pa.history);
		impl->pa.history = NULL;
	}
	impl->nentries = 0;
}
