/* serveprof.c - the Run tab's profiles, without the HTTP server or the child: a profile (a
 * rag-config(5) file of rag-serve's --profiles directory) read as the YAML it is, what the form
 * shows of it, and the run's configuration made of it with the form laid over it (serverun.c
 * lists the directory and starts rag-eval with what this file writes). Part of serverun.h. */
#include "base.h"
#include "config.h"
#include "llm.h"
#include "serverun.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

/* A profile is a rag-config(5) file of the profiles' directory, read here as YAML as written:
 * rag-serve never expands its ${VAR}s (rag-eval does, from its environment), so no value of
 * its environment reaches a page. The run's configuration is the profile's document with the
 * form's values set into it, dumped by libyaml: every key of the profile kept (the judge's
 * timeout and retries, collect.headers, fields, ...) with the styles it was written in. */

/* a string for the configuration: rag-config(5) expands ${NAME} in values, so each '$' is
 * doubled ("$$" is a literal '$'): a form value can name no variable (an API key's) */
jv rag_evals_conf_str(const char *s)
{
	rag_buf b = {0};
	jv r;
	for (; *s; s++) {
		if (*s == '$') rag_buf_add(&b, "$", 1);
		rag_buf_add(&b, s, 1);
	}
	r = jv_string_sized(b.p ? b.p : "", (int)b.len);
	rag_buf_free(&b);
	return r;
}

static yaml_node_t *node(yaml_document_t *doc, int i)
{
	return i > 0 ? yaml_document_get_node(doc, i) : NULL;
}

/* a scalar's text, NULL for none or a null (as rag-config(5) reads one: plain "", ~, null) */
static const char *scalar(yaml_document_t *doc, int i)
{
	yaml_node_t *n = node(doc, i);
	const char *v;
	if (!n || n->type != YAML_SCALAR_NODE) return NULL;
	v = (const char *)n->data.scalar.value;
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL")))
		return NULL;
	return v;
}

/* the place in mapping m's pairs of key k, or -1 (the first, as rag-config refuses a second) */
static long pair_of(yaml_document_t *doc, int m, const char *k)
{
	yaml_node_t *n = node(doc, m);
	yaml_node_pair_t *p;
	if (!n || n->type != YAML_MAPPING_NODE) return -1;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node(doc, p->key);
		if (kn && kn->type == YAML_SCALAR_NODE && !strcmp((const char *)kn->data.scalar.value, k))
			return (long)(p - n->data.mapping.pairs.start);
	}
	return -1;
}

/* m[k]: its value's node, or 0 */
static int get(yaml_document_t *doc, int m, const char *k)
{
	long i = pair_of(doc, m, k);
	return i < 0 ? 0 : node(doc, m)->data.mapping.pairs.start[i].value;
}

/* m[k] = v (nodes by number: adding a node may move them all); -1 when v is 0 (libyaml could
 * not add it: out of memory) or the pair cannot be added */
static int put(yaml_document_t *doc, int m, const char *k, int v)
{
	long i = pair_of(doc, m, k);
	int kn;
	if (!v) return -1;
	if (i >= 0) {
		node(doc, m)->data.mapping.pairs.start[i].value = v;
		return 0;
	}
	kn = yaml_document_add_scalar(doc, NULL, (const yaml_char_t *)k, -1, YAML_ANY_SCALAR_STYLE);
	return kn && yaml_document_append_mapping_pair(doc, m, kn, v) ? 0 : -1;
}

/* text as a YAML document whose root (node 1) is a mapping: an empty file, an empty one */
static int load_doc(const char *text, size_t len, yaml_document_t *doc, char *err, size_t errlen)
{
	yaml_parser_t p;
	yaml_node_t *root;
	if (!yaml_parser_initialize(&p)) {
		rag_seterr(err, errlen, "cannot read YAML: out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, doc)) {
		/* libyaml's words (never the text) and where */
		rag_seterr(err, errlen, "not YAML: %s (line %lu)", p.problem ? p.problem : "a syntax error",
		           (unsigned long)p.problem_mark.line + 1);
		yaml_parser_delete(&p);
		return -1;
	}
	yaml_parser_delete(&p);
	root = yaml_document_get_root_node(doc);
	if (!root) {
		yaml_document_delete(doc);
		if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
			rag_seterr(err, errlen, "cannot read YAML: out of memory");
			return -1;
		}
		if (!yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE)) {
			yaml_document_delete(doc);
			rag_seterr(err, errlen, "cannot read YAML: out of memory");
			return -1;
		}
		return 0;
	}
	if (root->type != YAML_MAPPING_NODE) {
		yaml_document_delete(doc);
		rag_seterr(err, errlen, "not a rag-config(5) file: its top is not a mapping of sections");
		return -1;
	}
	return 0;
}

