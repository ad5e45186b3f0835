//! What [`Store::seed_bulk`](crate::Store::seed_bulk) draws before it writes: the words,
//! the wiki's names (titles, aliases, wanted names), and each page's text, digest and page
//! content, all from one seed (see the parent module for what the wiki looks like).

use std::collections::HashSet;

use wikimind_contract::{CheckedClaim, Confidence};

use super::page_key;

/// What [`Store::seed_bulk`](crate::Store::seed_bulk) wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Seeded {
    /// Topic pages (one per source).
    pub pages: u64,
    /// Links of pages.
    pub links: u64,
    /// Of them, links to a name no page answers to.
    pub wanted_links: u64,
    /// Of them, links to a page by an alias.
    pub alias_links: u64,
    /// Aliases declared by notes.
    pub aliases: u64,
    /// Stubs: pages of one sentence and no claims.
    pub stubs: u64,
}

/// A tiny deterministic generator (xorshift64).
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// An index in `0..n` skewed toward 0 (about Zipf with exponent 1).
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

/// Real words placed among the common ones (rank 2, 9, 16, …), so a bench can type them.
const REAL_WORDS: &[&str] = &[
    "espresso",
    "crema",
    "grinder",
    "burr",
    "tamper",
    "portafilter",
    "roast",
    "arabica",
    "robusta",
    "extraction",
    "pressure",
    "bloom",
    "kettle",
    "filter",
    "aeropress",
    "latte",
    "milk",
    "steam",
    "water",
    "mineral",
    "acidity",
    "body",
    "sweetness",
    "origin",
    "harvest",
    "altitude",
    "washed",
    "natural",
    "honey",
    "fermentation",
];

const TAGS: &[&str] = &[
    "brewing",
    "equipment",
    "beans",
    "milk-drinks",
    "water",
    "tasting",
    "history",
    "farming",
    "recipes",
    "science",
    "to-read",
    "review",
];

const VOCABULARY: usize = 6_000;

