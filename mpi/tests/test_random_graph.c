/* test_random_graph.c — owner computes on random task graphs, compared
 * with a sequential run of the same graph.
 *
 * Every rank draws the same graph (same seed): handles of a few integers
 * with random owners, tasks that write one handle (RW or W) from up to
 * three others (R), some placed with STARPU_EXECUTE_ON_NODE, some writing
 * two handles of different owners (the selection policy picks), some
 * reading the same handle twice. The kernel mixes its inputs into its
 * output; integers keep the sequential reference exact. Each graph runs
 * with the cache on and again with it off; after each, every rank fetches
 * every handle (starpu_mpi_get_data_on_all_nodes_detached) and compares
 * it with the reference.
 */
#include "mpitest.h"

#define NH 24
#define NE 4		/* integers per handle */
#define NT 300
#define MAXIN 3

struct gtask
{
	int out, out2;		/* out2: a second written handle, or -1 */
	int w_only;		/* out is written without being read */
	int nin, in[MAXIN];
	int exec;		/* -1: owner computes */
	int id;
};

static int size, rank;
static int owner[NH];
static struct gtask g[NT];

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned) (rng % n);
}

static void draw(int nranks)
{
	for (int i = 0; i < NH; i++)
		owner[i] = (int) rnd((unsigned) nranks);
	for (int t = 0; t < NT; t++)
	{
		struct gtask *k = &g[t];
		k->id = t;
		k->out = (int) rnd(NH);
		k->w_only = rnd(10) == 0;
		k->out2 = rnd(8) == 0 ? (int) rnd(NH) : -1;
		if (k->out2 == k->out)
			k->out2 = -1;
		k->nin = (int) rnd(MAXIN + 1);
		for (int i = 0; i < k->nin; i++)
		{
			int x;
			do
				x = (int) rnd(NH);
			while (x == k->out || x == k->out2);
			k->in[i] = x;	/* may repeat: the same handle read twice */
		}
		k->exec = rnd(6) == 0 ? (int) rnd((unsigned) nranks) : -1;
	}
}

/* The kernel on plain arrays: the reference and the codelet share it. */
static void apply(long *out, long *out2, long **in, int nin, int id, int w_only)
{
	for (int e = 0; e < NE; e++)
	{
		long acc = w_only ? 7 : out[e];
		for (int i = 0; i < nin; i++)
			acc = acc * 31 + in[i][e];
		out[e] = (acc + id + e) % 1000003;
		if (out2)
			out2[e] = (out2[e] * 17 + out[e]) % 1000003;
	}
}

static void kernel(void *buffers[], void *cl_arg)
{
	int id, nin, w_only, has2;
	starpu_codelet_unpack_args(cl_arg, &id, &nin, &w_only, &has2);
	long *out = (long *) STARPU_VECTOR_GET_PTR(buffers[0]);
	long *out2 = has2 ? (long *) STARPU_VECTOR_GET_PTR(buffers[1]) : NULL;
	long *in[MAXIN];
	for (int i = 0; i < nin; i++)
		in[i] = (long *) STARPU_VECTOR_GET_PTR(buffers[1 + has2 + i]);
	apply(out, out2, in, nin, id, w_only);
}

static struct starpu_codelet cl = {
	.cpu_funcs = { kernel },
	.nbuffers = STARPU_VARIABLE_NBUFFERS,
	.name = "mix",
};

static long ref[NH][NE];

static void sequential(void)
{
	for (int i = 0; i < NH; i++)
		for (int e = 0; e < NE; e++)
			ref[i][e] = i * 100 + e;
	for (int t = 0; t < NT; t++)
	{
		struct gtask *k = &g[t];
		long *in[MAXIN];
		long copy[MAXIN][NE];
		for (int i = 0; i < k->nin; i++)
		{
			memcpy(copy[i], ref[k->in[i]], sizeof(copy[i]));
			in[i] = copy[i];
		}
		apply(ref[k->out], k->out2 >= 0 ? ref[k->out2] : NULL, in, k->nin, k->id, k->w_only);
	}
}

