/* t-cache.c - the file cache: round trip, modes, key checks, concurrent writers. */
#include "base.h"
#include "config.h"
#include "llm.h"
#include "tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[] = "/tmp/t-cache-XXXXXX";

static void key_for(int i, char out[65])
{
	char s[32];
	snprintf(s, sizeof s, "key %d", i);
	rag_sha256_hex(s, strlen(s), out);
}

static char *path_of(const char *dir, const char *key)
{
	return rag_xasprintf("%s/%.2s/%s.json", dir, key, key);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Leftover temporary files and the count of entries under dir. */
static void scan(const char *dir, int *entries, int *temps)
{
	DIR *d = opendir(dir), *sd;
	struct dirent *e, *f;
	*entries = *temps = 0;
	if (!d) return;
	while ((e = readdir(d))) {
		char *sub;
		if (e->d_name[0] == '.') continue;
		sub = rag_xasprintf("%s/%s", dir, e->d_name);
		if ((sd = opendir(sub))) {
			while ((f = readdir(sd))) {
				if (!strncmp(f->d_name, ".tmp.", 5)) ++*temps;
				else if (f->d_name[0] != '.') ++*entries;
			}
			closedir(sd);
		}
		free(sub);
	}
	closedir(d);
}

static void rm_rf(const char *path)
{
	char *cmd = rag_xasprintf("rm -rf '%s'", path);
	if (system(cmd) != 0) printf("# could not remove %s\n", path);
	free(cmd);
}

static void test_round_trip(void)
{
	char err[RAG_ERRLEN] = "", key[65], *val, *dir = rag_xasprintf("%s/rw/a/b", root), *p;
	size_t len;
	struct stat st;
	rag_cache *c;

	c = rag_cache_open(dir, RAG_CACHE_RW, err, sizeof err);
	ok(c != NULL, "open rw creates nested directories (%s)", err);
	ok(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
	   "cache directory is created 0700");
	is_int(rag_cache_mode(c), RAG_CACHE_RW, "mode is rw");
	key_for(1, key);
	val = (char *)"x";
	len = 99;
	is_int(rag_cache_get(c, key, &val, &len), 0, "get before put misses");
	ok(val == NULL && len == 0, "a miss leaves *val NULL and *len 0");
	is_int(rag_cache_put(c, key, "{\"content\":\"hi\"}", 16, err, sizeof err), 0, "put");
	p = path_of(dir, key);
	ok(stat(p, &st) == 0 && (st.st_mode & 0777) == 0600, "entry lives at <dir>/<key[0:2]>/<key>.json, 0600");
	free(p);
	is_int(rag_cache_get(c, key, &val, &len), 1, "get after put hits");
	is_str(val, "{\"content\":\"hi\"}", "value round-trips");
	is_int(len, 16, "length round-trips");
	free(val);
	is_int(rag_cache_put(c, key, "second", 6, err, sizeof err), 0, "put again replaces");
	rag_cache_get(c, key, &val, &len);
	is_str(val, "second", "the newer value wins");
	free(val);
	/* values with NUL bytes and the empty value survive */
	key_for(2, key);
	rag_cache_put(c, key, "a\0b", 3, err, sizeof err);
	is_int(rag_cache_get(c, key, &val, &len), 1, "binary value hits");
	ok(len == 3 && !memcmp(val, "a\0b", 3) && val[3] == 0, "binary value intact and NUL-terminated");
	free(val);
	key_for(3, key);
	rag_cache_put(c, key, "", 0, err, sizeof err);
	is_int(rag_cache_get(c, key, &val, NULL), 1, "empty value hits (len may be NULL)");
	is_str(val, "", "empty value is an empty string");
	free(val);
	rag_cache_close(c);

	/* a cache directory removed during a run is made again by put */
	rm_rf(dir);
	c = rag_cache_open(dir, RAG_CACHE_RW, err, sizeof err);
	rm_rf(dir);
	is_int(rag_cache_put(c, key, "v", 1, err, sizeof err), 0, "put recreates a removed cache dir");
	is_int(rag_cache_get(c, key, &val, &len), 1, "and the entry is there");
	free(val);
	rag_cache_close(c);
	free(dir);
}

static void test_modes(void)
{
	char err[RAG_ERRLEN] = "", key[65], other[65], *val, *dir = rag_xasprintf("%s/modes", root), *p;
	size_t len;
	rag_cache *rw, *ro, *rp, *off;
	int entries, temps;

	rw = rag_cache_open(dir, RAG_CACHE_RW, err, sizeof err);
	key_for(10, key);
	key_for(11, other);
	rag_cache_put(rw, key, "stored", 6, err, sizeof err);

	ro = rag_cache_open(dir, RAG_CACHE_RO, err, sizeof err);
	ok(ro != NULL, "open ro");
	is_int(rag_cache_mode(ro), RAG_CACHE_RO, "mode is ro");
	is_int(rag_cache_get(ro, key, &val, &len), 1, "ro reads");
	is_str(val, "stored", "ro reads the stored value");
	free(val);
	is_int(rag_cache_put(ro, other, "new", 3, err, sizeof err), 0, "ro put succeeds as a no-op");
	p = path_of(dir, other);
	ok(!exists(p), "ro put writes nothing");
	free(p);
	is_int(rag_cache_put(ro, key, "changed", 7, err, sizeof err), 0, "ro put over an existing key");
	rag_cache_get(ro, key, &val, &len);
	is_str(val, "stored", "ro does not overwrite");
	free(val);

	rp = rag_cache_open(dir, RAG_CACHE_REPLAY, err, sizeof err);
	is_int(rag_cache_get(rp, key, &val, &len), 1, "replay reads");
	free(val);
	is_int(rag_cache_get(rp, other, &val, &len), 0, "replay miss is a plain miss (the caller reports it)");
	rag_cache_put(rp, other, "new", 3, err, sizeof err);
	p = path_of(dir, other);
	ok(!exists(p), "replay put writes nothing");
	free(p);

	off = rag_cache_open(dir, RAG_CACHE_OFF, err, sizeof err);
	is_int(rag_cache_mode(off), RAG_CACHE_OFF, "mode is off");
	is_int(rag_cache_get(off, key, &val, &len), 0, "off never hits, even a stored key");
	rag_cache_put(off, other, "new", 3, err, sizeof err);
	p = path_of(dir, other);
	ok(!exists(p), "off put writes nothing");
	free(p);
	scan(dir, &entries, &temps);
	is_int(entries, 1, "only the rw put left an entry");
	rag_cache_close(off);
	off = rag_cache_open(NULL, RAG_CACHE_OFF, err, sizeof err);
	ok(off != NULL, "off needs no directory");
	is_int(rag_cache_get(off, key, &val, &len), 0, "and misses");
	rag_cache_close(off);
	rag_cache_close(rp);
	rag_cache_close(ro);
	rag_cache_close(rw);

	/* ro and replay never create the directory */
	free(dir);
	dir = rag_xasprintf("%s/never", root);
	ro = rag_cache_open(dir, RAG_CACHE_RO, err, sizeof err);
	ok(ro != NULL && !exists(dir), "ro opens a missing directory without creating it");
	is_int(rag_cache_get(ro, key, &val, &len), 0, "and misses");
	rag_cache_close(ro);
	free(dir);
}

static void test_errors(void)
{
	char err[RAG_ERRLEN] = "", *val, *dir = rag_xasprintf("%s/err", root), *file, *under;
	static const char *bad[] = {
		"../../../../../../../../../../../../../../../../../../../../etc/passwd",
		"BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a",
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad0",
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a/",
		"",
	};
	size_t i, len;
	rag_cache *c = rag_cache_open(dir, RAG_CACHE_RW, err, sizeof err);
	FILE *f;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		is_int(rag_cache_put(c, bad[i], "x", 1, err, sizeof err), -1, "put rejects bad key %zu", i);
		ok(strstr(err, "invalid cache key") != NULL, "with a message (%s)", err);
		val = (char *)"x";
		is_int(rag_cache_get(c, bad[i], &val, &len), -1, "get rejects bad key %zu", i);
		ok(val == NULL, "and leaves *val NULL");
	}
	is_int(rag_cache_get(c, NULL, &val, &len), -1, "get rejects a NULL key");
	rag_cache_close(c);

	/* a directory that cannot be made: its parent is a regular file */
	file = rag_xasprintf("%s/plainfile", root);
	f = fopen(file, "w");
	fclose(f);
	under = rag_xasprintf("%s/sub/cache", file);
	err[0] = 0;
	c = rag_cache_open(under, RAG_CACHE_RW, err, sizeof err);
	ok(c == NULL, "rw open fails when the directory cannot be created");
	ok(strstr(err, under) && strstr(err, "cannot create cache directory"), "message names it: %s", err);
	err[0] = 0;
	c = rag_cache_open(file, RAG_CACHE_RW, err, sizeof err);
	ok(c == NULL && strstr(err, "Not a directory"), "rw open fails on a regular file: %s", err);
	c = rag_cache_open(under, RAG_CACHE_RO, err, sizeof err);
	ok(c != NULL, "ro open of the same path is fine (it only reads)");
	rag_cache_close(c);
	err[0] = 0;
	c = rag_cache_open(NULL, RAG_CACHE_RW, err, sizeof err);
	ok(c == NULL && *err, "rw with no directory is an error: %s", err);
	c = rag_cache_open(dir, 42, err, sizeof err);
	ok(c == NULL && *err, "an unknown mode is an error: %s", err);
	rag_cache_close(NULL);
	ok(1, "close(NULL) is harmless");
	free(file);
	free(under);
	free(dir);
}

