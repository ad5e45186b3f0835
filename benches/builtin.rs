//! Benchmark of the built-in engine with a real model: constrained vs unconstrained decoding
//! of the real compile prompt, same prompts and seeds, interleaved so both see the same
//! machine load.
//!
//! Reports valid-JSON and schema-valid rates, answer tokens per second and their ratio,
//! time to first token, prompt speed, model load time and peak memory (VmHWM).
//!
//! A third provider holds the same requests to their sources as the compile does (quotes
//! are runs of words of the note, the title the note's own or its words, see
//! `wikimind::compile::grounds`): its speed is reported as a ratio to plain constrained
//! decoding, beside how many of its sourced quotes ground, how many claims are distinct and
//! how many titles are the note's own — for both. Then the grammar build time for a 20 KB
//! part and 200 offered titles.
//!
//! `-- examples` instead compiles the notes of `examples/` through the real compile
//! pipeline, once without and once with grounded decoding, once grounded with claims that
//! need not be sentences (`fragments`: the grammar before sentence claims), once grounded
//! with repeated items let through (`repeats kept`: arrays are not closed at an item said
//! again), and
//! once with a repetition penalty (`BENCH_PENALTY`, default 1.1), and prints the same
//! quality figures per pass; `BENCH_PASS` names the passes to run, comma-separated.
//!
//! ```sh
//! bash scripts/fetch-model.sh
//! cargo bench -p wikimind --features builtin --bench builtin
//! BENCH_RUNS=20 BENCH_MAX_TOKENS=768 BENCH_GBNF=1 cargo bench ...   # knobs
//! WIKIMIND_TEST_MODEL=gemma-3-270m.gguf cargo bench ...               # another model
//! cargo bench -p wikimind --features builtin --bench builtin -- examples
//! BENCH_NOTES=6 cargo bench -p wikimind --features builtin --bench builtin -- penalties
//! BENCH_CONFIGS="off,words 1.3" BENCH_MAX_TOKENS=1024 cargo bench ... -- penalties  # knobs
//! BENCH_SHOW_CUT=1 cargo bench ...   # print the end of every answer cut off at the budget
//! BENCH_NOTES_DIR=some/notes cargo bench ... -- penalties   # other notes than examples/
//! BENCH_RETRIES=2 cargo bench ... -- examples   # the compile's retries (default 0 here)
//! BENCH_LOG_CALLS=1 cargo bench ... -- examples  # each model call's tokens and lines
//! ```
//!
//! `-- penalties` asks for the digest of each note of `examples/` (the first `BENCH_NOTES`,
//! default all) with grounded decoding at the compile's temperature and answer budget, once
//! per repetition penalty (off; 1.1 and 1.3 on every token; 1.1 and 1.3 on words only, see
//! [`RepeatScope`]), interleaved note by note, and prints the quality figures of the raw
//! answers (before the judge drops repeated claims) and the answer speed of each.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use wikimind::compile::{build_prompt, Compiler, GroundingIndex, PromptInput, ProviderSlot};
use wikimind::config::{model_dir, CompileSettings, DEFAULT_BUILTIN_MODEL};
use wikimind::llm::{
    AnswerGrounds, BuiltinProvider, CancellationToken, ChatRequest, ConstraintEngine, FinishReason,
    GroundText, Provider, RepeatScope,
};
use wikimind::structured::Schema;

const NOTES: &[(&str, &str)] = &[
    (
        "espresso.md",
        include_str!("../tests/data/builtin/espresso.md"),
    ),
    (
        "honeybees.md",
        include_str!("../tests/data/builtin/honeybees.md"),
    ),
    ("tides.md", include_str!("../tests/data/builtin/tides.md")),
    (
        "sourdough.md",
        "# Sourdough\n\nSourdough bread rises with a starter: flour and water fermented by wild \
yeasts and lactic acid bacteria. The bacteria make the bread sour; the yeasts make the gas \
that lifts the dough. A starter is fed with fresh flour and water every day or kept cold and \
fed weekly. Long fermentation makes the crumb open and the crust dark.\n",
    ),
    (
        "git.md",
        "# Git branches\n\nA git branch is a movable pointer to a commit. Creating a branch is \
cheap because git stores only the pointer. Merging joins two histories with a merge commit; \
rebasing replays commits on top of another branch and rewrites their ids. Never rebase \
commits that others have already pulled.\n",
    ),
];

