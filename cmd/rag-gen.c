/* rag-gen - a test set from your documents: text and Markdown files (or JSON Lines chunks) cut
 * into chunks (lib/chunk.c), per chunk N questions with their reference answers asked of a model
 * (lib/gen.c), near-duplicates dropped, one test case a line on stdout. Without an endpoint, an
 * extractive generator that every record names (generator "offline"). It is a source, not a
 * filter: it reads documents, not records, so it drives the judge itself rather than the stream;
 * it says on stderr what every document gave, and why a document gave none. */
#include "tool.h"
#include "gen-tool.h"
#include "base.h"
#include "usage.h"
#include "record.h"
#include "judge.h"
#include "gen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage[] =
	"Usage: rag-gen [OPTIONS] FILE... > testset.jsonl\n"
	"       rag-gen [OPTIONS] --chunks CHUNKS.jsonl > testset.jsonl\n"
	"       rag-gen --check TESTSET\n"
	"       rag-gen --apply-review SHEET TESTSET > reviewed.jsonl\n"
	"A test set from documents: each text or Markdown FILE cut into chunks by headings and\n"
	"paragraphs (or the chunks {id, text} of CHUNKS.jsonl), N questions a chunk with a reference\n"
	"answer, difficulty and type, written one case a line (rag-gen(1)). Without an LLM endpoint the\n"
	"cases are extractive and marked generator \"offline\".\n";

enum { OPT_CHUNK_CHARS = RAG_OPT_TOOL, OPT_CHUNKS, OPT_CATEGORY, OPT_DEDUP, OPT_UNANSWERABLE, OPT_NOISY,
       OPT_MULTI_HOP, OPT_FOLLOW_UP, OPT_REVIEW, OPT_APPLY_REVIEW, OPT_CHECK, OPT_JSON };

static const rag_opt options[] = {
	{"per-chunk", 'n', 'n', "N", NULL, "questions a chunk (default 5: 2 easy, 2 medium, 1 hard)"},
	{"chunk-chars", 0, OPT_CHUNK_CHARS, "N", NULL, "characters a chunk holds at most (default 1500)"},
	{"chunks", 0, OPT_CHUNKS, "FILE", RAG_ARG_FILE, "read the chunks {id, text} from FILE (JSON Lines)"},
	{"category", 0, OPT_CATEGORY, "NAME", NULL, "every case's category (default: the file's first heading\n"
	 "or its name)"},
	{"dedup", 0, OPT_DEDUP, "X", NULL, "drop a question this similar to an earlier one (token\n"
	 "Jaccard, default 0.8; 1: exact duplicates only)"},
	{"unanswerable", 0, OPT_UNANSWERABLE, "X", NULL, "share of questions the documents cannot answer, marked\n"
	 "expect \"refusal\" (gen.unanswerable, default 0.1)"},
	{"noisy", 0, OPT_NOISY, "X", NULL, "share of real questions reworded with typos or colloquially\n"
	 "(gen.noisy, default 0.1)"},
	{"multi-hop", 0, OPT_MULTI_HOP, "X", NULL, "share of questions that need two chunks (gen.multi_hop,\n"
	 "default 0.1)"},
	{"follow-up", 0, OPT_FOLLOW_UP, "X", NULL, "share of second turns that refer to a first, with history\n"
	 "(gen.follow_up, default 0.1)"},
	{"review", 0, OPT_REVIEW, "FILE", RAG_ARG_FILE, "also write the review sheet of the cases to FILE: CSV\n"
	 "when it ends in .csv, else Markdown (keep/drop/fix a row)"},
	{"apply-review", 0, OPT_APPLY_REVIEW, "FILE", RAG_ARG_FILE, "apply the edited sheet FILE to the operand TESTSET:\n"
	 "the reviewed set on stdout"},
	{"check", 0, OPT_CHECK, "TESTSET", RAG_ARG_FILE, "check a test set: counts, duplicates, missing references\n"
	 "or relevant ids, missing hard cases (exit 1 when found)"},
	{"json", 0, OPT_JSON, NULL, NULL, "--check: the findings as one JSON object on stdout"},
	RAG_OPT_END
};

typedef struct chunk {
	char *id, *text, *source, *category, *title;
	char *section;            /* its heading, else its category: what a multi-hop question names */
	const char *lang;
	int doc;                  /* its document's index */
	jv cases;                 /* the generated cases, or null */
	char *error;              /* why it gave none */
	int remote;               /* the error is the judge's */
} chunk;

typedef struct doc {
	char *name;
	char *error;              /* why it gave no chunk at all */
	int chunks, cases;
} doc;

typedef struct hard {
	int kind;                 /* RAG_GEN_* */
	int a, b;                 /* its chunks (b: a multi-hop's second), or -1 */
	int base;                 /* the case it rewords or follows, in set, or -1 */
	char *term;               /* a multi-hop pair's shared term */
	jv result;                /* {question, reference}, or null */
	char *error;
	int remote;
} hard;

