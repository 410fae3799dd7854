/* task.c — the task API: creation, submission, waiting, and the task
 * counters behind starpu_task_wait_for_all.
 *
 * Submission checks the task (every rejection names the task and the field
 * at fault), attaches it to a job, computes its dependencies and lets the
 * job go (job.c). Waiting sleeps on a seam condition, never spins.
 */
#include "core/combined.h"
#include "core/job.h"
#include "core/rt.h"
#include "core/sched_ctx.h"
#include "core/sim_loader.h"
#include "core/tags.h"
#include "core/workers.h"
#include "data/data.h"
#include "perfmodel/bound.h"
#include "trace/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TASK_MAGIC 42

void starpu_task_init(struct starpu_task *task)
{
	if (!task)
		return;
	memset(task, 0, sizeof(*task));
	task->where = -1;
	task->priority = STARPU_DEFAULT_PRIO;
	task->sequential_consistency = 1;
	task->detach = 1;
	task->status = STARPU_TASK_INIT;
	task->predicted = NAN;
	task->predicted_transfer = NAN;
	task->predicted_start = NAN;
	task->magic = TASK_MAGIC;
	task->sched_ctx = STARPU_NMAX_SCHED_CTXS;
}

void starpu_task_clean(struct starpu_task *task)
{
	if (!task)
		return;
	struct job *job = job_of(task);
	if (job && job_in_flight(job))
	{
		rt_error("starpu_task_clean: task '%s' is still submitted; wait for it first", starpu_task_get_name(task));
		return;
	}
	if (task->cl_arg_free)
	{
		free(task->cl_arg);
		task->cl_arg = NULL;
	}
	if (task->callback_arg_free)
	{
		free(task->callback_arg);
		task->callback_arg = NULL;
	}
	if (task->prologue_callback_arg_free)
	{
		free(task->prologue_callback_arg);
		task->prologue_callback_arg = NULL;
	}
	if (task->prologue_callback_pop_arg_free)
	{
		free(task->prologue_callback_pop_arg);
		task->prologue_callback_pop_arg = NULL;
	}
	if (job)
	{
		int created = job->created;
		job_fini(job);
		/* A created task stays a created task: starpu_task_destroy must
		 * still free it. */
		job_init(job, task);
		job->created = (unsigned char) created;
	}
}

struct starpu_task *starpu_task_create(void)
{
	struct starpu_task *task = job_alloc_task();
	if (!task)
		return NULL;
	/* Created tasks are freed by the runtime once done, unless waited for. */
	task->destroy = 1;
	return task;
}

void starpu_task_destroy(struct starpu_task *task)
{
	if (!task)
		return;
	if (job_task_is_dead(task))
	{
		rt_error("starpu_task_destroy: task %p was already destroyed", (void *) task);
		return;
	}
	struct job *job = job_of(task);
	if (job && job_in_flight(job))
	{
		/* Submitted and not finished: freeing it now would pull it
		 * from under the runtime (StarPU 1.3 crashes later on). An
		 * application error, said as such; termination frees it. */
		task->destroy = 1;
		task->detach = 1;
		rt_error("starpu_task_destroy: task '%s' (%p) is submitted and not finished; it will be freed when done "
			 "(wait for it before destroying it)", starpu_task_get_name(task), (void *) task);
		return;
	}
	job_release_task(task);
}

const char *starpu_task_get_name(struct starpu_task *task)
{
	if (!task)
		return "(null)";
	if (task->name)
		return task->name;
	if (task->cl && task->cl->name)
		return task->cl->name;
	if (task->cl && task->cl->model && task->cl->model->symbol)
		return task->cl->model->symbol;
	return "(unnamed)";
}

const char *starpu_task_get_model_name(struct starpu_task *task)
{
	if (task && task->cl && task->cl->model && task->cl->model->symbol)
		return task->cl->model->symbol;
	return NULL;
}

