/* serverun.c - rag-serve's Run tab, without the HTTP server: the form checked and made into
 * rag-eval's argument vector and a generated configuration file (never a shell string: every
 * value of the form is one element of the vector or one value of the file), the test set
 * version exported from the store into the run's work directory, rag-eval started by fork and
 * execve in a process group of its own, its progress read from the records.jsonl it writes (a
 * line a record scored), cancel (SIGTERM to its group: rag-eval passes it on to its stages and
 * leaves a directory that --resume finishes), and the end of every child with rag-serve. */
#include "base.h"
#include "config.h"
#include "llm.h"
#include "store.h"
#include "serverun.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

typedef struct eval {
	char *id;                 /* the run id too: rag-eval --run-id, and so the store's */
	char *testset, *label;
	int version;
	long total;               /* the test set's records */
	char *dir, *rundir, *records, *log;
	pid_t pid;                /* 0 once reaped */
	int status;               /* waitpid's, once reaped */
	int cancel;               /* a cancel was asked */
	int give_key;             /* rag-serve's RAG_API_KEY given: the run's judge is where it may go */
	jv withheld;              /* the credentials left out (rag_evals_withheld's), an array */
	/* the progress: records.jsonl read up to pos, its complete lines counted */
	off_t pos;
	long done, errors;
	long done0;               /* done at the start (a resume starts from those it holds) */
	double t1;                /* when the first records of this start were seen (0: none yet) */
	long done1;               /* done then */
	rag_buf part;             /* a last line not complete yet */
} eval;

struct rag_evals {
	char *workdir, *bin;
	char *profiles;           /* the profiles' directory, or NULL */
	rag_strv env;             /* the child's environment: the caller's and RAG_EVAL_ALIVE */
	int life, life_r;         /* the pipe RAG_EVAL_ALIVE names: its ends; -1: none */
	pthread_mutex_t lock;     /* the HTTP thread starts and reads, the main thread reaps */
	eval **v;
	size_t n;
};

/* mkdir -p, mode 0700: the work directory holds the runs' configurations */
static int mkdirs(const char *path, char *err, size_t errlen)
{
	char *p = rag_xstrdup(path), *s;
	int rc = 0;
	for (s = p + 1; rc == 0; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = 0;
			if (mkdir(p, 0700) < 0 && errno != EEXIST) {
				rag_seterr(err, errlen, "cannot make the directory \"%s\": %s", p, strerror(errno));
				rc = -1;
			}
			*s = c;
			if (!c) break;
		}
	}
	free(p);
	return rc;
}

/* rag-eval ends when rag-serve does, however it ends (kill -9 too): RAG_EVAL_ALIVE names to it
 * the read end of a pipe that only rag-serve writes to, which the kernel hangs up when rag-serve
 * is gone; rag-eval then ends (SIGIO), and its stages with it by its own pipe (rag-eval(1),
 * ENVIRONMENT). A parent-death signal would fire when the thread that started the child ends,
 * not the process. The write end is close-on-exec; the read end is inherited. */
static int life_pipe(char *const *envp, rag_strv *env, int *rd)
{
	int p[2] = {-1, -1};
	size_t i;
	for (i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], "RAG_EVAL_ALIVE=", 15)) rag_strv_push(env, rag_xstrdup(envp[i]));
	if (pipe2(p, O_CLOEXEC) == 0 && fcntl(p[0], F_SETFD, 0) == 0)
		rag_strv_push(env, rag_xasprintf("RAG_EVAL_ALIVE=%d", p[0]));
	else if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
		p[0] = p[1] = -1;
	}
	*rd = p[0];
	rag_strv_push(env, NULL);
	env->n--;
	return p[1];
}

rag_evals *rag_evals_new(const rag_evals_opts *o, char *err, size_t errlen)
{
	rag_evals *e;
	struct stat st;
	if (o->profiles && stat(o->profiles, &st) < 0) {
		rag_seterr(err, errlen, "the profiles' directory \"%s\": %s", o->profiles, strerror(errno));
		return NULL;
	}
	if (o->profiles && !S_ISDIR(st.st_mode)) {
		rag_seterr(err, errlen, "the profiles' directory \"%s\": not a directory", o->profiles);
		return NULL;
	}
	e = rag_xcalloc(1, sizeof *e);
	e->workdir = rag_xstrdup(o->workdir);
	e->bin = rag_xstrdup(o->eval_bin);
	/* absolute: a profile's relative paths are made relative to it (rebase_paths) */
	e->profiles = o->profiles ? realpath(o->profiles, NULL) : NULL;
	if (o->profiles && !e->profiles) e->profiles = rag_xstrdup(o->profiles);
	e->life = life_pipe(o->envp, &e->env, &e->life_r);
	pthread_mutex_init(&e->lock, NULL);
	return e;
}

/* ---------------------------------------------------------------- the form */

static int bad(char *err, size_t errlen, const char *key, const char *what)
{
	rag_seterr(err, errlen, "\"%s\": %s", key, what);
	return -1;
}

