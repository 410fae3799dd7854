/* gen_synthetic: writes a small, fully deterministic trace through the
 * runtime's own writer (runtime/trace/writer.h), with fixed timestamps —
 * the stand-in for a simulated run until simulation exists. The exports
 * of this trace are compared byte for byte with tests/trace/golden/ by
 * check_exports.sh.
 *
 * The run it describes: three workers (CPU 0 and CPU 1 on RAM 0, CUDA 0 on
 * its own node), a diamond of tasks (potrf → two trsm → gemm) plus a
 * chain through tags and a synchronisation task, input fetches, transfers
 * both ways on the bus, allocations, a callback, idle and sleeping
 * periods, and user events.
 *
 * Usage: gen_synthetic OUT [VARIANT]; variant "slow" stretches the gemm
 * (for `vela trace diff`).
 */
#include "trace/writer.h"
#include <starpu.h>

#include <stdio.h>
#include <string.h>

#define US 1000ULL	/* timestamps are ns */

static void task(struct trace_buf *b, uint64_t job, const char *codelet, int worker, uint64_t submit, uint64_t push,
		 uint64_t pop_start, uint64_t pop_end, uint64_t exec_start, uint64_t exec_end, uint64_t end, int prio,
		 uint64_t bytes, double flops, unsigned node)
{
	struct trace_rec_task *r = tb_task_reserve(b);
	r->job = job;
	r->submit = submit;
	r->push = push;
	r->pop_start = pop_start;
	r->pop_end = pop_end;
	r->exec_start = exec_start;
	r->exec_end = exec_end;
	r->end = end;
	r->codelet_sid = tb_string(b, codelet);
	r->name_sid = r->codelet_sid;
	r->worker = worker;
	r->priority = prio;
	r->data_bytes = bytes;
	r->flops = flops;
	r->footprint = (uint32_t) (bytes * 2654435761u);
	r->nbuffers = 2;
	r->node = (uint8_t) node;
	r->flags = TTF_EXECUTED | TTF_ENDED;
}

static void tagged(struct trace_buf *b, uint64_t job, uint64_t tag, const char *codelet, int worker, uint64_t t0,
		   uint64_t len)
{
	struct trace_rec_task *r = tb_task_reserve(b);
	r->job = job;
	r->tag = tag;
	r->submit = 5 * US;
	r->push = t0 - 5 * US;
	r->pop_start = t0 - 4 * US;
	r->pop_end = t0;
	r->exec_start = t0;
	r->exec_end = t0 + len;
	r->end = t0 + len + 2 * US;
	r->codelet_sid = tb_string(b, codelet);
	r->name_sid = r->codelet_sid;
	r->worker = worker;
	r->flags = TTF_EXECUTED | TTF_ENDED | TTF_HAS_TAG;
}

/* A TR_TASK_DATA record (what a replay needs): model symbol, where, and
 * n buffers (handle, mode, size) at home on node 0. */
static void task_data(struct trace_buf *b, uint64_t job, const char *model, uint32_t where, unsigned n,
		      const uint64_t *handles, const uint32_t *modes, const uint64_t *sizes)
{
	uint32_t sid = tb_string(b, model);
	unsigned kept = n;
	struct trace_task_buffer *e = tb_task_data(b, job, sid, STARPU_HISTORY_BASED + 1, where, &kept);
	for (unsigned i = 0; i < kept; i++)
		e[i] = (struct trace_task_buffer) { handles[i], sizes[i], modes[i], 0 };
}

