/* perfmodel.h — performance models, calibration and the bus model: the
 * interface of runtime/perfmodel/ to the rest of the runtime and to tools/.
 *
 * Design. A codelet's struct starpu_perfmodel (the application's, often
 * static) gets a private state (model->state, struct starpu_perfmodel_state) the first
 * time the runtime needs it: at the first measurement or prediction. The
 * state holds, per arch combination ("comb", a process-wide number given by
 * arch.c to each distinct set of devices) and per implementation, a
 * struct pm_impl: the public starpu_perfmodel_per_arch (cost functions,
 * history table and list, regression) plus what this process measured
 * since the model was loaded (the "delta"). Saving (at starpu_shutdown)
 * re-reads the file under a lock, adds the deltas and writes the result to
 * a temporary file renamed over the old one: two processes calibrating the
 * same model both keep their samples, and a reader never sees half a file.
 *
 * Files are StarPU 1.3's version-45 text format (model_file.c): a file
 * lists combs by their devices, so comb numbers in a file are file-local;
 * struct pm_data is that file-shaped content, and merging maps its combs to
 * the process's. The parser is pure (a buffer in, a pm_data or a
 * "file:line: reason" message out): that is what the fuzzer exercises.
 *
 * Who calls what: init.c calls pm_init/pm_shutdown; the driver loop times
 * kernels and calls pm_measure_* around drv->execute; schedulers use the
 * public starpu_task_expected_* API (estimate.c); tools/ (the vela command)
 * use the public API and the pm_file_* functions below.
 *
 * Locks: pm_registry_lock (the list of loaded models) before a model's
 * state->lock (rwlock: readers predict, writers record), before the comb
 * table's lock (arch.c), a leaf. No perfmodel lock is held while calling
 * application code (cost functions, size_base, footprint callbacks).
 *
 * Simulation: measurements from simulated runs are never recorded (a
 * simulated kernel lasts what the model predicted); pm_measure_begin is the
 * single check point (os_is_simulated()).
 */
#ifndef VELA_PERFMODEL_H
#define VELA_PERFMODEL_H

#include <starpu.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include "os/os.h"

struct job;
struct worker;

/* Limits: files beyond them are rejected, not truncated. */
#define PM_MAX_COMBS 256		/* arch combinations per process / per file */
#define PM_MAX_DEVICES 64		/* devices in one comb */
#define PM_MAX_ENTRIES 1000000		/* history entries per (comb, impl) */
#define PM_MAX_COEFFS 64		/* multiple-regression coefficients */
#define PM_FILE_VERSION 45		/* StarPU 1.3's model file version */
#define PM_MAX_FILE_BYTES (256L << 20)	/* a larger model file is hostile */

/* ------------------------------------------------------------------ */
/* Settings (model.c): from the environment at pm_init, or lazily for
 * tools that never call starpu_init. */
struct pm_settings
{
	int calibrate;			/* STARPU_CALIBRATE: 0 use, 1 record, 2 reset then record */
	unsigned calibrate_minimum;	/* STARPU_CALIBRATE_MINIMUM (default 10) */
	double history_max_error;	/* STARPU_HISTORY_MAX_ERROR, percent (default 50) */
	char hostname[256];		/* STARPU_HOSTNAME or the host's name up to its first '.' */
	char sampling_dir[4096];	/* STARPU_PERF_MODEL_DIR or $STARPU_HOME/.starpu/sampling */
};
extern struct pm_settings pm_conf;
/* Resolves pm_conf from the environment (idempotent unless force). Returns
 * 0 or -EINVAL for a malformed variable (message printed). */
int pm_settings_load(int force, int calibrate);

/* Runtime hooks (init.c): after the workers exist, and before they are
 * freed. pm_init also loads or calibrates the bus model. */
int pm_init(void);
void pm_shutdown(void);

