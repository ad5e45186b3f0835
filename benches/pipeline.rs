//! Everything except the model, measured: ingest + prompt + parse + validate + ground +
//! store + link resolution for a 20 KB source, and compile throughput at concurrency 8
//! against a server that answers after 200 ms, each as a ratio to a baseline measured in
//! the same run. Run with `cargo bench --bench pipeline`.

use std::time::{Duration, Instant};
use wikimind::topic::NameIndex;

use serde_json::{json, Value};
use wikimind::compile::{build_prompt, judge, Judgement, PromptInput};
use wikimind::config::{Overrides, Settings};
use wikimind::ingest::{ingest_path, IngestOptions};
use wikimind::llm::CancellationToken;
use wikimind::queue::JobRunner;
use wikimind::render::wiki_links;
use wikimind::store::{fixtures, CompileRecord, NewLink, NewSource, SaveArticle, Store};
use wikimind::structured::Schema;
use wikimind::wiki::Wiki;
use wikimind_testserver::{canned, Reply, TestServer};

fn source_text(seed: usize) -> String {
    let mut s = format!("# Topic {seed}\n\n");
    let mut i = 0;
    while s.len() < 20 * 1024 {
        i += 1;
        s.push_str(&format!(
            "Paragraph {i} of topic {seed} explains that measurement {i} is {} units, and links to [[Topic {}]]. It adds context in a second sentence with \"quotes\" and unicode — café.\n\n",
            i * 3,
            (seed + i) % 40
        ));
    }
    s
}

fn answer_for(text: &str, seed: usize) -> String {
    let sentences: Vec<&str> = text
        .split(". ")
        .filter(|s| s.starts_with("It adds") || s.contains("explains"))
        .take(25)
        .collect();
    let claims: Vec<Value> = sentences
        .iter()
        .map(|s| {
            let q = s.trim().trim_start_matches(|c: char| !c.is_alphanumeric());
            json!({"claim": q, "confidence": "sourced", "quote": q})
        })
        .collect();
    let body: String = (0..40)
        .map(|i| {
            format!(
                "Section {i} discusses [[Topic {}]] and more words about the subject at hand.\n\n",
                (seed + i) % 40
            )
        })
        .collect();
    json!({
        "title": format!("Topic {seed}"),
        "summary": "A topic.",
        "key_claims": claims,
        "concepts": ["measurement", "units"],
        "backlink_suggestions": ["Topic 1"],
        "open_questions": ["Why?"],
        "article_body": body,
    })
    .to_string()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn per_source() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("bench.db")).unwrap();
    let schema = Schema::new(wikimind::contract::compilation_schema()).unwrap();
    let options = IngestOptions::default();
    let rounds = 60;
    let mut pipeline = Vec::with_capacity(rounds);
    let mut steps: Vec<[Duration; 5]> = Vec::with_capacity(rounds);
    let mut baseline = Vec::with_capacity(rounds);
    for seed in 0..rounds {
        let text = source_text(seed);
        let path = dir.path().join(format!("topic-{seed}.md"));
        std::fs::write(&path, &text).unwrap();
        let answer = answer_for(&text, seed);

        let t = Instant::now();
        let _: Value = serde_json::from_str(&answer).unwrap();
        baseline.push(t.elapsed());

        let t = Instant::now();
        let mut step = [Duration::ZERO; 5];
        let mut lap = Instant::now();
        let report = ingest_path(&path, &options).unwrap();
        let s = &report.sources[0];
        let id = store
            .ingest_source(&NewSource {
                origin: s.origin.clone(),
                kind: s.kind,
                title: s.title.clone(),
                text: s.text.clone(),
                tags: Vec::new(),
                aliases: Vec::new(),
                root: None,
            })
            .unwrap()
            .source_id();
        step[0] = lap.elapsed();
        lap = Instant::now();
        let titles = NameIndex::new(store.title_names().unwrap().names).relevant(&s.text, 200);
        let concepts = NameIndex::new(store.concept_names().unwrap()).relevant(&s.text, 200);
        let prompt = build_prompt(&PromptInput {
            source_title: s.title.as_deref(),
            source_text: &s.text,
            known_titles: &titles,
            known_concepts: &concepts,
        });
        std::hint::black_box(&prompt);
        step[1] = lap.elapsed();
        lap = Instant::now();
        let Judgement::Accept(accepted) = judge(&answer, false, &s.text, &schema) else {
            panic!("rejected")
        };
        let links: Vec<NewLink> = wiki_links(&accepted.result.article_body)
            .into_iter()
            .map(|l| NewLink {
                target: l.target,
                context: l.context,
            })
            .collect();
        step[2] = lap.elapsed();
        lap = Instant::now();
        let record = CompileRecord {
            raw_answer: answer.clone(),
            ..fixtures::record("bench", "none")
        };
        store
            .save_article(&SaveArticle {
                claims: &accepted.claims,
                links: &links,
                record: &record,
                ..fixtures::digest(id, &accepted.result)
            })
            .unwrap();
        step[3] = lap.elapsed();
        pipeline.push(t.elapsed());
        steps.push(step);
    }
    let names = [
        "ingest (read, extract, hash, store source)",
        "prompt (known titles, concepts)",
        "parse + validate + ground + links",
        "save article (one transaction, FTS, link resolution)",
    ];
    for (i, name) in names.iter().enumerate() {
        let m = median(steps[10..].iter().map(|s| s[i]).collect());
        println!("  {name}: {:.3} ms", m.as_secs_f64() * 1e3);
    }
    // The first rounds warm caches; measure the rest.
    let p = median(pipeline[10..].to_vec());
    let b = median(baseline[10..].to_vec());
    println!(
        "per 20 KB source, everything but the model: median {:.2} ms (goal < 5 ms); baseline serde_json parse of the answer {:.3} ms; ratio {:.1}x",
        p.as_secs_f64() * 1e3,
        b.as_secs_f64() * 1e3,
        p.as_secs_f64() / b.as_secs_f64()
    );
}

