/*
 * ooc: out-of-core throughput.  A tiled AXPY, y += 2·x, over two vectors
 * whose tiles together are larger than the RAM the runtime may use
 * (STARPU_LIMIT_CPU_MEM), with a disk memory node (starpu_disk_unistd_ops in
 * a temporary directory) to evict tiles to.  The tiles are registered with
 * home node -1, so the runtime allocates them and may move them to disk; they
 * are initialised by tasks (W), updated by S sweeps of tasks (x R, y RW), and
 * finally read back with starpu_data_acquire and checked element by element:
 * a wrong value makes the benchmark exit with status 1.
 *
 * Written only against the public StarPU 1.3 C API, so the same source builds
 * against Vela and against StarPU (bench/compare-data does both).
 *
 * The StarPU 1.3 API has no public counter of the bytes a disk node moves
 * (bus statistics are StarPU-internal), so they are measured from outside,
 * the same way for both runtimes: the growth of rchar/wchar in /proc/self/io
 * (bytes passed to read/pread and write/pwrite by any thread of the
 * process; the benchmark does no other I/O while it is timed), and the size
 * of the disk node's files after the sweeps (in the directory, or open and
 * already unlinked).  read_bytes and
 * write_bytes (what reached the block device) are printed too; they are
 * usually near 0 because the page cache absorbs the files.  The peak resident
 * memory of the process (VmHWM) shows whether the RAM limit holds in fact.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <starpu.h>

#include "bench_util.h"

struct opts {
	size_t tile_kib;	/* bytes per tile / 1024 */
	unsigned ntiles;	/* tiles per vector */
	unsigned sweeps;
	long limit_mib;		/* STARPU_LIMIT_CPU_MEM */
	long disk_mib;		/* size given to starpu_disk_register */
	const char *parent;	/* where the disk directory is created */
	const char *policy;
	int machine;
	int keep;
};

/* Counters of /proc/self/io; -1 where unavailable. */
struct io_counters {
	int64_t rchar, wchar, read_bytes, write_bytes;
};

struct phase {
	const char *name;
	double us;
	unsigned tasks;
	double bytes;		/* tile data accessed by the phase's tasks */
	struct io_counters io;	/* growth during the phase */
};

/* --- the computation: x(i,j) and y0(i,j) are small integers, stored
 * exactly in doubles, so the expected result y0 + 2·S·x is exact too. */

static double x_value(unsigned tile, unsigned j)
{
	return (double)(((uint64_t)tile * 2654435761u + j) % 1000003u);
}

static double y0_value(unsigned tile, unsigned j)
{
	return (double)(tile + j % 7u);
}

static void init_cpu(void *buffers[], void *arg)
{
	unsigned tile = *(const unsigned *)arg;
	double *x = (double *)STARPU_VECTOR_GET_PTR(buffers[0]);
	double *y = (double *)STARPU_VECTOR_GET_PTR(buffers[1]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);

	for (unsigned j = 0; j < n; j++) {
		x[j] = x_value(tile, j);
		y[j] = y0_value(tile, j);
	}
}

static void axpy_cpu(void *buffers[], void *arg)
{
	const double *x = (const double *)STARPU_VECTOR_GET_PTR(buffers[0]);
	double *y = (double *)STARPU_VECTOR_GET_PTR(buffers[1]);
	unsigned n = STARPU_VECTOR_GET_NX(buffers[0]);

	(void)arg;
	for (unsigned j = 0; j < n; j++)
		y[j] += 2.0 * x[j];
}

static struct starpu_codelet init_cl = {
	.cpu_funcs = { init_cpu },
	.nbuffers = 2,
	.modes = { STARPU_W, STARPU_W },
	.name = "ooc_init",
};

static struct starpu_codelet axpy_cl = {
	.cpu_funcs = { axpy_cpu },
	.nbuffers = 2,
	.modes = { STARPU_R, STARPU_RW },
	.name = "ooc_axpy",
};

/* --- measuring I/O and memory from outside the runtime */

/* Peak resident set size of the process in bytes (VmHWM), or -1.  The RAM
 * limit is only worth something if the process's real footprint follows. */
static int64_t peak_rss(void)
{
	char line[256];
	long long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %lld kB", &kib) == 1)
			break;
	fclose(f);
	return kib < 0 ? -1 : kib * 1024;
}

