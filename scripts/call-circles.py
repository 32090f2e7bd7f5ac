#!/usr/bin/env python3
"""Lists the call circles between the files of each folder of src/: file A
calls a function defined in file B, and B (directly or through other files
of the folder) calls back into A. Reads the compiled objects with nm: an
object's undefined symbols are what it calls, its defined ones what it
offers. Calls between folders are left to tests/include_graph.py.

Usage: scripts/call-circles.py [--skip FOLDER]... [--sources SRC [--absent FILE]...]
                               OBJDIR[=BASE]... [FOLDER...]
  OBJDIR: the objects of one target, FILE.c.o (CMake's object folder, e.g.
  build/CMakeFiles/pmcfuse_internal.dir/src, one folder per component); its
  objects' sources are BASE/PATH (PATH the object's path under OBJDIR, CMake's
  __ for ..; BASE defaults to nothing), and the files of one source folder
  form one folder (e.g. plan, categorize/kernels); each target is checked
  apart. FOLDERs limit the check (default: all), --skip leaves one out.
  --sources SRC: also fails when a .c file under SRC (its path relative to
  SRC) is the source of no object checked, but the FILEs named by --absent
  (not built in this configuration); and objects whose source is no longer
  under SRC (left in a build folder by a file moved or removed) are ignored.
scripts/call-circles.py --self-test CC: shows with two compiled files that a
circle is found and a one-way call is not.
Prints each circle as "folder: a.c -> b.c -> a.c"; exit 1 when there is one
(or an unchecked source), 2 on a usage or nm error."""
import os, subprocess, sys


def symbols(obj):
    """(defined, undefined) global symbols of one object."""
    out = subprocess.run(["nm", obj], check=True, capture_output=True, text=True).stdout
    defs, undefs = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefs.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defs.add(parts[2])
    return defs, undefs


def circles(graph):
    """Components of more than one node (Tarjan), each as a path round it."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    paths = []
    for comp in comps:  # a shortest way back to the first node, for the message
        start = min(comp)
        prev, todo = {start: None}, [start]
        while todo and start not in [w for v in todo for w in graph[v]]:
            nxt = []
            for v in todo:
                for w in sorted(graph[v] & comp):
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
            todo = nxt
        end = next(v for v in todo if start in graph[v])
        path = [end]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])
        paths.append(list(reversed(path)) + [start])
    return paths


def self_test(cc):
    """Two files calling each other are found, one calling the other is not."""
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        for folder, a_calls_b, b_calls_a in (("circle", 1, 1), ("line", 1, 0)):
            d = os.path.join(t, folder)
            os.mkdir(d)
            for name, other, calls in (("a", "b", a_calls_b), ("b", "a", b_calls_a)):
                src = os.path.join(d, name + ".c")
                with open(src, "w") as f:
                    f.write("int %s(int);\nint %s(int x) { return %s; }\n"
                            % (other, name, "%s(x - 1)" % other if calls else "x"))
                subprocess.run([cc, "-c", src, "-o", src + ".o"], check=True)
        out = subprocess.run([sys.executable, __file__, t], capture_output=True, text=True)
        if out.returncode != 1 or out.stdout.strip() != "circle: a.c -> b.c -> a.c":
            print("self-test failed: %r (exit %d)" % (out.stdout, out.returncode), file=sys.stderr)
            return 1
    print("self-test: a circle is found, a one-way call is not")
    return 0


def objects(objdir, base):
    """{source path: object path} of the objects under objdir."""
    res = {}
    for d, dirs, files in os.walk(objdir):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".c.o"):
                rel = os.path.relpath(os.path.join(d, f[:-2]), objdir)
                rel = os.sep.join(".." if c == "__" else c for c in rel.split(os.sep))
                res[os.path.normpath(os.path.join(base, rel))] = os.path.join(d, f)
    return res


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    want, skip, targets, sources, absent, args = set(), set(), [], None, set(), argv[1:]
    while args:
        if args[0] in ("--skip", "--sources", "--absent") and len(args) > 1:
            if args[0] == "--skip":
                skip.add(args[1])
            elif args[0] == "--sources":
                sources = args[1]
            else:
                absent.add(os.path.normpath(args[1]))
            args = args[2:]
        elif args[0].startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        elif os.path.isdir(args[0].split("=", 1)[0]):
            objdir, _, base = args.pop(0).partition("=")
            targets.append(objects(objdir, base))
        else:
            want.add(args.pop(0))
    if not targets:
        print(__doc__, file=sys.stderr)
        return 2
    if sources is not None:
        targets = [{k: o for k, o in t.items() if os.path.isfile(os.path.join(sources, k))} for t in targets]
    found = 0
    for objs in targets:
        folders = {}
        for src, obj in objs.items():
            folders.setdefault(os.path.dirname(src), {})[os.path.basename(src)] = obj
        for folder in sorted(folders):
            if folder in skip or (want and folder not in want):
                continue
            syms = {f: symbols(o) for f, o in sorted(folders[folder].items())}
            owner = {s: f for f, (defs, _) in syms.items() for s in defs}
            graph = {f: {owner[s] for s in undefs if s in owner and owner[s] != f} for f, (_, undefs) in syms.items()}
            for path in circles(graph):
                print("%s: %s" % (folder, " -> ".join(path)))
                found += 1
    if sources is not None:
        built = set().union(*targets)
        for d, dirs, files in os.walk(sources):
            dirs.sort()
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(d, f), sources)
                if f.endswith(".c") and rel not in built and rel not in absent:
                    print("%s: no object of it is checked (its target's OBJDIR missing?)" % rel)
                    found += 1
    return 1 if found else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (OSError, subprocess.CalledProcessError) as e:
        print("pmcfuse: call-circles: %s" % e, file=sys.stderr)
        sys.exit(2)
