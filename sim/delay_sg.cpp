// delay_sg.cpp — the actors' plain delays (sg_delay, sg_internal.h), woken
// by Vela rather than by SimGrid's CPU model.
//
// Most of what a simulated run waits for is a plain delay: a CPU task's
// predicted duration, each overhead cost (sim/README.md, "Overheads"), a
// GPU worker's sleep until its queue's date. sg_actor_sleep_for makes each
// one a CPU action of the host: an LMM variable, an entry in the model's
// action heap, a sleep activity, their creation and retirement, about a
// microsecond of SimGrid's own work, half of a CPU-only simulation's time
// (bench/results-simulation.md, "sim_speed"). A delay needs none of it:
// nothing shares it, its end is known when it starts. Here the waiting
// actor blocks in a simcall that does nothing (no activity), its end goes
// into one heap, and a model of the plugin's own (s4u::Engine::add_model)
// tells the engine the heap's earliest date as its next event; at every
// date the engine reaches (update_actions_state, once the date moved),
// the delays due are ended by answering their actors' simcalls, as
// SimGrid's own activities do.
//
// Same dates, same order, as SimGrid's sleeps (the golden tests and the
// traces of simulated runs are unchanged). A delay of d seconds started at
// NOW ends at NOW + max(d, surf/precision), as a sleep's action does
// (its start date plus its maximal duration), and is due when the engine's
// date is within surf/precision of it (the CPU model's test). Delays due
// at one date wake in the order SimGrid's CPU model ends sleeps: by date,
// then those started before an earlier engine step (solve) first, then,
// among those of one step, the last started first (a sleep's action enters
// the model's modified set at its front, and the heap, stable, from that
// set at the next solve). They wake before the actions that end at that
// date (timed waits, executions on time-shared hosts, communications),
// where a sleep would have been ended with the CPU model's actions, before
// the network's: only a timed wait or a time-shared execution ending at
// the same instant as a delay is woken in another order than before.
//
// The same heap holds the deadlines of blocking waits (sg_block): an
// actor blocks in a simcall until another wakes it (sg_unblock, the
// plugin's condition variables: os_sg.c) or its deadline comes, with no
// SimGrid mutex, condition or sleep action (three simcalls and an LMM
// variable per timed wait otherwise: most of a simulated cluster's
// solver work, bench/results-cluster-sim.md).
//
// A rank of a simulated cluster (joined: one engine, a copy of this plugin
// per rank) uses the heap of vela-simrun, which compiles this file too
// and exports it (vsg_delay_service): the ranks' delays and waits wake in
// one order, by date, as one process's do.
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/simix.hpp>
#include <xbt/config.h>

#include <dlfcn.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <queue>
#include <vector>

#include "sg_delay.h"

// The clock's cache (sg_delay.h): hidden, one per copy of the plugin.
__attribute__((visibility("hidden"))) int sg_clock_cached;
__attribute__((visibility("hidden"))) double sg_clock_now;

