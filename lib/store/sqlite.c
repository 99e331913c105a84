/* store/sqlite.c - the run store's SQLite backend (store/backend.h): a file on this machine. Writers
 * take the database's lock at BEGIN IMMEDIATE and wait for one another (busy timeout), so
 * concurrent adds queue instead of failing. */
#include "base.h"
#include "backend.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BUSY_MS 120000        /* how long a writer waits for another's transaction */

/* mkdir -p of the directory that holds path */
static int parent_dirs(const char *path, char *err, size_t errlen)
{
	char *d = rag_xstrdup(path), *p;
	int rc = 0;
	for (p = d + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		if (mkdir(d, 0777) < 0 && errno != EEXIST) {
			rag_seterr(err, errlen, "cannot create \"%s\": %s", d, strerror(errno));
			rc = -1;
			break;
		}
		*p = '/';
	}
	free(d);
	return rc;
}

void *rag_store_sqlite_open(const char *path, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	if (parent_dirs(path, err, errlen) < 0) return NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		rag_seterr(err, errlen, "cannot open \"%s\": %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, BUSY_MS);
	sqlite3_extended_result_codes(db, 1);
	/* as PostgreSQL does: a record refers to a run that is there */
	sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	return db;
}

static int sq_exec(void *h, const char *sql, int nparam, const char *const *param, rag_store_row_fn row,
                   void *ctx, char *err, size_t errlen)
{
	sqlite3 *db = h;
	sqlite3_stmt *st = NULL;
	const char *col[32];
	int i, rc, n;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rag_seterr(err, errlen, "sqlite: %s", sqlite3_errmsg(db));
		return -1;
	}
	for (i = 0; i < nparam; i++) {
		char name[16];
		int ix;
		snprintf(name, sizeof name, "$%d", i + 1);
		if (!(ix = sqlite3_bind_parameter_index(st, name))) continue;
		if (param[i]) sqlite3_bind_text(st, ix, param[i], -1, SQLITE_STATIC);
		else sqlite3_bind_null(st, ix);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = sqlite3_column_count(st);
		if (n > 32) n = 32;
		for (i = 0; i < n; i++) col[i] = (const char *)sqlite3_column_text(st, i);
		if (row && row(ctx, n, col)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	if (rc != SQLITE_DONE) {
		rag_seterr(err, errlen, "sqlite: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static void sq_close(void *h)
{
	sqlite3_close(h);
}

const rag_store_be rag_store_sqlite_be = {
	"sqlite", "BEGIN IMMEDIATE", NULL,
	"SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
	sq_exec, sq_close,
};
