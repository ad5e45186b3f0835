"""`wikimind mcp` as an independent client sees it: the official Python MCP SDK (PyPI `mcp`).

Run by `crates/cli/tests/cli/mcp.rs`, which builds a wiki first (two notes compiled through
the stand-in model server: the pages "Espresso" and "Grind Size", Espresso linking to the
wanted page "Flat White") and passes it in the environment the server inherits
(`WIKIMIND_DATA_DIR`, `WIKIMIND_BASE_URL`, `WIKIMIND_PROVIDER`, `HOME`):

    python tests/mcp/client_test.py PATH/TO/wikimind

Each check prints `ok  NAME` or `FAIL NAME: why`; the last line is `N passed, N failed` and
the exit code is 0 only when nothing failed. The read-only server is checked first (the
2026-07-28 protocol, then the initialize handshake, then raw JSON-RPC lines), then a
server started with `--allow-write` alone (which refuses the local test page), then one with
`--allow-write --allow-private-urls`.
"""

import asyncio
import functools
import http.server
import json
import os
import sys
import tempfile
import threading
import traceback

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

WIKIMIND = sys.argv[1] if len(sys.argv) > 1 else "wikimind"
TIMEOUT = 120
results = []


def check(name):
    """Runs the decorated coroutine as one named check and records its outcome."""

    def wrap(test):
        @functools.wraps(test)
        async def run(*args):
            try:
                await test(*args)
            except Exception as e:  # noqa: BLE001 - every failure is reported, the run goes on
                results.append((name, False))
                print(f"FAIL {name}: {e!r}", flush=True)
                traceback.print_exc()
            else:
                results.append((name, True))
                print(f"ok   {name}", flush=True)

        return run

    return wrap


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


class Notes:
    """Collects a call's progress notifications."""

    def __init__(self):
        self.messages = []
        self.steps = []

    async def __call__(self, progress, total, message):
        self.steps.append(progress)
        self.messages.append(message)


def server(*flags):
    return StdioServerParameters(command=WIKIMIND, args=["mcp", *flags], env=dict(os.environ))


def text_of(result):
    expect(len(result.content) >= 1, f"no content in {result}")
    expect(result.content[0].type == "text", f"not text: {result.content[0]}")
    return result.content[0].text


async def expect_mcp_error(call, *words):
    try:
        result = await call
    except MCPError as e:
        for word in words:
            expect(word in e.message, f"{word!r} not in the error {e.message!r}")
        return e
    raise AssertionError(f"no error, got {result}")


# --- the read-only server, 2026-07-28 ---------------------------------------------------


@check("the tools are listed with their arguments, add_source only with --allow-write")
async def listed_tools(client):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    expect(set(tools) == {"search", "read_page", "list_pages", "ask", "lint", "graph_neighbours"}, f"tools: {sorted(tools)}")
    expect(set(tools["search"].input_schema["properties"]) == {"query"}, tools["search"])
    expect(tools["search"].input_schema.get("required") == ["query"], tools["search"])
    expect(set(tools["read_page"].input_schema["properties"]) == {"title"}, tools["read_page"])
    expect(
        set(tools["list_pages"].input_schema["properties"]) == {"offset", "limit"},
        tools["list_pages"],
    )
    expect(set(tools["ask"].input_schema["properties"]) == {"question"}, tools["ask"])
    expect(tools["read_page"].annotations.read_only_hint is True, tools["read_page"])
    expect(set(tools["lint"].input_schema["properties"]) == {"checks"}, tools["lint"])
    expect(tools["lint"].annotations.read_only_hint is True, tools["lint"])


@check("lint reports the wiki's health as lint --json does, and refuses an unknown check")
async def lint_health(client):
    result = await client.call_tool("lint", {"checks": ["wanted"]})
    expect(not result.is_error, result)
    text = text_of(result)
    expect(text.startswith("# Wiki health"), text)
    report = result.structured_content
    expect(report["summary"]["checks"] == ["wanted"], report)
    expect(all(f["check"] == "wanted" for f in report["findings"]), report)
    wrong = await client.call_tool("lint", {"checks": ["nope"]})
    expect(wrong.is_error and 'no check named "nope"' in text_of(wrong), text_of(wrong))


