/* tap.h - a tiny TAP producer for the C unit tests (prove --exec ''). A failure's diagnostics
 * (its name, where, got and want) go to standard error, which prove shows, as Test::More's diag:
 * make check says why a test failed without a rerun. */
#ifndef TAP_H
#define TAP_H
#include <stdio.h>
#include <string.h>
#include <math.h>

static int tap_n, tap_fail;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
static void tap_ok(int pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#include <stdarg.h>
static void tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	if (!pass) tap_fail++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		fflush(stdout);
		fprintf(stderr, "#   Failed test %d - ", tap_n);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n#   at %s:%d\n", file, line);
	}
}
#define is_str(got, want, ...) do { const char *g_ = (got), *w_ = (want); \
	int p_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_; \
	ok(p_, __VA_ARGS__); if (!p_) fprintf(stderr, "#   got:  '%s'\n#   want: '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)
#define is_int(got, want, ...) do { long g_ = (long)(got), w_ = (long)(want); \
	ok(g_ == w_, __VA_ARGS__); if (g_ != w_) fprintf(stderr, "#   got:  %ld\n#   want: %ld\n", g_, w_); } while (0)
#define is_num(got, want, eps, ...) do { double g_ = (got), w_ = (want); \
	ok(fabs(g_ - w_) <= (eps), __VA_ARGS__); if (!(fabs(g_ - w_) <= (eps))) fprintf(stderr, "#   got:  %.10g\n#   want: %.10g\n", g_, w_); } while (0)
static int done_testing(void) { printf("1..%d\n", tap_n); return tap_fail ? 1 : 0; }
#endif
