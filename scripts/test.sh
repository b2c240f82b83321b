#!/usr/bin/env bash
# Installs what is missing, builds (Release, warnings as errors) and runs the whole test suite:
# labels unit, validation, parity, gpu (GPU tests skip with a message when no device exists).
# Extra arguments go to ctest, e.g. scripts/test.sh -L unit
source "$(dirname "$0")/common.sh"
hairsim_build ci
cd "$HAIRSIM_ROOT"
ctest --preset ci -j "$(nproc)" "$@"
