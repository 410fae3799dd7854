#!/bin/sh
# Writes the four documented example machines of this directory from the
# figures below (every figure's source is named next to it, and repeated
# in each file's header). Run from anywhere: sh platforms/make-examples.sh
# Conventions: see platforms/README.md (those of runtime/perfmodel/platform.c).
set -e
here=$(cd "$(dirname "$0")" && pwd)

# ---- shared figures ---------------------------------------------------------
# PCIe 4.0 x16, one direction: 16 GT/s per lane, 128b/130b encoding (PCI-SIG,
# PCI Express Base Specification 4.0): 16e9 * 128/130 / 8 * 16 = 31.5 GB/s.
PCIE4_X16=31507692307Bps
# Host-device copy latency: no datasheet gives it; 10 us is an ASSUMPTION
# (the order of magnitude StarPU's bus calibration measures for cudaMemcpy).
PCIE_LAT=0.000010s
# NVIDIA A100 Tensor Core GPU datasheet (2021): 40 GB HBM2 (40 GiB), memory
# bandwidth 1,555 GB/s (A100 40GB), NVLink 600 GB/s per GPU (bidirectional:
# 300 GB/s each way), PCIe Gen4 64 GB/s (bidirectional).
A100_MEM=42949672960
NVLINK_ONEWAY=300000000000Bps
# NVLink latency: ASSUMPTION, 2 us (no datasheet figure).
NVLINK_LAT=0.000002s
# AMD EPYC 7742 (AMD product page): 64 cores, 2.25 GHz base; EPYC 7002
# series: 8 channels of DDR4-3200 per socket, 8 x 3200 MT/s x 8 B = 204.8 GB/s.
# A copy within RAM reads and writes: half of it, per socket. Two sockets.
RAM_COPY=102400000000Bps
RAM_LAT=0.0000001s

header() {
	cat <<HDR
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- $1
     DESCRIBED FROM PUBLIC DATASHEET FIGURES, NOT MEASURED (platforms/make-examples.sh):
       - PCIe 4.0 x16: 31.5 GB/s each way (PCI-SIG, PCI Express Base Specification 4.0:
         16 GT/s per lane, 128b/130b encoding).
       - NVIDIA A100 Tensor Core GPU datasheet (2021): 40 GB HBM2, 1,555 GB/s memory
         bandwidth, NVLink 600 GB/s per GPU (300 GB/s each way), PCIe Gen4.
       - AMD EPYC 7742 (AMD product page): 64 cores; EPYC 7002: 8 x DDR4-3200 per socket,
         204.8 GB/s per socket.
$2
       - ASSUMPTIONS (no datasheet figure): host-device latency 10 us, NVLink latency 2 us,
         copies within RAM at half a socket's bandwidth (read + write) with 0.1 us latency, main memory size.
     Hosts: MAIN (application thread), CPU0.. (one per core), RAM, CUDA0.. (one per GPU,
     properties memsize and model); one link per direction and pair of memory nodes,
     named <src>-<dst>, and its route. -->
<platform version="4.1">
  <config id="General">
    <prop id="network/model" value="CM02"/>
    <prop id="network/latency-factor" value="1"/>
    <prop id="network/bandwidth-factor" value="1"/>
    <prop id="network/crosstraffic" value="0"/>
    <prop id="network/weight-S" value="0.0"/>
  </config>
HDR
}

cpus() {
	echo "    <host id=\"MAIN\" speed=\"1f\"/>"
	i=0
	while [ $i -lt "$1" ]; do
		echo "    <host id=\"CPU$i\" speed=\"2000000000f\"/>"
		i=$((i + 1))
	done
	echo "    <host id=\"RAM\" speed=\"1f\"><prop id=\"memsize\" value=\"$2\"/></host>"
}

# SimGrid wants a zone's hosts, then its links, then its routes.
ram_link() {
	echo "    <link id=\"RAM-RAM\" bandwidth=\"$RAM_COPY\" latency=\"$RAM_LAT\"/>"
}
ram_route() {
	echo "    <route src=\"RAM\" dst=\"RAM\" symmetrical=\"NO\"><link_ctn id=\"RAM-RAM\"/></route>"
}