/* a text of 1..max bytes without control characters (borrowed from v) or NULL */
static const char *text_ok(jv v, size_t max)
{
	const char *s, *p;
	if (jv_get_kind(v) != JV_KIND_STRING) return NULL;
	s = jv_string_value(v);
	/* a NUL inside would cut the text short in an argument */
	if (!*s || strlen(s) > max || strlen(s) != (size_t)jv_string_length_bytes(jv_copy(v))) return NULL;
	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) return NULL;
	return s;
}

/* a name of letters, digits and "_.-@:", from a letter or digit (metrics, system keys) */
static int name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (!n || n > max || !isalnum((unsigned char)*s)) return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-@:", *s)) return 0;
	return 1;
}


/* an optional text member: 0 absent (or ""), 1 present (*out borrowed from o), -1 bad */
static int opt_text(jv o, const char *k, size_t max, int url, const char **out, char *err, size_t errlen)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	int kind = jv_get_kind(v), r = 0;
	*out = NULL;
	if (kind == JV_KIND_STRING && !jv_string_length_bytes(jv_copy(v))) kind = JV_KIND_NULL;
	if (kind != JV_KIND_INVALID && kind != JV_KIND_NULL) {
		const char *s = text_ok(v, max);
		if (!s || (url && strncmp(s, "http://", 7) && strncmp(s, "https://", 8)) || (url && strchr(s, ' ')))
			r = bad(err, errlen, k, url ? "an http:// or https:// URL" : "a text without control characters");
		else {
			r = 1;
			/* o holds its members: the string stays valid while o lives */
			*out = s;
		}
	}
	jv_free(v);
	return r;
}

/* the service's knobs: {name: number | boolean | text} -> system */
static int form_system(jv sys, jv *out, char *err, size_t errlen)
{
	int rc = 0;
	*out = jv_object();
	if (jv_get_kind(sys) == JV_KIND_NULL || jv_get_kind(sys) == JV_KIND_INVALID) {
		jv_free(sys);
		return 0;
	}
	if (jv_get_kind(sys) != JV_KIND_OBJECT || jv_object_length(jv_copy(sys)) > 64) {
		jv_free(sys);
		jv_free(*out);
		*out = jv_null();
		return bad(err, errlen, "system", "an object of at most 64 settings");
	}
	jv_object_foreach(sys, k, v) {
		int kind = jv_get_kind(v);
		if (rc == 0 && !name_ok(jv_string_value(k), 64)) {
			rc = bad(err, errlen, "system", "a setting's name is letters, digits and _.-@: (64 at most)");
		} else if (rc == 0 && kind == JV_KIND_NUMBER && isfinite(jv_number_value(v))) {
			*out = jv_object_set(*out, jv_copy(k), jv_copy(v));
		} else if (rc == 0 && (kind == JV_KIND_TRUE || kind == JV_KIND_FALSE)) {
			*out = jv_object_set(*out, jv_copy(k), jv_copy(v));
		} else if (rc == 0 && kind == JV_KIND_STRING && text_ok(v, 500)) {
			*out = jv_object_set(*out, jv_copy(k), rag_evals_conf_str(jv_string_value(v)));
		} else if (rc == 0) {
			rc = bad(err, errlen, "system", "each setting a number, true, false or a text of 500 bytes at most");
		}
		jv_free(k);
		jv_free(v);
	}
	jv_free(sys);
	if (rc < 0) {
		jv_free(*out);
		*out = jv_null();
	}
	return rc;
}

/* metrics: ["a", "b"] or "a,b" -> "--metrics=a,b" */
static int form_metrics(jv m, rag_strv *argv, char *err, size_t errlen)
{
	rag_buf b = {0};
	int rc = 0;
	if (jv_get_kind(m) == JV_KIND_STRING) {
		char *list = rag_xstrdup(jv_string_value(m)), *tok, *save = NULL;
		jv a = jv_array();
		for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) a = jv_array_append(a, jv_string(tok));
		free(list);
		jv_free(m);
		m = a;
	}
	if (jv_get_kind(m) == JV_KIND_NULL || jv_get_kind(m) == JV_KIND_INVALID ||
	    (jv_get_kind(m) == JV_KIND_ARRAY && jv_array_length(jv_copy(m)) == 0)) {
		jv_free(m);
		return 0;
	}
	if (jv_get_kind(m) != JV_KIND_ARRAY || jv_array_length(jv_copy(m)) > 64) {
		jv_free(m);
		return bad(err, errlen, "metrics", "a list of metric names");
	}
	rag_buf_adds(&b, "--metrics=");
	jv_array_foreach(m, i, v) {
		if (rc == 0 && (jv_get_kind(v) != JV_KIND_STRING || !name_ok(jv_string_value(v), 64)))
			rc = bad(err, errlen, "metrics", "a metric's name is letters, digits and _.-@: (64 at most)");
		else if (rc == 0) {
			if (i) rag_buf_add(&b, ",", 1);
			rag_buf_adds(&b, jv_string_value(v));
		}
		jv_free(v);
	}
	jv_free(m);
	if (rc == 0) rag_strv_push(argv, rag_xstrdup(b.p));
	rag_buf_free(&b);
	return rc;
}

