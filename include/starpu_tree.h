/* starpu_tree.h — a small tree of integer ids (StarPU builds the machine's
 * topology with it; schedulers and applications walk it). Each node owns
 * the array of its arity children.
 */
#ifndef STARPU_TREE_H
#define STARPU_TREE_H

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_tree
{
	struct starpu_tree *nodes;	/* the children, arity of them (owned) */
	struct starpu_tree *father;
	int arity;
	int id;
	int level;
	int is_pu;			/* a leaf standing for a processing unit */
};

/* Clears visited[id] for every node of the tree. */
void starpu_tree_reset_visited(struct starpu_tree *tree, char *visited);
/* Allocates father's arity children (to be filled by starpu_tree_insert). */
void starpu_tree_prepare_children(unsigned arity, struct starpu_tree *father);
/* Sets a node's fields (its children array is left empty). */
void starpu_tree_insert(struct starpu_tree *tree, int id, int level, int is_pu, int arity, struct starpu_tree *father);
/* The node with this id, or NULL. */
struct starpu_tree *starpu_tree_get(struct starpu_tree *tree, int id);
/* The nearest processing unit to node (node excluded) that is present and
 * not yet visited (both arrays indexed by id): in the subtrees of node's
 * siblings, then of its father's siblings, and so on up to tree (node
 * NULL: anywhere in tree). Marks it visited; NULL when there is none. */
struct starpu_tree *starpu_tree_get_neighbour(struct starpu_tree *tree, struct starpu_tree *node, char *visited, char *present);
/* Frees the children arrays below tree (not tree itself). */
void starpu_tree_free(struct starpu_tree *tree);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_TREE_H */
