/* embed.c - the embedder: texts to vectors, through an /embeddings endpoint (rag_llm_embed) or
 * offline (rag_vec_hashed).
 *
 * Records arrive one at a time, but an endpoint is cheapest asked about many texts at once, so
 * the texts of several records are gathered into one batch: it goes out when it holds
 * batch_size texts, when the input has ended, or when the stream's window is full and no request
 * of ours is in flight whose answer would free it (rag_embed_run's fd, stream.h). Never after a
 * delay, nor for a slow reader: the batches are the input's, the same on every run (a batch sent
 * after 200 ms of waiting made one run 2 requests where --estimate and the next run said 1).
 * Each distinct text is embedded once per run: a text asked for again waits for, or reuses, the
 * first answer. */
#include "base.h"
#include "config.h"
#include "usage.h"
#include "offline.h"
#include "llm.h"
#include "stream.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define OFFLINE_DIMS 512
/* Distinct texts whose vectors are kept for reuse once no record needs them any more: past
 * EMBED_KEEP of them, or past EMBED_KEEP_BYTES for all the vectors held (a vector of 1536
 * numbers takes 24 KiB in libjq), a settled vector goes as soon as its last record has it, so
 * memory stays bounded on a long stream (the disk cache still answers a text that comes back). */
#define EMBED_KEEP 2048
#define EMBED_KEEP_BYTES ((size_t)4 << 20)

enum { E_NEW, E_SENT, E_READY, E_FAILED, E_FREE };

typedef struct waiter {
	int n, left;
	int *idx;                 /* entry of each text */
	rag_embed_cb cb;
	void *arg;
} waiter;

typedef struct entry {
	int state;
	jv text;
	jv vec;                   /* E_READY */
	char *error;              /* E_FAILED */
	waiter **w;               /* waiting for this text (a waiter once per text it holds) */
	int nw, cw;
	int refs;                 /* waiters not yet delivered that hold this entry */
} entry;

typedef struct batch {
	rag_embed *e;
	int *idx, n;
} batch;

struct rag_embed {
	int offline;
	char *name;
	rag_cache *cache;
	rag_llm *llm;
	int dims;                 /* offline: vector size; online: the configured size (0: any) */
	int seen_dims;            /* online: the size of the first vector received */
	int batch_size;
	jv index;                 /* text -> entry number */
	entry *ents;
	int nents, cents;
	int *freed, nfreed;       /* E_FREE slots to reuse */
	int live;                 /* entries not E_FREE */
	size_t bytes;             /* what the live entries' texts and vectors take, about */
	int deleted;              /* keys deleted from index since it was last rebuilt */
	long distinct;            /* distinct texts met in the run */
	int *batch, nbatch;
	int inflight;             /* requests sent, not answered yet */
	long texts;               /* texts asked for, duplicates counted */
	int replay;               /* cache replay mode: a miss sends nothing */
	long sent, failed;        /* requests the endpoint saw (retries too); those that gave no vectors */
};

