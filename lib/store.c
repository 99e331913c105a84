/* store.c - the run store (rag-store(1)): runs, their records and test sets kept in SQLite or
 * PostgreSQL, the same schema and the same SQL on both (the backends, store_sqlite.c and
 * store_pg.c, run a statement with text parameters; store_be.h).
 *
 * The schema has a version (schema_version) and a list of migrations: a store of an older
 * version (or none yet) is brought up to date when it is opened, one of a newer version is
 * refused. Every write is one transaction under the store's lock, so that concurrent adds queue
 * and an add is all there or not at all. Nothing secret goes in: run.json holds none, and the
 * URL's password is masked in every message. */
#include "base.h"
#include "config.h"
#include "record.h"
#include "gate.h"
#include "store.h"
#include "store/backend.h"
#include "store/internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rag_store {
	const rag_store_be *be;
	void *h;
	char *url_shown;          /* the URL with its password masked */
	char *password;           /* scrubbed from every message (NULL: none) */
};

/* ---------------------------------------------------------------- schema */

/* Migration N brings a store of version N - 1 to version N. Version 0 is a database without
 * the schema (new, or a store from before schema_version had a row). */
static const char *const migration_1[] = {
	"CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
	"CREATE TABLE IF NOT EXISTS testsets (name TEXT NOT NULL, version INTEGER NOT NULL, "
	"hash TEXT NOT NULL, created TEXT NOT NULL, n INTEGER NOT NULL, file TEXT, "
	"PRIMARY KEY (name, version))",
	"CREATE TABLE IF NOT EXISTS testcases (testset TEXT NOT NULL, version INTEGER NOT NULL, "
	"seq INTEGER NOT NULL, case_id TEXT, line TEXT NOT NULL, PRIMARY KEY (testset, version, seq), "
	"FOREIGN KEY (testset, version) REFERENCES testsets (name, version))",
	"CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, started TEXT NOT NULL, ended TEXT, "
	"added TEXT NOT NULL, label TEXT, testset TEXT, testset_version INTEGER, commit_id TEXT, "
	"dirty INTEGER, gate TEXT, passed INTEGER, exit_status INTEGER, n INTEGER NOT NULL, "
	"with_errors INTEGER NOT NULL, means TEXT NOT NULL, system TEXT, run_json TEXT, "
	"final_newline INTEGER NOT NULL, testset_file TEXT, format TEXT, metrics TEXT, collect INTEGER, "
	"baseline TEXT, pipeline TEXT, config TEXT, tools TEXT, models TEXT, counts TEXT, resumed_with INTEGER)",
	"CREATE INDEX IF NOT EXISTS runs_started ON runs (started, id)",
	"CREATE TABLE IF NOT EXISTS run_cases (run_id TEXT NOT NULL REFERENCES runs (id), "
	"seq INTEGER NOT NULL, case_id TEXT, category TEXT, scores TEXT, verdicts TEXT, passed INTEGER, "
	"errors TEXT, usage TEXT, line TEXT NOT NULL, PRIMARY KEY (run_id, seq))",
	NULL
};
/* 2: review marks (rag-serve): a reviewer's label of one record's metric, 1/0 for right/wrong or
 * the score a person would give, with a comment; one per reviewer, record and metric */
static const char *const migration_2[] = {
	"CREATE TABLE IF NOT EXISTS marks (run_id TEXT NOT NULL REFERENCES runs (id), seq INTEGER NOT NULL, "
	"case_id TEXT, metric TEXT NOT NULL, label DOUBLE PRECISION NOT NULL, comment TEXT, who TEXT NOT NULL, "
	"created TEXT NOT NULL, PRIMARY KEY (run_id, seq, metric, who))",
	NULL
};
/* 3: test sets edited in rag-serve: who made a version, and a test set's tag (its knowledge
 * base, say), one per test set rather than per version. Tables of their own (no ALTER TABLE),
 * so that the migration can run again over a store that has them, as the others can */
static const char *const migration_3[] = {
	"CREATE TABLE IF NOT EXISTS testset_authors (name TEXT NOT NULL, version INTEGER NOT NULL, "
	"who TEXT NOT NULL, PRIMARY KEY (name, version))",
	"CREATE TABLE IF NOT EXISTS testset_info (name TEXT PRIMARY KEY, tag TEXT)",
	NULL
};
/* 4: a run's verdict as its gate made it (rag_verdict: the decision, the exit status and its
 * reason, the counts, the checks, the gate's options) and its failing records by cause
 * (rag_causes_json), stored once so that no page makes them again; a table of its own */
static const char *const migration_4[] = {
	"CREATE TABLE IF NOT EXISTS run_verdicts (run_id TEXT PRIMARY KEY REFERENCES runs (id), "
	"verdict TEXT NOT NULL, causes TEXT)",
	/* a record that did not pass: why, in the gate's words (the first thing it missed) */
	"CREATE TABLE IF NOT EXISTS run_case_causes (run_id TEXT NOT NULL REFERENCES runs (id), "
	"seq INTEGER NOT NULL, cause TEXT NOT NULL, PRIMARY KEY (run_id, seq))",
	NULL
};
/* 5: each record's gate verdict as the run's gate made it when the run was added (rag_gate_add_verdict's
 * failed, errored, missed and checks: each metric's score against its per-record threshold) and,
 * for one that did not pass, its cause as causes.c names it ({kind, metric?, threshold?, tool?,
 * text?, key, detail}) and that cause's key, by which a cause's records are found; so that a
 * record opened in rag-serve shows its scores against their thresholds and why it failed in the
 * page's language, and no page gates it again. A table of its own, as 4's. */
static const char *const migration_5[] = {
	"CREATE TABLE IF NOT EXISTS run_case_verdicts (run_id TEXT NOT NULL REFERENCES runs (id), "
	"seq INTEGER NOT NULL, verdict TEXT NOT NULL, cause TEXT, cause_key TEXT, PRIMARY KEY (run_id, seq))",
	NULL
};
/* 6: production windows (storeprod.c, rag-store add-window): each window's line as rag-gate
 * --window wrote it, and the records it decided (rag-trace's, scored), their trace ids kept, so
 * that rag-serve's Production tab shows a window's worst records and turns one into a test case.
 * Tables of their own, as 4's. */
static const char *const migration_6[] = {
	"CREATE TABLE IF NOT EXISTS prod_windows (id INTEGER PRIMARY KEY, num INTEGER, started TEXT, "
	"ended TEXT, added TEXT NOT NULL, records INTEGER NOT NULL, pass INTEGER, line TEXT NOT NULL)",
	"CREATE TABLE IF NOT EXISTS prod_records (window_id INTEGER NOT NULL REFERENCES prod_windows (id), "
	"seq INTEGER NOT NULL, trace_id TEXT, line TEXT NOT NULL, PRIMARY KEY (window_id, seq))",
	NULL
};
static const char *const *const migrations[] = { NULL, migration_1, migration_2, migration_3, migration_4, migration_5,
                                                 migration_6 };
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]) - 1)

#ifdef RAG_UNITTESTS   /* only the unit tests call it */
RAG_UNITTEST int rag_store_schema(void)
{
	return SCHEMA_VERSION;
}
#endif

/* ---------------------------------------------------------------- statements */

/* Replace each copy of the password in err by "***". */
static void scrub(const rag_store *s, char *err, size_t errlen)
{
	char *p;
	size_t n;
	if (!s || !s->password || !err || !(n = strlen(s->password))) return;
	while ((p = strstr(err, s->password))) {
		size_t rest = strlen(p + n);
		if (n >= 3) {
			memcpy(p, "***", 3);
			memmove(p + 3, p + n, rest + 1);
		} else {
			memset(p, '*', n);
		}
	}
	(void)errlen;
}

static int q(rag_store *s, const char *sql, int n, const char *const *param, rag_store_row_fn row, void *ctx,
             char *err, size_t errlen)
{
	if (s->be->exec(s->h, sql, n, param, row, ctx, err, errlen) < 0) {
		scrub(s, err, errlen);
		return -1;
	}
	return 0;
}

static int q0(rag_store *s, const char *sql, char *err, size_t errlen)
{
	return q(s, sql, 0, NULL, NULL, NULL, err, errlen);
}

/* a row's first column as a malloc'ed string (the first row only) */
static int first_col(void *ctx, int ncol, const char *const *col)
{
	char **out = ctx;
	if (!*out) *out = rag_xstrdup(ncol > 0 && col[0] ? col[0] : "");
	return 1;
}

/* After a failure: the first error is the one to report, so the rollback's own (the connection
 * is gone, say) goes to a buffer of its own, never into the caller's message. */
static void rollback(rag_store *s)
{
	char scratch[256];
	q0(s, "ROLLBACK", scratch, sizeof scratch);
}

static int begin(rag_store *s, char *err, size_t errlen)
{
	if (q0(s, s->be->begin, err, errlen) < 0) return -1;
	if (s->be->lock && q(s, s->be->lock, 0, NULL, NULL, NULL, err, errlen) < 0) {
		rollback(s);
		return -1;
	}
	return 0;
}

static int commit(rag_store *s, char *err, size_t errlen)
{
	if (q0(s, "COMMIT", err, errlen) < 0) {
		rollback(s);
		return -1;
	}
	return 0;
}

/* The schema's version in the database: 0 when it has none; -1 on error. */
static int schema_version(rag_store *s, char *err, size_t errlen)
{
	const char *p[1] = {"schema_version"};
	char *has = NULL, *v = NULL;
	int version = 0;
	if (q(s, s->be->has_table, 1, p, first_col, &has, err, errlen) < 0) return -1;
	if (has && atoi(has) > 0) {
		if (q(s, "SELECT max(version) FROM schema_version", 0, NULL, first_col, &v, err, errlen) < 0) {
			free(has);
			return -1;
		}
		version = v && *v ? atoi(v) : 0;
	}
	free(has);
	free(v);
	return version;
}

static int migrate(rag_store *s, char *err, size_t errlen)
{
	int v, m;
	size_t i;
	char vs[16];
	const char *p[1] = {vs};
	if ((v = schema_version(s, err, errlen)) < 0) return -1;
	if (v == SCHEMA_VERSION) return 0;
	if (v > SCHEMA_VERSION) goto newer;
	/* under the lock, again: another process may have migrated it meanwhile */
	if (begin(s, err, errlen) < 0) return -1;
	if ((v = schema_version(s, err, errlen)) < 0) goto fail;
	if (v > SCHEMA_VERSION) {
		rollback(s);
		goto newer;
	}
	for (m = v + 1; m <= SCHEMA_VERSION; m++) {
		/* m >= 1: only migrations[0], the version before any, is NULL */
		const char *const *mig = migrations[m], *sql;
		/* cppcheck-suppress nullPointer */
		for (i = 0; (sql = mig[i]) != NULL; i++)
			if (q0(s, sql, err, errlen) < 0) goto fail;
	}
	snprintf(vs, sizeof vs, "%d", SCHEMA_VERSION);
	if (v < SCHEMA_VERSION && (q0(s, "DELETE FROM schema_version", err, errlen) < 0 ||
	                           q(s, "INSERT INTO schema_version (version) VALUES ($1)", 1, p, NULL, NULL, err, errlen) < 0))
		goto fail;
	return commit(s, err, errlen);
fail:
	rollback(s);
	return -1;
newer:
	rag_seterr(err, errlen, "the store %s has schema version %d, newer than this ragpipe's (%d): "
	           "use it with a newer ragpipe", s->url_shown, v, SCHEMA_VERSION);
	return -1;
}

/* ---------------------------------------------------------------- opening */

char *rag_store_url_masked(const char *url)
{
	jv m = rag_config_mask_url(url);
	char *s = rag_xstrdup(jv_string_value(m));
	jv_free(m);
	return s;
}

/* the password of a postgresql://user:password@host URL, or NULL */
static char *url_password(const char *url)
{
	const char *u = strstr(url, "://"), *at, *colon, *slash;
	if (!u) return NULL;
	u += 3;
	slash = strchr(u, '/');
	at = strchr(u, '@');
	if (!at || (slash && at > slash)) return NULL;
	colon = memchr(u, ':', (size_t)(at - u));
	if (!colon || colon + 1 == at) return NULL;
	return rag_xstrndup(colon + 1, (size_t)(at - colon - 1));
}

static int rag_store_is_pg(const char *url)
{
	return !strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11);
}

