/* writer.h — writing a Vela trace file (format: trace_format.h).
 *
 * A trace_writer owns the file, the table of interned strings and the list
 * of event buffers. Each thread that records events has its own trace_buf,
 * written without any lock by that thread only; when it fills up, the
 * thread appends it to the file as one chunk under the writer's lock and
 * starts over, so memory stays bounded however long the run. Everything is
 * flushed by tw_close().
 *
 * The runtime's observer (events.c) uses this API with timestamps from
 * os_timestamp_ns(); tests and generators use it directly with fixed
 * timestamps to build deterministic traces, which is why nothing here reads
 * a clock or knows about tasks and workers.
 *
 * Errors: tw_open returns a negative errno; a failed write later on marks
 * the writer failed, calls on_error once, and drops what follows (counted
 * in lost). Nothing here aborts.
 */
#ifndef VELA_TRACE_WRITER_H
#define VELA_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "os/os.h"
#include "trace/trace_format.h"

#define TB_CACHE 32

struct trace_writer;

struct trace_buf
{
	struct trace_writer *w;
	unsigned char *data;		/* owned; cap bytes */
	size_t used;
	size_t cap;
	uint64_t nrecords;		/* since the last flush */
	uint64_t ntasks;
	int worker;			/* worker id, or -1 for an application thread */
	/* Observer state of the owning thread (events.c). */
	uint64_t last_ns;		/* end of the thread's last activity */
	/* Interned strings by address; an entry is trusted only if the text
	 * still matches (an application may reuse the memory of a name). */
	struct
	{
		const char *ptr;
		const char *text;	/* the writer's copy */
		uint32_t id;
	} cache[TB_CACHE];
	struct trace_buf *next;		/* writer's list, under its lock */
};

struct trace_string
{
	char *text;			/* owned */
	uint32_t hash;
	uint32_t id;
};

struct trace_writer
{
	FILE *f;
	char *path;			/* owned */
	/* Protects f, the string table, the buffer list and the counters. A
	 * leaf lock: taken by a thread flushing its own buffer, never while
	 * holding it another lock is taken. */
	os_mutex_t lock;
	struct trace_string *strs;	/* open addressing, strs_cap a power of 2 */
	unsigned strs_cap;
	unsigned nstrs;
	struct trace_buf *bufs;
	uint64_t nrecords;
	uint64_t ntasks;
	uint64_t lost;
	uint64_t bytes;			/* written to the file */
	uint64_t nflushes;		/* chunks written */
	int failed;			/* a write failed; errno value in error */
	int error;
	/* Called once, outside the lock, when a write first fails. */
	void (*on_error)(struct trace_writer *w, int err);
};

/* Creates path and writes the header. Returns 0 or a negative errno (the
 * writer is then unusable and needs no tw_close). */
int tw_open(struct trace_writer *w, const char *path, uint32_t flags);
/* Flushes every buffer, writes TR_END with end_time, closes the file and
 * frees the buffers and strings. Returns 0 or the first write error. */
int tw_close(struct trace_writer *w, uint64_t end_time);

/* A new buffer of cap bytes (at least 4 KiB) for one thread. NULL if out of
 * memory. Freed by tw_close. */
struct trace_buf *tw_buf_new(struct trace_writer *w, size_t cap, int worker);

/* Interns s (NULL or "" is id 0); writes its TR_STRING on first sight. */
uint32_t tw_intern(struct trace_writer *w, const char *s);
uint32_t tb_string(struct trace_buf *b, const char *s);

/* Appends the buffer's records to the file and empties it. */
void tb_flush(struct trace_buf *b);

/* Room for one record of the given type and size (a multiple of 8, header
 * included) with the header filled in; flushes first if the buffer is full. */
void *tb_reserve(struct trace_buf *b, unsigned type, size_t size);

/* Typed records. */
void tb_run(struct trace_buf *b, const struct trace_rec_run *r);
void tb_node(struct trace_buf *b, uint32_t node, uint32_t kind, const char *name);
void tb_worker(struct trace_buf *b, int32_t id, uint32_t arch, uint32_t node, const char *name, int32_t bindid);
/* A copy of r (a whole record; its header is rewritten). */
void tb_task(struct trace_buf *b, const struct trace_rec_task *r);
/* Room for a task record, zeroed, to fill in place. */
struct trace_rec_task *tb_task_reserve(struct trace_buf *b);
/* A TR_TASK_DATA record with room for *nbuffers entries, returned for the
 * caller to fill; *nbuffers becomes the number kept (all that fit in one
 * record, TDD_TRUNCATED set otherwise). Intern strings before calling. */
struct trace_task_buffer *tb_task_data(struct trace_buf *b, uint64_t job, uint32_t model_sid, uint32_t model_type,
				       uint32_t where, unsigned *nbuffers);
void tb_task_end(struct trace_buf *b, uint64_t job, uint64_t end, int32_t worker);
void tb_dep(struct trace_buf *b, uint64_t pred, uint64_t succ, uint32_t flags);
void tb_tag_dep(struct trace_buf *b, uint64_t tag, uint64_t dep);
void tb_state(struct trace_buf *b, int32_t worker, uint32_t state, uint64_t start, uint64_t end, uint64_t job);
void tb_transfer(struct trace_buf *b, uint32_t src, uint32_t dst, uint64_t bytes, uint64_t start, uint64_t end,
		 uint64_t handle, int32_t worker);
void tb_mem(struct trace_buf *b, uint32_t node, uint32_t op, uint64_t bytes, uint64_t time, uint64_t addr);
void tb_user(struct trace_buf *b, int32_t worker, const char *s, uint64_t code, uint64_t time);
/* Distributed runs (trace_format.h). */
void tb_process(struct trace_buf *b, uint64_t run_id, int32_t rank, uint32_t nranks);
void tb_clock(struct trace_buf *b, uint64_t local, uint64_t ref, uint64_t err, int32_t ref_rank);
/* A copy of r (its header is rewritten). */
void tb_comm(struct trace_buf *b, const struct trace_rec_comm *r);

#endif /* VELA_TRACE_WRITER_H */
