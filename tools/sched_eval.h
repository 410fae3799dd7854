/* sched_eval.h — `vela sched-eval`: every combination of platform, policy
 * and GPU count simulated, compared, drawn and judged against a baseline.
 *
 * The command is an orchestrator over pieces that exist on their own: the
 * same program simulated with STARPU_SIMGRID=1 (or a recorded graph
 * through `vela replay`), each run recording a trace (STARPU_FXT_TRACE=1),
 * and the trace reader of `vela trace` turning each trace into figures and
 * a Gantt chart. Nothing here knows about SimGrid or the runtime's
 * internals beyond the table of built-in policies.
 *
 *   sched_eval.c         command line, the list of cases, the process pool
 *   sched_eval_case.c    one case: its environment, the simulation, its trace
 *   sched_eval_report.c  tables, JSON, CSV and the HTML report
 *   sched_eval_json.c    reading a baseline (an earlier JSON) and the verdicts
 *
 * Every figure comes from simulated time, so the same inputs give the
 * same numbers whatever the machine, its load and the number of processes.
 */
#ifndef VELA_TOOLS_SCHED_EVAL_H
#define VELA_TOOLS_SCHED_EVAL_H

#include <stdint.h>
#include <stdio.h>

#define SE_CMD "sched-eval"

/* A machine to simulate: a platform file and the models that go with it. */
struct se_platform
{
	char *name;		/* owned: what tables and the baseline call it */
	char *file;		/* owned: absolute path of the platform file, or NULL (error) */
	char *models;		/* owned: STARPU_PERF_MODEL_DIR, or NULL: the environment's */
	char *hostname;		/* owned: STARPU_HOSTNAME, or NULL: the environment's */
	int ngpus;		/* CUDA hosts in the file */
	char *error;		/* owned: why none of its cases can run, or NULL */
};

enum se_policy_kind
{
	SE_BUILTIN,		/* STARPU_SCHED=name */
	SE_PROGRAM,		/* the program's own: STARPU_SCHED unset, {sched} in its arguments */
	SE_LIBRARY,		/* a graph replayed with a policy from a shared library */
	SE_UNKNOWN		/* an error for each of its cases */
};

struct se_policy
{
	char *name;		/* owned: the policy's name (for a library, its policy_name) */
	char *spec;		/* owned: as given on the command line */
	enum se_policy_kind kind;
	char *error;		/* owned: for SE_UNKNOWN and unusable libraries */
};

/* Figures of one case, all from its trace in simulated time. */
struct se_result
{
	int ok;
	char error[512];	/* one line, when !ok */
	double makespan_ms;	/* first submission to last termination */
	double gflop;		/* total of the tasks' flops, GFlop; 0: unknown */
	unsigned long ntasks;
	unsigned ncpu, ncuda, nopencl;	/* workers of each kind */
	double idle_cpu, idle_cuda, idle_opencl;	/* share of the makespan, -1: no such worker */
	uint64_t bytes_moved;	/* between memory nodes */
	unsigned long ntransfers;
	char policy_ran[128];	/* the policy the trace names */
	char gantt[256];	/* the Gantt chart, relative to the output directory, or "" */
};

struct se_case
{
	unsigned platform, policy;	/* indices */
	int gpus;			/* STARPU_NCUDA, -1: the platform's */
	char dir[64];			/* relative to the output directory */
	struct se_result r;
	double vs_best;			/* makespan / best of its platform and GPU count */
};

struct se_run
{
	/* What to run: a graph (rec) or a program (argv). */
	const char *rec;
	char **argv;			/* NULL-terminated, or NULL */
	const char *default_us, *where, *ncpu;
	const char *outdir;		/* absolute */
	int gantt;			/* write each case's Gantt chart */
	int keep_traces;
	unsigned jobs;
	unsigned timeout_s;		/* per case; 0: none */
	int quiet;

	struct se_platform *platforms;
	unsigned nplatforms;
	struct se_policy *policies;
	unsigned npolicies;
	int *gpus;			/* GPU counts, or one entry -1 */
	unsigned ngpus;
	struct se_case *cases;
	unsigned ncases;
};

/* sched_eval_case.c: runs case c (in a process of the pool) and writes its
 * result to c->dir/result; se_result_read() reads it back in the parent. */
void se_case_run(const struct se_run *run, const struct se_case *c);
int se_result_read(const struct se_run *run, struct se_case *c);

/* sched_eval_report.c */
void se_print_tables(const struct se_run *run, FILE *f);
int se_write_json(const struct se_run *run, const char *path);
int se_write_csv(const struct se_run *run, const char *path);
int se_write_html(const struct se_run *run, const char *path);
/* JSON string body of s (no quotes) on f. */
void se_json_string(FILE *f, const char *s);

/* sched_eval_json.c: compares with a baseline; prints one line per
 * improvement on out, per regression on err; returns the number of
 * regressions, or -1 when the baseline cannot be read (a message on err
 * says why). */
int se_compare_baseline(const struct se_run *run, const char *path, double tolerance, FILE *out, FILE *err);

/* The name of a case, "dmda on dgx-a100, 2 GPUs". */
const char *se_case_label(const struct se_run *run, const struct se_case *c, char *buf, size_t len);

int vela_sched_eval(int argc, char **argv);

#endif /* VELA_TOOLS_SCHED_EVAL_H */
