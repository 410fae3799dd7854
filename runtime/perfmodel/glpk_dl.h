/* glpk_dl.h — GLPK, loaded when starpu_bound first needs it.
 *
 * libvela does not link GLPK: a process that never computes a bound
 * (nearly all) would pay for loading it and its six libraries at start,
 * and every symbol a later dlopen() resolves (the simulation plugin's
 * SimGrid stack, tens of thousands) would search them first: 1.5-2 ms of a
 * simulated run's start-up. glpk_load() opens the library whose soname
 * configure found (VELA_GLPK_SONAME) the first time; bound.c and
 * bound_deps.c call GLPK through the table below, under GLPK's own names
 * (the macros), so their code reads as plain GLPK.
 */
#ifndef VELA_GLPK_DL_H
#define VELA_GLPK_DL_H

#include <glpk.h>

struct glpk_api
{
	__typeof__(glp_add_cols) *add_cols;
	__typeof__(glp_add_rows) *add_rows;
	__typeof__(glp_create_prob) *create_prob;
	__typeof__(glp_delete_prob) *delete_prob;
	__typeof__(glp_get_obj_val) *get_obj_val;
	__typeof__(glp_get_status) *get_status;
	__typeof__(glp_init_iocp) *init_iocp;
	__typeof__(glp_init_smcp) *init_smcp;
	__typeof__(glp_intopt) *intopt;
	__typeof__(glp_load_matrix) *load_matrix;
	__typeof__(glp_mip_obj_val) *mip_obj_val;
	__typeof__(glp_mip_status) *mip_status;
	__typeof__(glp_set_col_bnds) *set_col_bnds;
	__typeof__(glp_set_col_kind) *set_col_kind;
	__typeof__(glp_set_col_name) *set_col_name;
	__typeof__(glp_set_obj_coef) *set_obj_coef;
	__typeof__(glp_set_obj_dir) *set_obj_dir;
	__typeof__(glp_set_prob_name) *set_prob_name;
	__typeof__(glp_set_row_bnds) *set_row_bnds;
	__typeof__(glp_set_row_name) *set_row_name;
	__typeof__(glp_simplex) *simplex;
	__typeof__(glp_term_out) *term_out;
	__typeof__(glp_write_lp) *write_lp;
	__typeof__(glp_write_mps) *write_mps;
};

/* Filled by glpk_load; read only after it returned 0. */
extern struct glpk_api glpk_api;

/* Loads GLPK once per process: 0, or -ENOSYS after an error naming fn
 * (the API call that needed it), the library and dlopen's reason. */
int glpk_load(const char *fn);

#define glp_add_cols (*glpk_api.add_cols)
#define glp_add_rows (*glpk_api.add_rows)
#define glp_create_prob (*glpk_api.create_prob)
#define glp_delete_prob (*glpk_api.delete_prob)
#define glp_get_obj_val (*glpk_api.get_obj_val)
#define glp_get_status (*glpk_api.get_status)
#define glp_init_iocp (*glpk_api.init_iocp)
#define glp_init_smcp (*glpk_api.init_smcp)
#define glp_intopt (*glpk_api.intopt)
#define glp_load_matrix (*glpk_api.load_matrix)
#define glp_mip_obj_val (*glpk_api.mip_obj_val)
#define glp_mip_status (*glpk_api.mip_status)
#define glp_set_col_bnds (*glpk_api.set_col_bnds)
#define glp_set_col_kind (*glpk_api.set_col_kind)
#define glp_set_col_name (*glpk_api.set_col_name)
#define glp_set_obj_coef (*glpk_api.set_obj_coef)
#define glp_set_obj_dir (*glpk_api.set_obj_dir)
#define glp_set_prob_name (*glpk_api.set_prob_name)
#define glp_set_row_bnds (*glpk_api.set_row_bnds)
#define glp_set_row_name (*glpk_api.set_row_name)
#define glp_simplex (*glpk_api.simplex)
#define glp_term_out (*glpk_api.term_out)
#define glp_write_lp (*glpk_api.write_lp)
#define glp_write_mps (*glpk_api.write_mps)

#endif /* VELA_GLPK_DL_H */