/* thresholds: {metric: number 0..1} -> gate.mean */
static int form_thresholds(jv t, jv *out, char *err, size_t errlen)
{
	int rc = 0;
	*out = jv_object();
	if (jv_get_kind(t) == JV_KIND_NULL || jv_get_kind(t) == JV_KIND_INVALID) {
		jv_free(t);
		return 0;
	}
	if (jv_get_kind(t) != JV_KIND_OBJECT || jv_object_length(jv_copy(t)) > 64) {
		jv_free(t);
		jv_free(*out);
		*out = jv_null();
		return bad(err, errlen, "thresholds", "an object of metric names and numbers from 0 to 1");
	}
	jv_object_foreach(t, k, v) {
		if (rc == 0 && (!name_ok(jv_string_value(k), 64) || jv_get_kind(v) != JV_KIND_NUMBER ||
		                !(jv_number_value(v) >= 0 && jv_number_value(v) <= 1)))
			rc = bad(err, errlen, "thresholds", "an object of metric names and numbers from 0 to 1");
		else if (rc == 0)
			*out = jv_object_set(*out, jv_copy(k), jv_copy(v));
		jv_free(k);
		jv_free(v);
	}
	jv_free(t);
	if (rc < 0) {
		jv_free(*out);
		*out = jv_null();
	}
	return rc;
}

/* The body sent to the service: the question (and a follow-up's earlier turns) and the knobs
 * of system, so that a service that reads top_k gets the form's */
static const char collect_body[] = "{question: .question} + (if .history then {history} else {} end) + (.system // {})";

/* a profile's name: a file NAME.yaml of the profiles' directory; letters, digits and "_.-" from
 * a letter or digit, no "..": no path goes anywhere but that directory */
static int profile_name_ok(const char *s)
{
	return name_ok(s, 100) && !strpbrk(s, "@:") && !strstr(s, "..");
}

RAG_UNITTEST int rag_evals_form(jv form, jv *config, rag_strv *argv, char **testset, int *version, char **profile, char *err,
                   size_t errlen)
{
	const char *name, *svc, *judge, *model, *label, *prof;
	jv ts, ver, sys, gate, llm;
	int rc = -1;
	*config = jv_invalid();
	*testset = NULL;
	*version = 0;
	*profile = NULL;
	if (jv_get_kind(form) != JV_KIND_OBJECT) {
		rag_seterr(err, errlen, "the body is not a JSON object");
		return -1;
	}
	ts = jv_object_get(jv_copy(form), jv_string("testset"));
	ver = jv_object_get(jv_copy(form), jv_string("version"));
	/* the test set becomes a file, NAME.jsonl, whose name less its extension names the test set
	 * in the store: no '/', no leading dot */
	if (!(name = text_ok(ts, 200)) || strchr(name, '/') || name[0] == '.') {
		bad(err, errlen, "testset", "the name of a test set in the store (required)");
		goto out;
	}
	if (jv_get_kind(ver) == JV_KIND_NUMBER && jv_number_value(ver) >= 0 && jv_number_value(ver) <= 1e9 &&
	    jv_number_value(ver) == (double)(int)jv_number_value(ver))
		*version = (int)jv_number_value(ver);
	else if (jv_get_kind(ver) != JV_KIND_NULL && jv_get_kind(ver) != JV_KIND_INVALID) {
		bad(err, errlen, "version", "a version number (0 or none: the newest)");
		goto out;
	}
	if (opt_text(form, "service_url", 2000, 1, &svc, err, errlen) < 0 ||
	    opt_text(form, "judge_base_url", 2000, 1, &judge, err, errlen) < 0 ||
	    opt_text(form, "judge_model", 200, 0, &model, err, errlen) < 0 ||
	    opt_text(form, "label", 200, 0, &label, err, errlen) < 0 ||
	    opt_text(form, "profile", 200, 0, &prof, err, errlen) < 0)
		goto out;
	if (prof && !profile_name_ok(prof)) {
		bad(err, errlen, "profile", "the name of a profile rag-serve lists");
		goto out;
	}
	if (form_system(jv_object_get(jv_copy(form), jv_string("system")), &sys, err, errlen) < 0) goto out;
	if (form_thresholds(jv_object_get(jv_copy(form), jv_string("thresholds")), &gate, err, errlen) < 0) {
		jv_free(sys);
		goto out;
	}
	if (form_metrics(jv_object_get(jv_copy(form), jv_string("metrics")), argv, err, errlen) < 0) {
		jv_free(sys);
		jv_free(gate);
		goto out;
	}
	if (label) rag_strv_push(argv, rag_xasprintf("--label=%s", label));
	/* the judge: the form's endpoint, its key rag-serve's own (RAG_API_KEY in the child's
	 * environment, where it may go: start) unless a profile names one; no endpoint, the
	 * offline judge, or the profile's. No variable of the environment stands in for the key
	 * (api_key_env, whose default is OPENAI_API_KEY). Over a profile, the form's endpoint keeps
	 * the profile's provider (azure's deployment and api_version with it): rag_evals_merge */
	llm = jv_object();
	if (!prof) llm = jv_object_set(llm, jv_string("provider"), jv_string(judge ? "openai" : "offline"));
	if (judge) llm = jv_object_set(llm, jv_string("base_url"), rag_evals_conf_str(judge));
	if (judge && !prof) llm = jv_object_set(llm, jv_string("api_key_env"), jv_string(""));
	if (model) llm = jv_object_set(llm, jv_string("model"), rag_evals_conf_str(model));
	/* the store rag-serve serves, named by a variable of the child's environment: its password
	 * is in no file and no argument */
	*config = jv_object();
	if (jv_object_length(jv_copy(llm))) *config = jv_object_set(*config, jv_string("llm"), llm);
	else jv_free(llm);
	*config = jv_object_set(*config, jv_string("store"),
	                        JV_OBJECT(jv_string("url"), jv_string("${RAG_SERVE_STORE_URL}")));
	/* over a profile, the body that sends the knobs too wherever the profile calls a service
	 * with a body of none of its own (rag_evals_merge) */
	if (svc || prof) {
		jv c = JV_OBJECT(jv_string("body"), rag_evals_conf_str(collect_body));
		if (svc) c = jv_object_set(c, jv_string("url"), rag_evals_conf_str(svc));
		*config = jv_object_set(*config, jv_string("collect"), c);
	}
	if (jv_object_length(jv_copy(sys))) *config = jv_object_set(*config, jv_string("system"), sys);
	else jv_free(sys);
	if (jv_object_length(jv_copy(gate)))
		*config = jv_object_set(*config, jv_string("gate"), JV_OBJECT(jv_string("mean"), gate));
	else jv_free(gate);
	*testset = rag_xstrdup(name);
	if (prof) *profile = rag_xstrdup(prof);
	rc = 0;
out:
	jv_free(ts);
	jv_free(ver);
	return rc;
}


