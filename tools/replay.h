/* replay.h — `vela replay`: a recorded task graph (tasks.rec) re-simulated
 * without the application. replay_rec.c reads and checks the file into a
 * replay_graph; replay.c runs it in simulation.
 *
 * The graph holds what a replay needs from each record: the task's name,
 * model symbol and type, footprint, priority, flops, the archs its codelet
 * had, its buffers (handle id, access mode, size, home node) and the jobs
 * it depends on. Tasks are in submission order (SubmitOrder when every
 * record has one, else JobId); every dependency names a task of the file;
 * the graph with the data dependencies the runtime will infer has no
 * cycle, so a replay cannot hang.
 */
#ifndef VELA_TOOLS_REPLAY_H
#define VELA_TOOLS_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct starpu_task;

struct replay_buf
{
	uint64_t handle;		/* the file's handle id */
	uint64_t size;			/* bytes */
	unsigned mode;			/* enum starpu_data_access_mode */
	int home;			/* home memory node, -1: none or unknown */
	unsigned hidx;			/* index of its (handle, size) in the graph's handles */
};

struct replay_task
{
	uint64_t job;
	uint64_t submit_order;		/* 0: not given */
	char *name;			/* owned; NULL: none */
	char *model;			/* owned; the model symbol (or StarPU's codelet name) */
	unsigned model_type;		/* enum starpu_perfmodel_type; 0: not given */
	unsigned where;			/* STARPU_CPU | ...; 0: not given */
	int has_footprint;
	uint32_t footprint;
	int priority;
	double flops;
	int nocodelet;			/* a synchronisation task: no codelet, no data */
	struct replay_buf *bufs;	/* owned */
	unsigned nbuf;
	uint64_t *deps;			/* owned: job ids of the tasks it waits for */
	unsigned ndeps;
	unsigned line;			/* first line of its record */
	/* deps as indices into tasks[] (owned), those the runtime will not
	 * infer from the data first: pred_index[0..nexplicit) must be
	 * declared, the rest are data dependencies (sequential consistency in
	 * submission order) that the recorded run inferred too. */
	unsigned *pred_index;
	unsigned nexplicit;
	/* Set by the runner. */
	struct starpu_task *task;
	int codelet;			/* index of its codelet, -1: none */
};

struct replay_graph
{
	char *path;			/* owned */
	struct replay_task *tasks;	/* owned; in submission order */
	unsigned ntasks;
	unsigned ndeps;			/* dependencies (DependsOn) */
	unsigned nexplicit;		/* of which not inferred from the data */
	unsigned nhandles;		/* distinct (handle, size) pairs: the handles to register */
	uint64_t *handle_size;		/* owned, nhandles entries */
	int *handle_home;		/* owned, nhandles entries: the first home seen */
	double total_flops;
};

/* Reads path. Returns 0, or a negative errno with a one-line message in
 * err ("path:line: reason" for a malformed file): -ENOENT & co. for I/O,
 * -EINVAL for a malformed record, a duplicate JobId, a dependency on a job
 * that is not in the file, or a dependency cycle. */
int replay_load(const char *path, struct replay_graph *g, char *err, size_t errlen);
/* The same from an open stream (path names it in messages); the fuzz
 * target's entry. */
int replay_read(FILE *f, const char *path, struct replay_graph *g, char *err, size_t errlen);
void replay_free(struct replay_graph *g);

/* The subcommand (tools/vela.c). */
int vela_replay(int argc, char **argv);

#endif /* VELA_TOOLS_REPLAY_H */
