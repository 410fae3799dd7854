/* simrun.c — vela-simrun: N ranks of one application in one simulated
 * cluster (sim/README.md, "Clusters").
 *
 *   vela-simrun -np N --platform cluster.xml [--keep-temps] PROGRAM [ARGS...]
 *
 * The launcher starts SimGrid on the cluster platform (nodes n0., n1., ...:
 * platforms/make-cluster.py) and runs PROGRAM's main() once per rank, in
 * an actor on host n<r>.MAIN (else n<r>.CPU0). Every rank keeps its own
 * runtime: Vela's state lives in the globals of libvela (and of the
 * plugin, and of the application), so each rank gets its own copy of each
 * of them — the files are copied into a temporary directory under names
 * unique to the rank, and the copies' references to one another renamed
 * to match (same length: "libvela" becomes the rank's seven digits), then
 * loaded with dlopen; each rank's libvela is told to load the rank's copy
 * of the plugin (vela_sim_set_plugin, sim/sim.h). That copy finds
 * that it runs inside this simulation and joins it (sim/boot.c), serving
 * the rank's node: its hosts are those named n<r>.<host>.
 *
 * Why not SimGrid's SMPI, which privatizes the same way: in SimGrid 3.32
 * an SMPI rank is one actor, and MPI calls made by other actors (Vela's
 * workers and progression thread, which StarPU-MPI's design needs) cannot
 * receive: a receive posted by another actor waits on that actor's own
 * mailbox, never on the rank's (tested; sim/README.md).
 *
 * Exit status: the largest of the ranks' main() returns; 2 for a usage
 * error (bad option, more ranks than nodes), 1 when the platform or the
 * program cannot be loaded.
 */
#define _GNU_SOURCE
#include "sim/sg_internal.h"

#include <simgrid/engine.h>
#include <xbt/config.h>

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef VELA_LIBDIR
#define VELA_LIBDIR "/usr/local/lib"
#endif

#define MAX_LIBS 8
#define PREFIX "libvela"	/* the names renamed per rank start so */
#define PREFIX_LEN 7

static const char *me = "vela-simrun";

/* A Vela library the program needs: its name (soname) and file. */
struct lib
{
	char name[64];
	char path[PATH_MAX];
};

static struct lib libs[MAX_LIBS];
static unsigned nlibs;
static char program[PATH_MAX];
static char tmpdir[PATH_MAX];
static int keep_temps;
static int prog_argc;
static char **prog_argv;
static int worst_status;
static int nfinished;

/* simrun_mpi.c */
void simrun_mpi_setup(int np);

static void usage(FILE *f)
{
	fprintf(f, "usage: %s -np N --platform CLUSTER.xml [--keep-temps] PROGRAM [ARGS...]\n"
		"       %s --platform CLUSTER.xml --check-platform\n"
		"  Runs N ranks of PROGRAM, each with its own Vela runtime, simulated on the nodes n0., n1., ...\n"
		"  of CLUSTER.xml (platforms/make-cluster.py writes such files); --check-platform only loads\n"
		"  and checks the platform.\n", me, me);
}

/* ------------------------------------------------------------------ */
/* Files */