/* ------------------------------------------------------------------ */
/* Arch combinations (arch.c). */
int pm_comb_get(int ndevices, const struct starpu_perfmodel_device *devices);
int pm_comb_add(int ndevices, const struct starpu_perfmodel_device *devices);
int pm_ncombs(void);
const struct starpu_perfmodel_arch *pm_comb_arch(int comb);
/* The comb of arch (registered if new), or -1. */
int pm_arch_comb(const struct starpu_perfmodel_arch *arch);
/* Per-worker arch, set up by pm_init from the worker table. */
int pm_worker_comb(unsigned workerid);
void pm_workers_archs_setup(void);
/* Name of a device type in file names and messages: "cpu", "cuda", ... */
const char *pm_archtype_name(enum starpu_worker_archtype type);
/* The arch name StarPU prints, e.g. "cpu0_impl0 (Comb0)". */
void pm_arch_name(const struct starpu_perfmodel_arch *arch, int comb, unsigned impl, char *buf, size_t size);
void pm_combs_reset(void);

/* ------------------------------------------------------------------ */
/* History entries and per-(comb, impl) content. */

/* One history entry, the public struct first so that list users see it. */
struct pm_entry
{
	struct starpu_perfmodel_history_entry e;
	/* Samples taken by this process since the last load or save. */
	unsigned new_n;
	double new_sum;
	double new_sum2;
	/* The entry was restarted (its history disagreed with too many new
	 * measurements): saving replaces the file's entry instead of adding. */
	unsigned flushed;
};

/* Regression sums taken by this process since the last load or save. */
struct pm_reg_delta
{
	double sumlnx, sumlnx2, sumlny, sumlnxlny;
	unsigned n;
	unsigned long minx, maxx;
};

/* Multiple-regression observations (duration, then the parameters). */
struct pm_mlr_rows
{
	unsigned nparams;
	unsigned n, cap;
	double *v;			/* n rows of 1 + nparams values */
};

struct pm_impl
{
	/* history (our hash table) and list (entries, newest first) are
	 * owned here; regression.coeff too. */
	struct starpu_perfmodel_per_arch pa;
	unsigned present;		/* appears in the file / has data */
	unsigned nentries;
	struct pm_reg_delta reg_new;
	struct pm_mlr_rows mlr_new;
	unsigned touched;		/* merging: received new samples (refit it) */
	/* Multiple regression: the column names line of the file, if read. */
	char *mlr_header;
	/* Whether the history holds a first-run entry (measure.c): -1 not
	 * known (set by pm_history_insert), else 0 or 1. */
	int has_first_runs;
};

/* A comb's part of a model. */
struct pm_comb
{
	int ndevices;
	struct starpu_perfmodel_device devices[PM_MAX_DEVICES];
	unsigned nimpls;		/* implementations listed (max used + 1) */
	struct pm_impl impl[STARPU_MAXIMPLEMENTATIONS];
};

/* Model content. In a pm_state, combs[c] is process comb c (or NULL); in
 * a parsed file, combs[0..ncombs) are in file order. */
struct pm_data
{
	unsigned ncombs;
	struct pm_comb *combs[PM_MAX_COMBS];
	/* Provenance: the "# Vela: ..." comment lines that open a file (such
	 * as "derived from datasheet figures, not measured"), kept across
	 * saves; owned, may be NULL. */
	char *note;
};

void pm_data_init(struct pm_data *d);
void pm_data_free(struct pm_data *d);
void pm_impl_free(struct pm_impl *impl);
struct pm_comb *pm_comb_new(int ndevices, const struct starpu_perfmodel_device *devices);

/* history.c */
struct pm_entry *pm_history_find(struct pm_impl *impl, uint32_t footprint);
/* Inserts a new entry (footprint must be absent); at_head puts it first in
 * the list (new measurements), else last (file order). NULL on ENOMEM. */
struct pm_entry *pm_history_insert(struct pm_impl *impl, uint32_t footprint, int at_head);
void pm_entry_add_sample(struct pm_entry *en, double us, int as_new);
/* First-run entries: the first run of footprint fp in each process, kept
 * under footprint pm_first_run_fp(fp) with flops PM_FIRST_RUN_FLOPS (NaN:
 * the mark that survives the file, which StarPU 1.3 reads as any other
 * entry, one whose footprint no task has; it writes no NaN flops itself).
 * They feed no prediction of a scheduler and no regression. */
#define PM_FIRST_RUN_FLOPS NAN
static inline uint32_t pm_first_run_fp(uint32_t fp)
{
	return fp ^ 0x9e3779b9u;
}
static inline int pm_entry_is_first_run(const struct starpu_perfmodel_history_entry *e)
{
	return isnan(e->flops);
}
/* Recomputes mean and deviation from sum, sum2 and nsample. */
void pm_entry_finish(struct starpu_perfmodel_history_entry *e);
void pm_history_free(struct pm_impl *impl);

