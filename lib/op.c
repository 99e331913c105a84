/* op.c - the registry of the LLM operations: each descriptor (rag_op) lives in its operation's
 * own file; this is the one list of them, which the tools and tests/unit/t-op.c read (every
 * field set, every prompt file there, every prompt file an operation's). */
#include "base.h"
#include "judge.h"
#include "metric.h"
#include "gen.h"

#include <string.h>

static const rag_op *const all[] = {
	&rag_op_claims, &rag_op_verify, &rag_op_verifier, &rag_op_faithfulness, &rag_op_correctness,
	&rag_op_chunks, &rag_op_revq, &rag_op_rubric, &rag_op_gen, &rag_op_genhard, NULL
};

const rag_op *const *rag_op_all(void)
{
	return all;
}

const rag_op *rag_op_find(const char *name)
{
	size_t i;
	for (i = 0; all[i]; i++)
		if (!strcmp(all[i]->name, name)) return all[i];
	return NULL;
}
