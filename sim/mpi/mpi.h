/* mpi.h — the MPI of a simulated cluster (vela-simrun, sim/README.md
 * "Clusters"): what StarPU-MPI applications and libvela-mpi-sim compile
 * against instead of Open MPI's header.
 *
 * The subset is what libvela-mpi uses (point to point, byte and hindexed
 * datatypes, pack/unpack, Testsome, Ibarrier, cancel) plus the few calls
 * applications commonly make beside it (ranks, sizes, barrier, wtime,
 * abort, duplicates of MPI_COMM_WORLD, broadcast and all-reduce of
 * numbers). The calls are implemented by
 * vela-simrun itself (sim/simrun_mpi.c), shared by every rank of the
 * simulation; the function names are vsg_* (SimGrid's own SMPI, in the
 * same process, defines MPI_*), the MPI_* names are macros.
 */
#ifndef VELA_SIM_MPI_H
#define VELA_SIM_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define VELA_SIMULATED_MPI 1

typedef struct vsg_comm *MPI_Comm;
typedef struct vsg_datatype *MPI_Datatype;
typedef struct vsg_request *MPI_Request;
typedef struct vsg_group *MPI_Group;
typedef struct vsg_op *MPI_Op;
typedef intptr_t MPI_Aint;
typedef long long MPI_Count;

typedef struct
{
	int MPI_SOURCE;
	int MPI_TAG;
	int MPI_ERROR;
	int vsg_cancelled;
	size_t vsg_count;
} MPI_Status;

/* Constants are small numbers, not addresses of data: each rank loads
 * its own copy of the program, and a copy relocation would give each its
 * own address for the same object. Derived datatypes are pointers. */
#define MPI_COMM_WORLD ((MPI_Comm) (intptr_t) 1)
#define MPI_COMM_NULL ((MPI_Comm) 0)
#define MPI_BYTE ((MPI_Datatype) (intptr_t) 1)
#define MPI_PACKED ((MPI_Datatype) (intptr_t) 2)
#define MPI_CHAR ((MPI_Datatype) (intptr_t) 3)
#define MPI_INT ((MPI_Datatype) (intptr_t) 4)
#define MPI_DOUBLE ((MPI_Datatype) (intptr_t) 5)
#define MPI_LONG ((MPI_Datatype) (intptr_t) 6)
#define MPI_UINT64_T ((MPI_Datatype) (intptr_t) 7)
#define MPI_DATATYPE_NULL ((MPI_Datatype) 0)
#define MPI_MAX ((MPI_Op) (intptr_t) 1)
#define MPI_MIN ((MPI_Op) (intptr_t) 2)
#define MPI_SUM ((MPI_Op) (intptr_t) 3)
#define MPI_REQUEST_NULL ((MPI_Request) 0)
#define MPI_GROUP_NULL ((MPI_Group) 0)
#define MPI_BOTTOM ((void *) 0)
#define MPI_STATUS_IGNORE ((MPI_Status *) 0)
#define MPI_STATUSES_IGNORE ((MPI_Status *) 0)

#define MPI_SUCCESS 0
#define MPI_ERR_OTHER 16
#define MPI_ERR_ARG 12
#define MPI_ERR_COMM 5
#define MPI_ERR_TYPE 3
#define MPI_ERR_RANK 6
#define MPI_ERR_UNSUPPORTED_OPERATION 52
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB 1
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

#define MPI_Init vsg_mpi_init
#define MPI_Init_thread vsg_mpi_init_thread
#define MPI_Initialized vsg_mpi_initialized
#define MPI_Finalize vsg_mpi_finalize
#define MPI_Finalized vsg_mpi_finalized
#define MPI_Query_thread vsg_mpi_query_thread
#define MPI_Abort vsg_mpi_abort
#define MPI_Wtime vsg_mpi_wtime
#define MPI_Comm_rank vsg_mpi_comm_rank
#define MPI_Comm_size vsg_mpi_comm_size
#define MPI_Comm_group vsg_mpi_comm_group
#define MPI_Comm_get_attr vsg_mpi_comm_get_attr
#define MPI_Group_translate_ranks vsg_mpi_group_translate_ranks
#define MPI_Group_free vsg_mpi_group_free
#define MPI_Get_processor_name vsg_mpi_get_processor_name
#define MPI_Type_size vsg_mpi_type_size
#define MPI_Type_create_hindexed vsg_mpi_type_create_hindexed
#define MPI_Type_commit vsg_mpi_type_commit
#define MPI_Type_free vsg_mpi_type_free
#define MPI_Get_address vsg_mpi_get_address
#define MPI_Pack_size vsg_mpi_pack_size
#define MPI_Pack vsg_mpi_pack
#define MPI_Unpack vsg_mpi_unpack
#define MPI_Isend vsg_mpi_isend
#define MPI_Issend vsg_mpi_issend
#define MPI_Irecv vsg_mpi_irecv
#define MPI_Send vsg_mpi_send
#define MPI_Recv vsg_mpi_recv
#define MPI_Test vsg_mpi_test
#define MPI_Testsome vsg_mpi_testsome
#define MPI_Testall vsg_mpi_testall
#define MPI_Wait vsg_mpi_wait
#define MPI_Cancel vsg_mpi_cancel
#define MPI_Test_cancelled vsg_mpi_test_cancelled
#define MPI_Get_count vsg_mpi_get_count
#define MPI_Ibarrier vsg_mpi_ibarrier
#define MPI_Barrier vsg_mpi_barrier
#define MPI_Comm_dup vsg_mpi_comm_dup
#define MPI_Comm_free vsg_mpi_comm_free
#define MPI_Bcast vsg_mpi_bcast
#define MPI_Allreduce vsg_mpi_allreduce

