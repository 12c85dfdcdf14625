# Convenience front end to the meson build (README "Quick start").
#   make deps          install the Debian packages the build and tests need (as root, or via sudo)
#   make build         configure build/ and compile
#   make demo          build, then run the NOVA/Escape repro (hvemu repro run), as the
#                      APM says and with QEMU 7.2's EXITINFO2
#   make test          what CI runs (.ci/run), warnings as errors in every build:
#                      test-plain, test-release, test-real, test-clang, then test-san
#   make test-plain    build/ (gcc, debugoptimized): every meson test
#   make test-release  build-release/ (gcc -O3): the unit and guest suites
#   make test-clang    build-clang/ (clang, debugoptimized): the unit and guest suites
#   make test-san      build-san/ (AddressSanitizer/UBSan): every test but the QEMU
#                      and Bochs runs (they run the same guest images as in build/)
#   make test-real     build-release/: Debian's packages (fetched with apt-get download) under
#                      hvemu: Linux (PVH, bzImage, SMP, q35), KVM inside it (AMD and Intel, nested
#                      and shadow paging), Xen 4.17 with a PV dom0; QEMU on the same files beside
#   make bench         build-bench/ (gcc -O3, warnings not errors): guest MIPS, page touches and
#                      round trips per second of the bench/ programs (ALU, memory and page-walk
#                      loops, 32- and 64-bit, VMMCALL/VMCALL), then each ratio to QEMU TCG's speed
#                      on the same guests beside issue 18's target, when QEMU is installed
#   make clean         remove build/, build-san/, build-release/, build-clang/ and build-bench/
#
# Warnings are errors in the test builds (-Dwerror=true), never in `make build`:
# a newer compiler's new warning must not stop a user's build.

BUILD ?= build
BUILD_SAN ?= build-san
BUILD_RELEASE ?= build-release
BUILD_CLANG ?= build-clang
BUILD_BENCH ?= build-bench
HVEMU := $(BUILD)/cli/hvemu
APT_PACKAGES := build-essential meson ninja-build pkg-config libcapstone-dev libelf-dev \
	check libsdl2-dev gcc-multilib qemu-system-x86 clang xvfb xdotool \
	bochs bochs-term bochsbios vgabios gdb
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: all deps build demo test test-plain test-release test-clang test-san test-real bench clean

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

# The NOVA/Escape repro (README "Repro catalog"): a 32-bit and a 64-bit L1 under
# nested SVM report EXITINFO2 of 18 page faults whose addresses cross 4 GiB;
# status 1 = each is the 32-bit address APM2 15.12 wants. Then the same with
# QEMU 7.2's EXITINFO2 (the quirk): the L1's vTLB loops as NOVA's did, and the
# livelock detector ends the run (status 18) and names the loop.
demo: build
	@status=0; $(HVEMU) repro run nova-escape-exitinfo2 || status=$$?; \
	echo "hvemu exit status $$status (1 = every check passed)"; test $$status -eq 1
	@status=0; $(HVEMU) repro run nova-escape-exitinfo2 --quirk qemu-exitinfo2-nowrap --stats || status=$$?; \
	echo "hvemu exit status $$status (18 = the livelock QEMU 7.2's EXITINFO2 causes, caught)"; test $$status -eq 18

test: test-plain test-release test-real test-clang test-san

# Reuses build/ from `make build`, switched to warnings as errors before it compiles.
test-plain: deps $(BUILD)/build.ninja
	meson configure $(BUILD) -Dwerror=true
	ninja -C $(BUILD)
	meson test -C $(BUILD) --print-errorlogs

$(BUILD_RELEASE)/build.ninja:
	meson setup $(BUILD_RELEASE) -Dbuildtype=release -Dwerror=true

test-release: deps $(BUILD_RELEASE)/build.ninja
	ninja -C $(BUILD_RELEASE)
	meson test -C $(BUILD_RELEASE) --print-errorlogs --suite unit --suite guests

$(BUILD_CLANG)/build.ninja:
	CC=clang meson setup $(BUILD_CLANG) -Dwerror=true

test-clang: deps $(BUILD_CLANG)/build.ninja
	ninja -C $(BUILD_CLANG)
	meson test -C $(BUILD_CLANG) --print-errorlogs --suite unit --suite guests

$(BUILD_SAN)/build.ninja:
	meson setup $(BUILD_SAN) -Db_sanitize=address,undefined -Dwerror=true

# Under ASan/UBSan the suites run many times slower (vmx_checks: 0.8 s plain,
# 19 s here, each of its forked cases mapping the sanitizer's shadow): every
# timeout tripled, so that a loaded machine does not turn slowness into a
# timeout while a hang is still one.
test-san: deps $(BUILD_SAN)/build.ninja
	ninja -C $(BUILD_SAN)
	meson test -C $(BUILD_SAN) --print-errorlogs --timeout-multiplier 3 --no-suite qemu --no-suite qemu-cpus --no-suite bochs

# Downloads Debian's packages (apt-get download) and boots them in the release
# build; each scenario skips (77) when its packages cannot be fetched.
test-real: deps $(BUILD_RELEASE)/build.ninja
	ninja -C $(BUILD_RELEASE)
	HVEMU_REAL=1 meson test -C $(BUILD_RELEASE) --print-errorlogs --verbose --suite real

$(BUILD_BENCH)/build.ninja:
	meson setup $(BUILD_BENCH) -Dbuildtype=release

bench: deps $(BUILD_BENCH)/build.ninja
	ninja -C $(BUILD_BENCH) bench

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_RELEASE) $(BUILD_CLANG) $(BUILD_BENCH)