rag_embed *rag_embed_new(const rag_config *cfg, char *notice, size_t noticelen, char *err, size_t errlen)
{
	rag_embed *e = rag_xmalloc(sizeof *e);
	const char *prov = cfg->embeddings.provider && *cfg->embeddings.provider ? cfg->embeddings.provider
	                   : cfg->llm.provider;
	memset(e, 0, sizeof *e);
	notice[0] = 0;
	e->index = jv_object();
	e->batch_size = cfg->embeddings.batch_size > 0 ? cfg->embeddings.batch_size : 64;
	e->batch = rag_xmalloc((size_t)e->batch_size * sizeof *e->batch);
	if (!prov || !*prov) {
		if ((cfg->embeddings.base_url && *cfg->embeddings.base_url) || (cfg->llm.base_url && *cfg->llm.base_url) ||
		    (cfg->embeddings.api_key && *cfg->embeddings.api_key)) {
			prov = "openai";
		} else {
			prov = "offline";
			snprintf(notice, noticelen, "no embeddings endpoint configured; using the offline embedder "
			         "(set embeddings.base_url or llm.base_url in rag.yaml, or RAG_BASE_URL)");
		}
	}
	if (strcmp(prov, "offline") == 0) {
		e->offline = 1;
		e->dims = cfg->embeddings.dimensions > 0 ? cfg->embeddings.dimensions : OFFLINE_DIMS;
		e->name = rag_xstrdup("offline");
		return e;
	}
	if (!rag_config_online(prov)) {
		snprintf(err, errlen, "unknown embedder \"%s\" (known: openai, azure, offline)", prov);
		rag_embed_free(e);
		return NULL;
	}
	if (rag_cache_open_config(cfg, &e->cache, err, errlen) < 0) {
		rag_embed_free(e);
		return NULL;
	}
	e->llm = rag_llm_new(cfg, e->cache, err, errlen);
	if (!e->llm) {
		rag_embed_free(e);
		return NULL;
	}
	e->dims = cfg->embeddings.dimensions;
	e->replay = cfg->cache.mode == RAG_CACHE_REPLAY;
	e->name = rag_xasprintf("openai:%s", rag_llm_embed_model(e->llm));
	return e;
}

const char *rag_embed_name(const rag_embed *e)
{
	return e->name;
}

void rag_embed_stats(const rag_embed *e, long *requests, long *failed, long *texts, long *distinct,
                     long *cache_hits, long *retries)
{
	const rag_usage *u = e->llm ? rag_llm_usage(e->llm) : NULL;
	*requests = e->sent;
	*failed = e->failed;
	*cache_hits = u ? u->cache_hits : 0;
	*retries = u ? u->retries : 0;
	*texts = e->texts;
	*distinct = e->distinct;
}

/* What an entry's text and vector take, about: libjq's 16 bytes a number, and its string. */
static size_t entry_bytes(const entry *en)
{
	size_t n = 64;
	if (jv_get_kind(en->text) == JV_KIND_STRING) n += (size_t)jv_string_length_bytes(jv_copy(en->text)) + 32;
	if (jv_get_kind(en->vec) == JV_KIND_ARRAY) n += (size_t)jv_array_length(jv_copy(en->vec)) * 16 + 32;
	return n;
}

static void evict(rag_embed *e, int k)
{
	entry *en = &e->ents[k];
	size_t b = entry_bytes(en);
	e->bytes = e->bytes > b ? e->bytes - b : 0;
	e->index = jv_object_delete(e->index, jv_copy(en->text));
	jv_free(en->text);
	jv_free(en->vec);
	free(en->error);
	free(en->w);
	memset(en, 0, sizeof *en);
	en->state = E_FREE;
	en->text = jv_null();
	en->vec = jv_null();
	e->freed[e->nfreed++] = k;
	e->live--;
	/* libjq 1.6 never reuses a deleted key's slot and doubles an object when it runs out, so
	 * an index that only ever deletes and adds grows without end: rebuild it from time to time */
	if (++e->deleted >= 4 * EMBED_KEEP) {
		jv fresh = jv_object();
		int i;
		for (i = 0; i < e->nents; i++)
			if (e->ents[i].state != E_FREE)
				fresh = jv_object_set(fresh, jv_copy(e->ents[i].text), jv_number(i));
		jv_free(e->index);
		e->index = fresh;
		e->deleted = 0;
	}
}

static void release(rag_embed *e, int k)
{
	entry *en = &e->ents[k];
	if (--en->refs == 0 && (en->state == E_READY || en->state == E_FAILED) &&
	    (e->live > EMBED_KEEP || e->bytes > EMBED_KEEP_BYTES))
		evict(e, k);
}

