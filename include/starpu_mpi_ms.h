/* starpu_mpi_ms.h — kernels of the MPI master/slave mode by name (StarPU
 * 1.3's API). Declared when Vela is built with --enable-mpi-master-slave
 * (STARPU_USE_MPI_MASTER_SLAVE).
 *
 * The master and its slaves run one program: a kernel is named by its
 * symbol, found in the program with the dynamic linker (link it with
 * -rdynamic). starpu_mpi_ms_register_kernel looks func_name up and keeps it
 * in *symbol (0, or -ENOENT when the program has no such function);
 * starpu_mpi_ms_get_kernel gives the kernel back, for a codelet's
 * mpi_ms_funcs to return.
 */
#ifndef STARPU_MPI_MS_H
#define STARPU_MPI_MS_H

#include <starpu_config.h>
#include <starpu_task.h>

#ifdef STARPU_USE_MPI_MASTER_SLAVE

#ifdef __cplusplus
extern "C" {
#endif

typedef void *starpu_mpi_ms_func_symbol_t;

int starpu_mpi_ms_register_kernel(starpu_mpi_ms_func_symbol_t *symbol, const char *func_name);
starpu_mpi_ms_kernel_t starpu_mpi_ms_get_kernel(starpu_mpi_ms_func_symbol_t symbol);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_USE_MPI_MASTER_SLAVE */

#endif /* STARPU_MPI_MS_H */
