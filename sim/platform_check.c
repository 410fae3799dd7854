/* platform_check.c — a platform file checked before SimGrid reads it.
 *
 * SimGrid treats some mistakes in a platform file as fatal: a duplicate
 * <link> or <route>, an unknown routing= value, a <prop> without id or
 * value abort the process (SIGABRT, in the hijack boot before main), and a
 * link of bandwidth 0 or less aborts at the first transfer over it (so one
 * that a route uses is refused; StarPU's files have an unused one). Others it
 * ignores (a host's memsize of "lots"). So every boot first scans the file
 * here, the way SimGrid will read it (elements and attributes, comments
 * skipped), and refuses it with file:line and the reason: starpu_init then
 * returns -EINVAL. Well-formedness itself is left to SimGrid's parser,
 * whose errors are reported, not fatal.
 */
#include "sg_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FILE (64u << 20)
#define MAX_ATTRS 16
#define MAX_DEPTH 64

struct attr
{
	const char *name, *value;
	size_t nlen, vlen;
};

struct elem
{
	const char *name;
	size_t nlen;
	struct attr attrs[MAX_ATTRS];
	unsigned nattrs;
	int line;
};

/* Names seen, with their line: links, hosts, routes (per zone). */
struct seen
{
	char *key;
	int line;
	int zone;
};

struct checker
{
	const char *path;
	char *err;
	size_t errsize;
	struct seen *seen;
	size_t nseen, capseen;
	int zone_ids[MAX_DEPTH];	/* open zones, innermost last */
	int nzones, next_zone;
	int in_host;			/* inside a <host> element: its line, else 0 */
	char host[128];
};

