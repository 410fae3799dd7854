/* mct.c — the mct and heft decision components.
 *
 * mct sends each task to the child where it would complete first: the
 * child's estimated end (its queue and running task), plus the predicted
 * time to bring the task's data there, plus the task's predicted length on
 * the child's workers; alpha and beta weigh computation and transfer.
 * A task whose model needs calibration on some child goes there, so that
 * the model learns; without a model every length reads 0 and the earliest
 * free child wins.
 *
 * heft is mct plus a priority queue of its own: it keeps the tasks its
 * children refuse and sends them down, highest priority first, whenever a
 * child calls can_push (a pump).
 */
#include "sched/component/component_internal.h"

#include <math.h>
#include <stdlib.h>

struct starpu_sched_component *mct_choose(struct starpu_sched_component *c, struct starpu_sched_component_mct_data *d,
					  struct starpu_task *task, const char *skip)
{
	struct starpu_sched_component *best = NULL;
	double best_score = INFINITY, best_len = NAN, best_tr = NAN;
	double now = starpu_timing_now();
	for (unsigned i = 0; i < c->nchildren; i++)
	{
		struct starpu_sched_component *ch = c->children[i];
		if (skip && skip[i])
			continue;
		double len;
		if (!starpu_sched_component_execute_preds(ch, task, &len))
			continue;
		if (isnan(len))
		{
			/* Needs calibration there: run it there. */
			task->predicted = NAN;
			task->predicted_transfer = NAN;
			return ch;
		}
		double tr = starpu_sched_component_transfer_length(ch, task);
		double end = ch->estimated_end ? ch->estimated_end(ch) : now;
		if (end < now)
			end = now;
		double score = d->alpha * (end - now + len) + d->beta * tr;
		if (!best || score < best_score)
		{
			best = ch;
			best_score = score;
			best_len = len;
			best_tr = tr;
		}
	}
	if (best)
	{
		task->predicted = best_len;
		task->predicted_transfer = best_tr;
	}
	return best;
}

/* A child as mct_choose weighs it. */
struct mct_candidate
{
	unsigned index;
	int calibrate;		/* its prediction is NaN: goes first, in child order */
	double score, len, tr;
};

static int cmp_candidates(const void *a, const void *b)
{
	const struct mct_candidate *x = a, *y = b;
	if (x->calibrate != y->calibrate)
		return x->calibrate ? -1 : 1;
	if (!x->calibrate && x->score != y->score)
		return x->score < y->score ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Tries the best child, then the next best, ...; 1 if all refuse. The
 * children are weighed once and tried in the order in which mct_choose
 * would pick them one after the other (a refusal changes nothing they are
 * weighed on): n predictions instead of up to n², which is what a heft
 * over many workers whose queues are all full used to spend its time on
 * (tree-heft, 66 workers: 5.9 s of a 6 s simulation). */
static int mct_push_to_children(struct starpu_sched_component *c, struct starpu_sched_component_mct_data *d, struct starpu_task *task)
{
	unsigned n = c->nchildren, m = 0;
	struct mct_candidate cand[n ? n : 1];
	double now = starpu_timing_now();
	for (unsigned i = 0; i < n; i++)
	{
		struct starpu_sched_component *ch = c->children[i];
		double len;
		if (!starpu_sched_component_execute_preds(ch, task, &len))
			continue;
		struct mct_candidate *x = &cand[m++];
		x->index = i;
		x->calibrate = isnan(len);
		x->len = len;
		if (x->calibrate)
			continue;
		x->tr = starpu_sched_component_transfer_length(ch, task);
		double end = ch->estimated_end ? ch->estimated_end(ch) : now;
		if (end < now)
			end = now;
		x->score = d->alpha * (end - now + len) + d->beta * x->tr;
	}
	qsort(cand, m, sizeof(cand[0]), cmp_candidates);
	for (unsigned k = 0; k < m; k++)
	{
		struct starpu_sched_component *ch = c->children[cand[k].index];
		task->predicted = cand[k].calibrate ? NAN : cand[k].len;
		task->predicted_transfer = cand[k].calibrate ? NAN : cand[k].tr;
		if (ch->push_task(ch, task) == 0)
			return 0;
	}
	return 1;
}

static int mct_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	return mct_push_to_children(c, c->data, task);
}

static void fill(struct starpu_sched_component_mct_data *dst, const struct starpu_sched_component_mct_data *src)
{
	dst->alpha = 1.0;
	dst->beta = 1.0;
	dst->_gamma = 1000.0;
	dst->idle_power = 0.0;
	if (src)
		*dst = *src;
}

