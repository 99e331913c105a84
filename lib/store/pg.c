/* store/pg.c - the run store's PostgreSQL backend (store/backend.h), for a team's shared history.
 * Every write transaction first takes one advisory lock of the store, so that two CI jobs that
 * add at once (or create the schema at once) go one after the other. */
#include "base.h"
#include "backend.h"

#include <libpq-fe.h>
#include <string.h>

/* libpq prints a server's notices on stderr unless told otherwise: the library never prints */
static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* libpq's messages end with a newline and may run over lines: one line */
static void one_line(char *err)
{
	size_t n;
	char *p;
	if (!err) return;
	n = strlen(err);
	while (n && (err[n - 1] == '\n' || err[n - 1] == ' ')) err[--n] = 0;
	for (p = err; *p; p++)
		if (*p == '\n' || *p == '\t') *p = ' ';
}

void *rag_store_pg_open(const char *url, char *err, size_t errlen)
{
	PGconn *c = PQconnectdb(url);
	if (!c || PQstatus(c) != CONNECTION_OK) {
		rag_seterr(err, errlen, "postgresql: %s", c ? PQerrorMessage(c) : "out of memory");
		one_line(err);
		PQfinish(c);
		return NULL;
	}
	PQsetNoticeProcessor(c, quiet, NULL);
	return c;
}

static int pg_exec(void *h, const char *sql, int nparam, const char *const *param, rag_store_row_fn row,
                   void *ctx, char *err, size_t errlen)
{
	PGconn *c = h;
	PGresult *r = PQexecParams(c, sql, nparam, NULL, param, NULL, NULL, 0);
	ExecStatusType st = PQresultStatus(r);
	int i, j, n, rows;
	const char *col[32];
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		rag_seterr(err, errlen, "postgresql: %s", PQresultErrorMessage(r));
		one_line(err);
		PQclear(r);
		return -1;
	}
	rows = PQntuples(r);
	n = PQnfields(r);
	if (n > 32) n = 32;
	for (i = 0; i < rows && row; i++) {
		for (j = 0; j < n; j++) col[j] = PQgetisnull(r, i, j) ? NULL : PQgetvalue(r, i, j);
		if (row(ctx, n, col)) break;
	}
	PQclear(r);
	return 0;
}

static void pg_close(void *h)
{
	PQfinish(h);
}

const rag_store_be rag_store_pg_be = {
	"postgresql", "BEGIN", "SELECT pg_advisory_xact_lock(727013)",
	"SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1",
	pg_exec, pg_close,
};
