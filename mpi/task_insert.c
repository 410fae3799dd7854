/* task_insert.c — starpu_mpi_task_insert: one task of the common task flow
 * becomes, on each rank, the local task (on the executing rank) and the
 * sends and receives that move its data.
 *
 * Every rank walks the same argument list, finds the same data, owners
 * and executing rank x (STARPU_EXECUTE_ON_NODE/_ON_DATA, else the owner
 * of the written data, else the node selection policy), and so agrees on
 * the messages without talking: the owner of data x reads sends it (unless
 * the cache says x holds the current value), x receives it into its own
 * handle (the temporary replicate: registered with home node -1 there, the
 * runtime allocates it); after the task, x sends what it wrote back to
 * the owner. Writing a value makes the copies other ranks cached stale:
 * they drop them (starpu_data_invalidate_submit frees the buffer).
 *
 * Nothing is submitted when a check fails: the list, every handle's owner
 * and tag, and the local task are checked and built first.
 */
#include "mpi_internal.h"

#include <stdlib.h>
#include <string.h>

#define X_ALL (-2)	/* the task runs on every rank (it writes per-node data) */

struct udata
{
	starpu_data_handle_t h;
	struct mdata *d;			/* its record (mpi.lock) */
	enum starpu_data_access_mode mode;	/* union of its accesses */
	int rank;
	int64_t tag;
	int other_comm;				/* registered on another communicator */
};

/* Every rank walks every task, most of them only to find that it has
 * nothing to do: the lists live on the stack unless a task has more
 * data than this. */
#define INS_INLINE STARPU_NMAXBUFS

struct ins
{
	const char *fn;
	struct starpu_codelet *cl;
	struct mcomm *c;
	int me;
	struct starpu_data_descr *descr;	/* as listed (for policies); descr1 or malloc'd */
	int n, cap;
	struct udata *u;			/* each handle once; u1 or malloc'd */
	int nu;
	struct starpu_data_descr descr1[INS_INLINE];
	struct udata u1[INS_INLINE];
	int exec_node, has_exec_node;
	starpu_data_handle_t exec_data;
	int policy;
	int prio;
	const char *name;
	int x;
	int exchanges;				/* sends and receives posted */
};

static void (*pre_submit_hook)(struct starpu_task *);

void insert_hooks_init(void)
{
	pre_submit_hook = NULL;
}

int starpu_mpi_pre_submit_hook_register(void (*f)(struct starpu_task *))
{
	pre_submit_hook = f;
	return 0;
}

int starpu_mpi_pre_submit_hook_unregister(void)
{
	pre_submit_hook = NULL;
	return 0;
}

static int add_data(struct ins *in, starpu_data_handle_t h, enum starpu_data_access_mode mode)
{
	if (in->n == in->cap)
	{
		int cap = in->cap * 2;
		struct starpu_data_descr *d = malloc(sizeof(*d) * (size_t) cap);
		if (!d)
			return -ENOMEM;
		memcpy(d, in->descr, sizeof(*d) * (size_t) in->n);
		if (in->descr != in->descr1)
			free(in->descr);
		in->descr = d;
		in->cap = cap;
	}
	in->descr[in->n].handle = h;
	in->descr[in->n].mode = mode;
	in->n++;
	return 0;
}

/* Walks the list as the runtime's starpu_task_insert reads it (keys and
 * the types of their values must stay in step with
 * runtime/core/task_insert.c). */
