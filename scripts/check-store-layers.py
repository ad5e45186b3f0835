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
  fixtures   values for tests and benches (not built otherwise) -> everything above but migrate

A name is followed through the `pub use` re-exports to the file that defines it
(`file_layers.py`, shared with the engine's check), so `crate::PageMaterial` in a table file
counts as naming `tx/page_write.rs`. Besides the layers, no two files may name each other,
directly or through others (no circle). Exits 1 naming each offending line.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import file_layers  # noqa: E402

MAY_NAME = {
    "root": {"root"},
    "tables": {"root"},
    "read": {"root", "tables", "read"},
    "tx": {"root", "tables", "read", "tx"},
    "backfills": {"root", "tables", "read", "tx", "backfills"},
    "migrate": {"root", "migrate"},
    "fixtures": {"root", "tables", "read", "tx"},
}


def layer_of(module: tuple) -> str:
    return module[0] if module and module[0] in MAY_NAME else "root"


def main() -> int:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "crates/store/src")
    files, edges = file_layers.graph(src)
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
    return file_layers.report("store", files, edges, problems)


if __name__ == "__main__":
    sys.exit(main())
