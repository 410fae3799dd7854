/* Calibrates a fork-join parallel task under pheft, so that StarPU writes
 * a model with a second comb (2 cores); built against Debian StarPU. */
#include <starpu.h>
#include <stdio.h>
static void k0(void *b[], void *a) { (void)a; unsigned n = STARPU_VECTOR_GET_NX(b[0]); double *x = (double*)STARPU_VECTOR_GET_PTR(b[0]); for (unsigned r=0;r<20;r++) for (unsigned i=0;i<n;i++) x[i] = x[i]*1.0001+1; }
static struct starpu_perfmodel mh = { .type = STARPU_HISTORY_BASED, .symbol = "probe_par" };
static struct starpu_codelet clh = { .cpu_funcs = {k0}, .nbuffers = 1, .modes = {STARPU_RW}, .model = &mh, .type = STARPU_FORKJOIN, .max_parallelism = 2 };
int main(void)
{
	if (starpu_init(NULL)) return 1;
	static double A[1<<20];
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, 0, (uintptr_t)A, 4000, 8);
	for (int r = 0; r < 40; r++) {
		struct starpu_task *t = starpu_task_create();
		t->cl = &clh; t->handles[0] = h; starpu_task_submit(t);
	}
	starpu_task_wait_for_all();
	char name[64];
	for (int w = 0; w < (int)starpu_worker_get_count(); w++) {
		struct starpu_perfmodel_arch *a = starpu_worker_get_perf_archtype(w, 0);
		starpu_perfmodel_get_arch_name(a, name, sizeof(name), 0);
		printf("worker %d arch ndev=%d type=%d devid=%d ncores=%d name=%s comb=%d\n", w, a->ndevices, a->devices[0].type, a->devices[0].devid, a->devices[0].ncores, name, starpu_perfmodel_arch_comb_get(a->ndevices, a->devices));
	}
	printf("ncombs %d combined workers %u\n", starpu_perfmodel_get_narch_combs(), starpu_combined_worker_get_count());
	starpu_data_unregister(h);
	starpu_shutdown();
	return 0;
}
