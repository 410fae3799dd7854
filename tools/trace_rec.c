/* trace_rec.c — a trace as tasks.rec (one GNU recutils record per task,
 * with StarPU's field names, times in ms) and its task graph as a Graphviz
 * dot file (nodes colored by codelet, edges from each task to those that
 * waited for it).
 */
#include "trace_reader.h"
#include "trace/trace_format.h"

#include <errno.h>

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

int trace_export_rec(const struct trace *t, FILE *f)
{
	for (unsigned i = 0; i < t->ntasks; i++)
	{
		const struct tr_task *k = &t->tasks[i];
		fputs("Name: ", f);
		rec_value(f, k->name);
		fputs("\nModel: ", f);
		rec_value(f, k->codelet);
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
