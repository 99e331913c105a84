# ragpipe - small Unix filters that measure the quality of RAG systems.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/ragpipe
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=

# the version lives in VERSION alone: compiled in, and put into the manual pages when they are made
VERSION := $(shell cat VERSION)

CC      ?= cc
CFLAGS  ?= -O2 -g
ALL_CFLAGS = $(CPPFLAGS) $(CFLAGS) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Ilib -Iobj/gen -DRAG_DATADIR='"$(DATADIR)"' -DRAG_VERSION='"$(VERSION)"'
# pkg-config for the libraries that ship a .pc file; libjq 1.6 and libstemmer have none
PC_LIBS = libcurl yaml-0.1 libutf8proc icu-uc icu-i18n zlib
# the run store (rag-store): SQLite and PostgreSQL's libpq
PC_LIBS += sqlite3 libpq
# rag-serve's HTTP server
PC_LIBS += libmicrohttpd
# rag-serve's OTLP/HTTP receiver: the protobuf encoding, by protobuf-c's run-time and the code
# protoc-c generates from share/proto/ (the "protobuf" block below), included as a system header
# so that the strict warnings of make warnings are ours alone
PC_LIBS += libprotobuf-c
ALL_CFLAGS += $(shell pkg-config --cflags $(PC_LIBS) 2>/dev/null) -isystem obj/gen/proto
LDLIBS  = $(PROTO_A) $(shell pkg-config --libs $(PC_LIBS) 2>/dev/null) -ljq -lonig -lstemmer -lm

