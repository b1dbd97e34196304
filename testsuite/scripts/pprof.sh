#!/usr/bin/env bash
# testsuite/scripts/pprof.sh -- `strata-events pprof`: one census of an
# -hi, -hT or -he log (ours, GHC's golden -hi and -hc logs, and a log cut
# short mid-census) as a gzipped pprof
# profile, read back by `go tool pprof -top` (Debian's golang-go), whose
# bands and bytes must equal `strata-events summary`'s for a one-census log
# and `strata-events show`'s for a chosen census of a longer one; and
# every usage and input error with its message.  The go checks skip,
# saying so, without go (and fail under STRATA_REQUIRE=go or all).
set -u
. "$(dirname "$0")/lib.sh"

ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
golden=$top_srcdir/testsuite/golden
cd "$test_tmp" || exit 1

# --- usage and input errors -----------------------------------------------------
expect_status 0 "$ex/leak" 2 20000 +RTS -hi -l -olhi.eventlog -i100 -RTS
expect_status 2 "$events" pprof
expect_stderr_contains 'strata-events: pprof: missing FILE'
expect_status 2 "$events" pprof hi.eventlog -o
expect_stderr_contains 'strata-events: pprof: -o needs a value (OUT)'
expect_status 2 "$events" pprof hi.eventlog --sample
expect_stderr_contains 'strata-events: pprof: --sample needs a value (N)'
for bad in 0 x 1x -3 99999999999999999999999; do
    expect_status 2 "$events" pprof hi.eventlog --sample "$bad"
    expect_stderr_contains "--sample takes a census number from 1 (1 = the first), not: $bad"
done
expect_status 2 "$events" pprof hi.eventlog --sample 1 --last
expect_stderr_contains 'give one of --sample N and --last, once'
expect_status 2 "$events" pprof hi.eventlog --last --sample 1
expect_stderr_contains 'give one of --sample N and --last, once'
expect_status 2 "$events" pprof hi.eventlog --json
expect_stderr_contains 'unknown option: --json'
expect_status 1 "$events" pprof missing.eventlog -o x.pb.gz
expect_stderr_contains 'strata-events: cannot open missing.eventlog: No such file or directory'
expect_status 1 "$events" pprof hi.eventlog -o no/such/dir/x.pb.gz
expect_stderr_contains 'strata-events: cannot create no/such/dir/x.pb.gz: No such file or directory'
expect_status 1 "$events" pprof hi.eventlog --sample 2 -o x.pb.gz
expect_stderr_contains 'strata-events: hi.eventlog: no census 2 (the log has 1 complete)'
[ -e x.pb.gz ] && fail "a failed pprof left x.pb.gz behind" || pass
expect_status 0 "$ex/leak" 2 20000 +RTS -l -olplain.eventlog -RTS
expect_status 1 "$events" pprof plain.eventlog -o x.pb.gz
expect_stderr_contains 'strata-events: plain.eventlog: not a heap profile (no heap profile begin event'
head -c 100 hi.eventlog >cut.eventlog
expect_status 1 "$events" pprof cut.eventlog -o x.pb.gz
expect_stderr_contains 'strata-events: cut.eventlog: offset'
expect_status 1 "$events" pprof "$golden/bad-order.eventlog" -o x.pb.gz

# A profile is gzip: the magic bytes 1f 8b, and gzip -t accepts it.
expect_status 0 "$events" pprof hi.eventlog -o hi.pb.gz
[ "$(head -c 2 hi.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] && pass ||
    fail "hi.pb.gz is not gzip"
gzip -t hi.pb.gz && pass || fail "gzip -t rejects hi.pb.gz"
# Standard output when -o is - (never a terminal here).
expect_status 0 "$events" pprof hi.eventlog -o -
cmp -s "$out" hi.pb.gz && pass || fail "pprof -o - differs from pprof -o FILE"

# The string table holds each string as every tool writes it (Note [One
# way to write a string] in wire/TextOut.c): "Café→λ" as it is, an ESC and
# invalid bytes as the text \xNN, never as themselves (a proto3 string
# must be UTF-8, and a terminal must not see an ESC).
expect_status 0 "$events" pprof "$golden/strings.eventlog" -o strings.pb.gz
gzip -dc strings.pb.gz >strings.pb
for s in "$(printf 'Caf\303\251\342\206\222\316\273')" 'Bad\xffName\xc3' 'Esc\x1b[2Jape' 'tab\x09here "q" \'; do
    grep -qaF "$s" strings.pb && pass || fail "the string table lacks $s"
done
grep -qa "$(printf 'Esc\033')" strings.pb && fail "the string table holds an ESC" || pass

if ! command -v go >/dev/null; then
    skip_part go "go is not installed (apt-get install golang-go): go tool pprof did not read the profiles"
    finish
fi
export GOCACHE=$test_tmp/gocache GOPATH=$test_tmp/gopath HOME=$test_tmp

# pprof_bands PROFILE: "bytes name" per band, sorted, from go tool pprof -top.
pprof_bands() {
    go tool pprof -top -unit=B -nodefraction=0 -nodecount=100000 "$1" 2>/dev/null |
        awk '/^ *[0-9]+B / { b = $1; sub(/B$/, "", b); n = $0
                             sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", n)
                             print b, n }' | sort
}

