# Convenience front end to the meson build (README "Quick start").
#   make deps      install the Debian packages the build and tests need (as root, or via sudo)
#   make build     configure build/ and compile
#   make demo      build, then boot the bundled hello guest
#   make test      build, run every meson test, then the sanitizer build's tests
#   make test-san  only the AddressSanitizer/UBSan build (build-san/) and its tests
#   make bench     guest MIPS of the bench/ programs (ALU, memory and page-walk loops, 32- and 64-bit)
#   make clean     remove build/ and build-san/

BUILD ?= build
BUILD_SAN ?= build-san
HVEMU := $(BUILD)/cli/hvemu
APT_PACKAGES := build-essential meson ninja-build pkg-config libcapstone-dev libelf-dev \
	check libsdl2-dev gcc-multilib qemu-system-x86
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: all deps build demo test test-san bench clean

all: build

# Installs only what is missing, so repeated runs cost one dpkg query per package.
deps:
	@if ! command -v dpkg-query >/dev/null 2>&1; then \
		echo "deps: not a Debian system; install by hand: $(APT_PACKAGES)"; exit 0; fi; \
	missing=""; \
	for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing$$missing"; \
		$(SUDO) apt-get update && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

# The hello guest prints on COM1 and reports through isa-debug-exit: status 1 = passed.
demo: build
	@status=0; $(HVEMU) run --kernel $(BUILD)/tests/guests/hello.elf || status=$$?; \
	echo "hvemu exit status $$status (1 = the guest passed)"; test $$status -eq 1

test: build
	meson test -C $(BUILD) --print-errorlogs
	$(MAKE) test-san

$(BUILD_SAN)/build.ninja:
	meson setup $(BUILD_SAN) -Db_sanitize=address,undefined

test-san: deps $(BUILD_SAN)/build.ninja
	ninja -C $(BUILD_SAN)
	meson test -C $(BUILD_SAN) --print-errorlogs

bench: build
	ninja -C $(BUILD) bench

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
