/* glpk_dl.c — loading GLPK on first use (glpk_dl.h says why). */
#include "core/rt.h"
#include "os/os.h"

#include <starpu.h>

#ifdef STARPU_HAVE_GLPK_H
#include "perfmodel/glpk_dl.h"

#include <dlfcn.h>
#include <errno.h>

#ifndef VELA_GLPK_SONAME
#define VELA_GLPK_SONAME "libglpk.so"
#endif

struct glpk_api glpk_api;

static os_mutex_t glpk_mutex = OS_MUTEX_INITIALIZER;	/* a leaf: guards the load */
static int glpk_state;		/* 0: not tried, 1: loaded, -1: failed */

int glpk_load(const char *fn)
{
	os_mutex_lock(&glpk_mutex);
	if (glpk_state == 0)
	{
		glpk_state = -1;
		void *h = dlopen(VELA_GLPK_SONAME, RTLD_LAZY | RTLD_LOCAL);
		const char *missing = NULL;
		if (h)
		{
#define GLPK_SYM(f) \
			if (!missing && !(*(void **) &glpk_api.f = dlsym(h, "glp_" #f))) \
				missing = "glp_" #f;
			GLPK_SYM(add_cols)
			GLPK_SYM(add_rows)
			GLPK_SYM(create_prob)
			GLPK_SYM(delete_prob)
			GLPK_SYM(get_obj_val)
			GLPK_SYM(get_status)
			GLPK_SYM(init_iocp)
			GLPK_SYM(init_smcp)
			GLPK_SYM(intopt)
			GLPK_SYM(load_matrix)
			GLPK_SYM(mip_obj_val)
			GLPK_SYM(mip_status)
			GLPK_SYM(set_col_bnds)
			GLPK_SYM(set_col_kind)
			GLPK_SYM(set_col_name)
			GLPK_SYM(set_obj_coef)
			GLPK_SYM(set_obj_dir)
			GLPK_SYM(set_prob_name)
			GLPK_SYM(set_row_bnds)
			GLPK_SYM(set_row_name)
			GLPK_SYM(simplex)
			GLPK_SYM(term_out)
			GLPK_SYM(write_lp)
			GLPK_SYM(write_mps)
#undef GLPK_SYM
			if (!missing)
				glpk_state = 1;
			else
			{
				rt_error("%s: %s has no %s: no bound", fn, VELA_GLPK_SONAME, missing);
				dlclose(h);
			}
		}
		else
		{
			const char *why = dlerror();
			rt_error("%s: GLPK (%s) cannot be loaded: %s: no bound", fn, VELA_GLPK_SONAME, why ? why : "?");
		}
	}
	int ret = glpk_state == 1 ? 0 : -ENOSYS;
	os_mutex_unlock(&glpk_mutex);
	return ret;
}
#endif /* STARPU_HAVE_GLPK_H */