rag_store *rag_store_open(const char *url, char *err, size_t errlen)
{
	rag_store *s = rag_xcalloc(1, sizeof *s);
	s->url_shown = rag_store_url_masked(url);
	if (rag_store_is_pg(url)) {
		s->be = &rag_store_pg_be;
		s->password = url_password(url);
		s->h = rag_store_pg_open(url, err, errlen);
	} else {
		const char *path = url;
		if (!strncmp(url, "sqlite://", 9)) path = url + 9;   /* sqlite:///abs, sqlite://rel */
		else if (!strncmp(url, "sqlite:", 7)) path = url + 7;
		else if (strstr(url, "://")) {
			rag_seterr(err, errlen, "store URL \"%s\": not sqlite://PATH, postgresql://... or a file's path", s->url_shown);
			goto fail;
		}
		if (!*path) {
			rag_seterr(err, errlen, "store URL \"%s\" names no file", s->url_shown);
			goto fail;
		}
		s->be = &rag_store_sqlite_be;
		s->h = rag_store_sqlite_open(path, err, errlen);
	}
	if (!s->h) {
		scrub(s, err, errlen);
		goto fail;
	}
	if (migrate(s, err, errlen) < 0) goto fail;
	return s;
fail:
	rag_store_close(s);
	return NULL;
}

void rag_store_close(rag_store *s)
{
	if (!s) return;
	if (s->h) s->be->close(s->h);
	free(s->url_shown);
	free(s->password);
	free(s);
}

int rag_store_set_wait(rag_store *s, long ms, char *err, size_t errlen)
{
	char sql[64];
	/* SQLite: how long a statement waits for another connection's lock (BUSY_MS otherwise);
	 * PostgreSQL: how long one waits for a lock (the store's, or a table's) */
	if (!strcmp(s->be->name, "sqlite")) snprintf(sql, sizeof sql, "PRAGMA busy_timeout = %ld", ms);
	else snprintf(sql, sizeof sql, "SET lock_timeout = %ld", ms);
	return s->be->exec(s->h, sql, 0, NULL, NULL, NULL, err, errlen);
}

const char *rag_store_backend(const rag_store *s)
{
	return s->be->name;
}

const char *rag_store_url(const rag_store *s)
{
	return s->url_shown;
}

/* ---------------------------------------------------------------- helpers */

