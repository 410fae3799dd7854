/* writer.c — the trace file writer: header, interned strings, per-thread
 * buffers flushed as chunks. See writer.h for the contract and
 * trace_format.h for the format.
 */
#include "trace/writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MIN_BUF 4096

_Static_assert(sizeof(struct trace_file_header) == 32, "trace header layout");
_Static_assert(sizeof(struct trace_rec_task) == 128, "TR_TASK layout");
_Static_assert(sizeof(struct trace_rec_task) % 8 == 0 && sizeof(struct trace_rec_task_end) % 8 == 0 &&
	       sizeof(struct trace_rec_run) % 8 == 0 && sizeof(struct trace_rec_string) % 8 == 0 &&
	       sizeof(struct trace_rec_node) % 8 == 0 && sizeof(struct trace_rec_worker) % 8 == 0 &&
	       sizeof(struct trace_rec_dep) % 8 == 0 && sizeof(struct trace_rec_tag_dep) % 8 == 0 &&
	       sizeof(struct trace_rec_state) % 8 == 0 && sizeof(struct trace_rec_transfer) % 8 == 0 &&
	       sizeof(struct trace_rec_mem) % 8 == 0 && sizeof(struct trace_rec_user) % 8 == 0 &&
	       sizeof(struct trace_rec_end) % 8 == 0, "trace records are multiples of 8 bytes");

/* Writes len bytes; marks the writer failed on error. Caller holds lock.
 * Returns 0 or the errno value. */
static int write_locked(struct trace_writer *w, const void *p, size_t len)
{
	if (w->failed)
		return w->error;
	if (fwrite(p, 1, len, w->f) != len)
	{
		w->failed = 1;
		w->error = errno ? errno : EIO;
		return w->error;
	}
	w->bytes += len;
	return 0;
}

int tw_open(struct trace_writer *w, const char *path, uint32_t flags)
{
	memset(w, 0, sizeof(*w));
	os_mutex_init(&w->lock);
	w->f = fopen(path, "wb");
	if (!w->f)
	{
		int err = errno ? errno : EIO;
		os_mutex_destroy(&w->lock);
		return -err;
	}
	w->path = strdup(path);
	struct trace_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TRACE_MAGIC, sizeof(h.magic));
	h.version = TRACE_VERSION;
	h.header_size = sizeof(h);
	h.byte_order = TRACE_BYTE_ORDER;
	h.flags = flags;
	if (!w->path || fwrite(&h, sizeof(h), 1, w->f) != 1 || fflush(w->f))
	{
		int err = w->path ? (errno ? errno : EIO) : ENOMEM;
		fclose(w->f);
		free(w->path);
		os_mutex_destroy(&w->lock);
		memset(w, 0, sizeof(*w));
		return -err;
	}
	w->bytes = sizeof(h);
	return 0;
}

static void report_failure(struct trace_writer *w, int was_failed)
{
	if (!was_failed && w->failed && w->on_error)
		w->on_error(w, w->error);
}

/* Caller holds the lock. */
static void flush_locked(struct trace_buf *b)
{
	struct trace_writer *w = b->w;
	if (b->used)
	{
		if (write_locked(w, b->data, b->used) == 0 && fflush(w->f) != 0 && !w->failed)
		{
			w->failed = 1;
			w->error = errno ? errno : EIO;
		}
		if (w->failed)
			w->lost += b->nrecords;
		else
		{
			w->nrecords += b->nrecords;
			w->ntasks += b->ntasks;
			w->nflushes++;
		}
	}
	b->used = 0;
	b->nrecords = 0;
	b->ntasks = 0;
}

void tb_flush(struct trace_buf *b)
{
	struct trace_writer *w = b->w;
	os_mutex_lock(&w->lock);
	int was = w->failed;
	flush_locked(b);
	int now = w->failed;
	os_mutex_unlock(&w->lock);
	if (!was && now)
		report_failure(w, 0);
}

