//! Large sources and truncated answers, against a local server speaking the Ollama
//! protocol: a source too large for one call is read in parts (JSONL extraction) and the
//! article is written from the merged notes; nothing is dropped silently.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wikimind::compile::{providers_from_settings, CompileReport, Compiler, Progress, Stage};
use wikimind::llm::CancellationToken;
use wikimind::store::SourceId;
use wikimind::wiki::Wiki;
use wikimind_testserver::{Finish, RecordedRequest, Reply, TestServer};

/// The text between two markers of a prompt.
fn between<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let a = text.find(open).map(|i| i + open.len()).unwrap_or(0);
    let b = text[a..].find(close).map(|i| a + i).unwrap_or(text.len());
    &text[a..b]
}

/// A stand-in model: extraction calls (no `format`) get JSONL notes quoting up to three
/// "Fact" sentences of their part; the final call gets an article whose claims reuse the
/// notes' quotes, spread over all of them.
fn model(req: &RecordedRequest) -> Option<Reply> {
    let user = req.first_user_message();
    if req.body.get("format").is_none() {
        let part = between(&user, "<<<PART\n", "\nPART>>>");
        if part.contains("BROKEN") {
            return Some(Reply::text("I could not read this part, sorry."));
        }
        if part.contains("SILENT") {
            return Some(Reply::text(""));
        }
        let facts: Vec<&str> = part
            .split(['.', '\n'])
            .filter(|s| s.trim_start().starts_with("Fact"))
            .collect();
        // A real document has no "Fact" sentences: quote the first prose sentences (eight
        // words or more, no code) instead.
        let quotes = if facts.is_empty() {
            part.split(['.', '\n'])
                .filter(|s| {
                    s.split_whitespace().count() >= 8
                        && !s.contains(['{', '}', ';', '(', '<', '`', '*', '[', '|'])
                })
                .collect()
        } else {
            facts
        };
        let mut lines: Vec<String> = quotes
            .into_iter()
            .take(3)
            .map(|s| {
                let quote = s.trim().trim_end_matches('.');
                json!({"type": "claim", "text": quote, "confidence": "sourced", "quote": quote})
                    .to_string()
            })
            .collect();
        lines.push(json!({"type": "question", "text": "What comes next?"}).to_string());
        if part.contains("DENSE") {
            // The output limit cuts the answer inside its second line.
            let text = lines.join("\n");
            let cut = lines[0].len() + 1 + lines[1].len() / 2;
            return Some(Reply::text(&text[..cut]).finish(Finish::Length));
        }
        return Some(Reply::text(lines.join("\n") + "\n").chunk_chars(40));
    }
    let notes = between(&user, "<<<NOTES\n", "\nNOTES>>>");
    let quotes: Vec<&str> = notes
        .lines()
        .filter_map(|l| l.split("quote: \"").nth(1)?.split('"').next())
        .collect();
    let step = (quotes.len() / 12).max(1);
    let claims: Vec<Value> = quotes
        .iter()
        .step_by(step)
        .map(|q| json!({"claim": q, "confidence": "sourced", "quote": q}))
        .collect();
    let answer = json!({
        "title": "The Long Document",
        "summary": "A long document read in parts.",
        "key_claims": claims,
        "article_body": "Written from notes over the whole document.",
    });
    Some(Reply::text(answer.to_string()))
}

fn long_document(target_bytes: usize) -> String {
    let mut doc = String::from("# The Long Document\n\n");
    let mut n = 0;
    let mut chapter = 0;
    while doc.len() < target_bytes {
        chapter += 1;
        doc.push_str(&format!("## Chapter {chapter}\n\n"));
        for _ in 0..8 {
            n += 1;
            doc.push_str(&format!(
                "Fact {n} is that item {n} weighs {} grams. Some filler text follows to make the paragraph longer, and it keeps going for a while so that the document is realistic. More words here about nothing in particular.\n\n",
                n * 7
            ));
        }
    }
    doc
}

/// Puts `text` in a paragraph of its own at the first paragraph break after `num/den` of
/// `doc`.
fn insert_paragraph(doc: &mut String, num: usize, den: usize, text: &str) {
    let from = doc.len() * num / den;
    let at = doc[from..].find("\n\n").unwrap() + from;
    doc.insert_str(at, &format!("\n\n{text}\n\n"));
}

struct Run {
    wiki: Wiki,
    compiler: Arc<Compiler>,
    progress: Arc<Mutex<Vec<Progress>>>,
}