static int bad(struct checker *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(struct checker *c, int line, const char *fmt, ...)
{
	int n = snprintf(c->err, c->errsize, "platform file %s:%d: ", c->path, line);
	if (n > 0 && (size_t) n < c->errsize)
	{
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errsize - (size_t) n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const struct attr *get(const struct elem *e, const char *name)
{
	for (unsigned i = 0; i < e->nattrs; i++)
		if (e->attrs[i].nlen == strlen(name) && !strncmp(e->attrs[i].name, name, e->attrs[i].nlen))
			return &e->attrs[i];
	return NULL;
}

static int is(const struct elem *e, const char *name)
{
	return e->nlen == strlen(name) && !strncmp(e->name, name, e->nlen);
}

/* Records key in zone (-1: global); the line of an earlier one, else 0. */
static int remember(struct checker *c, const char *kind, const struct attr *a1, const struct attr *a2, int zone,
		    int line)
{
	char key[600];
	snprintf(key, sizeof(key), "%s\x01%.*s\x01%.*s", kind, (int) a1->vlen, a1->value, a2 ? (int) a2->vlen : 0,
		 a2 ? a2->value : "");
	for (size_t i = 0; i < c->nseen; i++)
		if (c->seen[i].zone == zone && !strcmp(c->seen[i].key, key))
			return c->seen[i].line;
	if (c->nseen == c->capseen)
	{
		size_t cap = c->capseen ? 2 * c->capseen : 64;
		struct seen *s = realloc(c->seen, cap * sizeof(*s));
		if (!s)
			return 0;	/* cannot tell: SimGrid will */
		c->seen = s;
		c->capseen = cap;
	}
	char *k = strdup(key);
	if (!k)
		return 0;
	c->seen[c->nseen++] = (struct seen) { k, line, zone };
	return 0;
}

static const char *const routings[] = {
	"Full", "Floyd", "Dijkstra", "DijkstraCache", "None", "Vivaldi", "Cluster", "ClusterFatTree",
	"ClusterTorus", "ClusterDragonfly", "Wifi", NULL
};


/* The host properties that are measured costs: a non-negative number of
 * microseconds each (vela calibrate-bus, calibrate-wakeup,
 * platforms/calibrate-mpi.sh). */
static int is_cost_prop(const char *id, size_t len)
{
	static const char *const names[] = {
		"malloc_cost_us", "malloc_cost_us_per_mib", "first_copy_us_per_mib", "timer_overshoot_us", "wakeup_us",
		"mpi_insert_us", "mpi_insert_us_per_datum", "mpi_insert_local_us", "mpi_insert_local_us_per_datum",
		"mpi_insert_send_us", "mpi_insert_recv_us", "sched_cost_us", "fetching_input_cost_us",
	};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (strlen(names[k]) == len && !strncmp(id, names[k], len))
			return 1;
	return 0;
}

static int check_elem(struct checker *c, const struct elem *e)
{
	int line = e->line;
	if (is(e, "zone") || is(e, "AS"))
	{
		const struct attr *r = get(e, "routing");
		if (r)
		{
			int ok = 0;
			for (unsigned i = 0; routings[i] && !ok; i++)
				ok = strlen(routings[i]) == r->vlen && !strncmp(routings[i], r->value, r->vlen);
			if (!ok)
				return bad(c, line, "<%.*s routing='%.*s'>: not a routing SimGrid knows (Full, Floyd, Dijkstra, "
					   "DijkstraCache, None, Vivaldi, Cluster, ...)", (int) e->nlen, e->name, (int) r->vlen, r->value);
		}
	}
	else if (is(e, "link"))
	{
		const struct attr *id = get(e, "id"), *bw = get(e, "bandwidth");
		if (!id)
			return bad(c, line, "<link> without an id");
		int first = remember(c, "link", id, NULL, -1, line);
		if (first)
			return bad(c, line, "<link id='%.*s'> is defined twice (first at line %d)", (int) id->vlen, id->value,
				   first);
		if (bw)
		{
			char v[64];
			snprintf(v, sizeof(v), "%.*s", (int) (bw->vlen < 63 ? bw->vlen : 63), bw->value);
			char *end;
			double b = strtod(v, &end);
			if (end == v)
				return bad(c, line, "<link id='%.*s'> has bandwidth '%s': not a number", (int) id->vlen,
					   id->value, v);
			/* Harmless until a route uses it (StarPU's own platform
			 * files have an unused link of bandwidth 0). */
			if (!(b > 0))
				remember(c, "badbw", id, bw, -1, line);
		}
	}
	else if (is(e, "link_ctn"))
	{
		const struct attr *id = get(e, "id");
		for (size_t i = 0; id && i < c->nseen; i++)
		{
			const char *k = c->seen[i].key;
			if (strncmp(k, "badbw\x01", 6) || strncmp(k + 6, id->value, id->vlen) || k[6 + id->vlen] != '\x01')
				continue;
			return bad(c, line, "a route uses link '%.*s', whose bandwidth '%s' (line %d) is not a positive number",
				   (int) id->vlen, id->value, k + 7 + id->vlen, c->seen[i].line);
		}
	}
	else if (is(e, "host"))
	{
		const struct attr *id = get(e, "id");
		if (!id)
			return bad(c, line, "<host> without an id");
		int first = remember(c, "host", id, NULL, -1, line);
		if (first)
			return bad(c, line, "<host id='%.*s'> is defined twice (first at line %d)", (int) id->vlen, id->value,
				   first);
		snprintf(c->host, sizeof(c->host), "%.*s", (int) id->vlen, id->value);
	}
	else if (is(e, "route"))
	{
		const struct attr *src = get(e, "src"), *dst = get(e, "dst"), *sym = get(e, "symmetrical");
		if (!src || !dst)
			return bad(c, line, "<route> without src or dst");
		int zone = c->nzones ? c->zone_ids[c->nzones - 1] : 0;
		int first = remember(c, "route", src, dst, zone, line);
		if (first)
			return bad(c, line, "the route from '%.*s' to '%.*s' is defined twice (first at line %d)",
				   (int) src->vlen, src->value, (int) dst->vlen, dst->value, first);
		int symmetrical = !sym || (sym->vlen == 3 && !strncasecmp(sym->value, "YES", 3));
		if (symmetrical && !(src->vlen == dst->vlen && !strncmp(src->value, dst->value, src->vlen)))
		{
			first = remember(c, "route", dst, src, zone, line);
			if (first)
				return bad(c, line, "the route from '%.*s' to '%.*s' (symmetrical) is also defined at line %d",
					   (int) src->vlen, src->value, (int) dst->vlen, dst->value, first);
		}
	}
	else if (is(e, "prop"))
	{
		const struct attr *id = get(e, "id"), *value = get(e, "value");
		if (!id || !value)
			return bad(c, line, "<prop> needs both id and value attributes");
		if (c->in_host && id->vlen == 7 && !strncmp(id->value, "memsize", 7))
		{
			char v[64];
			snprintf(v, sizeof(v), "%.*s", (int) (value->vlen < 63 ? value->vlen : 63), value->value);
			char *end;
			errno = 0;
			long long m = strtoll(v, &end, 10);
			if (end == v || *end || errno || m <= 0)
				return bad(c, line, "host %s has memsize='%s': a memsize must be a positive number of bytes",
					   c->host, v);
		}
		/* A measured cost (a device's allocation, a core's wake-ups, an
		 * MPI insertion). */
		if (c->in_host && is_cost_prop(id->value, id->vlen))
		{
			char v[64];
			snprintf(v, sizeof(v), "%.*s", (int) (value->vlen < 63 ? value->vlen : 63), value->value);
			char *end;
			errno = 0;
			double d = strtod(v, &end);
			if (end == v || *end || errno || !(d >= 0.0) || !isfinite(d))
				return bad(c, line, "host %s has %.*s='%s': a cost must be a non-negative number of microseconds",
					   c->host, (int) id->vlen, id->value, v);
		}
		/* A device whose copies run on the engine of its kernels (0 or 1). */
		if (c->in_host && id->vlen == 17 && !strncmp(id->value, "copies_on_compute", 17) &&
		    !(value->vlen == 1 && (value->value[0] == '0' || value->value[0] == '1')))
			return bad(c, line, "host %s has copies_on_compute='%.*s': it must be 0 or 1", c->host,
				   (int) (value->vlen < 63 ? value->vlen : 63), value->value);
		/* Messages above mpi_copy_above bytes copied by the receiver at
		 * mpi_copy_Bps (sim/simrun_mpi.c). */
		if (c->in_host && ((id->vlen == 14 && !strncmp(id->value, "mpi_copy_above", 14)) ||
				   (id->vlen == 12 && !strncmp(id->value, "mpi_copy_Bps", 12))))
		{
			char v[64];
			snprintf(v, sizeof(v), "%.*s", (int) (value->vlen < 63 ? value->vlen : 63), value->value);
			char *end;
			errno = 0;
			double d = strtod(v, &end);
			int bps = id->vlen == 12;
			if (end == v || *end || errno || !isfinite(d) || (bps ? !(d > 0.0) : !(d >= 0.0)))
				return bad(c, line, "host %s has %.*s='%s': it must be %s", c->host, (int) id->vlen, id->value,
					   v, bps ? "a bandwidth > 0 in bytes per second" : "a number of bytes >= 0");
		}
		/* A core shared by the runtime threads placed on it (0 or 1). */
		if (c->in_host && id->vlen == 11 && !strncmp(id->value, "time_shared", 11) &&
		    !(value->vlen == 1 && (value->value[0] == '0' || value->value[0] == '1')))
			return bad(c, line, "host %s has time_shared='%.*s': it must be 0 or 1", c->host,
				   (int) (value->vlen < 63 ? value->vlen : 63), value->value);
	}
	return 0;
}

/* Scans the elements of text; 0 or -EINVAL (c->err). */
static int scan(struct checker *c, const char *text, size_t size)
{
	const char *p = text, *end = text + size;
	int line = 1;
	while (p < end)
	{
		if (*p == '\n')
			line++;
		if (*p != '<')
		{
			p++;
			continue;
		}
		if (end - p >= 4 && !strncmp(p, "<!--", 4))
		{
			const char *q = p + 4;
			while (q + 3 <= end && strncmp(q, "-->", 3))
				line += *q++ == '\n';
			p = q + 3 <= end ? q + 3 : end;
			continue;
		}
		if (p + 1 < end && (p[1] == '?' || p[1] == '!'))
		{
			while (p < end && *p != '>')
				line += *p++ == '\n';
			continue;
		}
		int closing = p + 1 < end && p[1] == '/';
		const char *q = p + 1 + closing;
		struct elem e = { .name = q, .line = line };
		while (q < end && !strchr(" \t\r\n/>", *q))
			q++;
		e.nlen = (size_t) (q - e.name);
		int selfclose = 0;
		/* Attributes: name="value" or name='value'. */
		while (q < end && *q != '>')
		{
			if (*q == '\n')
				line++;
			if (*q == '/')
				selfclose = 1;
			if (strchr(" \t\r\n/", *q))
			{
				q++;
				continue;
			}
			const char *an = q;
			while (q < end && !strchr(" \t\r\n=/>", *q))
				q++;
			size_t anl = (size_t) (q - an);
			while (q < end && strchr(" \t\r\n", *q))
				line += *q++ == '\n';
			if (q >= end || *q != '=')
				continue;	/* malformed: SimGrid's parser will say */
			q++;
			while (q < end && strchr(" \t\r\n", *q))
				line += *q++ == '\n';
			if (q >= end || (*q != '"' && *q != '\''))
				continue;
			char quote = *q++;
			const char *av = q;
			while (q < end && *q != quote)
				line += *q++ == '\n';
			if (e.nattrs < MAX_ATTRS)
				e.attrs[e.nattrs++] = (struct attr) { an, av, anl, (size_t) (q - av) };
			if (q < end)
				q++;
		}
		p = q < end ? q + 1 : end;
		int zone = is(&e, "zone") || is(&e, "AS");
		if (closing)
		{
			if (zone && c->nzones > 0)
				c->nzones--;
			else if (is(&e, "host"))
				c->in_host = 0;
			continue;
		}
		int ret = check_elem(c, &e);
		if (ret)
			return ret;
		if (zone && !selfclose && c->nzones < MAX_DEPTH)
			c->zone_ids[c->nzones++] = ++c->next_zone;
		if (is(&e, "host"))
			c->in_host = selfclose ? 0 : e.line;
	}
	return 0;
}

int sg_platform_validate(const char *path, char *err, size_t errsize)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;	/* SimGrid says it cannot open it */
	long size = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	rewind(f);
	char *text = size >= 0 && size <= (long) MAX_FILE ? malloc((size_t) size + 1) : NULL;
	if (!text)
	{
		fclose(f);
		return 0;	/* too large to check here: SimGrid reads it */
	}
	size_t n = fread(text, 1, (size_t) size, f);
	fclose(f);
	struct checker c = { .path = path, .err = err, .errsize = errsize };
	int ret = scan(&c, text, n);
	for (size_t i = 0; i < c.nseen; i++)
		free(c.seen[i].key);
	free(c.seen);
	free(text);
	return ret;
}
