# SPDX-License-Identifier: Apache-2.0
# aes-gen: the user-facing verbs.  CMake does the building, in build/.
#
#   make                 install missing Debian packages, build, print the default backend's
#                        table beside the peers
#   make gen [WIDTHS=1,2,4,8 | WIDTHS=aesni:1,2,4,8+portable:1,2] [BACKENDS=aesni,portable]
#            [KEYS=128,192,256]
#   make gen-check       regenerate to a temp dir and diff against generated/
#   make test            the whole suite through ctest
#   make test SANITIZE=address,undefined   (or thread) the suite on a sanitized build, in
#                        build-san-<names>/
#   make fuzz [SECONDS=60] libFuzzer (clang, ASan) over the API, seeded from tests/fuzz/seeds
#   make release-check   gen-check, -Werror gcc and clang builds with the install test, the
#                        ASan+UBSan suite, half a minute of fuzzing
#   make bench [ARGS="--compare --bound"]
#   make plot [BYTES=n]  width sweep as build/sweep.svg and .png, a panel per mode
#   make tune / untune   fastest widths measured here into the next build, or not
#   make install [PREFIX=/usr/local]   (then `ldconfig` under a system prefix)
#   make uninstall       remove what the last install wrote

PYTHON   ?= /usr/bin/python3
BUILD    ?= build
PREFIX   ?= /usr/local
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
# Debian packages, each list complete for its verbs: the generator alone
# (make gen), building (the library and the bench), the peers the bench
# compares with (optional: a missing one is a column of n/a; Intel ipsec-mb is
# x86-64 only), testing (OpenSSL is the differential tests' reference),
# plotting, fuzzing.
GEN_PACKAGES   := python3 python3-jinja2
BUILD_PACKAGES := $(GEN_PACKAGES) cmake make gcc libc6-dev binutils pkg-config
PEER_PACKAGES  := $(BUILD_PACKAGES) libssl-dev libgcrypt20-dev nettle-dev \
                  $(if $(filter x86_64,$(shell uname -m)),libipsec-mb-dev)
TEST_PACKAGES  := $(BUILD_PACKAGES) libssl-dev openssl check g++ valgrind python3-peachpy \
                  python3-cryptography-vectors
PLOT_PACKAGES  := $(BUILD_PACKAGES) gnuplot-nox
FUZZ_PACKAGES  := $(TEST_PACKAGES) clang libclang-rt-14-dev

# The plot's title: the CPU's name, family and model (the name alone may be generic).
CPU_NAME = $(shell awk -F': ' '/^model name/ && !n++ {m = $$2} /^cpu family/ && !f++ {f1 = $$2} \
             /^model\t/ && !mo++ {m1 = $$2} END {printf "%s, family %s model %s", m, f1, m1}' /proc/cpuinfo)

GEN_ARGS := $(if $(WIDTHS),--widths $(WIDTHS)) $(if $(BACKENDS),--backends $(BACKENDS)) \
            $(if $(KEYS),--keys $(KEYS))

# SANITIZE=address,undefined or thread: every C file of the library, the tests
# and the bench built with those sanitizers (errors abort), in their own tree.
comma := ,
CMAKE_ARGS :=
ifneq ($(SANITIZE),)
BUILD := build-san-$(subst $(comma),-,$(SANITIZE))
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer -g1
CMAKE_ARGS += "-DCMAKE_C_FLAGS=$(SAN_FLAGS)" "-DCMAKE_CXX_FLAGS=$(SAN_FLAGS)" \
              -DAES_GEN_SANITIZE=$(SANITIZE)
endif

.PHONY: all deps deps-gen deps-peers deps-test deps-plot deps-fuzz fuzz release-check configure build gen gen-check test bench plot tune untune \
        install uninstall clean

all: deps-peers build
	$(BUILD)/aes-gen-bench --compare --samples 7

