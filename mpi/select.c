/* select.c — node selection policies: which rank executes a task when the
 * data it writes has several owners (or it writes none) and the task does
 * not say (STARPU_EXECUTE_ON_NODE / _ON_DATA). Policy 0, "most R data",
 * is built in; applications add theirs. Every rank must pick the same
 * rank: policies see only what every rank knows (owners and sizes).
 */
#include "mpi_internal.h"

#include <stdlib.h>

#define MAX_POLICIES 16

static starpu_mpi_select_node_policy_func_t policies[MAX_POLICIES];
static int current;

/* The rank owning the most bytes of the data the task reads; the lowest
 * such rank on a tie, rank 0 when it reads nothing. */
static int most_r_data(int me, int nb_nodes, struct starpu_data_descr *descr, int nb_data)
{
	(void) me;
	size_t best = 0;
	int winner = 0;
	size_t *bytes = calloc((size_t) nb_nodes, sizeof(size_t));
	if (!bytes)
		return 0;
	for (int i = 0; i < nb_data; i++)
	{
		if (!(descr[i].mode & STARPU_R))
			continue;
		int rank = starpu_mpi_data_get_rank(descr[i].handle);
		if (rank >= 0 && rank < nb_nodes)
			bytes[rank] += starpu_data_get_size(descr[i].handle);
	}
	for (int r = 0; r < nb_nodes; r++)
		if (bytes[r] > best)
		{
			best = bytes[r];
			winner = r;
		}
	free(bytes);
	return winner;
}

void select_init(void)
{
	policies[STARPU_MPI_NODE_SELECTION_MOST_R_DATA] = most_r_data;
	current = STARPU_MPI_NODE_SELECTION_MOST_R_DATA;
}

int starpu_mpi_node_selection_register_policy(starpu_mpi_select_node_policy_func_t policy_func)
{
	if (!policy_func)
	{
		mpi_error("starpu_mpi_node_selection_register_policy: policy_func is NULL (-EINVAL)");
		return -EINVAL;
	}
	policies[0] = most_r_data;
	for (int i = 1; i < MAX_POLICIES; i++)
		if (!policies[i])
		{
			policies[i] = policy_func;
			return i;
		}
	mpi_error("starpu_mpi_node_selection_register_policy: all %d policies are taken (-ENOSPC)", MAX_POLICIES);
	return -ENOSPC;
}

int starpu_mpi_node_selection_unregister_policy(int policy)
{
	if (policy <= 0 || policy >= MAX_POLICIES || !policies[policy])
	{
		mpi_error("starpu_mpi_node_selection_unregister_policy: policy %d is not a registered one (-EINVAL)", policy);
		return -EINVAL;
	}
	policies[policy] = NULL;
	if (current == policy)
		current = STARPU_MPI_NODE_SELECTION_MOST_R_DATA;
	return 0;
}

int starpu_mpi_node_selection_get_current_policy(void)
{
	return current;
}

int starpu_mpi_node_selection_set_current_policy(int policy)
{
	if (policy < 0 || policy >= MAX_POLICIES || !policies[policy])
	{
		mpi_error("starpu_mpi_node_selection_set_current_policy: policy %d is not registered (-EINVAL)", policy);
		return -EINVAL;
	}
	current = policy;
	return 0;
}

/* The rank policy (or the current one) picks; -EINVAL with a message
 * naming fn for an unknown policy or a rank outside the communicator. */
int select_node(int policy, int me, int size, struct starpu_data_descr *descr, int n, const char *fn)
{
	if (policy == STARPU_MPI_NODE_SELECTION_CURRENT_POLICY)
		policy = current;
	if (policy < 0 || policy >= MAX_POLICIES || !policies[policy])
	{
		mpi_error("%s: node selection policy %d is not registered (-EINVAL)", fn, policy);
		return -EINVAL;
	}
	if (!policies[0])
		policies[0] = most_r_data;
	int rank = policies[policy](me, size, descr, n);
	if (rank < 0 || rank >= size)
	{
		mpi_error("%s: node selection policy %d chose rank %d, outside the communicator (size %d) (-EINVAL)", fn, policy, rank, size);
		return -EINVAL;
	}
	return rank;
}
