/* tags.h — tags: named synchronisation points between tasks.
 *
 * A tag is done when a task carrying it terminates, or when the application
 * says so (starpu_tag_notify_from_apps); starpu_tag_wait waits for that.
 * starpu_tag_declare_deps(t, deps...) gives t one *group* of dependencies
 * per call; a group completes each time its tags have been notified as
 * many times as it has members (StarPU counts notifications, which is what
 * lets regenerated tasks go round a cycle of tags), and a task carrying t
 * starts once every group of t has completed since t last started a task.
 * Several unfinished tasks may carry one tag (the tag is done when the
 * first of them ends); a tag with dependencies starts one task at a time.
 *
 * Tags live in a hash table protected by tags_lock (structure only: insert,
 * lookup, remove); each tag's state, its groups' counts and its lists are
 * protected by its own lock. Lock order: tags_lock before a tag's lock or
 * a job's lock; never two tags' locks at once; a tag's lock before a job's
 * lock. A job's tag pointer (job->tag) is written under the job's lock
 * (atomically: job_fini glances at it without).
 */
#ifndef VELA_TAGS_H
#define VELA_TAGS_H

#include <starpu.h>

struct job;
struct tag;

/* Called by submit for a task with use_tag: attaches the job to its tag
 * and, unless the tag's dependencies are met, adds a start dependency on
 * them. again: the task was submitted before (a tag it leaves done is
 * re-armed for it). Returns 0 or -EINVAL (the tag has dependencies and
 * another unfinished task carries it). */
int tag_attach_job(struct job *job, starpu_tag_t id, int again);
/* The job is submitted again by the runtime (regenerate): re-arm its tag. */
void tag_job_restart(struct job *job);
/* job, a task carrying t, terminated: under t's lock then the job's,
 * close_locked(job, arg) runs (the job may be submitted again from then
 * on: a new submission's tag_attach_job is ordered after), then t is done
 * (nothing if it already was) and the tags depending on it are notified. */
void tag_job_done(struct tag *t, struct job *job, void (*close_locked)(struct job *job, void *arg), void *arg);
/* The job goes away or carries another tag: its tag forgets it. */
void tag_job_forget(struct job *job);
starpu_tag_t tag_id_of(const struct tag *t);
/* The tags tag id waits for (starpu_tag_declare_deps), at most max of
 * them into out; returns how many there are (starpu_bound's graph). */
unsigned tag_dep_ids(starpu_tag_t id, starpu_tag_t *out, unsigned max);

/* Frees every tag (shutdown). */
void tags_fini(void);

#endif /* VELA_TAGS_H */
