/* trace_rec.c — a trace as tasks.rec (one GNU recutils record per task,
 * with StarPU's field names, times in ms) and its task graph as a Graphviz
 * dot file (nodes colored by codelet, edges from each task to those that
 * waited for it). Also the syntax of the values `vela replay` reads back
 * (access modes, archs, model types), so that writer and reader agree.
 *
 * Fields as StarPU's starpu_fxt_tool writes them: Name, Model (the model's
 * symbol, else the codelet's name), JobId, DependsOn, Tag, Priority,
 * WorkerId, MemoryNode, SubmitTime, StartTime, EndTime, Footprint (hex),
 * GFlop, Handles (hex ids), Modes (R, W, RW, with S scratch, X redux,
 * C commute), Sizes (bytes). Vela adds Color, PushTime, PopTime,
 * TerminateTime, NBuffers, DataSize, NoCodelet, Failed and, from version 2
 * traces, HomeNodes (each buffer's home memory node, -1: none), Where (the
 * archs the codelet can run on) and ModelType.
 */
#include "trace_reader.h"
#include "trace/trace_format.h"

#include <errno.h>
#include <starpu.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Values. */

char *trace_mode_string(unsigned mode, char *buf)
{
	char *p = buf;
	if (mode & STARPU_R)
		*p++ = 'R';
	if (mode & STARPU_W)
		*p++ = 'W';
	if (mode & STARPU_SCRATCH)
		*p++ = 'S';
	if (mode & STARPU_REDUX)
		*p++ = 'X';
	if (mode & STARPU_COMMUTE)
		*p++ = 'C';
	if (p == buf)
		*p++ = '-';
	*p = 0;
	return buf;
}

int trace_mode_parse(const char *s, unsigned *mode)
{
	unsigned m = 0;
	if (!*s)
		return -EINVAL;
	for (; *s; s++)
		switch (*s)
		{
		case 'R': m |= STARPU_R; break;
		case 'W': m |= STARPU_W; break;
		case 'S': m |= STARPU_SCRATCH; break;
		case 'X': m |= STARPU_REDUX; break;
		case 'C': m |= STARPU_COMMUTE; break;
		default: return -EINVAL;
		}
	if (!(m & (STARPU_R | STARPU_W | STARPU_SCRATCH | STARPU_REDUX)))
		return -EINVAL;	/* commute alone is no access */
	*mode = m;
	return 0;
}

static const struct
{
	const char *name;
	unsigned long long flag;
} archs[] = {
	{ "cpu", STARPU_CPU },
	{ "cuda", STARPU_CUDA },
	{ "opencl", STARPU_OPENCL },
	{ "mic", STARPU_MIC },
	{ "mpi_ms", STARPU_MPI_MS },
};

int trace_arch_parse(const char *s, unsigned *where)
{
	for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
		if (!strcmp(s, archs[i].name))
		{
			*where |= (unsigned) archs[i].flag;
			return 0;
		}
	return -EINVAL;
}

static const char *const model_types[] = {
	[STARPU_PER_ARCH] = "per-arch",
	[STARPU_COMMON] = "common",
	[STARPU_HISTORY_BASED] = "history",
	[STARPU_REGRESSION_BASED] = "regression",
	[STARPU_NL_REGRESSION_BASED] = "nl-regression",
	[STARPU_MULTIPLE_REGRESSION_BASED] = "multiple-regression",
};
#define NMODEL_TYPES (sizeof(model_types) / sizeof(model_types[0]))

const char *trace_model_type_name(unsigned type)
{
	return type > 0 && type < NMODEL_TYPES && model_types[type] ? model_types[type] : NULL;
}

int trace_model_type_parse(const char *s, unsigned *type)
{
	for (unsigned i = 1; i < NMODEL_TYPES; i++)
		if (model_types[i] && !strcmp(s, model_types[i]))
		{
			*type = i;
			return 0;
		}
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* tasks.rec */

static double ms(uint64_t ns)
{
	return (double) ns / 1e6;
}

/* A rec value stays on one line. */
static void rec_value(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '\n' ? ' ' : *s, f);
}

