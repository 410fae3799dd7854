/* starpu_hash.h — the CRC used for data and task footprints.
 *
 * A footprint summarises the shape of a piece of data (a vector's length, a
 * matrix's dimensions) so that tasks on data of the same shape share
 * performance-model entries. The hash is CRC-32C (Castagnoli polynomial)
 * computed most-significant-bit first, seeded by the previous state, with no
 * final inversion; a 32-bit value is fed least-significant byte first. This
 * is what StarPU 1.3 computes on x86, so footprints written to model files by
 * either runtime agree.
 */
#ifndef STARPU_HASH_H
#define STARPU_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* The state after hashing n bytes of input, starting from inputcrc. */
uint32_t starpu_hash_crc32c_be_n(const void *input, size_t n, uint32_t inputcrc);
/* The state after hashing the 32-bit value input, starting from inputcrc. */
uint32_t starpu_hash_crc32c_be(uint32_t input, uint32_t inputcrc);
/* The state after hashing the characters of str (not its terminator). */
uint32_t starpu_hash_crc32c_string(const char *str, uint32_t inputcrc);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_HASH_H */