int main(int argc, char **argv)
{
	if (argc < 2)
	{
		fprintf(stderr, "usage: gen_synthetic OUT [slow]\n");
		return 2;
	}
	int slow = argc > 2 && strcmp(argv[2], "slow") == 0;
	struct trace_writer w;
	int ret = tw_open(&w, argv[1], TRACE_FILE_SYNTHETIC);
	if (ret)
	{
		fprintf(stderr, "gen_synthetic: cannot create %s (%d)\n", argv[1], ret);
		return 1;
	}
	struct trace_buf *meta = tw_buf_new(&w, 4096, -1);
	struct trace_buf *w0 = tw_buf_new(&w, 4096, 0), *w1 = tw_buf_new(&w, 4096, 1), *w2 = tw_buf_new(&w, 4096, 2);
	if (!meta || !w0 || !w1 || !w2)
		return 1;

	struct trace_rec_run run;
	memset(&run, 0, sizeof(run));
	run.nworkers = 3;
	run.nnodes = 2;
	run.pid = 1234;
	run.host_sid = tb_string(meta, "synthetic-host");
	run.policy_sid = tb_string(meta, "dmda");
	run.program_sid = tb_string(meta, "synthetic");
	tb_run(meta, &run);
	tb_node(meta, 0, 1 /* STARPU_CPU_RAM */, "RAM 0");
	tb_node(meta, 1, 2 /* STARPU_CUDA_RAM */, "CUDA 0");
	tb_worker(meta, 0, 0 /* CPU */, 0, "CPU 0", 0);
	tb_worker(meta, 1, 0, 0, "CPU 1", 1);
	tb_worker(meta, 2, 1 /* CUDA */, 1, "CUDA 0", -1);

	/* The diamond: potrf(1) -> trsm(2), trsm(3) -> gemm(4). */
	task(w0, 1, "potrf", 0, 10 * US, 12 * US, 0, 14 * US, 14 * US, 114 * US, 118 * US, 3, 8192, 1e6, 0);
	task(w0, 2, "trsm", 0, 11 * US, 118 * US, 118 * US, 120 * US, 120 * US, 200 * US, 204 * US, 2, 16384, 2e6, 0);
	/* trsm 3 runs on the GPU after fetching its input (transfer 0 -> 1). */
	task(w2, 3, "trsm", 2, 11 * US, 118 * US, 100 * US, 121 * US, 141 * US, 171 * US, 175 * US, 2, 16384, 2e6, 1);
	tb_transfer(w2, 0, 1, 8192, 122 * US, 140 * US, 0xabc0, 2);
	tb_mem(w2, 1, TM_ALLOC, 8192, 121 * US, 0x1000);
	tb_mem(w2, 1, TM_ALLOC, 16384, 121 * US, 0x3000);
	/* gemm 4 on CPU 1 waits for both trsm; the GPU result comes back. */
	tb_transfer(w1, 1, 0, 16384, 176 * US, 190 * US, 0xabc1, 1);
	uint64_t gemm_len = slow ? 240 * US : 120 * US;
	task(w1, 4, "gemm", 1, 12 * US, 204 * US, 150 * US, 205 * US, 206 * US, 206 * US + gemm_len, 206 * US + gemm_len + 9 * US,
	     1, 24576, 4e6, 0);
	tb_state(w1, 1, TS_CALLBACK, 206 * US + gemm_len + 2 * US, 206 * US + gemm_len + 8 * US, 4);
	tb_mem(w2, 1, TM_FREE, 8192, 300 * US, 0x1000);
	tb_mem(w2, 1, TM_EVICT, 16384, 310 * US, 0x3000);

	/* Their data: tiles 1 (potrf's), 2 and 3 (the trsm's), 4 (gemm's). */
	enum { R = STARPU_R, RW = STARPU_RW, CPU = STARPU_CPU, CUDA = STARPU_CUDA };
	task_data(meta, 1, "vela_dpotrf", CPU, 1, (uint64_t[]) { 1 }, (uint32_t[]) { RW }, (uint64_t[]) { 8192 });
	task_data(meta, 2, "vela_dtrsm", CPU | CUDA, 2, (uint64_t[]) { 1, 2 }, (uint32_t[]) { R, RW },
		  (uint64_t[]) { 8192, 8192 });
	task_data(meta, 3, "vela_dtrsm", CPU | CUDA, 2, (uint64_t[]) { 1, 3 }, (uint32_t[]) { R, RW },
		  (uint64_t[]) { 8192, 8192 });
	task_data(meta, 4, "vela_dgemm", CPU | CUDA, 3, (uint64_t[]) { 2, 3, 4 }, (uint32_t[]) { R, R, RW },
		  (uint64_t[]) { 8192, 8192, 8192 });

	/* Worker states between tasks. */
	tb_state(w1, 1, TS_IDLE, 0, 150 * US, 0);
	tb_state(w1, 1, TS_SLEEP, 20 * US, 140 * US, 0);
	tb_state(w2, 2, TS_IDLE, 0, 100 * US, 0);
	tb_state(w0, 0, TS_IDLE, 204 * US, 230 * US, 0);

	/* A chain through tags: 7 <- 8, then a synchronisation task 9 on both. */
	tagged(w2, 5, 7, "scal", 2, 180 * US, 20 * US);
	tagged(w0, 6, 8, "scal", 0, 232 * US, 30 * US);
	tb_tag_dep(meta, 8, 7);
	struct trace_rec_task *sync = tb_task_reserve(meta);
	sync->job = 7;
	sync->submit = 13 * US;
	sync->end = 206 * US + gemm_len + 20 * US;
	sync->codelet_sid = tb_string(meta, "(no codelet)");
	sync->name_sid = tb_string(meta, "sync");
	sync->worker = -1;
	sync->flags = TTF_NOOP | TTF_ENDED;

	tb_dep(meta, 1, 2, 0);
	tb_dep(meta, 1, 3, 0);
	tb_dep(meta, 2, 4, 0);
	tb_dep(meta, 3, 4, 0);
	tb_dep(meta, 4, 7, 0);
	tb_dep(meta, 6, 7, 0);

	tb_user(meta, -1, NULL, 42, 15 * US);
	tb_user(w0, 0, "phase 2", 0, 119 * US);

	ret = tw_close(&w, 206 * US + gemm_len + 30 * US);
	if (ret)
	{
		fprintf(stderr, "gen_synthetic: writing %s failed (%d)\n", argv[1], ret);
		return 1;
	}
	return 0;
}
