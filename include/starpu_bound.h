/* starpu_bound.h — a lower bound of the execution time of the tasks
 * submitted between starpu_bound_start and starpu_bound_stop, from their
 * performance models, solved as a linear program (with GLPK when Vela was
 * built with it: STARPU_HAVE_GLPK_H in starpu_config.h). Without deps the
 * bound counts the tasks of each kind (codelet and footprint) and shares
 * them among the kinds of workers so that the busiest kind finishes first
 * ("area" bound); the integer bound gives whole tasks to each kind. With
 * deps, each task has a start time after its dependencies (task, tag and
 * data), within the area bound's limits; the integer bound then places
 * whole tasks on workers one after the other: the shortest schedule.
 * StarPU 1.3 writes that program but does not solve it (its compute gives
 * 0); Vela solves it.
 */
#ifndef STARPU_BOUND_H
#define STARPU_BOUND_H

#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Starts recording the submitted tasks (deps: and the task graph; prio:
 * of two tasks no dependency orders, the higher priority starts first). */
void starpu_bound_start(int deps, int prio);
void starpu_bound_stop(void);
/* The recorded tasks and their dependencies as a dot graph. */
void starpu_bound_print_dot(FILE *output);
/* *res = the bound in ms; with integer, *integer_res too (else unset).
 * Without GLPK, or when no bound can be computed, both are -1. */
void starpu_bound_compute(double *res, double *integer_res, int integer);
/* The linear program, in CPLEX LP and in MPS format (GLPK's writers;
 * with deps, the whole-task schedule program). */
void starpu_bound_print_lp(FILE *output);
void starpu_bound_print_mps(FILE *output);
/* The bound and how many tasks of each kind each kind of worker gets. */
void starpu_bound_print(FILE *output, int integer);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_BOUND_H */
