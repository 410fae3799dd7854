/* interface.c — what the interfaces share: footprint hashing. */
#include "data/data.h"
#include "data/memory.h"

#include <starpu_hash.h>
#include <stdint.h>

/* Footprint hashing: StarPU's CRC (starpu_hash.h, runtime/perfmodel/hash.c),
 * so that a task's footprint, which combines the footprints of its data,
 * matches the one StarPU computes for the same data shapes and files keyed
 * by footprint are interchangeable. */
uint32_t data_hash_crc32(const void *buf, size_t len, uint32_t crc)
{
	return starpu_hash_crc32c_be_n(buf, len, crc);
}

uint32_t data_hash_u32(uint32_t value, uint32_t crc)
{
	return starpu_hash_crc32c_be(value, crc);
}