static struct io_counters io_read(void)
{
	struct io_counters c = { -1, -1, -1, -1 };
	char key[32];
	long long v;
	FILE *f = fopen("/proc/self/io", "r");

	if (!f)
		return c;
	while (fscanf(f, "%31[^:]: %lld\n", key, &v) == 2) {
		if (strcmp(key, "rchar") == 0)
			c.rchar = v;
		else if (strcmp(key, "wchar") == 0)
			c.wchar = v;
		else if (strcmp(key, "read_bytes") == 0)
			c.read_bytes = v;
		else if (strcmp(key, "write_bytes") == 0)
			c.write_bytes = v;
	}
	fclose(f);
	return c;
}

static int64_t delta(int64_t a, int64_t b)
{
	return (a < 0 || b < 0) ? -1 : b - a;
}

static struct io_counters io_delta(struct io_counters a, struct io_counters b)
{
	struct io_counters d = {
		delta(a.rchar, b.rchar), delta(a.wchar, b.wchar),
		delta(a.read_bytes, b.read_bytes), delta(a.write_bytes, b.write_bytes),
	};
	return d;
}

/* A file of the disk node, identified by inode so that a file seen both
 * in the directory and among the open descriptors counts once. */
struct file_id {
	dev_t dev;
	ino_t ino;
	off_t size;
};

struct file_set {
	struct file_id *v;	/* owned; freed by disk_footprint */
	size_t n, cap;
};

static void file_set_add(struct file_set *fs, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return;
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? 2 * fs->cap : 64;
		struct file_id *v = realloc(fs->v, cap * sizeof(*v));

		if (!v)
			die("realloc", -ENOMEM);
		fs->v = v;
		fs->cap = cap;
	}
	fs->v[fs->n++] = (struct file_id){ st->st_dev, st->st_ino, st->st_size };
}

