/* rag-gen - a test set from your documents: text and Markdown files (or JSON Lines chunks) cut
 * into chunks (lib/chunk.c), per chunk N questions with their reference answers asked of a model
 * (lib/gen.c), near-duplicates dropped, one test case a line on stdout. Without an endpoint, an
 * extractive generator that every record names (generator "offline"). It is a source, not a
 * filter: it reads documents, not records, so it drives the judge itself rather than the stream;
 * it says on stderr what every document gave, and why a document gave none. */
#include "tool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"Usage: rag-gen [OPTIONS] FILE... > testset.jsonl\n"
	"       rag-gen [OPTIONS] --chunks CHUNKS.jsonl > testset.jsonl\n"
	"A test set from documents: each text or Markdown FILE cut into chunks by headings and\n"
	"paragraphs (or the chunks {id, text} of CHUNKS.jsonl), N questions a chunk with a reference\n"
	"answer, difficulty and type, written one case a line (rag-gen(1)). Without an LLM endpoint the\n"
	"cases are extractive and marked generator \"offline\".\n";

enum { OPT_CHUNK_CHARS = RAG_OPT_TOOL, OPT_CHUNKS, OPT_CATEGORY, OPT_DEDUP };

static const rag_opt options[] = {
	{"per-chunk", 'n', 'n', "N", NULL, "questions a chunk (default 5: 2 easy, 2 medium, 1 hard)"},
	{"chunk-chars", 0, OPT_CHUNK_CHARS, "N", NULL, "characters a chunk holds at most (default 1500)"},
	{"chunks", 0, OPT_CHUNKS, "FILE", RAG_ARG_FILE, "read the chunks {id, text} from FILE (JSON Lines)"},
	{"category", 0, OPT_CATEGORY, "NAME", NULL, "every case's category (default: the file's first heading\n"
	 "or its name)"},
	{"dedup", 0, OPT_DEDUP, "X", NULL, "drop a question this similar to an earlier one (token\n"
	 "Jaccard, default 0.8; 1: exact duplicates only)"},
	RAG_OPT_END
};

