#!/usr/bin/python3
"""check_deps.py -- the layering rules of the server, checked from the #include lines.

Why: the folders of server/ are layers (docs/architecture.md), and an arrow that
points the wrong way (a data structure that reaches for the server, a command
family that calls the log) is a design problem that must be seen when it is
written, not when a new feature trips over it. The build already refuses the
worst arrows (server/core is compiled with only its own include path and its
unit tests link only its library; the check tool links only persistence and the
core); this script checks every rule, transitively, through the headers.

Each quoted #include is resolved as the compiler resolves it (the including
file's folder, then the include paths of its layer, as in the Makefile). A file
"reaches" every file its includes reach, transitively. A rule names the files it
applies to and the folders they must never reach; a violation prints

    FILE:LINE: rule N (what the rule says): includes "X" -> ... -> FORBIDDEN

naming the include line of FILE that starts the chain. Exit status 1 if any rule
is broken, 0 otherwise; the last line says how many files and includes were
checked.

Usage: check_deps.py [ROOT]   (ROOT: the tree to check, default: this script's ../)
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

# Include paths per layer, as the Makefile gives them (CORE_INC, PERSIST_INC, SERVER_INC).
def include_paths(rel):
    if rel.startswith('server/core/'):
        return ['server/core']
    if rel.startswith('persistence/'):
        return ['persistence', 'server/core']
    return ['server', 'server/core', 'persistence']


def folder(rel):
    """The part a file belongs to, as the rules name them."""
    if rel.startswith('server/core/'):
        return 'core'
    if rel.startswith('persistence/'):
        return 'persistence'
    parts = rel.split('/')
    if len(parts) >= 3 and parts[0] == 'server' and parts[1] in ('net', 'keyspace', 'cmd', 'aof', 'script'):
        return parts[1]
    if len(parts) >= 4 and parts[0] == 'server' and parts[1] == 'types':
        return 'types/' + parts[2]
    return 'top'


def is_type_api(rel):
    """A type's own API: a file of types/<t>/ that is not a command family (cmd_*)."""
    return folder(rel).startswith('types/') and not os.path.basename(rel).startswith('cmd_')


# (number, what it says, applies to a file?, forbidden for it?)
RULES = [
    (1, 'server/core includes nothing outside server/core',
     lambda f: folder(f) == 'core', lambda f, t: folder(t) != 'core'),
    (2, 'persistence/ never includes server/ (the core library aside)',
     lambda f: folder(f) == 'persistence', lambda f, t: folder(t) not in ('persistence', 'core')),
    (3, 'keyspace/ and a type\'s own API never reach net/, cmd/, aof/ or the server\'s glue',
     lambda f: folder(f) == 'keyspace' or is_type_api(f),
     lambda f, t: folder(t) in ('net', 'cmd', 'aof', 'top', 'persistence', 'script')),
    (4, 'net/ never reaches cmd/, types/ or aof/',
     lambda f: folder(f) == 'net',
     lambda f, t: folder(t) in ('cmd', 'aof', 'persistence', 'script') or folder(t).startswith('types/')),
    (5, 'cmd/, script/ and the command families never reach the log (effects go through cmd/propagate.h)',
     lambda f: folder(f) in ('cmd', 'script') or (folder(f).startswith('types/') and not is_type_api(f)),
     lambda f, t: folder(t) in ('aof', 'persistence')),
    (6, 'aof/ never reaches net/',
     lambda f: folder(f) == 'aof', lambda f, t: folder(t) == 'net'),
    (7, 'one type never reaches another type\'s folder',
     lambda f: folder(f).startswith('types/'),
     lambda f, t: folder(t).startswith('types/') and folder(t) != folder(f)),
]


def sources():
    out = []
    for top in ('server', 'persistence'):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith(('.c', '.h')):
                    out.append(os.path.relpath(os.path.join(d, name), ROOT))
    return sorted(out)


def resolve(rel, inc):
    """The file a quoted include names, as the compiler finds it; an include its
    layer's paths cannot find (the compiler refuses it) is resolved with the
    server's paths, so that the rule it breaks is named. None: no such file."""
    for d in [os.path.dirname(rel)] + include_paths(rel) + ['server', 'server/core', 'persistence']:
        cand = os.path.normpath(os.path.join(d, inc))
        if os.path.isfile(os.path.join(ROOT, cand)):
            return cand
    return None


def main():
    files = sources()
    edges = {}  # file -> [(line, include text, resolved file)]
    nincludes = 0
    problems = []
    for f in files:
        lst = []
        with open(os.path.join(ROOT, f), errors='replace') as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                nincludes += 1
                t = resolve(f, m.group(1))
                if t is None:
                    problems.append('%s:%d: "%s" names no file of the tree' % (f, n, m.group(1)))
                    continue
                lst.append((n, m.group(1), t))
        edges[f] = lst

    def chains(start):
        """Every file start reaches, each with the chain of files that leads there."""
        seen = {start: [start]}
        todo = [start]
        while todo:
            cur = todo.pop()
            for _, _, t in edges.get(cur, []):
                if t not in seen:
                    seen[t] = seen[cur] + [t]
                    todo.append(t)
        return seen

    for f in files:
        applicable = [r for r in RULES if r[2](f)]
        if not applicable:
            continue
        for line, text, t in edges[f]:
            reach = chains(t)
            for num, says, _, bad in applicable:
                hits = sorted(x for x in reach if bad(f, x))
                if hits:
                    chain = ' -> '.join(reach[hits[0]])
                    problems.append('%s:%d: rule %d (%s): includes "%s" -> %s'
                                    % (f, line, num, says, text, chain))
    for p in problems:
        print(p)
    print('check-deps: %d files, %d includes, %d rules: %s'
          % (len(files), nincludes, len(RULES), 'ok' if not problems else '%d problems' % len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