typedef struct gen {
	rag_cli *cli;
	chunk *c; size_t nc;
	doc *d; size_t nd;
	int per_chunk;
	long chunk_chars;
	const char *category;
	double dedup;
	int pending;
	rag_usage usage;
	int data_errors;
	double share[RAG_GEN_NKINDS];   /* the hard cases' shares of the set */
	jv set;                   /* the cases kept, in chunk order */
	int *setchunk, nbase;     /* each one's chunk, how many */
	int ndiff[3], ntype[3], from, dropped, remote;
	hard *h; size_t nh;       /* the hard cases planned */
	int asked[RAG_GEN_NKINDS];
	const char *short_why[RAG_GEN_NKINDS];   /* why a kind has fewer than its share */
	const char *review;       /* --review FILE */
} gen;

static void add_chunk(gen *g, int d, const char *id, const char *text, const char *source, const char *category,
                      const char *title)
{
	chunk *c;
	g->c = rag_xrealloc(g->c, (g->nc + 1) * sizeof *g->c);
	c = &g->c[g->nc++];
	memset(c, 0, sizeof *c);
	c->id = rag_xstrdup(id);
	c->text = rag_xstrdup(text);
	c->source = rag_xstrdup(source);
	c->category = rag_xstrdup(g->category ? g->category : category);
	c->title = rag_xstrdup(title);
	c->section = rag_xstrdup(c->category);
	c->lang = rag_cli_lang(g->cli, text);
	c->doc = d;
	c->cases = jv_null();
	g->d[d].chunks++;
}

static int add_doc(gen *g, const char *name)
{
	g->d = rag_xrealloc(g->d, (g->nd + 1) * sizeof *g->d);
	memset(&g->d[g->nd], 0, sizeof *g->d);
	g->d[g->nd].name = rag_xstrdup(name);
	return (int)g->nd++;
}

/* A text or Markdown file into chunks. */
static int read_document(gen *g, const char *path)
{
	char err[RAG_ERRLEN], *text, *title = NULL;
	const char *base = strrchr(path, '/');
	size_t len;
	int d, k, n;
	jv chunks;
	FILE *f;
	int rc = rag_cli_open(g->cli, path, "r", &f);
	if (rc) return rc;
	fclose(f);
	if (!(text = rag_read_file(path, &len, err, sizeof err))) {
		rag_msg(g->cli->prog, "error", "%s", err);
		return RAG_EXIT_USAGE;
	}
	d = add_doc(g, path);
	if (strlen(text) != len) {
		g->d[d].error = rag_xstrdup("it holds NUL bytes: not a text file");
		free(text);
		return 0;
	}
	chunks = rag_gen_chunk_split(path, text, g->chunk_chars, &title);
	n = jv_array_length(jv_copy(chunks));
	if (!n) g->d[d].error = rag_xstrdup("it has no text");
	for (k = 0; k < n; k++) {
		jv c = jv_array_get(jv_copy(chunks), k);
		jv id = jv_object_get(jv_copy(c), jv_string("id")), tx = jv_object_get(jv_copy(c), jv_string("text"));
		jv hd = jv_object_get(c, jv_string("heading"));
		const char *name = title ? title : base ? base + 1 : path;
		add_chunk(g, d, jv_string_value(id), jv_string_value(tx), path, name, name);
		if (jv_get_kind(hd) == JV_KIND_STRING && *jv_string_value(hd) && !g->category) {
			free(g->c[g->nc - 1].section);
			g->c[g->nc - 1].section = rag_xstrdup(jv_string_value(hd));
		}
		jv_free(hd);
		jv_free(id);
		jv_free(tx);
	}
	jv_free(chunks);
	free(title);
	free(text);
	return 0;
}

/* The chunks of a JSON Lines file, {id, text} and optional category, source; a line without
 * them is a data error, named, and the others go on. */