/* What version 2 traces add: the buffers, archs and model type. */
static void rec_data(FILE *f, const struct tr_task *k)
{
	if (k->nbuf)
	{
		char m[8];
		fputs("Handles:", f);
		for (unsigned b = 0; b < k->nbuf; b++)
			fprintf(f, " %llx", (unsigned long long) k->buffers[b].handle);
		fputs("\nModes:", f);
		for (unsigned b = 0; b < k->nbuf; b++)
			fprintf(f, " %s", trace_mode_string(k->buffers[b].mode, m));
		fputs("\nSizes:", f);
		for (unsigned b = 0; b < k->nbuf; b++)
			fprintf(f, " %llu", (unsigned long long) k->buffers[b].size);
		fputs("\nHomeNodes:", f);
		for (unsigned b = 0; b < k->nbuf; b++)
			fprintf(f, " %d", k->buffers[b].home_node);
		fputc('\n', f);
	}
	if (k->data_truncated)
		fputs("BuffersTruncated: yes\n", f);
	if (k->where)
	{
		fputs("Where:", f);
		for (size_t i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
			if (k->where & archs[i].flag)
				fprintf(f, " %s", archs[i].name);
		fputc('\n', f);
	}
	const char *type = k->model_type ? trace_model_type_name(k->model_type - 1) : NULL;
	if (type)
		fprintf(f, "ModelType: %s\n", type);
}

int trace_export_rec(const struct trace *t, FILE *f)
{
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		fputs("Name: ", f);
		rec_value(f, k->name);
		fputs("\nModel: ", f);
		rec_value(f, k->model ? k->model : k->codelet);
		fprintf(f, "\nJobId: %llu\n", (unsigned long long) k->job);
		if (k->npreds)
		{
			fputs("DependsOn:", f);
			for (unsigned d = 0; d < k->npreds; d++)
				fprintf(f, " %llu", (unsigned long long) t->tasks[k->preds[d]].job);
			fputc('\n', f);
		}
		if (k->flags & TTF_HAS_TAG)
			fprintf(f, "Tag: %llx\n", (unsigned long long) k->tag);
		fprintf(f, "Priority: %d\n", k->priority);
		if (k->codelet_index >= 0)
			fprintf(f, "Color: %s\n", trace_codelet_color((unsigned) k->codelet_index));
		fprintf(f, "SubmitTime: %.6f\n", ms(k->submit));
		if (k->flags & TTF_EXECUTED)
		{
			fprintf(f, "WorkerId: %d\nMemoryNode: %u\n", k->worker, k->node);
			fprintf(f, "PushTime: %.6f\nPopTime: %.6f\n", ms(k->push), ms(k->pop_end));
			fprintf(f, "StartTime: %.6f\nEndTime: %.6f\n", ms(k->exec_start), ms(k->exec_end));
		}
		fprintf(f, "TerminateTime: %.6f\n", ms(k->end));
		fprintf(f, "Footprint: %08x\n", k->footprint);
		fprintf(f, "NBuffers: %u\nDataSize: %llu\n", k->nbuffers, (unsigned long long) k->data_bytes);
		if (k->flops > 0)
			fprintf(f, "GFlop: %.9g\n", k->flops / 1e9);
		if (k->has_data)
			rec_data(f, k);
		if (k->flags & TTF_NOOP)
			fputs("NoCodelet: yes\n", f);
		if (k->flags & TTF_FAILED)
			fputs("Failed: yes\n", f);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

static void dot_label(FILE *f, const char *s)
{
	for (; s && *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s != '\n')
			fputc(*s, f);
}

int trace_export_dot(const struct trace *t, FILE *f)
{
	fputs("digraph vela_tasks {\n\trankdir=TB;\n\tnode [shape=box, style=filled, fontname=\"sans-serif\"];\n", f);
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		fprintf(f, "\tj%llu [label=\"", (unsigned long long) k->job);
		dot_label(f, k->name);
		fprintf(f, "\\n%llu\"", (unsigned long long) k->job);
		if (k->flags & TTF_NOOP)
			fputs(", shape=ellipse, fillcolor=\"#ffffff\"", f);
		else
			fprintf(f, ", fillcolor=\"%s\"", k->codelet_index >= 0 ? trace_codelet_color((unsigned) k->codelet_index) : "#cccccc");
		fputs("];\n", f);
	}
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		for (unsigned d = 0; d < k->npreds; d++)
			fprintf(f, "\tj%llu -> j%llu;\n", (unsigned long long) t->tasks[k->preds[d]].job, (unsigned long long) k->job);
	}
	fputs("}\n", f);
	return ferror(f) ? -EIO : 0;
}
