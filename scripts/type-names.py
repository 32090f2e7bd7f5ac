#!/usr/bin/env python3
"""Checks the names of the types the headers declare (docs/abi.md, "Type
names"): every struct, union or enum tag a header defines (`struct X {`)
and every typedef name of a header is
  - pmcf_* in include/ (the public headers),
  - pmcf_* or pmcfi_* in src/ (the headers shared between the library's
    files), except src/cli/, whose headers are the command's own.
Tags and typedefs of a .c file are local to it and may be named freely;
anonymous structs and enums have no name to check, and a forward
declaration (`struct timespec;`, `struct sqlite3;`) names another's type.

Usage: scripts/type-names.py [ROOT]   (default: the repository's root)
       scripts/type-names.py --self-test   shows that the check can fail
Prints "path:line: kind NAME: ..." for each wrong name; exit 1 when there is
one, 2 on a usage error."""
import os, re, sys, tempfile

TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")
KEYS = ("struct", "union", "enum")


def strip(text):
    """The text without comments, string and character literals and
    preprocessor lines, each replaced by spaces (line numbers kept)."""
    out, i, n = [], 0, len(text)
    bol = True  # only blanks since the start of the line
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i) or (c == "#" and bol):
            j = i
            while j < n and text[j] != "\n":
                j += 2 if (text[j] == "\\" and j + 1 < n) else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            bol = c == "\n" or (bol and c in " \t")
            i += 1
    return "".join(out)


def tokens(text):
    """(token, line) pairs of the stripped text."""
    res, line, pos = [], 1, 0
    for m in TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        res.append((m.group(), line))
    return res


def ident(t):
    return re.match(r"[A-Za-z_]\w*$", t) is not None


def typedef_names(toks):
    """Names a typedef's tokens (after `typedef`, up to its `;`) declare:
    per declarator, the name inside `(*NAME)` of a function pointer, else
    the last identifier outside brackets; a braced body is skipped."""
    flat, depth = [], 0
    for t, ln in toks:
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
        elif depth == 0:
            flat.append((t, ln))
    parts, cur, par = [], [], 0
    for t, ln in flat:
        if t in "([":
            par += 1
        elif t in ")]":
            par -= 1
        if t == "," and par == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append((t, ln))
    parts.append(cur)
    names = []
    for p in parts:
        name = None
        for k in range(len(p) - 2):
            if p[k][0] == "(" and p[k + 1][0] == "*" and ident(p[k + 2][0]):
                name = p[k + 2]
                break
        if name is None:
            br = 0
            for t, ln in p:
                if t == "[":
                    br += 1
                elif t == "]":
                    br -= 1
                elif br == 0 and ident(t) and t not in KEYS:
                    name = (t, ln)
        if name:
            names.append(name)
    return names


def declared(text):
    """(kind, name, line) of the tags a header defines and its typedefs."""
    toks = tokens(strip(text))
    found, i = [], 0
    while i < len(toks):
        t = toks[i][0]
        if t in KEYS and i + 2 < len(toks) and ident(toks[i + 1][0]) and toks[i + 2][0] == "{":
            found.append((t, toks[i + 1][0], toks[i + 1][1]))
        if t == "typedef":
            j, depth = i + 1, 0
            while j < len(toks) and not (toks[j][0] == ";" and depth == 0):
                depth += toks[j][0] == "{"
                depth -= toks[j][0] == "}"
                j += 1
            # tags defined inside the typedef are found by the outer loop
            found += [("typedef", n, ln) for n, ln in typedef_names(toks[i + 1 : j])]
        i += 1
    return found


def check(root):
    bad = []
    for top, allowed in (("include", ("pmcf_",)), ("src", ("pmcf_", "pmcfi_"))):
        base = os.path.join(root, top)
        for d, dirs, files in os.walk(base):
            dirs.sort()
            rel = os.path.relpath(d, root)
            if rel == os.path.join("src", "cli") or rel.startswith(os.path.join("src", "cli") + os.sep):
                continue
            for f in sorted(files):
                if not f.endswith(".h"):
                    continue
                path = os.path.join(d, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for kind, name, line in declared(fh.read()):
                        if not name.startswith(allowed):
                            want = " or ".join(a + "*" for a in allowed)
                            bad.append(f"{os.path.relpath(path, root)}:{line}: {kind} {name}: "
                                       f"a type a header of {top}/ declares is named {want}")
    return bad


def self_test():
    files = {
        "include/pmcfuse/a.h": "typedef struct pmcf_a pmcf_a;\nstruct pmcfi_leak { int x; };\n",
        "src/m/m.h": "/* struct in_comment { */\n#define X struct in_macro {\n"
                     "struct pmcfi_m_ok { int a; };\nenum pmcfi_m_kind { A };\n"
                     "typedef int (*pmcfi_m_fn)(struct stat *s);\nstruct timespec;\nstruct bad_tag {\n int a;\n};\n"
                     "typedef struct { int x; } bad_type;\nenum bad_enum { B = 1 };\n"
                     "typedef int (*bad_fn)(void);\nextern struct timespec pmcfi_m_t;\n",
        "src/m/m.c": "struct local { int x; };\ntypedef int local_t;\n",
        "src/cli/cli.h": "struct cli_own { int x; };\n",
    }
    want = {"pmcfi_leak", "bad_tag", "bad_type", "bad_enum", "bad_fn"}
    with tempfile.TemporaryDirectory() as root:
        for p, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, p)), exist_ok=True)
            with open(os.path.join(root, p), "w") as fh:
                fh.write(text)
        got = {b.split(": ")[1].split()[1] for b in check(root)}
    if got != want:
        print(f"self-test: found {sorted(got)}, want {sorted(want)}")
        return 1
    print(f"self-test: the wrong names {sorted(want)} are found, the others pass")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    bad = check(root)
    for b in bad:
        print(b)
    if bad:
        return 1
    print("every type the headers of include/ and src/ (but src/cli/) declare is pmcf_* or pmcfi_*")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
