#!/usr/bin/env bash
# The documentation's words checked against the code (make check, make
# test): every relative link of every page resolves (to a file, and to a
# heading for #anchors); every path of the repository a page or a source
# comment names exists; every jl_ name a page shows in code is a routine,
# type or view of the install script, a C symbol, or a retired name whose
# replacement the CHANGELOG gives.  The CHANGELOG itself is history and is
# not checked.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f "jldp--$(sed -n "s/^default_version = '\(.*\)'/\1/p" jldp.control).sql" ] || make -s "jldp--$(sed -n "s/^default_version = '\(.*\)'/\1/p" jldp.control).sql"
exec python3 - <<'PY'
import os, re, subprocess, sys
fail = []
files = subprocess.check_output(['git', 'ls-files'], text=True).split()
pages = [f for f in files if f.endswith('.md') and not f.startswith('CHANGELOG')]
# the paper's sections are parts of test/paper/reproduction.md, their links
# written for it (checked there)
linked = [p for p in pages if not re.match(r'test/paper/results/\w+_section\.md$', p)]

def anchors(path):
    out = set()
    for h in re.findall(r'(?m)^#{1,6} (.*)$', open(path).read()):
        a = re.sub(r'[^\w\- ]', '', h.strip().lower()).replace(' ', '-')
        out.add(a)
    return out

# 1. links
nlinks = 0
for p in linked:
    text = re.sub(r'(?s)```.*?```', '', open(p).read())
    for label, target in re.findall(r'\[([^\]]*)\]\(([^)\s]+)\)', text):
        if re.match(r'^[a-z]+:', target):
            continue
        nlinks += 1
        path, _, anc = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(p), path)) if path else p
        if not os.path.exists(dest):
            fail.append(f'{p}: link to {target}: no such file')
        elif anc and dest.endswith('.md') and anc not in anchors(dest):
            fail.append(f'{p}: link to {target}: no such heading')

# 2. paths named in pages and in source comments
known = set(files) | {os.path.dirname(f) for f in files}
npaths = 0
pathre = re.compile(r'(?<![\w/.-])((?:src|test|docs|sql|expected)/[\w./-]*\w)')
sources = pages + [f for f in files if f.startswith(('src/', 'test/')) and f.endswith(('.c', '.h', '.sh', '.py', '.sql'))
                   and not re.match(r'src/jldp--', f) and f != 'test/static/docs.sh']
for f in sources:
    for m in pathre.finditer(open(f, errors='replace').read()):
        path = m.group(1).rstrip('.')
        if '*' in path or '$' in path or 'A--B' in path or path.endswith(('/X', '/N', '_')):
            continue
        npaths += 1
        # a tracked file or folder, or a program built from a tracked source
        # of that name (the same answer in a clean clone as here)
        if path not in known and not any(k.startswith(path + '/') for k in known) and \
           not any(path + ext in known for ext in ('.c', '.py', '.sh')):
            fail.append(f'{f}: names {path}, which does not exist')

# 3. jl_ names shown in code spans
version = open('jldp.control').read().split("default_version = '")[1].split("'")[0]
install = open(f'jldp--{version}.sql').read()
defined = set(re.findall(r'\b(jl_\w+|jldp_\w+)\b', install))
for f in files:
    if f.startswith('src/') and f.endswith(('.c', '.h')):
        defined |= set(re.findall(r'\b(jl_\w+|jldp_\w+)\b', open(f).read()))
changelog = open('CHANGELOG.md').read() if os.path.exists('CHANGELOG.md') else ''
retired = set(re.findall(r'\b(jl_\w+)\b', changelog))
nnames = 0
for p in pages:
    text = open(p).read()
    spans = re.findall(r'`([^`\n]+)`', text) + re.findall(r'(?s)```(?:sql|text)?\n(.*?)```', text)
    for s in spans:
        for name in re.findall(r'\b(jl_\w+)\b', s):
            nnames += 1
            if name not in defined and name not in retired:
                fail.append(f'{p}: shows {name}, which is neither defined nor retired in the CHANGELOG')

for m in sorted(set(fail)):
    print('docs: ' + m)
print(f'docs: {len(pages)} pages, {nlinks} links, {npaths} paths named, {nnames} jl_ names shown; {len(set(fail))} problems')
sys.exit(1 if fail else 0)
PY