/// What a person notices in answers: sourced quotes that ground, claims that are not
/// repeats, titles that are the note's own.
#[derive(Default)]
struct Quality {
    answers: u32,
    claims: u32,
    sourced: u32,
    grounded: u32,
    distinct: u32,
    own_titles: u32,
    /// Claims of four words or more that end in a stop.
    sentences: u32,
    /// Claims that only say their quote again (a name repeated as its own quote).
    echoes: u32,
}

/// Whether `claim` reads as a sentence: four words or more, ending in a stop.
fn is_sentence(claim: &str) -> bool {
    let claim = claim.trim();
    claim.split_whitespace().count() >= 4 && claim.ends_with(['.', '!', '?'])
}

impl Quality {
    /// Counts one answer (`raw`, a compile answer) about `text` titled `title`.
    fn add(&mut self, raw: &str, text: &str, title: &str) {
        self.answers += 1;
        let Ok(value) = serde_json::from_str::<serde_json::Value>(raw.trim()) else {
            return;
        };
        let index = GroundingIndex::new(text);
        let mut seen = std::collections::HashSet::new();
        for claim in value["key_claims"].as_array().into_iter().flatten() {
            self.claims += 1;
            let said = claim["claim"].as_str().unwrap_or_default();
            if seen.insert(wikimind::compile::ground::normalise(said)) {
                self.distinct += 1;
            }
            if is_sentence(said) {
                self.sentences += 1;
            }
            let quote = claim["quote"].as_str().unwrap_or_default();
            if !quote.is_empty()
                && wikimind::compile::ground::normalise(quote)
                    .contains(&wikimind::compile::ground::normalise(said))
            {
                self.echoes += 1;
            }
            if claim["confidence"] == "sourced" {
                self.sourced += 1;
                if claim["quote"].as_str().is_some_and(|q| index.contains(q)) {
                    self.grounded += 1;
                }
            }
        }
        let own = value["title"].as_str().unwrap_or_default().trim();
        if own.eq_ignore_ascii_case(title.trim()) {
            self.own_titles += 1;
        }
    }

    fn report(&self, name: &str) {
        println!(
            "{name:<14} sourced claims that ground {}/{} claims ({} sourced)  distinct claims {}/{}  own titles {}/{}",
            self.grounded,
            self.claims,
            self.sourced,
            self.distinct,
            self.claims,
            self.own_titles,
            self.answers
        );
        println!(
            "{name:<14} claims per note {:.2}  sentence claims {}/{}  claims that only repeat their quote {}/{}",
            f64::from(self.claims) / f64::from(self.answers.max(1)),
            self.sentences,
            self.claims,
            self.echoes,
            self.claims
        );
    }
}

/// The note's title as ingestion reads it: its first `# ` heading, else the file's stem.
fn note_title(name: &str, text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
        .unwrap_or_else(|| name.trim_end_matches(".md").to_string())
}

#[derive(Default)]
struct Tally {
    quality: Quality,
    runs: u32,
    valid_json: u32,
    schema_valid: u32,
    cut_off: u32,
    answer_tokens: u64,
    answer_time: Duration,
    prompt_tokens: u64,
    prompt_time: Duration,
    resampled: u64,
    ttft: Vec<Duration>,
}

impl Tally {
    fn tokens_per_second(&self) -> f64 {
        self.answer_tokens as f64 / self.answer_time.as_secs_f64().max(1e-9)
    }

