/* test_ms_random_graph.c — a random task graph on the master's CPU and the
 * slaves, compared with the same graph computed sequentially on the host.
 *
 * NDATA vectors of integers; each task reads up to two of them and writes
 * a third (out = out * 31 + 7 * sum of its inputs + k, wrapping): the
 * result depends on the exact order of every write and of every read
 * before it, so any ordering or coherency mistake shows. The graph runs
 * under several policies, some tasks pinned to a given slave (so that
 * data moves between slaves), the others wherever the policy likes.
 */
#include "mstest.h"

#include <stdint.h>

#define NDATA 24
#define NTASKS 400
#define LEN 256

void ms_mix(void *buffers[], void *arg);
void ms_mix(void *buffers[], void *arg)
{
	uint64_t k;
	int nin;
	starpu_codelet_unpack_args(arg, &k, &nin);
	uint64_t *out = (uint64_t *) STARPU_VECTOR_GET_PTR(buffers[nin]);
	for (unsigned i = 0; i < LEN; i++)
	{
		uint64_t s = 0;
		for (int b = 0; b < nin; b++)
			s += ((uint64_t *) STARPU_VECTOR_GET_PTR(buffers[b]))[i];
		out[i] = out[i] * 31 + 7 * s + k + i;
	}
}

static struct starpu_codelet mix_cl = {
	.cpu_funcs = { ms_mix },
	.cpu_funcs_name = { "ms_mix" },
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
	.name = "mix",
};

struct spec
{
	int in[2], nin, out, pin;	/* pin: -1 anywhere, else a slave */
	uint64_t k;
};

static uint64_t rng = 12345;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned) ((rng >> 33) % n);
}

int main(void)
{
	static struct spec g[NTASKS];
	static uint64_t ref[NDATA][LEN], data[NDATA][LEN];
	for (int t = 0; t < NTASKS; t++)
	{
		struct spec *s = &g[t];
		s->out = (int) rnd(NDATA);
		s->nin = (int) rnd(3);
		for (int b = 0; b < s->nin; b++)
			do
				s->in[b] = (int) rnd(NDATA);
			while (s->in[b] == s->out || (b == 1 && s->in[1] == s->in[0]));
		s->pin = rnd(4) == 0 ? (int) rnd(2) : -1;
		s->k = rnd(1000);
	}
	for (int d = 0; d < NDATA; d++)
		for (int i = 0; i < LEN; i++)
			ref[d][i] = (uint64_t) d * 1000 + (uint64_t) i;
	for (int t = 0; t < NTASKS; t++)
		for (int i = 0; i < LEN; i++)
		{
			uint64_t s = 0;
			for (int b = 0; b < g[t].nin; b++)
				s += ref[g[t].in[b]][i];
			ref[g[t].out][i] = ref[g[t].out][i] * 31 + 7 * s + g[t].k + (uint64_t) i;
		}

	const char *scheds[] = { "eager", "dmda", "lws", "random" };
	for (unsigned p = 0; p < sizeof(scheds) / sizeof(scheds[0]); p++)
	{
		setenv("STARPU_SCHED", scheds[p], 1);
		ms_start("test_ms_random_graph", 1, 2);
		starpu_data_handle_t h[NDATA];
		for (int d = 0; d < NDATA; d++)
		{
			for (int i = 0; i < LEN; i++)
				data[d][i] = (uint64_t) d * 1000 + (uint64_t) i;
			starpu_vector_data_register(&h[d], STARPU_MAIN_RAM, (uintptr_t) data[d], LEN, sizeof(uint64_t));
		}
		for (int t = 0; t < NTASKS; t++)
		{
			struct spec *s = &g[t];
			struct starpu_task *task = starpu_task_create();
			task->cl = &mix_cl;
			task->nbuffers = s->nin + 1;
			for (int b = 0; b < s->nin; b++)
			{
				task->handles[b] = h[s->in[b]];
				task->modes[b] = STARPU_R;
			}
			task->handles[s->nin] = h[s->out];
			task->modes[s->nin] = STARPU_RW;
			starpu_codelet_pack_args(&task->cl_arg, &task->cl_arg_size, STARPU_VALUE, &s->k, sizeof(s->k),
						 STARPU_VALUE, &s->nin, sizeof(s->nin), 0);
			task->cl_arg_free = 1;
			if (s->pin >= 0)
			{
				task->execute_on_a_specific_worker = 1;
				task->workerid = (unsigned) ms_slave_worker(s->pin, 0);
			}
			CHECK_EQ(starpu_task_submit(task), 0);
		}
		CHECK_EQ(starpu_task_wait_for_all(), 0);
		unsigned on_slaves = 0;
		for (unsigned w = 0; w < starpu_worker_get_count(); w++)
			if (starpu_worker_get_type((int) w) == STARPU_MPI_MS_WORKER)
				on_slaves += mix_cl.per_worker_stats[w];
		memset(mix_cl.per_worker_stats, 0, sizeof(mix_cl.per_worker_stats));
		for (int d = 0; d < NDATA; d++)
			starpu_data_unregister(h[d]);
		starpu_shutdown();
		for (int d = 0; d < NDATA; d++)
			for (int i = 0; i < LEN; i++)
				if (data[d][i] != ref[d][i])
				{
					fprintf(stderr, "[%s] %s: datum %d element %d differs from the sequential run\n", ms_name,
						scheds[p], d, i);
					return 1;
				}
		fprintf(stderr, "[%s] %s: %d tasks, %u on the slaves, same result as the sequential run\n", ms_name, scheds[p],
			NTASKS, on_slaves);
	}
	return 0;
}
