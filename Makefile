# Packaging of unlatched for C programs (README.md, "Installing for C programs").
#
#   make                          build libunlatched.so (with its SONAME) and libunlatched.a
#   make install [PREFIX=/usr/local] [DESTDIR=/staging] [WIREDTIGER_COMPAT=1]
#   make uninstall [PREFIX=...] [DESTDIR=...]
#   make examples                 build and run examples/c/ against the built library
#   make check                    cargo test (every test, the C ones included)
#   make help                     this list
#
# `cargo build --release` builds the same library without a SONAME (fine for linking from the
# source tree); this Makefile builds its own copy, in BUILD_DIR, linked with
# -soname libunlatched.so.MAJOR, so that installed programs find it through the usual
# libunlatched.so.MAJOR -> libunlatched.so.MAJOR.MINOR.PATCH link. The installation itself is
# tools/installer: all or nothing, recorded so that uninstall removes exactly what it put there.

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

PREFIX            ?= /usr/local
LIBDIR            ?= $(PREFIX)/lib
INCLUDEDIR        ?= $(PREFIX)/include
PKGCONFIGDIR      ?= $(LIBDIR)/pkgconfig
DATADIR           ?= $(PREFIX)/share
DESTDIR           ?=
# 1: also install libwiredtiger.so, libwiredtiger.a and wiredtiger.pc, pointing at unlatched.
WIREDTIGER_COMPAT ?= 0
# 1: replace a wiredtiger.h / wiredtiger.pc / libwiredtiger.* that is not unlatched's.
FORCE             ?= 0

CARGO       ?= cargo
CARGO_FLAGS ?=
PKG_CONFIG  ?= pkg-config
# Run after installing into the real root as root (empty: never).
LDCONFIG    ?= ldconfig
# Where this Makefile's own cargo build goes (kept apart from target/release).
BUILD_DIR   ?= $(ROOT)/target/install

VERSION := $(shell awk -F'"' '/^\[/ { p = ($$0 == "[package]") } p && /^version *=/ { print $$2; exit }' '$(ROOT)/Cargo.toml')
MAJOR   := $(firstword $(subst ., ,$(VERSION)))
SONAME  := libunlatched.so.$(MAJOR)
LIB_BUILD_DIR := $(abspath $(BUILD_DIR))/release

INSTALLER = PREFIX='$(PREFIX)' LIBDIR='$(LIBDIR)' INCLUDEDIR='$(INCLUDEDIR)' \
	PKGCONFIGDIR='$(PKGCONFIGDIR)' DATADIR='$(DATADIR)' DESTDIR='$(DESTDIR)' \
	WIREDTIGER_COMPAT='$(WIREDTIGER_COMPAT)' FORCE='$(FORCE)' LIB_BUILD_DIR='$(LIB_BUILD_DIR)' \
	VERSION='$(VERSION)' CC='$(CC)' PKG_CONFIG='$(PKG_CONFIG)' LDCONFIG='$(LDCONFIG)' \
	bash '$(ROOT)/tools/installer'

EXAMPLES := $(basename $(notdir $(wildcard $(ROOT)/examples/c/*.c)))

.PHONY: all build install uninstall examples check clean help

all: build

build:
	@command -v $(CARGO) >/dev/null 2>&1 || { echo "make: error: cargo ('$(CARGO)') not found: install a Rust toolchain (https://rustup.rs) or name it with CARGO=/path/to/cargo" >&2; exit 1; }
	@command -v $(firstword $(CC)) >/dev/null 2>&1 || { echo "make: error: C compiler '$(firstword $(CC))' not found: the build compiles a C shim. Install one (e.g. apt-get install gcc) or name it with CC=/path/to/cc" >&2; exit 1; }
	$(CARGO) rustc --manifest-path '$(ROOT)/Cargo.toml' --target-dir '$(abspath $(BUILD_DIR))' \
		--release --lib --crate-type cdylib --crate-type staticlib $(CARGO_FLAGS) \
		-- -C link-arg=-Wl,-soname,$(SONAME)
	@# Programs linked against the build tree need the library under its SONAME (the link
	@# may come from a concurrent make: a lost race is fine).
	@[ -L '$(LIB_BUILD_DIR)/$(SONAME)' ] || ln -s libunlatched.so '$(LIB_BUILD_DIR)/$(SONAME)' 2>/dev/null || \
		[ -L '$(LIB_BUILD_DIR)/$(SONAME)' ]

# Only the C library types are built here: with an rlib in the same build, rustc keeps every
# public item interposable and the hot paths pay indirect calls (about 4%, bench-c/RESULTS.md).

# Checks tools and destination first (fast, changes nothing), then builds, then installs.
install:
	@$(INSTALLER) preflight
	@$(MAKE) --no-print-directory -f '$(ROOT)/Makefile' build
	@$(INSTALLER) install

uninstall:
	@$(INSTALLER) uninstall

examples: build
	@mkdir -p '$(abspath $(BUILD_DIR))/examples'
	@set -e; for e in $(EXAMPLES); do \
		echo "== examples/c/$$e.c"; \
		$(CC) -std=c99 -Wall -Wextra -Wpedantic -Werror -I '$(ROOT)/include' '$(ROOT)/examples/c/'$$e.c \
			-o '$(abspath $(BUILD_DIR))/examples/'$$e -L '$(LIB_BUILD_DIR)' \
			-Wl,-rpath,'$(LIB_BUILD_DIR)' -lunlatched -pthread; \
		'$(abspath $(BUILD_DIR))/examples/'$$e; \
	done

check:
	$(CARGO) test --manifest-path '$(ROOT)/Cargo.toml' $(CARGO_FLAGS)

clean:
	rm -rf '$(abspath $(BUILD_DIR))'

help:
	@sed -n '3,9s/^# \{0,1\}//p' '$(ROOT)/Makefile'
