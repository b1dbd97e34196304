#!/usr/bin/env bash
# testsuite/scripts/provenance.sh -- info-table provenance from the
# program's own symbols and DWARF (docs/design/provenance.md), as a user
# sees it in IPE events and -hd/-hm profiles:
#   - examples built with -g: table symbol names, file:line, units;
#   - a stripped copy: none of that, and the profile is still whole;
#   - a separate debug file (.gnu_debuglink): used when it matches,
#     skipped silently when missing, with a warning when corrupt or
#     mismatched;
#   - corrupt DWARF sections in the binary: no crash;
#   - tables in a shared library loaded with dlopen after start-up.
set -u
. "$(dirname "$0")/lib.sh"

ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
progs=$top_srcdir/testsuite/programs
cd "$test_tmp" || exit 1

line_of() {   # line_of TEXT FILE: the first line of FILE containing TEXT
    grep -n -F -e "$1" "$2" | head -n 1 | cut -d: -f1
}
# ipe TABLE: the IPE event of TABLE in $out (strata-events show)
ipe() { grep -F "table \"$1\"" "$out" | head -n 1; }

node_line=$(line_of 'STRATA_CONSTR_INFO(Node_info' "$top_srcdir/examples/bintrees.c")
[ -n "$node_line" ] || fail "examples/bintrees.c has no Node_info"

# --- an example built with -g ---------------------------------------------------
expect_status 0 "$ex/bintrees" 12 +RTS -A64k -hi -i0 -l -olg.eventlog -RTS
[ -s "$err" ] && fail "bintrees -hi wrote to stderr: $(head -n 3 "$err")"
expect_status 0 "$events" show g.eventlog
ipe Node_info | grep -q "srcloc \"examples/bintrees.c:$node_line\"" && pass ||
    fail "IPE of Node_info lacks examples/bintrees.c:$node_line: $(ipe Node_info)"
ipe Node_info | grep -q 'module "examples/bintrees.c"' && pass ||
    fail "IPE of Node_info lacks its unit: $(ipe Node_info)"
ipe stg_STACK_info | grep -q 'module "rts/StgInfo.c", srcloc "rts/StgInfo.c:[0-9]' && pass ||
    fail "the runtime's own STACK table is not resolved: $(ipe stg_STACK_info)"
expect_status 0 "$events" summary g.eventlog
grep -q "\"0x[0-9a-f]*\"  Node_info  examples/bintrees.c  examples/bintrees.c:$node_line\$" "$out" &&
    pass || fail "summary does not name the Node_info band: $(cat "$out")"
# explicit provenance wins over the DWARF (leak.c spells its own)
expect_status 0 "$ex/leak" 1 3000 +RTS -hi -i0 -l -olleak.eventlog -RTS
expect_status 0 "$events" show leak.eventlog
ipe SessionEntry_con_info | grep -q 'module "Cache", srcloc "examples/leak.c:49:5-60"' && pass ||
    fail "leak.c's explicit provenance was not kept: $(ipe SessionEntry_con_info)"

# -hm puts tables under their units; -hT stays as it was
expect_status 0 "$ex/bintrees" 12 +RTS -A64k -hm -i0 -l -olhm.eventlog -RTS
expect_status 0 "$events" summary hm.eventlog
grep -q '"examples/bintrees.c"' "$out" && pass || fail "-hm has no examples/bintrees.c band: $(cat "$out")"
grep -q '"<unknown>"' "$out" && fail "-hm left tables under <unknown> in a -g build" || pass

# --- many tables from one macro: gcc gives their lines as DW_FORM_implicit_const
expect_status 0 "$top_builddir/testsuite/programs/provenance_cost"
grep -q '^tables_named 128$' "$out" && pass || fail "provenance_cost: not every table named: $(cat "$out")"
grep -q '^files_indexed 1$' "$out" && pass || fail "provenance_cost: indexed other files: $(cat "$out")"
grep -q '^bytes_held [1-9]' "$out" && pass || fail "provenance_cost: no cache size: $(cat "$out")"