void starpu_codelet_init(struct starpu_codelet *cl)
{
	memset(cl, 0, sizeof(*cl));
}

/* Fills in what the codelet leaves implicit (where, the deprecated single
 * function fields). Done once per codelet; the stores are benign if two
 * threads race, as both write the same values. */
void task_codelet_check(struct starpu_codelet *cl)
{
	if (__atomic_load_n(&cl->checked, __ATOMIC_ACQUIRE))
		return;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	if (!cl->cpu_funcs[0] && cl->cpu_func && cl->cpu_func != STARPU_MULTIPLE_CPU_IMPLEMENTATIONS)
		__atomic_store_n(&cl->cpu_funcs[0], cl->cpu_func, __ATOMIC_RELAXED);
	if (!cl->cuda_funcs[0] && cl->cuda_func && cl->cuda_func != STARPU_MULTIPLE_CUDA_IMPLEMENTATIONS)
		__atomic_store_n(&cl->cuda_funcs[0], cl->cuda_func, __ATOMIC_RELAXED);
	if (!cl->opencl_funcs[0] && cl->opencl_func && cl->opencl_func != STARPU_MULTIPLE_OPENCL_IMPLEMENTATIONS)
		__atomic_store_n(&cl->opencl_funcs[0], cl->opencl_func, __ATOMIC_RELAXED);
#pragma GCC diagnostic pop
	int implicit_where = cl->where == 0;
	if (implicit_where)
	{
		uint32_t where = 0;
		if (cl->cpu_funcs[0] || cl->cpu_funcs_name[0])
			where |= STARPU_CPU;
		if (cl->cuda_funcs[0])
			where |= STARPU_CUDA;
		if (cl->opencl_funcs[0])
			where |= STARPU_OPENCL;
		/* MPI slaves find kernels by name (drivers/mp/). */
		if (cl->cpu_funcs_name[0] || cl->mpi_ms_funcs[0])
			where |= STARPU_MPI_MS;
		__atomic_store_n(&cl->where, where, __ATOMIC_RELAXED);
	}
	/* A codelet that could run on the run's MPI slaves but names no
	 * kernel they can find: said once, when it is first submitted. */
	if ((rt.worker_mask & STARPU_MPI_MS) && (implicit_where || (cl->where & STARPU_MPI_MS)) && cl->cpu_funcs[0] &&
	    !cl->cpu_funcs_name[0] && !cl->mpi_ms_funcs[0])
		rt_warn("codelet '%s' has CPU functions but no cpu_funcs_name (nor mpi_ms_funcs): its tasks do not run on the "
			"MPI slaves, only on this process's workers (said once per codelet)", cl->name ? cl->name : "(unnamed)");
	__atomic_store_n(&cl->checked, 1, __ATOMIC_RELEASE);
}

static const char *where_string(uint32_t where, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", where & STARPU_CPU ? "CPU " : "", where & STARPU_CUDA ? "CUDA " : "",
		 where & STARPU_OPENCL ? "OpenCL " : "", where & STARPU_MPI_MS ? "MPI_MS " : "", where ? "" : "nothing");
	return buf;
}

