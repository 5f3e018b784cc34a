#!/usr/bin/env python3
"""Files stay small and functions short: no file over 400 lines and no function over 60 in sim/, policies/,
serving/, cli/ and python/. The ones that are over today are listed in scripts/size-allowlist.txt with their size;
the check fails when a listed one grows or a new one appears, and says which can leave the list.

A function is a brace block opened at namespace level (clang-format puts namespace contents at column 0),
counted from its opening line to its closing brace.
Usage: scripts/check-sizes.py   (from anywhere; a ctest test, `sizes`)
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ["sim", "policies", "policies/pareto", "serving", "cli", "python"]
MAX_FILE, MAX_FUNCTION = 400, 60


def strip(line):
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return re.sub(r"//.*", "", line)


def functions(path):
    """(first line, length, heading) of every block opened at namespace level."""
    stack, start, out = [], None, []
    with open(path) as f:
        lines = f.read().split("\n")
    in_raw = False
    for i, line in enumerate(lines):
        if 'R"(' in line:
            in_raw = ')"' not in line.split('R"(', 1)[1]
            line = line.split('R"(', 1)[0]
        elif in_raw:
            if ')"' in line:
                in_raw, line = False, line.split(')"', 1)[1]
            else:
                continue
        code = strip(line)
        for ch in code:
            if ch == "{":
                at_namespace_level = all(k == "ns" for k in stack)
                kind = "ns" if at_namespace_level and re.match(r"\s*(namespace\b|extern \"C\")", code) else "block"
                if kind == "block" and at_namespace_level:
                    start, heading = i, line.strip()
                stack.append(kind)
            elif ch == "}" and stack:
                if stack.pop() == "block" and all(k == "ns" for k in stack) and start is not None:
                    if "(" in heading or heading.startswith("{"):
                        out.append((start + 1, i - start + 1, heading[:80]))
                    start = None
    return out


def measure():
    sizes = {}
    for folder in FOLDERS:
        for path in sorted(glob.glob(os.path.join(ROOT, folder, "*.[ch]pp"))):
            rel = os.path.relpath(path, ROOT)
            with open(path) as f:
                n = sum(1 for _ in f)
            if n > MAX_FILE:
                sizes[f"{rel} (file)"] = n
            for line, length, heading in functions(path):
                if length > MAX_FUNCTION:
                    name = re.sub(r"\s*\(.*", "", heading).split()[-1] if "(" in heading else heading
                    sizes[f"{rel} {name}"] = length
    return sizes


def main():
    allow_path = os.path.join(ROOT, "scripts", "size-allowlist.txt")
    allowed = {}
    with open(allow_path) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            if line:
                key, n = line.rsplit(" ", 1)
                allowed[key] = int(n)
    bad = 0
    sizes = measure()
    for key, n in sorted(sizes.items()):
        limit = MAX_FILE if key.endswith("(file)") else MAX_FUNCTION
        if key not in allowed:
            print(f"{key}: {n} lines (limit {limit}); make it smaller")
            bad = 1
        elif n > allowed[key]:
            print(f"{key}: {n} lines, was {allowed[key]} (limit {limit}); it grew")
            bad = 1
    for key in sorted(set(allowed) - set(sizes)):
        print(f"{key}: within the limit now; remove it from scripts/size-allowlist.txt")
    over = len(sizes)
    print(f"sizes: {over} over the limits, all listed and none grown" if not bad else "sizes: FAILED")
    return bad


if __name__ == "__main__":
    sys.exit(main())