static char *now_iso(void)
{
	char buf[32];
	struct tm tm;
	time_t t = time(NULL);
	gmtime_r(&t, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return rag_xstrdup(buf);
}

/* A new run's id: the UTC time and 8 random hex digits, as unlikely to meet another CI job's. */
static char *new_id(void)
{
	char buf[32];
	struct tm tm;
	struct timespec ts;
	uint32_t r = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	clock_gettime(CLOCK_REALTIME, &ts);
	if (fd < 0 || read(fd, &r, sizeof r) != (ssize_t)sizeof r)
		r = (uint32_t)ts.tv_nsec ^ ((uint32_t)getpid() << 12);
	if (fd >= 0) close(fd);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
	return rag_xasprintf("%s-%08x", buf, (unsigned)r);
}

/* a jv as compact JSON text (consumed): NULL for invalid or null */
static char *dump(jv v)
{
	jv d;
	char *s;
	if (jv_get_kind(v) == JV_KIND_INVALID || jv_get_kind(v) == JV_KIND_NULL) {
		jv_free(v);
		return NULL;
	}
	d = jv_dump_string(v, 0);
	s = rag_xstrdup(jv_string_value(d));
	jv_free(d);
	return s;
}

/* text of JSON (borrowed) as a jv; null for NULL or broken text */
static jv parse(const char *s)
{
	jv v;
	if (!s) return jv_null();
	v = jv_parse(s);
	if (!jv_is_valid(v)) {
		jv_free(v);
		return jv_null();
	}
	return v;
}

static const char *str_or_null(jv o, const char *k, char *buf, size_t n)
{
	jv v = rag_json_get(jv_copy(o), k);
	const char *r = NULL;
	if (jv_get_kind(v) == JV_KIND_STRING) {
		snprintf(buf, n, "%s", jv_string_value(v));
		r = buf;
	}
	jv_free(v);
	return r;
}

/* ---------------------------------------------------------------- test sets */

/* The test set's records as lines of compact JSON, and their hash. */
static int testset_lines(const char *text, size_t len, const char *file, rag_strv *lines, char hash[65],
                         char *err, size_t errlen)
{
	jv recs = rag_testset_read(text, len, file, RAG_TESTSET_AUTO, err, errlen);
	rag_buf all = {0};
	if (!jv_is_valid(recs)) {
		jv_free(recs);
		return -1;
	}
	jv_array_foreach(recs, i, r) {
		char *line = dump(r);
		rag_buf_adds(&all, line);
		rag_buf_add(&all, "\n", 1);
		rag_strv_push(lines, line);
		(void)i;
	}
	jv_free(recs);
	rag_sha256_hex(all.p ? all.p : "", all.len, hash);
	rag_buf_free(&all);
	return 0;
}

/* Inside a transaction: the test set's version holding lines (a new one when its hash differs
 * from the newest). */
static int testset_put(rag_store *s, const char *name, const rag_strv *lines, const char *hash, const char *file,
                       int *version, int *created, char *err, size_t errlen)
{
	char *last = NULL, *lasthash = NULL, vs[16], ns[24], seq[24];
	const char *p[6];
	size_t i;
	int rc = -1;
	p[0] = name;
	if (q(s, "SELECT max(version) FROM testsets WHERE name = $1", 1, p, first_col, &last, err, errlen) < 0) return -1;
	*version = last && *last ? atoi(last) : 0;
	if (*version) {
		snprintf(vs, sizeof vs, "%d", *version);
		p[1] = vs;
		if (q(s, "SELECT hash FROM testsets WHERE name = $1 AND version = $2", 2, p, first_col, &lasthash,
		      err, errlen) < 0)
			goto out;
		if (lasthash && !strcmp(lasthash, hash)) {
			*created = 0;
			rc = 0;
			goto out;
		}
	}
	++*version;
	*created = 1;
	snprintf(vs, sizeof vs, "%d", *version);
	snprintf(ns, sizeof ns, "%zu", lines->n);
	{
		char *now = now_iso();
		const char *pp[6] = {name, vs, hash, now, ns, file};
		int r = q(s, "INSERT INTO testsets (name, version, hash, created, n, file) VALUES ($1, $2, $3, $4, $5, $6)",
		          6, pp, NULL, NULL, err, errlen);
		free(now);
		if (r < 0) goto out;
	}
	for (i = 0; i < lines->n; i++) {
		jv rec = jv_parse(lines->v[i]);
		char *id = rag_record_id(rec);
		const char *pp[5] = {name, vs, seq, id, lines->v[i]};
		int r;
		jv_free(rec);
		snprintf(seq, sizeof seq, "%zu", i + 1);
		r = q(s, "INSERT INTO testcases (testset, version, seq, case_id, line) VALUES ($1, $2, $3, $4, $5)",
		      5, pp, NULL, NULL, err, errlen);
		free(id);
		if (r < 0) goto out;
	}
	rc = 0;
out:
	free(last);
	free(lasthash);
	return rc;
}

int rag_store_testset_import(rag_store *s, const char *name, const char *text, size_t len, const char *file,
                             int *version, int *created, char *err, size_t errlen)
{
	rag_strv lines = {0};
	char hash[65];
	int rc = -1;
	if (testset_lines(text, len, file, &lines, hash, err, errlen) < 0) return -1;
	if (begin(s, err, errlen) < 0) goto out;
	if (testset_put(s, name, &lines, hash, file, version, created, err, errlen) < 0) {
		rollback(s);
		goto out;
	}
	rc = commit(s, err, errlen);
out:
	rag_strv_free(&lines);
	return rc;
}

static int add_line(void *ctx, int ncol, const char *const *col)
{
	rag_buf *b = ctx;
	if (ncol > 0 && col[0]) rag_buf_adds(b, col[0]);
	rag_buf_add(b, "\n", 1);
	return 0;
}

int rag_store_testset_export(rag_store *s, const char *name, int version, rag_buf *out, int *version_out,
                             char *err, size_t errlen)
{
	char vs[16] = "", *last = NULL;
	const char *p[2] = {name, vs};
	int asked = version;
	if (!version) {
		if (q(s, "SELECT max(version) FROM testsets WHERE name = $1", 1, p, first_col, &last, err, errlen) < 0)
			return -1;
		version = last && *last ? atoi(last) : 0;
		free(last);
		last = NULL;
	} else {
		snprintf(vs, sizeof vs, "%d", version);
		if (q(s, "SELECT version FROM testsets WHERE name = $1 AND version = $2", 2, p, first_col, &last,
		      err, errlen) < 0)
			return -1;
		if (!last) version = 0;
		free(last);
	}
	if (!version) {
		if (asked) rag_seterr(err, errlen, "no version %d of test set \"%s\" in the store", asked, name);
		else rag_seterr(err, errlen, "no test set \"%s\" in the store", name);
		return 1;
	}
	snprintf(vs, sizeof vs, "%d", version);
	if (version_out) *version_out = version;
	return q(s, "SELECT line FROM testcases WHERE testset = $1 AND version = $2 ORDER BY seq", 2, p, add_line, out,
	         err, errlen);
}

/* ---------------------------------------------------------------- adding a run */

/* the mean of each metric's numbers over the records: an object metric -> mean */
typedef struct means { jv sum, count; } means;

static void means_add(means *m, jv scores)
{
	if (jv_get_kind(scores) != JV_KIND_OBJECT) {
		jv_free(scores);
		return;
	}
	jv_object_foreach(scores, k, v) {
		if (jv_get_kind(v) == JV_KIND_NUMBER && isfinite(jv_number_value(v))) {
			double s = rag_json_num(m->sum, jv_string_value(k)), c = rag_json_num(m->count, jv_string_value(k));
			if (isnan(s)) s = c = 0;
			m->sum = jv_object_set(m->sum, jv_copy(k), jv_number(s + jv_number_value(v)));
			m->count = jv_object_set(m->count, jv_copy(k), jv_number(c + 1));
		}
		jv_free(k);
		jv_free(v);
	}
	jv_free(scores);
}

static jv means_done(means *m)
{
	jv out = jv_object();
	jv_object_foreach(m->sum, k, v) {
		double c = rag_json_num(m->count, jv_string_value(k));
		double mean = jv_number_value(v) / c;
		out = jv_object_set(out, k, jv_number(round(mean * 1e6) / 1e6));
		jv_free(v);
	}
	jv_free(m->sum);
	jv_free(m->count);
	return out;
}

/* The fields of run.json that have a column of their own besides those read above (the whole
 * object is in run_json too): column, key. */
static const char *const run_fields[][2] = {
	{"testset_file", "testset"}, {"format", "format"}, {"metrics", "metrics"}, {"collect", "collect"},
	{"baseline", "baseline"}, {"pipeline", "pipeline"}, {"config", "config"}, {"tools", "tools"},
	{"models", "models"}, {"counts", "counts"}, {"resumed_with", "resumed_with"},
};
#define NRUN_FIELDS (sizeof run_fields / sizeof run_fields[0])

/* v (consumed) as a column's text: a string itself, a number, true 1 and false 0, an array or
 * object as JSON; NULL for null or absent */
static char *column_text(jv v)
{
	char *s = NULL;
	switch (jv_get_kind(v)) {
	case JV_KIND_STRING: s = rag_xstrdup(jv_string_value(v)); break;
	case JV_KIND_NUMBER: s = rag_xasprintf("%.17g", jv_number_value(v)); break;
	case JV_KIND_TRUE: s = rag_xstrdup("1"); break;
	case JV_KIND_FALSE: s = rag_xstrdup("0"); break;
	case JV_KIND_ARRAY:
	case JV_KIND_OBJECT: return dump(v);
	default: break;
	}
	jv_free(v);
	return s;
}

/* Inside the add's transaction: run.json's other fields into their columns. */
static int run_columns(rag_store *s, const char *id, jv run, char *err, size_t errlen)
{
	char *val[NRUN_FIELDS + 1];
	const char *p[NRUN_FIELDS + 1];
	rag_buf sql = {0};
	size_t i;
	int rc;
	rag_buf_adds(&sql, "UPDATE runs SET ");
	for (i = 0; i < NRUN_FIELDS; i++) {
		val[i] = column_text(rag_json_get(jv_copy(run), run_fields[i][1]));
		p[i] = val[i];
		rag_buf_addf(&sql, "%s%s = $%zu", i ? ", " : "", run_fields[i][0], i + 1);
	}
	p[NRUN_FIELDS] = id;
	rag_buf_addf(&sql, " WHERE id = $%zu", NRUN_FIELDS + 1);
	rc = q(s, sql.p, (int)NRUN_FIELDS + 1, p, NULL, NULL, err, errlen);
	for (i = 0; i < NRUN_FIELDS; i++) free(val[i]);
	rag_buf_free(&sql);
	return rc;
}

/* The test set's name for a run: the file's name without its directory and extension. */
static char *testset_name_of(const char *path)
{
	const char *b = strrchr(path, '/'), *dot;
	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	return dot && dot != b ? rag_xstrndup(b, (size_t)(dot - b)) : rag_xstrdup(b);
}

static int run_exists(rag_store *s, const char *id, char *err, size_t errlen)
{
	char *x = NULL;
	const char *p[1] = {id};
	int r = q(s, "SELECT id FROM runs WHERE id = $1", 1, p, first_col, &x, err, errlen);
	if (r < 0) return -1;
	r = x != NULL;
	free(x);
	return r;
}

/* The knobs every record so far carries with one value: common (consumed) narrowed by a
 * record's system (consumed); first: the first record, whose knobs start it. */
static jv common_knobs(jv common, jv sys, int first)
{
	jv out;
	if (first) {
		jv_free(common);
		if (jv_get_kind(sys) == JV_KIND_OBJECT) return sys;
		jv_free(sys);
		return jv_object();
	}
	if (jv_get_kind(sys) != JV_KIND_OBJECT) {
		jv_free(common);
		jv_free(sys);
		return jv_object();
	}
	out = jv_object();
	jv_object_foreach(common, k, v) {
		jv w = jv_object_get(jv_copy(sys), jv_copy(k));
		int same = jv_is_valid(w) ? jv_equal(jv_copy(v), w) : (jv_free(w), 0);
		if (same) out = jv_object_set(out, k, v);
		else jv_free(k), jv_free(v);
	}
	jv_free(common);
	jv_free(sys);
	return out;
}

/* What rag_store_add reads of run.json. */
typedef struct run_meta {
	const char *commit_id, *dirty, *gate, *passed, *exit_status;   /* columns, NULL for none */
	char cbuf[128], gbuf[32], exbuf[24];
	jv sys;                   /* config.system */
	char *run_s;              /* run.json as text */
} run_meta;

static void read_run_meta(jv run, run_meta *rm)
{
	jv gitv = rag_json_get(jv_copy(run), "git"), m;
	rm->commit_id = str_or_null(gitv, "commit", rm->cbuf, sizeof rm->cbuf);
	m = rag_json_get(jv_copy(gitv), "dirty");
	rm->dirty = jv_get_kind(m) == JV_KIND_TRUE ? "1" : jv_get_kind(m) == JV_KIND_FALSE ? "0" : NULL;
	jv_free(m);
	jv_free(gitv);
	rm->gate = str_or_null(run, "gate", rm->gbuf, sizeof rm->gbuf);
	rm->passed = rm->gate && !strcmp(rm->gate, "pass") ? "1" : rm->gate && !strcmp(rm->gate, "fail") ? "0" : NULL;
	m = rag_json_get(jv_copy(run), "exit_status");
	if (jv_get_kind(m) == JV_KIND_NUMBER) {
		snprintf(rm->exbuf, sizeof rm->exbuf, "%.0f", jv_number_value(m));
		rm->exit_status = rm->exbuf;
	}
	jv_free(m);
	m = rag_json_get(jv_copy(run), "config");
	rm->sys = rag_json_get(m, "system");
	rm->run_s = dump(jv_copy(run));
}

/* The run's records as rag_store_add reads them: their counts, means, common knobs and gate. */
typedef struct add_cases {
	size_t seq, nrec, with_errors;
	means mm;
	jv common;
	rag_gate *g;
	int gated;                /* the gate has a threshold (else no record passes or fails) */
	rag_causes *causes;       /* the failing records by cause */
} add_cases;

/* Why a record (borrowed) with its gate verdict (borrowed) did not pass: the first of its causes
 * as causes.c ranks them (its first error or no answer first, then the metric farthest below its
 * threshold), its line and detail, the same words as the run's grouping; null when it has none.
 * *info: the cause as causes.c gives it ({kind, ..., key}) with the record's detail; null: none. */
static jv record_cause(jv rec, jv verdict, long seq, jv *info)
{
	rag_causes *one = rag_causes_new();
	jv all, c, r, errs = rag_json_get(jv_copy(rec), "errors");
	/* its root: the first error (a later stage's says what it could not do without the earlier
	 * one's result) */
	if (jv_get_kind(errs) == JV_KIND_ARRAY && jv_array_length(jv_copy(errs)) > 1)
		rec = jv_object_set(jv_copy(rec), jv_string("errors"), JV_ARRAY(jv_array_get(jv_copy(errs), 0)));
	else
		rec = jv_copy(rec);
	jv_free(errs);
	rag_causes_add(one, rec, verdict, seq);
	jv_free(rec);
	all = rag_causes_json(one);
	rag_causes_free(one);
	c = jv_array_length(jv_copy(all)) > 0 ? jv_array_get(jv_copy(all), 0) : jv_null();
	jv_free(all);
	*info = jv_null();
	if (jv_get_kind(c) != JV_KIND_OBJECT) {
		jv_free(c);
		return jv_null();
	}
	{
		char line[1200], detail[800];
		jv d = jv_array_get(rag_json_get(jv_copy(c), "records"), 0);
		rag_json_str(c, "cause", line, sizeof line);
		rag_json_str(d, "detail", detail, sizeof detail);
		r = *detail ? jv_string_fmt("%s: %s", line, detail) : jv_string(line);
		jv_free(d);
		jv_free(*info);
		*info = jv_object_set(jv_object_delete(jv_object_delete(jv_copy(c), jv_string("records")), jv_string("count")),
		                      jv_string("detail"), jv_string(detail));
	}
	jv_free(c);
	return r;
}

/* One line of the run's records (len bytes at text) into run_cases, counted into cs. */
static int put_case(rag_store *s, const char *id, const char *text, size_t len, add_cases *cs, char *err, size_t errlen)
{
	char *line = rag_xstrndup(text, len);
	jv rec = jv_parse_sized(text, (int)len);
	char *cid = NULL, *sc = NULL, *vd = NULL, *er = NULL, *us = NULL, seqs[24], catbuf[512];
	jv why = jv_null(), rv = jv_null(), info = jv_null();
	const char *cat = NULL, *rpass = NULL;
	int r;
	cs->seq++;
	if (jv_get_kind(rec) == JV_KIND_OBJECT) {
		jv e = rag_json_get(jv_copy(rec), "errors");
		cs->nrec++;
		cid = rag_record_id(rec);
		cat = str_or_null(rec, "category", catbuf, sizeof catbuf);
		sc = dump(rag_json_get(jv_copy(rec), "scores"));
		vd = dump(rag_json_get(jv_copy(rec), "verdicts"));
		means_add(&cs->mm, rag_json_get(jv_copy(rec), "scores"));
		if (jv_get_kind(e) == JV_KIND_ARRAY && jv_array_length(jv_copy(e)) > 0) cs->with_errors++;
		er = dump(e);
		us = dump(rag_json_get(jv_copy(rec), "usage"));
		cs->common = common_knobs(cs->common, rag_json_get(jv_copy(rec), "system"), cs->nrec == 1);
		if (cs->g) {
			char where[32];
			jv v;
			int pass;
			snprintf(where, sizeof where, "%zu", cs->seq);
			v = rag_gate_add_verdict(cs->g, rec, where, 0);   /* rec borrowed */
			/* the gate's verdict on the record: passed, failed, or none (errored: out of the
			 * pass rate, rag_verdict_pass_rate), as rag-gate counts it */
			pass = rag_verdict_record_pass(v);
			rpass = pass < 0 ? NULL : pass ? "1" : "0";
			rag_causes_add(cs->causes, rec, v, (long)cs->seq);
			if (pass != 1) why = record_cause(rec, v, (long)cs->seq, &info);
			/* the verdict kept with the record, less what a comparison adds */
			rv = jv_object_delete(jv_object_delete(v, jv_string("changes")), jv_string("change"));
		}
	}
	jv_free(rec);
	snprintf(seqs, sizeof seqs, "%zu", cs->seq);
	{
		const char *p[10] = {id, seqs, cid, cat, sc, vd, rpass, er, us, line};
		r = q(s, "INSERT INTO run_cases (run_id, seq, case_id, category, scores, verdicts, passed, errors, usage, "
		      "line) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", 10, p, NULL, NULL, err, errlen);
	}
	if (r >= 0 && jv_get_kind(why) == JV_KIND_STRING) {
		const char *p[3] = {id, seqs, jv_string_value(why)};
		r = q(s, "INSERT INTO run_case_causes (run_id, seq, cause) VALUES ($1, $2, $3)", 3, p, NULL, NULL, err, errlen);
	}
	if (r >= 0 && jv_get_kind(rv) == JV_KIND_OBJECT) {
		char *vs = dump(jv_copy(rv)), *is = jv_get_kind(info) == JV_KIND_OBJECT ? dump(jv_copy(info)) : NULL, key[1200];
		const char *p[5] = {id, seqs, vs, is, is ? rag_json_str(info, "key", key, sizeof key) : NULL};
		r = q(s, "INSERT INTO run_case_verdicts (run_id, seq, verdict, cause, cause_key) VALUES ($1, $2, $3, $4, $5)", 5, p,
		      NULL, NULL, err, errlen);
		free(vs);
		free(is);
	}
	jv_free(why);
	jv_free(rv);
	jv_free(info);
	free(line);
	free(cid);
	free(sc);
	free(vd);
	free(er);
	free(us);
	return r;
}

/* The run's verdict (borrowed; run.json's, else for a stream or a run from before verdicts the
 * one the store's gate makes, once) and its failing records by cause into run_verdicts; the
 * run's passed from it when run.json said nothing. */
static int put_verdict(rag_store *s, const char *id, add_cases *cs, jv verdict, run_meta *rm, char *err, size_t errlen)
{
	char dec[16], *vd_s, *causes_s;
	int r;
	if (jv_get_kind(verdict) == JV_KIND_OBJECT) {
		verdict = jv_copy(verdict);
	} else if (cs->g) {
		jv sum = rag_gate_summary(cs->g);
		if (!cs->gated) sum = jv_object_set(sum, jv_string("pass"), jv_null());
		verdict = rag_verdict(sum);
		jv_free(sum);
	} else {
		return 0;
	}
	rag_json_str(verdict, "decision", dec, sizeof dec);
	if (!rm->passed) rm->passed = !strcmp(dec, "pass") ? "1" : !strcmp(dec, "fail") ? "0" : NULL;
	vd_s = dump(verdict);
	causes_s = dump(cs->causes ? rag_causes_json(cs->causes) : jv_null());
	{
		const char *p[3] = {id, vd_s, causes_s};
		r = q(s, "INSERT INTO run_verdicts (run_id, verdict, causes) VALUES ($1, $2, $3)", 3, p, NULL, NULL, err, errlen);
	}
	free(vd_s);
	free(causes_s);
	return r < 0 ? -1 : 0;
}

int rag_store_add(rag_store *s, const rag_store_run *in, char **id_out, char *err, size_t errlen)
{
	jv run = jv_copy(in->run);
	char *id = NULL, *now = now_iso(), *started = NULL, *testset = NULL, *means_s = NULL, *sys_s = NULL;
	char buf[256], nbuf[24], ebuf[24], tvbuf[16];
	const char *ended;
	char endbuf[64];
	rag_strv ts_lines = {0};
	char ts_hash[65];
	int ts_version = 0, created, rc = -1, in_tx = 0;
	size_t pos = 0;
	run_meta rm = {0};
	add_cases cs = {0};
	rag_verdict_gate vg;
	const rag_gate_opts *gopts = in->gate;
	jv verdict = jv_null();
	int final_newline = in->len == 0 || in->records[in->len - 1] == '\n';

	rm.sys = jv_null();
	cs.common = jv_object();
	cs.mm.sum = jv_object();
	cs.mm.count = jv_object();
	if (jv_get_kind(run) != JV_KIND_OBJECT) {
		jv_free(run);
		run = jv_null();
	}
	/* the run's own gate, as its verdict records it, over the caller's */
	verdict = jv_get_kind(run) == JV_KIND_OBJECT ? rag_json_get(jv_copy(run), "verdict") : jv_null();
	if (jv_get_kind(verdict) == JV_KIND_OBJECT && rag_verdict_gate_opts(verdict, &vg) == 0) {
		gopts = &vg.o;
	} else {
		jv_free(verdict);
		verdict = jv_null();
	}
	if (gopts) {
		cs.g = rag_gate_new(gopts);
		cs.gated = gopts->nmean || gopts->nrecord || gopts->npass;
		cs.causes = rag_causes_new();
	}
	/* the run's id, start and settings */
	if (in->id) id = rag_xstrdup(in->id);
	else if (jv_get_kind(run) == JV_KIND_OBJECT && str_or_null(run, "run_id", buf, sizeof buf)) id = rag_xstrdup(buf);
	else id = new_id();
	if (jv_get_kind(run) == JV_KIND_OBJECT && str_or_null(run, "started", buf, sizeof buf)) started = rag_xstrdup(buf);
	else started = rag_xstrdup(now);
	ended = jv_get_kind(run) == JV_KIND_OBJECT ? str_or_null(run, "ended", endbuf, sizeof endbuf) : NULL;
	if (!ended && jv_get_kind(run) != JV_KIND_OBJECT) ended = now;
	if (in->testset) testset = rag_xstrdup(in->testset);
	else if (jv_get_kind(run) == JV_KIND_OBJECT && str_or_null(run, "testset", buf, sizeof buf))
		testset = testset_name_of(buf);
	if (jv_get_kind(run) == JV_KIND_OBJECT) {
		jv_free(rm.sys);
		read_run_meta(run, &rm);
	}
	if (in->commit) rm.commit_id = in->commit;
	if (in->testset_text && testset &&
	    testset_lines(in->testset_text, in->testset_len, in->testset_file, &ts_lines, ts_hash, err, errlen) < 0)
		goto out;

	if (begin(s, err, errlen) < 0) goto out;
	in_tx = 1;
	if ((rc = run_exists(s, id, err, errlen)) != 0) {
		if (rc > 0) rag_seterr(err, errlen, "run \"%s\" is already in the store", id);
		rc = -1;
		goto out;
	}
	rc = -1;
	if (ts_lines.n && testset_put(s, testset, &ts_lines, ts_hash, in->testset_file, &ts_version, &created,
	                              err, errlen) < 0)
		goto out;
	/* the run first (its records refer to it), its counts once they are read */
	snprintf(tvbuf, sizeof tvbuf, "%d", ts_version);
	{
		const char *p[18] = {id, started, ended, now, in->label, testset, ts_version ? tvbuf : NULL, rm.commit_id,
		                     rm.dirty, rm.gate, rm.passed, rm.exit_status, "0", "0", "{}", NULL, rm.run_s,
		                     final_newline ? "1" : "0"};
		if (q(s, "INSERT INTO runs (id, started, ended, added, label, testset, testset_version, commit_id, dirty, "
		      "gate, passed, exit_status, n, with_errors, means, system, run_json, final_newline) VALUES "
		      "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
		      18, p, NULL, NULL, err, errlen) < 0)
			goto out;
	}
	if (jv_get_kind(run) == JV_KIND_OBJECT && run_columns(s, id, run, err, errlen) < 0) goto out;
	/* the records, each line as it came */
	while (pos < in->len) {
		const char *nl = memchr(in->records + pos, '\n', in->len - pos);
		size_t end = nl ? (size_t)(nl - in->records) : in->len;
		int r = put_case(s, id, in->records + pos, end - pos, &cs, err, errlen);
		pos = end + 1;
		if (r < 0) goto out;
	}
	if (put_verdict(s, id, &cs, verdict, &rm, err, errlen) < 0) goto out;
	means_s = dump(means_done(&cs.mm));
	cs.mm.sum = jv_invalid();
	/* the knobs that ran, as every record says them (rag-collect --system-from), over those
	 * configured */
	if (jv_get_kind(cs.common) == JV_KIND_OBJECT && jv_object_length(jv_copy(cs.common)) > 0)
		rm.sys = jv_get_kind(rm.sys) == JV_KIND_OBJECT ? jv_object_merge(rm.sys, jv_copy(cs.common))
		                                              : (jv_free(rm.sys), jv_copy(cs.common));
	sys_s = jv_get_kind(rm.sys) == JV_KIND_OBJECT ? dump(jv_copy(rm.sys)) : NULL;
	snprintf(nbuf, sizeof nbuf, "%zu", cs.nrec);
	snprintf(ebuf, sizeof ebuf, "%zu", cs.with_errors);
	{
		const char *p[8] = {nbuf, ebuf, means_s, rm.passed, sys_s, id};
		if (q(s, "UPDATE runs SET n = $1, with_errors = $2, means = $3, passed = $4, system = $5 WHERE id = $6",
		      6, p, NULL, NULL, err, errlen) < 0)
			goto out;
	}
	if (commit(s, err, errlen) < 0) {
		in_tx = 0;
		goto out;
	}
	in_tx = 0;
	rc = 0;
	if (id_out) {
		*id_out = id;
		id = NULL;
	}
out:
	if (in_tx) rollback(s);
	if (jv_is_valid(cs.mm.sum)) {
		jv_free(cs.mm.sum);
		jv_free(cs.mm.count);
	}
	rag_gate_free(cs.g);
	if (cs.causes) rag_causes_free(cs.causes);
	if (gopts == &vg.o) rag_verdict_gate_free(&vg);
	jv_free(verdict);
	rag_strv_free(&ts_lines);
	jv_free(run);
	jv_free(rm.sys);
	jv_free(cs.common);
	free(id);
	free(now);
	free(started);
	free(testset);
	free(means_s);
	free(sys_s);
	free(rm.run_s);
	return rc;
}

/* ---------------------------------------------------------------- reading runs */

#define RUN_COLS "id, started, ended, label, commit_id, testset, testset_version, n, passed, gate, " \
	"with_errors, means, system, dirty, exit_status, added, " \
	"(SELECT verdict FROM run_verdicts v WHERE v.run_id = runs.id)"

static jv text_or_null(const char *s)
{
	return s ? jv_string(s) : jv_null();
}

static jv int_or_null(const char *s)
{
	return s ? jv_number(atof(s)) : jv_null();
}

/* a row of RUN_COLS as a run's summary */
static jv run_row(int ncol, const char *const *c)
{
	jv r = jv_object();
	if (ncol < 16) return r;
	r = jv_object_set(r, jv_string("run"), text_or_null(c[0]));
	r = jv_object_set(r, jv_string("started"), text_or_null(c[1]));
	r = jv_object_set(r, jv_string("ended"), text_or_null(c[2]));
	r = jv_object_set(r, jv_string("label"), text_or_null(c[3]));
	r = jv_object_set(r, jv_string("commit"), text_or_null(c[4]));
	r = jv_object_set(r, jv_string("dirty"), c[13] ? jv_bool(atoi(c[13])) : jv_null());
	r = jv_object_set(r, jv_string("testset"), text_or_null(c[5]));
	r = jv_object_set(r, jv_string("testset_version"), int_or_null(c[6]));
	r = jv_object_set(r, jv_string("n"), int_or_null(c[7]));
	r = jv_object_set(r, jv_string("records_with_errors"), int_or_null(c[10]));
	r = jv_object_set(r, jv_string("passed"), c[8] ? jv_bool(atoi(c[8])) : jv_null());
	r = jv_object_set(r, jv_string("gate"), text_or_null(c[9]));
	r = jv_object_set(r, jv_string("exit_status"), int_or_null(c[14]));
	r = jv_object_set(r, jv_string("means"), c[11] ? parse(c[11]) : jv_object());
	r = jv_object_set(r, jv_string("system"), parse(c[12]));
	r = jv_object_set(r, jv_string("added"), text_or_null(c[15]));
	/* the verdict as stored, less the lists a page of runs does not show (rag_store_show has them) */
	r = jv_object_set(r, jv_string("verdict"), ncol > 16 && c[16] ? jv_object_delete(jv_object_delete(
	                  jv_object_delete(parse(c[16]), jv_string("checks")), jv_string("thresholds")), jv_string("by"))
	                  : jv_null());
	return r;
}

static int collect_runs(void *ctx, int ncol, const char *const *col)
{
	jv *a = ctx;
	*a = jv_array_append(*a, run_row(ncol, col));
	return 0;
}

/* whether summary r (borrowed) has system KEY=VALUE */
static int system_matches(jv r, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char *key;
	jv sys, v, want;
	int ok;
	if (!eq) return 0;
	key = rag_xstrndup(kv, (size_t)(eq - kv));
	sys = rag_json_get(jv_copy(r), "system");
	v = rag_json_path(sys, key);
	want = rag_config_scalar(eq + 1);
	ok = jv_is_valid(v) && (jv_equal(jv_copy(v), jv_copy(want)) ||
	                        (jv_get_kind(v) == JV_KIND_STRING && !strcmp(jv_string_value(v), eq + 1)));
	jv_free(v);
	jv_free(want);
	jv_free(sys);
	free(key);
	return ok;
}

/* an end of --until that is a day alone takes in the whole day */
static char *until_bound(const char *u)
{
	return strlen(u) == 10 ? rag_xasprintf("%sT23:59:59Z", u) : rag_xstrdup(u);
}

/* A LIKE pattern for "starts with pre": its own %, _ and the escape character taken literally
 * (ESCAPE '!', not a backslash, which a server without standard_conforming_strings reads
 * differently in a literal). */
static char *like_prefix(const char *pre)
{
	rag_buf b = {0};
	for (; *pre; pre++) {
		if (*pre == '%' || *pre == '_' || *pre == '!') rag_buf_add(&b, "!", 1);
		rag_buf_add(&b, pre, 1);
	}
	rag_buf_add(&b, "%", 1);
	return b.p;   /* never NULL: the % at least */
}

/* The WHERE clause of filter f (its system filters aside) into sql, its parameters into p (at
 * most 5); *until and *like hold what p points to, for the caller to free. Returns their number. */
static int run_where(const rag_store_filter *f, rag_buf *sql, const char **p, char **until, char **like)
{
	int n = 0;
	rag_buf_adds(sql, " WHERE 1 = 1");
	if (f->label) {
		p[n++] = f->label;
		rag_buf_addf(sql, " AND label = $%d", n);
	}
	if (f->testset) {
		p[n++] = f->testset;
		rag_buf_addf(sql, " AND testset = $%d", n);
	}
	if (f->since) {
		p[n++] = f->since;
		rag_buf_addf(sql, " AND started >= $%d", n);
	}
	if (f->until) {
		p[n++] = *until = until_bound(f->until);
		rag_buf_addf(sql, " AND started <= $%d", n);
	}
	if (f->commit) {
		p[n++] = *like = like_prefix(f->commit);
		rag_buf_addf(sql, " AND commit_id LIKE $%d ESCAPE '!'", n);
	}
	return n;
}

int rag_store_list(rag_store *s, const rag_store_filter *f, jv *out, char *err, size_t errlen)
{
	rag_buf sql = {0};
	const char *p[5];
	char *until = NULL, *like = NULL;
	int n, rc;
	jv a = jv_array(), kept;
	rag_buf_adds(&sql, "SELECT " RUN_COLS " FROM runs");
	n = run_where(f, &sql, p, &until, &like);
	rag_buf_adds(&sql, " ORDER BY started DESC, id DESC");
	rc = q(s, sql.p, n, p, collect_runs, &a, err, errlen);
	rag_buf_free(&sql);
	free(until);
	free(like);
	if (rc < 0) {
		jv_free(a);
		return -1;
	}
	/* newest first from the query: the filters on system, the limit, then oldest first */
	kept = jv_array();
	jv_array_foreach(a, i, r) {
		size_t k;
		int ok = 1;
		for (k = 0; k < f->nsystem && ok; k++) ok = system_matches(r, f->system[k]);
		if (ok && (f->limit <= 0 || jv_array_length(jv_copy(kept)) < f->limit)) kept = jv_array_append(kept, r);
		else jv_free(r);
		(void)i;
	}
	jv_free(a);
	a = jv_array();
	{
		int len = jv_array_length(jv_copy(kept)), i;
		for (i = len - 1; i >= 0; i--) a = jv_array_append(a, jv_array_get(jv_copy(kept), i));
	}
	jv_free(kept);
	*out = a;
	return 0;
}

/* the count of a query's one row, one column */
static int count_of(rag_store *s, const char *sql, int n, const char *const *p, long *out, char *err, size_t errlen)
{
	char *c = NULL;
	if (q(s, sql, n, p, first_col, &c, err, errlen) < 0) return -1;
	*out = c && *c ? atol(c) : 0;
	free(c);
	return 0;
}

int rag_store_page(rag_store *s, const rag_store_filter *f, long offset, long limit, jv *out, char *err,
                   size_t errlen)
{
	rag_buf sql = {0}, cnt = {0};
	const char *p[5];
	char *until = NULL, *like = NULL;
	long total = 0;
	int n, rc;
	jv a = jv_array();
	rag_buf_adds(&sql, "SELECT " RUN_COLS " FROM runs");
	rag_buf_adds(&cnt, "SELECT count(*) FROM runs");
	n = run_where(f, &sql, p, &until, &like);
	free(until);
	free(like);
	until = like = NULL;
	run_where(f, &cnt, p, &until, &like);
	/* numbers the caller checked, written into the SQL as rag_store_resolve does */
	rag_buf_addf(&sql, " ORDER BY started DESC, id DESC LIMIT %ld OFFSET %ld", limit, offset);
	rc = q(s, sql.p, n, p, collect_runs, &a, err, errlen);
	if (rc == 0) rc = count_of(s, cnt.p, n, p, &total, err, errlen);
	rag_buf_free(&sql);
	rag_buf_free(&cnt);
	free(until);
	free(like);
	if (rc < 0) {
		jv_free(a);
		return -1;
	}
	*out = JV_OBJECT(jv_string("total"), jv_number((double)total), jv_string("offset"), jv_number((double)offset),
	                 jv_string("limit"), jv_number((double)limit), jv_string("runs"), a);
	return 0;
}

static int collect_mark(void *ctx, int ncol, const char *const *c);

/* a record's columns: seq, case_id, category, passed, line, cause, cause (the object), verdict */
#define REC_COLS "c.seq, c.case_id, c.category, c.passed, c.line, k.cause, v.cause, v.verdict FROM run_cases c " \
	"LEFT JOIN run_case_causes k ON k.run_id = c.run_id AND k.seq = c.seq " \
	"LEFT JOIN run_case_verdicts v ON v.run_id = c.run_id AND v.seq = c.seq"

/* a row of REC_COLS as {seq, id, category, passed, cause, why, record} (why: the cause as
 * causes.c names it, null for a run added before the store kept it) */
static jv record_row(int ncol, const char *const *c)
{
	if (ncol < 8) return jv_null();
	return JV_OBJECT(jv_string("seq"), int_or_null(c[0]), jv_string("id"), text_or_null(c[1]),
	                 jv_string("category"), text_or_null(c[2]), jv_string("passed"), c[3] ? jv_bool(atoi(c[3])) : jv_null(),
	                 jv_string("cause"), text_or_null(c[5]), jv_string("why"), parse(c[6]), jv_string("record"),
	                 parse(c[4]));
}

static int collect_record(void *ctx, int ncol, const char *const *c)
{
	jv *a = ctx, r = record_row(ncol, c);
	if (jv_get_kind(r) == JV_KIND_OBJECT) *a = jv_array_append(*a, r);
	else jv_free(r);
	return 0;
}

/* whether needle (lowercase) is in s, ASCII letters of s compared as lowercase */
static int has_text(const char *s, const char *needle)
{
	size_t n = strlen(needle), i;
	if (!s) return 0;
	for (; *s; s++) {
		for (i = 0; i < n && s[i] && tolower((unsigned char)s[i]) == (unsigned char)needle[i]; i++)
			;
		if (i == n) return 1;
	}
	return 0;
}

/* The records a filter lets through, counted, and the seqs of those in the page kept. */
typedef struct rec_scan {
	const rag_store_rec_filter *f;
	char *needle;             /* f->text in lowercase (ASCII) */
	long offset, limit, total;
	rag_buf seqs;             /* "3,7,9" */
} rec_scan;

/* a row of seq, scores, line: does the filter's metric and text let it through */
static int scan_record(void *ctx, int ncol, const char *const *c)
{
	rec_scan *sc = ctx;
	const rag_store_rec_filter *f = sc->f;
	if (ncol < 3 || !c[0]) return 0;
	if (f->metric) {
		jv sv = parse(c[1]), x = jv_get_kind(sv) == JV_KIND_OBJECT ? jv_object_get(sv, jv_string(f->metric)) : (jv_free(sv), jv_null());
		int below = jv_get_kind(x) == JV_KIND_NUMBER && jv_number_value(x) < f->below;
		jv_free(x);
		if (!below) return 0;
	}
	if (sc->needle) {
		jv rec;
		/* a line without the text and without an escape cannot hold it in a field: no parse */
		if (c[2] && !strchr(c[2], '\\') && !has_text(c[2], sc->needle)) return 0;
		rec = parse(c[2]);
		char *id = jv_get_kind(rec) == JV_KIND_OBJECT ? rag_record_id(rec) : NULL, cat[512];
		int hit = 0;
		if (jv_get_kind(rec) == JV_KIND_OBJECT)
			hit = has_text(id, sc->needle) || has_text(rag_record_str(rec, "question"), sc->needle) ||
			      has_text(rag_record_str(rec, "answer"), sc->needle) ||
			      has_text(rag_record_str(rec, "reference"), sc->needle) ||
			      has_text(str_or_null(rec, "category", cat, sizeof cat), sc->needle);
		free(id);
		jv_free(rec);
		if (!hit) return 0;
	}
	if (sc->total >= sc->offset && sc->total < sc->offset + sc->limit)
		rag_buf_addf(&sc->seqs, "%s%s", sc->seqs.len ? "," : "", c[0]);
	sc->total++;
	return 0;
}

/* The page of the records f lets through into *a, their number into *total. */
static int records_where(rag_store *s, const char *id, const rag_store_rec_filter *f, long offset, long limit,
                         long *total, jv *a, char *err, size_t errlen)
{
	rag_buf sql = {0};
	const char *p[4] = {id};
	int n = 1, rc;
	rec_scan sc;
	memset(&sc, 0, sizeof sc);
	sc.f = f;
	sc.offset = offset;
	sc.limit = limit;
	if (f->text && *f->text) {
		size_t i;
		sc.needle = rag_xstrdup(f->text);
		for (i = 0; sc.needle[i]; i++) sc.needle[i] = (char)tolower((unsigned char)sc.needle[i]);
	}
	/* what SQL can say (failed, category, cause) there; a score and a text here, a record at a time */
	rag_buf_addf(&sql, "SELECT c.seq, %s, %s FROM run_cases c LEFT JOIN run_case_causes k ON k.run_id = c.run_id AND "
	             "k.seq = c.seq LEFT JOIN run_case_verdicts v ON v.run_id = c.run_id AND v.seq = c.seq WHERE c.run_id = $1",
	             f->metric ? "c.scores" : "NULL", sc.needle ? "c.line" : "NULL");
	/* did not pass: failed, or no verdict for an error (errored records have a cause) */
	if (f->failed) rag_buf_adds(&sql, " AND (c.passed = 0 OR (c.passed IS NULL AND k.cause IS NOT NULL))");
	if (f->category) {
		p[n++] = f->category;
		rag_buf_addf(&sql, " AND c.category = $%d", n);
	}
	if (f->cause) {
		p[n++] = f->cause;
		rag_buf_addf(&sql, " AND v.cause_key = $%d", n);
	}
	if (f->id) {
		p[n++] = f->id;
		rag_buf_addf(&sql, " AND c.case_id = $%d", n);
	}
	rag_buf_adds(&sql, " ORDER BY c.seq");
	rc = q(s, sql.p, n, p, scan_record, &sc, err, errlen);
	rag_buf_free(&sql);
	if (rc >= 0 && sc.seqs.len) {
		rag_buf_addf(&sql, "SELECT " REC_COLS " WHERE c.run_id = $1 AND c.seq IN (%s) ORDER BY c.seq", sc.seqs.p);
		rc = q(s, sql.p, 1, p, collect_record, a, err, errlen);
		rag_buf_free(&sql);
	}
	*total = sc.total;
	free(sc.needle);
	rag_buf_free(&sc.seqs);
	return rc < 0 ? -1 : 0;
}

static int run_lines(rag_store *s, const char *id, char *err, size_t errlen)
{
	const char *p[1] = {id};
	char *fin = NULL;
	if (q(s, "SELECT final_newline FROM runs WHERE id = $1", 1, p, first_col, &fin, err, errlen) < 0) return -1;
	if (!fin) {
		rag_seterr(err, errlen, "no run \"%s\" in the store", id);
		return 1;
	}
	free(fin);
	return 0;
}

int rag_store_records(rag_store *s, const char *id, const rag_store_rec_filter *f, long offset, long limit, jv *out,
                      char *err, size_t errlen)
{
	const char *p[1] = {id};
	char sql[512];
	long total = 0, lines = 0;
	int r;
	jv a;
	if ((r = run_lines(s, id, err, errlen))) return r;
	/* the lines are numbered 1..n: a page is a range of the primary key, as quick at the millionth
	 * line as at the first (no OFFSET that walks the lines before it) */
	if (count_of(s, "SELECT max(seq) FROM run_cases WHERE run_id = $1", 1, p, &lines, err, errlen) < 0) return -1;
	a = jv_array();
	if (f && (f->failed || f->category || f->cause || f->metric || (f->text && *f->text) || f->id)) {
		r = records_where(s, id, f, offset, limit, &total, &a, err, errlen);
	} else {
		total = lines;
		snprintf(sql, sizeof sql, "SELECT " REC_COLS " WHERE c.run_id = $1 AND c.seq > %ld AND c.seq <= %ld ORDER BY c.seq",
		         offset, offset + limit);
		r = q(s, sql, 1, p, collect_record, &a, err, errlen);
	}
	if (r < 0) {
		jv_free(a);
		return -1;
	}
	*out = JV_OBJECT(jv_string("run"), jv_string(id), jv_string("total"), jv_number((double)total),
	                 jv_string("lines"), jv_number((double)lines),
	                 jv_string("offset"), jv_number((double)offset), jv_string("limit"), jv_number((double)limit),
	                 jv_string("records"), a);
	return 0;
}

static int one_record(void *ctx, int ncol, const char *const *c)
{
	jv *r = ctx;
	jv_free(*r);
	*r = record_row(ncol, c);
	if (ncol >= 8) *r = jv_object_set(*r, jv_string("verdict"), parse(c[7]));
	return 1;
}

int rag_store_record(rag_store *s, const char *id, long seq, jv *out, char *err, size_t errlen)
{
	char seqs[24];
	const char *p[2] = {id, seqs};
	jv r = jv_null(), marks;
	int rc;
	if ((rc = run_lines(s, id, err, errlen))) return rc;
	snprintf(seqs, sizeof seqs, "%ld", seq);
	if (q(s, "SELECT " REC_COLS " WHERE c.run_id = $1 AND c.seq = $2", 2, p, one_record, &r, err, errlen) < 0) {
		jv_free(r);
		return -1;
	}
	if (jv_get_kind(r) != JV_KIND_OBJECT) {
		jv_free(r);
		rag_seterr(err, errlen, "no record %ld in run \"%s\"", seq, id);
		return 1;
	}
	/* its review marks, every metric's and every reviewer's */
	marks = jv_array();
	if (q(s, "SELECT seq, case_id, metric, label, comment, who, created FROM marks WHERE run_id = $1 AND seq = $2 "
	      "ORDER BY metric, created, who", 2, p, collect_mark, &marks, err, errlen) < 0) {
		jv_free(r);
		jv_free(marks);
		return -1;
	}
	*out = jv_object_set(jv_object_set(r, jv_string("run"), jv_string(id)), jv_string("marks"), marks);
	return 0;
}

jv rag_store_history(jv r)
{
	static const char *const keys[] = {"run", "started", "label", "commit", "testset", "n", "passed", "means",
	                                   "exit_status"};
	jv h = jv_object(), v = rag_json_get(jv_copy(r), "verdict");
	size_t i;
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		jv x = rag_json_get(jv_copy(r), keys[i]);
		h = jv_object_set(h, jv_string(keys[i]), jv_is_valid(x) ? x : jv_null());
	}
	/* the run's pass rate as its verdict has it, and its denominator, the records with a verdict */
	h = jv_object_set(h, jv_string("pass_rate"), jv_get_kind(v) == JV_KIND_OBJECT ? rag_json_get(jv_copy(v), "pass_rate") : jv_null());
	h = jv_object_set(h, jv_string("pass_rate_of"), jv_get_kind(v) == JV_KIND_OBJECT ? rag_json_get(jv_copy(v), "pass_rate_of") : jv_null());
	jv_free(v);
	jv_free(r);
	return h;
}