/* Whether some worker can run the task; prints why not. */
static int task_has_worker(struct starpu_task *task)
{
	struct starpu_codelet *cl = task->cl;
	uint32_t where = cl->where;
	if (task->where != -1)
		where &= (uint32_t) task->where;
	if (task->execute_on_a_specific_worker && combined_get((int) task->workerid))
	{
		if (combined_first_impl(combined_get((int) task->workerid), task) < 0)
		{
			rt_error("starpu_task_submit: combined worker %u cannot run codelet '%s' (a parallel codelet whose max_parallelism admits its size is needed) (-ENODEV)",
				 task->workerid, starpu_task_get_name(task));
			return -ENODEV;
		}
		return 0;
	}
	if (task->execute_on_a_specific_worker)
	{
		if (task->workerid >= rt.nworkers)
		{
			rt_error("starpu_task_submit: task '%s' asks for worker %u, but there are %u workers (-EINVAL)",
				 starpu_task_get_name(task), task->workerid, rt.nworkers);
			return -EINVAL;
		}
		if (worker_first_impl(&rt.workers[task->workerid], task) < 0)
		{
			rt_error("starpu_task_submit: worker %u (%s) cannot run codelet '%s' (-ENODEV)",
				 task->workerid, rt.workers[task->workerid].name, starpu_task_get_name(task));
			return -ENODEV;
		}
		return 0;
	}
	if (!cl->can_execute && !task->workerids_len && (where & rt.worker_mask))
		return 0;
	for (unsigned i = 0; i < rt.nworkers; i++)
		if (worker_first_impl(&rt.workers[i], task) >= 0)
			return 0;
	char b1[64];
	if (task->workerids_len)
	{
		rt_error("starpu_task_submit: none of the workers task->workerids allows (%u words) can run codelet '%s' "
			 "(it runs on: %s) (-ENODEV)", task->workerids_len, starpu_task_get_name(task), where_string(where, b1, sizeof(b1)));
		return -ENODEV;
	}
	rt_error("starpu_task_submit: no worker can run codelet '%s' (it runs on: %s; %u CPU workers) (-ENODEV)",
		 starpu_task_get_name(task), where_string(where, b1, sizeof(b1)), rt.ncpus);
	return -ENODEV;
}

/* Checks the buffers of the task. */
static int task_check_buffers(struct starpu_task *task)
{
	struct starpu_codelet *cl = task->cl;
	int n = cl->nbuffers == STARPU_VARIABLE_NBUFFERS ? task->nbuffers : cl->nbuffers;
	if (n < 0 || n > 65535)
	{
		rt_error("starpu_task_submit: task '%s' has %d buffers (0 to 65535) (-EINVAL)", starpu_task_get_name(task), n);
		return -EINVAL;
	}
	int internal = (task->type & STARPU_TASK_TYPE_INTERNAL) != 0;
	if (n > STARPU_NMAXBUFS && !task->dyn_handles)
	{
		rt_error("starpu_task_submit: task '%s' has %d buffers, more than STARPU_NMAXBUFS (%d): use task->dyn_handles (-EINVAL)",
			 starpu_task_get_name(task), n, STARPU_NMAXBUFS);
		return -EINVAL;
	}
	if (n > STARPU_NMAXBUFS && cl->nbuffers != STARPU_VARIABLE_NBUFFERS && !cl->dyn_modes && !task->dyn_modes)
	{
		rt_error("starpu_task_submit: codelet '%s' has %d buffers, more than STARPU_NMAXBUFS (%d): use cl->dyn_modes or task->dyn_modes (-EINVAL)",
			 starpu_task_get_name(task), n, STARPU_NMAXBUFS);
		return -EINVAL;
	}
	if (n > STARPU_NMAXBUFS && cl->nbuffers == STARPU_VARIABLE_NBUFFERS && !task->dyn_modes)
	{
		rt_error("starpu_task_submit: task '%s' has %d buffers, more than STARPU_NMAXBUFS (%d): use task->dyn_modes (-EINVAL)",
			 starpu_task_get_name(task), n, STARPU_NMAXBUFS);
		return -EINVAL;
	}
	for (int i = 0; i < n; i++)
	{
		starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
		if (!h)
		{
			rt_error("starpu_task_submit: task '%s' buffer %d: handle is NULL (codelet declares %d buffers) (-EINVAL)",
				 starpu_task_get_name(task), i, n);
			return -EINVAL;
		}
		if (!data_handle_valid(h))
		{
			rt_error("starpu_task_submit: task '%s' buffer %d: handle %p is not registered (-EINVAL)",
				 starpu_task_get_name(task), i, (void *) h);
			return -EINVAL;
		}
		enum starpu_data_access_mode mode = STARPU_TASK_GET_MODE(task, i);
		unsigned allowed = STARPU_RW | STARPU_SCRATCH | STARPU_REDUX | STARPU_COMMUTE | STARPU_SSEND | STARPU_LOCALITY | STARPU_NOPLAN;
		if (internal)
			allowed |= DATA_MODE_NOFETCH;
		if ((mode & ~allowed) || !(mode & (STARPU_RW | STARPU_SCRATCH | STARPU_REDUX)))
		{
			rt_error("starpu_task_submit: task '%s' buffer %d: invalid access mode 0x%x (-EINVAL)",
				 starpu_task_get_name(task), i, (unsigned) mode);
			return -EINVAL;
		}
		int ret;
		if ((mode & STARPU_REDUX) && (ret = data_redux_check(h, "starpu_task_submit")))
			return ret;
	}
	/* Partition plans the buffers need are switched to (StarPU 1.3's
	 * implicit partitioning); the switches one buffer needed may be in
	 * the way of another (a piece and its parent in one task): all must
	 * hold together. */
	for (int i = 0; !internal && i < n; i++)
	{
		int ret = data_partition_access(STARPU_TASK_GET_HANDLE(task, i), STARPU_TASK_GET_MODE(task, i),
						"starpu_task_submit");
		if (ret)
			return ret;
	}
	for (int i = 0; !internal && n > 1 && i < n; i++)
	{
		int ret = data_check_not_partitioned(STARPU_TASK_GET_HANDLE(task, i), STARPU_TASK_GET_MODE(task, i),
						     "starpu_task_submit");
		if (ret)
			return ret;
	}
	return 0;
}

