/* starpu_data_interfaces.h — data interfaces: how a kind of data (a
 * variable, a vector, a matrix, ...) is described on each memory node.
 *
 * A handle keeps one interface structure per memory node; a codelet receives,
 * for each buffer, the interface on the node it runs on and reads it with the
 * STARPU_<KIND>_GET_* macros. An interface kind is defined by a
 * starpu_data_interface_ops table: how to register, allocate, copy, measure
 * and compare it. Applications may define their own kinds.
 */
#ifndef STARPU_DATA_INTERFACES_H
#define STARPU_DATA_INTERFACES_H

#include <starpu_config.h>
#if defined(STARPU_USE_OPENCL) && !defined(__CUDACC__)
#include <starpu_opencl.h>
#endif
#if defined(STARPU_USE_CUDA) && !defined(STARPU_DONT_INCLUDE_CUDA_HEADERS)
#include <cuda_runtime.h>
#endif
#include <starpu_util.h>
#include <starpu_data.h>
#include <sys/types.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
{
#endif

typedef ssize_t starpu_ssize_t;

/* Copy methods between kinds of memory nodes. A method returns 0 when the
 * copy is done, -EAGAIN when it was started asynchronously. any_to_any is
 * the generic form the runtime prefers: it should copy with
 * starpu_interface_copy(), which picks the right driver. */
struct starpu_data_copy_methods
{
	int (*can_copy)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, unsigned handling_node);
	int (*ram_to_ram)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*ram_to_cuda)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*ram_to_opencl)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*ram_to_mic)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*cuda_to_ram)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*cuda_to_cuda)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*cuda_to_opencl)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*opencl_to_ram)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*opencl_to_cuda)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*opencl_to_opencl)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*mic_to_ram)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*ram_to_mpi_ms)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*mpi_ms_to_ram)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*mpi_ms_to_mpi_ms)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
#if defined(STARPU_USE_CUDA) && !defined(STARPU_DONT_INCLUDE_CUDA_HEADERS)
	/* Queue the copy on stream; return -EAGAIN (or 0 if done). */
	int (*ram_to_cuda_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, cudaStream_t stream);
	int (*cuda_to_ram_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, cudaStream_t stream);
	int (*cuda_to_cuda_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, cudaStream_t stream);
#else
	int (*ram_to_cuda_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *stream);
	int (*cuda_to_ram_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *stream);
	int (*cuda_to_cuda_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *stream);
#endif
#if defined(STARPU_USE_OPENCL) && !defined(__CUDACC__)
	/* Queue the copy and set *event; return -EAGAIN (or 0 if done). */
	int (*ram_to_opencl_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, cl_event *event);
	int (*opencl_to_ram_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, cl_event *event);
	int (*opencl_to_opencl_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, cl_event *event);
#else
	int (*ram_to_opencl_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *event);
	int (*opencl_to_ram_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *event);
	int (*opencl_to_opencl_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *event);
#endif
	int (*ram_to_mpi_ms_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *event);
	int (*mpi_ms_to_ram_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *event);
	int (*mpi_ms_to_mpi_ms_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *event);
	int (*ram_to_mic_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*mic_to_ram_async)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node);
	int (*any_to_any)(void *src_interface, unsigned src_node, void *dst_interface, unsigned dst_node, void *async_data);
};

enum starpu_data_interface_id
{
	STARPU_UNKNOWN_INTERFACE_ID = -1,
	STARPU_MATRIX_INTERFACE_ID = 0,
	STARPU_BLOCK_INTERFACE_ID = 1,
	STARPU_VECTOR_INTERFACE_ID = 2,
	STARPU_CSR_INTERFACE_ID = 3,
	STARPU_BCSR_INTERFACE_ID = 4,
	STARPU_VARIABLE_INTERFACE_ID = 5,
	STARPU_VOID_INTERFACE_ID = 6,
	STARPU_MULTIFORMAT_INTERFACE_ID = 7,
	STARPU_COO_INTERFACE_ID = 8,
	STARPU_MAX_INTERFACE_ID = 9
};

struct starpu_multiformat_data_interface_ops;

