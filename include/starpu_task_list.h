/* starpu_task_list.h — a doubly linked list of tasks threaded through
 * task->prev / task->next, for scheduling policies. A task is in at most one
 * such list at a time. All operations are O(1) except ismember.
 */
#ifndef STARPU_TASK_LIST_H
#define STARPU_TASK_LIST_H

#include <starpu_task.h>
#include <starpu_util.h>

#ifdef __cplusplus
extern "C"
{
#endif

struct starpu_task_list
{
	struct starpu_task *head;
	struct starpu_task *tail;
};

static STARPU_INLINE void starpu_task_list_init(struct starpu_task_list *list)
{
	list->head = NULL;
	list->tail = NULL;
}

static STARPU_INLINE void starpu_task_list_push_front(struct starpu_task_list *list, struct starpu_task *task)
{
	task->prev = NULL;
	task->next = list->head;
	if (list->head)
		list->head->prev = task;
	else
		list->tail = task;
	list->head = task;
}

static STARPU_INLINE void starpu_task_list_push_back(struct starpu_task_list *list, struct starpu_task *task)
{
	task->next = NULL;
	task->prev = list->tail;
	if (list->tail)
		list->tail->next = task;
	else
		list->head = task;
	list->tail = task;
}

static STARPU_INLINE struct starpu_task *starpu_task_list_front(const struct starpu_task_list *list)
{
	return list->head;
}

static STARPU_INLINE struct starpu_task *starpu_task_list_back(const struct starpu_task_list *list)
{
	return list->tail;
}

static STARPU_INLINE int starpu_task_list_empty(const struct starpu_task_list *list)
{
	return list->head == NULL;
}

static STARPU_INLINE void starpu_task_list_erase(struct starpu_task_list *list, struct starpu_task *task)
{
	if (task->prev)
		task->prev->next = task->next;
	else
		list->head = task->next;
	if (task->next)
		task->next->prev = task->prev;
	else
		list->tail = task->prev;
	task->prev = NULL;
	task->next = NULL;
}

static STARPU_INLINE struct starpu_task *starpu_task_list_pop_front(struct starpu_task_list *list)
{
	struct starpu_task *task = list->head;
	if (task)
		starpu_task_list_erase(list, task);
	return task;
}

static STARPU_INLINE struct starpu_task *starpu_task_list_pop_back(struct starpu_task_list *list)
{
	struct starpu_task *task = list->tail;
	if (task)
		starpu_task_list_erase(list, task);
	return task;
}

static STARPU_INLINE struct starpu_task *starpu_task_list_begin(const struct starpu_task_list *list)
{
	return list->head;
}

static STARPU_INLINE struct starpu_task *starpu_task_list_end(const struct starpu_task_list *list STARPU_ATTRIBUTE_UNUSED)
{
	return NULL;
}

static STARPU_INLINE struct starpu_task *starpu_task_list_next(const struct starpu_task *task)
{
	return task->next;
}

static STARPU_INLINE int starpu_task_list_ismember(const struct starpu_task_list *list, const struct starpu_task *look)
{
	for (const struct starpu_task *t = list->head; t; t = t->next)
		if (t == look)
			return 1;
	return 0;
}

/* Moves every task of lsrc to ldst (which must be empty), leaving lsrc empty. */
static STARPU_INLINE void starpu_task_list_move(struct starpu_task_list *ldst, struct starpu_task_list *lsrc)
{
	*ldst = *lsrc;
	lsrc->head = NULL;
	lsrc->tail = NULL;
}

#ifdef __cplusplus
}
#endif

#endif /* STARPU_TASK_LIST_H */