static void wait_counters(long threshold, int (*pred)(long));
static int submitted_at_most(long n);

/* STARPU_LIMIT_MAX_SUBMITTED_TASKS: with more tasks in flight than the
 * maximum, an application thread waits until at most the minimum are
 * (as StarPU 1.3 does). Workers, codelets and callbacks never wait here:
 * they are what brings the count down. */
static void throttle_submission(void)
{
	if (atomic_load_explicit(&rt.nsubmitted, memory_order_relaxed) <= rt.limit_max_submitted)
		return;
	struct rt_thread *t = rt_thread();
	if (t->worker || t->in_codelet || t->in_callback)
		return;
	wait_counters(rt.limit_min_submitted, submitted_at_most);
}

int starpu_task_submit(struct starpu_task *task)
{
	if (!task)
	{
		rt_error("starpu_task_submit: task is NULL (-EINVAL)");
		return -EINVAL;
	}
	if (STARPU_UNLIKELY(!rt_is_up()))
	{
		rt_error("starpu_task_submit: the runtime is not initialised (call starpu_init first) (-EINVAL)");
		return -EINVAL;
	}
	if (STARPU_UNLIKELY(task->magic != TASK_MAGIC))
	{
		if (job_task_is_dead(task))
			rt_error("starpu_task_submit: task %p was destroyed (-EINVAL)", (void *) task);
		else
			rt_error("starpu_task_submit: task %p was not initialised with starpu_task_init or starpu_task_create (-EINVAL)", (void *) task);
		return -EINVAL;
	}
	sim_cost(SIM_COST_SUBMIT, 1);	/* simulation: the submission's own cost */

	int ret;
	if (task->cl)
	{
		task_codelet_check(task->cl);
		if (task->cl->where != STARPU_NOWHERE)
		{
			if ((ret = task_has_worker(task)))
				return ret;
		}
		if ((ret = task_check_buffers(task)))
			return ret;
	}
	if (task->synchronous && rt_may_not_block("starpu_task_submit (synchronous task)"))
		return -EDEADLK;
	if (rt.limit_max_submitted >= 0)
		throttle_submission();

	unsigned ctx_id;
	if ((ret = sched_ctx_for_submission(task, &ctx_id)))
		return ret;

	struct job *job = job_get(task);
	if (!job)
		return -ENOMEM;
	int again = job->id != 0;	/* submitted before (tags tell it apart) */
	if (job_reset(job, 1))
	{
		rt_error("starpu_task_submit: task '%s' is already submitted and not finished (-EINVAL)", starpu_task_get_name(task));
		return -EINVAL;
	}
	job->sched_ctx = ctx_id;
	task->sched_ctx = ctx_id;
	task->status = STARPU_TASK_BLOCKED;
	trace_on_submit(job);	/* observers: submission (trace/trace.h) */

	if (task->cl && (ret = data_prepare_job(job)))
	{
		job_unsubmit(job);
		return ret;
	}
	else if (!task->cl)
		job->nbuffers = 0;

	/* The tag the task carried last time, if it changed. */
	struct tag *last_tag = __atomic_load_n(&job->tag, __ATOMIC_ACQUIRE);
	if (last_tag && (!task->use_tag || tag_id_of(last_tag) != task->tag_id))
		tag_job_forget(job);
	if (task->use_tag && (ret = tag_attach_job(job, task->tag_id, again)))
	{
		data_release_job(job);
		job_unsubmit(job);
		return ret;
	}

	job->counted = 1;
	atomic_fetch_add_explicit(&rt.nsubmitted, 1, memory_order_relaxed);
	if (watchdog_enabled())
		watchdog_track(job);
	sched_ctx_job_submitted(job);
	bound_record(task, job->id);	/* starpu_bound_start: counted in the bound */

	int synchronous = task->synchronous;
	if (synchronous)
		task->detach = 0;

	deps_job_submitted(job);	/* declared dependencies, kept across submissions */
	data_implicit_deps(job);
	/* Let the job go: from here on, a detached task may already be done
	 * and freed. */
	job_dep_release(job);

	if (synchronous)
	{
		ret = starpu_task_wait(task);
		return ret;
	}
	return 0;
}