# summary_bands LOG WHICH: "bytes name" per band of summary's top by peak,
# named as the profile names them (-hi: the info table; -he: "era N").
summary_bands() {
    "$events" summary "$1" | awk -v which="$2" '
        /^top buckets by peak/ { on = 1; next }
        /^top buckets by integrated/ { on = 0 }
        on && /^ +[0-9]+\. / {
            bytes = $2; label = $3; gsub(/"/, "", label)
            if (which == "hi") name = $4
            else if (which == "he") name = "era " label
            else name = label
            print bytes, name }' | sort
}

# compare_one_census FLAG WHICH: a one-census log (-i100 outlasts the run)
# of the leak example, through summary and through go tool pprof.
compare_one_census() {
    local log=one$2.eventlog
    # shellcheck disable=SC2086
    expect_status 0 "$ex/leak" 2 20000 +RTS $1 -l -ol$log -i100 -RTS
    expect_status 0 "$events" pprof "$log" -o "one$2.pb.gz"
    summary_bands "$log" "$2" >want.txt
    pprof_bands "one$2.pb.gz" >got.txt
    if [ -s want.txt ] && cmp -s want.txt got.txt; then
        pass
    else
        fail "$1: go tool pprof's bands differ from strata-events summary's:
summary: $(cat want.txt)
pprof:   $(cat got.txt)"
    fi
}
compare_one_census -hi hi
compare_one_census -hT hT
compare_one_census "-he --automatic-era-increment" he

# The -hi profile carries the IPE's source file and line, and the labels.
go tool pprof -raw hi.pb.gz >raw.txt 2>/dev/null
grep -q 'SessionEntry_con_info examples/leak.c:[0-9][0-9]*' raw.txt && pass ||
    fail "pprof -raw lacks SessionEntry_con_info at examples/leak.c:LINE: $(cat raw.txt)"
grep -q 'closure_type:\[CONSTR\] defined_in:\[Cache.remember\] type:\[Session\]' raw.txt &&
    pass || fail "pprof -raw lacks SessionEntry's labels: $(cat raw.txt)"

# A census in the middle of a longer log: census 2, against show's.  The
# run must outlast two census intervals however fast the collector is:
# 100,000 requests took 33 ms, which left one complete census now and then.
expect_status 0 "$ex/leak" 6 600000 +RTS -hi -l -olmany.eventlog -i0.01 -RTS
expect_status 0 "$events" pprof many.eventlog --sample 2 -o two.pb.gz
"$events" show many.eventlog | awk '
    /: Start of heap profile sample: / { n++ }
    n == 2 && /Heap profile string sample:/ {
        sub(/.*profile 0, /, ""); sub(/ bytes.*/, ""); print }' | sort -n >want.txt
pprof_bands two.pb.gz | awk '{ print $1 }' | sort -n >got.txt
if [ -s want.txt ] && cmp -s want.txt got.txt; then pass; else
    fail "census 2: pprof's bytes $(tr '\n' ' ' <got.txt) differ from show's $(tr '\n' ' ' <want.txt)"
fi

# go tool pprof reads the strings back as written.
pprof_bands strings.pb.gz >got.txt
printf '%s\n' "2048 $(printf 'Caf\303\251\342\206\222\316\273')" '4096 Bad\xffName\xc3' \
    '6144 Esc\x1b[2Jape' '8192 tab\x09here "q" \' | sort >want.txt
cmp -s want.txt got.txt && pass || fail "strings: go tool pprof shows $(cat got.txt)"

# GHC's own -hi log (GHC 9.1): census 1, named from its IPE events where
# the log has one.
expect_status 0 "$events" pprof "$golden/ghc92-ipe.eventlog" --sample 1 -o ghc.pb.gz
pprof_bands ghc.pb.gz >got.txt
printf '4800 0x4a0010\n48 sat_s154_info\n' | sort >want.txt
cmp -s want.txt got.txt && pass || fail "GHC's log: pprof shows $(cat got.txt)"
go tool pprof -raw ghc.pb.gz 2>/dev/null | grep -q 'sat_s154_info Test.hs:5' && pass ||
    fail "GHC's log: sat_s154_info lacks Test.hs:5"

# GHC 9.10's -hc log: the last census's cost-centre stacks, named as hp2ps
# names them (ghc910-hc.bands.reference has the same names).
expect_status 0 "$events" pprof "$golden/ghc910-hc.eventlog" -o hc.pb.gz
pprof_bands hc.pb.gz >got.txt
printf '%s\n' '6473776 MAIN' '75920 Main.CAF' '32896 SYSTEM' '640 GHC.Internal.Conc.Signal.CAF' |
    sort >want.txt
cmp -s want.txt got.txt && pass || fail "-hc: pprof shows $(cat got.txt)"

# A run killed in its third census (heap-cut.eventlog, no SAMPLE_END): the
# last census is that one, with its one sample, as summary counts it.
expect_status 0 "$events" pprof "$golden/heap-cut.eventlog" -o cut.pb.gz
[ "$(pprof_bands cut.pb.gz)" = "65536 ARR_WORDS" ] && pass ||
    fail "cut short: pprof shows $(pprof_bands cut.pb.gz)"
go tool pprof -raw cut.pb.gz 2>/dev/null | grep -q 'census 3, breakdown -hT' && pass ||
    fail "cut short: not census 3: $(go tool pprof -raw cut.pb.gz 2>&1 | head -n 3)"
expect_status 0 "$events" pprof "$golden/heap-cut.eventlog" --sample 2 -o two.pb.gz
[ "$(pprof_bands two.pb.gz)" = "8192 THUNK_1_0" ] && pass ||
    fail "cut short: census 2 shows $(pprof_bands two.pb.gz)"

finish
