/* init.c — starting and stopping the MPI layer, communicators, ranks.
 *
 * Initialisation runs in the application's thread before the progression
 * thread exists, so it may call MPI itself; afterwards MPI is called only
 * under the engine lock (prog_call runs the few MPI queries the API needs
 * under it). Shutdown hands the end to the progression thread (the bye
 * handshake of match.c), then finalises what init started.
 */
#include "mpi_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct mpi_state mpi = {
	.elock = STARPU_PTHREAD_MUTEX_INITIALIZER,
	.lock = STARPU_PTHREAD_MUTEX_INITIALIZER,
	.qlock = STARPU_PTHREAD_MUTEX_INITIALIZER,
	.qcond = STARPU_PTHREAD_COND_INITIALIZER,
	.donecond = STARPU_PTHREAD_COND_INITIALIZER,
	.env_tag = -1,
};

/* ------------------------------------------------------------------ */
/* Messages. */

void mpi_error(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (mpi.world_size > 0)
		fprintf(stderr, MPI_ERR_PREFIX "rank %d: %s\n", mpi.world_rank, line);
	else
		fprintf(stderr, MPI_ERR_PREFIX "%s\n", line);
}

void mpi_info(const char *fmt, ...)
{
	const char *silent = getenv("STARPU_SILENT");
	if (silent && atoi(silent))
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, MPI_ERR_PREFIX "rank %d: %s\n", mpi.world_rank, line);
}

const char *mpi_handle_label(starpu_data_handle_t h, char *buf, size_t size)
{
	snprintf(buf, size, "%p", (void *) h);
	return buf;
}

int mpi_check_ready(const char *fn)
{
	if (__atomic_load_n(&mpi.initialized, __ATOMIC_ACQUIRE))
		return 0;
	mpi_error("%s: StarPU-MPI is not initialized (call starpu_mpi_init first; not after starpu_mpi_shutdown) (-ESHUTDOWN)", fn);
	return -ESHUTDOWN;
}

