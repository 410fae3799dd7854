/* conf.c — starpu_conf: defaults, and merging the environment into the
 * application's configuration.
 *
 * As in StarPU, an environment variable overrides the matching conf field
 * unless conf.precedence_over_environment_variables is set, in which case a
 * field the application set wins. Malformed values are errors (starpu_init
 * returns -EINVAL and the message names the variable), not silent defaults.
 */
#include "core/conf.h"
#include "core/rt.h"
#include "sched/sched.h"

#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parses a non-negative decimal integer; 0 on success. */
static int parse_uint(const char *s, long max, long *out)
{
	while (isspace((unsigned char) *s))
		s++;
	if (!isdigit((unsigned char) *s))
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	while (isspace((unsigned char) *end))
		end++;
	if (errno || *end || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

int starpu_conf_init(struct starpu_conf *conf)
{
	if (!conf)
	{
		rt_error("starpu_conf_init: conf is NULL");
		return -EINVAL;
	}
	memset(conf, 0, sizeof(*conf));
	conf->magic = CONF_MAGIC;
	conf->will_use_mpi = 0;
	conf->sched_policy_name = NULL;
	conf->sched_policy = NULL;
	conf->precedence_over_environment_variables = 0;
	conf->ncpus = -1;
	conf->reserve_ncpus = -1;
	conf->ncuda = -1;
	conf->nopencl = -1;
	conf->nmic = -1;
	conf->nmpi_ms = -1;
	conf->bus_calibrate = -1;
	conf->calibrate = -1;
	conf->single_combined_worker = -1;
	conf->disable_asynchronous_copy = -1;
	conf->disable_asynchronous_cuda_copy = -1;
	conf->disable_asynchronous_opencl_copy = -1;
	conf->disable_asynchronous_mic_copy = -1;
	conf->disable_asynchronous_mpi_ms_copy = -1;
	conf->trace_buffer_size = 0;
	conf->global_sched_ctx_min_priority = -1;
	conf->global_sched_ctx_max_priority = -1;
	conf->catch_signals = -1;
	conf->driver_spinning_backoff_min = 1;
	conf->driver_spinning_backoff_max = 32;
	conf->vela_trace = -1;
	conf->vela_trace_prefix = NULL;
	conf->vela_simulate = -1;
	/* As in StarPU, the defaults already reflect the environment (a
	 * malformed value is reported again, as an error, by starpu_init). */
	conf->sched_policy_name = getenv("STARPU_SCHED");
	const char *ncpu = getenv("STARPU_NCPU");
	if (!ncpu)
		ncpu = getenv("STARPU_NCPUS");
	long v;
	if (ncpu && parse_uint(ncpu, STARPU_MAXCPUS, &v) == 0)
		conf->ncpus = (int) v;
	return 0;
}

/* Integer variable into *field: env wins unless the application asked for
 * precedence and set the field (not -1). */
static int env_int(const char *var, int *field, int precedence, long max)
{
	const char *s = getenv(var);
	if (!s)
		return 0;
	if (precedence && *field != -1)
		return 0;
	long v;
	if (parse_uint(s, max, &v))
	{
		rt_error("starpu_init: environment variable %s='%s' must be an integer between 0 and %ld", var, s, max);
		return -EINVAL;
	}
	*field = (int) v;
	return 0;
}

int conf_env_flag(const char *var, int *value)
{
	const char *s = getenv(var);
	*value = 0;
	if (!s || !*s)
		return 0;
	long v;
	if (parse_uint(s, INT_MAX, &v))
	{
		rt_error("starpu_init: environment variable %s='%s' must be 0 or 1 (-EINVAL)", var, s);
		return -EINVAL;
	}
	*value = v > 0;
	return 0;
}

int conf_parse_cpuid_list(const char *var, const char *s, unsigned *ids, unsigned max_ids, unsigned *nids)
{
	/* Accepts "0 2 4", "0,2,4" and ranges "0-3". */
	unsigned n = 0;
	const char *p = s;
	while (*p)
	{
		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (!isdigit((unsigned char) *p))
			goto bad;
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (*end == '-')
		{
			p = end + 1;
			if (!isdigit((unsigned char) *p))
				goto bad;
			b = strtol(p, &end, 10);
			if (b < a)
				goto bad;
		}
		if (*end && *end != ' ' && *end != ',' && *end != '\t')
			goto bad;
		for (long v = a; v <= b; v++)
		{
			if (n == max_ids)
			{
				rt_error("starpu_init: %s='%s' lists more than %u entries (-EINVAL)", var, s, max_ids);
				return -EINVAL;
			}
			if (v > 1000000)
				goto bad;
			ids[n++] = (unsigned) v;
		}
		p = end;
	}
	if (n == 0)
		goto bad;
	*nids = n;
	return 0;
bad:
	rt_error("starpu_init: %s='%s' is not a list of %s numbers (e.g. \"0 1 2\" or \"0-3\") (-EINVAL)", var, s,
		 strstr(var, "OPENCL") || strstr(var, "CUDA") ? "device" : "processing unit");
	return -EINVAL;
}

int conf_resolve(struct starpu_conf *out, const struct starpu_conf *user)
{
	if (user)
	{
		if (user->magic != CONF_MAGIC)
		{
			rt_error("starpu_init: conf was not initialised with starpu_conf_init (magic %d)", user->magic);
			return -EINVAL;
		}
		*out = *user;
	}
	else
		starpu_conf_init(out);

	int prec = out->precedence_over_environment_variables;
	int ret = 0;

	const char *silent = getenv("STARPU_SILENT");
	rt.silent = silent && *silent && strcmp(silent, "0") != 0;

	/* STARPU_NCPUS is the older spelling; STARPU_NCPU wins when both are set. */
	ret |= env_int("STARPU_NCPUS", &out->ncpus, prec, STARPU_MAXCPUS);
	ret |= env_int("STARPU_NCPU", &out->ncpus, prec, STARPU_MAXCPUS);
	ret |= env_int("STARPU_RESERVE_NCPU", &out->reserve_ncpus, prec, STARPU_MAXCPUS);
	/* Devices (workers.c; real ones: drivers/<kind>/). */
	ret |= env_int("STARPU_NCUDA", &out->ncuda, prec, STARPU_MAXCUDADEVS);
	ret |= env_int("STARPU_NOPENCL", &out->nopencl, prec, STARPU_MAXOPENCLDEVS);
	/* More slaves than built for are capped with a warning (drivers/mp/). */
	ret |= env_int("STARPU_NMPI_MS", &out->nmpi_ms, prec, STARPU_MAXNODES);
	ret |= env_int("STARPU_DISABLE_ASYNCHRONOUS_COPY", &out->disable_asynchronous_copy, prec, INT_MAX);
	ret |= env_int("STARPU_DISABLE_ASYNCHRONOUS_CUDA_COPY", &out->disable_asynchronous_cuda_copy, prec, INT_MAX);
	ret |= env_int("STARPU_DISABLE_ASYNCHRONOUS_OPENCL_COPY", &out->disable_asynchronous_opencl_copy, prec, INT_MAX);
	ret |= env_int("STARPU_DISABLE_ASYNCHRONOUS_MPI_MS_COPY", &out->disable_asynchronous_mpi_ms_copy, prec, INT_MAX);
	ret |= env_int("STARPU_CALIBRATE", &out->calibrate, prec, 2);
	ret |= env_int("STARPU_BUS_CALIBRATE", &out->bus_calibrate, prec, 1);
	/* Trace recording: STARPU_FXT_TRACE is StarPU's name, STARPU_TRACE a
	 * shorter one; either set to 1 records a trace (trace/record.c). */
	ret |= env_int("STARPU_TRACE", &out->vela_trace, prec, 1);
	ret |= env_int("STARPU_FXT_TRACE", &out->vela_trace, prec, 1);
	/* Submission throttling (core/task.c): the minimum defaults to the
	 * maximum when only the maximum is set. */
	rt.limit_max_submitted = rt.limit_min_submitted = -1;
	ret |= env_int("STARPU_LIMIT_MAX_SUBMITTED_TASKS", &rt.limit_max_submitted, 0, INT_MAX);
	ret |= env_int("STARPU_LIMIT_MIN_SUBMITTED_TASKS", &rt.limit_min_submitted, 0, INT_MAX);
	if (ret)
		return -EINVAL;
	if (rt.limit_min_submitted > rt.limit_max_submitted && rt.limit_max_submitted >= 0)
	{
		rt_error("starpu_init: STARPU_LIMIT_MIN_SUBMITTED_TASKS=%d exceeds STARPU_LIMIT_MAX_SUBMITTED_TASKS=%d (-EINVAL)",
			 rt.limit_min_submitted, rt.limit_max_submitted);
		return -EINVAL;
	}
	if (rt.limit_max_submitted < 0 && rt.limit_min_submitted >= 0)
		rt_warn("starpu_init: STARPU_LIMIT_MIN_SUBMITTED_TASKS=%d has no effect without "
			"STARPU_LIMIT_MAX_SUBMITTED_TASKS", rt.limit_min_submitted);
	if (rt.limit_max_submitted >= 0 && rt.limit_min_submitted < 0)
		rt.limit_min_submitted = rt.limit_max_submitted;
	const char *prefix = getenv("STARPU_FXT_PREFIX");
	if (prefix && *prefix && !(prec && out->vela_trace_prefix))
		out->vela_trace_prefix = prefix;

	if (out->ncpus < -1)
	{
		rt_error("starpu_init: conf.ncpus=%d is negative", out->ncpus);
		return -EINVAL;
	}
	if (out->ncpus > STARPU_MAXCPUS)
	{
		rt_error("starpu_init: conf.ncpus=%d exceeds STARPU_MAXCPUS (%d)", out->ncpus, STARPU_MAXCPUS);
		return -EINVAL;
	}
	if (out->ncuda < -1 || out->ncuda > STARPU_MAXCUDADEVS)
	{
		rt_error("starpu_init: conf.ncuda=%d must be -1 (all) or between 0 and STARPU_MAXCUDADEVS (%d) (-EINVAL)",
			 out->ncuda, STARPU_MAXCUDADEVS);
		return -EINVAL;
	}
	if (out->nopencl < -1 || out->nopencl > STARPU_MAXOPENCLDEVS)
	{
		rt_error("starpu_init: conf.nopencl=%d must be -1 (all) or between 0 and STARPU_MAXOPENCLDEVS (%d) (-EINVAL)",
			 out->nopencl, STARPU_MAXOPENCLDEVS);
		return -EINVAL;
	}

	const char *sched = getenv("STARPU_SCHED");
	if (sched && *sched && !(prec && (out->sched_policy_name || out->sched_policy)))
	{
		out->sched_policy_name = sched;
		out->sched_policy = NULL;
	}
	/* An unknown policy is refused, like any malformed value: StarPU 1.3
	 * warns and runs with its default, which silently turns a typo into
	 * a run under another policy. "help" lists them and goes on. The
	 * message names the variable when the name is its value
	 * (starpu_conf_init copies it into the conf too). */
	const char *pname = out->sched_policy_name;
	int sched_from_env = sched && pname && !strcmp(sched, pname);
	if (!out->sched_policy && pname && *pname && strcmp(pname, "help") && !sched_find_policy(pname))
	{
		char names[512];
		sched_policy_names(names, sizeof(names));
		rt_error("starpu_init: %s='%s' is not a scheduling policy; valid policies: %s (-EINVAL)",
			 sched_from_env ? "environment variable STARPU_SCHED" : "conf.sched_policy_name", pname, names);
		return -EINVAL;
	}

	const char *cpuid = getenv("STARPU_WORKERS_CPUID");
	if (cpuid && !(prec && out->use_explicit_workers_bindid))
	{
		unsigned n;
		if (conf_parse_cpuid_list("STARPU_WORKERS_CPUID", cpuid, out->workers_bindid, STARPU_NMAXWORKERS, &n))
			return -EINVAL;
		out->use_explicit_workers_bindid = n;
	}

	/* Which devices of each kind to drive, by device number. */
	const char *oclid = getenv("STARPU_WORKERS_OPENCLID");
	if (oclid && !(prec && out->use_explicit_workers_opencl_gpuid))
	{
		unsigned n;
		if (conf_parse_cpuid_list("STARPU_WORKERS_OPENCLID", oclid, out->workers_opencl_gpuid, STARPU_MAXOPENCLDEVS, &n))
			return -EINVAL;
		out->use_explicit_workers_opencl_gpuid = n;
	}
	const char *cudaid = getenv("STARPU_WORKERS_CUDAID");
	if (cudaid && !(prec && out->use_explicit_workers_cuda_gpuid))
	{
		unsigned n;
		if (conf_parse_cpuid_list("STARPU_WORKERS_CUDAID", cudaid, out->workers_cuda_gpuid, STARPU_MAXCUDADEVS, &n))
			return -EINVAL;
		out->use_explicit_workers_cuda_gpuid = n;
	}

	const char *minp = getenv("STARPU_MIN_PRIO"), *maxp = getenv("STARPU_MAX_PRIO");
	if (minp || maxp)
	{
		char *end;
		if (minp)
		{
			long v = strtol(minp, &end, 10);
			if (end == minp || *end)
			{
				rt_error("starpu_init: STARPU_MIN_PRIO='%s' is not an integer", minp);
				return -EINVAL;
			}
			out->global_sched_ctx_min_priority = (int) v;
		}
		if (maxp)
		{
			long v = strtol(maxp, &end, 10);
			if (end == maxp || *end)
			{
				rt_error("starpu_init: STARPU_MAX_PRIO='%s' is not an integer", maxp);
				return -EINVAL;
			}
			out->global_sched_ctx_max_priority = (int) v;
		}
	}

	if (out->n_not_launched_drivers && !out->not_launched_drivers)
	{
		rt_error("starpu_init: conf.n_not_launched_drivers=%u but not_launched_drivers is NULL", out->n_not_launched_drivers);
		return -EINVAL;
	}
	return 0;
}

int conf_nobind(void)
{
	const char *s = getenv("STARPU_WORKERS_NOBIND");
	return s && *s && strcmp(s, "0") != 0;
}