static int walk(struct ins *in, va_list ap)
{
	int type, ret = 0;
	in->policy = STARPU_MPI_NODE_SELECTION_CURRENT_POLICY;
	while (!ret && (type = va_arg(ap, int)) != 0)
	{
		if (type > 0 && type < (1 << STARPU_MODE_SHIFT))
		{
			ret = add_data(in, va_arg(ap, starpu_data_handle_t), (enum starpu_data_access_mode) type);
			continue;
		}
		switch (type)
		{
		case STARPU_VALUE:
		case STARPU_CL_ARGS:
		case STARPU_CL_ARGS_NFREE:
			(void) va_arg(ap, void *);
			(void) va_arg(ap, size_t);
			break;
		case STARPU_CALLBACK:
		case STARPU_PROLOGUE_CALLBACK:
		case STARPU_PROLOGUE_CALLBACK_POP:
			(void) va_arg(ap, void (*)(void *));
			break;
		case STARPU_CALLBACK_WITH_ARG:
		case STARPU_CALLBACK_WITH_ARG_NFREE:
			(void) va_arg(ap, void (*)(void *));
			(void) va_arg(ap, void *);
			break;
		case STARPU_CALLBACK_ARG:
		case STARPU_CALLBACK_ARG_NFREE:
		case STARPU_PROLOGUE_CALLBACK_ARG:
		case STARPU_PROLOGUE_CALLBACK_ARG_NFREE:
		case STARPU_PROLOGUE_CALLBACK_POP_ARG:
		case STARPU_PROLOGUE_CALLBACK_POP_ARG_NFREE:
		case STARPU_HANDLES_SEQUENTIAL_CONSISTENCY:
		case STARPU_TASK_PROFILING_INFO:
		case STARPU_TASK_SCHED_DATA:
			(void) va_arg(ap, void *);
			break;
		case STARPU_NAME:
			in->name = va_arg(ap, const char *);
			break;
		case STARPU_PRIORITY:
			in->prio = va_arg(ap, int);
			break;
		case STARPU_EXECUTE_ON_NODE:
			in->exec_node = va_arg(ap, int);
			in->has_exec_node = 1;
			break;
		case STARPU_NODE_SELECTION_POLICY:
			in->policy = va_arg(ap, int);
			break;
		case STARPU_EXECUTE_ON_DATA:
			in->exec_data = va_arg(ap, starpu_data_handle_t);
			break;
		case STARPU_DATA_ARRAY:
		{
			starpu_data_handle_t *handles = va_arg(ap, starpu_data_handle_t *);
			int n = va_arg(ap, int);
			for (int i = 0; i < n && !ret; i++)
			{
				if (!in->cl || (in->cl->nbuffers == STARPU_VARIABLE_NBUFFERS && !in->cl->dyn_modes && in->n >= STARPU_NMAXBUFS))
				{
					ret = -EINVAL;	/* the runtime names it when building */
					break;
				}
				ret = add_data(in, handles[i], STARPU_CODELET_GET_MODE(in->cl, in->n));
			}
			break;
		}
		case STARPU_DATA_MODE_ARRAY:
		{
			struct starpu_data_descr *d = va_arg(ap, struct starpu_data_descr *);
			int n = va_arg(ap, int);
			for (int i = 0; i < n && !ret; i++)
				ret = add_data(in, d[i].handle, d[i].mode);
			break;
		}
		case STARPU_TAG:
		case STARPU_TAG_ONLY:
			(void) va_arg(ap, starpu_tag_t);
			break;
		case STARPU_FLOPS:
			(void) va_arg(ap, double);
			break;
		case STARPU_EXECUTE_WHERE:
			(void) va_arg(ap, unsigned long long);
			break;
		case STARPU_HYPERVISOR_TAG:
		case STARPU_EXECUTE_ON_WORKER:
		case STARPU_TASK_END_DEP:
		case STARPU_TASK_COLOR:
		case STARPU_TASK_SYNCHRONOUS:
			(void) va_arg(ap, int);
			break;
		case STARPU_SCHED_CTX:
		case STARPU_WORKER_ORDER:
		case STARPU_POSSIBLY_PARALLEL:
		case STARPU_SEQUENTIAL_CONSISTENCY:
		case STARPU_TASK_NO_SUBMITORDER:
			(void) va_arg(ap, unsigned);
			break;
		case STARPU_TASK_DEPS_ARRAY:
		case STARPU_TASK_END_DEPS_ARRAY:
			(void) va_arg(ap, unsigned);
			(void) va_arg(ap, struct starpu_task **);
			break;
		case STARPU_TASK_WORKERIDS:
			(void) va_arg(ap, unsigned);
			(void) va_arg(ap, uint32_t *);
			break;
		default:
			mpi_error("%s: unknown argument type 0x%x (the list must end with 0) (-EINVAL)", in->fn, (unsigned) type);
			return -EINVAL;
		}
	}
	return ret;
}

static const char *task_label(const struct ins *in)
{
	if (in->name)
		return in->name;
	if (in->cl && in->cl->name)
		return in->cl->name;
	return "(unnamed)";
}

