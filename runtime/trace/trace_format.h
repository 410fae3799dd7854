/* trace_format.h — the on-disk format of a Vela trace, version 2.
 *
 * One format serves real and simulated runs: every time in it is a count of
 * nanoseconds since the trace's origin (the moment recording started), read
 * from os_timestamp_ns(), which is simulated time in a simulated run. The
 * writer (writer.c) and the reader (tools/trace_reader.c) both include this
 * file; it is the specification.
 *
 * Layout: a fixed header, then records. Every record starts with struct
 * trace_rec_hdr, whose size field is the length of the whole record (a
 * multiple of 8, at least 8). A reader can therefore skip record types it
 * does not know, and a file cut anywhere (a killed process) can be read up
 * to the last complete record. Records come in chunks, one per flush of a
 * thread's buffer, so they are not in time order; readers sort.
 *
 * Integers are in the byte order of the machine that wrote the trace; the
 * header's byte_order field (TRACE_BYTE_ORDER as written) tells a reader on
 * another machine that it cannot read the file.
 *
 * Strings (codelet and worker names, user event strings) are interned: a
 * TR_STRING record gives the text of an id once, before any chunk that uses
 * it reaches the file. Id 0 is the empty string / "none".
 *
 * Compatibility: new record types and new fields appended at the end of a
 * record keep the version; anything else bumps TRACE_VERSION. Version 2
 * (issue 7, `vela replay`) added TR_TASK_DATA and made TR_TASK's footprint
 * the performance-model footprint; readers also take version 1 files,
 * which have neither.
 *
 * Distributed runs (one program over several processes, real or
 * simulated) write one trace per process. Three record types, added without a version change, let
 * `vela trace` merge them into one timeline: TR_PROCESS says which run and
 * which rank the file is, TR_CLOCK relates this process's clock to the
 * reference rank's, TR_COMM is one message sent or received. The runtime
 * writes them when the layer above it reports them (vela_extension.h); it
 * knows nothing of how messages travel.
 */
#ifndef VELA_TRACE_FORMAT_H
#define VELA_TRACE_FORMAT_H

#include <stdint.h>

#define TRACE_MAGIC "VELATRC\n"
#define TRACE_VERSION 2u
/* The oldest version readers still load. */
#define TRACE_VERSION_MIN 1u
#define TRACE_BYTE_ORDER 0x01020304u

/* Header flags. */
#define TRACE_FILE_SIMULATED 0x1u	/* times are simulated time */
#define TRACE_FILE_SYNTHETIC 0x2u	/* written by a test or generator, not a run */

struct trace_file_header
{
	char magic[8];			/* TRACE_MAGIC, no terminating NUL */
	uint32_t version;		/* TRACE_VERSION */
	uint32_t header_size;		/* sizeof(struct trace_file_header) */
	uint32_t byte_order;		/* TRACE_BYTE_ORDER */
	uint32_t flags;			/* TRACE_FILE_* */
	uint64_t reserved;
};

enum trace_rec_type
{
	TR_RUN = 1,		/* struct trace_rec_run: once, first */
	TR_STRING = 2,		/* struct trace_rec_string + text */
	TR_NODE = 3,		/* struct trace_rec_node: a memory node */
	TR_WORKER = 4,		/* struct trace_rec_worker */
	TR_TASK = 5,		/* struct trace_rec_task: a task */
	TR_DEP = 6,		/* struct trace_rec_dep: job succ waits for job pred */
	TR_TAG_DEP = 7,		/* struct trace_rec_tag_dep: tag waits for tag dep */
	TR_STATE = 8,		/* struct trace_rec_state: a worker state span */
	TR_TRANSFER = 9,	/* struct trace_rec_transfer: a data copy between nodes */
	TR_MEM = 10,		/* struct trace_rec_mem: allocation, free, eviction */
	TR_USER = 11,		/* struct trace_rec_user: starpu_fxt_trace_user_event* */
	TR_END = 12,		/* struct trace_rec_end: the run ended cleanly (last) */
	TR_TASK_END = 13,	/* struct trace_rec_task_end: termination of a task recorded earlier */
	TR_TASK_DATA = 14,	/* struct trace_rec_task_data + buffers: what a replay needs (v2) */
	TR_PROCESS = 15,	/* struct trace_rec_process: this file is one rank of a distributed run */
	TR_CLOCK = 16,		/* struct trace_rec_clock: this clock against the reference rank's */
	TR_COMM = 17,		/* struct trace_rec_comm: a message sent to, or received from, another rank */
	TR_NTYPES
};

struct trace_rec_hdr
{
	uint16_t type;		/* enum trace_rec_type */
	uint16_t size;		/* bytes of the whole record, header included */
	uint32_t reserved;
};

