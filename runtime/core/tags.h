/* tags.h — tags: named synchronisation points between tasks.
 *
 * A tag has a set of tags it depends on (declared with starpu_tag_declare_deps)
 * and becomes "ready" when they are all done. A task carrying the tag waits
 * for that readiness; when the task terminates, the tag is done, which may
 * make the tags depending on it ready. The application can also mark a tag
 * done itself (starpu_tag_notify_from_apps).
 *
 * Tags live in a hash table protected by tags_lock (structure only: insert,
 * lookup, remove); each tag's state is protected by its own lock. Lock order:
 * tags_lock before a tag's lock; never two tags' locks at once.
 */
#ifndef VELA_TAGS_H
#define VELA_TAGS_H

#include <starpu.h>

struct job;

/* Called by submit for a task with use_tag: attaches the job to its tag
 * and adds a start dependency on the tag's readiness. Returns 0 or
 * -EINVAL (tag already carried by another unfinished task). */
int tag_attach_job(struct job *job, starpu_tag_t id);
/* The job carrying the tag terminated: the tag is done. With keep, the job
 * stays attached (it is regenerated); otherwise the tag forgets it. */
void tag_job_done(struct job *job, int keep);
/* The job is resubmitted (regenerate): re-arm its tag. */
void tag_job_restart(struct job *job);
/* A job is destroyed: the tag forgets it. */
void tag_job_forget(struct job *job);

/* Frees every tag (shutdown). */
void tags_fini(void);

#endif /* VELA_TAGS_H */
