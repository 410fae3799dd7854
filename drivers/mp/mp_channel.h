/* mp_channel.h — the channel of the master/slave layer: how the source (the
 * application's process) and the sinks (the other processes) exchange
 * messages. This comment is the contract; mpi/channel_mpi.c implements it
 * over MPI, in a plugin of its own (libvela-mpi-ms.so) so that libvela
 * never links MPI (README.md, "Why a plugin").
 *
 * A channel joins the processes of one job, numbered 0..size-1 (MPI ranks).
 * Messages are point to point, non-blocking, matched by (peer, tag) and
 * delivered in order between two processes for one tag. A message is
 * nblocks blocks of blocksize bytes, ld bytes apart in the buffer (nblocks
 * 1, or ld == blocksize: contiguous); the two sides may lay the same bytes
 * out differently (a strided send into a contiguous receive): only the
 * number of bytes must agree. isend/irecv return 0 and a request, or a
 * negative errno; test returns 1 once the request is complete (freeing
 * it; *bytes: what a receive got), 0 while it is not, a negative errno if
 * it failed (freed too). cancel abandons a receive nobody will match
 * (shutdown). Every call may come from any thread, one at a time: the
 * caller serialises them (the source holds its channel lock).
 *
 * The table is versioned: new methods are appended.
 */
#ifndef VELA_MP_CHANNEL_H
#define VELA_MP_CHANNEL_H

#include <stddef.h>

#define MP_CHANNEL_VERSION 1

struct mp_channel
{
	unsigned version;
	const char *name;		/* "MPI" */
	/* Joins the job: 0 with this process's rank and the job's size, 1
	 * likewise when the program had joined it itself (MPI initialised by
	 * the application, which will also leave it), or a negative errno
	 * with a message in err. */
	int (*init)(int *rank, int *size, char *err, size_t errsize);
	/* Leaves the job (every request complete or cancelled); with
	 * end_job, ends the process's part in it (MPI_Finalize) even if the
	 * program joined it itself (a sink: the program never gets back). */
	void (*fini)(int end_job);
	/* Ends the whole job at once (every process), with this exit code. */
	void (*abort)(int code);
	int (*isend)(int peer, int tag, const void *buf, size_t blocksize, size_t nblocks, size_t ld, void **req);
	int (*irecv)(int peer, int tag, void *buf, size_t blocksize, size_t nblocks, size_t ld, void **req);
	int (*test)(void *req, size_t *bytes);
	void (*cancel)(void *req);
	/* The largest tag (>= 32767). */
	int (*tag_ub)(void);
};

/* The symbol a channel plugin exports. */
#define MP_CHANNEL_SYMBOL "vela_mp_channel"

#endif /* VELA_MP_CHANNEL_H */
