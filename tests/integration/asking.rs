//! Asking the wiki, through a local server speaking the Ollama protocol: retrieval finds
//! the pages a question is about (no model), quotes are checked against the page each
//! claim cites, a question about nothing in the wiki makes no call, and a saved answer is
//! a page of its own kind that no question reads and no topic is fed by.

use serde_json::json;
use wikimind::ask::{AskOptions, AskReport};
use wikimind::compile::Progress;
use wikimind::contract::Confidence;
use wikimind::llm::CancellationToken;
use wikimind::store::{PageKind, QueryTerm, Store};
use wikimind::wiki::Wiki;
use wikimind_testserver::{Reply, TestServer};

use crate::common::settings_for;

/// A small wiki about coffee and tea: each note is its own topic, some link each other.
const NOTES: &[&str] = &[
    "# Espresso\n\nEspresso is brewed at nine bars of pressure. A shot of espresso uses about eighteen grams of finely ground coffee. See [[Crema]] and [[Burr Grinders]].",
    "# Crema\n\nCrema is the reddish foam that forms on top of an espresso shot. Fresh beans give more crema because they still hold carbon dioxide.",
    "# Burr Grinders\n\nA burr grinder crushes beans between two hardened burrs set a fixed distance apart. Burr grinders give an even particle size, which espresso needs.",
    "# Green Tea\n\nGreen tea leaves are steamed or pan-fired soon after picking. Green tea is best brewed with water at about eighty degrees.",
    "# Water Chemistry\n\nWater hardness changes how coffee tastes. Magnesium ions pull fruity flavours out of the grounds.",
];

struct Setup {
    server: TestServer,
    wiki: Wiki,
    settings: wikimind::config::Settings,
}

async fn setup() -> Setup {
    let server = TestServer::start();
    let wiki = Wiki::open_in_memory().expect("wiki");
    let settings = settings_for(&server.url(), None);
    let compiler = wiki.compiler(&settings).expect("compiler");
    for note in NOTES {
        let id = wiki.ingest_text(note, None).expect("ingest").sources[0].source_id;
        let report = compiler
            .compile_one(id, &|_| {}, &CancellationToken::new())
            .await
            .expect("compile");
        assert!(report.ok, "{report:?}");
    }
    Setup {
        server,
        wiki,
        settings,
    }
}

impl Setup {
    async fn ask(&self, question: &str, save: bool) -> AskReport {
        self.wiki
            .ask(
                &self.settings,
                question,
                AskOptions { save },
                &|_| {},
                &CancellationToken::new(),
            )
            .await
            .expect("ask")
    }

    fn ask_calls(&self) -> usize {
        self.server
            .chat_requests()
            .iter()
            .filter(|r| r.first_user_message().starts_with("Question: "))
            .count()
    }

