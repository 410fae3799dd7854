/* mp_driver.c — MPI slaves as workers and memory nodes: the MPI_MS device
 * kind (one device per slave used, its workers sharing the slave's memory
 * node), the worker driver (a kernel is an EXECUTE command; it ends with
 * its DONE reply, in the device layer's pipeline) and the node driver
 * (ALLOC/FREE commands, copies as commands plus data messages, master to
 * slave, slave to master and slave to slave, in flight until their last
 * piece is done). The protocol is README.md's; the machinery, events and
 * progress, mp_source.c's.
 */
#define _GNU_SOURCE
#include "drivers/mp/mp_driver.h"
#include "drivers/mp/mp_source.h"
#include "drivers/driver.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/workers.h"
#include "data/data.h"
#include "data/memory.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct drv_node_ops drv_mpi_ms_node_ops;

#ifndef STARPU_MAXMPIDEVS
#define STARPU_MAXMPIDEVS 1
#endif

/* The sinks of this session by device id (setup/teardown). */
static struct mp_sink *by_devid[STARPU_MAXMPIDEVS];
static unsigned ndevs;
static int async_copies;
/* The slaves left at the end of the first session (MPI is the
 * application's). */
static int slaves_gone;

/* Each worker's newest kernel (owned by the worker's thread; a reference
 * on its event). */
static struct mp_event *last_exec[STARPU_NMAXWORKERS];

struct mp_sink *mp_sink_of_node(unsigned node)
{
	if (node >= mem_nnodes || mem_nodes[node].kind != STARPU_MPI_MS_RAM)
		return NULL;
	int d = mem_nodes[node].devid;
	return d >= 0 && (unsigned) d < ndevs ? by_devid[d] : NULL;
}

/* ------------------------------------------------------------------ */
/* The device kind. */

/* STARPU_NMPIMSTHREADS: threads (workers) per slave; 0: its cores. */
static int threads_per_slave(unsigned *n)
{
	const char *s = getenv("STARPU_NMPIMSTHREADS");
	*n = 0;
	if (!s || !*s)
		return 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 1 || v > STARPU_NMAXWORKERS)
	{
		rt_error("starpu_init: STARPU_NMPIMSTHREADS='%s' must be a number of threads per MPI slave, 1 to %d (-EINVAL)",
			 s, STARPU_NMAXWORKERS);
		return -EINVAL;
	}
	*n = (unsigned) v;
	return 0;
}

static int sync_cmd(struct mp_sink *s, struct mp_cmd *c, uint64_t *value)
{
	struct mp_event *ev = mp_event_new(s, 1, 1);
	if (!ev)
		return -ENOMEM;
	int ret = mp_send_cmd(s, c, NULL, 0, ev);
	if (ret)
	{
		mp_event_unref(ev);	/* its piece never started */
		mp_event_unref(ev);
		return ret;
	}
	ret = mp_event_wait(ev);
	if (value)
		*value = mp_event_value(ev);
	mp_event_unref(ev);
	return ret;
}

static void ms_teardown(void)
{
	for (unsigned d = 0; d < ndevs; d++)
	{
		struct mp_sink *s = by_devid[d];
		struct mp_cmd c = { .op = MP_CMD_STOP };
		uint64_t left = 0;
		if (sync_cmd(s, &c, &left) == 0 && left)
			rt_warn("starpu_shutdown: MPI slave %d (rank %d) still holds %llu buffer(s) at the end of the session "
				"(data not unregistered?)", s->devid, s->rank, (unsigned long long) left);
		s->used = 0;
		by_devid[d] = NULL;
	}
	ndevs = 0;
	/* The application finalises MPI itself (it initialised it): the
	 * slaves must be gone before, so they leave now, and later sessions
	 * have none. */
	if (mp_app_owns_channel && mp_active())
	{
		mp_end();
		slaves_gone = 1;
	}
}