/* regression.c: fits, all on (size in bytes, time in µs). */
/* alpha, beta of time = alpha * size^beta from the sums; sets valid. */
void pm_regression_update_linear(struct starpu_perfmodel_regression_model *r, unsigned minimum);
/* a, b, c of time = a * size^b + c, least squares over the history
 * entries weighted by their sample counts; sets nl_valid. */
void pm_regression_update_nl(struct pm_impl *impl, unsigned minimum);
/* Least-squares fit of points (x[i], y[i], weight w[i]) to a*x^b + c.
 * Returns 0 and the coefficients, or -1 when the points cannot determine
 * them (fewer than three distinct sizes). */
int pm_fit_power_law(const double *x, const double *y, const double *w, unsigned n, double *a, double *b, double *c);
/* Linear least squares of y on columns X (n rows, k columns, row major);
 * returns 0 and beta[k], or -1 when singular. */
int pm_least_squares(const double *X, const double *y, unsigned n, unsigned k, double *beta);
/* Multiple regression: columns 1, then prod_j p_j^comb[i][j]. */
int pm_mlr_fit(struct starpu_perfmodel *model, const struct pm_mlr_rows *rows, double *coeff);
double pm_mlr_eval(struct starpu_perfmodel *model, const double *coeff, unsigned ncoeff, const double *params);

/* ------------------------------------------------------------------ */
/* Model files (model_file.c). */

/* Parses a whole file held in buf (len bytes; need not be terminated).
 * name is used in messages. Returns 0, or -EINVAL with "name:line: reason"
 * in err. */
int pm_file_parse(const char *buf, size_t len, const char *name, struct pm_data *out, char *err, size_t errsize);
/* Writes d in the version-45 format. model (may be NULL) names the
 * multiple-regression columns. Returns 0 or a negative errno. */
int pm_file_write(FILE *f, const struct pm_data *d, struct starpu_perfmodel *model);
/* Reads a file into memory (NUL-terminated; caller frees). Returns 0,
 * -ENOENT, or another negative errno (with a message in err). */
int pm_file_read_all(const char *path, char **buf, size_t *len, char *err, size_t errsize);
/* Parses the file at path into out. */
int pm_file_load(const char *path, struct pm_data *out, char *err, size_t errsize);
/* Writes d to path atomically (temporary file, then rename). */
int pm_file_save_atomic(const char *path, const struct pm_data *d, struct starpu_perfmodel *model, char *err, size_t errsize);
/* A file written whole or not at all (bus files, platform files):
 * pm_atomic_open opens a temporary file beside path (its name in tmp, at
 * least PM_ATOMIC_TMP bytes; NULL and errno on failure); pm_atomic_commit
 * closes it and, when ret is 0 and the stream saw no error, renames it
 * onto path, else removes it. Returns 0 or a negative errno. */
#define PM_ATOMIC_TMP 4400
FILE *pm_atomic_open(const char *path, char *tmp);
int pm_atomic_commit(FILE *f, const char *tmp, const char *path, int ret);

/* ------------------------------------------------------------------ */
/* Directories and locks (store.c). */
int pm_symbol_valid(const char *symbol);
/* $sampling/codelets/45 and the file of a symbol. */
void pm_codelets_dir(char *buf, size_t size);
void pm_bus_dir(char *buf, size_t size);
int pm_model_path(const char *symbol, char *buf, size_t size);
/* mkdir -p; 0 or a negative errno. */
int pm_mkdir_p(const char *path);
/* Exclusive lock of the codelets directory between processes: returns a
 * descriptor to pass to pm_dir_unlock, or a negative errno. */
int pm_dir_lock(const char *dir);
void pm_dir_unlock(int fd);
/* Removes from dir the temporary files "<file>.tmp.<pid>" of this host's
 * files (host_is_prefix: bus files "<host>.*", else models "*.<host>")
 * left by processes that no longer exist (killed while writing). Returns
 * how many, or a negative errno. */
int pm_remove_stale_tmp(const char *dir, int host_is_prefix);