/* a profile's scalar as the form shows it: a plain one a number or boolean when it reads as one */
static jv shown(yaml_document_t *doc, int i)
{
	const char *v = scalar(doc, i);
	if (!v) return jv_null();
	return node(doc, i)->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? rag_config_scalar(v) : jv_string(v);
}

/* a URL as the form shows it: its password masked */
static jv shown_url(yaml_document_t *doc, int i)
{
	const char *v = scalar(doc, i);
	return v ? rag_config_mask_url(v) : jv_null();
}

jv rag_evals_profile(const char *name, const char *text, size_t len)
{
	yaml_document_t doc;
	char err[RAG_ERRLEN];
	jv o = JV_OBJECT(jv_string("name"), jv_string(name)), sys = jv_object(), th = jv_object(), m = jv_array();
	int llm, svc, gate, ms;
	const char *prov, *s;
	yaml_node_t *n;
	if (load_doc(text, len, &doc, err, sizeof err) < 0) {
		jv_free(sys);
		jv_free(th);
		jv_free(m);
		return jv_object_set(o, jv_string("error"), jv_string(err));
	}
	llm = get(&doc, 1, "llm");
	svc = get(&doc, 1, "collect");
	prov = scalar(&doc, get(&doc, llm, "provider"));
	o = jv_object_set(o, jv_string("service_url"), shown_url(&doc, get(&doc, svc, "url")));
	o = jv_object_set(o, jv_string("judge_base_url"),
	                  prov && !strcmp(prov, "offline") ? jv_null() : shown_url(&doc, get(&doc, llm, "base_url")));
	s = scalar(&doc, get(&doc, llm, "model"));
	o = jv_object_set(o, jv_string("judge_model"), s ? jv_string(s) : jv_null());
	/* whether it names the judge's key (never the key, nor the variable's name) */
	o = jv_object_set(o, jv_string("own_key"), jv_bool(scalar(&doc, get(&doc, llm, "api_key")) ||
	                                                    scalar(&doc, get(&doc, llm, "api_key_env"))));
	if ((n = node(&doc, get(&doc, 1, "system"))) && n->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p;
		for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
			if ((s = scalar(&doc, p->key)) && scalar(&doc, p->value))
				sys = jv_object_set(sys, jv_string(s), shown(&doc, p->value));
	}
	gate = get(&doc, get(&doc, 1, "gate"), "mean");
	if ((n = node(&doc, gate)) && n->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p;
		for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			jv v = shown(&doc, p->value);
			if ((s = scalar(&doc, p->key)) && jv_get_kind(v) == JV_KIND_NUMBER) th = jv_object_set(th, jv_string(s), v);
			else jv_free(v);
		}
	}
	/* eval.metrics: a list, or one text of names separated by commas */
	ms = get(&doc, get(&doc, 1, "eval"), "metrics");
	if ((n = node(&doc, ms)) && n->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;
		for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
			if ((s = scalar(&doc, *it))) m = jv_array_append(m, jv_string(s));
	} else if ((s = scalar(&doc, ms))) {
		char *list = rag_xstrdup(s), *tok, *save = NULL;
		for (tok = strtok_r(list, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) m = jv_array_append(m, jv_string(tok));
		free(list);
	}
	yaml_document_delete(&doc);
	return jv_object_set(jv_object_set(jv_object_set(o, jv_string("system"), sys), jv_string("metrics"), m),
	                     jv_string("thresholds"), th);
}

/* does v, a value of the form ('$' doubled), say what the profile's scalar node i says, as the
 * listing shows it (a URL's password masked)? Then the profile's stays, ${VAR}s and all. */
