#!/usr/bin/env bash
# Installs the Debian 12 packages hieragg needs; does nothing when all are present.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libhwloc-dev
      libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
      graphviz valgrind python3   # python3: bench/perf_report.py and the docs.links test
      libfabric-dev libfabric1 libfabric-bin  # offload backend (docs/offload.md); fi_info for the tests
      iproute2 iptables util-linux)   # the emulated cluster (bench/emucluster) of the emu tests
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
