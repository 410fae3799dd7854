/* replay_rec.c — reads a tasks.rec (Vela's `vela trace export --format
 * rec`, or StarPU's starpu_fxt_tool output) into the graph `vela replay`
 * runs, and checks it: see replay.h.
 *
 * The file is GNU recutils text: records separated by blank lines, one
 * "Field: value" per line; '#' comments, '%' descriptors and '+'
 * continuation lines are skipped. Fields read (others are ignored, so
 * both tools' files load): Name, Model, JobId (required), SubmitOrder,
 * DependsOn, Priority, Footprint (hex), GFlop, Handles (hex), Modes,
 * Sizes, HomeNodes, Where, ModelType, NoCodelet. Value syntax is
 * trace_rec.c's (the same helpers write and read it).
 */
#include "replay.h"
#include "trace_reader.h"
#include "os/regular_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>

struct parser
{
	const char *path;
	unsigned line;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s:%u: %s", p->path, line, msg);
	return -EINVAL;
}

/* Growable arrays (a failed realloc leaves the array as it was). */
static int grow(void **arr, unsigned *cap, unsigned need, size_t size)
{
	if (need <= *cap)
		return 0;
	unsigned c = *cap ? *cap : 8;
	while (c < need)
		c *= 2;
	void *n = realloc(*arr, (size_t) c * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = c;
	return 0;
}

static int parse_u64(const char *s, int base, uint64_t *v)
{
	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char) *s))
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, base);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

