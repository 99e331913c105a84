/* op.c - the registry of the LLM operations: each descriptor (rag_op) lives in its operation's
 * own file; the list of them is made from the library's sources at build time (mk/ops.sh writes
 * obj/gen/ops.inc, one RAG_OP(NAME) line a descriptor), so that a new operation is
 * its own file and no line here. The tools read it (an operation by its tool) and
 * tests/unit/t-op.c (every field set, every prompt file there, every prompt file an
 * operation's). */
#include "base.h"
#include "judge.h"
#include "metric.h"

#include <string.h>

/* every descriptor: declared here, so that one no header names is listed all the same */
#define RAG_OP(name) extern const rag_op rag_op_##name;
#define RAG_OP_TOOL(name, tool, metric, k, doc)
#include "ops.inc"
#undef RAG_OP

static const rag_op *const all[] = {
#define RAG_OP(name) &rag_op_##name,
#include "ops.inc"
#undef RAG_OP
#undef RAG_OP_TOOL
	NULL
};

#ifdef RAG_UNITTESTS
/* The whole registry and a look-up by name: test-only helpers in the library, for
 * tests/unit/t-op.c's checks of every descriptor (the library and the tools look an operation
 * up by its tool alone, rag_op_tool) */
RAG_UNITTEST const rag_op *const *rag_op_all(void)
{
	return all;
}

RAG_UNITTEST const rag_op *rag_op_find(const char *name)
{
	size_t i;
	for (i = 0; all[i]; i++)
		if (!strcmp(all[i]->name, name)) return all[i];
	return NULL;
}
#endif /* RAG_UNITTESTS */

const rag_op *rag_op_tool(const char *tool)
{
	size_t i;
	for (i = 0; all[i]; i++)
		if (all[i]->tool && !strcmp(all[i]->tool, tool)) return all[i];
	return NULL;
}