    fn report(&self, name: &str) {
        let mut ttft = self.ttft.clone();
        ttft.sort();
        let median = ttft.get(ttft.len() / 2).copied().unwrap_or_default();
        println!(
            "{name:<14} valid JSON {:>2}/{} ({:>5.1}%)  schema-valid {:>2}/{} ({:>5.1}%)  cut off {:>2}  \
answer {:>6.1} tok/s ({} tokens)  prompt {:>6.1} tok/s  TTFT median {:>5} ms  resampled steps {}",
            self.valid_json,
            self.runs,
            100.0 * f64::from(self.valid_json) / f64::from(self.runs.max(1)),
            self.schema_valid,
            self.runs,
            100.0 * f64::from(self.schema_valid) / f64::from(self.runs.max(1)),
            self.cut_off,
            self.tokens_per_second(),
            self.answer_tokens,
            self.prompt_tokens as f64 / self.prompt_time.as_secs_f64().max(1e-9),
            median.as_millis(),
            self.resampled,
        );
    }
}

fn vm_hwm_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn env_num(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn run(
    provider: &BuiltinProvider,
    req: &ChatRequest,
    schema: &Schema,
    tally: &mut Tally,
    note: (&str, &str),
) {
    let resp = match provider.chat(req, &|_| {}).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("a request failed: {e}");
            tally.runs += 1;
            return;
        }
    };
    let stats = provider.last_stats().expect("stats of the last request");
    tally.runs += 1;
    tally
        .quality
        .add(&resp.text, note.1, &note_title(note.0, note.1));
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(resp.text.trim()) {
        tally.valid_json += 1;
        if schema.is_valid(&value) {
            tally.schema_valid += 1;
        }
    }
    if resp.finish == FinishReason::Length {
        tally.cut_off += 1;
        if std::env::var_os("BENCH_SHOW_CUT").is_some() {
            // What a runaway answer looks like where it was cut: its last 600 characters.
            let tail: String = {
                let chars: Vec<char> = resp.text.chars().collect();
                chars[chars.len().saturating_sub(600)..].iter().collect()
            };
            eprintln!(
                "cut off at {} tokens ({} characters): …{tail}",
                stats.answer_tokens,
                resp.text.chars().count()
            );
        }
    }
    tally.answer_tokens += stats.answer_tokens;
    tally.answer_time += stats.answer_time;
    tally.prompt_tokens += stats.prompt_tokens;
    tally.prompt_time += stats.prompt_time;
    tally.resampled += stats.resampled;
    if let Some(t) = resp.time_to_first_token {
        tally.ttft.push(t);
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let path: Option<PathBuf> = env("WIKIMIND_TEST_MODEL")
        .map(PathBuf::from)
        .or_else(|| model_dir(&env).map(|d| d.join(DEFAULT_BUILTIN_MODEL)));
    let Some(path) = path.filter(|p| p.is_file()) else {
        println!("SKIPPED: no model file — run `bash scripts/fetch-model.sh` first");
        return;
    };
    if std::env::args().any(|a| a == "examples") {
        return examples(&path).await;
    }
    if std::env::args().any(|a| a == "penalties") {
        return penalties(&path).await;
    }
    let runs = env_num("BENCH_RUNS", 20);
    let max_tokens = env_num("BENCH_MAX_TOKENS", 768);
    let with_gbnf = env("BENCH_GBNF").is_some();
    println!(
        "model {} ({} MB), {runs} prompts x seeds, answer budget {max_tokens} tokens, temperature 0.7",
        path.display(),
        std::fs::metadata(&path).map(|m| m.len() >> 20).unwrap_or(0)
    );

    // The schema alone, as before grounded decoding (the requests carry grounds).
    let constrained = BuiltinProvider::new(&path).unwrap().with_grounding(false);
    let load = constrained.load().await.expect("the model loads");
    println!("model load time: {} ms", load.as_millis());
    let unconstrained = BuiltinProvider::new(&path)
        .unwrap()
        .with_constraint(ConstraintEngine::Off);
    let grounded = BuiltinProvider::new(&path).unwrap();
    let plain = BuiltinProvider::new(&path).unwrap().with_grounding(false);
    let gbnf = BuiltinProvider::new(&path)
        .unwrap()
        .with_constraint(ConstraintEngine::Gbnf);
    let contract = wikimind::contract::compilation_schema();
    let schema = Schema::new(contract.clone()).unwrap();

    let mut on = Tally::default();
    let mut off = Tally::default();
    let mut gb = Tally::default();
    let mut held = Tally::default();
    let mut free = Tally::default();
    for i in 0..runs {
        let (name, text) = NOTES[i as usize % NOTES.len()];
        let note = (name, text);
        let prompt = build_prompt(&PromptInput {
            source_title: Some(name),
            source_text: text,
            known_titles: &[],
            known_concepts: &[],
        });
        let req = ChatRequest::new(DEFAULT_BUILTIN_MODEL, prompt.system, prompt.user)
            .with_schema(contract.clone())
            .with_temperature(0.7)
            .with_max_tokens(max_tokens)
            .with_grounds(AnswerGrounds {
                texts: vec![GroundText::new(text)],
                names: Vec::new(),
                title: Some(note_title(name, text)),
            });
        let seed = 1000 + u64::from(i);
        // Alternate which goes first so neither always runs on a warm cache.
        let c = constrained.clone_with_seed(seed);
        let u = unconstrained.clone_with_seed(seed);
        let (g, p) = (grounded.clone_with_seed(seed), plain.clone_with_seed(seed));
        if i.is_multiple_of(2) {
            run(&c, &req, &schema, &mut on, note).await;
            run(&u, &req, &schema, &mut off, note).await;
            run(&g, &req, &schema, &mut held, note).await;
            run(&p, &req, &schema, &mut free, note).await;
        } else {
            run(&p, &req, &schema, &mut free, note).await;
            run(&g, &req, &schema, &mut held, note).await;
            run(&u, &req, &schema, &mut off, note).await;
            run(&c, &req, &schema, &mut on, note).await;
        }
        if with_gbnf {
            run(&gbnf.clone_with_seed(seed), &req, &schema, &mut gb, note).await;
        }
        eprintln!(
            "run {}/{runs}: constrained {}/{} schema-valid, unconstrained {}/{}",
            i + 1,
            on.schema_valid,
            on.runs,
            off.schema_valid,
            off.runs
        );
    }
    println!();
    held.report("grounded");
    free.report("schema only");
    if with_gbnf {
        gb.report("gbnf");
    }
    on.report("llguidance");
    off.report("unconstrained");
    let r = held.tokens_per_second() / free.tokens_per_second().max(1e-9);
    println!(
        "tokens/s grounded / schema only = {r:.3} (overhead {:.1}%)",
        (1.0 - r) * 100.0
    );
    println!();
    held.quality.report("grounded");
    free.quality.report("schema only");
    grammar_build_time(&path).await;
    let ratio = on.tokens_per_second() / off.tokens_per_second().max(1e-9);
    println!(
        "tokens/s constrained / unconstrained = {ratio:.3} (overhead {:.1}%)",
        (1.0 - ratio) * 100.0
    );
    if with_gbnf {
        let r = gb.tokens_per_second() / off.tokens_per_second().max(1e-9);
        println!(
            "tokens/s gbnf / unconstrained = {r:.3} (overhead {:.1}%)",
            (1.0 - r) * 100.0
        );
    }
    if let Some(kb) = vm_hwm_kb() {
        println!("peak memory (VmHWM): {} MB", kb / 1024);
    }
}