static void run(int cache, int round)
{
	CHECK_EQ(starpu_mpi_cache_set(cache), 0);
	CHECK_EQ(starpu_mpi_cache_is_enabled(), cache);
	static long data[NH][NE];
	starpu_data_handle_t h[NH];
	for (int i = 0; i < NH; i++)
	{
		for (int e = 0; e < NE; e++)
			data[i][e] = i * 100 + e;
		if (owner[i] == rank)
			starpu_vector_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t) data[i], NE, sizeof(long));
		else
			starpu_vector_data_register(&h[i], -1, 0, NE, sizeof(long));
		starpu_mpi_data_register(h[i], 10000 * round + i, owner[i]);
	}
	for (int t = 0; t < NT; t++)
	{
		struct gtask *k = &g[t];
		struct starpu_data_descr d[2 + MAXIN];
		int n = 0;
		d[n].handle = h[k->out];
		d[n++].mode = k->w_only ? STARPU_W : STARPU_RW;
		if (k->out2 >= 0)
		{
			d[n].handle = h[k->out2];
			d[n++].mode = STARPU_RW;
		}
		for (int i = 0; i < k->nin; i++)
		{
			d[n].handle = h[k->in[i]];
			d[n++].mode = STARPU_R;
		}
		int has2 = k->out2 >= 0;
		int ret;
		if (k->exec >= 0)
			ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &cl, STARPU_DATA_MODE_ARRAY, d, n,
						     STARPU_VALUE, &k->id, sizeof(int), STARPU_VALUE, &k->nin, sizeof(int),
						     STARPU_VALUE, &k->w_only, sizeof(int), STARPU_VALUE, &has2, sizeof(int),
						     STARPU_EXECUTE_ON_NODE, k->exec, 0);
		else
			ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &cl, STARPU_DATA_MODE_ARRAY, d, n,
						     STARPU_VALUE, &k->id, sizeof(int), STARPU_VALUE, &k->nin, sizeof(int),
						     STARPU_VALUE, &k->w_only, sizeof(int), STARPU_VALUE, &has2, sizeof(int), 0);
		CHECK_EQ(ret, 0);
	}
	/* Everyone gets everything and checks it. */
	for (int i = 0; i < NH; i++)
		starpu_mpi_get_data_on_all_nodes_detached(MPI_COMM_WORLD, h[i]);
	CHECK_EQ(starpu_mpi_wait_for_all(MPI_COMM_WORLD), 0);
	for (int i = 0; i < NH; i++)
	{
		CHECK_EQ(starpu_data_acquire(h[i], STARPU_R), 0);
		long *v = (long *) starpu_vector_get_local_ptr(h[i]);
		for (int e = 0; e < NE; e++)
			if (v[e] != ref[i][e])
			{
				fprintf(stderr, "[rank %d] cache %d: handle %d (owner %d) element %d: %ld, expected %ld\n",
					rank, cache, i, owner[i], e, v[e], ref[i][e]);
				CHECK(0);
			}
		starpu_data_release(h[i]);
	}
	for (int i = 0; i < NH; i++)
		starpu_data_unregister(h[i]);
	if (owner[0] == rank)
		CHECK_EQ(data[0][0], ref[0][0]);
}

int main(int argc, char **argv)
{
	rank = mt_start(&argc, &argv, "test_random_graph", 1, &size);
	size_t before[64] = { 0 }, after_on[64] = { 0 }, after_off[64] = { 0 };
	for (int graph = 0; graph < 3; graph++)
	{
		draw(size);
		sequential();
		starpu_mpi_comm_amounts_retrieve(before);
		run(1, 2 * graph);
		starpu_mpi_comm_amounts_retrieve(after_on);
		run(0, 2 * graph + 1);
		starpu_mpi_comm_amounts_retrieve(after_off);
		/* The cache can only save messages. */
		size_t on = 0, off = 0;
		for (int r = 0; r < size && r < 64; r++)
		{
			on += after_on[r] - before[r];
			off += after_off[r] - after_on[r];
		}
		CHECK(on <= off);
		if (rank == 0)
			printf("test_random_graph: graph %d on %d ranks: right with the cache on and off; rank 0 sent %zu bytes with the cache, %zu without\n",
			       graph, size, on, off);
	}
	CHECK_EQ(starpu_mpi_shutdown(), 0);
	return 0;
}
