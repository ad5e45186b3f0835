//! Writing a page from the digests that feed it, the pure half: what the page prompt holds
//! ([`page_prompt`]), when a page needs no model call at all ([`adds_nothing`]), which
//! sources hold each quote ([`SourceTexts`]), and the rewrite guard ([`Guard`]) that refuses
//! an answer losing a source's claims or much of the page. The IO is `page_job`.

use serde_json::{json, Value};

use crate::render::one_line;
use crate::store::{FeedingDigest, PageClaim, PageContent, PageMaterial, SourceId};
use crate::topic::topic_key;

use super::ground::{normalise, GroundingIndex};
use super::templates::{Prompt, PromptTemplate};

/// The shortest share of the previous body a rewrite keeps, unless a source left or shrank.
pub(crate) const KEEP_BODY: f64 = 0.7;

/// Characters of one source's excerpts when the room is not tighter.
const EXCERPT_CHARS: usize = 6_000;

/// Whether `text` mentions the topic keyed `keys` (its title's and aliases' keys).
fn mentions(text: &str, keys: &[String]) -> bool {
    let haystack = format!(" {} ", topic_key(text));
    keys.iter()
        .any(|k| !k.is_empty() && haystack.contains(&format!(" {k} ")))
}

/// The keys the topic of `material` is known by: its title's and its aliases'.
pub(crate) fn topic_keys(material: &PageMaterial) -> Vec<String> {
    let mut keys: Vec<String> = std::iter::once(&material.title)
        .chain(&material.aliases)
        .map(|n| topic_key(n))
        .filter(|k| !k.is_empty())
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// The claims of a digest that are about the topic: all of them for a digest whose title
/// names it, else those whose text or quote mentions it.
pub(crate) fn claims_about<'a>(
    digest: &'a FeedingDigest,
    keys: &'a [String],
) -> impl Iterator<Item = &'a PageClaim> + 'a {
    digest.content.claims.iter().filter(move |c| {
        digest.by_title
            || mentions(&c.claim.claim, keys)
            || c.claim.quote.as_deref().is_some_and(|q| mentions(q, keys))
    })
}

fn same_claim(a: &PageClaim, b: &PageClaim) -> bool {
    let quotes = match (&a.claim.quote, &b.claim.quote) {
        (Some(x), Some(y)) => {
            let (x, y) = (normalise(x), normalise(y));
            !x.is_empty() && x == y
        }
        _ => false,
    };
    quotes || normalise(&a.claim.claim) == normalise(&b.claim.claim)
}

/// Whether a page job can end without a model call: the page has been written, no source
/// left it, and every claim about the topic of each new or changed digest already has a
/// claim on the page with the same normalised quote or claim text. Then the page only
/// gains those sources.
pub fn adds_nothing(material: &PageMaterial) -> bool {
    if material.version == 0 || material.sources_lost > 0 {
        return false;
    }
    let keys = topic_keys(material);
    let page = &material.current.claims;
    material.changed().all(|digest| {
        claims_about(digest, &keys).all(|claim| page.iter().any(|p| same_claim(p, claim)))
    })
}

/// The page claims (by position) whose quote each new or changed source's text holds, for
/// a page that only gains sources.
pub(crate) fn new_holders(material: &PageMaterial) -> Vec<(usize, SourceId)> {
    let mut out = Vec::new();
    for digest in material.changed() {
        let index = GroundingIndex::new(&digest.text);
        for (position, claim) in material.current.claims.iter().enumerate() {
            if claim
                .claim
                .quote
                .as_deref()
                .is_some_and(|q| index.contains(q))
            {
                out.push((position, digest.source_id));
            }
        }
    }
    out
}

/// The texts of a page's sources, indexed once for every answer of a page job.
pub(crate) struct SourceTexts {
    sources: Vec<(SourceId, GroundingIndex)>,
}

impl SourceTexts {
    /// Indexes the text of every source feeding `material`'s page.
    pub fn new(material: &PageMaterial) -> SourceTexts {
        SourceTexts {
            sources: material
                .digests
                .iter()
                .map(|d| (d.source_id, GroundingIndex::new(&d.text)))
                .collect(),
        }
    }

