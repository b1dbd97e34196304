#!/usr/bin/env python3
"""scripts/doc-examples.py -- the docs' examples, from the programs' own output.

Two kinds of example are kept true to the program:

- README.md's table of RTS flags, between the markers
  <!-- BEGIN rts-flags ... --> and <!-- END rts-flags -->, is made from what
  `+RTS -?` prints (rts/RtsOptions.c's usage text): every flag it lists, in
  its words.
- Every ```console block of docs/strata-debug.md and
  docs/strata-debug-tutorial.md: a line "$ CMD" is a command and the lines
  after it what it prints ("…" skips lines).  Each command is run once, as
  it is written ("build/" is the build tree, "/tmp/" a scratch directory,
  "strata-debug" the tool; a command ending in "&" starts a program in the
  background and waits for its socket).

    scripts/doc-examples.py [--build DIR] [--work DIR]    rewrite the docs
    scripts/doc-examples.py --check [--build DIR] ...     compare only

Waiting for the state a block shows.  A running program's output depends on
how far it got, so a block that queries one says, in a comment the rendered
page does not show, which state it documents, and every command waits for
it (polling `strata-debug roots --json` for the era the program is in,
`fragmentation --json` for its pinned blocks) before it runs:

    <!-- doc-examples: wait until /tmp/leak.sock is in era 4 -->
    <!-- doc-examples: before "strata-debug snapshot b.snap", wait until
         /tmp/leak.sock is in era new-era+1 -->
    <!-- doc-examples: wait until /tmp/frag.sock holds 1000 pinned blocks -->

"in era N" means era N or later: the examples set their eras themselves
(examples/leak.c's phases, --automatic-era-increment's major GCs), so the
era is the program's own signal of its progress.  "new-era+K" counts from
the era the last `snapshot --new-era` said the program resumes in.  A
directive applies to the next command (or the one its "before" names) of
the next console block.  A strata-debug command on a program's socket with
no wait since the program started is an error, as is a state not reached
within --deadline seconds (the message names the block and what was seen).

Comparing.  --check (testsuite/scripts/doc-examples.sh) fails on any
difference.  A console line shown is compared with these fields normalised,
and every other character exact (words, closure types, block kinds such as
"small"/"nursery", constructors, source locations file.c:LINE:COL, order):

    0x… addresses          where the heap and the statics lie changes with
                           every run (ASLR, the block allocator's choices)
    numbers: counts,       how many requests, eras and GCs a program got
      sizes, gens, PIDs,   through before the pause varies with the load
      times                (the waits fix the state's shape, not the
                           instant); a gen, whether a GC has promoted the
                           object yet (pinned-frag's emptiest block may be
                           one no GC has seen); PIDs and the diff's
                           "taken" times change with every run
    eras of a moment and   "A: a.snap, era 15", "was current", "eras
      a run's range        after/up to", "started era": when a snapshot
                           was taken; "eras 3–11" (an en-dash range): how
                           far the program got.  An object's era ("era 2
                           small gen 1") and a query's ("eras 1-2") are
                           exact: the waits make them so
    _CLEAN/_DIRTY          a mutable object's info table flips with every
      (and its StgInfo.c   write and back at each GC; the two tables' lines
      line)                in rts/StgInfo.c go with them

A line is found by its shape (all of the above masked, "…" skipping lines);
an output whose shape changed is a difference that rewriting cannot mend:
edit the block by hand, then rewrite.

Rewriting.  Without --check, a doc whose every line already matches is left
as it is (no churn of addresses); otherwise every console output line of
that doc is written from this one run, so that addresses that recur from
one block to the next (a holder in retainers and in boundary) agree.
"""
import argparse
import json
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
        m = re.match(r"^([(]?)(.*?)((?:'s)?[),.;:]*)$", w)     # -i0's: the 's is prose
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
# Console blocks: comparing a line


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


