/* disk_unistd.c — the unistd disk backend, in a directory: what the runtime
 * allocates lives in one swap file there (created at plug time and
 * unlinked at once, so nothing is left behind even after a crash), carved
 * into extents; starpu_disk_open() wraps existing files of the directory.
 * Everything is read and written with pread/pwrite.
 *
 * One file instead of one per piece of data: creating a file costs a
 * millisecond on common file systems, more than writing a few kilobytes.
 */
#define _GNU_SOURCE
#include <starpu.h>
#include "os/os.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A free extent of the swap file (list sorted by offset). */
struct hole
{
	off_t off;
	size_t size;
	struct hole *next;
};

struct unistd_base
{
	char *dir;
	int swap_fd;
	os_mutex_t lock;	/* protects holes and end */
	struct hole *holes;
	off_t end;		/* first byte past the last extent */
};

struct unistd_obj
{
	int fd;			/* the swap file, or an opened file */
	off_t off;		/* where the object starts in fd */
	size_t size;
	size_t extent;		/* swap objects: the bytes reserved */
	char *path;		/* opened files: their path */
};

#define EXTENT_ALIGN 64

static void *unistd_plug(void *parameter, ssize_t size)
{
	(void) size;
	const char *dir = parameter;
	struct stat st;
	if (!dir || stat(dir, &st) != 0)
	{
		if (dir)
			errno = ENOENT;
		return NULL;
	}
	if (!S_ISDIR(st.st_mode))
	{
		errno = ENOTDIR;
		return NULL;
	}
	if (access(dir, W_OK | X_OK) != 0)
	{
		errno = EACCES;
		return NULL;
	}
	/* Permission bits do not tell everything (root, read-only or special
	 * file systems): creating the swap file tells. */
	size_t plen = strlen(dir) + 32;
	char *path = malloc(plen);
	struct unistd_base *b = calloc(1, sizeof(*b));
	if (!path || !b || !(b->dir = strdup(dir)))
	{
		free(path);
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	snprintf(path, plen, "%s/vela-swap-XXXXXX", dir);
	int fd = mkstemp(path);
	if (fd < 0)
	{
		int err = errno == ENOENT || errno == EROFS || errno == EPERM ? EACCES : errno;
		free(path);
		free(b->dir);
		free(b);
		errno = err;
		return NULL;
	}
	unlink(path);
	free(path);
	b->swap_fd = fd;
	os_mutex_init(&b->lock);
	return b;
}

static void unistd_unplug(void *base)
{
	struct unistd_base *b = base;
	while (b->holes)
	{
		struct hole *h = b->holes;
		b->holes = h->next;
		free(h);
	}
	close(b->swap_fd);
	os_mutex_destroy(&b->lock);
	free(b->dir);
	free(b);
}

static int unistd_bandwidth(unsigned node, void *base)
{
	(void) node;
	(void) base;
	return 1;
}

/* First fit among the holes, else at the end of the file. */
static off_t extent_take(struct unistd_base *b, size_t size)
{
	os_mutex_lock(&b->lock);
	off_t off = -1;
	for (struct hole **ph = &b->holes; *ph; ph = &(*ph)->next)
	{
		struct hole *h = *ph;
		if (h->size < size)
			continue;
		off = h->off;
		h->off += (off_t) size;
		h->size -= size;
		if (!h->size)
		{
			*ph = h->next;
			free(h);
		}
		break;
	}
	if (off < 0)
	{
		off = b->end;
		b->end += (off_t) size;
	}
	os_mutex_unlock(&b->lock);
	return off;
}

/* Gives an extent back, merging it with its neighbours; the file shrinks
 * when its last extent goes. */
static void extent_give(struct unistd_base *b, off_t off, size_t size)
{
	os_mutex_lock(&b->lock);
	struct hole **ph = &b->holes, *prev = NULL;
	while (*ph && (*ph)->off < off)
	{
		prev = *ph;
		ph = &(*ph)->next;
	}
	struct hole *next = *ph;
	if (prev && prev->off + (off_t) prev->size == off)
	{
		prev->size += size;
		if (next && prev->off + (off_t) prev->size == next->off)
		{
			prev->size += next->size;
			prev->next = next->next;
			free(next);
		}
	}
	else if (next && off + (off_t) size == next->off)
	{
		next->off = off;
		next->size += size;
	}
	else
	{
		struct hole *h = malloc(sizeof(*h));
		if (h)
		{
			h->off = off;
			h->size = size;
			h->next = next;
			*ph = h;
		}
		/* else the extent is lost until unplug: harmless */
	}
	/* A hole at the end is no hole: shrink. */
	struct hole **pl = &b->holes;
	while (*pl && (*pl)->next)
		pl = &(*pl)->next;
	if (*pl && (*pl)->off + (off_t) (*pl)->size == b->end)
	{
		b->end = (*pl)->off;
		free(*pl);
		*pl = NULL;
		if (ftruncate(b->swap_fd, b->end) != 0)
		{
			/* Only space is lost. */
		}
	}
	os_mutex_unlock(&b->lock);
}

static size_t extent_size(size_t size)
{
	return (size + EXTENT_ALIGN - 1) / EXTENT_ALIGN * EXTENT_ALIGN;
}

static void *unistd_alloc(void *base, size_t size)
{
	struct unistd_base *b = base;
	struct unistd_obj *o = malloc(sizeof(*o));
	if (!o)
		return NULL;
	o->fd = b->swap_fd;
	o->size = size;
	o->path = NULL;
	o->extent = extent_size(size ? size : 1);
	o->off = extent_take(b, o->extent);
	return o;
}

static void unistd_free(void *base, void *obj, size_t size)
{
	(void) size;
	struct unistd_base *b = base;
	struct unistd_obj *o = obj;
	if (o->path)
	{
		close(o->fd);
		free(o->path);
	}
	else
		extent_give(b, o->off, o->extent);
	free(o);
}

static void *unistd_open(void *base, void *pos, size_t size)
{
	struct unistd_base *b = base;
	const char *name = pos;
	struct unistd_obj *o = malloc(sizeof(*o));
	if (!o)
		return NULL;
	size_t len = strlen(b->dir) + strlen(name) + 2;
	o->path = malloc(len);
	if (!o->path)
	{
		free(o);
		return NULL;
	}
	snprintf(o->path, len, "%s/%s", b->dir, name);
	o->fd = open(o->path, O_RDWR);
	if (o->fd < 0)
	{
		free(o->path);
		free(o);
		return NULL;
	}
	o->off = 0;
	o->size = size;
	o->extent = 0;
	return o;
}

static void unistd_close(void *base, void *obj, size_t size)
{
	unistd_free(base, obj, size);
}

/* Reads (or writes) size bytes at offset of the object, whatever the
 * system call does per call: short transfers continue, interruptions
 * retry. 0, or a negative errno (-EIO at an unexpected end of file). */
static int transfer(struct unistd_obj *o, char *buf, off_t offset, size_t size, int write)
{
	offset += o->off;
	while (size)
	{
		ssize_t n = write ? pwrite(o->fd, buf, size, offset) : pread(o->fd, buf, size, offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		offset += n;
		size -= (size_t) n;
	}
	return 0;
}

static int unistd_read(void *base, void *obj, void *buf, off_t offset, size_t size)
{
	(void) base;
	return transfer(obj, buf, offset, size, 0);
}

static int unistd_write(void *base, void *obj, const void *buf, off_t offset, size_t size)
{
	(void) base;
	return transfer(obj, (char *) buf, offset, size, 1);
}

static int unistd_full_read(void *base, void *obj, void **ptr, size_t *size, unsigned dst_node)
{
	(void) dst_node;
	struct unistd_obj *o = obj;
	*size = o->size;
	*ptr = malloc(o->size ? o->size : 1);
	if (!*ptr)
		return -ENOMEM;
	return unistd_read(base, obj, *ptr, 0, o->size);
}

static int unistd_full_write(void *base, void *obj, void *ptr, size_t size)
{
	struct unistd_obj *o = obj;
	if (size != o->size)
	{
		/* An extent cannot grow; an opened file can. */
		if (!o->path && size > o->extent)
			return -ENOSPC;
		if (o->path && ftruncate(o->fd, (off_t) size) != 0)
			return -errno;
		o->size = size;
	}
	return unistd_write(base, obj, ptr, 0, size);
}

struct starpu_disk_ops starpu_disk_unistd_ops = {
	.plug = unistd_plug,
	.unplug = unistd_unplug,
	.bandwidth = unistd_bandwidth,
	.alloc = unistd_alloc,
	.free = unistd_free,
	.open = unistd_open,
	.close = unistd_close,
	.read = unistd_read,
	.write = unistd_write,
	.full_read = unistd_full_read,
	.full_write = unistd_full_write,
};