/* the profiles' names, sorted: the files NAME.yaml of dir whose NAME is one (profile_name_ok) */
static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void profile_names(const char *dir, rag_strv *names)
{
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	if (!d) return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *name;
		if (n <= 5 || strcmp(de->d_name + n - 5, ".yaml")) continue;
		name = rag_xstrndup(de->d_name, n - 5);
		if (profile_name_ok(name)) rag_strv_push(names, name);
		else free(name);
	}
	closedir(d);
	if (names->n) qsort(names->v, names->n, sizeof *names->v, by_name);
}

/* the text of profile name, one the directory lists; NULL with err (*st 404 or 500) */
static char *profile_text(rag_evals *e, const char *name, size_t *len, int *st, char *err, size_t errlen)
{
	rag_strv names = {0};
	size_t i;
	char *path, *text = NULL;
	profile_names(e->profiles, &names);
	for (i = 0; i < names.n && strcmp(names.v[i], name); i++) continue;
	*st = 404;
	if (i == names.n) rag_seterr(err, errlen, "\"profile\": no profile \"%s\" here", name);
	else {
		path = rag_xasprintf("%s/%s.yaml", e->profiles, name);
		if (!(text = rag_read_file(path, len, err, errlen))) *st = 500;
		free(path);
	}
	rag_strv_free(&names);
	return text;
}

/* GET /api/evals/profiles */
static jv profiles_list(rag_evals *e)
{
	rag_strv names = {0};
	jv a = jv_array();
	size_t i, len = 0;
	char err[RAG_ERRLEN];
	profile_names(e->profiles, &names);
	for (i = 0; i < names.n; i++) {
		int st;
		char *text = profile_text(e, names.v[i], &len, &st, err, sizeof err);
		a = jv_array_append(a, text ? rag_evals_profile(names.v[i], text, len)
		                            : JV_OBJECT(jv_string("name"), jv_string(names.v[i]), jv_string("error"), jv_string(err)));
		free(text);
	}
	rag_strv_free(&names);
	return a;
}

/* ---------------------------------------------------------------- a child */

static void eval_free(eval *v)
{
	free(v->id);
	free(v->testset);
	free(v->label);
	free(v->dir);
	free(v->rundir);
	free(v->records);
	free(v->log);
	jv_free(v->withheld);
	rag_buf_free(&v->part);
	free(v);
}

/* the run id, as rag-eval makes its own: the UTC time and a random suffix */
static char *new_id(void)
{
	unsigned char r[3] = {0};
	time_t t = time(NULL);
	struct tm tm;
	char day[32];
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		r[0] = (unsigned char)getpid();
		r[1] = (unsigned char)(getpid() >> 8);
	}
	gmtime_r(&t, &tm);
	strftime(day, sizeof day, "%Y%m%d-%H%M%S", &tm);
	return rag_xasprintf("%s-%02x%02x%02x", day, r[0], r[1], r[2]);
}

static int write_file(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || rag_write_all(fd, text, len) < 0) {
		rag_seterr(err, errlen, "cannot write \"%s\": %s", path, strerror(errno));
		if (fd >= 0) close(fd);
		return -1;
	}
	return close(fd);
}