/* the waiter's vectors, or its first failure */
static void deliver(rag_embed *e, waiter *w)
{
	jv vecs = jv_array();
	const char *error = NULL;
	int i;
	for (i = 0; i < w->n && !error; i++) {
		entry *en = &e->ents[w->idx[i]];
		if (en->state == E_READY) vecs = jv_array_append(vecs, jv_copy(en->vec));
		else error = en->error ? en->error : "internal error: no vector";
	}
	if (error) {
		jv_free(vecs);
		vecs = jv_null();
	}
	w->cb(w->arg, vecs, error);
	for (i = 0; i < w->n; i++) release(e, w->idx[i]);
	free(w->idx);
	free(w);
}

/* An entry is settled: tell whoever waits for it. */
static void settle(rag_embed *e, int k)
{
	entry *en = &e->ents[k];
	waiter **ws = en->w;
	int i, n = en->nw;
	en->w = NULL;
	en->nw = en->cw = 0;
	for (i = 0; i < n; i++)
		if (--ws[i]->left == 0) deliver(e, ws[i]);
	free(ws);
}

static void fail(rag_embed *e, int k, const char *why)
{
	entry *en = &e->ents[k];
	en->state = E_FAILED;
	en->error = rag_xstrdup(why);
	settle(e, k);
}

static void on_vectors(void *arg, const rag_llm_reply *r)
{
	batch *b = arg;
	rag_embed *e = b->e;
	int i, bad = 0;
	for (i = 0; i < b->n; i++) {
		int k = b->idx[i];
		if (r->error || jv_get_kind(r->vectors) != JV_KIND_ARRAY) {
			fail(e, k, r->error ? r->error : "internal error: no vectors");
			bad = 1;
			continue;
		}
		{
			jv v = jv_array_get(jv_copy(r->vectors), i);
			int d = jv_get_kind(v) == JV_KIND_ARRAY ? jv_array_length(jv_copy(v)) : 0;
			char msg[128];
			if (d <= 0) {
				jv_free(v);
				fail(e, k, "embeddings reply: a vector is missing");
				bad = 1;
				continue;
			}
			if (!e->seen_dims) e->seen_dims = d;
			if (d != e->seen_dims) {
				jv_free(v);
				snprintf(msg, sizeof msg, "dimension mismatch: a vector of %d numbers after vectors of %d",
				         d, e->seen_dims);
				fail(e, k, msg);
				bad = 1;
				continue;
			}
			e->ents[k].state = E_READY;
			e->ents[k].vec = v;
			e->bytes += (size_t)d * 16 + 32;
			settle(e, k);
		}
	}
	/* what the endpoint saw: every attempt of a request not answered from the cache, the
	 * retried ones failed; the last one failed too when it brought no usable vectors */
	if (!r->cached && !e->replay) {
		e->sent += 1 + r->retries;
		e->failed += r->retries + bad;
	}
	e->inflight--;
	free(b->idx);
	free(b);
}

/* Send the gathered texts now. */
static void rag_embed_flush(rag_embed *e)
{
	batch *b;
	jv texts;
	int i;
	if (!e->nbatch) return;
	b = rag_xmalloc(sizeof *b);
	b->e = e;
	b->n = e->nbatch;
	b->idx = rag_xmalloc((size_t)b->n * sizeof *b->idx);
	memcpy(b->idx, e->batch, (size_t)b->n * sizeof *b->idx);
	e->nbatch = 0;
	texts = jv_array();
	for (i = 0; i < b->n; i++) texts = jv_array_append(texts, jv_copy(e->ents[b->idx[i]].text));
	for (i = 0; i < b->n; i++) e->ents[b->idx[i]].state = E_SENT;
	e->inflight++;   /* before: a cached answer comes back inside rag_llm_embed */
	rag_llm_embed(e->llm, texts, on_vectors, b);
}

