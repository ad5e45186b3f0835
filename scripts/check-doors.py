#!/usr/bin/env python3
"""`Wiki` is the only door: a shell never reaches the store past it.

    python3 scripts/check-doors.py [DIR ...]

The crate graph cannot see this (the app crate re-exports the store for its tests and
benches), so this reads the shells' source: outside their `#[cfg(test)]` modules, a file of
the CLI (`crates/cli/src`), MCP (`crates/mcp/src`), the desktop (`src-tauri/src`) or the
eval (`crates/eval/src`, a library the CLI links) may not
name `wikimind::store`, `wikimind_store` or call `.store()`. What a shell needs of the store
is a `Wiki` operation, and the records it returns are re-exported at `wikimind::`.
Exits 1 naming each offending line.
"""

import re
import sys
from pathlib import Path

SHELLS = ["crates/cli/src", "crates/mcp/src", "src-tauri/src", "crates/eval/src"]
FORBIDDEN = re.compile(r"\bwikimind::store\b|\bwikimind_store\b|\.store\(\)")
# A module declaration, whatever its visibility (`mod`, `pub mod`, `pub(crate) mod`).
TEST_MODULE = re.compile(r"(pub(\([^)]*\))?\s+)?mod\s")


def code_lines(text: str):
    """(number, line) of code: comments and `#[cfg(test)]` modules left out."""
    in_tests = False
    depth = 0
    pending_cfg_test = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if in_tests:
            depth += line.count("{") - line.count("}")
            in_tests = depth > 0
            continue
        if stripped.startswith("#[cfg(test)]"):
            pending_cfg_test = True
            continue
        if pending_cfg_test and TEST_MODULE.match(stripped):
            pending_cfg_test = False
            if not stripped.endswith(";"):
                in_tests = True
                depth = line.count("{") - line.count("}")
            continue
        pending_cfg_test = False
        if stripped.startswith("//"):
            continue
        yield number, line.split("//")[0]


def main() -> int:
    roots = [Path(d) for d in (sys.argv[1:] or SHELLS)]
    problems = []
    files = 0
    for root in roots:
        for file in sorted(root.rglob("*.rs")):
            files += 1
            for number, line in code_lines(file.read_text()):
                match = FORBIDDEN.search(line)
                if match:
                    problems.append(f"{file}:{number}: names `{match.group(0)}`: {line.strip()}")
    if problems:
        print("a shell reaches past `Wiki` into the store (add a `Wiki` operation instead):",
              file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"every shell goes through `Wiki`: {files} files read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
