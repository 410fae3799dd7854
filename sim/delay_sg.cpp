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
// A rank of a simulated cluster (joined: one engine, a copy of this plugin
// per rank, vela-simrun's own sleeps) keeps SimGrid's sleeps: the ranks'
// delays would otherwise be woken rank by rank, not in one order.
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
struct Delay
{
	double date;		// simulated seconds
	uint64_t step;		// engine steps (solves) before it started
	uint64_t seq;		// started so far (one order across steps)
	sg_delay_slot *slot;	// the waiting thread's
};

// std::priority_queue puts first what compares greatest: the earliest
// date, then the earliest step, then, within a step, the last started.
struct Later
{
	bool operator()(const Delay &a, const Delay &b) const
	{
		if (a.date != b.date)
			return a.date > b.date;
		if (a.step != b.step)
			return a.step > b.step;
		return a.seq < b.seq;
	}
};

// One actor runs at a time and the model runs in maestro: no lock.
std::priority_queue<Delay, std::vector<Delay>, Later> due;
uint64_t steps, started;
double precision = 1e-9;	// SimGrid's surf/precision, read at set-up
// Ends a blocking simcall: ActorImpl::simcall_answer, which SimGrid
// exports but declares in no installed header (found at set-up; without
// it, or with VELA_SIM_DELAYS=simgrid, SimGrid's sleeps are kept).
void (*answer)(void *actor);
enum { WANT_DEFAULT, WANT_VELA, WANT_SIMGRID } wanted;
// Ends the delays due at the engine's date now (SimGrid's test for an
// action's end: |date - now| < precision, not date < now + precision,
// which rounds differently).
void wake(double now)
{
	sg_clock_now = now;
	steps++;
	while (!due.empty() && due.top().date - now < precision)
	{
		sg_delay_slot *d = due.top().slot;
		due.pop();
		if (d->waiting)
		{
			d->waiting = 0;
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
		return due.empty() ? -1.0 : due.top().date - now;
	}
	void update_actions_state(double now, double) override
	{
		wake(now);
	}
};
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

extern "C" void sg_delay(sg_delay_slot *d, double seconds)
{
	if (!(seconds > 0))
		return;		// as sg_actor_sleep_for: no wait, no simcall
	if (!answer)
	{
		sg_actor_sleep_for(seconds);
		return;
	}
	if (!d->actor)
		d->actor = simgrid::s4u::Actor::self()->get_impl();
	double date = sg_clock_now + (seconds > precision ? seconds : precision);
	due.push(Delay{date, steps, started++, d});
	d->waiting = 1;
	try
	{
		// Blocks until wake answers.
		simgrid::kernel::actor::simcall_blocking([] {});
	}
	catch (...)
	{
		d->waiting = 0;	// killed while waiting: nothing to answer
		throw;
	}
}