gpus() {
	i=0
	while [ $i -lt "$1" ]; do
		echo "    <host id=\"CUDA$i\" speed=\"2000000000f\">"
		echo "      <prop id=\"memsize\" value=\"$A100_MEM\"/>"
		echo "      <prop id=\"model\" value=\"$2\"/>"
		echo "      <prop id=\"memcpy_peer\" value=\"1\"/>"
		echo "    </host>"
		i=$((i + 1))
	done
}

# ---- 1. Two EPYC 7742 sockets, four A100 PCIe 40GB, each on its own x16 ------
{
	header "epyc2-4xa100-pcie: 2 x AMD EPYC 7742 (128 cores), 512 GiB DDR4-3200, 4 x NVIDIA A100 PCIe 40GB,
     each GPU on its own PCIe 4.0 x16 link, no NVLink: GPU to GPU copies cross the host." \
"       - Main memory 512 GiB: ASSUMPTION (a common configuration of such nodes)."
	echo "  <zone id=\"epyc2-4xa100-pcie\" routing=\"Full\">"
	cpus 128 549755813888
	gpus 4 "NVIDIA A100-PCIE-40GB"
	ram_link
	for g in 0 1 2 3; do
		echo "    <link id=\"RAM-CUDA$g\" bandwidth=\"$PCIE4_X16\" latency=\"$PCIE_LAT\"/>"
		echo "    <link id=\"CUDA$g-RAM\" bandwidth=\"$PCIE4_X16\" latency=\"$PCIE_LAT\"/>"
	done
	ram_route
	for g in 0 1 2 3; do
		echo "    <route src=\"RAM\" dst=\"CUDA$g\" symmetrical=\"NO\"><link_ctn id=\"RAM-CUDA$g\"/></route>"
		echo "    <route src=\"CUDA$g\" dst=\"RAM\" symmetrical=\"NO\"><link_ctn id=\"CUDA$g-RAM\"/></route>"
		for h in 0 1 2 3; do
			[ $g = $h ] && continue
			echo "    <route src=\"CUDA$g\" dst=\"CUDA$h\" symmetrical=\"NO\"><link_ctn id=\"CUDA$g-RAM\"/><link_ctn id=\"RAM-CUDA$h\"/></route>"
		done
	done
	echo "  </zone>"
	echo "</platform>"
} >"$here/epyc2-4xa100-pcie.platform.v4.xml"

# ---- 2. DGX A100: NVSwitch between eight A100 SXM4, PCIe switches to the host --
{
	header "dgx-a100: NVIDIA DGX A100 (320 GB): 2 x AMD EPYC 7742 (128 cores), 1 TB RAM,
     8 x NVIDIA A100 SXM4 40GB connected by NVLink through 6 NVSwitches (non-blocking:
     each GPU has 300 GB/s each way to any other); two GPUs share one PCIe 4.0 x16
     switch uplink to the host." \
"       - NVIDIA DGX A100 datasheet: 8 x A100 40GB, 6 x NVSwitch (4.8 TB/s bidirectional in
         all), 2 x AMD EPYC 7742, 1 TB system memory.
       - NVIDIA DGX A100 System Architecture white paper: four PCIe 4.0 switches, each
         connecting two GPUs (and two NICs) to the CPUs over one x16 link."
	echo "  <zone id=\"dgx-a100\" routing=\"Full\">"
	cpus 128 1099511627776
	gpus 8 "NVIDIA A100-SXM4-40GB"
	ram_link
	for s in 0 1 2 3; do
		echo "    <link id=\"RAM-PCIeSwitch$s\" bandwidth=\"$PCIE4_X16\" latency=\"$PCIE_LAT\"/>"
		echo "    <link id=\"PCIeSwitch$s-RAM\" bandwidth=\"$PCIE4_X16\" latency=\"$PCIE_LAT\"/>"
	done
	for g in 0 1 2 3 4 5 6 7; do
		echo "    <link id=\"CUDA$g-NVSwitch\" bandwidth=\"$NVLINK_ONEWAY\" latency=\"$NVLINK_LAT\"/>"
		echo "    <link id=\"NVSwitch-CUDA$g\" bandwidth=\"$NVLINK_ONEWAY\" latency=\"0s\"/>"
	done
	ram_route
	for g in 0 1 2 3 4 5 6 7; do
		s=$((g / 2))
		echo "    <route src=\"RAM\" dst=\"CUDA$g\" symmetrical=\"NO\"><link_ctn id=\"RAM-PCIeSwitch$s\"/></route>"
		echo "    <route src=\"CUDA$g\" dst=\"RAM\" symmetrical=\"NO\"><link_ctn id=\"PCIeSwitch$s-RAM\"/></route>"
		for h in 0 1 2 3 4 5 6 7; do
			[ $g = $h ] && continue
			echo "    <route src=\"CUDA$g\" dst=\"CUDA$h\" symmetrical=\"NO\"><link_ctn id=\"CUDA$g-NVSwitch\"/><link_ctn id=\"NVSwitch-CUDA$h\"/></route>"
		done
	done
	echo "  </zone>"
	echo "</platform>"
} >"$here/dgx-a100.platform.v4.xml"
# ---- 3. Twelve cores of one EPYC 7742 socket, no GPU -----------------------
# The CPU side of a StarPU+SimGrid reference measurement (12 CPU workers),
# for bench/sim_speed until simulated GPUs exist; the CPU models of
# perfmodels/epyc2-4xa100-pcie describe these cores.
{
	header "epyc-12core: 12 cores of one AMD EPYC 7742 socket (a 12-CPU-worker machine, no GPU),
     64 GiB DDR4-3200." \
"       - Main memory 64 GiB: ASSUMPTION (the machine is a slice of a socket)."
	echo "  <zone id=\"epyc-12core\" routing=\"Full\">"
	cpus 12 68719476736
	ram_link
	ram_route
	echo "  </zone>"
	echo "</platform>"
} >"$here/epyc-12core.platform.v4.xml"

