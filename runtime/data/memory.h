/* memory.h — memory nodes: RAM, and later devices, disks and simulated
 * nodes. Each node has a driver (drivers/driver.h, struct drv_node_ops)
 * through which all its allocations and copies go, and an accounting of the
 * bytes the runtime allocated there.
 */
#ifndef VELA_MEMORY_H
#define VELA_MEMORY_H

#include <starpu.h>
#include <stdatomic.h>

struct drv_node_ops;

struct memory_node
{
	enum starpu_node_kind kind;
	int devid;
	const struct drv_node_ops *ops;
	ssize_t total;			/* capacity in bytes, -1 if unknown */
	_Atomic ssize_t used;		/* allocated by the runtime */
	char name[32];
};

extern unsigned mem_nnodes;
extern struct memory_node mem_nodes[STARPU_MAXNODES];

/* Node 0 is the main RAM. */
int memory_nodes_setup(void);
void memory_nodes_teardown(void);

/* Allocations and copies on node, through its driver (0 on failure). */
uintptr_t mem_alloc(unsigned node, size_t size, int flags);
void mem_free(unsigned node, uintptr_t addr, size_t size, int flags);

#endif /* VELA_MEMORY_H */