struct trace_buf *tw_buf_new(struct trace_writer *w, size_t cap, int worker)
{
	if (cap < MIN_BUF)
		cap = MIN_BUF;
	cap &= ~(size_t) 7;
	struct trace_buf *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->data = malloc(cap);
	if (!b->data)
	{
		free(b);
		return NULL;
	}
	b->w = w;
	b->cap = cap;
	b->worker = worker;
	os_mutex_lock(&w->lock);
	b->next = w->bufs;
	w->bufs = b;
	os_mutex_unlock(&w->lock);
	return b;
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char) *s) * 16777619u;
	return h;
}

static int grow_strings(struct trace_writer *w)
{
	unsigned cap = w->strs_cap ? w->strs_cap * 2 : 64;
	struct trace_string *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (unsigned i = 0; i < w->strs_cap; i++)
	{
		struct trace_string *e = &w->strs[i];
		if (!e->text)
			continue;
		unsigned j = e->hash & (cap - 1);
		while (t[j].text)
			j = (j + 1) & (cap - 1);
		t[j] = *e;
	}
	free(w->strs);
	w->strs = t;
	w->strs_cap = cap;
	return 0;
}

/* Interns s; *text receives the writer's copy. Caller holds the lock. */
static uint32_t intern_locked(struct trace_writer *w, const char *s, const char **text)
{
	uint32_t h = hash_str(s);
	if (w->strs_cap)
	{
		unsigned j = h & (w->strs_cap - 1);
		while (w->strs[j].text)
		{
			if (w->strs[j].hash == h && strcmp(w->strs[j].text, s) == 0)
			{
				*text = w->strs[j].text;
				return w->strs[j].id;
			}
			j = (j + 1) & (w->strs_cap - 1);
		}
	}
	if ((w->nstrs + 1) * 2 > w->strs_cap && grow_strings(w))
		return 0;
	size_t len = strlen(s);
	if (len > 4000)
		len = 4000;	/* a record's size is 16 bits */
	char *copy = malloc(len + 1);
	if (!copy)
		return 0;
	memcpy(copy, s, len);
	copy[len] = 0;
	unsigned j = h & (w->strs_cap - 1);
	while (w->strs[j].text)
		j = (j + 1) & (w->strs_cap - 1);
	w->strs[j].text = copy;
	w->strs[j].hash = h;
	w->strs[j].id = ++w->nstrs;
	*text = copy;

	/* The definition goes straight to the file, ahead of every chunk that
	 * can use the id. */
	size_t size = (sizeof(struct trace_rec_string) + len + 7) & ~(size_t) 7;
	unsigned char rec[sizeof(struct trace_rec_string) + 4008];
	memset(rec, 0, size);
	struct trace_rec_string *r = (struct trace_rec_string *) rec;
	r->h.type = TR_STRING;
	r->h.size = (uint16_t) size;
	r->id = w->strs[j].id;
	r->len = (uint32_t) len;
	memcpy(rec + sizeof(*r), copy, len);
	if (write_locked(w, rec, size) == 0)
		w->nrecords++;
	else
		w->lost++;
	return w->strs[j].id;
}

uint32_t tw_intern(struct trace_writer *w, const char *s)
{
	if (!s || !*s)
		return 0;
	const char *text;
	os_mutex_lock(&w->lock);
	int was = w->failed;
	uint32_t id = intern_locked(w, s, &text);
	int now = w->failed;
	os_mutex_unlock(&w->lock);
	if (!was && now)
		report_failure(w, 0);
	return id;
}

uint32_t tb_string(struct trace_buf *b, const char *s)
{
	if (!s || !*s)
		return 0;
	unsigned slot = (unsigned) (((uintptr_t) s >> 3) * 0x9e3779b1u >> 27) & (TB_CACHE - 1);
	if (b->cache[slot].ptr == s && strcmp(b->cache[slot].text, s) == 0)
		return b->cache[slot].id;
	struct trace_writer *w = b->w;
	const char *text = NULL;
	os_mutex_lock(&w->lock);
	int was = w->failed;
	uint32_t id = intern_locked(w, s, &text);
	int now = w->failed;
	os_mutex_unlock(&w->lock);
	if (!was && now)
		report_failure(w, 0);
	if (id)
	{
		b->cache[slot].ptr = s;
		b->cache[slot].text = text;
		b->cache[slot].id = id;
	}
	return id;
}

