/* test_idle.c — the layer does not burn a core: the progression thread's
 * CPU time (from /proc: schedstat, else stat) over two seconds with
 * nothing to do must stay under 2% of a core, and under 10% while a
 * receive waits two seconds for its message (it polls then, with a
 * back-off). The thread blocked in starpu_mpi_recv polls MPI itself for a
 * moment, then sleeps: the whole process (every thread: the application's,
 * the runtime's worker, the progression thread) must stay under 10% of a
 * core while it waits. Prints the figures.
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

/* CPU seconds the thread in dir (/proc/self/task/TID) used so far. */
static double cpu_seconds_of(const char *dir)
{
	char path[320];
	snprintf(path, sizeof(path), "%s/schedstat", dir);
	FILE *f = fopen(path, "r");
	if (f)
	{
		unsigned long long ns = 0;
		int n = fscanf(f, "%llu", &ns);
		fclose(f);
		if (n == 1)
			return ns / 1e9;
	}
	snprintf(path, sizeof(path), "%s/stat", dir);
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

/* The progression thread's. */
static double cpu_seconds(void)
{
	return cpu_seconds_of(task_dir);
}

/* Every thread's of this process (those alive now). */
static double process_cpu_seconds(void)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	struct dirent *e;
	double sum = 0;
	while ((e = readdir(d)))
	{
		if (e->d_name[0] == '.')
			continue;
		char dir[300];
		snprintf(dir, sizeof(dir), "/proc/self/task/%s", e->d_name);
		double c = cpu_seconds_of(dir);
		if (c > 0)
			sum += c;
	}
	closedir(d);
	return sum;
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
	double waiting = 0, waiting_all = 0;
	if (rank == 0)
	{
		c0 = cpu_seconds();
		double a0 = process_cpu_seconds();
		t0 = starpu_timing_now();
		CHECK_EQ(starpu_mpi_recv(h, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), 0);
		double dt = (starpu_timing_now() - t0) / 1e6;
		waiting = (cpu_seconds() - c0) / dt;
		waiting_all = (process_cpu_seconds() - a0) / dt;
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
		printf(", %.2f%% while a receive waits 2 s (the whole process: %.2f%%)\n", 100 * waiting, 100 * waiting_all);
	CHECK(idle < 0.02);
	CHECK(waiting < 0.10);
	CHECK(waiting_all < 0.10);
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
