#!/usr/bin/env python3
"""The store is cut by layer; this keeps it so (the crate graph cannot see inside a crate).

    python3 scripts/check-store-layers.py [crates/store/src]

Layers, lowest first, and what each file may name:

  root       lib.rs's helpers: clock, error, ids, json, policy  -> root
  tables/    one file per table                                -> root (never another tables/ file)
  read/      reads that join tables                            -> root, tables, read
  tx/        cross-table transactions                          -> root, tables, read, tx
  backfills/ data changes with today's rules                   -> everything above but migrate
  migrate/   the runner, Rust steps and their frozen rules     -> root, migrate (never live code)

A name is followed through lib.rs's `pub use` re-exports to the file that defines it, so
`crate::PageMaterial` in a table file counts as naming `tx/page_write.rs`. Besides the
layers, no two files may name each other, directly or through others (no circle).
Exits 1 naming each offending line.
"""

import re
import sys
from pathlib import Path

ORDER = {"root": 0, "tables": 1, "read": 2, "tx": 3, "backfills": 4}
MAY_NAME = {
    "root": {"root"},
    "tables": {"root"},
    "read": {"root", "tables", "read"},
    "tx": {"root", "tables", "read", "tx"},
    "backfills": {"root", "tables", "read", "tx", "backfills"},
    "migrate": {"root", "migrate"},
}

PATH_RE = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)*)(::\{([^}]*)\})?")


def module_of(src: Path, file: Path) -> tuple:
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def layer_of(module: tuple) -> str:
    if not module:
        return "root"
    if module[0] in ("tables", "read", "tx", "backfills", "migrate"):
        return module[0]
    return "root"


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


def main() -> int:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "crates/store/src")
    files = {module_of(src, f): f for f in sorted(src.rglob("*.rs"))}
    # Test files pulled in with #[path] are tests, not layers.
    files = {m: f for m, f in files.items() if not (m and m[-1].endswith("tests"))}

    # Where each name lib.rs re-exports is defined.
    reexport = {}
    lib = (src / "lib.rs").read_text()
    for match in re.finditer(r"pub use ([a-z_:]+)::\{([^}]*)\};|pub use ([a-z_:]+)::(\w+);", lib):
        path = match.group(1) or match.group(3)
        names = match.group(2) or match.group(4)
        for name in re.split(r"[,\s]+", names):
            if name:
                reexport[name] = tuple(path.split("::"))

    def resolve(here: tuple, kind: str, segments: list) -> tuple | None:
        """The file module a path names, or None for the crate root itself."""
        base = list(here) if kind == "super" else []
        if kind == "super":
            # `super` from a file module is its parent; the file's own module is `here`.
            base = base[:-1]
        path = base + segments
        # The longest prefix that is a file module.
        for end in range(len(path), 0, -1):
            if tuple(path[:end]) in files:
                return tuple(path[:end])
        if path and path[0] in reexport:
            return reexport[path[0]]
        return ()

    edges = {m: {} for m in files}
    for module, file in files.items():
        if module == ():
            continue  # lib.rs is the facade: it names every layer on purpose
        text = code_text(file.read_text())
        for match in PATH_RE.finditer(text):
            number = text.count("\n", 0, match.start()) + 1
            segments = [s for s in match.group(2).split("::") if s]
            targets = []
            if match.group(4) is not None:
                for item in re.split(r"[,\s]+", match.group(4)):
                    item = item.split("::")[0]
                    if item == "self":
                        targets.append(resolve(module, match.group(1), segments))
                    elif item:
                        targets.append(resolve(module, match.group(1), segments + [item]))
            else:
                targets.append(resolve(module, match.group(1), segments))
            for target in targets:
                if target and target != module and target in files:
                    edges[module].setdefault(target, number)

    problems = []
    for module, named in edges.items():
        layer = layer_of(module)
        for target, number in named.items():
            target_layer = layer_of(target)
            where = f"{files[module]}:{number}"
            if target_layer not in MAY_NAME[layer]:
                problems.append(f"{where}: a {layer}/ file names {files[target]} ({target_layer}/)")
            elif layer == "tables" and target_layer == "tables":
                problems.append(f"{where}: a tables/ file names another: {files[target]}")

    # Circles between files (Tarjan's strongly connected components).
    index, low, stack, on_stack, circles = {}, {}, [], set(), []
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
                circles.append(component)

    sys.setrecursionlimit(10_000)
    for node in edges:
        if node not in index:
            visit(node)
    for circle in circles:
        names = ", ".join(str(files[m]) for m in sorted(circle))
        problems.append(f"a circle of {len(circle)} files: {names}")

    if problems:
        print("the store's layers are crossed:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"store layers hold: {len(files)} files, {sum(len(e) for e in edges.values())} "
          "references between them, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