struct starpu_data_interface_ops
{
	/* Fills the interface of every node from the home node's one. */
	void (*register_data_handle)(starpu_data_handle_t handle, unsigned home_node, void *data_interface);
	void (*unregister_data_handle)(starpu_data_handle_t handle);
	/* Allocates the buffer(s) on node; returns the bytes allocated or
	 * -ENOMEM. */
	starpu_ssize_t (*allocate_data_on_node)(void *data_interface, unsigned node);
	void (*free_data_on_node)(void *data_interface, unsigned node);
	void (*init)(void *data_interface);
	const struct starpu_data_copy_methods *copy_methods;
	void *(*handle_to_pointer)(starpu_data_handle_t handle, unsigned node);
	void *(*to_pointer)(void *data_interface, unsigned node);
	int (*pointer_is_inside)(void *data_interface, unsigned node, void *ptr);
	size_t (*get_size)(starpu_data_handle_t handle);
	size_t (*get_alloc_size)(starpu_data_handle_t handle);
	uint32_t (*footprint)(starpu_data_handle_t handle);
	uint32_t (*alloc_footprint)(starpu_data_handle_t handle);
	int (*compare)(void *data_interface_a, void *data_interface_b);
	int (*alloc_compare)(void *data_interface_a, void *data_interface_b);
	void (*display)(starpu_data_handle_t handle, FILE *f);
	starpu_ssize_t (*describe)(void *data_interface, char *buf, size_t size);
	enum starpu_data_interface_id interfaceid;
	size_t interface_size;
	char is_multiformat;
	char dontcache;
	struct starpu_multiformat_data_interface_ops *(*get_mf_ops)(void *data_interface);
	int (*pack_data)(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count);
	int (*unpack_data)(starpu_data_handle_t handle, unsigned node, void *ptr, size_t count);
	char *name;
};

/* Registers data described by data_interface (for home_node) with the given
 * kind. home_node -1: no initial copy, allocated on first write. */
void starpu_data_register(starpu_data_handle_t *handleptr, int home_node, void *data_interface, struct starpu_data_interface_ops *ops);
void starpu_data_register_same(starpu_data_handle_t *handledst, starpu_data_handle_t handlesrc);

void *starpu_data_handle_to_pointer(starpu_data_handle_t handle, unsigned node);
void *starpu_data_get_local_ptr(starpu_data_handle_t handle);
void *starpu_data_get_interface_on_node(starpu_data_handle_t handle, unsigned memory_node);
enum starpu_data_interface_id starpu_data_get_interface_id(starpu_data_handle_t handle);
size_t starpu_data_get_size(starpu_data_handle_t handle);
size_t starpu_data_get_alloc_size(starpu_data_handle_t handle);
int starpu_data_get_home_node(starpu_data_handle_t handle);
int starpu_data_interface_get_next_id(void);
/* The handle registered with this home pointer, or NULL. */
starpu_data_handle_t starpu_data_lookup(const void *ptr);
int starpu_data_pointer_is_inside(starpu_data_handle_t handle, unsigned node, void *ptr);
/* Packs the data (valid in the caller's memory node) into a new buffer
 * (free it with starpu_free_on_node_flags), and back. */
int starpu_data_pack(starpu_data_handle_t handle, void **ptr, starpu_ssize_t *count);
int starpu_data_unpack(starpu_data_handle_t handle, void *ptr, size_t count);
void starpu_data_ptr_register(starpu_data_handle_t handle, unsigned node);

/* Copies size bytes between buffers of two memory nodes through the node
 * drivers; with async_data NULL the copy is complete on return. */
int starpu_interface_copy(uintptr_t src, size_t src_offset, unsigned src_node,
			  uintptr_t dst, size_t dst_offset, unsigned dst_node,
			  size_t size, void *async_data);
/* numblocks blocks of blocksize bytes, ld_* bytes apart. */
int starpu_interface_copy2d(uintptr_t src, size_t src_offset, unsigned src_node,
			    uintptr_t dst, size_t dst_offset, unsigned dst_node,
			    size_t blocksize, size_t numblocks, size_t ld_src, size_t ld_dst,
			    void *async_data);