static int read_chunks(gen *g, const char *path)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long no = 0;
	int d, rc = rag_cli_open(g->cli, path, "r", &f);
	if (rc) return rc;
	d = add_doc(g, path);
	while ((n = getline(&line, &cap, f)) > 0) {
		jv v, id, tx;
		const char *why = NULL;
		no++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
		if (!n) continue;
		v = jv_parse(line);
		if (!jv_is_valid(v) || jv_get_kind(v) != JV_KIND_OBJECT) {
			why = "not a JSON object";
			jv_free(v);
			v = jv_object();
		}
		id = jv_object_get(jv_copy(v), jv_string("id"));
		tx = jv_object_get(jv_copy(v), jv_string("text"));
		if (jv_get_kind(id) == JV_KIND_NUMBER) {
			char *s = rag_json_id(id);
			jv_free(id);
			id = jv_string(s);
			free(s);
		}
		if (!why && (jv_get_kind(id) != JV_KIND_STRING || !*jv_string_value(id))) why = "no \"id\"";
		if (!why && (jv_get_kind(tx) != JV_KIND_STRING || !*jv_string_value(tx))) why = "no \"text\"";
		if (why) {
			rag_msg(g->cli->prog, "error", "(at %s:%ld) %s", path, no, why);
			g->data_errors++;
		} else {
			char cb[256], sb[1024];
			const char *cat = rag_json_str(v, "category", cb, sizeof cb);
			const char *src = rag_json_str(v, "source", sb, sizeof sb);
			add_chunk(g, d, jv_string_value(id), jv_string_value(tx), *src ? src : path, *cat ? cat : path, "");
		}
		jv_free(id);
		jv_free(tx);
		jv_free(v);
	}
	free(line);
	fclose(f);
	if (!g->d[d].chunks) g->d[d].error = rag_xstrdup("it has no chunk with an id and a text");
	return 0;
}

typedef struct ask { gen *g; chunk *c; } ask;

static void answered(void *arg, jv result, const char *error)
{
	ask *a = arg;
	chunk *c = a->c;
	if (error) {
		c->error = rag_xstrdup(error);
		c->remote = 1;
		jv_free(result);
	} else {
		c->cases = result;
	}
	a->g->pending--;
	free(a);
}

static void generate(gen *g)
{
	rag_judge *j = g->cli->judge;
	size_t i;
	for (i = 0; i < g->nc; i++) {
		chunk *c = &g->c[i];
		if (rag_judge_offline(j)) {
			c->cases = rag_gen_offline(c->text, g->per_chunk);
			if (!jv_array_length(jv_copy(c->cases)))
				c->error = rag_xstrdup("the offline generator found no statement of four words or more");
			continue;
		}
		ask *a = rag_xmalloc(sizeof *a);
		a->g = g;
		a->c = c;
		g->pending++;
		rag_gen_ask(j, c->lang, c->title, c->text, g->per_chunk, &g->usage, answered, a);
	}
	while (g->pending > 0) {
		if (rag_tool_interrupted) rag_judge_cancel(j, "interrupted before the judge answered");
		rag_judge_run(j, -1, 0.5);
	}
}

/* The cases in chunk order, near-duplicates of earlier ones dropped, into g->set. */
static void collect(gen *g)
{
	static const char *const diffs[] = {"easy", "medium", "hard"}, *const types[] = {"factual", "explanatory", "comparative"};
	rag_strv kept = {0};
	const char *genname = rag_judge_name(g->cli->judge);
	size_t i, q;
	int k, n, m;

	g->set = jv_array();
	for (i = 0; i < g->nc; i++) {
		chunk *c = &g->c[i];
		int made = 0;
		if (jv_get_kind(c->cases) != JV_KIND_ARRAY) {
			g->remote += c->remote;
			continue;
		}
		n = jv_array_length(jv_copy(c->cases));
		for (k = 0; k < n; k++) {
			jv cs = jv_array_get(jv_copy(c->cases), k), rec;
			/* the texts whole, never cut to a buffer (the check made them strings) */
			jv qv = jv_object_get(jv_copy(cs), jv_string("question"));
			jv rv = jv_object_get(jv_copy(cs), jv_string("reference"));
			char db[16], tb[32], *id;
			const char *qt = jv_string_value(qv);
			int dup = 0;
			for (q = 0; q < kept.n && !dup; q++) dup = rag_gen_similarity(qt, kept.v[q]) >= g->dedup;
			if (dup) {
				g->dropped++;
				jv_free(qv);
				jv_free(rv);
				jv_free(cs);
				continue;
			}
			rag_strv_push(&kept, rag_xstrdup(qt));
			id = rag_gen_id(qt, c->id);
			rag_json_str(cs, "difficulty", db, sizeof db);
			rag_json_str(cs, "type", tb, sizeof tb);
			for (m = 0; m < 3; m++) {
				if (!strcmp(db, diffs[m])) g->ndiff[m]++;
				if (!strcmp(tb, types[m])) g->ntype[m]++;
			}
			rec = JV_OBJECT(jv_string("id"), jv_string(id), jv_string("question"), jv_string(qt),
			                jv_string("reference"), rv,
			                jv_string("relevant_ids"), JV_ARRAY(jv_string(c->id)),
			                jv_string("reference_contexts"), JV_ARRAY(jv_string(c->text)));
			rec = jv_object_set(rec, jv_string("difficulty"), jv_string(db));
			rec = jv_object_set(rec, jv_string("type"), jv_string(tb));
			rec = jv_object_set(rec, jv_string("category"), jv_string(c->category));
			rec = jv_object_set(rec, jv_string("source"), jv_string(c->source));
			rec = jv_object_set(rec, jv_string("lang"), jv_string(c->lang));
			rec = jv_object_set(rec, jv_string("generator"), jv_string(genname));
			g->set = jv_array_append(g->set, rec);
			g->setchunk = rag_xrealloc(g->setchunk, (size_t)(g->nbase + 1) * sizeof *g->setchunk);
			g->setchunk[g->nbase++] = (int)i;
			free(id);
			jv_free(qv);
			jv_free(cs);
			made++;
		}
		if (made) g->from++;
		else if (!c->error) c->error = rag_xstrdup("every question was a near-duplicate of an earlier one");
		g->d[c->doc].cases += made;
	}
	rag_strv_free(&kept);
}

