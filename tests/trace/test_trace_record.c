/* test_trace_record: traces recorded by real runs, read back with the
 * reader of `vela trace` (tools/trace_reader.c).
 *
 * What a trace holds (every task once, on the worker that ran it, its
 * codelet, priority, tag, the dependencies from data, explicit and tag
 * dependencies, user events, worker metadata, a clean end), recording
 * switched by STARPU_FXT_TRACE, STARPU_TRACE or conf.vela_trace, pause and
 * resume, small buffers flushed as they fill (memory stays bounded), and
 * the bad cases: an unwritable prefix (one warning, the run goes on), a
 * truncated file (read up to the last complete record), an unknown version.
 */
#include <starpu.h>

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

static void noop(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static void incr(void *buffers[], void *arg)
{
	(void) arg;
	int *v = (int *) STARPU_VARIABLE_GET_PTR(buffers[0]);
	(*v)++;
}

static struct starpu_codelet noop_cl = { .cpu_funcs = { noop }, .nbuffers = 0, .name = "noop" };
static struct starpu_codelet incr_cl = { .cpu_funcs = { incr }, .nbuffers = 1, .modes = { STARPU_RW }, .name = "incr" };

static int suite_init(void)
{
	snprintf(dir, sizeof(dir), "/tmp/vela-trace-test-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int suite_clean(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Starts a runtime recording into dir (through conf or the environment). */
static int start(int ncpus, int via_conf, uint64_t bufsize)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	conf.ncpus = ncpus;
	conf.trace_buffer_size = bufsize;
	if (via_conf)
	{
		conf.vela_trace = 1;
		conf.vela_trace_prefix = dir;
		conf.precedence_over_environment_variables = 1;
	}
	return starpu_init(&conf);
}

static char *copy_path(void)
{
	const char *p = vela_trace_get_path();
	return p ? strdup(p) : NULL;
}

static int load_ok(const char *path, struct trace *t)
{
	char err[512];
	int ret = trace_load(path, t, err, sizeof(err));
	if (ret)
		fprintf(stderr, "trace_load: %s\n", err);
	return ret;
}

static void test_content(void)
{
	CU_ASSERT_EQUAL_FATAL(start(2, 1, 0), 0);
	CU_ASSERT(starpu_fxt_is_enabled());
	char *path = copy_path();
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(path, dir));

	/* Nothing runs until everything is submitted (test_finished_deps
	 * covers dependencies on finished tasks). */
	starpu_pause();
	/* A chain through data: 10 increments of one variable. */
	int v = 0;
	starpu_data_handle_t h;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&incr_cl, STARPU_RW, h, STARPU_PRIORITY, i, 0), 0);
	/* Tags: 100 <- 101 <- 102. */
	starpu_tag_declare_deps(101, 1, (starpu_tag_t) 100);
	starpu_tag_declare_deps(102, 1, (starpu_tag_t) 101);
	for (int i = 2; i >= 0; i--)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &noop_cl;
		t->use_tag = 1;
		t->tag_id = 100 + i;
		CU_ASSERT_EQUAL(starpu_task_submit(t), 0);
	}
	/* An explicit dependency, and a task without codelet. */
	struct starpu_task *a = starpu_task_create(), *b = starpu_task_create(), *sync = starpu_task_create();
	a->cl = &noop_cl;
	b->cl = &noop_cl;
	b->name = "after-a";
	sync->cl = NULL;
	starpu_task_declare_deps_array(b, 1, &a);
	starpu_task_declare_deps_array(sync, 1, &b);
	unsigned long ja, jb;
	CU_ASSERT_EQUAL(starpu_task_submit(b), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(a), 0);
	CU_ASSERT_EQUAL(starpu_task_submit(sync), 0);
	ja = starpu_task_get_job_id(a);
	jb = starpu_task_get_job_id(b);
	starpu_fxt_trace_user_event(42);
	starpu_fxt_trace_user_event_string("checkpoint");
	starpu_resume();
	starpu_task_wait_for_all();
	starpu_data_unregister(h);
	CU_ASSERT_EQUAL(v, 10);
	starpu_shutdown();
	CU_ASSERT_FALSE(starpu_fxt_is_enabled() && !getenv("STARPU_FXT_TRACE"));

	struct trace t;
	CU_ASSERT_EQUAL_FATAL(load_ok(path, &t), 0);
	CU_ASSERT(t.complete);
	CU_ASSERT_EQUAL(t.lost, 0);
	CU_ASSERT_EQUAL(t.nworkers, 2);
	CU_ASSERT_STRING_EQUAL(t.workers[0].name, "CPU 0");
	CU_ASSERT(t.nnodes >= 1);
	CU_ASSERT_EQUAL(t.ntasks, 10 + 3 + 3);
	unsigned incr_n = 0, executed = 0, noops = 0;
	for (unsigned i = 0; i < t.ntasks; i++)
	{
		struct tr_task *k = &t.tasks[i];
		if (k->flags & TTF_EXECUTED)
		{
			executed++;
			CU_ASSERT(k->worker == 0 || k->worker == 1);
			CU_ASSERT(k->submit <= k->push);
			CU_ASSERT(k->push <= k->pop_end);
			CU_ASSERT(k->pop_end <= k->exec_start);
			CU_ASSERT(k->exec_start <= k->exec_end);
			CU_ASSERT(k->exec_end <= k->end);
			CU_ASSERT(k->end <= t.end_time);
		}
		if (k->flags & TTF_NOOP)
			noops++;
		if (strcmp(k->codelet, "incr") == 0)
		{
			/* Each increment after the first waits for the previous one. */
			if (incr_n > 0)
			{
				CU_ASSERT_EQUAL(k->npreds, 1);
				if (k->npreds)
					CU_ASSERT_STRING_EQUAL(t.tasks[k->preds[0]].codelet, "incr");
			}
			CU_ASSERT_EQUAL(k->priority, (int) incr_n);
			CU_ASSERT_EQUAL(k->nbuffers, 1);
			CU_ASSERT_EQUAL(k->data_bytes, sizeof(int));
			/* What a replay needs (version 2). */
			CU_ASSERT(k->has_data);
			CU_ASSERT_EQUAL(k->nbuf, 1);
			if (k->nbuf == 1)
			{
				CU_ASSERT_EQUAL(k->buffers[0].mode, STARPU_RW);
				CU_ASSERT_EQUAL(k->buffers[0].size, sizeof(int));
				CU_ASSERT_EQUAL(k->buffers[0].home_node, STARPU_MAIN_RAM);
				CU_ASSERT(k->buffers[0].handle != 0);
			}
			CU_ASSERT_PTR_NULL(k->model);
			CU_ASSERT_EQUAL(k->model_type, 0);
			CU_ASSERT_EQUAL(k->where, STARPU_CPU);
			incr_n++;
		}
		if ((k->flags & TTF_HAS_TAG) && k->tag == 102)
		{
			CU_ASSERT_EQUAL(k->npreds, 1);
			if (k->npreds)
				CU_ASSERT_EQUAL(t.tasks[k->preds[0]].tag, 101);
		}
		if (k->job == jb)
		{
			CU_ASSERT_STRING_EQUAL(k->name, "after-a");
			CU_ASSERT_STRING_EQUAL(k->codelet, "noop");
			CU_ASSERT_EQUAL(k->npreds, 1);
			if (k->npreds)
				CU_ASSERT_EQUAL(t.tasks[k->preds[0]].job, ja);
		}
	}
	CU_ASSERT_EQUAL(incr_n, 10);
	CU_ASSERT_EQUAL(executed, 15);
	CU_ASSERT_EQUAL(noops, 1);
	CU_ASSERT_EQUAL(t.nusers, 2);
	int saw_code = 0, saw_str = 0;
	for (unsigned i = 0; i < t.nusers; i++)
	{
		saw_code |= !t.users[i].str && t.users[i].code == 42;
		saw_str |= t.users[i].str && strcmp(t.users[i].str, "checkpoint") == 0;
	}
	CU_ASSERT(saw_code && saw_str);

	/* The views run on it. */
	FILE *devnull = fopen("/dev/null", "w");
	CU_ASSERT_EQUAL(trace_export_chrome(&t, devnull), 0);
	CU_ASSERT_EQUAL(trace_export_paje(&t, devnull), 0);
	CU_ASSERT_EQUAL(trace_export_svg(&t, devnull), 0);
	CU_ASSERT_EQUAL(trace_export_rec(&t, devnull), 0);
	CU_ASSERT_EQUAL(trace_export_dot(&t, devnull), 0);
	CU_ASSERT_EQUAL(trace_print_stats(&t, devnull), 0);
	fclose(devnull);
	struct trace_stats s;
	CU_ASSERT_EQUAL_FATAL(trace_compute_stats(&t, &s), 0);
	/* The critical path is a chain of the graph, no longer than the work
	 * done, and the bound is no larger than what the run took. */
	CU_ASSERT(s.critical_path_len >= 1);
	for (unsigned i = 1; i < s.critical_path_len; i++)
	{
		const struct tr_task *k = &t.tasks[s.critical_path[i]];
		int linked = 0;
		for (unsigned d = 0; d < k->npreds; d++)
			linked |= k->preds[d] == s.critical_path[i - 1];
		CU_ASSERT(linked);
	}
	CU_ASSERT(s.critical_path_us <= s.total_work_us + 1e-6);
	CU_ASSERT(s.bound_us <= s.exec_window_us + 1.0);
	trace_stats_free(&s);
	trace_free(&t);

	/* Truncated anywhere, the trace loads up to the last whole record. */
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *data = malloc((size_t) size);
	CU_ASSERT_EQUAL_FATAL(fread(data, 1, (size_t) size, f), (size_t) size);
	fclose(f);
	char cut[300];
	snprintf(cut, sizeof(cut), "%s/cut", dir);
	unsigned prev_tasks = 0;
	for (long len = 32; len < size; len += 37)
	{
		f = fopen(cut, "wb");
		fwrite(data, 1, (size_t) len, f);
		fclose(f);
		struct trace tc;
		CU_ASSERT_EQUAL_FATAL(load_ok(cut, &tc), 0);
		CU_ASSERT_FALSE(tc.complete);
		CU_ASSERT(tc.stop_reason[0] != 0);
		CU_ASSERT(tc.stop_offset <= (uint64_t) len);
		CU_ASSERT(tc.ntasks >= prev_tasks);
		prev_tasks = tc.ntasks;
		trace_free(&tc);
	}
	/* An unknown version and a file that is not a trace are refused. */
	struct trace_file_header hd;
	memcpy(&hd, data, sizeof(hd));
	hd.version = 99;
	memcpy(data, &hd, sizeof(hd));
	f = fopen(cut, "wb");
	fwrite(data, 1, (size_t) size, f);
	fclose(f);
	struct trace tv;
	char err[512];
	CU_ASSERT_EQUAL(trace_load(cut, &tv, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "version 99"));
	f = fopen(cut, "wb");
	fputs("hello, I am not a trace\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(trace_load(cut, &tv, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a Vela trace"));
	CU_ASSERT(trace_load("/nonexistent/trace", &tv, err, sizeof(err)) < 0);
	free(data);
	free(path);
}

