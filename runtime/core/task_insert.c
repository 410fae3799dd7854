/* task_insert.c — starpu_task_insert and friends: building a task from a
 * list of (key, value...) arguments, and packing codelet arguments.
 *
 * Packed arguments (STARPU_VALUE, starpu_codelet_pack_args) are laid out as
 *   int nargs, then nargs times { size_t size; unsigned char data[size]; }
 * and read back in the same order by starpu_codelet_unpack_args.
 */
#include "core/job.h"
#include "core/rt.h"
#include <vela_extension.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Packing. */

void starpu_codelet_pack_arg_init(struct starpu_codelet_pack_arg_data *state)
{
	state->arg_buffer = NULL;
	state->arg_buffer_size = 0;
	state->current_offset = sizeof(int);
	state->nargs = 0;
}

void starpu_codelet_pack_arg(struct starpu_codelet_pack_arg_data *state, const void *ptr, size_t ptr_size)
{
	size_t need = state->current_offset + sizeof(size_t) + ptr_size;
	if (need > state->arg_buffer_size)
	{
		size_t cap = state->arg_buffer_size ? state->arg_buffer_size : 64;
		while (cap < need)
			cap *= 2;
		char *b = realloc(state->arg_buffer, cap);
		if (!b)
		{
			rt_error("starpu_codelet_pack_arg: out of memory packing %zu bytes", ptr_size);
			abort();
		}
		state->arg_buffer = b;
		state->arg_buffer_size = cap;
	}
	memcpy(state->arg_buffer + state->current_offset, &ptr_size, sizeof(size_t));
	state->current_offset += sizeof(size_t);
	if (ptr_size && !ptr)
	{
		/* No error return here (StarPU's prototype): zeros keep the
		 * layout, so the following arguments still unpack right. */
		rt_error("starpu_codelet_pack_arg: argument %d is NULL with a size of %zu bytes; packed as zeros",
			 state->nargs + 1, ptr_size);
		memset(state->arg_buffer + state->current_offset, 0, ptr_size);
	}
	else if (ptr_size)
		memcpy(state->arg_buffer + state->current_offset, ptr, ptr_size);
	state->current_offset += ptr_size;
	state->nargs++;
}

void starpu_codelet_pack_arg_fini(struct starpu_codelet_pack_arg_data *state, void **cl_arg, size_t *cl_arg_size)
{
	if (!state->arg_buffer)
	{
		/* No argument: still a valid buffer holding nargs = 0. */
		state->arg_buffer = malloc(sizeof(int));
		if (!state->arg_buffer)
			abort();
	}
	memcpy(state->arg_buffer, &state->nargs, sizeof(int));
	*cl_arg = state->arg_buffer;
	*cl_arg_size = state->current_offset;
}

void starpu_codelet_pack_args(void **arg_buffer, size_t *arg_buffer_size, ...)
{
	struct starpu_codelet_pack_arg_data state;
	starpu_codelet_pack_arg_init(&state);
	va_list ap;
	va_start(ap, arg_buffer_size);
	int type, failed = 0;
	while ((type = va_arg(ap, int)) != 0)
	{
		if (type != STARPU_VALUE)
		{
			rt_error("starpu_codelet_pack_args: only STARPU_VALUE arguments can be packed (got 0x%x)", (unsigned) type);
			break;
		}
		void *ptr = va_arg(ap, void *);
		size_t size = va_arg(ap, size_t);
		if (!ptr && size)
		{
			/* No error return (StarPU's prototype): no buffer. */
			rt_error("starpu_codelet_pack_args: STARPU_VALUE argument %d is NULL with a size of %zu bytes; "
				 "nothing packed (*arg_buffer is NULL)", state.nargs + 1, size);
			failed = 1;
			break;
		}
		starpu_codelet_pack_arg(&state, ptr, size);
	}
	va_end(ap);
	if (failed)
	{
		free(state.arg_buffer);
		*arg_buffer = NULL;
		*arg_buffer_size = 0;
		return;
	}
	starpu_codelet_pack_arg_fini(&state, arg_buffer, arg_buffer_size);
}

/* Copies the packed values into the pointers of ap; returns the offset of
 * the first value not unpacked and its index. */
static size_t unpack(const char *buf, va_list ap, int *next_arg)
{
	int nargs;
	memcpy(&nargs, buf, sizeof(int));
	size_t off = sizeof(int);
	int i;
	for (i = 0; i < nargs; i++)
	{
		void *dst = va_arg(ap, void *);
		if (!dst)
			break;
		size_t size;
		memcpy(&size, buf + off, sizeof(size_t));
		off += sizeof(size_t);
		memcpy(dst, buf + off, size);
		off += size;
	}
	*next_arg = i;
	return off;
}