/* rag-eval in a process group of its own (a cancel signals the group), its output into log;
 * posix_spawn, as rag-serve has threads. give_key 0: rag-serve's RAG_API_KEY left out (the
 * run's judge is not where it may go, or its profile names its own key, which RAG_API_KEY
 * would override: rag-config(5)) */
static pid_t spawn(rag_evals *e, char *const *argv, const char *log, int give_key)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, def;
	pid_t pid = -1;
	int r;
	char **envp = e->env.v;
	size_t i, k = 0;
	if (!give_key) {
		envp = rag_xcalloc(e->env.n + 1, sizeof *envp);
		for (i = 0; i < e->env.n; i++)
			if (strncmp(e->env.v[i], "RAG_API_KEY=", 12)) envp[k++] = e->env.v[i];
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	posix_spawnattr_init(&at);
	/* rag-serve's mask (INT, TERM and CHLD wait for its sigwait) and its ignored SIGPIPE are no
	 * part of rag-eval's */
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	r = strchr(e->bin, '/') ? posix_spawn(&pid, e->bin, &fa, &at, argv, envp)
	                        : posix_spawnp(&pid, e->bin, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (envp != e->env.v) free(envp);
	if (r) {
		errno = r;
		return -1;
	}
	return pid;
}

static long count_lines(const char *s, size_t n)
{
	long k = 0;
	size_t i;
	for (i = 0; i < n; i++) k += s[i] == '\n';
	if (n && s[n - 1] != '\n') k++;
	return k;
}

/* POST /api/evals: the test set version exported, the configuration written (the form's, or
 * the profile's with the form's over it), rag-eval started */
static int start(rag_evals *e, rag_store *s, const rag_config *cfg, const char *text, size_t len, jv *body)
{
	char err[RAG_ERRLEN], *name = NULL, *cfgfile = NULL, *setfile = NULL, *prof = NULL, *ptext = NULL;
	char *yaml = NULL;
	jv form = jv_parse_sized(text, (int)len), config = jv_invalid(), d;
	rag_strv opts = {0}, argv = {0};
	rag_buf set = {0};
	eval *v = NULL;
	int version = 0, got = 0, r, st = 400, give_key = 0;
	rag_evals_key key = {cfg->llm.api_key != NULL, rag_llm_base_url(cfg, 0), &cfg->llm.allow_urls};
	jv withheld = jv_array();
	size_t i, plen = 0;
	if (rag_evals_form(form, &config, &opts, &name, &version, &prof, err, sizeof err) < 0) goto fail;
	if (prof) {
		if (!(ptext = profile_text(e, prof, &plen, &st, err, sizeof err))) goto fail;
		st = 400;
		r = rag_evals_merge(ptext, plen, e->profiles, config, &key, &yaml, &give_key, &withheld, err, sizeof err);
		config = jv_invalid();
		if (r < 0) {
			/* the words are libyaml's and where: no value of the profile */
			char *why = rag_xasprintf("\"profile\": %s: %s", prof, err);
			rag_seterr(err, sizeof err, "%s", why);
			free(why);
			goto fail;
		}
	} else {
		/* the form's judge: rag-serve's key only where it was configured for, or allowed */
		jv j = jv_object_get(jv_copy(form), jv_string("judge_base_url"));
		if (jv_get_kind(j) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(j)) && key.has) {
			give_key = rag_evals_url_allowed(jv_string_value(j), key.endpoint, key.allow);
			if (!give_key)
				withheld = jv_array_append(withheld, rag_evals_withheld("rag-serve's llm.api_key", jv_string_value(j),
				                                                        "rag-serve's llm.allow_urls"));
		}
		jv_free(j);
	}
	st = 404;
	if ((r = rag_store_testset_export(s, name, version, &set, &got, err, sizeof err)) != 0) {
		if (r < 0) st = 500;
		goto fail;
	}
	st = 500;
	v = rag_xcalloc(1, sizeof *v);
	v->withheld = jv_array();
	v->id = new_id();
	v->testset = name;
	name = NULL;
	v->version = got;
	v->total = count_lines(set.p ? set.p : "", set.len);
	v->dir = rag_xasprintf("%s/%s", e->workdir, v->id);
	v->rundir = rag_xasprintf("%s/run", v->dir);
	v->records = rag_xasprintf("%s/records.jsonl", v->rundir);
	v->log = rag_xasprintf("%s/eval.log", v->dir);
	cfgfile = rag_xasprintf("%s/rag.yaml", v->dir);
	setfile = rag_xasprintf("%s/set/%s.jsonl", v->dir, v->testset);
	{
		/* made at the first run: a rag-serve that starts none leaves nothing behind */
		char *sd = rag_xasprintf("%s/set", v->dir);
		int mr = mkdirs(sd, err, sizeof err);
		free(sd);
		if (mr < 0) goto fail;
	}
	if (write_file(setfile, set.p ? set.p : "", set.len, err, sizeof err) < 0) goto fail;
	if (yaml) {
		r = write_file(cfgfile, yaml, strlen(yaml), err, sizeof err);
	} else {
		/* JSON is YAML's flow style: the configuration as one JSON object */
		d = jv_dump_string(jv_copy(config), JV_PRINT_PRETTY);
		r = write_file(cfgfile, jv_string_value(d), (size_t)jv_string_length_bytes(jv_copy(d)), err, sizeof err);
		jv_free(d);
	}
	if (r < 0) goto fail;
	v->give_key = give_key;
	jv_free(v->withheld);
	v->withheld = jv_copy(withheld);
	rag_strv_push(&argv, rag_xstrdup(e->bin));
	rag_strv_push(&argv, rag_xasprintf("--config=%s", cfgfile));
	rag_strv_push(&argv, rag_xasprintf("--output=%s", v->rundir));
	rag_strv_push(&argv, rag_xasprintf("--run-id=%s", v->id));
	for (i = 0; i < opts.n; i++) rag_strv_push(&argv, rag_xstrdup(opts.v[i]));
	rag_strv_push(&argv, rag_xstrdup("--"));
	rag_strv_push(&argv, rag_xstrdup(setfile));
	rag_strv_push(&argv, NULL);
	argv.n--;
	pthread_mutex_lock(&e->lock);
	v->pid = spawn(e, argv.v, v->log, v->give_key);
	if (v->pid > 0) {
		e->v = rag_xrealloc(e->v, (e->n + 1) * sizeof *e->v);
		e->v[e->n++] = v;
	}
	pthread_mutex_unlock(&e->lock);
	if (v->pid <= 0) {
		rag_seterr(err, sizeof err, "cannot start rag-eval: %s", strerror(errno));
		v->pid = 0;
		goto fail;
	}
	*body = JV_OBJECT(jv_string("id"), jv_string(v->id), jv_string("state"), jv_string("running"),
	                  jv_string("testset"), jv_string(v->testset), jv_string("version"), jv_number(v->version),
	                  jv_string("total"), jv_number((double)v->total));
	if (prof) *body = jv_object_set(*body, jv_string("profile"), jv_string(prof));
	*body = jv_object_set(*body, jv_string("withheld"), jv_copy(withheld));
	v = NULL;
	st = 202;
	goto out;
fail:
	*body = JV_OBJECT(jv_string("error"), jv_string(err));
	if (v) eval_free(v);
out:
	free(name);
	free(prof);
	free(ptext);
	free(yaml);
	free(cfgfile);
	free(setfile);
	jv_free(form);
	jv_free(config);
	rag_strv_free(&opts);
	rag_strv_free(&argv);
	rag_buf_free(&set);
	jv_free(withheld);
	return st;
}