static void read_cl_func(void *buffers[], void *arg)
{
	(void) buffers;
	(void) arg;
}

static struct starpu_perfmodel read_model = { .type = STARPU_HISTORY_BASED, .symbol = "vtest_trace_read" };
static struct starpu_codelet read_cl = {
	.cpu_funcs = { read_cl_func }, .nbuffers = 2, .modes = { STARPU_R, STARPU_R }, .name = "read", .model = &read_model
};

/* Whether task succ's predecessors in t include pred (by job id). */
static int has_pred(const struct trace *t, unsigned long succ, unsigned long pred)
{
	int k = trace_find_task(t, succ);
	if (k < 0)
		return 0;
	for (unsigned d = 0; d < t->tasks[k].npreds; d++)
		if (t->tasks[t->tasks[k].preds[d]].job == pred)
			return 1;
	return 0;
}

/* Implicit dependencies on tasks that finished before their successor was
 * submitted are in the graph (issue 6): the runtime does not wait for
 * them, the trace keeps them. */
static void test_finished_deps(void)
{
	CU_ASSERT_EQUAL_FATAL(start(2, 1, 0), 0);
	char *path = copy_path();
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	int v = 0, w = 0;
	starpu_data_handle_t h, h2;
	starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t) &v, sizeof(v));
	starpu_variable_data_register(&h2, STARPU_MAIN_RAM, (uintptr_t) &w, sizeof(w));
	struct starpu_task *t[6];
	for (int i = 0; i < 6; i++)
		t[i] = starpu_task_create();
	/* writer 0; readers 1, 2; writer 3; reader 4 (with h2); writer 5 on
	 * h2: each submitted once the ones before have finished. */
	t[0]->cl = &incr_cl;
	t[0]->handles[0] = h;
	t[3]->cl = &incr_cl;
	t[3]->handles[0] = h;
	t[5]->cl = &incr_cl;
	t[5]->handles[0] = h2;
	for (int i = 1; i <= 4; i++)
	{
		if (i == 3)
			continue;
		t[i]->cl = &read_cl;
		t[i]->handles[0] = h;
		t[i]->handles[1] = h2;
	}
	unsigned long id[6];
	for (int i = 0; i < 6; i++)
	{
		t[i]->destroy = 0;
		CU_ASSERT_EQUAL(starpu_task_submit(t[i]), 0);
		id[i] = starpu_task_get_job_id(t[i]);
		if (i != 1)	/* 1 and 2 both run after 0, before 3 */
			starpu_task_wait_for_all();
	}
	starpu_task_wait_for_all();
	for (int i = 0; i < 6; i++)
		starpu_task_destroy(t[i]);
	starpu_data_unregister(h);
	starpu_data_unregister(h2);
	starpu_shutdown();
	CU_ASSERT_EQUAL(v, 2);
	CU_ASSERT_EQUAL(w, 1);

	struct trace tr;
	CU_ASSERT_EQUAL_FATAL(load_ok(path, &tr), 0);
	CU_ASSERT_EQUAL(tr.ntasks, 6);
	CU_ASSERT(has_pred(&tr, id[1], id[0]));
	CU_ASSERT(has_pred(&tr, id[2], id[0]));
	CU_ASSERT(has_pred(&tr, id[3], id[1]));
	CU_ASSERT(has_pred(&tr, id[3], id[2]));
	CU_ASSERT_FALSE(has_pred(&tr, id[3], id[0]));	/* covered by the readers */
	CU_ASSERT(has_pred(&tr, id[4], id[3]));
	CU_ASSERT(has_pred(&tr, id[5], id[1]));	/* h2: only readers before it */
	CU_ASSERT(has_pred(&tr, id[5], id[2]));
	CU_ASSERT(has_pred(&tr, id[5], id[4]));
	CU_ASSERT_EQUAL(tr.nedges, 8);	/* 0->1, 0->2, 1->3, 2->3, 3->4; 1, 2, 4 -> 5 */
	int k = trace_find_task(&tr, id[4]);
	CU_ASSERT_FATAL(k >= 0);
	CU_ASSERT_STRING_EQUAL(tr.tasks[k].model, "vtest_trace_read");
	CU_ASSERT_EQUAL(tr.tasks[k].model_type, STARPU_HISTORY_BASED + 1);
	CU_ASSERT_EQUAL(tr.tasks[k].nbuf, 2);

	/* The rec and dot views show them. */
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(trace_export_rec(&tr, m), 0);
	fclose(m);
	char line[128];
	snprintf(line, sizeof(line), "JobId: %lu\nDependsOn: %lu %lu\n", id[3], id[1], id[2]);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, line));
	snprintf(line, sizeof(line), "Model: vtest_trace_read\nJobId: %lu\nDependsOn: %lu\n", id[4], id[3]);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, line));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "Modes: R R\nSizes: 4 4\nHomeNodes: 0 0\nWhere: cpu\nModelType: history\n"));
	free(buf);
	m = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(trace_export_dot(&tr, m), 0);
	fclose(m);
	snprintf(line, sizeof(line), "j%lu -> j%lu;", id[0], id[1]);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, line));
	snprintf(line, sizeof(line), "j%lu -> j%lu;", id[4], id[5]);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, line));
	free(buf);
	trace_free(&tr);
	free(path);
}