# --- a stripped copy ------------------------------------------------------------------
expect_status 0 strip -o bintrees-stripped "$ex/bintrees"
expect_status 0 ./bintrees-stripped 12 +RTS -A64k -hi -i0 -l -olstripped.eventlog -RTS
[ -s "$err" ] && fail "stripped bintrees wrote to stderr: $(head -n 3 "$err")"
expect_status 0 "$events" check stripped.eventlog
expect_status 0 "$events" show stripped.eventlog
grep -q 'table "Node_info"' "$out" && fail "a stripped binary still has symbol names" || pass
grep -q 'srcloc "[^"]' "$out" && fail "a stripped binary still has source locations" || pass
grep -q 'table "Node", closure desc "[0-9]*", type "", label "", module "", srcloc ""' "$out" &&
    pass || fail "stripped: Node's IPE event should carry its own name and nothing more"
expect_status 0 "$events" summary stripped.eventlog
grep -q '^samples: [1-9]' "$out" && pass || fail "stripped binary: no samples: $(cat "$out")"
expect_status 0 ./bintrees-stripped 12 +RTS -A64k -hm -i0 -l -olstripped-hm.eventlog -RTS
expect_status 0 "$events" summary stripped-hm.eventlog
grep -q '"<unknown>"' "$out" && pass || fail "stripped -hm should be all <unknown>: $(cat "$out")"

# --- a separate debug file --------------------------------------------------------------
mkdir dl && cd dl || exit 1
expect_status 0 objcopy --only-keep-debug "$ex/bintrees" bintrees.debug
expect_status 0 strip -o bintrees.tmp "$ex/bintrees"
expect_status 0 objcopy --add-gnu-debuglink=bintrees.debug bintrees.tmp bintrees
chmod +x bintrees
expect_status 0 ./bintrees 12 +RTS -A64k -hi -i0 -l -oldebuglink.eventlog -RTS
[ -s "$err" ] && fail "bintrees with a debug file wrote to stderr: $(head -n 3 "$err")"
expect_status 0 "$events" show debuglink.eventlog
ipe Node_info | grep -q "srcloc \"examples/bintrees.c:$node_line\"" && pass ||
    fail "the debug file was not used: $(ipe Node_info)"
# missing: silently no names
mv bintrees.debug saved.debug
expect_status 0 ./bintrees 12 +RTS -A64k -hi -i0 -l -olnodebug.eventlog -RTS
[ -s "$err" ] && fail "a missing debug file should be silent: $(head -n 3 "$err")"
expect_status 0 "$events" show nodebug.eventlog
grep -q 'table "Node_info"' "$out" && fail "names without the debug file" || pass
# corrupt: a warning naming the file, no names, the profile intact
head -c 100000 saved.debug | tr '\000-\377' '\177-\377\000-\176' >bintrees.debug
expect_status 0 ./bintrees 12 +RTS -A64k -hi -i0 -l -olcorrupt.eventlog -RTS
expect_stderr_contains "provenance: ignoring debug file $PWD/bintrees.debug"
expect_status 0 "$events" check corrupt.eventlog
# truncated, so it no longer matches the debuglink's CRC
head -c 5000 saved.debug >bintrees.debug
expect_status 0 ./bintrees 12 +RTS -A64k -hi -i0 -l -oltruncated.eventlog -RTS
expect_stderr_contains "provenance: ignoring debug file $PWD/bintrees.debug"
expect_status 0 "$events" check truncated.eventlog
# another program's debug file under the right name: the build-id differs
expect_status 0 objcopy --only-keep-debug "$ex/leak" bintrees.debug
expect_status 0 ./bintrees 12 +RTS -A64k -hi -i0 -l -olwrong.eventlog -RTS
expect_stderr_contains "build-id differs"
expect_status 0 "$events" show wrong.eventlog
grep -q 'srcloc "[^"]' "$out" && fail "a mismatched debug file was used" || pass
cd .. || exit 1

