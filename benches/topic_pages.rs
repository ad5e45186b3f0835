//! A wiki that grows by topic, measured (issue 13, "Evidence"): what 10 new sources cost
//! in a wiki of 1,000 sources over 300 topics, against the same 10 in a wiki of 100 sources
//! over 30 topics, and whether a compile prompt stays within its budget in a wiki of 5,000
//! pages while a link to a title beginning with `Z` still resolves.
//!
//! ```text
//! cargo bench -p wikimind --bench topic_pages              # both parts
//! cargo bench -p wikimind --bench topic_pages -- growth    # the 10 new sources only
//! cargo bench -p wikimind --bench topic_pages -- 5000      # the wiki of 5,000 pages only
//! cargo bench -p wikimind --bench topic_pages -- hubs      # a page fed by 30, 120, 480 notes
//! ```
//!
//! Every source is compiled, and every stale page written, through the stand-in model
//! server (`wikimind_testserver`) running in this process; the time the server spends making
//! its answers is counted apart and taken off, so "WikiMind" columns are the time spent in
//! WikiMind (the HTTP round trip to the local server included). The notes are generated:
//! each is headed by one of the topic names in a varying spelling (case, plural, hyphen),
//! holds three sentences of its own, names another topic in passing, marks one concept in
//! `**bold**` and links two other topics.
//!
//! The wiki of 5,000 pages is built through the store API (each note's answer is what the
//! stand-in server would give, judged and saved without the HTTP round trip: compiling 5,000
//! sources one call at a time would take most of the run); the one source that links to a
//! `Z` title is then compiled through the server.

mod topic_hubs;
mod wiki_lab;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use wiki_lab::{ms, Lab, Rng};
use wikimind::compile::{estimate_tokens, judge, Judgement};
use wikimind::config::CompileSettings;
use wikimind::render::wiki_links;
use wikimind::store::{fixtures, CompileRecord, NewLink, SaveArticle, SourceId, Store};
use wikimind::structured::Schema;
use wikimind::topic::{topic_key, KnownName, NameCache, NameIndex};
use wikimind_testserver::canned;

/// The context the stand-in model reports while the wikis grow: a common size today, kept
/// so the figures compare with earlier runs. Before pages had a bounded room (issue 22),
/// WikiMind's default of 8,192 tokens left the excerpts of a page fed by several new digests
/// so little room that the rewrite guard flagged a few pages of each wiki; since, this part
/// also runs at 8,192 tokens with no page flagged or failed.
const GROWTH_CONTEXT: u64 = 32_768;
/// The context of the model that compiles the source in the wiki of 5,000 pages:
/// WikiMind's default, the tightest budget.
const SERVER_CONTEXT: u64 = 8192;
/// How many rounds of 10 new sources each wiki takes (the median is reported).
const ROUNDS: usize = 3;

const SYLLABLES: &[&str] = &[
    "bar", "ken", "dol", "vim", "tor", "sal", "mer", "fin", "gor", "lun", "pel", "rad", "sor",
    "tam", "vel", "wen", "kal", "mon", "ner", "pol", "ril", "tev", "hul", "jan", "cor", "dar",
    "bel", "fen", "gal", "hom", "lir", "mar", "nol", "pan", "rin", "sul", "tir", "val", "win",
];
const VOWELS: &[&str] = &["a", "e", "i", "o", "u"];

/// A made-up name of two words, its first letter `first`: `Zoren Kalmon`.
fn made_up_name(rng: &mut Rng, first: char) -> String {
    let pick = |rng: &mut Rng, from: &[&'static str]| from[rng.below(from.len())];
    let a = format!("{first}{}{}", pick(rng, VOWELS), pick(rng, SYLLABLES));
    let b = format!("{}{}", pick(rng, SYLLABLES), pick(rng, SYLLABLES));
    let mut b = b.chars();
    let b: String = b
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + b.as_str())
        .unwrap_or_default();
    format!("{a} {b}")
}

