# SPDX-License-Identifier: Apache-2.0
# aes-gen: the user-facing verbs.  CMake does the building, in build/.
#
#   make                 install missing Debian packages, build, print the default backend's
#                        table beside the peers
#   make gen [WIDTHS=1,2,4,8 | WIDTHS=aesni:1,2,4,8+portable:1,2] [BACKENDS=aesni,portable]
#            [KEYS=128,192,256]
#   make gen-check       regenerate to a temp dir and diff against generated/
#   make test            the whole suite through ctest
#   make bench [ARGS="--compare --bound"]
#   make plot            width sweep as build/sweep.svg
#   make tune / untune   fastest widths measured here into the next build, or not
#   make install [PREFIX=/usr/local]

PYTHON   ?= /usr/bin/python3
BUILD    ?= build
PREFIX   ?= /usr/local
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
# Debian packages the build, the generator and the tests need.
DEB_PACKAGES := cmake make gcc binutils pkg-config python3 python3-jinja2 python3-peachpy check \
                libssl-dev libgcrypt20-dev nettle-dev gnuplot-nox

GEN_ARGS := $(if $(WIDTHS),--widths $(WIDTHS)) $(if $(BACKENDS),--backends $(BACKENDS)) \
            $(if $(KEYS),--keys $(KEYS))

.PHONY: all deps configure build gen gen-check test bench plot tune untune install clean

all: build
	$(BUILD)/aes-gen-bench --compare --samples 7

# As root, installs what is missing; otherwise prints the exact command.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "missing Debian packages; run:"; \
	    echo "  sudo apt-get install$$missing"; exit 1; \
	  fi; \
	fi

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: configure
	cmake --build $(BUILD) -j $(JOBS)

gen: deps
	$(PYTHON) gen/aesgen.py $(GEN_ARGS)

gen-check: deps
	$(PYTHON) gen/aesgen.py --check

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/aes-gen-bench $(ARGS)

# Throughput against width, one line per backend and mode (AES-128).
plot: build
	$(BUILD)/aes-gen-bench --sweep --keys 128 --csv $(ARGS) > $(BUILD)/sweep.csv
	gnuplot -e "csv='$(BUILD)/sweep.csv'; out='$(BUILD)/sweep.svg'" bench/sweep.gp
	@echo "plot: $(BUILD)/sweep.svg"

# Measure every width, then rebuild so the library starts at the fastest ones.
tune: build
	$(BUILD)/aes-gen-bench --sweep --tune-out $(BUILD)/tuning.inc $(ARGS)
	cmake -S . -B $(BUILD) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# Back to the built-in order (widest kernel first).
untune:
	rm -f $(BUILD)/tuning.inc
	cmake -S . -B $(BUILD) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
