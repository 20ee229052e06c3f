# profconv - one plain Makefile (git style).
#
#   make               build build/profconv
#   make demo          set-up, build, build the Windows programs of samples/pe,
#                      convert samples/demo-pe.spt to pprof, show pprof -top with names
#   make check         set-up, build, every test (unit, golden, e2e, malformed, fuzz)
#   make bench         speed and peak memory on generated 256 MB SPT and perf script files
#   make fuzz          build the libFuzzer targets and run each FUZZ_SECONDS
#   make lib           build/libprofconv.a and build/libprofconv.so.$(SOVERSION)
#   make install       PREFIX=/usr/local DESTDIR= : binary, libraries, header,
#                      profconv.pc and man pages
#
# Knobs: DEVELOPER=1 (strict warnings as errors), SANITIZE=address,undefined
# (objects go to build/sanitize), CC, CFLAGS, PREFIX, DESTDIR, JOBS (the
# parallel jobs of demo's and check's builds and of check's end-to-end
# tests; default: the CPUs).

CC ?= cc
PKG_CONFIG ?= pkg-config
PROTOC_C ?= protoc-c
CLANG ?= $(shell command -v clang-14 || command -v clang)
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 60
JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
# libprofconv.so.SOVERSION; the soname changes only when the ABI breaks
SOVERSION := 0
LIBVERSION := 0.1.0

CFLAGS ?= -O2 -g
PKGS := zlib libdeflate libprotobuf-c libxml-2.0 libelf libdw libzstd libzip
# libiberty (cplus_demangle) has no pkg-config file: Debian's libiberty-dev
# puts its headers in /usr/include/libiberty.
LIBIBERTY_CFLAGS := -isystem /usr/include/libiberty
LIBIBERTY_LIBS := -liberty
PC_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -pthread -Wall -Wextra \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) $(LIBIBERTY_CFLAGS)
PC_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) $(LIBIBERTY_LIBS) -lm -pthread
TEST_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
TEST_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

ifeq ($(DEVELOPER),1)
PC_CFLAGS += -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wold-style-definition -Wvla -Wformat=2 -Wpointer-arith -Wcast-align \
	-Wwrite-strings -Wundef -Wimplicit-fallthrough -pedantic
endif

ifneq ($(SANITIZE),)
BUILD ?= build/sanitize
PC_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_LDFLAGS := -fsanitize=$(SANITIZE)
else
BUILD ?= build
endif