@check("search ranks pages and bolds the matched words")
async def search(client):
    result = await client.call_tool("search", {"query": "pressure"})
    expect(not result.is_error, result)
    text = text_of(result)
    expect('1 page matches "pressure"' in text, text)
    expect("1. **Espresso** — " in text and "**pressure**" in text, text)
    expect("\ue000" not in text and "\ue001" not in text, "private-use markers leaked")
    hits = result.structured_content["hits"]
    expect([h["title"] for h in hits] == ["Espresso"], hits)
    expect(hits[0]["uri"] == "wikimind://page/Espresso", hits)
    expect("**pressure**" in hits[0]["snippet"], hits)
    nothing = await client.call_tool("search", {"query": "zeppelin"})
    expect('No page matches "zeppelin"' in text_of(nothing), text_of(nothing))


@check("read_page finds a page by another spelling and shows claims, quotes, links, backlinks, sources")
async def read_page(client):
    result = await client.call_tool("read_page", {"title": "espressos"})
    expect(not result.is_error, result)
    text = text_of(result)
    expect(text.startswith("# Espresso\n"), text)
    expect("## Key claims" in text, text)
    expect("1. **sourced**: Espresso is brewed under nine bars of pressure." in text, text)
    expect("   > Espresso is brewed under nine bars of pressure." in text, text)
    expect('(in source #1 "Espresso")' in text, text)
    expect("## Links\n\n- Grind Size\n- Flat White (wanted: no page yet)" in text, text)
    expect("## Backlinks\n\n- Grind Size: Espresso needs a fine grind" in text, text)
    expect("## Sources (2)" in text and "espresso.md" in text and "grind.md" in text, text)
    page = result.structured_content
    expect(page["title"] == "Espresso" and page["uri"] == "wikimind://page/Espresso", page)
    expect(page["backlinks"][0]["title"] == "Grind Size", page["backlinks"])
    expect(page["key_claims"][0]["grounded"] is True, page["key_claims"])


@check("graph_neighbours lists a page's links both ways with their contexts, and the pages within a depth")
async def graph_neighbours(client):
    tool = {t.name: t for t in (await client.list_tools()).tools}["graph_neighbours"]
    expect(set(tool.input_schema["properties"]) == {"title", "depth"}, tool)
    expect(tool.annotations.read_only_hint is True, tool)
    result = await client.call_tool("graph_neighbours", {"title": "espresso"})
    expect(not result.is_error, result)
    text = text_of(result)
    expect(text.startswith("# Around Espresso\n"), text)
    expect("- **Flat White** (wanted: no page yet)" in text, text)
    expect("## Links to this page\n\n- **Grind Size**: Espresso needs a fine grind" in text, text)
    data = result.structured_content
    expect({l["target"] for l in data["links"]} == {"Grind Size", "Flat White"}, data)
    expect(sorted(n["title"] for n in data["within"]) == ["Flat White", "Grind Size"], data)
    # Each node carries the label the graph shows it by: here its title (no name is shared).
    expect(all(n["label"] == n["title"] for n in data["within"]), data)
    deep = await client.call_tool("graph_neighbours", {"title": "Espresso", "depth": 4})
    expect(deep.is_error and "1 to 3" in text_of(deep), text_of(deep))


@check("read_page on a missing page is an error that says where to look")
async def missing_page(client):
    result = await client.call_tool("read_page", {"title": "Nine bars"})
    expect(result.is_error, result)
    text = text_of(result)
    expect('no page titled "Nine bars"' in text, text)
    expect("`search`" in text and "`list_pages`" in text, text)
    expect('pages that mention it: "Espresso"' in text, text)


