/* t-json.c - an id as text, one way (rag_json_id), the id table (rag_idtab), and jq programs
 * compiled as a set (rag_jq_new_set): each gives what it gives alone. */
#include "base.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rag_json_id of the JSON text j */
static void id_is(const char *j, const char *want, const char *what)
{
	jv v = jv_parse(j);
	char *s = rag_json_id(v);
	if (want) is_str(s ? s : "(NULL)", want, "%s", what);
	else ok(s == NULL, "%s", what);
	free(s);
	jv_free(v);
}

int main(void)
{
	rag_idtab t = {0};
	char buf[64], id[32];
	jv o;
	long i, bad = 0;

	id_is("0.1", "0.1", "a number id 0.1 is 0.1, not %.17g's 0.10000000000000001");
	id_is("3", "3", "an integer as an integer");
	id_is("1e100", "1e+100", "a large number as JSON writes it");
	id_is("-2.5", "-2.5", "a negative number");
	id_is("\"q-1\"", "q-1", "a string as it is");
	id_is("\"0.1\"", "0.1", "the string \"0.1\" is the same text as the number 0.1");
	id_is("true", "true", "another value as its JSON");
	id_is("{\"a\":[1,0.1]}", "{\"a\":[1,0.1]}", "an object as its compact JSON");
	id_is("null", NULL, "null: no id");
	o = jv_parse("{\"id\":0.1}");
	is_str(rag_json_str(o, "id", buf, sizeof buf), "0.1", "rag_json_str writes a number as rag_json_id does");
	jv_free(o);
	o = jv_invalid();
	ok(rag_json_id(o) == NULL, "absent: no id");

	/* the table: past its first sizes (256 rows, 1024 slots, 4096 bytes), every id found again */
	ok(rag_idtab_find(&t, "x") == -1, "an empty table finds nothing");
	for (i = 0; i < 5000; i++) {
		snprintf(id, sizeof id, "id-%ld", i);
		if (rag_idtab_add(&t, id) != i) bad++;
	}
	is_int(bad, 0, "rows are numbered in the order added");
	for (i = 0, bad = 0; i < 5000; i++) {
		snprintf(id, sizeof id, "id-%ld", i);
		if (rag_idtab_find(&t, id) != i || strcmp(rag_idtab_id(&t, (size_t)i), id)) bad++;
	}
	is_int(bad, 0, "each of 5000 ids is found at its row, and its row gives it back");
	ok(rag_idtab_find(&t, "id-5000") == -1 && rag_idtab_find(&t, "id-") == -1, "an id not added is not found");
	is_int(t.n, 5000, "5000 rows");
	rag_idtab_free(&t);
	ok(t.n == 0 && rag_idtab_find(&t, "id-1") == -1, "freed: empty again");

	{
		/* a set: each program over the same input as alone, a comment at a program's end, a
		 * function of its own, a runtime error's message; freed in any order */
		const char *progs[] = {".a + 1", "[.b[] | . * 2] # doubled", "def f: .a; f, 7", "error(\"no \\(.a)\")", "empty"};
		const char *want[] = {"2", "[4,6]", "1", NULL, NULL};
		rag_jq *set[5], *alone;
		char err1[200], err2[200];
		size_t k;
		ok(rag_jq_new_set(progs, 5, set) == 0, "5 programs compile as one set");
		for (k = 0; k < 5; k++) {
			jv got1, got2;
			int r1, r2;
			err1[0] = err2[0] = 0;
			alone = rag_jq_new(progs[k], err1, sizeof err1);
			r1 = rag_jq_first(set[k], jv_parse("{\"a\":1,\"b\":[2,3]}"), &got1, err1, sizeof err1);
			r2 = rag_jq_first(alone, jv_parse("{\"a\":1,\"b\":[2,3]}"), &got2, err2, sizeof err2);
			{
				jv d1 = jv_dump_string(jv_copy(got1), 0), d2 = jv_dump_string(got2, 0);
				ok(r1 == r2 && !strcmp(jv_string_value(d1), jv_string_value(d2)) && !strcmp(err1, err2) &&
				   (!want[k] || !strcmp(jv_string_value(d1), want[k])),
				   "program %zu in the set as alone: %d %s%s%s", k, r1, jv_string_value(d1), err1[0] ? ", " : "", err1);
				jv_free(d1);
				jv_free(d2);
			}
			jv_free(got1);
			rag_jq_free(alone);
		}
		rag_jq_free(set[2]);
		rag_jq_free(set[0]);
		rag_jq_free(set[4]);
		rag_jq_free(set[1]);
		rag_jq_free(set[3]);
		progs[1] = ".b[";
		ok(rag_jq_new_set(progs, 5, set) == -1, "one that does not compile: no set (each alone gives its message)");
	}
	return done_testing();
}
