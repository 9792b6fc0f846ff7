#!/usr/bin/env bash
# Builds hieragg against Open MPI 5.0 (Debian 13 "trixie"'s libopenmpi-dev) and runs the
# whole test suite there (unit + MPI, both modes, every split), inside a Debian 13 chroot.
#
# The chroot is created once with debootstrap and reused (HIERAGG_CHROOT, default
# /var/cache/hieragg/trixie); the source tree is bind-mounted at its own path and built
# into /build<source path> inside the chroot, so the Debian 12 build/ is never touched.
# Needs root (debootstrap, chroot, mounts): otherwise it says so and skips (exit 0),
# unless HIERAGG_REQUIRE_OMPI5=1, which turns the skip into a failure.
#
# usage: scripts/openmpi5.sh [--shell | -- CMD...]   (default: build + ctest)
# HIERAGG_CHROOT_BINDS="DIR ..." bind-mounts more host directories at the same paths.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
root=${HIERAGG_CHROOT:-/var/cache/hieragg/trixie}
mirror=${HIERAGG_DEBIAN_MIRROR:-http://deb.debian.org/debian}
build=/build$src
# What the build and the tests need inside the chroot (Debian 13 names).
pkgs=(g++ make cmake pkg-config libopenmpi-dev libpmix-dev openmpi-bin libhwloc-dev libgtest-dev libgmock-dev
      libbenchmark-dev nlohmann-json3-dev libcli11-dev
      libfabric-dev libfabric-bin  # offload (docs/offload.md): HIERAGG_WITH_OFI finds it, fi_info for the tests
      dpkg-dev file)  # dpkg-shlibdeps and file: cpack's .deb dependencies (scripts/test-installed.sh)

say() { echo "openmpi5: $*"; }
skip() {
  echo "######################################################################"
  echo "openmpi5: SKIPPED: $*"
  echo "openmpi5: the Open MPI 5.0 (Debian 13) suite did NOT run"
  echo "######################################################################"
  [ "${HIERAGG_REQUIRE_OMPI5:-0}" = 1 ] && exit 1
  exit 0
}

[ "$(id -u)" -eq 0 ] || skip "needs root for debootstrap, chroot and bind mounts (running as $(id -un))"
if ! command -v debootstrap >/dev/null; then
  say "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
    skip "debootstrap is not installed and apt-get could not install it"
fi

mkdir -p "$(dirname "$root")"
# One user of the chroot at a time (its mounts and apt state are shared).
exec 9>"$root.lock"
flock 9

mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; --i)); do
    while mountpoint -q "${mounts[i]}"; do   # a loop: also clears mounts stacked by an earlier run
      umount -R "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" 2>/dev/null || break
    done
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bind() { # bind SRC DST [--rbind]: DST inside the chroot, unmounted on exit
  mkdir -p "$2"
  mount "${3:---bind}" "$1" "$2"
  mounts+=("$2")
  [ "${3:-}" = --rbind ] && mount --make-rslave "$2"   # our unmount must not reach the host's
  return 0
}

# ---- 1. the chroot (reused when complete) ----
stamp=$root/etc/hieragg-chroot-ready
if [ ! -e "$stamp" ] || [ "$(cat "$stamp")" != "${pkgs[*]}" ]; then
  if [ ! -x "$root/usr/bin/apt-get" ] || [ -d "$root/debootstrap" ]; then
    # Absent, or a debootstrap that did not finish: start over (never through a mount).
    if [ -e "$root" ] && findmnt -rno TARGET | grep -q "^$root/"; then
      say "refusing to remove $root: something is mounted under it"; exit 1
    fi
    rm -rf "$root"
    say "debootstrap --variant=minbase trixie $root ($mirror)"
    debootstrap --variant=minbase trixie "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
      { tail -20 "$root.debootstrap.log"; say "debootstrap failed (log: $root.debootstrap.log)"; exit 1; }
  fi
  mount -t proc proc "$root/proc"; mounts+=("$root/proc")
  bind /dev/pts "$root/dev/pts"   # apt logs through a pty
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  say "apt-get install ${pkgs[*]}"
  chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
  chroot "$root" apt-get clean
  echo "${pkgs[*]}" >"$stamp"
  cleanup; mounts=()
fi

# ---- 2. mounts: kernel interfaces (hwloc reads /sys), shared memory (Open MPI's sm BTL), the source ----
mount -t proc proc "$root/proc"; mounts+=("$root/proc")
bind /sys "$root/sys"
bind /dev "$root/dev"
bind /dev/shm "$root/dev/shm"
bind /dev/pts "$root/dev/pts"
bind "$src" "$root$src"
# Extra directories at the same path inside, with what is mounted below them
# (/run/netns holds one mount per network namespace, for emulated nodes).
for d in ${HIERAGG_CHROOT_BINDS:-}; do bind "$d" "$root$d" --rbind; done

in_chroot() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
                LANG=C.UTF-8 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$@"; }

if [ "${1:-}" = --shell ]; then in_chroot bash; exit; fi
if [ "${1:-}" = -- ]; then shift; in_chroot "$@"; exit; fi

# ---- 3. build and test against Open MPI 5 ----
say "$(in_chroot dpkg-query -W -f='libopenmpi-dev ${Version}' libopenmpi-dev) in $root"
say "building $src into $root$build"
in_chroot bash -c "cd '$src' && BUILD_DIR='$build' bash scripts/build.sh"
# Left to the Debian 12 run: the emulated-node entries (label emu; their namespaces and
# daemons belong to the host) and the 2.5 GiB large-count entry (label large), which
# exercise nothing series-specific that the rest of the suite does not, and the
# benchmark tools' tests (label python: pure Python, which the minimal chroot does not have).
say "running the test suite (unit + MPI, both modes, all splits; not emu, large) against Open MPI 5"
in_chroot bash -c "cd '$build' && ctest --output-on-failure --timeout 300 -LE 'emu|large|python'"
say "building the .deb, installing it in the chroot and running the MPI matrix against the installed copy"
in_chroot bash -c "cd '$src' && BUILD_DIR='$build' bash scripts/test-installed.sh"
say "Open MPI 5.0 suite passed"