/* Room for size bytes, left as they are. */
static void *reserve_raw(struct trace_buf *b, size_t size)
{
	if (__builtin_expect(b->used + size > b->cap, 0))
		tb_flush(b);
	void *p = b->data + b->used;
	b->used += size;
	b->nrecords++;
	return p;
}

void *tb_reserve(struct trace_buf *b, unsigned type, size_t size)
{
	struct trace_rec_hdr *h = reserve_raw(b, size);
	memset(h, 0, size);
	h->type = (uint16_t) type;
	h->size = (uint16_t) size;
	return h;
}

int tw_close(struct trace_writer *w, uint64_t end_time)
{
	if (!w->f)
		return 0;
	os_mutex_lock(&w->lock);
	int was = w->failed;
	for (struct trace_buf *b = w->bufs; b; b = b->next)
		flush_locked(b);
	struct trace_rec_end e;
	memset(&e, 0, sizeof(e));
	e.h.type = TR_END;
	e.h.size = sizeof(e);
	e.time = end_time;
	e.ntasks = w->ntasks;
	e.nrecords = w->nrecords;
	e.lost = w->lost;
	write_locked(w, &e, sizeof(e));
	if (fclose(w->f) != 0 && !w->failed)
	{
		w->failed = 1;
		w->error = errno ? errno : EIO;
	}
	w->f = NULL;
	int now = w->failed, err = w->error;
	struct trace_buf *b = w->bufs;
	w->bufs = NULL;
	os_mutex_unlock(&w->lock);
	if (!was && now)
		report_failure(w, 0);
	while (b)
	{
		struct trace_buf *next = b->next;
		free(b->data);
		free(b);
		b = next;
	}
	for (unsigned i = 0; i < w->strs_cap; i++)
		free(w->strs[i].text);
	free(w->strs);
	w->strs = NULL;
	w->strs_cap = w->nstrs = 0;
	free(w->path);
	w->path = NULL;
	os_mutex_destroy(&w->lock);
	return now ? -err : 0;
}

/* ------------------------------------------------------------------ */
/* Typed records. */

#define RESERVE(b, T, type) ((T *) tb_reserve((b), (type), sizeof(T)))

void tb_run(struct trace_buf *b, const struct trace_rec_run *r)
{
	struct trace_rec_run *p = RESERVE(b, struct trace_rec_run, TR_RUN);
	struct trace_rec_hdr h = p->h;
	*p = *r;
	p->h = h;
}

void tb_node(struct trace_buf *b, uint32_t node, uint32_t kind, const char *name)
{
	uint32_t sid = tb_string(b, name);
	struct trace_rec_node *p = RESERVE(b, struct trace_rec_node, TR_NODE);
	p->node = node;
	p->kind = kind;
	p->name_sid = sid;
}

void tb_worker(struct trace_buf *b, int32_t id, uint32_t arch, uint32_t node, const char *name, int32_t bindid)
{
	uint32_t sid = tb_string(b, name);
	struct trace_rec_worker *p = RESERVE(b, struct trace_rec_worker, TR_WORKER);
	p->id = id;
	p->arch = arch;
	p->node = node;
	p->name_sid = sid;
	p->bindid = bindid;
}

void tb_task(struct trace_buf *b, const struct trace_rec_task *r)
{
	struct trace_rec_task *p = reserve_raw(b, sizeof(*p));
	*p = *r;
	memset(&p->h, 0, sizeof(p->h));
	p->h.type = TR_TASK;
	p->h.size = sizeof(*p);
	b->ntasks++;
}

struct trace_rec_task *tb_task_reserve(struct trace_buf *b)
{
	b->ntasks++;
	return RESERVE(b, struct trace_rec_task, TR_TASK);
}

