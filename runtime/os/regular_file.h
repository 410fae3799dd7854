/* regular_file.h — opening a file that must be a regular file (a model,
 * the bus model, a trace, a tasks.rec) without ever blocking on it.
 *
 * fopen() on a FIFO blocks until a writer appears, before any check of
 * what was opened could run; a directory opens fine and reports a size of
 * LLONG_MAX on some file systems. So: open with O_NONBLOCK (a FIFO opens
 * at once, a regular file is unaffected), fstat the descriptor (no race
 * with a rename between a stat and the open), refuse anything that is not
 * a regular file, then clear O_NONBLOCK.
 *
 * Header-only, outside the os_ops table: files are the same whether the
 * run is real or simulated, and the trace reader (tools/libvelatrace),
 * which does not link the runtime, uses it too.
 */
#ifndef VELA_OS_REGULAR_FILE_H
#define VELA_OS_REGULAR_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a non-regular file is, for messages ("... is a directory"). */
static inline const char *os_file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO (named pipe)";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* Opens path with flags (and mode, with O_CREAT) if it is a regular file.
 * Returns the descriptor (close-on-exec, blocking), or a negative errno:
 * the open's, or -EINVAL for anything that is not a regular file (a
 * directory, FIFO, device or socket), with *kind (when kind is not NULL)
 * set to os_file_kind's words. st (may be NULL) receives the file's
 * status. */
static inline int os_open_regular(const char *path, int flags, mode_t mode, struct stat *st, const char **kind)
{
	struct stat s;
	if (kind)
		*kind = NULL;
	int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, mode);
	if (fd < 0)
	{
		/* A directory opened for writing fails here. */
		if (errno == EISDIR)
		{
			if (kind)
				*kind = "a directory";
			return -EINVAL;
		}
		return -errno;
	}
	if (fstat(fd, &s))
	{
		int e = errno;
		close(fd);
		return -e;
	}
	if (!S_ISREG(s.st_mode))
	{
		close(fd);
		if (kind)
			*kind = os_file_kind(s.st_mode);
		return -EINVAL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (st)
		*st = s;
	return fd;
}

#endif /* VELA_OS_REGULAR_FILE_H */