# every cmd/rag-*.c is a tool (work in progress stays out of the build as cmd/*.c.wip), and so
# is every metric tool of one operation, named by its descriptor's .tool in lib/ (mk/ops.sh
# --tools), whose main is cmd/tool-metric-main.c (below)
METRIC_TOOLS := $(filter-out $(patsubst cmd/%.c,%,$(wildcard cmd/rag-*.c)),$(shell sh mk/ops.sh --tools $(sort $(wildcard lib/*.c))))
TOOLS   = $(patsubst cmd/%.c,%,$(wildcard cmd/rag-*.c)) $(METRIC_TOOLS)
BINS    = $(TOOLS:%=bin/%)
# the tool layer, linked into every tool; rag-eval's and rag-gen's other files, into theirs alone
TOOL_OBJ = obj/cmd/tool.o obj/cmd/tool-run.o
# the main of a metric tool of one operation (rag_cli_metric), in an archive of its own so that
# only the tools that call it link it (and with it every operation of the registry)
TOOL_LIB = obj/libtool.a
EVAL_OBJ = $(patsubst %.c,obj/%.o,$(wildcard cmd/eval-*.c))
GEN_OBJ = $(patsubst %.c,obj/%.o,$(wildcard cmd/gen-*.c))
# Everything the build makes of a source is under obj/, by the source's path (obj/lib/util.o,
# obj/cmd/rag-eval.o, their .d files, the archives, the generated sources in obj/gen/), so that
# cmd/ and lib/ hold sources alone and make clean is one rm -rf obj
CMD_OBJ = $(TOOLS:%=obj/cmd/%.o) $(TOOL_OBJ) obj/cmd/tool-metric.o $(EVAL_OBJ) $(GEN_OBJ)
LIB_SRC = $(wildcard lib/*.c lib/store/*.c)
LIB_OBJ = $(LIB_SRC:%.c=obj/%.o)
LIB_A = obj/librag.a
LIBU_A = obj/libragu.a
# the operation registry, made from lib/*.c (mk/ops.sh; below)
GEN_OPS = obj/gen/ops.inc
UNIT_SRC = $(wildcard tests/unit/t-*.c)
UNIT_BIN = $(UNIT_SRC:.c=.test)
# the unit tests find the tree's share/ through RAG_TEST_TOP
UNIT_CFLAGS = -Itests/unit -DRAG_TEST_TOP='"$(CURDIR)"'

all: $(BINS) docs

# ---------------------------------------------------------------- manual pages and completions
# Made from the tools' option tables (their hidden --list-options), as curl makes its manual and
# completions from its option source, never copied by hand: each page from its source
# share/man/manN/NAME.N.in (SYNOPSIS, OPTIONS' tags and the shared options' section made by
# mk/man.sh, the shared options' text from share/man/options.man, the version put in), and the
# three completions by mk/completions.sh. Not committed (.gitignore): `make` builds them, and
# `make install` and the tests use what it built.
MAN_IN   = $(wildcard share/man/man[1-9]/*.in)
MAN      = $(MAN_IN:.in=)
COMP     = completions/ragpipe.bash completions/_ragpipe completions/ragpipe.fish
docs: $(MAN) $(COMP)
# rag-eval's metrics (its hidden --list-metrics): the lists of the metric tools of the operation
# registry in rag-eval(1) and rag(7) are made of it (mk/man.sh's @metric-tools, @tool-prompts,
# @tool-pages), so that a new one is in them with no edit of theirs
MAN_METRICS = obj/gen/metrics.tsv
$(MAN_METRICS): bin/rag-eval
	@mkdir -p $(@D)
	bin/rag-eval --list-metrics >$@.tmp && mv $@.tmp $@
MAN_ENV = RAG_MAN_METRICS=$(MAN_METRICS)
# a tool's page: its own options
share/man/man1/%.1: share/man/man1/%.1.in bin/% share/man/options.man mk/man.sh VERSION $(MAN_METRICS)
	bin/$* --list-options >$@.list
	$(MAN_ENV) sh mk/man.sh '$(VERSION)' share/man/options.man $< $@.list >$@.tmp && mv $@.tmp $@; st=$$?; rm -f $@.list $@.tmp; exit $$st
# rag(7) and rag-config(5): the judge and shared options, of a tool that has both
share/man/man5/%.5: share/man/man5/%.5.in bin/rag-verify share/man/options.man mk/man.sh VERSION $(MAN_METRICS)
	bin/rag-verify --list-options >$@.list
	$(MAN_ENV) sh mk/man.sh '$(VERSION)' share/man/options.man $< $@.list rag-verify >$@.tmp && mv $@.tmp $@; st=$$?; rm -f $@.list $@.tmp; exit $$st
share/man/man7/%.7: share/man/man7/%.7.in bin/rag-verify share/man/options.man mk/man.sh VERSION $(MAN_METRICS)
	bin/rag-verify --list-options >$@.list
	$(MAN_ENV) sh mk/man.sh '$(VERSION)' share/man/options.man $< $@.list rag-verify >$@.tmp && mv $@.tmp $@; st=$$?; rm -f $@.list $@.tmp; exit $$st
$(COMP) &: $(BINS) mk/completions.sh
	sh mk/completions.sh bin completions
# a page whose source is gone (a tool removed, as rag-polite was) is removed too: no source
# page in share/man is tracked without its .in, so every other page there is a build's
clean-docs:
	rm -f $(MAN) $(COMP) $(filter-out $(MAN),$(wildcard share/man/man[157]/*.[157]))
clean: clean-docs
.PHONY: docs clean-docs

# ---------------------------------------------------------------- dependencies
# Plain `make` and `make install` never install anything (packagers run them): when a library is
# missing they stop, before compiling, with one message saying to run `make deps`. The package
# lists live in mk/deps.sh, one set per purpose: `make deps` installs with apt-get those of the
# build set's Debian packages that are missing (to build and run), `make test-deps` the test
# set's (every tool a test uses: a test skipped for a missing tool never ran), make demo the
# build and demo sets, make check the build and test sets, make deb the build and deb sets. The
# test set's step also runs `npm ci` in tests/otel (the OpenTelemetry SDK; mk/deps.sh's otel).
deps:
	@sh mk/deps.sh install build
test-deps:
	@sh mk/deps.sh install test

# every compile waits for this check (order-only: it never makes anything out of date)
$(LIB_OBJ) $(UNIT_LIB_OBJ) $(CMD_OBJ) $(BINS) $(UNIT_BIN): | have-deps
have-deps:
	@sh mk/deps.sh check '$(CC)' $(PC_LIBS)

# Header dependencies are found by the compiler (-MMD -MP writes a .d file beside each object,
# and a phony target per header so that a header removed does not break the build): touching one
# subsystem header rebuilds only the files that include it. The build's own, not CFLAGS, so that
# make asan and a packager's CFLAGS keep them.
DEP_CFLAGS = -MMD -MP
obj/lib/%.o: lib/%.c VERSION
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEP_CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $(LIB_OBJ)

# the tool layer (cmd/tool.c: options, messages, set-up; cmd/tool-run.c: the run): linked into
# every tool, never into the library or its unit tests; and each tool's own object, so that a
# header touched recompiles only the tools that include it (the others are linked again)
obj/cmd/%.o: cmd/%.c VERSION
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Icmd $(DEP_CFLAGS) -c -o $@ $<

# a metric tool of one operation: the one main of them all, compiled with the tool's name
$(METRIC_TOOLS:%=obj/cmd/%.o): obj/cmd/%.o: cmd/tool-metric-main.c VERSION
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Icmd $(DEP_CFLAGS) -DRAG_METRIC_TOOL='"$*"' -c -o $@ $<

# (named here too, so that make never takes the archive for an intermediate file to skip)
$(BINS): $(TOOL_LIB)
$(TOOL_LIB): obj/cmd/tool-metric.o
	rm -f $@ && ar rcs $@ obj/cmd/tool-metric.o

bin/%: obj/cmd/%.o $(TOOL_OBJ) $(TOOL_LIB) $(LIB_A)
	@mkdir -p bin
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(TOOL_OBJ) $(TOOL_LIB) $(LIB_A) $(LDLIBS)

# rag-eval's files by concern (cmd/eval-*.c, sharing cmd/eval.h) and rag-gen's review mode
# (cmd/gen-review.c, sharing cmd/gen-tool.h): linked into their tool alone (their objects are
# made by obj/cmd/%.o above, with their header dependencies)
bin/rag-eval: obj/cmd/rag-eval.o $(EVAL_OBJ) $(TOOL_OBJ) $(LIB_A)
	@mkdir -p bin
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(EVAL_OBJ) $(TOOL_OBJ) $(LIB_A) $(LDLIBS)
bin/rag-gen: obj/cmd/rag-gen.o $(GEN_OBJ) $(TOOL_OBJ) $(LIB_A)
	@mkdir -p bin
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(GEN_OBJ) $(TOOL_OBJ) $(LIB_A) $(LDLIBS)

# The unit tests' library, obj/libragu.a (curl's libcurlu): the library's objects, but those of
# the files with RAG_UNITTEST functions (static in the library, base.h) compiled again with
# -DRAG_UNITTESTS into obj/unit/, where those functions are external and their headers declare
# them. The tools never link it.
UNIT_LIB_SRC := $(shell grep -l '^RAG_UNITTEST' $(LIB_SRC))
UNIT_LIB_OBJ = $(UNIT_LIB_SRC:%.c=obj/unit/%.o)
UNITU_OBJ = $(filter-out $(UNIT_LIB_SRC:%.c=obj/%.o),$(LIB_OBJ)) $(UNIT_LIB_OBJ)
obj/unit/%.o: %.c VERSION
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DRAG_UNITTESTS $(DEP_CFLAGS) -c -o $@ $<
$(LIBU_A): $(UNITU_OBJ)
	rm -f $@ && ar rcs $@ $(UNITU_OBJ)

# a unit test's dependency file in obj/ too (obj/tests/unit/t-x.d), beside no source
tests/unit/%.test: tests/unit/%.c $(LIBU_A)
	@mkdir -p obj/tests/unit
	$(CC) $(ALL_CFLAGS) -DRAG_UNITTESTS $(UNIT_CFLAGS) $(DEP_CFLAGS) -MF obj/$@.d $(LDFLAGS) -o $@ $< $(LIBU_A) $(LDLIBS)

# make check and make demo install what is missing first, then build in a second make, so
# that with -j nothing compiles before the packages are in place.
check:
	@sh mk/deps.sh install build test
	@$(MAKE) --no-print-directory check-run
demo:
	@sh mk/deps.sh install build demo
	@$(MAKE) --no-print-directory demo-run

# the tests, without the package step; at the end, how many were skipped and why
SKIP_LOG = $(CURDIR)/tests/tmp/skipped
check-run: all $(UNIT_BIN)
	@mkdir -p tests/tmp && : >$(SKIP_LOG)
	@export RAG_SKIP_LOG='$(SKIP_LOG)'; \
	prove --exec '' $(UNIT_BIN); u=$$?; prove tests/t/*.t; t=$$?; \
	$(MAKE) --no-print-directory fuzz-check; f=$$?; \
	sh mk/skipped.sh '$(SKIP_LOG)'; \
	echo "make check: unit tests $$([ $$u = 0 ] && echo passed || echo FAILED)," \
	  "shell tests $$([ $$t = 0 ] && echo passed || echo FAILED)," \
	  "fuzz-check $$([ $$f = 0 ] && echo passed || echo FAILED)"; \
	[ $$u = 0 ] && [ $$t = 0 ] && [ $$f = 0 ]

# the suite (unit and shell tests) STRESS times in a row, each in a random order, and every test
# that ever failed; check-loaded does it on a busy machine: stress-ng --cpu LOAD (default twice
# the cores) spinning beside it, installed first (mk/deps.sh's stress set)
STRESS ?= 5
check-stress: all $(UNIT_BIN)
	@mkdir -p tests/tmp && : >$(SKIP_LOG)
	@RAG_SKIP_LOG='$(SKIP_LOG)' sh mk/check-stress.sh $(STRESS)
check-loaded:
	@sh mk/deps.sh install build test stress
	@$(MAKE) --no-print-directory check-loaded-run
check-loaded-run: all $(UNIT_BIN)
	@mkdir -p tests/tmp && : >$(SKIP_LOG)
	@RAG_SKIP_LOG='$(SKIP_LOG)' RAG_STRESS_LOAD="$${LOAD:-$$((2 * $$(nproc)))}" sh mk/check-stress.sh $(STRESS)

# rag-eval against the bundled RAG service (demo-eval.sh; demo.sh is the stage-by-stage walk-through)
demo-run: all
	@sh share/examples/demo-eval.sh

# make demo and make check in a fresh Debian root (debootstrap minbase) with only make
# installed: RELEASE=bookworm (Debian 12, the default) or trixie (Debian 13)
RELEASE ?= bookworm
check-fresh:
	sh mk/check-fresh.sh $(RELEASE)

# the Debian package dist/ragpipe_<version>_<arch>.deb (debian/, dpkg-buildpackage in a copy of
# the tree under dist/build; lintian: no error), and its test: installed with apt into a fresh
# Debian root, rag-eval run on the installed example there with no source tree (root; not in
# make check, it needs debootstrap and the network to Debian's mirror)
deb:
	@sh mk/deps.sh install build deb
	@sh mk/deb.sh
check-deb: deb
	sh mk/check-deb.sh $(RELEASE)

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
WARN_SRC = $(wildcard lib/*.c lib/store/*.c cmd/*.c tests/unit/*.c)
warnings: | have-deps
	@out=$$(for f in $(WARN_SRC) $(UNIT_LIB_SRC:%=unit:%); do \
	  case $$f in tests/unit/*) u=-DRAG_UNITTESTS;; unit:*) f=$${f#unit:} u=-DRAG_UNITTESTS;; *) u=;; esac; \
	  $(CC) $(ALL_CFLAGS) $$u $(WARN_CFLAGS) $(UNIT_CFLAGS) -c -o /dev/null $$f 2>&1 || echo "$$f: does not compile"; \
	done); \
	[ -z "$$out" ] || printf '%s\n' "$$out"; \
	echo "make warnings: $$(printf '%s' "$$out" | grep -c 'warning:') warnings in $(words $(WARN_SRC)) files"; \
	[ -z "$$out" ]
.PHONY: warnings

# Every library header compiles alone (it includes what it uses), twice in a row (its include
# guard holds), as the library is built and as the unit tests' build (-DRAG_UNITTESTS): the
# compiler reads an empty C file with the header forced in.
HDR_SRC = $(wildcard lib/*.h lib/*/*.h)
header-check: | have-deps
	@bad=0; for h in $(HDR_SRC); do \
	  for u in '' -DRAG_UNITTESTS; do \
	    $(CC) $(ALL_CFLAGS) $$u -Werror -fsyntax-only -include $$h -include $$h -x c /dev/null || \
	      { echo "$$h: does not compile alone $${u:+with $$u}"; bad=$$((bad + 1)); }; \
	  done; \
	done; \
	echo "make header-check: $$bad of $(words $(HDR_SRC)) headers do not compile alone"; [ $$bad = 0 ]
.PHONY: header-check

# cppcheck over lib/ and cmd/: 0 findings. A false one is suppressed at its line
# (/* cppcheck-suppress ID */ under a comment that says why) or, for a file another change
# rewrites, in mk/cppcheck.supp with its reason.
CPPCHECK_FLAGS = -q --std=c11 -D_GNU_SOURCE -DRAG_VERSION='"$(VERSION)"' -DRAG_DATADIR='"$(DATADIR)"' \
	-Ilib -Iobj/gen -Icmd --enable=warning,portability,performance --inline-suppr \
	--suppressions-list=mk/cppcheck.supp --error-exitcode=1
CPPCHECK_JOBS = 2
cppcheck: $(GEN_OPS)
	@command -v cppcheck >/dev/null || { echo "make cppcheck: cppcheck is not installed: run make test-deps" >&2; exit 1; }
	@cppcheck -j$(CPPCHECK_JOBS) $(CPPCHECK_FLAGS) lib cmd && echo "make cppcheck: no findings in lib/ and cmd/"
.PHONY: cppcheck

# The complexity cap: no function in lib/ or cmd/ over COMPLEXITY_MAX, pmccabe's first column
# (McCabe's cyclomatic complexity, a switch counted once). Prints the offenders and fails.
COMPLEXITY_MAX = 50
COMPLEXITY_SRC = $(wildcard lib/*.c lib/*/*.c cmd/*.c)
complexity:
	@command -v pmccabe >/dev/null || { echo "make complexity: pmccabe is not installed: run make test-deps" >&2; exit 1; }
	@pmccabe $(COMPLEXITY_SRC) | sort -n -r | awk -F'\t' -v max=$(COMPLEXITY_MAX) ' \
	  { where = $$6; sub(/: .*/, "", where); name = $$6; sub(/^[^ ]*: /, "", name) } \
	  $$1 > max { print "make complexity: " where ": " name " has complexity " $$1 " (at most " max ")"; bad++ } \
	  END { if (bad) { print "make complexity: " bad " function" (bad == 1 ? "" : "s") " over " max; exit 1 } \
	        print "make complexity: every function in lib/ and cmd/ at most " max }'
.PHONY: complexity

# The call graph of the build's objects, file by file (mk/calls.sh, nm): no files that call each
# other in a loop, no call from a layer to a higher one (HACKING.md's table; the tool layer
# above the library, the tools above it), no public function that no other file calls. Prints
# each and fails.
calls: $(LIB_OBJ) $(CMD_OBJ)
	@sh mk/calls.sh $(LIB_OBJ) $(CMD_OBJ)
.PHONY: calls

# No tracked file is one that .gitignore says the build writes (an object, a page made of its
# .in, a merge's .orig...): a build output or a leftover committed by mistake. Prints each.
tracked-output:
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  out=$$(git ls-files -ci --exclude-standard); \
	  [ -z "$$out" ] || printf 'make tracked-output: tracked, yet the build writes it (.gitignore): %s\n' $$out; \
	  echo "make tracked-output: $$(printf '%s' "$$out" | grep -c .) tracked files the build writes"; [ -z "$$out" ]; \
	else echo "make tracked-output: not a git checkout, nothing to check"; fi
.PHONY: tracked-output

# make lint: the six, each whatever the others gave; CI runs it (.ci/run)
lint:
	@$(MAKE) --no-print-directory warnings; w=$$?; \
	$(MAKE) --no-print-directory header-check; h=$$?; \
	$(MAKE) --no-print-directory cppcheck; c=$$?; \
	$(MAKE) --no-print-directory complexity; x=$$?; \
	$(MAKE) --no-print-directory calls; g=$$?; \
	$(MAKE) --no-print-directory tracked-output; o=$$?; \
	echo "make lint: warnings $$([ $$w = 0 ] && echo passed || echo FAILED)," \
	  "header-check $$([ $$h = 0 ] && echo passed || echo FAILED)," \
	  "cppcheck $$([ $$c = 0 ] && echo passed || echo FAILED)," \
	  "complexity $$([ $$x = 0 ] && echo passed || echo FAILED)," \
	  "calls $$([ $$g = 0 ] && echo passed || echo FAILED)," \
	  "tracked-output $$([ $$o = 0 ] && echo passed || echo FAILED)"; \
	[ $$w = 0 ] && [ $$h = 0 ] && [ $$c = 0 ] && [ $$x = 0 ] && [ $$g = 0 ] && [ $$o = 0 ]
.PHONY: lint

# ---------------------------------------------------------------- fuzzing
# libFuzzer targets (tests/fuzz/fuzz-*.c) over the library compiled again with clang into
# tests/fuzz/build/ (never the gcc-built librag.a), with ASan and UBSan. `make fuzz` runs each
# for FUZZ_SECONDS on its seed corpus tests/fuzz/corpus/<target>/ (new inputs go to
# tests/tmp/fuzz/, the committed corpus is only read); `make check` runs fuzz-check: each
# target FUZZ_RUNS inputs with a fixed seed, so it is bounded and the same on every run. A crash
# is written to tests/tmp/fuzz/ and fails the run. See tests/README.md.
FUZZ_CC      = clang
FUZZ_TARGETS = stream config reply text testset sse http trace otlppb
FUZZ_DIR     = tests/fuzz
FUZZ_BUILD   = $(FUZZ_DIR)/build
FUZZ_SAN     = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_OBJ     = $(LIB_SRC:lib/%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BIN     = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)
FUZZ_SECONDS ?= 60
FUZZ_RUNS    ?= 3000
FUZZ_OPTS    = -seed=1 -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
# libjq 1.6 leaks a token when two values lack a separator (["a" "b"]): that leak is
# suppressed, which needs whole malloc stacks (libjq has no frame pointers) and symbols (a
# suppression names a function: llvm-symbolizer, from the package llvm)
FUZZ_SYMBOLIZER = $(firstword $(wildcard /usr/bin/llvm-symbolizer /usr/lib/llvm-*/bin/llvm-symbolizer))
FUZZ_ENV     = ASAN_OPTIONS=fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=$(CURDIR)/$(FUZZ_DIR)/lsan.supp \
	$(if $(FUZZ_SYMBOLIZER),ASAN_SYMBOLIZER_PATH=$(FUZZ_SYMBOLIZER))
# the build's own CFLAGS (make asan passes its own) never reach these objects
$(FUZZ_OBJ) $(FUZZ_BIN): override CFLAGS = -O1 -g

$(FUZZ_BUILD)/%.o: lib/%.c VERSION | have-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CFLAGS) $(DEP_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz-%: $(FUZZ_DIR)/fuzz-%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(ALL_CFLAGS) $(DEP_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(LDLIBS)

fuzz-build: $(FUZZ_BIN)

# FUZZ_RUN(OPTION,DIR): each target on its corpus with OPTION; new units, the log and any
# crash go to DIR (tests/tmp/fuzz for make fuzz, kept between runs; tests/tmp/fuzz-check,
# emptied first so that the check is the same every time)
FUZZ_RUN = for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(2)/$$t && \
	  echo "fuzz $$t: $(1)" && \
	  $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz-$$t $(FUZZ_OPTS) $(1) -artifact_prefix=$(2)/$$t- \
	    $(2)/$$t $(FUZZ_DIR)/corpus/$$t 2>$(2)/$$t.log; st=$$?; \
	  grep -E '^stat::number_of_executed_units|^Done [0-9]+ runs' $(2)/$$t.log | tail -2 | sed 's/^/  /'; \
	  if [ $$st != 0 ]; then tail -40 $(2)/$$t.log; echo "fuzz $$t: FAILED ($(2)/$$t.log)"; exit 1; fi; \
	done

fuzz: fuzz-build
	@$(call FUZZ_RUN,-max_total_time=$(FUZZ_SECONDS),tests/tmp/fuzz)
fuzz-check: fuzz-build
	@rm -rf tests/tmp/fuzz-check
	@$(call FUZZ_RUN,-runs=$(FUZZ_RUNS),tests/tmp/fuzz-check)
# the nightly run (not in make check): each target for FUZZ_NIGHTLY_RUNS inputs, one target
# after another, from its committed corpus (new inputs, logs and crashes in
# tests/tmp/fuzz-nightly/, emptied first); prints each target's count. It looks for crashes,
# memory errors and undefined behaviour; leaks are fuzz-check's, make asan's and make
# valgrind's: the libjq suppression needs a whole DWARF stack at every malloc, which made
# fuzz-stream 13 times slower (5,000 inputs in 16 s against 1.3 s). FUZZ_NIGHTLY_LEAKS=1 keeps
# leak detection on.
FUZZ_NIGHTLY_RUNS ?= 1000000
FUZZ_NIGHTLY_LEAKS ?= 0
fuzz-nightly: FUZZ_ENV := $(if $(filter 1,$(FUZZ_NIGHTLY_LEAKS)),$(FUZZ_ENV),ASAN_OPTIONS=detect_leaks=0)
fuzz-nightly: FUZZ_OPTS += $(if $(filter 1,$(FUZZ_NIGHTLY_LEAKS)),,-detect_leaks=0)
fuzz-nightly: fuzz-build
	@rm -rf tests/tmp/fuzz-nightly
	@$(call FUZZ_RUN,-runs=$(FUZZ_NIGHTLY_RUNS),tests/tmp/fuzz-nightly)
fuzz-clean:
	rm -rf $(FUZZ_BUILD) tests/tmp/fuzz tests/tmp/fuzz-check tests/tmp/fuzz-nightly
clean: fuzz-clean

.PHONY: fuzz fuzz-build fuzz-check fuzz-nightly fuzz-clean

bench: all
	sh bench/faithfulness.sh
	sh bench/relevancy.sh
	sh bench/verifier.sh
	sh bench/gate.sh
	sh bench/eval.sh
	sh bench/memory.sh -n 2000 -n 60000
	sh bench/parallel.sh
	sh bench/store.sh
	sh bench/serve.sh
	sh bench/report.sh
	sh bench/trace.sh
	sh bench/otlp.sh

# ragpipe beside autoevals and promptfoo (installed from npm outside the tree) and the compute
# tools beside jq: bench/README.md's side-by-side tables
bench-peers: all
	sh bench/peers.sh
	sh bench/compute.sh --embsim-repeat 1 --jq-records 50000
	sh bench/cost.sh

# the completions' directories: those bash-completion, zsh and fish read under PREFIX (Debian's
# package puts zsh's in its vendor-completions, debian/rules)
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/prompts $(DESTDIR)$(DATADIR)/hints $(DESTDIR)$(DATADIR)/report $(DESTDIR)$(DATADIR)/serve $(DESTDIR)$(DATADIR)/examples/docs \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 644 share/prompts/* $(DESTDIR)$(DATADIR)/prompts/
	install -m 644 share/hints/* $(DESTDIR)$(DATADIR)/hints/
	install -m 644 share/report/* $(DESTDIR)$(DATADIR)/report/
	install -m 644 share/serve/* $(DESTDIR)$(DATADIR)/serve/
	install -m 644 share/*.txt $(DESTDIR)$(DATADIR)/ 2>/dev/null || true
	install -m 644 share/examples/*.* $(DESTDIR)$(DATADIR)/examples/
	chmod 755 $(DESTDIR)$(DATADIR)/examples/*.sh
	install -m 644 share/examples/docs/* $(DESTDIR)$(DATADIR)/examples/docs/
	for p in $(MAN); do install -m 644 $$p $(DESTDIR)$(MANDIR)/man$${p##*.}/ || exit 1; done
	for t in $(TOOLS); do install -m 644 completions/ragpipe.bash $(DESTDIR)$(BASHCOMPDIR)/$$t; done
	install -m 644 completions/_ragpipe $(DESTDIR)$(ZSHCOMPDIR)/_ragpipe
	install -m 644 completions/ragpipe.fish $(DESTDIR)$(FISHCOMPDIR)/ragpipe.fish

# what install put there, with the same PREFIX and DESTDIR (and nothing else: the directories
# shared with other packages stay, DATADIR is ragpipe's own)
uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%) $(TOOLS:%=$(DESTDIR)$(BASHCOMPDIR)/%) \
	  $(DESTDIR)$(ZSHCOMPDIR)/_ragpipe $(DESTDIR)$(FISHCOMPDIR)/ragpipe.fish
	for p in $(MAN); do rm -f $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/}; done
	rm -rf $(DESTDIR)$(DATADIR)

# git's hooks from mk/ (mk/commit-msg: HACKING.md's commit messages), for this clone or HOOKS_REPO
HOOKS_REPO = .
hooks:
	git -C '$(HOOKS_REPO)' config core.hooksPath mk
.PHONY: hooks

# (and what a build before obj/ left beside the sources, so that one make clean tidies an old
# checkout too)
clean:
	rm -rf bin obj tests/unit/*.test tests/tmp dist
	rm -f lib/*.o lib/*.d lib/store/*.o lib/store/*.d cmd/*.o cmd/*.d lib/librag.a lib/libragu.a lib/refusals.inc \
	  tests/unit/*.d

# the header dependencies the compiler wrote (none before the first build); a target built
# without one (by an older Makefile, or its .d removed) is built again, so that none keeps
# headers it was not built with
DEP_FILES = $(wildcard obj/lib/*.d obj/lib/store/*.d obj/cmd/*.d obj/unit/lib/*.d obj/unit/lib/store/*.d obj/tests/unit/*.d $(FUZZ_BUILD)/*.d $(FUZZ_BUILD)/store/*.d)
-include $(DEP_FILES)
NO_DEP = $(filter-out $(DEP_FILES:.d=.o) $(DEP_FILES:obj/%.d=%) $(DEP_FILES:.d=), \
	$(LIB_OBJ) $(UNIT_LIB_OBJ) $(CMD_OBJ) $(UNIT_BIN) $(FUZZ_OBJ) $(FUZZ_BIN))
$(NO_DEP): FORCE
FORCE:
.PHONY: FORCE

.PHONY: all deps test-deps have-deps check check-run check-stress check-loaded check-loaded-run demo demo-run check-fresh deb check-deb asan valgrind \
	bench install uninstall clean
.PHONY: bench-peers
.SECONDARY:

# ---------------------------------------------------------------- refusals (lib/claimsplit.c)
# share/refusals.txt is the one list of refusal phrasings: rag-revq reads it at run time, the
# offline claim splitter has it compiled in, as C strings made from it here.
# (a build before obj/ wrote it as lib/refusals.inc, which claimsplit.c's #include would find
# first, beside it: removed here, once)
obj/gen/refusals.inc: share/refusals.txt
	@mkdir -p $(@D)
	@rm -f lib/refusals.inc
	sed -e '/^[[:space:]]*#/d' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$$//' -e '/^$$/d' \
	  -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&",/' share/refusals.txt >$@
obj/lib/claimsplit.o obj/unit/lib/claimsplit.o $(FUZZ_BUILD)/claimsplit.o: obj/gen/refusals.inc
warnings cppcheck: obj/gen/refusals.inc

# ---------------------------------------------------------------- the operation registry (lib/op.c)
# obj/gen/ops.inc, a RAG_OP(NAME) line for each `const rag_op rag_op_NAME = {` in lib/*.c
# and a RAG_OP_TOOL line for a metric tool's (mk/ops.sh): lib/op.c's registry, lib/config.c's
# score names and lib/evalplan.c's metric tool stages are made of it, so that a new operation is
# its own file and nothing else (HACKING.md). Made on every run
# (FORCE: a file added or removed changes it too), written only when it changes, so that
# nothing is rebuilt for nothing.
$(GEN_OPS): FORCE
	@sh mk/ops.sh $@ $(sort $(wildcard lib/*.c))
obj/lib/op.o obj/lib/config.o obj/lib/evalplan.o obj/unit/lib/op.o obj/unit/lib/config.o obj/unit/lib/evalplan.o $(FUZZ_BUILD)/op.o $(FUZZ_BUILD)/config.o $(FUZZ_BUILD)/evalplan.o: $(GEN_OPS)
warnings: $(GEN_OPS)

# ---------------------------------------------------------------- protobuf (lib/otlppb.c)
# rag-serve's OTLP/HTTP receiver decodes the protobuf encoding with protobuf-c, from the
# official OpenTelemetry definitions vendored unchanged in share/proto/ (its README names the
# release) and ragpipe's own error Status (share/proto/ragpipe/rpc/status.proto). protoc-c
# generates their C code at build time into obj/gen/proto/ (never tracked), compiled into an
# archive of its own, obj/libproto.a, that LDLIBS links into every tool, unit test and fuzz
# target (librag.a holds one object per lib/*.c: tests/t/92-layers.t). The generated code is not
# ours: make warnings, cppcheck, complexity and calls read lib/ and cmd/ only, and its headers
# are included with -isystem (ALL_CFLAGS), so the strict warnings skip them too.
PROTOC_C    = protoc-c
PROTO_DIR   = share/proto
PROTO_SRC   = opentelemetry/proto/common/v1/common.proto opentelemetry/proto/resource/v1/resource.proto \
	opentelemetry/proto/trace/v1/trace.proto opentelemetry/proto/collector/trace/v1/trace_service.proto \
	ragpipe/rpc/status.proto
PROTO_GEN   = obj/gen/proto
PROTO_C     = $(PROTO_SRC:%.proto=$(PROTO_GEN)/%.pb-c.c)
PROTO_H     = $(PROTO_SRC:%.proto=$(PROTO_GEN)/%.pb-c.h)
PROTO_OBJ   = $(PROTO_SRC:%.proto=obj/proto/%.pb-c.o)
PROTO_A     = obj/libproto.a
# one run of protoc-c makes every file (a grouped target); the sources' directory is its -I, so
# the generated files include each other by the path under it
$(PROTO_C) $(PROTO_H) &: $(PROTO_SRC:%=$(PROTO_DIR)/%) | have-deps
	@mkdir -p $(PROTO_GEN)
	cd $(PROTO_DIR) && $(PROTOC_C) --c_out=$(CURDIR)/$(PROTO_GEN) $(PROTO_SRC)
obj/proto/%.pb-c.o: $(PROTO_GEN)/%.pb-c.c $(PROTO_H)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(PROTO_A): $(PROTO_OBJ)
	rm -f $@ && ar rcs $@ $(PROTO_OBJ)
$(BINS) $(UNIT_BIN) $(FUZZ_BIN): $(PROTO_A)
# the files that include the generated headers, in every build of them, and the checks that
# compile every source
obj/lib/otlppb.o obj/unit/lib/otlppb.o $(FUZZ_BUILD)/otlppb.o tests/unit/t-serveotlp.test: $(PROTO_H)
warnings: $(PROTO_H)

# the tests' maker of protobuf bodies (tests/helpers/otlp-pb.c: OTLP JSON in, protobuf out, by the
# same generated code), which tests/t/82-serve-otlp.t runs; built for the suite, not installed
TEST_HELPERS = obj/tests/otlp-pb
obj/tests/otlp-pb: tests/helpers/otlp-pb.c $(LIB_A) $(PROTO_A) $(PROTO_H)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)
check-run check-stress check-loaded-run valgrind bench: $(TEST_HELPERS)
