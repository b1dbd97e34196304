#!/usr/bin/env bash
# testsuite/scripts/api-guide.sh -- the API guide's examples compile as
# written: extract each ```c block from docs/api-guide.md, check it is the
# same as its file in examples/, compile it against the built library, run
# it under a tiny nursery with sanity checks, and check its output.
set -u
. "$(dirname "$0")/lib.sh"

guide=$top_srcdir/docs/api-guide.md
src=$test_tmp/guide.c
# c_block N: the Nth ```c block of the guide.
c_block() {
    awk -v want="$1" '/^```c$/ {n++; inblock = (n == want); next}
        /^```$/ {inblock = 0} inblock {print}' "$guide"
}
c_block 2 >"$src"   # "A complete example", at the end
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

# The weak pointer example (the first block): weak pointers, partial application, stable names.
src2=$test_tmp/guide-objects.c
c_block 1 >"$src2"   # "Weak pointers, partial application and stable names"
[ -s "$src2" ] || fail "no \`\`\`c block in the weak pointers section of $guide"
if cmp -s "$src2" "$top_srcdir/examples/api-guide-objects.c"; then pass; else
    fail "docs/api-guide.md's weak pointer example differs from examples/api-guide-objects.c"
fi
# shellcheck disable=SC2086
expect_status 0 "${CC:-cc}" -std=c11 -Wall -Wextra -Werror ${SAN_CFLAGS:-} \
    -I"$top_srcdir/includes" "$src2" "$lib" -lffi -lelf -ldwarf -lm -lpthread -o "$test_tmp/guide2"
expect_status 0 "$test_tmp/guide2" +RTS -A8k -DS -RTS
printf 'value = 2\nfinalized the key\nafter the key died: NULL\nadd 40 2 = 42\nsame stable name: yes\n' \
    >"$test_tmp/want2"
if cmp -s "$out" "$test_tmp/want2"; then pass; else
    fail "unexpected output of the weak pointer example: $(cat "$out")"
fi
finish