def masked(line):
    """Addresses and numbers masked (the module's docstring says why)."""
    s = re.sub(r'0x[0-9a-f]+…?', 'ADDR', line)
    s = re.sub(r'[0-9]+([.,][0-9]+)*', 'N', s)
    return re.sub(r' +', ' ', s).strip()


def shape(line):
    """A line's shape: masked, and the clean/dirty state too."""
    return masked(re.sub(r'_(CLEAN|DIRTY)', '_*', line))


# A diff's or snapshot's moment: its eras say when it was taken.
MOMENT = re.compile(r'^(A|B): |was current|eras after|eras up to|started era')


def strict(line):
    """masked, but source locations (a .c, .h or .hs file's :LINE:COL) and
    the era of an object or of a query (not of a moment) kept, and a _DIRTY
    table counted as its _CLEAN twin, line and all."""
    for name, at in STG.items():
        if name + '_DIRTY' in line:
            line = line.replace(name + '_DIRTY', name + '_CLEAN').replace(
                'StgInfo.c:%d' % at['DIRTY'], 'StgInfo.c:%d' % at['CLEAN'])
    digits = str.maketrans('0123456789', 'abcdefghij')
    keep = lambda m: m.group(1) + m.group(2).translate(digits)
    line = re.sub(r'(\.(?:c|h|hs):)([0-9:\-]+)', keep, line)
    if not MOMENT.search(line):
        line = re.sub(r'(\beras? )([0-9]+(?:-[0-9]+)?)(?![0-9–])', keep, line)
    return masked(line)


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

# ---------------------------------------------------------------------------
# Console blocks: reading a doc


class Step:
    """One "$ CMD" of a console block, the line numbers (0-based) of what
    it shows, and the state to wait for before it runs."""

    def __init__(self, n, cmd, block):
        self.n, self.cmd, self.block, self.outs, self.waits = n, cmd, block, [], []


DIRECTIVE = re.compile(r'^<!-- doc-examples: (.*?)\s*-->$')
WAIT = re.compile(r'^(?:before "(?P<before>[^"]+)", )?wait until (?P<sock>\S+) '
                  r'(?:is in era (?P<era>new-era\+[0-9]+|[0-9]+)'
                  r'|holds (?P<pinned>[0-9]+) pinned blocks)$')


def read_steps(doc_rel, lines):
    """The steps of every console block, with their waits; and problems
    (a directive that does not parse or names no command)."""
    steps, problems, pending = [], [], []
    block, n = None, 0
    while n < len(lines):
        line = lines[n]
        text = line
        if block is None and line.startswith('<!-- doc-examples:'):
            while '-->' not in text and n + 1 < len(lines):   # a directive may wrap
                n += 1
                text += ' ' + lines[n].strip()
            m = DIRECTIVE.match(re.sub(r'\s+', ' ', text))
            w = WAIT.match(m.group(1)) if m else None
            if w is None:
                problems.append('%s:%d: a doc-examples directive that does not read as '
                                '"[before "CMD", ]wait until SOCKET is in era N|new-era+K" '
                                'or "... holds N pinned blocks": %s' % (doc_rel, n + 1, text))
            else:
                pending.append((n + 1, w.groupdict()))
        elif block is None:
            if line == '```console':
                block = n + 1
        elif line == '```':
            block = None
        elif line.startswith('$ '):
            steps.append(Step(n + 1, line[2:], block))
            cmd = steps[-1].cmd
            for at, w in [p for p in pending if cmd.startswith(p[1]['before'] or '') and
                          not cmd.endswith('&')]:   # a program's start waits for nothing
                steps[-1].waits.append(w)
                pending.remove((at, w))
        elif steps and steps[-1].block == block:
            steps[-1].outs.append(n)
        if block is None and line == '```':
            for at, w in pending:
                problems.append('%s:%d: a doc-examples directive that names no command of '
                                'the console block after it (before "%s")' % (doc_rel, at, w['before']))
            pending = []
        n += 1
    return steps, problems

