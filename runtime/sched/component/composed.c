/* composed.c — recipes (ordered lists of component constructors) and the
 * composed component built from one: a chain c0 -> c1 -> ... -> ck that
 * the rest of the tree sees as a single component.
 *
 * A chain of one is just that component. A longer chain gets a thin front
 * component F; the tree links to F, and F sends every path through the
 * chain's own links:
 *
 *   parent -> F -> c0 -> ... -> ck -> children given to F
 *
 *   - pushes to F go to c0; pulls and can_push reaching F from below go to
 *     ck; c0's parents are F's parents, so a pull climbing the chain passes
 *     F by, never back into it;
 *   - can_pull and the estimates go down through c0;
 *   - F lists c0 and every child given to F, and those children list F as
 *     a parent (not ck): links stay two-way as seen from F, so destroying F
 *     unlinks everything that names it. ck lists the children too (it
 *     decides among them) but they do not name it back.
 *
 * Walks of the tree (validation, workers bitmaps) reach every component
 * through F -> c0 -> ... -> ck. Destroy a composed component as part of its
 * tree (starpu_sched_tree_destroy or starpu_sched_component_destroy_rec,
 * which free F before its chain).
 */
#include "sched/component/component_internal.h"
#include "core/rt.h"

#include <errno.h>
#include <stdlib.h>

struct recipe_step
{
	starpu_sched_component_create_t create;
	void *arg;
};

struct starpu_sched_component_composed_recipe
{
	unsigned n, cap;
	struct recipe_step *steps;	/* owned */
};

struct starpu_sched_component_composed_recipe *starpu_sched_component_composed_recipe_create(void)
{
	return calloc(1, sizeof(struct starpu_sched_component_composed_recipe));
}

struct starpu_sched_component_composed_recipe *
starpu_sched_component_composed_recipe_create_singleton(starpu_sched_component_create_t create_component, void *arg)
{
	struct starpu_sched_component_composed_recipe *r = starpu_sched_component_composed_recipe_create();
	if (r)
		starpu_sched_component_composed_recipe_add(r, create_component, arg);
	return r;
}

void starpu_sched_component_composed_recipe_add(struct starpu_sched_component_composed_recipe *recipe,
						starpu_sched_component_create_t create_component, void *arg)
{
	if (!recipe || !create_component)
	{
		rt_error("starpu_sched_component_composed_recipe_add: %s is NULL; nothing added",
			 recipe ? "create_component" : "recipe");
		return;
	}
	if (recipe->n == recipe->cap)
	{
		unsigned cap = recipe->cap ? 2 * recipe->cap : 4;
		struct recipe_step *s = realloc(recipe->steps, sizeof(*s) * cap);
		if (!s)
			abort();
		recipe->steps = s;
		recipe->cap = cap;
	}
	recipe->steps[recipe->n++] = (struct recipe_step) { create_component, arg };
}

void starpu_sched_component_composed_recipe_destroy(struct starpu_sched_component_composed_recipe *recipe)
{
	if (!recipe)
		return;
	free(recipe->steps);
	free(recipe);
}

unsigned sched_recipe_length(const struct starpu_sched_component_composed_recipe *recipe)
{
	return recipe ? recipe->n : 0;
}

int sched_recipe_instantiate(struct starpu_sched_tree *tree, const struct starpu_sched_component_composed_recipe *recipe,
			     hwloc_obj_t obj, struct starpu_sched_component **top, struct starpu_sched_component **bottom)
{
	*top = *bottom = NULL;
	for (unsigned i = 0; i < sched_recipe_length(recipe); i++)
	{
		struct starpu_sched_component *c = recipe->steps[i].create(tree, recipe->steps[i].arg);
		if (!c)
			return -ENOMEM;
		c->obj = obj;
		if (*bottom)
			starpu_sched_component_connect(*bottom, c);
		else
			*top = c;
		*bottom = c;
	}
	return 0;
}

/* ---- the front of a longer chain ---- */

struct front
{
	struct starpu_sched_component *top, *bottom;
};

static struct front *front_of(struct starpu_sched_component *f)
{
	return f->data;
}