/// `n` made-up names that are `n` topics (no two share a topic key, none is in `taken`),
/// their first letters running through the alphabet.
fn topic_names(n: usize, seed: u64, taken: &HashSet<String>) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut keys = taken.clone();
    let mut names = Vec::with_capacity(n);
    while names.len() < n {
        let first = char::from(b'A' + (names.len() % 26) as u8);
        let name = made_up_name(&mut rng, first);
        if keys.insert(topic_key(&name)) {
            names.push(name);
        }
    }
    names
}

/// One of five spellings of `name`: as it is, lowercase, plural, uppercase, hyphenated.
fn spelling(name: &str, variant: usize) -> String {
    match variant % 5 {
        0 => name.to_owned(),
        1 => name.to_lowercase(),
        2 => format!("{name}s"),
        3 => name.to_uppercase(),
        _ => name.replace(' ', "-"),
    }
}

/// What one note says: its topic (in a spelling), a topic it names in passing, its concept,
/// the two topics it links.
struct Note<'a> {
    n: usize,
    topic: &'a str,
    variant: usize,
    mentions: &'a str,
    concept: &'a str,
    links: [&'a str; 2],
}

impl Note<'_> {
    fn text(&self) -> String {
        let n = self.n;
        format!(
            "# {heading}\n\n\
             {topic} batch {n} was measured at {a} units over {b} days. \
             Record {n} of {lower} notes a drift of {c} percent next to {mentions}. \
             Field team {d} logged a **{concept}** of {e} for batch {n}.\n\n\
             It relates to [[{l1}]] and to [[{l2}]].\n",
            heading = spelling(self.topic, self.variant),
            topic = self.topic,
            lower = self.topic.to_lowercase(),
            a = n * 7 % 1000,
            b = n % 31 + 1,
            c = n * 13 % 97,
            d = n % 50,
            e = n * 3 % 89,
            mentions = self.mentions,
            concept = self.concept,
            l1 = spelling(self.links[0], n + 1),
            l2 = spelling(self.links[1], n + 2),
        )
    }
}

/// A wiki of `sources` notes over `topics` topics (and `topics / 5` concepts), every
/// source compiled and every stale page written.
struct Grown {
    lab: Lab,
    topics: Vec<String>,
    concepts: Vec<String>,
    build: Duration,
    build_model: Duration,
    build_calls: u64,
}

fn grow(sources: usize, topics: usize) -> Grown {
    let lab = Lab::new(GROWTH_CONTEXT);
    let topic_list = topic_names(topics, 7, &HashSet::new());
    let keys: HashSet<String> = topic_list.iter().map(|t| topic_key(t)).collect();
    let concepts = topic_names((topics / 5).max(1), 11, &keys);
    let mut rng = Rng::new(13);
    let mark = lab.model.mark();
    let started = Instant::now();
    for n in 0..sources {
        let topic = &topic_list[n % topics];
        let text = Note {
            n,
            topic,
            variant: n / topics,
            mentions: &topic_list[rng.below(topics)],
            concept: &concepts[rng.below(concepts.len())],
            links: [
                &topic_list[rng.below(topics)],
                &topic_list[rng.below(topics)],
            ],
        }
        .text();
        let id = lab.add(&text);
        lab.compile(id);
    }
    let pages = lab.write_stale_pages();
    assert_eq!(
        pages.failed + pages.flagged,
        0,
        "every page is written: {:#?}",
        &pages.reasons[..pages.reasons.len().min(5)]
    );
    Grown {
        build: started.elapsed(),
        build_model: lab.model.busy() - mark.busy,
        build_calls: lab.model.chats() - mark.chats,
        lab,
        topics: topic_list,
        concepts,
    }
}

/// What 10 new sources cost.
#[derive(Debug, Clone, Default)]
struct Ten {
    compile_calls: u64,
    page_calls: u64,
    /// Pages the new digests feed.
    pages_fed: usize,
    /// Pages they made stale (each written, or skipped with no call).
    pages_stale: usize,
    /// Chats the server answered (must equal the calls counted by the reports).
    chats: u64,
    wall: Duration,
    model: Duration,
    compile_wall: Duration,
    compile_model: Duration,
}

