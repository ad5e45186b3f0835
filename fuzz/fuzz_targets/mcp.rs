//! One line of JSON-RPC into `wikimind mcp`'s server, after a client's handshake: the server
//! must answer or skip it, never panic, and still answer a `ping` sent after it (a line
//! that stops the server or makes it hang is a finding). Driven over an in-memory pipe,
//! as the CLI drives it over standard input and output; read-only, on an in-memory wiki.
#![no_main]

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use wikimind::config::{Overrides, Settings};
use wikimind::ingest::Reach;
use wikimind::llm::MemoryKeyStore;
use wikimind::wiki::Wiki;
use wikimind_mcp::WikiServer;

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
});

static WIKI: LazyLock<(Wiki, Settings)> = LazyLock::new(|| {
    let wiki = Wiki::open_in_memory().expect("wiki");
    wiki.ingest_text("# Espresso\n\nEspresso is brewed at nine bars of pressure.", None)
        .expect("ingest");
    let overrides = Overrides {
        data_dir: Some("unused-by-the-fuzzer".into()),
        // Nothing listens there: `ask` fails at once instead of waiting for a model.
        base_url: Some("http://127.0.0.1:9".into()),
        ..Overrides::default()
    };
    let settings = Settings::resolve(&overrides, &|_| None, None).expect("settings");
    (wiki, settings)
});

const HANDSHAKE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);
const PING: &str = "{\"jsonrpc\":\"2.0\",\"id\":\"after-the-line\",\"method\":\"ping\"}\n";

fuzz_target!(|data: &[u8]| {
    // One line: the transport reads lines, so a newline inside would make several.
    if data.contains(&b'\n') {
        return;
    }
    let (wiki, settings) = &*WIKI;
    RUNTIME.block_on(async {
        let server = WikiServer::new(
            wiki.clone(),
            settings.clone(),
            Arc::new(MemoryKeyStore::new()),
            false,
            Reach::public_only(),
        );
        let (client, server_end) = tokio::io::duplex(1 << 20);
        let running = tokio::spawn(async move {
            let (read, write) = tokio::io::split(server_end);
            if let Ok(service) = server.serve((read, write)).await {
                let _ = service.waiting().await;
            }
        });
        let (read, mut write) = tokio::io::split(client);
        write.write_all(HANDSHAKE.as_bytes()).await.expect("handshake");
        write.write_all(data).await.expect("line");
        write.write_all(b"\n").await.expect("newline");
        write.write_all(PING.as_bytes()).await.expect("ping");
        let mut lines = BufReader::new(read).lines();
        let answered = tokio::time::timeout(Duration::from_secs(20), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("\"after-the-line\"") {
                    return true;
                }
            }
            false
        })
        .await;
        assert!(
            matches!(answered, Ok(true)),
            "the server did not answer a ping after {:?}",
            String::from_utf8_lossy(data)
        );
        drop(write);
        running.abort();
    });
});
