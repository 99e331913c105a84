/* cache.c - the response cache: one file per key, <dir>/<key[0:2]>/<key>.json.
 *
 * Plain files rather than a database so that several tools (or several runs in parallel, as
 * xargs -P would start) can share a cache with no lock: each entry is written to a temporary
 * file in the same directory and renamed into place, which is atomic, so a reader sees a whole
 * old entry, a whole new one, or none. Two writers of one key both succeed and the last rename
 * wins; both wrote an answer to the same request, so either will do. */
#include "base.h"
#include "config.h"
#include "llm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct rag_cache {
	char *dir;
	int mode;
};

/* The cache may hold prompts built from private documents: owner only. */
#define DIR_MODE 0700
#define FILE_MODE 0600

/* Keys come from rag_sha256_hex; anything else could name a path outside the cache. */
static int valid_key(const char *key)
{
	return key && strlen(key) == 64 && strspn(key, "0123456789abcdef") == 64;
}

/* mkdir -p; an existing directory (made by a concurrent process, say) is fine. */
static int mkdirs(const char *path)
{
	char *p = rag_xstrdup(path), *s = p, c;
	struct stat st;
	int rc = 0;

	do {
		s += strspn(s, "/");
		s += strcspn(s, "/");
		c = *s;
		*s = 0;
		if (mkdir(p, DIR_MODE) < 0 && errno != EEXIST) rc = -1;
		*s = c;
	} while (rc == 0 && c);
	free(p);
	if (rc == 0 && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		rc = -1;
	}
	return rc;
}

RAG_UNITTEST rag_cache *rag_cache_open(const char *dir, int mode, char *err, size_t errlen)
{
	rag_cache *c;

	if (mode < RAG_CACHE_RW || mode > RAG_CACHE_OFF) {
		rag_seterr(err, errlen, "unknown cache mode %d", mode);
		return NULL;
	}
	if (mode != RAG_CACHE_OFF && (!dir || !*dir)) {
		rag_seterr(err, errlen, "no cache directory (set cache.dir or RAG_CACHE_DIR, or HOME)");
		return NULL;
	}
	if (mode == RAG_CACHE_RW && mkdirs(dir) < 0) {
		rag_seterr(err, errlen, "cannot create cache directory \"%s\": %s", dir, strerror(errno));
		return NULL;
	}
	c = rag_xmalloc(sizeof *c);
	c->dir = dir && mode != RAG_CACHE_OFF ? rag_xstrdup(dir) : NULL;
	c->mode = mode;
	return c;
}

int rag_cache_mode(const rag_cache *c)
{
	return c->mode;
}

int rag_cache_open_config(const rag_config *cfg, rag_cache **out, char *err, size_t errlen)
{
	*out = NULL;
	if (cfg->cache.mode == RAG_CACHE_OFF || !cfg->cache.dir) {
		if (cfg->cache.mode != RAG_CACHE_REPLAY) return 0;
		rag_seterr(err, errlen, "replay mode needs a cache directory (cache.dir)");
		return -1;
	}
	*out = rag_cache_open(cfg->cache.dir, cfg->cache.mode, err, errlen);
	return *out ? 0 : -1;
}

void rag_cache_close(rag_cache *c)
{
	if (!c) return;
	free(c->dir);
	free(c);
}

int rag_cache_get(rag_cache *c, const char *key, char **val, size_t *len)
{
	rag_buf b = {0};
	char *path, chunk[65536];
	ssize_t n;
	int fd;

	*val = NULL;
	if (len) *len = 0;
	if (!valid_key(key)) return -1;
	if (c->mode == RAG_CACHE_OFF) return 0;
	path = rag_xasprintf("%s/%.2s/%s.json", c->dir, key, key);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0) return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR) continue;
			close(fd);
			rag_buf_free(&b);
			return -1;
		}
		rag_buf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	if (!b.p) rag_buf_add(&b, "", 0);
	*val = b.p;
	if (len) *len = b.len;
	return 1;
}

/* A name no other process will pick: the pid alone is not enough across containers sharing a
 * cache directory, hence the random part, and O_EXCL catches the rest. */
static int open_temp(const char *sub, char **tmp)
{
	int tries, fd;
	for (tries = 0; tries < 100; tries++) {
		unsigned long long r;
		if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			r = (unsigned long long)ts.tv_nsec * 2654435761u ^ (unsigned long long)ts.tv_sec ^ (unsigned)tries;
		}
		*tmp = rag_xasprintf("%s/.tmp.%ld.%016llx", sub, (long)getpid(), r);
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, FILE_MODE);
		if (fd >= 0 || errno != EEXIST) return fd;
		free(*tmp);
	}
	*tmp = NULL;
	errno = EEXIST;
	return -1;
}

int rag_cache_put(rag_cache *c, const char *key, const char *val, size_t len, char *err, size_t errlen)
{
	char *sub, *tmp = NULL, *path = NULL;
	int fd, rc = -1, e;

	if (!valid_key(key)) {
		rag_seterr(err, errlen, "invalid cache key (want 64 lowercase hex digits)");
		return -1;
	}
	if (c->mode != RAG_CACHE_RW) return 0;
	sub = rag_xasprintf("%s/%.2s", c->dir, key);
	/* The whole path again, not just the last level: the cache may have been removed by hand
	 * while a long run was going. */
	if (mkdirs(sub) < 0) {
		rag_seterr(err, errlen, "cannot create cache directory \"%s\": %s", sub, strerror(errno));
		free(sub);
		return -1;
	}
	if ((fd = open_temp(sub, &tmp)) < 0) {
		rag_seterr(err, errlen, "cannot create a file in \"%s\": %s", sub, strerror(errno));
		free(sub);
		return -1;
	}
	path = rag_xasprintf("%s/%s.json", sub, key);
	/* fsync before rename: after a crash the entry is whole or absent, never empty. One fsync
	 * costs far less than the LLM call whose answer it keeps. */
	if (rag_write_all(fd, val, len) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		rag_seterr(err, errlen, "cannot write \"%s\": %s", tmp, strerror(e));
	} else if (close(fd) < 0) {
		rag_seterr(err, errlen, "cannot write \"%s\": %s", tmp, strerror(errno));
	} else if (rename(tmp, path) < 0) {
		rag_seterr(err, errlen, "cannot rename \"%s\" to \"%s\": %s", tmp, path, strerror(errno));
	} else {
		rc = 0;
	}
	if (rc < 0) unlink(tmp);
	free(sub);
	free(tmp);
	free(path);
	return rc;
}