impl Ten {
    fn wikimind(&self) -> Duration {
        self.wall.saturating_sub(self.model)
    }

    fn compile_wikimind(&self) -> Duration {
        self.compile_wall.saturating_sub(self.compile_model)
    }

    fn pages_wikimind(&self) -> Duration {
        self.wikimind().saturating_sub(self.compile_wikimind())
    }
}

/// Adds, compiles and writes the pages of 10 new notes on topics `10 * round ..` of the
/// wiki's first 30 (so a small and a large wiki take the same notes on the same topics).
fn ten_more(grown: &Grown, round: usize) -> Ten {
    let lab = &grown.lab;
    let topic = |i: usize| grown.topics[i % 30].as_str();
    let texts: Vec<String> = (0..10)
        .map(|k| {
            let t = 10 * round + k;
            Note {
                n: 100_000 + t,
                topic: topic(t),
                variant: k,
                mentions: topic(t + 3),
                concept: &grown.concepts[k % 6],
                links: [topic(t + 1), topic(t + 7)],
            }
            .text()
        })
        .collect();
    let mut ten = Ten::default();
    let mark = lab.model.mark();
    let started = Instant::now();
    let ids: Vec<SourceId> = texts.iter().map(|t| lab.add(t)).collect();
    for &id in &ids {
        ten.compile_calls += u64::from(lab.compile(id).usage.calls);
    }
    ten.compile_wall = started.elapsed();
    ten.compile_model = lab.model.busy() - mark.busy;
    let pages = lab.write_stale_pages();
    ten.wall = started.elapsed();
    ten.model = lab.model.busy() - mark.busy;
    ten.chats = lab.model.chats() - mark.chats;
    ten.page_calls = pages.calls;
    ten.pages_stale = pages.pages.len();
    assert_eq!(
        pages.failed + pages.flagged,
        0,
        "every page is written: {:#?}",
        &pages.reasons[..pages.reasons.len().min(5)]
    );
    let mut fed = HashSet::new();
    for id in ids {
        for page in lab
            .store_for_tests()
            .source_pages(id)
            .expect("pages of a source")
        {
            fed.insert(page.id);
        }
    }
    ten.pages_fed = fed.len();
    ten
}

fn median_by(runs: &[Ten], key: impl Fn(&Ten) -> Duration) -> Duration {
    let mut v: Vec<Duration> = runs.iter().map(key).collect();
    v.sort();
    v[v.len() / 2]
}

/// What choosing the titles and concepts of one prompt costs in `store` (the fastest of
/// five tries of each part): the two store reads every prompt makes; building the two
/// indexes, which every prompt did before they were cached; the cache's answer when the
/// names are as they were; bringing the cached title index up to date when only use counts
/// changed, when a name is a new spelling of a known topic, and when a name is a new
/// topic; and asking the indexes about `text`.
struct NameCost {
    names: usize,
    read: Duration,
    build: Duration,
    cached: Duration,
    counts_changed: Duration,
    new_spelling: Duration,
    new_topic: Duration,
    ask: Duration,
}

impl NameCost {
    fn line(&self) -> String {
        format!(
            "{} names: store reads {:.2} ms; indexes built anew {:.2} ms; from the cache: \
             unchanged {:.3} ms, counts changed {:.2} ms, a new spelling {:.2} ms, a new topic \
             {:.2} ms; asking {:.3} ms",
            self.names,
            ms(self.read),
            ms(self.build),
            ms(self.cached),
            ms(self.counts_changed),
            ms(self.new_spelling),
            ms(self.new_topic),
            ms(self.ask)
        )
    }
}