/* the lines rag-eval appended to records.jsonl since the last look: each a record scored,
 * with errors when its "errors" is a list that is not empty */
static void progress(eval *v)
{
	char buf[65536];
	ssize_t n;
	int fd = open(v->records, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return;
	while ((n = pread(fd, buf, sizeof buf, v->pos)) > 0) {
		ssize_t i, from = 0;
		v->pos += n;
		for (i = 0; i < n; i++) {
			if (buf[i] != '\n') continue;
			rag_buf_add(&v->part, buf + from, (size_t)(i - from));
			from = i + 1;
			if (v->part.len) {
				jv rec = jv_parse_sized(v->part.p, (int)v->part.len), er;
				v->done++;
				er = jv_get_kind(rec) == JV_KIND_OBJECT ? jv_object_get(rec, jv_string("errors")) : (jv_free(rec), jv_null());
				if (jv_get_kind(er) == JV_KIND_ARRAY && jv_array_length(jv_copy(er)) > 0) v->errors++;
				jv_free(er);
			}
			v->part.len = 0;
		}
		rag_buf_add(&v->part, buf + from, (size_t)(n - from));
	}
	close(fd);
}

/* The seconds left of a run of total records, done of them done, done1 of those done
 * since1 seconds ago, when the first records after the start were seen; NAN ("estimating")
 * before a record is done after those. The rate is measured from the first records, not the
 * start: rag-eval's stages are a pipeline, so the first record waits for every stage and the
 * records after it follow at the pipeline's pace (measured from the start, a 92 s run showed
 * 23 min left at first: issue 36). */
RAG_UNITTEST double rag_evals_eta(long total, long done, long done1, double since1)
{
	if (done <= done1 || since1 <= 0) return total > 0 && done >= total ? 0 : NAN;
	if (done >= total) return 0;
	return round(since1 / (double)(done - done1) * (double)(total - done));
}

static const char *state(const eval *v)
{
	if (v->pid) return v->cancel ? "cancelling" : "running";
	if (v->cancel) return "cancelled";
	/* rag-eval(1) EXIT STATUS: 0 and 1 the gate's; 3 and 4 a run to the end with records that
	 * could not be scored (their errors counted): done, stored; the rest stopped short */
	if (WIFEXITED(v->status) && (WEXITSTATUS(v->status) <= 1 || WEXITSTATUS(v->status) == 3 ||
	                             WEXITSTATUS(v->status) == 4))
		return "done";
	return "failed";
}

/* the last lines of the child's log (rag-eval's messages: no key is ever in them) */
static jv log_tail(const eval *v)
{
	char err[RAG_ERRLEN];
	size_t len;
	char *t = rag_read_file(v->log, &len, err, sizeof err);
	const char *p;
	int lines = 0;
	jv r;
	if (!t) return jv_null();
	p = t + len;
	while (p > t && lines <= 8) {
		p--;
		if (*p == '\n' && p + 1 < t + len) lines++;
	}
	if (lines > 8) p++;
	r = jv_string_sized(p, (int)(t + len - p));
	free(t);
	return r;
}

static jv describe(eval *v, rag_store *s)
{
	const char *st = state(v);
	jv o, sum;
	char err[RAG_ERRLEN];
	progress(v);
	o = JV_OBJECT(jv_string("id"), jv_string(v->id), jv_string("state"), jv_string(st),
	              jv_string("testset"), jv_string(v->testset), jv_string("version"), jv_number(v->version),
	              jv_string("total"), jv_number((double)v->total), jv_string("done"), jv_number((double)v->done),
	              jv_string("errors"), jv_number((double)v->errors), jv_string("rundir"), jv_string(v->rundir),
	              jv_string("withheld"), jv_copy(v->withheld));
	/* the time left at the rate since the first records: the records done come from the file */
	if (v->pid && !v->t1 && v->done > v->done0) {
		v->t1 = rag_now();
		v->done1 = v->done;
	}
	if (v->pid) {
		double eta = v->t1 ? rag_evals_eta(v->total, v->done, v->done1, rag_now() - v->t1) : NAN;
		o = jv_object_set(o, jv_string("eta_s"), isnan(eta) ? jv_null() : jv_number(eta));
	} else {
		o = jv_object_set(o, jv_string("eta_s"), jv_number(0));
	}
	if (!v->pid) {
		o = jv_object_set(o, jv_string("exit_status"),
		                  WIFEXITED(v->status) ? jv_number(WEXITSTATUS(v->status))
		                                       : jv_number(128 + WTERMSIG(v->status)));
		/* the run in the store: rag-eval --store put it there under its run id */
		if (rag_store_show(s, v->id, &sum, err, sizeof err) == 0) {
			jv p = jv_object_get(jv_copy(sum), jv_string("passed")), vd = rag_json_get(jv_copy(sum), "verdict");
			o = jv_object_set(o, jv_string("run"), jv_string(v->id));
			o = jv_object_set(o, jv_string("passed"), p);
			/* what the run ended with, as stored (its verdict's pass rate, reason and means):
			 * the tab shows them, not only rag-eval's log */
			o = jv_object_set(o, jv_string("means"), rag_json_get(sum, "means"));
			if (jv_get_kind(vd) == JV_KIND_OBJECT) {
				static const char *const keys[] = {"decision", "exit_status", "reason", "pass_rate", "passed",
				                                   "with_verdict", "pass_rate_of"};
				jv r = jv_object();
				size_t i;
				for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
					jv x = rag_json_get(jv_copy(vd), keys[i]);
					if (jv_is_valid(x)) r = jv_object_set(r, jv_string(keys[i]), x);
					else jv_free(x);
				}
				o = jv_object_set(o, jv_string("verdict"), r);
			}
			jv_free(vd);
		} else {
			o = jv_object_set(o, jv_string("run"), jv_null());
		}
		if (strcmp(st, "done") || !WIFEXITED(v->status) || WEXITSTATUS(v->status) > 1)
			o = jv_object_set(o, jv_string("log"), log_tail(v));
	}
	return o;
}