void starpu_codelet_unpack_args(void *cl_arg, ...)
{
	if (!cl_arg)
		return;
	va_list ap;
	va_start(ap, cl_arg);
	int next;
	unpack(cl_arg, ap, &next);
	va_end(ap);
}

void starpu_codelet_unpack_args_and_copyleft(void *cl_arg, void *buffer, size_t buffer_size, ...)
{
	if (!cl_arg)
		return;
	va_list ap;
	va_start(ap, buffer_size);
	int next;
	size_t off = unpack(cl_arg, ap, &next);
	va_end(ap);

	/* Repack what remains as a buffer of its own. */
	int nargs;
	memcpy(&nargs, cl_arg, sizeof(int));
	int left = nargs - next;
	const char *src = (const char *) cl_arg + off;
	size_t rest = 0;
	for (int i = 0, o = 0; i < left; i++)
	{
		size_t size;
		memcpy(&size, src + o, sizeof(size_t));
		o += (int) (sizeof(size_t) + size);
		rest = (size_t) o;
	}
	if (sizeof(int) + rest > buffer_size)
	{
		rt_error("starpu_codelet_unpack_args_and_copyleft: %zu bytes left, buffer holds %zu", sizeof(int) + rest, buffer_size);
		return;
	}
	memcpy(buffer, &left, sizeof(int));
	memcpy((char *) buffer + sizeof(int), src, rest);
}

/* ------------------------------------------------------------------ */
/* Building a task from the argument list. */

struct builder
{
	const char *api;			/* the caller, for messages */
	struct starpu_task *task;
	struct starpu_codelet *cl;
	unsigned nbuffers;
	unsigned cap;				/* capacity of dyn arrays, 0 if unused */
	struct starpu_codelet_pack_arg_data pack;
	int packing;
	int cl_args;				/* STARPU_CL_ARGS[_NFREE] given */
};

/* Whether the modes of cl's buffers come from the task (what
 * STARPU_TASK_GET_MODE reads): codelets with a variable number of buffers,
 * and those with more than STARPU_NMAXBUFS and no cl->dyn_modes. */
static int modes_from_task(const struct starpu_codelet *cl)
{
	return cl->nbuffers == STARPU_VARIABLE_NBUFFERS || (cl->nbuffers > STARPU_NMAXBUFS && !cl->dyn_modes);
}

/* Makes room for one more buffer, moving to dyn_handles past NMAXBUFS. */
static int builder_room(struct builder *b)
{
	struct starpu_task *task = b->task;
	if (b->nbuffers < STARPU_NMAXBUFS && !b->cap)
		return 0;
	if (!b->cap)
	{
		b->cap = STARPU_NMAXBUFS * 2;
		task->dyn_handles = malloc(sizeof(*task->dyn_handles) * b->cap);
		task->dyn_modes = malloc(sizeof(*task->dyn_modes) * b->cap);
		if (!task->dyn_handles || !task->dyn_modes)
			return -ENOMEM;
		memcpy(task->dyn_handles, task->handles, sizeof(task->handles));
		memcpy(task->dyn_modes, task->modes, sizeof(task->modes));
		job_get(task)->owns_dyn_handles = 1;
	}
	else if (b->nbuffers == b->cap)
	{
		b->cap *= 2;
		starpu_data_handle_t *h = realloc(task->dyn_handles, sizeof(*h) * b->cap);
		if (!h)
			return -ENOMEM;
		task->dyn_handles = h;
		enum starpu_data_access_mode *m = realloc(task->dyn_modes, sizeof(*m) * b->cap);
		if (!m)
			return -ENOMEM;
		task->dyn_modes = m;
	}
	return 0;
}

