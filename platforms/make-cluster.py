#!/usr/bin/env python3
"""make-cluster.py — writes a cluster platform for vela-simrun.

A cluster is NODES copies of one node platform of this directory (its
hosts MAIN, CPU<k>, RAM, CUDA<k>..., links and routes), renamed
n<i>.<name>, each in a zone of its own, joined by a network between the
nodes' RAM hosts (where MPI messages leave and arrive, sim/simrun_mpi.c):

  switch    every node has a link to a non-blocking switch, one per
            direction (NIC up, NIC down): a message from node i to node j
            crosses i's up link and j's down link; the latency given is
            the node-to-node one, half on each link.
  fat-tree  two levels: leaves of --leaf-size nodes as above, each leaf
            joined to the spine by an up and a down link of
            leaf-size x bandwidth / --oversubscription; between leaves a
            message crosses both leaves' uplinks too, and --hop-latency
            each way through the spine.

  make-cluster.py --nodes 16 --node epyc2-4xa100-pcie.platform.v4.xml \\
      --bandwidth 25GBps --latency 1us [--topology switch|fat-tree] \\
      [--leaf-size K] [--oversubscription R] [--hop-latency 0.5us] \\
      [--cores N [--timer-overshoot US] [--wakeup-cost US]] [--copy-above BYTES --copy-bandwidth BW]
      [--insert-cost A,B,AL,BL] [--exchange-cost S,R] [--task-cost T,U]
      [--source TEXT]... -o cluster.xml

--cores N: each rank has N cores of the node and no core of its own for
its main() and MPI progression thread (mpirun --bind-to core with one
core per rank, or N): the node keeps CPU0..CPU<N-1> (MAIN and the other
CPU hosts are left out, so main() runs on CPU0) and they are marked
time_shared="1": the threads placed on a host share its core, their
work (kernels, the runtime's costs, the MPI layer's) executions of its
flops (sim/README.md "Clusters"). --timer-overshoot US: by how much a
timed wait of those threads ends after its deadline (Linux's timer slack
and the wake-up, measured by calibrate-mpi.sh): timer_overshoot_us on
those hosts. --wakeup-cost US: what a thread waking there costs the core
(vela calibrate-wakeup): wakeup_us on those hosts.

--copy-above BYTES --copy-bandwidth BW: MPI as shared memory carries it
(one machine's ranks): a message larger than BYTES (the MPI's eager
limit) is copied by the receiving rank's thread that polls for it, at BW,
on its core; only its header crosses the network (mpi_copy_above and
mpi_copy_Bps on each node's RAM host, sim/simrun_mpi.c).

--insert-cost A,B,AL,BL: the main thread's time per starpu_mpi_task_insert,
A + B x data µs for a task another rank runs, AL + BL x data for one the
rank runs (besides the runtime's submission cost), measured by
bench/mpi_insert_cost.c (mpi_insert_us, mpi_insert_us_per_datum,
mpi_insert_local_us, mpi_insert_local_us_per_datum on each RAM host).
--exchange-cost S,R: what an insertion costs the main thread besides,
per send it posts (S µs) and per receive (R µs), measured by the same
program (mpi_insert_send_us, mpi_insert_recv_us on each RAM host).

--task-cost T,U: the runtime's own work per task in a worker, T µs and U
µs per datum, measured by bench/mpi_insert_cost.c with kernels that
sweep a tile's worth of memory between tasks (sched_cost_us and
fetching_input_cost_us on each RAM host; vela-simrun makes them the
STARPU_SIMGRID_SCHED_COST and STARPU_SIMGRID_FETCHING_INPUT_COST of the
simulation unless the environment sets those, sim/README.md
"Clusters").

Bandwidths take SimGrid's units (Bps, kBps, MBps, GBps, bps, Gbps, ...),
latencies s, ms, us, ns. --source lines go into the file's header comment:
where the figures come from. Exit status 0, 2 for a usage or input error
(named: the option, or file:line and the reason).
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

BW_UNITS = {"Bps": 1, "kBps": 1e3, "KBps": 1e3, "MBps": 1e6, "GBps": 1e9, "TBps": 1e12,
            "KiBps": 1024, "MiBps": 1024**2, "GiBps": 1024**3,
            "bps": 1 / 8, "kbps": 1e3 / 8, "Kbps": 1e3 / 8, "Mbps": 1e6 / 8, "Gbps": 1e9 / 8, "Tbps": 1e12 / 8}
LAT_UNITS = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def fail(msg):
    print("make-cluster.py: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_quantity(opt, text, units):
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    if not m or m.group(2) not in units:
        fail("%s %s: expected a number and one of %s" % (opt, text, ", ".join(units)))
    v = float(m.group(1)) * units[m.group(2)]
    if not v > 0 and units is BW_UNITS:
        fail("%s %s: must be positive" % (opt, text))
    return v


def load_node(path):
    """The node file's zone: hosts, links, routes, config, as elements."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        fail("--node %s: %s" % (path, e.strerror))
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        fail("%s:%d: %s" % (path, e.position[0], str(e).split(":")[0]))

    def line_of(text):
        i = data.find(text.encode())
        return data.count(b"\n", 0, i) + 1 if i >= 0 else 0

    if root.tag != "platform":
        fail("%s:1: the root element is <%s>, not <platform>" % (path, root.tag))
    zones = root.findall("zone")
    if len(zones) != 1:
        fail("%s:%d: a node file has one <zone> (this one has %d)" % (path, line_of("<platform"), len(zones)))
    zone = zones[0]
    if zone.findall("zone"):
        fail("%s:%d: the node's zone holds zones: only hosts, links and routes are copied" % (path, line_of("<zone")))
    hosts = zone.findall("host")
    names = [h.get("id") for h in hosts]
    if "CPU0" not in names:
        fail("%s:%d: the node has no host CPU0 (its CPU workers are CPU0, CPU1, ...)" % (path, line_of("<zone")))
    if "RAM" not in names:
        fail("%s:%d: the node has no host RAM (its main memory, where messages leave and arrive)" %
             (path, line_of("<zone")))
    for r in zone.findall("route"):
        for end in ("src", "dst"):
            if r.get(end) not in names:
                fail("%s:%d: route %s=\"%s\": no such host" % (path, line_of('%s="%s"' % (end, r.get(end))), end,
                                                             r.get(end)))
    return root, zone