/* ---------------------------------------------------------------- hard cases */

static int count_of(double share, int base)
{
	int n = (int)(share * base + 0.5);
	return share > 0 && base > 0 && n < 1 ? 1 : n;
}

static void add_hard(gen *g, int kind, int a, int b, int base, const char *term)
{
	hard *h;
	g->h = rag_xrealloc(g->h, (g->nh + 1) * sizeof *g->h);
	h = &g->h[g->nh++];
	memset(h, 0, sizeof *h);
	h->kind = kind;
	h->a = a;
	h->b = b;
	h->base = base;
	h->term = term ? rag_xstrdup(term) : NULL;
	h->result = jv_null();
	g->asked[kind]++;
}

/* what each kind of hard case is made from, chosen by a rule, never by chance */
static void plan_hard(gen *g)
{
	int n, i, k;
	size_t x, y, npairs = 0, lim = g->nc < 200 ? g->nc : 200;
	struct pair { int a, b, shared; char *term; } *pairs = NULL;
	int *follow = NULL, nfollow = 0;

	/* unanswerable: about the subject of chunks spread over the set */
	n = g->nc ? count_of(g->share[RAG_GEN_UNANSWERABLE], g->nbase) : 0;
	for (i = 0; i < n; i++) add_hard(g, RAG_GEN_UNANSWERABLE, (int)((size_t)i * g->nc / (size_t)n), -1, -1, NULL);
	/* noisy: real questions spread over the set */
	n = count_of(g->share[RAG_GEN_NOISY], g->nbase);
	for (i = 0; i < n && g->nbase; i++) add_hard(g, RAG_GEN_NOISY, -1, -1, i * g->nbase / n, NULL);
	/* multi-hop: the pairs of chunks that share the most terms */
	for (x = 0; x < lim; x++)
		for (y = x + 1; y < lim; y++) {
			char *term;
			int sh = rag_gen_shared(g->c[x].text, g->c[y].text, &term);
			if (!sh) continue;
			pairs = rag_xrealloc(pairs, (npairs + 1) * sizeof *pairs);
			pairs[npairs].a = (int)x;
			pairs[npairs].b = (int)y;
			pairs[npairs].shared = sh;
			pairs[npairs++].term = term;
		}
	n = count_of(g->share[RAG_GEN_MULTI_HOP], g->nbase);
	for (i = 0; i < n; i++) {
		size_t best = npairs;
		for (x = 0; x < npairs; x++)
			if (pairs[x].shared > 0 && (best == npairs || pairs[x].shared > pairs[best].shared)) best = x;
		if (best == npairs) {
			g->short_why[RAG_GEN_MULTI_HOP] = "no two chunks share a term";
			break;
		}
		add_hard(g, RAG_GEN_MULTI_HOP, pairs[best].a, pairs[best].b, -1, pairs[best].term);
		pairs[best].shared = 0;
	}
	for (x = 0; x < npairs; x++) free(pairs[x].term);
	free(pairs);
	/* follow-up: a case of a chunk, then the chunk's next */
	for (k = 0; k + 1 < g->nbase; k++)
		if (g->setchunk[k] == g->setchunk[k + 1]) {
			follow = rag_xrealloc(follow, (size_t)(nfollow + 1) * sizeof *follow);
			follow[nfollow++] = k;
		}
	n = count_of(g->share[RAG_GEN_FOLLOW_UP], g->nbase);
	if (n > nfollow) {
		if (n) g->short_why[RAG_GEN_FOLLOW_UP] = "too few chunks with two cases";
		n = nfollow;
	}
	for (i = 0; i < n; i++) add_hard(g, RAG_GEN_FOLLOW_UP, -1, -1, follow[(size_t)i * (size_t)nfollow / (size_t)n], NULL);
	free(follow);
}

static const char *base_str(gen *g, int base, const char *field, jv *keep)
{
	*keep = jv_object_get(jv_array_get(jv_copy(g->set), base), jv_string(field));
	return jv_get_kind(*keep) == JV_KIND_STRING ? jv_string_value(*keep) : "";
}