static int front_push(struct starpu_sched_component *f, struct starpu_task *task)
{
	struct starpu_sched_component *top = front_of(f)->top;
	return top->push_task(top, task);
}

static struct starpu_task *front_pull(struct starpu_sched_component *f, struct starpu_sched_component *to)
{
	struct starpu_sched_component *b = front_of(f)->bottom;
	return b->pull_task ? b->pull_task(b, to ? to : f) : NULL;
}

static int front_can_push(struct starpu_sched_component *f, struct starpu_sched_component *to)
{
	struct starpu_sched_component *b = front_of(f)->bottom;
	return b->can_push ? b->can_push(b, to) : 0;
}

static void front_add_child(struct starpu_sched_component *f, struct starpu_sched_component *child)
{
	struct starpu_sched_component *b = front_of(f)->bottom;
	starpu_sched_component_add_child(f, child);
	b->add_child(b, child);
}

static void front_remove_child(struct starpu_sched_component *f, struct starpu_sched_component *child)
{
	struct front *d = front_of(f);
	starpu_sched_component_remove_child(f, child);
	if (child != d->top)
		d->bottom->remove_child(d->bottom, child);
}

static void front_add_parent(struct starpu_sched_component *f, struct starpu_sched_component *parent)
{
	struct starpu_sched_component *top = front_of(f)->top;
	starpu_sched_component_add_parent(f, parent);
	top->add_parent(top, parent);
}

static void front_remove_parent(struct starpu_sched_component *f, struct starpu_sched_component *parent)
{
	struct starpu_sched_component *top = front_of(f)->top;
	starpu_sched_component_remove_parent(f, parent);
	top->remove_parent(top, parent);
}

static int front_can_pull(struct starpu_sched_component *f)
{
	struct starpu_sched_component *top = front_of(f)->top;
	return top->can_pull ? top->can_pull(top) : 0;
}

static double front_estimated_load(struct starpu_sched_component *f)
{
	struct starpu_sched_component *top = front_of(f)->top;
	return top->estimated_load ? top->estimated_load(top) : 0.0;
}

static double front_estimated_end(struct starpu_sched_component *f)
{
	struct starpu_sched_component *top = front_of(f)->top;
	return top->estimated_end ? top->estimated_end(top) : starpu_timing_now();
}

static void front_deinit(struct starpu_sched_component *f)
{
	free(f->data);
	f->data = NULL;
}

int composed_comp_chain(struct starpu_sched_component *f, struct starpu_sched_component **top,
			struct starpu_sched_component **bottom)
{
	if (f->push_task != front_push)
		return 0;
	*top = front_of(f)->top;
	*bottom = front_of(f)->bottom;
	return 1;
}

struct starpu_sched_component *starpu_sched_component_composed_component_create(struct starpu_sched_tree *tree,
									     struct starpu_sched_component_composed_recipe *recipe)
{
	if (!tree || sched_recipe_length(recipe) == 0)
	{
		rt_error("starpu_sched_component_composed_component_create: %s",
			 !tree ? "tree is NULL" : "the recipe is NULL or empty");
		return NULL;
	}
	struct starpu_sched_component *top, *bottom;
	if (sched_recipe_instantiate(tree, recipe, NULL, &top, &bottom))
	{
		rt_error("starpu_sched_component_composed_component_create: a constructor of the recipe returned NULL");
		if (top)
			starpu_sched_component_destroy_rec(top);
		return NULL;
	}
	if (top == bottom)
		return top;
	struct starpu_sched_component *f = starpu_sched_component_create(tree, "composed");
	struct front *d = malloc(sizeof(*d));
	if (!f || !d)
		abort();
	d->top = top;
	d->bottom = bottom;
	f->data = d;
	starpu_sched_component_add_child(f, top);	/* c0 does not name F back */
	f->push_task = front_push;
	f->pull_task = front_pull;
	f->can_push = front_can_push;
	f->add_child = front_add_child;
	f->remove_child = front_remove_child;
	f->add_parent = front_add_parent;
	f->remove_parent = front_remove_parent;
	f->can_pull = front_can_pull;
	f->estimated_load = front_estimated_load;
	f->estimated_end = front_estimated_end;
	f->deinit_data = front_deinit;
	return f;
}