static int cmp_file_id(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

/* nftw has no user pointer: the set being filled by disk_footprint. */
static struct file_set *walk_set;

static int walk_add(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		file_set_add(walk_set, st);
	return 0;
}

/*
 * Bytes in the disk node's files: those under dir (StarPU spreads them over
 * subdirectories), and those the process holds open under dir even if
 * already unlinked.  *nfiles gets their count.
 */
static int64_t disk_footprint(const char *dir, unsigned *nfiles)
{
	struct file_set fs = { 0 };
	size_t dirlen = strlen(dir);
	struct dirent *e;
	struct stat st;
	char link[64], target[4096];
	int64_t sum = 0;
	DIR *d;

	*nfiles = 0;
	walk_set = &fs;
	if (nftw(dir, walk_add, 16, FTW_PHYS) != 0) {
		free(fs.v);
		return -1;
	}

	d = opendir("/proc/self/fd");
	if (d) {
		while ((e = readdir(d)) != NULL) {
			ssize_t len;

			if (e->d_name[0] == '.')
				continue;
			snprintf(link, sizeof(link), "/proc/self/fd/%.20s", e->d_name);
			len = readlink(link, target, sizeof(target) - 1);
			if (len <= (ssize_t)dirlen)
				continue;
			target[len] = '\0';
			if (strncmp(target, dir, dirlen) == 0 && target[dirlen] == '/' &&
			    stat(link, &st) == 0)
				file_set_add(&fs, &st);
		}
		closedir(d);
	}

	qsort(fs.v, fs.n, sizeof(*fs.v), cmp_file_id);
	for (size_t i = 0; i < fs.n; i++) {
		if (i > 0 && cmp_file_id(&fs.v[i - 1], &fs.v[i]) == 0)
			continue;
		sum += fs.v[i].size;
		(*nfiles)++;
	}
	free(fs.v);
	return sum;
}

static int walk_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0)
		fprintf(stderr, "ooc: cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

/* Removes the directory we created and what the runtime left in it. */
static void dir_remove(const char *dir)
{
	nftw(dir, walk_remove, 16, FTW_DEPTH | FTW_PHYS);
}

/* --- phases */

static void submit_or_die(struct starpu_codelet *cl, starpu_data_handle_t a,
			  starpu_data_handle_t b, void *arg)
{
	struct starpu_task *t = starpu_task_create();
	int ret;

	if (!t)
		die("starpu_task_create", -ENOMEM);
	t->cl = cl;
	t->handles[0] = a;
	t->handles[1] = b;
	t->cl_arg = arg;	/* not owned by the task: cl_arg_free stays 0 */
	ret = starpu_task_submit(t);
	if (ret != 0)
		die("starpu_task_submit", ret);
}

static void wait_all(void)
{
	int ret = starpu_task_wait_for_all();

	if (ret != 0)
		die("starpu_task_wait_for_all", ret);
}

/* Checks every element of every tile; returns the number of wrong tiles
 * and reports the first wrong element of the first few. */
static unsigned verify(const struct opts *o, starpu_data_handle_t *x,
		       starpu_data_handle_t *y, unsigned nx)
{
	double ys = 2.0 * o->sweeps;
	unsigned bad = 0;

	for (unsigned i = 0; i < o->ntiles; i++) {
		int ret = starpu_data_acquire(x[i], STARPU_R);

		if (ret != 0)
			die("starpu_data_acquire", ret);
		ret = starpu_data_acquire(y[i], STARPU_R);
		if (ret != 0)
			die("starpu_data_acquire", ret);

		const double *xp = (const double *)starpu_data_get_local_ptr(x[i]);
		const double *yp = (const double *)starpu_data_get_local_ptr(y[i]);

		for (unsigned j = 0; j < nx; j++) {
			double xv = x_value(i, j), yv = y0_value(i, j) + ys * xv;

			if (xp[j] != xv || yp[j] != yv) {
				if (bad < 5)
					fprintf(stderr, "ooc: tile %u element %u: x=%.17g y=%.17g,"
						" expected x=%.17g y=%.17g\n",
						i, j, xp[j], yp[j], xv, yv);
				bad++;
				break;
			}
		}
		starpu_data_release(y[i]);
		starpu_data_release(x[i]);
	}
	return bad;
}

/* --- output */

static double mb(int64_t b)
{
	return b < 0 ? -1.0 : (double)b / 1e6;
}

static void print_phase(const struct phase *p)
{
	double s = p->us / 1e6;

	printf("%-7s %8.3f %7u %10.0f %8.3f %12.1f %12.1f %10.1f %10.1f\n",
	       p->name, s, p->tasks, s > 0 ? p->tasks / s : 0.0,
	       s > 0 ? p->bytes / 1e9 / s : 0.0,
	       mb(p->io.rchar), mb(p->io.wchar),
	       mb(p->io.read_bytes), mb(p->io.write_bytes));
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ooc [-t TILE_KIB] [-T TILES] [-s SWEEPS] [-l LIMIT_MIB] [-D DISK_MIB]\n"
		"           [-d DIR] [-p POLICY] [-k] [-m]\n"
		"  -t KIB     size of a tile in KiB (default 4096)\n"
		"  -T TILES   tiles per vector; x and y make 2·TILES tiles (default 32)\n"
		"  -s SWEEPS  sweeps of y += 2·x over all tiles (default 4)\n"
		"  -l MIB     STARPU_LIMIT_CPU_MEM, RAM the runtime may allocate (default: the\n"
		"             environment's STARPU_LIMIT_CPU_MEM, else 64)\n"
		"  -D MIB     size of the disk node given to starpu_disk_register (default:\n"
		"             twice the working set, at least 16)\n"
		"  -d DIR     where the disk node's temporary directory is created\n"
		"             (default $TMPDIR, else /tmp); it is removed at the end\n"
		"  -p POLICY  scheduling policy, overriding STARPU_SCHED\n"
		"  -k         keep the disk directory\n"
		"  -m         machine-readable output, one line:\n"
		"             sweep_s sweep_tasks_per_s sweep_GBps sweep_rd_MB sweep_wr_MB\n"
		"             total_s total_rd_MB total_wr_MB disk_MB peak_rss_MB\n");
}