def costs(opt, text, form):
    """A comma-separated list of costs in microseconds (numbers >= 0), as
    many as FORM names, or None without the option."""
    if text is None:
        return None
    try:
        v = [float(x) for x in text.split(",")]
    except ValueError:
        v = []
    n = len(form.split(","))
    if len(v) != n or not all(x >= 0 and x < float("inf") for x in v):
        fail("%s %s: expected %s costs in microseconds, %s (numbers >= 0)" % (opt, text, {2: "two", 4: "four"}[n], form))
    return v


def main():
    ap = argparse.ArgumentParser(description="Writes a cluster platform (nodes joined by a network) for vela-simrun.")
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--node", required=True, help="the node's platform file")
    ap.add_argument("--bandwidth", required=True, help="each node's link to the network, each way (e.g. 25Gbps)")
    ap.add_argument("--latency", required=True, help="node to node, through the switch (e.g. 1us)")
    ap.add_argument("--topology", choices=("switch", "fat-tree"), default="switch")
    ap.add_argument("--leaf-size", type=int, default=0)
    ap.add_argument("--oversubscription", type=float, default=1.0)
    ap.add_argument("--hop-latency", default="0s", help="fat tree: added each way through the spine")
    ap.add_argument("--name", default=None)
    ap.add_argument("--cores", type=int, default=0,
                    help="the CPU hosts each rank keeps, its threads sharing them (time_shared)")
    ap.add_argument("--timer-overshoot", default=None, help="with --cores: a timed wait's lateness (e.g. 55us)")
    ap.add_argument("--wakeup-cost", default=None, help="with --cores: core time a wake-up costs (e.g. 20us)")
    ap.add_argument("--copy-above", type=int, default=None, help="messages above these bytes are copied by the receiver")
    ap.add_argument("--copy-bandwidth", default=None, help="with --copy-above: the receiver's copy bandwidth")
    ap.add_argument("--insert-cost", default=None, help="A,B,AL,BL: us per task insertion (see above)")
    ap.add_argument("--exchange-cost", default=None, help="S,R: us per send and per receive an insertion posts")
    ap.add_argument("--task-cost", default=None, help="T,U: a worker's own us per task and per datum")
    ap.add_argument("--source", action="append", default=[], help="a line of the header: where a figure comes from")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    if a.nodes < 1 or a.nodes > 100000:
        fail("--nodes %d: must be between 1 and 100000" % a.nodes)
    bw = parse_quantity("--bandwidth", a.bandwidth, BW_UNITS)
    lat = parse_quantity("--latency", a.latency, LAT_UNITS)
    hop = parse_quantity("--hop-latency", a.hop_latency, LAT_UNITS)
    if a.topology == "fat-tree":
        if a.leaf_size < 1:
            fail("--leaf-size %d: a fat tree needs leaves of 1 or more nodes" % a.leaf_size)
        if not a.oversubscription > 0:
            fail("--oversubscription %g: must be positive" % a.oversubscription)
    if (a.copy_above is None) != (a.copy_bandwidth is None):
        fail("--copy-above and --copy-bandwidth go together")
    if a.copy_above is not None and a.copy_above < 0:
        fail("--copy-above %d: must be 0 or more bytes" % a.copy_above)
    copy_bw = parse_quantity("--copy-bandwidth", a.copy_bandwidth, BW_UNITS) if a.copy_bandwidth else None
    if a.timer_overshoot is not None and not a.cores:
        fail("--timer-overshoot needs --cores (the hosts whose threads it concerns)")
    overshoot = parse_quantity("--timer-overshoot", a.timer_overshoot, LAT_UNITS) if a.timer_overshoot else None
    if a.wakeup_cost is not None and not a.cores:
        fail("--wakeup-cost needs --cores (the hosts whose threads it concerns)")
    wakeup = parse_quantity("--wakeup-cost", a.wakeup_cost, LAT_UNITS) if a.wakeup_cost else None
    insert = costs("--insert-cost", a.insert_cost, "A,B,AL,BL")
    exchange = costs("--exchange-cost", a.exchange_cost, "S,R")
    task = costs("--task-cost", a.task_cost, "T,U")
    root, zone = load_node(a.node)
    for values, names in ((insert, ("mpi_insert_us", "mpi_insert_us_per_datum", "mpi_insert_local_us",
                                    "mpi_insert_local_us_per_datum")),
                          (exchange, ("mpi_insert_send_us", "mpi_insert_recv_us")),
                          (task, ("sched_cost_us", "fetching_input_cost_us"))):
        if values is not None:
            ram = [h for h in zone.findall("host") if h.get("id") == "RAM"][0]
            for k, v in zip(names, values):
                ET.SubElement(ram, "prop", {"id": k, "value": "%.6g" % v})
    if copy_bw is not None:
        ram = [h for h in zone.findall("host") if h.get("id") == "RAM"][0]
        ET.SubElement(ram, "prop", {"id": "mpi_copy_above", "value": "%d" % a.copy_above})
        ET.SubElement(ram, "prop", {"id": "mpi_copy_Bps", "value": "%.17g" % copy_bw})
    if a.cores:
        ncpu = len([h for h in zone.findall("host") if re.fullmatch(r"CPU[0-9]+", h.get("id"))])
        if a.cores < 1 or a.cores > ncpu:
            fail("--cores %d: the node %s has %d CPU hosts" % (a.cores, a.node, ncpu))
        keep = lambda n: not (n == "MAIN" or (re.fullmatch(r"CPU[0-9]+", n) and int(n[3:]) >= a.cores))
        for h in list(zone.findall("host")):
            if not keep(h.get("id")):
                zone.remove(h)
            elif re.fullmatch(r"CPU[0-9]+", h.get("id")):
                ET.SubElement(h, "prop", {"id": "time_shared", "value": "1"})
                if overshoot is not None:
                    ET.SubElement(h, "prop", {"id": "timer_overshoot_us", "value": "%.6g" % (overshoot * 1e6)})
                if wakeup is not None:
                    ET.SubElement(h, "prop", {"id": "wakeup_us", "value": "%.6g" % (wakeup * 1e6)})
        for r in list(zone.findall("route")):
            if not (keep(r.get("src")) and keep(r.get("dst"))):
                zone.remove(r)
    node_name = os.path.basename(a.node).split(".")[0]
    name = a.name or "%dx%s" % (a.nodes, node_name)

    out = []
    w = out.append
    w("<?xml version='1.0'?>")
    w('<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">')
    w("<!-- Cluster %s, written by platforms/make-cluster.py:" % name)
    w("     %d nodes, each the machine of %s (its hosts named n<i>.<host>)," % (a.nodes, os.path.basename(a.node)))
    if a.topology == "switch":
        w("     joined by a non-blocking switch: per node one link each way of %s B/s," % ("%.6g" % bw))
        w("     node-to-node latency %.6g s (half on each node's link)." % lat)
    else:
        w("     joined by a two-level fat tree: leaves of %d nodes, node links %.6g B/s each way," % (a.leaf_size, bw))
        w("     node-to-node latency %.6g s within a leaf, leaf uplinks %.6g B/s each way" %
          (lat, bw * a.leaf_size / a.oversubscription))
        w("     (oversubscription %g), %.6g s more each way through the spine." % (a.oversubscription, hop))
    if a.cores:
        w("     Each rank keeps %d core(s) of its node, CPU0..CPU%d, shared by its main(), its workers" % (a.cores, a.cores - 1))
        w("     and its MPI progression thread (time_shared; no MAIN host).")
        if overshoot is not None:
            w("     Their timed waits end %.6g us after their deadline (timer_overshoot_us)." % (overshoot * 1e6))
        if wakeup is not None:
            w("     Each wake-up of a thread there takes %.6g us of the core (wakeup_us)." % (wakeup * 1e6))
    if copy_bw is not None:
        w("     MPI messages above %d bytes are copied by the receiving rank's polling thread at %.6g B/s" %
          (a.copy_above, copy_bw))
        w("     (mpi_copy_above, mpi_copy_Bps on each RAM host); only their header crosses the network.")
    if insert is not None:
        w("     starpu_mpi_task_insert costs %.6g + %.6g us per datum (a task run elsewhere)," % (insert[0], insert[1]))
        w("     %.6g + %.6g us per datum (run here) (mpi_insert_*us* on each RAM host)." % (insert[2], insert[3]))
    if exchange is not None:
        w("     Besides, %.6g us per send and %.6g us per receive it posts (mpi_insert_send_us, _recv_us)." % tuple(exchange))
    if task is not None:
        w("     A worker's own work costs %.6g us per task and %.6g us per datum (sched_cost_us," % tuple(task))
        w("     fetching_input_cost_us: STARPU_SIMGRID_SCHED_COST and _FETCHING_INPUT_COST unless set).")
    for s in a.source:
        w("     " + s.replace("--", "-"))
    w("     Messages go between the nodes' RAM hosts (vela-simrun, sim/README.md \"Clusters\"). -->")
    w('<platform version="4.1">')
    cfg = root.find("config")
    if cfg is not None:
        w('  <config id="General">')
        for p in cfg.findall("prop"):
            w("    <prop id=%s value=%s/>" % (quoteattr(p.get("id")), quoteattr(p.get("value"))))
        w("  </config>")
    w('  <zone id=%s routing="Full">' % quoteattr(name))

    def copy(elem, pre, indent):
        attrs = dict(elem.attrib)
        for k in ("id", "src", "dst"):
            if k in attrs and elem.tag != "prop":
                attrs[k] = pre + attrs[k]
        s = " ".join("%s=%s" % (k, quoteattr(v)) for k, v in attrs.items())
        kids = list(elem)
        if not kids:
            return "%s<%s %s/>" % (indent, elem.tag, s)
        inner = "".join(copy(k, pre, "") for k in kids)
        return "%s<%s %s>%s</%s>" % (indent, elem.tag, s, inner, elem.tag)

    for i in range(a.nodes):
        pre = "n%d." % i
        w('    <zone id="n%d" routing="Full">' % i)
        for kind in ("host", "link", "route"):
            for e in zone.findall(kind):
                w(copy(e, pre, "      "))
        w("    </zone>")
    for i in range(a.nodes):
        w('    <link id="n%d.up" bandwidth="%.17gBps" latency="%.17gs"/>' % (i, bw, lat / 2))
        w('    <link id="n%d.down" bandwidth="%.17gBps" latency="%.17gs"/>' % (i, bw, lat / 2))
    leaf = (lambda i: i // a.leaf_size) if a.topology == "fat-tree" else (lambda i: 0)
    if a.topology == "fat-tree":
        nleaves = (a.nodes + a.leaf_size - 1) // a.leaf_size
        ubw = bw * a.leaf_size / a.oversubscription
        for l in range(nleaves):
            w('    <link id="leaf%d.up" bandwidth="%.17gBps" latency="%.17gs"/>' % (l, ubw, hop))
            w('    <link id="leaf%d.down" bandwidth="%.17gBps" latency="%.17gs"/>' % (l, ubw, hop))
    for i in range(a.nodes):
        for j in range(a.nodes):
            if i == j:
                continue
            links = ["n%d.up" % i]
            if leaf(i) != leaf(j):
                links += ["leaf%d.up" % leaf(i), "leaf%d.down" % leaf(j)]
            links.append("n%d.down" % j)
            w('    <zoneRoute src="n%d" dst="n%d" gw_src="n%d.RAM" gw_dst="n%d.RAM" symmetrical="NO">%s</zoneRoute>' %
              (i, j, i, j, "".join('<link_ctn id="%s"/>' % l for l in links)))
    w("  </zone>")
    w("</platform>")
    try:
        with open(a.output, "w") as f:
            f.write("\n".join(out) + "\n")
    except OSError as e:
        fail("-o %s: %s" % (a.output, e.strerror))


if __name__ == "__main__":
    main()
