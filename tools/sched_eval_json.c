/* sched_eval_json.c — the CI verdict of `vela sched-eval`: reads a baseline
 * (the results.json of an earlier evaluation) and compares each case's
 * makespan with the same case there (same platform name, policy name and
 * GPU count).
 *
 * The reader is a small JSON parser (objects, arrays, strings, numbers,
 * literals) into a tree: it accepts any valid JSON and reports the byte
 * offset and the reason for anything else, so a corrupt or truncated
 * baseline is one line naming the file, never a crash or a silent pass.
 */
#include "tools/sched_eval.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval
{
	enum jtype type;
	double num;
	char *str;			/* J_STR: owned */
	struct jval *items;		/* J_ARR, J_OBJ: owned, n entries */
	char **keys;			/* J_OBJ: owned */
	unsigned n;
};

struct parser
{
	const char *s, *end;
	const char *err;
	size_t err_at;
	const char *start;
	unsigned depth;
};

static void jfree(struct jval *v)
{
	free(v->str);
	for (unsigned i = 0; i < v->n; i++)
	{
		jfree(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	memset(v, 0, sizeof(*v));
}

static int perr(struct parser *p, const char *why)
{
	if (!p->err)
	{
		p->err = p->s >= p->end ? "unexpected end of file" : why;
		p->err_at = (size_t) (p->s - p->start);
	}
	return -1;
}

static void ws(struct parser *p)
{
	while (p->s < p->end && isspace((unsigned char) *p->s))
		p->s++;
}

static int parse_value(struct parser *p, struct jval *v);

static int parse_string(struct parser *p, char **out)
{
	p->s++;			/* the opening quote */
	size_t cap = 16, n = 0;
	char *b = malloc(cap);
	if (!b)
		return perr(p, "out of memory");
	while (p->s < p->end && *p->s != '"')
	{
		char ch = *p->s++;
		if ((unsigned char) ch < 0x20)
		{
			free(b);
			return perr(p, "control character in a string");
		}
		if (ch == '\\')
		{
			if (p->s >= p->end)
				break;
			char e = *p->s++;
			const char *map = strchr("\"\\/bfnrt", e);
			if (e == 'u')
			{
				/* Kept as '?': names here are ASCII. */
				for (int k = 0; k < 4; k++, p->s++)
					if (p->s >= p->end || !isxdigit((unsigned char) *p->s))
					{
						free(b);
						return perr(p, "bad \\u escape");
					}
				ch = '?';
			}
			else if (!map)
			{
				free(b);
				return perr(p, "bad escape in a string");
			}
			else
				ch = "\"\\/\b\f\n\r\t"[map - "\"\\/bfnrt"];
		}
		if (n + 2 > cap)
		{
			char *nb = realloc(b, cap *= 2);
			if (!nb)
			{
				free(b);
				return perr(p, "out of memory");
			}
			b = nb;
		}
		b[n++] = ch;
	}
	if (p->s >= p->end)
	{
		free(b);
		return perr(p, "unterminated string");
	}
	p->s++;
	b[n] = 0;
	*out = b;
	return 0;
}

static int parse_items(struct parser *p, struct jval *v, int object)
{
	char close = object ? '}' : ']';
	p->s++;
	ws(p);
	if (p->s < p->end && *p->s == close)
	{
		p->s++;
		return 0;
	}
	unsigned cap = 0;
	for (;;)
	{
		if (v->n == cap)
		{
			cap = cap ? 2 * cap : 8;
			struct jval *ni = realloc(v->items, cap * sizeof(*ni));
			if (ni)
				v->items = ni;
			char **nk = object ? realloc(v->keys, cap * sizeof(*nk)) : NULL;
			if (nk)
				v->keys = nk;
			if (!ni || (object && !nk))
				return perr(p, "out of memory");
		}
		ws(p);
		if (object)
		{
			if (p->s >= p->end || *p->s != '"')
				return perr(p, "expected a key string");
			if (parse_string(p, &v->keys[v->n]))
				return -1;
			ws(p);
			if (p->s >= p->end || *p->s != ':')
			{
				free(v->keys[v->n]);
				return perr(p, "expected ':'");
			}
			p->s++;
		}
		memset(&v->items[v->n], 0, sizeof(v->items[0]));
		int r = parse_value(p, &v->items[v->n]);
		v->n++;		/* freed with the rest even when incomplete */
		if (r)
			return -1;
		ws(p);
		if (p->s < p->end && *p->s == ',')
		{
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == close)
		{
			p->s++;
			return 0;
		}
		return perr(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int parse_value(struct parser *p, struct jval *v)
{
	ws(p);
	if (p->s >= p->end)
		return perr(p, "unexpected end of file");
	if (++p->depth > 64)
		return perr(p, "nested too deeply");
	int r = 0;
	char ch = *p->s;
	if (ch == '{' || ch == '[')
	{
		v->type = ch == '{' ? J_OBJ : J_ARR;
		r = parse_items(p, v, ch == '{');
	}
	else if (ch == '"')
	{
		v->type = J_STR;
		r = parse_string(p, &v->str);
	}
	else if (ch == '-' || isdigit((unsigned char) ch))
	{
		char buf[64], *end;
		size_t n = 0;
		while (p->s + n < p->end && n < sizeof(buf) - 1 && strchr("+-.eE0123456789", p->s[n]))
			n++;
		memcpy(buf, p->s, n);
		buf[n] = 0;
		v->type = J_NUM;
		v->num = strtod(buf, &end);
		if (end != buf + n || !isfinite(v->num))
			r = perr(p, "malformed number");
		else
			p->s += n;
	}
	else
	{
		static const struct { const char *word; enum jtype type; } lits[] = {
			{ "null", J_NULL }, { "true", J_BOOL }, { "false", J_BOOL } };
		r = perr(p, "unexpected character");
		for (unsigned i = 0; i < 3; i++)
		{
			size_t n = strlen(lits[i].word);
			if ((size_t) (p->end - p->s) >= n && !memcmp(p->s, lits[i].word, n))
			{
				p->err = NULL;
				v->type = lits[i].type;
				v->num = i == 1;
				p->s += n;
				r = 0;
				break;
			}
		}
	}
	p->depth--;
	return r;
}

static const struct jval *member(const struct jval *o, const char *key, enum jtype type)
{
	if (o->type != J_OBJ)
		return NULL;
	for (unsigned i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->items[i].type == type ? &o->items[i] : NULL;
	return NULL;
}

/* Reads path into *root; 0, or -1 after a message naming the file. */
static int load(const char *path, struct jval *root, FILE *err)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > (1 << 30))
	{
		fprintf(err, "vela %s: --baseline '%s': %s\n", SE_CMD, path,
			!f ? strerror(errno) : "not a regular file of at most 1 GiB");
		if (f)
			fclose(f);
		return -1;
	}
	size_t size = (size_t) st.st_size;
	char *text = malloc(size + 1);
	if (!text || fread(text, 1, size, f) != size)
	{
		fprintf(err, "vela %s: --baseline '%s': cannot read it\n", SE_CMD, path);
		free(text);
		fclose(f);
		return -1;
	}
	fclose(f);
	struct parser p = { .s = text, .end = text + size, .start = text };
	memset(root, 0, sizeof(*root));
	int r = parse_value(&p, root);
	ws(&p);
	if (!r && p.s < p.end)
		r = perr(&p, "text after the JSON value");
	if (r)
		fprintf(err, "vela %s: --baseline '%s': byte %zu: %s\n", SE_CMD, path, p.err_at, p.err);
	else if (!member(root, "cases", J_ARR))
	{
		fprintf(err, "vela %s: --baseline '%s': not the results.json of vela sched-eval (no \"cases\" array)\n",
			SE_CMD, path);
		r = -1;
	}
	free(text);
	if (r)
		jfree(root);
	return r;
}

int se_compare_baseline(const struct se_run *run, const char *path, double tolerance, FILE *out, FILE *err)
{
	struct jval root;
	if (load(path, &root, err))
		return -1;
	const struct jval *cases = member(&root, "cases", J_ARR);
	unsigned nreg = 0, nimp = 0, nsame = 0, nnew = 0;
	fprintf(out, "\nbaseline %s (tolerance %g%%):\n", path, 100 * tolerance);
	for (unsigned i = 0; i < run->ncases; i++)
	{
		const struct se_case *c = &run->cases[i];
		const char *plat = run->platforms[c->platform].name, *pol = run->policies[c->policy].name;
		int gpus = c->gpus >= 0 ? c->gpus : run->platforms[c->platform].ngpus;
		const struct jval *b = NULL;
		for (unsigned k = 0; k < cases->n && !b; k++)
		{
			const struct jval *x = &cases->items[k], *bp = member(x, "platform", J_STR),
					  *bs = member(x, "policy", J_STR), *bg = member(x, "gpus", J_NUM);
			if (bp && bs && bg && !strcmp(bp->str, plat) && !strcmp(bs->str, pol) && bg->num == gpus)
				b = x;
		}
		const struct jval *st = b ? member(b, "status", J_STR) : NULL, *ms = b ? member(b, "makespan_ms", J_NUM) : NULL;
		char label[256];
		se_case_label(run, c, label, sizeof(label));
		if (!b || !st || strcmp(st->str, "ok") || !ms || !(ms->num > 0))
		{
			nnew++;
			continue;
		}
		if (!c->r.ok)
		{
			fprintf(err, "vela %s: regression: %s: failed, %.3f ms in the baseline\n", SE_CMD, label, ms->num);
			nreg++;
			continue;
		}
		double change = c->r.makespan_ms / ms->num - 1;
		if (change > tolerance)
		{
			fprintf(err, "vela %s: regression: %s: makespan %.3f ms, baseline %.3f ms (%+.1f%%, tolerance %g%%)\n",
				SE_CMD, label, c->r.makespan_ms, ms->num, 100 * change, 100 * tolerance);
			nreg++;
		}
		else if (change < -tolerance)
		{
			fprintf(out, "improvement: %s: makespan %.3f ms, baseline %.3f ms (%+.1f%%)\n", label, c->r.makespan_ms,
				ms->num, 100 * change);
			nimp++;
		}
		else
			nsame++;
	}
	fprintf(out, "%u regression%s, %u improvement%s, %u within the tolerance, %u not in the baseline\n", nreg,
		nreg == 1 ? "" : "s", nimp, nimp == 1 ? "" : "s", nsame, nnew);
	jfree(&root);
	return (int) nreg;
}
