/* disk.h — disk nodes: the state the disk node driver keeps per node. */
#ifndef VELA_DISK_H
#define VELA_DISK_H

#include <starpu.h>

struct disk_node
{
	struct starpu_disk_ops *ops;
	void *base;		/* what ops->plug returned */
};

#endif /* VELA_DISK_H */
