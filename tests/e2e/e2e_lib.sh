# Shared by the end-to-end scripts (sourced): failing with a message, and
# waiting, bounded, for a condition on processes and files.

fail() { echo "FAIL: $*" >&2; exit 1; }

# Waits (bounded: about 10 s) until `cond` succeeds; polls the file system.
wait_for() {
  for _ in $(seq 1 2000); do
    if eval "$1"; then return 0; fi
    sleep 0.005
  done
  return 1
}