static void mct_deinit(struct starpu_sched_component *c)
{
	free(c->data);
}

struct starpu_sched_component *starpu_sched_component_mct_create(struct starpu_sched_tree *tree, struct starpu_sched_component_mct_data *mct_data)
{
	struct starpu_sched_component *c = starpu_sched_component_create(tree, "mct");
	struct starpu_sched_component_mct_data *d = malloc(sizeof(*d));
	if (!c || !d)
		abort();
	fill(d, mct_data);
	c->data = d;
	c->push_task = mct_push;
	c->deinit_data = mct_deinit;
	return c;
}

int starpu_sched_component_is_mct(struct starpu_sched_component *c)
{
	return c && c->push_task == mct_push;
}

/* ---- heft ---- */

struct heft_comp
{
	struct starpu_sched_component_mct_data mct;
	struct comp_queue q;	/* by priority */
	struct starpu_task *(*pull_up)(struct starpu_sched_component *, struct starpu_sched_component *);
};

static int heft_pump(struct starpu_sched_component *c)
{
	struct heft_comp *d = c->data;
	int moved = 0;
	for (;;)
	{
		os_mutex_lock(&d->q.lock);
		struct starpu_task *t = cq_take_for(&d->q, NULL, 0);
		os_mutex_unlock(&d->q.lock);
		if (!t)
			break;
		if (mct_push_to_children(c, &d->mct, t))
		{
			/* Everyone is full: back in front, wait for can_push. */
			os_mutex_lock(&d->q.lock);
			struct starpu_task *u = starpu_task_list_front(&d->q.list);
			while (u && u->priority > t->priority)
				u = u->next;
			if (!u)
				starpu_task_list_push_back(&d->q.list, t);
			else if (!u->prev)
				starpu_task_list_push_front(&d->q.list, t);
			else
			{
				t->next = u;
				t->prev = u->prev;
				u->prev->next = t;
				u->prev = t;
			}
			cq_count(&d->q, 1, 0.0);
			os_mutex_unlock(&d->q.lock);
			break;
		}
		moved = 1;
	}
	return moved;
}

static int heft_push(struct starpu_sched_component *c, struct starpu_task *task)
{
	struct heft_comp *d = c->data;
	os_mutex_lock(&d->q.lock);
	cq_insert(&d->q, task);
	cq_count(&d->q, 1, 0.0);
	os_mutex_unlock(&d->q.lock);
	heft_pump(c);
	return 0;
}

static int heft_can_push(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	(void) to;
	return heft_pump(c);
}

/* A worker that found its queue empty may take a stored task directly:
 * the children being full is what kept it here. */
static struct starpu_task *heft_pull(struct starpu_sched_component *c, struct starpu_sched_component *to)
{
	struct heft_comp *d = c->data;
	struct starpu_task *t = NULL;
	if (__atomic_load_n(&d->q.ntasks, __ATOMIC_RELAXED))
	{
		os_mutex_lock(&d->q.lock);
		t = cq_take_for(&d->q, to, 0);
		os_mutex_unlock(&d->q.lock);
	}
	return t ? t : d->pull_up(c, to);
}

static void heft_deinit(struct starpu_sched_component *c)
{
	struct heft_comp *d = c->data;
	os_mutex_destroy(&d->q.lock);
	free(d);
}

struct starpu_sched_component *starpu_sched_component_heft_create(struct starpu_sched_tree *tree, struct starpu_sched_component_mct_data *mct_data)
{
	struct starpu_sched_component *c = starpu_sched_component_create(tree, "heft");
	struct heft_comp *d = calloc(1, sizeof(*d));
	if (!c || !d)
		abort();
	fill(&d->mct, mct_data);
	cq_init(&d->q, 1);
	d->pull_up = c->pull_task;
	c->data = d;
	c->push_task = heft_push;
	c->can_push = heft_can_push;
	c->pull_task = heft_pull;
	c->deinit_data = heft_deinit;
	return c;
}

int starpu_sched_component_is_heft(struct starpu_sched_component *c)
{
	return c && c->push_task == heft_push;
}

int heft_comp_drain(struct starpu_sched_component *c, struct starpu_task_list *out)
{
	if (!starpu_sched_component_is_heft(c))
		return 0;
	cq_drain(&((struct heft_comp *) c->data)->q, out);
	return 1;
}