fn setup(server: &TestServer, max_tokens: u32) -> Run {
    let wiki = Wiki::open_in_memory().unwrap();
    let mut settings = crate::common::settings_for(&server.url(), Some(4));
    settings.compile.max_tokens = max_tokens;
    settings.compile.transport_retries = 0;
    let providers = providers_from_settings(&settings).unwrap();
    let compiler = Arc::new(Compiler::new(
        Arc::clone(wiki.store_for_tests()),
        providers,
        settings.compile.clone(),
    ));
    Run {
        wiki,
        compiler,
        progress: Arc::new(Mutex::new(Vec::new())),
    }
}

/// The stand-in model behind a server that reports a 4096-token context.
fn small_context_server() -> TestServer {
    TestServer::builder()
        .context_length(4096)
        .responder(model)
        .start()
}

/// Compiles a note that fits in one call, with this answer budget.
fn compile_short_note(server: &TestServer, max_tokens: u32) -> CompileReport {
    let run = setup(server, max_tokens);
    let id = run
        .wiki
        .ingest_text("# T\n\nA short note that fits in one call.", None)
        .unwrap()
        .sources[0]
        .source_id;
    compile(&run, id)
}

fn compile(run: &Run, id: SourceId) -> CompileReport {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let progress = Arc::clone(&run.progress);
    rt.block_on(run.compiler.compile_one(
        id,
        &move |p: Progress| progress.lock().unwrap().push(p),
        &CancellationToken::new(),
    ))
    .unwrap()
}

#[test]
fn a_300_kb_source_is_compiled_through_chunks_with_quotes_from_everywhere() {
    let server = TestServer::builder()
        .context_length(8192)
        .responder(model)
        .start();
    let run = setup(&server, 2048);
    let doc = long_document(300 * 1024);
    let id = run
        .wiki
        .ingest_text(&doc, Some("The Long Document"))
        .unwrap()
        .sources[0]
        .source_id;
    let started = std::time::Instant::now();
    let report = compile(&run, id);
    let elapsed = started.elapsed();
    assert!(report.ok, "{report:?}");
    let large = report
        .large
        .clone()
        .expect("the large-source path was taken");
    assert!(large.chunks >= 20, "{large:?}");
    assert!(large.failed_chunks.is_empty(), "nothing dropped: {large:?}");
    assert!(
        large.cut_off_chunks.is_empty(),
        "nothing cut off: {large:?}"
    );
    assert_eq!(large.skipped_lines, 0, "no note skipped: {large:?}");
    // Notes that do not fit in the final call are counted and said, never dropped quietly.
    assert_eq!(
        report.warnings.iter().any(|w| w.contains("did not fit")),
        large.notes_left_out > 0,
        "{:?}",
        report.warnings
    );

    // The requests show it: one extraction call per chunk (no schema), then one compile.
    let chats = server.chat_requests();
    let extraction: Vec<_> = chats
        .iter()
        .filter(|r| r.body.get("format").is_none())
        .collect();
    let compile_calls: Vec<_> = chats
        .iter()
        .filter(|r| r.body.get("format").is_some())
        .collect();
    assert_eq!(extraction.len(), large.chunks);
    assert_eq!(compile_calls.len(), 1);
    for r in &chats {
        let num_ctx = r.body["options"]["num_ctx"].as_u64().unwrap();
        assert!(
            num_ctx <= 8192,
            "num_ctx {num_ctx} beyond the model's context"
        );
        let prompt: usize = r.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap().len())
            .sum();
        assert!(
            prompt / 3 + 2048 <= 8192,
            "a prompt of {prompt} bytes does not fit"
        );
    }

    // The article's claims carry quotes from across the whole source, all grounded.
    let article = run.wiki.article("The Long Document").unwrap().unwrap();
    let offsets: Vec<usize> = article
        .claims
        .iter()
        .map(|c| {
            assert!(c.grounded, "{c:?}");
            doc.find(c.quote.as_deref().unwrap()).unwrap()
        })
        .collect();
    // Every tenth of the document is quoted somewhere in the article.
    for tenth in 0..10 {
        let (from, to) = (doc.len() * tenth / 10, doc.len() * (tenth + 1) / 10);
        assert!(
            offsets.iter().any(|&o| (from..to).contains(&o)),
            "no quote from bytes {from}..{to}: {offsets:?}"
        );
    }

    // Progress showed the notes as they streamed in.
    let progress = run.progress.lock().unwrap();
    assert!(progress.iter().any(|p| p.stage == Stage::Reading
        && p.message
            .as_deref()
            .is_some_and(|m| m.contains("claims so far"))));
    eprintln!(
        "300 KB source: {} chunks, {} calls, {} tokens in, {} tokens out, {} notes ({} left out of the final call), {:.0} ms wall time against the local server",
        large.chunks,
        report.usage.calls,
        report.usage.tokens_in,
        report.usage.tokens_out,
        large.notes,
        large.notes_left_out,
        elapsed.as_secs_f64() * 1000.0
    );
}