static int read_file(const char *path, unsigned char **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	struct stat st;
	if (fstat(fileno(f), &st))
	{
		fclose(f);
		return -errno;
	}
	*size = (size_t) st.st_size;
	*data = malloc(*size ? *size : 1);
	if (!*data || fread(*data, 1, *size, f) != *size)
	{
		free(*data);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	return 0;
}

static int write_file(const char *path, const unsigned char *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	if (fd < 0)
		return -errno;
	size_t done = 0;
	while (done < size)
	{
		ssize_t n = write(fd, data + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			close(fd);
			return -EIO;
		}
		done += (size_t) n;
	}
	return close(fd) ? -errno : 0;
}

/* Replaces every occurrence of from by to (same length) in data. */
static void replace_all(unsigned char *data, size_t size, const char *from, const char *to)
{
	size_t n = strlen(from);
	for (unsigned char *p = data; (size_t) (p - data) + n <= size;)
	{
		unsigned char *q = memmem(p, size - (size_t) (p - data), from, n);
		if (!q)
			break;
		memcpy(q, to, n);
		p = q + n;
	}
}

/* ------------------------------------------------------------------ */
/* ELF: the program's needed Vela libraries, run path, PIE flag, main. */

struct elf
{
	unsigned char *data;
	size_t size;
	Elf64_Ehdr *eh;
};

static int elf_open(struct elf *e, const char *path, char *err, size_t errsize)
{
	int ret = read_file(path, &e->data, &e->size);
	if (ret)
	{
		snprintf(err, errsize, "cannot read %s: %s", path, strerror(-ret));
		return -1;
	}
	e->eh = (Elf64_Ehdr *) e->data;
	if (e->size < sizeof(Elf64_Ehdr) || memcmp(e->eh->e_ident, ELFMAG, SELFMAG) ||
	    e->eh->e_ident[EI_CLASS] != ELFCLASS64 || e->eh->e_phoff + (size_t) e->eh->e_phnum * sizeof(Elf64_Phdr) > e->size ||
	    e->eh->e_shoff + (size_t) e->eh->e_shnum * sizeof(Elf64_Shdr) > e->size)
	{
		snprintf(err, errsize, "%s is not a 64-bit ELF program", path);
		free(e->data);
		return -1;
	}
	if (e->eh->e_type != ET_DYN)
	{
		snprintf(err, errsize, "%s is not position-independent (link it as a PIE, the compiler's default, "
			 "so that each rank can load its own copy)", path);
		free(e->data);
		return -1;
	}
	return 0;
}

/* File offset of virtual address va, through the load segments. */
static size_t elf_offset(const struct elf *e, Elf64_Addr va)
{
	Elf64_Phdr *ph = (Elf64_Phdr *) (e->data + e->eh->e_phoff);
	for (unsigned i = 0; i < e->eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va < ph[i].p_vaddr + ph[i].p_filesz)
			return (size_t) (va - ph[i].p_vaddr + ph[i].p_offset);
	return (size_t) -1;
}

/* The dynamic section; *n entries. */
static Elf64_Dyn *elf_dynamic(const struct elf *e, size_t *n)
{
	Elf64_Phdr *ph = (Elf64_Phdr *) (e->data + e->eh->e_phoff);
	for (unsigned i = 0; i < e->eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC && ph[i].p_offset + ph[i].p_filesz <= e->size)
		{
			*n = ph[i].p_filesz / sizeof(Elf64_Dyn);
			return (Elf64_Dyn *) (e->data + ph[i].p_offset);
		}
	*n = 0;
	return NULL;
}

static const char *elf_dynstr(const struct elf *e, const Elf64_Dyn *dyn, size_t n)
{
	for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_STRTAB)
		{
			size_t off = elf_offset(e, dyn[i].d_un.d_ptr);
			return off < e->size ? (const char *) e->data + off : NULL;
		}
	return NULL;
}

/* Clears DF_1_PIE, so that dlopen accepts the copy. */
static void elf_clear_pie(struct elf *e)
{
	size_t n;
	Elf64_Dyn *dyn = elf_dynamic(e, &n);
	for (size_t i = 0; dyn && i < n && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_FLAGS_1)
			dyn[i].d_un.d_val &= ~(Elf64_Xword) DF_1_PIE;
}

/* main's address relative to the load base, from .symtab or .dynsym. */
static Elf64_Addr elf_main(const struct elf *e)
{
	Elf64_Shdr *sh = (Elf64_Shdr *) (e->data + e->eh->e_shoff);
	for (unsigned i = 0; i < e->eh->e_shnum; i++)
	{
		if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) || sh[i].sh_link >= e->eh->e_shnum)
			continue;
		Elf64_Shdr *str = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > e->size || str->sh_offset + str->sh_size > e->size)
			continue;
		Elf64_Sym *sym = (Elf64_Sym *) (e->data + sh[i].sh_offset);
		size_t nsym = sh[i].sh_size / sizeof(Elf64_Sym);
		for (size_t k = 0; k < nsym; k++)
			if (sym[k].st_name < str->sh_size && ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && sym[k].st_value &&
			    !strcmp((const char *) e->data + str->sh_offset + sym[k].st_name, "main"))
				return sym[k].st_value;
	}
	return 0;
}

/* Finds name in the run path of the program ($ORIGIN expanded), then
 * LD_LIBRARY_PATH, then Vela's libdir. */