fn name_cost(store: &Store, text: &str) -> NameCost {
    let fastest = |f: &mut dyn FnMut() -> Duration| (0..5).map(|_| f()).min().expect("tries");
    let titles = store.title_names().expect("title names").names;
    let concepts = store.concept_names().expect("concept names");
    let read = fastest(&mut || {
        let t = Instant::now();
        std::hint::black_box(store.title_names().expect("title names"));
        std::hint::black_box(store.concept_names().expect("concept names"));
        t.elapsed()
    });
    let build = fastest(&mut || {
        let (a, b) = (titles.clone(), concepts.clone());
        let t = Instant::now();
        std::hint::black_box(NameIndex::new(a));
        std::hint::black_box(NameIndex::new(b));
        t.elapsed()
    });
    let cache = NameCache::new();
    let (title_index, concept_index) = (
        cache.titles(titles.clone()),
        cache.concepts(concepts.clone()),
    );
    let cached = fastest(&mut || {
        let (a, b) = (titles.clone(), concepts.clone());
        let t = Instant::now();
        std::hint::black_box(cache.titles(a));
        std::hint::black_box(cache.concepts(b));
        t.elapsed()
    });
    // Title names changed three ways, each brought up to date from the cached index.
    let update = |names: Vec<KnownName>| {
        fastest(&mut || {
            let names = names.clone();
            let t = Instant::now();
            std::hint::black_box(title_index.updated(names));
            t.elapsed()
        })
    };
    let busier: Vec<KnownName> = titles
        .iter()
        .map(|n| KnownName {
            uses: n.uses + 1,
            ..n.clone()
        })
        .collect();
    let with = |name: String| {
        let mut names = titles.clone();
        names.push(KnownName::new(name, 0));
        names
    };
    let first = titles.first().map_or(String::new(), |n| n.name.clone());
    let counts_changed = update(busier);
    let new_spelling = update(with(first.to_uppercase()));
    let new_topic = update(with("Qwyx Brumflet".to_owned()));
    let ask = fastest(&mut || {
        let t = Instant::now();
        std::hint::black_box(title_index.relevant(text, 200));
        std::hint::black_box(concept_index.relevant(text, 200));
        t.elapsed()
    });
    NameCost {
        names: titles.len() + concepts.len(),
        read,
        build,
        cached,
        counts_changed,
        new_spelling,
        new_topic,
        ask,
    }
}

fn growth() {
    println!("## 10 new sources in a small and a large wiki\n");
    let mut rows = Vec::new();
    for (sources, topics) in [(100, 30), (1000, 300)] {
        let grown = grow(sources, topics);
        let counts = grown.lab.store_for_tests().page_counts().expect("counts");
        println!(
            "built {sources} sources over {topics} topics: {} pages, {} model calls, {:.1} s \
             ({:.1} s of it in WikiMind)",
            counts.pages,
            grown.build_calls,
            grown.build.as_secs_f64(),
            grown.build.saturating_sub(grown.build_model).as_secs_f64(),
        );
        let probe = Note {
            n: 1,
            topic: &grown.topics[0],
            variant: 0,
            mentions: &grown.topics[1],
            concept: &grown.concepts[0],
            links: [&grown.topics[2], &grown.topics[3]],
        }
        .text();
        let cost = name_cost(grown.lab.store_for_tests(), &probe);
        let runs: Vec<Ten> = (0..ROUNDS).map(|r| ten_more(&grown, r)).collect();
        rows.push((sources, topics, counts.pages, cost, runs));
    }
    println!();
    println!(
        "| wiki | pages | round | compile calls | page calls | pages fed | pages stale | wall ms | model ms | WikiMind ms | compile ms | pages ms | WikiMind ms / page touched |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (sources, topics, pages, _, runs) in &rows {
        for (round, t) in runs.iter().enumerate() {
            assert_eq!(
                t.chats,
                t.compile_calls + t.page_calls,
                "the reports count every call"
            );
            println!(
                "| {sources}/{topics} | {pages} | {round} | {} | {} | {} | {} | {:.0} | {:.1} | {:.0} | {:.0} | {:.0} | {:.1} |",
                t.compile_calls,
                t.page_calls,
                t.pages_fed,
                t.pages_stale,
                ms(t.wall),
                ms(t.model),
                ms(t.wikimind()),
                ms(t.compile_wikimind()),
                ms(t.pages_wikimind()),
                ms(t.wikimind()) / t.pages_stale.max(1) as f64,
            );
        }
    }
    let [(_, _, _, small_cost, small), (_, _, _, large_cost, large)] = &rows[..] else {
        unreachable!("two wikis")
    };
    let ratio = |key: &dyn Fn(&Ten) -> Duration| {
        median_by(large, key).as_secs_f64() / median_by(small, key).as_secs_f64()
    };
    let calls = |runs: &[Ten]| -> u64 {
        runs.iter()
            .map(|t| t.compile_calls + t.page_calls)
            .sum::<u64>()
    };
    let touched = |runs: &[Ten]| -> usize { runs.iter().map(|t| t.pages_stale).sum() };
    println!();
    println!(
        "large / small, over {ROUNDS} rounds of 10: model calls {} / {} = {:.2}; pages touched {} / {} = {:.2}",
        calls(large),
        calls(small),
        calls(large) as f64 / calls(small) as f64,
        touched(large),
        touched(small),
        touched(large) as f64 / touched(small) as f64,
    );
    println!(
        "large / small, median time in WikiMind: all {:.2}x, compiles {:.2}x, page writes {:.2}x",
        ratio(&|t: &Ten| t.wikimind()),
        ratio(&|t: &Ten| t.compile_wikimind()),
        ratio(&|t: &Ten| t.pages_wikimind()),
    );
    println!();
    println!("choosing the names of one prompt (every compile and page call makes one):");
    for (label, c) in [("small", small_cost), ("large", large_cost)] {
        println!("  {label}: {}", c.line());
    }
}