# As root, installs what is missing (saying what, no Recommends); otherwise
# prints the one command that installs it and fails, or, given a third
# argument (the packages the verb cannot do without), goes on when none of
# those is missing.
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing ($(2)):$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends $$missing; \
	  else \
	    echo "missing Debian packages ($(2)); run:"; \
	    echo "  sudo apt-get install --no-install-recommends$$missing"; \
	    need=$(if $(3),"",yes); for p in $(3); do \
	      case " $$missing " in *" $$p "*) need=yes;; esac; \
	    done; \
	    [ -z "$$need" ] || exit 1; echo "(going on without them)"; \
	  fi; \
	fi
endef

deps-gen:
	$(call install_missing,$(GEN_PACKAGES),to generate)

deps:
	$(call install_missing,$(BUILD_PACKAGES),to build)

# make's comparison: the build's packages and the peers, in one line.
deps-peers:
	$(call install_missing,$(PEER_PACKAGES),to build and compare with the peers,$(BUILD_PACKAGES))

deps-test:
	$(call install_missing,$(TEST_PACKAGES),to test)

deps-plot:
	$(call install_missing,$(PLOT_PACKAGES),to plot)

deps-fuzz:
	$(call install_missing,$(FUZZ_PACKAGES),to fuzz)

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

gen: deps-gen
	$(PYTHON) gen/aesgen.py $(GEN_ARGS)

gen-check: deps-gen
	$(PYTHON) gen/aesgen.py --check

# The tests need Check; configure again once it is there.
test: deps-test build
	cmake -S . -B $(BUILD) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The fuzzer's own build (clang, coverage and ASan); new inputs it finds go to
# build-fuzz/corpus, the committed seeds stay as they are.
FUZZ_BUILD := build-fuzz
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -g1
fuzz: deps-fuzz
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Release -DAES_GEN_FUZZER=ON \
	  -DAES_GEN_SANITIZE=fuzzer "-DCMAKE_C_FLAGS=$(FUZZ_FLAGS)" >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_api
	mkdir -p $(FUZZ_BUILD)/corpus
	$(FUZZ_BUILD)/tests/fuzz_api -max_total_time=$(or $(SECONDS),60) -print_final_stats=1 \
	  $(FUZZ_BUILD)/corpus tests/fuzz/seeds

# Before a release: everything a user builds, with both compilers.
release-check: deps-fuzz
	$(PYTHON) gen/aesgen.py --check
	for cc in gcc clang; do \
	  cmake -S . -B build-release-$$cc -DCMAKE_BUILD_TYPE=Release -DAES_GEN_WERROR=ON \
	    -DCMAKE_C_COMPILER=$$cc >/dev/null && \
	  cmake --build build-release-$$cc -j $(JOBS) && \
	  (cd build-release-$$cc && ctest --output-on-failure -R '^(install|abi)$$') || exit 1; \
	done
	$(MAKE) test SANITIZE=address,undefined
	$(MAKE) fuzz SECONDS=30
	@echo "release-check: passed"

bench: build
	$(BUILD)/aes-gen-bench $(ARGS)

# Throughput against width, one line per backend and mode (AES-128).
plot: deps-plot build
	$(BUILD)/aes-gen-bench --sweep --keys 128 --csv --bytes $(or $(BYTES),8192) $(ARGS) \
	  > $(BUILD)/sweep.csv
	gnuplot -e "csv='$(BUILD)/sweep.csv'; out='$(BUILD)/sweep'; bytes=$(or $(BYTES),8192); bits=128; \
	  cpu='$(CPU_NAME)'; version='$(shell $(BUILD)/aes-gen-bench --version | awk '{print $$2; exit}')'" \
	  bench/sweep.gp
	@echo "plot: $(BUILD)/sweep.svg, $(BUILD)/sweep.png"

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

uninstall:
	cmake --build $(BUILD) --target uninstall

clean:
	@if [ -f $(BUILD)/tuning.inc ]; then \
	  echo "make clean: removing $(BUILD)/, with the make tune table in it (run make tune again)"; fi
	rm -rf $(BUILD)
