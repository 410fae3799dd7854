/* interface.c — what the interfaces share: footprint hashing and the
 * generic RAM buffer allocation every contiguous interface uses.
 */
#include "data/data.h"
#include "data/memory.h"

#include <stdint.h>

/* CRC32C (Castagnoli polynomial, reflected), the hash of data footprints:
 * a task's footprint combines the footprints of its data, so tasks on data
 * of the same shape share performance-model entries. */
uint32_t data_hash_crc32(const void *buf, size_t len, uint32_t crc)
{
	const unsigned char *p = buf;
	crc = ~crc;
	for (size_t i = 0; i < len; i++)
	{
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

uint32_t data_hash_u32(uint32_t value, uint32_t crc)
{
	/* Hash the bytes in big-endian order so the result does not depend on
	 * the host. */
	unsigned char b[4] = { (unsigned char) (value >> 24), (unsigned char) (value >> 16),
			       (unsigned char) (value >> 8), (unsigned char) value };
	return data_hash_crc32(b, sizeof(b), crc);
}
