#!/usr/bin/env bash
# testsuite/scripts/api-guide.sh -- the API guide's example compiles as
# written: extract the code block from docs/api-guide.md, check it is the
# same as examples/api-guide.c, compile it against the built library, run
# it under a tiny nursery with sanity checks, and check its output.
set -u
. "$(dirname "$0")/lib.sh"

guide=$top_srcdir/docs/api-guide.md
src=$test_tmp/guide.c
awk '/^```c$/ {inblock=1; next} /^```$/ && inblock {exit} inblock {print}' "$guide" >"$src"
[ -s "$src" ] || fail "no \`\`\`c block in $guide"
if cmp -s "$src" "$top_srcdir/examples/api-guide.c"; then pass; else
    fail "docs/api-guide.md's example differs from examples/api-guide.c"
fi

lib=$top_builddir/.libs/libstrata.a
# shellcheck disable=SC2086
expect_status 0 "${CC:-cc}" -std=c11 -Wall -Wextra -Werror ${SAN_CFLAGS:-} \
    -I"$top_srcdir/includes" "$src" "$lib" -lffi -lelf -ldwarf -lm -lpthread -o "$test_tmp/guide"
expect_status 0 "$test_tmp/guide" +RTS -A8k -DS -RTS
printf 'sum = 5000050000\ncounter = 999\nera = 2\n' >"$test_tmp/want"
if cmp -s "$out" "$test_tmp/want"; then pass; else
    fail "unexpected output: $(cat "$out")"
fi
finish
