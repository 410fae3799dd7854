/* starpu_perfmodel.h — performance models attached to codelets.
 *
 * A codelet's model predicts how long its tasks run (in microseconds) on each
 * "arch": a combination of devices (type, device id, number of cores), such
 * as one CPU core or one CUDA device. The model is either given by the
 * application (STARPU_PER_ARCH, STARPU_COMMON cost functions) or learnt from
 * measurements (history and regression models), which the runtime takes
 * around each kernel while calibrating and keeps, per arch and per
 * implementation of the codelet, in files under
 * $STARPU_HOME/.starpu/sampling/codelets/45/<symbol>.<hostname> in StarPU
 * 1.3's format. runtime/perfmodel/ implements it; see its README.md.
 */
#ifndef STARPU_PERFMODEL_H
#define STARPU_PERFMODEL_H

#include <starpu_config.h>
#include <starpu_worker.h>
#include <starpu_task_dep.h>
#include <starpu_data.h>
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_task;

#define STARPU_NARCH STARPU_ANY_WORKER

struct starpu_perfmodel_device
{
	enum starpu_worker_archtype type;
	int devid;
	int ncores;
};

/* A combination of devices a task may run on (one device, except for
 * parallel tasks). */
struct starpu_perfmodel_arch
{
	int ndevices;
	struct starpu_perfmodel_device *devices;
};

struct starpu_perfmodel_history_entry
{
	double mean;
	double deviation;
	double sum;
	double sum2;
	unsigned nsample;
	unsigned nerror;
	uint32_t footprint;
	size_t size;
	double flops;
	double duration;
	starpu_tag_t tag;
	double *parameters;
};

struct starpu_perfmodel_history_list
{
	struct starpu_perfmodel_history_list *next;
	struct starpu_perfmodel_history_entry *entry;
};

struct starpu_perfmodel_regression_model
{
	double sumlny;
	double sumlnx;
	double sumlnx2;
	unsigned long minx;
	unsigned long maxx;
	double sumlnxlny;
	double alpha;
	double beta;
	unsigned valid;
	double a;
	double b;
	double c;
	unsigned nl_valid;
	unsigned nsample;
	double *coeff;
	unsigned ncoeff;
	unsigned multi_valid;
};

struct starpu_perfmodel_history_table;

typedef double (*starpu_perfmodel_per_arch_cost_function)(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl);
typedef size_t (*starpu_perfmodel_per_arch_size_base)(struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned nimpl);

struct starpu_perfmodel_per_arch
{
	starpu_perfmodel_per_arch_cost_function cost_function;
	starpu_perfmodel_per_arch_size_base size_base;
	struct starpu_perfmodel_history_table *history;
	struct starpu_perfmodel_history_list *list;
	struct starpu_perfmodel_regression_model regression;
	char debug_path[256];
};

enum starpu_perfmodel_type
{
	STARPU_PERFMODEL_INVALID = 0,
	STARPU_PER_ARCH,
	STARPU_COMMON,
	STARPU_HISTORY_BASED,
	STARPU_REGRESSION_BASED,
	STARPU_NL_REGRESSION_BASED,
	STARPU_MULTIPLE_REGRESSION_BASED
};

struct starpu_perfmodel_state;
typedef struct starpu_perfmodel_state *starpu_perfmodel_state_t;

struct starpu_perfmodel
{
	enum starpu_perfmodel_type type;
	double (*cost_function)(struct starpu_task *, unsigned nimpl);
	double (*arch_cost_function)(struct starpu_task *, struct starpu_perfmodel_arch *arch, unsigned nimpl);
	size_t (*size_base)(struct starpu_task *, unsigned nimpl);
	uint32_t (*footprint)(struct starpu_task *);
	/* Name of the model's file; models with the same symbol share it. */
	const char *symbol;
	unsigned is_loaded;
	unsigned benchmarking;
	unsigned is_init;
	void (*parameters)(struct starpu_task *task, double *parameters);
	const char **parameters_names;
	unsigned nparameters;
	unsigned **combinations;
	unsigned ncombinations;
	starpu_perfmodel_state_t state;
};

/* Model setup (done automatically at the first task using the model). */
void starpu_perfmodel_init(struct starpu_perfmodel *model);
/* For tools that do not call starpu_init(): sets up the arch table and
 * reads the directory settings; starpu_perfmodel_free_sampling undoes it. */
void starpu_perfmodel_initialize(void);
void starpu_perfmodel_free_sampling(void);

/* Loading models from their files (for tools): model must be all zeros;
 * returns 0, 1 when no file exists for the symbol (as StarPU), or a
 * negative errno when the file is unreadable or malformed (the message
 * names the file and line). unload frees what load allocated. */