static int ms_setup(const struct starpu_conf *conf, struct drv_device *out, unsigned max)
{
	ndevs = 0;
	if (!mp_active())
	{
		if (slaves_gone && conf->nmpi_ms != 0)
			rt_warn("starpu_init: no MPI slaves: they left at the end of the first session, since the application "
				"initialised MPI itself (and finalises it); local workers only");
		return 0;
	}
	unsigned nthreads;
	int ret = threads_per_slave(&nthreads);
	if (ret)
		return ret;
	/* The candidates, by device number: those listed, else all. */
	int cand[STARPU_MAXMPIDEVS > 64 ? STARPU_MAXMPIDEVS : 64];
	unsigned ncand = 0;
	if (conf->use_explicit_workers_mpi_ms_deviceid)
	{
		for (unsigned i = 0; i < conf->use_explicit_workers_mpi_ms_deviceid && ncand < 64; i++)
		{
			unsigned id = conf->workers_mpi_ms_deviceid[i];
			if (id >= mp_nsinks)
			{
				rt_error("starpu_init: conf.workers_mpi_ms_deviceid names MPI slave %u, but the job has %u (0 to %d) (-EINVAL)",
					 id, mp_nsinks, (int) mp_nsinks - 1);
				return -EINVAL;
			}
			int dup = 0;
			for (unsigned k = 0; k < ncand; k++)
				dup |= cand[k] == (int) id;
			if (!dup)
				cand[ncand++] = (int) id;
		}
	}
	else
		for (unsigned i = 0; i < mp_nsinks && ncand < 64; i++)
			cand[ncand++] = (int) i;
	unsigned wanted = conf->nmpi_ms < 0 ? ncand : (unsigned) conf->nmpi_ms;
	if (wanted > ncand)
	{
		rt_warn("starpu_init: %u MPI slave(s) requested (STARPU_NMPI_MS / conf.nmpi_ms), the job has %u; using %u",
			wanted, ncand, ncand);
		wanted = ncand;
	}
	unsigned cap = max < STARPU_MAXMPIDEVS ? max : STARPU_MAXMPIDEVS;
	if (wanted > cap)
	{
		rt_warn("starpu_init: %u MPI slaves, but Vela was built for at most %u (STARPU_MAXMPIDEVS, "
			"configure --enable-maxmpidev); using %u", wanted, cap, cap);
		wanted = cap;
	}
	async_copies = !(conf->disable_asynchronous_copy > 0 || conf->disable_asynchronous_mpi_ms_copy > 0);
	for (unsigned i = 0; i < wanted; i++)
	{
		struct mp_sink *s = &mp_sinks[cand[i]];
		unsigned n = nthreads ? nthreads : s->ncores;
		struct mp_cmd c = { .op = MP_CMD_START, .a = { n } };
		if ((ret = sync_cmd(s, &c, NULL)))
		{
			rt_error("starpu_init: MPI slave %d (rank %d) could not start %u threads (%d)", cand[i], s->rank, n, ret);
			ms_teardown();
			return ret;
		}
		s->used = 1;
		s->devid = (int) i;
		s->nthreads = n;
		by_devid[i] = s;
		ndevs = i + 1;
		out[i].devid = (int) i;
		out[i].memsize = s->memsize > 0 ? s->memsize : -1;
		out[i].nworkers = n;
		out[i].host_cores = 1;	/* the master's threads driving it mostly wait */
		snprintf(out[i].name, sizeof(out[i].name), "%s", s->host);
	}
	return (int) wanted;
}

static void ms_describe(char *buf, size_t size)
{
	if (mp_active())
		snprintf(buf, size, "MPI master/slave: master of %u slave process(es) (rank %d of %d)", mp_nsinks, mp_rank, mp_size);
	else
		snprintf(buf, size, "MPI master/slave: built; active when started by mpirun -np N (N >= 2)");
}

/* ------------------------------------------------------------------ */
/* The worker. */

/* The kernel's name on the slave: mpi_ms_funcs[nimpl]() named by the
 * dynamic linker, else cpu_funcs_name[nimpl]. NULL with why set. */
