#!/usr/bin/env bash
# The README's C++ examples must be tools/readme_example_main.cc and
# tools/readme_trainer_example_main.cc, and they must work as the README
# says: a first run trains and saves, a second run in the same directory
# resumes from that checkpoint.
#
#   readme_test.sh README.md readme_example_main.cc readme_example \
#     readme_trainer_example_main.cc readme_trainer_example GRAPH.meta INPUT DOC...
#
# And every link of the README to a file of the repository (one of DOC...)
# must name a heading that file has.
set -euo pipefail
readme=$1 source=$2 example=$3 trainer_source=$4 trainer=$5 graph=$6 input=$7
shift 7

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

# The README's Nth fenced C++ block must be FILE.
same_as_block() {
  local block
  block=$(awk -v n="$1" '/^```cpp$/ { k++; inside = k == n; next } inside && /^```$/ { exit }
                         inside' "$readme")
  if ! diff -u <(printf '%s\n' "$block") "$2"; then
    echo "FAIL: README.md's example differs from $2 (copy the file into the README)" >&2
    exit 1
  fi
}
same_as_block 1 "$source"
same_as_block 2 "$trainer_source"

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

# The second: a meta graph trained to step 100, then resumed to 150.
dir="$TEST_TMPDIR/my_trainer_run"
first=$("$trainer" "$graph" "$input" "$dir" 100)
echo "trainer, first run: $(tail -n 1 <<<"$first")"
second=$("$trainer" "$graph" "$input" "$dir" 150)
echo "trainer, second run: $(tail -n 1 <<<"$second")"
case "$(tail -n 1 <<<"$first")" in
  "step 100, loss "*", saved $dir/model.ckpt-100") ;;
  *) echo "FAIL: the trainer's first run should train 100 steps and save model.ckpt-100" >&2
     exit 1 ;;
esac
if ! grep -q "^restored step 100 from $dir/model.ckpt-100" <<<"$second" ||
   [[ "$(tail -n 1 <<<"$second")" != "step 150, loss "*", saved $dir/model.ckpt-150" ]]; then
  echo "FAIL: the trainer's second run should resume at step 100 and save model.ckpt-150" >&2
  exit 1
fi
if err=$("$trainer" "$graph" "$input" /dev/null/my_run 100 2>&1); then
  echo "FAIL: a directory that cannot be made should fail" >&2
  exit 1
fi
case "$err" in
  "my_trainer: "*"/dev/null"*) ;;
  *) echo "FAIL: the trainer's error should name the directory: $err" >&2; exit 1 ;;
esac
echo "README examples: current, resume, report errors"