/* the first two rows' first columns (ids[0], ids[1]): enough to tell one from several */
static int two_cols(void *ctx, int ncol, const char *const *col)
{
	char **ids = ctx;
	int i = ids[0] ? 1 : 0;
	ids[i] = rag_xstrdup(ncol > 0 && col[0] ? col[0] : "");
	return i;
}

/* "last" (back 0), "last~N" (back N) -> 1; -1 with err for a "last~" that is not; 0 for another ref */
static int ref_back(const char *ref, long *back, char *err, size_t errlen)
{
	char *end;
	if (!strcmp(ref, "last")) {
		*back = 0;
		return 1;
	}
	if (strncmp(ref, "last~", 5)) return 0;
	errno = 0;
	*back = strtol(ref + 5, &end, 10);
	if (errno || *end || end == ref + 5 || *back < 0) {
		rag_seterr(err, errlen, "\"%s\": last~N wants N a whole number, 0 or more", ref);
		return -1;
	}
	return 1;
}

/* A run id that starts with pre: 0 and *x when one does, 0 and no *x when none does, 1 and err
 * when several do (two are named), -1 and err when the query failed. */
static int by_prefix(rag_store *s, const char *pre, char **x, char *err, size_t errlen)
{
	char *like = like_prefix(pre), *ids[2] = {NULL, NULL};
	const char *p[1] = {like};
	int rc = q(s, "SELECT id FROM runs WHERE id LIKE $1 ESCAPE '!' ORDER BY id LIMIT 2", 1, p, two_cols, ids, err,
	           errlen);
	free(like);
	if (rc == 0 && ids[1]) {
		rag_seterr(err, errlen, "\"%s\" names more than one run (%s, %s...): give more of the id", pre, ids[0],
		           ids[1]);
		rc = 1;
	}
	if (rc == 0) *x = ids[0];
	else free(ids[0]);
	free(ids[1]);
	return rc;
}

