# ragpipe - small Unix filters that measure the quality of RAG systems.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/ragpipe
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=

# the version lives in VERSION alone: compiled in, and put into the manual pages at install
VERSION := $(shell cat VERSION)

CC      ?= cc
CFLAGS  ?= -O2 -g
ALL_CFLAGS = $(CFLAGS) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Ilib -DRAG_DATADIR='"$(DATADIR)"' -DRAG_VERSION='"$(VERSION)"'
LDLIBS  = -lcurl -ljq -lonig -lyaml -lutf8proc -lstemmer -lm

# every cmd/rag-*.c is a tool (work in progress stays out of the build as cmd/*.c.wip)
TOOLS   = $(patsubst cmd/%.c,%,$(wildcard cmd/rag-*.c))
BINS    = $(TOOLS:%=bin/%)
LIB_SRC = $(wildcard lib/*.c)
LIB_OBJ = $(LIB_SRC:.c=.o)
UNIT_SRC = $(wildcard tests/unit/t-*.c)
UNIT_BIN = $(UNIT_SRC:.c=.test)
# the unit tests find the tree's share/ through RAG_TEST_TOP
UNIT_CFLAGS = -Itests/unit -DRAG_TEST_TOP='"$(CURDIR)"'

all: .deps-ok $(BINS)

# The build needs these Debian 12 packages; missing ones are installed by `make deps`.
DEB_PKGS = build-essential libcurl4-openssl-dev libjq-dev libonig-dev libyaml-dev \
	libutf8proc-dev libstemmer-dev python3 perl jq
.deps-ok:
	@printf '#include <curl/curl.h>\n#include <jq.h>\n#include <yaml.h>\n#include <utf8proc.h>\n#include <libstemmer.h>\nint main(void){return 0;}\n' \
	  | $(CC) -x c - -o /dev/null -ljq -lonig -lyaml -lcurl -lutf8proc -lstemmer 2>/dev/null \
	  && command -v python3 >/dev/null && command -v prove >/dev/null && command -v jq >/dev/null \
	  || $(MAKE) deps
	@touch $@

deps:
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	echo "installing build dependencies: $(DEB_PKGS)"; \
	$$SUDO apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $(DEB_PKGS)

lib/%.o: lib/%.c lib/rag.h VERSION
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

lib/librag.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $(LIB_OBJ)

# the tool layer (cmd/tool.c): linked into every tool, never into the library or its unit tests
cmd/tool.o: cmd/tool.c cmd/tool.h lib/rag.h VERSION
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

bin/%: cmd/%.c cmd/tool.o lib/librag.a cmd/tool.h lib/rag.h
	@mkdir -p bin
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< cmd/tool.o lib/librag.a $(LDLIBS)

tests/unit/%.test: tests/unit/%.c tests/unit/tap.h lib/librag.a
	$(CC) $(ALL_CFLAGS) $(UNIT_CFLAGS) $(LDFLAGS) -o $@ $< lib/librag.a $(LDLIBS)

check: all $(UNIT_BIN)
	prove --exec '' $(UNIT_BIN)
	prove tests/t/*.t

demo: all
	@sh share/examples/demo.sh

# AddressSanitizer/UBSan and valgrind runs of the whole suite.
asan:
	$(MAKE) clean
	$(MAKE) check CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined'
valgrind: all $(UNIT_BIN)
	RAG_VALGRIND=1 prove --exec '' $(UNIT_BIN)
	RAG_VALGRIND=1 prove tests/t/*.t

# Stricter warnings than the build's, over every source: compiled to /dev/null so the build is
# untouched (to objects, not -fsyntax-only, so -O2's flow warnings are seen too). Prints the
# warnings and fails when there is any.
WARN_CFLAGS = -Wconversion -Wshadow -Wstrict-prototypes
WARN_SRC = $(wildcard lib/*.c cmd/*.c tests/unit/*.c)
warnings: .deps-ok
	@out=$$(for f in $(WARN_SRC); do \
	  $(CC) $(ALL_CFLAGS) $(WARN_CFLAGS) $(UNIT_CFLAGS) -c -o /dev/null $$f 2>&1 || echo "$$f: does not compile"; \
	done); \
	[ -z "$$out" ] || printf '%s\n' "$$out"; \
	echo "make warnings: $$(printf '%s' "$$out" | grep -c 'warning:') warnings in $(words $(WARN_SRC)) files"; \
	[ -z "$$out" ]
.PHONY: warnings

bench: all
	sh bench/faithfulness.sh
	sh bench/relevancy.sh
	sh bench/gate.sh

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/prompts $(DESTDIR)$(DATADIR)/examples \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 644 share/prompts/* $(DESTDIR)$(DATADIR)/prompts/
	install -m 644 share/*.txt $(DESTDIR)$(DATADIR)/ 2>/dev/null || true
	install -m 644 share/examples/* $(DESTDIR)$(DATADIR)/examples/
	for p in share/man/man[157]/*.[157]; do \
	  s=$${p##*.}; sed 's/@VERSION@/$(VERSION)/g' $$p >$(DESTDIR)$(MANDIR)/man$$s/$${p##*/} && \
	  chmod 644 $(DESTDIR)$(MANDIR)/man$$s/$${p##*/} || exit 1; \
	done
	for t in $(TOOLS); do install -m 644 completions/ragpipe.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t; done
	install -m 644 completions/_ragpipe $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_ragpipe
	install -m 644 completions/ragpipe.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/ragpipe.fish

clean:
	rm -rf bin lib/*.o cmd/*.o lib/librag.a tests/unit/*.test tests/tmp

.PHONY: all deps check demo asan valgrind bench install clean
.SECONDARY:
