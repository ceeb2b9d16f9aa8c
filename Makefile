# perfsweep build.  Plain GNU make; every folder's *.c except *_main.c goes
# into one static library, each *_main.c becomes a program in bin/.
#
#   make                 build bin/perfsweep, bin/perfsweep-bind, the demo app
#   make check           install missing packages, build with -Werror, run every test
#   make check-slurm-noarrays  the SLURM tests again, without job arrays
#   make demo            install, build, run the demo campaign and its report
#   make bench           benchmarks (timings live here, never in tests)
#   make man             the man page's synopsis from the option rows
#   make fuzz            build the libFuzzer targets (clang)
#   make SANITIZE=address,undefined check
#   make DEVELOPER=1     -Werror and extra warnings
#   make install PREFIX=/usr/local DESTDIR=   programs, man pages, bash
#                        completion, example configs and the demo program
#   make uninstall       remove exactly what install installed

CC      ?= cc
PKGS    := gsl libconfig jansson hwloc sqlite3 libxml-2.0 zlib ncursesw libpcre2-8
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -std=c11 -Wall -Wextra
ifeq ($(DEVELOPER),1)
WARN    += -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = $(WARN) -D_GNU_SOURCE -I. $(PKG_CFLAGS) $(CFLAGS)
LIBS       = $(PKG_LIBS) -lslurm -lm -lpthread
# Sanitized builds keep their objects and programs apart from normal ones.
ifdef SANITIZE
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS    += -fsanitize=$(SANITIZE)
B   ?= build-san
BIN ?= build-san/bin
endif
B   ?= build
BIN ?= bin
# One folder per backend under orchestrator/ (orchestrator/backend.h says what else a new one needs).
BACKENDS  := local slurm
LIB_DIRS  := common designs placement collectors models validator campaign analysis orchestrator \
	     $(addprefix orchestrator/,$(BACKENDS)) refine tui cli