/* Many tasks through 4 KiB buffers: flushed as they fill, nothing lost. */
static void test_small_buffers(void)
{
	vtest_setenv("STARPU_FXT_TRACE", "1");
	vtest_setenv("STARPU_FXT_PREFIX", dir);
	starpu_profiling_set_id(7);
	CU_ASSERT_EQUAL_FATAL(start(2, 0, 4096), 0);
	char *path = copy_path();
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(path, "_7"));
	const int n = 20000;
	for (int i = 0; i < n; i++)
	{
		struct starpu_task *t = starpu_task_create();
		t->cl = &noop_cl;
		CU_ASSERT_EQUAL_FATAL(starpu_task_submit(t), 0);
	}
	starpu_task_wait_for_all();
	starpu_shutdown();
	vtest_env_restore();
	starpu_profiling_set_id(-1);
	struct trace t;
	CU_ASSERT_EQUAL_FATAL(load_ok(path, &t), 0);
	CU_ASSERT(t.complete);
	CU_ASSERT_EQUAL(t.ntasks, (unsigned) n);
	struct stat st;
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	/* 20000 task records cannot have fitted in the buffers. */
	CU_ASSERT(st.st_size > 20 * 4096);
	trace_free(&t);
	free(path);
}

/* STARPU_TRACE=1 works too; stop/start pauses recording. */
static void test_pause(void)
{
	vtest_setenv("STARPU_TRACE", "1");
	vtest_setenv("STARPU_FXT_PREFIX", dir);
	CU_ASSERT_EQUAL_FATAL(start(1, 0, 0), 0);
	char *path = copy_path();
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	starpu_fxt_stop_profiling();
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&noop_cl, 0), 0);
	starpu_task_wait_for_all();
	starpu_fxt_start_profiling();
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&noop_cl, 0), 0);
	starpu_task_wait_for_all();
	starpu_shutdown();
	vtest_env_restore();
	struct trace t;
	CU_ASSERT_EQUAL_FATAL(load_ok(path, &t), 0);
	CU_ASSERT_EQUAL(t.ntasks, 3);
	trace_free(&t);
	free(path);
}

