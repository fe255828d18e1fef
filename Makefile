# attitude-sim: the two commands are `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# System libraries Qt needs on Debian 12 (see docs/INSTALL.md).
QT_DEBS := libgl1 libegl1 libgl1-mesa-dri libglib2.0-0 libfontconfig1 libxkbcommon0 \
           libdbus-1-3 xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 \
           libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0

.PHONY: run test test-sim bench peer bench-ensemble bench-memory bench-compare soak stress videos mutate hostile sysdeps install install-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

$(VENV)/.installed-mutate: $(VENV)/.installed-test
	$(BIN)/python -m pip install -q -e '.[test,mutate]'
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

# Installs the system libraries Qt needs when they are missing (as root),
# or prints the exact command and exits 2.
sysdeps:
	@missing=""; for p in $(QT_DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing system libraries for Qt:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "missing system libraries for Qt; run:"; \
	    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends$$missing"; \
	    exit 2; \
	  fi; \
	fi

run: $(VENV)/.installed sysdeps
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  $(BIN)/attitude-sim gui; \
	else \
	  echo "no display: running the window on a virtual screen and saving a screenshot"; \
	  mkdir -p out; \
	  xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/attitude-sim gui --screenshot out/screenshot.png --after 3 \
	    && echo "screenshot saved to out/screenshot.png"; \
	fi

# The tests across the cores: pytest-xdist, TEST_JOBS workers (auto: one per core), each with its own
# virtual screen (pytest-xvfb); a test module whose own fixtures are shared goes whole to one worker
# (tests/conftest.py); the 20 slowest tests are listed (docs/RELIABILITY.md, "The suite's time").
# TEST_JOBS=0 runs them in this one process.
# After the tests: the wheel, installed into a fresh venv outside the checkout,
# used from another folder (.ci/check_install.py; 15-30 s with pip's cache warm).
TEST_JOBS ?= auto
test: $(VENV)/.installed-test sysdeps
	$(BIN)/python -m pytest -q -ra -n $(TEST_JOBS) --dist loadgroup --durations=20
	$(BIN)/python .ci/check_install.py

# The GUI-free tests of sim (tests/sim) without Qt: pytest-qt and pytest-xvfb
# are not loaded and Qt cannot be imported (tests/block_qt.py; tests/project/test_conftest.py checks tests/sim collects so).
# Measured times in docs/RELIABILITY.md ("Tests in rooms"). No system library for Qt is needed.
# The tests marked slow (long physics runs, each about a second of CPU or more) are left out here
# (SIM_TEST_MARKS; `make test-sim SIM_TEST_MARKS=` runs them too); make test runs every test.
SIM_TEST_JOBS ?= 0
SIM_TEST_MARKS ?= not slow
test-sim: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q -p no:pytest-qt -p no:xvfb -p tests.block_qt -n $(SIM_TEST_JOBS) --dist loadgroup \
	  -m "$(SIM_TEST_MARKS)" tests/sim

bench: $(VENV)/.installed-test sysdeps
	xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb $(BIN)/python -m bench

# attitude-sim beside Basilisk (issue 42): Basilisk's wheel bsk (about 270 MB) goes into a venv of its own,
# .venv-peer (never a dependency of the project, never in make test), then `python -m bench --only peer` times
# the same runs in both and replaces the rows "peer, ..." in docs/PERFORMANCE.md (about a minute).
PEER_VENV   := .venv-peer
BSK_VERSION ?= 2.12.1

$(PEER_VENV)/.installed:
	$(PYTHON) -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/python -m pip install -q "bsk==$(BSK_VERSION)"
	touch $@

peer: $(VENV)/.installed-test $(PEER_VENV)/.installed
	$(BIN)/python -m bench --only peer

# Only the ensemble rows (about 15 s, no window); replaces them in docs/PERFORMANCE.md.
bench-ensemble: $(VENV)/.installed-test
	$(BIN)/python -m bench --only ensemble

# Only the fresh window's RSS beside the libraries' floor (about 2 minutes); replaces those rows.
bench-memory: $(VENV)/.installed-test sysdeps
	xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb $(BIN)/python -m bench --only memory

# Old beside new in one run (bench/compare.py): every bench row of BASE (a commit) and of this tree,
# interleaved; ONLY="step ensemble" runs some parts (python -m bench --only's), QUICK=1 the short runs,
# REPEATS runs of each side (3), BENCH=own the old side's own bench first. Writes docs/PERFORMANCE.md,
# section "Old beside new"; exit 1 when a row got worse by > 10 %.
bench-compare: $(VENV)/.installed-test sysdeps
	@test -n "$(BASE)" || { echo 'usage: make bench-compare BASE=<rev> [ONLY="step ensemble"] [QUICK=1] [REPEATS=3] [BENCH=own]'; exit 2; }
	xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb $(BIN)/python -m bench.compare --base "$(BASE)" \
	  $(if $(ONLY),--only "$(ONLY)") $(if $(QUICK),--quick) $(if $(REPEATS),--repeats $(REPEATS)) $(if $(BENCH),--bench $(BENCH))

# The built-in demos as videos of the window (docs/videos/*.mp4, 1280x720, 30 fps) and README's GIF of the
# gimbal-lock demo's 3D view (docs/gimbal_lock.gif); about 3 minutes (docs/INSTALL.md).
VIDEO_DEMOS ?= gimbal_lock shortest_path tennis_racket ensemble_long_way
XVFB := xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb
videos: $(VENV)/.installed sysdeps
	mkdir -p docs/videos
	for name in $(VIDEO_DEMOS); do \
	  $(XVFB) $(BIN)/attitude-sim video --scenario $$name --out docs/videos/$$name.mp4 || exit 1; \
	done
	$(XVFB) $(BIN)/attitude-sim video --scenario gimbal_lock --what view --size 480x360 --speed 2 --out docs/gimbal_lock.gif

soak: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q tests/project/test_soak.py --soak-minutes 30

# The GUI tests RUNS times beside LOAD busy processes; stops at the first crash (docs/RELIABILITY.md).
RUNS ?= 10
LOAD ?= 4
stress: $(VENV)/.installed-test sysdeps
	$(BIN)/python -m tests.stress --runs $(RUNS) --load $(LOAD)

# Mutation testing with mutmut (docs/RELIABILITY.md, "Mutation testing"); hours, never in CI.
# Each part: the files to mutate (globs from the checkout; * spans folders, so a module that
# moves into a subpackage stays in) and the pytest arguments choosing the tests run against
# their mutants.  MUTATE_JOBS mutants are tested at once (nice 10); the report goes to
# build/mutate/report.md, each survivor's diff to build/mutate/survivors.txt.  The markers
# subprocess, timing and source (pyproject.toml says why) leave out tests that cannot judge a mutant here;
# slow and jit_speed the long runs, which take minutes with the kernels run as Python (the run's JIT is off).
MUTATE_SIM       ?= sim/*
# The sim part's tests: tests/sim and the GUI-free tests of tests/app that run sim/ in the test process (the
# command line's and the flight's: no Qt import, no qtbot), since issue 42's stop 52.  A hand list:
# tests/project/test_mutate_selection.py fails, naming the file, when a GUI-free test file is missing from it.
MUTATE_SIM_APP   ?= tests/app/cli/test_api.py tests/app/cli/test_cli.py tests/app/cli/test_cmg_cli.py \
  tests/app/cli/test_ensemble_magnetic.py tests/app/cli/test_ensemble_navigation.py tests/app/cli/test_ensemble_orbit.py \
  tests/app/cli/test_formulations.py tests/app/cli/test_hostile_mechanisms.py tests/app/cli/test_interchange.py \
  tests/app/cli/test_limits.py tests/app/cli/test_link.py tests/app/cli/test_magint.py \
  tests/app/cli/test_mass_properties.py tests/app/cli/test_navigation.py tests/app/cli/test_pointing_needs_controller.py \
  tests/app/cli/test_recording.py tests/app/cli/test_round_trip.py tests/app/cli/test_sweep.py \
  tests/app/cli/test_thruster_flags.py tests/app/cli/test_wheels.py tests/app/flight/test_ensemble_info.py \
  tests/app/flight/test_events.py tests/app/flight/test_flight.py tests/app/flight/test_hostile_context.py \
  tests/app/flight/test_worker.py
MUTATE_SIM_TESTS ?= tests/sim $(MUTATE_SIM_APP) -m "not subprocess and not timing and not source and not slow and not jit_speed"
MUTATE_APP       ?= app/window/readouts.py app/plots/live.py app/plots/style.py
MUTATE_APP_TESTS ?= tests/app/controls/test_readouts.py tests/app/plots/test_plot_values.py tests/app/plots/test_plots.py tests/app/plots/test_compare_plots.py
MUTATE_JOBS      ?= 1
# MUTATE_BUDGET=30: each mutant meets at most 30 s of its fastest tests (a survivor of the core's
# kernels otherwise runs the whole selection, 10 minutes); MUTATE_FLAGS=--resume goes on, --sample 0.1
# tests a random tenth of each module's untested mutants, --retest the survivors after new tests.
MUTATE_BUDGET    ?=
MUTATE_FLAGS     ?=
mutate: $(VENV)/.installed-mutate sysdeps
	nice -n 10 $(BIN)/python tools/mutate.py --jobs $(MUTATE_JOBS) $(MUTATE_FLAGS) \
	  $(if $(MUTATE_BUDGET),--budget $(MUTATE_BUDGET)) \
	  --part sim '$(MUTATE_SIM)' '$(MUTATE_SIM_TESTS)' \
	  --part app '$(MUTATE_APP)' '$(MUTATE_APP_TESTS)'

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache

# The hostile cases of issues 24, 35 and 44, each a real attitude-sim process (tests/hostile_cases.py, round four's
# in tests/hostile_round4.py; about 8 minutes):
# per surface, how many were tried and how many held; WRITE=1 puts the table into docs/RELIABILITY.md.
# The video cases draw the window: on a virtual screen.
hostile: $(VENV)/.installed-test sysdeps
	$(XVFB) $(BIN)/python -m tests.hostile_cases $(if $(WRITE),--write)