# ---------------------------------------------------------------------------
# Console blocks: running the commands


class Runner:
    def __init__(self, build, work, deadline):
        self.build, self.work, self.deadline, self.procs = build, work, deadline, []
        self.tool = os.path.join(build, 'utils', 'strata-debug', 'strata-debug')
        self.waited = set()     # the sockets waited for since their program started
        self.new_era = None     # what the last snapshot --new-era said
        self.verbose = False

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
        self.procs, self.waited = [], set()

    def start(self, cmd):
        self.stop()
        run = self.command(cmd[:-1].rstrip())
        m = re.search(r'(' + re.escape(self.work) + r'/[a-z0-9]*\.sock)', run)
        if m is not None and os.path.exists(m.group(1)):
            os.unlink(m.group(1))   # a stopped program's socket is no sign of this one
        out = open(os.path.join(self.work, 'bg.out'), 'w')
        run = re.sub(r'^((?:\w+=\S+\s+)*)', r'\1exec ', run)   # VAR=x exec prog: stop stops it
        self.procs.append(subprocess.Popen(['bash', '-c', run], cwd=self.work,
                                           stdout=out, stderr=subprocess.STDOUT))
        end = time.monotonic() + self.deadline
        while m is not None and not os.path.exists(m.group(1)):
            if time.monotonic() > end or self.procs[0].poll() is not None:
                return 'no socket at %s after %d s (%s)' % (self.back(m.group(1)), self.deadline,
                                                          self.exited())
            time.sleep(0.1)
        return None

    def exited(self):
        p = self.procs[0] if self.procs else None
        if p is None or p.poll() is None:
            return 'the program still runs'
        tail = open(os.path.join(self.work, 'bg.out'), errors='replace').read()[-300:]
        return 'the program exited with status %d: %s' % (p.returncode, tail.strip())

    def probe(self, sock, what):
        """The program's era (`roots --json`: it reads no heap but the
        weaks' blocks) or its pinned blocks (`fragmentation --json`), or
        None; and why not."""
        cmd = ['roots'] if what == 'era' else ['fragmentation']
        r = subprocess.run([self.tool] + cmd + ['--socket', sock, '--json'],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            return None, r.stderr.strip()[:200]
        d = json.loads(r.stdout)
        return (d['target']['era'] if what == 'era' else d['pinned_blocks']), None

    def wait(self, w):
        """Polls the program until it is in the state w; an error or None."""
        sock = self.command(w['sock'])
        if w['era'] is not None and w['era'].startswith('new-era+'):
            if self.new_era is None:
                return 'waits for new-era+K with no snapshot --new-era before it'
            want, what = self.new_era + int(w['era'][8:]), 'era'
        elif w['era'] is not None:
            want, what = int(w['era']), 'era'
        else:
            want, what = int(w['pinned']), 'pinned blocks'
        start = time.monotonic()
        while True:
            t = time.monotonic()
            seen, why = self.probe(sock, what)
            if seen is not None and seen >= want:
                self.waited.add(w['sock'])
                if self.verbose:
                    print('doc-examples.py: %s reached %s %d (%d wanted) after %.1f s' %
                          (w['sock'], what, seen, want, time.monotonic() - start))
                return None
            if time.monotonic() > start + self.deadline or \
                    (self.procs and self.procs[0].poll() is not None):
                return ('%s did not reach %s %d within %d s (last seen: %s; %s)' %
                        (w['sock'], what, want, self.deadline,
                         why if seen is None else '%s %d' % (what, seen), self.exited()))
            # A probe pauses the program: leave it at least twice that to run.
            time.sleep(max(0.5, 2 * (time.monotonic() - t)))

    def run(self, step):
        """The output lines of the step's command, after its waits; and an
        error, or None."""
        for w in step.waits:
            err = self.wait(w)
            if err:
                return [], err
        sock = re.search(r'--socket (\S+)', step.cmd)
        if step.cmd.startswith('strata-debug ') and sock and sock.group(1) not in self.waited:
            return [], ('queries %s with no "wait until %s ..." directive since its program '
                        'started: say which state the block shows' % (sock.group(1), sock.group(1)))
        r = subprocess.run(['bash', '-c', self.command(step.cmd)], cwd=self.work,
                           capture_output=True, text=True, timeout=300)
        lines = self.back(r.stdout).rstrip('\n').split('\n') if r.stdout else []
        m = re.search(r'the program resumes in era ([0-9]+)', r.stdout)
        if m:
            self.new_era = int(m.group(1))
        if r.returncode != 0:
            return lines, 'exited with status %d: %s' % (r.returncode, self.back(r.stderr)[:500])
        return lines, None


def refresh_console(doc_rel, runner, check):
    path = os.path.join(ROOT, doc_rel)
    lines = open(path, encoding='utf-8').read().split('\n')
    steps, problems = read_steps(doc_rel, lines)
    new, differs = list(lines), False
    for step in steps:
        where = '%s:%d (the console block at line %d): $ %s' % (doc_rel, step.n, step.block,
                                                                step.cmd)
        if step.cmd.endswith('&'):
            err = runner.start(step.cmd)
            if err:
                problems.append('%s: %s' % (where, err))
            continue
        expected = [lines[n] for n in step.outs]
        actual, err = runner.run(step)
        at = None if err else match(expected, actual)
        if at is None:
            problems.append('%s: %s' % (where, err or 'no longer prints what the docs show; '
                                        'it printed:\n' + '\n'.join(actual[:20])))
            continue
        shown = [n for n in step.outs if lines[n].strip() != '…']
        for n, k in zip(shown, at):
            new[n] = actual[k]
            if strict(lines[n]) != strict(actual[k]):
                differs = True
                if check:
                    problems.append('%s:%d: shows\n    %s\n  where the program prints\n    %s' %
                                    (doc_rel, n + 1, lines[n], actual[k]))
    runner.stop()
    if not check and not problems:
        if differs:
            open(path, 'w', encoding='utf-8').write('\n'.join(new))
        print('doc-examples.py: %s: %s' % (doc_rel, 'rewritten from this run' if differs else
                                            'unchanged: every line shown still comes out'))
    if len(steps) < 5:
        problems.append('%s: only %d commands found' % (doc_rel, len(steps)))
    return problems


def main():
    global STG
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true', help='compare only; exit 1 on a difference')
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'), help='the build tree')
    ap.add_argument('--work', help='a scratch directory (default: a new one under $TMPDIR)')
    ap.add_argument('--deadline', type=float, default=300,
                    help='seconds a block may wait for the state it shows (default 300)')
    ap.add_argument('--verbose', action='store_true', help='say how long each wait took')
    ap.add_argument('--docs', nargs='*', default=CONSOLE_DOCS, help='the docs with console blocks')
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    if not os.path.exists(os.path.join(build, 'utils', 'strata-debug', 'strata-debug')):
        sys.exit('doc-examples.py: %s is not a built tree (no utils/strata-debug/strata-debug)' % build)
    STG = clean_dirty_lines()
    work = a.work or tempfile.mkdtemp(prefix='strata-doc-examples.')
    if not os.path.isdir(work):
        sys.exit('doc-examples.py: --work %s is not a directory' % work)
    runner = Runner(build, os.path.abspath(work), a.deadline)
    runner.verbose = a.verbose
    problems = refresh_readme(build, a.check)
    try:
        for doc in a.docs:
            problems += refresh_console(doc, runner, a.check)
    finally:
        runner.stop()
    for p in problems:
        print('doc-examples.py: ' + p)
    if not problems:
        print('doc-examples.py: the examples are what the programs print')
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
