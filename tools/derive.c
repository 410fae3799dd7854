/* derive.c — `vela perfmodel derive`: performance models of the example
 * tile kernels (dense Cholesky and LU: potrf, trsm, syrk, gemm, getrf)
 * for a device one does not have, from its datasheet: a roofline.
 *
 *   time(n) = max(flops(n) / (peak * efficiency),
 *                 bytes(n) / (bandwidth * bandwidth efficiency)) + latency
 *
 * for square n x n tiles of doubles, with the kernels' flop counts and the
 * tiles each reads and writes. The models are history entries at the
 * footprints the examples' tasks have (so a simulated run finds them), and
 * an a*s^b+c fit over the tile sizes for other sizes. Files are labelled
 * "derived, not measured" in a "# Vela:" comment that Vela keeps and that
 * StarPU ignores.
 */
#include "tools/vela.h"
#include "perfmodel/perfmodel.h"

#include <errno.h>
#include <math.h>
#include <starpu.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct kernel
{
	const char *name;
	const char *symbol;
	unsigned nbuffers;		/* matrix tiles the task takes */
	double flops_n3;		/* flops = flops_n3 * n^3 */
	double tiles_moved;		/* tiles read plus tiles written */
};

/* The symbols of examples/cholesky.c, examples/lu.c (its two panel solves
 * have models of their own) and bench/perfmodel_accuracy.c. */
static const struct kernel kernels[] = {
	{ "potrf", "vela_dpotrf", 1, 1.0 / 3.0, 2 },
	{ "trsm", "vela_dtrsm", 2, 1.0, 3 },
	{ "syrk", "vela_dsyrk", 2, 1.0, 3 },
	{ "gemm", "vela_dgemm", 3, 2.0, 4 },
	{ "getrf", "vela_dgetrf", 1, 2.0 / 3.0, 2 },
	{ "trsm_ll", "vela_dtrsm_ll", 2, 1.0, 3 },
	{ "trsm_ru", "vela_dtrsm_ru", 2, 1.0, 3 },
};
#define NKERNELS (sizeof(kernels) / sizeof(kernels[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vela perfmodel derive --peak-gflops F --bandwidth-gbs B [options]\n"
		"Writes roofline performance models of the example tile kernels\n"
		"(potrf, trsm, syrk, gemm, getrf on square tiles of doubles) for a device\n"
		"described by its datasheet, labelled as derived, not measured:\n"
		"  time(n) = max(flops(n) / (F * E), bytes(n) / (B * E_bw)) + latency\n"
		"Required:\n"
		"  --peak-gflops F     double-precision peak of one device (one core for\n"
		"                      --arch cpu), GFlop/s\n"
		"  --bandwidth-gbs B   its memory bandwidth, GB/s\n"
		"Options:\n"
		"  --name TEXT         the device's name, recorded in the file\n"
		"  --source TEXT       where the figures come from, recorded in the file\n"
		"  --efficiency E      fraction of the peak reached (default 0.7)\n"
		"  --bw-efficiency E   fraction of the bandwidth reached (default 0.8)\n"
		"  --latency-us L      fixed cost per task, us (default 5 for devices, 0 for cpu)\n"
		"  --arch cuda|opencl|cpu   device kind (default cuda)\n"
		"  --devices N         write devices 0..N-1 (default 1)\n"
		"  --tiles LIST        tile sizes, comma-separated (default 128,...,2048)\n"
		"  --kernels LIST      among potrf,trsm,syrk,gemm,getrf (default all)\n"
		"  --host NAME         the host name of the files (default: STARPU_HOSTNAME\n"
		"                      or this host's name)\n"
		"  --output-dir DIR    where codelets/45/ is created (default: the model\n"
		"                      directory, $STARPU_PERF_MODEL_DIR or\n"
		"                      $STARPU_HOME/.starpu/sampling); DIR must exist\n"
		"  --dry-run           print the table, write nothing\n"
		"Existing files get the device's entries added (replacing those of the\n"
		"same devices), so CPU and GPU models can be derived into one file.\n");
}