/// The words, most common first.
fn vocabulary(rng: &mut Rng) -> Vec<String> {
    const ONSETS: &[&str] = &["k", "t", "m", "r", "s", "l", "v", "d", "n", "b", "p", "g"];
    const VOWELS: &[&str] = &["a", "e", "i", "o", "u"];
    let mut seen: HashSet<String> = REAL_WORDS.iter().map(|w| (*w).to_owned()).collect();
    let mut words = Vec::with_capacity(VOCABULARY);
    while words.len() + REAL_WORDS.len() < VOCABULARY {
        let syllables = 2 + rng.below(3);
        let word: String = (0..syllables)
            .map(|_| {
                format!(
                    "{}{}",
                    ONSETS[rng.below(ONSETS.len())],
                    VOWELS[rng.below(VOWELS.len())]
                )
            })
            .collect();
        if seen.insert(word.clone()) {
            words.push(word);
        }
    }
    for (k, real) in REAL_WORDS.iter().enumerate() {
        words.insert(2 + 7 * k, (*real).to_owned());
    }
    words
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

/// Where a link goes.
pub(super) enum Target {
    /// Another page, by its title (index into the titles).
    Page(usize),
    /// Another page, by the alias its note declares.
    Alias(usize),
    /// A name no page has.
    Wanted(String),
}

/// The wiki's names, drawn before any page is written (links need every title).
pub(super) struct Names {
    pub(super) vocab: Vec<String>,
    pub(super) titles: Vec<String>,
    pub(super) aliases: Vec<Option<String>>,
    pub(super) aliased: Vec<usize>,
    /// Every key taken by a title, an alias or a wanted name.
    pub(super) taken: HashSet<String>,
}

impl Names {
    pub(super) fn draw(rng: &mut Rng, pages: usize) -> Names {
        let vocab = vocabulary(rng);
        let mut taken = HashSet::with_capacity(pages * 2);
        let mut names = Names {
            titles: Vec::with_capacity(pages),
            aliases: Vec::with_capacity(pages),
            aliased: Vec::new(),
            vocab,
            taken: HashSet::new(),
        };
        for _ in 0..pages {
            let title = names.fresh_name(rng, &mut taken, 2);
            names.titles.push(title);
        }
        for page in 0..pages {
            let alias = (rng.below(10) == 0).then(|| names.fresh_name(rng, &mut taken, 2));
            if alias.is_some() {
                names.aliased.push(page);
            }
            names.aliases.push(alias);
        }
        names.taken = taken;
        names
    }

    /// A word of the rarer three quarters of the vocabulary.
    fn name_word(&self, rng: &mut Rng) -> &str {
        let n = self.vocab.len();
        &self.vocab[n / 4 + rng.below(n - n / 4)]
    }

    /// A capitalised name of `words` words (more when those are taken) no other name has.
    fn fresh_name(&self, rng: &mut Rng, taken: &mut HashSet<String>, words: usize) -> String {
        let mut name: Vec<String> = (0..words).map(|_| self.name_word(rng).to_owned()).collect();
        loop {
            name[0] = capitalised(&name[0]);
            let joined = name.join(" ");
            if taken.insert(page_key(&joined)) {
                return joined;
            }
            name.push(self.name_word(rng).to_owned());
        }
    }

    fn word(&self, rng: &mut Rng) -> &str {
        &self.vocab[rng.skewed(self.vocab.len())]
    }

    fn words(&self, rng: &mut Rng, n: usize) -> Vec<&str> {
        let mut words: Vec<&str> = (0..n).map(|_| self.word(rng)).collect();
        words.dedup();
        words
    }

    /// A sentence of `n` words, capitalised, with a full stop.
    fn sentence(&self, rng: &mut Rng, n: usize) -> String {
        format!("{}.", capitalised(&self.words(rng, n).join(" ")))
    }

    /// A sentence with `link` (as written in the body) among its words; also returned as
    /// its link's context (the sentence with the link as plain text).
    fn sentence_with(&self, rng: &mut Rng, n: usize, link: &str, plain: &str) -> (String, String) {
        let words = self.words(rng, n);
        let at = 1 + rng.below(words.len());
        let (before, after) = words.split_at(at.min(words.len()));
        let join = |middle: &str| {
            let mut all: Vec<&str> = before.to_vec();
            all.push(middle);
            all.extend_from_slice(after);
            let text = all.join(" ");
            format!("{}.", capitalised(&text))
        };
        (join(link), join(plain))
    }
}

/// One page as written: its note's text, its digest and page content.
pub(super) struct Planned {
    pub(super) text: String,
    pub(super) tags: Vec<String>,
    pub(super) summary: String,
    pub(super) body: String,
    pub(super) claims: Vec<CheckedClaim>,
    pub(super) concepts: Vec<String>,
    pub(super) question: String,
    /// Links as the digest and the page keep them: target, key, context.
    pub(super) links: Vec<(String, String, String)>,
}

pub(super) fn plan(rng: &mut Rng, names: &mut Names, page: usize, counts: &mut Seeded) -> Planned {
    let pages = names.titles.len();
    let title = names.titles[page].clone();
    // Three targets, none the page itself, no two with one key.
    let mut targets: Vec<Target> = Vec::with_capacity(3);
    let mut chosen: HashSet<usize> = HashSet::new();
    for _ in 0..3 {
        let roll = rng.below(100);
        let other = rng.below(pages);
        let target = if roll < 90 && other != page && !chosen.contains(&other) {
            let by_alias = roll >= 88 && !names.aliased.is_empty();
            if by_alias {
                let aliased = names.aliased[rng.below(names.aliased.len())];
                if aliased != page && chosen.insert(aliased) {
                    Target::Alias(aliased)
                } else {
                    chosen.insert(other);
                    Target::Page(other)
                }
            } else {
                chosen.insert(other);
                Target::Page(other)
            }
        } else {
            let mut taken = std::mem::take(&mut names.taken);
            let wanted = names.fresh_name(rng, &mut taken, 3);
            names.taken = taken;
            Target::Wanted(wanted)
        };
        targets.push(target);
    }
    let anchored = rng.below(100) == 0;
    let written: Vec<(String, String)> = targets
        .iter()
        .enumerate()
        .map(|(k, target)| {
            let name = match target {
                Target::Page(j) => names.titles[*j].clone(),
                Target::Alias(j) => names.aliases[*j].clone().unwrap_or_default(),
                Target::Wanted(name) => name.clone(),
            };
            let link = match target {
                Target::Page(_) if k == 0 && anchored => {
                    let heading = if rng.below(2) == 0 {
                        "Notes"
                    } else {
                        "Missing"
                    };
                    format!("[[{name}#{heading}]]")
                }
                _ => format!("[[{name}]]"),
            };
            (name, link)
        })
        .collect();
    for target in &targets {
        match target {
            Target::Wanted(_) => counts.wanted_links += 1,
            Target::Alias(_) => counts.alias_links += 1,
            Target::Page(_) => {}
        }
    }

    let stub = rng.below(50) == 0;
    let summary = format!(
        "{title} is {}",
        names.sentence(rng, 14).to_lowercase().trim_start()
    );
    let mut links = Vec::with_capacity(3);
    let body = if stub {
        counts.stubs += 1;
        let (sentence, context) = names.sentence_with(
            rng,
            8,
            &format!("{}, {} and {}", written[0].1, written[1].1, written[2].1),
            &format!("{}, {} and {}", written[0].0, written[1].0, written[2].0),
        );
        for (name, _) in &written {
            links.push((name.clone(), page_key(name), context.clone()));
        }
        sentence
    } else {
        let first = names.sentence(rng, 16);
        let (second, context0) = names.sentence_with(rng, 14, &written[0].1, &written[0].0);
        let third = names.sentence(rng, 16);
        let (fourth, context1) = names.sentence_with(rng, 14, &written[1].1, &written[1].0);
        let fifth = names.sentence(rng, 16);
        let (sixth, context2) = names.sentence_with(rng, 14, &written[2].1, &written[2].0);
        for ((name, _), context) in written.iter().zip([context0, context1, context2]) {
            links.push((name.clone(), page_key(name), context));
        }
        format!("{first} {second} {third}\n\n## Notes\n\n{fourth} {fifth}\n\n- {sixth}")
    };

    let claims = if stub {
        Vec::new()
    } else {
        // The sourced claim quotes the body's first sentence, which the note holds.
        let quote = body
            .split_once(". ")
            .map(|(first, _)| first.to_owned())
            .unwrap_or_default();
        vec![
            CheckedClaim {
                claim: format!("{title} {}", names.sentence(rng, 8).to_lowercase()),
                confidence: Confidence::Sourced,
                quote: Some(quote),
                grounded: true,
            },
            CheckedClaim {
                claim: format!("{title} {}", names.sentence(rng, 8).to_lowercase()),
                confidence: Confidence::Inferred,
                quote: None,
                grounded: false,
            },
            CheckedClaim {
                claim: names.sentence(rng, 10),
                confidence: Confidence::Opinion,
                quote: None,
                grounded: false,
            },
        ]
    };
    let concepts = match targets.first() {
        Some(Target::Page(j)) => vec![names.titles[*j].clone()],
        _ => Vec::new(),
    };
    let question = format!(
        "How does {} {} change {title}?",
        names.word(rng),
        names.word(rng)
    );

    let tags: Vec<String> = match rng.below(10) {
        0..=1 => vec![TAGS[rng.below(TAGS.len())].to_owned()],
        2 => {
            let first = rng.below(TAGS.len());
            let second = (first + 1 + rng.below(TAGS.len() - 1)) % TAGS.len();
            vec![TAGS[first].to_owned(), TAGS[second].to_owned()]
        }
        _ => Vec::new(),
    };
    let alias = names.aliases[page].clone();
    let mut front = Vec::new();
    if !tags.is_empty() {
        front.push(format!("tags: [{}]", tags.join(", ")));
    }
    if let Some(alias) = &alias {
        front.push(format!("aliases: [{alias}]"));
    }
    let front = if front.is_empty() {
        String::new()
    } else {
        format!("---\n{}\n---\n", front.join("\n"))
    };
    let text = format!("{front}# {title}\n\n{summary}\n\n{body}\n");
    Planned {
        text,
        tags,
        summary,
        body,
        claims,
        concepts,
        question,
        links,
    }
}
