/* data.h — data handles, runtime side.
 *
 * A handle (struct starpu_data_state) holds one replicate per memory node
 * (the interface describing the data there, and whether it is allocated and
 * valid), and two kinds of bookkeeping for the tasks using it:
 *
 *  - implicit dependencies (sequential consistency): the last writer and the
 *    readers since, from which a new task's predecessors are computed at
 *    submission (implicit.c);
 *  - access arbitration: readers share, writers are exclusive, waiting
 *    requests are served in order (access.c). With sequential consistency
 *    the dependencies already serialise conflicting tasks, so requests are
 *    granted at once; arbitration matters when consistency is off, and for
 *    the application's acquisitions.
 *
 * Everything in a handle is protected by its lock (a "header lock"), taken
 * before any job's lock and never together with another handle's lock.
 *
 * Memory nodes so far: node 0, the main RAM. Copies and allocations go
 * through the node drivers (drivers/driver.h) so that devices, disks and
 * simulated nodes plug in without changing this layer.
 */
#ifndef VELA_DATA_H
#define VELA_DATA_H

#include <starpu.h>
#include "os/os.h"

struct job;
struct job_buffer;

enum replicate_state
{
	REP_INVALID = 0,
	REP_SHARED,
	REP_OWNER
};

struct data_replicate
{
	void *interface;		/* ops->interface_size bytes, owned by the handle */
	unsigned char allocated;	/* a buffer exists on this node */
	unsigned char allocated_by_runtime;	/* freed at unregistration */
	enum replicate_state state;
};

#define DATA_MAGIC 0x7e1a7e1a

struct starpu_data_state
{
	os_mutex_t lock;
	int magic;				/* DATA_MAGIC while registered */
	struct starpu_data_interface_ops *ops;
	int home_node;				/* -1: none yet */
	struct data_replicate rep[STARPU_MAXNODES];

	/* Implicit dependencies (implicit.c). */
	unsigned seq_consistency;
	struct job *last_writer;
	struct job_buffer *readers;

	/* Access arbitration (access.c). */
	int busy_readers;
	int busy_writer;
	struct job_buffer *wait_head;
	struct job_buffer *wait_tail;
	struct job *acquisitions;		/* JOB_ACQUIRE jobs holding access */

	/* Submitted jobs using the handle, not yet terminated; unregistration
	 * waits on busy_cond for it to reach 0. */
	unsigned nrefs;
	int unregister_waiting;
	os_cond_t busy_cond;

	char *name;				/* owned */
	void *user_data;
	struct starpu_codelet *redux_cl;
	struct starpu_codelet *init_cl;
	int ndims;
	int coords[4];
};

/* Validates a handle given by the application (NULL, unregistered). */
static inline int data_handle_valid(starpu_data_handle_t h)
{
	return h && h->magic == DATA_MAGIC;
}

/* implicit.c: computes job's predecessors from each buffer's handle and
 * records job as reader or writer; data_implicit_forget undoes the
 * recording when the job terminates. */
void data_implicit_deps(struct job *job);
void data_implicit_forget(struct job_buffer *b);

/* access.c: requests access for buffers[job->nacquired..]; returns 1 when
 * all are granted, 0 when the job is queued on a handle (it is resumed by
 * the release that grants it). */
int data_access_acquire(struct job *job);
/* Releases the job's access to every handle and does data_implicit_forget;
 * jobs whose requests become granted are resumed. */
void data_release_job(struct job *job);

/* Makes every buffer of job valid on node and fills task->interfaces;
 * data_job_done_on_node frees what the execution needed privately
 * (scratch buffers). */
int data_fetch_for_job(struct job *job, unsigned node);
void data_job_done_on_node(struct job *job, unsigned node);

/* For starpu_data_acquire_try (caller holds the handle's lock): whether a
 * new access in mode would wait for earlier jobs, registering a buffer
 * that is known not to, and granting access if possible right now. */
int data_implicit_would_wait(starpu_data_handle_t h, enum starpu_data_access_mode mode);
void data_implicit_register_locked(struct job_buffer *b);
int data_access_try_locked(starpu_data_handle_t h, struct job_buffer *b);

/* Frees the memory of a terminated acquisition job (acquire.c). */
void data_acquire_free(struct job *job);

/* Frees a handle whose asynchronous unregistration waited for its last
 * user (handle.c). */
void data_handle_free_deferred(starpu_data_handle_t h);

/* Builds job->buffers from the task (sorted, duplicates merged) and counts
 * the job in each handle's nrefs. Returns 0 or -EINVAL (message printed). */
int data_prepare_job(struct job *job);

/* Interfaces (variable.c, vector.c, matrix.c) and common helpers. */
void data_register_common(starpu_data_handle_t *handleptr, int home_node, void *data_interface, struct starpu_data_interface_ops *ops);
uint32_t data_hash_crc32(const void *buf, size_t len, uint32_t crc);
uint32_t data_hash_u32(uint32_t value, uint32_t crc);

#endif /* VELA_DATA_H */
