#!/usr/bin/env bash
# testsuite/scripts/bench-figures.sh -- scripts/check-bench-figures.sh
# passes on the tree, and on a copy of bench/ names, by file and line,
# each planted table of figures that no bench command introduces, and
# none of the tables it must let be (a table of words, a table under a
# command).
set -u
. "$(dirname "$0")/lib.sh"

check=$top_srcdir/scripts/check-bench-figures.sh

expect_status 0 bash "$check" "$top_srcdir"
grep -Eq '^bench-figures: OK \([1-9][0-9]* tables of figures in [1-9][0-9]* files\)$' "$out" && pass ||
    fail "the check did not say OK: $(cat "$out" "$err")"

cd "$test_tmp" || exit 1
mkdir tree
cp -R "$top_srcdir/bench" tree/
rm -rf tree/bench/out
planted=tree/bench/planted.md
cat >"$planted" <<'EOF'
# Planted figures

A table of words needs no command:

| variable | effect |
| --- | --- |
| `BENCH_SIZES` | the sizes |

## Figures with no command

Measured by hand, once (bench/run is named, but not as a command).

| case | ms |
| --- | ---: |
| one | 1.52 |

## Figures under a command

`BENCH_SIZES='16 18' bench/run --reps 3 binary-trees` printed:

| case | wall |
| --- | ---: |
| one | 0.62× |

## A command under the previous heading only

| case | count |
| --- | ---: |
| one | 3,498 |

## A command in a code block

```
bench/eras/run
```

| case | share |
| --- | ---: |
| one | 91.7% (1.92 of 2) |

## A make target

From `make -C build bench-gc`:

| case | µs |
| --- | ---: |
| one | 75 µs |
EOF
# A table in a file that names its command in the title only.
printf '# Costs (`bench/ffi/run.sh`)\n\n| a | b |\n| --- | --- |\n| x | 2.5 s |\n' >tree/bench/title.md

expect_status 1 bash "$check" tree
for line in 13 27 37; do
    grep -qx "bench/planted.md:$line: a table of figures names no bench command (\`bench/...\` or \`make ... bench-...\`, in backquotes) under its heading" "$out" &&
        pass || fail "the planted table at bench/planted.md:$line was not named: $(cat "$out")"
done
grep -qx 'bench/title.md:3: a table of figures names no bench command .*' "$out" && pass ||
    fail "a command in a heading was taken for one under it: $(cat "$out")"
[ "$(wc -l <"$out")" -eq 4 ] && pass ||
    fail "the check named other tables too (a table of words, or one under a command): $(cat "$out")"

finish
