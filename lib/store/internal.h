/* store/internal.h - what store.c lends the store's other files (storeprod.c): a statement, a
 * transaction under the store's lock, the time as the store writes it. Private to lib/store*.c;
 * the public API is store.h. */
#ifndef RAG_STORE_INTERNAL_H
#define RAG_STORE_INTERNAL_H

#include <stddef.h>

#include "store.h"
#include "store/backend.h"

/* One statement with text parameters $1..$n, each row to row (NULL: none); -1 and err (the
 * URL's password masked) on failure. */
int rag_store_q(rag_store *s, const char *sql, int n, const char *const *param, rag_store_row_fn row, void *ctx,
                char *err, size_t errlen);
int rag_store_begin(rag_store *s, char *err, size_t errlen);    /* a write transaction, the lock taken */
int rag_store_commit(rag_store *s, char *err, size_t errlen);   /* rolls back when it fails */
void rag_store_rollback(rag_store *s);
char *rag_store_now(void);                                      /* "2026-12-06T19:30:00Z", malloc'ed */

#endif
