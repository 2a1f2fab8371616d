#!/usr/bin/env bash
# Installs the Debian 12 packages that minigraph's build needs. Idempotent: when
# everything is present it installs nothing and returns in well under a second.
#   tools/setup.sh              the build and the tests
#   tools/setup.sh bench        also what tools/bench.sh needs (gnuplot, python3, libomp)
#   tools/setup.sh bench peers  also the peers it measures (PyTorch, NumPy)
#   tools/setup.sh tf           also TensorFlow 2.21 in a virtualenv at
#                               $MG_TF_VENV (default /var/cache/minigraph-tf),
#                               for the interop tests (tests/tf_interop)
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
  librandom123-dev     # Philox4x32-10: TensorFlow's stateless random numbers
  libhighwayhash-dev   # SipHash: TensorFlow's keyed "strong" string hash
  zlib1g-dev           # tf.data's ZLIB and GZIP files
  libjpeg62-turbo-dev  # libjpeg-turbo: DecodeJpeg, EncodeJpeg
  libpng-dev           # libpng: DecodePng, EncodePng
  libgif-dev           # giflib: DecodeGif
  libwebp-dev          # libwebp: DecodeWebP
  libjxl-dev           # libjxl: DecodeJxl
  libjxl-tools         # cjxl: the JPEG XL images the op test decodes
  libre2-dev           # RE2: the string ops' regular expressions (TensorFlow's syntax)
  libicu-dev           # ICU: the Unicode ops' converters and scripts
  libdnnl-dev          # oneDNN: float convolutions (as TensorFlow's x86 build)
  libgrpc++-dev        # gRPC 1.51: processes on a network (session/distributed)
  protobuf-compiler-grpc  # grpc_cpp_plugin, run by the service genrules
  openssl              # the TLS tests make their certificates with it
  clang-14             # the C++17 compiler (.bazelrc: --repo_env=CC=clang-14)
  libclang-rt-14-dev   # libFuzzer, ASan, UBSan and TSan runtimes
  dpkg-dev             # dpkg-source: Abseil's and gRPC's sources for --config=tsan
  python3-yaml         # gRPC's file lists for --config=tsan (tools/tsan_deps.sh)
)

want_tf=0
for group in "$@"; do
  case "$group" in
    # libomp: the two-thread build of the hand-fused Eigen MLP (-fopenmp).
    bench) PACKAGES+=(gnuplot-nox python3 libomp-14-dev) ;;
    # Without OpenBLAS, Debian's PyTorch uses the reference BLAS (~6x slower
    # at GEMM).
    peers) PACKAGES+=(python3-numpy python3-torch libopenblas0-pthread) ;;
    # TensorFlow comes from PyPI, pinned (tools/tf_requirements.txt, and every
    # package it pulls in by tools/tf_constraints.txt), into a virtualenv of
    # the first Python 3.11 found; Debian's needs python3-venv for that.
    tf) want_tf=1 ;;
    *) echo "setup: unknown package group $group (bench, peers, tf)" >&2; exit 2 ;;
  esac
done

# The TensorFlow virtualenv, made once: a stamp holds the hash of the pinned
# lists it was made from, so a change of either makes it again.
setup_tf() {
  local here venv stamp want python
  here="$(cd "$(dirname "$0")" && pwd)"
  venv="${MG_TF_VENV:-/var/cache/minigraph-tf}"
  stamp="$venv/.minigraph-stamp"
  want="$(cat "$here/tf_requirements.txt" "$here/tf_constraints.txt" | sha256sum | cut -d' ' -f1)"
  if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    echo "setup: TensorFlow virtualenv $venv ready"
    return 0
  fi
  python=""
  for candidate in python3.11 python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys, venv; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      python="$candidate"
      break
    fi
  done
  if [ -z "$python" ]; then
    PACKAGES+=(python3 python3-venv)
    python=/usr/bin/python3
    install_missing
  fi
  echo "setup: making the TensorFlow virtualenv $venv with $python (about 1.6 GB, once)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check \
    -r "$here/tf_requirements.txt" -c "$here/tf_constraints.txt"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps \
    "$(grep -i '^tf.keras==' "$here/tf_constraints.txt")"
  echo "$want" >"$stamp"
  echo "setup: TensorFlow $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("tensorflow-cpu"))') in $venv"
}

# Installs what of PACKAGES is missing (apt-get, as root or with sudo).
install_missing() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed; then
      missing+=("$p")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    echo "setup: all ${#PACKAGES[@]} packages present"
    return 0
  fi
  echo "setup: installing ${missing[*]}"
  local sudo=
  if [ "$(id -u)" -ne 0 ]; then
    sudo=sudo
    if ! command -v sudo >/dev/null 2>&1; then
      echo "setup: not root and no sudo; as root run:" >&2
      echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup: installed ${#missing[@]} package(s)"
}

install_missing
if [ "$want_tf" = 1 ]; then setup_tf; fi