int starpu_interface_copy3d(uintptr_t src, size_t src_offset, unsigned src_node,
			    uintptr_t dst, size_t dst_offset, unsigned dst_node,
			    size_t blocksize,
			    size_t numblocks1, size_t ld1_src, size_t ld1_dst,
			    size_t numblocks2, size_t ld2_src, size_t ld2_dst,
			    void *async_data);

/* Buffers on a memory node (through that node's driver). */
uintptr_t starpu_malloc_on_node_flags(unsigned dst_node, size_t size, int flags);
uintptr_t starpu_malloc_on_node(unsigned dst_node, size_t size);
void starpu_free_on_node_flags(unsigned dst_node, uintptr_t addr, size_t size, int flags);
void starpu_free_on_node(unsigned dst_node, uintptr_t addr, size_t size);
/* The flags starpu_malloc_on_node and starpu_free_on_node use on node
 * (default STARPU_MALLOC_PINNED | STARPU_MALLOC_COUNT, as in StarPU). */
void starpu_malloc_on_node_set_default_flags(unsigned node, int flags);
/* Records in the execution trace a copy of size bytes from src_node to
 * dst_node that an interface made itself (not through starpu_interface_copy). */
void starpu_interface_data_copy(unsigned src_node, unsigned dst_node, size_t size);

/* Variable: one element of elemsize bytes. */
extern struct starpu_data_interface_ops starpu_interface_variable_ops;
struct starpu_variable_interface
{
	enum starpu_data_interface_id id;
	uintptr_t ptr;
	uintptr_t dev_handle;
	size_t offset;
	size_t elemsize;
};
void starpu_variable_data_register(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, size_t size);
void starpu_variable_ptr_register(starpu_data_handle_t handle, unsigned node, uintptr_t ptr, uintptr_t dev_handle, size_t offset);
size_t starpu_variable_get_elemsize(starpu_data_handle_t handle);
uintptr_t starpu_variable_get_local_ptr(starpu_data_handle_t handle);
#define STARPU_VARIABLE_GET_PTR(interface) (((struct starpu_variable_interface *)(interface))->ptr)
#define STARPU_VARIABLE_GET_OFFSET(interface) (((struct starpu_variable_interface *)(interface))->offset)
#define STARPU_VARIABLE_GET_ELEMSIZE(interface) (((struct starpu_variable_interface *)(interface))->elemsize)
#define STARPU_VARIABLE_GET_DEV_HANDLE(interface) (((struct starpu_variable_interface *)(interface))->dev_handle)

/* Vector: nx contiguous elements of elemsize bytes. */
extern struct starpu_data_interface_ops starpu_interface_vector_ops;
struct starpu_vector_interface
{
	enum starpu_data_interface_id id;
	uintptr_t ptr;
	uintptr_t dev_handle;
	size_t offset;
	uint32_t nx;
	size_t elemsize;
	uint32_t slice_base;
	size_t allocsize;
};
void starpu_vector_data_register(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t nx, size_t elemsize);
void starpu_vector_data_register_allocsize(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t nx, size_t elemsize, size_t allocsize);
void starpu_vector_ptr_register(starpu_data_handle_t handle, unsigned node, uintptr_t ptr, uintptr_t dev_handle, size_t offset);
uint32_t starpu_vector_get_nx(starpu_data_handle_t handle);
size_t starpu_vector_get_elemsize(starpu_data_handle_t handle);
size_t starpu_vector_get_allocsize(starpu_data_handle_t handle);
uintptr_t starpu_vector_get_local_ptr(starpu_data_handle_t handle);
#define STARPU_VECTOR_GET_PTR(interface) (((struct starpu_vector_interface *)(interface))->ptr)
#define STARPU_VECTOR_GET_DEV_HANDLE(interface) (((struct starpu_vector_interface *)(interface))->dev_handle)
#define STARPU_VECTOR_GET_OFFSET(interface) (((struct starpu_vector_interface *)(interface))->offset)
#define STARPU_VECTOR_GET_NX(interface) (((struct starpu_vector_interface *)(interface))->nx)
#define STARPU_VECTOR_GET_ELEMSIZE(interface) (((struct starpu_vector_interface *)(interface))->elemsize)
#define STARPU_VECTOR_GET_ALLOCSIZE(interface) (((struct starpu_vector_interface *)(interface))->allocsize)
#define STARPU_VECTOR_GET_SLICE_BASE(interface) (((struct starpu_vector_interface *)(interface))->slice_base)
#define STARPU_VECTOR_SET_NX(interface, newnx) do { ((struct starpu_vector_interface *)(interface))->nx = (newnx); } while (0)