@check("list_pages lists by title with the total and pages through offset and limit")
async def list_pages(client):
    everything = await client.call_tool("list_pages", {})
    text = text_of(everything)
    expect(text.startswith("Pages 1–2 of 2, by title:"), text)
    expect("- **Espresso** (topic; 2 sources)" in text, text)
    expect("- **Grind Size** (topic; 2 sources)" in text, text)
    expect(text.index("Espresso") < text.index("Grind Size"), text)
    expect(everything.structured_content["next_offset"] is None, everything.structured_content)
    expect(everything.structured_content["limit"] == 50, everything.structured_content)

    first = await client.call_tool("list_pages", {"limit": 1})
    text = text_of(first)
    expect(text.startswith("Pages 1–1 of 2"), text)
    expect("Grind Size" not in text, text)
    expect("call `list_pages` with `offset` 1" in text, text)
    expect(first.structured_content["next_offset"] == 1, first.structured_content)

    second = await client.call_tool("list_pages", {"offset": 1, "limit": 1})
    text = text_of(second)
    expect(text.startswith("Pages 2–2 of 2") and "**Grind Size**" in text, text)
    expect("offset" not in text.split("\n", 1)[1], text)

    past = await client.call_tool("list_pages", {"offset": 5})
    expect("No pages from offset 5: the wiki has 2 pages." in text_of(past), text_of(past))

    capped = await client.call_tool("list_pages", {"limit": 100000})
    expect(capped.structured_content["limit"] == 500, capped.structured_content)
    expect(capped.structured_content["capped"] is True, capped.structured_content)


@check("ask answers from the pages, each claim citing its page with a checked quote")
async def ask(client):
    notes = Notes()
    result = await client.call_tool(
        "ask",
        {"question": "How much pressure does espresso need?"},
        read_timeout_seconds=300,
        progress_callback=notes,
    )
    text = text_of(result)
    expect("answering: asking ollama:qwen2.5:3b (attempt 1)" in notes.messages, notes.messages)
    expect(notes.steps == sorted(set(notes.steps)), f"progress must grow: {notes.steps}")
    expect(not result.is_error, text)
    expect("nine bars of pressure" in text.split("## Claims")[0], text)
    expect("## Claims\n\n1. **sourced** [Espresso]: " in text, text)
    expect('   (quote found in "Espresso")' in text, text)
    expect("## Pages read\n\n- Espresso\n" in text, text)
    report = result.structured_content
    for key in ("answer", "claims", "follow_up_questions", "pages_read", "covered", "saved"):
        expect(key in report, f"{key} missing from {report}")
    expect(report["covered"] is True and report["saved"] is None, report)
    claim = report["claims"][0]
    expect(set(claim) >= {"claim", "confidence", "quote", "page", "grounded"}, claim)
    expect(claim["page"] == "Espresso" and claim["grounded"] is True, claim)
    expect("Espresso" in report["pages_read"], report["pages_read"])
    # Nothing was saved: the read-only server lists the same two pages.
    listed = await client.call_tool("list_pages", {})
    expect("of 2, by title" in text_of(listed), text_of(listed))


@check("ask says so when no page covers the question, and refuses a question that is no text")
async def ask_uncovered(client):
    result = await client.call_tool("ask", {"question": "Who built the first zeppelin?"})
    text = text_of(result)
    expect(not result.is_error, text)
    expect("The wiki does not cover this" in text and "zeppelin" in text, text)
    expect(result.structured_content["covered"] is False, result.structured_content)
    expect(result.structured_content["claims"] == [], result.structured_content)
    wrong = await client.call_tool("ask", {"question": 42})
    expect(wrong.is_error and "invalid type: integer `42`" in text_of(wrong), text_of(wrong))
    empty = await client.call_tool("ask", {"question": "   "})
    expect(empty.is_error and "`question` is empty" in text_of(empty), text_of(empty))