typedef struct hask { gen *g; hard *h; } hask;

static void hard_answered(void *arg, jv result, const char *error)
{
	hask *a = arg;
	if (error) {
		a->h->error = rag_xstrdup(error);
		a->h->remote = 1;
		jv_free(result);
	} else {
		a->h->result = result;
	}
	a->g->pending--;
	free(a);
}

/* the offline rules of rag-gen(1) HARD CASES */
static void hard_offline(gen *g, hard *h, const char *corpus)
{
	jv kq, kr;
	char *q;
	switch (h->kind) {
	case RAG_GEN_UNANSWERABLE:
		q = rag_gen_offline_unanswerable(g->c[h->a].title && *g->c[h->a].title ? g->c[h->a].title : g->c[h->a].category,
		                                 g->c[h->a].lang, corpus, (int)(h - g->h));
		if (q) h->result = JV_OBJECT(jv_string("question"), jv_string(q), jv_string("reference"), jv_string(""));
		else h->error = rag_xstrdup("the documents name every attribute the offline rule asks about");
		free(q);
		break;
	case RAG_GEN_NOISY:
		q = rag_gen_noisy(base_str(g, h->base, "question", &kq));
		h->result = JV_OBJECT(jv_string("question"), jv_string(q), jv_string("reference"), jv_string(""));
		free(q);
		jv_free(kq);
		break;
	case RAG_GEN_MULTI_HOP:
		h->result = rag_gen_offline_multihop(h->term, g->c[h->a].section, g->c[h->a].text, g->c[h->b].section,
		                                     g->c[h->b].text);
		if (jv_get_kind(h->result) == JV_KIND_NULL) h->error = rag_xstrdup("no sentence of a chunk holds the shared term");
		break;
	case RAG_GEN_FOLLOW_UP:
		h->result = JV_OBJECT(jv_string("question"), jv_string(rag_gen_offline_followup(g->c[g->setchunk[h->base]].lang)),
		                      jv_string("reference"), jv_string(base_str(g, h->base + 1, "reference", &kr)));
		jv_free(kr);
		break;
	}
}

static void generate_hard(gen *g)
{
	rag_judge *j = g->cli->judge;
	rag_buf corpus = {0};
	size_t i, k;
	int nth;
	for (i = 0; i < g->nc && rag_judge_offline(j); i++) rag_buf_addf(&corpus, "%s\n", g->c[i].text);
	for (i = 0; i < g->nh; i++) {
		hard *h = &g->h[i];
		chunk *c = &g->c[h->a >= 0 ? h->a : g->setchunk[h->base]];
		jv kq = jv_null(), ka = jv_null();
		hask *a;
		if (rag_judge_offline(j)) {
			hard_offline(g, h, corpus.p ? corpus.p : "");
			continue;
		}
		a = rag_xmalloc(sizeof *a);
		a->g = g;
		a->h = h;
		g->pending++;
		for (k = 0, nth = 1; k < i; k++)
			if (g->h[k].kind == h->kind && g->h[k].a == h->a && g->h[k].b == h->b && g->h[k].base == h->base) nth++;
		rag_gen_hard_ask(j, c->lang, h->kind, nth, c->text, h->b >= 0 ? g->c[h->b].text : NULL,
		                 h->base >= 0 ? base_str(g, h->base, "question", &kq) : NULL,
		                 h->base >= 0 ? base_str(g, h->base, "reference", &ka) : NULL, &g->usage, hard_answered, a);
		jv_free(kq);
		jv_free(ka);
	}
	rag_buf_free(&corpus);
	while (g->pending > 0) {
		if (rag_tool_interrupted) rag_judge_cancel(j, "interrupted before the judge answered");
		rag_judge_run(j, -1, 0.5);
	}
}