/* Matrix: ny columns of nx elements, column starts ld elements apart
 * (column-major, as BLAS expects). */
extern struct starpu_data_interface_ops starpu_interface_matrix_ops;
struct starpu_matrix_interface
{
	enum starpu_data_interface_id id;
	uintptr_t ptr;
	uintptr_t dev_handle;
	size_t offset;
	uint32_t nx;
	uint32_t ny;
	uint32_t ld;
	size_t elemsize;
	size_t allocsize;
};
void starpu_matrix_data_register(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t ld, uint32_t nx, uint32_t ny, size_t elemsize);
void starpu_matrix_data_register_allocsize(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t ld, uint32_t nx, uint32_t ny, size_t elemsize, size_t allocsize);
void starpu_matrix_ptr_register(starpu_data_handle_t handle, unsigned node, uintptr_t ptr, uintptr_t dev_handle, size_t offset, uint32_t ld);
uint32_t starpu_matrix_get_nx(starpu_data_handle_t handle);
uint32_t starpu_matrix_get_ny(starpu_data_handle_t handle);
uint32_t starpu_matrix_get_local_ld(starpu_data_handle_t handle);
uintptr_t starpu_matrix_get_local_ptr(starpu_data_handle_t handle);
size_t starpu_matrix_get_elemsize(starpu_data_handle_t handle);
size_t starpu_matrix_get_allocsize(starpu_data_handle_t handle);
#define STARPU_MATRIX_GET_PTR(interface) (((struct starpu_matrix_interface *)(interface))->ptr)
#define STARPU_MATRIX_GET_DEV_HANDLE(interface) (((struct starpu_matrix_interface *)(interface))->dev_handle)
#define STARPU_MATRIX_GET_OFFSET(interface) (((struct starpu_matrix_interface *)(interface))->offset)
#define STARPU_MATRIX_GET_NX(interface) (((struct starpu_matrix_interface *)(interface))->nx)
#define STARPU_MATRIX_GET_NY(interface) (((struct starpu_matrix_interface *)(interface))->ny)
#define STARPU_MATRIX_GET_LD(interface) (((struct starpu_matrix_interface *)(interface))->ld)
#define STARPU_MATRIX_GET_ELEMSIZE(interface) (((struct starpu_matrix_interface *)(interface))->elemsize)
#define STARPU_MATRIX_GET_ALLOCSIZE(interface) (((struct starpu_matrix_interface *)(interface))->allocsize)
#define STARPU_MATRIX_SET_NX(interface, newnx) do { ((struct starpu_matrix_interface *)(interface))->nx = (newnx); } while (0)
#define STARPU_MATRIX_SET_NY(interface, newny) do { ((struct starpu_matrix_interface *)(interface))->ny = (newny); } while (0)
#define STARPU_MATRIX_SET_LD(interface, newld) do { ((struct starpu_matrix_interface *)(interface))->ld = (newld); } while (0)

/* Void: no data, only dependencies (a task ordering point). */
extern struct starpu_data_interface_ops starpu_interface_void_ops;
void starpu_void_data_register(starpu_data_handle_t *handle);

/* Block: a 3D array of nx*ny*nz elements; element (x,y,z) is at
 * x + y*ldy + z*ldz. */
