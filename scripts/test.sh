#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds, and runs every test (unit + MPI integration).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure --timeout 300
