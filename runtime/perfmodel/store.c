/* store.c — where model files live, and writing them safely.
 *
 *   $STARPU_PERF_MODEL_DIR (default $STARPU_HOME/.starpu/sampling)
 *     codelets/45/<symbol>.<hostname>    one file per model (StarPU 1.3's)
 *     codelets/45.lock                   lock between processes (Vela's)
 *     codelets/tmp/                      multiple-regression rows
 *     bus/<hostname>.*                   the bus model (bus.c)
 *
 * A file is replaced atomically: written to a temporary file in the same
 * directory, flushed to disk, then renamed over the old one, so a reader
 * (this runtime in another process, or StarPU) sees the old or the new
 * file, never a torn one. Read-modify-write cycles of concurrent processes
 * are serialised by an flock() on the lock file, which lives outside the
 * 45/ directory so that StarPU's tools do not list it as a model.
 *
 * A process killed between creating its temporary file and the rename
 * leaves "<file>.tmp.<pid>" behind; the next process to write the
 * directory removes those of this host's files whose process is gone
 * (pm_remove_stale_tmp).
 */
#include "perfmodel/perfmodel.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int pm_symbol_valid(const char *symbol)
{
	if (!symbol || !*symbol || symbol[0] == '.' || strchr(symbol, '/'))
		return 0;
	size_t n = strlen(symbol);
	if (n > 200)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) symbol[i] < 0x20)
			return 0;
	return 1;
}

void pm_codelets_dir(char *buf, size_t size)
{
	pm_settings_load(0, -1);
	snprintf(buf, size, "%s/codelets/%d", pm_conf.sampling_dir, PM_FILE_VERSION);
}

void pm_bus_dir(char *buf, size_t size)
{
	pm_settings_load(0, -1);
	snprintf(buf, size, "%s/bus", pm_conf.sampling_dir);
}

int pm_model_path(const char *symbol, char *buf, size_t size)
{
	if (!pm_symbol_valid(symbol))
		return -EINVAL;
	char dir[4096];
	pm_codelets_dir(dir, sizeof(dir));
	if ((size_t) snprintf(buf, size, "%s/%s.%s", dir, symbol, pm_conf.hostname) >= size)
		return -ENAMETOOLONG;
	return 0;
}

int pm_mkdir_p(const char *path)
{
	char tmp[4096];
	if ((size_t) snprintf(tmp, sizeof(tmp), "%s", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	for (char *p = tmp + 1;; p++)
	{
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		struct stat st;
		if (stat(tmp, &st))
			return -errno;
		if (!S_ISDIR(st.st_mode))
			return -ENOTDIR;
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

int pm_dir_lock(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX))
	{
		if (errno == EINTR)
			continue;
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

void pm_dir_unlock(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}

FILE *pm_atomic_open(const char *path, char *tmp)
{
	snprintf(tmp, PM_ATOMIC_TMP, "%s.tmp.%ld", path, (long) getpid());
	return fopen(tmp, "w");
}

int pm_atomic_commit(FILE *f, const char *tmp, const char *path, int ret)
{
	if (!ret && ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

int pm_file_save_atomic(const char *path, const struct pm_data *d, struct starpu_perfmodel *model, char *err, size_t errsize)
{
	char tmp[4400];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long) getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
	{
		int e = errno;
		snprintf(err, errsize, "cannot write %s: %s", tmp, strerror(e));
		return -e;
	}
	FILE *f = fdopen(fd, "w");
	if (!f)
	{
		int e = errno;
		close(fd);
		unlink(tmp);
		snprintf(err, errsize, "cannot write %s: %s", tmp, strerror(e));
		return -e;
	}
	int ret = pm_file_write(f, d, model);
	if (fflush(f) || ret)
		ret = ret ? ret : -errno;
	if (!ret && fsync(fd))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
	{
		snprintf(err, errsize, "cannot write %s: %s", path, strerror(-ret));
		unlink(tmp);
	}
	return ret;
}

/* Whether name is "<base>.tmp.<pid>" with base one of this host's files
 * (host_is_prefix: "<host>.<what>", bus files; else "<symbol>.<host>",
 * models); *pid gets the number. */
static int stale_tmp_name(const char *name, const char *host, int host_is_prefix, long *pid)
{
	const char *t = strstr(name, ".tmp.");
	if (!t)
		return 0;
	const char *digits = t + 5;
	if (!*digits || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 9)
		return 0;
	size_t base = (size_t) (t - name), hl = strlen(host);
	if (base <= hl + 1)
		return 0;
	if (host_is_prefix ? strncmp(name, host, hl) || name[hl] != '.'
			   : name[base - hl - 1] != '.' || strncmp(name + base - hl, host, hl))
		return 0;
	*pid = strtol(digits, NULL, 10);
	return *pid > 0;
}

int pm_remove_stale_tmp(const char *dir, int host_is_prefix)
{
	pm_settings_load(0, -1);
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	int removed = 0;
	struct dirent *e;
	while ((e = readdir(d)))
	{
		long pid;
		if (!stale_tmp_name(e->d_name, pm_conf.hostname, host_is_prefix, &pid) || pid == (long) getpid())
			continue;
		/* EPERM: alive, another user's. Only a process that is gone. */
		if (kill((pid_t) pid, 0) == 0 || errno != ESRCH)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}
