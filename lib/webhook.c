/* webhook.c - a JSON document POSTed to a webhook (llm.h; rag-gate --window --webhook): libcurl
 * requests, set as llm.c sets its own (no redirect followed, no signal, a timeout, the project's
 * User-Agent), http and https only, tried again after a transient failure (a 429, a 5xx, no
 * reply) with a backoff or the server's Retry-After. A webhook URL is a secret in itself (a chat
 * service's hook carries its token in the path or the query, a user's password before the host):
 * what the messages show of it is its scheme, host and port alone (shown_url). */
#include "base.h"
#include "llm.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

/* what may be shown of url: "https://host:port/...", malloc'ed */
static char *shown_url(const char *url)
{
	const char *host = strstr(url, "://"), *end, *at;
	if (!host) return rag_xstrdup("(a webhook URL)");
	host += 3;
	end = host + strcspn(host, "/?#");
	at = memchr(host, '@', (size_t)(end - host));
	while (at) {   /* the last '@' before the path ends the user's part */
		host = at + 1;
		at = memchr(host, '@', (size_t)(end - host));
	}
	return rag_xasprintf("%.*s%.*s/...", (int)(strstr(url, "://") + 3 - url), url, (int)(end - host), host);
}

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

/* no reply that says anything: worth another try (a refused or cut connection, a timeout, a
 * name not resolved for now); a bad URL or a certificate is not */
static int transient_curl(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_CONNECT: case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR: case CURLE_RECV_ERROR: case CURLE_GOT_NOTHING: case CURLE_PARTIAL_FILE:
		return 1;
	default:
		return 0;
	}
}

/* One attempt: 0 on a 2xx; else -1, err set, *again when another try may do better and *wait the
 * reply's Retry-After (seconds, 0: none) */
static int attempt(CURL *e, const char *shown, int *again, double *wait, char *err, size_t errlen)
{
	char cerr[CURL_ERROR_SIZE] = "";
	long status = 0;
	curl_off_t ra = 0;
	CURLcode rc;
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, cerr);
	rc = curl_easy_perform(e);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, NULL);   /* cerr ends with this call; the handle lives on */
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	*again = 0;
	*wait = 0;
	if (rc != CURLE_OK) {
		/* libcurl's message may name the URL's host, never its path or user: the host is shown anyway */
		rag_seterr(err, errlen, "webhook %s: %s", shown, *cerr ? cerr : curl_easy_strerror(rc));
		*again = transient_curl(rc);
		return -1;
	}
	if (status >= 200 && status <= 299) return 0;
	rag_seterr(err, errlen, "webhook %s: http %ld", shown, status);
	*again = status == 429 || status >= 500;
	if (curl_easy_getinfo(e, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0) *wait = (double)ra;
	return -1;
}

/* secs of sleep; 0, or -1 when a signal cut it short (the user wants out: no more tries) */
static int pause_for(double secs)
{
	struct timespec ts;
	if (secs <= 0) return 0;
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - floor(secs)) * 1e9);
	return nanosleep(&ts, NULL) == 0 || errno != EINTR ? 0 : -1;
}

int rag_webhook_post(const char *url, const char *json, const rag_webhook_opts *o, char *err, size_t errlen)
{
	static int global_init;
	CURL *e;
	struct curl_slist *h = NULL;
	char *shown = shown_url(url);
	int ret = -1, n = 0, again = 0, tries = o->tries > 1 ? o->tries : 1;
	double backoff = o->backoff, wait = 0;
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		rag_seterr(err, errlen, "webhook %s: not an http or https URL", shown);
		free(shown);
		return -1;
	}
	if (!global_init && curl_global_init(CURL_GLOBAL_DEFAULT) != 0) goto init;
	global_init = 1;
	if (!(e = curl_easy_init())) goto init;
	h = curl_slist_append(NULL, "Content-Type: application/json");
	h = curl_slist_append(h, "Expect:");
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(json));
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);   /* never sent on to another host */
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, o->timeout_ms);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "ragpipe/" RAG_VERSION);
	for (;;) {
		n++;
		ret = attempt(e, shown, &again, &wait, err, errlen);
		if (!ret || !again || n >= tries) break;
		if (wait > o->retry_after_max) wait = o->retry_after_max;
		if (pause_for(wait > backoff ? wait : backoff) < 0) break;
		backoff *= 2;
	}
	if (ret && n > 1 && err) {
		size_t len = strlen(err);
		snprintf(err + len, errlen - len, " (%d tries)", n);
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(e);
	free(shown);
	return ret;
init:
	rag_seterr(err, errlen, "webhook %s: cannot initialise libcurl", shown);
	free(shown);
	return -1;
}
