/* sg_delay.h — the plugin's plain delays (delay_sg.cpp), shared by its C
 * files (through sg_internal.h) and delay_sg.cpp itself. */
#ifndef VELA_SG_DELAY_H
#define VELA_SG_DELAY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a thread's delays and blocking waits leave for the code that ends
 * them (delay_sg.cpp): its actor (SimGrid's kernel actor, found on the
 * first use), whether it is blocked (waiting), a wake-up that came before
 * it blocked (signalled), whether its deadline ended the last wait
 * (timedout), and its entry in the heap of due dates (heap_at: index + 1,
 * 0 when out; date, and the engine step and start count ordering it). */
struct sg_delay_slot
{
	void *actor;
	int waiting, signalled, timedout;
	size_t heap_at;
	double date;
	unsigned long long step, seq;
};

/* The heap's operations, as one copy of the plugin (or vela-simrun)
 * serves them to others (a simulated cluster's ranks). */
struct sg_delay_service
{
	void (*delay)(struct sg_delay_slot *d, double seconds);
	int (*block)(struct sg_delay_slot *d, double deadline);
	void (*unblock)(struct sg_delay_slot *d);
	void (*in_kernel)(void (*fn)(void *), void *arg);
};

/* sg_delay_choose before the engine starts reads VELA_SIM_DELAYS (0, or
 * -EINVAL and why in err), sg_delay_setup once it is initialised; a rank
 * of a cluster calls sg_delay_join instead, which takes vela-simrun's heap
 * (vsg_delay_service: NULL when SimGrid's sleeps are kept). sg_delay
 * blocks the calling actor, whose slot is d, for seconds of simulated time
 * (<= 0: returns at once), as sg_actor_sleep_for does; sg_sleep is
 * sg_delay for the calling thread.
 *
 * Blocking waits, where sg_blocking() says they are served (a rank of a
 * cluster whose launcher has the heap): the caller clears d->signalled,
 * makes itself findable by its wakers (a list of its own), then sg_block
 * blocks it until sg_unblock(d) or the simulated date deadline (seconds;
 * < 0: none) and returns 1 when the deadline ended it; a wake-up given
 * between the clearing and sg_block makes sg_block return 0 at once, and
 * so may one meant for an earlier wait (callers wait in a loop on their
 * predicate). sg_unblock is called in maestro: sg_in_kernel runs fn(arg)
 * there (a simcall from an actor), where the wakers take the waiters off
 * their lists and unblock them, all in one step. */
int sg_delay_choose(char *err, size_t errsize);
void sg_delay_setup(void);
void sg_delay_join(void);
const struct sg_delay_service *vsg_delay_service(void);
void sg_delay(struct sg_delay_slot *d, double seconds);
void sg_sleep(double seconds);
int sg_blocking(void);
int sg_block(struct sg_delay_slot *d, double deadline);
void sg_unblock(struct sg_delay_slot *d);
void sg_in_kernel(void (*fn)(void *), void *arg);

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
