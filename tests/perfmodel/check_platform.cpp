/* check_platform: loads a SimGrid platform file (one per process: SimGrid
 * runs one simulation per process) and checks what sim/ relies on: a RAM
 * host, and a route from RAM to every memory-node host (RAM itself,
 * CUDA<i>, OpenCL<i>, DISK<i>, MPI_MS<i> but not its cores MPI_MS<i>_CPU<k>),
 * printing its latency and bottleneck
 * bandwidth. Built only when SimGrid is found; check_platforms.sh runs it
 * on platforms/ and on a fresh bus calibration of this machine.
 */
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
	if (argc < 2)
	{
		std::fprintf(stderr, "usage: check_platform FILE.xml\n");
		return 2;
	}
	simgrid::s4u::Engine e(&argc, argv);
	e.load_platform(argv[1]);
	auto *ram = e.host_by_name_or_null("RAM");
	if (!ram)
	{
		std::printf("%s: no RAM host\n", argv[1]);
		return 1;
	}
	int nodes = 0;
	for (auto *h : e.get_all_hosts())
	{
		const std::string &n = h->get_name();
		bool slave = n.rfind("MPI_MS", 0) == 0 && n.find("_CPU") == std::string::npos;
		if (n != "RAM" && n.rfind("CUDA", 0) != 0 && n.rfind("OpenCL", 0) != 0 && n.rfind("DISK", 0) != 0 && !slave)
			continue;
		std::vector<simgrid::s4u::Link *> route;
		double lat = 0;
		ram->route_to(h, route, &lat);
		if (route.empty())
		{
			std::printf("%s: no route from RAM to %s\n", argv[1], n.c_str());
			return 1;
		}
		double bw = 1e300;
		for (auto *l : route)
			bw = std::min(bw, l->get_bandwidth());
		std::printf("RAM -> %s: %zu link(s), latency %g s, bandwidth %g B/s\n", n.c_str(), route.size(), lat, bw);
		nodes++;
	}
	std::printf("%s: %zu hosts, %zu links, %d memory nodes reachable\n", argv[1], e.get_all_hosts().size(), e.get_all_links().size(), nodes);
	return 0;
}