/// Saves `text` as a source and its digest as the stand-in server would answer, without a
/// call.
fn save_without_a_call(lab: &Lab, schema: &Schema, text: &str) {
    let id = lab.add(text);
    let answer = canned::compilation_answer(text);
    let Judgement::Accept(accepted) = judge(&answer, false, text, schema) else {
        panic!("the canned answer is accepted")
    };
    let mut links: Vec<NewLink> = wiki_links(&accepted.result.article_body)
        .into_iter()
        .map(|l| NewLink {
            target: l.target,
            context: l.context,
        })
        .collect();
    links.extend(
        accepted
            .result
            .backlink_suggestions
            .iter()
            .map(|s| NewLink {
                target: s.clone(),
                context: String::new(),
            }),
    );
    let record = CompileRecord {
        raw_answer: answer.clone(),
        ..fixtures::record("bench", "canned")
    };
    lab.store_for_tests()
        .save_article(&SaveArticle {
            claims: &accepted.claims,
            links: &links,
            record: &record,
            ..fixtures::digest(id, &accepted.result)
        })
        .expect("save");
}

/// The titles a compile prompt lists (its "Articles already in the wiki" list).
fn listed_titles(user: &str) -> Vec<String> {
    let Some(start) = user.find("(link to them by exact title):\n") else {
        return Vec::new();
    };
    user[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("- "))
        .map(|l| l[2..].to_owned())
        .collect()
}