int rag_store_resolve(rag_store *s, const char *ref, char **id, char *err, size_t errlen)
{
	char *x = NULL;
	long back = -1;
	int rc = ref_back(ref, &back, err, errlen);
	if (rc < 0) return -1;
	if (back >= 0) {
		char sql[128];
		snprintf(sql, sizeof sql, "SELECT id FROM runs ORDER BY started DESC, id DESC LIMIT 1 OFFSET %ld", back);
		rc = q(s, sql, 0, NULL, first_col, &x, err, errlen);
	} else if (!strncmp(ref, "label:", 6)) {
		const char *p[1] = {ref + 6};
		rc = q(s, "SELECT id FROM runs WHERE label = $1 ORDER BY started DESC, id DESC LIMIT 1", 1, p, first_col, &x,
		       err, errlen);
	} else {
		const char *p[1] = {ref};
		rc = q(s, "SELECT id FROM runs WHERE id = $1", 1, p, first_col, &x, err, errlen);
		/* an id's first characters, as git takes a commit's: at least 4, and only one run's */
		if (rc == 0 && !x && strlen(ref) >= 4) rc = by_prefix(s, ref, &x, err, errlen);
	}
	if (rc) return rc;
	if (!x) {
		rag_seterr(err, errlen,
		           back > 0                      ? "no run \"%s\" in the store (it holds fewer runs)" :
		           !strncmp(ref, "label:", 6)    ? "no run labelled \"%s\" in the store" :
		                                           "no run \"%s\" in the store",
		           !strncmp(ref, "label:", 6) ? ref + 6 : ref);
		return 1;
	}
	*id = x;
	return 0;
}