static const char *kernel_name(struct starpu_codelet *cl, unsigned nimpl, char *why, size_t size)
{
	if (cl->mpi_ms_funcs[nimpl])
	{
		starpu_mpi_ms_kernel_t k = cl->mpi_ms_funcs[nimpl]();
		Dl_info info;
		if (k && dladdr((void *) k, &info) && info.dli_sname && info.dli_saddr == (void *) k)
			return info.dli_sname;
		snprintf(why, size, "mpi_ms_funcs[%u] returned %s", nimpl,
			 k ? "a function without a dynamic symbol (static, or the program not linked with -rdynamic)" : "NULL");
		return NULL;
	}
	if (cl->cpu_funcs_name[nimpl])
		return cl->cpu_funcs_name[nimpl];
	snprintf(why, size, "neither cpu_funcs_name[%u] nor mpi_ms_funcs[%u] names it", nimpl, nimpl);
	return NULL;
}

static int ms_execute(struct worker *w, struct job *j)
{
	struct starpu_task *task = j->task;
	struct starpu_codelet *cl = task->cl;
	struct mp_sink *s = (unsigned) w->devid < ndevs ? by_devid[w->devid] : NULL;
	if (!s)
		return -ENODEV;
	char why[160];
	const char *name = kernel_name(cl, j->nimpl, why, sizeof(why));
	if (!name)
	{
		rt_error("task '%s' (codelet '%s') on %s: no kernel to run on an MPI slave: %s (-ENOENT)",
			 starpu_task_get_name(task), cl->name ? cl->name : "?", w->name, why);
		return -ENOENT;
	}
	size_t arg_size = task->cl_arg && task->cl_arg_size ? task->cl_arg_size : 0;
	if (task->cl_arg && !task->cl_arg_size)
	{
		static _Atomic int said;
		if (!atomic_exchange(&said, 1))
			rt_warn("task '%s' (codelet '%s'): its cl_arg has no cl_arg_size, so it cannot be sent to an MPI slave: "
				"the kernel gets NULL there (said once)", starpu_task_get_name(task), cl->name ? cl->name : "?");
	}
	unsigned nb = STARPU_TASK_GET_NBUFFERS(task);
	void **ifaces = task->dyn_interfaces ? task->dyn_interfaces : task->interfaces;
	struct mp_exec x = { .nbuffers = nb, .name_len = (uint32_t) strlen(name) + 1, .arg_size = arg_size };
	size_t len = sizeof(x) + x.name_len + arg_size;
	for (unsigned i = 0; i < nb; i++)
		len += sizeof(uint32_t) + STARPU_TASK_GET_HANDLE(task, i)->ops->interface_size;
	char *p = malloc(len), *at = p;
	if (!p)
		return -ENOMEM;
	memcpy(at, &x, sizeof(x));
	at += sizeof(x);
	memcpy(at, name, x.name_len);
	at += x.name_len;
	if (arg_size)
		memcpy(at, task->cl_arg, arg_size);
	at += arg_size;
	for (unsigned i = 0; i < nb; i++)
	{
		uint32_t sz = (uint32_t) STARPU_TASK_GET_HANDLE(task, i)->ops->interface_size;
		memcpy(at, &sz, sizeof(sz));
		at += sizeof(sz);
		memcpy(at, ifaces[i], sz);
		at += sz;
	}
	struct mp_event *ev = mp_event_new(s, 1, 1);
	if (!ev)
	{
		free(p);
		return -ENOMEM;
	}
	char *what = NULL;
	if (asprintf(&what, "task '%s' (codelet '%s'): kernel '%s'", starpu_task_get_name(task), cl->name ? cl->name : "?",
		     name) > 0)
		mp_event_set_what(ev, what);
	struct mp_cmd c = { .op = MP_CMD_EXECUTE, .a = { w->device_rank } };
	int ret = mp_send_cmd(s, &c, p, len, ev);
	free(p);
	if (ret)
	{
		mp_event_unref(ev);
		mp_event_unref(ev);
		return ret;
	}
	mp_event_unref(last_exec[w->id]);
	last_exec[w->id] = ev;
	/* In flight: the loop keeps it in the pipeline, or waits (sync). */
	return -EAGAIN;
}

