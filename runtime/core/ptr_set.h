/* ptr_set.h — a set of pointers for one search (open addressing on the
 * address), used by the cycle checks of deps.c and tags.c. Zero is an empty
 * set; ptr_set_free releases it. */
#ifndef VELA_PTR_SET_H
#define VELA_PTR_SET_H

#include <stdint.h>
#include <stdlib.h>

struct ptr_set
{
	const void **slot;
	size_t cap, n;
};

static inline size_t ptr_set_hash(const void *p, size_t cap)
{
	return (size_t) (((uintptr_t) p >> 4) * 0x9e3779b97f4a7c15ULL >> 20) & (cap - 1);
}

/* Adds p (not NULL): 1 if it was new, 0 if present, -1 out of memory. */
static inline int ptr_set_add(struct ptr_set *s, const void *p)
{
	if (2 * (s->n + 1) > s->cap)
	{
		size_t cap = s->cap ? s->cap * 2 : 64;
		const void **slot = calloc(cap, sizeof(*slot));
		if (!slot)
			return -1;
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
			{
				size_t h = ptr_set_hash(s->slot[i], cap);
				while (slot[h])
					h = (h + 1) & (cap - 1);
				slot[h] = s->slot[i];
			}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	size_t h = ptr_set_hash(p, s->cap);
	while (s->slot[h])
	{
		if (s->slot[h] == p)
			return 0;
		h = (h + 1) & (s->cap - 1);
	}
	s->slot[h] = p;
	s->n++;
	return 1;
}

static inline void ptr_set_free(struct ptr_set *s)
{
	free(s->slot);
	*s = (struct ptr_set){ 0 };
}

#endif /* VELA_PTR_SET_H */