# --- corrupt DWARF inside the binary ------------------------------------------------------
yes 'not DWARF at all' | head -c 40000 >noise
for section in .debug_info .debug_abbrev .debug_line .debug_str; do
    expect_status 0 objcopy --update-section "$section=noise" "$ex/bintrees" corrupt
    expect_status 0 ./corrupt 12 +RTS -A64k -hi -i0 -l -olcorrupt.eventlog -RTS
    expect_status 0 "$events" check corrupt.eventlog
done

# --- a shared library loaded after start-up -------------------------------------------------
# shellcheck disable=SC2086
expect_status 0 "${CC:-cc}" -std=c11 -g -O2 -fPIC -shared -Wall -Werror -I"$top_srcdir/includes" \
    "$progs/provenance_lib.c" -o libprovtables.so
# shellcheck disable=SC2086
expect_status 0 "${CC:-cc}" -std=c11 -g -O2 -Wall -Werror ${SAN_CFLAGS:-} -I"$top_srcdir/includes" \
    "$progs/provenance_dlopen.c" "$top_builddir/.libs/libstrata.a" \
    -lffi -lelf -ldwarf -lm -lpthread -ldl -o provenance_dlopen
lib_src=$progs/provenance_lib.c
lib_shown=testsuite/programs/provenance_lib.c   # under the runtime's source tree
cell_line=$(line_of 'STRATA_CONSTR_INFO(LibCell_info' "$lib_src")
entry_line=$(line_of 'static StgClosure *lib_first_entry' "$lib_src")
hidden_line=$(line_of 'STRATA_CONSTR_INFO(LibHidden_info' "$lib_src")
main_entry_line=$(line_of 'static StgClosure *main_twice_entry' "$progs/provenance_dlopen.c")
expect_status 0 ./provenance_dlopen "$PWD/libprovtables.so" +RTS -hi -i0 -l -olshared.eventlog -RTS
[ -s "$err" ] && fail "provenance_dlopen wrote to stderr: $(head -n 3 "$err")"
expect_status 0 "$events" show shared.eventlog
ipe LibCell_info | grep -q "module \"$lib_shown\", srcloc \"$lib_shown:$cell_line\"" &&
    pass || fail "library constructor not resolved: $(ipe LibCell_info)"
ipe LibFirst_info | grep -q "label \"lib_first_entry\", .*srcloc \"$lib_shown:$entry_line\"" &&
    pass || fail "library thunk not named by its entry: $(ipe LibFirst_info)"
ipe LibHidden_info | grep -q "srcloc \"$lib_shown:$hidden_line\"" &&
    pass || fail "file-local library table not resolved: $(ipe LibHidden_info)"
ipe MainTwice_info | grep -q "label \"main_twice_entry\", .*srcloc \"testsuite/programs/provenance_dlopen.c:$main_entry_line\"" &&
    pass || fail "the program's thunk not named by its entry: $(ipe MainTwice_info)"
# -hd names thunks by their entry; -hm by unit, the library's included
expect_status 0 ./provenance_dlopen "$PWD/libprovtables.so" +RTS -hd -i0 -l -olshared-hd.eventlog -RTS
expect_status 0 "$events" summary shared-hd.eventlog
grep -q '"lib_first_entry"' "$out" && grep -q '"main_twice_entry"' "$out" && pass ||
    fail "-hd does not name thunks by their entries: $(cat "$out")"
expect_status 0 ./provenance_dlopen "$PWD/libprovtables.so" +RTS -hm -i0 -l -olshared-hm.eventlog -RTS
expect_status 0 "$events" summary shared-hm.eventlog
grep -q "\"$lib_shown\"" "$out" && pass || fail "-hm has no band for the library: $(cat "$out")"
# stripped library: exported tables keep their .dynsym names, nothing has a location
expect_status 0 strip --strip-unneeded -o libprovtables-stripped.so libprovtables.so
expect_status 0 ./provenance_dlopen "$PWD/libprovtables-stripped.so" +RTS -hi -i0 -l -olshared-s.eventlog -RTS
expect_status 0 "$events" show shared-s.eventlog
ipe LibCell_info | grep -q 'module "", srcloc ""' && pass ||
    fail "stripped library: LibCell should keep only its .dynsym name: $(ipe LibCell_info)"