LIB_SRCS  := $(filter-out %_main.c,$(wildcard $(addsuffix /*.c,$(LIB_DIRS))))
LIB_OBJS  := $(patsubst %.c,$(B)/%.o,$(LIB_SRCS))
MAIN_SRCS := $(wildcard $(addsuffix /*_main.c,$(LIB_DIRS)))
PROGS     := $(patsubst %_main,$(BIN)/%,$(notdir $(basename $(MAIN_SRCS))))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_TESTS:= $(patsubst tests/unit/%.c,$(B)/tests/%.t,$(UNIT_SRCS))
BENCH_SRCS:= $(wildcard tests/bench/*.c)
BENCHES   := $(patsubst tests/bench/%.c,$(B)/bench/%,$(BENCH_SRCS))
EXAMPLES  := $(BIN)/demo-app
# The MPI example needs Open MPI's compiler wrapper; without it, it is skipped.
MPICC     ?= $(shell command -v mpicc 2>/dev/null)
# The example programs are programs perfsweep measures, not perfsweep:
# never sanitized (LeakSanitizer would report Open MPI's own allocations,
# and the sanitizers' allocator changes the demo kernels' times).
APP_LDFLAGS = $(filter-out -fsanitize=%,$(LDFLAGS))
ifneq ($(MPICC),)
EXAMPLES  += $(BIN)/mpi-stream
endif

.PHONY: all deps check check-slurm-noarrays demo bench fuzz clean test-build install uninstall man
all: $(PROGS) $(EXAMPLES)

deps:
	@scripts/install-deps.sh

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(B)/libperfsweep.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BIN)/%: $(B)/cli/%_main.o $(B)/libperfsweep.a
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)
$(BIN)/%: $(B)/placement/%_main.o $(B)/libperfsweep.a
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# The demo application is a plain C program, built without our libraries,
# and linked without the sanitizers (APP_LDFLAGS): it is the workload, not
# perfsweep, and under their allocator its kernels' times changed (sort's
# log2(n) factor came out a constant slowdown in 88-compare-real).
$(BIN)/demo-app: examples/demo-app.c
	@mkdir -p $(BIN)
	$(CC) $(WARN) -D_GNU_SOURCE $(CFLAGS) $(APP_LDFLAGS) -o $@ $< -lm

# The MPI example (local MPI worlds, docs/placement.md): built only with mpicc.
$(BIN)/mpi-stream: examples/mpi-stream.c
	@mkdir -p $(BIN)
	$(MPICC) $(WARN) -D_GNU_SOURCE $(CFLAGS) $(APP_LDFLAGS) -o $@ $<

# Test helpers (tests/lib/*.c) are a library of their own, linked only into tests.
TESTLIB_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard tests/lib/*.c))
$(B)/libpstest.a: $(TESTLIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(B)/tests/%.t: tests/unit/%.c $(B)/libpstest.a $(B)/libperfsweep.a tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpstest.a $(B)/libperfsweep.a $(LIBS)

$(B)/bench/%: tests/bench/%.c $(B)/libpstest.a $(B)/libperfsweep.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libpstest.a $(B)/libperfsweep.a $(LIBS)

test-build: all $(UNIT_TESTS)

# make check: set-up, a -Werror build (CHECK_JOBS compilers at once), then
# every TAP test through prove (--timer: each file's time), in two lanes: the
# SLURM tests one after another beside the rest (scripts/check-tests.sh).
# CHECK_JOBS=1: one compiler, one lane.
CHECK_JOBS ?= 2
check: deps
	$(MAKE) -j$(CHECK_JOBS) DEVELOPER=1 test-build
	PERFSWEEP_ROOT=$(CURDIR) PERFSWEEP_BIN=$(CURDIR)/$(BIN) scripts/check-tests.sh $(CHECK_JOBS) \
	  $(UNIT_TESTS:%=./%) $(sort $(wildcard ./tests/integration/*.t))

# The SLURM tests once more without job arrays (backend.arrays = false for
# every campaign: PERFSWEEP_SLURM_ARRAYS=0), one after another.
SLURM_TESTS = $(shell grep -l slurm_test_init tests/integration/*.t)
check-slurm-noarrays: deps
	$(MAKE) -j$(CHECK_JOBS) DEVELOPER=1 test-build
	PERFSWEEP_SLURM_ARRAYS=0 PERFSWEEP_ROOT=$(CURDIR) PERFSWEEP_BIN=$(CURDIR)/$(BIN) \
	  prove --timer --failures -e '' $(SLURM_TESTS:%=./%)

# the man page's synopsis from the option rows (cli/usage.c)
man: all
	scripts/man-synopsis.sh $(BIN)/perfsweep

demo: deps
	$(MAKE) all
	scripts/demo.sh

bench: all $(BENCHES)
	@for b in $(BENCHES) $(sort $(wildcard tests/bench/*.sh)); do echo "== $$b"; PERFSWEEP_ROOT=$(CURDIR) PERFSWEEP_BIN=$(CURDIR)/$(BIN) ./$$b || exit 1; done

FUZZ_SRCS := $(wildcard tests/fuzz/*.c)
fuzz:
	@mkdir -p $(B)/fuzz
	$(MAKE) B=$(B)/fuzzlib CC=clang SANITIZE=fuzzer-no-link,address,undefined $(B)/fuzzlib/libperfsweep.a
	for f in $(FUZZ_SRCS); do clang $(WARN) -D_GNU_SOURCE -I. $(PKG_CFLAGS) -g -O1 -fsanitize=fuzzer,address,undefined \
	  -o $(B)/fuzz/$$(basename $$f .c) $$f $(B)/fuzzlib/libperfsweep.a $(LIBS) || exit 1; done

clean:
	rm -rf build build-san build-clang bin

# Installing.  Configs keep their relative paths: configs/*.cfg name
# ../bin/demo-app, so the demo program goes to share/perfsweep/bin/.  The
# man pages name the data directory of PREFIX.  Every installed path is
# quoted: DESTDIR may hold spaces.
PREFIX  ?= /usr/local
BINDIR  := $(PREFIX)/bin
MANDIR  := $(PREFIX)/share/man
COMPDIR := $(PREFIX)/share/bash-completion/completions
DATADIR := $(PREFIX)/share/perfsweep
MAN1    := docs/man/perfsweep.1 docs/man/perfsweep-bind.1
MAN5    := docs/man/perfsweep.cfg.5 docs/man/perfsweep-deps.5
# The MPI configs name ../bin/mpi-stream, which needs mpicc: not installed.
# Map files (placement.map) go beside the configs that name them.
CONFIGS := $(filter-out configs/lulesh-sparse.cfg configs/%-mpi-local.cfg configs/%-mpi-local.deps,\
	   $(wildcard configs/*.cfg configs/*.deps configs/*.map))
SCRIPTS := $(wildcard configs/*.sh)
# The LAMMPS and GROMACS examples (docs/applications.md): their scripts 755, the rest 644.
APP_EXAMPLES := $(wildcard examples/lammps/* examples/gromacs/*)
INSTALLED := $(BINDIR)/perfsweep $(BINDIR)/perfsweep-bind \
	$(addprefix $(MANDIR)/man1/,$(notdir $(MAN1))) $(addprefix $(MANDIR)/man5/,$(notdir $(MAN5))) \
	$(COMPDIR)/perfsweep $(addprefix $(DATADIR)/,$(CONFIGS) $(SCRIPTS)) \
	$(DATADIR)/configs/lulesh-sparse.cfg $(DATADIR)/data/lulesh/lulesh.ll.json \
	$(DATADIR)/data/lulesh/ATTRIBUTION $(DATADIR)/bin/demo-app $(DATADIR)/examples/demo-app.c \
	$(addprefix $(DATADIR)/,$(APP_EXAMPLES))

install: $(BIN)/perfsweep $(BIN)/perfsweep-bind $(BIN)/demo-app
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5" "$(DESTDIR)$(COMPDIR)" \
	  "$(DESTDIR)$(DATADIR)/configs" "$(DESTDIR)$(DATADIR)/bin" "$(DESTDIR)$(DATADIR)/examples" "$(DESTDIR)$(DATADIR)/data/lulesh" \
	  "$(DESTDIR)$(DATADIR)/examples/lammps" "$(DESTDIR)$(DATADIR)/examples/gromacs"
	install -m 755 $(BIN)/perfsweep $(BIN)/perfsweep-bind "$(DESTDIR)$(BINDIR)/"
	for m in $(MAN1) $(MAN5); do s=$${m##*.}; \
	  sed 's|/usr/local/share/perfsweep|$(DATADIR)|g' $$m > "$(DESTDIR)$(MANDIR)/man$$s/$${m##*/}" && \
	  chmod 644 "$(DESTDIR)$(MANDIR)/man$$s/$${m##*/}" || exit 1; done
	install -m 644 scripts/bash-completion/perfsweep "$(DESTDIR)$(COMPDIR)/perfsweep"
	install -m 644 $(CONFIGS) "$(DESTDIR)$(DATADIR)/configs/"
	install -m 755 $(SCRIPTS) "$(DESTDIR)$(DATADIR)/configs/"
	sed 's|\.\./tests/data/lulesh/|../data/lulesh/|' configs/lulesh-sparse.cfg > "$(DESTDIR)$(DATADIR)/configs/lulesh-sparse.cfg"
	chmod 644 "$(DESTDIR)$(DATADIR)/configs/lulesh-sparse.cfg"
	install -m 644 tests/data/lulesh/lulesh.ll.json tests/data/lulesh/ATTRIBUTION "$(DESTDIR)$(DATADIR)/data/lulesh/"
	install -m 755 $(BIN)/demo-app "$(DESTDIR)$(DATADIR)/bin/"
	install -m 644 examples/demo-app.c "$(DESTDIR)$(DATADIR)/examples/"
	for f in $(APP_EXAMPLES); do case $$f in *.sh) m=755 ;; *) m=644 ;; esac; \
	  install -m $$m $$f "$(DESTDIR)$(DATADIR)/$$f" || exit 1; done

uninstall:
	rm -f $(foreach f,$(INSTALLED),"$(DESTDIR)$(f)")
	for d in configs bin examples/lammps examples/gromacs examples data/lulesh data; do \
	  if [ -d "$(DESTDIR)$(DATADIR)/$$d" ]; then rmdir "$(DESTDIR)$(DATADIR)/$$d" || exit 1; fi; done
	if [ -d "$(DESTDIR)$(DATADIR)" ]; then rmdir "$(DESTDIR)$(DATADIR)"; fi

-include $(LIB_OBJS:.o=.d) $(TESTLIB_OBJS:.o=.d)
