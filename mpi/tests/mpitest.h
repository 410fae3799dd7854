/* mpitest.h — what the MPI tests share: checks that stop every rank on the
 * first failure (MPI_Abort: the other ranks would wait forever), capture
 * of stderr to check error messages, and starting the layer on a small
 * runtime.
 *
 * Tests are plain programs run by tests/run-mpi-test.sh under mpirun; exit
 * status 0 passes, anything else fails, 77 skips.
 */
#ifndef MPITEST_H
#define MPITEST_H

#include <starpu.h>
#include <starpu_mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int mt_rank = -1;
static const char *mt_name = "test";

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "[%s rank %d] %s:%d: check failed: %s\n", mt_name, mt_rank, __FILE__, __LINE__, #cond); \
		fflush(stderr); \
		MPI_Abort(MPI_COMM_WORLD, 1); \
	} \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long a_ = (long long) (a), b_ = (long long) (b); \
	if (a_ != b_) { \
		fprintf(stderr, "[%s rank %d] %s:%d: check failed: %s == %s (%lld != %lld)\n", mt_name, mt_rank, __FILE__, __LINE__, #a, #b, a_, b_); \
		fflush(stderr); \
		MPI_Abort(MPI_COMM_WORLD, 1); \
	} \
} while (0)

/* Starts the runtime on ncpus CPU workers and the layer (which initialises
 * MPI, MPI_THREAD_SERIALIZED). Returns the rank; *size the world size. */
static inline int mt_start(int *argc, char ***argv, const char *name, int ncpus, int *size)
{
	mt_name = name;
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = ncpus;
	conf.ncuda = 0;
	conf.nopencl = 0;
	conf.precedence_over_environment_variables = 1;
	int ret = starpu_mpi_init_conf(argc, argv, 1, MPI_COMM_WORLD, &conf);
	if (ret)
	{
		fprintf(stderr, "[%s] starpu_mpi_init_conf failed (%d)\n", name, ret);
		exit(1);
	}
	mt_rank = starpu_mpi_world_rank();
	if (size)
		*size = starpu_mpi_world_size();
	return mt_rank;
}

/* stderr into a temporary file between begin and end; end returns the
 * text (static buffer) and echoes it. */
static int mt_saved_fd = -1;
static char mt_capture_path[64];
static char mt_capture_buf[16384];

static inline void mt_capture_begin(void)
{
	fflush(stderr);
	snprintf(mt_capture_path, sizeof(mt_capture_path), "/tmp/vela-mpi-capture-%d-XXXXXX", (int) getpid());
	int fd = mkstemp(mt_capture_path);
	if (fd < 0)
		return;
	mt_saved_fd = dup(2);
	dup2(fd, 2);
	close(fd);
}

static inline const char *mt_capture_end(void)
{
	fflush(stderr);
	mt_capture_buf[0] = 0;
	if (mt_saved_fd < 0)
		return mt_capture_buf;
	dup2(mt_saved_fd, 2);
	close(mt_saved_fd);
	mt_saved_fd = -1;
	FILE *f = fopen(mt_capture_path, "r");
	if (f)
	{
		size_t n = fread(mt_capture_buf, 1, sizeof(mt_capture_buf) - 1, f);
		mt_capture_buf[n] = 0;
		fclose(f);
	}
	unlink(mt_capture_path);
	fputs(mt_capture_buf, stderr);
	return mt_capture_buf;
}

/* The captured text holds every one of the NULL-terminated strings. */
static inline int mt_contains_all(const char *text, ...)
{
	va_list ap;
	va_start(ap, text);
	const char *s;
	int ok = 1;
	while ((s = va_arg(ap, const char *)))
		if (!strstr(text, s))
		{
			fprintf(stderr, "[%s rank %d] expected \"%s\" in the messages\n", mt_name, mt_rank, s);
			ok = 0;
		}
	va_end(ap);
	return ok;
}

#endif
