/* sg_delay.h — the plugin's plain delays (delay_sg.cpp), shared by its C
 * files (through sg_internal.h) and delay_sg.cpp itself. */
#ifndef VELA_SG_DELAY_H
#define VELA_SG_DELAY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a thread's delay leaves for the code that ends it (delay_sg.cpp):
 * its actor (SimGrid's kernel actor, found on the first delay) and
 * whether it waits. */
struct sg_delay_slot
{
	void *actor;
	int waiting;
};

/* sg_delay_choose before the engine starts reads VELA_SIM_DELAYS (0, or
 * -EINVAL and why in err), sg_delay_setup once it is initialised (neither
 * in a rank of a cluster, which keeps SimGrid's sleeps); sg_delay blocks
 * the calling actor, whose slot is d, for seconds of simulated time (<= 0:
 * returns at once), as sg_actor_sleep_for does; sg_sleep is sg_delay for
 * the calling thread. */
int sg_delay_choose(char *err, size_t errsize);
void sg_delay_setup(void);
void sg_delay(struct sg_delay_slot *d, double seconds);
void sg_sleep(double seconds);

/* The simulated clock (s). With Vela's delays, the engine's date as the
 * plugin's model saw it last move (solve, the only place that moves it,
 * tells every model), which saves a trip into SimGrid per read; else
 * SimGrid's (sg_clock, sg_internal.h). */
extern int sg_clock_cached;
extern double sg_clock_now;

#ifdef __cplusplus
}
#endif

#endif /* VELA_SG_DELAY_H */
