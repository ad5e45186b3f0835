//! Pages written from several digests, through a local server speaking the Ollama
//! protocol: one call per page that changes, every quote grounded in the source that holds
//! it, nothing lost on a rewrite (the guard), no call when a digest adds nothing, and large
//! material read in parts.

use serde_json::{json, Value};
use wikimind::compile::{Compiler, PageOutcome, PageReport};
use wikimind::llm::CancellationToken;
use wikimind::store::{PageId, SourceId};
use wikimind::wiki::Wiki;
use wikimind_testserver::{Reply, TestServer};

use crate::common::settings_for;

struct Setup {
    server: TestServer,
    wiki: Wiki,
    compiler: std::sync::Arc<Compiler>,
}

fn setup() -> Setup {
    setup_with(TestServer::start(), |_| {})
}

fn setup_with(server: TestServer, tune: impl FnOnce(&mut wikimind::config::Settings)) -> Setup {
    let wiki = Wiki::open_in_memory().expect("wiki");
    let mut settings = settings_for(&server.url(), None);
    tune(&mut settings);
    let compiler = wiki.compiler(&settings).expect("compiler");
    Setup {
        server,
        wiki,
        compiler,
    }
}

impl Setup {
    fn add(&self, text: &str) -> SourceId {
        self.wiki.ingest_text(text, None).expect("ingest").sources[0].source_id
    }

    async fn compile(&self, source: SourceId) {
        let report = self
            .compiler
            .compile_one(source, &|_| {}, &CancellationToken::new())
            .await
            .expect("compile");
        assert!(report.ok, "{report:?}");
    }

    async fn write(&self, page: PageId) -> PageReport {
        self.compiler
            .write_page(page, &|_| {}, &CancellationToken::new())
            .await
            .expect("write")
    }

    fn page(&self, name: &str) -> wikimind::store::Page {
        let id = self
            .wiki
            .store_for_tests()
            .find_page(name)
            .expect("find")
            .expect(name);
        self.wiki
            .store_for_tests()
            .page(id)
            .expect("read")
            .expect("page")
    }

    fn page_calls(&self) -> usize {
        self.server
            .chat_requests()
            .iter()
            .filter(|r| r.first_user_message().starts_with("Topic: "))
            .count()
    }
}

