#!/usr/bin/env bash
# testsuite/scripts/info-table-limits.sh -- an info table too big for its
# 16-bit fields (strata/InfoTables.h: ptrs, nptrs, fixed_words) does not
# compile: each macro at the limit (65,535 words with the header) compiles
# without a warning and its object survives collections under -DS; one
# word more, or a negative count, is a compile-time error that names the
# limit (before, it compiled with a -Woverflow warning and a size cut to
# 16 bits, and -DS found the damage at run time, if it ran).
set -u
. "$(dirname "$0")/lib.sh"

cd "$test_tmp" || exit 1
lib=$top_builddir/.libs/libstrata.a
cflags=(-std=c11 -Wall -Wextra -Werror -I"$top_srcdir/includes")

# At the limit: every macro, one of them static, and the biggest object
# kept through a minor and a major GC under the sanity checker.
cat >limit.c <<'EOF'
#include <stdio.h>
#include <strata.h>

static StgClosure *unused_entry(StgClosure **self) { return *self; }
static StgClosure *unused_fun(StgClosure **self, StgClosure **args) { (void)args; return *self; }
static StgInfoProv prov = {"Big_con_info", "Big", "Big", "big", "Limit", "limit.c", "1:1"};

static STRATA_CONSTR_INFO(Big_info, "Big", 2, 65532);
STRATA_CONSTR_INFO_PROV(BigProv_info, "BigProv", 0, 65534, &prov);
STRATA_THUNK_INFO(BigThunk_info, "BigThunk", 1, 65532, unused_entry);
STRATA_FUN_INFO(BigFun_info, "BigFun", 65534, 0, 1, unused_fun);
STRATA_CONSTR_INFO(Small_info, "Small", 0, 1);

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_constr(&Small_info);
    STRATA_WORD(r[0], 0) = 7;
    r[1] = strata_alloc_constr(&Big_info);
    STRATA_FIELD(r[1], 0) = r[0];
    STRATA_WORD(r[1], 65531) = 42;
    strata_perform_gc(0);
    strata_perform_gc(1);
    printf("%lu %lu %u %u %u %u\n", (unsigned long)STRATA_WORD(r[1], 65531),
           (unsigned long)STRATA_WORD(STRATA_FIELD(r[1], 0), 0), Big_info.fixed_words,
           BigProv_info.fixed_words, BigThunk_info.fixed_words, BigFun_info.fixed_words);
    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
EOF
# shellcheck disable=SC2086
expect_status 0 "${CC:-cc}" "${cflags[@]}" ${SAN_CFLAGS:-} limit.c "$lib" -lffi -lelf -ldwarf -lm \
    -lpthread -o limit
expect_status 0 ./limit +RTS -DS -A8k -RTS
[ "$(cat "$out")" = "42 7 65535 65535 65535 65535" ] && pass ||
    fail "the tables at the limit: '$(cat "$out")', expected '42 7 65535 65535 65535 65535'"

# Past it: each a compile-time error naming the limit, without -Werror
# (where a warning alone let it through).
want="fit in STRATA_MAX_FIXED_WORDS (65535) words"
too_big() {   # too_big NAME DEFINITION: DEFINITION must not compile
    printf '#include <strata.h>\n%s;\nint main(void) { return 0; }\n' "$2" >"$1.c"
    expect_status 1 "${CC:-cc}" -std=c11 -I"$top_srcdir/includes" -c "$1.c" -o "$1.o"
    expect_stderr_contains "$want"
}
too_big issue 'STRATA_CONSTR_INFO(X_info, "X", 65535, 65535)'
too_big constr 'STRATA_CONSTR_INFO(X_info, "X", 0, 65535)'
too_big prov 'STRATA_CONSTR_INFO_PROV(X_info, "X", 65535, 0, NULL)'
too_big thunk 'STRATA_THUNK_INFO(X_info, "X", 0, 65534, NULL)'
too_big fun 'STRATA_FUN_INFO(X_info, "X", 1, 65534, 1, NULL)'
too_big static 'static STRATA_CONSTR_INFO(X_info, "X", 70000, 1)'
too_big negative 'STRATA_CONSTR_INFO(X_info, "X", -1, 2)'
finish
