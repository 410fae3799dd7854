/* mp_sink.c — the sink (slave) side of the master/slave layer: what every
 * process of the job but the master runs inside starpu_init, until the
 * master tells it to exit. README.md states the protocol.
 *
 * The process's main thread runs the loop: it receives the commands,
 * allocates and frees memory, starts the data messages and watches them
 * end, and sends the replies; it alone calls the channel. Kernels run on
 * threads of their own, one per worker the master made of this sink
 * (STARPU_NMPIMSTHREADS), each with its queue of EXECUTE commands taken in
 * order; a kernel's end goes back to the loop through a done list.
 *
 * A sink that is going down for a reason of its own (a kernel's fatal
 * signal, exit() in a kernel) tells the master first (DYING), so that the
 * master can report it and end the job rather than wait.
 */
#define _GNU_SOURCE
#include "drivers/mp/mp.h"
#include "core/conf.h"
#include "core/rt.h"
#include "os/os.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef void (*kernel_fn)(void **, void *);

/* One kernel to run, then its result. Owned by whoever holds it: the loop,
 * a thread's queue, the thread, the done list. */
struct exec_item
{
	struct exec_item *next;
	uint64_t token;
	char *name;			/* into mem */
	void *arg;			/* into mem, NULL without cl_arg */
	void **buffers;			/* into mem */
	void *mem;			/* one allocation for all of the above */
	int status;
	double elapsed_us;
	char text[256];
};

struct sink_thread
{
	os_thread_t thread;
	unsigned index;
	os_mutex_t lock;		/* protects head, tail, stop (a leaf) */
	os_cond_t cond;
	struct exec_item *head, *tail;
	int stop;
	const char *_Atomic running;	/* the kernel running now (dying messages) */
};

/* A data message or a reply in flight. */
struct op
{
	void *req;
	uint64_t token;
	int ack;			/* reply ACK(token) once it ends */
	int send;			/* reads [lo, hi): a FREE of it waits */
	uintptr_t lo, hi;
	void *freebuf;
	struct op *next;
};

/* A FREE waiting for the sends that read its buffer. */
struct pending_free
{
	uintptr_t addr;
	size_t size;
	struct pending_free *next;
};

/* The loop's state (main thread only), but for the done list. */
static struct sink_thread *threads;
static unsigned nthreads;
static struct op *ops;
static struct pending_free *frees;
static long long nallocs;
static size_t fail_alloc_from;		/* VELA_MPI_MS_FAIL_ALLOC: a test's fault injection */

/* Kernels done, from the threads to the loop. done_lock is a leaf. */
static os_mutex_t done_lock = OS_MUTEX_INITIALIZER;
static struct exec_item *done_head;
static _Atomic int ndone;

/* Why the sink is going down (set by a signal handler or exit() in a
 * kernel thread; the loop reports it). The first thread to claim it
 * writes dying_text, then publishes dying (release; the loop reads it with
 * acquire before the text). */
static _Atomic int dying_claimed;
static _Atomic int dying;
static char dying_text[256];
static _Atomic int dying_reported;
static os_thread_t main_thread;
static _Atomic int exiting;		/* EXIT received: a normal exit */

/* ------------------------------------------------------------------ */
/* Replies. */

static void track(void *req, uint64_t token, int ack, int send, uintptr_t lo, uintptr_t hi, void *freebuf)
{
	struct op *o = malloc(sizeof(*o));
	if (!o)
	{
		/* No memory to remember it: see it through now. */
		while (mp_chan->test(req, NULL) == 0)
			os_yield();
		free(freebuf);
		return;
	}
	*o = (struct op) { .req = req, .token = token, .ack = ack, .send = send, .lo = lo, .hi = hi, .freebuf = freebuf };
	o->next = ops;
	ops = o;
}

static void reply(uint32_t kind, int status, uint64_t token, uint64_t value, uint64_t value2, double elapsed,
		  const char *text)
{
	struct mp_reply *r = calloc(1, sizeof(*r));
	if (!r)
		return;
	r->kind = kind;
	r->status = status;
	r->token = token;
	r->value = value;
	r->value2 = value2;
	r->elapsed_us = elapsed;
	if (text)
		snprintf(r->text, sizeof(r->text), "%s", text);
	void *req;
	if (mp_chan->isend(mp_master, MP_TAG_REPLY, r, sizeof(*r), 1, sizeof(*r), &req))
	{
		fprintf(stderr, "[vela] error: MPI slave (rank %d): cannot send a reply to the master\n", mp_rank);
		free(r);
		return;
	}
	track(req, 0, 0, 0, 0, 0, r);
}