/* A prefix that cannot be written: one warning naming it, the run goes on. */
static void test_unwritable_prefix(void)
{
	vtest_setenv("STARPU_SILENT", "0");
	vtest_setenv("STARPU_FXT_TRACE", "1");
	vtest_setenv("STARPU_FXT_PREFIX", "/nonexistent/vela/traces");
	vtest_capture_stderr_begin();
	int ret = start(1, 0, 0);
	const char *msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "/nonexistent/vela/traces"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "the run continues"));
	const char *first = strstr(msg, "warning");
	CU_ASSERT(first && !strstr(first + 1, "warning"));
	CU_ASSERT_FALSE(starpu_fxt_is_enabled() && vela_trace_get_path());
	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(starpu_task_insert(&noop_cl, 0), 0);
	starpu_task_wait_for_all();
	starpu_shutdown();
	vtest_env_restore();

	/* A malformed switch is an error, like every STARPU_* integer. */
	vtest_setenv("STARPU_FXT_TRACE", "yes");
	vtest_capture_stderr_begin();
	ret = start(1, 0, 0);
	msg = vtest_capture_stderr_end();
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "STARPU_FXT_TRACE"));
	if (ret == 0)
		starpu_shutdown();
	vtest_env_restore();
}

static const struct vtest_case cases[] = {
	{ "what a trace holds; truncation; versions", test_content },
	{ "implicit dependencies on finished tasks", test_finished_deps },
	{ "small buffers flushed as they fill", test_small_buffers },
	{ "STARPU_TRACE, stop and start", test_pause },
	{ "unwritable prefix, malformed switch", test_unwritable_prefix },
	VTEST_END
};

static const struct vtest_suite suites[] = {
	{ "trace recording", suite_init, suite_clean, cases },
	{ NULL, NULL, NULL, NULL }
};

int main(int argc, char **argv)
{
	/* The test decides where traces go. */
	unsetenv("STARPU_FXT_TRACE");
	unsetenv("STARPU_TRACE");
	unsetenv("STARPU_FXT_PREFIX");
	return vtest_run(argc, argv, suites);
}
