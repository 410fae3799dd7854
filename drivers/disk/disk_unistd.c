/* disk_unistd.c — the unistd disk backend: each piece of data is a file of
 * a directory, read and written with pread/pwrite. Files created by the
 * runtime are removed when freed; starpu_disk_open() wraps existing ones.
 */
#define _GNU_SOURCE
#include <starpu.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct unistd_base
{
	char *dir;
};

struct unistd_obj
{
	int fd;
	char *path;
	size_t size;
	int owned;		/* created by alloc: unlinked by free */
};

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
	 * file systems): create and remove a file to be sure. */
	size_t plen = strlen(dir) + 32;
	char *probe = malloc(plen);
	if (!probe)
	{
		errno = ENOMEM;
		return NULL;
	}
	snprintf(probe, plen, "%s/vela-probe-XXXXXX", dir);
	int fd = mkstemp(probe);
	if (fd < 0)
	{
		int err = errno == ENOENT || errno == EROFS || errno == EPERM ? EACCES : errno;
		free(probe);
		errno = err;
		return NULL;
	}
	close(fd);
	unlink(probe);
	free(probe);
	struct unistd_base *b = malloc(sizeof(*b));
	if (!b || !(b->dir = strdup(dir)))
	{
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	return b;
}

static void unistd_unplug(void *base)
{
	struct unistd_base *b = base;
	free(b->dir);
	free(b);
}

static int unistd_bandwidth(unsigned node, void *base)
{
	(void) node;
	(void) base;
	return 1;
}

static void *unistd_alloc(void *base, size_t size)
{
	struct unistd_base *b = base;
	struct unistd_obj *o = malloc(sizeof(*o));
	if (!o)
		return NULL;
	size_t len = strlen(b->dir) + 32;
	o->path = malloc(len);
	if (!o->path)
	{
		free(o);
		return NULL;
	}
	snprintf(o->path, len, "%s/vela-ooc-XXXXXX", b->dir);
	o->fd = mkstemp(o->path);
	if (o->fd < 0 || ftruncate(o->fd, (off_t) size) != 0)
	{
		if (o->fd >= 0)
		{
			close(o->fd);
			unlink(o->path);
		}
		free(o->path);
		free(o);
		return NULL;
	}
	o->size = size;
	o->owned = 1;
	return o;
}

static void unistd_free(void *base, void *obj, size_t size)
{
	(void) base;
	(void) size;
	struct unistd_obj *o = obj;
	close(o->fd);
	if (o->owned)
		unlink(o->path);
	free(o->path);
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
	o->size = size;
	o->owned = 0;
	return o;
}

static void unistd_close(void *base, void *obj, size_t size)
{
	unistd_free(base, obj, size);
}

static int unistd_read(void *base, void *obj, void *buf, off_t offset, size_t size)
{
	(void) base;
	struct unistd_obj *o = obj;
	char *p = buf;
	while (size)
	{
		ssize_t n = pread(o->fd, p, size, offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		offset += n;
		size -= (size_t) n;
	}
	return 0;
}

static int unistd_write(void *base, void *obj, const void *buf, off_t offset, size_t size)
{
	(void) base;
	struct unistd_obj *o = obj;
	const char *p = buf;
	while (size)
	{
		ssize_t n = pwrite(o->fd, p, size, offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		offset += n;
		size -= (size_t) n;
	}
	return 0;
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
	if (size != o->size && ftruncate(o->fd, (off_t) size) != 0)
		return -errno;
	o->size = size;
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
