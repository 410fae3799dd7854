/* footprints: prints the footprint and size of one handle of each standard
 * interface, for shapes fixed here. Built against Vela and against Debian's
 * StarPU 1.3 by check_footprints.sh, which compares the two outputs:
 * performance models are keyed by footprint and size, so both runtimes must
 * give the same ones for model files to be interchangeable.
 */
#include <starpu.h>

#include <stdint.h>
#include <stdio.h>

int main(void)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = 1;
	conf.ncuda = 0;
	conf.nopencl = 0;
	if (starpu_init(&conf))
		return 1;
	static double buf[4096];
	static uint32_t colind[64], rowptr[65];
	for (int i = 0; i < 65; i++)
		rowptr[i] = i < 33 ? (uint32_t) i : 32;
	enum { N = 9 };
	starpu_data_handle_t h[N];
	const char *name[N] = { "variable", "vector", "matrix", "matrix_ld", "block", "csr", "bcsr", "coo", "void" };
	starpu_variable_data_register(&h[0], STARPU_MAIN_RAM, (uintptr_t) buf, sizeof(double));
	starpu_vector_data_register(&h[1], STARPU_MAIN_RAM, (uintptr_t) buf, 100, sizeof(double));
	starpu_matrix_data_register(&h[2], STARPU_MAIN_RAM, (uintptr_t) buf, 10, 10, 15, sizeof(double));
	starpu_matrix_data_register(&h[3], STARPU_MAIN_RAM, (uintptr_t) buf, 20, 7, 15, sizeof(float));
	starpu_block_data_register(&h[4], STARPU_MAIN_RAM, (uintptr_t) buf, 10, 100, 10, 7, 5, sizeof(double));
	starpu_csr_data_register(&h[5], STARPU_MAIN_RAM, 32, 64, (uintptr_t) buf, colind, rowptr, 0, sizeof(double));
	starpu_bcsr_data_register(&h[6], STARPU_MAIN_RAM, 32, 16, (uintptr_t) buf, colind, rowptr, 0, 2, 3, sizeof(double));
	starpu_coo_data_register(&h[7], STARPU_MAIN_RAM, 40, 50, 30, colind, colind, (uintptr_t) buf, sizeof(double));
	starpu_void_data_register(&h[8]);
	for (int i = 0; i < N; i++)
	{
		struct starpu_data_interface_ops *ops = starpu_data_get_interface_ops(h[i]);
		printf("%s footprint %08x size %zu\n", name[i], ops->footprint(h[i]), starpu_data_get_size(h[i]));
	}
	for (int i = 0; i < N; i++)
		starpu_data_unregister(h[i]);
	starpu_shutdown();
	return 0;
}