/* A hard case's record, or null when it gave none. */
static jv hard_record(gen *g, hard *h)
{
	static const char *const diff[] = {"medium", NULL, "hard", "medium"}, *const type[] = {"factual", NULL, "comparative", "factual"};
	jv q, r, rec, base = h->base >= 0 ? jv_array_get(jv_copy(g->set), h->base) : jv_null();
	chunk *c = &g->c[h->a >= 0 ? h->a : g->setchunk[h->base]];
	char *id, *key;
	if (jv_get_kind(h->result) != JV_KIND_OBJECT) {
		jv_free(base);
		return jv_null();
	}
	q = jv_object_get(jv_copy(h->result), jv_string("question"));
	r = jv_object_get(jv_copy(h->result), jv_string("reference"));
	key = h->kind == RAG_GEN_MULTI_HOP ? rag_xasprintf("%s+%s", g->c[h->a].id, g->c[h->b].id)
	                                   : rag_xasprintf("%s:%s", rag_gen_kinds[h->kind], c->id);
	id = rag_gen_id(jv_string_value(q), key);
	free(key);
	if (h->kind == RAG_GEN_NOISY) {
		/* the real case, reworded: its reference, ids and contexts stay */
		rec = jv_object_set(jv_copy(base), jv_string("question"), q);
		rec = jv_object_set(rec, jv_string("variant_of"), jv_object_get(jv_copy(base), jv_string("id")));
		rec = jv_object_set(rec, jv_string("id"), jv_string(id));
		jv_free(r);
	} else {
		rec = JV_OBJECT(jv_string("id"), jv_string(id), jv_string("question"), q);
		if (h->kind == RAG_GEN_UNANSWERABLE) {
			jv_free(r);
			rec = jv_object_set(rec, jv_string("expect"), jv_string("refusal"));
		} else {
			rec = jv_object_set(rec, jv_string("reference"), r);
		}
		if (h->kind == RAG_GEN_MULTI_HOP) {
			rec = jv_object_set(rec, jv_string("relevant_ids"), JV_ARRAY(jv_string(c->id), jv_string(g->c[h->b].id)));
			rec = jv_object_set(rec, jv_string("reference_contexts"), JV_ARRAY(jv_string(c->text), jv_string(g->c[h->b].text)));
		} else if (h->kind == RAG_GEN_FOLLOW_UP) {
			jv bq = jv_object_get(jv_copy(base), jv_string("question")), ba = jv_object_get(jv_copy(base), jv_string("reference"));
			rec = jv_object_set(rec, jv_string("history"), JV_ARRAY(JV_OBJECT(jv_string("question"), bq, jv_string("answer"), ba)));
			rec = jv_object_set(rec, jv_string("relevant_ids"), JV_ARRAY(jv_string(c->id)));
			rec = jv_object_set(rec, jv_string("reference_contexts"), JV_ARRAY(jv_string(c->text)));
		}
		rec = jv_object_set(rec, jv_string("difficulty"), jv_string(diff[h->kind]));
		rec = jv_object_set(rec, jv_string("type"), jv_string(type[h->kind]));
		rec = jv_object_set(rec, jv_string("category"), jv_string(c->category));
		rec = jv_object_set(rec, jv_string("source"), jv_string(c->source));
		rec = jv_object_set(rec, jv_string("lang"), jv_string(c->lang));
		rec = jv_object_set(rec, jv_string("generator"), jv_string(rag_judge_name(g->cli->judge)));
	}
	rec = jv_object_set(rec, jv_string("kind"), jv_string(rag_gen_kinds[h->kind]));
	free(id);
	jv_free(base);
	return rec;
}

/* --estimate: the hard cases are planned from the regular ones, which no model wrote; as many
 * stand-ins as were asked for, each the size of a short question and answer from its chunk,
 * none dropped as a duplicate, take their place. */
/* the first bytes of s, at most max, cut at a character's start */
static char *prefix(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n > max) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
	}
	return rag_xstrndup(s, n);
}

static void stand_in(gen *g)
{
	size_t i;
	int k;
	g->dedup = 2;
	for (i = 0; i < g->nc; i++) {
		chunk *c = &g->c[i];
		jv cases = jv_array();
		char *q = prefix(c->text, 120), *r = prefix(c->text, 300);
		for (k = 0; k < g->per_chunk; k++)
			cases = jv_array_append(cases, JV_OBJECT(jv_string("question"), jv_string(q), jv_string("reference"), jv_string(r),
			                                         jv_string("difficulty"), jv_string(rag_gen_difficulty(k)),
			                                         jv_string("type"), jv_string(rag_gen_type(k))));
		free(q);
		free(r);
		jv_free(c->cases);
		c->cases = cases;
		free(c->error);
		c->error = NULL;
		c->remote = 0;
	}
}

