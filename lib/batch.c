/* batch.c - the batch route: OpenAI's batch API (and Azure's and DashScope's, which follow it)
 * over a client's endpoint and key, for rag-eval --batch.
 *
 * A batch's input is a JSON Lines file of requests (llm.c collects them, each under its cache
 * key as custom_id), uploaded to POST files (purpose batch); POST batches starts it; GET
 * batches/ID says how far it is; GET files/ID/content gives its output and error files, whose
 * replies go into the cache (llm.c's rag_llm_batch_reply), where the stage then finds them.
 * Each call is one synchronous request: a batch is looked at every llm.batch_poll seconds by
 * the caller, nothing here waits. The key goes only to the configured endpoint, as the chat
 * requests' own headers; what the server says is scrubbed of it. */
#include "base.h"
#include "config.h"
#include "usage.h"
#include "llm.h"

#include <curl/curl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BATCH_TIMEOUT 600L         /* seconds: a large output file takes a while to come */
#define BATCH_CONNECT_TIMEOUT 30L

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	rag_buf_add(arg, p, size * n);
	return size * n;
}

/* One request to the route what: a GET (body and mime NULL), a JSON POST (body) or a form
 * (mime). *out the reply's body (2xx); else -1 and err with the status and what the server
 * said, scrubbed. */
static int call(rag_llm *l, const char *what, const char *body, curl_mime *mime, rag_buf *out, char *err,
                size_t errlen)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	const rag_strv *hdrs = rag_llm_batch_headers(l);
	char *url = rag_llm_batch_url(l, what), cerr[CURL_ERROR_SIZE] = "";
	long status = 0;
	size_t i;
	CURLcode code;
	int rc = -1;
	if (!c) {
		rag_seterr(err, errlen, "cannot initialise libcurl");
		free(url);
		return -1;
	}
	for (i = 0; i < hdrs->n; i++) h = curl_slist_append(h, hdrs->v[i]);
	if (body) h = curl_slist_append(h, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, BATCH_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, BATCH_CONNECT_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	/* a redirect would carry the key to another host */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	if (body) curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	if (mime) curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
	code = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	rag_buf_add(out, "", 1);
	out->len--;
	if (code != CURLE_OK) {
		rag_seterr(err, errlen, "%s: %s", what, *cerr ? cerr : curl_easy_strerror(code));
	} else if (status < 200 || status > 299) {
		char *m = rag_wire_error(out->p, out->len, 300);
		rag_seterr(err, errlen, "%s: endpoint answered http %ld%s%s", what, status, m ? ": " : "", m ? m : "");
		free(m);
	} else {
		rc = 0;
	}
	if (rc < 0) rag_llm_scrub(l, err);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	free(url);
	return rc;
}

/* A reply's "id" (malloc'ed), or NULL and err. */
static char *reply_id(rag_llm *l, const rag_buf *b, const char *what, char *err, size_t errlen)
{
	jv v = jv_parse_sized(b->p ? b->p : "", (int)b->len), id = rag_json_get(v, "id");
	char *s = NULL;
	if (jv_get_kind(id) == JV_KIND_STRING && jv_string_length_bytes(jv_copy(id)) > 0) {
		s = rag_xstrdup(jv_string_value(id));
	} else {
		rag_seterr(err, errlen, "%s: the reply has no \"id\"", what);
		rag_llm_scrub(l, err);
	}
	jv_free(id);
	return s;
}

int rag_batch_upload(rag_llm *l, const char *path, char **file_id, char *err, size_t errlen)
{
	CURL *dummy = curl_easy_init();
	curl_mime *m = dummy ? curl_mime_init(dummy) : NULL;
	curl_mimepart *part;
	rag_buf b = {0};
	int rc = -1;
	*file_id = NULL;
	if (!m) {
		rag_seterr(err, errlen, "cannot initialise libcurl");
		if (dummy) curl_easy_cleanup(dummy);
		return -1;
	}
	part = curl_mime_addpart(m);
	curl_mime_name(part, "purpose");
	curl_mime_data(part, "batch", CURL_ZERO_TERMINATED);
	part = curl_mime_addpart(m);
	curl_mime_name(part, "file");
	if (curl_mime_filedata(part, path) != CURLE_OK) {
		rag_seterr(err, errlen, "cannot read the batch's requests %s", path);
	} else {
		curl_mime_filename(part, "batch.jsonl");
		curl_mime_type(part, "application/jsonl");
		if (call(l, "files", NULL, m, &b, err, errlen) == 0 && (*file_id = reply_id(l, &b, "files", err, errlen)))
			rc = 0;
	}
	curl_mime_free(m);
	curl_easy_cleanup(dummy);
	rag_buf_free(&b);
	return rc;
}

