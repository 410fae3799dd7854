/* trace_reader.h — a Vela trace (runtime/trace/trace_format.h) loaded in
 * memory, for the exporters and statistics of `vela trace`.
 *
 * trace_load() reads every complete record, resolves strings, merges each
 * task's termination into it, turns tag dependencies into task edges, and
 * sorts what the views need sorted. A file that ends early (a killed
 * process) loads up to its last complete record, with complete = 0 and
 * stop_reason saying where and why it stopped; a file from another version
 * of the format, or not a trace, is refused (versions TRACE_VERSION_MIN to
 * TRACE_VERSION are read; version 1 lacks the tasks' data).
 *
 * Times are nanoseconds since the trace's origin, as in the file.
 */
#ifndef VELA_TRACE_READER_H
#define VELA_TRACE_READER_H

#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

struct tr_node
{
	unsigned id;
	unsigned kind;			/* enum starpu_node_kind */
	const char *name;
};

struct tr_worker
{
	int id;
	unsigned arch;			/* enum starpu_worker_archtype */
	unsigned node;
	int bindid;
	const char *name;
};

/* One buffer of a task, in the task's order (trace version 2). */
struct tr_buffer
{
	uint64_t handle;		/* the handle's id in the trace */
	uint64_t size;			/* bytes */
	unsigned mode;			/* enum starpu_data_access_mode */
	int home_node;			/* -1: none */
};

struct tr_task
{
	uint64_t job;
	uint64_t tag;
	uint64_t submit, push, pop_start, pop_end, exec_start, exec_end, end;
	uint64_t data_bytes;
	double flops;
	const char *name;
	const char *codelet;
	int worker;			/* -1: not executed */
	int priority;
	uint32_t footprint;
	uint32_t flags;			/* TTF_* */
	unsigned nbuffers, node, sched_ctx, impl;
	unsigned *preds;		/* indices into tasks[]; owned by the trace */
	unsigned npreds;
	int codelet_index;		/* into codelets[] */
	/* From the task's TR_TASK_DATA (version 2), when has_data. */
	int has_data;
	int data_truncated;		/* more buffers than the record kept */
	const char *model;		/* performance model symbol, or NULL */
	unsigned model_type;		/* enum starpu_perfmodel_type + 1; 0: no model */
	unsigned where;			/* the codelet's where */
	struct tr_buffer *buffers;	/* nbuf entries; owned by the trace */
	unsigned nbuf;
};

struct tr_state
{
	int worker;
	unsigned state;			/* enum trace_state */
	uint64_t start, end, job;
};

struct tr_transfer
{
	unsigned src, dst;
	uint64_t bytes, start, end, handle;
	int worker;
};

struct tr_mem
{
	unsigned node, op;
	uint64_t bytes, time, addr;
};

struct tr_user
{
	int worker;
	const char *str;		/* NULL for a numeric event */
	uint64_t code, time;
};

/* A message sent or received (TR_COMM, distributed runs). */
struct tr_comm
{
	int peer;			/* the other rank; -1: not a rank of the run */
	unsigned flags;			/* TCF_* */
	int64_t tag;
	uint64_t seq, channel, bytes;
	uint64_t submit, start, end;
	uint64_t handle;		/* trace id of the data, 0: none */
	int worker;
	uint64_t offset;		/* byte offset of its record in the file */
};

/* A clock synchronisation point (TR_CLOCK). */
struct tr_clock
{
	uint64_t local, ref, err;
	int ref_rank;
};

/* What a worker does at each moment, for timelines: the states of the
 * trace flattened into segments that do not overlap. */
enum tr_seg_kind
{
	SEG_EXEC = 0,
	SEG_FETCH,
	SEG_CALLBACK,
	SEG_SLEEP,
	SEG_IDLE,
	SEG_OVERHEAD,		/* none of the above: the runtime at work */
	SEG_NKINDS
};

struct tr_segment
{
	uint64_t start, end;
	enum tr_seg_kind kind;
	int task;		/* index into tasks[] for EXEC, FETCH, CALLBACK; else -1 */
};

struct trace
{
	char *path;
	uint32_t version;
	uint32_t flags;			/* TRACE_FILE_* */
	uint64_t file_size;
	int complete;			/* the end record was read */
	uint64_t stop_offset;		/* bytes read */
	char stop_reason[256];		/* why reading stopped early, or "" */
	uint64_t nrecords;

