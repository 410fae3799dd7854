/* Calibrates small StarPU 1.3 models of every learnt type (history with two
 * implementations, regression, non-linear, size_base, footprint callback)
 * to obtain the files this directory holds; built against Debian StarPU. */
#include <starpu.h>
#include <stdio.h>
#include <unistd.h>
static void k0(void *b[], void *a) { (void)a; unsigned n = STARPU_VECTOR_GET_NX(b[0]); double *x = (double*)STARPU_VECTOR_GET_PTR(b[0]); for (unsigned r=0;r<20;r++) for (unsigned i=0;i<n;i++) x[i] = x[i]*1.0001+1; }
static void k1(void *b[], void *a) { k0(b,a); k0(b,a); }
static size_t sb(struct starpu_task *t, unsigned nimpl) { (void)nimpl; return 1000 + STARPU_VECTOR_GET_NX(t->interfaces[0]); }
static uint32_t fpf(struct starpu_task *t) { return 42 + STARPU_VECTOR_GET_NX(t->interfaces[0]); }
static struct starpu_perfmodel mh = { .type = STARPU_HISTORY_BASED, .symbol = "probe_hist" };
static struct starpu_perfmodel mr = { .type = STARPU_REGRESSION_BASED, .symbol = "probe_reg" };
static struct starpu_perfmodel mnl = { .type = STARPU_NL_REGRESSION_BASED, .symbol = "probe_nl" };
static struct starpu_perfmodel msb = { .type = STARPU_HISTORY_BASED, .symbol = "probe_sb", .size_base = sb };
static struct starpu_perfmodel mfp = { .type = STARPU_HISTORY_BASED, .symbol = "probe_fp", .footprint = fpf };
static struct starpu_codelet clh = { .cpu_funcs = {k0, k1}, .nbuffers = 1, .modes = {STARPU_RW}, .model = &mh };
static struct starpu_codelet clr = { .cpu_funcs = {k0}, .nbuffers = 1, .modes = {STARPU_RW}, .model = &mr };
static struct starpu_codelet clnl = { .cpu_funcs = {k0}, .nbuffers = 1, .modes = {STARPU_RW}, .model = &mnl };
static struct starpu_codelet clsb = { .cpu_funcs = {k0}, .nbuffers = 1, .modes = {STARPU_RW}, .model = &msb };
static struct starpu_codelet clfp = { .cpu_funcs = {k0}, .nbuffers = 1, .modes = {STARPU_RW}, .model = &mfp };
int main(void)
{
	if (starpu_init(NULL)) return 1;
	static double A[1<<20];
	unsigned sizes[] = {1000, 2000, 4000, 8000, 16000, 32000};
	for (unsigned s = 0; s < 6; s++) {
		starpu_data_handle_t h;
		starpu_vector_data_register(&h, 0, (uintptr_t)A, sizes[s], 8);
		for (int r = 0; r < 12; r++) {
			struct starpu_codelet *cls[] = {&clh, &clr, &clnl, &clsb, &clfp};
			for (int c = 0; c < 5; c++) {
				struct starpu_task *t = starpu_task_create();
				t->cl = cls[c]; t->handles[0] = h; t->flops = 20.0*sizes[s];
				starpu_task_submit(t);
			}
		}
		starpu_task_wait_for_all();
		struct starpu_task *t = starpu_task_create(); t->destroy=0; t->handles[0]=h; t->cl=&clsb;
		struct starpu_perfmodel_arch *arch = starpu_worker_get_perf_archtype(0, 0);
		printf("n=%u datafp=%08x sb footprint=%08x fpf footprint=%08x  explen hist=%f reg=%f nl=%f\n", sizes[s], starpu_task_data_footprint(t),
		       starpu_task_footprint(&msb, t, arch, 0), starpu_task_footprint(&mfp, t, arch, 0),
		       starpu_task_expected_length((t->cl=&clh,t), arch, 0), starpu_task_expected_length((t->cl=&clr,t), arch, 0), starpu_task_expected_length((t->cl=&clnl,t), arch, 0));
		starpu_task_destroy(t);
		starpu_data_unregister(h);
	}
	starpu_shutdown();
	return 0;
}