# ---- 4. A master and 4 MPI slaves on a 100 Gb/s network ------------------------
# Five nodes, each one AMD EPYC 7302 (16 cores) with 128 GiB of DDR4-3200,
# joined by 100 Gb/s InfiniBand EDR through a non-blocking switch: the
# master (the application's process: CPU0.., RAM) and 4 MPI slaves
# (master/slave mode: MPI_MS<k> their memory, MPI_MS<k>_CPU<i> their cores).
# AMD EPYC 7302 (AMD product page): 16 cores, 3.0 GHz base; EPYC 7002: 8 x
# DDR4-3200 per socket, 204.8 GB/s; a copy within RAM at half of it.
EPYC7302_RAM_COPY=102400000000Bps
# InfiniBand EDR 4x: 25.78125 Gb/s per lane, 64b/66b encoding, 4 lanes =
# 100 Gb/s of data each way (InfiniBand Trade Association, EDR), 12.5 GB/s.
EDR=12500000000Bps
# MPI latency between two nodes: ASSUMPTION, 1.5 us (the order of magnitude
# of OSU latency benchmarks on EDR), half in each node's link.
EDR_HALF_LAT=0.00000075s
NODE_MEM=137438953472
{
	cat <<HDR
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- cluster-4slaves: a master node and 4 MPI slave nodes (Vela's master/slave mode), each
     node 1 x AMD EPYC 7302 (16 cores) with 128 GiB DDR4-3200, on 100 Gb/s InfiniBand EDR
     through one non-blocking switch.
     DESCRIBED FROM PUBLIC FIGURES, NOT MEASURED (platforms/make-examples.sh):
       - AMD EPYC 7302 (AMD product page): 16 cores, 3.0 GHz; EPYC 7002: 8 x DDR4-3200 per
         socket, 204.8 GB/s.
       - InfiniBand EDR 4x (InfiniBand Trade Association): 100 Gb/s each way, 12.5 GB/s.
       - ASSUMPTIONS (no datasheet figure): MPI latency 1.5 us between two nodes (0.75 us in
         each node's link), copies within a node's RAM at half its bandwidth with 0.1 us
         latency, 128 GiB per node.
     Hosts: MAIN, CPU0..15 (the master's cores), RAM (its memory); per slave k, MPI_MS<k>
     (its memory, properties memsize and model) and MPI_MS<k>_CPU0..15 (its cores). Links:
     RAM-RAM and MPI_MS<k>-MPI_MS<k> (copies within a node), and each node's link to the
     switch, one per direction (<node>-up, <node>-down): a copy between two nodes goes up
     one and down the other, so copies into (or out of) one node share its link. -->
<platform version="4.1">
  <config id="General">
    <prop id="network/model" value="CM02"/>
    <prop id="network/latency-factor" value="1"/>
    <prop id="network/bandwidth-factor" value="1"/>
    <prop id="network/crosstraffic" value="0"/>
    <prop id="network/weight-S" value="0.0"/>
  </config>
HDR
	echo "  <zone id=\"cluster-4slaves\" routing=\"Full\">"
	cpus 16 $NODE_MEM
	for k in 0 1 2 3; do
		echo "    <host id=\"MPI_MS$k\" speed=\"1f\">"
		echo "      <prop id=\"memsize\" value=\"$NODE_MEM\"/>"
		echo "      <prop id=\"model\" value=\"AMD EPYC 7302 node\"/>"
		echo "    </host>"
		i=0
		while [ $i -lt 16 ]; do
			echo "    <host id=\"MPI_MS${k}_CPU$i\" speed=\"2000000000f\"/>"
			i=$((i + 1))
		done
	done
	echo "    <link id=\"RAM-RAM\" bandwidth=\"$EPYC7302_RAM_COPY\" latency=\"$RAM_LAT\"/>"
	for n in RAM MPI_MS0 MPI_MS1 MPI_MS2 MPI_MS3; do
		[ $n = RAM ] || echo "    <link id=\"$n-$n\" bandwidth=\"$EPYC7302_RAM_COPY\" latency=\"$RAM_LAT\"/>"
		echo "    <link id=\"$n-up\" bandwidth=\"$EDR\" latency=\"$EDR_HALF_LAT\"/>"
		echo "    <link id=\"$n-down\" bandwidth=\"$EDR\" latency=\"$EDR_HALF_LAT\"/>"
	done
	for a in RAM MPI_MS0 MPI_MS1 MPI_MS2 MPI_MS3; do
		for b in RAM MPI_MS0 MPI_MS1 MPI_MS2 MPI_MS3; do
			if [ $a = $b ]; then
				echo "    <route src=\"$a\" dst=\"$b\" symmetrical=\"NO\"><link_ctn id=\"$a-$a\"/></route>"
			else
				echo "    <route src=\"$a\" dst=\"$b\" symmetrical=\"NO\"><link_ctn id=\"$a-up\"/><link_ctn id=\"$b-down\"/></route>"
			fi
		done
	done
	echo "  </zone>"
	echo "</platform>"
} >"$here/cluster-4slaves.platform.v4.xml"
echo "wrote $here/epyc2-4xa100-pcie.platform.v4.xml $here/dgx-a100.platform.v4.xml $here/epyc-12core.platform.v4.xml"
echo "wrote $here/cluster-4slaves.platform.v4.xml"

# Clusters (vela-simrun, sim/README.md "Clusters"), by make-cluster.py.
python3 "$here/make-cluster.py" --nodes 16 --node "$here/epyc2-4xa100-pcie.platform.v4.xml" \
	--bandwidth 25GBps --latency 1us --name cluster-16x-epyc2-4xa100-hdr \
	--source "Network: InfiniBand HDR, 200 Gb/s per port each way = 25 GB/s (NVIDIA ConnectX-6 VPI and" \
	--source "Quantum HDR switch datasheets); the 16 nodes on one 40-port HDR switch (non-blocking)." \
	--source "Latency 1 us node to node: ASSUMPTION (NVIDIA quotes about 0.6 us MPI latency for" \
	--source "ConnectX-6 and 130 ns per switch; rounded up for the software stack)." \
	-o "$here/cluster-16x-epyc2-4xa100-hdr.platform.v4.xml"
python3 "$here/make-cluster.py" --nodes 64 --node "$here/epyc-12core.platform.v4.xml" \
	--bandwidth 25Gbps --latency 10us --topology fat-tree --leaf-size 16 --oversubscription 2 \
	--hop-latency 1us --name cluster-64x-epyc-12core-25gbe \
	--source "Network: 25 Gigabit Ethernet (IEEE 802.3by), 25 Gb/s each way per node; leaf switches of 16" \
	--source "nodes with 2 x 100 GbE uplinks to the spine (oversubscription 400:200 = 2), a common design." \
	--source "Latencies: ASSUMPTIONS, 10 us node to node within a leaf (MPI over TCP on 25 GbE)," \
	--source "1 us more each way through the spine." \
	-o "$here/cluster-64x-epyc-12core-25gbe.platform.v4.xml"
echo "wrote $here/cluster-16x-epyc2-4xa100-hdr.platform.v4.xml $here/cluster-64x-epyc-12core-25gbe.platform.v4.xml"
