/* task_pool.c — the memory of tasks made by starpu_task_create().
 *
 * Tasks are carved from 2 MiB chunks, 2 MiB-aligned, that the kernel is
 * asked to back with huge pages (MADV_HUGEPAGE; Linux's default leaves
 * transparent huge pages to the regions that ask), all but the first. A
 * program that submits many tasks at once (a simulation of 150k tasks
 * keeps them all, 125 MB) reads each one again long after writing it:
 * with 4 KiB pages nearly every such read also missed the TLB, and the
 * 30,000 page faults of filling them cost 10% of the run
 * (bench/results-sim-speed.md, "Tasks on huge pages").
 * Each block is a whole number of cache lines, so a task spans the fewest
 * lines (job_prefetch_task fetches them all).
 *
 * Freed tasks wait in a FIFO before reuse (POOL_KEEP): allocation stays
 * cheap, and a task used after its destruction is usually caught (its magic
 * is dead). Past POOL_MAX, the oldest goes back to its chunk's free list;
 * a chunk whose blocks are all back is returned to the system unless it is
 * the only one. Chunks with free room are listed in `partial`, the most
 * recently freed into first.
 *
 * Under AddressSanitizer the chunks come from the C heap (aligned_alloc),
 * which LeakSanitizer scans: what live tasks point to is not reported.
 *
 * One lock (pool_lock, a leaf) protects everything here.
 */
#include "core/rt.h"
#include "core/task_pool.h"
#include "os/os.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define POOL_FROM_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_FROM_HEAP 1
#endif
#endif

#define CHUNK_SIZE ((size_t) 2 << 20)
#define LINE 64

struct task_block
{
	struct starpu_task task;
	struct task_block *pool_next;	/* FIFO or a chunk's free list */
};

/* Blocks rounded up to whole lines. */
#define BLOCK_SIZE ((sizeof(struct task_block) + LINE - 1) / LINE * LINE)

struct chunk
{
	struct chunk *prev, *next;	/* in `partial` while it has room */
	struct task_block *free;	/* blocks given back */
	unsigned carved;		/* blocks handed out at least once */
	unsigned live;			/* handed out and not given back (FIFO included) */
};

/* The header takes the chunk's first lines. */
#define CHUNK_HEADER ((sizeof(struct chunk) + LINE - 1) / LINE * LINE)
#define CHUNK_BLOCKS ((unsigned) ((CHUNK_SIZE - CHUNK_HEADER) / BLOCK_SIZE))

#define POOL_KEEP 256		/* freed tasks kept before reuse */
#define POOL_MAX 4096		/* beyond this, tasks go back to their chunk */

static os_mutex_t pool_lock = OS_MUTEX_INITIALIZER;
static struct task_block *fifo_head, *fifo_tail;
static unsigned fifo_count;
static struct chunk *partial;		/* the chunks with room */
static unsigned nchunks;

static struct task_block *block_at(struct chunk *c, unsigned i)
{
	return (struct task_block *) ((char *) c + CHUNK_HEADER + (size_t) i * BLOCK_SIZE);
}

static struct chunk *chunk_of(struct task_block *b)
{
	return (struct chunk *) ((uintptr_t) b & ~(uintptr_t) (CHUNK_SIZE - 1));
}

static void list_chunk(struct chunk *c)
{
	c->prev = NULL;
	c->next = partial;
	if (partial)
		partial->prev = c;
	partial = c;
}

static void unlist_chunk(struct chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		partial = c->next;
	if (c->next)
		c->next->prev = c->prev;
}

/* Whether every block of c is handed out (it is then not in `partial`). */
static int chunk_full(const struct chunk *c)
{
	return !c->free && c->carved == CHUNK_BLOCKS;
}

/* Says that no chunk of `bytes` could be had (errno set); NULL. */
static struct chunk *chunk_failed(size_t bytes)
{
	rt_error("starpu_task_create: no memory for more tasks (%zu KiB: %s): returning NULL", bytes >> 10,
		 strerror(errno));
	return NULL;
}

/* A new, empty chunk (not listed), or NULL. */
static struct chunk *chunk_new(void)
{
	void *p;
#ifdef POOL_FROM_HEAP
	p = aligned_alloc(CHUNK_SIZE, CHUNK_SIZE);
	if (!p)
		return chunk_failed(CHUNK_SIZE);
#else
	/* Twice the size, then the unaligned ends unmapped. */
	char *m = mmap(NULL, 2 * CHUNK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return chunk_failed(2 * CHUNK_SIZE);
	char *a = (char *) (((uintptr_t) m + CHUNK_SIZE - 1) & ~(uintptr_t) (CHUNK_SIZE - 1));
	if (a > m)
		munmap(m, (size_t) (a - m));
	if (a + CHUNK_SIZE < m + 2 * CHUNK_SIZE)
		munmap(a + CHUNK_SIZE, (size_t) (m + 2 * CHUNK_SIZE - (a + CHUNK_SIZE)));
#ifdef MADV_HUGEPAGE
	/* Not the first: a program with few tasks does not pay for zeroing a
	 * whole huge page. A hint: failure changes nothing. */
	if (nchunks > 0)
		madvise(a, CHUNK_SIZE, MADV_HUGEPAGE);
#endif
	p = a;
#endif
	struct chunk *c = p;
	*c = (struct chunk) { 0 };
	nchunks++;
	return c;
}

static void chunk_delete(struct chunk *c)
{
#ifdef POOL_FROM_HEAP
	free(c);
#else
	munmap(c, CHUNK_SIZE);
#endif
}

/* A block of a listed chunk, or of a new one; NULL without memory. */
static struct task_block *carve_locked(void)
{
	struct chunk *c = partial;
	if (!c)
	{
		c = chunk_new();
		if (!c)
			return NULL;
		list_chunk(c);
	}
	struct task_block *b;
	if (c->free)
	{
		b = c->free;
		c->free = b->pool_next;
	}
	else
		b = block_at(c, c->carved++);
	c->live++;
	if (chunk_full(c))
		unlist_chunk(c);
	return b;
}

/* b goes back to its chunk; returns the chunk if it is to be deleted. */
static struct chunk *give_back_locked(struct task_block *b)
{
	struct chunk *c = chunk_of(b);
	if (chunk_full(c))
		list_chunk(c);
	b->pool_next = c->free;
	c->free = b;
	c->live--;
	if (c->live == 0 && nchunks > 1)
	{
		unlist_chunk(c);
		nchunks--;
		return c;
	}
	return NULL;
}

struct starpu_task *task_pool_get(void)
{
	struct task_block *b = NULL;
	os_mutex_lock(&pool_lock);
	if (fifo_count > POOL_KEEP)
	{
		b = fifo_head;
		fifo_head = b->pool_next;
		if (!fifo_head)
			fifo_tail = NULL;
		fifo_count--;
	}
	else
		b = carve_locked();
	os_mutex_unlock(&pool_lock);
	return b ? &b->task : NULL;
}

void task_pool_put(struct starpu_task *task)
{
	struct task_block *b = (struct task_block *) ((char *) task - offsetof(struct task_block, task));
	struct chunk *gone = NULL;
	b->pool_next = NULL;
	os_mutex_lock(&pool_lock);
	if (fifo_tail)
		fifo_tail->pool_next = b;
	else
		fifo_head = b;
	fifo_tail = b;
	fifo_count++;
	if (fifo_count > POOL_MAX)
	{
		struct task_block *old = fifo_head;
		fifo_head = old->pool_next;
		fifo_count--;
		gone = give_back_locked(old);
	}
	os_mutex_unlock(&pool_lock);
	if (gone)
		chunk_delete(gone);
}