static int says_same(yaml_document_t *doc, int i, const char *v)
{
	yaml_node_t *n = node(doc, i);
	jv a, b;
	int r;
	if (!n || n->type != YAML_SCALAR_NODE) return 0;
	a = rag_evals_conf_str((const char *)n->data.scalar.value);
	b = rag_config_mask_url((const char *)n->data.scalar.value);
	r = !strcmp(jv_string_value(a), v);
	jv_free(a);
	a = rag_evals_conf_str(jv_string_value(b));
	r = r || !strcmp(jv_string_value(a), v);
	jv_free(a);
	jv_free(b);
	return r;
}

/* obj (consumed) laid over mapping m, key by key; section: m's key ("" at the top). -1 when
 * libyaml could not add a node (out of memory) */
static int merge_map(yaml_document_t *doc, int m, jv obj, const char *section)
{
	int rc = 0;
	jv_object_foreach(obj, k, v) {
		const char *key = jv_string_value(k);
		int cur = get(doc, m, key);
		yaml_node_t *cn = node(doc, cur);
		if (rc < 0) {
			/* the rest freed */
		} else if (jv_get_kind(v) == JV_KIND_OBJECT) {
			if (!cn || cn->type != YAML_MAPPING_NODE)
				rc = put(doc, m, key, cur = yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE));
			if (rc == 0) rc = merge_map(doc, cur, jv_copy(v), key);
		} else if (jv_get_kind(v) == JV_KIND_STRING) {
			/* the profile's own body maps the service's request */
			int keep = !strcmp(section, "collect") && !strcmp(key, "body") && scalar(doc, cur);
			if (!keep && !says_same(doc, cur, jv_string_value(v)))
				rc = put(doc, m, key, yaml_document_add_scalar(doc, NULL, (const yaml_char_t *)jv_string_value(v), -1,
				                                               YAML_DOUBLE_QUOTED_SCALAR_STYLE));
		} else {
			/* a number, true or false: plain, as rag-config(5) reads one */
			jv d = jv_dump_string(jv_copy(v), 0);
			rc = put(doc, m, key, yaml_document_add_scalar(doc, NULL, (const yaml_char_t *)jv_string_value(d), -1,
			                                               YAML_PLAIN_SCALAR_STYLE));
			jv_free(d);
		}
		jv_free(k);
		jv_free(v);
	}
	jv_free(obj);
	return rc;
}

/* The profile's relative paths (rag-config(5)'s: cache.dir, prompts.dir, prompts.NAME) made
 * relative to its directory, where rag-config reads them from in the profile: the run's
 * configuration is in the run's directory. -1 out of memory */
