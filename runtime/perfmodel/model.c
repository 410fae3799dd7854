/* model.c — model states: settings, lazy loading from the files, saving
 * at shutdown (the file on disk merged with this process's measurements:
 * merge.c does the arithmetic), and the setup part of the public API
 * (starpu_perfmodel_init, load/unload, per-arch access).
 *
 * See perfmodel.h for the design (states, deltas, merge-on-save) and the
 * lock order: pm_registry_lock, then a state's lock, then the comb table's.
 */
#define _GNU_SOURCE
#include "perfmodel/perfmodel.h"
#include "core/rt.h"
#include "os/regular_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pm_settings pm_conf;
static int settings_loaded;

/* The states the runtime loaded (saved and freed at shutdown). A leaf
 * except for the state locks it is taken before. */
static os_mutex_t pm_registry_lock = OS_MUTEX_INITIALIZER;
static struct starpu_perfmodel_state *registry;
/* Whether a save failed this session: the message is printed once. */
static int save_failure_reported;
/* Stale temporary files of the models' directory removed this session
 * (pm_state_save; reset by pm_init). */
static int stale_tmp_removed;

static int env_uint(const char *var, unsigned long max, unsigned long *out)
{
	const char *s = getenv(var);
	if (!s || !*s)
		return 1;
	char *e;
	errno = 0;
	unsigned long v = strtoul(s, &e, 10);
	while (isspace((unsigned char) *e))
		e++;
	if (!isdigit((unsigned char) s[0]) || errno || *e || v > max)
	{
		rt_error("starpu_init: environment variable %s='%s' must be an integer between 0 and %lu", var, s, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int pm_settings_load(int force, int calibrate)
{
	if (settings_loaded && !force)
		return 0;
	struct pm_settings s;
	memset(&s, 0, sizeof(s));
	s.calibrate = calibrate >= 0 ? calibrate : 0;
	if (calibrate < 0)
	{
		unsigned long v;
		int r = env_uint("STARPU_CALIBRATE", 2, &v);
		if (r < 0)
			return r;
		if (r == 0)
			s.calibrate = (int) v;
	}
	unsigned long v;
	s.calibrate_minimum = 10;
	int r = env_uint("STARPU_CALIBRATE_MINIMUM", 1000000, &v);
	if (r < 0)
		return r;
	if (r == 0)
		s.calibrate_minimum = v ? (unsigned) v : 1;
	s.history_max_error = 50.0;
	r = env_uint("STARPU_HISTORY_MAX_ERROR", 1000000, &v);
	if (r < 0)
		return r;
	if (r == 0)
		s.history_max_error = (double) v;

	const char *host = getenv("STARPU_HOSTNAME");
	if (host && *host)
		snprintf(s.hostname, sizeof(s.hostname), "%s", host);
	else
	{
		if (gethostname(s.hostname, sizeof(s.hostname) - 1))
			snprintf(s.hostname, sizeof(s.hostname), "unknown");
		s.hostname[sizeof(s.hostname) - 1] = '\0';
		/* The short name, as StarPU: nodes of a cluster share models. */
		char *dot = strchr(s.hostname, '.');
		if (dot)
			*dot = '\0';
	}
	if (strchr(s.hostname, '/'))
	{
		rt_error("starpu_init: STARPU_HOSTNAME='%s' contains '/', which cannot be part of a file name", s.hostname);
		return -EINVAL;
	}

	const char *dir = getenv("STARPU_PERF_MODEL_DIR");
	if (dir && *dir)
		snprintf(s.sampling_dir, sizeof(s.sampling_dir), "%s", dir);
	else
	{
		const char *home = getenv("STARPU_HOME");
		if (!home || !*home)
			home = getenv("HOME");
		if (!home || !*home)
			home = "/tmp";
		snprintf(s.sampling_dir, sizeof(s.sampling_dir), "%s/.starpu/sampling", home);
	}
	/* No trailing slash: paths are built by appending "/...". */
	size_t n = strlen(s.sampling_dir);
	while (n > 1 && s.sampling_dir[n - 1] == '/')
		s.sampling_dir[--n] = '\0';
	pm_conf = s;
	settings_loaded = 1;
	return 0;
}

int pm_type_is_learnt(enum starpu_perfmodel_type type)
{
	return type == STARPU_HISTORY_BASED || type == STARPU_REGRESSION_BASED ||
	       type == STARPU_NL_REGRESSION_BASED || type == STARPU_MULTIPLE_REGRESSION_BASED;
}

struct pm_impl *pm_state_impl(struct starpu_perfmodel_state *st, int comb, unsigned impl)
{
	if (impl >= STARPU_MAXIMPLEMENTATIONS)
		return NULL;
	struct pm_comb *c = pm_data_comb(&st->data, comb);
	if (!c)
		return NULL;
	if (impl + 1 > c->nimpls)
		c->nimpls = impl + 1;
	struct pm_impl *im = &c->impl[impl];
	if (!im->present)
	{
		im->present = 1;
		if (pm_impl_prepare_mlr(st->model, im))
			return NULL;
	}
	return im;
}

/* ------------------------------------------------------------------ */
/* Loading. */

static void report_once(struct starpu_perfmodel_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report_once(struct starpu_perfmodel_state *st, const char *fmt, ...)
{
	if (st->reported)
		return;
	st->reported = 1;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rt_error("%s", msg);
}

/* Loads the model's file into a fresh state (no lock needed: the state is
 * not published yet). */
static void state_load(struct starpu_perfmodel_state *st)
{
	struct starpu_perfmodel *model = st->model;
	if (!pm_type_is_learnt(model->type) || !model->symbol)
		return;
	if (!pm_symbol_valid(model->symbol))
	{
		report_once(st, "performance model symbol '%s' cannot name a file (empty, too long, or with '/' or a leading '.'): the model is not loaded nor saved",
			    model->symbol);
		st->file_bad = 1;
		return;
	}
	if (pm_conf.calibrate == 2)
	{
		/* STARPU_CALIBRATE=2: start from scratch, replace the file. */
		st->reset = 1;
		return;
	}
	char path[4096], err[1024];
	if (pm_model_path(model->symbol, path, sizeof(path)))
		return;
	struct pm_data file;
	int ret = pm_file_load(path, &file, err, sizeof(err));
	if (ret == -ENOENT || ret == -ENOTDIR)
		return;		/* no file (yet): calibration will make one */
	if (ret)
	{
		report_once(st, "performance model '%s' not loaded: %s; Vela goes on without it, and will not overwrite that file (remove it, or run with STARPU_CALIBRATE=2 to recalibrate)",
			    model->symbol, err);
		st->file_bad = 1;
		return;
	}
	pm_data_merge(&st->data, &file, 1, 0);
	pm_data_free(&file);
	pm_data_refresh(model, &st->data);
}

static struct starpu_perfmodel_state *state_new(struct starpu_perfmodel *model)
{
	struct starpu_perfmodel_state *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	os_rwlock_init(&st->lock);
	st->model = model;
	pm_data_init(&st->data);
	return st;
}

static void state_free(struct starpu_perfmodel_state *st)
{
	pm_data_free(&st->data);
	os_rwlock_destroy(&st->lock);
	free(st);
}

struct starpu_perfmodel_state *pm_state_get(struct starpu_perfmodel *model)
{
	struct starpu_perfmodel_state *st = __atomic_load_n(&model->state, __ATOMIC_ACQUIRE);
	if (st)
		return st;
	pm_settings_load(0, -1);
	os_mutex_lock(&pm_registry_lock);
	st = model->state;
	if (!st)
	{
		st = state_new(model);
		if (st)
		{
			state_load(st);
			st->registered = 1;
			st->next = registry;
			registry = st;
			model->is_init = 1;
			model->is_loaded = 1;
			__atomic_store_n(&model->state, st, __ATOMIC_RELEASE);
		}
	}
	os_mutex_unlock(&pm_registry_lock);
	return st;
}

/* ------------------------------------------------------------------ */
/* Saving. */

static void mlr_rows_path(const char *symbol, const struct pm_comb *comb, unsigned impl, char *buf, size_t size)
{
	char dir[4096], arch[256] = "";
	size_t n = 0;
	pm_codelets_dir(dir, sizeof(dir));
	/* codelets/45 → codelets/tmp, where StarPU keeps these rows too. */
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (int d = 0; d < comb->ndevices && n < sizeof(arch) - 32; d++)
		n += (size_t) snprintf(arch + n, sizeof(arch) - n, "%s%s%d", d ? "+" : "",
				       pm_archtype_name(comb->devices[d].type), comb->devices[d].devid);
	if (comb->devices[0].ncores > 1 && n < sizeof(arch) - 16)
		snprintf(arch + n, sizeof(arch) - n, "x%d", comb->devices[0].ncores);
	if ((size_t) snprintf(buf, size, "%s/tmp/%s.%s.%s_impl%u.out", dir, symbol, pm_conf.hostname, arch, impl) >= size && size)
		buf[0] = '\0';
}

/* Appends a comb/impl's new multiple-regression rows to its rows file and
 * refits the coefficients from every row in it (under the directory lock). */
static void mlr_save_rows(struct starpu_perfmodel *model, struct pm_comb *comb, unsigned i, struct pm_impl *im)
{
	if (!model || model->type != STARPU_MULTIPLE_REGRESSION_BASED || !im->mlr_new.n || !model->symbol)
		return;
	char path[4096];
	mlr_rows_path(model->symbol, comb, i, path, sizeof(path));
	if (!path[0])
		return;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	if (pm_mkdir_p(dir))
		return;
	/* A FIFO there would block the read-back below forever: refused. */
	const char *kind;
	int fd = os_open_regular(path, O_RDWR | O_CREAT | O_APPEND, 0644, NULL, &kind);
	FILE *f = fd >= 0 ? fdopen(fd, "a+") : NULL;
	if (!f)
	{
		if (kind)
			rt_warn("multiple-regression rows of model '%s' not saved: %s is %s", model->symbol, path, kind);
		if (fd >= 0)
			close(fd);
		return;
	}
	fseek(f, 0, SEEK_END);
	unsigned np = im->mlr_new.nparams, stride = 1 + np;
	if (ftell(f) == 0)
	{
		fprintf(f, "Duration");
		for (unsigned p = 0; p < np; p++)
			fprintf(f, ", %s", model->parameters_names && model->parameters_names[p] ? model->parameters_names[p] : "P");
		fprintf(f, "\n");
	}
	for (unsigned r = 0; r < im->mlr_new.n; r++)
	{
		for (unsigned k = 0; k < stride; k++)
			fprintf(f, "%s%f", k ? ", " : "", im->mlr_new.v[(size_t) r * stride + k]);
		fprintf(f, "\n");
	}
	/* Refit from the whole file. */
	struct pm_mlr_rows all = { .nparams = np };
	rewind(f);
	char line[4096];
	int header = 1;
	while (fgets(line, sizeof(line), f))
	{
		if (header)
		{
			header = 0;
			continue;
		}
		if (all.n == all.cap)
		{
			unsigned cap = all.cap ? 2 * all.cap : 64;
			double *v = realloc(all.v, sizeof(double) * stride * cap);
			if (!v)
				break;
			all.v = v;
			all.cap = cap;
		}
		char *p = line;
		unsigned k = 0;
		for (; k < stride; k++)
		{
			char *e;
			double x = strtod(p, &e);
			if (e == p || !isfinite(x))
				break;
			all.v[(size_t) all.n * stride + k] = x;
			p = e;
			while (*p == ',' || *p == ' ')
				p++;
		}
		if (k == stride)
			all.n++;
	}
	fclose(f);
	struct starpu_perfmodel_regression_model *r = &im->pa.regression;
	if (r->coeff && r->ncoeff == model->ncombinations + 1 && pm_mlr_fit(model, &all, r->coeff) == 0)
		r->multi_valid = 1;
	free(all.v);
}

/* Whether any part of the state carries samples not yet saved. */
int pm_state_save(struct starpu_perfmodel_state *st)
{
	struct starpu_perfmodel *model = st->model;
	if (!model->symbol || st->file_bad || !pm_type_is_learnt(model->type))
		return 0;
	char dir[4096], path[4096], err[1024];
	pm_codelets_dir(dir, sizeof(dir));
	if (pm_model_path(model->symbol, path, sizeof(path)))
		return -ENAMETOOLONG;
	int ret = pm_mkdir_p(dir);
	if (ret)
	{
		if (!save_failure_reported)
			rt_error("perfmodel: cannot create the model directory %s (%s): calibration results of this run are not saved",
				 dir, strerror(-ret));
		save_failure_reported = 1;
		return ret;
	}
	int lockfd = pm_dir_lock(dir);
	if (lockfd < 0)
	{
		if (!save_failure_reported)
			rt_error("perfmodel: cannot lock the model directory %s (%s): calibration results of this run are not saved",
				 dir, strerror(-lockfd));
		save_failure_reported = 1;
		return lockfd;
	}

	/* Once per session, under the lock: what killed writers left. */
	if (!stale_tmp_removed)
	{
		pm_remove_stale_tmp(dir, 0);
		stale_tmp_removed = 1;
	}

	struct pm_data out, disk;
	pm_data_init(&out);
	pm_data_init(&disk);
	os_rwlock_wrlock(&st->lock);
	if (!st->reset)
	{
		ret = pm_file_load(path, &disk, err, sizeof(err));
		if (ret == -ENOENT)
			ret = 0;
		else if (ret)
		{
			report_once(st, "performance model '%s' not saved: the file on disk is not readable any more: %s", model->symbol, err);
			goto out;
		}
		if ((ret = pm_data_merge(&out, &disk, 1, 0)) && ret != -ENOSPC)
			goto out;
	}
	/* Our samples: everything if the file is being replaced (reset: the
	 * state started empty, so all of it is new), else the deltas. */
	for (unsigned c = 0; c < st->data.ncombs; c++)
	{
		struct pm_comb *sc = st->data.combs[c];
		if (!sc)
			continue;
		struct pm_comb *dc = pm_data_comb(&out, (int) c);
		if (!dc || (ret = pm_comb_merge(model, dc, sc, 1)))
		{
			ret = ret ? ret : -ENOMEM;
			goto out;
		}
	}
	/* Refits; multiple-regression rows go to their own files. */
	for (unsigned c = 0; c < out.ncombs; c++)
	{
		struct pm_comb *comb = out.combs[c];
		if (!comb)
			continue;
		for (unsigned i = 0; i < comb->nimpls; i++)
		{
			mlr_save_rows(model, comb, i, &comb->impl[i]);
			pm_impl_refresh(model, &comb->impl[i], comb->impl[i].touched);
		}
	}
	ret = pm_file_save_atomic(path, &out, model, err, sizeof(err));
	if (ret)
	{
		if (!save_failure_reported)
			rt_error("perfmodel: %s: calibration results of this run are not saved", err);
		save_failure_reported = 1;
		goto out;
	}
	pm_data_clear_deltas(&st->data);
	st->dirty = 0;
	st->reset = 0;
out:
	os_rwlock_unlock(&st->lock);
	pm_dir_unlock(lockfd);
	pm_data_free(&out);
	pm_data_free(&disk);
	return ret;
}

void pm_save_all(void)
{
	os_mutex_lock(&pm_registry_lock);
	for (struct starpu_perfmodel_state *st = registry; st; st = st->next)
		if (st->dirty)
			pm_state_save(st);
	os_mutex_unlock(&pm_registry_lock);
}

void pm_unload_all(void)
{
	os_mutex_lock(&pm_registry_lock);
	struct starpu_perfmodel_state *st = registry;
	registry = NULL;
	while (st)
	{
		struct starpu_perfmodel_state *next = st->next;
		struct starpu_perfmodel *model = st->model;
		__atomic_store_n(&model->state, NULL, __ATOMIC_RELEASE);
		model->is_loaded = 0;
		model->is_init = 0;
		state_free(st);
		st = next;
	}
	save_failure_reported = 0;
	os_mutex_unlock(&pm_registry_lock);
}

/* ------------------------------------------------------------------ */
/* Runtime hooks. */

int pm_init(void)
{
	int ret = pm_settings_load(1, rt.conf.calibrate);
	if (ret)
		return ret;
	pm_workers_archs_setup();
	save_failure_reported = 0;
	stale_tmp_removed = 0;
	return pm_bus_setup(rt.conf.bus_calibrate > 0);
}

void pm_shutdown(void)
{
	pm_save_all();
	pm_unload_all();
}

/* ------------------------------------------------------------------ */
/* Public API: setup and per-arch access. */

void starpu_perfmodel_init(struct starpu_perfmodel *model)
{
	if (!model)
		return;
	pm_state_get(model);
}

void starpu_perfmodel_initialize(void)
{
	pm_settings_load(0, -1);
}

void starpu_perfmodel_free_sampling(void)
{
	if (!rt_is_up())
		pm_unload_all();
}

/* Loads a file for a tool: the state is not registered (never saved). */
static int load_for_tool(const char *path, const char *symbol, struct starpu_perfmodel *model)
{
	char err[1024];
	struct pm_data file;
	int ret = pm_file_load(path, &file, err, sizeof(err));
	if (ret == -ENOENT || ret == -ENOTDIR)
		return 1;
	if (ret)
	{
		rt_error("%s", err);
		return ret;
	}
	struct starpu_perfmodel_state *st = state_new(model);
	if (!st)
	{
		pm_data_free(&file);
		return -ENOMEM;
	}
	if (!model->symbol)
	{
		/* Ours: freed (and the field cleared) by unload_model. */
		st->owned_symbol = strdup(symbol);
		model->symbol = st->owned_symbol;
	}
	if (model->type == STARPU_PERFMODEL_INVALID)
		model->type = STARPU_HISTORY_BASED;
	st->registered = 0;
	pm_data_merge(&st->data, &file, 1, 0);
	pm_data_free(&file);
	pm_data_refresh(NULL, &st->data);
	model->is_loaded = 1;
	model->is_init = 1;
	__atomic_store_n(&model->state, st, __ATOMIC_RELEASE);
	return 0;
}

int starpu_perfmodel_load_file(const char *filename, struct starpu_perfmodel *model)
{
	if (!filename || !model)
	{
		rt_error("starpu_perfmodel_load_file: filename or model is NULL (-EINVAL)");
		return -EINVAL;
	}
	pm_settings_load(0, -1);
	const char *base = strrchr(filename, '/');
	base = base ? base + 1 : filename;
	int ret = load_for_tool(filename, base, model);
	if (ret == 1)
		rt_error("starpu_perfmodel_load_file: %s does not exist", filename);
	return ret;
}

int starpu_perfmodel_load_symbol(const char *symbol, struct starpu_perfmodel *model)
{
	if (!symbol || !model)
	{
		rt_error("starpu_perfmodel_load_symbol: symbol or model is NULL (-EINVAL)");
		return -EINVAL;
	}
	pm_settings_load(0, -1);
	if (!pm_symbol_valid(symbol))
	{
		rt_error("starpu_perfmodel_load_symbol: '%s' is not a valid model symbol", symbol);
		return -EINVAL;
	}
	char path[4096];
	if (pm_model_path(symbol, path, sizeof(path)))
		return -ENAMETOOLONG;
	int ret = load_for_tool(path, symbol, model);
	if (ret == 1)
	{
		/* As StarPU: "symbol.host" may be given whole. */
		char dir[4096];
		pm_codelets_dir(dir, sizeof(dir));
		if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, symbol) < sizeof(path))
			ret = load_for_tool(path, symbol, model);
	}
	return ret;
}

int starpu_perfmodel_unload_model(struct starpu_perfmodel *model)
{
	if (!model)
		return -EINVAL;
	struct starpu_perfmodel_state *st = model->state;
	if (!st)
		return 0;
	if (st->registered)
	{
		/* The runtime's: it is saved and freed at shutdown. */
		return 0;
	}
	model->state = NULL;
	model->is_loaded = 0;
	model->is_init = 0;
	if (st->owned_symbol && model->symbol == st->owned_symbol)
		model->symbol = NULL;
	free(st->owned_symbol);
	state_free(st);
	return 0;
}

void starpu_perfmodel_get_model_path(const char *symbol, char *path, size_t maxlen)
{
	pm_settings_load(0, -1);
	if (pm_model_path(symbol, path, maxlen) && maxlen)
		path[0] = '\0';
}

struct starpu_perfmodel_per_arch *starpu_perfmodel_get_model_per_arch(struct starpu_perfmodel *model, struct starpu_perfmodel_arch *arch, unsigned impl)
{
	if (!model || !arch || impl >= STARPU_MAXIMPLEMENTATIONS)
		return NULL;
	int comb = pm_arch_comb(arch);
	struct starpu_perfmodel_state *st = comb < 0 ? NULL : pm_state_get(model);
	if (!st)
		return NULL;
	atomic_store_explicit(&st->pa_given, 1, memory_order_relaxed);
	os_rwlock_wrlock(&st->lock);
	struct pm_impl *im = pm_state_impl(st, comb, impl);
	os_rwlock_unlock(&st->lock);
	return im ? &im->pa : NULL;
}

/* Reads (type, devid, ncores) triples up to -1 into an arch's comb. */
static int devices_comb(va_list ap)
{
	struct starpu_perfmodel_device devs[PM_MAX_DEVICES];
	int n = 0;
	for (;;)
	{
		int type = va_arg(ap, int);
		if (type == -1)
			break;
		if (n == PM_MAX_DEVICES)
			return -EINVAL;
		devs[n].type = (enum starpu_worker_archtype) type;
		devs[n].devid = va_arg(ap, int);
		devs[n].ncores = va_arg(ap, int);
		n++;
	}
	return n ? pm_comb_add(n, devs) : -EINVAL;
}

struct starpu_perfmodel_per_arch *starpu_perfmodel_get_model_per_devices(struct starpu_perfmodel *model, int impl, ...)
{
	va_list ap;
	va_start(ap, impl);
	int comb = devices_comb(ap);
	va_end(ap);
	if (comb < 0 || impl < 0)
		return NULL;
	return starpu_perfmodel_get_model_per_arch(model, (struct starpu_perfmodel_arch *) pm_comb_arch(comb), (unsigned) impl);
}

int starpu_perfmodel_set_per_devices_cost_function(struct starpu_perfmodel *model, int impl, starpu_perfmodel_per_arch_cost_function func, ...)
{
	va_list ap;
	va_start(ap, func);
	int comb = devices_comb(ap);
	va_end(ap);
	struct starpu_perfmodel_per_arch *pa = comb < 0 || impl < 0 ? NULL :
		starpu_perfmodel_get_model_per_arch(model, (struct starpu_perfmodel_arch *) pm_comb_arch(comb), (unsigned) impl);
	if (!pa)
	{
		rt_error("starpu_perfmodel_set_per_devices_cost_function: invalid devices or implementation %d (-EINVAL)", impl);
		return -EINVAL;
	}
	pa->cost_function = func;
	return 0;
}

int starpu_perfmodel_set_per_devices_size_base(struct starpu_perfmodel *model, int impl, starpu_perfmodel_per_arch_size_base func, ...)
{
	va_list ap;
	va_start(ap, func);
	int comb = devices_comb(ap);
	va_end(ap);
	struct starpu_perfmodel_per_arch *pa = comb < 0 || impl < 0 ? NULL :
		starpu_perfmodel_get_model_per_arch(model, (struct starpu_perfmodel_arch *) pm_comb_arch(comb), (unsigned) impl);
	if (!pa)
	{
		rt_error("starpu_perfmodel_set_per_devices_size_base: invalid devices or implementation %d (-EINVAL)", impl);
		return -EINVAL;
	}
	pa->size_base = func;
	return 0;
}

void starpu_perfmodel_debugfilepath(struct starpu_perfmodel *model, struct starpu_perfmodel_arch *arch, char *path, size_t maxlen, unsigned nimpl)
{
	/* Vela keeps no per-arch debug traces. */
	(void) model;
	(void) arch;
	(void) nimpl;
	if (maxlen)
		path[0] = '\0';
}
