/* cuda_libs.c — cuBLAS and cuSPARSE, loaded when the application first
 * asks for them (starpu_cublas_init, starpu_cusparse_init, their error
 * reports), not when libvela is.
 *
 * libvela links only the CUDA runtime. Linked, cuBLAS (with cuBLASLt) and
 * cuSPARSE cost every process that loads libvela a tenth of a second and
 * about 250 MB before main, CPU-only and simulated runs included, while
 * libvela itself calls four functions of each. An application that calls
 * cuBLAS itself links it (as with StarPU, whose pkg-config file keeps these
 * libraries private); dlopen then finds the copy already loaded.
 */
#include "drivers/cuda/cuda.h"
#include "core/rt.h"
#include "os/os.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#define STR_(x) #x
#define STR(x) STR_(x)

struct cuda_lib
{
	const char *name;		/* "cuBLAS" */
	const char *soname;		/* "libcublas.so.13" */
	const char *const *symbols;
	void **fns;			/* resolved, same order as symbols */
	os_mutex_t lock;
	int state;			/* 0 not tried, 1 loaded, -1 failed */
};

static const char *const cublas_symbols[] = {
	"cublasCreate_v2", "cublasSetStream_v2", "cublasDestroy_v2", "cublasGetStatusString", NULL,
};
static const char *const cusparse_symbols[] = {
	"cusparseCreate", "cusparseSetStream", "cusparseDestroy", "cusparseGetErrorString", NULL,
};

struct cuda_cublas_fns cuda_cublas;
struct cuda_cusparse_fns cuda_cusparse;

static struct cuda_lib libs[] = {
	{ "cuBLAS", "libcublas.so." STR(CUBLAS_VER_MAJOR), cublas_symbols, (void **) &cuda_cublas,
	  OS_MUTEX_INITIALIZER, 0 },
	{ "cuSPARSE", "libcusparse.so." STR(CUSPARSE_VER_MAJOR), cusparse_symbols, (void **) &cuda_cusparse,
	  OS_MUTEX_INITIALIZER, 0 },
};

/* The library's handle: the loaded copy, the one of the toolkit libvela was
 * built with, or any on the search path. */
static void *open_lib(const struct cuda_lib *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
	if (h)
		return h;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", VELA_CUDA_LIBDIR, l->soname);
	if ((h = dlopen(path, RTLD_NOW | RTLD_GLOBAL)))
		return h;
	return dlopen(l->soname, RTLD_NOW | RTLD_GLOBAL);
}

static int load(struct cuda_lib *l, const char *fn)
{
	os_mutex_lock(&l->lock);
	if (!l->state)
	{
		void *h = open_lib(l);
		const char *why = h ? NULL : dlerror();
		for (unsigned i = 0; h && l->symbols[i]; i++)
			if (!(l->fns[i] = dlsym(h, l->symbols[i])))
				why = dlerror();
		if (why)
			rt_error("%s: %s (%s) cannot be loaded: %s (-ENODEV)", fn, l->name, l->soname, why);
		l->state = why ? -1 : 1;
	}
	int ok = l->state > 0;
	os_mutex_unlock(&l->lock);
	return ok ? 0 : -ENODEV;
}

int cuda_cublas_load(const char *fn)
{
	return load(&libs[0], fn);
}

int cuda_cusparse_load(const char *fn)
{
	return load(&libs[1], fn);
}
