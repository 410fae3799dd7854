/* hash.c — the footprint CRC (starpu_hash.h): CRC-32C, most significant
 * bit first, no final inversion, 32-bit values fed low byte first. The
 * values it gives were checked against Debian's StarPU 1.3 (tests/perfmodel/
 * test_footprint.c), so footprints in model files agree between the two.
 *
 * Bit at a time: footprints hash a few words per task, so a table would
 * buy nothing and would need thread-safe initialisation.
 */
#include <starpu_hash.h>
#include <string.h>

#define CRC32C_POLY 0x1edc6f41u

uint32_t starpu_hash_crc32c_be_n(const void *input, size_t n, uint32_t inputcrc)
{
	const unsigned char *p = input;
	uint32_t crc = inputcrc;
	for (size_t i = 0; i < n; i++)
	{
		crc ^= (uint32_t) p[i] << 24;
		for (int k = 0; k < 8; k++)
			crc = (crc & 0x80000000u) ? (crc << 1) ^ CRC32C_POLY : crc << 1;
	}
	return crc;
}

uint32_t starpu_hash_crc32c_be(uint32_t input, uint32_t inputcrc)
{
	/* Low byte first whatever the host's byte order. */
	unsigned char b[4] = { (unsigned char) input, (unsigned char) (input >> 8),
			       (unsigned char) (input >> 16), (unsigned char) (input >> 24) };
	return starpu_hash_crc32c_be_n(b, sizeof(b), inputcrc);
}

uint32_t starpu_hash_crc32c_string(const char *str, uint32_t inputcrc)
{
	return starpu_hash_crc32c_be_n(str, strlen(str), inputcrc);
}
