/* pingpong.c — a vector goes from rank 0 to rank 1 and back, for sizes
 * from 8 bytes to a maximum; rank 1 adds one to every byte before sending
 * it back and rank 0 checks it. Prints the one-way time and bandwidth per
 * size (the median of the repetitions).
 *
 *   mpirun -np 2 ./pingpong [max_bytes [repetitions]]
 */
#include <starpu_mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t) 1 << 22;
	int reps = argc > 2 ? atoi(argv[2]) : 20;
	int ret = starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_init_conf");
	int rank = starpu_mpi_world_rank(), size = starpu_mpi_world_size();
	if (size < 2)
	{
		fprintf(stderr, "pingpong needs 2 ranks\n");
		starpu_mpi_shutdown();
		return 77;
	}
	unsigned char *buf = malloc(max);
	double *times = malloc(sizeof(double) * (size_t) reps);
	if (!buf || !times)
		return 1;
	int ok = 1;
	if (rank == 0)
		printf("%12s %12s %12s\n", "bytes", "one-way us", "MB/s");
	for (size_t n = 8; n <= max && ok; n *= 4)
	{
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) buf, (uint32_t) n, 1);
		for (int r = 0; r < reps + 1 && rank < 2; r++)
		{
			if (rank == 0)
			{
				starpu_data_acquire(h, STARPU_W);
				for (size_t i = 0; i < n; i++)
					buf[i] = (unsigned char) (i + r);
				starpu_data_release(h);
				double t0 = starpu_timing_now();
				starpu_mpi_send(h, 1, 2 * r, MPI_COMM_WORLD);
				starpu_mpi_recv(h, 1, 2 * r + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				double t = starpu_timing_now() - t0;
				if (r > 0)
					times[r - 1] = t / 2;
				starpu_data_acquire(h, STARPU_R);
				for (size_t i = 0; i < n && ok; i++)
					ok = buf[i] == (unsigned char) (i + r + 1);
				starpu_data_release(h);
				if (!ok)
				{
					fprintf(stderr, "pingpong: %zu bytes came back WRONG\n", n);
					MPI_Abort(MPI_COMM_WORLD, 1);
				}
			}
			else
			{
				starpu_mpi_recv(h, 0, 2 * r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				starpu_data_acquire(h, STARPU_RW);
				for (size_t i = 0; i < n; i++)
					buf[i]++;
				starpu_data_release(h);
				starpu_mpi_send(h, 0, 2 * r + 1, MPI_COMM_WORLD);
			}
		}
		starpu_data_unregister(h);
		if (rank == 0 && ok)
		{
			qsort(times, (size_t) reps, sizeof(double), cmp);
			double med = times[reps / 2];
			printf("%12zu %12.2f %12.1f\n", n, med, n / med);
		}
	}
	if (rank == 0)
		printf("pingpong: %s\n", ok ? "every byte came back incremented" : "WRONG data");
	free(buf);
	free(times);
	starpu_mpi_shutdown();
	return ok ? 0 : 1;
}