int rag_batch_create(rag_llm *l, const char *file_id, char **batch_id, char *err, size_t errlen)
{
	jv o = JV_OBJECT(jv_string("input_file_id"), jv_string(file_id),
	                 jv_string("endpoint"), jv_string(rag_llm_batch_endpoint(l)),
	                 jv_string("completion_window"), jv_string("24h"));
	jv d = jv_dump_string(o, 0);
	rag_buf b = {0};
	int rc = -1;
	*batch_id = NULL;
	if (call(l, "batches", jv_string_value(d), NULL, &b, err, errlen) == 0 &&
	    (*batch_id = reply_id(l, &b, "batches", err, errlen)))
		rc = 0;
	jv_free(d);
	rag_buf_free(&b);
	return rc;
}

jv rag_batch_get(rag_llm *l, const char *batch_id, char *err, size_t errlen)
{
	char *what = rag_xasprintf("batches/%s", batch_id);
	rag_buf b = {0};
	jv v = jv_invalid();
	if (call(l, what, NULL, NULL, &b, err, errlen) == 0) {
		rag_llm_scrub(l, b.p);
		v = jv_parse_sized(b.p, (int)b.len);
		if (jv_get_kind(v) != JV_KIND_OBJECT || !*rag_json_str(v, "status", (char[32]){0}, 32)) {
			jv_free(v);
			v = jv_invalid();
			rag_seterr(err, errlen, "%s: the reply is no batch (no \"status\")", what);
		}
	}
	free(what);
	rag_buf_free(&b);
	return v;
}

int rag_batch_content(rag_llm *l, const char *file_id, rag_buf *out, char *err, size_t errlen)
{
	char *what = rag_xasprintf("files/%s/content", file_id);
	int rc = call(l, what, NULL, NULL, out, err, errlen);
	free(what);
	return rc;
}

/* What a line of the output or error file says went wrong (line borrowed), malloc'ed. */
static char *line_error(jv line, long status)
{
	jv e = rag_json_get(jv_copy(line), "error"), resp, body;
	char m[512], c[128];
	if (jv_get_kind(e) == JV_KIND_OBJECT) {
		const char *msg = rag_json_str(e, "message", m, sizeof m), *code = rag_json_str(e, "code", c, sizeof c);
		char *s = rag_xasprintf("the batch %s%s%s", *code ? code : "failed it", *msg ? ": " : "", msg);
		jv_free(e);
		return s;
	}
	jv_free(e);
	resp = rag_json_get(jv_copy(line), "response");
	body = rag_json_get(resp, "body");
	{
		jv d = jv_dump_string(body, 0);
		char *w = rag_wire_error(jv_string_value(d), strlen(jv_string_value(d)), 300);
		char *s = rag_xasprintf("the batch's request answered http %ld%s%s", status, w ? ": " : "", w ? w : "");
		free(w);
		jv_free(d);
		return s;
	}
}

int rag_batch_take(rag_llm *l, const char *text, size_t len, const char *batch_id, rag_usage *u, jv *failed,
                   char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	char id[128], lerr[RAG_ERRLEN];
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = nl ? nl : end;
		jv line = q > p ? jv_parse_sized(p, (int)(q - p)) : jv_invalid();
		p = nl ? nl + 1 : end;
		if (jv_get_kind(line) == JV_KIND_OBJECT && *rag_json_str(line, "custom_id", id, sizeof id)) {
			jv resp = rag_json_get(jv_copy(line), "response");
			double st = rag_json_num(resp, "status_code");
			jv body = rag_json_get(jv_copy(resp), "body");
			jv errv = rag_json_get(jv_copy(line), "error");
			int ok = st == 200 && jv_get_kind(body) == JV_KIND_OBJECT && jv_get_kind(errv) != JV_KIND_OBJECT;
			char *why = NULL;
			if (ok) {
				jv d = jv_dump_string(jv_copy(body), 0);
				if (rag_llm_batch_reply(l, id, jv_string_value(d), strlen(jv_string_value(d)), batch_id, u, lerr,
				                        sizeof lerr) < 0) {
					if (strstr(lerr, "not writable")) {
						rag_seterr(err, errlen, "%s", lerr);
						jv_free(d), jv_free(body), jv_free(resp), jv_free(errv), jv_free(line);
						return -1;
					}
					why = rag_xasprintf("the batch's reply: %s", lerr);
				}
				jv_free(d);
			} else {
				why = line_error(line, isnan(st) ? 0 : (long)st);
			}
			if (why) {
				rag_llm_scrub(l, why);
				*failed = jv_object_set(*failed, jv_string(id), jv_string(why));
				free(why);
			}
			jv_free(body);
			jv_free(resp);
			jv_free(errv);
		}
		jv_free(line);
	}
	return 0;
}
