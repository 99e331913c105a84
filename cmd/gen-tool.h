/* gen-tool.h - what rag-gen's files (cmd/rag-gen.c, cmd/gen-review.c) share. */
#ifndef RAG_GEN_TOOL_H
#define RAG_GEN_TOOL_H

#include "tool.h"

/* gen-review.c: --check and --apply */
int gen_is_csv(const char *path);   /* a name ending in .csv (any case) */
/* --check FILE: its cases, and near-duplicates over dedup; an exit status after saying so */
int gen_check_set(rag_cli *cli, const char *path, int json, double dedup);
/* --apply SHEET to the test set at path: the reviewed set on stdout; an exit status */
int gen_apply_review(rag_cli *cli, const char *sheet, const char *path);

#endif
