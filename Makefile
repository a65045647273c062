# Makefile for the Zèrtz AlphaZero engine.
#
#   make            build the library (build/libzertz.a) and every tool (tools/<name> from tools/<name>.c)
#   make test       build and run every Check suite (tests/test_*.c), CPU only; GPU suites skip loudly
#   make test-web   the web page in a real browser (chromium + playwright-core; tests/web/run.sh)
#   make gpu-report OUT=DIR  the first GPU session's checks and measurements (src/cuda/gpu_report.sh)
#   make deps-fetch carry the libraries the build needs, for a machine with no package registry
#   make bench      run the CPU benchmarks (tools/bench_*.c)
#   make bench-gpu  run the GPU benchmarks (needs nvcc and a GPU)
#   make lab        build and run the CUDA kernel lab (src/cuda/lab/*.cu: numbered versions, checked, timed)
#   make train      self-play training with the embedded default config
#   make train-mpi  the same over MPI ranks: mpirun -np $(NP) tools/train --mpi (needs Open MPI)
#   make soak       a small training run SIGKILLed SOAK_KILLS times over SOAK_MINUTES, resumed and checked (src/train/soak.sh)
#   make strength   the strength ladder of the shipped network (tools/strength; STRENGTH_ARGS="...")
#   make test-asan  the suites under AddressSanitizer + UndefinedBehaviorSanitizer
#   make test-tsan  the suites under ThreadSanitizer
#   make fuzz       libFuzzer + ASan/UBSan on every parser of outside input, FUZZ_SECONDS=N each (tests/fuzz/run.sh)
#
# Variables: CC, OPT (default -O3 -march=native), NVCC, MPICC, BOARDSPACE_DIR (for the parity tests),
# NP and MPIRUN_ARGS (make train-mpi), NO_APT=1 (never call apt-get), DEPS_DIR (carried packages).

CC      ?= gcc
OPT     ?= -O3 -march=native
WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CFLAGS  := -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -g -Isrc $(EXTRA_CFLAGS)
LDLIBS  := -lmicrohttpd -lcjson -lm -lpthread
BUILD   ?= build