extern struct starpu_data_interface_ops starpu_interface_block_ops;
struct starpu_block_interface
{
	enum starpu_data_interface_id id;
	uintptr_t ptr;
	uintptr_t dev_handle;
	size_t offset;
	uint32_t nx;
	uint32_t ny;
	uint32_t nz;
	uint32_t ldy;
	uint32_t ldz;
	size_t elemsize;
};
void starpu_block_data_register(starpu_data_handle_t *handle, int home_node, uintptr_t ptr, uint32_t ldy, uint32_t ldz, uint32_t nx, uint32_t ny, uint32_t nz, size_t elemsize);
void starpu_block_ptr_register(starpu_data_handle_t handle, unsigned node, uintptr_t ptr, uintptr_t dev_handle, size_t offset, uint32_t ldy, uint32_t ldz);
uint32_t starpu_block_get_nx(starpu_data_handle_t handle);
uint32_t starpu_block_get_ny(starpu_data_handle_t handle);
uint32_t starpu_block_get_nz(starpu_data_handle_t handle);
uint32_t starpu_block_get_local_ldy(starpu_data_handle_t handle);
uint32_t starpu_block_get_local_ldz(starpu_data_handle_t handle);
uintptr_t starpu_block_get_local_ptr(starpu_data_handle_t handle);
size_t starpu_block_get_elemsize(starpu_data_handle_t handle);
#define STARPU_BLOCK_GET_PTR(interface) (((struct starpu_block_interface *)(interface))->ptr)
#define STARPU_BLOCK_GET_DEV_HANDLE(interface) (((struct starpu_block_interface *)(interface))->dev_handle)
#define STARPU_BLOCK_GET_OFFSET(interface) (((struct starpu_block_interface *)(interface))->offset)
#define STARPU_BLOCK_GET_NX(interface) (((struct starpu_block_interface *)(interface))->nx)
#define STARPU_BLOCK_GET_NY(interface) (((struct starpu_block_interface *)(interface))->ny)
#define STARPU_BLOCK_GET_NZ(interface) (((struct starpu_block_interface *)(interface))->nz)
#define STARPU_BLOCK_GET_LDY(interface) (((struct starpu_block_interface *)(interface))->ldy)
#define STARPU_BLOCK_GET_LDZ(interface) (((struct starpu_block_interface *)(interface))->ldz)
#define STARPU_BLOCK_GET_ELEMSIZE(interface) (((struct starpu_block_interface *)(interface))->elemsize)

/* CSR: compressed sparse rows. nnz values (nzval) with their column index
 * (colind), and nrow+1 row starts (rowptr), counted from firstentry. */
extern struct starpu_data_interface_ops starpu_interface_csr_ops;
struct starpu_csr_interface
{
	enum starpu_data_interface_id id;
	uint32_t nnz;
	uint32_t nrow;
	uintptr_t nzval;
	uint32_t *colind;
	uint32_t *rowptr;
	uint32_t firstentry;
	size_t elemsize;
};
void starpu_csr_data_register(starpu_data_handle_t *handle, int home_node, uint32_t nnz, uint32_t nrow, uintptr_t nzval, uint32_t *colind, uint32_t *rowptr, uint32_t firstentry, size_t elemsize);
uint32_t starpu_csr_get_nnz(starpu_data_handle_t handle);
uint32_t starpu_csr_get_nrow(starpu_data_handle_t handle);
uint32_t starpu_csr_get_firstentry(starpu_data_handle_t handle);
uintptr_t starpu_csr_get_local_nzval(starpu_data_handle_t handle);
uint32_t *starpu_csr_get_local_colind(starpu_data_handle_t handle);
uint32_t *starpu_csr_get_local_rowptr(starpu_data_handle_t handle);
size_t starpu_csr_get_elemsize(starpu_data_handle_t handle);
#define STARPU_CSR_GET_NNZ(interface) (((struct starpu_csr_interface *)(interface))->nnz)
#define STARPU_CSR_GET_NROW(interface) (((struct starpu_csr_interface *)(interface))->nrow)
#define STARPU_CSR_GET_NZVAL(interface) (((struct starpu_csr_interface *)(interface))->nzval)
#define STARPU_CSR_GET_NZVAL_DEV_HANDLE(interface) (((struct starpu_csr_interface *)(interface))->nzval)
#define STARPU_CSR_GET_COLIND(interface) (((struct starpu_csr_interface *)(interface))->colind)
#define STARPU_CSR_GET_COLIND_DEV_HANDLE(interface) (((struct starpu_csr_interface *)(interface))->colind)
#define STARPU_CSR_GET_ROWPTR(interface) (((struct starpu_csr_interface *)(interface))->rowptr)
#define STARPU_CSR_GET_ROWPTR_DEV_HANDLE(interface) (((struct starpu_csr_interface *)(interface))->rowptr)
#define STARPU_CSR_GET_OFFSET 0
#define STARPU_CSR_GET_FIRSTENTRY(interface) (((struct starpu_csr_interface *)(interface))->firstentry)
#define STARPU_CSR_GET_ELEMSIZE(interface) (((struct starpu_csr_interface *)(interface))->elemsize)