namespace
{
// The heap of due dates: slots, each in it at most once (its index + 1 in
// heap_at; 0: out), first what ends first: the earliest date, then the
// earliest step, then, within a step, the last started.
std::vector<sg_delay_slot *> heap;

bool before(const sg_delay_slot *a, const sg_delay_slot *b)
{
	if (a->date != b->date)
		return a->date < b->date;
	if (a->step != b->step)
		return a->step < b->step;
	return a->seq > b->seq;
}

void place(size_t i, sg_delay_slot *d)
{
	heap[i] = d;
	d->heap_at = i + 1;
}

void sift_up(size_t i)
{
	sg_delay_slot *d = heap[i];
	while (i > 0 && before(d, heap[(i - 1) / 2]))
	{
		place(i, heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	place(i, d);
}

void sift_down(size_t i)
{
	sg_delay_slot *d = heap[i];
	size_t n = heap.size();
	for (;;)
	{
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(heap[c + 1], heap[c]))
			c++;
		if (!before(heap[c], d))
			break;
		place(i, heap[c]);
		i = c;
	}
	place(i, d);
}

void heap_push(sg_delay_slot *d)
{
	heap.push_back(d);
	sift_up(heap.size() - 1);
}

void heap_remove(sg_delay_slot *d)
{
	if (!d->heap_at)
		return;
	size_t i = d->heap_at - 1;
	d->heap_at = 0;
	sg_delay_slot *last = heap.back();
	heap.pop_back();
	if (last == d)
		return;
	heap[i] = last;
	if (i > 0 && before(last, heap[(i - 1) / 2]))
		sift_up(i);
	else
		sift_down(i);
}

// One actor runs at a time and the model runs in maestro: no lock.
uint64_t steps, started;
double precision = 1e-9;	// SimGrid's surf/precision, read at set-up
// Ends a blocking simcall: ActorImpl::simcall_answer, which SimGrid
// exports but declares in no installed header (found at set-up; without
// it, or with VELA_SIM_DELAYS=simgrid, SimGrid's sleeps are kept).
void (*answer)(void *actor);
enum { WANT_DEFAULT, WANT_VELA, WANT_SIMGRID } wanted;
// Another copy's heap (a rank of a cluster: vela-simrun's), or none.
const sg_delay_service *shared;

// Ends the delays and waits due at the engine's date now (SimGrid's test
// for an action's end: |date - now| < precision, not date < now +
// precision, which rounds differently).
void wake(double now)
{
	sg_clock_now = now;
	steps++;
	while (!heap.empty() && heap[0]->date - now < precision)
	{
		sg_delay_slot *d = heap[0];
		heap_remove(d);
		if (d->waiting)
		{
			d->waiting = 0;
			d->timedout = 1;
			answer(d->actor);
		}
	}
}

// The engine asks every model for its next event, then tells each that
// the date moved (EngineImpl::solve); it never hands this one an action.
class DelayModel : public simgrid::kernel::resource::Model
{
public:
	DelayModel() : Model("VelaDelays") {}
	double next_occurring_event(double now) override
	{
		return heap.empty() ? -1.0 : heap[0]->date - now;
	}
	void update_actions_state(double now, double) override
	{
		wake(now);
	}
};

void enter(sg_delay_slot *d, double date)
{
	d->date = date;
	d->step = steps;
	d->seq = started++;
	heap_push(d);
}

// d's entry in the heap, seconds from now (at least the engine's
// precision, as a sleep's action), for the calling actor.
void enter_in(sg_delay_slot *d, double seconds)
{
	if (!d->actor)
		d->actor = simgrid::s4u::Actor::self()->get_impl();
	enter(d, sg_clock_now + (seconds > precision ? seconds : precision));
}

// Blocks the calling actor until wake (its date, if entered) or, when it
// listens, local_unblock answers it. In maestro, in the order of the
// simcalls: a wake-up that came first (signalled) answers at once;
// waiting is set there too, so that a sg_unblock meant for an earlier
// wait, handled first, only sets signalled (which a plain delay ignores).
void block(sg_delay_slot *d, bool listens)
{
	try
	{
		simgrid::kernel::actor::simcall_blocking([d, listens] {
			if (listens && d->signalled)
			{
				d->signalled = 0;
				heap_remove(d);
				answer(d->actor);
			}
			else
				d->waiting = 1;
		});
	}
	catch (...)
	{
		d->waiting = 0;	// killed while waiting: nothing to answer
		heap_remove(d);
		throw;
	}
}

void local_delay(sg_delay_slot *d, double seconds)
{
	enter_in(d, seconds);
	block(d, false);
}

int local_block(sg_delay_slot *d, double deadline)
{
	d->timedout = 0;
	if (d->signalled)
	{
		d->signalled = 0;
		return 0;
	}
	if (deadline >= 0)
		enter_in(d, deadline - sg_clock_now);
	else if (!d->actor)
		d->actor = simgrid::s4u::Actor::self()->get_impl();
	block(d, true);
	return d->timedout;
}

// In maestro (sg_in_kernel).
void local_unblock(sg_delay_slot *d)
{
	if (d->waiting)
	{
		d->waiting = 0;
		heap_remove(d);
		answer(d->actor);
	}
	else
		d->signalled = 1;
}

void local_in_kernel(void (*fn)(void *), void *arg)
{
	simgrid::kernel::actor::simcall_answered([fn, arg] { fn(arg); });
}

const sg_delay_service local_service = {local_delay, local_block, local_unblock, local_in_kernel};
}

extern "C" int sg_delay_choose(char *err, size_t errsize)
{
	const char *v = std::getenv("VELA_SIM_DELAYS");
	if (!v || !std::strcmp(v, "vela"))
		wanted = v ? WANT_VELA : WANT_DEFAULT;
	else if (!std::strcmp(v, "simgrid"))
		wanted = WANT_SIMGRID;
	else
	{
		std::snprintf(err, errsize, "VELA_SIM_DELAYS='%s': expected 'vela' or 'simgrid'", v);
		return -EINVAL;
	}
	answer = nullptr;
	if (wanted != WANT_SIMGRID)
		answer = reinterpret_cast<void (*)(void *)>(
			dlsym(RTLD_DEFAULT, "_ZN7simgrid6kernel5actor9ActorImpl14simcall_answerEv"));
	if (!answer && wanted == WANT_VELA)
	{
		std::snprintf(err, errsize, "VELA_SIM_DELAYS=vela: this SimGrid does not export "
			      "ActorImpl::simcall_answer (use 'simgrid', or leave it unset)");
		return -EINVAL;
	}
	return 0;
}

extern "C" void sg_delay_setup(void)
{
	// SimGrid 3.32 names it surf/precision (precision/timing later).
	try
	{
		precision = sg_cfg_get_double("surf/precision");
	}
	catch (...)
	{
		precision = sg_cfg_get_double("precision/timing");
	}
	if (answer)
	{
		simgrid::s4u::Engine::get_instance()->add_model(std::make_shared<DelayModel>(), {});
		sg_clock_now = simgrid_get_clock();
		sg_clock_cached = 1;
	}
}

extern "C" const sg_delay_service *vsg_delay_service(void)
{
	return answer ? &local_service : nullptr;
}

extern "C" void sg_delay_join(void)
{
	typedef const sg_delay_service *(*getter)(void);
	getter get = reinterpret_cast<getter>(dlsym(RTLD_DEFAULT, "vsg_delay_service"));
	shared = get ? get() : nullptr;
}

extern "C" int sg_blocking(void)
{
	return shared != nullptr || answer != nullptr;
}

extern "C" void sg_delay(sg_delay_slot *d, double seconds)
{
	if (!(seconds > 0))
		return;		// as sg_actor_sleep_for: no wait, no simcall
	if (shared)
		shared->delay(d, seconds);
	else if (answer)
		local_delay(d, seconds);
	else
		sg_actor_sleep_for(seconds);
}

extern "C" int sg_block(sg_delay_slot *d, double deadline)
{
	return (shared ? shared : &local_service)->block(d, deadline);
}

extern "C" void sg_unblock(sg_delay_slot *d)
{
	(shared ? shared : &local_service)->unblock(d);
}

extern "C" void sg_in_kernel(void (*fn)(void *), void *arg)
{
	(shared ? shared : &local_service)->in_kernel(fn, arg);
}
