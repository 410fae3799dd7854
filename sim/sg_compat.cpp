// sg_compat.cpp — the few things the SimGrid 3.32 C API does not offer,
// as C functions (see sg_internal.h).
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/dynar.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <cstdio>
#include <exception>

struct sg_thread;

extern "C" struct sg_thread *sg_self(void)
{
	// Actor::self() is non-null in maestro too, where blocking is forbidden.
	simgrid::s4u::Actor *a = simgrid::s4u::Actor::self();
	if (a == nullptr || simgrid::s4u::Actor::is_maestro())
		return nullptr;
	return a->get_data<struct sg_thread>();
}

extern "C" int sg_in_running_actor(void)
{
	if (!simgrid::s4u::Engine::is_initialized())
		return 0;
	simgrid::s4u::Actor *a = simgrid::s4u::Actor::self();
	return a != nullptr && !simgrid::s4u::Actor::is_maestro();
}

extern "C" void sg_on_deadlock(void (*cb)(void))
{
	simgrid::s4u::Engine::on_deadlock_cb([cb] { cb(); });
}

extern "C" int sg_load_platform(const char *path, char *err, size_t errsize)
{
	try
	{
		simgrid_load_platform(path);
		return 0;
	}
	catch (const std::exception &e)
	{
		std::snprintf(err, errsize, "%s", e.what());
	}
	catch (...)
	{
		std::snprintf(err, errsize, "unknown error");
	}
	return -1;
}

extern "C" int sg_route_links(sg_host_t from, sg_host_t to, xbt_dynar_t links)
{
	// A platform without a route between the two hosts throws.
	try
	{
		sg_host_get_route(from, to, links);
		return 0;
	}
	catch (...)
	{
		return -1;
	}
}
