/* serverun.h - rag-serve's Run tab without the HTTP server (serverun.c): a form checked and
 * turned into rag-eval's argument vector and a generated configuration, rag-eval run as a child
 * process in a process group of its own, its progress read from the run directory it writes,
 * cancel, and the end of every child when rag-serve ends. Layer 7 (HACKING.md). */
#ifndef RAG_SERVERUN_H
#define RAG_SERVERUN_H

#include <stddef.h>

#include <jv.h>

#include "base.h"
#include "config.h"
#include "store.h"

/* ---------------------------------------------------------------- serverun.c */
typedef struct rag_evals rag_evals;
typedef struct rag_evals_opts {
	const char *workdir;        /* each run's files in WORKDIR/ID/ (made at the first run) */
	const char *eval_bin;       /* the rag-eval to run: a path, or a name looked up in PATH */
	char *const *envp;          /* the child's environment (borrowed while the rag_evals lives):
	                             * RAG_SERVE_STORE_URL names the store, RAG_API_KEY the judge's key */
	const char *profiles;       /* the profiles' directory: rag-config(5) files NAME.yaml, or NULL */
} rag_evals_opts;
/* NULL with err when it cannot be set up (a profiles' directory that is not one) */
rag_evals *rag_evals_new(const rag_evals_opts *o, char *err, size_t errlen);
/* The API of the Run tab: GET /api/evals (the runs started, newest first), GET /api/evals/form
 * (the form's defaults from cfg), GET /api/evals/profiles (the profiles, as the form shows
 * them: no key, no header, no store), GET /api/evals/ID (its state and progress), POST
 * /api/evals (start one: the form as a JSON object, over a profile when it names one), POST
 * /api/evals/ID/cancel. post: 1 for a POST (its
 * checks passed), text/len its body. Returns the HTTP status and *body (an object), or 0 when
 * path is none of these. */
int rag_evals_api(rag_evals *e, rag_store *s, const rag_config *cfg, const char *path, int post, const char *text,
                  size_t len, jv *body);
/* Reap the children that ended (rag-serve calls it on SIGCHLD). */
void rag_evals_reap(rag_evals *e);
/* End every child still running (SIGTERM to its group, SIGKILL if it outlives ~10 s), reap it,
 * and free e. */
void rag_evals_free(rag_evals *e);

/* ---------------------------------------------------------------- serveprof.c */
/* a string for a generated configuration: each '$' doubled, so that rag-config(5) expands no
 * ${NAME} of it (a form value can name no variable); serverun.c's and serveprof.c's */
jv rag_evals_conf_str(const char *s);

/* A profile's text (YAML, as written: its ${VAR}s not expanded) -> what the form shows of it
 * (name, service_url, judge_base_url, judge_model, own_key, system, metrics, thresholds; URLs'
 * passwords masked; never a key, a header or the store), or {name, error}. */
jv rag_evals_profile(const char *name, const char *text, size_t len);
/* rag-serve's own judge key and where it may go: the endpoint it was configured for
 * (rag_llm_base_url of rag-serve's configuration) and its llm.allow_urls (borrowed) */
typedef struct rag_evals_key {
	int has;                  /* rag-serve has one: RAG_API_KEY of the child's environment */
	const char *endpoint;
	const rag_strv *allow;
} rag_evals_key;
/* The profile's text with config (rag_evals_form's; consumed) laid over it, key by key: the
 * whole profile kept (its ${VAR}s for rag-eval to expand), a value of the form that says what
 * the profile's says (as the listing shows it) left as the profile wrote it, collect.body the
 * form's only where the profile has none, store.url the form's; the form's judge endpoint asked
 * as the profile's llm.provider asks (openai where it names none or offline); its relative paths made
 * relative to dir, the profile's directory (NULL: left). A credential goes only where it was
 * configured for: the profile's judge key (llm.api_key, api_key_env; embeddings' that follow
 * the judge's endpoint) only to the profile's llm.base_url (or the default endpoint) or its
 * llm.allow_urls, its collect.headers only to its collect.url or its collect.allow_urls, else
 * they are emptied in the run's configuration; rag-serve's key only where key allows it
 * (*give_key 1: RAG_API_KEY in the run's environment). Each credential left out is appended to
 * *withheld (an array) as rag_evals_withheld's. *yaml malloc'ed. -1 and err when the profile
 * is not a YAML mapping. */
int rag_evals_merge(const char *text, size_t len, const char *dir, jv config, const rag_evals_key *key, char **yaml,
                    int *give_key, jv *withheld, char *err, size_t errlen);
/* Is url the endpoint (NULL: none) or one of allow (NULL: none), or below it: the same scheme,
 * host and port as libcurl reads them and the base's path or one under it (at a '/'); a URL
 * with a ${VAR} never. */
int rag_evals_url_allowed(const char *url, const char *endpoint, const rag_strv *allow);
/* {credential, url (its password masked), allow, note}: what a run's reply says of a
 * credential left out because url is not where it may go */
jv rag_evals_withheld(const char *credential, const char *url, const char *allow);

/* ---------------------------------------------------------------- for unit tests
 * Called only inside serverun.c and serveprof.c and by tests/unit/t-serverun.c: the form's
 * check, a run's time left, and the one URL test of rag_evals_url_allowed. Static in the
 * library (RAG_UNITTEST, base.h): declared only when RAG_UNITTESTS is defined, as for the unit
 * tests' build of the library (obj/libragu.a). */
#ifdef RAG_UNITTESTS
/* The form (borrowed) -> the configuration to write (*config, an object whose strings have
 * their '$' doubled, so that rag-config(5)'s ${VAR} expands nothing of the form) and rag-eval's
 * options from the form (appended to argv: --label=..., --metrics=...), the test set's name
 * and version, and the profile it names (*profile, a name of letters, digits and "_.-", no
 * "..", or NULL). -1 and err for a form that is not right. */
int rag_evals_form(jv form, jv *config, rag_strv *argv, char **testset, int *version, char **profile, char *err,
                   size_t errlen);
/* The seconds left of a run: total records, done of them, done1 of those seen since1 seconds
 * ago (the first after its start); NAN before a record more is done, 0 when all are. */
double rag_evals_eta(long total, long done, long done1, double since1);
/* Is url the endpoint base or below it: the same scheme, host and port as libcurl reads them
 * and base's path or one under it (at a '/'); a URL with a ${VAR} never. */
int rag_evals_url_within(const char *url, const char *base);
#endif /* RAG_UNITTESTS */

#endif