static void ack(uint64_t token, int status, uint64_t value, const char *text)
{
	reply(MP_REP_ACK, status, token, value, 0, 0.0, text);
}

/* ------------------------------------------------------------------ */
/* Kernels. */

/* Looked-up kernels by name. lookup_lock is a leaf. */
struct sym
{
	char *name;
	kernel_fn fn;
	struct sym *next;
};
static os_mutex_t lookup_lock = OS_MUTEX_INITIALIZER;
static struct sym *syms;

static kernel_fn lookup(const char *name, char *why, size_t size)
{
	os_mutex_lock(&lookup_lock);
	for (struct sym *s = syms; s; s = s->next)
		if (!strcmp(s->name, name))
		{
			os_mutex_unlock(&lookup_lock);
			return s->fn;
		}
	dlerror();
	kernel_fn fn = (kernel_fn) dlsym(RTLD_DEFAULT, name);
	if (!fn)
	{
		const char *e = dlerror();
		snprintf(why, size, "%s", e ? e : "no such symbol");
		os_mutex_unlock(&lookup_lock);
		return NULL;
	}
	struct sym *s = malloc(sizeof(*s));
	if (s && (s->name = strdup(name)))
	{
		s->fn = fn;
		s->next = syms;
		syms = s;
	}
	else
		free(s);
	os_mutex_unlock(&lookup_lock);
	return fn;
}

static void *thread_main(void *arg)
{
	struct sink_thread *t = arg;
	for (;;)
	{
		os_mutex_lock(&t->lock);
		while (!t->head && !t->stop)
			os_cond_wait(&t->cond, &t->lock);
		struct exec_item *e = t->head;
		if (!e)
		{
			os_mutex_unlock(&t->lock);
			break;	/* stopped with nothing left */
		}
		t->head = e->next;
		if (!t->head)
			t->tail = NULL;
		os_mutex_unlock(&t->lock);

		char why[160] = "";
		kernel_fn fn = lookup(e->name, why, sizeof(why));
		if (!fn)
		{
			e->status = -ENOENT;
			snprintf(e->text, sizeof(e->text), "not found in the program on this slave (%s): link the program "
				 "with -rdynamic, kernels not static", why);
		}
		else
		{
			atomic_store(&t->running, e->name);
			double t0 = os_now_us();
			fn(e->buffers, e->arg);
			e->elapsed_us = os_now_us() - t0;
			atomic_store(&t->running, NULL);
		}
		os_mutex_lock(&done_lock);
		e->next = done_head;
		done_head = e;
		atomic_fetch_add(&ndone, 1);
		os_mutex_unlock(&done_lock);
	}
	return NULL;
}

static void threads_stop(void)
{
	for (unsigned i = 0; i < nthreads; i++)
	{
		os_mutex_lock(&threads[i].lock);
		threads[i].stop = 1;
		os_cond_signal(&threads[i].cond);
		os_mutex_unlock(&threads[i].lock);
	}
	for (unsigned i = 0; i < nthreads; i++)
	{
		os_thread_join(threads[i].thread, NULL);
		os_cond_destroy(&threads[i].cond);
		os_mutex_destroy(&threads[i].lock);
	}
	free(threads);
	threads = NULL;
	nthreads = 0;
}

static int threads_start(unsigned n)
{
	if (nthreads)
		threads_stop();
	threads = calloc(n, sizeof(*threads));
	if (!threads)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
	{
		struct sink_thread *t = &threads[i];
		t->index = i;
		os_mutex_init(&t->lock);
		os_cond_init(&t->cond);
		char name[24];
		snprintf(name, sizeof(name), "MS-sink%u", i % 1000);
		struct os_thread_attr attr = { .name = name };
		int ret = os_thread_create(&t->thread, &attr, thread_main, t);
		if (ret)
		{
			os_cond_destroy(&t->cond);
			os_mutex_destroy(&t->lock);
			nthreads = i;
			threads_stop();
			return -ret;
		}
		nthreads = i + 1;
	}
	return 0;
}