/* ------------------------------------------------------------------ */
/* Model states (model.c): the private state behind model->state (the
 * public header's opaque struct starpu_perfmodel_state). */
struct starpu_perfmodel_state
{
	os_rwlock_t lock;		/* protects data and the flags below */
	struct starpu_perfmodel *model;
	struct pm_data data;		/* indexed by process comb */
	int registered;			/* loaded by the runtime: saved at shutdown */
	int dirty;			/* new samples since the last save */
	int reset;			/* STARPU_CALIBRATE=2: the file is replaced, not merged */
	int file_bad;			/* the file could not be parsed: never overwrite it */
	/* Some starpu_perfmodel_per_arch was handed out (get_model_per_arch):
	 * its size_base may be set. Until then predictions skip the look-up. */
	_Atomic int pa_given;
	int reported;			/* an error about this model was printed */
	char *owned_symbol;		/* load_symbol/load_file set model->symbol to it; freed by unload */
	struct starpu_perfmodel_state *next;		/* registry list, under pm_registry_lock */
};

/* The state of model, created and loaded from its file on first use; NULL
 * for models that need none (no symbol) or on allocation failure. */
struct starpu_perfmodel_state *pm_state_get(struct starpu_perfmodel *model);
/* Whether the model's type learns from measurements. */
int pm_type_is_learnt(enum starpu_perfmodel_type type);
/* The per-(comb, impl) part of a state (created; state->lock held for
 * writing). */
struct pm_impl *pm_state_impl(struct starpu_perfmodel_state *st, int comb, unsigned impl);
/* Saves one state (merging with the file on disk); 0 or a negative errno. */
int pm_state_save(struct starpu_perfmodel_state *st);
/* Saves every registered model with new samples (starpu_shutdown). */
void pm_save_all(void);
/* Frees every state (starpu_shutdown) and the arch table. */
void pm_unload_all(void);

/* ------------------------------------------------------------------ */
/* Merging model content (merge.c): no locks taken, no files read. */

/* The slot of process comb comb in d (created, with the comb's devices);
 * NULL if comb is not a known comb or on allocation failure. */
struct pm_comb *pm_data_comb(struct pm_data *d, int comb);
/* Gives a multiple-regression model's impl ncombinations + 1
 * coefficients (NAN until fitted); 0 or -ENOMEM. */
int pm_impl_prepare_mlr(struct starpu_perfmodel *model, struct pm_impl *impl);
/* Recomputes validity flags, and with refit the regressions, of impl. */
void pm_impl_refresh(struct starpu_perfmodel *model, struct pm_impl *impl, int refit);
/* Adds sc's content into dc: with deltas_only, what this process measured
 * (new samples, regression sums, multiple-regression rows); else all of
 * it (file content, fitted values kept as written). 0 or -ENOMEM. */
int pm_comb_merge(struct starpu_perfmodel *model, struct pm_comb *dc, const struct pm_comb *sc, int deltas_only);
/* Adds every comb of src into dst: src_is_file maps src's combs (by
 * their devices) to process combs; deltas_only as for pm_comb_merge.
 * 0, -ENOSPC (a comb beyond PM_MAX_COMBS ignored) or -ENOMEM. */
int pm_data_merge(struct pm_data *dst, const struct pm_data *src, int src_is_file, int deltas_only);
/* pm_impl_refresh without refits on every impl of d (content just read). */
void pm_data_refresh(struct starpu_perfmodel *model, struct pm_data *d);
/* Forgets the deltas of d once they are on disk. */
void pm_data_clear_deltas(struct pm_data *d);

/* ------------------------------------------------------------------ */
/* Measurements (measure.c). */

/* Whether the kernel of job should be timed on w (cheap; false in
 * simulation, for tasks without a learnt model, when calibration is off
 * and the model is calibrated). */
int pm_measure_wanted(struct job *job, struct worker *w);
/* Records that job's kernel ran us microseconds on w. */
void pm_measure_record(struct job *job, struct worker *w, double us);
/* Whether the measurement would be kept (STARPU_CALIBRATE, and the entry's
 * samples): a device runs a task alone only to calibrate it. */
int pm_measure_kept(struct job *job, struct worker *w);
/* What a prediction tells about first runs (pm_expected_first): maybe,
 * whether the (comb, impl) of the model may hold first-run entries (its
 * has_first_runs: -1 or 1), with the task's comb and footprint. */
