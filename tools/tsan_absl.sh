#!/usr/bin/env bash
# Assembles @com_google_absl for --config=tsan: Abseil 20220623 from Debian's
# source package (the same release as libabsl-dev), with the BUILD files of
# third_party/absl_tsan in place of upstream's, in $MG_TSAN_DIR (default
# /var/cache/minigraph-tsan). Fetches through apt without touching the system's
# apt configuration. Idempotent: a second run only checks a marker.
set -euo pipefail
cd "$(dirname "$0")/.."

root="${MG_TSAN_DIR:-/var/cache/minigraph-tsan}"
repo="$root/com_google_absl"
# The source of the installed libabsl-dev, Debian's patches applied.
debian_version=$(dpkg-query -W -f='${source:Version}' libabsl-dev)
marker="$repo/.assembled-$debian_version-$(cat third_party/absl_tsan/* third_party/absl/absl/*/BUILD | md5sum | cut -c1-12)"
[ -f "$marker" ] && exit 0

mkdir -p "$root/apt/lists/partial"
cat >"$root/apt/debian.sources" <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
apt_opts=(-o "Dir::Etc::sourcelist=$root/apt/debian.sources" -o Dir::Etc::sourceparts=/nonexistent
          -o "Dir::State::Lists=$root/apt/lists" -o APT::Sandbox::User=root -qq)
dsc="$root/abseil_$debian_version.dsc"
if [ ! -f "$dsc" ]; then
  echo "tsan_absl: fetching abseil $debian_version's Debian source package"
  if ! apt-get "${apt_opts[@]}" update >/dev/null ||
     ! (cd "$root" && apt-get "${apt_opts[@]}" source --download-only "abseil=$debian_version" \
          >/dev/null); then
    echo "tsan_absl: cannot fetch abseil $debian_version's source from deb.debian.org" >&2
    exit 1
  fi
fi

rm -rf "$repo"
dpkg-source --no-check -x "$dsc" "$repo" >/dev/null
# Upstream's Bazel files would need repositories we cannot download.
find "$repo" \( -name 'BUILD.bazel' -o -name 'WORKSPACE' -o -name '*.bzl' \) -delete
cp third_party/absl_tsan/{WORKSPACE,BUILD,defs.bzl,tsan_suppressions.txt} "$repo/"
for dir in "$repo"/absl/*/; do
  pkg=$(basename "$dir")
  if [ -f "third_party/absl/absl/$pkg/BUILD" ]; then
    cp "third_party/absl/absl/$pkg/BUILD" "$dir/BUILD"
  else
    printf 'load("//:defs.bzl", "absl_libraries")\n\nabsl_libraries([])\n' >"$dir/BUILD"
  fi
done
touch "$marker"
echo "tsan_absl: assembled $repo"