static int find_lib(const char *name, const char *runpath, char *out, size_t outsize)
{
	char origin[PATH_MAX];
	snprintf(origin, sizeof(origin), "%s", program);
	char *slash = strrchr(origin, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(origin, sizeof(origin), ".");
	const char *lists[3] = { runpath, getenv("LD_LIBRARY_PATH"), VELA_LIBDIR };
	for (int l = 0; l < 3; l++)
	{
		if (!lists[l] || !*lists[l])
			continue;
		char buf[4096];
		snprintf(buf, sizeof(buf), "%s", lists[l]);
		for (char *save = NULL, *dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		{
			char d[PATH_MAX];
			if (!strncmp(dir, "$ORIGIN", 7))
				snprintf(d, sizeof(d), "%s%s", origin, dir + 7);
			else
				snprintf(d, sizeof(d), "%s", dir);
			snprintf(out, outsize, "%s/%s", d, name);
			if (access(out, R_OK) == 0)
				return 0;
		}
	}
	return -ENOENT;
}

/* The Vela libraries PROGRAM needs (libvela*.so.*), and the plugin. */
static int find_libs(char *err, size_t errsize)
{
	struct elf e;
	if (elf_open(&e, program, err, errsize))
		return -1;
	size_t n;
	Elf64_Dyn *dyn = elf_dynamic(&e, &n);
	const char *str = dyn ? elf_dynstr(&e, dyn, n) : NULL;
	if (!str)
	{
		snprintf(err, errsize, "%s is statically linked: each rank needs its own copy of libvela, link it "
			 "dynamically ($(pkg-config --libs vela))", program);
		free(e.data);
		return -1;
	}
	const char *runpath = NULL;
	for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_RUNPATH || dyn[i].d_tag == DT_RPATH)
			runpath = str + dyn[i].d_un.d_val;
	for (size_t i = 0; i < n && dyn[i].d_tag != DT_NULL; i++)
	{
		if (dyn[i].d_tag != DT_NEEDED)
			continue;
		const char *name = str + dyn[i].d_un.d_val;
		if (strncmp(name, PREFIX, PREFIX_LEN) || strlen(name) >= sizeof(libs[0].name) || nlibs == MAX_LIBS - 1)
			continue;
		struct lib *l = &libs[nlibs];
		snprintf(l->name, sizeof(l->name), "%s", name);
		if (find_lib(name, runpath, l->path, sizeof(l->path)))
		{
			snprintf(err, errsize, "cannot find %s, which %s needs (run path, LD_LIBRARY_PATH, %s)", name,
				 program, VELA_LIBDIR);
			free(e.data);
			return -1;
		}
		nlibs++;
	}
	free(e.data);
	if (!nlibs)
	{
		snprintf(err, errsize, "%s does not use Vela (no libvela*.so among the libraries it needs)", program);
		return -1;
	}
	/* The plugin: VELA_SIM_PLUGIN, else beside libvela, else libdir. */
	struct lib *p = &libs[nlibs];
	snprintf(p->name, sizeof(p->name), "libvela-sim.so");
	const char *env = getenv("VELA_SIM_PLUGIN");
	if (env && *env)
		snprintf(p->path, sizeof(p->path), "%s", env);
	else
	{
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", libs[0].path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		snprintf(p->path, sizeof(p->path), "%s/%s", slash ? dir : ".", "libvela-sim.so");
		if (access(p->path, R_OK))
			snprintf(p->path, sizeof(p->path), "%s/%s", VELA_LIBDIR, "libvela-sim.so");
	}
	if (access(p->path, R_OK))
	{
		snprintf(err, errsize, "cannot find the simulation plugin %s", p->path);
		return -1;
	}
	nlibs++;
	/* The copies must load the renamed plugin. */
	unsetenv("VELA_SIM_PLUGIN");
	return 0;
}

/* The per-rank name of a Vela library. */
static void rank_name(char *out, size_t size, const char *name, int rank)
{
	snprintf(out, size, "%0*d%s", PREFIX_LEN, rank, name + PREFIX_LEN);
}

/* Copies file src to dst, its Vela names renamed for rank. */
static int copy_for_rank(const char *src, const char *dst, int rank, int is_program, char *err, size_t errsize)
{
	unsigned char *data;
	size_t size;
	int ret = read_file(src, &data, &size);
	if (ret)
	{
		snprintf(err, errsize, "cannot read %s: %s", src, strerror(-ret));
		return -1;
	}
	for (unsigned i = 0; i < nlibs; i++)
	{
		char to[64];
		rank_name(to, sizeof(to), libs[i].name, rank);
		replace_all(data, size, libs[i].name, to);
	}
	struct elf e = { .data = data, .size = size, .eh = (Elf64_Ehdr *) data };
	if (is_program)
		elf_clear_pie(&e);
	/* Only what the loader maps: no section headers, symbols or debug
	 * information (a rank's copies are loaded, never debugged from this
	 * directory; --keep-temps keeps them whole). For 64 ranks this is
	 * the difference between writing tens and hundreds of megabytes. */
	if (!keep_temps && size >= sizeof(Elf64_Ehdr))
	{
		size_t end = 0;
		Elf64_Phdr *ph = (Elf64_Phdr *) (data + e.eh->e_phoff);
		for (unsigned i = 0; i < e.eh->e_phnum; i++)
			if (ph[i].p_offset + ph[i].p_filesz > end)
				end = ph[i].p_offset + ph[i].p_filesz;
		if (end && end < size)
		{
			e.eh->e_shoff = 0;
			e.eh->e_shnum = 0;
			e.eh->e_shstrndx = SHN_UNDEF;
			size = end;
		}
	}
	ret = write_file(dst, data, size);
	free(data);
	if (ret)
	{
		snprintf(err, errsize, "cannot write %s: %s", dst, strerror(-ret));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ranks */

typedef int (*main_fn)(int, char **, char **);

/* Loads rank's copies, libraries first (each copy's references to the
 * others then find them, by their renamed sonames), then the program. */
static main_fn load_rank(int rank, char *err, size_t errsize)
{
	char dst[PATH_MAX], name[64];
	for (unsigned i = 0; i < nlibs; i++)
	{
		rank_name(name, sizeof(name), libs[i].name, rank);
		snprintf(dst, sizeof(dst), "%s/%s", tmpdir, name);
		if (copy_for_rank(libs[i].path, dst, rank, 0, err, errsize))
			return NULL;
	}
	/* A library loads once those it needs have: passes until none
	 * is left (or none loads). The plugin is not loaded here: libvela's
	 * copy loads it at starpu_init. */
	int loaded[MAX_LIBS] = { 0 };
	unsigned left = nlibs - 1;
	while (left)
	{
		unsigned before = left;
		for (unsigned i = 0; i + 1 < nlibs; i++)
		{
			if (loaded[i])
				continue;
			rank_name(name, sizeof(name), libs[i].name, rank);
			snprintf(dst, sizeof(dst), "%s/%s", tmpdir, name);
			if (dlopen(dst, RTLD_NOW | RTLD_LOCAL))
			{
				loaded[i] = 1;
				left--;
			}
			else if (before == left && i + 2 == nlibs)
				snprintf(err, errsize, "cannot load %s (copy of %s): %s", dst, libs[i].path, dlerror());
		}
		if (left == before)
		{
			for (unsigned i = 0; i + 1 < nlibs; i++)
				if (!loaded[i])
				{
					rank_name(name, sizeof(name), libs[i].name, rank);
					snprintf(dst, sizeof(dst), "%s/%s", tmpdir, name);
					void *h = dlopen(dst, RTLD_NOW | RTLD_LOCAL);
					snprintf(err, errsize, "cannot load %s (copy of %s): %s", dst, libs[i].path,
						 h ? "?" : dlerror());
					return NULL;
				}
		}
	}
	/* Each rank's trace file is named after its rank, as StarPU-MPI's
	 * are (vela_trace_<user>_<rank>): the ranks share one process id. */
	const char *core = NULL;
	for (unsigned i = 0; i + 1 < nlibs && !core; i++)
		if (!strncmp(libs[i].name, "libvela.so", 10))
			core = libs[i].name;
	if (!core)
	{
		snprintf(err, errsize, "%s does not link libvela itself (add it: $(pkg-config --libs vela))", program);
		return NULL;
	}
	rank_name(name, sizeof(name), core, rank);
	void *lv = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
	void (*set_id)(int) = lv ? (void (*)(int)) dlsym(lv, "starpu_profiling_set_id") : NULL;
	if (set_id)
		set_id(rank);
	/* The rank's own copy of the plugin: libvela's default places (a
	 * path compiled in, VELA_SIM_PLUGIN) would give every rank the same. */
	void (*set_plugin)(const char *) = lv ? (void (*)(const char *)) dlsym(lv, "vela_sim_set_plugin") : NULL;
	if (!set_plugin)
	{
		snprintf(err, errsize, "%s's libvela lacks vela_sim_set_plugin: it is older than this vela-simrun",
			 program);
		return NULL;
	}
	rank_name(name, sizeof(name), libs[nlibs - 1].name, rank);
	char plug[PATH_MAX];
	snprintf(plug, sizeof(plug), "%s/%s", tmpdir, name);
	set_plugin(plug);
	snprintf(dst, sizeof(dst), "%s/%0*d-program", tmpdir, PREFIX_LEN, rank);
	if (copy_for_rank(program, dst, rank, 1, err, errsize))
		return NULL;
	void *h = dlopen(dst, RTLD_NOW | RTLD_LOCAL);
	if (!h)
	{
		snprintf(err, errsize, "cannot load %s (copy of %s): %s", dst, program, dlerror());
		return NULL;
	}
	if (!keep_temps)
		unlink(dst);
	main_fn m = (main_fn) dlsym(h, "main");
	if (!m)
	{
		struct elf e;
		if (elf_open(&e, program, err, errsize))
			return NULL;
		Elf64_Addr off = elf_main(&e);
		free(e.data);
		struct link_map *lm = NULL;
		if (!off || dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm)
		{
			snprintf(err, errsize, "%s has no symbol main (do not strip it)", program);
			return NULL;
		}
		m = (main_fn) (lm->l_addr + off);
	}
	return m;
}

static void rank_actor(int argc, char **argv)
{
	(void) argc;
	int rank = atoi(argv[0]);
	char err[1024];
	main_fn m = load_rank(rank, err, sizeof(err));
	if (!m)
	{
		fprintf(stderr, "%s: rank %d: %s\n", me, rank, err);
		worst_status = worst_status > 1 ? worst_status : 1;
		return;
	}
	char **av = calloc((size_t) prog_argc + 1, sizeof(char *));
	for (int i = 0; i < prog_argc; i++)
		av[i] = strdup(prog_argv[i]);
	extern char **environ;
	int ret = m(prog_argc, av, environ);
	if (ret != 0)
		fprintf(stderr, "%s: rank %d: %s returned %d\n", me, rank, program, ret);
	if (ret > worst_status || ret < 0)
		worst_status = ret < 0 ? 1 : ret;
	nfinished++;
}

/* Nodes n0., n1., ...: how many the platform has. */
static int count_nodes(void)
{
	int n = 0;
	for (;; n++)
	{
		char host[64];
		snprintf(host, sizeof(host), "n%d.CPU0", n);
		if (!sg_host_by_name(host))
			return n;
	}
}

/* The line of the first occurrence of text in file (0: not found). */
static int line_of(const char *file, const char *text)
{
	unsigned char *data;
	size_t size;
	if (read_file(file, &data, &size))
		return 0;
	unsigned char *p = memmem(data, size, text, strlen(text));
	int line = 0;
	if (p)
	{
		line = 1;
		for (unsigned char *q = data; q < p; q++)
			line += *q == '\n';
	}
	free(data);
	return line;
}

/* What the ranks need of the nodes n0..n<np-1>: a host RAM (messages
 * leave and arrive there) and a route from each to each. 0, or -1 with
 * file:line and the reason in err. */
static int check_nodes(const char *platform, int np, char *err, size_t errsize)
{
	for (int r = 0; r < np; r++)
	{
		char host[64], zone[64];
		snprintf(host, sizeof(host), "n%d.RAM", r);
		snprintf(zone, sizeof(zone), "id=\"n%d.CPU0\"", r);
		if (!sg_host_by_name(host))
		{
			snprintf(err, errsize, "%s:%d: node n%d has no host %s (where its messages leave and arrive)",
				 platform, line_of(platform, zone), r, host);
			return -1;
		}
	}
	xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
	for (int r = 0; r < np; r++)
		for (int s = 0; s < np; s++)
		{
			if (r == s)
				continue;
			char a[64], b[64], zone[64];
			snprintf(a, sizeof(a), "n%d.RAM", r);
			snprintf(b, sizeof(b), "n%d.RAM", s);
			xbt_dynar_reset(links);
			if (sg_route_links(sg_host_by_name(a), sg_host_by_name(b), links) || xbt_dynar_is_empty(links))
			{
				snprintf(zone, sizeof(zone), "id=\"n%d.RAM\"", r);
				snprintf(err, errsize, "%s:%d: no route from node n%d to node n%d (%s to %s: the network between "
					 "nodes, platforms/make-cluster.py)", platform, line_of(platform, zone), r, s, a, b);
				xbt_dynar_free(&links);
				return -1;
			}
		}
	xbt_dynar_free(&links);
	return 0;
}

static void remove_tmpdir(void)
{
	if (keep_temps || !tmpdir[0])
		return;
	for (unsigned i = 0; i < nlibs; i++)
		for (int r = 0;; r++)
		{
			char name[64], path[PATH_MAX];
			rank_name(name, sizeof(name), libs[i].name, r);
			snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
			if (unlink(path))
				break;
		}
	rmdir(tmpdir);
	tmpdir[0] = '\0';
}

int main(int argc, char **argv)
{
	int np = -1, i = 1, check_only = 0;
	const char *platform = NULL;
	for (; i < argc && argv[i][0] == '-'; i++)
	{
		if ((!strcmp(argv[i], "-np") || !strcmp(argv[i], "-n")) && i + 1 < argc)
		{
			char *end;
			errno = 0;
			long v = strtol(argv[++i], &end, 10);
			if (errno || end == argv[i] || *end || v < 1 || v > 100000)
			{
				fprintf(stderr, "%s: -np %s: not a number of ranks (1 or more)\n", me, argv[i]);
				return 2;
			}
			np = (int) v;
		}
		else if (!strcmp(argv[i], "--platform") && i + 1 < argc)
			platform = argv[++i];
		else if (!strcmp(argv[i], "--keep-temps"))
			keep_temps = 1;
		else if (!strcmp(argv[i], "--check-platform"))
			check_only = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
		{
			usage(stdout);
			return 0;
		}
		else
		{
			fprintf(stderr, "%s: unknown option or missing value: %s\n", me, argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (check_only && platform)
		np = 0;
	else if (i >= argc || np < 0 || !platform)
	{
		fprintf(stderr, "%s: %s\n", me, i >= argc ? "no PROGRAM given" : np < 0 ? "-np N is required" :
			"--platform CLUSTER.xml is required");
		usage(stderr);
		return 2;
	}
	if (!check_only && !realpath(argv[i], program))
	{
		fprintf(stderr, "%s: PROGRAM %s: %s\n", me, argv[i], strerror(errno));
		return 2;
	}
	prog_argc = argc - i;
	prog_argv = argv + i;

	char err[1024];
	/* The engine: as sim/boot.c starts it. */
	static char *av[64];
	int ac = 0;
	av[ac++] = (char *) me;
	if (!getenv("VELA_SIMGRID_VERBOSE") || strcmp(getenv("VELA_SIMGRID_VERBOSE"), "1"))
		av[ac++] = "--log=root.thresh:warning";
	av[ac++] = "--cfg=network/model:CM02";
	av[ac++] = "--cfg=debug/clean-atexit:no";
	static char extra[2048];
	if (getenv("VELA_SIMGRID_ARGS"))
	{
		snprintf(extra, sizeof(extra), "%s", getenv("VELA_SIMGRID_ARGS"));
		for (char *save = NULL, *tok = strtok_r(extra, " \t", &save); tok && ac < 62;
		     tok = strtok_r(NULL, " \t", &save))
			av[ac++] = tok;
	}
	av[ac] = NULL;
	const char *factory = getenv("VELA_SIM_FACTORY");
	sg_cfg_set_string("contexts/factory", factory && *factory ? factory : "raw");
	/* The ranks' delays and waits: one heap, here (sg_delay.h). */
	if (sg_delay_choose(err, sizeof(err)))
	{
		fprintf(stderr, "%s: %s\n", me, err);
		return 2;
	}
	simgrid_init(&ac, av);
	sg_delay_setup();
	if (sg_load_platform(platform, err, sizeof(err)))
	{
		fprintf(stderr, "%s: cannot load the cluster platform %s: %s\n", me, platform, err);
		return 1;
	}
	int nnodes = count_nodes();
	if (nnodes == 0)
	{
		fprintf(stderr, "%s: the platform %s has no node (hosts n0.CPU0, n1.CPU0, ...: see "
			"platforms/make-cluster.py)\n", me, platform);
		return 1;
	}
	if (check_only)
	{
		if (check_nodes(platform, nnodes, err, sizeof(err)))
		{
			fprintf(stderr, "%s: %s\n", me, err);
			return 1;
		}
		printf("%s: %d nodes, each with RAM, routes between all of them\n", platform, nnodes);
		return 0;
	}
	if (np > nnodes)
	{
		fprintf(stderr, "%s: -np %d: the platform %s has %d node%s (n0..n%d), one rank per node\n", me, np,
			platform, nnodes, nnodes > 1 ? "s" : "", nnodes - 1);
		return 2;
	}

	if (check_nodes(platform, np, err, sizeof(err)))
	{
		fprintf(stderr, "%s: %s\n", me, err);
		return 1;
	}
	if (find_libs(err, sizeof(err)))
	{
		fprintf(stderr, "%s: %s\n", me, err);
		return 1;
	}

	/* What each rank's runtime reads at starpu_init. */
	setenv("STARPU_SIMGRID", "1", 1);
	setenv("STARPU_SIMGRID_PLATFORM", platform, 1);
	/* Ranks whose threads share their cores (make-cluster.py --cores):
	 * their MPI progression thread behaves as one without a core of its
	 * own does (libvela-mpi, mpi/README.md "Idle"), unless told. */
	int shared = 1;
	for (int r = 0; r < np && shared; r++)
	{
		char host[64];
		snprintf(host, sizeof(host), "n%d.CPU0", r);
		sg_host_t h = sg_host_by_name(host);
		const char *v = h ? sg_host_get_property_value(h, "time_shared") : NULL;
		shared = v && !strcmp(v, "1");
	}
	if (shared)
		setenv("VELA_MPI_SHARED_CORES", "1", 0);
	/* The runtime's own costs per task and per datum measured on the
	 * cluster's node (make-cluster.py --task-cost: node 0's RAM host),
	 * unless the environment sets them: one runtime per rank reads the
	 * same variables. */
	sg_host_t ram0 = sg_host_by_name("n0.RAM");
	const char *costs[2][2] = { { "sched_cost_us", "STARPU_SIMGRID_SCHED_COST" },
				    { "fetching_input_cost_us", "STARPU_SIMGRID_FETCHING_INPUT_COST" } };
	for (int k = 0; k < 2 && ram0; k++)
	{
		const char *v = sg_host_get_property_value(ram0, costs[k][0]);
		if (!v)
			continue;
		char *end, needle[64];
		double us = strtod(v, &end);
		if (end == v || *end || !(us >= 0) || !isfinite(us))
		{
			snprintf(needle, sizeof(needle), "\"%s\"", costs[k][0]);
			fprintf(stderr, "%s: %s:%d: host n0.RAM has %s='%s': a cost must be a non-negative number of "
				"microseconds\n", me, platform, line_of(platform, needle), costs[k][0], v);
			return 1;
		}
		setenv(costs[k][1], v, 0);
	}
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/vela-simrun-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
	{
		fprintf(stderr, "%s: cannot make a temporary directory %s: %s\n", me, tmpdir, strerror(errno));
		return 1;
	}
	/* Also when a rank calls exit(). */
	atexit(remove_tmpdir);
	simrun_mpi_setup(np);
	for (int r = 0; r < np; r++)
	{
		char host[64], rs[16];
		snprintf(host, sizeof(host), "n%d.MAIN", r);
		sg_host_t h = sg_host_by_name(host);
		if (!h)
		{
			snprintf(host, sizeof(host), "n%d.CPU0", r);
			h = sg_host_by_name(host);
		}
		snprintf(rs, sizeof(rs), "%d", r);
		char *aav[] = { rs, NULL };
		char name[32];
		snprintf(name, sizeof(name), "rank%d", r);
		sg_actor_create(name, h, rank_actor, 1, aav);
	}
	simgrid_run();
	remove_tmpdir();
	if (nfinished < np)
	{
		fprintf(stderr, "%s: %d of %d ranks never returned from main (a deadlock: see SimGrid's report above)\n", me,
			np - nfinished, np);
		if (!worst_status)
			worst_status = 1;
	}
	fprintf(stderr, "%s: %d ranks, simulated time %.9f s\n", me, np, simgrid_get_clock());
	fflush(NULL);
	/* Ranks' libraries have exit handlers of their own: leave without them. */
	_exit(worst_status);
}