int main(int argc, char **argv)
{
	bench_name = "ooc";
	struct opts o = { .tile_kib = 4096, .ntiles = 32, .sweeps = 4 };
	struct phase ph[4] = { { .name = "init" }, { .name = "sweeps" },
			       { .name = "verify" }, { .name = "total" } };
	starpu_data_handle_t *x, *y;
	unsigned *tile_ids, nx, nfiles, bad;
	struct io_counters c0, c1, c2, c3;
	double t0, t1, t2, t3, ws_mib;
	int64_t disk_bytes, rss;
	char dir[4096], limit_str[32];
	int c, node;

	while ((c = getopt(argc, argv, "t:T:s:l:D:d:p:kmh")) != -1) {
		switch (c) {
		case 't':
			o.tile_kib = parse_count(optarg, "tile size", 1ul << 21);
			break;
		case 'T':
			o.ntiles = (unsigned)parse_count(optarg, "tile count", 1u << 20);
			break;
		case 's':
			o.sweeps = (unsigned)parse_count(optarg, "sweep count", 1u << 20);
			break;
		case 'l':
			o.limit_mib = (long)parse_count(optarg, "memory limit", 1ul << 30);
			break;
		case 'D':
			o.disk_mib = (long)parse_count(optarg, "disk size", 1ul << 30);
			break;
		case 'd':
			o.parent = optarg;
			break;
		case 'p':
			o.policy = optarg;
			break;
		case 'k':
			o.keep = 1;
			break;
		case 'm':
			o.machine = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return EXIT_FAILURE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_FAILURE;
	}
	if (o.tile_kib * 1024 % sizeof(double) != 0 ||
	    o.tile_kib * 1024 / sizeof(double) > UINT32_MAX) {
		fprintf(stderr, "ooc: bad tile size %zu KiB\n", o.tile_kib);
		return EXIT_FAILURE;
	}
	nx = (unsigned)(o.tile_kib * 1024 / sizeof(double));
	ws_mib = 2.0 * o.ntiles * o.tile_kib / 1024.0;

	/* The runtime reads STARPU_LIMIT_CPU_MEM in starpu_init. */
	if (o.limit_mib == 0) {
		const char *env = getenv("STARPU_LIMIT_CPU_MEM");

		o.limit_mib = env && *env ? atol(env) : 64;
	}
	snprintf(limit_str, sizeof(limit_str), "%ld", o.limit_mib);
	setenv("STARPU_LIMIT_CPU_MEM", limit_str, 1);
	if (ws_mib <= o.limit_mib)
		fprintf(stderr, "ooc: warning: the working set (%.0f MiB) fits in"
			" STARPU_LIMIT_CPU_MEM (%ld MiB): nothing needs to go to disk\n",
			ws_mib, o.limit_mib);
	if (o.disk_mib == 0)
		o.disk_mib = (long)(2 * ws_mib) + 1;
	if (o.disk_mib < STARPU_DISK_SIZE_MIN / (1024 * 1024))
		o.disk_mib = STARPU_DISK_SIZE_MIN / (1024 * 1024);

	if (!o.parent) {
		o.parent = getenv("TMPDIR");
		if (!o.parent || !*o.parent)
			o.parent = "/tmp";
	}
	snprintf(dir, sizeof(dir), "%s/ooc.XXXXXX", o.parent);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "ooc: cannot create a directory in %s: %s\n",
			o.parent, strerror(errno));
		return EXIT_FAILURE;
	}

	const char *policy = policy_label(o.policy);
	if (bench_init(o.policy) == 77) {
		rmdir(dir);
		return 77;
	}

	node = starpu_disk_register(&starpu_disk_unistd_ops, (void *)dir,
				    (starpu_ssize_t)o.disk_mib * 1024 * 1024);
	if (node < 0)
		die("starpu_disk_register", node);

	x = calloc(o.ntiles, sizeof(*x));
	y = calloc(o.ntiles, sizeof(*y));
	tile_ids = calloc(o.ntiles, sizeof(*tile_ids));
	if (!x || !y || !tile_ids)
		die("calloc", -ENOMEM);
	for (unsigned i = 0; i < o.ntiles; i++) {
		tile_ids[i] = i;
		/* Home node -1: the runtime allocates the tiles, and may evict
		 * them to the disk node. */
		starpu_vector_data_register(&x[i], -1, 0, nx, sizeof(double));
		starpu_vector_data_register(&y[i], -1, 0, nx, sizeof(double));
	}

	if (!o.machine)
		printf("# ooc: 2x%u tiles of %zu KiB (working set %.0f MiB),"
		       " STARPU_LIMIT_CPU_MEM=%ld MiB, disk node %d of %ld MiB in %s,"
		       " %u sweeps, policy %s\n",
		       o.ntiles, o.tile_kib, ws_mib, o.limit_mib, node, o.disk_mib,
		       dir, o.sweeps,
		       policy);

	c0 = io_read();
	t0 = starpu_timing_now();
	for (unsigned i = 0; i < o.ntiles; i++)
		submit_or_die(&init_cl, x[i], y[i], &tile_ids[i]);
	wait_all();
	t1 = starpu_timing_now();
	c1 = io_read();
	for (unsigned s = 0; s < o.sweeps; s++)
		for (unsigned i = 0; i < o.ntiles; i++)
			submit_or_die(&axpy_cl, x[i], y[i], NULL);
	wait_all();
	t2 = starpu_timing_now();
	c2 = io_read();
	disk_bytes = disk_footprint(dir, &nfiles);
	bad = verify(&o, x, y, nx);
	t3 = starpu_timing_now();
	c3 = io_read();
	rss = peak_rss();

	double tile_bytes = (double)o.tile_kib * 1024;

	ph[0].us = t1 - t0;
	ph[0].tasks = o.ntiles;
	ph[0].bytes = 2 * tile_bytes * o.ntiles;
	ph[0].io = io_delta(c0, c1);
	ph[1].us = t2 - t1;
	ph[1].tasks = o.ntiles * o.sweeps;
	ph[1].bytes = 2 * tile_bytes * o.ntiles * o.sweeps;
	ph[1].io = io_delta(c1, c2);
	ph[2].us = t3 - t2;
	ph[2].tasks = 0;
	ph[2].bytes = 2 * tile_bytes * o.ntiles;
	ph[2].io = io_delta(c2, c3);
	ph[3].us = t3 - t0;
	ph[3].tasks = ph[0].tasks + ph[1].tasks;
	ph[3].bytes = ph[0].bytes + ph[1].bytes + ph[2].bytes;
	ph[3].io = io_delta(c0, c3);

	if (o.machine) {
		double s = ph[1].us / 1e6;

		printf("%.3f %.0f %.3f %.1f %.1f %.3f %.1f %.1f %.1f %.1f\n",
		       s, ph[1].tasks / s, ph[1].bytes / 1e9 / s,
		       mb(ph[1].io.rchar), mb(ph[1].io.wchar), ph[3].us / 1e6,
		       mb(ph[3].io.rchar), mb(ph[3].io.wchar), mb(disk_bytes), mb(rss));
	} else {
		printf("%-7s %8s %7s %10s %8s %12s %12s %10s %10s\n", "phase",
		       "time_s", "tasks", "tasks/s", "GB/s", "disk_rd_MB",
		       "disk_wr_MB", "dev_rd_MB", "dev_wr_MB");
		for (unsigned p = 0; p < 4; p++)
			print_phase(&ph[p]);
		printf("# disk node files after the sweeps: %u, %.1f MB\n",
		       nfiles, mb(disk_bytes));
		printf("# peak resident memory of the process (VmHWM): %.1f MB\n", mb(rss));
		printf("# GB/s: tile bytes accessed by the phase's tasks (2 tiles per task;"
		       " verify: 2 acquires per tile pair) / time; disk_*: rchar/wchar"
		       " growth; dev_*: read_bytes/write_bytes growth\n");
	}
	fflush(stdout);

	for (unsigned i = 0; i < o.ntiles; i++) {
		starpu_data_unregister(x[i]);
		starpu_data_unregister(y[i]);
	}
	starpu_shutdown();
	free(tile_ids);
	free(y);
	free(x);
	if (o.keep)
		fprintf(stderr, "ooc: disk directory kept: %s\n", dir);
	else
		dir_remove(dir);

	if (bad) {
		fprintf(stderr, "ooc: WRONG RESULT in %u of %u tile pairs\n", bad, o.ntiles);
		return EXIT_FAILURE;
	}
	if (!o.machine)
		printf("verified: %u tile pairs correct\n", o.ntiles);
	return EXIT_SUCCESS;
}