static int unique_data(struct ins *in)
{
	in->u = in->n <= INS_INLINE ? in->u1 : calloc((size_t) in->n, sizeof(*in->u));
	if (!in->u)
		return -ENOMEM;
	char lbl[64];
	int null_at = -1;
	for (int i = 0; i < in->n; i++)
	{
		starpu_data_handle_t h = in->descr[i].handle;
		enum starpu_data_access_mode mode = in->descr[i].mode & ~STARPU_SSEND;
		if (!h)
		{
			null_at = i;
			break;
		}
		int j;
		for (j = 0; j < in->nu; j++)
			if (in->u[j].h == h)
				break;
		if (j == in->nu)
		{
			in->u[j].h = h;
			in->u[j].mode = 0;
			in->nu++;
		}
		in->u[j].mode |= mode;
	}
	/* Handles are rarely in cache (every rank's task flow goes through
	 * them all): their misses overlap when fetched all at once. Each
	 * holds its record in its first cache line. */
	for (int j = 0; j < in->nu; j++)
		__builtin_prefetch(in->u[j].h);
	starpu_pthread_mutex_lock(&mpi.lock);
	for (int j = 0; j < in->nu; j++)
	{
		struct mdata *d = mdata_find_locked(in->u[j].h);
		in->u[j].d = d;
		in->u[j].rank = d ? d->rank : -1;
		in->u[j].tag = d ? d->tag : -1;
		in->u[j].other_comm = d && d->comm && d->comm != in->c;
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
	/* In the order of the list, as the handles come. */
	for (int j = 0; j < in->nu; j++)
	{
		if (in->u[j].rank == -1)
		{
			mpi_error("%s: task '%s' uses handle %s, which has no owner rank (register it on every rank with starpu_mpi_data_register) (-EINVAL)",
				  in->fn, task_label(in), mpi_handle_label(in->u[j].h, lbl, sizeof(lbl)));
			return -EINVAL;
		}
		if (in->u[j].other_comm)
		{
			mpi_error("%s: task '%s' uses handle %s, registered on another communicator (-EINVAL)",
				  in->fn, task_label(in), mpi_handle_label(in->u[j].h, lbl, sizeof(lbl)));
			return -EINVAL;
		}
	}
	if (null_at >= 0)
	{
		mpi_error("%s: task '%s': data %d is a NULL handle (-EINVAL)", in->fn, task_label(in), null_at);
		return -EINVAL;
	}
	return 0;
}

/* The executing rank (or X_ALL). */
static int executing_rank(struct ins *in)
{
	char lbl[64];
	if (in->exec_data)
	{
		int rank = starpu_mpi_data_get_rank(in->exec_data);
		if (rank < 0)
		{
			mpi_error("%s: task '%s': STARPU_EXECUTE_ON_DATA names handle %s, which has no owner rank (-EINVAL)",
				  in->fn, task_label(in), mpi_handle_label(in->exec_data, lbl, sizeof(lbl)));
			return -EINVAL;
		}
		return rank;
	}
	if (in->has_exec_node)
	{
		if (in->exec_node < 0 || in->exec_node >= in->c->size)
		{
			mpi_error("%s: task '%s': STARPU_EXECUTE_ON_NODE %d is outside the communicator (size %d) (-EINVAL)",
				  in->fn, task_label(in), in->exec_node, in->c->size);
			return -EINVAL;
		}
		return in->exec_node;
	}
	int owner = -1, several = 0, per_node = 0;
	for (int i = 0; i < in->nu; i++)
	{
		if (!(in->u[i].mode & (STARPU_W | STARPU_REDUX)))
			continue;
		if (in->u[i].rank == STARPU_MPI_PER_NODE)
			per_node = 1;
		else if (owner == -1)
			owner = in->u[i].rank;
		else if (owner != in->u[i].rank)
			several = 1;
	}
	if (per_node)
		return X_ALL;
	if (owner >= 0 && !several)
		return owner;
	return select_node(in->policy, in->me, in->c->size, in->descr, in->n, in->fn);
}

static int check_exchanges(struct ins *in)
{
	char lbl[64];
	for (int i = 0; i < in->nu; i++)
	{
		struct udata *u = &in->u[i];
		if (u->rank == STARPU_MPI_PER_NODE)
			continue;
		if (in->x == X_ALL && (u->mode & (STARPU_W | STARPU_REDUX)))
		{
			mpi_error("%s: task '%s' writes per-node data, so it runs on every rank, and also writes handle %s owned by rank %d: all the data it writes must then be per-node (-EINVAL)",
				  in->fn, task_label(in), mpi_handle_label(u->h, lbl, sizeof(lbl)), u->rank);
			return -EINVAL;
		}
		int moves = (in->x == X_ALL || in->x != u->rank) && (u->mode & (STARPU_R | STARPU_W));
		if (moves && u->tag < 0)
		{
			mpi_error("%s: task '%s' runs on rank %d and uses handle %s owned by rank %d, which has no tag to send it with (-EINVAL)",
				  in->fn, task_label(in), in->x, mpi_handle_label(u->h, lbl, sizeof(lbl)), u->rank);
			return -EINVAL;
		}
		if ((u->mode & STARPU_REDUX) && in->x != u->rank)
		{
			struct starpu_codelet *redux_cl, *init_cl;
			vela_data_get_reduction_methods(u->h, &redux_cl, &init_cl);
			if (!redux_cl || !init_cl || !redux_cl->cpu_funcs[0] || !init_cl->cpu_funcs[0])
			{
				mpi_error("%s: task '%s' accesses handle %s in STARPU_REDUX mode on rank %d, which does not own it: the handle needs reduction methods with a CPU implementation (starpu_data_set_reduction_methods) (-EINVAL)",
					  in->fn, task_label(in), mpi_handle_label(u->h, lbl, sizeof(lbl)), in->x);
				return -EINVAL;
			}
			if (u->tag < 0)
			{
				mpi_error("%s: task '%s' accesses handle %s in STARPU_REDUX mode on rank %d: the handle needs a tag for starpu_mpi_redux_data (-EINVAL)",
					  in->fn, task_label(in), mpi_handle_label(u->h, lbl, sizeof(lbl)), in->x);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int prepare(struct ins *in, MPI_Comm comm, struct starpu_codelet *cl, va_list ap, const char *fn)
{
	memset(in, 0, sizeof(*in));
	in->descr = in->descr1;
	in->cap = INS_INLINE;
	in->fn = fn;
	in->cl = cl;
	int ret = mpi_check_submit(fn);
	if (ret)
		return ret;
	in->c = mpi_comm_get(comm, fn);
	if (!in->c)
		return -EINVAL;
	in->me = in->c->rank;
	va_list aq;
	va_copy(aq, ap);
	ret = walk(in, aq);
	va_end(aq);
	if (!ret)
		ret = unique_data(in);
	if (!ret)
	{
		in->x = executing_rank(in);
		if (in->x < 0 && in->x != X_ALL)
			ret = in->x;
	}
	if (!ret)
		ret = check_exchanges(in);
	return ret;
}

static void release(struct ins *in)
{
	if (in->descr != in->descr1)
		free(in->descr);
	if (in->u != in->u1)
		free(in->u);
}

static int runs_here(const struct ins *in)
{
	return in->x == X_ALL || in->x == in->me;
}

/* ------------------------------------------------------------------ */
/* Reductions: wrappers that run the handle's CPU methods as tasks. */

static void redux_init_kernel(void *buffers[], void *cl_arg)
{
	struct starpu_codelet *init_cl = cl_arg;
	init_cl->cpu_funcs[0](buffers, NULL);
}

static void redux_fold_kernel(void *buffers[], void *cl_arg)
{
	struct starpu_codelet *redux_cl = cl_arg;
	redux_cl->cpu_funcs[0](buffers, NULL);
}

static struct starpu_codelet redux_init_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { redux_init_kernel },
	.nbuffers = 1,
	.modes = { STARPU_W },
	.name = "mpi_redux_init",
};

static struct starpu_codelet redux_fold_cl = {
	.where = STARPU_CPU,
	.cpu_funcs = { redux_fold_kernel },
	.nbuffers = 2,
	.modes = { STARPU_RW, STARPU_R },
	.name = "mpi_redux_fold",
};

/* Initialises h with its init method (a non-owner's start of REDUX
 * contributions). */
static int redux_submit_init(starpu_data_handle_t h, int prio)
{
	struct starpu_codelet *init_cl;
	vela_data_get_reduction_methods(h, NULL, &init_cl);
	return starpu_task_insert(&redux_init_cl, STARPU_W, h, STARPU_CL_ARGS_NFREE, init_cl, (size_t) 0,
				  STARPU_PRIORITY, prio, 0);
}

int redux_submit_fold(starpu_data_handle_t dst, starpu_data_handle_t src, int prio)
{
	struct starpu_codelet *redux_cl;
	vela_data_get_reduction_methods(dst, &redux_cl, NULL);
	if (!redux_cl || !redux_cl->cpu_funcs[0])
		return -EINVAL;
	return starpu_task_insert(&redux_fold_cl, STARPU_RW, dst, STARPU_R, src, STARPU_CL_ARGS_NFREE, redux_cl, (size_t) 0,
				  STARPU_PRIORITY, prio, 0);
}

/* ------------------------------------------------------------------ */
/* The exchanges. */

/* The first error is the one returned; the other exchanges still go. */
static void keep(int *ret, int r)
{
	if (r && !*ret)
		*ret = r;
}

static int send_to(struct ins *in, struct udata *u, int dest, int ssend)
{
	MPI_SIM_EXCHANGE_COST(0);
	in->exchanges++;
	struct mp2p p = {
		.fn = in->fn, .type = MREQ_SEND, .handle = u->h, .peer = dest, .tag = u->tag, .comm = in->c->comm,
		.prio = in->prio, .ssend = ssend, .seq_consistency = 1,
	};
	return p2p_submit(&p, NULL);
}

static int recv_from(struct ins *in, struct udata *u, int source)
{
	MPI_SIM_EXCHANGE_COST(1);
	in->exchanges++;
	struct mp2p p = {
		.fn = in->fn, .type = MREQ_RECV, .handle = u->h, .peer = source, .tag = u->tag, .comm = in->c->comm,
		.prio = in->prio, .seq_consistency = 1,
	};
	return p2p_submit(&p, NULL);
}

/* The owner o sends u to t unless t holds its current value. */
static int transfer(struct ins *in, struct udata *u, int o, int t)
{
	int me = in->me, do_send = 0, do_recv = 0;
	if (me != o && me != t)
		return 0;
	size_t size = me == o ? starpu_data_get_size(u->h) : 0;
	starpu_pthread_mutex_lock(&mpi.lock);
	struct mdata *d = u->d;
	if (d && me == o)
	{
		if (mpi.cache_enabled && d->sent && d->sent[t])
			cache_stat_hit(1, size);
		else
		{
			do_send = 1;
			if (mpi.cache_enabled && d->sent)
				d->sent[t] = 1;
		}
	}
	if (d && me == t)
	{
		if (mpi.cache_enabled && d->received)
			cache_stat_hit(0, 0);
		else
		{
			do_recv = 1;
			if (mpi.cache_enabled)
				d->received = 1;
		}
	}
	starpu_pthread_mutex_unlock(&mpi.lock);
	int ret = 0;
	if (do_send)
		ret = send_to(in, u, t, 0);
	if (do_recv)
		ret = recv_from(in, u, o);
	return ret;
}

static int exchange_inputs(struct ins *in)
{
	int ret = 0;
	for (int i = 0; i < in->nu; i++)
	{
		struct udata *u = &in->u[i];
		int o = u->rank;
		if (o == STARPU_MPI_PER_NODE)
			continue;
		if (u->mode & STARPU_R)
		{
			int ssend = 0;
			for (int k = 0; k < in->n; k++)
				if (in->descr[k].handle == u->h && (in->descr[k].mode & STARPU_SSEND))
					ssend = 1;
			if (in->x == X_ALL)
			{
				for (int t = 0; t < in->c->size; t++)
					if (t != o)
						keep(&ret, transfer(in, u, o, t));
			}
			else if (in->x != o)
			{
				if (ssend && in->me == o)
				{
					/* A synchronous send bypasses the cache: the
					 * application wants the handshake. */
					keep(&ret, send_to(in, u, in->x, 1));
					starpu_pthread_mutex_lock(&mpi.lock);
					struct mdata *d = u->d;
					if (d && d->sent && mpi.cache_enabled)
						d->sent[in->x] = 1;
					starpu_pthread_mutex_unlock(&mpi.lock);
				}
				else if (ssend && in->me == in->x)
				{
					keep(&ret, recv_from(in, u, o));
					starpu_pthread_mutex_lock(&mpi.lock);
					struct mdata *d = u->d;
					if (d && mpi.cache_enabled)
						d->received = 1;
					starpu_pthread_mutex_unlock(&mpi.lock);
				}
				else if (!ssend)
					keep(&ret, transfer(in, u, o, in->x));
			}
		}
		if ((u->mode & STARPU_REDUX) && in->x != o)
		{
			/* x accumulates from its method's neutral value; its
			 * copy is no longer the owner's value. */
			int init = 0;
			starpu_pthread_mutex_lock(&mpi.lock);
			struct mdata *d = u->d;
			if (d && d->redux)
			{
				init = in->me == in->x && !d->redux[in->x];
				d->redux[in->x] = 1;
				if (in->me == in->x)
					d->received = 0;
				if (in->me == o && d->sent)
					d->sent[in->x] = 0;
			}
			starpu_pthread_mutex_unlock(&mpi.lock);
			if (init)
				keep(&ret, redux_submit_init(u->h, in->prio));
		}
	}
	return ret;
}

static int exchange_outputs(struct ins *in)
{
	int ret = 0, me = in->me;
	for (int i = 0; i < in->nu; i++)
	{
		struct udata *u = &in->u[i];
		int o = u->rank, x = in->x;
		if (o == STARPU_MPI_PER_NODE)
			continue;
		int drop = 0;
		if (u->mode & STARPU_W)
		{
			if (x != o && me == x)
				keep(&ret, send_to(in, u, o, 0));
			if (x != o && me == o)
				keep(&ret, recv_from(in, u, x));
			/* The value changed: only the owner and x hold it now. */
			starpu_pthread_mutex_lock(&mpi.lock);
			struct mdata *d = u->d;
			if (d)
			{
				if (me == o)
				{
					if (d->sent)
						memset(d->sent, 0, (size_t) in->c->size);
					if (d->sent && mpi.cache_enabled && x != o)
						d->sent[x] = 1;
				}
				else if (me == x)
				{
					d->received = mpi.cache_enabled;
					drop = !mpi.cache_enabled;
				}
				else
				{
					drop = d->received;
					d->received = 0;
				}
			}
			starpu_pthread_mutex_unlock(&mpi.lock);
		}
		else if ((u->mode & STARPU_R) && me != o && (x == X_ALL || x == me) && !mpi.cache_enabled)
			drop = 1;	/* the temporary copy of an input */
		if (drop)
			mdata_drop_copy(u->h);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* The API. */

enum phase { INSERT, BUILD, POST_BUILD };

static int mpi_insert(MPI_Comm comm, struct starpu_codelet *cl, va_list ap, enum phase phase, struct starpu_task **taskp, const char *fn)
{
	struct ins in;
	double t0 = insert_stats_begin();
	int ret = prepare(&in, comm, cl, ap, fn);
	if (ret)
	{
		release(&in);
		return ret;
	}
	struct starpu_task *task = NULL;
	if (phase != POST_BUILD && runs_here(&in))
	{
		task = starpu_task_create();
		if (!task)
			ret = -ENOMEM;
		else if ((ret = vela_task_set_va(task, cl, ap)))
		{
			task->destroy = 1;
			starpu_task_destroy(task);
			task = NULL;
		}
		if (ret)
		{
			release(&in);
			return ret;
		}
	}
	MPI_SIM_INSERT_COST(in.nu, task != NULL);
	if (phase != POST_BUILD)
		ret = exchange_inputs(&in);
	if (phase == INSERT && task)
	{
		if (pre_submit_hook)
			pre_submit_hook(task);
		int sret = starpu_task_submit(task);
		if (sret)
		{
			mpi_error("%s: task '%s' could not be submitted (%d)", fn, task_label(&in), sret);
			task->destroy = 1;
			starpu_task_destroy(task);
			ret = sret;
		}
	}
	if (phase == BUILD)
		*taskp = task;
	if (phase != BUILD)
		keep(&ret, exchange_outputs(&in));
	if (phase == INSERT && !ret)
		insert_stats_end(t0, task != NULL, in.nu, in.exchanges);
	release(&in);
	return ret;
}

int starpu_mpi_task_insert(MPI_Comm comm, struct starpu_codelet *codelet, ...)
{
	va_list ap;
	va_start(ap, codelet);
	int ret = mpi_insert(comm, codelet, ap, INSERT, NULL, "starpu_mpi_task_insert");
	va_end(ap);
	return ret;
}

int starpu_mpi_insert_task(MPI_Comm comm, struct starpu_codelet *codelet, ...)
{
	va_list ap;
	va_start(ap, codelet);
	int ret = mpi_insert(comm, codelet, ap, INSERT, NULL, "starpu_mpi_insert_task");
	va_end(ap);
	return ret;
}

struct starpu_task *starpu_mpi_task_build(MPI_Comm comm, struct starpu_codelet *codelet, ...)
{
	struct starpu_task *task = NULL;
	va_list ap;
	va_start(ap, codelet);
	int ret = mpi_insert(comm, codelet, ap, BUILD, &task, "starpu_mpi_task_build");
	va_end(ap);
	return ret ? NULL : task;
}

int starpu_mpi_task_post_build(MPI_Comm comm, struct starpu_codelet *codelet, ...)
{
	va_list ap;
	va_start(ap, codelet);
	int ret = mpi_insert(comm, codelet, ap, POST_BUILD, NULL, "starpu_mpi_task_post_build");
	va_end(ap);
	return ret;
}
