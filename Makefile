# jldp - PostgreSQL extension (PGXS)

EXTENSION = jldp
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" jldp.control)
MODULE_big = jldp
# the install script of the current version is built from the per-feature
# files of src/sql, in order; src/jldp--0.1.0.sql is the frozen base that
# the upgrade scripts (src/jldp--A--B.sql) start from
SQL_PARTS = $(sort $(wildcard src/sql/*.sql))
DATA_built = jldp--$(EXTVERSION).sql
DATA = src/jldp--0.1.0.sql $(sort $(wildcard src/jldp--*--*.sql))

# src/math: plain C without postgres.h, unit-tested without a server
# (test/unit); src/pg: the PostgreSQL glue.  The lists follow the folders.
MATH_OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/math/*/*.c)))
GLUE_OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/pg/*.c src/pg/*/*.c src/pg/*/*/*.c)))
OBJS = $(MATH_OBJS) $(GLUE_OBJS)

# plain "make" builds the extension (PGXS's "all"), not the first object
.DEFAULT_GOAL := all

jldp--$(EXTVERSION).sql: $(SQL_PARTS) jldp.control
	cat $(SQL_PARTS) > $@

# calls between our own files bind directly, not through the PLT
SHLIB_LINK = -lopenblas -lm -Wl,-Bsymbolic-functions

$(OBJS): $(wildcard src/math/*/*.h src/pg/*/*.h src/pg/*/*/*.h) jldp.control
PG_CPPFLAGS = -I$(srcdir)/src -DJLDP_VERSION=\"$(EXTVERSION)\"
# noise sampling and sensitivity bounds rely on IEEE semantics, and the
# products of the dense, sparse and CSR paths agree bit for bit only
# without fused multiply-adds the code did not ask for
PG_CFLAGS = -fno-fast-math -ffp-contract=off -std=gnu99

# the pg_regress files, by feature: every sql/*.sql, keys first (it
# creates the extension and the pinned key the others use)
REGRESS_ALL = $(sort $(basename $(notdir $(wildcard sql/*.sql))))
REGRESS = keys $(filter-out keys,$(REGRESS_ALL))
REGRESS_OPTS = --inputdir=.

ifneq ($(wildcard /usr/lib/postgresql/15/bin/pg_config),)
PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config
else
PG_CONFIG ?= pg_config
endif
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)

# make WARNINGS=error: the build make test runs, -Wall -Wextra as errors;
# not -Wunused-parameter, since fmgr's calling convention and the hooks'
# signatures leave parameters unused; PostgreSQL's headers as system
# headers (their own -Wextra warnings are not ours)
ifeq ($(WARNINGS),error)
PG_CFLAGS += -Wall -Wextra -Wno-unused-parameter -Werror
PG_CPPFLAGS += -isystem $(shell $(PG_CONFIG) --includedir-server)
endif
ifeq ($(MAKECMDGOALS),check)
# the edit-test loop: unit tests and pg_regress (test/check.sh), in place
# of PGXS's "check", which needs a server built in a source tree
check:
	test/deps.sh
	test/check.sh
else ifneq ($(wildcard $(PGXS)),)
include $(PGXS)
# the same for the bitcode PGXS builds for JIT inlining (clang contracts
# multiply-adds by default), so that code inlined into a query computes the
# same bits (after the include, which sets BITCODE_CFLAGS)
BITCODE_CFLAGS += -fno-fast-math -ffp-contract=off -std=gnu99
else
all install installcheck:
	@echo "PostgreSQL 15 server headers are missing: run 'make deps' (or test/deps.sh)" >&2; exit 1
endif

.PHONY: deps demo test check bench load unit paper fuzz fuzz-core

deps:
	test/deps.sh

# the main job: a throwaway cluster (or PG* variables), release, recover, report
demo:
	test/deps.sh
	test/demo.sh

# every test
test:
	test/deps.sh test
	test/run_all.sh

bench:
	test/deps.sh bench
	test/bench/bench.sh

# 8 sessions of budgeted releases for 5 minutes (test/integration/load.sh): figures
load:
	test/deps.sh
	test/integration/load.sh 300

# the papers' experiments, reproduced through the extension: test/paper/reproduction.md
paper:
	test/deps.sh
	test/paper/run.sh

unit:
	$(MAKE) -C test/unit run

# the plain-C core under libFuzzer, 10 million executions (make test runs
# each harness for 20 s): test/fuzz/core
fuzz-core:
	test/deps.sh test
	$(MAKE) -C test/fuzz/core long

# the SQL fuzzer for 30 minutes (make test runs it for 150 s)
fuzz:
	test/deps.sh
	test/fuzz/sql/fuzz_cluster.sh $${JLDP_FUZZ_SECONDS:-1800}