int starpu_perfmodel_load_file(const char *filename, struct starpu_perfmodel *model);
int starpu_perfmodel_load_symbol(const char *symbol, struct starpu_perfmodel *model);
int starpu_perfmodel_unload_model(struct starpu_perfmodel *model);
void starpu_perfmodel_get_model_path(const char *symbol, char *path, size_t maxlen);
void starpu_perfmodel_dump_xml(FILE *output, struct starpu_perfmodel *model);

/* Arch combinations: a process-wide table, indexed by "comb" numbers. */
struct starpu_perfmodel_arch *starpu_worker_get_perf_archtype(int workerid, unsigned sched_ctx_id);
int starpu_perfmodel_get_narch_combs(void);
int starpu_perfmodel_arch_comb_add(int ndevices, struct starpu_perfmodel_device *devices);
int starpu_perfmodel_arch_comb_get(int ndevices, struct starpu_perfmodel_device *devices);
struct starpu_perfmodel_arch *starpu_perfmodel_arch_comb_fetch(int comb);

/* The per-arch part of a model (created if needed), e.g. to set a per-arch
 * cost function. The _per_devices variants take (type, devid, ncores)
 * triples terminated by -1. */
struct starpu_perfmodel_per_arch *starpu_perfmodel_get_model_per_arch(struct starpu_perfmodel *model, struct starpu_perfmodel_arch *arch, unsigned impl);
struct starpu_perfmodel_per_arch *starpu_perfmodel_get_model_per_devices(struct starpu_perfmodel *model, int impl, ...);
int starpu_perfmodel_set_per_devices_cost_function(struct starpu_perfmodel *model, int impl, starpu_perfmodel_per_arch_cost_function func, ...);
int starpu_perfmodel_set_per_devices_size_base(struct starpu_perfmodel *model, int impl, starpu_perfmodel_per_arch_size_base func, ...);

void starpu_perfmodel_debugfilepath(struct starpu_perfmodel *model, struct starpu_perfmodel_arch *arch, char *path, size_t maxlen, unsigned nimpl);
char *starpu_perfmodel_get_archtype_name(enum starpu_worker_archtype archtype);
/* "cpu0_impl0 (Comb0)": type, device id, implementation, comb number. */
void starpu_perfmodel_get_arch_name(struct starpu_perfmodel_arch *arch, char *archname, size_t maxlen, unsigned nimpl);

/* Mean of the history entry for footprint on arch (implementation 0), or
 * NAN when there is none. */
double starpu_perfmodel_history_based_expected_perf(struct starpu_perfmodel *model, struct starpu_perfmodel_arch *arch, uint32_t footprint);

/* Listing and printing (what starpu_perfmodel_display and `vela perfmodel`
 * show). parameter selects one value ("mean", "stddev", "a", "b", "c",
 * "alpha", "beta", "path-file-debug") or NULL for the table; footprint
 * selects one entry or NULL for all; arch is "cpu", "cpu:K", "cuda",
 * "cuda_D", "opencl", "opencl_D" or NULL for all. */
int starpu_perfmodel_list(FILE *output);
void starpu_perfmodel_print(struct starpu_perfmodel *model, struct starpu_perfmodel_arch *arch, unsigned nimpl, char *parameter, uint32_t *footprint, FILE *output);
int starpu_perfmodel_print_all(struct starpu_perfmodel *model, char *arch, char *parameter, uint32_t *footprint, FILE *output);
int starpu_perfmodel_print_estimations(struct starpu_perfmodel *model, uint32_t footprint, FILE *output);
int starpu_perfmodel_list_combs(FILE *output, struct starpu_perfmodel *model);

/* Adds an application-made measurement (in µs) of task on arch. */
void starpu_perfmodel_update_history(struct starpu_perfmodel *model, struct starpu_task *task, struct starpu_perfmodel_arch *arch, unsigned cpuid, unsigned nimpl, double measured);
/* Prints the directory holding the model files. */
void starpu_perfmodel_directory(FILE *output);

/* The bus model (calibrated at the first starpu_init on a host, or on
 * demand with STARPU_BUS_CALIBRATE=1 / `vela calibrate-bus`): bandwidth in
 * MB/s, latency in µs, prediction in µs. */
void starpu_bus_print_bandwidth(FILE *f);
void starpu_bus_print_affinity(FILE *f);
void starpu_bus_print_filenames(FILE *f);
double starpu_transfer_bandwidth(unsigned src_node, unsigned dst_node);
double starpu_transfer_latency(unsigned src_node, unsigned dst_node);
double starpu_transfer_predict(unsigned src_node, unsigned dst_node, size_t size);

/* A model that always predicts 1 µs. */
extern struct starpu_perfmodel starpu_perfmodel_nop;

#ifdef __cplusplus
}
#endif

#endif /* STARPU_PERFMODEL_H */
