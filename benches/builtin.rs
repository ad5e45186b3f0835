//! Benchmark of the built-in engine with a real model: constrained vs unconstrained decoding
//! of the real compile prompt, same prompts and seeds, interleaved so both see the same
//! machine load.
//!
//! Reports valid-JSON and schema-valid rates, answer tokens per second and their ratio,
//! time to first token, prompt speed, model load time and peak memory (VmHWM).
//!
//! ```sh
//! bash scripts/fetch-model.sh
//! cargo bench -p wikimind --features builtin --bench builtin
//! BENCH_RUNS=20 BENCH_MAX_TOKENS=768 BENCH_GBNF=1 cargo bench ...   # knobs
//! ```

use std::path::PathBuf;
use std::time::Duration;

use wikimind::compile::{build_prompt, PromptInput};
use wikimind::config::{model_dir, DEFAULT_BUILTIN_MODEL};
use wikimind::llm::{BuiltinProvider, ChatRequest, ConstraintEngine, FinishReason, Provider};
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

#[derive(Default)]
struct Tally {
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

async fn run(provider: &BuiltinProvider, req: &ChatRequest, schema: &Schema, tally: &mut Tally) {
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
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(resp.text.trim()) {
        tally.valid_json += 1;
        if schema.is_valid(&value) {
            tally.schema_valid += 1;
        }
    }
    if resp.finish == FinishReason::Length {
        tally.cut_off += 1;
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
    let runs = env_num("BENCH_RUNS", 20);
    let max_tokens = env_num("BENCH_MAX_TOKENS", 768);
    let with_gbnf = env("BENCH_GBNF").is_some();
    println!(
        "model {} ({} MB), {runs} prompts x seeds, answer budget {max_tokens} tokens, temperature 0.7",
        path.display(),
        std::fs::metadata(&path).map(|m| m.len() >> 20).unwrap_or(0)
    );

    let constrained = BuiltinProvider::new(&path).unwrap();
    let load = constrained.load().await.expect("the model loads");
    println!("model load time: {} ms", load.as_millis());
    let unconstrained = BuiltinProvider::new(&path)
        .unwrap()
        .with_constraint(ConstraintEngine::Off);
    let gbnf = BuiltinProvider::new(&path)
        .unwrap()
        .with_constraint(ConstraintEngine::Gbnf);
    let contract = wikimind::contract::compilation_schema();
    let schema = Schema::new(contract.clone()).unwrap();

    let mut on = Tally::default();
    let mut off = Tally::default();
    let mut gb = Tally::default();
    for i in 0..runs {
        let (name, text) = NOTES[i as usize % NOTES.len()];
        let prompt = build_prompt(&PromptInput {
            source_title: Some(name),
            source_text: text,
            known_titles: &[],
            known_concepts: &[],
        });
        let req = ChatRequest::new(DEFAULT_BUILTIN_MODEL, prompt.system, prompt.user)
            .with_schema(contract.clone())
            .with_temperature(0.7)
            .with_max_tokens(max_tokens);
        let seed = 1000 + u64::from(i);
        // Alternate which goes first so neither always runs on a warm cache.
        let c = constrained.clone_with_seed(seed);
        let u = unconstrained.clone_with_seed(seed);
        if i.is_multiple_of(2) {
            run(&c, &req, &schema, &mut on).await;
            run(&u, &req, &schema, &mut off).await;
        } else {
            run(&u, &req, &schema, &mut off).await;
            run(&c, &req, &schema, &mut on).await;
        }
        if with_gbnf {
            run(&gbnf.clone_with_seed(seed), &req, &schema, &mut gb).await;
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
    on.report("llguidance");
    if with_gbnf {
        gb.report("gbnf");
    }
    off.report("unconstrained");
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
