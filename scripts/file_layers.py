"""What the file-layer checks share (`check-store-layers.py`, `check-engine-layers.py`): the
graph of which file of a crate names which, read from its source, and its circles.

A name is followed through the `pub use` re-exports of lib.rs and every mod.rs to the file
that defines it; lib.rs and mod.rs files are facades (their own lines are not counted).
Comments and `#[cfg(test)]` modules are left out, and so are test files pulled in with
`#[path]` (a name ending in `tests`).
"""

import re
import sys
from pathlib import Path

PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)(::\{([^}]*)\})?")
REEXPORT_RE = re.compile(
    r"pub(?:\(crate\))? use ((?:self|super|crate)?[a-z_:]*)::\{([^}]*)\};"
    r"|pub(?:\(crate\))? use ([a-z_:]+)::(\w+);",
    re.S,
)


def module_of(src: Path, file: Path) -> tuple:
    """The module path of `file` under `src` (`()` for lib.rs)."""
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def is_facade(file: Path) -> bool:
    """lib.rs and mod.rs only declare and re-export."""
    return file.name in ("mod.rs", "lib.rs")


def code_text(text: str) -> str:
    """`text` with comments and `#[cfg(test)]` modules blanked out (lines kept, so a match's
    line number is its line in the file)."""
    out = []
    in_tests = False
    depth = 0
    pending_cfg_test = False
    for line in text.splitlines():
        stripped = line.strip()
        keep = ""
        if in_tests:
            depth += line.count("{") - line.count("}")
            in_tests = depth > 0
        elif stripped.startswith("#[cfg(test)]"):
            pending_cfg_test = True
        elif pending_cfg_test and stripped.startswith("mod "):
            pending_cfg_test = False
            if not stripped.endswith(";"):
                in_tests = True
                depth = line.count("{") - line.count("}")
        else:
            pending_cfg_test = False
            if not stripped.startswith("//"):
                keep = line.split("//")[0]
        out.append(keep)
    return "\n".join(out)


def graph(src: Path) -> tuple:
    """`(files, edges)`: each file module of the crate at `src` with its path, and for each
    file the files it names, each with the first line that names it."""
    files = {module_of(src, f): f for f in sorted(src.rglob("*.rs"))}
    files = {m: f for m, f in files.items() if not (m and m[-1].endswith("tests"))}

    # (module, name) -> the path it re-exports, from every facade.
    reexport = {}
    for module, file in files.items():
        if not is_facade(file):
            continue
        for match in REEXPORT_RE.finditer(code_text(file.read_text())):
            path = (match.group(1) or match.group(3)).split("::")
            names = match.group(2) or match.group(4)
            if path[0] == "crate":
                base, path = [], path[1:]
            elif path[0] == "super":
                base, path = list(module)[:-1], path[1:]
            elif path[0] == "self":
                base, path = list(module), path[1:]
            else:
                base = list(module)
            for name in re.split(r"[,\s]+", names):
                name = name.split("::")[0]
                if name and name != "self":
                    reexport[module + (name,)] = tuple(base + path + [name])

    def resolve(here: tuple, kind: str, segments: list) -> tuple:
        """The file module a path names (the crate root when none)."""
        if kind == "super":
            path = list(here)[:-1] + segments
        elif kind == "self":
            path = list(here) + segments
        else:
            path = segments
        for _ in range(8):  # follow re-exports to the defining file
            for end in range(len(path), 0, -1):
                if tuple(path[:end]) in reexport:
                    path = list(reexport[tuple(path[:end])]) + path[end:]
                    break
            else:
                break
        for end in range(len(path), 0, -1):
            if tuple(path[:end]) in files:
                return tuple(path[:end])
        return ()

    edges = {m: {} for m in files}
    for module, file in files.items():
        if is_facade(file):
            continue
        text = code_text(file.read_text())
        for match in PATH_RE.finditer(text):
            number = text.count("\n", 0, match.start()) + 1
            kind = match.group(1)
            segments = [s for s in match.group(2).split("::") if s]
            targets = []
            if match.group(4) is not None:
                for item in re.split(r"[,\s]+", match.group(4)):
                    item = item.split("::")[0]
                    if item == "self":
                        targets.append(resolve(module, kind, segments))
                    elif item:
                        targets.append(resolve(module, kind, segments + [item]))
            else:
                targets.append(resolve(module, kind, segments))
            for target in targets:
                if target and target != module and not is_facade(files[target]):
                    edges[module].setdefault(target, number)

    return files, edges


def circles(edges: dict) -> list:
    """The circles of `edges`: sets of two or more files that name each other, directly or
    through others (Tarjan's strongly connected components)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    sys.setrecursionlimit(10_000)
    for node in edges:
        if node not in index:
            visit(node)
    return found


def report(what: str, files: dict, edges: dict, problems: list) -> int:
    """Adds the circles to `problems`, prints them (or that the layers hold) and returns the
    exit code."""
    for circle in circles(edges):
        names = ", ".join(str(files[m]) for m in sorted(circle))
        problems.append(f"a circle of {len(circle)} files: {names}")
    if problems:
        print(f"the {what}'s layers are crossed:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"{what} layers hold: {len(files)} files, {sum(len(e) for e in edges.values())} "
          "references between them, no circle")
    return 0
