/* starpu_simgrid_wrap.h — StarPU's simulation builds rename the
 * application's main here. Vela switches to simulation at run time
 * (STARPU_SIMGRID=1) with the application's main unchanged, so this header
 * renames nothing: applications that include it compile as they are.
 */
#ifndef STARPU_SIMGRID_WRAP_H
#define STARPU_SIMGRID_WRAP_H

#include <starpu_config.h>

#endif /* STARPU_SIMGRID_WRAP_H */
