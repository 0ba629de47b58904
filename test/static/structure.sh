#!/usr/bin/env bash
# The architecture, checked (make check and make test run it after the
# build): src/README.md's layers, every SQL entry point in src/pg/api, the
# plain-C core without PostgreSQL, no file over 700 lines without a reason
# in its header, a README per folder, and no cycle of calls between files
# (read from the built objects' symbols).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 - "$@" <<'PY'
import os, re, subprocess, sys, glob
fail = []
def err(m): fail.append(m)

# the layers, lowest first; a folder may include only folders before it
# (math/base and math/crypto are both the ground floor)
layers = ['math/base', 'math/crypto', 'math/accounting', 'math/random', 'math/noise', 'math/projection',
          'math/estimate', 'math/analytics', 'math/covariance', 'math/graph', 'math/nullspace',
          'pg/common', 'pg/catalog', 'pg/budget', 'pg/keys', 'pg/advice', 'pg/engines',
          'pg/pipeline', 'pg/api']
rank = {l: i for i, l in enumerate(layers)}
def folder_of(path):
    rel = os.path.relpath(path, 'src')
    parts = rel.split('/')
    return '/'.join(parts[:2]) if len(parts) > 2 else parts[0]

sources = sorted(glob.glob('src/math/**/*.[ch]', recursive=True) + glob.glob('src/pg/**/*.[ch]', recursive=True))
for f in sources:
    text = open(f).read()
    me = folder_of(f)
    if me.startswith('math/') or me == 'math':
        if re.search(r'#include\s+"postgres.h"|#include\s+"pg/', text):
            err(f'{f}: the plain-C core includes PostgreSQL or the glue')
    if me not in rank and f != 'src/pg/jldp.c':
        err(f'{f}: folder {me} is not in the layers of src/README.md')
        continue
    for inc in re.findall(r'#include\s+"((?:math|pg)/[a-z_]+)/', text):
        if f == 'src/pg/jldp.c' or inc == me:
            continue
        if inc not in rank:
            err(f'{f}: includes an unknown folder {inc}')
        elif rank[inc] > rank[me]:
            err(f'{f}: {me} includes {inc}, a later layer')
    if 'PG_FUNCTION_INFO_V1' in text and not (f.startswith('src/pg/api/')):
        err(f'{f}: an SQL entry point outside src/pg/api')
    n = text.count('\n')
    if n > 700 and 'Over 700 lines:' not in text[:3000]:
        err(f'{f}: {n} lines, and its header gives no reason ("Over 700 lines: ...")')

for d in sorted(set(os.path.dirname(f) for f in sources)):
    if d.startswith('src/pg/api/'):
        continue                            # src/pg/api/README.md covers its areas
    if not os.path.exists(os.path.join(d, 'README.md')):
        err(f'{d}: no README.md saying what lives there and what it may call')

# calls between files, from the objects: file A uses a symbol that file B
# alone defines; a cycle of such uses is a cycle of the architecture
objs = sorted(o for o in glob.glob('src/**/*.o', recursive=True) if os.path.exists(o[:-2] + '.c'))
if not objs:
    err('no objects under src: build first (make)')
defs, uses = {}, {}
for o in objs:
    out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBR':
            defs[p[2]] = o
        elif len(p) == 2 and p[0] == 'U':
            uses.setdefault(o, set()).add(p[1])
graph = {o: sorted({defs[s] for s in uses.get(o, ()) if s in defs and defs[s] != o}) for o in objs}
index, low, stack, on, sccs = {}, {}, [], set(), []
def strong(v):
    index[v] = low[v] = len(index); stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        if len(c) > 1: sccs.append(sorted(c))
sys.setrecursionlimit(10000)
for v in objs:
    if v not in index: strong(v)
for c in sccs:
    err('a cycle of calls: ' + ' <-> '.join(x[:-2] + '.c' for x in c))

for m in fail: print('structure: ' + m)
print(f'structure: {len(sources)} sources, {len(objs)} objects, {sum(len(v) for v in graph.values())} file-to-file calls, '
      f'{len(sccs)} cycles, {len(fail)} problems')
sys.exit(1 if fail else 0)
PY