fn five_thousand() {
    println!("\n## A wiki of 5,000 pages, then one source that links to a `Z` title\n");
    let lab = Lab::new(SERVER_CONTEXT);
    let names = topic_names(5000, 17, &HashSet::new());
    let schema = Schema::new(wikimind::contract::compilation_schema()).expect("schema");
    let mut rng = Rng::new(19);
    let started = Instant::now();
    for (n, name) in names.iter().enumerate() {
        let text = format!(
            "# {name}\n\n{name} is entry {n} of the gazetteer. It was first surveyed in year {}. \
             Its keepers file {} reports a season.\n\nIt borders [[{}]] and [[{}]].\n",
            1700 + n % 300,
            n % 40 + 1,
            names[rng.below(names.len())],
            names[rng.below(names.len())],
        );
        save_without_a_call(&lab, &schema, &text);
    }
    let counts = lab.store_for_tests().page_counts().expect("counts");
    println!(
        "built through the store API in {:.1} s: {} sources, {} pages ({} stale, not written: \
         no page call is made in this part)",
        started.elapsed().as_secs_f64(),
        counts.sources,
        counts.pages,
        counts.stale,
    );
    let z = names
        .iter()
        .rev()
        .find(|n| n.starts_with('Z'))
        .expect("a Z name");
    let passing: Vec<&String> = names.iter().step_by(977).take(4).collect();
    let text = format!(
        "# Northern survey\n\nThe northern survey of year 2024 crossed {}, {} and {}. \
         It ended at {z}, where the team camped for nine nights. \
         The last leg took four days.\n\nThe final camp was at [[{z}]].\n",
        passing[0], passing[1], passing[2],
    );
    let cost = name_cost(lab.store_for_tests(), &text);
    let id = lab.add(&text);
    let mark = lab.model.mark();
    let t = Instant::now();
    let report = lab.compile(id);
    let wall = t.elapsed();
    let model = lab.model.busy() - mark.busy;
    let request = lab
        .model
        .server()
        .chat_requests()
        .pop()
        .expect("the compile call");
    let system = request.body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let user = request.first_user_message();
    let listed = listed_titles(&user);
    let prompt_tokens = estimate_tokens(system.len() + user.len());
    let answer_tokens = u64::from(CompileSettings::default().max_tokens);
    let title = report
        .title
        .as_deref()
        .expect("a compiled source has a title");
    let page_id = lab
        .store_for_tests()
        .find_page(title)
        .expect("find")
        .expect("its page");
    let page = lab
        .store_for_tests()
        .page(page_id)
        .expect("read")
        .expect("page");
    let z_page = lab
        .store_for_tests()
        .find_page(z)
        .expect("find")
        .expect("the Z page");
    let link = page
        .links
        .iter()
        .find(|l| topic_key(&l.target) == topic_key(z));
    println!();
    println!("| measure | value |");
    println!("|---|---|");
    println!("| compile calls for the source | {} |", report.usage.calls);
    println!(
        "| read in parts | {} |",
        if report.large.is_some() { "yes" } else { "no" }
    );
    println!(
        "| prompt, estimated tokens (system + user) | {prompt_tokens} (+ {answer_tokens} for the answer; context {SERVER_CONTEXT}) |"
    );
    println!(
        "| titles listed in the prompt | {} of {} pages |",
        listed.len(),
        counts.pages
    );
    println!(
        "| `{z}` listed | {} |",
        if listed.iter().any(|t| t == z) {
            "yes"
        } else {
            "no"
        }
    );
    println!(
        "| titles named in the source listed | {} of {} |",
        passing
            .iter()
            .take(3)
            .chain(std::iter::once(&z))
            .filter(|n| listed.contains(n))
            .count(),
        4
    );
    println!(
        "| link `[[{z}]]` resolves to its page | {} |",
        match link.and_then(|l| l.page_id) {
            Some(p) if p == z_page => "yes".to_owned(),
            Some(p) => format!("no (to page {p})"),
            None => "no (wanted)".to_owned(),
        }
    );
    println!(
        "| compile wall time | {:.1} ms ({:.1} ms in WikiMind) |",
        ms(wall),
        ms(wall.saturating_sub(model))
    );
    println!("| choosing the names of one prompt | {} |", cost.line());
    assert!(
        report.large.is_none() && report.usage.calls == 1,
        "one call"
    );
    assert!(
        prompt_tokens + answer_tokens <= SERVER_CONTEXT,
        "within budget"
    );
    assert!(listed.iter().any(|t| t == z), "the Z title is listed");
    assert_eq!(
        link.and_then(|l| l.page_id),
        Some(z_page),
        "the Z link resolves"
    );
}

fn main() {
    let started = Instant::now();
    // `cargo bench` passes `--bench`; `growth`, `5000` or `hubs` runs that part alone.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let run = |part: &str| only.is_empty() || only.iter().any(|a| a == part);
    if run("growth") {
        growth();
    }
    if run("5000") {
        five_thousand();
    }
    if run("hubs") {
        topic_hubs::hubs();
    }
    println!("\ntotal run time {:.0} s", started.elapsed().as_secs_f64());
}
