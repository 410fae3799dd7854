/* hash.c — the small chained hash the layer keys everything with: handles,
 * (comm, tag) pairs, sequence counters, posted receives and early
 * messages. Four integers per key cover all of them; the table doubles
 * when it holds more entries than buckets.
 */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t key_hash(const struct mkey *k)
{
	uint64_t h = 1469598103934665603ull;
	uint64_t parts[4] = { (uint64_t) k->a, (uint64_t) k->b, (uint64_t) k->c, (uint64_t) k->d };
	for (int i = 0; i < 4; i++)
	{
		h ^= parts[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
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
	for (struct mhash_entry *e = h->buckets[key_hash(k) % h->nbuckets]; e; e = e->next)
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
			size_t j = key_hash(&e->key) % n;
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
	struct mhash_entry *e = mhash_find(h, k);
	if (e)
		return e;
	if (h->count >= h->nbuckets && grow(h))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->key = *k;
	size_t j = key_hash(k) % h->nbuckets;
	e->next = h->buckets[j];
	h->buckets[j] = e;
	h->count++;
	return e;
}

void mhash_remove(struct mhash *h, const struct mkey *k)
{
	if (!h->nbuckets)
		return;
	struct mhash_entry **p = &h->buckets[key_hash(k) % h->nbuckets];
	for (; *p; p = &(*p)->next)
		if (key_eq(&(*p)->key, k))
		{
			struct mhash_entry *e = *p;
			*p = e->next;
			free(e);
			h->count--;
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