# ---- the Debian packages the build needs ------------------------------------------------------
# On a fresh Debian machine `make train` / `make test` must work as the first command: missing
# packages are installed here when running as root (apt-get update first), else the command to
# run is printed and make stops.  Checked before the detection below, which sees what was
# installed.  Skipped where there is no dpkg (not Debian), for `make clean` and `make deps-fetch`,
# and with NO_APT=1.  Open MPI is optional (the build without it is complete): installed the same
# way for `make train-mpi`, and by .ci/run in CI.  When apt-get cannot install (no network), the
# build goes on with what is here and says so.
#
# Carried packages, for a machine that reaches no package registry (the GPU machine: see
# src/cuda/NOTES.md): `make deps-fetch`, run where Debian's registry is reachable, downloads the
# .deb files of CARRY_PKGS into $(DEPS_DIR)/debs and unpacks them (dpkg -x: nothing is installed)
# into $(DEPS_DIR)/root.  Where that folder exists the build takes headers and libraries from it
# too (and runs with it as an rpath), and a package unpacked there counts as present.
DEPS_DIR   ?= .deps
DEPS_ROOT  := $(abspath $(DEPS_DIR)/root)
CARRY_PKGS := check libsubunit-dev libsubunit0 libstb-dev libcjson-dev libcjson1 libmicrohttpd-dev libmicrohttpd12
CARRIED    := $(notdir $(wildcard $(DEPS_ROOT)/.pkg/*))
DEB_PKGS := build-essential check libstb-dev libomp-dev pkg-config libcjson-dev libmicrohttpd-dev \
            $(if $(filter train-mpi,$(MAKECMDGOALS)),openmpi-bin libopenmpi-dev) \
            $(if $(filter test-web,$(MAKECMDGOALS)),chromium)
ifeq ($(filter clean deps-fetch,$(MAKECMDGOALS))$(NO_APT),)
  DEB_MISSING := $(filter-out $(CARRIED),$(strip $(shell command -v dpkg >/dev/null 2>&1 && for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done)))
  ifneq ($(DEB_MISSING),)
    ifeq ($(shell id -u),0)
      $(info zertz build: installing the missing Debian packages: $(DEB_MISSING) (apt-get as root, about a minute))
      DEB_OK := $(shell export DEBIAN_FRONTEND=noninteractive; timeout 300 apt-get update -qq >/dev/null 2>&1 && timeout 600 apt-get install -y -qq $(DEB_MISSING) >/dev/null 2>&1 && echo ok)
      ifneq ($(DEB_OK),ok)
        $(warning zertz build: apt-get could not install $(DEB_MISSING) (no network?): building with what is here; NO_APT=1 skips this check, `make deps-fetch` elsewhere carries the libraries)
      endif
    else
      $(error zertz build: missing Debian packages: $(DEB_MISSING). Install them with: sudo apt-get update && sudo apt-get install -y $(DEB_MISSING) (or NO_APT=1 to build with what is here))
    endif
  endif
endif

# ---- detection -------------------------------------------------------------------------------
OPENMP_OK := $(shell echo 'int main(void){return 0;}' | $(CC) -fopenmp -x c - -o /dev/null 2>/dev/null && echo yes)
ifeq ($(OPENMP_OK),yes)
  CFLAGS  += -fopenmp
  LDFLAGS += -fopenmp
endif
ifeq ($(origin NVCC),undefined)
  NVCC := $(shell command -v nvcc 2>/dev/null || (test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc))
endif
# MPI (optional): with mpicc (Open MPI's: --showme), tools/train gets --mpi (src/train/mpi_*.c are
# compiled with MPI's headers, tools/train linked with its library); without it the build is the same
# minus that, and `tools/train --mpi` says so (exit 2).
ifeq ($(origin MPICC),undefined)
  MPICC := $(shell command -v mpicc 2>/dev/null)
endif
MPI_OK :=
ifneq ($(MPICC),)
  MPI_INC  := $(shell $(MPICC) --showme:compile 2>/dev/null)
  MPI_LIBS := $(shell $(MPICC) --showme:link 2>/dev/null)
  ifneq ($(MPI_LIBS),)
    MPI_OK := yes
    CFLAGS += -DZZ_HAVE_MPI=1
  else
    $(info zertz build: $(MPICC) found but it is not Open MPI's (no --showme): tools/train --mpi left out)
  endif
endif
ifneq ($(wildcard $(DEPS_ROOT)/usr/include),)
  DEPS_LIB := $(DEPS_ROOT)/usr/lib/x86_64-linux-gnu
  CFLAGS   += -isystem $(DEPS_ROOT)/usr/include
  LDFLAGS  += -L$(DEPS_LIB) -Wl,-rpath,$(DEPS_LIB)
  DEPS_PC  := PKG_CONFIG_PATH=$(DEPS_LIB)/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
endif
CHECK_LIBS := $(shell $(DEPS_PC) pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -pthread)
STB_DIR := $(firstword $(wildcard /usr/include/stb) $(wildcard /usr/local/include/stb) $(wildcard $(DEPS_ROOT)/usr/include/stb))
ifneq ($(STB_DIR),)
  CFLAGS += -isystem $(STB_DIR)
endif

# ---- sources ---------------------------------------------------------------------------------
LIB_SRC  := $(wildcard src/*/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
# nvcc may be a wrapper script outside the toolkit (e.g. /usr/local/bin/nvcc): ask nvcc itself where
# its toolkit lives, and look for libcudart there; without libcudart the GPU backend is left out.
CUDA_OK :=
ifneq ($(NVCC),)
  CUDA_TOP := $(patsubst TOP=%,%,$(filter TOP=%,$(shell $(NVCC) --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^\#\$$ //p')))
  CUDART   := $(firstword $(wildcard $(CUDA_TOP)/lib64/libcudart.so $(CUDA_TOP)/targets/*/lib/libcudart.so \
                $(dir $(NVCC))../lib64/libcudart.so /usr/local/cuda/lib64/libcudart.so))
  ifeq ($(CUDART),)
    $(info zertz build: $(NVCC) found but no libcudart.so next to it: GPU backend left out)
  else
    CUDA_OK := yes
  endif
endif
ifeq ($(CUDA_OK),yes)
  CU_SRC   := $(wildcard src/cuda/*.cu)
  CU_OBJ   := $(CU_SRC:%.cu=$(BUILD)/%.o)
  # Code for sm_80 (A100), sm_86 (A10, RTX 30xx), sm_89 (L4, L40, RTX 40xx), sm_90 (H100, H200), and
  # compute_90 PTX that the driver compiles for newer GPUs (device.cu refuses a GPU with none of these).
  # -fmad=false: a*b+c is never contracted into an FMA, as in gcc's -std=c11 build of the same kernel
  # bodies (train_kernels.h, emulated by train_emu.c); an fmaf written out stays an FMA on both.
  NVFLAGS  ?= -O3 -std=c++17 -fmad=false -Isrc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 \
              -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
  CUDA_LIB := $(abspath $(dir $(CUDART)))
  CFLAGS   += -DZZ_HAVE_CUDA=1
  LDLIBS   += -L$(CUDA_LIB) -Wl,-rpath,$(CUDA_LIB) -lcudart -lstdc++
else
  CU_OBJ   :=
endif
TOOL_SRC  := $(wildcard tools/*.c)
TOOLDIR   ?= tools
TOOLS     := $(TOOL_SRC:tools/%.c=$(TOOLDIR)/%)
BENCHES   := $(filter $(TOOLDIR)/bench_%,$(TOOLS))
TEST_SRC  := $(wildcard tests/test_*.c)
TESTS     := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_HELP := $(filter-out $(TEST_SRC),$(wildcard tests/*.c))
LIB       := $(BUILD)/libzertz.a

.PHONY: all info deps-fetch gpu-report test test-web bench bench-gpu lab train train-mpi strength test-asan test-tsan clean
.PHONY: fuzz soak
all: info $(LIB) $(TOOLS)


info:
	@echo "zertz build: CC=$(CC) OpenMP=$(if $(OPENMP_OK),yes,no)$(if $(CARRIED), carried=$(DEPS_DIR)) CUDA=$(if $(CUDA_OK),yes ($(NVCC)),no: GPU backend left out) MPI=$(if $(MPI_OK),yes ($(MPICC)),no: tools/train --mpi left out) stb=$(if $(STB_DIR),$(STB_DIR),not found)"

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(LIB_OBJ:.o=.d)

ifeq ($(MPI_OK),yes)
$(BUILD)/src/train/mpi_%.o: CFLAGS += $(patsubst -I%,-isystem %,$(MPI_INC))
$(TOOLDIR)/train: LDLIBS += $(MPI_LIBS)
endif
# MPI found or not is part of what the MPI objects and tools/train are built from: a stamp per
# state, so that installing (or removing) Open MPI rebuilds them.
MPI_STAMP := $(BUILD)/mpi-$(if $(MPI_OK),yes,no).stamp
$(MPI_STAMP):
	@mkdir -p $(dir $@)
	@rm -f $(BUILD)/mpi-*.stamp && touch $@
$(filter $(BUILD)/src/train/mpi_%.o,$(LIB_OBJ)) $(TOOLDIR)/train: $(MPI_STAMP)

$(BUILD)/%.o: %.cu $(wildcard src/*/*.h src/cuda/*.cuh)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ) $(CU_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(TOOLDIR)/%: tools/%.c $(LIB) $(wildcard tools/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ $(LIB) $(LDFLAGS) $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(TEST_HELP) $(LIB) $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $< $(TEST_HELP) -o $@ $(LIB) $(LDFLAGS) $(CHECK_LIBS) $(LDLIBS)

# Every suite runs; the summary names the suites that failed, the suites that passed with checks
# that did not run (tests/helpers.h th_skip appends a line to $ZZ_SKIP_LOG: no GPU, no archive,
# ...: such a suite is not counted as passed in full) and every check that did not run.  Each
# suite's output is kept in $(TEST_LOGS)/NAME.log, and a failed suite's failing checks (Check's
# "file:line:F|E:case:test:..." lines, or its last lines when it printed none) are repeated in
# the summary, so that the end of a CI log says what failed.  The status is 0 when no suite failed.
SKIP_LOG  := $(abspath $(BUILD))/skipped.log
TEST_LOGS := $(abspath $(BUILD))/test-logs
test: info $(TESTS) $(TOOLS)
	@: > $(SKIP_LOG); mkdir -p $(TEST_LOGS); full=0; part=0; parts=""; failed=""; \
	for t in $(TESTS); do echo "== $$t"; before=$$(wc -l < $(SKIP_LOG)); log=$(TEST_LOGS)/$${t##*/}.log; \
	  { ZZ_SKIP_LOG=$(SKIP_LOG) ZZ_TOOLDIR=$(TOOLDIR) $$t; echo $$? > $$log.status; } 2>&1 | tee $$log; \
	  if [ "$$(cat $$log.status)" = 0 ]; then \
	    if [ "$$(wc -l < $(SKIP_LOG))" -gt "$$before" ]; then part=$$((part+1)); parts="$$parts $${t##*/}"; \
	    else full=$$((full+1)); fi; \
	  else failed="$$failed $${t##*/}"; fi; \
	done; echo; \
	n() { [ "$$1" = 1 ] && echo "$$1 $$2" || echo "$$1 $${2}s"; }; \
	for f in $$failed; do echo "make test: $$f failed (exit $$(cat $(TEST_LOGS)/$$f.log.status)):"; \
	  grep -E '^[^ :]+:[0-9]+:[FE]:' $(TEST_LOGS)/$$f.log | sed 's/^/  /' | grep . || tail -n 5 $(TEST_LOGS)/$$f.log | sed 's/^/  /'; done; \
	if [ -n "$$failed" ]; then echo "make test: SOME SUITES FAILED:$$failed ($$((full+part)) of $(words $(TESTS)) suites passed)"; fi; \
	if [ "$$part" = 0 ]; then echo "make test: $$(n $$full suite) passed in full"; \
	else echo "make test: $$(n $$full suite) passed in full, $$(n $$part suite) passed with checks skipped:$$parts"; fi; \
	if [ -s $(SKIP_LOG) ]; then echo "make test: $$(n $$(wc -l < $(SKIP_LOG)) check) did NOT run:"; sed 's/^/  - /' $(SKIP_LOG); \
	else echo "make test: nothing was skipped"; fi; \
	test -z "$$failed"

# The real-browser test of the web page: tools/serve, Debian's chromium, playwright-core from
# npm (tests/web/package-lock.json); screenshots in build/web-screenshots.
test-web: all
	tests/web/run.sh

# Fetch the carried packages (see above; needs Debian's registry, not root).
deps-fetch:
	@command -v apt-get >/dev/null && command -v dpkg >/dev/null || { echo "zertz: deps-fetch: needs apt-get and dpkg (Debian)"; exit 1; }
	@rm -rf $(DEPS_DIR) && mkdir -p $(DEPS_DIR)/debs $(DEPS_DIR)/root/.pkg
	cd $(DEPS_DIR)/debs && apt-get download $(CARRY_PKGS)
	@for f in $(DEPS_DIR)/debs/*.deb; do dpkg -x $$f $(DEPS_DIR)/root || exit 1; done
	@for p in $(CARRY_PKGS); do touch $(DEPS_DIR)/root/.pkg/$$p; done
	@echo "deps-fetch: $(words $(CARRY_PKGS)) packages unpacked in $(DEPS_DIR)/root ($$(du -sh $(DEPS_DIR) | cut -f1)); build with them: make NO_APT=1"

# Everything a first GPU session checks and measures, in one command (src/cuda/gpu_report.sh):
# OUT=DIR gets a summary and one log per step.
gpu-report:
	src/cuda/gpu_report.sh "$(or $(OUT),build/gpu-report)"

bench: all
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done

bench-gpu: all
	@test -n "$(CUDA_OK)" || { echo "zertz: bench-gpu: nvcc or libcudart not found"; exit 1; }
	@for b in $(BENCHES); do echo "== $$b --gpu"; $$b --gpu || exit 1; done
	@# the PyTorch yardstick (never a dependency): the same net from our checkpoint, where torch exists
	@if python3 -c 'import torch' 2>/dev/null; then \
	  echo "== tools/torch_yardstick.py (PyTorch, same network, same checkpoint)"; \
	  $(TOOLDIR)/nn_dump --board 37 --perturb --save-ckpt $(BUILD)/yardstick.ckpt --n 256 --seed 1 --out $(BUILD)/yardstick.dump && \
	  python3 tools/torch_yardstick.py --check $(BUILD)/yardstick.dump --ckpt $(BUILD)/yardstick.ckpt && \
	  python3 tools/torch_yardstick.py --ckpt $(BUILD)/yardstick.ckpt --compile-mode default --json $(BUILD)/yardstick.json; \
	else echo "== PyTorch yardstick SKIPPED: torch is not installed here"; fi

LAB_SRC := $(wildcard src/cuda/lab/*.cu)
LABS    := $(LAB_SRC:src/cuda/lab/%.cu=$(BUILD)/lab/%)
$(BUILD)/lab/%: src/cuda/lab/%.cu $(LIB)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) $< $(LIB) -Xcompiler -fopenmp -o $@
lab: all
	@test -n "$(CUDA_OK)" || { echo "zertz: lab: nvcc or libcudart not found"; exit 1; }
	@$(MAKE) --no-print-directory $(LABS)
	@for l in $(LABS); do echo "== $$l"; $$l || exit 1; done

train: all
	$(TOOLDIR)/train $(TRAIN_ARGS)

# mpirun refuses to run as root unless told; --oversubscribe lets NP exceed the cores (or slots);
# when a rank dies (or on Ctrl-C) mpirun ends the others with SIGTERM, and the sigkill timeout
# gives rank 0 the seconds to save its state before SIGKILL (Open MPI's default, 1 s, is too short:
# the steps since the last generation would be lost).
NP          ?= 2
MPIRUN_ARGS ?= --oversubscribe --mca odls_base_sigkill_timeout 5
MPIRUN_ROOT := $(if $(filter 0,$(shell id -u)),--allow-run-as-root)
train-mpi: all
	@test -n "$(MPI_OK)" || { echo "zertz: train-mpi: no MPI (mpicc) in this build: apt-get install openmpi-bin libopenmpi-dev, then make"; exit 1; }
	mpirun $(MPIRUN_ROOT) $(MPIRUN_ARGS) -np $(NP) $(TOOLDIR)/train --mpi $(TRAIN_ARGS)

strength: all
	$(TOOLDIR)/strength $(STRENGTH_ARGS)

# -O1 makes GCC 12 guess at snprintf truncations that -O3 proves cannot happen: not errors here
SAN_WARN := -Wno-format-truncation

test-asan:
	$(MAKE) BUILD=build-asan TOOLDIR=build-asan/tools OPT="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer $(SAN_WARN)" EXTRA_CFLAGS= NVCC= test

fuzz:
	FUZZ_SECONDS="$(FUZZ_SECONDS)" tests/fuzz/run.sh

# Kills under training (src/train/soak.sh): SOAK_MINUTES (30) of SIGKILLs at random moments,
# SOAK_KILLS (20) of them, SOAK_SEED (the kill moments; default from the clock), SOAK_DIR.
SOAK_MINUTES ?= 30
SOAK_KILLS   ?= 20
soak: $(TOOLDIR)/train $(TOOLDIR)/run_check $(TOOLDIR)/arena
	SOAK_MINUTES="$(SOAK_MINUTES)" SOAK_KILLS="$(SOAK_KILLS)" SOAK_DIR="$(or $(SOAK_DIR),$(BUILD)/soak)" TOOLDIR="$(TOOLDIR)" \
	  $(if $(SOAK_SEED),SOAK_SEED="$(SOAK_SEED)") src/train/soak.sh

# OpenMP on one thread in every thread (libgomp is not instrumented: its barriers would be reported
# as races); omp_set_num_threads in a test's main thread does not reach the threads it starts.
test-tsan:
	OMP_NUM_THREADS=1 $(MAKE) BUILD=build-tsan TOOLDIR=build-tsan/tools OPT="-O1 -fsanitize=thread $(SAN_WARN)" NVCC= test

clean:
	rm -rf build build-asan build-tsan $(TOOLS)
