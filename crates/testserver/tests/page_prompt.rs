//! An unscripted page prompt, sent over real HTTP in both protocols, streamed and not, is
//! answered with the topic page a careful model would write.

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use wikimind_testserver::TestServer;

const OLD_PAGE: &str = r#"{"title": "Cold Brew", "summary": "Coffee steeped cold.", "key_claims": [{"claim": "Cold brew steeps for hours.", "confidence": "sourced", "quote": "steeps for twelve hours", "sources": [2]}], "concepts": ["Steeping"], "open_questions": [], "backlink_suggestions": [], "article_body": "Cold brew is coffee steeped in cold water."}"#;

const EXCERPT_7: &str = "Cold brew tastes less acidic than hot coffee. It keeps for a week.";
const EXCERPT_9: &str = "Ice dilutes.\nA coarse grind keeps cold brew from turning muddy.";

/// The page prompt as WikiMind's `page` template renders it, for two new digests.
fn page_prompt() -> String {
    format!(
        "Topic: Cold Brew\n\nArticles already in the wiki (link to them by exact title):\n- Espresso\n\nConcepts already in the wiki (reuse these names): Steeping\n\nThe page as last written:\n<<<PAGE\n{OLD_PAGE}\nPAGE>>>\n\nNew or changed digests:\n\
<<<DIGEST source 7: Acidity\n{}\nDIGEST>>>\n\
<<<DIGEST source 9: Grinding for cold brew\n{}\nDIGEST>>>\n\n\
Excerpts of their sources where they mention the topic:\n\
<<<EXCERPT source 7\n{EXCERPT_7}\nEXCERPT>>>\n\
<<<EXCERPT source 9\n{EXCERPT_9}\nEXCERPT>>>\n\n\
Other sources already written into the page:\n- source 2: Brewing — Ways to brew.\n\n\
Write the page about Cold Brew as one JSON object.",
        json!({"title": "Acidity", "summary": "Cold brew is less acidic.",
               "key_claims": [{"claim": "Less acid.", "confidence": "sourced", "quote": "less acidic"}],
               "concepts": ["Acidity"], "article_body": "Cold brew is gentler on the stomach."}),
        json!({"title": "Grinding for cold brew", "summary": "Use a coarse grind.",
               "key_claims": [], "concepts": ["steeping", "Grind Size"],
               "article_body": "Grind coarsely for cold brew."}),
    )
}

/// Posts JSON over a raw HTTP/1.1 connection; returns the body with its chunked transfer
/// encoding undone.
fn post(server: &TestServer, path: &str, body: &Value) -> String {
    let body = body.to_string();
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        server.addr(),
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, mut chunked) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let mut out = String::new();
    loop {
        let (size, rest) = chunked.split_once("\r\n").unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        chunked = &rest[size + 2..];
    }
}

/// The assistant's text from each way of asking for it.
fn answers(server: &TestServer, prompt: &str) -> Vec<(&'static str, String)> {
    let messages = json!([
        {"role": "system", "content": "You are WikiMind."},
        {"role": "user", "content": prompt},
    ]);
    let ask = |path, stream: bool| {
        post(
            server,
            path,
            &json!({"model": "test-model", "stream": stream, "messages": messages}),
        )
    };
    let ollama_streamed: String = ask("/api/chat", true)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter_map(|v| v["message"]["content"].as_str().map(str::to_string))
        .collect();
    let ollama: Value = serde_json::from_str(&ask("/api/chat", false)).unwrap();
    let openai_streamed: String = ask("/v1/chat/completions", true)
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter(|data| *data != "[DONE]")
        .map(|data| serde_json::from_str::<Value>(data).unwrap())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    let openai: Value = serde_json::from_str(&ask("/v1/chat/completions", false)).unwrap();
    vec![
        ("ollama streamed", ollama_streamed),
        (
            "ollama",
            ollama["message"]["content"].as_str().unwrap().to_string(),
        ),
        ("openai streamed", openai_streamed),
        (
            "openai",
            openai["choices"][0]["message"]["content"]
                .as_str()
                .unwrap()
                .to_string(),
        ),
    ]
}

#[test]
fn an_unscripted_page_prompt_gets_the_merged_page_over_every_route() {
    let server = TestServer::start();
    for (route, text) in answers(&server, &page_prompt()) {
        let page: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{route}: {e}: {text}"));
        assert_eq!(page["title"], "Cold Brew", "{route}");
        assert_eq!(page["summary"], "Coffee steeped cold.", "{route}");
        assert_eq!(
            page["key_claims"],
            json!([
                {"claim": "Cold brew steeps for hours.", "confidence": "sourced", "quote": "steeps for twelve hours"},
                {"claim": "Cold brew tastes less acidic than hot coffee.", "confidence": "sourced",
                 "quote": "Cold brew tastes less acidic than hot coffee."},
                {"claim": "A coarse grind keeps cold brew from turning muddy.", "confidence": "sourced",
                 "quote": "A coarse grind keeps cold brew from turning muddy."},
            ]),
            "{route}: the old claim, then a verbatim quote from each source's excerpt"
        );
        assert!(EXCERPT_7.contains(page["key_claims"][1]["quote"].as_str().unwrap()));
        assert!(EXCERPT_9.contains(page["key_claims"][2]["quote"].as_str().unwrap()));
        assert_eq!(
            page["article_body"],
            "Cold brew is coffee steeped in cold water.\n\n\
             Cold brew is gentler on the stomach.\n\nGrind coarsely for cold brew.",
            "{route}: the old body, then both digests' bodies"
        );
        assert_eq!(
            page["concepts"],
            json!(["Steeping", "Acidity", "Grind Size"]),
            "{route}"
        );
    }
}

#[test]
fn a_compile_prompt_still_gets_an_article() {
    let server = TestServer::start();
    let prompt = "Source title: s\nSource:\n<<<SOURCE\n# Ice\n\nTopic: Cold Brew\n<<<PAGE\n(no page yet)\nPAGE>>>\nIce keeps drinks cold for hours.\nSOURCE>>>\n\nWrite the article as one JSON object.";
    for (route, text) in answers(&server, prompt) {
        let article: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(article["title"], "Ice", "{route}");
        assert_eq!(
            article["key_claims"][0]["quote"], "Topic: Cold Brew",
            "{route}: quotes the source"
        );
    }
}
