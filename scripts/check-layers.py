#!/usr/bin/env python3
"""Fails when a WikiMind crate depends on a crate of its own layer or a higher one.

The layers, bottom up (docs/architecture.md says what each owns):
  0  wikimind-text, wikimind-structured   leaves: rules about text, model-output parsing
  0  wikimind-graph                       leaf: the graph view's rules, force layout and communities over pages, ids and edges
  1  wikimind-contract, wikimind-llm       the records a model answer becomes; providers
  1  wikimind-documents                    readers of HTML, PDF, EPUB, DOCX into markdown
  2  wikimind-store                        SQLite
  3  wikimind-engine                       prompts, the call loop, grounding; digest, page, answer, judge
  4  wikimind-config                       settings: the config file, environment, flags, servers
  5  wikimind                              the app (`Wiki`, the job queue), no Tauri, no clap
  6  wikimind-eval                         datasets, runs, reports; only the CLI links it
  6  wikimind-mcp                          the wiki over MCP, for any transport
  7  wikimind-cli, wikimind-desktop        shells: parse, one core call, present
wikimind-testserver is a test tool: any crate may have it as a dev-dependency (or as an
optional dependency behind a test-support feature), and it depends on no WikiMind crate.

Reads `cargo metadata` from standard input. Every workspace crate must have a layer here,
so a new crate cannot slip in unchecked.
"""
import json
import sys

LAYERS = {
    "wikimind-text": 0,
    "wikimind-structured": 0,
    "wikimind-graph": 0,
    "wikimind-contract": 1,
    "wikimind-llm": 1,
    "wikimind-documents": 1,
    "wikimind-store": 2,
    "wikimind-engine": 3,
    "wikimind-config": 4,
    "wikimind": 5,
    "wikimind-eval": 6,
    "wikimind-mcp": 6,
    "wikimind-cli": 7,
    "wikimind-desktop": 7,
}
# Crates only some crates may link, and which.
ONLY_LINKED_BY = {"wikimind-eval": {"wikimind-cli"}}
TEST_TOOLS = {"wikimind-testserver"}


def main() -> int:
    meta = json.load(sys.stdin)
    members = set(meta["workspace_members"])
    problems = []
    for package in meta["packages"]:
        if package["id"] not in members:
            continue
        name = package["name"]
        if name in TEST_TOOLS:
            layer = -1
        elif name in LAYERS:
            layer = LAYERS[name]
        else:
            problems.append(f"{name}: a workspace crate with no layer in scripts/check-layers.py")
            continue
        for dep in package["dependencies"]:
            target = dep["name"]
            if target not in LAYERS and target not in TEST_TOOLS:
                continue
            kind = dep.get("kind") or "normal"
            if target == name and kind == "dev":
                # A crate's own tests turning on its test features (`test-support`).
                continue
            if target in TEST_TOOLS:
                if kind != "dev" and not dep.get("optional"):
                    problems.append(f"{name} -> {target}: the test server is a dev-dependency only")
                continue
            allowed = ONLY_LINKED_BY.get(target)
            if allowed is not None and name not in allowed:
                problems.append(f"{name} -> {target}: only {', '.join(sorted(allowed))} may link it")
            if LAYERS[target] >= layer:
                problems.append(
                    f"{name} (layer {layer}) -> {target} (layer {LAYERS[target]}): "
                    f"a {kind} dependency that does not point down"
                )
    for problem in problems:
        print(f"layers: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