struct trace_rec_run
{
	struct trace_rec_hdr h;
	uint64_t wall_origin_ns;	/* CLOCK_REALTIME date of the origin, 0 if unknown */
	uint32_t nworkers;
	uint32_t nnodes;
	uint32_t pid;
	uint32_t host_sid;		/* host name */
	uint32_t policy_sid;		/* scheduling policy */
	uint32_t program_sid;		/* program name, if known */
};

struct trace_rec_string
{
	struct trace_rec_hdr h;
	uint32_t id;
	uint32_t len;			/* text bytes that follow, no NUL; padded to 8 */
};

struct trace_rec_node
{
	struct trace_rec_hdr h;
	uint32_t node;
	uint32_t kind;			/* enum starpu_node_kind */
	uint32_t name_sid;
	uint32_t pad;
};

struct trace_rec_worker
{
	struct trace_rec_hdr h;
	int32_t id;
	uint32_t arch;			/* enum starpu_worker_archtype */
	uint32_t node;			/* memory node */
	uint32_t name_sid;
	int32_t bindid;
	uint32_t pad;
};

/* Task flags. */
#define TTF_HAS_TAG 0x1u	/* tag is valid */
#define TTF_EXECUTED 0x2u	/* ran on worker: pop/exec times valid */
#define TTF_NOOP 0x8u		/* no codelet (a synchronisation point) */
#define TTF_FAILED 0x10u	/* its data could not be fetched, or the driver failed */
#define TTF_ENDED 0x20u		/* end is valid */

/* One task. Usually written once, when the task terminates, by the worker
 * that ran it, with everything in it. When the task terminates elsewhere
 * (end dependencies), the worker writes it at the end of the execution
 * (without TTF_ENDED) and the terminating thread adds a TR_TASK_END. A
 * task's callback is a TS_CALLBACK state. */
struct trace_rec_task
{
	struct trace_rec_hdr h;
	uint64_t job;			/* starpu_task_get_job_id() */
	uint64_t tag;
	uint64_t submit;
	uint64_t push;			/* handed to the scheduler (dependencies met, data granted) */
	uint64_t pop_start;		/* the worker started looking for work */
	uint64_t pop_end;		/* the worker got this task; input fetch starts */
	uint64_t exec_start;		/* input data ready, kernel starts */
	uint64_t exec_end;
	uint64_t end;			/* terminated: data released, callback done, dependents released */
	uint64_t data_bytes;		/* total size of its buffers, duplicates included */
	double flops;			/* task->flops */
	uint32_t name_sid;		/* starpu_task_get_name() */
	uint32_t codelet_sid;		/* the codelet's name (or model symbol) */
	int32_t worker;			/* -1: not executed on a worker */
	int32_t priority;
	uint32_t footprint;		/* the performance model's (starpu_task_footprint for
					 * the arch it ran on), else the data footprint */
	uint32_t flags;			/* TTF_* */
	uint16_t nbuffers;
	uint8_t node;			/* memory node it ran on */
	uint8_t sched_ctx;
	uint8_t impl;
	uint8_t pad[3];
};

/* What re-simulating a task without the application needs (`vela
 * replay`): written beside the task's TR_TASK record (when it is
 * filled: at the end of its execution, or at termination for a task that
 * ran nowhere), followed by nbuffers struct trace_task_buffer in the task's order
 * (STARPU_TASK_GET_HANDLE), duplicates kept. A task with more buffers
 * than fit in one record (the size field is 16 bits) keeps the first
 * TRACE_MAX_TASK_BUFFERS and sets TDD_TRUNCATED. */
#define TDD_TRUNCATED 0x1u

struct trace_rec_task_data
{
	struct trace_rec_hdr h;
	uint64_t job;
	uint32_t model_sid;		/* the perfmodel's symbol; 0: no model or no symbol */
	uint32_t model_type;		/* enum starpu_perfmodel_type + 1; 0: no model */
	uint32_t where;			/* the codelet's where (STARPU_CPU | STARPU_CUDA | ...) */
	uint16_t nbuffers;		/* entries that follow */
	uint16_t flags;			/* TDD_* */
};

struct trace_task_buffer
{
	uint64_t handle;		/* the handle's id in this trace (1, 2, ...) */
	uint64_t size;			/* starpu_data_get_size when recorded, bytes */
	uint32_t mode;			/* enum starpu_data_access_mode */
	int32_t home_node;		/* -1: none */
};

#define TRACE_MAX_TASK_BUFFERS 2048

struct trace_rec_task_end
{
	struct trace_rec_hdr h;
	uint64_t job;
	uint64_t end;
	int32_t worker;			/* thread that terminated it; -1 for the application */
	uint32_t pad;
};