/* EXECUTE: the payload becomes an exec_item for thread a[0]. */
static void execute(const struct mp_cmd *c, const char *payload, size_t len)
{
	unsigned th = (unsigned) c->a[0];
	struct mp_exec x;
	const char *fail = NULL;
	if (len < sizeof(x))
		fail = "truncated EXECUTE command";
	else
		memcpy(&x, payload, sizeof(x));
	if (!fail && th >= nthreads)
		fail = "EXECUTE names a thread this slave does not run";
	size_t need = sizeof(x);
	if (!fail)
	{
		need += x.name_len + x.arg_size;
		if (need > len || !x.name_len || payload[sizeof(x) + x.name_len - 1])
			fail = "malformed EXECUTE command";
	}
	/* One allocation: the item's buffers array, the interfaces (each
	 * aligned), the name, cl_arg. */
	size_t ifaces = 0;
	size_t off = need;
	for (uint32_t i = 0; !fail && i < x.nbuffers; i++)
	{
		uint32_t sz;
		if (off + sizeof(sz) > len)
		{
			fail = "malformed EXECUTE command (interfaces)";
			break;
		}
		memcpy(&sz, payload + off, sizeof(sz));
		off += sizeof(sz) + sz;
		ifaces += (sz + 15) & ~(size_t) 15;
		if (off > len)
			fail = "malformed EXECUTE command (interfaces)";
	}
	if (fail)
	{
		reply(MP_REP_DONE, -EINVAL, c->token, 0, 0, 0.0, fail);
		return;
	}
	size_t ptrs = ((size_t) x.nbuffers * sizeof(void *) + 15) & ~(size_t) 15;
	size_t argoff = ptrs + ifaces;
	size_t total = argoff + ((x.arg_size + 15) & ~(size_t) 15) + x.name_len;
	struct exec_item *e = calloc(1, sizeof(*e));
	char *mem = NULL;
	if (!e || posix_memalign((void **) &mem, 16, total ? total : 1))
	{
		free(e);
		reply(MP_REP_DONE, -ENOMEM, c->token, 0, 0, 0.0, "out of memory receiving a kernel's arguments");
		return;
	}
	e->token = c->token;
	e->mem = mem;
	e->buffers = (void **) mem;
	size_t at = ptrs;
	off = need;
	for (uint32_t i = 0; i < x.nbuffers; i++)
	{
		uint32_t sz;
		memcpy(&sz, payload + off, sizeof(sz));
		off += sizeof(sz);
		memcpy(mem + at, payload + off, sz);
		e->buffers[i] = mem + at;
		off += sz;
		at += (sz + 15) & ~(size_t) 15;
	}
	const char *name = payload + sizeof(x);
	if (x.arg_size)
	{
		e->arg = mem + argoff;
		memcpy(e->arg, name + x.name_len, x.arg_size);
	}
	e->name = mem + argoff + ((x.arg_size + 15) & ~(size_t) 15);
	memcpy(e->name, name, x.name_len);

	struct sink_thread *t = &threads[th];
	os_mutex_lock(&t->lock);
	if (t->tail)
		t->tail->next = e;
	else
		t->head = e;
	t->tail = e;
	os_cond_signal(&t->cond);
	os_mutex_unlock(&t->lock);
}

