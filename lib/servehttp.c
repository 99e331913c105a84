/* servehttp.c - what the API's route files (serve.c, servesets.c, servehist.c) share: the
 * {error} reply, a query argument checked (a string, a whole number, a date), the store's
 * answer as an HTTP status. Below them all, so that the router (serve.c) calls the tabs' files
 * and they call this, never the router. Part of serve.h. */
#include "base.h"
#include "serve.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

jv rag_serve_error(const char *msg)
{
	return JV_OBJECT(jv_string("error"), jv_string(msg));
}

/* a whole number argument in [min, max], dflt when absent: 0, or -1 and the message in body */
int rag_serve_num_arg(rag_serve_arg_fn arg, void *ctx, const char *name, long dflt, long min, long max, long *out,
                      jv *body)
{
	const char *v = arg(ctx, name);
	char *end, msg[160];
	long n;
	if (!v || !*v) {
		*out = dflt;
		return 0;
	}
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n < min || n > max) {
		snprintf(msg, sizeof msg, "%s: a whole number from %ld to %ld", name, min, max);
		*body = rag_serve_error(msg);
		return -1;
	}
	*out = n;
	return 0;
}

/* a date argument: ISO 8601's characters only, at most 32 */
int rag_serve_date_arg(rag_serve_arg_fn arg, void *ctx, const char *name, const char **out, jv *body)
{
	const char *v = arg(ctx, name), *p;
	char msg[120];
	*out = NULL;
	if (!v || !*v) return 0;
	for (p = v; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr("-:TZ.+", *p)) break;
	if (*p || strlen(v) > 32) {
		snprintf(msg, sizeof msg, "%s: a date or time, ISO 8601 (2026-12-01, 2026-12-01T09:00:00Z)", name);
		*body = rag_serve_error(msg);
		return -1;
	}
	*out = v;
	return 0;
}

const char *rag_serve_str_arg(rag_serve_arg_fn arg, void *ctx, const char *name)
{
	const char *v = arg(ctx, name);
	return v && *v ? v : NULL;
}

/* the store's answer: 0 -> 200, 1 (not there) -> 404, -1 -> 500 with err */
int rag_serve_stored(int r, const char *err, jv *body)
{
	if (r == 0) return 200;
	*body = rag_serve_error(err);
	return r > 0 ? 404 : 500;
}
