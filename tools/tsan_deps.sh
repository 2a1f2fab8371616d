#!/usr/bin/env bash
# Assembles the repositories --config=tsan compiles from source, so that the
# sanitizer sees their synchronization, in $MG_TSAN_DIR (default
# /var/cache/minigraph-tsan):
#   com_google_absl      Abseil 20220623 (libabsl-dev's release), with the
#                        BUILD files of third_party/absl_tsan in place of
#                        upstream's;
#   com_github_grpc_grpc gRPC 1.51 (libgrpc++-dev's release), with
#                        third_party/grpc_tsan's BUILD and a sources.bzl
#                        generated from gRPC's own file lists.
# Each is the Debian source package of the installed library, Debian's
# patches applied, fetched through apt without touching the system's apt
# configuration. Also puts tools/tsan_suppressions.txt there, where .bazelrc's
# TSAN_OPTIONS finds it. Idempotent: a second run only checks two markers.
set -euo pipefail
cd "$(dirname "$0")/.."

root="${MG_TSAN_DIR:-/var/cache/minigraph-tsan}"
mkdir -p "$root"
cmp -s tools/tsan_suppressions.txt "$root/tsan_suppressions.txt" ||
  cp tools/tsan_suppressions.txt "$root/tsan_suppressions.txt"
apt_opts=(-o "Dir::Etc::sourcelist=$root/apt/debian.sources" -o Dir::Etc::sourceparts=/nonexistent
          -o "Dir::State::Lists=$root/apt/lists" -o APT::Sandbox::User=root -qq)
apt_updated=0

# extract SOURCE_PACKAGE VERSION DIR: the Debian source package unpacked in DIR
# (replaced), downloaded into $root once.
extract() {
  local package=$1 version=$2 dir=$3
  local dsc="$root/${package}_${version#*:}.dsc"
  if [ ! -f "$dsc" ]; then
    echo "tsan_deps: fetching $package $version's Debian source package"
    mkdir -p "$root/apt/lists/partial"
    cat >"$root/apt/debian.sources" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    if { [ "$apt_updated" -eq 1 ] || apt-get "${apt_opts[@]}" update >/dev/null; } &&
       (cd "$root" && apt-get "${apt_opts[@]}" source --download-only "$package=$version" \
          >/dev/null); then
      apt_updated=1
    else
      echo "tsan_deps: cannot fetch $package $version's source from deb.debian.org" >&2
      exit 1
    fi
  fi
  rm -rf "$dir"
  dpkg-source --no-check -x "$dsc" "$dir" >/dev/null
  # Upstream's Bazel files would need repositories we cannot download; their
  # BUILD files would split our globs into packages, and a .bazelignore would
  # hide directories from them.
  find "$dir" \( -name 'BUILD' -o -name 'BUILD.bazel' -o -name 'WORKSPACE' -o -name '*.bzl' \
    -o -name .bazelignore \) -delete
}

# Abseil.
version=$(dpkg-query -W -f='${source:Version}' libabsl-dev)
repo="$root/com_google_absl"
marker="$repo/.assembled-$version-$(cat third_party/absl_tsan/* third_party/absl/absl/*/BUILD |
  md5sum | cut -c1-12)"
if [ ! -f "$marker" ]; then
  extract abseil "$version" "$repo"
  cp third_party/absl_tsan/{WORKSPACE,BUILD,defs.bzl} "$repo/"
  for dir in "$repo"/absl/*/; do
    pkg=$(basename "$dir")
    if [ -f "third_party/absl/absl/$pkg/BUILD" ]; then
      cp "third_party/absl/absl/$pkg/BUILD" "$dir/BUILD"
    else
      printf 'load("//:defs.bzl", "absl_libraries")\n\nabsl_libraries([])\n' >"$dir/BUILD"
    fi
  done
  touch "$marker"
  echo "tsan_deps: assembled $repo"
fi

# gRPC.
version=$(dpkg-query -W -f='${source:Version}' libgrpc++-dev)
repo="$root/com_github_grpc_grpc"
marker="$repo/.assembled-$version-$(cat third_party/grpc_tsan/* | md5sum | cut -c1-12)"
if [ ! -f "$marker" ]; then
  extract grpc "$version" "$repo"
  cp third_party/grpc_tsan/{WORKSPACE,BUILD,grpc_cpp_plugin.sh} "$repo/"
  (cd "$repo" && python3 "$OLDPWD/third_party/grpc_tsan/gen_sources.py")
  touch "$marker"
  echo "tsan_deps: assembled $repo"
fi
