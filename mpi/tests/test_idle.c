/* test_idle.c — the progression thread does not burn a core: its CPU time
 * (from /proc: schedstat, else stat) over two seconds with nothing to do
 * must stay under 2% of a core, and under 10% while a receive waits two
 * seconds for its message (it polls then, with a back-off). Prints both.
 */
#include "mpitest.h"

#include <dirent.h>
#include <unistd.h>

static char task_dir[300];

static int find_progress_thread(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
	{
		perror("opendir /proc/self/task");
		return -1;
	}
	struct dirent *e;
	int found = -1;
	while ((e = readdir(d)))
	{
		if (e->d_name[0] == '.')
			continue;
		char path[300], name[64] = "";
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strncmp(name, "mpi-progress", 12))
		{
			found = atoi(e->d_name);
			snprintf(task_dir, sizeof(task_dir), "/proc/self/task/%s", e->d_name);
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

/* CPU seconds the thread used so far. */
static double cpu_seconds(void)
{
	char path[320];
	snprintf(path, sizeof(path), "%s/schedstat", task_dir);
	FILE *f = fopen(path, "r");
	if (f)
	{
		unsigned long long ns = 0;
		int n = fscanf(f, "%llu", &ns);
		fclose(f);
		if (n == 1)
			return ns / 1e9;
	}
	snprintf(path, sizeof(path), "%s/stat", task_dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	char buf[1024];
	size_t len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	char *p = strrchr(buf, ')');
	unsigned long utime = 0, stime = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
		return -1;
	return (utime + stime) / (double) sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv)
{
	int size;
	int rank = mt_start(&argc, &argv, "test_idle", 1, &size);
	CHECK(find_progress_thread() > 0);
	usleep(200000);	/* let start-up settle */

	double c0 = cpu_seconds(), t0 = starpu_timing_now();
	sleep(2);
	double idle = (cpu_seconds() - c0) / ((starpu_timing_now() - t0) / 1e6);

	long x = rank;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &x, sizeof(long));
	double waiting = 0;
	if (rank == 0)
	{
		c0 = cpu_seconds();
		t0 = starpu_timing_now();
		CHECK_EQ(starpu_mpi_recv(h, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		waiting = (cpu_seconds() - c0) / ((starpu_timing_now() - t0) / 1e6);
		CHECK_EQ(x, 1);
	}
	else if (rank == 1)
	{
		sleep(2);
		CHECK_EQ(starpu_mpi_send(h, 0, 3, MPI_COMM_WORLD), 0);
	}
	starpu_data_unregister(h);
	printf("test_idle: rank %d: progression thread CPU %.2f%% of a core idle%s", rank, 100 * idle, rank == 0 ? "" : "\n");
	if (rank == 0)
		printf(", %.2f%% while a receive waits 2 s\n", 100 * waiting);
	CHECK(idle < 0.02);
	CHECK(waiting < 0.10);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
