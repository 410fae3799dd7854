/* starpu_perfmodel.h — performance models attached to codelets.
 *
 * A codelet's model predicts how long its tasks run on each kind of worker.
 * The structures are defined here so that applications declaring models
 * compile; calibration, model files and the model-driven policies come with
 * the performance-model work (runtime/perfmodel/).
 */
#ifndef STARPU_PERFMODEL_H
#define STARPU_PERFMODEL_H

#include <starpu_config.h>
#include <starpu_worker.h>
#include <starpu_task_dep.h>
#include <stdio.h>
#include <stdint.h>

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

#ifdef __cplusplus
}
#endif

#endif /* STARPU_PERFMODEL_H */
