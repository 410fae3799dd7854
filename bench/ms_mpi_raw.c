/* ms_mpi_raw.c — raw MPI between ranks 0 and 1, the yardstick of
 * ms_bandwidth.c: rank 0 sends size bytes, rank 1 answers with one byte
 * once it has them (as a slave acknowledges a copy), best of R; 4 KiB to
 * 64 MiB. mpirun -np 2 (compare-ms).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, reps = argc > 1 ? atoi(argv[1]) : 5;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (size_t size = 4096; size <= (64u << 20); size *= 4)
	{
		char *buf = malloc(size), ack = 0;
		memset(buf, 1, size);
		double best = 1e300;
		for (int r = 0; r <= reps; r++)
		{
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			if (rank == 0)
			{
				MPI_Send(buf, (int) size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
				MPI_Recv(&ack, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
			else if (rank == 1)
			{
				MPI_Recv(buf, (int) size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(&ack, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
			}
			double t = (MPI_Wtime() - t0) * 1e6;
			if (r && t < best)	/* the first is a warm-up */
				best = t;
		}
		if (rank == 0)
			printf("mpi_pingpong  %-14s size=%9zu  time=%9.1f us  MB/s=%8.1f\n", "raw MPI", size, best, (double) size / best);
		free(buf);
	}
	MPI_Finalize();
	return 0;
}
