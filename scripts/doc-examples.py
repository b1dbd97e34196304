#!/usr/bin/env python3
"""scripts/doc-examples.py -- the docs' examples, from the programs' own output.

Two kinds of example are kept true to the program:

- README.md's table of RTS flags, between the markers
  <!-- BEGIN rts-flags ... --> and <!-- END rts-flags -->, is made from what
  `+RTS -?` prints (rts/RtsOptions.c's usage text): every flag it lists, in
  its words.
- Every ```console block of docs/strata-debug.md and
  docs/strata-debug-tutorial.md: a line "$ CMD" is a command and the lines
  after it what it prints ("…" skips lines).  Each command is run as it is
  written ("build/" is the build tree, "/tmp/" a scratch directory,
  "strata-debug" the tool; a command ending in "&" starts a program in the
  background and waits for its socket), and each line shown is replaced by
  the line the program prints now.  A strata-debug command is run again
  (up to 50 times) until its output has the shape shown: the program may
  not yet have reached the eras shown.

    scripts/doc-examples.py [--build DIR] [--work DIR]    rewrite the docs
    scripts/doc-examples.py --check [--build DIR] ...     compare only

--check (testsuite/scripts/doc-examples.sh) fails on any difference.  A
console line is compared with addresses, counts, sizes, eras and times
masked (they change from run to run) and a mutable object's _CLEAN/_DIRTY
state with its info table's line (it changes with every write); every
other character counts, source locations (file.c:LINE:COL) included.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONSOLE_DOCS = ['docs/strata-debug.md', 'docs/strata-debug-tutorial.md']
BEGIN = '<!-- BEGIN rts-flags: made from `+RTS -?` by scripts/doc-examples.py; edit rts/RtsOptions.c -->'
END = '<!-- END rts-flags -->'

# ---------------------------------------------------------------------------
# README's RTS flags table


def rts_usage(build):
    """What `+RTS -?` prints, from one of the examples."""
    r = subprocess.run([os.path.join(build, 'examples', 'leak'), '+RTS', '-?'],
                       capture_output=True, text=True, timeout=60)
    return r.stdout + r.stderr


def code_words(text):
    """Text with its flags and <placeholders> as code (Markdown would read
    <file> as an HTML tag), and | escaped."""
    out = []
    for w in text.split(' '):
        m = re.match(r'^([(]?)(.*?)([),.;:]*)$', w)
        lead, core, tail = m.groups()
        if core and ('<' in core or re.match(r'^[-+][-A-Za-z?]', core)):
            out.append(lead + '`' + core + '`' + tail)
        else:
            out.append(w.replace('|', '\\|'))
    return ' '.join(out)


def parse_usage(text):
    """(rows, notes): rows are (flag, [lines of its meaning]); a meaning
    line is prose, or an item of a list under it (a deeper indent)."""
    rows, notes = [], []
    row = None
    desc_col = item_col = None
    for raw in text.split('\n'):
        line = raw.rstrip()
        indent = len(line) - len(line.lstrip())
        # A flag, or a flag and its aliases ("--nonmoving-gc, -xn").
        m = re.match(r'^( {2,4})([-+][^\s,]*(?:, [-+][^\s,]*)*)(\s+(.*))?$', line)
        if not line:
            row = None
            continue
        if m:
            flag, rest = m.group(2), m.group(4)
            row = (flag, [rest] if rest else [])
            rows.append(row)
            desc_col = line.index(rest) if rest else None
            item_col = None
            continue
        if row is None or indent <= 4:
            row = None
            notes.append(line.strip())
            continue
        words = line.strip()
        if desc_col is None:                            # the meaning starts here
            desc_col = indent
            row[1].append(words)
        elif indent > desc_col and item_col is not None and indent > item_col:
            row[1][-1] += ' ' + words                   # an item's second line
        elif indent > desc_col:
            item_col = indent                           # an item of a list
            row[1].append('    ' + re.sub(r'\s{2,}', ' ', words, count=1))
        elif item_col is not None or indent < desc_col:
            item_col = None                             # prose after a list
            row[1].append(words)
        else:
            row[1][-1] += ' ' + words                   # prose goes on
    return rows, notes


def rts_table(text):
    rows, notes = parse_usage(text)
    out = ['| flag | meaning |', '| --- | --- |']
    for flag, lines in rows:
        parts = []
        for k, l in enumerate(lines):
            item = l.startswith('    ')
            l = code_words(l.strip())
            if item:
                key, _, rest = l.partition(' ')
                l = '`' + key.strip('`') + '`' + (' ' + rest if rest else '')
            parts.append(l if k == 0 else '<br>' + l)
        names = ', '.join('`' + f + '`' for f in flag.split(', '))
        out.append('| ' + names + ' | ' + ''.join(parts) + ' |')
    kept = [n for n in notes if not n.startswith('Usage:') and
            not n.startswith('The following run time system options')]
    return '\n'.join(out + [''] + [code_words(' '.join(kept))])


def refresh_readme(build, check):
    path = os.path.join(ROOT, 'README.md')
    doc = open(path, encoding='utf-8').read()
    if BEGIN not in doc or END not in doc:
        return ['README.md: no ' + BEGIN + ' ... ' + END + ' markers']
    head, rest = doc.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    new = '\n' + rts_table(rts_usage(build)) + '\n'
    if old == new:
        return []
    if check:
        return ['README.md: the RTS flags table is not what `+RTS -?` prints now '
                '(run scripts/doc-examples.py):\n' + diff(old, new)]
    open(path, 'w', encoding='utf-8').write(head + BEGIN + new + END + tail)
    return []


def diff(old, new):
    a, b = old.strip('\n').split('\n'), new.strip('\n').split('\n')
    lines = ['  - ' + l for l in a if l not in b] + ['  + ' + l for l in b if l not in a]
    return '\n'.join(lines[:20])

# ---------------------------------------------------------------------------
# Console blocks


def clean_dirty_lines():
    """rts/StgInfo.c: per mutable info table, the line of its _DIRTY table
    and of its _CLEAN one."""
    found = {}
    src = os.path.join(ROOT, 'rts', 'StgInfo.c')
    for n, line in enumerate(open(src, encoding='utf-8'), 1):
        m = re.match(r'RTS_INFO\(stg_(\w+)_(CLEAN|DIRTY)_info', line)
        if m:
            found.setdefault(m.group(1), {})[m.group(2)] = n
    return {k: v for k, v in found.items() if len(v) == 2}


STG = None


def shape(line):
    """A line with numbers, addresses and the clean/dirty state masked."""
    s = re.sub(r'0x[0-9a-f]+…?', 'ADDR', line)
    s = re.sub(r'[0-9]+([.,][0-9]+)*', 'N', s)
    s = re.sub(r'_(CLEAN|DIRTY)', '_*', s)
    return re.sub(r' +', ' ', s).strip()


def strict(line):
    """shape, but source locations (a .c, .h or .hs file's :LINE:COL) kept,
    and a _DIRTY table counted as its _CLEAN twin, line and all."""
    for name, at in STG.items():
        if name + '_DIRTY' in line:
            line = line.replace(name + '_DIRTY', name + '_CLEAN').replace(
                'StgInfo.c:%d' % at['DIRTY'], 'StgInfo.c:%d' % at['CLEAN'])
    line = re.sub(r'(\.(?:c|h|hs):)([0-9:\-]+)',
                  lambda m: m.group(1) + m.group(2).translate(str.maketrans('0123456789', 'abcdefghij')),
                  line)
    s = re.sub(r'0x[0-9a-f]+…?', 'ADDR', line)
    s = re.sub(r'[0-9]+([.,][0-9]+)*', 'N', s)
    return re.sub(r' +', ' ', s).strip()


def match(expected, actual):
    """Per line of expected ("…" aside), the index of the actual line of its
    shape, in order; None if one is missing."""
    at, k = [], 0
    for e in expected:
        if e.strip() == '…':
            continue
        while k < len(actual) and shape(actual[k]) != shape(e):
            k += 1
        if k == len(actual):
            return None
        at.append(k)
        k += 1
    return at


class Runner:
    def __init__(self, build, work):
        self.build, self.work, self.procs = build, work, []
        self.tool = os.path.join(build, 'utils', 'strata-debug', 'strata-debug')

    def command(self, cmd):
        cmd = cmd.replace('/tmp/', self.work + '/')
        cmd = re.sub(r'(^| |=)build/', lambda m: m.group(1) + self.build + '/', cmd)
        return re.sub(r'^strata-debug ', shlex.quote(self.tool) + ' ', cmd)

    def back(self, text):
        """Output with the scratch and build directories as the docs write them."""
        return text.replace(self.work + '/', '/tmp/').replace(self.build + '/', 'build/')

    def stop(self):
        for p in self.procs:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []

    def start(self, cmd):
        self.stop()
        run = self.command(cmd[:-1].rstrip())
        out = open(os.path.join(self.work, 'bg.out'), 'w')
        run = re.sub(r'^((?:\w+=\S+\s+)*)', r'\1exec ', run)   # VAR=x exec prog: stop stops it
        self.procs.append(subprocess.Popen(['bash', '-c', run], cwd=self.work,
                                           stdout=out, stderr=subprocess.STDOUT))
        m = re.search(r'(' + re.escape(self.work) + r'/[a-z0-9]*\.sock)', run)
        for _ in range(200):
            if m is None or os.path.exists(m.group(1)):
                return None
            time.sleep(0.1)
        return 'no socket at %s after: %s' % (m.group(1), cmd)

    def run(self, cmd, expected):
        """The output lines of cmd, run again while they lack expected's
        shape (strata-debug only); and an error, or None."""
        tries = 50 if cmd.startswith('strata-debug ') else 1
        lines = []
        for _ in range(tries):
            r = subprocess.run(['bash', '-c', self.command(cmd)], cwd=self.work,
                               capture_output=True, text=True, timeout=300)
            lines = self.back(r.stdout).rstrip('\n').split('\n') if r.stdout else []
            if r.returncode == 0 and match(expected, lines) is not None:
                return lines, None
            time.sleep(0.2)
        return lines, ("'%s' no longer prints what the docs show; it printed:\n%s\n%s" %
                       (cmd, '\n'.join(lines[:20]), self.back(r.stderr)[:500]))


def console_steps(lines):
    """(line number of "$ CMD", CMD, [line numbers of its output]) for every
    command of every ```console block."""
    steps, block, cmd = [], False, None
    for n, line in enumerate(lines):
        if not block:
            block = line == '```console'
            continue
        if line == '```' or line.startswith('$ '):
            if cmd is not None:
                steps.append(cmd)
            cmd = None
            if line == '```':
                block = False
            else:
                cmd = (n, line[2:], [])
            continue
        cmd[2].append(n)
    return steps


def refresh_console(doc_rel, runner, check):
    path = os.path.join(ROOT, doc_rel)
    lines = open(path, encoding='utf-8').read().split('\n')
    problems, steps = [], console_steps(lines)
    for _, cmd, outs in steps:
        if cmd.endswith('&'):
            err = runner.start(cmd)
            if err:
                problems.append('%s: %s' % (doc_rel, err))
            continue
        expected = [lines[n] for n in outs]
        actual, err = runner.run(cmd, expected)
        if err:
            problems.append('%s: %s' % (doc_rel, err))
            continue
        shown = [n for n in outs if lines[n].strip() != '…']
        for n, k in zip(shown, match(expected, actual)):
            if strict(lines[n]) != strict(actual[k]):
                if check:
                    problems.append('%s:%d: shows\n    %s\n  where the program prints\n    %s' %
                                    (doc_rel, n + 1, lines[n], actual[k]))
                else:
                    lines[n] = actual[k]
            elif not check:
                lines[n] = actual[k]
    runner.stop()
    if not check:
        open(path, 'w', encoding='utf-8').write('\n'.join(lines))
    if len(steps) < 5:
        problems.append('%s: only %d commands found' % (doc_rel, len(steps)))
    return problems


def main():
    global STG
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='compare only; exit 1 on a difference')
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'), help='the build tree')
    ap.add_argument('--work', help='a scratch directory (default: a new one under $TMPDIR)')
    ap.add_argument('--docs', nargs='*', default=CONSOLE_DOCS, help='the docs with console blocks')
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if not os.path.exists(os.path.join(build, 'utils', 'strata-debug', 'strata-debug')):
        sys.exit('doc-examples.py: %s is not a built tree (no utils/strata-debug/strata-debug)' % build)
    STG = clean_dirty_lines()
    work = a.work or tempfile.mkdtemp(prefix='strata-doc-examples.')
    if not os.path.isdir(work):
        sys.exit('doc-examples.py: --work %s is not a directory' % work)
    runner = Runner(build, os.path.abspath(work))
    problems = refresh_readme(build, a.check)
    try:
        for doc in a.docs:
            problems += refresh_console(doc, runner, a.check)
    finally:
        runner.stop()
    for p in problems:
        print('doc-examples.py: ' + p)
    if not problems:
        print('doc-examples.py: %s' % ('the examples are what the programs print'
                                       if a.check else 'examples rewritten from the programs\' output'))
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
