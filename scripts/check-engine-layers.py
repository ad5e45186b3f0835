#!/usr/bin/env python3
"""The engine is cut by layer; this keeps it so (the crate graph cannot see inside a crate).

    python3 scripts/check-engine-layers.py [crates/engine/src]

Layers, lowest first; a file may name files of its own layer and of the layers below:

  root     topic.rs: the wiki's name indexes
  ground/  whether a quote is in a text, where, what a call may quote, the readable text
  prompts/ the versioned templates and the text a prompt is built from
  call/    the one call loop: the Caller, its pure step, budget, call log, progress
  tasks/   digest, parts, page, answer, judge: functions over the Caller

How names are followed to files is `file_layers.py`'s (shared with the store's check).
Besides the layers, no two files may name each other, directly or through others (no
circle). Exits 1 naming each offending line.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import file_layers  # noqa: E402

ORDER = {"root": 0, "ground": 1, "prompts": 2, "call": 3, "tasks": 4}


def layer_of(module: tuple) -> str:
    return module[0] if module and module[0] in ORDER else "root"


def main() -> int:
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "crates/engine/src")
    files, edges = file_layers.graph(src)
    problems = []
    for module, named in edges.items():
        for target, number in named.items():
            layer, target_layer = layer_of(module), layer_of(target)
            if ORDER[target_layer] > ORDER[layer]:
                problems.append(
                    f"{files[module]}:{number}: a {layer} file names {files[target]} "
                    f"({target_layer}, a layer above)"
                )
    return file_layers.report("engine", files, edges, problems)


if __name__ == "__main__":
    sys.exit(main())
