/* store/backend.h - what lib/store.c asks of a store's backend (lib/store/sqlite.c,
 * lib/store/pg.c).
 * Private to those three files; the public API is store.h.
 *
 * One call runs one SQL statement with text parameters $1..$n (NULL: SQL NULL) and hands each
 * row to a callback as text (NULL for SQL NULL), so that store.c writes its SQL once for both. */
#ifndef RAG_STORE_BACKEND_H
#define RAG_STORE_BACKEND_H

#include <stddef.h>

/* A row: ncol texts, each NULL for NULL; borrowed for the call. Return nonzero to stop. */
typedef int (*rag_store_row_fn)(void *ctx, int ncol, const char *const *col);

typedef struct rag_store_be {
	const char *name;         /* "sqlite", "postgresql" */
	const char *begin;        /* the statement that opens a write transaction */
	/* a statement run first in every write transaction to take the store's one lock, or NULL
	 * (SQLite's BEGIN IMMEDIATE takes it) */
	const char *lock;
	/* one row, one column: 1 when the table $1 exists */
	const char *has_table;
	int (*exec)(void *h, const char *sql, int nparam, const char *const *param, rag_store_row_fn row,
	            void *ctx, char *err, size_t errlen);
	void (*close)(void *h);
} rag_store_be;

extern const rag_store_be rag_store_sqlite_be, rag_store_pg_be;
/* Open the database: a handle, or NULL and err (which never holds the URL's password). */
void *rag_store_sqlite_open(const char *path, char *err, size_t errlen);
void *rag_store_pg_open(const char *url, char *err, size_t errlen);

#endif