#[test]
fn a_chunk_that_cannot_be_read_is_reported_in_the_article() {
    let server = small_context_server();
    let run = setup(&server, 1024);
    let mut doc = long_document(20 * 1024);
    insert_paragraph(&mut doc, 1, 2, "This paragraph is BROKEN for the model.");
    let id = run.wiki.ingest_text(&doc, Some("Doc")).unwrap().sources[0].source_id;
    let report = compile(&run, id);
    assert!(report.ok, "{report:?}");
    let large = report.large.unwrap();
    assert_eq!(large.failed_chunks.len(), 1, "{large:?}");
    let failed = &large.failed_chunks[0];
    assert!(doc[failed.start..failed.end].contains("BROKEN"));
    assert!(
        failed
            .reason
            .contains("no line of the answer was a valid note"),
        "{}",
        failed.reason
    );
    assert!(report
        .warnings
        .iter()
        .any(|w| w.contains(&format!("part {} of", failed.part))));
    let article = run.wiki.article("The Long Document").unwrap().unwrap();
    assert!(
        article
            .body
            .contains("**Incomplete:** WikiMind could not read part"),
        "{}",
        article.body
    );
}

#[test]
fn a_truncated_answer_without_its_required_fields_is_recompiled_with_a_larger_budget() {
    let server = TestServer::start();
    server.push(
        Reply::text(r#"{"title": "T", "summary": "A summary that goes on and on"#)
            .finish(Finish::Length),
    );
    let report = compile_short_note(&server, 1000);
    assert!(report.ok, "{report:?}");
    assert!(report.large.is_none());
    let chats = server.chat_requests();
    assert_eq!(chats.len(), 2);
    assert_eq!(chats[0].body["options"]["num_predict"], 1000);
    assert_eq!(chats[1].body["options"]["num_predict"], 2000);
    let feedback = chats[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(feedback.contains("cut off"), "{feedback}");
}

#[test]
fn a_long_chapter_of_the_rust_book_is_compiled_through_chunks() {
    let sysroot = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output();
    let Some(book) = sysroot
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .map(|root| {
            std::path::Path::new(&root).join("share/doc/rust/html/book/ch21-02-multithreaded.html")
        })
        .filter(|p| p.exists())
    else {
        // CI has the toolchain's docs: there, a missing book is a failure, not a skip.
        assert!(
            std::env::var_os("CI").is_none(),
            "the Rust Book is not installed with this toolchain (rust-docs component)"
        );
        eprintln!(
            "skipped: the Rust Book is not installed with this toolchain (rust-docs component)"
        );
        return;
    };
    let server = small_context_server();
    let run = setup(&server, 1024);
    let added = run.wiki.ingest_path(&book, &Default::default()).unwrap();
    let source = &added.sources[0];
    assert!(
        source
            .title
            .as_deref()
            .unwrap_or_default()
            .to_lowercase()
            .contains("thread"),
        "{source:?}"
    );
    let report = compile(&run, source.source_id);
    assert!(report.ok, "{report:?}");
    let large = report.large.unwrap();
    assert!(large.chunks >= 3, "{large:?}");
    assert!(large.failed_chunks.is_empty());
    assert_eq!(server.chat_requests().len(), large.chunks + 1);
    // The article quotes the chapter itself, from its start to its end, and every quote is
    // found in the text WikiMind read from the HTML.
    let text = run
        .wiki
        .store_for_tests()
        .source(source.source_id)
        .unwrap()
        .unwrap()
        .text;
    // The scripted model titles every answer "The Long Document", which the chapter never
    // says: the chapter's own title is used, and the report says so.
    let own = source.title.clone().unwrap();
    assert_eq!(
        report.title_note.as_deref(),
        Some(format!("title not in the source: used the source's title '{own}'").as_str())
    );
    let article = run.wiki.article(&own).unwrap().unwrap();
    assert!(article.claims.len() >= 6, "{:?}", article.claims);
    let thirds: std::collections::HashSet<usize> = article
        .claims
        .iter()
        .map(|c| {
            assert!(c.grounded, "{c:?}");
            let q = c.quote.as_deref().unwrap();
            text.find(q)
                .unwrap_or_else(|| panic!("{q:?} not in the chapter"))
                * 3
                / text.len()
        })
        .collect();
    assert_eq!(thirds.len(), 3, "quotes from every third of the chapter");
}

/// Regression: a retry carries the previous answer and the feedback; `num_ctx` was sized for
/// the first prompt only, so Ollama silently cut the start of the retry's prompt.
#[test]
fn a_retry_asks_for_a_context_that_holds_the_previous_answer_too() {
    let server = TestServer::start();
    let long = "word ".repeat(800);
    server.push(
        Reply::text(format!(r#"{{"title": "T", "summary": "{long}""#)).finish(Finish::Length),
    );
    let report = compile_short_note(&server, 1000);
    assert!(report.ok, "{report:?}");
    let chats = server.chat_requests();
    assert_eq!(chats.len(), 2);
    let sent_chars: usize = chats[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().len())
        .sum();
    let num_ctx = chats[1].body["options"]["num_ctx"].as_u64().unwrap();
    let num_predict = chats[1].body["options"]["num_predict"].as_u64().unwrap();
    assert!(
        chats[1].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "assistant"),
        "the previous answer goes back to the model"
    );
    assert!(
        num_ctx >= (sent_chars as u64).div_ceil(3) + num_predict,
        "num_ctx {num_ctx} < {sent_chars} chars sent + {num_predict} to write"
    );
}

/// A part whose notes stop at the output limit keeps its complete notes and is reported as
/// partly read; a part the model answers with nothing is retried, then reported as unread.
#[test]
fn cut_off_and_empty_notes_are_reported_never_silently_kept() {
    let server = small_context_server();
    let run = setup(&server, 1024);
    let mut doc = long_document(24 * 1024);
    insert_paragraph(&mut doc, 1, 3, "This paragraph is DENSE for the model.");
    insert_paragraph(&mut doc, 2, 3, "The model stays SILENT here.");
    let id = run.wiki.ingest_text(&doc, Some("Doc")).unwrap().sources[0].source_id;
    let report = compile(&run, id);
    assert!(report.ok, "{report:?}");
    let large = report.large.clone().unwrap();

    assert_eq!(large.cut_off_chunks.len(), 1, "{large:?}");
    assert!(
        report.warnings.iter().any(
            |w| w.contains(&format!("part {} of", large.cut_off_chunks[0]))
                && w.contains("output limit")
        ),
        "{:?}",
        report.warnings
    );
    assert_eq!(large.failed_chunks.len(), 1, "{large:?}");
    let silent = &large.failed_chunks[0];
    assert!(doc[silent.start..silent.end].contains("SILENT"));
    assert!(silent.reason.contains("no notes"), "{}", silent.reason);
    // The empty part was asked again before it was given up.
    let asked = server
        .chat_requests()
        .iter()
        .filter(|r| r.first_user_message().contains("SILENT"))
        .count();
    assert!(asked >= 2, "asked {asked} time(s)");

    let article = run.wiki.article("The Long Document").unwrap().unwrap();
    assert!(
        article.body.contains("**Partly read:**"),
        "{}",
        article.body
    );
    assert!(article.body.contains("**Incomplete:**"), "{}", article.body);
}

/// An extraction answer (with a preamble, a fence, a blank line and multi-byte text) cut
/// at every byte offset, read the way a chunk call reads it: never fewer notes than the
/// complete lines before the cut, never a note the schema rejects, always a prefix of the
/// whole answer's notes.
#[test]
fn an_extraction_answer_cut_at_every_byte_keeps_every_complete_note() {
    use wikimind::structured::{decode, parse_jsonl, Mode};
    let answer = include_bytes!("../data/extraction-answer.jsonl");
    let schema = wikimind::compile::PromptSet::builtin()
        .get(wikimind::compile::templates::EXTRACT)
        .schema();
    let read = |bytes: &[u8]| {
        let (text, _) = decode(bytes, Mode::Lenient).unwrap();
        parse_jsonl(&text, &schema, Mode::Lenient).values
    };
    let full = read(answer);
    assert_eq!(full.len(), 6, "{full:?}");
    let note_line = |l: &[u8]| l.starts_with(b"{");
    let mut failures = Vec::new();
    for at in 0..=answer.len() {
        let cut = &answer[..at];
        let complete = cut
            .split_inclusive(|&b| b == b'\n')
            .filter(|l| l.ends_with(b"\n") && note_line(l))
            .count();
        let got = read(cut);
        if got.len() < complete {
            failures.push(format!(
                "{at}: {} notes, {complete} complete lines",
                got.len()
            ));
        }
        if got.len() > full.len() || got[..] != full[..got.len()] {
            failures.push(format!(
                "{at}: {got:?} is not a prefix of the whole answer's notes"
            ));
        }
        if let Some(bad) = got.iter().find(|v| !schema.is_valid(v)) {
            failures.push(format!("{at}: invalid note {bad}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
