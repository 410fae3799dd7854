/* test_big.c — messages split in chunks. MPI counts are ints, so the layer
 * cuts every message in chunks of at most 1 GiB; here the chunk is set to
 * 1000 bytes (VELA_MPI_MAX_MESSAGE) so that splitting shows on small data:
 * a vector of 800 chunks, received posted and early; a matrix whose
 * columns (ld > nx) straddle chunk boundaries, received posted and
 * early into a dense one and back; a synchronous send in chunks.
 *
 * VELA_MPI_TEST_BIG=1 (not in make check: it needs about 5 GiB of memory)
 * sends a real 2.25 GiB vector with the default chunks instead.
 */
#include "mpitest.h"

#include <stdint.h>
#include <unistd.h>

static unsigned char pattern(size_t i)
{
	return (unsigned char) ((i * 2654435761u) >> 13);
}

static int big_run(int rank)
{
	size_t n = (size_t) 9 << 28;	/* 2.25 GiB */
	unsigned char *v = malloc(n);
	if (!v)
	{
		fprintf(stderr, "test_big: cannot allocate %zu bytes: skipped\n", n);
		return 77;
	}
	if (rank == 0)
		for (size_t i = 0; i < n; i++)
			v[i] = pattern(i);
	else
		memset(v, 0, n);
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) v, (uint32_t) n, 1);
	CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
	double t0 = starpu_timing_now();
	if (rank == 0)
		CHECK_EQ(starpu_mpi_send(h, 1, 1, MPI_COMM_WORLD), 0);
	else if (rank == 1)
		CHECK_EQ(starpu_mpi_recv(h, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
	double t = (starpu_timing_now() - t0) / 1e6;
	starpu_data_unregister(h);
	if (rank == 1)
	{
		for (size_t i = 0; i < n; i += 4093)
			CHECK_EQ(v[i], pattern(i));
		CHECK_EQ(v[n - 1], pattern(n - 1));
		printf("test_big: %zu bytes in %.2f s (%.2f GB/s)\n", n, t, n / t / 1e9);
	}
	free(v);
	return 0;
}

#define NV 100000
#define MX 300
#define MY 20
#define MLD 317

int main(int argc, char **argv)
{
	int big = getenv("VELA_MPI_TEST_BIG") && atoi(getenv("VELA_MPI_TEST_BIG"));
	if (!big)
		setenv("VELA_MPI_MAX_MESSAGE", "1000", 1);
	int size;
	int rank = mt_start(&argc, &argv, "test_big", 1, &size);
	if (big)
	{
		int ret = big_run(rank);
		CHECK_EQ(starpu_mpi_shutdown(), 0);
		return ret;
	}
	static double v1[NV], v2[NV], m[MLD * MY];
	static double dense[MX * MY];
	for (int i = 0; i < NV; i++)
	{
		v1[i] = rank == 0 ? i * 0.25 : 0;
		v2[i] = rank == 0 ? -i * 0.5 : 0;
	}
	for (int i = 0; i < MLD * MY; i++)
		m[i] = rank == 0 ? i : -1;
	starpu_data_handle_t h1, h2, hm, hd;
	starpu_vector_data_register(&h1, STARPU_MAIN_RAM, (uintptr_t) v1, NV, sizeof(double));
	starpu_vector_data_register(&h2, STARPU_MAIN_RAM, (uintptr_t) v2, NV, sizeof(double));
	starpu_matrix_data_register(&hm, STARPU_MAIN_RAM, (uintptr_t) m, MLD, MX, MY, sizeof(double));
	starpu_matrix_data_register(&hd, STARPU_MAIN_RAM, (uintptr_t) dense, MX, MX, MY, sizeof(double));
	if (rank == 0)
	{
		starpu_mpi_req r1;
		CHECK_EQ(starpu_mpi_isend(h1, &r1, 1, 1, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_wait(&r1, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_issend(h2, &r1, 1, 2, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_wait(&r1, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_send(hm, 1, 3, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
		/* Early this time, into the ld matrix from a dense one. */
		for (int i = 0; i < MX * MY; i++)
			dense[i] = 7 * i;
		CHECK_EQ(starpu_mpi_send(hd, 1, 4, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
	}
	else if (rank == 1)
	{
		starpu_mpi_req r1, r2;
		CHECK_EQ(starpu_mpi_irecv(h1, &r1, 0, 1, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_irecv(h2, &r2, 0, 2, MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_recv(hd, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_wait(&r1, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_wait(&r2, MPI_STATUS_IGNORE), 0);
		CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
		usleep(20000);
		CHECK_EQ(starpu_mpi_recv(hm, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		starpu_data_acquire(h1, STARPU_R);
		starpu_data_acquire(h2, STARPU_R);
		starpu_data_acquire(hm, STARPU_R);
		starpu_data_acquire(hd, STARPU_R);
		for (int i = 0; i < NV; i++)
		{
			CHECK(v1[i] == i * 0.25);
			CHECK(v2[i] == -i * 0.5);
		}
		for (int y = 0; y < MY; y++)
			for (int x = 0; x < MX; x++)
			{
				CHECK(dense[y * MX + x] == y * MLD + x);	/* from the ld matrix */
				CHECK(m[y * MLD + x] == 7 * (y * MX + x));	/* into it */
			}
		for (int y = 0; y < MY; y++)
			for (int x = MX; x < MLD; x++)
				CHECK(m[y * MLD + x] == -1);	/* the gaps untouched */
		starpu_data_release(h1);
		starpu_data_release(h2);
		starpu_data_release(hm);
		starpu_data_release(hd);
	}
	else
	{
		CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
		CHECK_EQ(starpu_mpi_barrier(MPI_COMM_WORLD), 0);
	}
	starpu_data_unregister(h1);
	starpu_data_unregister(h2);
	starpu_data_unregister(hm);
	starpu_data_unregister(hd);
	if (rank == 0)
		printf("test_big: messages of up to %zu bytes in 1000-byte chunks\n", sizeof(v1));
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
