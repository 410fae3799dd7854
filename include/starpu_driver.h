/* starpu_driver.h — letting an application thread drive a worker.
 *
 * Workers named in starpu_conf.not_launched_drivers get no thread of their
 * own: the application runs their loop, either entirely (starpu_driver_run,
 * which returns after starpu_drivers_request_termination() or shutdown) or
 * step by step (init, run_once repeatedly, deinit).
 */
#ifndef STARPU_DRIVER_H
#define STARPU_DRIVER_H

#include <starpu_config.h>
#include <starpu_worker.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_driver
{
	enum starpu_worker_archtype type;
	union
	{
		unsigned cpu_id;	/* devid of the CPU worker */
		unsigned cuda_id;
		unsigned opencl_id;
	} id;
};

/* Each returns 0, or -EINVAL when d names no worker left to the
 * application, -ENODEV when the runtime is not initialised. */
int starpu_driver_run(struct starpu_driver *d);
void starpu_drivers_request_termination(void);
int starpu_driver_init(struct starpu_driver *d);
/* Runs one cycle (pick a task, fetch its data, run it); returns 0. */
int starpu_driver_run_once(struct starpu_driver *d);
int starpu_driver_deinit(struct starpu_driver *d);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_DRIVER_H */