    fn retrieved(&self, question: &str) -> Vec<String> {
        let r = self.wiki.retrieve(question).expect("retrieve");
        r.pages().map(|p| p.title.clone()).collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retrieval_reads_the_pages_a_question_is_about_first() {
    let s = setup().await;
    let cases = [
        ("How much pressure is espresso brewed at?", "Espresso"),
        ("Why do fresh beans make more foam on a shot?", "Crema"),
        (
            "Which grinders give an even particle size?",
            "Burr Grinders",
        ),
        (
            "What temperature should the water be for green tea?",
            "Green Tea",
        ),
        ("Do magnesium ions change flavour?", "Water Chemistry"),
        ("what is CREMA", "Crema"),
    ];
    for (question, first) in cases {
        let pages = s.retrieved(question);
        assert_eq!(
            pages.first().map(String::as_str),
            Some(first),
            "{question}: {pages:?}"
        );
        let unique: std::collections::HashSet<&String> = pages.iter().collect();
        assert_eq!(unique.len(), pages.len(), "{question}: no page twice");
    }
    // A page one link away from the best match is read too, after the matches.
    let pages = s.retrieved("How much pressure is espresso brewed at?");
    assert!(pages.contains(&"Crema".to_string()), "{pages:?}");
    // Stop words find nothing.
    assert!(s
        .retrieved("What is it and how does it do that?")
        .is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_cites_pages_and_its_quotes_are_found_there() {
    let s = setup().await;
    let streamed = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let events = {
        let streamed = std::sync::Arc::clone(&streamed);
        move |p: Progress| {
            if let Some(text) = p.text {
                streamed.lock().unwrap().push(text);
            }
        }
    };
    let report = s
        .wiki
        .ask(
            &s.settings,
            "How much pressure is espresso brewed at?",
            AskOptions::default(),
            &events,
            &CancellationToken::new(),
        )
        .await
        .expect("ask");
    assert!(report.ok() && report.covered, "{report:?}");
    assert_eq!(s.ask_calls(), 1);
    assert!(report.answer.contains("[[Espresso]]"), "{}", report.answer);
    let espresso = report
        .claims
        .iter()
        .find(|c| c.page == "Espresso")
        .expect("a claim citing Espresso");
    assert!(espresso.grounded);
    assert_eq!(espresso.confidence, Confidence::Sourced);
    assert_eq!(
        report.pages_read.first().map(String::as_str),
        Some("Espresso")
    );
    assert_eq!(report.saved, None);
    // The answer's text streamed in as it came.
    let streamed = streamed.lock().unwrap();
    assert!(!streamed.is_empty(), "the answer streams");
    assert!(report.answer.starts_with(streamed.last().unwrap().as_str()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quote_not_in_the_cited_page_is_shown_as_inferred() {
    let s = setup().await;
    s.server.push(Reply::text(
        json!({
            "answer": "Espresso uses [[Espresso|nine bars]]; crema is foam.",
            "claims": [
                // In the page Espresso.
                {"claim": "Nine bars", "confidence": "sourced", "quote": "brewed at nine bars of pressure", "page": "Espresso"},
                // Invented.
                {"claim": "Twelve bars", "confidence": "sourced", "quote": "brewed at twelve bars", "page": "Espresso"},
                // True of another page, not of the one cited.
                {"claim": "Foam", "confidence": "sourced", "quote": "reddish foam that forms on top", "page": "Green Tea"},
                // A page no one wrote.
                {"claim": "Ghost", "confidence": "sourced", "quote": "brewed at nine bars of pressure", "page": "Ristretto"},
                // Cited as a link, and a page not among those read.
                {"claim": "Magnesium", "confidence": "sourced", "quote": "Magnesium ions pull fruity flavours", "page": "[[water chemistry]]"}
            ],
            "follow_up_questions": ["What is crema?"]
        })
        .to_string(),
    ));
    let report = s
        .ask("How much pressure is espresso brewed at?", false)
        .await;
    let got: Vec<(&str, Confidence, bool)> = report
        .claims
        .iter()
        .map(|c| (c.page.as_str(), c.confidence, c.grounded))
        .collect();
    assert_eq!(
        got,
        [
            ("Espresso", Confidence::Sourced, true),
            ("Espresso", Confidence::Inferred, false),
            ("Green Tea", Confidence::Inferred, false),
            ("Ristretto", Confidence::Inferred, false),
            ("Water Chemistry", Confidence::Sourced, true),
        ]
    );
    assert!(!report.pages_read.contains(&"Water Chemistry".to_string()));
    assert!(report
        .warnings
        .iter()
        .any(|w| w.contains("3 sourced claim(s)")));
    assert_eq!(report.follow_up_questions, ["What is crema?"]);
    assert_eq!(report.ungrounded(), 3);
    let json = serde_json::to_value(&report).expect("json");
    for key in [
        "answer",
        "claims",
        "follow_up_questions",
        "pages_read",
        "covered",
        "saved",
    ] {
        assert!(json.get(key).is_some(), "{key} in {json}");
    }
    let claim_keys: Vec<&String> = json["claims"][0].as_object().unwrap().keys().collect();
    assert_eq!(
        claim_keys,
        ["claim", "confidence", "quote", "page", "grounded"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_about_nothing_in_the_wiki_makes_no_call() {
    let s = setup().await;
    let before = s.server.chat_requests().len();
    let report = s.ask("Explain quantum chromodynamics", true).await;
    assert!(!report.covered && report.ok());
    assert!(
        report.answer.contains("does not cover"),
        "{}",
        report.answer
    );
    assert!(report.answer.contains("quantum"));
    assert!(report.claims.is_empty() && report.pages_read.is_empty());
    assert_eq!(report.saved, None, "nothing to save");
    assert_eq!(s.server.chat_requests().len(), before, "no model call");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_cannot_be_made_valid_is_an_error_after_the_retries() {
    let s = setup().await;
    for _ in 0..4 {
        s.server.push(Reply::text("Espresso is great, trust me."));
    }
    let report = s
        .ask("How much pressure is espresso brewed at?", true)
        .await;
    assert!(!report.ok());
    assert!(report
        .error
        .as_deref()
        .unwrap_or("")
        .contains("could not be made valid"));
    assert_eq!(report.saved, None);
    assert!(s.ask_calls() >= 2, "retried");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_answer_is_a_page_apart_that_feeds_nothing() {
    let s = setup().await;
    s.server.push(Reply::text(
        json!({
            "answer": "About nine bars: see [[Espresso]].",
            "claims": [
                {"claim": "Nine bars", "confidence": "sourced", "quote": "brewed at nine bars of pressure", "page": "Espresso"},
                {"claim": "Twelve bars", "confidence": "sourced", "quote": "twelve bars", "page": "Espresso"}
            ]
        })
        .to_string(),
    ));
    let question = "How much pressure is espresso brewed at?";
    let report = s.ask(question, true).await;
    assert_eq!(report.saved.as_deref(), Some(question));
    let store = s.wiki.store_for_tests();
    let id = store
        .find_page(question)
        .expect("find")
        .expect("saved page");
    assert_eq!(Some(id), report.saved_page);
    let page = store.page(id).expect("read").expect("page");
    assert_eq!(page.kind, PageKind::Answer);
    assert_eq!(page.body, "About nine bars: see [[Espresso]].");
    assert_eq!(
        page.summary, "About nine bars: see Espresso.",
        "links read as text"
    );
    let cited: Vec<Option<&str>> = page
        .claims
        .iter()
        .map(|c| c.cited_page.as_deref())
        .collect();
    assert_eq!(cited, [Some("Espresso"), Some("Espresso")]);
    assert!(
        !page.claims[0].source_ids.is_empty(),
        "the source holding the quote"
    );
    assert!(
        page.flagged
            .as_deref()
            .unwrap_or("")
            .contains("1 of 2 claims"),
        "{:?}",
        page.flagged
    );
    assert!(page
        .links
        .iter()
        .any(|l| l.target == "Espresso" && l.page_id.is_some()));
    // Listed apart, by kind.
    let kinds: Vec<(String, PageKind)> = store
        .pages()
        .expect("pages")
        .into_iter()
        .map(|p| (p.title, p.kind))
        .collect();
    assert_eq!(
        kinds.iter().filter(|(_, k)| *k == PageKind::Answer).count(),
        1,
        "{kinds:?}"
    );
    // No question reads it, no prompt lists it, no topic is fed by it.
    assert!(!s.retrieved(question).contains(&question.to_string()));
    assert!(store
        .title_names()
        .expect("names")
        .names
        .iter()
        .all(|n| n.name != question));
    assert!(store.page_source_texts(id).expect("sources").is_empty());
    // The espresso topic keeps its own page, distinct from the answer.
    let espresso = store.find_page("espresso").expect("find").expect("topic");
    assert_ne!(espresso, id);
    // Asked and saved again: the same page, a new version.
    let again = s.ask(question, true).await;
    assert_eq!(again.saved_page, Some(id));
    assert_eq!(store.page_history(id).expect("history").len(), 2);
}

#[test]
fn an_upgraded_wiki_finds_pages_by_their_claims_and_other_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("wikimind.db");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/upgrade/v1-wiki.db"),
        &path,
    )
    .expect("copy the fixture");
    let store = Store::open(&path).expect("upgrade");
    let pages = store.pages().expect("pages");
    assert!(!pages.is_empty());
    for summary in &pages {
        let page = store.page(summary.id).expect("read").expect("page");
        // A word found only in a claim, else the title's first word, finds the page.
        let claim_word = page
            .claims
            .iter()
            .flat_map(|c| c.claim.claim.split(|c: char| !c.is_alphanumeric()))
            .find(|w| w.len() > 6 && !page.body.contains(w) && !page.title.contains(w));
        let word = claim_word.unwrap_or_else(|| page.title.split_whitespace().next().unwrap());
        let term = QueryTerm {
            word: word.to_lowercase(),
            prefix: false,
        };
        let found = store.match_pages(&[term], 100).expect("match");
        assert!(
            found.iter().any(|f| f.page_id == page.id),
            "{word:?} finds {:?}",
            page.title
        );
    }
}

/// Regression (hardening, round three): an answer saved with an ungrounded claim became the
/// evidence of a later answer citing it, shown grounded. Saved answers are never evidence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_answer_is_never_the_evidence_of_a_later_answer() {
    let s = setup().await;
    let invented = "espresso is brewed at twelve bars of steam";
    let question = "How much pressure is espresso brewed at?";
    s.server.push(Reply::text(
        json!({
            "answer": format!("Some say {invented}."),
            "claims": [
                {"claim": "Twelve bars", "confidence": "sourced", "quote": invented, "page": "Espresso"}
            ],
            "follow_up_questions": []
        })
        .to_string(),
    ));
    let saved = s.ask(question, true).await;
    assert_eq!(saved.saved.as_deref(), Some(question));
    assert!(
        !saved.claims[0].grounded,
        "the invented quote did not ground"
    );

    // A later answer cites the saved answer (whose text holds the invented words) by title.
    s.server.push(Reply::text(
        json!({
            "answer": "Twelve bars.",
            "claims": [
                {"claim": "Twelve bars", "confidence": "sourced", "quote": invented, "page": question}
            ],
            "follow_up_questions": []
        })
        .to_string(),
    ));
    let later = s.ask("Is espresso brewed at twelve bars?", false).await;
    assert_eq!(later.claims.len(), 1);
    assert_eq!(later.claims[0].confidence, Confidence::Inferred);
    assert!(
        !later.claims[0].grounded,
        "a saved answer vouched for a later answer: {:?}",
        later.claims[0]
    );
}