fn throughput(concurrency: usize, sources: usize) -> Duration {
    let server = TestServer::builder()
        .responder(|req| {
            Some(
                Reply::text(canned::compilation_answer(&req.first_user_message()))
                    .delay_headers(Duration::from_millis(200)),
            )
        })
        .start();
    let wiki = Wiki::open_in_memory().unwrap();
    let ids: Vec<_> = (0..sources)
        .map(|i| wiki.ingest_text(&format!("# Note {i}\n\nNote {i} says something worth compiling. It links to [[Note {}]].", (i + 1) % sources), None).unwrap().sources[0].source_id)
        .collect();
    let overrides = Overrides {
        base_url: Some(server.url()),
        data_dir: Some("unused".into()),
        concurrency: Some(concurrency),
        ..Overrides::default()
    };
    let settings = Settings::resolve(&overrides, &|_| None, None).unwrap();
    let runner = JobRunner::new(
        wiki.clone(),
        settings,
        std::sync::Arc::new(wikimind::llm::NoKeyStore),
        Box::new(|_| {}),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let t = Instant::now();
    let reports = rt
        .block_on(async {
            runner.enqueue(&ids, None)?;
            runner.run_until_idle(&CancellationToken::new()).await
        })
        .unwrap();
    let elapsed = t.elapsed();
    assert!(reports.sources.iter().all(|r| r.ok));
    assert_eq!(reports.sources.len(), sources);
    elapsed
}

fn main() {
    per_source();
    let sequential = throughput(1, 50);
    let concurrent = throughput(8, 50);
    println!(
        "50 compiles against a server answering after 200 ms: sequential {:.2} s, concurrency 8 {:.2} s; speed-up {:.1}x (goal >= 6x)",
        sequential.as_secs_f64(),
        concurrent.as_secs_f64(),
        sequential.as_secs_f64() / concurrent.as_secs_f64()
    );
}
