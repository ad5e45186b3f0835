//! A compile spread over a pool of model servers (issue 37, "several model servers"):
//! sources compiled through stand-in servers that each take a fixed time per answer (a
//! model's generation time), by a pool of one server (the in-run baseline), by the same
//! server named without a pool, by a pool of two, and by a pool of two whose second server
//! fails every call after its first answers.
//!
//! ```text
//! cargo bench -p wikimind --bench pool            # 200 sources, 20 ms per answer
//! cargo bench -p wikimind --bench pool -- 400 50  # 400 sources, 50 ms per answer
//! ```
//!
//! Each line gives the wall time of the run, sources per second, the ratio to the one
//! server, each server's share (`compiled`, `failed`, `set_aside`, as `compile --json`
//! says them), and whether every source compiled exactly once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wikimind::compile_run::CompilePlan;
use wikimind::config::{Overrides, Settings};
use wikimind::llm::{CancellationToken, NoKeyStore};
use wikimind::queue::JobRunner;
use wikimind::wiki::Wiki;
use wikimind_testserver::{canned, Reply, TestServer};

/// A stand-in server that answers each compile after `latency`, and after `fails_after`
/// answers (when given) fails every call with HTTP 500.
fn server(latency: Duration, fails_after: Option<usize>) -> TestServer {
    let answered = Arc::new(AtomicUsize::new(0));
    TestServer::builder()
        .responder(move |request| {
            let n = answered.fetch_add(1, Ordering::SeqCst);
            if fails_after.is_some_and(|limit| n >= limit) {
                return Some(Reply::error(500, "the GPU fell over"));
            }
            let answer = canned::answer(&request.first_user_message());
            Some(Reply::text(answer).delay_headers(latency))
        })
        .start()
}

/// What a run did: its wall time, every report ok and one per source, each member's share.
struct Run {
    elapsed: Duration,
    compiled_once: bool,
    shares: String,
}

/// Compiles `sources` notes with the config file `config` (servers and retries).
fn run(config: &str, sources: usize) -> Run {
    let dir = tempfile::tempdir().expect("a temp dir");
    let overrides = Overrides {
        data_dir: Some(dir.path().to_path_buf()),
        ..Overrides::default()
    };
    let file = Some((std::path::Path::new("config.toml"), config));
    let settings = Settings::resolve(&overrides, &|_| None, file).expect("settings");
    let wiki = Wiki::open(dir.path()).expect("a wiki");
    for i in 0..sources {
        let topic = format!("Topic{i:05}");
        wiki.ingest_text(
            &format!("# {topic}\n\n{topic} is the subject of this note, and only {topic}.\n"),
            None,
        )
        .expect("ingest");
    }
    let runner = JobRunner::new(
        wiki.clone(),
        settings,
        Arc::new(NoKeyStore),
        Box::new(|_| {}),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let started = Instant::now();
    let outcome = rt.block_on(async {
        let plan = CompilePlan::prepare(&wiki, &runner, &[], false)
            .await
            .expect("plan");
        plan.run(&runner, &CancellationToken::new())
            .await
            .expect("run")
    });
    let elapsed = started.elapsed();
    let ids: std::collections::BTreeSet<_> = outcome.reports.iter().map(|r| r.source_id).collect();
    let compiled_once = outcome.reports.len() == sources
        && ids.len() == sources
        && outcome.reports.iter().all(|r| r.ok);
    let shares = outcome
        .pool
        .iter()
        .map(|m| {
            format!(
                "{} compiled {}, failed {}, set aside {}",
                m.base_url, m.compiled, m.failed, m.set_aside
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    Run {
        elapsed,
        compiled_once,
        shares,
    }
}

fn member(server: &TestServer) -> String {
    format!(
        "\n[[pool]]\nbase_url = \"{}\"\nmodel = \"test-model\"\n",
        server.url()
    )
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let sources: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(200);
    let latency = Duration::from_millis(args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20));
    let head = "[compile]\ntransport_retries = 0\n";
    let print = |name: &str, r: &Run, baseline: Option<Duration>| {
        let per_s = sources as f64 / r.elapsed.as_secs_f64();
        let ratio = baseline.map_or(String::new(), |b| {
            format!(
                " ({:.2}x the one server)",
                b.as_secs_f64() / r.elapsed.as_secs_f64()
            )
        });
        println!(
            "pool: {name}, {sources} sources, {} ms per answer: {:.0} ms, {per_s:.1} sources/s{ratio}; every source compiled once: {}",
            latency.as_millis(),
            r.elapsed.as_secs_f64() * 1000.0,
            if r.compiled_once { "yes" } else { "NO" }
        );
        if !r.shares.is_empty() {
            println!("pool:   shares: {}", r.shares);
        }
    };

    // The baseline: one server through the same path (its client made once).
    let one = server(latency, None);
    let alone = run(&format!("{head}{}", member(&one)), sources);
    print("one server (baseline)", &alone, None);

    // One server named without a pool: today's path makes a client for every job.
    let plain = server(latency, None);
    let plain = run(
        &format!(
            "[compile]\ntransport_retries = 0\nconcurrency = 1\n[provider]\nbase_url = \"{}\"\nmodel = \"test-model\"\n",
            plain.url()
        ),
        sources,
    );
    print("one server without a pool", &plain, Some(alone.elapsed));

    let (a, b) = (server(latency, None), server(latency, None));
    let two = run(&format!("{head}{}{}", member(&a), member(&b)), sources);
    print("a pool of two", &two, Some(alone.elapsed));

    let (a, b) = (server(latency, None), server(latency, Some(sources / 10)));
    let failing = run(&format!("{head}{}{}", member(&a), member(&b)), sources);
    print(
        &format!(
            "a pool of two, the second failing after {} answers",
            sources / 10
        ),
        &failing,
        Some(alone.elapsed),
    );
}