/* Footprint of a task on k square n x n matrix tiles, as the runtime
 * computes it (footprint.c): the matrix interface hashes nx from ny, the
 * handle adds the interface id, the task folds its handles. */
static uint32_t tiles_footprint(unsigned k, unsigned n)
{
	uint32_t handle = starpu_hash_crc32c_be(starpu_hash_crc32c_be(n, n), STARPU_MATRIX_INTERFACE_ID);
	uint32_t fp = 0;
	for (unsigned i = 0; i < k; i++)
		fp = starpu_hash_crc32c_be(handle, fp);
	return fp;
}

static int parse_double(const char *opt, const char *v, double min, double max, double *out)
{
	char *e;
	double x = strtod(v, &e);
	if (e == v || *e || !(x >= min && x <= max))
	{
		vela_err("perfmodel derive", "%s '%s' must be a number between %g and %g", opt, v, min, max);
		return -1;
	}
	*out = x;
	return 0;
}

int vela_perfmodel_derive(int argc, char **argv)
{
	double peak = NAN, bw = NAN, eff = 0.7, bweff = 0.8, latency = NAN, ndev = 1;
	const char *name = "unnamed device", *source = NULL, *archname = "cuda", *tiles = "128,192,256,320,384,512,640,768,960,1024,1536,2048";
	const char *klist = NULL, *host = NULL, *outdir = NULL;
	int dry = 0;
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		if (vela_is_help(a))
		{
			usage(stdout);
			return VELA_EXIT_OK;
		}
		if (!strcmp(a, "--dry-run"))
		{
			dry = 1;
			continue;
		}
		if (i + 1 >= argc || strncmp(a, "--", 2))
		{
			vela_err("perfmodel derive", strncmp(a, "--", 2) ? "unexpected argument '%s'" : "%s needs a value", a);
			return VELA_EXIT_USAGE;
		}
		const char *v = argv[++i];
		int bad = 0;
		if (!strcmp(a, "--peak-gflops"))
			bad = parse_double(a, v, 1e-3, 1e9, &peak);
		else if (!strcmp(a, "--bandwidth-gbs"))
			bad = parse_double(a, v, 1e-3, 1e9, &bw);
		else if (!strcmp(a, "--efficiency"))
			bad = parse_double(a, v, 1e-3, 1, &eff);
		else if (!strcmp(a, "--bw-efficiency"))
			bad = parse_double(a, v, 1e-3, 1, &bweff);
		else if (!strcmp(a, "--latency-us"))
			bad = parse_double(a, v, 0, 1e9, &latency);
		else if (!strcmp(a, "--devices"))
			bad = parse_double(a, v, 1, 64, &ndev);
		else if (!strcmp(a, "--name"))
			name = v;
		else if (!strcmp(a, "--source"))
			source = v;
		else if (!strcmp(a, "--arch"))
			archname = v;
		else if (!strcmp(a, "--tiles"))
			tiles = v;
		else if (!strcmp(a, "--kernels"))
			klist = v;
		else if (!strcmp(a, "--host"))
			host = v;
		else if (!strcmp(a, "--output-dir"))
			outdir = v;
		else
		{
			vela_err("perfmodel derive", "unknown option '%s'", a);
			return VELA_EXIT_USAGE;
		}
		if (bad)
			return VELA_EXIT_USAGE;
	}
	if (isnan(peak) || isnan(bw))
	{
		vela_err("perfmodel derive", "--peak-gflops and --bandwidth-gbs are required");
		usage(stderr);
		return VELA_EXIT_USAGE;
	}
	enum starpu_worker_archtype type;
	if (!strcmp(archname, "cuda"))
		type = STARPU_CUDA_WORKER;
	else if (!strcmp(archname, "opencl"))
		type = STARPU_OPENCL_WORKER;
	else if (!strcmp(archname, "cpu"))
		type = STARPU_CPU_WORKER;
	else
	{
		vela_err("perfmodel derive", "--arch '%s': cuda, opencl or cpu", archname);
		return VELA_EXIT_USAGE;
	}
	if (isnan(latency))
		latency = type == STARPU_CPU_WORKER ? 0.0 : 5.0;
	if (type == STARPU_CPU_WORKER)
		ndev = 1;	/* CPU cores share one arch */

	unsigned sizes[64], nsizes = 0;
	for (const char *p = tiles; *p && nsizes < 64;)
	{
		char *e;
		unsigned long n = strtoul(p, &e, 10);
		if (e == p || n < 1 || n > 65536 || (*e && *e != ','))
		{
			vela_err("perfmodel derive", "--tiles '%s' must list tile sizes between 1 and 65536, comma-separated", tiles);
			return VELA_EXIT_USAGE;
		}
		sizes[nsizes++] = (unsigned) n;
		p = *e ? e + 1 : e;
	}
	int use[NKERNELS];
	for (unsigned k = 0; k < NKERNELS; k++)
		use[k] = klist == NULL;
	if (klist)
	{
		char *copy = strdup(klist), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		{
			unsigned k = 0;
			while (k < NKERNELS && strcmp(kernels[k].name, t))
				k++;
			if (k == NKERNELS)
			{
				vela_err("perfmodel derive", "unknown kernel '%s' (potrf, trsm, syrk, gemm, getrf)", t);
				free(copy);
				return VELA_EXIT_USAGE;
			}
			use[k] = 1;
		}
		free(copy);
	}

	starpu_perfmodel_initialize();
	if (host)
	{
		setenv("STARPU_HOSTNAME", host, 1);
		pm_settings_load(1, 0);
	}
	if (outdir)
	{
		struct stat st;
		if (stat(outdir, &st) || !S_ISDIR(st.st_mode))
		{
			vela_err("perfmodel derive", "output directory '%s' does not exist (create it first)", outdir);
			return VELA_EXIT_FAIL;
		}
		setenv("STARPU_PERF_MODEL_DIR", outdir, 1);
		pm_settings_load(1, 0);
	}

	char note[1024];
	snprintf(note, sizeof(note),
		 "# Vela: DERIVED from datasheet figures, not measured: %s, %s x%d, roofline max(flops / (%.6g GFlop/s x %.2f), bytes / (%.6g GB/s x %.2f)) + %.3g us%s%s\n",
		 name, archname, (int) ndev, peak, eff, bw, bweff, latency, source ? "; source: " : "", source ? source : "");

	printf("# %s", note + 2);
	printf("# kernel  tile  flops          bytes        time (us)  bound\n");
	int status = VELA_EXIT_OK;
	for (unsigned k = 0; k < NKERNELS; k++)
	{
		if (!use[k])
			continue;
		const struct kernel *kn = &kernels[k];
		struct pm_data d;
		pm_data_init(&d);
		char path[4200], err[8400];
		if (pm_model_path(kn->symbol, path, sizeof(path)))
		{
			vela_err("perfmodel derive", "model path too long");
			return VELA_EXIT_FAIL;
		}
		if (!dry)
		{
			int ret = pm_file_load(path, &d, err, sizeof(err));
			if (ret && ret != -ENOENT && ret != -ENOTDIR)
			{
				vela_err("perfmodel derive", "%s; not overwritten", err);
				status = VELA_EXIT_FAIL;
				continue;
			}
		}
		/* Our devices replace theirs. */
		for (int dv = 0; dv < (int) ndev; dv++)
		{
			struct starpu_perfmodel_device dev = { type, type == STARPU_CPU_WORKER ? 0 : dv, 1 };
			unsigned c;
			for (c = 0; c < d.ncombs; c++)
				if (d.combs[c] && d.combs[c]->ndevices == 1 && d.combs[c]->devices[0].type == dev.type &&
				    d.combs[c]->devices[0].devid == dev.devid && d.combs[c]->devices[0].ncores == dev.ncores)
					break;
			if (c < d.ncombs)
			{
				for (unsigned i = 0; i < STARPU_MAXIMPLEMENTATIONS; i++)
					pm_impl_free(&d.combs[c]->impl[i]);
				free(d.combs[c]);
			}
			else if (d.ncombs == PM_MAX_COMBS)
			{
				vela_err("perfmodel derive", "%s has too many combinations", path);
				pm_data_free(&d);
				return VELA_EXIT_FAIL;
			}
			else
				d.ncombs++;
			struct pm_comb *comb = pm_comb_new(1, &dev);
			if (!comb)
			{
				pm_data_free(&d);
				return VELA_EXIT_FAIL;
			}
			d.combs[c] = comb;
			comb->nimpls = 1;
			struct pm_impl *im = &comb->impl[0];
			double x[64], y[64], w[64];
			for (unsigned s = 0; s < nsizes; s++)
			{
				double n = sizes[s];
				double flops = kn->flops_n3 * n * n * n;
				double bytes = kn->tiles_moved * 8.0 * n * n;
				double tc = flops / (peak * 1e9 * eff) * 1e6, tm = bytes / (bw * 1e9 * bweff) * 1e6;
				double t = (tc > tm ? tc : tm) + latency;
				if (dv == 0)
					printf("%-8s %5u  %-13.6e  %-11.0f  %-10.3f %s\n", kn->name, sizes[s], flops, bytes, t, tc > tm ? "compute" : "memory");
				uint32_t fp = tiles_footprint(kn->nbuffers, sizes[s]);
				struct pm_entry *en = pm_history_find(im, fp);
				if (!en)
					en = pm_history_insert(im, fp, 0);
				if (!en)
				{
					pm_data_free(&d);
					return VELA_EXIT_FAIL;
				}
				/* As many samples as calibration asks for: the entry is
				 * "calibrated" for the runtime. */
				unsigned ns = pm_conf.calibrate_minimum ? pm_conf.calibrate_minimum : 10;
				en->e.size = (size_t) kn->nbuffers * 8 * sizes[s] * sizes[s];
				en->e.flops = flops;
				en->e.nsample = ns;
				en->e.sum = ns * t;
				en->e.sum2 = ns * t * t;
				pm_entry_finish(&en->e);
				en->e.deviation = 0.0;
				x[s] = (double) en->e.size;
				y[s] = t;
				w[s] = 1.0 / (t * t);
			}
			double fa, fb, fc;
			if (nsizes >= 3 && pm_fit_power_law(x, y, w, nsizes, &fa, &fb, &fc) == 0)
			{
				im->pa.regression.a = fa;
				im->pa.regression.b = fb;
				im->pa.regression.c = fc;
			}
		}
		if (!dry)
		{
			/* Provenance: ours first, earlier derivations kept. */
			size_t old = d.note ? strlen(d.note) : 0;
			if (!d.note || !strstr(d.note, note))
			{
				char *nn = malloc(strlen(note) + old + 1);
				if (nn)
				{
					strcpy(nn, note);
					if (d.note)
						strcat(nn, d.note);
					free(d.note);
					d.note = nn;
				}
			}
			char dir[4096];
			pm_codelets_dir(dir, sizeof(dir));
			int ret = pm_mkdir_p(dir);
			if (!ret)
				ret = pm_file_save_atomic(path, &d, NULL, err, sizeof(err));
			else
				snprintf(err, sizeof(err), "cannot create %s: %s", dir, strerror(-ret));
			if (ret)
			{
				vela_err("perfmodel derive", "%s", err);
				status = VELA_EXIT_FAIL;
			}
			else
				printf("# wrote %s\n", path);
		}
		pm_data_free(&d);
	}
	return status;
}
