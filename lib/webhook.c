/* webhook.c - a JSON document POSTed to a webhook (llm.h; rag-gate --window --webhook): one
 * libcurl request, set as llm.c sets its own (no redirect followed, no signal, a timeout, the
 * project's User-Agent), http and https only. A webhook URL is a secret in itself (a chat
 * service's hook carries its token in the path or the query, a user's password before the host):
 * what the messages show of it is its scheme, host and port alone (shown_url). */
#include "base.h"
#include "llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int rag_webhook_post(const char *url, const char *json, long timeout_ms, char *err, size_t errlen)
{
	static int global_init;
	CURL *e;
	struct curl_slist *h = NULL;
	char cerr[CURL_ERROR_SIZE] = "";
	char *shown = shown_url(url);
	long status = 0;
	CURLcode rc;
	int ret = -1;
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
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "ragpipe/" RAG_VERSION);
	rc = curl_easy_perform(e);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK)
		/* libcurl's message may name the URL's host, never its path or user: the host is shown anyway */
		rag_seterr(err, errlen, "webhook %s: %s", shown, *cerr ? cerr : curl_easy_strerror(rc));
	else if (status < 200 || status > 299)
		rag_seterr(err, errlen, "webhook %s: http %ld", shown, status);
	else
		ret = 0;
	curl_slist_free_all(h);
	curl_easy_cleanup(e);
	free(shown);
	return ret;
init:
	rag_seterr(err, errlen, "webhook %s: cannot initialise libcurl", shown);
	free(shown);
	return -1;
}
