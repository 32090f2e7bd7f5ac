#!/usr/bin/env python3
"""The include graph of src/: each top folder (src/<module>/) is a module.
Fails (exit 1, one line per finding on stderr) on a circle between modules
(module A includes a header of module B and B, directly or through others,
one of A's), on a file that includes another module's *_impl.h, and on a
file of the command (src/cli/) that includes any other module's header.
Only quoted includes of the form "<module>/<file>" count; public headers
(pmcfuse/...) and same-folder includes ("x.h") belong to no other module.

usage: include_graph.py SRC_DIR      check a tree
       include_graph.py --self-test  check that the rules can fail"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')

# Modules that may include no other module's header, only their own and the
# public ones (pmcfuse/...): the command is a user of the public library.
PUBLIC_ONLY = {"cli"}
# Helper modules compiled into the command too (curl's curlx model, src/x/):
# the PUBLIC_ONLY modules may include them, and they include no other module.
SHARED_HELPERS = {"x"}

# Includes of another module's *_impl.h allowed by name (none now: the
# command line uses only the public library, tests/cli_public_symbols.sh);
# an entry that no longer occurs fails, so the list only shrinks.
KNOWN = set()


def edges(src):
    """(module, included module, file, header) for every cross-module include."""
    modules = {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))}
    out = []
    for mod in sorted(modules):
        for root, _, files in os.walk(os.path.join(src, mod)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for line in f:
                        m = INCLUDE.match(line)
                        if not m or "/" not in m.group(1):
                            continue
                        dep = m.group(1).split("/", 1)[0]
                        if dep in modules and dep != mod:
                            out.append((mod, dep, os.path.relpath(path, src), m.group(1)))
    return out


def check(src, known=frozenset()):
    problems = []
    graph = {}
    seen_known = set()
    for mod, dep, path, header in edges(src):
        graph.setdefault(mod, set()).add(dep)
        if (path, header) in known:
            seen_known.add((path, header))
        elif os.path.basename(header).endswith("_impl.h"):
            problems.append(f"{path} includes {header}, the private header of module {dep}")
        elif mod in SHARED_HELPERS:
            problems.append(f"{path} includes {header}: module {mod} is compiled into the command and "
                            "includes no other module")
        elif mod in PUBLIC_ONLY and dep not in SHARED_HELPERS:
            problems.append(f"{path} includes {header}: module {mod} uses only the public headers")
    for path, header in sorted(set(known) - seen_known):
        problems.append(f"{path} no longer includes {header}: remove it from KNOWN in {__file__}")
    # circles: depth-first search, a grey node reached again closes one
    state, stack, seen = {}, [], set()

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                circle = stack[stack.index(d):] + [d]
                key = frozenset(circle)
                if key not in seen:
                    seen.add(key)
                    problems.append("circle between modules: " + " -> ".join(circle))
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return problems


def self_test():
    tree = {
        "a/a.c": '#include "b/b.h"\n',
        "b/b.h": '#include "c/c.h"\n',
        "c/c.h": '#include "a/a.h"\n#include "util/x.h"\n',
        "a/a.h": "",
        "util/x.h": '#include "pmcfuse/p.h"\n#include "local.h"\n',
        "d/d.c": '  #  include "e/e_impl.h"\n',
        "e/e_impl.h": '#include "e/e.h"\n',
        "cli/v.c": '#include "cli/cli.h"\n#include "pmcfuse/p.h"\n#include "util/x.h"\n#include "x/x.h"\n',
        "x/x.c": '#include "x/x.h"\n#include "util/x.h"\n',
        "x/x.h": "",
        "cli/cli.h": "",
    }
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in tree.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
        got = sorted(check(tmp, {("d/d.c", "e/e_impl.h"), ("a/a.c", "c/c_impl.h")}) +
                     check(tmp))
    want = sorted(["circle between modules: a -> b -> c -> a",
                   "circle between modules: a -> b -> c -> a",
                   f"a/a.c no longer includes c/c_impl.h: remove it from KNOWN in {__file__}",
                   "d/d.c includes e/e_impl.h, the private header of module e",
                   "cli/v.c includes util/x.h: module cli uses only the public headers",
                   "cli/v.c includes util/x.h: module cli uses only the public headers",
                   "x/x.c includes util/x.h: module x is compiled into the command and includes no other module",
                   "x/x.c includes util/x.h: module x is compiled into the command and includes no other module"])
    if got != want:
        print(f"include_graph self-test: got {got}, want {want}", file=sys.stderr)
        return 1
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: include_graph.py SRC_DIR | --self-test", file=sys.stderr)
        return 2
    problems = check(argv[1], KNOWN)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