static void *ms_event_record(struct worker *w)
{
	struct mp_event *ev = last_exec[w->id];
	if (ev)
		mp_event_ref(ev);
	return ev;
}

static int ms_event_test(void *ev)
{
	return mp_event_test(ev);
}

static int ms_event_wait(void *ev)
{
	return mp_event_wait(ev);
}

static void ms_event_release(void *ev)
{
	mp_event_unref(ev);
}

/* A slave's thread runs its kernels in order: the newest done, all are. */
static int ms_sync(struct worker *w)
{
	struct mp_event *ev = last_exec[w->id];
	return ev ? mp_event_wait(ev) : 0;
}

static int ms_deinit(struct worker *w)
{
	if (last_exec[w->id])
		mp_event_wait(last_exec[w->id]);
	mp_event_unref(last_exec[w->id]);
	last_exec[w->id] = NULL;
	return 0;
}

const struct drv_ops drv_mpi_ms_ops = {
	.version = DRV_OPS_VERSION,
	.name = "mpi_ms",
	.arch = STARPU_MPI_MS_WORKER,
	.deinit = ms_deinit,
	.execute = ms_execute,
	.event_record = ms_event_record,
	.event_test = ms_event_test,
	.event_wait = ms_event_wait,
	.event_release = ms_event_release,
	.sync = ms_sync,
};

/* ------------------------------------------------------------------ */
/* The memory node. */

static uintptr_t ms_malloc(unsigned node, size_t size, int flags)
{
	(void) flags;
	struct mp_sink *s = mp_sink_of_node(node);
	if (!s)
		return 0;
	struct mp_cmd c = { .op = MP_CMD_ALLOC, .a = { size } };
	uint64_t addr = 0;
	if (sync_cmd(s, &c, &addr))
		return 0;
	return (uintptr_t) addr;
}

static void ms_free(unsigned node, uintptr_t addr, size_t size, int flags)
{
	(void) flags;
	struct mp_sink *s = mp_sink_of_node(node);
	if (!s || !addr)
		return;
	struct mp_cmd c = { .op = MP_CMD_FREE, .a = { addr, size } };
	mp_send_cmd(s, &c, NULL, 0, NULL);
}

/* Copies nblocks blocks of blocksize bytes, ld_src / ld_dst apart, from
 * src to dst, one of them at least on a slave. With async (and queued
 * copies allowed) it returns -EAGAIN, the copy in flight in async->event;
 * else 0 or a negative errno once done. */