static eval *find(rag_evals *e, const char *id, size_t idlen)
{
	size_t i;
	for (i = 0; i < e->n; i++)
		if (strlen(e->v[i]->id) == idlen && !memcmp(e->v[i]->id, id, idlen)) return e->v[i];
	return NULL;
}

static jv error_body(const char *msg)
{
	return JV_OBJECT(jv_string("error"), jv_string(msg));
}

/* POST /api/evals/ID/resume: rag-eval --resume of a run that was cancelled or failed, with its
 * configuration; the records it holds are kept, the others scored (called with e->lock held) */
static int resume(rag_evals *e, eval *v, rag_store *s, jv *body)
{
	rag_strv argv = {0};
	if (v->pid || !strcmp(state(v), "done")) {
		*body = error_body("the run is running or done: nothing to resume");
		return 409;
	}
	rag_strv_push(&argv, rag_xstrdup(e->bin));
	rag_strv_push(&argv, rag_xasprintf("--config=%s/rag.yaml", v->dir));
	rag_strv_push(&argv, rag_xasprintf("--resume=%s", v->rundir));
	rag_strv_push(&argv, NULL);
	argv.n--;
	v->cancel = 0;
	progress(v);
	v->done0 = v->done;
	v->t1 = 0;
	v->pid = spawn(e, argv.v, v->log, v->give_key);
	rag_strv_free(&argv);
	if (v->pid <= 0) {
		v->pid = 0;
		*body = error_body("cannot start rag-eval");
		return 500;
	}
	*body = describe(v, s);
	return 202;
}

/* GET /api/evals/form: what the form starts from, rag-serve's configuration (no key: whether
 * there is one) */
