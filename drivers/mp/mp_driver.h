/* mp_driver.h — what the rest of Vela sees of the master/slave layer. */
#ifndef VELA_MP_DRIVER_H
#define VELA_MP_DRIVER_H

#include <starpu.h>

struct drv_device_kind;

/* The MPI_MS device kind (mp_driver.c): one device per slave used. */
extern const struct drv_device_kind drv_mpi_ms_kind;

/* At the start of every starpu_init (mp_loader.c): decides once per
 * process whether it takes part in master/slave; a sink never returns.
 * 0, or a negative errno (message printed). */
int mp_boot(const struct starpu_conf *conf);
/* Whether this process is the master of a job with slaves. */
int mp_active(void);
/* Ends the job for the slaves (they exit) and leaves the channel: at exit,
 * or at the end of the session when the application initialised MPI. */
void mp_end(void);

#endif /* VELA_MP_DRIVER_H */
