/* starpu_bitmap.h — growable sets of small non-negative integers.
 *
 * The component scheduler describes which workers lie under a component
 * with these sets; they grow on demand, so any worker id fits. A bitmap is
 * not thread-safe: its owner serialises changes (the scheduling tree does so
 * under its lock).
 */
#ifndef STARPU_BITMAP_H
#define STARPU_BITMAP_H

#include <starpu_util.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_bitmap;

/* An empty set; free it with starpu_bitmap_destroy. */
struct starpu_bitmap *starpu_bitmap_create(void) STARPU_ATTRIBUTE_MALLOC;
void starpu_bitmap_destroy(struct starpu_bitmap *b);

void starpu_bitmap_set(struct starpu_bitmap *b, int e);
void starpu_bitmap_unset(struct starpu_bitmap *b, int e);
void starpu_bitmap_unset_all(struct starpu_bitmap *b);
int starpu_bitmap_get(struct starpu_bitmap *b, int e);
/* a = b AND c (a's previous contents are dropped). */
void starpu_bitmap_unset_and(struct starpu_bitmap *a, struct starpu_bitmap *b, struct starpu_bitmap *c);
/* a = a OR b. */
void starpu_bitmap_or(struct starpu_bitmap *a, struct starpu_bitmap *b);
/* Whether e is in both b1 and b2. */
int starpu_bitmap_and_get(struct starpu_bitmap *b1, struct starpu_bitmap *b2, int e);
int starpu_bitmap_cardinal(struct starpu_bitmap *b);
/* Smallest / largest element, or -1 for an empty set. */
int starpu_bitmap_first(struct starpu_bitmap *b);
int starpu_bitmap_last(struct starpu_bitmap *b);
/* Smallest element greater than e, or -1. */
int starpu_bitmap_next(struct starpu_bitmap *b, int e);
int starpu_bitmap_has_next(struct starpu_bitmap *b, int e);

#ifdef __cplusplus
}
#endif

#endif /* STARPU_BITMAP_H */