int starpu_task_submit_to_ctx(struct starpu_task *task, unsigned sched_ctx_id)
{
	if (sched_ctx_id >= STARPU_NMAX_SCHED_CTXS || !sched_ctx_get(sched_ctx_id)->in_use)
	{
		rt_error("starpu_task_submit_to_ctx: no scheduling context %u (-EINVAL)", sched_ctx_id);
		return -EINVAL;
	}
	task->sched_ctx = sched_ctx_id;
	return starpu_task_submit(task);
}

int starpu_task_finished(struct starpu_task *task)
{
	struct job *job = job_of(task);
	if (!job)
		return 0;
	os_mutex_lock(job_lock(job));
	int done = job->terminated && !job->ending;
	os_mutex_unlock(job_lock(job));
	return done;
}

int starpu_task_wait(struct starpu_task *task)
{
	if (!task)
	{
		rt_error("starpu_task_wait: task is NULL (-EINVAL)");
		return -EINVAL;
	}
	if (job_task_is_dead(task))
	{
		rt_error("starpu_task_wait: task %p was already destroyed (-EINVAL)", (void *) task);
		return -EINVAL;
	}
	if (task->detach)
	{
		rt_error("starpu_task_wait: task '%s' is detached (task->detach=1): it cannot be waited for; "
			 "use starpu_task_wait_for_all or set detach=0 before submitting (-EINVAL)", starpu_task_get_name(task));
		return -EINVAL;
	}
	if (rt_may_not_block("starpu_task_wait"))
		return -EDEADLK;
	struct job *job = job_of(task);
	if (!job)
	{
		rt_error("starpu_task_wait: task '%s' was never submitted (-EINVAL)", starpu_task_get_name(task));
		return -EINVAL;
	}
	os_mutex_lock(job_lock(job));
	if (!job->submitted && !job->terminated && !job->ending)
	{
		os_mutex_unlock(job_lock(job));
		rt_error("starpu_task_wait: task '%s' was never submitted (-EINVAL)", starpu_task_get_name(task));
		return -EINVAL;
	}
	/* Done, and out of every termination (which may still read it). */
	job->nwaiters++;
	while (!job->terminated || job->ending)
		os_cond_wait(job_cond(job), job_lock(job));
	job->nwaiters--;
	int error = job->error;
	os_mutex_unlock(job_lock(job));
	if (task->destroy)
		starpu_task_destroy(task);
	return error;
}