int mpi_check_submit(const char *fn)
{
	int ret = mpi_check_ready(fn);
	if (ret)
		return ret;
	if (__atomic_load_n(&mpi.stopping, __ATOMIC_ACQUIRE))
	{
		mpi_error("%s: starpu_mpi_shutdown has begun: no new communication (-ESHUTDOWN)", fn);
		return -ESHUTDOWN;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Communicators. */

struct mcomm *mcomm_register_now(MPI_Comm comm, int bye)
{
	struct mcomm *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->comm = comm;
	if (MPI_Comm_rank(comm, &c->rank) != MPI_SUCCESS || MPI_Comm_size(comm, &c->size) != MPI_SUCCESS || c->size <= 0)
	{
		free(c);
		return NULL;
	}
	c->bye = bye;
	c->world = calloc((size_t) c->size, sizeof(int));
	c->env_count = calloc((size_t) c->size, sizeof(int64_t));
	c->env_expected = calloc((size_t) c->size, sizeof(int64_t));
	c->sends = calloc((size_t) c->size, sizeof(*c->sends));
	int *ranks = calloc((size_t) c->size, sizeof(int));
	if (!c->world || !c->env_count || !c->env_expected || !c->sends || !ranks)
		goto fail;
	for (int i = 0; i < c->size; i++)
	{
		ranks[i] = i;
		c->env_expected[i] = -1;
	}
	c->nbye_missing = c->size - 1;
	c->next_data_tag = mpi.data_tag_min;
	/* World ranks, for the per-destination statistics. */
	MPI_Group g, wg;
	MPI_Comm_group(comm, &g);
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Group_translate_ranks(g, c->size, ranks, wg, c->world);
	MPI_Group_free(&g);
	MPI_Group_free(&wg);
	free(ranks);
	for (int i = 0; i < c->size; i++)
		if (c->world[i] < 0 || c->world[i] >= mpi.world_size)
			c->world[i] = 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mcomm **p = &mpi.comms;
	while (*p)
		p = &(*p)->next;
	*p = c;
	starpu_pthread_mutex_unlock(&mpi.lock);
	return c;
fail:
	free(ranks);
	free(c->world);
	free(c->env_count);
	free(c->env_expected);
	free(c->sends);
	free(c);
	return NULL;
}

static struct mcomm *comm_find(MPI_Comm comm)
{
	/* The communicators of init, without the lock: every
	 * communication names one of them. */
	for (int i = 0; i < 2; i++)
		if (mpi.comm_init[i] && mpi.comm_init[i]->comm == comm)
			return mpi.comm_init[i];
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mcomm *c = mpi.comms;
	while (c && c->comm != comm)
		c = c->next;
	starpu_pthread_mutex_unlock(&mpi.lock);
	return c;
}

struct late_comm
{
	MPI_Comm comm;
	struct mcomm *c;
};

static void register_late(void *arg)
{
	struct late_comm *lc = arg;
	/* Another thread may have registered it meanwhile. */
	lc->c = comm_find(lc->comm);
	if (lc->c)
		return;
	lc->c = mcomm_register_now(lc->comm, 0);
	if (lc->c)
		prog_listen_new_comm(lc->c);
}

struct mcomm *mpi_comm_get(MPI_Comm comm, const char *fn)
{
	struct mcomm *c = comm_find(comm);
	if (c)
		return c;
	if (comm == MPI_COMM_NULL)
	{
		mpi_error("%s: the communicator is MPI_COMM_NULL (-EINVAL)", fn);
		return NULL;
	}
	/* A communicator first seen now: registered under the engine lock
	 * (the one allowed to call MPI). It takes no part in the shutdown
	 * handshake, which only the communicators known on every rank at
	 * init can do. */
	struct late_comm lc = { comm, NULL };
	prog_call(register_late, &lc);
	if (!lc.c)
		mpi_error("%s: the communicator cannot be used (MPI_Comm_rank/size failed) (-EINVAL)", fn);
	return lc.c;
}

int starpu_mpi_comm_rank(MPI_Comm comm, int *rank)
{
	int ret = mpi_check_ready("starpu_mpi_comm_rank");
	if (ret)
		return ret;
	struct mcomm *c = mpi_comm_get(comm, "starpu_mpi_comm_rank");
	if (!c)
		return -EINVAL;
	*rank = c->rank;
	return 0;
}

int starpu_mpi_comm_size(MPI_Comm comm, int *size)
{
	int ret = mpi_check_ready("starpu_mpi_comm_size");
	if (ret)
		return ret;
	struct mcomm *c = mpi_comm_get(comm, "starpu_mpi_comm_size");
	if (!c)
		return -EINVAL;
	*size = c->size;
	return 0;
}

int starpu_mpi_world_rank(void)
{
	int ret = mpi_check_ready("starpu_mpi_world_rank");
	return ret ? ret : mpi.world_rank;
}

int starpu_mpi_world_size(void)
{
	int ret = mpi_check_ready("starpu_mpi_world_size");
	return ret ? ret : mpi.world_size;
}

struct attr_call
{
	MPI_Comm comm;
	int keyval;
	int *value;
	int flag, ret;
};

static void get_attr(void *arg)
{
	struct attr_call *a = arg;
	a->ret = MPI_Comm_get_attr(a->comm, a->keyval, &a->value, &a->flag);
}

int starpu_mpi_comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	/* Tags travel in the envelopes as 64-bit integers: any tag >= 0. */
	static int64_t tag_ub = INT64_MAX;
	static __thread int64_t other;
	int ret = mpi_check_ready("starpu_mpi_comm_get_attr");
	if (ret)
		return ret;
	if (keyval == MPI_TAG_UB)
	{
		*(int64_t **) attribute_val = &tag_ub;
		*flag = 1;
		return 0;
	}
	struct attr_call a = { comm, keyval, NULL, 0, 0 };
	prog_call(get_attr, &a);
	*flag = a.flag;
	if (a.ret != MPI_SUCCESS)
	{
		mpi_error("starpu_mpi_comm_get_attr: MPI_Comm_get_attr failed for key %d (-EINVAL)", keyval);
		return -EINVAL;
	}
	if (a.flag && a.value)
	{
		other = *a.value;
		*(int64_t **) attribute_val = &other;
	}
	return 0;
}

static int comm_tag_set = -1;

int starpu_mpi_get_communication_tag(void)
{
	return mpi.env_tag >= 0 ? mpi.env_tag : comm_tag_set;
}

void starpu_mpi_set_communication_tag(int tag)
{
	if (mpi.initialized)
	{
		mpi_error("starpu_mpi_set_communication_tag: call it before starpu_mpi_init (tag %d ignored)", tag);
		return;
	}
	comm_tag_set = tag;
}

void starpu_mpi_comm_amounts_retrieve(size_t *comm_amounts)
{
	if (mpi_check_ready("starpu_mpi_comm_amounts_retrieve") || !comm_amounts)
		return;
	/* Counted by the engine atomically, without mpi.lock. */
	for (int r = 0; r < mpi.world_size; r++)
		comm_amounts[r] = __atomic_load_n(&mpi.comm_amounts[r], __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* Init and shutdown. */

static unsigned env_unsigned(const char *name, unsigned dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	char *end;
	unsigned long x = strtoul(v, &end, 10);
	if (*end || x > UINT_MAX)
	{
		mpi_error("starpu_mpi_init: %s=%s is not a number; using %u", name, v, dflt);
		return dflt;
	}
	return (unsigned) x;
}

static const char *level_name(int level)
{
	switch (level)
	{
	case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
	case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
	case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
	case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
	default: return "?";
	}
}

static void free_comms(void)
{
	mpi.comm_init[0] = mpi.comm_init[1] = NULL;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mcomm *c = mpi.comms;
	mpi.comms = NULL;
	starpu_pthread_mutex_unlock(&mpi.lock);
	while (c)
	{
		struct mcomm *n = c->next;
		free(c->world);
		free(c->env_count);
		free(c->env_expected);
		free(c->sends);
		free(c->lslot);
		free(c);
		c = n;
	}
}

static int layer_init(int *argc, char ***argv, int initialize_mpi, MPI_Comm comm, const char *fn)
{
	if (mpi.initialized)
	{
		mpi_error("%s: StarPU-MPI is already initialized (-EALREADY)", fn);
		return -EALREADY;
	}
	if (!starpu_is_initialized())
	{
		mpi_error("%s: the runtime is not initialized: call starpu_init first, or starpu_mpi_init_conf (-EINVAL)", fn);
		return -EINVAL;
	}
	int flag = 0;
	MPI_Initialized(&flag);
	if (initialize_mpi)
	{
		if (flag)
		{
			mpi_error("%s: initialize_mpi is 1 but MPI is already initialized (pass 0) (-EINVAL)", fn);
			return -EINVAL;
		}
		int provided;
		if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
		{
			mpi_error("%s: MPI_Init_thread failed (-EIO)", fn);
			return -EIO;
		}
		mpi.mpi_initialized_here = 1;
	}
	else if (!flag)
	{
		mpi_error("%s: initialize_mpi is 0 but MPI is not initialized (call MPI_Init_thread first, or pass 1) (-EINVAL)", fn);
		return -EINVAL;
	}
	MPI_Query_thread(&mpi.thread_level);
	MPI_Comm_rank(MPI_COMM_WORLD, &mpi.world_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &mpi.world_size);
	if (mpi.thread_level < MPI_THREAD_SERIALIZED)
		mpi_error("%s: MPI provides %s; the layer calls MPI from several threads (one at a time), which needs MPI_THREAD_SERIALIZED: expect trouble",
			  fn, level_name(mpi.thread_level));

	int *ub = NULL, has = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has);
	int tag_ub = has && ub ? *ub : 32767;
	mpi.env_tag = comm_tag_set >= 0 ? comm_tag_set : tag_ub;
	mpi.data_tag_min = tag_ub / 2;
	mpi.data_tag_max = tag_ub - 1;

	const char *cache = getenv("STARPU_MPI_CACHE");
	mpi.cache_enabled = !(cache && atoi(cache) == 0);
	mpi.cache_stats = env_unsigned("STARPU_MPI_CACHE_STATS", 0) != 0;
	mpi.comm_stats = env_unsigned("STARPU_COMM_STATS", 0) != 0;
	mpi.comm_debug = env_unsigned("STARPU_MPI_COMM", 0) != 0;
	/* 1 GiB chunks keep every count an int; smaller values (tests) make
	 * the splitting show on small data. */
	mpi.max_message = env_unsigned("VELA_MPI_MAX_MESSAGE", 1u << 30);
	if (mpi.max_message < 16)
		mpi.max_message = 16;
	mpi.spin_us = env_unsigned("VELA_MPI_SPIN_US", 100);
	mpi.busy_poll_us = env_unsigned("VELA_MPI_BUSY_POLL_US", 1000);
	mpi.idle_poll_us = env_unsigned("VELA_MPI_IDLE_POLL_US", 5000);
	mpi.nworkers = (int) starpu_worker_get_count();
	if (mpi.nworkers < 1)
		mpi.nworkers = 1;
	/* In a simulated cluster copying an early message costs no
	 * simulated time: nothing to save by waiting for its receive. */
#ifdef VELA_SIMULATED_MPI
	mpi.early_defer_us = env_unsigned("VELA_MPI_EARLY_DEFER_US", 0);
#else
	mpi.early_defer_us = env_unsigned("VELA_MPI_EARLY_DEFER_US", 1000);
#endif
	mpi.send_window = env_unsigned("VELA_MPI_SEND_WINDOW", 64);
	if (mpi.send_window < 1)
		mpi.send_window = 1;
	mpi.inline_max = env_unsigned("VELA_MPI_INLINE_MAX", (unsigned) VELA_MPI_INLINE_CAP);
	if (mpi.inline_max > VELA_MPI_INLINE_CAP)
		mpi.inline_max = VELA_MPI_INLINE_CAP;
	mpi.cache_hits_send = mpi.cache_hits_recv = mpi.cache_bytes_saved = 0;

	mpi.comm_amounts = calloc((size_t) mpi.world_size, sizeof(size_t));
	starpu_pthread_mutex_lock(&mpi.lock);
	mpi.records = NULL;
	mhash_init(&mpi.tags);
	mhash_init(&mpi.seq_send);
	mhash_init(&mpi.seq_recv);
	starpu_pthread_mutex_unlock(&mpi.lock);
	mpi.init_comm = comm;
	/* The init communicator and the world are known on every rank: they
	 * take part in the shutdown handshake. */
	if (!(mpi.comm_init[0] = mcomm_register_now(comm, 1)) ||
	    (comm != MPI_COMM_WORLD && !(mpi.comm_init[1] = mcomm_register_now(MPI_COMM_WORLD, 1))))
	{
		mpi_error("%s: the communicator cannot be used (-EINVAL)", fn);
		goto fail;
	}
	select_init();
	insert_hooks_init();
	insert_stats_init();
	mpi.stopping = 0;
	if (mtrace_init())
		mpi_error("%s: the ranks could not agree on a trace (their clocks are not synchronised); the run continues", fn);
	int ret = prog_start();
	if (ret)
		goto fail;
	__atomic_store_n(&mpi.initialized, 1, __ATOMIC_RELEASE);
	return 0;
fail:
	mtrace_fini();
	free_comms();
	free(mpi.comm_amounts);
	mpi.comm_amounts = NULL;
	if (mpi.mpi_initialized_here)
	{
		MPI_Finalize();
		mpi.mpi_initialized_here = 0;
	}
	return -EINVAL;
}

int starpu_mpi_init_comm(int *argc, char ***argv, int initialize_mpi, MPI_Comm comm)
{
	return layer_init(argc, argv, initialize_mpi, comm, "starpu_mpi_init_comm");
}

int starpu_mpi_init(int *argc, char ***argv, int initialize_mpi)
{
	return layer_init(argc, argv, initialize_mpi, MPI_COMM_WORLD, "starpu_mpi_init");
}

int starpu_mpi_init_conf(int *argc, char ***argv, int initialize_mpi, MPI_Comm comm, struct starpu_conf *conf)
{
	if (mpi.initialized)
	{
		mpi_error("starpu_mpi_init_conf: StarPU-MPI is already initialized (-EALREADY)");
		return -EALREADY;
	}
	int started = 0;
	if (!starpu_is_initialized())
	{
		int ret = starpu_init(conf);
		if (ret)
		{
			mpi_error("starpu_mpi_init_conf: starpu_init failed (%d)", ret);
			return ret;
		}
		started = 1;
	}
	int ret = layer_init(argc, argv, initialize_mpi, comm, "starpu_mpi_init_conf");
	if (ret)
	{
		if (started)
			starpu_shutdown();
		return ret;
	}
	mpi.starpu_initialized_here = started;
	return 0;
}

int starpu_mpi_initialize(void)
{
	return layer_init(NULL, NULL, 0, MPI_COMM_WORLD, "starpu_mpi_initialize");
}

int starpu_mpi_initialize_extended(int *rank, int *world_size)
{
	int ret = layer_init(NULL, NULL, 1, MPI_COMM_WORLD, "starpu_mpi_initialize_extended");
	if (ret)
		return ret;
	if (rank)
		*rank = mpi.world_rank;
	if (world_size)
		*world_size = mpi.world_size;
	return 0;
}

int starpu_mpi_shutdown(void)
{
	int ret = mpi_check_ready("starpu_mpi_shutdown");
	if (ret)
		return ret;
	__atomic_store_n(&mpi.stopping, 1, __ATOMIC_RELEASE);
	int unmatched = prog_stop();
	mtrace_fini();
	stats_print();
	insert_stats_write();
	__atomic_store_n(&mpi.initialized, 0, __ATOMIC_RELEASE);
	mdata_fini();
	datatype_fini();
	starpu_pthread_mutex_lock(&mpi.lock);
	mhash_fini(&mpi.tags);
	mhash_fini(&mpi.seq_send);
	mhash_fini(&mpi.seq_recv);
	free(mpi.comm_amounts);
	mpi.comm_amounts = NULL;
	starpu_pthread_mutex_unlock(&mpi.lock);
	free_comms();
	if (mpi.mpi_initialized_here)
	{
		MPI_Finalize();
		mpi.mpi_initialized_here = 0;
	}
	if (mpi.starpu_initialized_here)
	{
		starpu_shutdown();
		mpi.starpu_initialized_here = 0;
	}
	mpi.env_tag = -1;
	return unmatched ? -ENOMSG : 0;
}
