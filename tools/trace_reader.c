/* trace_reader.c — loads a Vela trace for the `vela trace` views: parses
 * the records (trace/trace_format.h), stops cleanly at a truncated one,
 * then resolves strings, task terminations and dependencies. See
 * trace_reader.h.
 */
#include "trace_reader.h"
#include "trace/trace_format.h"

#include "os/regular_file.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Growable arrays. */
#define PUSH(arr, n, cap, val) do { \
	if ((n) == (cap)) { \
		size_t c_ = (cap) ? (size_t) (cap) * 2 : 64; \
		void *p_ = realloc((arr), c_ * sizeof(*(arr))); \
		if (!p_) goto nomem; \
		(arr) = p_; \
		(cap) = (unsigned) c_; \
	} \
	(arr)[(n)++] = (val); \
} while (0)

struct raw_dep
{
	uint64_t pred, succ;
};

struct raw_end
{
	uint64_t job, end;
};

struct raw_data
{
	uint64_t job;
	uint32_t model_sid, model_type, where, flags;
	unsigned first, n;		/* into the buffer pool */
};

/* qsort, which may not be given a NULL array even when empty. */
static void sort_n(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static void set_err(char *err, size_t len, const char *fmt, ...)
{
	if (!err || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static const char *str_of(const struct trace *t, uint32_t sid)
{
	if (sid == 0)
		return NULL;
	if (sid < t->nstrings && t->strings[sid])
		return t->strings[sid];
	return "(unknown name)";
}

static int cmp_task(const void *a, const void *b)
{
	uint64_t x = ((const struct tr_task *) a)->job, y = ((const struct tr_task *) b)->job;
	return x < y ? -1 : x > y;
}

static int cmp_state(const void *a, const void *b)
{
	const struct tr_state *x = a, *y = b;
	if (x->worker != y->worker)
		return x->worker < y->worker ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;	/* enclosing first */
}

static int cmp_transfer(const void *a, const void *b)
{
	const struct tr_transfer *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->src != y->src ? (x->src < y->src ? -1 : 1) : (x->dst < y->dst ? -1 : x->dst > y->dst);
}

static int cmp_mem(const void *a, const void *b)
{
	const struct tr_mem *x = a, *y = b;
	return x->time < y->time ? -1 : x->time > y->time;
}

static int cmp_comm(const void *a, const void *b)
{
	const struct tr_comm *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int cmp_clock(const void *a, const void *b)
{
	const struct tr_clock *x = a, *y = b;
	return x->local < y->local ? -1 : x->local > y->local;
}

static int cmp_user(const void *a, const void *b)
{
	const struct tr_user *x = a, *y = b;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* Tasks in the order they were first seen running (qsort has no context
 * argument; the tool is single-threaded). */
static const struct tr_task *order_tasks;

static int cmp_first_seen(const void *a, const void *b)
{
	unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;
	const struct tr_task *kx = &order_tasks[x], *ky = &order_tasks[y];
	uint64_t tx = kx->exec_start ? kx->exec_start : kx->end, ty = ky->exec_start ? ky->exec_start : ky->end;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

struct tag_task
{
	uint64_t tag;
	unsigned task;
};

static int cmp_tag_task(const void *a, const void *b)
{
	const struct tag_task *x = a, *y = b;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

/* The last task (highest job id) carrying tag, or -1. */
static int find_tag(const struct tag_task *v, unsigned n, uint64_t tag)
{
	unsigned lo = 0, hi = n;
	while (lo < hi)
	{
		unsigned mid = (lo + hi) / 2;
		if (v[mid].tag <= tag)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && v[lo - 1].tag == tag ? (int) v[lo - 1].task : -1;
}

static int cmp_worker(const void *a, const void *b)
{
	const struct tr_worker *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_dep(const void *a, const void *b)
{
	const struct raw_dep *x = a, *y = b;
	if (x->succ != y->succ)
		return x->succ < y->succ ? -1 : 1;
	return x->pred < y->pred ? -1 : x->pred > y->pred;
}

int trace_find_task(const struct trace *t, uint64_t job)
{
	unsigned lo = 0, hi = t->ntasks;
	while (lo < hi)
	{
		unsigned mid = (lo + hi) / 2;
		if (t->tasks[mid].job < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->ntasks && t->tasks[lo].job == job ? (int) lo : -1;
}

int trace_worker_index(const struct trace *t, int id)
{
	for (unsigned i = 0; i < t->nworkers; i++)
		if (t->workers[i].id == id)
			return (int) i;
	return -1;
}

const struct tr_worker *trace_worker(const struct trace *t, int id)
{
	int i = trace_worker_index(t, id);
	return i >= 0 ? &t->workers[i] : NULL;
}

const char *trace_node_name(const struct trace *t, unsigned n, char *buf, size_t len)
{
	for (unsigned i = 0; i < t->nnodes; i++)
		if (t->nodes[i].id == n && t->nodes[i].name)
			return t->nodes[i].name;
	snprintf(buf, len, "node %u", n);
	return buf;
}

static void note_time(struct trace *t, uint64_t v)
{
	if (v > t->end_time)
		t->end_time = v;
}

int trace_load(const char *path, struct trace *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	unsigned char *data = NULL;
	uint64_t size;
	int ret = 0;

	/* A regular file only: a FIFO would block the open, a directory
	 * reports a size of LLONG_MAX on some file systems. */
	struct stat st = { 0 };
	const char *kind;
	int fd = os_open_regular(path, O_RDONLY, 0, &st, &kind);
	if (fd < 0)
	{
		if (kind)
			set_err(err, errlen, "'%s' is %s, not a trace file", path, kind);
		else
			set_err(err, errlen, "cannot open '%s': %s", path, strerror(-fd));
		return fd;
	}
	size = (uint64_t) st.st_size;
	if (size > TRACE_MAX_BYTES)
	{
		close(fd);
		set_err(err, errlen, "'%s': %llu bytes, larger than the %llu GiB a trace can be here", path,
			(unsigned long long) size, (unsigned long long) (TRACE_MAX_BYTES >> 30));
		return -EFBIG;
	}
	data = malloc(size ? size : 1);
	if (!data)
	{
		close(fd);
		set_err(err, errlen, "'%s': out of memory for %llu bytes", path, (unsigned long long) size);
		return -ENOMEM;
	}
	for (uint64_t got = 0; got < size;)
	{
		ssize_t n = read(fd, data + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
		{
			ret = n < 0 ? -errno : -EIO;
			set_err(err, errlen, "cannot read '%s': %s at byte %llu of %llu", path,
				n < 0 ? strerror(errno) : "the file shrank", (unsigned long long) got,
				(unsigned long long) size);
			close(fd);
			free(data);
			return ret;
		}
		got += (uint64_t) n;
	}
	close(fd);

	ret = trace_parse(data, size, path, t, err, errlen);
	free(data);
	return ret;
}

int trace_parse(const unsigned char *data, uint64_t size, const char *path, struct trace *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	struct raw_dep *deps = NULL, *tagdeps = NULL;
	struct raw_end *ends = NULL;
	struct raw_data *tdata = NULL;
	unsigned ndeps = 0, capdeps = 0, ntagdeps = 0, captagdeps = 0, nends = 0, capends = 0;
	unsigned ntdata = 0, captdata = 0, nbufs = 0, capbufs = 0;
	unsigned capnodes = 0, capworkers = 0, captasks = 0, capstates = 0, captransfers = 0, capmems = 0, capusers = 0;
	unsigned capcomms = 0, capclocks = 0;
	int ret = 0;

	t->file_size = size;
	if (size > TRACE_MAX_BYTES)
	{
		set_err(err, errlen, "'%s': %llu bytes, larger than the %llu GiB a trace can be here", path,
			(unsigned long long) size, (unsigned long long) (TRACE_MAX_BYTES >> 30));
		return -EFBIG;
	}
	struct trace_file_header h;
	if (t->file_size < sizeof(h) || memcmp(data, TRACE_MAGIC, 8) != 0)
	{
		set_err(err, errlen, "'%s' is not a Vela trace (%s)", path,
			t->file_size < sizeof(h) ? "file too short" : "bad magic number");
		return -EINVAL;
	}
	memcpy(&h, data, sizeof(h));
	if (h.byte_order != TRACE_BYTE_ORDER)
	{
		set_err(err, errlen, "'%s' was written on a machine of another byte order (0x%08x)", path, h.byte_order);
		return -EINVAL;
	}
	if (h.version < TRACE_VERSION_MIN || h.version > TRACE_VERSION)
	{
		set_err(err, errlen, "'%s' is a Vela trace of version %u; this vela reads versions %u to %u", path, h.version,
			TRACE_VERSION_MIN, TRACE_VERSION);
		return -EINVAL;
	}
	if (h.header_size < sizeof(h) || h.header_size > t->file_size || h.header_size % 8)
	{
		set_err(err, errlen, "'%s': corrupt header (header size %u)", path, h.header_size);
		return -EINVAL;
	}
	t->version = h.version;
	t->flags = h.flags;
	t->path = strdup(path);
	if (!t->path)
		goto nomem;

	unsigned capstrings = 0;
	const uint64_t max_strings = (t->file_size - h.header_size) / sizeof(struct trace_rec_string);
	uint64_t off = h.header_size;
	while (off < t->file_size)
	{
		uint64_t left = t->file_size - off;
		struct trace_rec_hdr rh;
		if (left < sizeof(rh))
		{
			snprintf(t->stop_reason, sizeof(t->stop_reason), "truncated record header at byte %llu of %llu",
				 (unsigned long long) off, (unsigned long long) t->file_size);
			break;
		}
		memcpy(&rh, data + off, sizeof(rh));
		if (rh.size < sizeof(rh) || rh.size % 8)
		{
			snprintf(t->stop_reason, sizeof(t->stop_reason), "corrupt record (type %u, size %u) at byte %llu of %llu",
				 rh.type, rh.size, (unsigned long long) off, (unsigned long long) t->file_size);
			break;
		}
		if (rh.size > left)
		{
			snprintf(t->stop_reason, sizeof(t->stop_reason),
				 "truncated record (type %u, %u bytes, %llu present) at byte %llu of %llu",
				 rh.type, rh.size, (unsigned long long) left, (unsigned long long) off,
				 (unsigned long long) t->file_size);
			break;
		}
		const unsigned char *p = data + off;
		/* A record shorter than its type's struct (an older writer) is
		 * read zero-extended; a longer one (a newer writer) truncated. */
		union
		{
			struct trace_rec_run run;
			struct trace_rec_string str;
			struct trace_rec_node node;
			struct trace_rec_worker worker;
			struct trace_rec_task task;
			struct trace_rec_task_end tend;
			struct trace_rec_dep dep;
			struct trace_rec_tag_dep tdep;
			struct trace_rec_state state;
			struct trace_rec_transfer xfer;
			struct trace_rec_mem mem;
			struct trace_rec_user user;
			struct trace_rec_end end;
			struct trace_rec_process proc;
			struct trace_rec_clock clock;
			struct trace_rec_comm comm;
		} r;
		memset(&r, 0, sizeof(r));
		memcpy(&r, p, rh.size < sizeof(r) ? rh.size : sizeof(r));
		switch (rh.type)
		{
		case TR_RUN:
			t->pid = r.run.pid;
			t->wall_origin_ns = r.run.wall_origin_ns;
			/* Strings resolved below (ids kept in the pointers' place). */
			t->host = (const char *) (uintptr_t) r.run.host_sid;
			t->policy = (const char *) (uintptr_t) r.run.policy_sid;
			t->program = (const char *) (uintptr_t) r.run.program_sid;
			break;
		case TR_STRING:
		{
			uint32_t len = r.str.len;
			if (sizeof(r.str) + (uint64_t) len > rh.size)
				break;
			/* The writer numbers strings 1, 2, ... and writes each
			 * definition as it is made: an id above the number of
			 * string records the file can hold is corruption, and
			 * would size the table by a number from the file. */
			if (r.str.id > max_strings)
			{
				set_err(err, errlen, "'%s': corrupt string record at byte %llu: id %u, but a file of %llu bytes "
					"holds at most %llu strings", path, (unsigned long long) off, r.str.id,
					(unsigned long long) t->file_size, (unsigned long long) max_strings);
				ret = -EINVAL;
				goto fail;
			}
			while (r.str.id >= capstrings)
			{
				unsigned c = capstrings ? capstrings * 2 : 64;
				char **s = realloc(t->strings, c * sizeof(*s));
				if (!s)
					goto nomem;
				memset(s + capstrings, 0, (c - capstrings) * sizeof(*s));
				t->strings = s;
				capstrings = c;
			}
			char *s = malloc(len + 1);
			if (!s)
				goto nomem;
			memcpy(s, p + sizeof(r.str), len);
			s[len] = 0;
			free(t->strings[r.str.id]);
			t->strings[r.str.id] = s;
			if (r.str.id >= t->nstrings)
				t->nstrings = r.str.id + 1;
			break;
		}
		case TR_NODE:
		{
			struct tr_node n = { r.node.node, r.node.kind, (const char *) (uintptr_t) r.node.name_sid };
			PUSH(t->nodes, t->nnodes, capnodes, n);
			break;
		}
		case TR_WORKER:
		{
			struct tr_worker w = { r.worker.id, r.worker.arch, r.worker.node, r.worker.bindid,
					       (const char *) (uintptr_t) r.worker.name_sid };
			PUSH(t->workers, t->nworkers, capworkers, w);
			break;
		}
		case TR_TASK:
		{
			struct tr_task k;
			memset(&k, 0, sizeof(k));
			k.job = r.task.job;
			k.tag = r.task.tag;
			k.submit = r.task.submit;
			k.push = r.task.push;
			k.pop_start = r.task.pop_start;
			k.pop_end = r.task.pop_end;
			k.exec_start = r.task.exec_start;
			k.exec_end = r.task.exec_end;
			k.end = r.task.end;
			k.data_bytes = r.task.data_bytes;
			k.flops = r.task.flops;
			k.name = (const char *) (uintptr_t) r.task.name_sid;
			k.codelet = (const char *) (uintptr_t) r.task.codelet_sid;
			k.worker = r.task.worker;
			k.priority = r.task.priority;
			k.footprint = r.task.footprint;
			k.flags = r.task.flags;
			k.nbuffers = r.task.nbuffers;
			k.node = r.task.node;
			k.sched_ctx = r.task.sched_ctx;
			k.impl = r.task.impl;
			k.codelet_index = -1;
			note_time(t, k.end > k.exec_end ? k.end : k.exec_end);
			PUSH(t->tasks, t->ntasks, captasks, k);
			break;
		}
		case TR_TASK_END:
		{
			struct raw_end e = { r.tend.job, r.tend.end };
			note_time(t, e.end);
			PUSH(ends, nends, capends, e);
			break;
		}
		case TR_TASK_DATA:
		{
			struct trace_rec_task_data *dh = (struct trace_rec_task_data *) (void *) &r;
			memset(dh, 0, sizeof(*dh));
			memcpy(dh, p, rh.size < sizeof(*dh) ? rh.size : sizeof(*dh));
			struct raw_data d = { dh->job, dh->model_sid, dh->model_type, dh->where, dh->flags, nbufs, 0 };
			unsigned n = dh->nbuffers;
			if (rh.size < sizeof(*dh) || sizeof(*dh) + (size_t) n * sizeof(struct trace_task_buffer) > rh.size)
			{
				snprintf(t->stop_reason, sizeof(t->stop_reason),
					 "corrupt task data record (%u buffers in %u bytes) at byte %llu of %llu", n, rh.size,
					 (unsigned long long) off, (unsigned long long) t->file_size);
				goto stop;
			}
			for (unsigned i = 0; i < n; i++)
			{
				struct trace_task_buffer e;
				memcpy(&e, p + sizeof(*dh) + i * sizeof(e), sizeof(e));
				struct tr_buffer tb = { e.handle, e.size, e.mode, e.home_node };
				PUSH(t->buf_pool, nbufs, capbufs, tb);
			}
			d.n = n;
			PUSH(tdata, ntdata, captdata, d);
			break;
		}
		case TR_DEP:
		{
			struct raw_dep d = { r.dep.pred, r.dep.succ };
			PUSH(deps, ndeps, capdeps, d);
			break;
		}
		case TR_TAG_DEP:
		{
			struct raw_dep d = { r.tdep.dep, r.tdep.tag };
			PUSH(tagdeps, ntagdeps, captagdeps, d);
			break;
		}
		case TR_STATE:
		{
			struct tr_state s = { r.state.worker, r.state.state, r.state.start, r.state.end, r.state.job };
			if (s.end < s.start)
				s.end = s.start;
			note_time(t, s.end);
			PUSH(t->states, t->nstates, capstates, s);
			break;
		}
		case TR_TRANSFER:
		{
			struct tr_transfer x = { r.xfer.src, r.xfer.dst, r.xfer.bytes, r.xfer.start, r.xfer.end,
						 r.xfer.handle, r.xfer.worker };
			if (x.end < x.start)
				x.end = x.start;
			note_time(t, x.end);
			PUSH(t->transfers, t->ntransfers, captransfers, x);
			break;
		}
		case TR_MEM:
		{
			struct tr_mem m = { r.mem.node, r.mem.op, r.mem.bytes, r.mem.time, r.mem.addr };
			note_time(t, m.time);
			PUSH(t->mems, t->nmems, capmems, m);
			break;
		}
		case TR_USER:
		{
			struct tr_user u = { r.user.worker, (const char *) (uintptr_t) r.user.sid, r.user.code, r.user.time };
			note_time(t, u.time);
			PUSH(t->users, t->nusers, capusers, u);
			break;
		}
		case TR_PROCESS:
			/* Checked here: the merge indexes arrays by rank. */
			if (r.proc.nranks == 0 || r.proc.rank < 0 || (uint32_t) r.proc.rank >= r.proc.nranks ||
			    r.proc.nranks > (1u << 24))
			{
				set_err(err, errlen, "'%s': corrupt process record at byte %llu: rank %d of %u", path,
					(unsigned long long) off, r.proc.rank, r.proc.nranks);
				ret = -EINVAL;
				goto fail;
			}
			if (t->has_process && (t->run_id != r.proc.run_id || t->rank != r.proc.rank || t->nranks != r.proc.nranks))
			{
				set_err(err, errlen, "'%s': corrupt process record at byte %llu: rank %d of %u of run %016llx, "
					"but the record at byte %llu says rank %d of %u of run %016llx", path, (unsigned long long) off,
					r.proc.rank, r.proc.nranks, (unsigned long long) r.proc.run_id,
					(unsigned long long) t->process_offset, t->rank, t->nranks, (unsigned long long) t->run_id);
				ret = -EINVAL;
				goto fail;
			}
			if (!t->has_process)
				t->process_offset = off;
			t->has_process = 1;
			t->run_id = r.proc.run_id;
			t->rank = r.proc.rank;
			t->nranks = r.proc.nranks;
			break;
		case TR_CLOCK:
		{
			struct tr_clock c = { r.clock.local, r.clock.ref, r.clock.err, r.clock.ref_rank };
			PUSH(t->clocks, t->nclocks, capclocks, c);
			break;
		}
		case TR_COMM:
		{
			struct tr_comm c = { r.comm.peer, r.comm.flags, r.comm.tag, r.comm.seq, r.comm.channel, r.comm.bytes,
					     r.comm.submit, r.comm.start, r.comm.end, r.comm.handle, r.comm.worker, off };
			if (c.end < c.start)
				c.end = c.start;
			note_time(t, c.end);
			PUSH(t->comms, t->ncomms, capcomms, c);
			break;
		}
		case TR_END:
			t->complete = 1;
			t->lost = r.end.lost;
			note_time(t, r.end.time);
			break;
		default:
			break;	/* a newer record type: skipped */
		}
		t->nrecords++;
		off += rh.size;
	}
stop:
	t->stop_offset = off;
	if (!t->complete && !t->stop_reason[0])
		snprintf(t->stop_reason, sizeof(t->stop_reason),
			 "no end record after %llu bytes (%llu records): the run did not reach starpu_shutdown",
			 (unsigned long long) off, (unsigned long long) t->nrecords);

	/* Strings. */
	t->host = str_of(t, (uint32_t) (uintptr_t) t->host);
	t->policy = str_of(t, (uint32_t) (uintptr_t) t->policy);
	t->program = str_of(t, (uint32_t) (uintptr_t) t->program);
	for (unsigned i = 0; i < t->nnodes; i++)
		t->nodes[i].name = str_of(t, (uint32_t) (uintptr_t) t->nodes[i].name);
	for (unsigned i = 0; i < t->nworkers; i++)
	{
		t->workers[i].name = str_of(t, (uint32_t) (uintptr_t) t->workers[i].name);
		if (!t->workers[i].name)
			t->workers[i].name = "(unnamed worker)";
	}
	sort_n(t->workers, t->nworkers, sizeof(*t->workers), cmp_worker);
	for (unsigned i = 0; i < t->nusers; i++)
		t->users[i].str = str_of(t, (uint32_t) (uintptr_t) t->users[i].str);
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		struct tr_task *k = &t->tasks[i];
		k->name = str_of(t, (uint32_t) (uintptr_t) k->name);
		k->codelet = str_of(t, (uint32_t) (uintptr_t) k->codelet);
		if (!k->codelet)
			k->codelet = "(unnamed)";
		if (!k->name)
			k->name = k->codelet;
	}

	/* Tasks by job id; a task recorded twice (a regenerated task) keeps
	 * its last record. */
	sort_n(t->tasks, t->ntasks, sizeof(*t->tasks), cmp_task);
	unsigned m = 0;
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		if (m && t->tasks[m - 1].job == t->tasks[i].job)
			t->tasks[m - 1] = t->tasks[i];
		else
			t->tasks[m++] = t->tasks[i];
	}
	t->ntasks = m;
	for (unsigned i = 0; i < nends; i++)
	{
		int k = trace_find_task(t, ends[i].job);
		if (k >= 0)
		{
			t->tasks[k].end = ends[i].end;
			t->tasks[k].flags |= TTF_ENDED;
		}
	}
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		struct tr_task *k = &t->tasks[i];
		if (!(k->flags & TTF_ENDED) || k->end < k->exec_end)
			k->end = k->exec_end > k->end ? k->exec_end : k->end;
	}

	/* Tasks' data (version 2). */
	for (unsigned i = 0; i < ntdata; i++)
	{
		int k = trace_find_task(t, tdata[i].job);
		if (k < 0)
			continue;	/* never terminated: not in the trace */
		struct tr_task *x = &t->tasks[k];
		x->has_data = 1;
		x->data_truncated = (tdata[i].flags & TDD_TRUNCATED) != 0;
		x->model = str_of(t, tdata[i].model_sid);
		x->model_type = tdata[i].model_type;
		x->where = tdata[i].where;
		x->buffers = tdata[i].n ? &t->buf_pool[tdata[i].first] : NULL;
		x->nbuf = tdata[i].n;
	}

	/* Codelets, in order of first execution (then of job id). */
	{
		unsigned *order = malloc((t->ntasks ? t->ntasks : 1) * sizeof(*order));
		unsigned capcl = 0;
		if (!order)
			goto nomem;
		for (unsigned i = 0; i < t->ntasks; i++)
			order[i] = i;
		order_tasks = t->tasks;
		sort_n(order, t->ntasks, sizeof(*order), cmp_first_seen);
		for (unsigned i = 0; i < t->ntasks; i++)
		{
			struct tr_task *k = &t->tasks[order[i]];
			if (k->flags & TTF_NOOP)
				continue;
			unsigned c;
			for (c = 0; c < t->ncodelets && strcmp(t->codelets[c], k->codelet) != 0; c++)
				;
			if (c == t->ncodelets)
			{
				const char **nc = t->codelets;
				if (t->ncodelets == capcl)
				{
					capcl = capcl ? capcl * 2 : 16;
					nc = realloc(t->codelets, capcl * sizeof(*nc));
					if (!nc)
					{
						free(order);
						goto nomem;
					}
				}
				t->codelets = nc;
				t->codelets[t->ncodelets++] = k->codelet;
			}
		}
		free(order);
		for (unsigned i = 0; i < t->ntasks; i++)
		{
			struct tr_task *k = &t->tasks[i];
			for (unsigned c = 0; c < t->ncodelets; c++)
				if (strcmp(t->codelets[c], k->codelet) == 0)
				{
					k->codelet_index = (int) c;
					break;
				}
		}
	}

	/* Dependencies: task edges, then tag edges through the tasks that
	 * carry the tags (the latest one when a tag was reused). */
	if (ntagdeps)
	{
		struct tag_task *tt = malloc(t->ntasks * sizeof(*tt) + 1);
		unsigned ntt = 0;
		if (!tt)
			goto nomem;
		for (unsigned k = 0; k < t->ntasks; k++)
			if (t->tasks[k].flags & TTF_HAS_TAG)
				tt[ntt++] = (struct tag_task) { t->tasks[k].tag, k };
		sort_n(tt, ntt, sizeof(*tt), cmp_tag_task);
		for (unsigned i = 0; i < ntagdeps; i++)
		{
			int pred = find_tag(tt, ntt, tagdeps[i].pred), succ = find_tag(tt, ntt, tagdeps[i].succ);
			if (pred >= 0 && succ >= 0)
			{
				struct raw_dep d = { t->tasks[pred].job, t->tasks[succ].job };
				if (ndeps == capdeps)
				{
					unsigned c = capdeps ? capdeps * 2 : 64;
					struct raw_dep *nd = realloc(deps, c * sizeof(*nd));
					if (!nd)
					{
						free(tt);
						goto nomem;
					}
					deps = nd;
					capdeps = c;
				}
				deps[ndeps++] = d;
			}
		}
		free(tt);
	}
	sort_n(deps, ndeps, sizeof(*deps), cmp_dep);
	t->pred_pool = malloc((ndeps ? ndeps : 1) * sizeof(*t->pred_pool));
	if (!t->pred_pool)
		goto nomem;
	unsigned used = 0;
	for (unsigned i = 0; i < ndeps; i++)
	{
		if (i && deps[i].pred == deps[i - 1].pred && deps[i].succ == deps[i - 1].succ)
			continue;
		int s = trace_find_task(t, deps[i].succ), p = trace_find_task(t, deps[i].pred);
		if (s < 0 || p < 0 || s == p)
			continue;
		struct tr_task *k = &t->tasks[s];
		if (!k->preds)
			k->preds = &t->pred_pool[used];
		t->pred_pool[used++] = (unsigned) p;
		k->npreds++;
	}
	t->nedges = used;

	sort_n(t->states, t->nstates, sizeof(*t->states), cmp_state);
	sort_n(t->transfers, t->ntransfers, sizeof(*t->transfers), cmp_transfer);
	sort_n(t->mems, t->nmems, sizeof(*t->mems), cmp_mem);
	sort_n(t->users, t->nusers, sizeof(*t->users), cmp_user);

	/* Messages name ranks of the run (checked once the process record,
	 * wherever it lies, is known). */
	for (unsigned i = 0; i < t->ncomms; i++)
	{
		const struct tr_comm *c = &t->comms[i];
		if (c->peer < -1 || (t->has_process && (c->peer >= (int) t->nranks || c->peer == t->rank)))
		{
			set_err(err, errlen, "'%s': corrupt message record at byte %llu: peer %d, but this is rank %d of %u", path,
				(unsigned long long) c->offset, c->peer, t->has_process ? t->rank : -1, t->has_process ? t->nranks : 0);
			ret = -EINVAL;
			goto fail;
		}
	}
	sort_n(t->comms, t->ncomms, sizeof(*t->comms), cmp_comm);
	sort_n(t->clocks, t->nclocks, sizeof(*t->clocks), cmp_clock);

	free(deps);
	free(tagdeps);
	free(ends);
	free(tdata);
	return 0;

nomem:
	set_err(err, errlen, "'%s': out of memory", path);
	ret = -ENOMEM;
fail:
	free(deps);
	free(tagdeps);
	free(ends);
	free(tdata);
	trace_free(t);
	return ret;
}

void trace_free(struct trace *t)
{
	for (unsigned i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->strings);
	free(t->nodes);
	free(t->workers);
	free(t->tasks);
	free(t->states);
	free(t->transfers);
	free(t->mems);
	free(t->users);
	free(t->codelets);
	free(t->pred_pool);
	free(t->buf_pool);
	free(t->comms);
	free(t->clocks);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

void trace_report_incomplete(const struct trace *t, FILE *f)
{
	if (t->complete && !t->lost)
		return;
	if (!t->complete)
		fprintf(f, "vela trace: %s: incomplete trace: %s; using the %llu complete records before it\n",
			t->path, t->stop_reason, (unsigned long long) t->nrecords);
	if (t->lost)
		fprintf(f, "vela trace: %s: the runtime could not write %llu records (disk full?)\n", t->path,
			(unsigned long long) t->lost);
}
