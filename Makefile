# aes-gen: the user-facing verbs.  CMake does the building, in build/.
#
#   make                 install missing Debian packages, build, print the AES-128 table
#   make gen [WIDTHS=1,2,4,8] [BACKENDS=portable] [KEYS=128,192,256]
#   make gen-check       regenerate to a temp dir and diff against generated/
#   make test            the whole suite through ctest
#   make bench [ARGS="--keys 256 --bytes 65536"]
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

.PHONY: all deps configure build gen gen-check test bench install clean

all: build
	$(BUILD)/aes-gen-bench --backend portable --keys 128

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

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