@check("every page is a resource whose text is the read_page markdown")
async def resources(client):
    listed = await client.list_resources()
    uris = [str(r.uri) for r in listed.resources]
    expect(uris == ["wikimind://page/Espresso", "wikimind://page/Grind%20Size"], uris)
    grind = listed.resources[1]
    expect(grind.name == "Grind Size" and grind.mime_type == "text/markdown", grind)
    read = await client.read_resource("wikimind://page/Grind%20Size")
    expect(len(read.contents) == 1, read)
    tool = await client.call_tool("read_page", {"title": "Grind Size"})
    expect(read.contents[0].text == text_of(tool), (read.contents[0].text, text_of(tool)))
    expect(read.contents[0].text.startswith("# Grind Size\n"), read.contents[0].text)
    templates = await client.list_resource_templates()
    expect(
        [t.uri_template for t in templates.resource_templates] == ["wikimind://page/{title}"],
        templates,
    )
    # Any name of a page reads it.
    alias = await client.read_resource("wikimind://page/grind%20sizes")
    expect(alias.contents[0].text.startswith("# Grind Size\n"), alias.contents[0].text)
    await expect_mcp_error(client.read_resource("wikimind://page/Nope"), 'no page titled "Nope"')
    await expect_mcp_error(client.read_resource("file:///etc/hostname"), "wikimind://page/{title}")


@check("wrong arguments and unknown tools are errors, and the server answers the next call")
async def bad_calls(client):
    wrong_type = await client.call_tool("read_page", {"title": 3})
    expect(wrong_type.is_error, wrong_type)
    expect("invalid type: integer `3`, expected a string" in text_of(wrong_type), text_of(wrong_type))
    missing = await client.call_tool("search", {})
    expect(missing.is_error and "missing field `query`" in text_of(missing), text_of(missing))
    negative = await client.call_tool("list_pages", {"limit": -1})
    expect(negative.is_error, negative)
    await expect_mcp_error(
        client.call_tool("no_such_tool", {}), 'unknown tool "no_such_tool"', "read_page", "ask"
    )
    await expect_mcp_error(client.call_tool("add_source", {"text": "x"}), "--allow-write")
    after = await client.call_tool("search", {"query": "grind"})
    expect(not after.is_error and "**Grind Size**" in text_of(after), text_of(after))


@check("a 10 MB search query answers at once, searched for its first words and echoed cut")
async def long_search(client):
    query = "grind " + " ".join(f"w{i}" for i in range(1_300_000))
    expect(len(query) > 10_000_000, len(query))
    result = await client.call_tool("search", {"query": query})
    text = text_of(result)
    expect(not result.is_error, text[:300])
    expect(len(text) < 2_000, f"{len(text)} characters back")
    expect(text.startswith('No page matches "grind w0 w1'), text[:300])
    shown = result.structured_content["query"]
    expect(len(shown) <= 201 and shown.endswith("…"), shown)
    after = await client.call_tool("search", {"query": "grind"})
    expect("**Grind Size**" in text_of(after), text_of(after))


async def read_only_modern():
    async with Client(server(), read_timeout_seconds=TIMEOUT) as client:
        print(f"-- read-only server, protocol {client.protocol_version}", flush=True)
        for test in (
            listed_tools, search, read_page, missing_page, list_pages, ask, ask_uncovered,
            resources, bad_calls, long_search, lint_health, graph_neighbours,
        ):
            await test(client)


# --- the initialize handshake, as clients before 2026 speak ------------------------------


@check("a client on the initialize handshake gets markdown and structured content")
async def handshake():
    async with Client(server(), mode="legacy", read_timeout_seconds=TIMEOUT) as client:
        expect(client.protocol_version == "2025-11-25", client.protocol_version)
        expect(client.server_info.name == "wikimind", client.server_info)
        expect("read_page" in (client.instructions or ""), client.instructions)
        result = await client.call_tool("read_page", {"title": "Grind Size"})
        expect(text_of(result).startswith("# Grind Size\n"), text_of(result))
        expect(result.structured_content["title"] == "Grind Size", result.structured_content)


# --- raw JSON-RPC lines: what an SDK would never send ------------------------------------


async def send(proc, message):
    line = message if isinstance(message, str) else json.dumps(message)
    proc.stdin.write(line.encode() + b"\n")
    await proc.stdin.drain()


