/* memory.h — memory nodes: RAM, disks (out-of-core), devices (simulated
 * ones so far: sim/node_sg.c). Each node has a driver (drivers/driver.h, struct
 * drv_node_ops) through which all its allocations and copies go, an
 * accounting of the bytes the runtime allocated there against its limit,
 * an allocation cache of freed buffers, and the LRU list of evictable
 * replicates (memalloc.c).
 */
#ifndef VELA_MEMORY_H
#define VELA_MEMORY_H

#include <starpu.h>
#include <stdatomic.h>
#include "os/os.h"

struct drv_node_ops;
struct data_replicate;
struct cache_entry;

struct memory_node
{
	enum starpu_node_kind kind;
	int devid;
	const struct drv_node_ops *ops;
	void *driver_data;		/* the node driver's state (disk: struct disk_node) */
	ssize_t total;			/* capacity available to the runtime, -1 if unknown */
	char name[32];

	/* Protected by lock (a leaf, except for trylocks of handles). */
	os_mutex_t lock;
	os_cond_t released;		/* memory was released: allocation may retry */
	_Atomic int nwaiting;		/* threads waiting on released (read without the lock) */
	_Atomic int evicting;		/* threads evicting from the node now */
	_Atomic unsigned releases;	/* bumped before each release is seen (data_memory_releasing) */
	_Atomic ssize_t private_bytes;	/* scratch and reduction buffers (reduction.c) */
	_Atomic ssize_t redux_rest_bytes;	/* of which contributions at rest: no task uses them until the fold */
	int turn_taken;			/* a task holds the node's waiting turn (memalloc.c) */
	_Atomic int writeback_error;	/* the last failed write-back of an eviction from here (memalloc.c) */
	ssize_t used;			/* bytes allocated by the runtime (cache included) */
	ssize_t cached;			/* of which freed buffers kept in the cache */
	struct cache_entry *cache;	/* the allocation cache */
	struct data_replicate *lru_head, *lru_tail;	/* head: evicted first */
	/* Simulation, a device node: its driver thread (mem_driver_lock). */
	os_mutex_t driver;		/* protects the three below (a leaf) */
	os_cond_t driver_free;
	int driver_held;		/* someone charges a cost, or the worker waits for a kernel */
	int driver_urgent;		/* the node's own worker waits for it: it goes first */
};

extern unsigned mem_nnodes;
extern struct memory_node mem_nodes[STARPU_MAXNODES];
/* The disk node data leaves RAM for, or -1 (the first disk registered). */
extern int starpu_disk_swap_node;

/* Node 0 is the main RAM; STARPU_LIMIT_CPU_MEM (MiB) limits what the
 * runtime allocates there. */
int memory_nodes_setup(void);
void memory_nodes_teardown(void);
/* Once every node exists (devices included): starts a transfer thread per
 * device node, which runs the node's prefetches (request.c);
 * memory_nodes_teardown stops them. 0 or a negative errno. */
int data_requests_start(void);
/* Reads a size in MiB from environment variable var into *bytes (-1 when
 * unset); -EINVAL (message printed) when malformed. */
int mem_env_mib(const char *var, ssize_t *bytes);
/* STARPU_DISK_SWAP=dir (STARPU_DISK_SWAP_SIZE MiB, STARPU_DISK_SWAP_BACKEND
 * unistd): adds a disk at init, where data leaves RAM (disk.c). */
int mem_swap_setup(void);
/* Adds a memory node of capacity total (bytes, -1: unknown); a device's is
 * capped by STARPU_LIMIT_CUDA[_<devid>]_MEM / STARPU_LIMIT_OPENCL[_<devid>]_MEM
 * (MiB). Returns its id or a negative errno (-EINVAL: a malformed limit,
 * named in a message). */
int memory_node_add(enum starpu_node_kind kind, int devid, const struct drv_node_ops *ops, void *driver_data, ssize_t total, const char *name);

/* Whether src can copy to dst without going through RAM: one of them is
 * RAM, or they are peers (a simulated platform's route between their
 * hosts: the copy follows it, and the bus model predicts it so). */
int mem_direct_copy(unsigned src, unsigned dst);

/* The driver that copies between src and dst (the one that is not RAM),
 * or NULL for a bad node; whether it can queue copies (devices). */
const struct drv_node_ops *mem_copy_ops(unsigned src, unsigned dst);
int mem_copy_queues(unsigned src, unsigned dst);

/* Simulation: a device's driver thread. A GPU's worker thread runs its
 * synchronous kernels and sets up its node's allocations and copies, one
 * thing at a time (a real device's worker does; StarPU's simulation
 * charges them all to that thread): a simulated device worker holds its
 * node's lock while it waits for a synchronous kernel, and whoever charges
 * an allocation or a copy's set-up on a device node holds it meanwhile, so
 * that neither overlaps the other. Taken only in a simulation that charges
 * allocations or set-ups on a device node: mem_driver_lock returns 1 when
 * it took the lock (release it with mem_driver_unlock), else 0. The node's
 * own worker goes before the other waiters (transfer threads, CPU workers),
 * as a GPU worker thread handles its task's fetches before the prefetches
 * queued. Not recursive. Taken after a handle's lock, before the device
 * allocation lock (memory.c); its holder waits for nothing that needs it. */
int mem_driver_lock(unsigned node);
void mem_driver_unlock(unsigned node);

/* Raw allocations on a node, through its driver, counted against its
 * limit: 0 when it does not fit or the driver fails. */
uintptr_t mem_alloc(unsigned node, size_t size, int flags);
void mem_free(unsigned node, uintptr_t addr, size_t size, int flags);

/* Frees cached buffers of node until at least bytes are free (node lock
 * held). Returns the bytes freed. */
ssize_t mem_cache_flush_locked(unsigned node, ssize_t bytes);

#endif /* VELA_MEMORY_H */