    /// Whether any source's text holds `quote`.
    pub fn grounds(&self, quote: &str) -> bool {
        self.sources.iter().any(|(_, index)| index.contains(quote))
    }

    /// The sources whose text holds `quote`, in order.
    pub fn holders(&self, quote: &str) -> Vec<SourceId> {
        self.sources
            .iter()
            .filter(|(_, index)| index.contains(quote))
            .map(|(id, _)| *id)
            .collect()
    }
}

/// What a rewrite must keep (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Guard {
    /// Sources whose digest has a grounded sourced claim about the topic, each with a
    /// label for the feedback: the rewrite keeps a claim grounded in each.
    pub required: Vec<(SourceId, String)>,
    /// The body's length (in characters) below which a rewrite lost too much; `None` when
    /// it may shrink (a source left or shrank) or there is nothing to keep.
    pub min_body_chars: Option<usize>,
    /// The previous body's length, for the feedback.
    pub previous_body_chars: usize,
}

/// How many sources whose claims a rewrite lost are named in its problem.
const MISSING_NAMED: usize = 10;

impl Guard {
    /// What a rewrite of `material`'s page must keep.
    pub fn of(material: &PageMaterial) -> Guard {
        let keys = topic_keys(material);
        let required = material
            .digests
            .iter()
            .filter(|d| {
                claims_about(d, &keys).any(|c| {
                    c.claim.grounded && c.claim.confidence == crate::contract::Confidence::Sourced
                })
            })
            .map(|d| {
                (
                    d.source_id,
                    format!("source {} ({})", d.source_id, d.content.title),
                )
            })
            .collect();
        let previous_body_chars = material
            .last_compiled
            .as_ref()
            .map_or(0, |p| p.body.chars().count());
        let min_body_chars = (!material.may_shrink() && previous_body_chars > 0)
            .then(|| (previous_body_chars as f64 * KEEP_BODY).ceil() as usize);
        Guard {
            required,
            min_body_chars,
            previous_body_chars,
        }
    }

    /// The problems of a rewrite with `claims` and `body`, one line each (empty: it keeps
    /// what it must).
    pub fn problems(&self, claims: &[PageClaim], body: &str) -> Vec<String> {
        let mut problems = Vec::new();
        let missing: Vec<&str> = self
            .required
            .iter()
            .filter(|(id, _)| {
                !claims
                    .iter()
                    .any(|c| c.claim.grounded && c.source_ids.contains(id))
            })
            .map(|(_, label)| label.as_str())
            .collect();
        if !missing.is_empty() {
            // Named up to a few: the problem goes back to the model and into the reason.
            let mut named = missing[..missing.len().min(MISSING_NAMED)].join(", ");
            if missing.len() > MISSING_NAMED {
                named.push_str(&format!(" and {} more", missing.len() - MISSING_NAMED));
            }
            problems.push(format!(
                "the page lost every sourced claim of {named}: keep at least one claim from \
                 each with a quote copied exactly from its text"
            ));
        }
        if let Some(min) = self.min_body_chars {
            let chars = body.chars().count();
            if chars < min {
                problems.push(format!(
                    "/article_body: the page shrank to {chars} characters from {}; keep what \
                     it said (at least {min} characters) and add to it",
                    self.previous_body_chars
                ));
            }
        }
        problems
    }
}