struct trace_task_buffer *tb_task_data(struct trace_buf *b, uint64_t job, uint32_t model_sid, uint32_t model_type,
				       uint32_t where, unsigned *nbuffers)
{
	size_t head = sizeof(struct trace_rec_task_data), each = sizeof(struct trace_task_buffer);
	unsigned n = *nbuffers, fit = (unsigned) ((b->cap - head) / each);
	uint16_t flags = 0;
	if (fit > TRACE_MAX_TASK_BUFFERS)
		fit = TRACE_MAX_TASK_BUFFERS;
	if (n > fit)
	{
		n = fit;
		flags |= TDD_TRUNCATED;
	}
	struct trace_rec_task_data *p = tb_reserve(b, TR_TASK_DATA, head + n * each);
	p->job = job;
	p->model_sid = model_sid;
	p->model_type = model_type;
	p->where = where;
	p->nbuffers = (uint16_t) n;
	p->flags = flags;
	*nbuffers = n;
	return (struct trace_task_buffer *) (void *) (p + 1);
}

void tb_task_end(struct trace_buf *b, uint64_t job, uint64_t end, int32_t worker)
{
	struct trace_rec_task_end *p = RESERVE(b, struct trace_rec_task_end, TR_TASK_END);
	p->job = job;
	p->end = end;
	p->worker = worker;
}

void tb_dep(struct trace_buf *b, uint64_t pred, uint64_t succ, uint32_t flags)
{
	struct trace_rec_dep *p = RESERVE(b, struct trace_rec_dep, TR_DEP);
	p->pred = pred;
	p->succ = succ;
	p->flags = flags;
}

void tb_tag_dep(struct trace_buf *b, uint64_t tag, uint64_t dep)
{
	struct trace_rec_tag_dep *p = RESERVE(b, struct trace_rec_tag_dep, TR_TAG_DEP);
	p->tag = tag;
	p->dep = dep;
}

void tb_state(struct trace_buf *b, int32_t worker, uint32_t state, uint64_t start, uint64_t end, uint64_t job)
{
	struct trace_rec_state *p = RESERVE(b, struct trace_rec_state, TR_STATE);
	p->worker = worker;
	p->state = state;
	p->start = start;
	p->end = end;
	p->job = job;
}

void tb_transfer(struct trace_buf *b, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t start, uint64_t end,
		 uint64_t handle, int32_t worker)
{
	struct trace_rec_transfer *p = RESERVE(b, struct trace_rec_transfer, TR_TRANSFER);
	p->src = src;
	p->dst = dst;
	p->bytes = bytes;
	p->start = start;
	p->end = end;
	p->handle = handle;
	p->worker = worker;
}

void tb_mem(struct trace_buf *b, uint32_t node, uint32_t op, uint64_t bytes, uint64_t time, uint64_t addr)
{
	struct trace_rec_mem *p = RESERVE(b, struct trace_rec_mem, TR_MEM);
	p->node = node;
	p->op = op;
	p->bytes = bytes;
	p->time = time;
	p->addr = addr;
}

void tb_user(struct trace_buf *b, int32_t worker, const char *s, uint64_t code, uint64_t time)
{
	uint32_t sid = s ? tb_string(b, s) : 0;
	struct trace_rec_user *p = RESERVE(b, struct trace_rec_user, TR_USER);
	p->worker = worker;
	p->sid = sid;
	p->code = code;
	p->time = time;
}

void tb_process(struct trace_buf *b, uint64_t run_id, int32_t rank, uint32_t nranks)
{
	struct trace_rec_process *p = RESERVE(b, struct trace_rec_process, TR_PROCESS);
	p->run_id = run_id;
	p->rank = rank;
	p->nranks = nranks;
}

void tb_clock(struct trace_buf *b, uint64_t local, uint64_t ref, uint64_t err, int32_t ref_rank)
{
	struct trace_rec_clock *p = RESERVE(b, struct trace_rec_clock, TR_CLOCK);
	p->local = local;
	p->ref = ref;
	p->err = err;
	p->ref_rank = ref_rank;
}

void tb_comm(struct trace_buf *b, const struct trace_rec_comm *r)
{
	struct trace_rec_comm *p = RESERVE(b, struct trace_rec_comm, TR_COMM);
	struct trace_rec_hdr h = p->h;
	*p = *r;
	p->h = h;
}