async def receive(proc):
    line = await asyncio.wait_for(proc.stdout.readline(), TIMEOUT)
    expect(line, "the server closed its output")
    return json.loads(line)


@check("malformed lines get an error or are skipped, and the server keeps serving (2024-11-05)")
async def raw_lines():
    proc = await asyncio.create_subprocess_exec(
        WIKIMIND, "mcp", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    try:
        await send(proc, "this is not JSON at all")
        await send(proc, {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "0"}},
        })
        init = await receive(proc)
        expect(init.get("id") == 1 and init["result"]["protocolVersion"] == "2024-11-05", init)
        await send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        await send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "oops"})
        invalid = await receive(proc)
        expect(invalid.get("error", {}).get("code") == -32600, invalid)
        await send(proc, '{"jsonrpc": "2.0", "id": 3, "method": ')
        await send(proc, {"jsonrpc": "2.0", "id": 4, "method": "no/such/method"})
        unknown = await receive(proc)
        expect(unknown.get("id") == 4 and unknown["error"]["code"] == -32601, unknown)
        await send(proc, {
            "jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "grind"}},
        })
        found = await receive(proc)
        expect(found.get("id") == 5, found)
        text = found["result"]["content"][0]["text"]
        expect("**Grind Size**" in text, text)
        # Structured content came in 2025-06-18: an older client gets the text only.
        expect("structuredContent" not in found["result"], found)
        # Params of the wrong shape for a method the server has: invalid params, not
        # "method not found".
        await send(proc, {"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                          "params": {"arguments": {"query": "grind"}}})
        nameless = await receive(proc)
        expect(nameless.get("id") == 6 and nameless["error"]["code"] == -32602, nameless)
        expect("name" in nameless["error"]["message"], nameless)
        await send(proc, {"jsonrpc": "2.0", "id": 7, "method": "resources/read",
                          "params": {"uri": 5}})
        numeric = await receive(proc)
        expect(numeric.get("id") == 7 and numeric["error"]["code"] == -32602, numeric)
        await send(proc, {"jsonrpc": "2.0", "id": 8, "method": "resources/read"})
        bare = await receive(proc)
        expect(bare.get("id") == 8 and bare["error"]["code"] == -32602, bare)
    finally:
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
    expect(proc.returncode == 0, f"the server exited with {proc.returncode} when its input closed")


# --- the server with --allow-write ------------------------------------------------------


class Site:
    """A web page on the loopback interface, for add_source's `url`."""

    def __enter__(self):
        self.dir = tempfile.TemporaryDirectory()
        with open(os.path.join(self.dir.name, "tamping.html"), "w") as f:
            f.write(
                "<html><head><title>Tamping</title></head><body><main><h1>Tamping</h1>"
                "<p>Tamping presses ground coffee into an even puck before brewing "
                "[[Espresso]].</p></main></body></html>"
            )
        self.requests = 0

        def counted(*args, **kwargs):
            self.requests += 1
            return QuietHandler(*args, directory=self.dir.name, **kwargs)

        handler = counted
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/tamping.html"
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.dir.cleanup()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


FLAT_WHITE = "# Flat White\n\nA flat white is espresso with thin steamed milk.\n"


@check("with --allow-write, add_source is listed and compiles pasted text into a page")
async def add_text(client):
    tools = [t.name for t in (await client.list_tools()).tools]
    expect(tools == ["search", "read_page", "list_pages", "ask", "lint", "graph_neighbours", "add_source"], tools)
    notes = Notes()
    result = await client.call_tool(
        "add_source",
        {"text": FLAT_WHITE, "title": "Flat white note"},
        read_timeout_seconds=300,
        progress_callback=notes,
    )
    text = text_of(result)
    expect(not result.is_error, text)
    expect("source #3: asking ollama:qwen2.5:3b (attempt 1)" in notes.messages, notes.messages)
    expect(any(m.startswith('page "Flat White": ') for m in notes.messages), notes.messages)
    expect('Source #3 "Flat white note": added.' in text, text)
    expect('Compiled into the digest "Flat White".' in text, text)
    expect("- Flat White — wikimind://page/Flat%20White" in text, text)
    data = result.structured_content
    expect(data["source"]["source_id"] == 3 and data["compile"]["ok"] is True, data)
    expect([p["title"] for p in data["pages"]] == ["Flat White"], data["pages"])
    page = await client.call_tool("read_page", {"title": "Flat White"})
    expect("thin steamed milk" in text_of(page), text_of(page))
    espresso = text_of(await client.call_tool("read_page", {"title": "Espresso"}))
    expect("- Flat White\n" in espresso and "wanted" not in espresso, espresso)
    listed = [str(r.uri) for r in (await client.list_resources()).resources]
    expect("wikimind://page/Flat%20White" in listed, listed)


@check("adding the same text again compiles nothing")
async def add_again(client):
    result = await client.call_tool("add_source", {"text": FLAT_WHITE, "title": "Flat white note"})
    text = text_of(result)
    expect(not result.is_error, text)
    expect("unchanged" in text and "compiled already and has not changed" in text, text)


@check("add_source downloads a web page and compiles it")
async def add_url(client):
    with Site() as site:
        result = await client.call_tool("add_source", {"url": site.url}, read_timeout_seconds=300)
    text = text_of(result)
    expect(not result.is_error, text)
    expect(f'Source #4 "Tamping": added.' in text, text)
    expect("wikimind://page/Tamping" in text, text)
    page = text_of(await client.call_tool("read_page", {"title": "tamping"}))
    expect("even puck" in page, page)
    hits = await client.call_tool("search", {"query": "puck"})
    expect("**Tamping**" in text_of(hits), text_of(hits))


@check("add_source refuses unclear arguments with what it takes")
async def add_wrong(client):
    both = await client.call_tool("add_source", {"text": "x", "url": "https://example.org/"})
    expect(both.is_error and "either `text`" in text_of(both), text_of(both))
    neither = await client.call_tool("add_source", {"title": "Nothing"})
    expect(neither.is_error and "either `text`" in text_of(neither), text_of(neither))
    titled_url = await client.call_tool("add_source", {"url": "https://example.org/", "title": "T"})
    expect(titled_url.is_error and "`title` goes with `text` only" in text_of(titled_url), text_of(titled_url))
    bad_url = await client.call_tool("add_source", {"url": "ftp://example.org/file"})
    expect(bad_url.is_error and text_of(bad_url).startswith("add_source: "), text_of(bad_url))
    after = await client.call_tool("list_pages", {})
    expect("of 4" in text_of(after), text_of(after))


@check("without --allow-private-urls, add_source refuses loopback and private addresses")
async def private_refused():
    async with Client(server("--allow-write"), read_timeout_seconds=TIMEOUT) as client:
        with Site() as site:
            port = site.url.split(":")[2].split("/")[0]
            for url in (
                site.url,
                f"http://localhost:{port}/tamping.html",
                f"http://[::1]:{port}/tamping.html",
                "http://169.254.169.254/latest/meta-data/",
                "http://10.0.0.1/",
            ):
                result = await client.call_tool("add_source", {"url": url})
                text = text_of(result)
                expect(result.is_error and "refused" in text, f"{url}: {text}")
                expect("only public addresses" in text, text)
            expect(site.requests == 0, f"the page was fetched {site.requests} time(s)")
        listed = text_of(await client.call_tool("list_pages", {}))
        expect("Tamping" not in listed, listed)


async def writable():
    async with Client(
        server("--allow-write", "--allow-private-urls"), read_timeout_seconds=TIMEOUT
    ) as client:
        print(f"-- server with --allow-write, protocol {client.protocol_version}", flush=True)
        for test in (add_text, add_again, add_url, add_wrong):
            await test(client)


async def main():
    await read_only_modern()
    await handshake()
    await raw_lines()
    await private_refused()
    await writable()
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
