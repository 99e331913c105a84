/* t-json.c - an id as text, one way (rag_json_id), and the id table (rag_idtab). */
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
	return done_testing();
}