/* The set on stdout, then what every document gave on stderr. */
static int write_cases(gen *g)
{
	static const char *const label[] = {"unanswerable", "noisy", "multi-hop", "follow-up"};
	int made[RAG_GEN_NKINDS] = {0}, total, k, n, hard_total = 0;
	rag_buf out = {0};
	const char *genname = rag_judge_name(g->cli->judge);
	size_t i;
	int rc = 0;
	jv all = jv_copy(g->set);
	rag_strv seen = {0};
	size_t nregular;

	n = jv_array_length(jv_copy(g->set));
	for (k = 0; k < n; k++) {
		jv rec = jv_array_get(jv_copy(g->set), k), dump;
		jv q = jv_object_get(jv_copy(rec), jv_string("question"));
		rag_strv_push(&seen, rag_xstrdup(jv_string_value(q)));
		jv_free(q);
		dump = jv_dump_string(rec, 0);
		rag_buf_addf(&out, "%s\n", jv_string_value(dump));
		jv_free(dump);
	}
	nregular = seen.n;
	for (i = 0; i < g->nh; i++) {
		jv rec = hard_record(g, &g->h[i]), dump;
		if (jv_get_kind(rec) != JV_KIND_NULL) {
			/* a near-duplicate of a case written goes, as a regular one does; a noisy case is
			 * meant to be near its own case, so it is held against the other hard cases only */
			jv q = jv_object_get(jv_copy(rec), jv_string("question"));
			size_t from = g->h[i].kind == RAG_GEN_NOISY ? nregular : 0, m;
			int dup = 0;
			for (m = from; m < seen.n && !dup; m++) dup = rag_gen_similarity(jv_string_value(q), seen.v[m]) >= g->dedup;
			if (dup) {
				g->dropped++;
				jv_free(q);
				jv_free(rec);
				continue;
			}
			rag_strv_push(&seen, rag_xstrdup(jv_string_value(q)));
			jv_free(q);
		}
		if (jv_get_kind(rec) == JV_KIND_NULL) {
			g->remote += g->h[i].remote;
			rag_msg(g->cli->prog, "warning", "a %s case gave none: %s", label[g->h[i].kind],
			        g->h[i].error ? g->h[i].error : "no reply");
			continue;
		}
		made[g->h[i].kind]++;
		hard_total++;
		all = jv_array_append(all, jv_copy(rec));
		dump = jv_dump_string(rec, 0);
		rag_buf_addf(&out, "%s\n", jv_string_value(dump));
		jv_free(dump);
	}
	total = n + hard_total;
	rag_strv_free(&seen);
	if (out.len && (rc = rag_cli_write(g->cli, stdout, NULL, out.p))) {
		rag_buf_free(&out);
		jv_free(all);
		return rc;
	}
	rag_buf_free(&out);
	if (g->review) {
		char *sheet = rag_gen_review_sheet(all, gen_is_csv(g->review), "the generated test set");
		FILE *f;
		if (!(rc = rag_cli_open(g->cli, g->review, "w", &f))) {
			rc = rag_cli_write(g->cli, f, g->review, sheet);
			if (fclose(f) && !rc) {
				rag_msg(g->cli->prog, "error", "cannot write \"%s\": %s", g->review, strerror(errno));
				rc = RAG_EXIT_INTERNAL;
			}
		}
		free(sheet);
		if (rc) {
			jv_free(all);
			return rc;
		}
	}
	jv_free(all);

	/* what every document gave: warnings show under -q too, the summary does not */
	for (i = 0; i < g->nd; i++)
		if (g->d[i].error) rag_msg(g->cli->prog, "warning", "\"%s\" gave no cases: %s", g->d[i].name, g->d[i].error);
	for (i = 0; i < g->nc; i++)
		if (g->c[i].error) rag_msg(g->cli->prog, "warning", "chunk \"%s\" gave no cases: %s", g->c[i].id, g->c[i].error);
	for (k = 0; k < RAG_GEN_NKINDS; k++)
		if (g->short_why[k]) rag_msg(g->cli->prog, "warning", "fewer %s cases than their share asks: %s", label[k], g->short_why[k]);
	if (!g->cli->quiet) {
		rag_msg(g->cli->prog, "summary",
		        "%d cases (%d easy, %d medium, %d hard; %d factual, %d explanatory, %d comparative) from %d of %zu "
		        "chunks in %zu documents; %d near-duplicates dropped; hard cases: %d unanswerable, %d noisy, "
		        "%d multi-hop, %d follow-up; generator %s",
		        n, g->ndiff[0], g->ndiff[1], g->ndiff[2], g->ntype[0], g->ntype[1], g->ntype[2], g->from, g->nc, g->nd,
		        g->dropped, made[0], made[1], made[2], made[3], genname);
	}
	if (g->remote) return RAG_EXIT_REMOTE;
	if (g->data_errors) return RAG_EXIT_DATA;
	if (!total) {
		rag_msg(g->cli->prog, "error", "no cases were made");
		return RAG_EXIT_DATA;
	}
	return 0;
}

