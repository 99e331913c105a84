/* fuzz-config.c - libFuzzer target: rag_config_load (lib/config.c) on a file holding the input.
 * The environment is emptied of RAG_* and the XDG directories point nowhere, so the file is the
 * only configuration read; ${VAR} in it may expand FUZZ_VAR (set) or fail on an unset one. */
#include "base.h"
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const unset[] = {"RAG_CONFIG", "RAG_BASE_URL", "RAG_MODEL", "RAG_PROVIDER",
		"RAG_API_KEY", "RAG_CACHE", "RAG_CACHE_DIR", "RAG_LANG", "OPENAI_API_KEY", NULL};
	int i;
	for (i = 0; unset[i]; i++) unsetenv(unset[i]);
	setenv("XDG_CONFIG_HOME", "/nonexistent/ragpipe-fuzz", 1);
	setenv("XDG_CACHE_HOME", "/nonexistent/ragpipe-fuzz", 1);
	setenv("HOME", "/nonexistent/ragpipe-fuzz", 1);
	setenv("FUZZ_VAR", "value", 1);
	fd = memfd_create("rag.yaml", 0);
	if (fd < 0) abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rag_config cfg;
	char err[RAG_ERRLEN];
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size) abort();
	memset(&cfg, 0, sizeof cfg);
	err[0] = 0;
	if (rag_config_load(&cfg, path, err, sizeof err) != 0 && !err[0]) abort();   /* a failure says why */
	rag_config_free(&cfg);
	rag_config_free(&cfg);   /* documented as safe twice */
	return 0;
}
