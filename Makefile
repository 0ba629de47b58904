# jldp - PostgreSQL extension (PGXS)

EXTENSION = jldp
MODULE_big = jldp
DATA = src/jldp--0.1.0.sql

# math in plain C (no postgres.h), unit-tested without a server
MATH_OBJS = src/chacha20.o src/projection.o src/randbits.o src/laplace.o \
	src/sensitivity.o src/mechanism.o src/distance.o src/sparse.o \
	src/kmeans.o src/inner.o \
	src/randomized_response.o src/choose_k.o \
	src/csr.o src/gaussian.o
# PostgreSQL glue
GLUE_OBJS = src/jldp.o src/arrays.o src/options.o src/keystore.o \
	src/pcache.o src/strong_random.o src/release.o src/recover.o \
	src/budget.o src/table_release.o src/agg.o \
	src/analytics.o src/recover_inner.o \
	src/rr.o src/value_noise.o src/suggest_k.o
OBJS = $(MATH_OBJS) $(GLUE_OBJS)

# plain "make" builds the extension (PGXS's "all"), not the first object
.DEFAULT_GOAL := all

# calls between our own files bind directly, not through the PLT
SHLIB_LINK = -lopenblas -lm -Wl,-Bsymbolic-functions

$(OBJS): $(wildcard src/*.h)
PG_CPPFLAGS = -I$(srcdir)/src
# noise sampling and sensitivity bounds rely on IEEE semantics
PG_CFLAGS = -fno-fast-math -std=gnu99

REGRESS = keys release recover privileges fuzz table_release agg analytics kinds rr gaussian
REGRESS_OPTS = --inputdir=.

ifneq ($(wildcard /usr/lib/postgresql/15/bin/pg_config),)
PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config
else
PG_CONFIG ?= pg_config
endif
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(wildcard $(PGXS)),)
include $(PGXS)
else
all install installcheck:
	@echo "PostgreSQL 15 server headers are missing: run 'make deps' (or test/deps.sh)" >&2; exit 1
endif

.PHONY: deps demo test bench unit paper

deps:
	test/deps.sh

# the main job: a throwaway cluster (or PG* variables), release, recover, report
demo:
	test/deps.sh
	test/demo.sh

# every test
test:
	test/deps.sh
	test/run_all.sh

bench:
	test/deps.sh
	test/bench.sh

# the papers' experiments, reproduced through the extension: docs/reproduction.md
paper:
	test/deps.sh
	test/paper/run.sh

unit:
	$(MAKE) -C test/unit run