int starpu_task_wait_array(struct starpu_task **tasks, unsigned nb_tasks)
{
	for (unsigned i = 0; i < nb_tasks; i++)
	{
		int ret = starpu_task_wait(tasks[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counters and the wait_for_* family. A waiter publishes the threshold it
 * waits for; the thread whose decrement reaches it broadcasts. */

void rt_task_counters_done(int was_ready)
{
	if (was_ready)
		atomic_fetch_sub_explicit(&rt.nready, 1, memory_order_seq_cst);
	long left = atomic_fetch_sub_explicit(&rt.nsubmitted, 1, memory_order_seq_cst) - 1;
	if (atomic_load_explicit(&rt.nwaiters, memory_order_seq_cst) == 0)
		return;
	if (left <= atomic_load_explicit(&rt.wait_threshold, memory_order_seq_cst) ||
	    atomic_load_explicit(&rt.nready, memory_order_seq_cst) == 0)
	{
		os_mutex_lock(&rt.submit_mutex);
		os_cond_broadcast(&rt.submit_cond);
		os_mutex_unlock(&rt.submit_mutex);
	}
}

/* Waits until pred() holds, pred reading the counters. */
static void wait_counters(long threshold, int (*pred)(long))
{
	os_mutex_lock(&rt.submit_mutex);
	atomic_fetch_add_explicit(&rt.nwaiters, 1, memory_order_seq_cst);
	long old = atomic_load(&rt.wait_threshold);
	if (threshold > old)
		atomic_store(&rt.wait_threshold, threshold);
	while (!pred(threshold))
		os_cond_wait(&rt.submit_cond, &rt.submit_mutex);
	if (atomic_fetch_sub_explicit(&rt.nwaiters, 1, memory_order_seq_cst) == 1)
		atomic_store(&rt.wait_threshold, -1);
	os_mutex_unlock(&rt.submit_mutex);
}

static int submitted_at_most(long n)
{
	return atomic_load_explicit(&rt.nsubmitted, memory_order_seq_cst) <= n;
}

static int none_ready(long unused)
{
	(void) unused;
	return atomic_load_explicit(&rt.nready, memory_order_seq_cst) == 0;
}

int starpu_task_wait_for_all(void)
{
	if (!rt_is_up())
	{
		rt_error("starpu_task_wait_for_all: the runtime is not initialised (-EINVAL)");
		return -EINVAL;
	}
	if (rt_may_not_block("starpu_task_wait_for_all"))
		return -EDEADLK;
	wait_counters(0, submitted_at_most);
	return 0;
}

int starpu_task_wait_for_n_submitted(unsigned n)
{
	if (!rt_is_up())
	{
		rt_error("starpu_task_wait_for_n_submitted: the runtime is not initialised (-EINVAL)");
		return -EINVAL;
	}
	if (rt_may_not_block("starpu_task_wait_for_n_submitted"))
		return -EDEADLK;
	wait_counters((long) n, submitted_at_most);
	return 0;
}

/* starpu_task_wait_for_*_in_ctx: core/sched_ctx.c (per-context counters). */

int starpu_task_wait_for_no_ready(void)
{
	if (rt_may_not_block("starpu_task_wait_for_no_ready"))
		return -EDEADLK;
	wait_counters(-1, none_ready);
	return 0;
}

int starpu_task_nready(void)
{
	return (int) atomic_load(&rt.nready);
}

int starpu_task_nsubmitted(void)
{
	return (int) atomic_load(&rt.nsubmitted);
}

struct starpu_task *starpu_task_get_current(void)
{
	if (rt.thread_key_backend != os_get_backend())
		return NULL;
	struct rt_thread *t = os_getspecific(rt.thread_key);
	return t ? t->current_task : NULL;
}

int starpu_task_get_current_data_node(unsigned i)
{
	struct starpu_task *task = starpu_task_get_current();
	if (!task || !task->cl || i >= (unsigned) STARPU_TASK_GET_NBUFFERS(task))
		return -1;
	/* Every buffer of a task is on the memory node of the worker running
	 * it (Vela has no codelet specific_nodes). */
	int w = starpu_worker_get_id();
	return w < 0 ? -1 : (int) starpu_worker_get_memory_node((unsigned) w);
}

unsigned long starpu_task_get_job_id(struct starpu_task *task)
{
	struct job *job = job_of(task);
	return job ? job->id : 0;
}

void starpu_task_set_implementation(struct starpu_task *task, unsigned impl)
{
	struct job *job = job_get(task);
	if (job)
		job->nimpl = impl;
}

unsigned starpu_task_get_implementation(struct starpu_task *task)
{
	struct job *job = job_of(task);
	return job ? job->nimpl : 0;
}

struct starpu_task *starpu_task_dup(struct starpu_task *task)
{
	struct starpu_task *t = starpu_task_create();
	if (!t)
		return NULL;
	*t = *task;
	/* The copy gets a fresh job of its own, and no profiling record the
	 * runtime allocated for the original (freed with it). */
	struct job *orig = job_of(task);
	if (orig && orig->owns_profiling_info)
		t->profiling_info = NULL;
	t->starpu_private = NULL;
	job_get(t)->created = 1;
	t->destroy = 1;
	t->prev = t->next = NULL;
	t->status = STARPU_TASK_INIT;
	t->magic = TASK_MAGIC;
	/* The copy does not own the original's arguments. */
	t->cl_arg_free = 0;
	t->callback_arg_free = 0;
	t->prologue_callback_arg_free = 0;
	t->prologue_callback_pop_arg_free = 0;
	return t;
}

void starpu_create_sync_task(starpu_tag_t sync_tag, unsigned ndeps, starpu_tag_t *deps, void (*callback)(void *), void *callback_arg)
{
	starpu_tag_declare_deps_array(sync_tag, ndeps, deps);
	struct starpu_task *t = starpu_task_create();
	if (!t)
		return;
	t->cl = NULL;
	t->use_tag = 1;
	t->tag_id = sync_tag;
	t->callback_func = callback;
	t->callback_arg = callback_arg;
	if (starpu_task_submit(t))
		rt_error("starpu_create_sync_task: could not submit the sync task for tag %llu", (unsigned long long) sync_tag);
}

void starpu_create_callback_task(void (*callback)(void *), void *callback_arg)
{
	struct starpu_task *t = starpu_task_create();
	if (!t)
		return;
	t->cl = NULL;
	t->callback_func = callback;
	t->callback_arg = callback_arg;
	if (starpu_task_submit(t))
		rt_error("starpu_create_callback_task: could not submit the callback task");
}

void starpu_codelet_display_stats(struct starpu_codelet *cl)
{
	unsigned long total = 0;
	for (unsigned i = 0; i < rt.nworkers; i++)
		total += cl->per_worker_stats[i];
	fprintf(stderr, "Statistics for codelet %s\n", cl->name ? cl->name : "(unnamed)");
	for (unsigned i = 0; i < rt.nworkers; i++)
		fprintf(stderr, "\t%s -> %lu / %lu (%2.2f %%)\n", rt.workers[i].name, cl->per_worker_stats[i], total,
			total ? 100.0 * cl->per_worker_stats[i] / total : 0.0);
}
