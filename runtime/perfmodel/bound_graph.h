/* bound_graph.h — what bound.c (recording, the area program, the output
 * functions) and bound_deps.c (the recorded task graph and its program)
 * share. Everything here is protected by bound_lock (bound.c), a leaf
 * lock: it is taken with no other runtime lock held after it (the
 * dependency layers report edges holding their own locks, which come
 * before it).
 */
#ifndef VELA_BOUND_GRAPH_H
#define VELA_BOUND_GRAPH_H

#include "os/os.h"

#include <starpu.h>
#include <stdio.h>

#ifdef STARPU_HAVE_GLPK_H
#include "perfmodel/glpk_dl.h"	/* GLPK, loaded on first use */
#endif

#define BOUND_MAX_CLASSES 16

/* Tasks of one codelet, footprint and prediction (the area program). */
struct bound_kind
{
	struct starpu_codelet *cl;
	uint32_t footprint;
	unsigned long count;
	double length[BOUND_MAX_CLASSES];	/* µs; NaN: that class cannot run it */
	struct bound_kind *next;
};

/* A class of workers: those sharing a performance-model arch. */
struct bound_class
{
	struct starpu_perfmodel_arch *arch;
	int worker;			/* one worker of the class */
	unsigned nworkers;
};

/* One recorded submission (deps=1 only). */
struct bound_task
{
	unsigned long id;		/* its job id */
	struct bound_kind *kind;	/* NULL: no prediction */
	int prio;
	int use_tag;
	starpu_tag_t tag;
	unsigned ntagdeps;
	starpu_tag_t *tagdeps;		/* the tags its tag waits for; owned */
};

struct bound_edge
{
	unsigned long pred, succ;	/* job ids */
};

extern os_mutex_t bound_lock;
extern struct bound_kind *bound_kinds;
extern unsigned bound_nkinds;
extern unsigned long bound_unknown;
extern int bound_with_deps, bound_with_prio;
extern struct bound_class bound_classes[BOUND_MAX_CLASSES];
extern unsigned bound_nclasses;

const char *bound_kind_name(const struct bound_kind *k);

/* bound_deps.c, bound_lock held. */
void bound_deps_forget(void);
void bound_deps_add_task(const struct bound_task *t);
void bound_deps_print_dot(FILE *out);
#ifdef STARPU_HAVE_GLPK_H
/* The program with one start time per task: integer 0, tasks shared
 * among classes of workers (a relaxation); 1, each task on one worker
 * and two tasks on one worker one after the other (exact when solved).
 * NULL with a message naming fn when there is nothing or the graph has
 * a cycle. */
glp_prob *bound_deps_build(int integer, const char *fn);
#endif

#endif /* VELA_BOUND_GRAPH_H */