/// The time to build the grammar of a part call over 20 KB of text with 200 offered titles
/// (median of 5; the prompt is short, the answer one token).
async fn grammar_build_time(path: &Path) {
    let provider = BuiltinProvider::new(path).unwrap();
    let sentence =
        "The burr grinder's \"flat\" burrs crush beans evenly; café\u{a0}crème at 93 °C.\n";
    let text = sentence.repeat(20 * 1024 / sentence.len() + 1);
    let titles: Vec<String> = (0..200).map(|i| format!("Topic number {i}")).collect();
    let req = ChatRequest::new(DEFAULT_BUILTIN_MODEL, "Answer with JSON.", "Notes.")
        .with_schema(wikimind::contract::compilation_schema())
        .with_max_tokens(1)
        .with_grounds(AnswerGrounds {
            texts: vec![GroundText::new(text.clone())],
            names: titles,
            title: Some("Grinders".into()),
        });
    let mut times = Vec::new();
    for _ in 0..5 {
        provider
            .chat(&req, &|_| {})
            .await
            .expect("a one-token answer");
        let stats = provider.last_stats().unwrap();
        assert!(stats.grounded, "the 20 KB grammar was built");
        times.push(stats.grammar_time);
    }
    times.sort();
    println!(
        "grammar build, {} KB of text and 200 titles: median {:.1} ms (min {:.1}, max {:.1})",
        text.len() / 1024,
        times[2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times[4].as_secs_f64() * 1e3
    );
}

/// The built-in provider, printing each call's figures to stderr (`-- examples` with
/// `BENCH_LOG_CALLS`): a line answer's lines and distinct lines, and where an answer cut off
/// at the budget ends.
struct LoggedCalls(Arc<BuiltinProvider>);

#[async_trait::async_trait]
impl Provider for LoggedCalls {
    async fn chat(
        &self,
        req: &ChatRequest,
        events: wikimind::llm::EventCallback<'_>,
    ) -> wikimind::llm::Result<wikimind::llm::ChatResponse> {
        let resp = self.0.chat(req, events).await?;
        let lines: Vec<&str> = resp.text.lines().collect();
        let distinct: std::collections::HashSet<&str> = lines.iter().copied().collect();
        let cut = resp.finish == FinishReason::Length;
        eprintln!(
            "  call ({}): {} prompt tokens, {} answer tokens of {}{}{}",
            if req.line_schema.is_some() {
                "lines"
            } else {
                "json"
            },
            resp.prompt_tokens.unwrap_or(0),
            resp.completion_tokens.unwrap_or(0),
            req.max_tokens.unwrap_or(0),
            if req.line_schema.is_some() {
                format!(", {} lines, {} distinct", lines.len(), distinct.len())
            } else {
                let closed = self.0.last_stats().map_or(0, |s| s.closed_repeats);
                format!(", {closed} loops closed")
            },
            if cut { ", cut off at the budget" } else { "" },
        );
        if std::env::var_os("BENCH_SHOW_ANSWERS").is_some() {
            eprintln!("    {}", resp.text);
        }
        if cut && std::env::var_os("BENCH_SHOW_CUT").is_some() {
            let chars: Vec<char> = resp.text.chars().collect();
            let tail: String = chars[chars.len().saturating_sub(600)..].iter().collect();
            eprintln!("    …{tail}");
        }
        Ok(resp)
    }

    async fn list_models(&self) -> wikimind::llm::Result<Vec<wikimind::llm::ModelInfo>> {
        self.0.list_models().await
    }

    async fn context_length(&self, model: &str) -> wikimind::llm::Result<Option<u64>> {
        self.0.context_length(model).await
    }

    fn kind(&self) -> wikimind::llm::ProviderKind {
        self.0.kind()
    }

    fn base_url(&self) -> &str {
        self.0.base_url()
    }
}

/// The notes `-- examples` and `-- penalties` compile: `examples/`, or the folder
/// `BENCH_NOTES_DIR` names (longer notes, say).
fn notes_dir() -> PathBuf {
    std::env::var_os("BENCH_NOTES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
}

/// Compiles `examples/` through the compile pipeline without and with grounded decoding
/// and prints what a person would notice of each.
async fn examples(path: &Path) {
    let penalty: f32 = std::env::var("BENCH_PENALTY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.1);
    let passes: Vec<(String, BuiltinProvider)> = vec![
        (
            "schema only".into(),
            BuiltinProvider::new(path)
                .unwrap()
                .with_grounding(false)
                .with_repeat_penalty(1.0),
        ),
        (
            "grounded".into(),
            BuiltinProvider::new(path).unwrap().with_repeat_penalty(1.0),
        ),
        (
            "fragments".into(),
            BuiltinProvider::new(path)
                .unwrap()
                .with_repeat_penalty(1.0)
                .with_sentence_claims(false),
        ),
        (
            "repeats kept".into(),
            BuiltinProvider::new(path)
                .unwrap()
                .with_repeat_penalty(1.0)
                .with_distinct_items(false),
        ),
        (
            format!("grounded+rp{penalty}"),
            BuiltinProvider::new(path)
                .unwrap()
                .with_repeat_penalty(penalty),
        ),
    ];
    let only: Option<String> = std::env::var("BENCH_PASS").ok();
    let examples_dir = notes_dir();
    for (name, provider) in passes {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|o| o.trim() == name))
        {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let wiki = wikimind::wiki::Wiki::open(dir.path()).unwrap();
        let summary = wiki
            .ingest_path(&examples_dir, &Default::default())
            .unwrap();
        let provider = Arc::new(provider.with_seed(42));
        let compiler = Compiler::new(
            Arc::clone(wiki.store_for_tests()),
            vec![ProviderSlot {
                provider: if std::env::var_os("BENCH_LOG_CALLS").is_some() {
                    Arc::new(LoggedCalls(provider.clone()))
                } else {
                    provider.clone()
                },
                model: DEFAULT_BUILTIN_MODEL.into(),
            }],
            CompileSettings {
                retries: env_num("BENCH_RETRIES", 0),
                ..CompileSettings::default()
            },
        );
        let mut quality = Quality::default();
        let mut tokens = 0u64;
        let mut answer_time = Duration::ZERO;
        for s in &summary.sources {
            let report = compiler
                .compile_one(s.source_id, &|_| {}, &CancellationToken::new())
                .await
                .unwrap();
            let source = wikimind::compile::readable_source(
                wiki.store_for_tests().source(s.source_id).unwrap().unwrap(),
            );
            let log = wiki.store_for_tests().compilations(s.source_id).unwrap();
            let raw = log
                .last()
                .map(|c| c.record.raw_answer.clone())
                .unwrap_or_default();
            let title = source.title.clone().unwrap_or_default();
            quality.add(
                &raw,
                wikimind::compile::grounds::quotable_text(&source),
                &title,
            );
            if let Some(stats) = provider.last_stats() {
                tokens += stats.answer_tokens;
                answer_time += stats.answer_time;
            }
            eprintln!(
                "{name}: {title:?} -> {:?} ({} answer tokens{})",
                report.title,
                report.usage.tokens_out,
                if report.truncated {
                    ", cut off at the budget"
                } else {
                    ""
                }
            );
            for a in report.attempts.iter().filter(|_| report.attempts.len() > 1) {
                eprintln!(
                    "  attempt {}: {:?}, {} answer tokens{}{}",
                    a.attempt,
                    a.class,
                    a.tokens_out.unwrap_or(0),
                    if a.truncated { ", cut off" } else { "" },
                    a.problem
                        .as_deref()
                        .map(|p| format!(" ({p})"))
                        .unwrap_or_default()
                );
            }
            if report.truncated && std::env::var_os("BENCH_SHOW_CUT").is_some() {
                let chars: Vec<char> = raw.chars().collect();
                let tail: String = chars[chars.len().saturating_sub(600)..].iter().collect();
                eprintln!("  ({} characters) …{tail}", chars.len());
            }
        }
        quality.report(&name);
        println!(
            "{name:<14} answer speed {:.1} tok/s over {tokens} tokens",
            tokens as f64 / answer_time.as_secs_f64().max(1e-9)
        );
    }
}

/// Asks for the digest of each note of `examples/` once per repetition penalty, interleaved
/// note by note, and prints what a person would notice of each (see the module
/// documentation).
async fn penalties(path: &Path) {
    let mut settings = CompileSettings::default();
    settings.max_tokens = env_num("BENCH_MAX_TOKENS", settings.max_tokens);
    let only = std::env::var("BENCH_CONFIGS").unwrap_or_default();
    let configs: Vec<(String, f32, RepeatScope)> = [
        ("off", 1.0, RepeatScope::All),
        ("all 1.1", 1.1, RepeatScope::All),
        ("all 1.3", 1.3, RepeatScope::All),
        ("words 1.1", 1.1, RepeatScope::Words),
        ("words 1.3", 1.3, RepeatScope::Words),
    ]
    .into_iter()
    .filter(|(name, _, _)| only.is_empty() || only.split(',').any(|o| o.trim() == *name))
    .map(|(name, penalty, scope)| (name.to_owned(), penalty, scope))
    .collect();
    let providers: Vec<BuiltinProvider> = configs
        .iter()
        .map(|(_, penalty, scope)| {
            BuiltinProvider::new(path)
                .unwrap()
                .with_seed(42)
                .with_repeat_penalty(*penalty)
                .with_repeat_scope(*scope)
        })
        .collect();
    let load = providers[0].load().await.expect("the model loads");
    println!(
        "model {} loaded in {} ms; temperature {}, answer budget {} tokens",
        path.display(),
        load.as_millis(),
        settings.temperature,
        settings.max_tokens
    );
    let dir = tempfile::tempdir().unwrap();
    let wiki = wikimind::wiki::Wiki::open(dir.path()).unwrap();
    let examples_dir = notes_dir();
    let summary = wiki
        .ingest_path(&examples_dir, &Default::default())
        .unwrap();
    let limit = env_num("BENCH_NOTES", summary.sources.len() as u32) as usize;
    let contract = wikimind::contract::compilation_schema();
    let schema = Schema::new(contract.clone()).unwrap();
    let mut tallies: Vec<Tally> = configs.iter().map(|_| Tally::default()).collect();
    for (n, s) in summary.sources.iter().take(limit).enumerate() {
        let source = wikimind::compile::readable_source(
            wiki.store_for_tests().source(s.source_id).unwrap().unwrap(),
        );
        let text = wikimind::compile::grounds::quotable_text(&source).to_owned();
        let title = source.title.clone().unwrap_or_default();
        let prompt = build_prompt(&PromptInput {
            source_title: source.title.as_deref(),
            source_text: &text,
            known_titles: &[],
            known_concepts: &[],
        });
        let req = ChatRequest::new(DEFAULT_BUILTIN_MODEL, prompt.system, prompt.user)
            .with_schema(contract.clone())
            .with_temperature(settings.temperature)
            .with_max_tokens(settings.max_tokens)
            .with_grounds(wikimind::compile::grounds::source_grounds(
                &source,
                &[],
                &[],
            ));
        // Rotate which goes first so none always runs on a warm cache.
        for k in 0..configs.len() {
            let i = (k + n) % configs.len();
            let before = tallies[i].quality.distinct;
            let claims = tallies[i].quality.claims;
            let tokens = tallies[i].answer_tokens;
            let cut = tallies[i].cut_off;
            run(
                &providers[i],
                &req,
                &schema,
                &mut tallies[i],
                (&title, &text),
            )
            .await;
            eprintln!(
                "{title:?} {:<10} distinct {}/{}, {} answer tokens{}",
                configs[i].0,
                tallies[i].quality.distinct - before,
                tallies[i].quality.claims - claims,
                tallies[i].answer_tokens - tokens,
                if tallies[i].cut_off > cut {
                    ", cut off at the budget"
                } else {
                    ""
                }
            );
        }
    }
    println!();
    for ((name, _, _), tally) in configs.iter().zip(&tallies) {
        tally.quality.report(name);
        tally.report(name);
    }
}
