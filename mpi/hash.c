/* hash.c — the small chained hash the layer keys everything with: handles,
 * (comm, tag) pairs, sequence counters, posted receives and early
 * messages. Four integers per key cover all of them; the table doubles
 * when it holds more entries than buckets.
 */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

/* One multiply per part and a final mix: the keys are pointers and small
 * integers, looked up on every message (a division per lookup was the
 * largest cost of the table: buckets are a power of two, masked). */
static size_t key_hash(const struct mkey *k)
{
	uint64_t h = (uint64_t) k->a * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t) k->b * 0xc2b2ae3d27d4eb4full;
	h ^= (uint64_t) k->c * 0x165667b19e3779f9ull;
	h ^= (uint64_t) k->d * 0x27d4eb2f165667c5ull;
	h ^= h >> 31;
	h *= 0x94d049bb133111ebull;
	h ^= h >> 29;
	return (size_t) h;
}

static int key_eq(const struct mkey *x, const struct mkey *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c && x->d == y->d;
}

void mhash_init(struct mhash *h)
{
	memset(h, 0, sizeof(*h));
}

void mhash_fini(struct mhash *h)
{
	while (h->spare)
	{
		struct mhash_entry *n = h->spare->next;
		free(h->spare);
		h->spare = n;
	}
	for (size_t i = 0; i < h->nbuckets; i++)
	{
		struct mhash_entry *e = h->buckets[i];
		while (e)
		{
			struct mhash_entry *n = e->next;
			free(e);
			e = n;
		}
	}
	free(h->buckets);
	memset(h, 0, sizeof(*h));
}

struct mhash_entry *mhash_find(struct mhash *h, const struct mkey *k)
{
	if (!h->nbuckets)
		return NULL;
	for (struct mhash_entry *e = h->buckets[key_hash(k) & (h->nbuckets - 1)]; e; e = e->next)
		if (key_eq(&e->key, k))
			return e;
	return NULL;
}

static int grow(struct mhash *h)
{
	size_t n = h->nbuckets ? h->nbuckets * 2 : 64;
	struct mhash_entry **b = calloc(n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < h->nbuckets; i++)
	{
		struct mhash_entry *e = h->buckets[i];
		while (e)
		{
			struct mhash_entry *next = e->next;
			size_t j = key_hash(&e->key) & (n - 1);
			e->next = b[j];
			b[j] = e;
			e = next;
		}
	}
	free(h->buckets);
	h->buckets = b;
	h->nbuckets = n;
	return 0;
}

struct mhash_entry *mhash_get(struct mhash *h, const struct mkey *k)
{
	size_t hv = key_hash(k);
	if (h->nbuckets)
		for (struct mhash_entry *e = h->buckets[hv & (h->nbuckets - 1)]; e; e = e->next)
			if (key_eq(&e->key, k))
				return e;
	if (h->count >= h->nbuckets && grow(h))
		return NULL;
	struct mhash_entry *e = h->spare;
	if (e)
	{
		h->spare = e->next;
		h->nspare--;
	}
	else if (!(e = malloc(sizeof(*e))))
		return NULL;
	memset(e, 0, sizeof(*e));
	e->key = *k;
	size_t j = hv & (h->nbuckets - 1);
	e->next = h->buckets[j];
	h->buckets[j] = e;
	h->count++;
	return e;
}

/* Removed entries are kept for the next insertions (a receive posted and
 * matched per message), up to as many as the table has buckets. */
void mhash_remove(struct mhash *h, const struct mkey *k)
{
	if (!h->nbuckets)
		return;
	struct mhash_entry **p = &h->buckets[key_hash(k) & (h->nbuckets - 1)];
	for (; *p; p = &(*p)->next)
		if (key_eq(&(*p)->key, k))
		{
			struct mhash_entry *e = *p;
			*p = e->next;
			h->count--;
			if (h->nspare < h->nbuckets)
			{
				e->next = h->spare;
				h->spare = e;
				h->nspare++;
			}
			else
				free(e);
			return;
		}
}

void mhash_foreach(struct mhash *h, void (*fn)(struct mhash_entry *e, void *arg), void *arg)
{
	for (size_t i = 0; i < h->nbuckets; i++)
	{
		struct mhash_entry *e = h->buckets[i];
		while (e)
		{
			/* fn may remove e: read the next one first. */
			struct mhash_entry *n = e->next;
			fn(e, arg);
			e = n;
		}
	}
}
