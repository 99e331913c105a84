/* tool-metric-main.c - the main of every metric tool of one operation (a descriptor with .tool:
 * rag-complete's in lib/answer_completeness.c): the Makefile compiles it once a tool,
 * RAG_METRIC_TOOL its name (mk/ops.sh --tools), so that such a tool has no file of its own in
 * cmd/. */
#include "tool.h"

#ifndef RAG_METRIC_TOOL
/* (no tool of that name: rag_cli_metric says so and exits 5; cppcheck reads the file so) */
#define RAG_METRIC_TOOL "rag-metric-tool-of-no-name"
#endif

int main(int argc, char **argv)
{
	return rag_cli_metric(RAG_METRIC_TOOL, argc, argv);
}