typedef struct chunk {
	char *id, *text, *source, *category, *title;
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
	chunks = rag_chunk_split(path, text, g->chunk_chars, &title);
	n = jv_array_length(jv_copy(chunks));
	if (!n) g->d[d].error = rag_xstrdup("it has no text");
	for (k = 0; k < n; k++) {
		jv c = jv_array_get(jv_copy(chunks), k);
		jv id = jv_object_get(jv_copy(c), jv_string("id")), tx = jv_object_get(c, jv_string("text"));
		const char *name = title ? title : base ? base + 1 : path;
		add_chunk(g, d, jv_string_value(id), jv_string_value(tx), path, name, name);
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
	char *line = NULL, buf[256];
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
			snprintf(buf, sizeof buf, "%.17g", jv_number_value(id));
			jv_free(id);
			id = jv_string(buf);
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

/* The cases in chunk order, near-duplicates of earlier ones dropped; the summary on stderr. */
static int write_cases(gen *g)
{
	static const char *const diffs[] = {"easy", "medium", "hard"}, *const types[] = {"factual", "explanatory", "comparative"};
	int ndiff[3] = {0}, ntype[3] = {0}, total = 0, dropped = 0, from = 0, remote = 0, k, n, m;
	rag_strv kept = {0};
	rag_buf out = {0};
	const char *genname = rag_judge_name(g->cli->judge);
	size_t i, q;
	int rc = 0;

	for (i = 0; i < g->nc; i++) {
		chunk *c = &g->c[i];
		int made = 0;
		if (jv_get_kind(c->cases) != JV_KIND_ARRAY) {
			remote += c->remote;
			continue;
		}
		n = jv_array_length(jv_copy(c->cases));
		for (k = 0; k < n; k++) {
			jv cs = jv_array_get(jv_copy(c->cases), k), rec, dump;
			/* the texts whole, never cut to a buffer (the check made them strings) */
			jv qv = jv_object_get(jv_copy(cs), jv_string("question"));
			jv rv = jv_object_get(jv_copy(cs), jv_string("reference"));
			char db[16], tb[32], *id;
			const char *qt = jv_string_value(qv);
			int dup = 0;
			for (q = 0; q < kept.n && !dup; q++) dup = rag_gen_similarity(qt, kept.v[q]) >= g->dedup;
			if (dup) {
				dropped++;
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
				if (!strcmp(db, diffs[m])) ndiff[m]++;
				if (!strcmp(tb, types[m])) ntype[m]++;
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
			dump = jv_dump_string(rec, 0);
			rag_buf_addf(&out, "%s\n", jv_string_value(dump));
			jv_free(dump);
			free(id);
			jv_free(qv);
			jv_free(cs);
			made++;
		}
		if (made) from++;
		else if (!c->error) c->error = rag_xstrdup("every question was a near-duplicate of an earlier one");
		g->d[c->doc].cases += made;
		total += made;
	}
	rag_strv_free(&kept);
	if (out.len && (rc = rag_cli_write(g->cli, stdout, NULL, out.p))) {
		rag_buf_free(&out);
		return rc;
	}
	rag_buf_free(&out);

	/* what every document gave: warnings show under -q too, the summary does not */
	for (i = 0; i < g->nd; i++)
		if (g->d[i].error) rag_msg(g->cli->prog, "warning", "\"%s\" gave no cases: %s", g->d[i].name, g->d[i].error);
	for (i = 0; i < g->nc; i++)
		if (g->c[i].error) rag_msg(g->cli->prog, "warning", "chunk \"%s\" gave no cases: %s", g->c[i].id, g->c[i].error);
	if (!g->cli->quiet) {
		rag_msg(g->cli->prog, "summary",
		        "%d cases (%d easy, %d medium, %d hard; %d factual, %d explanatory, %d comparative) from %d of %zu "
		        "chunks in %zu documents; %d near-duplicates dropped; generator %s",
		        total, ndiff[0], ndiff[1], ndiff[2], ntype[0], ntype[1], ntype[2], from, g->nc, g->nd, dropped, genname);
	}
	if (remote) return RAG_EXIT_REMOTE;
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
	const char *chunks_file = NULL;
	size_t i;

	memset(&cli, 0, sizeof cli);
	memset(&g, 0, sizeof g);
	cli.prog = "rag-gen";
	cli.usage = usage;
	cli.opts = options;
	cli.judge_opts = 1;
	cli.prompts = (const char *const[]){"gen", NULL};
	g.cli = &cli;
	g.dedup = 0.8;
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
		default:
			rc = rag_cli_option(&cli, opt, optarg, &done);
			if (rc || done) return rc;
		}
	}
	rag_tool_signals();
	g.per_chunk = (int)per;
	g.chunk_chars = chars;
	if ((rc = rag_cli_config(&cli))) goto out;
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
		rc = rag_cli_estimate_report(&cli, rag_judge_name(cli.judge), (long)g.nc, &est);
		if (!rc && g.data_errors) rc = RAG_EXIT_DATA;
		goto out;
	}
	generate(&g);
	rc = write_cases(&g);
	if (!rc && rag_tool_interrupted) rc = RAG_EXIT_INTERNAL;
out:
	for (i = 0; i < g.nc; i++) {
		free(g.c[i].id);
		free(g.c[i].text);
		free(g.c[i].source);
		free(g.c[i].category);
		free(g.c[i].title);
		free(g.c[i].error);
		jv_free(g.c[i].cases);
	}
	free(g.c);
	for (i = 0; i < g.nd; i++) {
		free(g.d[i].name);
		free(g.d[i].error);
	}
	free(g.d);
	rag_cli_free(&cli);
	return rc;
}