static int parse_int(const char *s, long min, long max, long *v)
{
	char *end;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (!*s || errno || *end || x < min || x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

/* A record being read: the value lists are checked against each other at
 * its end. */
struct pending
{
	struct replay_task t;
	int has_job;
	uint64_t *handles, *sizes;
	unsigned *modes;
	int *homes;
	unsigned nh, ns, nm, nhome, caph, caps, capm, caphome, capdeps;
	unsigned handles_line, sizes_line, modes_line, homes_line;
};

static void pending_reset(struct pending *r)
{
	free(r->t.name);
	free(r->t.model);
	free(r->t.bufs);
	free(r->t.deps);
	free(r->handles);
	free(r->sizes);
	free(r->modes);
	free(r->homes);
	memset(r, 0, sizeof(*r));
}

/* Splits a value into space-separated tokens, calling each(token) until
 * one fails. */
#define FOR_TOKENS(value, tok, body) do { \
	char *save_ = NULL; \
	for (char *tok = strtok_r((value), " \t", &save_); tok; tok = strtok_r(NULL, " \t", &save_)) { body } \
} while (0)

static int field(struct parser *p, struct pending *r, const char *name, char *value)
{
	struct replay_task *t = &r->t;
	unsigned line = p->line;
	if (!strcmp(name, "Name") || !strcmp(name, "Model"))
	{
		char **dst = name[0] == 'N' ? &t->name : &t->model;
		free(*dst);
		if (!(*dst = strdup(value)))
			return -ENOMEM;
	}
	else if (!strcmp(name, "JobId"))
	{
		if (parse_u64(value, 10, &t->job) || t->job == 0)
			return fail(p, line, "JobId '%s' is not a positive integer", value);
		r->has_job = 1;
	}
	else if (!strcmp(name, "SubmitOrder"))
	{
		if (parse_u64(value, 10, &t->submit_order))
			return fail(p, line, "SubmitOrder '%s' is not an integer", value);
	}
	else if (!strcmp(name, "DependsOn"))
	{
		FOR_TOKENS(value, tok, {
			uint64_t d;
			if (parse_u64(tok, 10, &d) || d == 0)
				return fail(p, line, "DependsOn: '%s' is not a job id", tok);
			if (grow((void **) &t->deps, &r->capdeps, t->ndeps + 1, sizeof(*t->deps)))
				return -ENOMEM;
			t->deps[t->ndeps++] = d;
		});
	}
	else if (!strcmp(name, "Priority"))
	{
		long v;
		if (parse_int(value, -1000000000L, 1000000000L, &v))
			return fail(p, line, "Priority '%s' is not an integer", value);
		t->priority = (int) v;
	}
	else if (!strcmp(name, "Footprint"))
	{
		uint64_t v;
		if (parse_u64(value, 16, &v) || v > 0xffffffffULL)
			return fail(p, line, "Footprint '%s' is not a 32-bit hexadecimal number", value);
		t->footprint = (uint32_t) v;
		t->has_footprint = 1;
	}
	else if (!strcmp(name, "GFlop"))
	{
		char *end;
		double v = strtod(value, &end);
		if (!*value || *end || !(v >= 0) || v > 1e15)
			return fail(p, line, "GFlop '%s' is not a non-negative number", value);
		t->flops = v * 1e9;
	}
	else if (!strcmp(name, "Handles"))
	{
		r->handles_line = line;
		FOR_TOKENS(value, tok, {
			uint64_t v;
			if (parse_u64(tok, 16, &v))
				return fail(p, line, "Handles: '%s' is not a hexadecimal handle id", tok);
			if (grow((void **) &r->handles, &r->caph, r->nh + 1, sizeof(*r->handles)))
				return -ENOMEM;
			r->handles[r->nh++] = v;
		});
	}
	else if (!strcmp(name, "Sizes"))
	{
		r->sizes_line = line;
		FOR_TOKENS(value, tok, {
			uint64_t v;
			if (parse_u64(tok, 10, &v))
				return fail(p, line, "Sizes: '%s' is not a size in bytes", tok);
			if (grow((void **) &r->sizes, &r->caps, r->ns + 1, sizeof(*r->sizes)))
				return -ENOMEM;
			r->sizes[r->ns++] = v;
		});
	}
	else if (!strcmp(name, "Modes"))
	{
		r->modes_line = line;
		FOR_TOKENS(value, tok, {
			unsigned m;
			if (trace_mode_parse(tok, &m))
				return fail(p, line, "Modes: '%s' is not an access mode (letters R, W, S, X, C)", tok);
			if (grow((void **) &r->modes, &r->capm, r->nm + 1, sizeof(*r->modes)))
				return -ENOMEM;
			r->modes[r->nm++] = m;
		});
	}
	else if (!strcmp(name, "HomeNodes"))
	{
		r->homes_line = line;
		FOR_TOKENS(value, tok, {
			long v;
			if (parse_int(tok, -1, STARPU_MAXNODES - 1, &v))
				return fail(p, line, "HomeNodes: '%s' is not a memory node (-1 to %d)", tok, STARPU_MAXNODES - 1);
			if (grow((void **) &r->homes, &r->caphome, r->nhome + 1, sizeof(*r->homes)))
				return -ENOMEM;
			r->homes[r->nhome++] = (int) v;
		});
	}
	else if (!strcmp(name, "Where"))
	{
		FOR_TOKENS(value, tok, {
			if (trace_arch_parse(tok, &t->where))
				return fail(p, line, "Where: unknown arch '%s' (cpu, cuda, opencl, mic, mpi_ms)", tok);
		});
	}
	else if (!strcmp(name, "ModelType"))
	{
		if (trace_model_type_parse(value, &t->model_type))
			return fail(p, line, "ModelType: unknown type '%s' (per-arch, common, history, regression, "
				    "nl-regression, multiple-regression)", value);
	}
	else if (!strcmp(name, "NoCodelet"))
		t->nocodelet = !strcmp(value, "yes");
	return 0;
}

/* Handles: (id, size) -> index, open addressing. */
struct htab
{
	uint64_t *id, *size;
	unsigned *idx;			/* index + 1; 0: empty */
	unsigned cap, n;
};

static uint64_t hkey(uint64_t id, uint64_t size)
{
	uint64_t k = id * 0x9e3779b97f4a7c15ULL ^ (size + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;
	return k ^ (k >> 31);
}

static int htab_get(struct htab *h, uint64_t id, uint64_t size, unsigned *idx, int *isnew)
{
	if (2 * (h->n + 1) > h->cap)
	{
		unsigned cap = h->cap ? h->cap * 2 : 64;
		struct htab n = { calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(unsigned)),
				  cap, 0 };
		if (!n.id || !n.size || !n.idx)
		{
			free(n.id);
			free(n.size);
			free(n.idx);
			return -ENOMEM;
		}
		for (unsigned i = 0; i < h->cap; i++)
			if (h->idx[i])
			{
				unsigned s = (unsigned) (hkey(h->id[i], h->size[i]) & (cap - 1));
				while (n.idx[s])
					s = (s + 1) & (cap - 1);
				n.id[s] = h->id[i];
				n.size[s] = h->size[i];
				n.idx[s] = h->idx[i];
			}
		n.n = h->n;
		free(h->id);
		free(h->size);
		free(h->idx);
		*h = n;
	}
	unsigned s = (unsigned) (hkey(id, size) & (h->cap - 1));
	while (h->idx[s])
	{
		if (h->id[s] == id && h->size[s] == size)
		{
			*idx = h->idx[s] - 1;
			*isnew = 0;
			return 0;
		}
		s = (s + 1) & (h->cap - 1);
	}
	h->id[s] = id;
	h->size[s] = size;
	h->idx[s] = ++h->n;
	*idx = h->n - 1;
	*isnew = 1;
	return 0;
}

static void htab_free(struct htab *h)
{
	free(h->id);
	free(h->size);
	free(h->idx);
}

/* Ends a record: checks it and moves it into the graph. */
static int finish(struct parser *p, struct pending *r, struct replay_graph *g, unsigned *cap, struct htab *ht)
{
	struct replay_task *t = &r->t;
	if (!r->has_job)
		return fail(p, t->line, "record without a JobId");
	if (r->nh != r->nm || r->nh != r->ns)
		return fail(p, r->handles_line ? r->handles_line : r->modes_line ? r->modes_line : r->sizes_line,
			    "job %llu: %u Handles, %u Modes and %u Sizes: one of each per buffer", (unsigned long long) t->job,
			    r->nh, r->nm, r->ns);
	if (r->nhome && r->nhome != r->nh)
		return fail(p, r->homes_line, "job %llu: %u HomeNodes for %u Handles", (unsigned long long) t->job, r->nhome,
			    r->nh);
	if (!t->name && !t->model)
		t->nocodelet = 1;	/* StarPU's records of tasks without a codelet */
	if (t->nocodelet && r->nh)
		return fail(p, t->line, "job %llu: a task without codelet cannot have buffers", (unsigned long long) t->job);
	if (r->nh)
	{
		if (!(t->bufs = calloc(r->nh, sizeof(*t->bufs))))
			return -ENOMEM;
		t->nbuf = r->nh;
		for (unsigned i = 0; i < r->nh; i++)
		{
			struct replay_buf *b = &t->bufs[i];
			b->handle = r->handles[i];
			b->size = r->sizes[i];
			b->mode = r->modes[i];
			b->home = r->nhome ? r->homes[i] : -1;
			int isnew;
			if (htab_get(ht, b->handle, b->size, &b->hidx, &isnew))
				return -ENOMEM;
			if (isnew)
			{
				/* Sized to the count: grow() reallocates when a handle is new. */
				unsigned c1 = g->nhandles, c2 = g->nhandles;
				if (grow((void **) &g->handle_size, &c1, ht->n, sizeof(*g->handle_size)) ||
				    grow((void **) &g->handle_home, &c2, ht->n, sizeof(*g->handle_home)))
					return -ENOMEM;
				g->handle_size[b->hidx] = b->size;
				g->handle_home[b->hidx] = b->home;
				g->nhandles = ht->n;
			}
		}
	}
	if (grow((void **) &g->tasks, cap, g->ntasks + 1, sizeof(*g->tasks)))
		return -ENOMEM;
	t->codelet = -1;
	g->tasks[g->ntasks++] = *t;
	g->total_flops += t->flops;
	g->ndeps += t->ndeps;
	memset(t, 0, sizeof(*t));
	pending_reset(r);
	return 0;
}

static int cmp_order(const void *a, const void *b)
{
	const struct replay_task *x = a, *y = b;
	if (x->submit_order != y->submit_order)
		return x->submit_order < y->submit_order ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

static int cmp_job(const void *a, const void *b)
{
	const struct replay_task *x = a, *y = b;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* Index of job in tasks sorted by job (by_job), or -1. */
static long find_job(const unsigned *by_job, const struct replay_task *tasks, unsigned n, uint64_t job)
{
	unsigned lo = 0, hi = n;
	while (lo < hi)
	{
		unsigned mid = (lo + hi) / 2;
		if (tasks[by_job[mid]].job < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && tasks[by_job[lo]].job == job ? (long) by_job[lo] : -1;
}

static const struct replay_task *sort_tasks;

static int cmp_index_job(const void *a, const void *b)
{
	return cmp_job(&sort_tasks[*(const unsigned *) a], &sort_tasks[*(const unsigned *) b]);
}

/* Dependencies as indices; duplicate job ids, unknown ids and cycles
 * (explicit dependencies together with the data dependencies the runtime
 * will infer in submission order) are errors. */
static int resolve(struct parser *p, struct replay_graph *g)
{
	unsigned n = g->ntasks;
	int all_ordered = 1;
	for (unsigned i = 0; i < n; i++)
		all_ordered &= g->tasks[i].submit_order != 0;
	qsort(g->tasks, n, sizeof(*g->tasks), all_ordered ? cmp_order : cmp_job);

	unsigned *by_job = malloc((n ? n : 1) * sizeof(*by_job));
	if (!by_job)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		by_job[i] = i;
	sort_tasks = g->tasks;
	qsort(by_job, n, sizeof(*by_job), cmp_index_job);
	int ret = 0;
	for (unsigned i = 1; i < n && !ret; i++)
		if (g->tasks[by_job[i]].job == g->tasks[by_job[i - 1]].job)
		{
			const struct replay_task *a = &g->tasks[by_job[i - 1]], *b = &g->tasks[by_job[i]];
			ret = fail(p, a->line > b->line ? a->line : b->line, "JobId %llu appears twice (also line %u)",
				   (unsigned long long) a->job, a->line < b->line ? a->line : b->line);
		}
	for (unsigned i = 0; i < n && !ret; i++)
	{
		struct replay_task *t = &g->tasks[i];
		if (!t->ndeps)
			continue;
		if (!(t->pred_index = malloc(t->ndeps * sizeof(*t->pred_index))))
		{
			ret = -ENOMEM;
			break;
		}
		for (unsigned d = 0; d < t->ndeps; d++)
		{
			long k = find_job(by_job, g->tasks, n, t->deps[d]);
			if (k < 0)
			{
				ret = fail(p, t->line, "job %llu depends on job %llu, which is not in the file",
					   (unsigned long long) t->job, (unsigned long long) t->deps[d]);
				break;
			}
			if ((unsigned) k == i)
			{
				ret = fail(p, t->line, "job %llu depends on itself", (unsigned long long) t->job);
				break;
			}
			t->pred_index[d] = (unsigned) k;
		}
	}
	free(by_job);
	if (ret)
		return ret;

	/* Cycles: Kahn's algorithm over explicit and data edges. Data edges
	 * follow submission order (readers after the last writer, a writer
	 * after the readers since, or the writer); commute and reduction
	 * accesses count as writers, which only adds edges. */
	unsigned *indeg = calloc(n ? n : 1, sizeof(*indeg)), nedges = 0, capedges = 0;
	unsigned *last_w = malloc((g->nhandles ? g->nhandles : 1) * sizeof(*last_w));
	unsigned **readers = calloc(g->nhandles ? g->nhandles : 1, sizeof(*readers));
	unsigned *nreaders = calloc(g->nhandles ? g->nhandles : 1, sizeof(*nreaders));
	unsigned *capreaders = calloc(g->nhandles ? g->nhandles : 1, sizeof(*capreaders));
	struct edge { unsigned from, to; } *edges = NULL;
	if (!indeg || !last_w || !readers || !nreaders || !capreaders)
		ret = -ENOMEM;
	for (unsigned h = 0; h < g->nhandles && !ret; h++)
		last_w[h] = UINT32_MAX;
#define ADD_EDGE(a, b) do { \
	if (grow((void **) &edges, &capedges, nedges + 1, sizeof(*edges))) { ret = -ENOMEM; goto out; } \
	edges[nedges++] = (struct edge) { (a), (b) }; \
	indeg[(b)]++; \
} while (0)
	for (unsigned i = 0; i < n && !ret; i++)
	{
		struct replay_task *t = &g->tasks[i];
		unsigned first_data = nedges;
		/* Data edges first; with them, which DependsOn are implied:
		 * plain R/W accesses only (a commute or reduction group orders
		 * less than the conservative edges below). */
		int exact = 1;
		for (unsigned b = 0; b < t->nbuf; b++)
		{
			unsigned h = t->bufs[b].hidx, mode = t->bufs[b].mode;
			if (mode & STARPU_SCRATCH)
				continue;
			if (mode & (STARPU_COMMUTE | STARPU_REDUX))
				exact = 0;
			if (mode == STARPU_R)
			{
				if (last_w[h] != UINT32_MAX && last_w[h] != i)
					ADD_EDGE(last_w[h], i);
				if (grow((void **) &readers[h], &capreaders[h], nreaders[h] + 1, sizeof(**readers)))
				{
					ret = -ENOMEM;
					goto out;
				}
				readers[h][nreaders[h]++] = i;
				continue;
			}
			if (nreaders[h])
			{
				for (unsigned r = 0; r < nreaders[h]; r++)
					if (readers[h][r] != i)
						ADD_EDGE(readers[h][r], i);
			}
			else if (last_w[h] != UINT32_MAX && last_w[h] != i)
				ADD_EDGE(last_w[h], i);
			nreaders[h] = 0;
			last_w[h] = i;
		}
		unsigned last_data = nedges, k = 0;
		for (unsigned d = 0; d < t->ndeps; d++)
		{
			unsigned pred = t->pred_index[d];
			int implied = 0;
			for (unsigned e = first_data; exact && e < last_data && !implied; e++)
				implied = edges[e].from == pred;
			if (!implied)
			{
				/* Declared ones first (swap keeps the set). */
				t->pred_index[d] = t->pred_index[k];
				t->pred_index[k++] = pred;
				ADD_EDGE(pred, i);
			}
		}
		t->nexplicit = k;
		g->nexplicit += k;
	}
#undef ADD_EDGE
	if (!ret)
	{
		/* Edges by source, then a queue of tasks with nothing left to wait for. */
		unsigned *start = calloc(n + 1, sizeof(*start)), *adj = malloc((nedges ? nedges : 1) * sizeof(*adj));
		unsigned *queue = malloc((n ? n : 1) * sizeof(*queue));
		if (!start || !adj || !queue)
			ret = -ENOMEM;
		else
		{
			for (unsigned e = 0; e < nedges; e++)
				start[edges[e].from + 1]++;
			for (unsigned i = 0; i < n; i++)
				start[i + 1] += start[i];
			unsigned *fill = malloc((n ? n : 1) * sizeof(*fill));
			if (!fill)
				ret = -ENOMEM;
			else
			{
				memcpy(fill, start, n * sizeof(*fill));
				for (unsigned e = 0; e < nedges; e++)
					adj[fill[edges[e].from]++] = edges[e].to;
				free(fill);
				unsigned head = 0, tail = 0;
				for (unsigned i = 0; i < n; i++)
					if (!indeg[i])
						queue[tail++] = i;
				while (head < tail)
				{
					unsigned v = queue[head++];
					for (unsigned e = start[v]; e < start[v + 1]; e++)
						if (--indeg[adj[e]] == 0)
							queue[tail++] = adj[e];
				}
				if (tail < n)
				{
					unsigned bad = 0;
					while (!indeg[bad])
						bad++;
					ret = fail(p, g->tasks[bad].line,
						   "job %llu is on a dependency cycle (DependsOn together with the data "
						   "dependencies of submission order): the graph cannot run",
						   (unsigned long long) g->tasks[bad].job);
				}
			}
		}
		free(start);
		free(adj);
		free(queue);
	}
out:
	for (unsigned h = 0; readers && h < g->nhandles; h++)
		free(readers[h]);
	free(readers);
	free(nreaders);
	free(capreaders);
	free(last_w);
	free(indeg);
	free(edges);
	return ret;
}

int replay_load(const char *path, struct replay_graph *g, char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	const char *kind;
	int fd = os_open_regular(path, O_RDONLY, 0, NULL, &kind);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f)
	{
		int e = fd < 0 ? -fd : errno;
		if (fd >= 0)
			close(fd);
		if (kind)
			snprintf(err, errlen, "'%s' is %s, not a tasks.rec file", path, kind);
		else
			snprintf(err, errlen, "cannot open '%s': %s", path, strerror(e));
		return -e;
	}
	int ret = replay_read(f, path, g, err, errlen);
	fclose(f);
	return ret;
}

int replay_read(FILE *f, const char *path, struct replay_graph *g, char *err, size_t errlen)
{
	memset(g, 0, sizeof(*g));
	struct parser p = { path, 0, err, errlen };
	if (!(g->path = strdup(path)))
	{
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	struct pending r;
	struct htab ht;
	memset(&r, 0, sizeof(r));
	memset(&ht, 0, sizeof(ht));
	unsigned cap = 0;
	int in_record = 0, ret = 0;
	char *line = NULL;
	size_t linecap = 0;
	ssize_t len;
	while (!ret && (len = getline(&line, &linecap, f)) >= 0)
	{
		p.line++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if ((size_t) len != strlen(line))
		{
			ret = fail(&p, p.line, "NUL byte in a line: not a tasks.rec file");
			break;
		}
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
		{
			if (in_record)
				ret = finish(&p, &r, g, &cap, &ht);
			in_record = 0;
			continue;
		}
		if (line[0] == '#' || line[0] == '%' || line[0] == '+')
			continue;
		char *colon = line;
		while (isalnum((unsigned char) *colon) || *colon == '_')
			colon++;
		if (colon == line || *colon != ':')
		{
			ret = fail(&p, p.line, "not a 'Field: value' line: '%.60s'", line);
			break;
		}
		*colon = 0;
		char *value = colon + 1;
		while (*value == ' ' || *value == '\t')
			value++;
		char *end = value + strlen(value);
		while (end > value && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = 0;
		if (!in_record)
		{
			in_record = 1;
			r.t.line = p.line;
		}
		ret = field(&p, &r, line, value);
	}
	if (!ret && ferror(f))
	{
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		ret = -EIO;
	}
	if (!ret && in_record)
		ret = finish(&p, &r, g, &cap, &ht);
	free(line);
	pending_reset(&r);
	htab_free(&ht);
	if (!ret && !g->ntasks)
	{
		snprintf(err, errlen, "%s: no task records (expected 'JobId: N' lines)", path);
		ret = -EINVAL;
	}
	if (!ret)
		ret = resolve(&p, g);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (ret)
		replay_free(g);
	return ret;
}

void replay_free(struct replay_graph *g)
{
	for (unsigned i = 0; i < g->ntasks; i++)
	{
		struct replay_task *t = &g->tasks[i];
		free(t->name);
		free(t->model);
		free(t->bufs);
		free(t->deps);
		free(t->pred_index);
	}
	free(g->tasks);
	free(g->handle_size);
	free(g->handle_home);
	free(g->path);
	memset(g, 0, sizeof(*g));
}
