#!/usr/bin/env bash
# Installs the Debian 12 packages that minigraph's build needs. Idempotent: when
# everything is present it installs nothing and returns in well under a second.
#   tools/setup.sh              the build and the tests
#   tools/setup.sh bench        also what tools/bench.sh needs (gnuplot, python3)
#   tools/setup.sh bench peers  also the peers it measures (PyTorch, NumPy)
set -euo pipefail

PACKAGES=(
  bazel-bootstrap      # Bazel 4.2.3, the build tool
  g++                  # libstdc++, which clang-14 compiles and links against
  libabsl-dev          # Abseil 20220623: Status, strings, synchronization, flags
  libprotobuf-dev      # protobuf runtime and headers
  protobuf-compiler    # protoc, run by the proto genrules
  libeigen3-dev        # tensors and kernels
  libgtest-dev         # GoogleTest
  libgmock-dev         # gMock matchers
  libbenchmark-dev     # Google Benchmark
  libleveldb-dev       # the .index table
  libisal-dev          # crc32c (crc32_iscsi)
  zlib1g-dev           # tf.data's ZLIB and GZIP files
  libre2-dev           # RE2: the string ops' regular expressions (TensorFlow's syntax)
  libgrpc++-dev        # gRPC 1.51: processes on a network (session/distributed)
  protobuf-compiler-grpc  # grpc_cpp_plugin, run by the service genrules
  openssl              # the TLS tests make their certificates with it
  clang-14             # the C++17 compiler (.bazelrc: --repo_env=CC=clang-14)
  libclang-rt-14-dev   # libFuzzer, ASan, UBSan and TSan runtimes
  dpkg-dev             # dpkg-source: Abseil's and gRPC's sources for --config=tsan
  python3-yaml         # gRPC's file lists for --config=tsan (tools/tsan_deps.sh)
)

for group in "$@"; do
  case "$group" in
    bench) PACKAGES+=(gnuplot-nox python3) ;;
    # Without OpenBLAS, Debian's PyTorch uses the reference BLAS (~6x slower
    # at GEMM).
    peers) PACKAGES+=(python3-numpy python3-torch libopenblas0-pthread) ;;
    *) echo "setup: unknown package group $group (bench, peers)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: not root and no sudo; as root run:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: installed ${#missing[@]} package(s)"