#define TDF_END_DEP 0x1u	/* succ's end (not start) waits for pred */

struct trace_rec_dep
{
	struct trace_rec_hdr h;
	uint64_t pred;
	uint64_t succ;
	uint32_t flags;
	uint32_t pad;
};

struct trace_rec_tag_dep
{
	struct trace_rec_hdr h;
	uint64_t tag;
	uint64_t dep;
};

/* Worker states other than executing (which TR_TASK carries). */
enum trace_state
{
	TS_IDLE = 1,		/* looking for work (polling) */
	TS_SLEEP = 2,		/* blocked until woken */
	TS_FETCH = 3,		/* fetching input data */
	TS_CALLBACK = 4,	/* running a task's callback */
	TS_OVERHEAD = 5,	/* runtime work attributed to nothing else */
	TS_NSTATES
};

struct trace_rec_state
{
	struct trace_rec_hdr h;
	int32_t worker;
	uint32_t state;			/* enum trace_state */
	uint64_t start;
	uint64_t end;
	uint64_t job;			/* the task concerned, or 0 */
};

struct trace_rec_transfer
{
	struct trace_rec_hdr h;
	uint32_t src;
	uint32_t dst;
	uint64_t bytes;
	uint64_t start;
	uint64_t end;
	uint64_t handle;		/* the data handle's address, as an id; 0 if unknown */
	int32_t worker;			/* thread that requested it, -1 for the application */
	uint32_t pad;
};

enum trace_mem_op
{
	TM_ALLOC = 1,
	TM_FREE = 2,
	TM_EVICT = 3
};

struct trace_rec_mem
{
	struct trace_rec_hdr h;
	uint32_t node;
	uint32_t op;			/* enum trace_mem_op */
	uint64_t bytes;
	uint64_t time;
	uint64_t addr;			/* address or handle, as an id */
};

struct trace_rec_user
{
	struct trace_rec_hdr h;
	int32_t worker;			/* -1 for an application thread */
	uint32_t sid;			/* string event, or 0 for a numeric one */
	uint64_t code;
	uint64_t time;
};

struct trace_rec_end
{
	struct trace_rec_hdr h;
	uint64_t time;			/* end of recording */
	uint64_t ntasks;		/* TR_TASK records written */
	uint64_t nrecords;		/* records of all kinds written, this one excluded */
	uint64_t lost;			/* records dropped (write errors) */
};

/* Distributed runs. Every process of one run writes the same run_id (an
 * identifier the processes agree on at start, unique per run), its rank
 * and the number of ranks; a trace has at most one TR_PROCESS, written
 * before any TR_CLOCK or TR_COMM. */
struct trace_rec_process
{
	struct trace_rec_hdr h;
	uint64_t run_id;
	int32_t rank;			/* 0 .. nranks - 1 */
	uint32_t nranks;
};

/* A synchronisation point: at this trace's time `local`, the clock of rank
 * ref_rank read `ref` (that rank's trace time), within +-err ns. Times of
 * the other ranks map to the reference's through these points (one: an
 * offset; two or more: an offset and a drift, through the first and the
 * last). The reference rank writes local == ref, err 0. Simulated runs,
 * whose processes share the simulated clock, write local == ref too. */
struct trace_rec_clock
{
	struct trace_rec_hdr h;
	uint64_t local;
	uint64_t ref;
	uint64_t err;
	int32_t ref_rank;
	uint32_t pad;
};

#define TCF_SEND 0x1u		/* a send; else a receive */
#define TCF_SYNC 0x2u		/* a synchronous send (ends when received) */

/* One message, in the trace of each side. A send and its receive carry
 * the same (sender, receiver, channel, tag, seq): that key links them.
 * channel tells apart the communicators of a run (0: the run's own; else
 * an identifier both sides derive alike); seq numbers the messages of one
 * (sender, receiver, channel, tag) from 0, in the order of the task flow.
 * A send lasts from when its data was ready and it was handed to the
 * network (start) to when the network was done with it (end); a receive
 * from when it could take data (its buffer ready) to when the data was
 * in place. submit is when the application or task flow asked for it. */
struct trace_rec_comm
{
	struct trace_rec_hdr h;
	int32_t peer;			/* the other rank; -1: not a rank of the run */
	uint32_t flags;			/* TCF_* */
	int64_t tag;			/* the application's tag */
	uint64_t seq;
	uint64_t channel;
	uint64_t bytes;
	uint64_t submit;
	uint64_t start;
	uint64_t end;
	uint64_t handle;		/* the data handle's trace id (as TR_TASK_DATA), 0 if none */
	int32_t worker;			/* thread that completed it; -1 for others */
	uint32_t pad;
};

#endif /* VELA_TRACE_FORMAT_H */
