#!/usr/bin/env python3
"""The command's two layers (git's builtin/ split, docs/design.md): the
verbs in src/cli/verbs/, where VERB.c and VERB_*.c are the files of verb
VERB, and the helpers they share in src/cli/. A verb's file calls only its
own verb's files and the helpers, never another verb's (what two verbs need
is a helper); a helper calls no verb, but main.c the verbs' cmd_VERB (its
dispatch table). Reads the compiled objects with nm, with
scripts/call-circles.py's symbols().

Usage: scripts/cli-layers.py OBJDIR [OBJ...]
  OBJDIR: build/CMakeFiles/pmcfuse_cli.dir/src/cli (FILE.c.o, verbs/FILE.c.o);
  OBJs: the command's objects ($<TARGET_OBJECTS:pmcfuse_cli>): only those
  under OBJDIR count, so that the object of a file moved or removed since
  an earlier build, still in the folder, does not (default: every object
  in OBJDIR and OBJDIR/verbs).
scripts/cli-layers.py --self-test CC: shows with compiled files that a call
from one verb to another and from a helper to a verb are found, and the
allowed calls are not.
Prints one line per call across the layers, "verbs/a.c calls b_fn of
verbs/b.c (verb b)"; exit 1 when there is one, 2 on a usage or nm error."""
import os
import subprocess
import sys


def _call_circles():
    """scripts/call-circles.py as a module: its symbols(obj) reads an object."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "call-circles.py")
    spec = importlib.util.spec_from_file_location("call_circles", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


symbols = _call_circles().symbols


def verb_of(name):
    """The verb of a file of verbs/ ("verbs/run_fuse.c": run), else None."""
    if not name.startswith("verbs/"):
        return None
    return os.path.basename(name)[: -len(".c")].split("_")[0]


def check(root, only=None):
    objs = {}
    for sub in ("", "verbs"):
        d = os.path.join(root, sub)
        if not os.path.isdir(d):
            raise OSError("no folder %s" % d)
        for f in sorted(os.listdir(d)):
            path = os.path.join(d, f)
            if f.endswith(".c.o") and (only is None or os.path.realpath(path) in only):
                objs[os.path.join(sub, f[:-2]) if sub else f[:-2]] = symbols(path)
    if not any(verb_of(n) for n in objs):
        raise OSError("no object of a verb in %s/verbs" % root)
    owner = {s: f for f, (defs, _) in objs.items() for s in defs}
    problems = []
    for f, (_, undefs) in sorted(objs.items()):
        for s in sorted(undefs):
            g = owner.get(s)
            if g is None or g == f:
                continue
            vf, vg = verb_of(f), verb_of(g)
            if vg is None or vf == vg:
                continue  # a helper, or the verb's own file
            if vf is None and f == "main.c" and s == "cmd_" + vg:
                continue  # the dispatch table
            problems.append("%s calls %s of %s (verb %s)%s" % (
                f, s, g, vg, "" if vf else ": a helper calls no verb"))
    return problems


def self_test(cc):
    import tempfile
    files = {
        "util.c": "int h(int x) { return x; }\n",
        "main.c": "int cmd_a(int); int main(void) { return cmd_a(0); }\n",
        "verbs/a.c": "int h(int); int a_print(int); int cmd_a(int x) { return h(a_print(x)); }\n",
        "verbs/a_print.c": "int a_print(int x) { return x; }\n",
        "verbs/b.c": "int cmd_b(int x) { return x; }\n",
    }
    bad = {
        "verbs/b.c": "int a_print(int); int cmd_b(int x) { return a_print(x); }\n",
        "util.c": "int a_print(int); int h(int x) { return a_print(x); }\n",
    }
    with tempfile.TemporaryDirectory() as t:
        os.mkdir(os.path.join(t, "verbs"))

        def build(tree):
            for name, text in tree.items():
                src = os.path.join(t, name)
                with open(src, "w") as f:
                    f.write(text)
                subprocess.run([cc, "-c", src, "-o", src + ".o"], check=True)
        build(files)
        if check(t):
            print("self-test failed: allowed calls reported: %r" % check(t), file=sys.stderr)
            return 1
        for name, text in bad.items():
            build({name: text})
            found = check(t)
            if len(found) != 1 or not found[0].startswith(name + " calls a_print"):
                print("self-test failed: %s: %r" % (name, found), file=sys.stderr)
                return 1
            build({name: files[name]})
        # an object left from an earlier build (its source gone) does not count
        listed = {os.path.realpath(os.path.join(t, n + ".o")) for n in files}
        build({"verbs/c.c": "int a_print(int); int cmd_c(int x) { return a_print(x); }\n"})
        if len(check(t)) != 1 or check(t, listed):
            print("self-test failed: a stale object: %r" % check(t, listed), file=sys.stderr)
            return 1
    print("self-test: a verb calling another verb and a helper calling a verb are found,"
          " an object not listed is left out")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) < 2 or not os.path.isdir(argv[1]):
        print(__doc__, file=sys.stderr)
        return 2
    problems = check(argv[1], {os.path.realpath(o) for o in argv[2:]} or None)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (OSError, subprocess.CalledProcessError) as e:
        print("pmcfuse: cli-layers: %s" % e, file=sys.stderr)
        sys.exit(2)