static int ms_transfer(uintptr_t src, unsigned src_node, uintptr_t dst, unsigned dst_node, size_t bs, size_t nb,
		       size_t ld_src, size_t ld_dst, void *async)
{
	struct drv_async *a = async_copies ? async : NULL;
	struct mp_sink *ss = mp_sink_of_node(src_node), *ds = mp_sink_of_node(dst_node);
	if ((!ss && mem_nodes[src_node].kind != STARPU_CPU_RAM) || (!ds && mem_nodes[dst_node].kind != STARPU_CPU_RAM) ||
	    (!ss && !ds))
	{
		rt_error("MPI master/slave: cannot copy from node %u (%s) to node %u (%s) (-EINVAL)", src_node,
			 mem_nodes[src_node].name, dst_node, mem_nodes[dst_node].name);
		return -EINVAL;
	}
	if (nb <= 1 || (ld_src == bs && ld_dst == bs))
	{
		bs *= nb ? nb : 1;
		nb = 1;
		ld_src = ld_dst = bs;
	}
	/* Pieces: master to slave, the data message and the slave's ACK;
	 * slave to master, the master's receive; within or between slaves,
	 * the receiving slave's ACK. */
	int pieces = !ss && ds ? 2 : 1;
	struct mp_event *ev;
	if (a && a->event && a->ops == &drv_mpi_ms_node_ops)
	{
		/* Another part of the same interface (a CSR's arrays): one
		 * event for all. */
		ev = a->event;
		mp_event_add(ev, pieces);
	}
	else if (!(ev = mp_event_new(ds ? ds : ss, pieces, 1)))
		return -ENOMEM;
	int tag = mp_new_tag(), ret = 0, started = 0;
	if (!ss)
	{
		struct mp_cmd c = { .op = MP_CMD_RECV_HOST, .tag = (uint32_t) tag, .a = { dst, bs, nb, ld_dst } };
		if (!(ret = mp_send_cmd(ds, &c, NULL, 0, ev)))
		{
			started++;
			if (!(ret = mp_data_send(ds->rank, tag, (const void *) src, bs, nb, ld_src, ev)))
				started++;
		}
	}
	else if (!ds)
	{
		if (!(ret = mp_data_recv(ss->rank, tag, (void *) dst, bs, nb, ld_dst, ev)))
		{
			started++;
			struct mp_cmd c = { .op = MP_CMD_SEND_HOST, .tag = (uint32_t) tag, .a = { src, bs, nb, ld_src } };
			if ((ret = mp_send_cmd(ss, &c, NULL, 0, NULL)))
				rt_error("MPI master/slave: a copy from slave %d is stuck: its command could not be sent", ss->devid);
		}
	}
	else if (ss == ds)
	{
		struct mp_cmd c = { .op = MP_CMD_COPY, .a = { src, dst, bs, nb, ld_src, ld_dst } };
		if (!(ret = mp_send_cmd(ss, &c, NULL, 0, ev)))
			started++;
	}
	else
	{
		struct mp_cmd r = { .op = MP_CMD_RECV_SINK, .tag = (uint32_t) tag, .peer = ss->rank, .a = { dst, bs, nb, ld_dst } };
		struct mp_cmd s = { .op = MP_CMD_SEND_SINK, .tag = (uint32_t) tag, .peer = ds->rank, .a = { src, bs, nb, ld_src } };
		if (!(ret = mp_send_cmd(ds, &r, NULL, 0, ev)))
		{
			started++;
			if ((ret = mp_send_cmd(ss, &s, NULL, 0, NULL)))
				rt_error("MPI master/slave: a copy from slave %d to slave %d is stuck: its command could not be sent",
					 ss->devid, ds->devid);
		}
	}
	if (started < pieces)
	{
		/* What never started never ends: those pieces end now, failed. */
		mp_event_fail(ev, pieces - started, ret ? ret : -EIO);
	}
	if (a)
	{
		if (!a->event)
			a->event = ev;
		return -EAGAIN;
	}
	ret = mp_event_wait(ev);
	mp_event_unref(ev);
	return ret;
}

static int ms_copy(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
		   unsigned dst_node, size_t size, void *async)
{
	return ms_transfer(src + src_offset, src_node, dst + dst_offset, dst_node, size, 1, size, size, async);
}

static int ms_copy2d(uintptr_t src, size_t src_offset, unsigned src_node, uintptr_t dst, size_t dst_offset,
		     unsigned dst_node, size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst, void *async)
{
	return ms_transfer(src + src_offset, src_node, dst + dst_offset, dst_node, blocksize, numblocks, ld_src, ld_dst,
			   async);
}

static int ms_test(void *async)
{
	return drv_async_test(&drv_mpi_ms_ops, async);
}

static int ms_wait(void *async)
{
	return drv_async_wait(&drv_mpi_ms_ops, async);
}

static ssize_t ms_total_memory(unsigned node)
{
	struct mp_sink *s = mp_sink_of_node(node);
	return s && s->memsize > 0 ? s->memsize : -1;
}

/* Two slaves copy one to the other directly (MPI between them). */
static int ms_peer(unsigned src_node, unsigned dst_node)
{
	return mem_nodes[src_node].kind == STARPU_MPI_MS_RAM && mem_nodes[dst_node].kind == STARPU_MPI_MS_RAM;
}