static int one_run(void *ctx, int ncol, const char *const *col)
{
	jv *r = ctx;
	if (jv_get_kind(*r) != JV_KIND_OBJECT) {
		jv_free(*r);
		*r = run_row(ncol, col);
		if (ncol > 17) *r = jv_object_set(*r, jv_string("run_json"), parse(col[17]));
	}
	return 1;
}

static int verdict_row(void *ctx, int ncol, const char *const *col)
{
	jv *r = ctx;
	if (ncol >= 2) {
		jv_free(*r);
		*r = JV_OBJECT(jv_string("verdict"), col[0] ? parse(col[0]) : jv_null(), jv_string("causes"),
		               col[1] ? parse(col[1]) : jv_null());
	}
	return 1;
}

int rag_store_show(rag_store *s, const char *id, jv *out, char *err, size_t errlen)
{
	const char *p[1] = {id};
	jv r = jv_null();
	if (q(s, "SELECT " RUN_COLS ", run_json FROM runs WHERE id = $1", 1, p, one_run, &r, err, errlen) < 0) {
		jv_free(r);
		return -1;
	}
	if (jv_get_kind(r) != JV_KIND_OBJECT) {
		jv_free(r);
		rag_seterr(err, errlen, "no run \"%s\" in the store", id);
		return 1;
	}
	/* the verdict whole, and the failing records by cause, as stored with the run */
	{
		jv vc = jv_null();
		if (q(s, "SELECT verdict, causes FROM run_verdicts WHERE run_id = $1", 1, p, verdict_row, &vc, err, errlen) < 0) {
			jv_free(r);
			jv_free(vc);
			return -1;
		}
		r = jv_object_set(r, jv_string("verdict"), rag_json_get(jv_copy(vc), "verdict"));
		r = jv_object_set(r, jv_string("causes"), rag_json_get(vc, "causes"));
	}
	*out = r;
	return 0;
}

int rag_store_export(rag_store *s, const char *id, rag_buf *out, char *err, size_t errlen)
{
	const char *p[1] = {id};
	char *fin = NULL;
	if (q(s, "SELECT final_newline FROM runs WHERE id = $1", 1, p, first_col, &fin, err, errlen) < 0) return -1;
	if (!fin) {
		rag_seterr(err, errlen, "no run \"%s\" in the store", id);
		return 1;
	}
	if (q(s, "SELECT line FROM run_cases WHERE run_id = $1 ORDER BY seq", 1, p, add_line, out, err, errlen) < 0) {
		free(fin);
		return -1;
	}
	/* a records file whose last line had no newline comes back without it */
	if (!atoi(fin) && out->len) out->p[--out->len] = 0;
	free(fin);
	return 0;
}

/* ---------------------------------------------------------------- review marks */

int rag_store_mark(rag_store *s, const rag_store_mark_in *m, char *err, size_t errlen)
{
	char seq[24], label[64], *cid = NULL, *found = NULL, *now;
	const char *p[8];
	int rc = -1;
	snprintf(seq, sizeof seq, "%ld", m->seq);
	snprintf(label, sizeof label, "%.17g", m->label);
	if (begin(s, err, errlen) < 0) return -1;
	p[0] = m->run;
	p[1] = seq;
	if (q(s, "SELECT seq, case_id FROM run_cases WHERE run_id = $1 AND seq = $2", 2, p, first_col, &found, err,
	      errlen) < 0 ||
	    (found && q(s, "SELECT case_id FROM run_cases WHERE run_id = $1 AND seq = $2", 2, p, first_col, &cid, err,
	                errlen) < 0))
		goto fail;
	if (!found) {
		rollback(s);
		rag_seterr(err, errlen, "no record %ld in run \"%s\"", m->seq, m->run);
		free(cid);
		return 1;
	}
	p[2] = m->metric;
	p[3] = m->who;
	if (q(s, "DELETE FROM marks WHERE run_id = $1 AND seq = $2 AND metric = $3 AND who = $4", 4, p, NULL, NULL, err,
	      errlen) < 0)
		goto fail;
	now = now_iso();
	{
		const char *pp[8] = {m->run, seq, cid && *cid ? cid : NULL, m->metric, label, m->comment, m->who, now};
		rc = q(s, "INSERT INTO marks (run_id, seq, case_id, metric, label, comment, who, created) "
		       "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", 8, pp, NULL, NULL, err, errlen);
	}
	free(now);
	if (rc < 0) goto fail;
	free(found);
	free(cid);
	return commit(s, err, errlen);
fail:
	rollback(s);
	free(found);
	free(cid);
	return -1;
}

static int collect_mark(void *ctx, int ncol, const char *const *c)
{
	jv *a = ctx;
	if (ncol < 7) return 0;
	*a = jv_array_append(*a, JV_OBJECT(jv_string("seq"), int_or_null(c[0]), jv_string("id"), text_or_null(c[1]),
	                                   jv_string("metric"), text_or_null(c[2]), jv_string("label"), int_or_null(c[3]),
	                                   jv_string("comment"), text_or_null(c[4]), jv_string("who"), text_or_null(c[5]),
	                                   jv_string("created"), text_or_null(c[6])));
	return 0;
}