static int reap_done(void)
{
	if (!atomic_load_explicit(&ndone, memory_order_acquire))
		return 0;
	os_mutex_lock(&done_lock);
	struct exec_item *list = done_head;
	done_head = NULL;
	atomic_store(&ndone, 0);
	os_mutex_unlock(&done_lock);
	/* Oldest first (the list is newest first). */
	struct exec_item *rev = NULL;
	while (list)
	{
		struct exec_item *n = list->next;
		list->next = rev;
		rev = list;
		list = n;
	}
	int n = 0;
	while (rev)
	{
		struct exec_item *e = rev;
		rev = e->next;
		reply(MP_REP_DONE, e->status, e->token, 0, 0, e->elapsed_us, e->status ? e->text : NULL);
		free(e->mem);
		free(e);
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Memory. */

#define MMAP_THRESHOLD (256 * 1024)

static uintptr_t sink_alloc(size_t size, char *why, size_t whysize)
{
	if (fail_alloc_from && size >= fail_alloc_from)
	{
		snprintf(why, whysize, "allocating %zu bytes failed on the slave (VELA_MPI_MS_FAIL_ALLOC=%zu)", size,
			 fail_alloc_from);
		return 0;
	}
	void *p = NULL;
	if (size >= MMAP_THRESHOLD)
	{
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
	}
	else if (posix_memalign(&p, 64, size ? size : 1))
		p = NULL;
	if (!p)
	{
		snprintf(why, whysize, "allocating %zu bytes failed on the slave (%s)", size, strerror(errno ? errno : ENOMEM));
		return 0;
	}
	nallocs++;
	return (uintptr_t) p;
}

static void sink_free(uintptr_t addr, size_t size)
{
	if (!addr)
		return;
	if (size >= MMAP_THRESHOLD)
		munmap((void *) addr, size);
	else
		free((void *) addr);
	nallocs--;
}

static int send_reads(uintptr_t lo, uintptr_t hi)
{
	for (struct op *o = ops; o; o = o->next)
		if (o->send && o->lo < hi && lo < o->hi)
			return 1;
	return 0;
}

/* A buffer whose bytes a send still reads is freed once it is done (the
 * master saw the bytes arrive; MPI may still hold the request). */
static void free_later(uintptr_t addr, size_t size)
{
	if (!send_reads(addr, addr + (size ? size : 1)))
	{
		sink_free(addr, size);
		return;
	}
	struct pending_free *f = malloc(sizeof(*f));
	if (!f)
		return;	/* leaked rather than freed under a send */
	f->addr = addr;
	f->size = size;
	f->next = frees;
	frees = f;
}

static void frees_progress(void)
{
	for (struct pending_free **p = &frees; *p;)
	{
		struct pending_free *f = *p;
		if (send_reads(f->addr, f->addr + (f->size ? f->size : 1)))
		{
			p = &f->next;
			continue;
		}
		*p = f->next;
		sink_free(f->addr, f->size);
		free(f);
	}
}

/* ------------------------------------------------------------------ */
/* Data. */

static void data(const struct mp_cmd *c, int send, int peer, int want_ack)
{
	uintptr_t addr = (uintptr_t) c->a[0];
	size_t bs = (size_t) c->a[1], nb = (size_t) c->a[2], ld = (size_t) c->a[3];
	void *req;
	int ret = send ? mp_chan->isend(peer, (int) c->tag, (void *) addr, bs, nb, ld, &req)
		       : mp_chan->irecv(peer, (int) c->tag, (void *) addr, bs, nb, ld, &req);
	if (ret)
	{
		char why[96];
		snprintf(why, sizeof(why), "cannot %s %zu bytes (%d)", send ? "send" : "receive", bs * nb, ret);
		if (want_ack)
			ack(c->token, ret, 0, why);
		else
			fprintf(stderr, "[vela] error: MPI slave (rank %d): %s\n", mp_rank, why);
		return;
	}
	size_t span = nb > 1 ? (nb - 1) * ld + bs : bs;
	track(req, c->token, want_ack, send, addr, addr + (span ? span : 1), NULL);
}

static void local_copy(const struct mp_cmd *c)
{
	const char *src = (const char *) (uintptr_t) c->a[0];
	char *dst = (char *) (uintptr_t) c->a[1];
	size_t bs = (size_t) c->a[2], nb = (size_t) c->a[3], lds = (size_t) c->a[4], ldd = (size_t) c->a[5];
	for (size_t i = 0; i < nb; i++)
		memmove(dst + i * ldd, src + i * lds, bs);
	ack(c->token, 0, 0, NULL);
}

static int ops_progress(void)
{
	int n = 0;
	for (struct op **p = &ops; *p;)
	{
		struct op *o = *p;
		int ret = mp_chan->test(o->req, NULL);
		if (ret == 0)
		{
			p = &o->next;
			continue;
		}
		*p = o->next;
		if (o->ack)
			ack(o->token, ret < 0 ? -EIO : 0, 0, ret < 0 ? "a data message failed" : NULL);
		else if (ret < 0)
			fprintf(stderr, "[vela] error: MPI slave (rank %d): a message failed (%d)\n", mp_rank, ret);
		free(o->freebuf);
		free(o);
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Going down. */

static void report_dying(void)
{
	if (atomic_exchange(&dying_reported, 1))
		return;
	reply(MP_REP_DYING, -EIO, 0, 0, 0, 0.0, dying_text);
	/* See it leave (bounded: the master may be gone too). */
	double start = os_now_us();
	while (ops && os_now_us() - start < 2e6)
	{
		ops_progress();
		os_yield();
	}
}

static void on_fatal_signal(int sig)
{
	os_thread_t self = os_thread_self();
	if (!atomic_exchange(&dying_claimed, 1))
	{
		const char *k = NULL;
		for (unsigned i = 0; i < nthreads; i++)
			if (threads[i].thread == self)
				k = atomic_load(&threads[i].running);
		snprintf(dying_text, sizeof(dying_text), "signal %d (%s) on rank %d%s%s%s", sig, strsignal(sig), mp_rank,
			 k ? " in kernel '" : "", k ? k : "", k ? "'" : "");
		atomic_store_explicit(&dying, sig, memory_order_release);
	}
	if (self != main_thread)
		for (;;)
			pause();	/* the loop reports, then the process dies of sig */
	/* The loop itself: nobody else can report. */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_exit_call(void)
{
	if (atomic_load(&exiting) || os_thread_self() == main_thread)
		return;
	/* A kernel called exit(): let the loop tell the master first. */
	if (!atomic_exchange(&dying_claimed, 1))
	{
		snprintf(dying_text, sizeof(dying_text), "a kernel called exit() on rank %d", mp_rank);
		atomic_store_explicit(&dying, -1, memory_order_release);
	}
	double start = os_now_us();
	while (!atomic_load(&dying_reported) && os_now_us() - start < 3e6)
		os_sleep_us(1000.0);
}

static void die_now(void)
{
	report_dying();
	int sig = atomic_load(&dying);
	if (sig > 0)
	{
		signal(sig, SIG_DFL);
		raise(sig);
	}
	/* exit() in a kernel: its thread finishes the exit. */
	for (;;)
		pause();
}

static void install_handlers(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
	{
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
	atexit(on_exit_call);
}

/* ------------------------------------------------------------------ */
/* The loop. */

static void leave(void)
{
	atomic_store(&exiting, 1);
	if (nthreads)
		threads_stop();
	/* Kernels that ended since: the master, gone, wants no DONE. */
	os_mutex_lock(&done_lock);
	while (done_head)
	{
		struct exec_item *e = done_head;
		done_head = e->next;
		free(e->mem);
		free(e);
	}
	os_mutex_unlock(&done_lock);
	double start = os_now_us();
	while (ops && os_now_us() - start < 5e6)
	{
		ops_progress();
		os_yield();
	}
	mp_chan->fini(1);
	exit(0);
}

static void command(struct mp_cmd_msg *m, size_t got)
{
	struct mp_cmd *c = &m->cmd;
	const char *payload = m->inline_payload;
	char *extra = NULL;
	size_t len = c->payload;
	if (got < sizeof(*c))
	{
		fprintf(stderr, "[vela] error: MPI slave (rank %d): a command of %zu bytes is truncated (ignored)\n", mp_rank, got);
		return;
	}
	if (len > MP_INLINE)
	{
		/* The payload is the next message on the command tag. */
		extra = malloc(len);
		void *req;
		int ret = extra ? mp_chan->irecv(mp_master, MP_TAG_CMD, extra, len, 1, len, &req) : -ENOMEM;
		while (!ret && (ret = mp_chan->test(req, NULL)) == 0)
			ops_progress();
		if (ret < 0)
		{
			fprintf(stderr, "[vela] error: MPI slave (rank %d): cannot receive a command's %zu-byte payload (%d)\n",
				mp_rank, len, ret);
			free(extra);
			if (c->op == MP_CMD_EXECUTE)
				reply(MP_REP_DONE, -ENOMEM, c->token, 0, 0, 0.0, "cannot receive the kernel's arguments");
			return;
		}
		payload = extra;
	}
	else if (got < sizeof(*c) + len)
	{
		fprintf(stderr, "[vela] error: MPI slave (rank %d): a command's payload is truncated (ignored)\n", mp_rank);
		return;
	}
	switch (c->op)
	{
	case MP_CMD_START:
	{
		int ret = threads_start((unsigned) c->a[0]);
		ack(c->token, ret, 0, ret ? "cannot start the threads running kernels" : NULL);
		break;
	}
	case MP_CMD_STOP:
		if (nthreads)
			threads_stop();
		reap_done();
		ack(c->token, 0, (uint64_t) nallocs, NULL);
		break;
	case MP_CMD_EXIT:
		free(extra);
		leave();
		break;
	case MP_CMD_ALLOC:
	{
		char why[160] = "";
		uintptr_t p = sink_alloc((size_t) c->a[0], why, sizeof(why));
		ack(c->token, p ? 0 : -ENOMEM, p, p ? NULL : why);
		break;
	}
	case MP_CMD_FREE:
		free_later((uintptr_t) c->a[0], (size_t) c->a[1]);
		break;
	case MP_CMD_RECV_HOST:
		data(c, 0, mp_master, 1);
		break;
	case MP_CMD_SEND_HOST:
		data(c, 1, mp_master, 0);
		break;
	case MP_CMD_RECV_SINK:
		data(c, 0, c->peer, 1);
		break;
	case MP_CMD_SEND_SINK:
		data(c, 1, c->peer, 0);
		break;
	case MP_CMD_COPY:
		local_copy(c);
		break;
	case MP_CMD_EXECUTE:
		execute(c, payload, len);
		break;
	case MP_CMD_PING:
		ack(c->token, 0, 0, NULL);
		break;
	default:
	{
		char why[64];
		snprintf(why, sizeof(why), "unknown command %u", c->op);
		ack(c->token, -ENOSYS, 0, why);
		break;
	}
	}
	free(extra);
}

static void say_hello(void)
{
	char host[64] = "";
	gethostname(host, sizeof(host) - 1);
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t mem = pages > 0 && page > 0 ? (uint64_t) pages * (uint64_t) page : 0;
	unsigned cores = topo_load() == 0 ? topo_ncores() : 1;
	reply(MP_REP_INFO, 0, 0, cores ? cores : 1, mem, 0.0, host);
}

void mp_sink_main(void)
{
	main_thread = os_thread_self();
	const char *f = getenv("VELA_MPI_MS_FAIL_ALLOC");
	if (f && *f)
		fail_alloc_from = (size_t) strtoull(f, NULL, 10);
	install_handlers();
	say_hello();
	struct mp_cmd_msg *m = malloc(sizeof(*m));
	void *req = NULL;
	if (!m || mp_chan->irecv(mp_master, MP_TAG_CMD, m, sizeof(*m), 1, sizeof(*m), &req))
	{
		fprintf(stderr, "[vela] error: MPI slave (rank %d): cannot listen to the master; exiting\n", mp_rank);
		mp_chan->abort(1);
		exit(1);
	}
	double idle_since = os_now_us();
	for (;;)
	{
		int busy = 0;
		size_t got = 0;
		int ret = mp_chan->test(req, &got);
		if (ret < 0)
		{
			fprintf(stderr, "[vela] error: MPI slave (rank %d): the master cannot be heard from (%d); exiting\n",
				mp_rank, ret);
			mp_chan->abort(1);
			exit(1);
		}
		if (ret == 1)
		{
			command(m, got);
			if (mp_chan->irecv(mp_master, MP_TAG_CMD, m, sizeof(*m), 1, sizeof(*m), &req))
			{
				fprintf(stderr, "[vela] error: MPI slave (rank %d): cannot listen to the master; exiting\n", mp_rank);
				mp_chan->abort(1);
				exit(1);
			}
			busy = 1;
		}
		busy |= ops_progress() > 0;
		busy |= reap_done() > 0;
		if (frees)
			frees_progress();
		if (atomic_load_explicit(&dying, memory_order_acquire))
			die_now();
		/* Spin while busy; once idle, yield for a while, then sleep a
		 * little longer each time (up to 250 µs): an idle sink should
		 * not take a core from its own kernels or from the other
		 * processes of this machine. */
		double now = os_now_us();
		if (busy)
			idle_since = now;
		else if (now - idle_since < 100.0)
			os_yield();
		else
			os_sleep_us(now - idle_since < 10000.0 ? 20.0 : 250.0);
	}
}