/* Four processes write the same 50 keys with their own values, 100 rounds each. Every entry must
 * afterwards be exactly one writer's value, and no temporary file may be left. */
static void test_concurrent(void)
{
	enum { PROCS = 4, KEYS = 50, ROUNDS = 100 };
	char err[RAG_ERRLEN] = "", key[65], *val, want[64], *dir = rag_xasprintf("%s/conc", root);
	int p, k, r, status, failed = 0, bad = 0, entries, temps;
	pid_t pids[PROCS];
	size_t len;
	rag_cache *c;

	for (p = 0; p < PROCS; p++) {
		pids[p] = fork();
		if (pids[p] == 0) {
			int rc = 0;
			c = rag_cache_open(dir, RAG_CACHE_RW, err, sizeof err);
			free(dir);    /* before _exit, so that leak checkers following the fork stay quiet */
			if (!c) _exit(2);
			for (r = 0; r < ROUNDS && !rc; r++)
				for (k = 0; k < KEYS && !rc; k++) {
					key_for(k, key);
					snprintf(want, sizeof want, "{\"writer\":%d,\"key\":%d,\"pad\":\"%0*d\"}", p, k, 20 * p, 0);
					if (rag_cache_put(c, key, want, strlen(want), err, sizeof err) < 0) rc = 3;
				}
			rag_cache_close(c);
			_exit(rc);
		}
	}
	for (p = 0; p < PROCS; p++)
		if (waitpid(pids[p], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failed++;
	is_int(failed, 0, "all %d writers finished without error", PROCS);

	c = rag_cache_open(dir, RAG_CACHE_RO, err, sizeof err);
	for (k = 0; k < KEYS; k++) {
		int match = 0;
		key_for(k, key);
		if (rag_cache_get(c, key, &val, &len) != 1) {
			bad++;
			continue;
		}
		for (p = 0; p < PROCS; p++) {
			snprintf(want, sizeof want, "{\"writer\":%d,\"key\":%d,\"pad\":\"%0*d\"}", p, k, 20 * p, 0);
			if (len == strlen(want) && !strcmp(val, want)) match = 1;
		}
		bad += !match;
		free(val);
	}
	rag_cache_close(c);
	is_int(bad, 0, "every entry is whole and one writer's value");
	scan(dir, &entries, &temps);
	is_int(entries, KEYS, "one file per key");
	is_int(temps, 0, "no temporary files left behind");
	free(dir);
}

int main(void)
{
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trip();
	test_modes();
	test_errors();
	test_concurrent();
	rm_rf(root);
	return done_testing();
}