grep -q 'table "LibHidden_info"' "$out" && fail "stripped library: file-local name survived" || pass
grep -q 'table "LibHidden", .*srcloc ""' "$out" && pass || fail "stripped library: LibHidden lost"
# the executable deleted before the first census (rebuilt while running):
# still named, through /proc/self/exe
cp provenance_dlopen doomed
expect_status 0 ./doomed "$PWD/libprovtables.so" --unlink-self +RTS -hi -i0 -l -oldoomed.eventlog -RTS
[ -e doomed ] && fail "provenance_dlopen --unlink-self did not delete itself"
expect_status 0 "$events" show doomed.eventlog
ipe MainCell_info | grep -q 'srcloc "[^"]*provenance_dlopen.c:[0-9]' && pass ||
    fail "a deleted executable's tables are not resolved: $(ipe MainCell_info)"
ipe LibCell_info | grep -q 'srcloc "[^"]*provenance_lib.c:[0-9]' && pass ||
    fail "the library of a deleted executable is not resolved: $(ipe LibCell_info)"
# --- a user's program, built where its sources are and out of tree --------------------------
# Its files are not under the runtime's tree: they are named relative to the
# directory the compiler ran in when they lie under it, and absolute otherwise
# (Note [Which root a source file is shown under] in profiling/SourcePath.c).
mkdir -p proj/build || exit 1
cp "$progs/provenance_dlopen.c" proj/prog.c
prog_cell_line=$(line_of 'STRATA_CONSTR_INFO(MainCell_info' proj/prog.c)
build_prog() {   # build_prog DIR SOURCE: compile SOURCE in DIR into DIR/prog
    # shellcheck disable=SC2086
    (cd "$1" && "${CC:-cc}" -std=c11 -g -O2 -Wall -Werror ${SAN_CFLAGS:-} \
        -I"$top_srcdir/includes" "$2" "$top_builddir/.libs/libstrata.a" \
        -lffi -lelf -ldwarf -lm -lpthread -ldl -o prog) >"$out" 2>"$err" && pass ||
        fail "cannot build $2 in $1: $(head -n 5 "$err")"
}
build_prog proj prog.c
expect_status 0 proj/prog "$PWD/libprovtables.so" +RTS -hi -i0 -l -olintree.eventlog -RTS
expect_status 0 "$events" show intree.eventlog
ipe MainCell_info | grep -q "module \"prog.c\", srcloc \"prog.c:$prog_cell_line\"" && pass ||
    fail "in-tree user program: not named relative to its directory: $(ipe MainCell_info)"
ipe stg_STACK_info | grep -q 'srcloc "rts/StgInfo.c:[0-9]' && pass ||
    fail "in-tree user program: the runtime's files are not under its root: $(ipe stg_STACK_info)"
build_prog proj/build ../prog.c
expect_status 0 proj/build/prog "$PWD/libprovtables.so" +RTS -hi -i0 -l -oloutoftree.eventlog -RTS
expect_status 0 "$events" show outoftree.eventlog
ipe MainCell_info | grep -q "module \"$PWD/proj/prog.c\", srcloc \"$PWD/proj/prog.c:$prog_cell_line\"" &&
    pass || fail "out-of-tree user program: not named by its absolute path: $(ipe MainCell_info)"
grep -q 'srcloc "[^"]*\.\./' "$out" && fail "a path still climbs out of its build directory: $(grep '\.\./' "$out" | head -n 1)" || pass
# a library that is not there: a message, not a crash
expect_status 1 ./provenance_dlopen "$PWD/no-such-lib.so" +RTS -hi -i0 -l -olnone.eventlog -RTS
expect_stderr_contains "cannot load $PWD/no-such-lib.so"

finish
