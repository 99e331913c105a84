/* prompt.c - prompt templates and the fences that keep record text from speaking to the judge. */
#include "base.h"
#include "config.h"
#include "llm.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *override(const rag_config *cfg, const char *key)
{
	size_t i;
	for (i = 0; i < cfg->prompts.nfiles; i++)
		if (strcmp(cfg->prompts.files[i].key, key) == 0) return cfg->prompts.files[i].value;
	return NULL;
}

char *rag_prompt_load(const rag_config *cfg, const char *name, const char *lang, char *err, size_t errlen)
{
	char key[128], path[4096];
	const char *p;
	const char *langs[2] = {lang, "en"};
	int i;

	snprintf(key, sizeof key, "%s.%s", name, lang);
	if ((p = override(cfg, key)) || (p = override(cfg, name)))
		return rag_read_file(p, NULL, err, errlen);
	for (i = 0; i < 2; i++) {
		if (cfg->prompts.dir) {
			snprintf(path, sizeof path, "%s/%s.%s.txt", cfg->prompts.dir, name, langs[i]);
			if (access(path, R_OK) == 0) return rag_read_file(path, NULL, err, errlen);
		}
		snprintf(path, sizeof path, "%s/prompts/%s.%s.txt", rag_datadir(), name, langs[i]);
		if (access(path, R_OK) == 0) return rag_read_file(path, NULL, err, errlen);
	}
	if (cfg->prompts.dir)
		snprintf(err, errlen, "prompt \"%s\" not found in %s nor in %s/prompts", key, cfg->prompts.dir,
		         rag_datadir());
	else
		snprintf(err, errlen, "prompt \"%s\" not found in %s/prompts (set RAG_DATADIR or prompts.dir)",
		         key, rag_datadir());
	return NULL;
}

/* One pass, left to right: text inserted for a placeholder is never scanned again, so a record
 * that contains "{{text}}" cannot smuggle anything in. */
char *rag_prompt_fill(const char *tmpl, jv vars)
{
	rag_buf b = {0};
	const char *p = tmpl;
	while (*p) {
		const char *open = strstr(p, "{{"), *close;
		if (!open) {
			rag_buf_adds(&b, p);
			break;
		}
		close = strstr(open + 2, "}}");
		if (!close) {
			rag_buf_adds(&b, p);
			break;
		}
		rag_buf_add(&b, p, (size_t)(open - p));
		{
			char *name = rag_xstrndup(open + 2, (size_t)(close - open - 2));
			jv v = jv_object_get(jv_copy(vars), jv_string(name));
			if (jv_get_kind(v) == JV_KIND_STRING)
				rag_buf_adds(&b, jv_string_value(v));
			else
				rag_buf_add(&b, open, (size_t)(close + 2 - open));
			jv_free(v);
			free(name);
		}
		p = close + 2;
	}
	if (!b.p) rag_buf_add(&b, "", 0);
	return b.p;
}

/* The nonce is shared by every block of a request and checked against every text of it: a
 * fence derived from one block's text alone could be carried by another block's text (a context
 * holding the statements' fence), and so appear inside the prompt more than its own two times.
 * Lengths go into the seed so that ["ab","c"] and ["a","bc"] are different requests. The seed
 * may be other texts than those checked: a record's requests seed it with what they all carry,
 * so that they share it, each checked against its own texts. */
static int clashes(jv texts, const char *nonce)
{
	int n = jv_array_length(jv_copy(texts)), i, clash = 0;
	for (i = 0; i < n && !clash; i++) {
		jv s = jv_array_get(jv_copy(texts), i);
		clash = jv_get_kind(s) == JV_KIND_STRING && strstr(jv_string_value(s), nonce) != NULL;
		jv_free(s);
	}
	return clash;
}

/* the nonce seeded by seed_texts and checked against them and texts (both borrowed) */
static void nonce_seeded(jv seed_texts, jv texts, char nonce[RAG_NONCE_LEN])
{
	char hex[65];
	unsigned counter = 0;
	int n = jv_array_length(jv_copy(seed_texts)), i;
	rag_buf seed = {0};
	do {
		seed.len = 0;
		rag_buf_addf(&seed, "%u", counter++);
		for (i = 0; i < n; i++) {
			jv s = jv_array_get(jv_copy(seed_texts), i);
			const char *p = jv_get_kind(s) == JV_KIND_STRING ? jv_string_value(s) : "";
			size_t len = strlen(p);
			rag_buf_addf(&seed, ":%zu:", len);
			rag_buf_add(&seed, p, len);
			jv_free(s);
		}
		rag_sha256_hex(seed.p, seed.len, hex);
		memcpy(nonce, hex, RAG_NONCE_LEN - 1);
		nonce[RAG_NONCE_LEN - 1] = 0;
		/* a text without the nonce holds no TAG-nonce of any tag */
	} while (clashes(seed_texts, nonce) || clashes(texts, nonce));
	rag_buf_free(&seed);
}

void rag_prompt_nonce(jv texts, char nonce[RAG_NONCE_LEN])
{
	nonce_seeded(texts, texts, nonce);
}

/* A record's seed: its question, then all its contexts. */
void rag_prompt_nonce_record(const char *question, jv contexts, jv texts, char nonce[RAG_NONCE_LEN])
{
	jv seed = JV_ARRAY(jv_string(question ? question : ""));
	int n = jv_array_length(jv_copy(contexts)), i;
	for (i = 0; i < n; i++) seed = jv_array_append(seed, jv_array_get(jv_copy(contexts), i));
	nonce_seeded(seed, texts, nonce);
	jv_free(seed);
}

/* The same bytes in every request that carries them: what a prefix cache can serve. */
char *rag_prompt_contexts(jv contexts, int first, int count, int number_from, const char *nonce)
{
	rag_buf b = {0};
	int i;
	for (i = 0; i < count; i++) {
		jv s = jv_array_get(jv_copy(contexts), first + i);
		char *bl = rag_prompt_block("CONTEXT", nonce, jv_get_kind(s) == JV_KIND_STRING ? jv_string_value(s) : "");
		rag_buf_addf(&b, "%sContext %d:\n%s\n", i ? "\n" : "", number_from + i, bl);
		free(bl);
		jv_free(s);
	}
	if (!b.p) rag_buf_add(&b, "", 0);
	return b.p;
}

char *rag_prompt_block(const char *tag, const char *nonce, const char *text)
{
	return rag_xasprintf("<<<%s-%s\n%s\n%s-%s>>>", tag, nonce, text, tag, nonce);
}

jv rag_prompt_blockv(const char *tag, const char *nonce, const char *text)
{
	char *b = rag_prompt_block(tag, nonce, text);
	jv v = jv_string(b);
	free(b);
	return v;
}

char *rag_prompt_one_line(const char *s)
{
	char *o = rag_xstrdup(s), *p;
	for (p = o; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
	return o;
}

int rag_prompt_groups(jv texts, long limit, int **firsts, int **counts)
{
	int n = jv_array_length(jv_copy(texts)), i, g = 0;
	long size = 0;
	*firsts = rag_xmalloc((size_t)(n + 1) * sizeof **firsts);
	*counts = rag_xmalloc((size_t)(n + 1) * sizeof **counts);
	for (i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(texts), i);
		long len = (long)jv_string_length_codepoints(s);
		if (g == 0 || size + len > limit) {
			(*firsts)[g] = i;
			(*counts)[g] = 0;
			g++;
			size = 0;
		}
		(*counts)[g - 1]++;
		size += len;
	}
	return g;
}
