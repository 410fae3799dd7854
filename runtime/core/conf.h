/* conf.h — resolving the runtime configuration (conf.c) and the machine
 * topology (topology.c). */
#ifndef VELA_CONF_H
#define VELA_CONF_H

#include <starpu.h>

/* starpu_conf_init's mark in conf.magic. */
#define CONF_MAGIC 42

/* Copies user (or defaults when NULL) into out and applies the environment.
 * Returns 0, or -EINVAL after printing which variable or field is wrong. */
int conf_resolve(struct starpu_conf *out, const struct starpu_conf *user);
/* Parses a STARPU_WORKERS_CPUID-style list. */
int conf_parse_cpuid_list(const char *var, const char *s, unsigned *ids, unsigned max_ids, unsigned *nids);
/* A boolean environment variable: *value 1 when set to a positive
 * integer, 0 when unset, empty or 0; -EINVAL (message naming it) when it
 * is not an integer. */
int conf_env_flag(const char *var, int *value);
/* STARPU_WORKERS_NOBIND is set. */
int conf_nobind(void);

/* Topology (hwloc). Loaded once per process and kept across init cycles. */
int topo_load(void);
unsigned topo_ncores(void);
unsigned topo_npus(void);
/* hwloc logical index of the first PU of core i. */
int topo_core_first_pu(unsigned core);
/* The PU object with this logical index, or NULL. */
void *topo_pu_obj(int logical_pu);
/* Binds the calling thread to the PU; 0 or a negative errno. */
int topo_bind_self(int logical_pu);
/* At starpu_init: getbind (STARPU_WORKERS_GETBIND) restricts the workers'
 * cores to the calling thread's CPU binding (topology.c's opening comment);
 * 0: every core. Then the cores workers may use, their PUs, and the first
 * PU of the i-th of those cores (modulo their number). */
int topo_binding_update(int getbind);
unsigned topo_avail_ncores(void);
/* How many of the machine's PUs the calling thread's binding allows; 0
 * when unknown (or in a simulation). */
unsigned topo_self_npus(void);
unsigned topo_avail_npus(void);
int topo_avail_core_first_pu(unsigned i);
/* The calling thread's binding (NULL if unknown), to give it back later
 * (restore frees it; NULL: nothing). */
void *topo_binding_save(void);
void topo_binding_restore(void *saved);
void *topo_hwloc(void);

#endif /* VELA_CONF_H */
