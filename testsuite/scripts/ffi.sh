#!/usr/bin/env bash
# testsuite/scripts/ffi.sh -- the foreign-call example (examples/ffi-qsort)
# prints the right results with the default nursery and with a tiny one
# under the sanity checker (a GC inside the callbacks, many times over),
# and refuses its deliberately bad signature with a message naming it.
set -u
. "$(dirname "$0")/lib.sh"

prog=$top_builddir/examples/ffi-qsort
[ -x "$prog" ] || fail "$prog is not built"

cat >"$test_tmp/want" <<'OUT'
players: ada=90 cy=90 bob=75 eve=75 dee=60
sorted 20000 numbers with a strata comparator: ok
evens, last first: 4 10 2 8
strlen("hello, strata") = 13
qsort via rts_dynamic_call: 3 7 19 25 42
a bad signature is refused
OUT

for flags in "" "-A8k -DS" "-A8k -DS -G3"; do
    # shellcheck disable=SC2086
    expect_status 0 "$prog" 20000 +RTS $flags -s -RTS
    if cmp -s "$out" "$test_tmp/want"; then pass; else
        fail "output with flags '$flags' differs: $(diff "$test_tmp/want" "$out")"
    fi
    expect_stderr_contains 'rts_dynamic_call: bad signature "size_t(pointer)": unknown type "pointer" at column 8'
done

# The callbacks allocated enough to collect many times inside qsort.
expect_status 0 "$prog" 20000 +RTS -A8k -s -RTS
gcs=$(sed -n 's/^ *Gen  0 *\([0-9]*\) colls.*/\1/p' "$err")
if [ -n "$gcs" ] && [ "$gcs" -gt 100 ]; then pass; else
    fail "expected more than 100 generation-0 collections, got '${gcs:-none}'; stderr: $(cat "$err")"
fi
finish