int rag_store_marks(rag_store *s, const char *run, const char *metric, jv *out, char *err, size_t errlen)
{
	const char *p[2] = {run, metric};
	char *fin = NULL;
	jv a;
	if (q(s, "SELECT id FROM runs WHERE id = $1", 1, p, first_col, &fin, err, errlen) < 0) return -1;
	if (!fin) {
		rag_seterr(err, errlen, "no run \"%s\" in the store", run);
		return 1;
	}
	free(fin);
	a = jv_array();
	if (q(s, metric ? "SELECT seq, case_id, metric, label, comment, who, created FROM marks WHERE run_id = $1 "
	      "AND metric = $2 ORDER BY seq, metric, created, who" :
	      "SELECT seq, case_id, metric, label, comment, who, created FROM marks WHERE run_id = $1 "
	      "ORDER BY seq, metric, created, who", metric ? 2 : 1, p, collect_mark, &a, err, errlen) < 0) {
		jv_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

/* ---------------------------------------------------------------- diff */

typedef struct cases { jv ids, scores, answers, unscored, order; } cases;

static int collect_case(void *ctx, int ncol, const char *const *col)
{
	cases *c = ctx;
	jv rec, ans;
	if (ncol < 3 || !col[0]) return 0;   /* a line that was no record, or one without an id */
	ans = jv_object_get(jv_copy(c->ids), jv_string(col[0]));
	if (jv_is_valid(ans)) {
		jv_free(ans);
		return 0;   /* a repeat */
	}
	jv_free(ans);
	rec = parse(col[2]);
	ans = rag_record_get(rec, "answer");   /* rec borrowed */
	c->unscored = jv_object_set(c->unscored, jv_string(col[0]), jv_bool(jv_is_valid(rec) && rag_verdict_unscored(rec)));
	jv_free(rec);
	c->ids = jv_object_set(c->ids, jv_string(col[0]), jv_true());
	c->scores = jv_object_set(c->scores, jv_string(col[0]), col[1] ? parse(col[1]) : jv_null());
	c->answers = jv_object_set(c->answers, jv_string(col[0]), jv_is_valid(ans) ? ans : jv_null());
	c->order = jv_array_append(c->order, jv_string(col[0]));
	return 0;
}

static int load_cases(rag_store *s, const char *id, cases *c, char *err, size_t errlen)
{
	const char *p[1] = {id};
	c->ids = jv_object();
	c->scores = jv_object();
	c->answers = jv_object();
	c->unscored = jv_object();
	c->order = jv_array();
	return q(s, "SELECT case_id, scores, line FROM run_cases WHERE run_id = $1 ORDER BY seq", 1, p, collect_case, c,
	         err, errlen);
}

static void free_cases(cases *c)
{
	jv_free(c->ids);
	jv_free(c->scores);
	jv_free(c->answers);
	jv_free(c->unscored);
	jv_free(c->order);
}

static jv get_or_null(jv o, const char *k)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	if (!jv_is_valid(v)) {
		jv_free(v);
		return jv_null();
	}
	return v;
}

/* One diff line for id: newer scores ns and baseline bs (both consumed, null when absent), the
 * pair compared by compare.c's definition (cmp) when both runs have the record. */
static jv diff_line(rag_compare *cmp, const char *id, jv ns, jv bs, jv na, jv ba, int nun, int bun)
{
	jv delta = jv_object(), changes = jv_array();
	const char *change;
	int lost = 0;
	if (jv_get_kind(ns) == JV_KIND_OBJECT && jv_get_kind(bs) == JV_KIND_OBJECT) {
		change = rag_compare_name(rag_compare_pair(cmp, bs, bun, ns, nun, &changes));
		jv_array_foreach(changes, i, c) {
			char ch[16];
			lost |= !strcmp(rag_json_str(c, "change", ch, sizeof ch), "lost");
			delta = jv_object_set(delta, jv_object_get(jv_copy(c), jv_string("metric")), jv_object_get(jv_copy(c), jv_string("delta")));
			jv_free(c);
			(void)i;
		}
	} else if (jv_get_kind(bs) == JV_KIND_INVALID) {
		change = "added";
	} else {
		change = "removed";
	}
	jv_free(changes);
	if (!jv_is_valid(ns)) { jv_free(ns); ns = jv_null(); }
	if (!jv_is_valid(bs)) { jv_free(bs); bs = jv_null(); }
	if (!jv_is_valid(na)) { jv_free(na); na = jv_null(); }
	if (!jv_is_valid(ba)) { jv_free(ba); ba = jv_null(); }
	return JV_OBJECT(jv_string("id"), jv_string(id), jv_string("change"), jv_string(change), jv_string("lost"), jv_bool(lost),
	                 jv_string("delta"), delta, jv_string("scores"), ns, jv_string("baseline_scores"), bs,
	                 jv_string("answer"), na, jv_string("baseline_answer"), ba);
}

static int unscored_of(const cases *c, const char *id)
{
	jv v = jv_object_get(jv_copy(c->unscored), jv_string(id));
	int r = jv_get_kind(v) == JV_KIND_TRUE;
	jv_free(v);
	return r;
}

/* scores of id in c: the object, null when the record had none, invalid when it is not there */
static jv case_scores(const cases *c, const char *id)
{
	jv v = jv_object_get(jv_copy(c->scores), jv_string(id));
	if (jv_get_kind(v) == JV_KIND_NULL) {
		jv_free(v);
		return jv_object();
	}
	return v;
}

int rag_store_diff(rag_store *s, const char *base, const char *newer, double tol, jv *out, jv *counts, char *err,
                   size_t errlen)
{
	rag_compare *cmp = rag_compare_new(tol);
	int rc = rag_store_diff_with(s, base, newer, cmp, out, counts, err, errlen);
	rag_compare_free(cmp);
	return rc;
}

int rag_store_diff_with(rag_store *s, const char *base, const char *newer, rag_compare *cmp, jv *out, jv *counts,
                        char *err, size_t errlen)
{
	cases a, b;
	jv lines = jv_array();
	int rc = -1;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	if (load_cases(s, base, &a, err, errlen) < 0 || load_cases(s, newer, &b, err, errlen) < 0) goto out;
	jv_array_foreach(b.order, i, idv) {
		const char *id = jv_string_value(idv);
		lines = jv_array_append(lines, diff_line(cmp, id, case_scores(&b, id), case_scores(&a, id),
		                                         get_or_null(b.answers, id),
		                                         jv_object_get(jv_copy(a.answers), jv_string(id)),
		                                         unscored_of(&b, id), unscored_of(&a, id)));
		jv_free(idv);
		(void)i;
	}
	jv_array_foreach(a.order, i, idv) {
		const char *id = jv_string_value(idv);
		jv there = jv_object_get(jv_copy(b.ids), jv_string(id));
		if (!jv_is_valid(there))
			lines = jv_array_append(lines, diff_line(cmp, id, jv_invalid(), case_scores(&a, id), jv_invalid(),
			                                         get_or_null(a.answers, id), 0, 0));
		jv_free(there);
		jv_free(idv);
		(void)i;
	}
	*out = lines;
	lines = jv_invalid();
	if (counts) *counts = rag_compare_json(cmp);
	rc = 0;
out:
	jv_free(lines);
	free_cases(&a);
	free_cases(&b);
	return rc;
}

/* ---------------------------------------------------------------- info */

int rag_store_info(rag_store *s, jv *out, char *err, size_t errlen)
{
	char *runs = NULL, *cases_n = NULL, *sets = NULL;
	int v = schema_version(s, err, errlen);
	if (v < 0 ||
	    q(s, "SELECT count(*) FROM runs", 0, NULL, first_col, &runs, err, errlen) < 0 ||
	    q(s, "SELECT count(*) FROM run_cases", 0, NULL, first_col, &cases_n, err, errlen) < 0 ||
	    q(s, "SELECT count(DISTINCT name) FROM testsets", 0, NULL, first_col, &sets, err, errlen) < 0) {
		free(runs);
		free(cases_n);
		free(sets);
		return -1;
	}
	*out = JV_OBJECT(jv_string("backend"), jv_string(s->be->name), jv_string("url"), jv_string(s->url_shown),
	                 jv_string("schema_version"), jv_number(v), jv_string("runs"), jv_number(atof(runs)),
	                 jv_string("records"), jv_number(atof(cases_n)), jv_string("testsets"), jv_number(atof(sets)));
	free(runs);
	free(cases_n);
	free(sets);
	return 0;
}

/* ---------------------------------------------------------------- test sets edited (rag-serve) */

/* one row of the versions' list: VERSION_COLS */
#define VERSION_COLS "t.name, t.version, t.n, t.created, a.who, t.file, t.hash, i.tag"
#define VERSION_FROM "testsets t LEFT JOIN testset_authors a ON a.name = t.name AND a.version = t.version " \
	"LEFT JOIN testset_info i ON i.name = t.name"
static int collect_version(void *ctx, int ncol, const char *const *c)
{
	jv *a = ctx;
	if (ncol < 8) return 0;
	*a = jv_array_append(*a, JV_OBJECT(jv_string("name"), text_or_null(c[0]), jv_string("version"),
	                                   int_or_null(c[1]), jv_string("n"), int_or_null(c[2]),
	                                   jv_string("created"), text_or_null(c[3]), jv_string("author"),
	                                   text_or_null(c[4]), jv_string("file"), text_or_null(c[5]),
	                                   jv_string("hash"), text_or_null(c[6]), jv_string("tag"), text_or_null(c[7])));
	return 0;
}

/* each row's first column as a string of the array ctx */
static int collect_text(void *ctx, int ncol, const char *const *c)
{
	jv *a = ctx;
	if (ncol >= 1 && c[0]) *a = jv_array_append(*a, jv_string(c[0]));
	return 0;
}

/* rows of (name, count) into an object name -> count */
static int collect_count(void *ctx, int ncol, const char *const *c)
{
	jv *o = ctx;
	if (ncol >= 2 && c[0]) *o = jv_object_set(*o, jv_string(c[0]), int_or_null(c[1]));
	return 0;
}

/* one test set's entry of the list from its versions (consumed, oldest first, not empty) */
static jv testset_entry(jv versions, jv runs)
{
	jv last = jv_array_get(jv_copy(versions), jv_array_length(jv_copy(versions)) - 1), e = jv_object(), vs = jv_array();
	jv name = jv_object_get(jv_copy(last), jv_string("name")), n;
	static const char *const keep[] = {"version", "n", "created", "author", "file", "hash"};
	size_t k;
	jv_array_foreach(versions, i, v) {
		jv o = jv_object();
		for (k = 0; k < sizeof keep / sizeof keep[0]; k++)
			o = jv_object_set(o, jv_string(keep[k]), jv_object_get(jv_copy(v), jv_string(keep[k])));
		vs = jv_array_append(vs, o);
		jv_free(v);
		(void)i;
	}
	jv_free(versions);
	n = jv_object_get(runs, jv_copy(name));
	e = jv_object_set(e, jv_string("name"), name);
	e = jv_object_set(e, jv_string("tag"), jv_object_get(jv_copy(last), jv_string("tag")));
	e = jv_object_set(e, jv_string("latest"), jv_object_get(jv_copy(last), jv_string("version")));
	e = jv_object_set(e, jv_string("n"), jv_object_get(jv_copy(last), jv_string("n")));
	e = jv_object_set(e, jv_string("created"), jv_object_get(jv_copy(last), jv_string("created")));
	e = jv_object_set(e, jv_string("author"), jv_object_get(jv_copy(last), jv_string("author")));
	e = jv_object_set(e, jv_string("runs"), jv_get_kind(n) == JV_KIND_NUMBER ? n : (jv_free(n), jv_number(0)));
	e = jv_object_set(e, jv_string("versions"), vs);
	jv_free(last);
	return e;
}

int rag_store_testset_list(rag_store *s, const char *tag, jv *out, char *err, size_t errlen)
{
	jv rows = jv_array(), runs = jv_object(), sets = jv_array(), cur = jv_array();
	if (q(s, "SELECT " VERSION_COLS " FROM " VERSION_FROM " ORDER BY t.name, t.version", 0, NULL, collect_version, &rows,
	      err, errlen) < 0 ||
	    q(s, "SELECT testset, count(*) FROM runs WHERE testset IS NOT NULL GROUP BY testset", 0, NULL,
	      collect_count, &runs, err, errlen) < 0) {
		jv_free(rows);
		jv_free(runs);
		jv_free(sets);
		jv_free(cur);
		return -1;
	}
	/* rows come by name: each name's versions gathered, then kept when the tag matches */
	jv_array_foreach(rows, i, v) {
		int len = jv_array_length(jv_copy(cur));
		if (len) {
			jv a = jv_object_get(jv_array_get(jv_copy(cur), 0), jv_string("name"));
			int same = jv_equal(a, jv_object_get(jv_copy(v), jv_string("name")));
			if (!same) {
				sets = jv_array_append(sets, testset_entry(cur, jv_copy(runs)));
				cur = jv_array();
			}
		}
		cur = jv_array_append(cur, v);
		(void)i;
	}
	if (jv_array_length(jv_copy(cur))) sets = jv_array_append(sets, testset_entry(cur, jv_copy(runs)));
	else jv_free(cur);
	jv_free(rows);
	jv_free(runs);
	if (tag) {
		jv kept = jv_array();
		jv_array_foreach(sets, i, e) {
			jv t = jv_object_get(jv_copy(e), jv_string("tag"));
			if (jv_get_kind(t) == JV_KIND_STRING && !strcmp(jv_string_value(t), tag)) kept = jv_array_append(kept, e);
			else jv_free(e);
			jv_free(t);
			(void)i;
		}
		jv_free(sets);
		sets = kept;
	}
	*out = sets;
	return 0;
}

/* the newest version of test set name into *latest (0: none) */
static int latest_version(rag_store *s, const char *name, int *latest, char *err, size_t errlen)
{
	char *last = NULL;
	const char *p[1] = {name};
	if (q(s, "SELECT max(version) FROM testsets WHERE name = $1", 1, p, first_col, &last, err, errlen) < 0) return -1;
	*latest = last && *last ? atoi(last) : 0;
	free(last);
	return 0;
}

/* the error of an edit based on version base when latest is newer: who made it and when */
static int changed_since(rag_store *s, const char *name, int base, int latest, char *err, size_t errlen)
{
	char vs[16];
	const char *p[2] = {name, vs};
	jv rows = jv_array(), who, when;
	char by[200] = "";
	snprintf(vs, sizeof vs, "%d", latest);
	if (q(s, "SELECT " VERSION_COLS " FROM " VERSION_FROM " WHERE t.name = $1 AND t.version = $2", 2, p,
	      collect_version, &rows, err, errlen) < 0) {
		jv_free(rows);
		return -1;
	}
	who = jv_object_get(jv_array_get(jv_copy(rows), 0), jv_string("author"));
	when = jv_object_get(jv_array_get(jv_copy(rows), 0), jv_string("created"));
	if (jv_get_kind(who) == JV_KIND_STRING) snprintf(by, sizeof by, " by %s", jv_string_value(who));
	if (jv_get_kind(when) == JV_KIND_STRING)
		snprintf(by + strlen(by), sizeof by - strlen(by), " at %s", jv_string_value(when));
	rag_seterr(err, errlen, "test set \"%s\" was changed (version %d%s) after you opened version %d; reload it "
	           "and apply your edit again", name, latest, by, base);
	jv_free(who);
	jv_free(when);
	jv_free(rows);
	return RAG_STORE_CONFLICT;
}

int rag_store_testset_get(rag_store *s, const char *name, int version, jv *out, char *err, size_t errlen)
{
	char vs[16];
	const char *p[2] = {name, vs};
	jv rows, lines, recs, o;
	int latest;
	if (latest_version(s, name, &latest, err, errlen) < 0) return -1;
	if (!latest || version > latest) {
		if (version && latest) rag_seterr(err, errlen, "no version %d of test set \"%s\" in the store", version, name);
		else rag_seterr(err, errlen, "no test set \"%s\" in the store", name);
		return 1;
	}
	rows = jv_array();
	lines = jv_array();
	recs = jv_array();
	snprintf(vs, sizeof vs, "%d", version ? version : latest);
	if (q(s, "SELECT " VERSION_COLS " FROM " VERSION_FROM " WHERE t.name = $1 AND t.version = $2", 2, p,
	      collect_version, &rows, err, errlen) < 0 ||
	    q(s, "SELECT line FROM testcases WHERE testset = $1 AND version = $2 ORDER BY seq", 2, p, collect_text,
	      &lines, err, errlen) < 0) {
		jv_free(rows);
		jv_free(lines);
		jv_free(recs);
		return -1;
	}
	if (!jv_array_length(jv_copy(rows))) {
		rag_seterr(err, errlen, "no version %d of test set \"%s\" in the store", version, name);
		jv_free(rows);
		jv_free(lines);
		jv_free(recs);
		return 1;
	}
	jv_array_foreach(lines, i, l) {
		recs = jv_array_append(recs, parse(jv_string_value(l)));
		jv_free(l);
		(void)i;
	}
	jv_free(lines);
	o = jv_array_get(rows, 0);
	o = jv_object_set(o, jv_string("latest"), jv_number(latest));
	*out = jv_object_set(o, jv_string("cases"), recs);
	return 0;
}

/* records (borrowed, an array of objects) as the lines of a version and their hash, as
 * testset_lines makes them from a file */
static void records_lines(jv recs, rag_strv *lines, char hash[65])
{
	rag_buf all = {0};
	jv_array_foreach(recs, i, r) {
		char *line = dump(r);
		if (!line) line = rag_xstrdup("{}");
		rag_buf_adds(&all, line);
		rag_buf_add(&all, "\n", 1);
		rag_strv_push(lines, line);
		(void)i;
	}
	rag_sha256_hex(all.p ? all.p : "", all.len, hash);
	rag_buf_free(&all);
}

/* inside a transaction: name's tag (NULL: unchanged; "": none) */
static int put_tag(rag_store *s, const char *name, const char *tag, char *err, size_t errlen)
{
	const char *p[2] = {name, *tag ? tag : NULL};
	if (q(s, "DELETE FROM testset_info WHERE name = $1", 1, p, NULL, NULL, err, errlen) < 0) return -1;
	return q(s, "INSERT INTO testset_info (name, tag) VALUES ($1, $2)", 2, p, NULL, NULL, err, errlen);
}

/* inside a transaction: whether the write based on in->base may go on (0), or not (1, 2, -1) */
static int save_allowed(rag_store *s, const rag_store_testset_in *in, char *err, size_t errlen)
{
	int latest;
	if (latest_version(s, in->name, &latest, err, errlen) < 0) return -1;
	if (!in->base && latest) {
		rag_seterr(err, errlen, "a test set named \"%s\" is in the store already (version %d): choose another "
		           "name, or open it and import into it", in->name, latest);
		return RAG_STORE_CONFLICT;
	}
	if (in->base && !latest) {
		rag_seterr(err, errlen, "no test set \"%s\" in the store (was it deleted?)", in->name);
		return 1;
	}
	if (in->base && latest != in->base) return changed_since(s, in->name, in->base, latest, err, errlen);
	return 0;
}

int rag_store_testset_save(rag_store *s, const rag_store_testset_in *in, int *version, int *created, char *err,
                           size_t errlen)
{
	rag_strv lines = {0};
	char hash[65], vs[16];
	int r;
	*created = 0;
	records_lines(in->cases, &lines, hash);
	if (begin(s, err, errlen) < 0) {
		rag_strv_free(&lines);
		return -1;
	}
	if ((r = save_allowed(s, in, err, errlen)) != 0) goto fail;
	r = -1;
	if (testset_put(s, in->name, &lines, hash, in->file, version, created, err, errlen) < 0) goto fail;
	snprintf(vs, sizeof vs, "%d", *version);
	if (*created && in->who) {
		const char *p[3] = {in->name, vs, in->who};
		if (q(s, "INSERT INTO testset_authors (name, version, who) VALUES ($1, $2, $3)", 3, p, NULL, NULL, err,
		      errlen) < 0)
			goto fail;
	}
	if (in->tag && put_tag(s, in->name, in->tag, err, errlen) < 0) goto fail;
	rag_strv_free(&lines);
	return commit(s, err, errlen);
fail:
	rollback(s);
	rag_strv_free(&lines);
	return r;
}

int rag_store_testset_delete(rag_store *s, const char *name, int base, char *err, size_t errlen)
{
	const char *p[1] = {name};
	char *runs = NULL, *one = NULL;
	int latest, r = -1;
	if (begin(s, err, errlen) < 0) return -1;
	if (latest_version(s, name, &latest, err, errlen) < 0) goto fail;
	if (!latest) {
		rag_seterr(err, errlen, "no test set \"%s\" in the store", name);
		r = 1;
		goto fail;
	}
	if (base && latest != base) {
		r = changed_since(s, name, base, latest, err, errlen);
		goto fail;
	}
	/* a run names its test set and version: the set stays while a run's history needs it */
	if (q(s, "SELECT count(*) FROM runs WHERE testset = $1", 1, p, first_col, &runs, err, errlen) < 0 ||
	    q(s, "SELECT id FROM runs WHERE testset = $1 ORDER BY started DESC, id DESC", 1, p, first_col, &one, err,
	      errlen) < 0)
		goto fail;
	if (runs && atoi(runs) > 0) {
		rag_seterr(err, errlen, "test set \"%s\" is kept: %d run%s of the history name%s it (the newest: %s), "
		           "and a run's test set stays as long as the run", name, atoi(runs), atoi(runs) == 1 ? "" : "s",
		           atoi(runs) == 1 ? "s" : "", one ? one : "?");
		r = RAG_STORE_CONFLICT;
		goto fail;
	}
	if (q(s, "DELETE FROM testcases WHERE testset = $1", 1, p, NULL, NULL, err, errlen) < 0 ||
	    q(s, "DELETE FROM testsets WHERE name = $1", 1, p, NULL, NULL, err, errlen) < 0 ||
	    q(s, "DELETE FROM testset_authors WHERE name = $1", 1, p, NULL, NULL, err, errlen) < 0 ||
	    q(s, "DELETE FROM testset_info WHERE name = $1", 1, p, NULL, NULL, err, errlen) < 0)
		goto fail;
	free(runs);
	free(one);
	return commit(s, err, errlen);
fail:
	rollback(s);
	free(runs);
	free(one);
	return r;
}

int rag_store_testset_tag(rag_store *s, const char *name, const char *tag, char *err, size_t errlen)
{
	int latest;
	if (begin(s, err, errlen) < 0) return -1;
	if (latest_version(s, name, &latest, err, errlen) < 0) goto fail;
	if (!latest) {
		rollback(s);
		rag_seterr(err, errlen, "no test set \"%s\" in the store", name);
		return 1;
	}
	if (put_tag(s, name, tag, err, errlen) < 0) goto fail;
	return commit(s, err, errlen);
fail:
	rollback(s);
	return -1;
}

/* ---------------------------------------------------------------- trends (rag-serve's History) */

/* the gate's thresholds a run was judged by, from its stored verdict (text, or NULL): {mean:
 * {metric: min}, min_pass_rate: the share of records that had to pass, null when no record had
 * a verdict (the verdict has no pass rate)}, for the trend's threshold lines */
static jv trend_thresholds(const char *verdict)
{
	jv v = verdict ? jv_parse(verdict) : jv_invalid();
	int judged = !isnan(rag_json_num(v, "pass_rate"));   /* some record had a verdict */
	jv t = rag_json_get(v, "thresholds"), mean = rag_json_get(jv_copy(t), "mean");
	double mpr = rag_json_num(t, "min_pass_rate");
	jv r = JV_OBJECT(jv_string("mean"), jv_get_kind(mean) == JV_KIND_OBJECT ? mean : (jv_free(mean), jv_object()),
	                 jv_string("min_pass_rate"), judged && !isnan(mpr) ? jv_number(mpr) : jv_null());
	jv_free(t);
	return r;
}

static int collect_trend(void *ctx, int ncol, const char *const *c)
{
	jv *a = ctx, r;
	long judged, passed;
	double rate;
	if (ncol < 10) return 0;
	judged = c[9] ? atol(c[9]) : 0;
	passed = c[8] ? atol(c[8]) : 0;
	rate = rag_verdict_pass_rate(passed, judged);   /* the gate's: passed of the records with a verdict */
	r = JV_OBJECT(jv_string("run"), text_or_null(c[0]), jv_string("started"), text_or_null(c[1]), jv_string("label"),
	              text_or_null(c[2]), jv_string("commit"), text_or_null(c[3]), jv_string("testset"), text_or_null(c[4]),
	              jv_string("n"), int_or_null(c[5]), jv_string("passed"), c[6] ? jv_bool(atoi(c[6])) : jv_null(),
	              jv_string("means"), c[7] ? parse(c[7]) : jv_object(),
	              jv_string("pass_rate"), isnan(rate) ? jv_null() : jv_number(rate));
	r = jv_object_set(r, jv_string("pass_rate_of"), jv_number((double)judged));
	*a = jv_array_append(*a, jv_object_set(r, jv_string("thresholds"), trend_thresholds(ncol > 10 ? c[10] : NULL)));
	return 0;
}

int rag_store_trends(rag_store *s, const rag_store_filter *f, long limit, jv *out, char *err, size_t errlen)
{
	rag_buf sql = {0}, cnt = {0};
	const char *p[5];
	char *until = NULL, *like = NULL;
	long total = 0;
	int n, rc, len, i;
	jv a = jv_array(), old;
	/* the runs' own columns and, per run, two counts the store makes from the records' passed
	 * column: no record's line is read */
	rag_buf_adds(&sql, "SELECT id, started, label, commit_id, testset, n, passed, means, "
	             "(SELECT count(*) FROM run_cases c WHERE c.run_id = runs.id AND c.passed = 1), "
	             "(SELECT count(c.passed) FROM run_cases c WHERE c.run_id = runs.id), "
	             "(SELECT verdict FROM run_verdicts v WHERE v.run_id = runs.id) FROM runs");
	rag_buf_adds(&cnt, "SELECT count(*) FROM runs");
	n = run_where(f, &sql, p, &until, &like);
	free(until);
	free(like);
	until = like = NULL;
	run_where(f, &cnt, p, &until, &like);
	rag_buf_addf(&sql, " ORDER BY started DESC, id DESC LIMIT %ld", limit);
	rc = q(s, sql.p, n, p, collect_trend, &a, err, errlen);
	if (rc == 0) rc = count_of(s, cnt.p, n, p, &total, err, errlen);
	rag_buf_free(&sql);
	rag_buf_free(&cnt);
	free(until);
	free(like);
	if (rc < 0) {
		jv_free(a);
		return -1;
	}
	/* newest first from the query (the limit keeps the newest), oldest first out */
	old = jv_array();
	len = jv_array_length(jv_copy(a));
	for (i = len - 1; i >= 0; i--) old = jv_array_append(old, jv_array_get(jv_copy(a), i));
	jv_free(a);
	*out = JV_OBJECT(jv_string("total"), jv_number((double)total), jv_string("runs"), old);
	return 0;
}

/* ---------------------------------------------------------------- for storeprod.c
 * The statements and transactions of this file, for the store's other files (store/internal.h):
 * one copy of each, with the password scrubbed and the lock taken as here. */
int rag_store_q(rag_store *s, const char *sql, int n, const char *const *param, rag_store_row_fn row, void *ctx,
                char *err, size_t errlen)
{
	return q(s, sql, n, param, row, ctx, err, errlen);
}

int rag_store_begin(rag_store *s, char *err, size_t errlen)
{
	return begin(s, err, errlen);
}

int rag_store_commit(rag_store *s, char *err, size_t errlen)
{
	return commit(s, err, errlen);
}

void rag_store_rollback(rag_store *s)
{
	rollback(s);
}

char *rag_store_now(void)
{
	return now_iso();
}
