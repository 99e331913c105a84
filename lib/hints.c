/* hints.c - what a failed check means and where to look: the failure hints of rag-gate, read
 * from share/hints/<lang>.txt (the texts live there, not in the code) and matched against the
 * metrics a summary says failed, retrieval first. A judge or the service that failed is its own
 * hint, first (the outage and outage_service entries), never advice about the system: when it
 * left more than half of the run unscored, the only one. */
#include "base.h"
#include "gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jv rag_hints_load(const char *lang, char *err, size_t errlen)
{
	char path[4096], *text, *line, *save = NULL;
	jv hints = jv_object();
	int lineno = 0;
	snprintf(path, sizeof path, "%s/hints/%s.txt", rag_datadir(), lang);
	if (!(text = rag_read_file(path, NULL, err, errlen))) {
		jv_free(hints);
		return jv_invalid();
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon, *v, *end;
		lineno++;
		while (*line == ' ' || *line == '\t') line++;
		if (!*line || *line == '#') continue;
		colon = strchr(line, ':');
		if (!colon || colon == line) {
			snprintf(err, errlen, "%s: an entry is \"METRIC: text\", not \"%.40s\"", path, line);
			free(text);
			jv_free(hints);
			return jv_invalid();
		}
		*colon = 0;
		for (end = colon; end > line && (end[-1] == ' ' || end[-1] == '\t'); end--) end[-1] = 0;
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		for (end = v + strlen(v); end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'); end--) end[-1] = 0;
		if (*v) hints = jv_object_set(hints, jv_string(line), jv_string(v));
	}
	(void)lineno;
	free(text);
	return hints;
}

/* retrieval first: its metrics' hints come before those of the generation */
static const char *const first[] = {
	"context_recall", "context_precision", "context_utilization", "faithfulness", "groundedness_0_10",
	"answer_relevancy", "relevance",
};
#define NFIRST (sizeof first / sizeof first[0])

static int has(jv list, const char *name)
{
	int found = 0;
	jv_array_foreach(list, i, v) {
		if (!found && jv_get_kind(v) == JV_KIND_STRING && !strcmp(jv_string_value(v), name)) found = 1;
		jv_free(v);
		(void)i;
	}
	jv_free(list);
	return found;
}

/* a hint {metrics, hint, key}: key, the entry of share/hints/<lang>.txt its text is, says it
 * again in another language (rag_hints_texts) */
static jv hint(jv out, jv metrics, const char *key, const char *text)
{
	return jv_array_append(out, JV_OBJECT(jv_string("metrics"), metrics, jv_string("hint"), jv_string(text),
	                                      jv_string("key"), jv_string(key)));
}

/* text with {n}, {records} ("1 record", "2 records") and {error} replaced: into a new string */
static char *fill(const char *text, long n, const char *error)
{
	rag_buf b = {0};
	const char *p;
	for (p = text; *p; p++) {
		if (!strncmp(p, "{n}", 3)) rag_buf_addf(&b, "%ld", n), p += 2;
		else if (!strncmp(p, "{records}", 9)) rag_buf_addf(&b, "%ld record%s", n, n == 1 ? "" : "s"), p += 8;
		else if (!strncmp(p, "{error}", 7)) rag_buf_adds(&b, error), p += 6;
		else rag_buf_addf(&b, "%c", *p);
	}
	return b.p ? b.p : rag_xstrdup("");
}

/* the outage's hint (summary borrowed): the judge's or the service's, with the first error */
static jv outage_hint(jv out, jv summary, jv hints, long n)
{
	jv e = rag_json_get(jv_copy(summary), "remote_error"), text;
	char tool[128], msg[600], err[800], *line;
	int service;
	rag_json_str(e, "tool", tool, sizeof tool);
	rag_json_str(e, "message", msg, sizeof msg);
	jv_free(e);
	service = !strcmp(tool, "rag-collect");
	snprintf(err, sizeof err, "%s%s%s", tool, *tool ? ": " : "", msg);
	text = jv_get_kind(hints) == JV_KIND_OBJECT ? jv_object_get(jv_copy(hints), jv_string(service ? "outage_service" : "outage"))
	                                            : jv_invalid();
	if (jv_get_kind(text) == JV_KIND_STRING) {
		line = fill(jv_string_value(text), n, err);
		out = jv_array_append(out, JV_OBJECT(jv_string("metrics"), jv_array(), jv_string("kind"), jv_string("outage"),
		                                     jv_string("hint"), jv_string(line),
		                                     jv_string("key"), jv_string(service ? "outage_service" : "outage"),
		                                     jv_string("args"), JV_OBJECT(jv_string("n"), jv_number((double)n),
		                                                                  jv_string("error"), jv_string(err))));
		free(line);
	}
	jv_free(text);
	return out;
}

jv rag_hints_apply(jv summary, jv hints)
{
	jv failed = jv_array(), ordered = jv_array(), out = jv_array(), ms = rag_json_get(jv_copy(summary), "metrics");
	double remote = rag_json_num(summary, "remote_failed"), records = rag_json_num(summary, "records");
	int dead = remote > 0 && 2 * remote > records;   /* what was scored says nothing of the system */
	size_t k;
	if (remote > 0) out = outage_hint(out, summary, hints, (long)remote);
	jv_array_foreach(ms, i, m) {
		jv name = rag_json_get(jv_copy(m), "metric");
		if (!dead && rag_json_true(m, "gate_failed") && jv_get_kind(name) == JV_KIND_STRING) failed = jv_array_append(failed, jv_copy(name));
		jv_free(name);
		jv_free(m);
		(void)i;
	}
	jv_free(ms);
	for (k = 0; k < NFIRST; k++)
		if (has(jv_copy(failed), first[k])) ordered = jv_array_append(ordered, jv_string(first[k]));
	jv_array_foreach(failed, i, name) {
		if (!has(jv_copy(ordered), jv_string_value(name))) ordered = jv_array_append(ordered, jv_copy(name));
		jv_free(name);
		(void)i;
	}
	/* the advice for metrics failing together ("a+b") first */
	if (jv_get_kind(hints) == JV_KIND_OBJECT) {
		jv_object_foreach(hints, key, text) {
			const char *kk = jv_string_value(key);
			if (strchr(kk, '+')) {
				jv parts = jv_string_split(jv_copy(key), jv_string("+")), names = jv_array();
				int all = jv_array_length(jv_copy(parts)) > 1;
				jv_array_foreach(parts, i, p) {
					if (!has(jv_copy(failed), jv_string_value(p))) all = 0;
					names = jv_array_append(names, p);
					(void)i;
				}
				jv_free(parts);
				if (all) out = hint(out, names, kk, jv_string_value(text));
				else jv_free(names);
			}
			jv_free(key);
			jv_free(text);
		}
		jv_array_foreach(ordered, i, name) {
			jv text = jv_object_get(jv_copy(hints), jv_copy(name));
			if (jv_get_kind(text) == JV_KIND_STRING)
				out = hint(out, JV_ARRAY(jv_copy(name)), jv_string_value(name), jv_string_value(text));
			jv_free(text);
			jv_free(name);
			(void)i;
		}
	}
	jv_free(failed);
	jv_free(ordered);
	return jv_object_set(summary, jv_string("hints"), out);
}

jv rag_hints_texts(jv summary, jv hints, const char *lang)
{
	jv list = rag_json_get(jv_copy(summary), "hints"), out = jv_array();
	if (jv_get_kind(list) != JV_KIND_ARRAY || jv_get_kind(hints) != JV_KIND_OBJECT) {
		jv_free(list);
		jv_free(out);
		return summary;
	}
	jv_array_foreach(list, i, h) {
		jv key = rag_json_get(jv_copy(h), "key"), args = rag_json_get(jv_copy(h), "args"), text = jv_invalid();
		if (jv_get_kind(key) == JV_KIND_STRING) text = jv_object_get(jv_copy(hints), jv_copy(key));
		if (jv_get_kind(text) == JV_KIND_STRING) {
			char e[800], *line;
			jv texts = rag_json_get(jv_copy(h), "texts");
			rag_json_str(args, "error", e, sizeof e);
			line = fill(jv_string_value(text), (long)rag_json_num(args, "n"), e);
			if (jv_get_kind(texts) != JV_KIND_OBJECT) texts = (jv_free(texts), jv_object());
			h = jv_object_set(h, jv_string("texts"), jv_object_set(texts, jv_string(lang), jv_string(line)));
			free(line);
		}
		out = jv_array_append(out, h);
		jv_free(key);
		jv_free(args);
		jv_free(text);
		(void)i;
	}
	jv_free(list);
	return jv_object_set(summary, jv_string("hints"), out);
}