/* BCSR: block CSR, nnz blocks of r x c elements each. */
extern struct starpu_data_interface_ops starpu_interface_bcsr_ops;
struct starpu_bcsr_interface
{
	enum starpu_data_interface_id id;
	uint32_t nnz;
	uint32_t nrow;
	uintptr_t nzval;
	uint32_t *colind;
	uint32_t *rowptr;
	uint32_t firstentry;
	uint32_t r;
	uint32_t c;
	size_t elemsize;
};
void starpu_bcsr_data_register(starpu_data_handle_t *handle, int home_node, uint32_t nnz, uint32_t nrow, uintptr_t nzval, uint32_t *colind, uint32_t *rowptr, uint32_t firstentry, uint32_t r, uint32_t c, size_t elemsize);
uint32_t starpu_bcsr_get_nnz(starpu_data_handle_t handle);
uint32_t starpu_bcsr_get_nrow(starpu_data_handle_t handle);
uint32_t starpu_bcsr_get_firstentry(starpu_data_handle_t handle);
uintptr_t starpu_bcsr_get_local_nzval(starpu_data_handle_t handle);
uint32_t *starpu_bcsr_get_local_colind(starpu_data_handle_t handle);
uint32_t *starpu_bcsr_get_local_rowptr(starpu_data_handle_t handle);
uint32_t starpu_bcsr_get_r(starpu_data_handle_t handle);
uint32_t starpu_bcsr_get_c(starpu_data_handle_t handle);
size_t starpu_bcsr_get_elemsize(starpu_data_handle_t handle);
#define STARPU_BCSR_GET_NNZ(interface) (((struct starpu_bcsr_interface *)(interface))->nnz)
#define STARPU_BCSR_GET_NROW(interface) (((struct starpu_bcsr_interface *)(interface))->nrow)
#define STARPU_BCSR_GET_NZVAL(interface) (((struct starpu_bcsr_interface *)(interface))->nzval)
#define STARPU_BCSR_GET_NZVAL_DEV_HANDLE(interface) (((struct starpu_bcsr_interface *)(interface))->nzval)
#define STARPU_BCSR_GET_COLIND(interface) (((struct starpu_bcsr_interface *)(interface))->colind)
#define STARPU_BCSR_GET_COLIND_DEV_HANDLE(interface) (((struct starpu_bcsr_interface *)(interface))->colind)
#define STARPU_BCSR_GET_ROWPTR(interface) (((struct starpu_bcsr_interface *)(interface))->rowptr)
#define STARPU_BCSR_GET_ROWPTR_DEV_HANDLE(interface) (((struct starpu_bcsr_interface *)(interface))->rowptr)
#define STARPU_BCSR_GET_FIRSTENTRY(interface) (((struct starpu_bcsr_interface *)(interface))->firstentry)
#define STARPU_BCSR_GET_R(interface) (((struct starpu_bcsr_interface *)(interface))->r)
#define STARPU_BCSR_GET_C(interface) (((struct starpu_bcsr_interface *)(interface))->c)
#define STARPU_BCSR_GET_ELEMSIZE(interface) (((struct starpu_bcsr_interface *)(interface))->elemsize)
#define STARPU_BCSR_GET_OFFSET 0

