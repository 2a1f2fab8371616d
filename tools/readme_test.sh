#!/usr/bin/env bash
# The README's C++ example must be tools/readme_example_main.cc, and it must
# work as the README says: a first run trains and saves, a second run in the
# same directory resumes from that checkpoint.
#
#   readme_test.sh README.md readme_example_main.cc readme_example DOC...
#
# And every link of the README to a file of the repository (one of DOC...)
# must name a heading that file has.
set -euo pipefail
readme=$1 source=$2 example=$3
shift 3

# A heading's anchor as GitHub makes it: lower case, punctuation dropped,
# spaces as hyphens.
anchors() {
  sed -n 's/^#\{1,6\} //p' "$1" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}
for link in $(grep -o '](docs/[^)]*)' "$readme" | sed 's/^](//; s/)$//' | sort -u); do
  file=${link%%#*}
  doc=""
  for d in "$@"; do
    case "$d" in */"$file" | "$file") doc=$d ;; esac
  done
  if [ -z "$doc" ]; then
    echo "FAIL: README.md links to $file, which is not among the test's docs" >&2
    exit 1
  fi
  if [ "$link" != "$file" ] && ! anchors "$doc" | grep -qx "${link#*#}"; then
    echo "FAIL: README.md links to $link, but $file has no such heading" >&2
    exit 1
  fi
done

# The first fenced C++ block.
block=$(awk '/^```cpp$/ { inside = 1; next } inside && /^```$/ { exit } inside' "$readme")
if ! diff -u <(printf '%s\n' "$block") "$source"; then
  echo "FAIL: README.md's example differs from $source (copy the file into the README)" >&2
  exit 1
fi

dir="$TEST_TMPDIR/my_run"
first=$("$example" "$dir")
echo "first run:  $first"
second=$("$example" "$dir")
echo "second run: $second"
case "$first" in
  "step 100, loss "*", saved $dir/model.ckpt-100") ;;
  *) echo "FAIL: the first run should train 100 steps and save model.ckpt-100" >&2; exit 1 ;;
esac
case "$second" in
  "step 200, loss "*", saved $dir/model.ckpt-200") ;;
  *) echo "FAIL: the second run should resume at step 100 and save model.ckpt-200" >&2; exit 1 ;;
esac
# Resumed, the loss goes on falling from where the first run left it.
loss1=${first#*loss }; loss1=${loss1%%,*}
loss2=${second#*loss }; loss2=${loss2%%,*}
if ! awk -v a="$loss1" -v b="$loss2" 'BEGIN { exit !(b < a) }'; then
  echo "FAIL: the loss did not fall across the restart ($loss1, then $loss2)" >&2
  exit 1
fi
# An error is reported, naming the thing, with exit status 1.
if err=$("$example" /dev/null/my_run 2>&1); then
  echo "FAIL: a directory that cannot be made should fail" >&2
  exit 1
fi
echo "bad directory: $err"
case "$err" in
  "my_train: "*"/dev/null"*) ;;
  *) echo "FAIL: the error should name the directory" >&2; exit 1 ;;
esac
echo "README example: current, resumes, reports errors"
