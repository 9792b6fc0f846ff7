#!/usr/bin/env bash
# Configures and builds into ${BUILD_DIR:-build} (2 parallel jobs: the target machines have 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$BUILD_DIR" -j2