GEN := build/gen
LIB_SRC := $(wildcard src/base/*.c src/model/*.c src/readers/*.c src/writers/*.c src/symbols/*.c \
	src/pipeline/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/profile.pb-c.o
CLI_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/cli/*.c))
TEST_SRC := $(wildcard tests/*/test_*.c)
TEST_BIN := $(TEST_SRC:%.c=$(BUILD)/%)
TEST_SUPPORT := $(wildcard tests/support/*.c)
TOOL_SRC := $(wildcard tools/*.c)
TOOL_BIN := $(TOOL_SRC:tools/%.c=$(BUILD)/tools/%)
# One target per fuzz_*.c, and one per writer of the registry (fuzz_write_NAME,
# from tests/fuzz/fuzz_write.c): a new writer is fuzzed without a new file.
FUZZ_SRC := $(filter-out tests/fuzz/fuzz_write.c,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_WRITERS := $(shell sed -n 's/^	&pc_\(.*\)_writer,$$/\1/p' src/pipeline/registry.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%) $(FUZZ_WRITERS:%=build/fuzz/fuzz_write_%)
FUZZ_SUPPORT := $(wildcard tests/fuzz/support/*.c) tests/support/read_memory.c
FUZZ_OBJ := $(patsubst %.c,build/fuzz/obj/%.o,$(LIB_SRC) $(FUZZ_SUPPORT) $(GEN)/profile.pb-c.c)
# ETL_RANGE_SEQS_MAX: the ETL reader gives up its two ranges (and reads
# sequentially) past 64 stacks a range instead of 2^31; ETL_GROUP_*: it
# groups samples in two ranges from 8 samples on (not 4096) and gives a
# range's grouping up after 16 (not 4096) keys that hardly repeat;
# PS_SPLIT_MIN_BYTES: the perf script reader reads a file of 64 bytes (not
# 4 MiB) or more in two halves; ETL_STREAM_STEP_*: an ETL stream takes a
# step every 2 samples (not every 256 or more); so that fuzzing reaches them.
FUZZ_CFLAGS = -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -fsanitize=address,undefined \
	-fno-sanitize-recover=all $(shell $(PKG_CONFIG) --cflags $(PKGS)) $(LIBIBERTY_CFLAGS) \
	$(INCLUDES) -Itests -Itests/fuzz -DETL_RANGE_SEQS_MAX=64 -DETL_GROUP_SPLIT_MIN=8 \
	-DETL_GROUP_REUSE_PERIOD=16 -DPS_SPLIT_MIN_BYTES=64 -DETL_STREAM_STEP_MIN=2 \
	-DETL_STREAM_STEP_BYTES=1048576
INCLUDES := -Iinclude -Isrc -I$(GEN)

.PHONY: all lib deps demo check unit tests tools fuzz fuzz-build bench install clean
.DELETE_ON_ERROR:

all: $(BUILD)/profconv $(TOOL_BIN)

deps:
	@sh scripts/setup.sh

$(GEN)/profile.pb-c.c $(GEN)/profile.pb-c.h: proto/profile.proto
	@mkdir -p $(GEN)
	$(PROTOC_C) --proto_path=proto --c_out=$(GEN) proto/profile.proto

$(BUILD)/gen/profile.pb-c.o: $(GEN)/profile.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PC_CFLAGS) -Wno-pedantic $(INCLUDES) -c -o $@ $<

$(BUILD)/%.o: %.c $(GEN)/profile.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PC_CFLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<

# The command line sees the public header only: it is built on the library API.
$(BUILD)/src/cli/%.o: src/cli/%.c include/profconv.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PC_CFLAGS) -Iinclude -MMD -MP -c -o $@ $<

$(BUILD)/libprofconv.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The shared library: position-independent objects of their own, and only
# the profconv_* functions of include/profconv.h exported.
PIC_OBJ := $(LIB_SRC:%.c=$(BUILD)/pic/%.o) $(BUILD)/pic/gen/profile.pb-c.o
SHLIB := $(BUILD)/libprofconv.so.$(LIBVERSION)

$(BUILD)/pic/gen/profile.pb-c.o: $(GEN)/profile.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PC_CFLAGS) -fPIC -Wno-pedantic $(INCLUDES) -c -o $@ $<

$(BUILD)/pic/%.o: %.c $(GEN)/profile.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PC_CFLAGS) -fPIC $(INCLUDES) -MMD -MP -c -o $@ $<

$(SHLIB): $(PIC_OBJ) src/pipeline/libprofconv.map
	$(CC) $(CFLAGS) $(SAN_LDFLAGS) -shared -Wl,-soname,libprofconv.so.$(SOVERSION) \
		-Wl,--version-script=src/pipeline/libprofconv.map -o $@ $(PIC_OBJ) $(PC_LIBS)

lib: $(BUILD)/libprofconv.a $(SHLIB)

$(BUILD)/profconv: $(CLI_OBJ) $(BUILD)/libprofconv.a
	$(CC) $(CFLAGS) $(SAN_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libprofconv.a $(PC_LIBS)

$(BUILD)/tools/%: tools/%.c $(BUILD)/libprofconv.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PC_CFLAGS) $(INCLUDES) $(SAN_LDFLAGS) -o $@ $< $(BUILD)/libprofconv.a $(PC_LIBS)

$(BUILD)/tests/%: tests/%.c $(TEST_SUPPORT) $(BUILD)/libprofconv.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PC_CFLAGS) -Wno-missing-prototypes $(TEST_CFLAGS) $(INCLUDES) -Itests \
		$(SAN_LDFLAGS) -o $@ $< $(TEST_SUPPORT) $(BUILD)/libprofconv.a $(PC_LIBS) $(TEST_LIBS)

tests: $(TEST_BIN)

# Unit tests only (what .ci/run repeats under SANITIZE=address,undefined).
unit: all tests
	@BUILD=$(BUILD) sh tests/run.sh unit

build/tools/pprof:
	@mkdir -p build/tools
	sh scripts/build-pprof.sh build/tools >/dev/null

demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all build/tools/pprof
	sh scripts/make-pe.sh build/pe
	$(BUILD)/profconv convert -o build/demo.pb.gz samples/demo-pe.spt
	PPROF_BINARY_PATH=build/pe build/tools/pprof -top -nodecount=15 build/demo.pb.gz

check: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all tests build/tools/pprof fuzz-build
	@BUILD=$(BUILD) SET_UP=1 JOBS=$(JOBS) sh tests/run.sh all

# (the objects named here, so that make keeps them: not intermediate files)
fuzz-build: $(if $(CLANG),$(FUZZ_OBJ) $(FUZZ_BIN))

# The library and the harness are compiled once (instrumented for libFuzzer,
# ASan and UBSan) and linked into every target.
build/fuzz/obj/%.o: %.c $(GEN)/profile.pb-c.h
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(PC_LIBS)

build/fuzz/fuzz_write_%: tests/fuzz/fuzz_write.c $(FUZZ_OBJ) build/fuzz/hotpath
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DFUZZ_WRITER=pc_$*_writer -o $@ $< \
		$(FUZZ_OBJ) $(PC_LIBS)

# The ELF file with DWARF that the writer targets give --binary (gcc-afdo, llvm-sample).
build/fuzz/hotpath: samples/autofdo/hotpath.c
	@mkdir -p $(dir $@)
	$(CLANG) -g -O2 -o $@ $<

# make fuzz FUZZ_SECONDS=N [FUZZ_TARGETS='write_pprof merge ...']: each target
# N seconds, one after the other (tests/fuzz/run.sh: seeds, dictionary, -max_len).
fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) build/fuzz \
		$(if $(FUZZ_TARGETS),$(FUZZ_TARGETS:%=build/fuzz/fuzz_%),$(FUZZ_BIN))

bench: all
	@sh tests/bench.sh $(BUILD)

install: all lib
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man3 $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(BUILD)/profconv $(DESTDIR)$(PREFIX)/bin/profconv
	install -m 644 $(BUILD)/libprofconv.a $(DESTDIR)$(LIBDIR)/libprofconv.a
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/libprofconv.so.$(LIBVERSION)
	ln -sf libprofconv.so.$(LIBVERSION) $(DESTDIR)$(LIBDIR)/libprofconv.so.$(SOVERSION)
	ln -sf libprofconv.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libprofconv.so
	install -m 644 include/profconv.h $(DESTDIR)$(INCLUDEDIR)/profconv.h
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(LIBVERSION)|; s|@REQUIRES@|$(PKGS)|' profconv.pc.in \
		>$(DESTDIR)$(LIBDIR)/pkgconfig/profconv.pc
	install -m 644 man/profconv.1 $(DESTDIR)$(PREFIX)/share/man/man1/profconv.1
	install -m 644 man/profconv.3 $(DESTDIR)$(PREFIX)/share/man/man3/profconv.3
	install -m 644 man/profconv-formats.5 $(DESTDIR)$(PREFIX)/share/man/man5/profconv-formats.5

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(PIC_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d)
