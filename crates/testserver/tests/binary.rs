//! The `wikimind-testserver` binary as scripts use it: URL on the first line, replies from
//! a JSONL file, then the canned answer.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

/// Kills the server when the test ends, pass or fail.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A non-streamed Ollama chat over a raw socket; returns the response body.
fn ollama_chat(url: &str, user: &str) -> String {
    let addr = url.trim_start_matches("http://");
    let body = serde_json::json!({"model": "m", "stream": false,
        "messages": [{"role": "user", "content": user}]})
    .to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /api/chat HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (_, chunked) = response.split_once("\r\n\r\n").unwrap();
    // One HTTP chunk: "<hex size>\r\n<json>\r\n0\r\n\r\n".
    chunked.split("\r\n").nth(1).unwrap().to_string()
}

#[test]
fn the_binary_prints_its_url_and_serves_scripted_then_canned_answers() {
    let answers =
        std::env::temp_dir().join(format!("wikimind-testserver-{}.jsonl", std::process::id()));
    std::fs::write(
        &answers,
        "{\"text\": \"scripted\", \"finish\": \"length\"}\n\n",
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_wikimind-testserver"))
        .arg("--answers")
        .arg(&answers)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut server = Running(child);
    let mut url = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = url.trim();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let first: serde_json::Value = serde_json::from_str(&ollama_chat(url, "hi")).unwrap();
    assert_eq!(first["message"]["content"], "scripted");
    assert_eq!(first["done_reason"], "length");

    let second: serde_json::Value =
        serde_json::from_str(&ollama_chat(url, "# Cats\nCats sleep a lot.")).unwrap();
    let answer: serde_json::Value =
        serde_json::from_str(second["message"]["content"].as_str().unwrap()).unwrap();
    assert_eq!(answer["title"], "Cats");
    let _ = std::fs::remove_file(answers);
}

#[test]
fn a_bad_answers_file_is_reported_with_its_line() {
    let answers = std::env::temp_dir().join(format!(
        "wikimind-testserver-bad-{}.jsonl",
        std::process::id()
    ));
    std::fs::write(&answers, "{\"text\": \"ok\"}\n{\"txet\": 1}\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_wikimind-testserver"))
        .arg("--answers")
        .arg(&answers)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&answers);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(".jsonl:2: not a reply"), "{stderr}");
}

/// One raw HTTP/1.1 GET with extra header lines; returns the response body (one chunk).
fn get(url: &str, path: &str, headers: &str) -> String {
    let addr = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nhost: {addr}\r\n{headers}connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (_, chunked) = response.split_once("\r\n\r\n").unwrap();
    // One HTTP chunk: "<hex size>\r\n<body>\r\n0\r\n\r\n".
    chunked.split("\r\n").nth(1).unwrap().to_string()
}

#[test]
fn another_process_can_read_which_requests_came_with_which_headers() {
    let child = Command::new(env!("CARGO_BIN_EXE_wikimind-testserver"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut server = Running(child);
    let mut url = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = url.trim();

    get(url, "/v1/models", "authorization: Bearer sk-one\r\n");
    get(url, "/api/tags", "");
    let log: serde_json::Value =
        serde_json::from_str(&get(url, "/testserver/requests", "")).unwrap();
    let log = log.as_array().unwrap();
    assert_eq!(
        log.len(),
        2,
        "the log lists what came before it, not itself: {log:?}"
    );
    assert_eq!(log[0]["path"], "/v1/models");
    assert_eq!(log[0]["headers"]["authorization"], "Bearer sk-one");
    assert_eq!(log[1]["path"], "/api/tags");
    assert!(log[1]["headers"].get("authorization").is_none());
}
