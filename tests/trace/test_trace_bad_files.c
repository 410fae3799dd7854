/* test_trace_bad_files: hostile and special files given to the trace
 * reader of `vela trace` (tools/trace_reader.c), issue 22 items 2 and 8.
 *
 * Small crafted traces whose string ids or counts claim more than the file
 * can hold (id 0x7fffffff made every subcommand allocate and touch 16 GiB;
 * an id of 0x80000000 or more wrapped the table's capacity and wrote past
 * it) are refused with the file's name, the record's offset and the reason,
 * at once; an id the file can hold still loads. A directory (whose size
 * some file systems report as LLONG_MAX) and a FIFO (whose open blocked
 * until a writer came) are refused with what they are. The CLI side is
 * tests/integration/check_special_files.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vtest.h"
#include "trace_reader.h"
#include "trace/trace_format.h"

static char dir[256];

static int suite_init(void)
{
	snprintf(dir, sizeof(dir), "/tmp/vela-trace-bad-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int suite_clean(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A file being crafted: the header, then records appended. */
struct craft
{
	unsigned char buf[8192];
	size_t len;
};

static void craft_init(struct craft *c)
{
	struct trace_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TRACE_MAGIC, 8);
	h.version = TRACE_VERSION;
	h.header_size = sizeof(h);
	h.byte_order = TRACE_BYTE_ORDER;
	h.flags = TRACE_FILE_SYNTHETIC;
	memset(c, 0, sizeof(*c));
	memcpy(c->buf, &h, sizeof(h));
	c->len = sizeof(h);
}

static void craft_string(struct craft *c, uint32_t id, const char *text)
{
	struct trace_rec_string r;
	size_t n = strlen(text), size = (sizeof(r) + n + 7) & ~(size_t) 7;
	memset(&r, 0, sizeof(r));
	r.h.type = TR_STRING;
	r.h.size = (uint16_t) size;
	r.id = id;
	r.len = (uint32_t) n;
	memset(c->buf + c->len, 0, size);
	memcpy(c->buf + c->len, &r, sizeof(r));
	memcpy(c->buf + c->len + sizeof(r), text, n);
	c->len += size;
}

static void craft_task(struct craft *c, uint64_t job, uint32_t codelet_sid)
{
	struct trace_rec_task r;
	memset(&r, 0, sizeof(r));
	r.h.type = TR_TASK;
	r.h.size = sizeof(r);
	r.job = job;
	r.codelet_sid = codelet_sid;
	r.exec_start = 10 * job;
	r.exec_end = 10 * job + 5;
	memcpy(c->buf + c->len, &r, sizeof(r));
	c->len += sizeof(r);
}

static void craft_end(struct craft *c)
{
	struct trace_rec_end r;
	memset(&r, 0, sizeof(r));
	r.h.type = TR_END;
	r.h.size = sizeof(r);
	r.time = 1000;
	memcpy(c->buf + c->len, &r, sizeof(r));
	c->len += sizeof(r);
}

static const char *craft_write(const struct craft *c, const char *name)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(c->buf, 1, c->len, f), c->len);
	fclose(f);
	return path;
}

/* A file with some padding strings, then one string of the given id, a
 * task naming it, and an end record: refused or loaded? */
static int load_with_id(uint32_t id, const char *name, char *err, size_t errlen, uint64_t *offset)
{
	struct craft c;
	craft_init(&c);
	char text[40];
	for (unsigned i = 1; i <= 100; i++)
	{
		snprintf(text, sizeof(text), "s%u", i);
		craft_string(&c, i, text);
	}
	*offset = c.len;
	craft_string(&c, id, "kernel");
	craft_task(&c, 1, id);
	craft_end(&c);
	const char *path = craft_write(&c, name);
	struct trace t;
	int ret = trace_load(path, &t, err, errlen);
	if (ret == 0)
	{
		CU_ASSERT_EQUAL(t.ntasks, 1);
		if (t.ntasks == 1)
			CU_ASSERT_STRING_EQUAL(t.tasks[0].codelet, "kernel");
		trace_free(&t);
	}
	return ret;
}

static void test_string_ids(void)
{
	static const uint32_t bad[] = { 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu, 100000u };
	char err[512], off[64];
	uint64_t offset;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		char name[64];
		snprintf(name, sizeof(name), "id-%08x", bad[i]);
		CU_ASSERT_EQUAL(load_with_id(bad[i], name, err, sizeof(err), &offset), -EINVAL);
		fprintf(stderr, "id 0x%08x: %s\n", bad[i], err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, name));
		snprintf(off, sizeof(off), "at byte %llu", (unsigned long long) offset);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, off));
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "holds at most"));
	}
	/* Ids the file can hold load, even out of order or with gaps. */
	CU_ASSERT_EQUAL(load_with_id(101, "id-next", err, sizeof(err), &offset), 0);
	CU_ASSERT_EQUAL(load_with_id(150, "id-gap", err, sizeof(err), &offset), 0);
	CU_ASSERT_EQUAL(load_with_id(7, "id-redefined", err, sizeof(err), &offset), 0);
}

/* A task-data record claiming more buffers than it holds stops the read
 * there (an incomplete trace), without reading past the record. */
static void test_buffer_count(void)
{
	struct craft c;
	craft_init(&c);
	craft_string(&c, 1, "kernel");
	craft_task(&c, 1, 1);
	uint64_t at = c.len;
	struct trace_rec_task_data d;
	memset(&d, 0, sizeof(d));
	d.h.type = TR_TASK_DATA;
	d.h.size = sizeof(d) + sizeof(struct trace_task_buffer);
	d.job = 1;
	d.nbuffers = 0xffff;
	memset(c.buf + c.len, 0, d.h.size);
	memcpy(c.buf + c.len, &d, sizeof(d));
	c.len += d.h.size;
	craft_end(&c);
	const char *path = craft_write(&c, "nbuffers");
	struct trace t;
	char err[512], where[64];
	CU_ASSERT_EQUAL_FATAL(trace_load(path, &t, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(t.complete);
	snprintf(where, sizeof(where), "at byte %llu", (unsigned long long) at);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.stop_reason, "65535 buffers"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t.stop_reason, where));
	CU_ASSERT_EQUAL(t.ntasks, 1);
	trace_free(&t);
}

static void test_directory(void)
{
	struct trace t;
	char err[512];
	CU_ASSERT_EQUAL(trace_load(dir, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, dir));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "is a directory"));
}

static void test_fifo(void)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/fifo", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	struct trace t;
	char err[512];
	/* Blocked forever before the fix (the per-test time limit fails it). */
	CU_ASSERT_EQUAL(trace_load(path, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "FIFO"));
	unlink(path);
}

static const struct vtest_case cases[] = {
	{ "string_ids", test_string_ids },
	{ "buffer_count", test_buffer_count },
	{ "directory", test_directory },
	{ "fifo", test_fifo },
	VTEST_END
};

int main(int argc, char **argv)
{
	const struct vtest_suite suites[] = {
		{ "trace_bad_files", suite_init, suite_clean, cases },
		{ NULL, NULL, NULL, NULL }
	};
	return vtest_run(argc, argv, suites);
}