int main(int argc, char **argv)
{
	rag_cli cli;
	gen g;
	int opt, rc, done;
	long per = 5, chars = 1500;
	double share[RAG_GEN_NKINDS] = {-1, -1, -1, -1};
	int k;
	const char *chunks_file = NULL, *check = NULL, *apply = NULL;
	int json = 0;
	size_t i;

	memset(&cli, 0, sizeof cli);
	memset(&g, 0, sizeof g);
	cli.prog = "rag-gen";
	cli.usage = usage;
	cli.opts = options;
	cli.judge_opts = 1;
	cli.ops = (const rag_op *const[]){&rag_op_gen, &rag_op_genhard, NULL};
	g.cli = &cli;
	g.dedup = 0.8;
	g.set = jv_null();
	while ((opt = rag_cli_getopt(&cli, argc, argv)) != -1) {
		switch (opt) {
		case 'n':
			if (rag_cli_int(&cli, "--per-chunk", optarg, 1, 50, &per)) return rag_cli_misuse(&cli);
			break;
		case OPT_CHUNK_CHARS:
			if (rag_cli_int(&cli, "--chunk-chars", optarg, 100, 1000000, &chars)) return rag_cli_misuse(&cli);
			break;
		case OPT_CHUNKS: chunks_file = optarg; break;
		case OPT_CATEGORY: g.category = optarg; break;
		case OPT_DEDUP:
			if (rag_cli_double(&cli, "--dedup", optarg, 0, 1, 1, &g.dedup)) return rag_cli_misuse(&cli);
			break;
		case OPT_REVIEW: g.review = optarg; break;
		case OPT_APPLY_REVIEW: apply = optarg; break;
		case OPT_CHECK: check = optarg; break;
		case OPT_JSON: json = 1; break;
		case OPT_UNANSWERABLE: case OPT_NOISY: case OPT_MULTI_HOP: case OPT_FOLLOW_UP: {
			static const char *const flag[] = {"--unanswerable", "--noisy", "--multi-hop", "--follow-up"};
			k = opt - OPT_UNANSWERABLE;
			if (rag_cli_double(&cli, flag[k], optarg, 0, 1, 0, &share[k])) return rag_cli_misuse(&cli);
			break;
		}
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	rag_tool_signals();
	if (check || apply) {
		if ((rc = rag_cli_config(&cli))) goto out;
		if (check && optind < argc) {
			rag_msg(cli.prog, "error", "--check reads its TESTSET, not other operands");
			rc = rag_cli_misuse(&cli);
		} else if (apply && optind + 1 != argc) {
			rag_msg(cli.prog, "error", "--apply-review SHEET needs one operand: the TESTSET it edits");
			rc = rag_cli_misuse(&cli);
		} else {
			rc = check ? gen_check_set(&cli, check, json, g.dedup) : gen_apply_review(&cli, apply, argv[optind]);
		}
		goto out;
	}
	g.per_chunk = (int)per;
	g.chunk_chars = chars;
	if ((rc = rag_cli_config(&cli))) goto out;
	for (k = 0; k < RAG_GEN_NKINDS; k++) g.share[k] = share[k] >= 0 ? share[k] : cli.cfg.gen.share[k];
	if (optind >= argc && !chunks_file) {
		rag_msg(cli.prog, "error", "rag-gen needs documents: FILE... or --chunks FILE");
		rc = rag_cli_misuse(&cli);
		goto out;
	}
	if ((rc = rag_cli_judge(&cli))) goto out;
	/* what rag_cli_notice holds for a first record: rag-gen says its own */
	free(cli.notice);
	cli.notice = NULL;
	for (i = (size_t)optind; i < (size_t)argc; i++)
		if ((rc = read_document(&g, argv[i]))) goto out;
	if (chunks_file && (rc = read_chunks(&g, chunks_file))) goto out;
	if (rag_judge_offline(cli.judge) && !cli.quiet)
		rag_msg(cli.prog, "notice", "no LLM endpoint configured: the offline extractive generator writes the cases "
		        "(a sentence of a chunk is the reference of \"What does the document say about <subject>?\"), each "
		        "marked generator \"offline\"; set RAG_BASE_URL and RAG_MODEL for a model's questions");
	if (cli.estimate) {
		rag_estimate est = {0};
		rag_judge_estimate(cli.judge, &est);
		generate(&g);
		stand_in(&g);
		collect(&g);
		plan_hard(&g);
		generate_hard(&g);
		rc = rag_cli_estimate_report(&cli, rag_judge_name(cli.judge), (long)g.nc, &est);
		if (!rc && g.data_errors) rc = RAG_EXIT_DATA;
		goto out;
	}
	generate(&g);
	collect(&g);
	plan_hard(&g);
	generate_hard(&g);
	rc = write_cases(&g);
	if (!rc && rag_tool_interrupted) rc = RAG_EXIT_INTERNAL;
out:
	for (i = 0; i < g.nc; i++) {
		free(g.c[i].id);
		free(g.c[i].text);
		free(g.c[i].source);
		free(g.c[i].category);
		free(g.c[i].title);
		free(g.c[i].section);
		free(g.c[i].error);
		jv_free(g.c[i].cases);
	}
	free(g.c);
	for (i = 0; i < g.nh; i++) {
		free(g.h[i].term);
		free(g.h[i].error);
		jv_free(g.h[i].result);
	}
	free(g.h);
	free(g.setchunk);
	jv_free(g.set);
	for (i = 0; i < g.nd; i++) {
		free(g.d[i].name);
		free(g.d[i].error);
	}
	free(g.d);
	rag_cli_free(&cli);
	return rc;
}