/* COO: coordinate format, n_values entries (rows[i], columns[i], value). */
extern struct starpu_data_interface_ops starpu_interface_coo_ops;
struct starpu_coo_interface
{
	enum starpu_data_interface_id id;
	uint32_t *columns;
	uint32_t *rows;
	uintptr_t values;
	uint32_t nx;
	uint32_t ny;
	uint32_t n_values;
	size_t elemsize;
};
void starpu_coo_data_register(starpu_data_handle_t *handleptr, int home_node, uint32_t nx, uint32_t ny, uint32_t n_values, uint32_t *columns, uint32_t *rows, uintptr_t values, size_t elemsize);
#define STARPU_COO_GET_COLUMNS(interface) (((struct starpu_coo_interface *)(interface))->columns)
#define STARPU_COO_GET_COLUMNS_DEV_HANDLE(interface) (((struct starpu_coo_interface *)(interface))->columns)
#define STARPU_COO_GET_ROWS(interface) (((struct starpu_coo_interface *)(interface))->rows)
#define STARPU_COO_GET_ROWS_DEV_HANDLE(interface) (((struct starpu_coo_interface *)(interface))->rows)
#define STARPU_COO_GET_VALUES(interface) (((struct starpu_coo_interface *)(interface))->values)
#define STARPU_COO_GET_VALUES_DEV_HANDLE(interface) (((struct starpu_coo_interface *)(interface))->values)
#define STARPU_COO_GET_OFFSET 0
#define STARPU_COO_GET_NX(interface) (((struct starpu_coo_interface *)(interface))->nx)
#define STARPU_COO_GET_NY(interface) (((struct starpu_coo_interface *)(interface))->ny)
#define STARPU_COO_GET_NVALUES(interface) (((struct starpu_coo_interface *)(interface))->n_values)
#define STARPU_COO_GET_ELEMSIZE(interface) (((struct starpu_coo_interface *)(interface))->elemsize)

/* Multiformat: nx objects kept in one layout on CPUs (an array of
 * structures, say) and in another on devices (a structure of arrays).
 * The data lives in the CPU format in RAM; a copy to a device carries the
 * CPU format, and before a task uses it there the runtime runs the
 * conversion codelet (cpu_to_opencl_cl, cpu_to_cuda_cl) on that device's
 * worker; a copy back to RAM carries the device format, converted on the
 * way by the CPU implementation of opencl_to_cpu_cl / cuda_to_cpu_cl. Each
 * conversion codelet takes the handle as its one buffer (STARPU_RW). */
struct starpu_multiformat_data_interface_ops
{
	size_t cpu_elemsize;
	size_t opencl_elemsize;
	struct starpu_codelet *cpu_to_opencl_cl;
	struct starpu_codelet *opencl_to_cpu_cl;
	size_t cuda_elemsize;
	struct starpu_codelet *cpu_to_cuda_cl;
	struct starpu_codelet *cuda_to_cpu_cl;
	size_t mic_elemsize;
	struct starpu_codelet *cpu_to_mic_cl;
	struct starpu_codelet *mic_to_cpu_cl;
};

struct starpu_multiformat_interface
{
	enum starpu_data_interface_id id;
	void *cpu_ptr;		/* nx objects in the CPU format (on a device: what was copied in) */
	void *cuda_ptr;		/* in the CUDA format (in RAM: what came back from a GPU) */
	void *opencl_ptr;	/* in the OpenCL format (likewise) */
	void *mic_ptr;
	uint32_t nx;
	struct starpu_multiformat_data_interface_ops *ops;
	/* Vela: on a device, cpu_ptr holds the data and the device format is
	 * still to be made from it (the runtime's, not the application's) */
	unsigned char vela_convert;
};

/* format_ops must stay valid until the handle is unregistered. */
void starpu_multiformat_data_register(starpu_data_handle_t *handle, int home_node, void *ptr, uint32_t nobjects, struct starpu_multiformat_data_interface_ops *format_ops);
#define STARPU_MULTIFORMAT_GET_CPU_PTR(interface) (((struct starpu_multiformat_interface *)(interface))->cpu_ptr)
#define STARPU_MULTIFORMAT_GET_CUDA_PTR(interface) (((struct starpu_multiformat_interface *)(interface))->cuda_ptr)
#define STARPU_MULTIFORMAT_GET_OPENCL_PTR(interface) (((struct starpu_multiformat_interface *)(interface))->opencl_ptr)
#define STARPU_MULTIFORMAT_GET_MIC_PTR(interface) (((struct starpu_multiformat_interface *)(interface))->mic_ptr)
#define STARPU_MULTIFORMAT_GET_NX(interface) (((struct starpu_multiformat_interface *)(interface))->nx)

#ifdef __cplusplus
}
#endif

#endif /* STARPU_DATA_INTERFACES_H */