/// A page's content as the prompt shows it: one JSON object in the answer's own shape,
/// each claim naming the sources that hold it.
fn content_json(content: &PageContent) -> Value {
    json!({
        "title": content.title,
        "summary": content.summary,
        "key_claims": content.claims.iter().map(|c| json!({
            "claim": c.claim.claim,
            "confidence": c.claim.confidence.as_str(),
            "quote": c.claim.quote,
            "sources": c.source_ids.iter().map(|s| s.0).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "concepts": content.concepts,
        "open_questions": content.open_questions,
        "backlink_suggestions": content.links.iter().map(|l| &l.target).collect::<Vec<_>>(),
        "article_body": content.body,
    })
}

/// A digest as the prompt shows it: the answer's shape without source lists.
fn digest_json(content: &PageContent) -> Value {
    json!({
        "title": content.title,
        "summary": content.summary,
        "key_claims": content.claims.iter().map(|c| json!({
            "claim": c.claim.claim,
            "confidence": c.claim.confidence.as_str(),
            "quote": c.claim.quote,
        })).collect::<Vec<_>>(),
        "concepts": content.concepts,
        "open_questions": content.open_questions,
        "backlink_suggestions": content.links.iter().map(|l| &l.target).collect::<Vec<_>>(),
        "article_body": content.body,
    })
}

/// The paragraphs of `text` that speak of the topic, within `room` characters: for a
/// source whose title names the topic, its paragraphs in order; otherwise those that
/// mention it (the opening paragraph when none does). What does not fit is said, not
/// silently dropped.
pub(crate) fn excerpt(text: &str, by_title: bool, keys: &[String], room: usize) -> String {
    let (mut out, left_out) = excerpt_text(text, by_title, keys, room);
    if left_out > 0 {
        out.push_str(&format!(
            "\n\n[{left_out} more characters of this source about the topic are not shown; \
             its digest above covers them]"
        ));
    }
    out
}

/// The source's own words of [`excerpt`], and how many characters were left out.
fn excerpt_text(text: &str, by_title: bool, keys: &[String], room: usize) -> (String, usize) {
    let paragraphs: Vec<&str> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let mut chosen: Vec<&str> = if by_title {
        paragraphs.clone()
    } else {
        paragraphs
            .iter()
            .copied()
            .filter(|p| mentions(p, keys))
            .collect()
    };
    if chosen.is_empty() {
        chosen.extend(paragraphs.first().copied());
    }
    let mut out = String::new();
    let mut left_out = 0usize;
    for p in chosen {
        let needed = p.len() + 2;
        if out.len() + needed > room {
            let left = room.saturating_sub(out.len() + 2);
            if left > 200 {
                // The paragraph does not fit whole: its beginning, cut at a word.
                let mut cut = left - 100;
                while !p.is_char_boundary(cut) {
                    cut -= 1;
                }
                let cut = p[..cut].rfind(char::is_whitespace).unwrap_or(cut);
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(&p[..cut]);
                out.push_str(" …");
                left_out += p[cut..].chars().count();
                continue;
            }
            left_out += p.chars().count();
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(p);
    }
    (out, left_out)
}

/// The page prompt's material, rendered: the page as last compiled, the new or changed
/// digests in full, their sources' excerpts and the list of the other sources.
pub(crate) struct PageParts {
    /// The `{{page}}` block: the last compiled version as JSON, or `(no page yet)`.
    pub page: String,
    /// The `{{digests}}` blocks.
    pub digests: String,
    /// The `{{excerpts}}` blocks.
    pub excerpts: String,
    /// The `{{others}}` lines.
    pub others: String,
    /// The sources' own words in the excerpts, one per source (what a page call's quotes
    /// are drawn from).
    pub excerpt_texts: Vec<String>,
}

impl PageParts {
    /// The material of `material`'s page, excerpts within `excerpt_room` characters in all.
    pub fn of(material: &PageMaterial, excerpt_room: usize) -> PageParts {
        let keys = topic_keys(material);
        let page = match &material.last_compiled {
            Some(content) => content_json(content).to_string(),
            None => "(no page yet)".to_owned(),
        };
        // A page never written from a source treats every source as new.
        let changed: Vec<&FeedingDigest> = material.changed().collect();
        let mut digests = String::new();
        let mut excerpts = String::new();
        let mut excerpt_texts = Vec::new();
        let per_source = (excerpt_room / changed.len().max(1)).min(EXCERPT_CHARS);
        for d in &changed {
            digests.push_str(&format!(
                "<<<DIGEST source {}: {}\n{}\nDIGEST>>>\n",
                d.source_id,
                one_line(&d.content.title),
                digest_json(&d.content)
            ));
            if per_source > 0 {
                excerpts.push_str(&format!(
                    "<<<EXCERPT source {}\n{}\nEXCERPT>>>\n",
                    d.source_id,
                    excerpt(&d.text, d.by_title, &keys, per_source)
                ));
                excerpt_texts.push(excerpt_text(&d.text, d.by_title, &keys, per_source).0);
            }
        }
        let others: Vec<String> = material
            .digests
            .iter()
            .filter(|d| !d.changed)
            .map(|d| {
                format!(
                    "- source {}: {} — {}",
                    d.source_id,
                    one_line(&d.content.title),
                    one_line(&d.content.summary)
                )
            })
            .collect();
        PageParts {
            page,
            digests: none_if_empty(digests.trim_end()),
            excerpts: none_if_empty(excerpts.trim_end()),
            others: none_if_empty(&others.join("\n")),
            excerpt_texts,
        }
    }
}

fn none_if_empty(text: &str) -> String {
    if text.is_empty() {
        "(none)".to_owned()
    } else {
        text.to_owned()
    }
}

/// The page prompt from `template` over `parts`, with the titles and concepts to reuse.
pub(crate) fn page_prompt(
    template: &PromptTemplate,
    topic: &str,
    parts: &PageParts,
    titles: &[String],
    concepts: &[String],
) -> Prompt {
    template.render(&[
        ("topic", &one_line(topic)),
        ("page", &parts.page),
        ("digests", &parts.digests),
        ("excerpts", &parts.excerpts),
        ("others", &parts.others),
        ("known_titles", &super::prompt::list_lines(titles)),
        ("known_concepts", &super::prompt::known_concepts(concepts)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{CheckedClaim, Confidence};
    use crate::store::{ArticleId, PageId, PageKind};

    fn claim(text: &str, quote: Option<&str>, sources: &[i64]) -> PageClaim {
        PageClaim {
            claim: CheckedClaim {
                claim: text.into(),
                confidence: if quote.is_some() {
                    Confidence::Sourced
                } else {
                    Confidence::Inferred
                },
                quote: quote.map(str::to_owned),
                grounded: quote.is_some(),
            },
            source_ids: sources.iter().map(|&s| SourceId(s)).collect(),
            cited_page: None,
        }
    }

    fn content(title: &str, body: &str, claims: Vec<PageClaim>) -> PageContent {
        PageContent {
            title: title.into(),
            summary: format!("About {title}."),
            body: body.into(),
            claims,
            concepts: Vec::new(),
            open_questions: Vec::new(),
            links: Vec::new(),
        }
    }

    fn digest(source: i64, title: &str, text: &str, claims: Vec<PageClaim>) -> FeedingDigest {
        FeedingDigest {
            source_id: SourceId(source),
            article_id: ArticleId(source),
            by_title: true,
            changed: true,
            shrank: false,
            digest_at: String::new(),
            content: content(title, text, claims),
            text: text.into(),
        }
    }

    fn material(current: PageContent, digests: Vec<FeedingDigest>) -> PageMaterial {
        PageMaterial {
            page_id: PageId(1),
            kind: PageKind::Topic,
            title: "Espresso".into(),
            aliases: vec!["espressos".into()],
            version: 1,
            stale_reason: Some("source 2 now feeds this page".into()),
            last_compiled: Some(current.clone()),
            current,
            sources_lost: 0,
            digests,
        }
    }

    #[test]
    fn a_digest_that_repeats_the_page_adds_nothing_and_one_new_claim_does() {
        let page = content(
            "Espresso",
            "Espresso is strong.",
            vec![claim(
                "Espresso is brewed under pressure",
                Some("brewed at nine bars"),
                &[1],
            )],
        );
        let mut old = digest(1, "Espresso", "Espresso is brewed at nine bars.", vec![]);
        old.changed = false;
        let repeat = digest(
            2,
            "espressos",
            "Espressos are Brewed at  nine bars, always.",
            vec![claim("Pressure", Some("brewed at NINE bars"), &[2])],
        );
        let m = material(page.clone(), vec![old.clone(), repeat.clone()]);
        assert!(adds_nothing(&m));
        assert_eq!(new_holders(&m), [(0, SourceId(2))]);

        let mut news = repeat.clone();
        news.content.claims.push(claim(
            "A shot takes thirty seconds",
            Some("thirty seconds"),
            &[2],
        ));
        assert!(!adds_nothing(&material(
            page.clone(),
            vec![old.clone(), news]
        )));

        // A source that left, or a page never written, always needs the model.
        let mut lost = material(page.clone(), vec![old.clone(), repeat.clone()]);
        lost.sources_lost = 1;
        assert!(!adds_nothing(&lost));
        let mut fresh = material(page, vec![old, repeat]);
        fresh.version = 0;
        assert!(!adds_nothing(&fresh));
    }

    #[test]
    fn a_concept_digest_counts_only_its_claims_about_the_topic() {
        let page = content("Espresso", "Body.", vec![]);
        let mut crema = digest(
            3,
            "Crema",
            "Crema is foam.",
            vec![claim("Crema is a foam", Some("Crema is foam"), &[3])],
        );
        crema.by_title = false;
        assert!(
            adds_nothing(&material(page.clone(), vec![crema.clone()])),
            "nothing it says is about espresso"
        );
        crema.content.claims.push(claim(
            "Crema tops an espresso",
            Some("tops every espresso"),
            &[3],
        ));
        assert!(!adds_nothing(&material(page, vec![crema])));
    }

    #[test]
    fn the_guard_wants_a_claim_from_each_source_and_most_of_the_body() {
        let page = content("Espresso", &"x".repeat(100), vec![]);
        let a = digest(1, "Espresso", "A.", vec![claim("a", Some("a b"), &[1])]);
        let b = digest(2, "espressos", "B.", vec![claim("b", Some("c d"), &[2])]);
        let no_quote = digest(3, "Espresso", "C.", vec![claim("c", None, &[])]);
        let m = material(page, vec![a, b, no_quote]);
        let guard = Guard::of(&m);
        assert_eq!(guard.required.len(), 2, "source 3 has no sourced claim");
        assert_eq!(guard.min_body_chars, Some(70));

        let ok = [
            claim("a", Some("a b"), &[1]),
            claim("b", Some("c d"), &[2, 1]),
        ];
        assert!(guard.problems(&ok, &"y".repeat(70)).is_empty());
        let problems = guard.problems(&ok[..1], &"y".repeat(69));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("source 2 (espressos)"), "{problems:?}");
        assert!(
            problems[1].contains("69 characters from 100"),
            "{problems:?}"
        );

        // A source that left lets the page shrink.
        let mut lost = m.clone();
        lost.sources_lost = 1;
        assert_eq!(Guard::of(&lost).min_body_chars, None);
        let mut shrank = m;
        shrank.digests[0].shrank = true;
        assert_eq!(Guard::of(&shrank).min_body_chars, None);
    }

    #[test]
    fn excerpts_hold_the_paragraphs_about_the_topic_and_say_what_is_left_out() {
        let keys = vec!["espresso".to_owned()];
        let text = "Tea is calm.\n\nAn espresso is short.\n\nMilk is white.\n\nEspressos vary.";
        assert_eq!(
            excerpt(text, false, &keys, 1000),
            "An espresso is short.\n\nEspressos vary."
        );
        assert_eq!(
            excerpt("Nothing here.", false, &keys, 1000),
            "Nothing here."
        );
        let cut = excerpt(text, true, &keys, 30);
        assert!(cut.starts_with("Tea is calm.\n\nMilk is white."), "{cut}");
        assert!(cut.contains("more characters"), "{cut}");
        // A paragraph longer than the room: its beginning, cut at a word, never mid-char.
        let long = "Espresso é ".repeat(100);
        let begun = excerpt(&long, true, &keys, 300);
        assert!(begun.starts_with("Espresso é Espresso"), "{begun}");
        assert!(begun.contains(" …\n\n["), "{begun}");
    }

    #[test]
    fn the_prompt_labels_each_digest_and_excerpt_with_its_source() {
        let page = content("Espresso", "Body.", vec![claim("a", Some("a b"), &[1])]);
        let mut old = digest(1, "Espresso", "Espresso one.", vec![]);
        old.changed = false;
        let new = digest(7, "espressos", "Espressos two.", vec![]);
        let parts = PageParts::of(&material(page, vec![old, new]), 10_000);
        assert!(parts.page.contains("\"sources\":[1]"), "{}", parts.page);
        assert!(parts
            .digests
            .starts_with("<<<DIGEST source 7: espressos\n{"));
        assert!(parts.digests.ends_with("\nDIGEST>>>"));
        assert_eq!(
            parts.excerpts,
            "<<<EXCERPT source 7\nEspressos two.\nEXCERPT>>>"
        );
        assert_eq!(parts.others, "- source 1: Espresso — About Espresso.");
    }
}
