/* bitmap.c — struct starpu_bitmap: a bit array of machine words that grows
 * when a larger element is set. Reads past the end see zeros.
 */
#include <starpu.h>

#include <stdlib.h>
#include <string.h>

#define WBITS ((int) (8 * sizeof(unsigned long)))

struct starpu_bitmap
{
	unsigned long *w;	/* owned; nwords words */
	int nwords;
};

struct starpu_bitmap *starpu_bitmap_create(void)
{
	return calloc(1, sizeof(struct starpu_bitmap));
}

void starpu_bitmap_destroy(struct starpu_bitmap *b)
{
	if (!b)
		return;
	free(b->w);
	free(b);
}

static int grow(struct starpu_bitmap *b, int nwords)
{
	if (nwords <= b->nwords)
		return 0;
	unsigned long *w = realloc(b->w, sizeof(*w) * (size_t) nwords);
	if (!w)
		return -1;
	memset(w + b->nwords, 0, sizeof(*w) * (size_t) (nwords - b->nwords));
	b->w = w;
	b->nwords = nwords;
	return 0;
}

void starpu_bitmap_set(struct starpu_bitmap *b, int e)
{
	if (e < 0 || grow(b, e / WBITS + 1))
		return;
	b->w[e / WBITS] |= 1UL << (e % WBITS);
}

void starpu_bitmap_unset(struct starpu_bitmap *b, int e)
{
	if (e >= 0 && e / WBITS < b->nwords)
		b->w[e / WBITS] &= ~(1UL << (e % WBITS));
}

void starpu_bitmap_unset_all(struct starpu_bitmap *b)
{
	if (b->nwords)
		memset(b->w, 0, sizeof(*b->w) * (size_t) b->nwords);
}

int starpu_bitmap_get(struct starpu_bitmap *b, int e)
{
	if (e < 0 || e / WBITS >= b->nwords)
		return 0;
	return (b->w[e / WBITS] >> (e % WBITS)) & 1;
}

static unsigned long word(const struct starpu_bitmap *b, int i)
{
	return i < b->nwords ? b->w[i] : 0;
}

void starpu_bitmap_unset_and(struct starpu_bitmap *a, struct starpu_bitmap *b, struct starpu_bitmap *c)
{
	int n = b->nwords > c->nwords ? b->nwords : c->nwords;
	starpu_bitmap_unset_all(a);
	if (grow(a, n))
		return;
	for (int i = 0; i < n; i++)
		a->w[i] = word(b, i) & word(c, i);
}

void starpu_bitmap_or(struct starpu_bitmap *a, struct starpu_bitmap *b)
{
	if (grow(a, b->nwords))
		return;
	for (int i = 0; i < b->nwords; i++)
		a->w[i] |= b->w[i];
}

int starpu_bitmap_and_get(struct starpu_bitmap *b1, struct starpu_bitmap *b2, int e)
{
	return starpu_bitmap_get(b1, e) && starpu_bitmap_get(b2, e);
}

int starpu_bitmap_cardinal(struct starpu_bitmap *b)
{
	int n = 0;
	for (int i = 0; i < b->nwords; i++)
		n += __builtin_popcountl(b->w[i]);
	return n;
}

int starpu_bitmap_first(struct starpu_bitmap *b)
{
	return starpu_bitmap_next(b, -1);
}

int starpu_bitmap_last(struct starpu_bitmap *b)
{
	for (int i = b->nwords - 1; i >= 0; i--)
		if (b->w[i])
			return i * WBITS + (WBITS - 1 - __builtin_clzl(b->w[i]));
	return -1;
}

int starpu_bitmap_next(struct starpu_bitmap *b, int e)
{
	int from = e + 1;
	if (from < 0)
		from = 0;
	for (int i = from / WBITS; i < b->nwords; i++)
	{
		unsigned long v = b->w[i];
		if (i == from / WBITS)
			v &= ~0UL << (from % WBITS);
		if (v)
			return i * WBITS + __builtin_ctzl(v);
	}
	return -1;
}

int starpu_bitmap_has_next(struct starpu_bitmap *b, int e)
{
	return starpu_bitmap_next(b, e) >= 0;
}