	/* Run description. */
	const char *host, *policy, *program;
	uint32_t pid;
	uint64_t wall_origin_ns;
	uint64_t end_time;		/* end record's time, else the last time seen */
	uint64_t lost;			/* records the writer dropped */

	struct tr_node *nodes;
	unsigned nnodes;
	struct tr_worker *workers;	/* sorted by id */
	unsigned nworkers;
	struct tr_task *tasks;		/* sorted by job id */
	unsigned ntasks;
	struct tr_state *states;	/* sorted by worker, then start */
	unsigned nstates;
	struct tr_transfer *transfers;	/* sorted by start */
	unsigned ntransfers;
	struct tr_mem *mems;		/* sorted by time */
	unsigned nmems;
	struct tr_user *users;		/* sorted by time */
	unsigned nusers;
	unsigned nedges;		/* task dependencies (sum of npreds) */

	/* Distributed runs: TR_PROCESS (has_process), TR_CLOCK, TR_COMM. */
	int has_process;
	uint64_t run_id;
	int rank;
	unsigned nranks;
	uint64_t process_offset;	/* byte offset of the process record */
	struct tr_clock *clocks;	/* sorted by local */
	unsigned nclocks;
	struct tr_comm *comms;		/* sorted by start */
	unsigned ncomms;

	/* Distinct codelet names, in order of first execution. */
	const char **codelets;
	unsigned ncodelets;

	/* Internals. */
	char **strings;
	unsigned nstrings;
	unsigned *pred_pool;
	struct tr_buffer *buf_pool;
};

/* Loads path. Returns 0 (check complete), or a negative errno with a
 * message in err: -ENOENT & co. for I/O, -EINVAL for a file that is not a
 * regular file, not a Vela trace, has a version this reader does not
 * know, or holds an impossible value (a string id above what the file can
 * hold: the message names the file, the byte offset and the reason),
 * -EFBIG for a file larger than TRACE_MAX_BYTES. */
int trace_load(const char *path, struct trace *t, char *err, size_t errlen);
/* The same from size bytes in memory (path names them in messages); the
 * trace does not point into data. The fuzz target's entry. */
int trace_parse(const unsigned char *data, uint64_t size, const char *path, struct trace *t, char *err,
		size_t errlen);
/* Counts are unsigned: at most UINT_MAX / 2 records of 8 bytes or more,
 * so that no array's capacity can wrap (16 GiB). */
#define TRACE_MAX_BYTES ((uint64_t) (UINT_MAX / 2) * 8)
void trace_free(struct trace *t);

/* The task with this job id, or -1. */
int trace_find_task(const struct trace *t, uint64_t job);
/* Worker by id, or NULL. */
const struct tr_worker *trace_worker(const struct trace *t, int id);
/* Index of worker id in workers[], or -1. */
int trace_worker_index(const struct trace *t, int id);
/* Name of memory node n ("node N" if unknown). */
const char *trace_node_name(const struct trace *t, unsigned n, char *buf, size_t len);

/* The flattened timeline of worker wid over [0, end]; *segs is malloc'ed,
 * the caller frees it. Returns the number of segments, or -1. */
int trace_worker_timeline(const struct trace *t, int wid, uint64_t end, struct tr_segment **segs);

/* First and last instants of activity (submissions to terminations). */
void trace_span(const struct trace *t, uint64_t *first, uint64_t *last);

/* A stable color for codelet i (#rrggbb), and for segment kinds. */
const char *trace_codelet_color(unsigned i);
const char *trace_seg_color(enum tr_seg_kind k);
const char *trace_seg_name(enum tr_seg_kind k);

/* Exporters (trace_chrome.c, trace_paje.c, trace_svg.c, trace_rec.c).
 * Each returns 0 or a negative errno. */
int trace_export_chrome(const struct trace *t, FILE *out);
int trace_export_paje(const struct trace *t, FILE *out);
int trace_export_svg(const struct trace *t, FILE *out);
int trace_export_rec(const struct trace *t, FILE *out);
int trace_export_dot(const struct trace *t, FILE *out);

/* Values of tasks.rec fields (trace_rec.c), written by the rec export and
 * read by `vela replay`. Access modes: letters R, W, S (scratch), X
 * (redux), C (commute), as StarPU writes them; buf holds 8 bytes. Archs:
 * cpu, cuda, opencl, mic, mpi_ms (parse ORs the STARPU_* flag into
 * *where). Model types: enum starpu_perfmodel_type as per-arch, common,
 * history, regression, nl-regression, multiple-regression. Parsers
 * return 0 or -EINVAL. */