void rag_embed_texts(rag_embed *e, jv texts, rag_embed_cb cb, void *arg)
{
	waiter *w = rag_xmalloc(sizeof *w);
	int i, n = jv_array_length(jv_copy(texts));
	memset(w, 0, sizeof *w);
	w->cb = cb;
	w->arg = arg;
	w->n = n;
	w->left = 1;              /* held until every text is placed */
	w->idx = rag_xmalloc((size_t)(n ? n : 1) * sizeof *w->idx);
	for (i = 0; i < n; i++) {
		jv t = jv_array_get(jv_copy(texts), i);
		jv known = jv_object_get(jv_copy(e->index), jv_copy(t));
		int k;
		e->texts++;
		if (jv_get_kind(known) == JV_KIND_NUMBER) {
			k = (int)jv_number_value(known);
			jv_free(known);
		} else {
			jv_free(known);
			if (e->nfreed > 0) {
				k = e->freed[--e->nfreed];
			} else {
				if (e->nents == e->cents) {
					e->cents = e->cents ? e->cents * 2 : 64;
					e->ents = rag_xrealloc(e->ents, (size_t)e->cents * sizeof *e->ents);
					e->freed = rag_xrealloc(e->freed, (size_t)e->cents * sizeof *e->freed);
				}
				k = e->nents++;
			}
			e->live++;
			e->distinct++;
			memset(&e->ents[k], 0, sizeof e->ents[k]);
			e->ents[k].vec = jv_null();
			e->ents[k].text = jv_copy(t);
			e->index = jv_object_set(e->index, jv_copy(t), jv_number(k));
			if (e->offline) {
				e->ents[k].state = E_READY;
				e->ents[k].vec = rag_vec_hashed(jv_string_value(t), e->dims);
			}
			e->bytes += entry_bytes(&e->ents[k]);
			if (!e->offline) {
				e->ents[k].state = E_NEW;
				e->batch[e->nbatch++] = k;
			}
		}
		jv_free(t);
		w->idx[i] = k;
		e->ents[k].refs++;
		if (e->ents[k].state == E_NEW || e->ents[k].state == E_SENT) {
			entry *en = &e->ents[k];
			if (en->nw == en->cw) {
				en->cw = en->cw ? en->cw * 2 : 4;
				en->w = rag_xrealloc(en->w, (size_t)en->cw * sizeof *en->w);
			}
			en->w[en->nw++] = w;
			w->left++;
		}
		if (e->nbatch == e->batch_size) rag_embed_flush(e);
	}
	jv_free(texts);
	if (--w->left == 0) deliver(e, w);
}

int rag_embed_run(rag_embed *e, int fd, double timeout)
{
	if (!e->llm) {
		struct pollfd p = {fd, POLLIN, 0};
		return fd >= 0 && poll(&p, 1, (int)(timeout * 1000)) > 0;
	}
	/* no more texts can join the batch: none will come, or none until an answer, and none of
	 * ours is coming. With fd >= 0 or RAG_STREAM_OUTPUT more may come: it waits for them. */
	if (e->nbatch && (fd == RAG_STREAM_ENDED || (fd == RAG_STREAM_FULL && !e->inflight))) rag_embed_flush(e);
	return rag_llm_run(e->llm, fd, timeout);
}

void rag_embed_cancel(rag_embed *e, const char *why)
{
	while (e->nbatch) fail(e, e->batch[--e->nbatch], why);
	if (e->llm) rag_llm_cancel(e->llm, why);
}

void rag_embed_free(rag_embed *e)
{
	int i;
	if (!e) return;
	rag_embed_cancel(e, "shutting down");
	rag_llm_free(e->llm);
	if (e->cache) rag_cache_close(e->cache);
	for (i = 0; i < e->nents; i++) {
		jv_free(e->ents[i].vec);
		jv_free(e->ents[i].text);
		free(e->ents[i].error);
		free(e->ents[i].w);
	}
	free(e->ents);
	free(e->freed);
	free(e->batch);
	jv_free(e->index);
	free(e->name);
	free(e);
}
