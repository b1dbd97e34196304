#!/usr/bin/env python3
"""scripts/include-circles.py [SRCDIR [DIR...]] -- the include circles among
the modules of the folders named: the storage manager's by default
(docs/design/storage.md, "Floors"); rts/ and utils/ are kept free of
any (testsuite/scripts/include-circles.sh).

A module is a header and the source of the same name (Heap.h, Heap.c);
where two folders hold one name (each tool's main.c) the module is named
by its folder too.  A module depends on each header its files include (a
header beside the including file first, as the compiler finds it), and a
header on the modules that define what it declares (functions and extern
variables).  A
public header (includes/strata/) whose declarations the scanned folders
define in one module is part of that module (strata/Barrier.h of MutList).
Prints each circle (strongly connected component of more than one module)
with its files, largest first; DIRs default to sm and includes/strata.

With --floors first, fails (exit 1) when a circle holds a file of one of
the floors below or above the collector (sm/block/, sm/heap/, sm/alloc/):
only the collector's own core may be one circle (.inv.sm-floors)."""
import os, re, sys
args = sys.argv[1:]
floors = bool(args) and args[0] == '--floors'
if floors:
    args = args[1:]
root = args[0] if args else '.'
dirs = args[1:] or ['sm', 'includes/strata']
files = []
for d in dirs:
    for dp, _, fs in os.walk(os.path.join(root, d)):
        for f in fs:
            if f.endswith(('.c', '.h')):
                files.append(os.path.relpath(os.path.join(dp, f), root))
files.sort()
text = {f: open(os.path.join(root, f)).read() for f in files}
def strip(s):
    s = re.sub(r'/\*.*?\*/', ' ', s, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', s)
clean = {f: strip(t) for f, t in text.items()}
by_name = {}
for f in files:
    b = os.path.basename(f)
    by_name.setdefault(b, f)
    if f.startswith('includes/'):
        by_name[os.path.relpath(f, 'includes')] = f
    for sub in ('sm/',):
        if f.startswith(sub) and f.count('/') > 1:
            by_name[os.path.relpath(f, sub)] = f
decl_re = re.compile(r'^[ \t]*(?:extern[ \t]+|static[ \t]+inline[^\n]*)?[A-Za-z_][\w \t\*]*?\b(\w+)\s*\(([^;{()]|\([^()]*\))*\)\s*;', re.M)
ext_re = re.compile(r'^[ \t]*extern\b[^;(]*?\b(\w+)\s*(?:\[[^\]]*\])?\s*;', re.M)
def_re = re.compile(r'^[A-Za-z__][\w \t\*]*?\b(\w+)\s*\(([^;{()]|\([^()]*\))*\)\s*\{', re.M)
var_re = re.compile(r'^(?!static)(?!extern)[A-Za-z_][\w \t\*]*?\b(\w+)\s*(?:\[[^\]]*\])?\s*(?:=[^;]*)?;', re.M)
defs = {}
for f in files:
    if f.endswith('.c'):
        for m in def_re.finditer(clean[f]):
            defs.setdefault(m.group(1), set()).add(f)
        for m in var_re.finditer(clean[f]):
            defs.setdefault(m.group(1), set()).add(f)
stems = {}
for f in files:
    if not f.startswith('includes/'):
        stems.setdefault(os.path.splitext(os.path.basename(f))[0], set()).add(os.path.dirname(f))
def module(f):
    name = os.path.splitext(os.path.basename(f))[0]
    if f.startswith('includes/'):
        return 'strata/' + name
    return name if len(stems[name]) == 1 else os.path.dirname(f) + '/' + name

includes = {f: set() for f in files}      # file -> headers it includes
declared_in = {f: set() for f in files}   # header -> .c files defining its names
for f in files:
    for m in re.finditer(r'^\s*#\s*include\s*"([^"]+)"', text[f], re.M):
        beside = os.path.normpath(os.path.join(os.path.dirname(f), m.group(1)))
        t = beside if beside in text else by_name.get(m.group(1))
        if t and t != f:
            includes[f].add(t)
    if f.endswith('.h'):
        names = {m.group(1) for m in decl_re.finditer(clean[f])}
        names |= {m.group(1) for m in ext_re.finditer(clean[f])}
        for n in names:
            declared_in[f] |= defs.get(n, set())

mod = {f: module(f) for f in files}
for f in files:
    owners = {mod[c] for c in declared_in[f]}
    if f.startswith('includes/') and len(owners) == 1:
        mod[f] = owners.pop()
edges = {}
for f in files:
    e = edges.setdefault(mod[f], set())
    for t in includes[f] | declared_in[f]:
        if mod[t] != mod[f]:
            e.add(mod[t])

# Tarjan's strongly connected components.
idx, low, stack, on, comps = {}, {}, [], set(), []
sys.setrecursionlimit(10000)

def visit(v):
    idx[v] = low[v] = len(idx)
    stack.append(v)
    on.add(v)
    for w in sorted(edges.get(v, ())):
        if w not in idx:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        c = []
        while True:
            w = stack.pop()
            on.discard(w)
            c.append(w)
            if w == v:
                break
        comps.append(sorted(c))

for v in sorted(edges):
    if v not in idx:
        visit(v)
circles = sorted((c for c in comps if len(c) > 1), key=len, reverse=True)
for c in circles:
    members = [f for f in files if mod[f] in c]
    print('%d modules: %s' % (len(c), ' '.join(c)))
    print('  files: ' + ' '.join(members))
if not circles:
    print('no include circle')
in_floors = [f for c in circles for f in files
             if mod[f] in c and re.match(r'sm/(block|heap|alloc)/', f)]
if floors and in_floors:
    print('include-circles: a circle holds files of the floors (.inv.sm-floors): '
          + ' '.join(in_floors), file=sys.stderr)
    sys.exit(1)