int vsg_mpi_init(int *argc, char ***argv);
int vsg_mpi_init_thread(int *argc, char ***argv, int required, int *provided);
int vsg_mpi_initialized(int *flag);
int vsg_mpi_finalize(void);
int vsg_mpi_finalized(int *flag);
int vsg_mpi_query_thread(int *provided);
int vsg_mpi_abort(MPI_Comm comm, int code);
double vsg_mpi_wtime(void);
int vsg_mpi_comm_rank(MPI_Comm comm, int *rank);
int vsg_mpi_comm_size(MPI_Comm comm, int *size);
int vsg_mpi_comm_group(MPI_Comm comm, MPI_Group *group);
int vsg_mpi_comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag);
int vsg_mpi_group_translate_ranks(MPI_Group g1, int n, const int *r1, MPI_Group g2, int *r2);
int vsg_mpi_group_free(MPI_Group *group);
int vsg_mpi_get_processor_name(char *name, int *len);
int vsg_mpi_type_size(MPI_Datatype dt, int *size);
int vsg_mpi_type_create_hindexed(int count, const int lens[], const MPI_Aint displs[], MPI_Datatype old, MPI_Datatype *dt);
int vsg_mpi_type_commit(MPI_Datatype *dt);
int vsg_mpi_type_free(MPI_Datatype *dt);
int vsg_mpi_get_address(const void *p, MPI_Aint *a);
int vsg_mpi_pack_size(int count, MPI_Datatype dt, MPI_Comm comm, int *size);
int vsg_mpi_pack(const void *in, int count, MPI_Datatype dt, void *out, int outsize, int *pos, MPI_Comm comm);
int vsg_mpi_unpack(const void *in, int insize, int *pos, void *out, int count, MPI_Datatype dt, MPI_Comm comm);
int vsg_mpi_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req);
int vsg_mpi_issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request *req);
int vsg_mpi_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request *req);
int vsg_mpi_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int vsg_mpi_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *st);
int vsg_mpi_test(MPI_Request *req, int *flag, MPI_Status *st);
int vsg_mpi_testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status st[]);
int vsg_mpi_testall(int n, MPI_Request reqs[], int *flag, MPI_Status st[]);
int vsg_mpi_wait(MPI_Request *req, MPI_Status *st);
int vsg_mpi_cancel(MPI_Request *req);
int vsg_mpi_test_cancelled(const MPI_Status *st, int *flag);
int vsg_mpi_get_count(const MPI_Status *st, MPI_Datatype dt, int *count);
int vsg_mpi_ibarrier(MPI_Comm comm, MPI_Request *req);
int vsg_mpi_barrier(MPI_Comm comm);
int vsg_mpi_comm_dup(MPI_Comm comm, MPI_Comm *dup);
int vsg_mpi_comm_free(MPI_Comm *comm);
int vsg_mpi_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int vsg_mpi_allreduce(const void *in, void *out, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);

/* Not MPI: blocks the calling actor until a request of its rank completes
 * or `seconds` of simulated time pass; 1 if something completed, else 0.
 * What a thread spinning on MPI_Test achieves in a real run (libvela-mpi's
 * spin phases use it in a simulated cluster). */
int vsg_mpi_wait_activity(double seconds);
/* Not MPI: ends the waits of vsg_mpi_wait_activity of the caller's rank
 * (it has work for the thread that waits). */
void vsg_mpi_poke(void);
/* Not MPI: the caller inserted a task of n data (starpu_mpi_task_insert),
 * which its rank runs (here) or not: the thread is busy for what its
 * node's RAM host says (mpi_insert_us and _per_datum, mpi_insert_local_us
 * and _per_datum; sim/README.md "Clusters"; none: nothing). */
void vsg_mpi_insert_cost(int n, int here);
/* Not MPI: the insertion posts a send (recv 0) or a receive (1): the
 * thread is busy for mpi_insert_send_us or mpi_insert_recv_us. */
void vsg_mpi_exchange_cost(int recv);

#ifdef __cplusplus
}
#endif

#endif /* VELA_SIM_MPI_H */
