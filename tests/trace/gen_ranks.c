/* gen_ranks: writes the per-rank traces of a fictitious distributed run
 * through the runtime's writer, with fixed timestamps — what a real
 * StarPU-MPI run (or a simulated one) writes, for the merge tests of
 * check_merge.sh: the exports of the merged timeline are compared with
 * golden files, and bad variants must be refused or reported.
 *
 * The run: NRANKS ranks of run 0x5eed, one CPU worker each; each rank
 * runs a task, sends a 4096-byte message (tag 7) to the next rank in a
 * ring, receives the one of the previous rank, and runs a second task;
 * rank 0 also sends rank 1 a second message (tag 7, seq 1, synchronous).
 * Each rank's clock starts 3 ms later than the previous one's and rank r's
 * runs r x 20 ppm fast; two clock points per rank say so.
 *
 * Usage: gen_ranks PREFIX NRANKS [VARIANT] writes PREFIX.0 ... PREFIX.N-1.
 * Variants: "other-run" (the last rank is of another run), "bad-peer"
 * (rank 0 sends to a rank beyond the run), "size" (rank 1 receives 4000
 * bytes of the 4096 sent), "skew" (rank 1's clock points are off by 1 ms:
 * messages received before they were sent), "no-clock" (no clock points).
 */
#include "trace/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US 1000ULL

static int nranks;
static const char *variant = "";

/* Rank r's clock at reference time ref (ns). */
static uint64_t local(int r, uint64_t ref)
{
	double l = (double) (ref + 10000 * US - (uint64_t) r * 3000 * US) * (1.0 + r * 20e-6);
	return (uint64_t) (l + 0.5);
}

static void task(struct trace_buf *b, int r, uint64_t job, const char *codelet, uint64_t t0, uint64_t len)
{
	struct trace_rec_task *k = tb_task_reserve(b);
	k->job = job;
	k->submit = local(r, 5 * US);
	k->push = local(r, t0 - 5 * US);
	k->pop_start = local(r, t0 - 4 * US);
	k->pop_end = local(r, t0);
	k->exec_start = local(r, t0);
	k->exec_end = local(r, t0 + len);
	k->end = local(r, t0 + len + 2 * US);
	k->codelet_sid = tb_string(b, codelet);
	k->name_sid = k->codelet_sid;
	k->worker = 0;
	k->data_bytes = 4096;
	k->nbuffers = 1;
	k->flags = TTF_EXECUTED | TTF_ENDED;
}

static void comm(struct trace_buf *b, int r, int peer, int send, uint64_t seq, uint64_t bytes, uint64_t start, uint64_t end,
		 unsigned extra)
{
	struct trace_rec_comm c;
	memset(&c, 0, sizeof(c));
	c.peer = peer;
	c.flags = (send ? TCF_SEND : 0) | extra;
	c.tag = 7;
	c.seq = seq;
	c.bytes = bytes;
	c.submit = local(r, start - 10 * US);
	c.start = local(r, start);
	c.end = local(r, end);
	c.handle = 1;
	c.worker = 0;
	tb_comm(b, &c);
}

static int write_rank(const char *prefix, int r)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s.%d", prefix, r);
	struct trace_writer w;
	if (tw_open(&w, path, TRACE_FILE_SYNTHETIC))
	{
		fprintf(stderr, "gen_ranks: cannot create %s\n", path);
		return 1;
	}
	struct trace_buf *b = tw_buf_new(&w, 1 << 16, 0);
	if (!b)
		return 1;
	struct trace_rec_run run;
	memset(&run, 0, sizeof(run));
	run.nworkers = 1;
	run.nnodes = 1;
	run.pid = 100 + (uint32_t) r;
	run.host_sid = tb_string(b, "node-a");
	run.policy_sid = tb_string(b, "eager");
	run.program_sid = tb_string(b, "ranks");
	tb_run(b, &run);
	tb_node(b, 0, 1 /* STARPU_CPU_RAM */, "RAM 0");
	tb_worker(b, 0, 0 /* CPU */, 0, "CPU 0", 0);
	int other = !strcmp(variant, "other-run") && r == nranks - 1;
	tb_process(b, other ? 0xbad : 0x5eed, r, (uint32_t) nranks);
	int skew = !strcmp(variant, "skew") && r == 1;
	if (strcmp(variant, "no-clock"))
	{
		tb_clock(b, local(r, 1000 * US), 1000 * US + (skew ? 1000 * US : 0), r ? 2 * US : 0, 0);
		tb_clock(b, local(r, 9000 * US), 9000 * US + (skew ? 1000 * US : 0), r ? 3 * US : 0, 0);
	}
	/* Everything happens between 2 ms and 3 ms of reference time. */
	uint64_t t = 2000 * US + (uint64_t) r * 50 * US;
	task(b, r, 1, "produce", t, 40 * US);
	int next = (r + 1) % nranks, prev = (r + nranks - 1) % nranks;
	uint64_t s0 = 2100 * US + (uint64_t) r * 50 * US;	/* rank r's send starts */
	comm(b, r, !strcmp(variant, "bad-peer") && r == 0 ? nranks : next, 1, 0, 4096, s0, s0 + 8 * US, 0);
	uint64_t p0 = 2100 * US + (uint64_t) prev * 50 * US;	/* the previous rank's */
	comm(b, r, prev, 0, 0, !strcmp(variant, "size") && r == 1 ? 4000 : 4096, p0 - 30 * US, p0 + 12 * US, 0);
	if (r == 0)
		comm(b, r, 1, 1, 1, 64, 2600 * US, 2650 * US, TCF_SYNC);
	if (r == 1)
		comm(b, r, 0, 0, 1, 64, 2620 * US, 2640 * US, 0);
	task(b, r, 2, "consume", 2400 * US + (uint64_t) r * 50 * US, 60 * US);
	tb_state(b, 0, TS_IDLE, local(r, 2300 * US), local(r, 2400 * US), 0);
	int ret = tw_close(&w, local(r, 3000 * US));
	if (ret)
		fprintf(stderr, "gen_ranks: writing %s failed (%d)\n", path, ret);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (nranks = atoi(argv[2])) < 2 || nranks > 64)
	{
		fprintf(stderr, "usage: gen_ranks PREFIX NRANKS(2..64) [other-run|bad-peer|size|skew|no-clock]\n");
		return 2;
	}
	if (argc > 3)
		variant = argv[3];
	for (int r = 0; r < nranks; r++)
		if (write_rank(argv[1], r))
			return 1;
	return 0;
}