/* An interface's own methods for slaves (ram_to_mpi_ms, ...), as StarPU
 * picks them: a queued copy the _async one, else the plain one; none:
 * -ENOSYS, the data layer uses any_to_any. The _async methods get the
 * struct drv_async as their event, to pass on to starpu_interface_copy. */
static int ms_copy_interface(const struct starpu_data_copy_methods *m, void *si, unsigned src_node, void *di,
			     unsigned dst_node, struct drv_async *async)
{
	enum starpu_node_kind sk = mem_nodes[src_node].kind, dk = mem_nodes[dst_node].kind;
	int (*sync)(void *, unsigned, void *, unsigned) = NULL;
	int (*queued)(void *, unsigned, void *, unsigned, void *) = NULL;
	if (sk == STARPU_CPU_RAM && dk == STARPU_MPI_MS_RAM)
		sync = m->ram_to_mpi_ms, queued = m->ram_to_mpi_ms_async;
	else if (sk == STARPU_MPI_MS_RAM && dk == STARPU_CPU_RAM)
		sync = m->mpi_ms_to_ram, queued = m->mpi_ms_to_ram_async;
	else if (sk == STARPU_MPI_MS_RAM && dk == STARPU_MPI_MS_RAM)
		sync = m->mpi_ms_to_mpi_ms, queued = m->mpi_ms_to_mpi_ms_async;
	if (async && async_copies && queued)
		return queued(si, src_node, di, dst_node, async);
	if (sync)
		return sync(si, src_node, di, dst_node);
	if (queued)
	{
		/* Only the queued one: run it, and wait. */
		struct drv_async a = { 0 };
		int ret = queued(si, src_node, di, dst_node, &a);
		if (ret == -EAGAIN && a.event)
			ret = ms_wait(&a);
		return ret;
	}
	return -ENOSYS;
}

const struct drv_node_ops drv_mpi_ms_node_ops = {
	.version = DRV_OPS_VERSION,
	.name = "mpi_ms",
	.kind = STARPU_MPI_MS_RAM,
	.malloc = ms_malloc,
	.free = ms_free,
	.copy = ms_copy,
	.copy2d = ms_copy2d,
	.test = ms_test,
	.wait = ms_wait,
	.total_memory = ms_total_memory,
	.copy_interface = ms_copy_interface,
	.peer = ms_peer,
};

const struct drv_device_kind drv_mpi_ms_kind = {
	.version = DRV_OPS_VERSION,
	.name = "MPI_MS",
	.arch = STARPU_MPI_MS_WORKER,
	.node_kind = STARPU_MPI_MS_RAM,
	.worker_ops = &drv_mpi_ms_ops,
	.node_ops = &drv_mpi_ms_node_ops,
	.pipeline_env = "STARPU_MPI_MS_PIPELINE",
	.pipeline_default = 2,
	.setup = ms_setup,
	.teardown = ms_teardown,
	.describe = ms_describe,
	.boot = mp_boot,
};

/* ------------------------------------------------------------------ */
/* starpu_mpi_ms.h: kernels by name. The master and its slaves run one
 * program, so a kernel found here is named there by the same symbol
 * (kernel_name above). */

int starpu_mpi_ms_register_kernel(starpu_mpi_ms_func_symbol_t *symbol, const char *func_name)
{
	if (!symbol || !func_name)
		return -EINVAL;
	void *f = dlsym(RTLD_DEFAULT, func_name);
	if (!f)
	{
		rt_error("starpu_mpi_ms_register_kernel: no function '%s' in the program (link it with -rdynamic) (-ENOENT)",
			 func_name);
		return -ENOENT;
	}
	*symbol = f;
	return 0;
}

starpu_mpi_ms_kernel_t starpu_mpi_ms_get_kernel(starpu_mpi_ms_func_symbol_t symbol)
{
	return (starpu_mpi_ms_kernel_t) symbol;
}