struct pm_first
{
	int maybe;
	int comb;
	uint32_t fp;
};
/* In a simulation, what a task's first run on its arch in this process
 * takes beyond predicted (its model's prediction): the mean of the
 * footprint's first-run entry less predicted, once per footprint and arch,
 * when the entry holds STARPU_CALIBRATE_MINIMUM samples; else 0. first:
 * from pm_expected_first for the task. */
double pm_first_run_extra_us(struct starpu_perfmodel *model, const struct pm_first *first, unsigned impl, double predicted);
/* Adds a measurement (µs) of task on comb/impl to model. */
void pm_record(struct starpu_perfmodel *model, struct starpu_task *task, int comb, unsigned impl, double us);

/* ------------------------------------------------------------------ */
/* Footprints and sizes (footprint.c). */
/* Footprint of the data of a handle: its interface footprint hashed with
 * the interface id (what StarPU stores in its handles). */
uint32_t pm_handle_footprint(starpu_data_handle_t handle);
/* The "size" column of a history entry: size_base if the model (or the
 * per-arch part) has one, else the sum of the data sizes. */
size_t pm_task_size(struct starpu_perfmodel *model, struct starpu_task *task, const struct starpu_perfmodel_arch *arch, int comb, unsigned impl);
uint32_t pm_task_footprint(struct starpu_perfmodel *model, struct starpu_task *task, const struct starpu_perfmodel_arch *arch, int comb, unsigned impl);

/* ------------------------------------------------------------------ */
/* Predictions (estimate.c). */
double pm_expected(struct starpu_perfmodel *model, struct starpu_task *task, const struct starpu_perfmodel_arch *arch, unsigned impl);
/* The same, and in *first (may be NULL) what pm_first_run_extra_us needs:
 * one look-up of the model for both, per simulated task. */
double pm_expected_first(struct starpu_perfmodel *model, struct starpu_task *task, const struct starpu_perfmodel_arch *arch,
			 unsigned impl, struct pm_first *first);

/* ------------------------------------------------------------------ */
/* The bus model (bus.c, bus_calibrate.c, platform.c). Matrices are
 * indexed [src][dst] by memory node: bandwidth in MB/s (= bytes/µs),
 * latency in µs; NAN where unknown. */
struct pm_bus
{
	unsigned nnodes;
	double bandwidth[STARPU_MAXNODES][STARPU_MAXNODES];
	double latency[STARPU_MAXNODES][STARPU_MAXNODES];
	/* What the calibration saw, compared at init to decide whether to
	 * calibrate again. */
	unsigned ncpus, nnuma, ncuda, nopencl, nmic, nmpi;
	int loaded;
};
extern struct pm_bus pm_bus;

/* Loads the bus files, or calibrates and writes them when they are missing,
 * stale, or when force is set. 0 or a negative errno. */
int pm_bus_setup(int force);
/* Measures every pair of memory nodes into b. progress: print a line. */
int pm_bus_measure(struct pm_bus *b, int progress);
/* The median of v[0..n) (n > 0), which it sorts: the measurements' figure
 * (bus_calibrate.c, dev_costs.c). */
double pm_median(double *v, unsigned n);
int pm_bus_save(const struct pm_bus *b);
/* Parses the .bandwidth/.latency/.config files of dir for host into b. */
int pm_bus_load(struct pm_bus *b);
/* File names: which is "bandwidth", "latency", "affinity", "config",
 * "platform.v4.xml". */
void pm_bus_file(const char *which, char *buf, size_t size);
/* The latency matrix, as starpu_bus_print_bandwidth prints bandwidths. */
void pm_bus_print_latency(FILE *f);
/* Writes the SimGrid v4 platform of this machine with the measured bus. */
/* The platform host naming memory node node ("RAM", "CUDA0", ...): 0, or
 * -EINVAL (with "NODE<n>" in buf) for a kind platforms do not name. */
int pm_node_host(unsigned node, char *buf, size_t size);
int pm_platform_write(FILE *f, const struct pm_bus *b);
int pm_platform_write_file(const char *path, const struct pm_bus *b);

#endif /* VELA_PERFMODEL_H */