char *trace_mode_string(unsigned mode, char *buf);
int trace_mode_parse(const char *s, unsigned *mode);
int trace_arch_parse(const char *s, unsigned *where);
const char *trace_model_type_name(unsigned type);
int trace_model_type_parse(const char *s, unsigned *type);

/* Statistics (trace_stats.c). */
struct trace_stats_codelet
{
	const char *name;
	unsigned long n;
	double total_us, mean_us, min_us, max_us;
};

struct trace_stats_worker
{
	const char *name;
	unsigned long ntasks;
	double exec_us, fetch_us, callback_us, sleep_us, idle_us, overhead_us;
};

struct trace_stats
{
	double makespan_us;		/* first submission to last termination */
	double exec_window_us;		/* first execution start to last execution end */
	double total_work_us;		/* sum of execution times */
	double critical_path_us;	/* longest chain of execution times along dependencies */
	unsigned critical_path_len;	/* tasks on it */
	unsigned *critical_path;	/* task indices, first to last; owned */
	double bound_us;		/* max(total_work / workers, critical path) */
	unsigned long ntasks, nexecuted, nnoop;
	struct trace_stats_codelet *codelets;	/* ncodelets entries, sorted by total time */
	unsigned ncodelets;
	struct trace_stats_worker *workers;	/* as t->workers */
	unsigned nworkers;
};

int trace_compute_stats(const struct trace *t, struct trace_stats *s);
void trace_stats_free(struct trace_stats *s);
int trace_print_stats(const struct trace *t, FILE *out);
int trace_print_diff(const struct trace *a, const struct trace *b, FILE *out);

/* The ranks of one distributed run merged into one timeline
 * (trace_merge.c): times of every rank on rank 0's clock (through the
 * TR_CLOCK points), shifted so that the earliest origin is 0. */
struct tr_link
{
	unsigned send_rank, send;	/* ranks[send_rank].comms[send] */
	unsigned recv_rank, recv;
};

struct tr_rank_clock
{
	double offset_ns, drift;	/* reference = offset + drift * local */
	double origin_ns;		/* where this rank's time 0 lies on the merged clock */
	uint64_t err_ns;		/* the largest error bound of its points */
	unsigned nsync;			/* points used */
};

struct trace_merge
{
	unsigned nranks;
	struct trace *ranks;		/* by rank; owned; times on the merged clock */
	struct tr_rank_clock *clocks;	/* by rank */
	uint64_t run_id;
	struct tr_link *links;		/* sorted by the send's start */
	unsigned nlinks;
	unsigned long unmatched;	/* message ends whose other side is in no trace */
	unsigned long outside;		/* messages with a process outside the run */
	unsigned long inconsistent;	/* receives that end before their send starts, beyond the clocks' error */
	uint64_t worst_ns;		/* by this much at worst */
	uint64_t end_time;
	char notes[1024];		/* warnings, one per line, or "" */
};

/* Merges the n traces ts (each rank of one run exactly once, in any
 * order), which it takes over: they are freed, or moved into m, and left
 * zeroed. Returns 0, or -EINVAL with a message naming the file (and the
 * record's byte offset where one is at fault) for traces without a
 * process record, of different runs, a rank missing or given twice, a
 * message whose two sides disagree on its size; -ENOMEM. */
int trace_merge(struct trace *ts, unsigned n, struct trace_merge *m, char *err, size_t errlen);
/* Loads the n files, then merges them; the loader's errors as
 * trace_load's. */
int trace_merge_load(const char *const *paths, unsigned n, struct trace_merge *m, char *err, size_t errlen);
void trace_merge_free(struct trace_merge *m);
/* One line for the run, one per rank. */
int trace_merge_print(const struct trace_merge *m, FILE *out);
/* Exports of the merged timeline: a process (Perfetto) or a machine
 * container (Paje) per rank, messages between ranks as flow arrows or
 * links. */
int trace_export_chrome_merged(const struct trace_merge *m, FILE *out);
int trace_export_paje_merged(const struct trace_merge *m, FILE *out);

/* Prints "where reading stopped" for an incomplete trace on f. */
void trace_report_incomplete(const struct trace *t, FILE *f);

#endif /* VELA_TRACE_READER_H */