static int builder_add(struct builder *b, starpu_data_handle_t handle, enum starpu_data_access_mode mode)
{
	struct starpu_codelet *cl = b->cl;
	unsigned i = b->nbuffers;
	/* STARPU_SSEND only tells starpu_mpi_task_insert how to send the
	 * data: nothing for the local task. */
	mode &= ~STARPU_SSEND;
	if (!cl)
	{
		rt_error("%s: a data buffer was given to a task without codelet (-EINVAL)", b->api);
		return -EINVAL;
	}
	if (cl->nbuffers != STARPU_VARIABLE_NBUFFERS)
	{
		if ((int) i >= cl->nbuffers)
		{
			rt_error("%s: codelet '%s' takes %d buffers, but more were given (-EINVAL)", b->api,
				 cl->name ? cl->name : "(unnamed)", cl->nbuffers);
			return -EINVAL;
		}
		if (!modes_from_task(cl))
		{
			/* As in StarPU: a codelet that leaves a buffer's mode unset
			 * takes the first one given (Chameleon relies on it);
			 * later ones must agree. */
			enum starpu_data_access_mode expected = STARPU_CODELET_GET_MODE(cl, i);
			if (!expected)
			{
				enum starpu_data_access_mode *slot = cl->dyn_modes ? &cl->dyn_modes[i] : &cl->modes[i];
				enum starpu_data_access_mode unset = 0;
				__atomic_compare_exchange_n(slot, &unset, mode, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
				expected = __atomic_load_n(slot, __ATOMIC_RELAXED);
			}
			if (mode != expected)
			{
				rt_error("%s: codelet '%s' buffer %u: mode 0x%x given, the codelet declares 0x%x (-EINVAL)",
					 b->api, cl->name ? cl->name : "(unnamed)", i, (unsigned) mode, (unsigned) expected);
				return -EINVAL;
			}
		}
	}
	int ret = builder_room(b);
	if (ret)
		return ret;
	struct starpu_task *task = b->task;
	if (b->cap)
	{
		task->dyn_handles[i] = handle;
		task->dyn_modes[i] = mode;
	}
	else
	{
		task->handles[i] = handle;
		task->modes[i] = mode;
	}
	b->nbuffers++;
	return 0;
}

/* Data modes fit below the keys (STARPU_MODE_SHIFT). */
static int is_data_mode(int type)
{
	return type > 0 && type < (1 << STARPU_MODE_SHIFT);
}

static int task_set_va(const char *api, struct starpu_task *task, struct starpu_codelet *cl, va_list ap)
{
	struct builder b = { .api = api, .task = task, .cl = cl };
	unsigned nvalues = 0;
	int ret = 0;
	task->cl = cl;
	int type;
	while ((type = va_arg(ap, int)) != 0 && !ret)
	{
		if (is_data_mode(type))
		{
			starpu_data_handle_t h = va_arg(ap, starpu_data_handle_t);
			ret = builder_add(&b, h, (enum starpu_data_access_mode) type);
			continue;
		}
		switch (type)
		{
		case STARPU_VALUE:
		{
			void *ptr = va_arg(ap, void *);
			size_t size = va_arg(ap, size_t);
			nvalues++;
			if (!ptr && size)
			{
				rt_error("%s: STARPU_VALUE argument %u is NULL with a size of %zu bytes (-EINVAL)", api, nvalues,
					 size);
				ret = -EINVAL;
				break;
			}
			if (!b.packing)
			{
				starpu_codelet_pack_arg_init(&b.pack);
				b.packing = 1;
			}
			starpu_codelet_pack_arg(&b.pack, ptr, size);
			break;
		}
		case STARPU_CL_ARGS:
		case STARPU_CL_ARGS_NFREE:
			task->cl_arg = va_arg(ap, void *);
			task->cl_arg_size = va_arg(ap, size_t);
			task->cl_arg_free = type == STARPU_CL_ARGS;
			b.cl_args = 1;
			break;
		case STARPU_CALLBACK:
			task->callback_func = va_arg(ap, void (*)(void *));
			break;
		case STARPU_CALLBACK_WITH_ARG:
		case STARPU_CALLBACK_WITH_ARG_NFREE:
			task->callback_func = va_arg(ap, void (*)(void *));
			task->callback_arg = va_arg(ap, void *);
			task->callback_arg_free = type == STARPU_CALLBACK_WITH_ARG;
			break;
		case STARPU_CALLBACK_ARG:
		case STARPU_CALLBACK_ARG_NFREE:
			task->callback_arg = va_arg(ap, void *);
			task->callback_arg_free = type == STARPU_CALLBACK_ARG;
			break;
		case STARPU_PROLOGUE_CALLBACK:
			task->prologue_callback_func = va_arg(ap, void (*)(void *));
			break;
		case STARPU_PROLOGUE_CALLBACK_ARG:
		case STARPU_PROLOGUE_CALLBACK_ARG_NFREE:
			task->prologue_callback_arg = va_arg(ap, void *);
			task->prologue_callback_arg_free = type == STARPU_PROLOGUE_CALLBACK_ARG;
			break;
		case STARPU_PROLOGUE_CALLBACK_POP:
			task->prologue_callback_pop_func = va_arg(ap, void (*)(void *));
			break;
		case STARPU_PROLOGUE_CALLBACK_POP_ARG:
		case STARPU_PROLOGUE_CALLBACK_POP_ARG_NFREE:
			task->prologue_callback_pop_arg = va_arg(ap, void *);
			task->prologue_callback_pop_arg_free = type == STARPU_PROLOGUE_CALLBACK_POP_ARG;
			break;
		case STARPU_PRIORITY:
			task->priority = va_arg(ap, int);
			break;
		case STARPU_EXECUTE_ON_NODE:
		case STARPU_NODE_SELECTION_POLICY:
			/* Distributed execution only: meaningless on one node. */
			(void) va_arg(ap, int);
			break;
		case STARPU_EXECUTE_ON_DATA:
			(void) va_arg(ap, starpu_data_handle_t);
			break;
		case STARPU_DATA_ARRAY:
		{
			starpu_data_handle_t *handles = va_arg(ap, starpu_data_handle_t *);
			int n = va_arg(ap, int);
			for (int i = 0; i < n && !ret; i++)
			{
				if (!cl)
				{
					rt_error("%s: STARPU_DATA_ARRAY needs a codelet to give the modes (-EINVAL)", api);
					ret = -EINVAL;
					break;
				}
				/* The modes come from the codelet: its dyn_modes, or
				 * its modes up to STARPU_NMAXBUFS. */
				enum starpu_data_access_mode mode = 0;
				if (cl->dyn_modes)
					mode = cl->dyn_modes[b.nbuffers];
				else if (b.nbuffers < STARPU_NMAXBUFS)
					mode = cl->modes[b.nbuffers];
				if (!mode)
				{
					rt_error("%s: STARPU_DATA_ARRAY: codelet '%s' gives no access mode for buffer %u "
						 "(set cl->modes or cl->dyn_modes, or use STARPU_DATA_MODE_ARRAY) (-EINVAL)",
						 api, cl->name ? cl->name : "(unnamed)", b.nbuffers);
					ret = -EINVAL;
					break;
				}
				ret = builder_add(&b, handles[i], mode);
			}
			break;
		}
		case STARPU_DATA_MODE_ARRAY:
		{
			struct starpu_data_descr *descr = va_arg(ap, struct starpu_data_descr *);
			int n = va_arg(ap, int);
			for (int i = 0; i < n && !ret; i++)
				ret = builder_add(&b, descr[i].handle, descr[i].mode);
			break;
		}
		case STARPU_TAG:
			task->tag_id = va_arg(ap, starpu_tag_t);
			task->use_tag = 1;
			break;
		case STARPU_TAG_ONLY:
			task->tag_id = va_arg(ap, starpu_tag_t);
			break;
		case STARPU_HYPERVISOR_TAG:
			task->hypervisor_tag = va_arg(ap, int);
			break;
		case STARPU_FLOPS:
			task->flops = va_arg(ap, double);
			break;
		case STARPU_SCHED_CTX:
			task->sched_ctx = va_arg(ap, unsigned);
			break;
		case STARPU_EXECUTE_ON_WORKER:
		{
			int w = va_arg(ap, int);
			if (w != -1)
			{
				task->execute_on_a_specific_worker = 1;
				task->workerid = (unsigned) w;
			}
			break;
		}
		case STARPU_WORKER_ORDER:
			task->workerorder = va_arg(ap, unsigned);
			break;
		case STARPU_EXECUTE_WHERE:
			task->where = (int32_t) va_arg(ap, unsigned long long);
			break;
		case STARPU_POSSIBLY_PARALLEL:
			task->possibly_parallel = va_arg(ap, unsigned);
			break;
		case STARPU_NAME:
			task->name = va_arg(ap, const char *);
			break;
		case STARPU_TASK_DEPS_ARRAY:
		{
			unsigned n = va_arg(ap, unsigned);
			struct starpu_task **deps = va_arg(ap, struct starpu_task **);
			starpu_task_declare_deps_array(task, n, deps);
			break;
		}
		case STARPU_TASK_END_DEPS_ARRAY:
		{
			unsigned n = va_arg(ap, unsigned);
			struct starpu_task **deps = va_arg(ap, struct starpu_task **);
			starpu_task_declare_end_deps_array(task, n, deps);
			break;
		}
		case STARPU_TASK_END_DEP:
			starpu_task_end_dep_add(task, va_arg(ap, int));
			break;
		case STARPU_TASK_COLOR:
			task->color = (unsigned) va_arg(ap, int);
			break;
		case STARPU_HANDLES_SEQUENTIAL_CONSISTENCY:
			task->handles_sequential_consistency = va_arg(ap, unsigned char *);
			break;
		case STARPU_TASK_SYNCHRONOUS:
			task->synchronous = va_arg(ap, int) ? 1 : 0;
			break;
		case STARPU_TASK_WORKERIDS:
			task->workerids_len = va_arg(ap, unsigned);
			task->workerids = va_arg(ap, uint32_t *);
			break;
		case STARPU_SEQUENTIAL_CONSISTENCY:
			task->sequential_consistency = va_arg(ap, unsigned) ? 1 : 0;
			break;
		case STARPU_TASK_PROFILING_INFO:
			task->profiling_info = va_arg(ap, struct starpu_profiling_task_info *);
			break;
		case STARPU_TASK_NO_SUBMITORDER:
			task->no_submitorder = va_arg(ap, unsigned) ? 1 : 0;
			break;
		case STARPU_TASK_SCHED_DATA:
			task->sched_data = va_arg(ap, void *);
			break;
		default:
			rt_error("%s: unknown argument type 0x%x (the list must end with 0) (-EINVAL)", api, (unsigned) type);
			ret = -EINVAL;
			break;
		}
	}
	if (b.packing && b.cl_args)
	{
		/* One argument buffer per task: StarPU's starpu_task_build
		 * returns NULL for this. */
		if (!ret)
			rt_error("%s: STARPU_CL_ARGS and STARPU_VALUE cannot be mixed: the codelet gets one argument buffer (-EINVAL)", api);
		free(b.pack.arg_buffer);
		ret = -EINVAL;
	}
	else if (b.packing)
	{
		starpu_codelet_pack_arg_fini(&b.pack, &task->cl_arg, &task->cl_arg_size);
		task->cl_arg_free = 1;
	}
	if (!ret && cl && cl->nbuffers == STARPU_VARIABLE_NBUFFERS)
		task->nbuffers = (int) b.nbuffers;
	else if (!ret && cl && cl->nbuffers != STARPU_VARIABLE_NBUFFERS && (int) b.nbuffers != cl->nbuffers)
	{
		rt_error("%s: codelet '%s' takes %d buffers, %u were given (-EINVAL)", api,
			 cl->name ? cl->name : "(unnamed)", cl->nbuffers, b.nbuffers);
		ret = -EINVAL;
	}
	return ret;
}

int vela_task_set_va(struct starpu_task *task, struct starpu_codelet *cl, va_list varg_list)
{
	va_list ap;
	va_copy(ap, varg_list);
	int ret = task_set_va("starpu_mpi_task_insert", task, cl, ap);
	va_end(ap);
	return ret;
}

int starpu_task_set(struct starpu_task *task, struct starpu_codelet *cl, ...)
{
	va_list ap;
	va_start(ap, cl);
	int ret = task_set_va("starpu_task_set", task, cl, ap);
	va_end(ap);
	return ret;
}

struct starpu_task *starpu_task_build(struct starpu_codelet *cl, ...)
{
	struct starpu_task *task = starpu_task_create();
	if (!task)
		return NULL;
	va_list ap;
	va_start(ap, cl);
	int ret = task_set_va("starpu_task_build", task, cl, ap);
	va_end(ap);
	if (ret)
	{
		starpu_task_destroy(task);
		return NULL;
	}
	return task;
}

static int insert_va(const char *api, struct starpu_codelet *cl, va_list ap)
{
	struct starpu_task *task = starpu_task_create();
	if (!task)
		return -ENOMEM;
	int ret = task_set_va(api, task, cl, ap);
	if (!ret)
		ret = starpu_task_submit(task);
	if (ret)
	{
		/* Not submitted: the task is ours to free. */
		task->destroy = 1;
		starpu_task_destroy(task);
	}
	return ret;
}

int starpu_task_insert(struct starpu_codelet *cl, ...)
{
	va_list ap;
	va_start(ap, cl);
	int ret = insert_va("starpu_task_insert", cl, ap);
	va_end(ap);
	return ret;
}

int starpu_insert_task(struct starpu_codelet *cl, ...)
{
	va_list ap;
	va_start(ap, cl);
	int ret = insert_va("starpu_insert_task", cl, ap);
	va_end(ap);
	return ret;
}
