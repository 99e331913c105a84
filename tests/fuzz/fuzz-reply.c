/* fuzz-reply.c - libFuzzer target: rag_reply_json (lib/reply.c), the JSON in a judge's reply.
 * Any bytes (as a C string: up to the first NUL) must give a valid jv or an invalid one with a
 * message, never a crash, a leak or a read past the text. */
#include "llm.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	jv v;
	memcpy(s, data, size);
	s[size] = 0;
	v = rag_reply_json(s);
	if (jv_is_valid(v)) {
		jv d = jv_dump_string(v, 0);   /* walks the whole value */
		jv_free(d);
	} else {
		jv m = jv_invalid_get_msg(v);
		if (jv_get_kind(m) == JV_KIND_STRING) (void)strlen(jv_string_value(m));
		jv_free(m);
	}
	free(s);
	return 0;
}