const A: &str = "# Espresso\n\nEspresso is brewed at nine bars of pressure. A shot uses about eighteen grams of coffee.";
const B: &str = "# espressos\n\nA shot of espresso takes about thirty seconds to pull. Crema forms on top of the shot.";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_notes_on_one_topic_make_one_page_written_from_both() {
    let s = setup();
    let (a, b) = (s.add(A), s.add(B));
    s.compile(a).await;
    s.compile(b).await;
    let before = s.page("Espresso");
    assert!(before.stale_reason.is_some());
    assert_eq!(
        before.version, 1,
        "the first digest shows until it is written"
    );

    let report = s.write(before.id).await;
    assert_eq!(
        report.outcome,
        PageOutcome::Written { version: 2 },
        "{report:?}"
    );
    assert_eq!(
        (report.usage.calls, report.sources, report.changed),
        (1, 2, 1)
    );
    assert_eq!(s.page_calls(), 1);

    let page = s.page("espressos");
    assert_eq!(page.title, "Espresso", "the answer's title is ignored");
    assert!(page.stale_reason.is_none() && page.flagged.is_none());
    assert!(page.body.contains("nine bars") && page.body.contains("thirty seconds"));
    for source in [a, b] {
        assert!(
            page.claims
                .iter()
                .any(|c| c.claim.grounded && c.source_ids == [source]),
            "a claim grounded in {source}: {:?}",
            page.claims
        );
    }
    let history = s
        .wiki
        .store_for_tests()
        .page_history(page.id)
        .expect("history");
    assert_eq!(history.len(), 2);
    assert_eq!(history[1].provider.as_deref(), Some("ollama"));

    // The prompt held the page as it was, the new digest with its source, and excerpts.
    let prompt = s
        .server
        .chat_requests()
        .last()
        .unwrap()
        .first_user_message();
    assert!(prompt.starts_with("Topic: Espresso\n"), "{prompt}");
    assert!(
        prompt.contains(&format!("<<<DIGEST source {b}: espressos")),
        "{prompt}"
    );
    assert!(
        prompt.contains(&format!("<<<EXCERPT source {b}\n")),
        "{prompt}"
    );
    assert!(
        prompt.contains(&format!("- source {a}: Espresso")),
        "{prompt}"
    );

    // Written: the next job has nothing to do and makes no call.
    let again = s.write(page.id).await;
    assert_eq!(again.outcome, PageOutcome::UpToDate);
    assert_eq!(s.page_calls(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_note_that_repeats_the_page_adds_its_source_with_no_call() {
    let s = setup();
    let (a, b) = (s.add(A), s.add(B));
    s.compile(a).await;
    s.compile(b).await;
    let page = s.page("Espresso");
    s.write(page.id).await;
    let calls = s.page_calls();

    // A sentence the page quotes already, under another spelling of the heading.
    let c = s.add("# ESPRESSO\n\nEspresso is brewed at nine bars of pressure.");
    s.compile(c).await;
    assert!(s.page("Espresso").stale_reason.is_some());
    let report = s.write(page.id).await;
    assert_eq!(report.outcome, PageOutcome::NoNewInformation, "{report:?}");
    assert_eq!((report.usage.calls, s.page_calls()), (0, calls));
    let after = s.page("Espresso");
    assert!(after.stale_reason.is_none());
    assert_eq!(after.version, 2, "no new version");
    let digests = s
        .wiki
        .store_for_tests()
        .page_digests(page.id)
        .expect("digests");
    assert_eq!(digests.len(), 3);
    assert!(
        after
            .claims
            .iter()
            .any(|claim| claim.source_ids.contains(&c) && claim.source_ids.contains(&a)),
        "the claim quoting nine bars names the new source too: {:?}",
        after.claims
    );
}

/// An answer that drops a source's claims and most of the body, as a careless model would.
fn lossy_page() -> Reply {
    Reply::text(
        json!({
            "title": "Espresso",
            "summary": "Espresso.",
            "key_claims": [{"claim": "Pressure", "confidence": "sourced",
                            "quote": "brewed at nine bars of pressure"}],
            "concepts": [], "backlink_suggestions": [], "open_questions": [],
            "article_body": "Short."
        })
        .to_string(),
    )
}

async fn a_written_page_with_a_third_source(s: &Setup) -> (PageId, SourceId) {
    let (a, b) = (s.add(A), s.add(B));
    s.compile(a).await;
    s.compile(b).await;
    let page = s.page("Espresso");
    let written = s.write(page.id).await;
    assert_eq!(written.outcome, PageOutcome::Written { version: 2 });
    let c = s.add("# Espresso\n\nRistretto is a shorter espresso pulled with less water.");
    s.compile(c).await;
    (page.id, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewrite_that_loses_content_is_retried_with_the_reason_then_flagged() {
    let s = setup_with(TestServer::start(), |settings| settings.compile.retries = 1);
    let (page, b) = a_written_page_with_a_third_source(&s).await;
    let before = s.page("Espresso");
    s.server.push(lossy_page());
    s.server.push(lossy_page());
    let report = s.write(page).await;
    let PageOutcome::Flagged { reason } = &report.outcome else {
        panic!("{report:?}");
    };
    // The claim of source `b` it dropped is put back (the page has room for it): the
    // answer is refused for what it lacks and for the body it lost, not for that.
    assert!(!reason.contains(&format!("source {b})")), "{reason}");
    assert!(reason.contains("shrank"), "{reason}");
    assert!(
        reason.contains("no sourced claim of the new source"),
        "{reason}"
    );
    assert_eq!(report.usage.calls, 2, "one retry with the reason");
    let retry = s.server.chat_requests().last().unwrap().clone();
    let sent: Vec<String> = retry.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect();
    assert!(
        sent.iter()
            .any(|m| m.contains("the page shrank to 6 characters")),
        "{sent:?}"
    );

    // The previous version stays, the page says why, and it is still stale.
    let after = s.page("Espresso");
    assert_eq!((after.version, &after.body), (before.version, &before.body));
    assert!(after
        .flagged
        .as_deref()
        .unwrap()
        .contains("the page shrank to 6 characters"));
    assert!(after.stale_reason.is_some());
    assert_eq!(
        s.wiki
            .store_for_tests()
            .page_history(page)
            .expect("history")
            .len(),
        2,
        "no version was added"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewrite_refused_once_and_then_complete_is_saved() {
    let s = setup();
    let (page, _) = a_written_page_with_a_third_source(&s).await;
    s.server.push(lossy_page());
    let report = s.write(page).await;
    assert_eq!(
        report.outcome,
        PageOutcome::Written { version: 3 },
        "{report:?}"
    );
    assert_eq!(report.usage.calls, 2);
    assert!(
        report.warnings.iter().any(|w| w.contains("rejected")),
        "{:?}",
        report.warnings
    );
    let after = s.page("Espresso");
    assert!(after.flagged.is_none() && after.stale_reason.is_none());
    assert!(after.body.contains("Ristretto"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_a_source_lets_the_page_shrink_and_drops_its_claims() {
    let s = setup();
    let (page, b) = a_written_page_with_a_third_source(&s).await;
    s.write(page).await;
    assert!(s.wiki.store_for_tests().remove_source(b).expect("remove"));
    let stale = s.page("Espresso");
    assert!(stale.stale_reason.unwrap().contains("was removed"));
    // A model that writes a shorter page from what is left: accepted, as a source left.
    s.server.push(Reply::text(
        json!({
            "title": "Espresso",
            "summary": "Espresso.",
            "key_claims": [
                {"claim": "Pressure", "confidence": "sourced", "quote": "brewed at nine bars of pressure"},
                {"claim": "Ristretto", "confidence": "sourced", "quote": "a shorter espresso pulled with less water"}
            ],
            "concepts": [], "backlink_suggestions": [], "open_questions": [],
            "article_body": "Short."
        })
        .to_string(),
    ));
    let report = s.write(page).await;
    assert!(
        matches!(report.outcome, PageOutcome::Written { .. }),
        "{report:?}"
    );
    let after = s.page("Espresso");
    assert_eq!(after.body, "Short.");
    assert!(after.claims.iter().all(|c| !c.source_ids.contains(&b)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quote_found_in_no_source_is_shown_as_inferred() {
    let s = setup();
    let (a, b) = (s.add(A), s.add(B));
    s.compile(a).await;
    s.compile(b).await;
    let page = s.page("Espresso").id;
    let mut good: Value = serde_json::from_str(&wikimind_testserver::canned::answer(
        &s.server.chat_requests()[0].first_user_message(),
    ))
    .unwrap();
    // Whatever the canned answer was, write one with an invented quote beside real ones.
    good["key_claims"] = json!([
        {"claim": "Pressure", "confidence": "sourced", "quote": "brewed at nine bars of pressure"},
        {"claim": "Time", "confidence": "sourced", "quote": "takes about thirty seconds to pull"},
        {"claim": "Invented", "confidence": "sourced", "quote": "espresso was invented on the moon"}
    ]);
    good["article_body"] = json!(format!("{A}\n\n{B}"));
    s.server.push(Reply::text(good.to_string()));
    let report = s.write(page).await;
    assert!(
        matches!(report.outcome, PageOutcome::Written { .. }),
        "{report:?}"
    );
    let after = s.page("Espresso");
    let invented = after
        .claims
        .iter()
        .find(|c| c.claim.claim == "Invented")
        .unwrap();
    assert!(!invented.claim.grounded && invented.source_ids.is_empty());
    assert_eq!(invented.claim.confidence.as_str(), "inferred");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_concept_two_notes_name_gets_a_page_written_by_the_model() {
    let s = setup();
    let a =
        s.add("# Espresso\n\nEspresso wears **Crema** on top. Crema is a foam of oils and gas.");
    let b = s.add("# Latte\n\nA latte hides the **crema** under milk. Crema fades within minutes.");
    s.compile(a).await;
    assert!(
        s.wiki
            .store_for_tests()
            .find_page("Crema")
            .expect("find")
            .is_none(),
        "one source: a chip"
    );
    s.compile(b).await;
    let crema = s.page("crema");
    assert_eq!(
        crema.title, "Crema",
        "spelled as the oldest digest names it"
    );
    assert_eq!((crema.version, crema.stale_reason.is_some()), (0, true));
    let report = s.write(crema.id).await;
    assert_eq!(
        report.outcome,
        PageOutcome::Written { version: 1 },
        "{report:?}"
    );
    let written = s.page("Crema");
    assert!(written.body.contains("Crema"), "{}", written.body);
    assert!(
        written.claims.iter().any(|c| c.source_ids == [a]),
        "{:?}",
        written.claims
    );
    assert!(
        written.claims.iter().any(|c| c.source_ids == [b]),
        "{:?}",
        written.claims
    );
}

/// The "Espresso fact …" sentences of a text, once each.
fn facts(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, _) in text.match_indices("Espresso fact ") {
        if let Some(end) = text[i..].find("sentence") {
            let fact = text[i..i + end + "sentence".len()].to_owned();
            if !out.contains(&fact) {
                out.push(fact);
            }
        }
    }
    out
}

/// A stand-in model for material read in parts: extraction calls get one note per fact of
/// their part; a page call over notes keeps the page's claims and adds one claim per quote
/// in the notes; anything else gets the canned answer.
fn reading_model(req: &wikimind_testserver::RecordedRequest) -> Option<Reply> {
    let user = req.first_user_message();
    if let Some(part) = user.split("<<<PART\n").nth(1) {
        let lines: Vec<String> = facts(part)
            .into_iter()
            .map(|f| {
                json!({"type": "claim", "text": f, "confidence": "sourced", "quote": f}).to_string()
            })
            .collect();
        return Some(Reply::text(lines.join("\n")));
    }
    if user.starts_with("Topic: ") && user.contains("<<<NOTES") {
        let page = user.split("<<<PAGE\n").nth(1)?.split("\nPAGE>>>").next()?;
        let page: Value = serde_json::from_str(page).unwrap_or(json!({}));
        let mut claims: Vec<Value> = page["key_claims"].as_array().cloned().unwrap_or_default();
        let mut body = page["article_body"].as_str().unwrap_or_default().to_owned();
        // Within the room the prompt gives the page.
        let room = |marker: &str| -> usize {
            let at = user.find(marker).map_or(0, |i| i + marker.len());
            let digits: String = user[at..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().unwrap_or(usize::MAX)
        };
        let (max_claims, max_body) = (room("holds at most "), room("article_body of at most "));
        for fact in facts(user.split("<<<NOTES\n").nth(1)?) {
            if claims.len() < max_claims {
                claims.push(json!({"claim": fact, "confidence": "sourced", "quote": fact}));
            }
            if body.len() + fact.len() + 3 <= max_body {
                body.push_str(&format!("\n\n{fact}."));
            }
        }
        return Some(Reply::text(
            json!({"title": "Espresso", "summary": "Facts.", "key_claims": claims,
                   "concepts": [], "backlink_suggestions": [], "open_questions": [],
                   "article_body": body})
            .to_string(),
        ));
    }
    Some(Reply::text(wikimind_testserver::canned::answer(&user)))
}

/// A digest too large for one page call beside the page (a note of sixty linked lines
/// digests into a long body) is read in parts first, and the page written from the notes
/// keeps both sources within its room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn material_too_large_for_one_call_is_read_in_parts_first() {
    let server = TestServer::builder().responder(reading_model).start();
    let s = setup_with(server, |_| {});
    let small = s.add("# Espresso\n\nEspresso is brewed at nine bars of pressure.");
    s.compile(small).await;
    let mut text = "# espressos\n\nEspresso is a long subject.\n\n".to_owned();
    for i in 0..60 {
        text.push_str(&format!(
            "Espresso fact {i} is stated here in its own sentence, next to [[Crema]].\n"
        ));
    }
    let large = s.add(&text);
    s.compile(large).await;
    let page = s.page("Espresso").id;
    // The page is written with a model whose context holds far less than the new digest.
    let mut tight = settings_for(&s.server.url(), None);
    tight.compile.context_tokens = 3_200;
    tight.compile.max_tokens = 500;
    let compiler = s.wiki.compiler(&tight).expect("compiler");
    let report = compiler
        .write_page(page, &|_| {}, &CancellationToken::new())
        .await
        .expect("write");
    assert_eq!(report.changed, 1);
    assert!(
        report.warnings.iter().any(|w| w.contains("read in")),
        "{report:?}"
    );
    assert_eq!(report.prompt_version, "extract-v1+page-v2");
    let requests = s.server.chat_requests();
    let extract_calls = requests
        .iter()
        .filter(|r| r.first_user_message().contains("<<<PART"))
        .count();
    assert!(extract_calls >= 2, "{extract_calls}");
    assert_eq!(report.usage.calls as usize, extract_calls + 1, "{report:?}");
    let last = requests.last().unwrap().first_user_message();
    assert!(
        last.contains("<<<NOTES") && last.contains("Espresso fact 2 is stated"),
        "{last}"
    );
    assert_eq!(
        report.outcome,
        PageOutcome::Written { version: 2 },
        "{report:?}"
    );
    let written = s.page("Espresso");
    for id in [small, large] {
        assert!(
            written.claims.iter().any(|c| c.source_ids.contains(&id)),
            "a claim from {id}: {:?}",
            written.claims
        );
    }
}

/// Regression: a rewrite that lost the claims of many sources was retried with one problem
/// naming every one of them (52,000 characters for 2,000 sources, beyond an 8,192-token
/// context). The problem names a few and counts the rest, the retry fits the context, and
/// the page's flag is one readable line. (The claims an answer drops are now put back when
/// the page has room; what the retry says still fits.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewrite_that_loses_many_sources_is_retried_within_the_context() {
    let s = setup_with(TestServer::start(), |settings| settings.compile.retries = 1);
    let facts = [
        "nine bars of pressure",
        "eighteen grams of coffee",
        "thirty seconds to pull",
        "a fine grind",
        "ninety degrees of heat",
        "a tamped puck",
        "a ristretto is shorter",
        "a lungo is longer",
        "crema on top",
        "a double basket",
        "a portafilter handle",
        "a single origin bean",
    ];
    let mut sources = Vec::new();
    for fact in facts {
        let id = s.add(&format!(
            "# Espresso\n\nEspresso needs {fact} to taste right."
        ));
        s.compile(id).await;
        sources.push(id);
    }
    let page = s.page("Espresso");
    let written = s.write(page.id).await;
    assert!(
        matches!(written.outcome, PageOutcome::Written { .. }),
        "{written:?}"
    );
    let more = s.add("# Espresso\n\nEspresso is an Italian word for pressed out.");
    s.compile(more).await;
    s.server.push(lossy_page());
    s.server.push(lossy_page());
    let report = s.write(page.id).await;
    let PageOutcome::Flagged { reason } = &report.outcome else {
        panic!("{report:?}");
    };
    assert!(!reason.contains('\n') && reason.len() < 3_000, "{reason}");
    let retry = s.server.chat_requests().last().unwrap().clone();
    let sent: Vec<String> = retry.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect();
    let feedback = sent.last().unwrap();
    assert!(
        feedback.contains("the page shrank") && feedback.contains("new source"),
        "{feedback}"
    );
    assert!(feedback.matches("source ").count() <= 12, "{feedback}");
    // Everything sent and the answer budget fit the model's context (8,192 tokens, about
    // three characters a token).
    let chars: usize = sent.iter().map(String::len).sum();
    let budget = retry.body["options"]["num_predict"].as_u64().unwrap_or(0) as usize;
    assert!(
        chars.div_ceil(3) + budget <= 8_192,
        "{chars} characters and {budget} tokens"
    );
}

/// A page job of several calls whose second call is refused by the guard keeps what the
/// first wrote: that version is saved, the page is flagged with the reason and stays stale
/// for the digests the job did not get to, and a next job takes them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_refused_after_its_first_call_keeps_what_that_call_wrote() {
    let page_calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&page_calls);
    let server = TestServer::builder()
        .responder(move |req| {
            let user = req.first_user_message();
            if user.starts_with("Topic: ")
                && counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= 1
            {
                return Some(lossy_page());
            }
            Some(Reply::text(wikimind_testserver::canned::answer(&user)))
        })
        .start();
    let s = setup_with(server, |settings| {
        settings.compile.retries = 1;
        // A page of 3 claims, one new digest a call.
        settings.compile.context_tokens = 4_096;
        settings.compile.max_tokens = 1_000;
    });
    let mut sources = Vec::new();
    for fact in [
        "nine bars of pressure",
        "eighteen grams of coffee",
        "thirty seconds to pull",
        "a fine grind",
    ] {
        let id = s.add(&format!(
            "# Espresso\n\nEspresso needs {fact} to taste right. It is a sentence about {fact} alone."
        ));
        s.compile(id).await;
        sources.push(id);
    }
    let page = s.page("Espresso");
    let report = s.write(page.id).await;
    let PageOutcome::Flagged { reason } = &report.outcome else {
        panic!("{report:?}");
    };
    assert!(
        reason.contains("the page lost") || reason.contains("new source"),
        "{reason}"
    );
    assert_eq!(
        report.usage.calls, 3,
        "one call accepted, then one refused twice: {report:?}"
    );

    let after = s.page("Espresso");
    assert_eq!(after.version, 2, "the first call's page is saved");
    assert!(
        after.flagged.is_some() && after.stale_reason.is_some(),
        "{after:?}"
    );
    assert!(
        after
            .claims
            .iter()
            .any(|c| c.source_ids.contains(&sources[1])),
        "the first new source is written in: {:?}",
        after.claims
    );

    // The next job starts from that version and takes the digests left (the stand-in
    // answers its first call well again).
    page_calls.store(0, std::sync::atomic::Ordering::SeqCst);
    let again = s.write(page.id).await;
    assert!(
        (1..report.changed).contains(&again.changed),
        "only what the first job did not get to: {again:?}"
    );
    assert_eq!(
        again.outcome,
        PageOutcome::Written { version: 3 },
        "{again:?}"
    );
    let done = s.page("Espresso");
    assert!(
        done.flagged.is_none() && done.stale_reason.is_none(),
        "{done:?}"
    );
    assert!(
        done.claims
            .iter()
            .any(|c| c.source_ids.contains(&sources[3])),
        "the last source is written in: {:?}",
        done.claims
    );
}
