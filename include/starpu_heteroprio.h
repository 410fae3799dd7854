/* starpu_heteroprio.h — configuration of the "heteroprio" policy.
 *
 * heteroprio keeps STARPU_HETEROPRIO_MAX_PRIO buckets of tasks; a task goes
 * to the bucket numbered by its priority. Each kind of worker sees its own
 * ordered list of buckets: its priority levels 0, 1, ... map to buckets, and
 * a worker takes the oldest task of the first non-empty bucket of its list.
 * A bucket may name the kind of worker that is fastest for it; the others
 * then take from it only when enough tasks wait there (the slow factor).
 *
 * The functions are called from the callback the application passes in
 * starpu_conf.sched_policy_init (or STARPU_SCHED_CTX_POLICY_INIT), with the
 * context being set up. Without a callback, every kind of worker sees every
 * bucket, in bucket order. As in StarPU, starpu.h does not include this
 * header.
 */
#ifndef STARPU_HETEROPRIO_H
#define STARPU_HETEROPRIO_H

#include <starpu.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define STARPU_HETEROPRIO_MAX_PRIO 100
#define STARPU_HETEROPRIO_MAX_PREFETCH 2

/* Kinds of worker, as heteroprio indexes them. */
enum starpu_heteroprio_types
{
	STARPU_CPU_IDX,
	STARPU_CUDA_IDX,
	STARPU_OPENCL_IDX,
	STARPU_MIC_IDX,
	STARPU_MPI_MS_IDX,
	STARPU_NB_TYPES
};

/* The where mask (STARPU_CPU, ...) of each kind, 0 after the last. */
static const unsigned starpu_heteroprio_types_to_arch[STARPU_NB_TYPES + 1] =
{
	STARPU_CPU, STARPU_CUDA, STARPU_OPENCL, STARPU_MIC, STARPU_MPI_MS, 0
};

/* Workers of kind arch use max_prio priority levels (at most
 * STARPU_HETEROPRIO_MAX_PRIO). */
void starpu_heteroprio_set_nb_prios(unsigned sched_ctx_id, enum starpu_heteroprio_types arch, unsigned max_prio);
/* Priority level source_prio of kind arch is bucket dest_bucket_id; workers
 * of that kind may then run the bucket's tasks. */
void starpu_heteroprio_set_mapping(unsigned sched_ctx_id, enum starpu_heteroprio_types arch, unsigned source_prio, unsigned dest_bucket_id);
/* Kind arch is the fastest for bucket bucket_id. */
void starpu_heteroprio_set_faster_arch(unsigned sched_ctx_id, enum starpu_heteroprio_types arch, unsigned bucket_id);
/* Kind arch is slow_factor times slower than the fastest one for bucket
 * bucket_id: its workers take from the bucket only while more than
 * slow_factor tasks wait there per worker of the fastest kind. */
void starpu_heteroprio_set_arch_slow_factor(unsigned sched_ctx_id, enum starpu_heteroprio_types arch, unsigned bucket_id, float slow_factor);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_HETEROPRIO_H */