static jv form_defaults(const rag_config *cfg)
{
	jv sys = jv_object(), th = jv_object(), m = jv_array();
	size_t i;
	for (i = 0; i < cfg->nsystem; i++) {
		jv v = jv_parse(cfg->system[i].value);
		sys = jv_object_set(sys, jv_string(cfg->system[i].key), jv_is_valid(v) ? v : (jv_free(v), jv_string(cfg->system[i].value)));
	}
	for (i = 0; i < cfg->gate.nmean; i++) th = jv_object_set(th, jv_string(cfg->gate.mean[i].key), jv_number(cfg->gate.mean[i].value));
	for (i = 0; i < cfg->eval.metrics.n; i++) m = jv_array_append(m, jv_string(cfg->eval.metrics.v[i]));
	return JV_OBJECT(jv_string("service_url"), cfg->collect.url ? jv_string(cfg->collect.url) : jv_null(),
	                 jv_string("judge_base_url"),
	                 cfg->llm.provider && !strcmp(cfg->llm.provider, "offline") ? jv_null()
	                 : cfg->llm.base_url ? jv_string(cfg->llm.base_url) : jv_null(),
	                 jv_string("judge_model"), cfg->llm.model ? jv_string(cfg->llm.model) : jv_null(),
	                 jv_string("judge_key"), jv_bool(cfg->llm.api_key != NULL),
	                 jv_string("system"), sys, jv_string("metrics"), m, jv_string("thresholds"), th);
}

int rag_evals_api(rag_evals *e, rag_store *s, const rag_config *cfg, const char *path, int post, const char *text,
                  size_t len, jv *body)
{
	const char *rest, *slash;
	eval *v;
	int st = 404;
	size_t i;
	if (strcmp(path, "/api/evals") && strncmp(path, "/api/evals/", 11)) return 0;
	if (!strcmp(path, "/api/evals")) {
		if (post) return start(e, s, cfg, text, len, body);
		*body = jv_array();
		pthread_mutex_lock(&e->lock);
		for (i = e->n; i > 0; i--) *body = jv_array_append(*body, describe(e->v[i - 1], s));
		pthread_mutex_unlock(&e->lock);
		*body = JV_OBJECT(jv_string("evals"), *body);
		return 200;
	}
	rest = path + 11;
	if (!post && !strcmp(rest, "form")) {
		*body = JV_OBJECT(jv_string("defaults"), form_defaults(cfg));
		return 200;
	}
	if (!post && !strcmp(rest, "profiles")) {
		*body = JV_OBJECT(jv_string("profiles"), profiles_list(e));
		return 200;
	}
	slash = strchr(rest, '/');
	pthread_mutex_lock(&e->lock);
	v = find(e, rest, slash ? (size_t)(slash - rest) : strlen(rest));
	if (!v) {
		*body = error_body("no such run started here");
	} else if (!post && !slash) {
		*body = describe(v, s);
		st = 200;
	} else if (post && slash && !strcmp(slash, "/cancel")) {
		/* the group: rag-eval, which passes SIGTERM on to its pipeline's own group */
		if (v->pid) {
			v->cancel = 1;
			kill(-v->pid, SIGTERM);
		}
		*body = describe(v, s);
		st = 200;
	} else if (post && slash && !strcmp(slash, "/resume")) {
		st = resume(e, v, s, body);
	} else {
		*body = error_body(post ? "method not allowed here" : "no such API path");
		st = post ? 405 : 404;
	}
	pthread_mutex_unlock(&e->lock);
	return st;
}

void rag_evals_reap(rag_evals *e)
{
	size_t i;
	pthread_mutex_lock(&e->lock);
	for (i = 0; i < e->n; i++) {
		eval *v = e->v[i];
		if (v->pid && waitpid(v->pid, &v->status, WNOHANG) == v->pid) v->pid = 0;
	}
	pthread_mutex_unlock(&e->lock);
}

void rag_evals_free(rag_evals *e)
{
	size_t i;
	int k;
	if (!e) return;
	pthread_mutex_lock(&e->lock);
	for (i = 0; i < e->n; i++)
		if (e->v[i]->pid) kill(-e->v[i]->pid, SIGTERM);
	/* rag-eval writes the records its stages hold and stops; one that outlives 10 s is killed */
	for (i = 0; i < e->n; i++) {
		eval *v = e->v[i];
		for (k = 0; v->pid && k < 1000; k++) {
			if (waitpid(v->pid, &v->status, WNOHANG) == v->pid) v->pid = 0;
			else {
				struct timespec ts = {0, 10000000};
				nanosleep(&ts, NULL);
			}
		}
		if (v->pid) {
			kill(-v->pid, SIGKILL);
			waitpid(v->pid, &v->status, 0);
		}
		eval_free(v);
	}
	free(e->v);
	pthread_mutex_unlock(&e->lock);
	pthread_mutex_destroy(&e->lock);
	if (e->life >= 0) close(e->life);
	if (e->life_r >= 0) close(e->life_r);
	rag_strv_free(&e->env);
	free(e->workdir);
	free(e->bin);
	free(e->profiles);
	free(e);
}