static int rebase_paths(yaml_document_t *doc, const char *dir)
{
	static const char *const sections[] = {"cache", "prompts"};
	size_t i, j, np;
	for (i = 0; i < sizeof sections / sizeof *sections; i++) {
		int m = get(doc, 1, sections[i]);
		yaml_node_t *n = node(doc, m);
		if (!n || n->type != YAML_MAPPING_NODE) continue;
		np = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
		for (j = 0; j < np; j++) {
			yaml_node_pair_t pr = node(doc, m)->data.mapping.pairs.start[j];
			const char *k = scalar(doc, pr.key), *v = scalar(doc, pr.value);
			jv d, path;
			int nv;
			/* "~/", "/" and "${HOME}/..." are no relative paths */
			if (!k || !v || (i == 0 && strcmp(k, "dir")) || v[0] == '/' || v[0] == '~' || v[0] == '$') continue;
			d = rag_evals_conf_str(dir);
			path = jv_string_fmt("%s/%s", jv_string_value(d), v);
			nv = yaml_document_add_scalar(doc, NULL, (const yaml_char_t *)jv_string_value(path), -1,
			                              YAML_DOUBLE_QUOTED_SCALAR_STYLE);
			jv_free(d);
			jv_free(path);
			if (!nv) return -1;
			node(doc, m)->data.mapping.pairs.start[j].value = nv;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- credentials */

/* url's scheme, host, port and path as libcurl reads them (the library that sends the request),
 * or -1 for one it does not take as an http(s) URL */
typedef struct url_parts { char *scheme, *host, *port, *path; } url_parts;

static void url_parts_free(url_parts *u)
{
	curl_free(u->scheme);
	curl_free(u->host);
	curl_free(u->port);
	curl_free(u->path);
}

static int url_split(const char *url, url_parts *u)
{
	CURLU *h = curl_url();
	int ok;
	memset(u, 0, sizeof *u);
	/* a ${VAR} rag-serve does not expand (a profile's, as written) could be any endpoint */
	if (!h || strstr(url, "${")) {
		curl_url_cleanup(h);
		return -1;
	}
	ok = curl_url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK &&
	     curl_url_get(h, CURLUPART_SCHEME, &u->scheme, 0) == CURLUE_OK &&
	     curl_url_get(h, CURLUPART_HOST, &u->host, 0) == CURLUE_OK &&
	     curl_url_get(h, CURLUPART_PORT, &u->port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
	     curl_url_get(h, CURLUPART_PATH, &u->path, 0) == CURLUE_OK &&
	     (!strcasecmp(u->scheme, "http") || !strcasecmp(u->scheme, "https"));
	curl_url_cleanup(h);
	if (!ok) url_parts_free(u);
	return ok ? 0 : -1;
}

RAG_UNITTEST int rag_evals_url_within(const char *url, const char *base)
{
	url_parts a, b;
	size_t n;
	int ok;
	if (!url || !base || url_split(url, &a) < 0) return 0;
	if (url_split(base, &b) < 0) {
		url_parts_free(&a);
		return 0;
	}
	n = strlen(b.path);
	while (n && b.path[n - 1] == '/') n--;
	/* the same server (scheme, host, port); the path base's or below it at a '/'; an escaped
	 * '.' or '/' (which a server may decode into a way out of the path) never */
	ok = !strcasecmp(a.scheme, b.scheme) && !strcasecmp(a.host, b.host) && !strcmp(a.port, b.port) &&
	     !strncmp(a.path, b.path, n) && (a.path[n] == '/' || !a.path[n]) &&
	     !strcasestr(a.path, "%2e") && !strcasestr(a.path, "%2f");
	url_parts_free(&a);
	url_parts_free(&b);
	return ok;
}

int rag_evals_url_allowed(const char *url, const char *endpoint, const rag_strv *allow)
{
	size_t i;
	if (rag_evals_url_within(url, endpoint)) return 1;
	for (i = 0; allow && i < allow->n; i++)
		if (rag_evals_url_within(url, allow->v[i])) return 1;
	return 0;
}

jv rag_evals_withheld(const char *credential, const char *url, const char *allow)
{
	return JV_OBJECT(jv_string("credential"), jv_string(credential), jv_string("url"), rag_config_mask_url(url),
	                 jv_string("allow"), jv_string(allow),
	                 jv_string("note"), jv_string_fmt("credential not sent: the URL is not the endpoint %s was "
	                                                  "configured for, nor in %s", credential, allow));
}

/* a form's value as rag-config(5) will read it: each "$$" one '$' (rag_evals_conf_str's
 * undone); malloc'ed */
static char *undollar(const char *s)
{
	char *r = rag_xstrdup(s), *w = r;
	for (; *s; s++) {
		*w++ = *s;
		if (s[0] == '$' && s[1] == '$') s++;
	}
	*w = 0;
	return r;
}

/* m[k] as a list of texts (a sequence, or one scalar) */
static void texts_of(yaml_document_t *doc, int m, const char *k, rag_strv *out)
{
	yaml_node_t *n = node(doc, get(doc, m, k));
	const char *s;
	if (n && n->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;
		for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
			if ((s = scalar(doc, *it))) rag_strv_push(out, rag_xstrdup(s));
	} else if ((s = scalar(doc, get(doc, m, k)))) {
		rag_strv_push(out, rag_xstrdup(s));
	}
}

/* m[k] = "" (a key rag-config(5) reads as none); -1 out of memory */
static int blank(yaml_document_t *doc, int m, const char *k)
{
	return put(doc, m, k, yaml_document_add_scalar(doc, NULL, (const yaml_char_t *)"", 0, YAML_DOUBLE_QUOTED_SCALAR_STYLE));
}

/* what the profile said before the form was laid over it: the nodes of the judge's endpoint
 * and the service's URL (a form value that replaces one is a new node), and their texts */
typedef struct before {
	int base, svc;
	char *base_s, *svc_s;
} before;

static void note_before(yaml_document_t *doc, before *b)
{
	const char *s;
	b->base = get(doc, get(doc, 1, "llm"), "base_url");
	b->svc = get(doc, get(doc, 1, "collect"), "url");
	b->base_s = (s = scalar(doc, b->base)) ? rag_xstrdup(s) : NULL;
	b->svc_s = (s = scalar(doc, b->svc)) ? rag_xstrdup(s) : NULL;
}

/* m's headers (a mapping with any pair) emptied, and said in withheld: the credential what
 * does not go to eff (allow names the list that would have let it); 0 when m has none, -1 out
 * of memory */
static int drop_headers(yaml_document_t *doc, int m, const char *what, const char *eff, const char *allow, jv *withheld)
{
	yaml_node_t *h = node(doc, get(doc, m, "headers"));
	if (!h || h->type != YAML_MAPPING_NODE || h->data.mapping.pairs.top == h->data.mapping.pairs.start) return 0;
	*withheld = jv_array_append(*withheld, rag_evals_withheld(what, eff, allow));
	return put(doc, m, "headers", yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE));
}

/* The judge's keys once the form is laid over the profile: the profile's own (llm's, and
 * embeddings' where they follow the judge's endpoint) kept only for the endpoint the profile
 * names (or its default) and its llm.allow_urls; rag-serve's (key) given only where the run's
 * endpoints are rag-serve's own or in its llm.allow_urls. The profile's api_key_env pinned to
 * none when it names no variable, so that no variable of rag-serve's environment (the default
 * OPENAI_API_KEY) stands in for a key. -1 out of memory */
static int judge_keys(yaml_document_t *doc, const before *b, const rag_evals_key *key, int *give_key, jv *withheld)
{
	int llm = get(doc, 1, "llm"), emb = get(doc, 1, "embeddings"), base = get(doc, llm, "base_url");
	const char *prov = scalar(doc, get(doc, llm, "provider")), *emb_base = scalar(doc, get(doc, emb, "base_url"));
	int own = scalar(doc, get(doc, llm, "api_key")) || scalar(doc, get(doc, llm, "api_key_env"));
	int emb_own = scalar(doc, get(doc, emb, "api_key")) || scalar(doc, get(doc, emb, "api_key_env"));
	int offline = prov && !strcmp(prov, "offline"), ok, rc = 0;
	char *eff = undollar(scalar(doc, base) ? scalar(doc, base) : RAG_LLM_DEFAULT_BASE_URL);
	rag_strv allow = {0};
	texts_of(doc, llm, "allow_urls", &allow);
	/* the profile's endpoint as it wrote it (not the form's), or one it allows */
	ok = base == b->base || rag_evals_url_allowed(eff, b->base_s ? b->base_s : RAG_LLM_DEFAULT_BASE_URL, &allow);
	*give_key = 0;
	if (!llm && !(llm = yaml_document_add_mapping(doc, NULL, YAML_BLOCK_MAPPING_STYLE))) rc = -1;
	else if (!get(doc, 1, "llm")) rc = put(doc, 1, "llm", llm);
	if (rc == 0 && own && !ok) {
		rc = blank(doc, llm, "api_key") | blank(doc, llm, "api_key_env");
		if (!offline) *withheld = jv_array_append(*withheld, rag_evals_withheld("the profile's llm.api_key", eff,
		                                                                      "the profile's llm.allow_urls"));
	} else if (rc == 0 && !scalar(doc, get(doc, llm, "api_key_env"))) {
		rc = blank(doc, llm, "api_key_env");
	}
	/* its llm.headers (a gateway's key, Azure's api-key) are credentials as its key is; so are
	 * the embeddings' where they follow the judge's endpoint */
	if (rc == 0 && !ok) rc = drop_headers(doc, llm, "the profile's llm.headers", eff, "the profile's llm.allow_urls", withheld);
	if (rc == 0 && !ok && !emb_base)
		rc = drop_headers(doc, emb, "the profile's embeddings.headers", eff, "the profile's llm.allow_urls", withheld);
	/* embeddings without an endpoint of their own follow the judge's */
	if (rc == 0 && emb_own && !emb_base && !ok) {
		rc = blank(doc, emb, "api_key") | blank(doc, emb, "api_key_env");
		*withheld = jv_array_append(*withheld, rag_evals_withheld("the profile's embeddings.api_key", eff,
		                                                          "the profile's llm.allow_urls"));
	}
	if (rc == 0 && !own && key->has && !offline) {
		const char *out = eff;
		*give_key = rag_evals_url_allowed(eff, key->endpoint, key->allow);
		/* embeddings of an endpoint of their own and no key of their own get the judge's */
		if (*give_key && emb_base && !emb_own && !rag_evals_url_allowed(emb_base, key->endpoint, key->allow)) {
			*give_key = 0;
			out = emb_base;
		}
		if (!*give_key)
			*withheld = jv_array_append(*withheld, rag_evals_withheld("rag-serve's llm.api_key", out,
			                                                          "rag-serve's llm.allow_urls"));
	}
	rag_strv_free(&allow);
	free(eff);
	return rc;
}

/* collect.headers kept only where the run calls the URL the profile names or one of its
 * collect.allow_urls; else none. -1 out of memory */
static int service_headers(yaml_document_t *doc, const before *b, jv *withheld)
{
	int col = get(doc, 1, "collect"), url = get(doc, col, "url"), rc = 0;
	rag_strv allow = {0};
	char *eff;
	if (!url || url == b->svc) return 0;
	eff = undollar(scalar(doc, url) ? scalar(doc, url) : "");
	texts_of(doc, col, "allow_urls", &allow);
	if (!(b->svc_s && rag_evals_url_within(eff, b->svc_s)) && !rag_evals_url_allowed(eff, NULL, &allow))
		rc = drop_headers(doc, col, "the profile's collect.headers", eff, "the profile's collect.allow_urls", withheld);
	rag_strv_free(&allow);
	free(eff);
	return rc;
}

/* The form's judge endpoint (config's llm.base_url) over the profile: asked the way the
 * profile's provider asks (azure's routes and api-key, openai-reasoning's parameters), or, where
 * the profile names none or the offline judge, as OpenAI's endpoint is. config consumed */
static jv judge_provider(yaml_document_t *doc, jv config)
{
	jv base = jv_getpath(jv_copy(config), JV_ARRAY(jv_string("llm"), jv_string("base_url")));
	const char *prov = scalar(doc, get(doc, get(doc, 1, "llm"), "provider"));
	if (jv_get_kind(base) == JV_KIND_STRING && !rag_config_online(prov))
		config = jv_setpath(config, JV_ARRAY(jv_string("llm"), jv_string("provider")), jv_string("openai"));
	jv_free(base);
	return config;
}

static int emit_out(void *data, unsigned char *buf, size_t size)
{
	rag_buf_add(data, buf, size);
	return 1;
}

int rag_evals_merge(const char *text, size_t len, const char *dir, jv config, const rag_evals_key *key, char **yaml,
                    int *give_key, jv *withheld, char *err, size_t errlen)
{
	yaml_document_t doc;
	yaml_emitter_t em;
	rag_buf b = {0};
	before bf;
	int ok;
	*yaml = NULL;
	*give_key = 0;
	if (load_doc(text, len, &doc, err, errlen) < 0) {
		jv_free(config);
		return -1;
	}
	note_before(&doc, &bf);
	config = judge_provider(&doc, config);
	ok = !(dir && rebase_paths(&doc, dir) < 0) && merge_map(&doc, 1, config, "") == 0 &&
	     judge_keys(&doc, &bf, key, give_key, withheld) == 0 && service_headers(&doc, &bf, withheld) == 0;
	free(bf.base_s);
	free(bf.svc_s);
	if (!ok || !yaml_emitter_initialize(&em)) {
		yaml_document_delete(&doc);
		rag_seterr(err, errlen, "cannot write the profile's configuration: out of memory");
		return -1;
	}
	yaml_emitter_set_output(&em, emit_out, &b);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	/* the dump deletes the document, written or not */
	ok = yaml_emitter_dump(&em, &doc);
	ok = ok && yaml_emitter_close(&em) && yaml_emitter_flush(&em);
	yaml_emitter_delete(&em);
	if (!ok) {
		rag_buf_free(&b);
		rag_seterr(err, errlen, "cannot write the profile's configuration");
		return -1;
	}
	rag_buf_add(&b, "", 1);
	*yaml = b.p;
	return 0;
}
