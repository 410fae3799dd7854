/* starpu_rand.h — random numbers for applications and policies.
 *
 * STARPU_RAND_SEED, when set, replaces the seed an application passes, so
 * that a run can be made reproducible without changing its source.
 */
#ifndef STARPU_RAND_H
#define STARPU_RAND_H

#include <stdlib.h>
#include <starpu_config.h>
#include <starpu_util.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define starpu_seed(seed) starpu_get_env_number_default("STARPU_RAND_SEED", (seed))

#define starpu_srand48(seed) srand48(starpu_seed(seed))
#define starpu_drand48() drand48()
#define starpu_lrand48() lrand48()
#define starpu_erand48(xsubi) erand48(xsubi)

typedef struct drand48_data starpu_drand48_data;
#define starpu_srand48_r(seed, buffer) srand48_r(starpu_seed(seed), buffer)
#define starpu_drand48_r(buffer, result) drand48_r(buffer, result)
#define starpu_lrand48_r(buffer, result) lrand48_r(buffer, result)
#define starpu_erand48_r(xsubi, buffer, result) erand48_r(xsubi, buffer, result)

#ifdef __cplusplus
}
#endif

#endif /* STARPU_RAND_H */
