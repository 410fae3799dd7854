/* tree.c — the small id tree of starpu_tree.h, for applications and
 * schedulers that describe a hierarchy (of processing units, usually).
 * Nodes are filled by the application; children arrays are owned by their
 * father and freed by starpu_tree_free.
 */
#include <starpu.h>

#include <stdlib.h>

void starpu_tree_prepare_children(unsigned arity, struct starpu_tree *father)
{
	if (!father)
		return;
	father->nodes = arity ? calloc(arity, sizeof(*father->nodes)) : NULL;
	father->arity = father->nodes ? (int) arity : 0;
}

void starpu_tree_insert(struct starpu_tree *tree, int id, int level, int is_pu, int arity, struct starpu_tree *father)
{
	if (!tree)
		return;
	tree->id = id;
	tree->level = level;
	tree->is_pu = is_pu;
	tree->arity = arity;
	tree->father = father;
	tree->nodes = NULL;
}

struct starpu_tree *starpu_tree_get(struct starpu_tree *tree, int id)
{
	if (!tree)
		return NULL;
	if (tree->id == id)
		return tree;
	for (int i = 0; tree->nodes && i < tree->arity; i++)
	{
		struct starpu_tree *found = starpu_tree_get(&tree->nodes[i], id);
		if (found)
			return found;
	}
	return NULL;
}

void starpu_tree_reset_visited(struct starpu_tree *tree, char *visited)
{
	if (!tree || !visited)
		return;
	if (tree->id >= 0)
		visited[tree->id] = 0;
	for (int i = 0; tree->nodes && i < tree->arity; i++)
		starpu_tree_reset_visited(&tree->nodes[i], visited);
}

/* A processing unit below node (node included), present and not visited. */
static struct starpu_tree *leaf_below(struct starpu_tree *node, char *visited, char *present)
{
	if (node->is_pu && node->id >= 0 && present[node->id] && !visited[node->id])
		return node;
	for (int i = 0; node->nodes && i < node->arity; i++)
	{
		struct starpu_tree *found = leaf_below(&node->nodes[i], visited, present);
		if (found)
			return found;
	}
	return NULL;
}

struct starpu_tree *starpu_tree_get_neighbour(struct starpu_tree *tree, struct starpu_tree *node, char *visited, char *present)
{
	if (!tree || !visited || !present)
		return NULL;
	if (!node)
		return leaf_below(tree, visited, present);
	/* Node's siblings' subtrees (from the next one round), then its
	 * father's siblings', and so on up. */
	struct starpu_tree *found = NULL;
	for (struct starpu_tree *from = node; !found && from != tree && from->father; from = from->father)
	{
		struct starpu_tree *f = from->father;
		int me = (int) (from - f->nodes);
		for (int k = 1; !found && f->nodes && k < f->arity; k++)
			found = leaf_below(&f->nodes[(me + k) % f->arity], visited, present);
	}
	if (found && found->id >= 0)
		visited[found->id] = 1;
	return found;
}

void starpu_tree_free(struct starpu_tree *tree)
{
	if (!tree)
		return;
	for (int i = 0; tree->nodes && i < tree->arity; i++)
		starpu_tree_free(&tree->nodes[i]);
	free(tree->nodes);
	tree->nodes = NULL;
	tree->arity = 0;
}
