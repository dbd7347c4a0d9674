# wattcal — plain Makefile. `make` builds ./wattcal; `make test` runs the whole
# suite (Criterion unit tests, the same tests under ASan+UBSan, integration
# scripts, the fuzz corpora replayed); `make fuzz` fuzzes every parser with
# libFuzzer for FUZZ_SECONDS each (default 60); `make demo` runs the main job
# on the simulated node; `make bench` measures the sampler, the SQLite ingest
# and `wattcal validate` on a synthetic 24 h run. `make deps` installs what is
# missing.

CC      ?= cc
PKGS    := sqlite3 libcurl libcjson yaml-0.1 gsl libmicrohttpd libxcrypt
# libcurl and libmicrohttpd are loaded at run time by the part that needs
# them (common/wc_dl.h): their headers come from pkg-config, they are not
# linked, and the soname loaded is the one the build's .so names.
DL_PKGS := libcurl libmicrohttpd
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(filter-out $(DL_PKGS),$(PKGS)) 2>/dev/null)
soname_of  = $(shell readelf -d $(shell pkg-config --variable=libdir $(1) 2>/dev/null)/$(1).so \
               2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
WC_CURL_SONAME := $(or $(WC_CURL_SONAME),$(call soname_of,libcurl),libcurl.so.4)
WC_MHD_SONAME  := $(or $(WC_MHD_SONAME),$(call soname_of,libmicrohttpd),libmicrohttpd.so.12)
VERSION := 0.1.0
CFLAGS  ?= -O2 -g
WARN    := -std=c17 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2
CPPFLAGS_ALL = -I. -D_GNU_SOURCE -DWATTCAL_VERSION=\"$(VERSION)\" $(PKG_CFLAGS) \
               -DWC_CURL_SONAME=\"$(WC_CURL_SONAME)\" -DWC_MHD_SONAME=\"$(WC_MHD_SONAME)\"
LDLIBS_ALL   = $(PKG_LIBS) -lm -lpthread
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

PREFIX  ?= /usr/local
DESTDIR ?=

# Every part's folder and its rooms (collector/meter, collector/truth, ...):
# each .c below them is built into the library.
LIB_DIRS := common collector validator workloads reports
LIB_SRC  := $(sort $(shell find $(LIB_DIRS) -name '*.c'))
# The CLI: main.c, and every other cli/*.c in a library of its own that the
# unit tests link too (the CLI's printing and option parsing are tested there).
CLI_SRC  := $(sort $(wildcard cli/*.c))
CLI_MAIN := cli/main.c
CLI_LIB_SRC := $(filter-out $(CLI_MAIN),$(CLI_SRC))
TEST_SRC := $(sort $(shell find tests/unit -name '*.c'))
# ar keeps one member per file name: two library sources with one basename
# would silently drop one of them.
DUP_BASE := $(strip $(shell printf '%s\n' $(notdir $(LIB_SRC)) | sort | uniq -d))
$(if $(DUP_BASE),$(error library sources share a file name: $(DUP_BASE)))
BENCH_SRC:= $(sort $(wildcard bench/*.c))

B        := build/release
S        := build/asan
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
CLI_OBJ  := $(CLI_LIB_SRC:%.c=$(B)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(B)/%.o)
SLIB_OBJ := $(LIB_SRC:%.c=$(S)/%.o)
STEST_OBJ:= $(TEST_SRC:%.c=$(S)/%.o)
SCLI_OBJ := $(CLI_LIB_SRC:%.c=$(S)/%.o)

export WATTCAL_FIXTURES ?= $(abspath ../shared/fixtures)

.PHONY: all deps demo-deps test unit unit-asan demo bench install clean fuzz
all: wattcal

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -MMD -MP -c $< -o $@

$(S)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O1 -g $(SAN) $(CPPFLAGS_ALL) -MMD -MP -c $< -o $@

$(B)/libwattcal.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^
$(S)/libwattcal.a: $(SLIB_OBJ)
	rm -f $@ && ar rcs $@ $^
$(B)/libwattcal-cli.a: $(CLI_OBJ)
	rm -f $@ && ar rcs $@ $^
$(S)/libwattcal-cli.a: $(SCLI_OBJ)
	rm -f $@ && ar rcs $@ $^

wattcal: $(B)/$(CLI_MAIN:.c=.o) $(B)/libwattcal-cli.a $(B)/libwattcal.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS_ALL)

# The same CLI with sanitizers: integration scripts run it too (WATTCAL_BIN).
$(S)/wattcal: $(S)/$(CLI_MAIN:.c=.o) $(S)/libwattcal-cli.a $(S)/libwattcal.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS_ALL)

$(B)/unit-tests: $(TEST_OBJ) $(B)/libwattcal-cli.a $(B)/libwattcal.a
	$(CC) -o $@ $^ -lcriterion $(LDLIBS_ALL)
$(S)/unit-tests: $(STEST_OBJ) $(S)/libwattcal-cli.a $(S)/libwattcal.a
	$(CC) $(SAN) -o $@ $^ -lcriterion $(LDLIBS_ALL)

# bench_sampler scrapes the process exporter with libcurl itself: linked.
$(B)/bench-%: bench/%.c $(B)/libwattcal.a
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -o $@ $< $(B)/libwattcal.a $(LDLIBS_ALL) \
	    $(shell pkg-config --libs libcurl)

# ---- fuzzing (tests/fuzz/README.md) ---------------------------------------
# One libFuzzer harness per parser entry point, tests/fuzz/fuzz_<name>.c,
# with its seeds in tests/fuzz/corpus/<name>/ (a new harness is that one file
# and its corpus: nothing to register). `make fuzz` builds each with clang
# (-fsanitize=fuzzer,address,undefined, over a library built the same way)
# and runs it FUZZ_SECONDS; `make test` replays every corpus file through each
# harness built normally with tests/fuzz/replay.c as main (release and ASan).
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES   := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_DEPS    := tests/fuzz/fuzz.h tests/fuzz/support.c
F            := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# the parts whose parsers are fuzzed (no parser in validator/ or reports/)
FLIB_OBJ     := $(filter-out $(F)/validator/% $(F)/reports/%,$(LIB_SRC:%.c=$(F)/%.o))
REPLAY_BINS  := $(FUZZ_NAMES:%=$(B)/fuzz/replay-%) $(FUZZ_NAMES:%=$(S)/fuzz/replay-%)

$(F)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(WARN) -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(CPPFLAGS_ALL) -MMD -MP -c $< -o $@
$(F)/libwattcal.a: $(FLIB_OBJ)
	rm -f $@ && ar rcs $@ $^
$(F)/fuzz-%: tests/fuzz/fuzz_%.c $(FUZZ_DEPS) $(F)/libwattcal.a
	$(FUZZ_CC) $(WARN) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) $(CPPFLAGS_ALL) -o $@ $< \
	    tests/fuzz/support.c $(F)/libwattcal.a $(LDLIBS_ALL)
$(B)/fuzz/replay-%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_DEPS) $(B)/libwattcal.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS_ALL) -o $@ $< tests/fuzz/replay.c tests/fuzz/support.c \
	    $(B)/libwattcal.a $(LDLIBS_ALL)
$(S)/fuzz/replay-%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_DEPS) $(S)/libwattcal.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O1 -g $(SAN) $(CPPFLAGS_ALL) -o $@ $< tests/fuzz/replay.c \
	    tests/fuzz/support.c $(S)/libwattcal.a $(LDLIBS_ALL)

# Every harness for FUZZ_SECONDS each; a table of executions per harness at
# the end (tests/fuzz/run.sh). New inputs go to build/fuzz/corpus/<name>/,
# crashes to build/fuzz/crashes/ (copy a fixed one into the seed corpus).
fuzz: deps $(FUZZ_NAMES:%=$(F)/fuzz-%)
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)

deps:
	@sh scripts/install-deps.sh test
demo-deps:
	@sh scripts/install-deps.sh demo

unit: deps $(B)/unit-tests
	$(B)/unit-tests
unit-asan: deps $(S)/unit-tests
	$(S)/unit-tests

# Full suite; the last line is "N passed, N failed, N skipped".
test: deps wattcal $(B)/unit-tests $(S)/unit-tests $(S)/wattcal $(REPLAY_BINS)
	@sh tests/run-all.sh

demo: demo-deps wattcal
	@sh scripts/demo.sh

# bench_validate then times `./wattcal validate` on a synthetic 24 h run it
# generates (extra validate options: WATTCAL_BENCH_VALIDATE_ARGS; keep the DB:
# WATTCAL_BENCH_KEEP=1); bench_prom_import.sh times `wattcal import --prometheus`
# of 24 h at 5 s, 50 pods, from a local Prometheus holding backfilled blocks;
# bench_fleet.sh times `wattcal fleet` over 1,000 nodes x 24 h at 30 s.
bench: deps wattcal $(B)/bench-bench_sampler $(B)/bench-bench_validate $(B)/bench-bench_expo
	@$(B)/bench-bench_sampler
	@$(B)/bench-bench_validate
	@$(B)/bench-bench_expo
	@sh bench/bench_prom_import.sh
	@sh bench/bench_fleet.sh

# The docs keep the README's layout (its links to docs/*.md resolve); the man
# page's FILES section names PREFIX's paths; the bash completion is generated
# from the CLI's --help (its option tables) by scripts/gen-completion.sh.
DOCDIR  := $(PREFIX)/share/doc/wattcal
COMPDIR := $(PREFIX)/share/bash-completion/completions
install: wattcal
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(COMPDIR)
	install -m 0755 wattcal $(DESTDIR)$(PREFIX)/bin/wattcal
	sed 's#/usr/local/#$(PREFIX)/#g' docs/wattcal.1 >$(DESTDIR)$(PREFIX)/share/man/man1/wattcal.1
	chmod 0644 $(DESTDIR)$(PREFIX)/share/man/man1/wattcal.1
	install -m 0644 README.md runbook.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md docs/*.json $(DESTDIR)$(DOCDIR)/docs/
	for f in $$(find deploy -type f | sort); do \
	    install -D -m 0644 "$$f" "$(DESTDIR)$(DOCDIR)/$$f" || exit 1; done
	sh scripts/gen-completion.sh ./wattcal >$(DESTDIR)$(COMPDIR)/wattcal

clean:
	rm -rf build wattcal

-include $(shell find build -name '*.d' 2>/dev/null)
