//! The answers the server gives when no reply is scripted: valid `CompilationResult` JSON
//! derived from the prompt, so end-to-end runs compile real articles and write real topic
//! pages without a model.
//!
//! [`answer`] tells the two prompts apart. A *page prompt* (WikiMind's `page` template)
//! starts with a `Topic: ` line and holds the page as last written between `<<<PAGE` and
//! `PAGE>>>`; it is answered by [`page_answer`], which merges the old page with the new
//! digests the way a careful model would. An ask prompt (a `Question: ` line, then the
//! pages found) is answered by [`ask_answer`], citing the pages that share its words. An
//! extraction prompt (one part of a long text between `<<<PART` and `PART>>>`) is answered
//! with JSONL notes by [`notes_answer`]. The eval's judge prompt (an article between
//! `<<<ARTICLE` and `ARTICLE>>>` after the source) is answered with rubric scores by
//! [`judge_answer`]. Every other prompt is treated as a compile prompt and answered by
//! [`compilation_answer`]. No answer panics or fails on any text: what is missing or
//! malformed is left out, and the answer is still valid.

use serde_json::{json, Value};

/// How a canned compile answer names the source's links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// By target: `[[T|shown]]` gives `T` (the default).
    Targets,
    /// As written, as models do: `[[T#h|s]]` and `![[x]]` whole as backlink suggestions,
    /// `T#h|s` as concepts.
    AsWritten,
}

/// The canned answer to a chat: [`page_answer`] for a page prompt (see
/// [`is_page_prompt`]), else [`compilation_answer`].
pub fn answer(user_message: &str) -> String {
    answer_with(user_message, Links::Targets)
}

/// [`answer`] with the source's links named as `links` says in a compile answer.
pub fn answer_with(user_message: &str, links: Links) -> String {
    if is_judge_prompt(user_message) {
        judge_answer(user_message)
    } else if is_page_prompt(user_message) {
        page_answer(user_message)
    } else if is_ask_prompt(user_message) {
        ask_answer(user_message)
    } else if let Some(part) = part_text(user_message) {
        notes_answer(part)
    } else if source_region(user_message).is_none() && user_message.contains("<<<NOTES\n") {
        notes_compilation_answer(user_message)
    } else if links == Links::AsWritten {
        compilation_answer_as_written(user_message)
    } else {
        compilation_answer(user_message)
    }
}

const ARTICLE_OPEN: &str = "\n<<<ARTICLE\n";
const ARTICLE_CLOSE: &str = "\nARTICLE>>>";

/// The article of WikiMind's judge prompt: the text between `<<<ARTICLE` and
/// `ARTICLE>>>` after the source region, when the message is one.
fn judged_article(user_message: &str) -> Option<&str> {
    let (_, close) = source_region(user_message)?;
    let after = &user_message[close + SOURCE_CLOSE.len()..];
    let open = after.find(ARTICLE_OPEN)? + ARTICLE_OPEN.len();
    let end = open + after[open..].rfind(ARTICLE_CLOSE)?;
    Some(&after[open..end])
}

/// Whether the message is the eval's judge prompt (WikiMind's `judge` template): a source
/// between `<<<SOURCE` and `SOURCE>>>`, then an article between `<<<ARTICLE` and
/// `ARTICLE>>>`.
pub fn is_judge_prompt(user_message: &str) -> bool {
    judged_article(user_message).is_some()
}

/// The answer to a judge prompt: a `JudgeVerdict` scored the way a careful judge would,
/// from what can be checked in the text.
///
/// - `faithfulness`: 5 when every quote of the article's key claims (lines
///   `- [label] claim — quote: "…"`) is found in the source (whitespace and case aside),
///   one less for each quote that is not (at least 1); 3 when the article quotes nothing.
/// - `coverage`: the share of the source's sentences (of three words or more) found in the
///   article, as 1 + 4 × share rounded; 3 for a source with no such sentence.
///
/// A message that is not a judge prompt is scored as an empty article of itself.
pub fn judge_answer(user_message: &str) -> String {
    let source = source_region(user_message).map_or(user_message, |(open, close)| {
        &user_message[open + SOURCE_OPEN.len()..close]
    });
    let article = judged_article(user_message).unwrap_or_default();
    let source_key = quote_key(source);
    let article_key = quote_key(article);
    let quotes: Vec<&str> = article
        .lines()
        .filter(|l| l.starts_with("- ["))
        .filter_map(|l| l.split_once(" — quote: \"")?.1.strip_suffix('"'))
        .collect();
    let found = quotes
        .iter()
        .filter(|q| source_key.contains(&quote_key(q)))
        .count();
    let (faithfulness, why_faithful) = if quotes.is_empty() {
        (
            3,
            "The article quotes nothing to check against the source.".to_string(),
        )
    } else {
        let missing = quotes.len() - found;
        (
            5usize.saturating_sub(missing).max(1),
            format!(
                "{found} of {} quoted claims are found in the source.",
                quotes.len()
            ),
        )
    };
    let said = sentences(source);
    let kept = said
        .iter()
        .filter(|s| article_key.contains(&quote_key(s)))
        .count();
    let (coverage, why_covered) = if said.is_empty() {
        (
            3,
            "The source has no full sentences to look for.".to_string(),
        )
    } else {
        let share = kept as f64 / said.len() as f64;
        (
            1 + (4.0 * share).round() as usize,
            format!(
                "{kept} of {} source sentences are kept in the article.",
                said.len()
            ),
        )
    };
    json!({
        "faithfulness": {"score": faithfulness, "reason": why_faithful},
        "coverage": {"score": coverage, "reason": why_covered},
    })
    .to_string()
}

/// The part of WikiMind's extraction prompt (between `<<<PART` and `PART>>>`, outside any
/// source region), when the message is one.
fn part_text(user_message: &str) -> Option<&str> {
    if source_region(user_message).is_some() {
        return None;
    }
    let open = user_message.find("\n<<<PART\n")? + "\n<<<PART\n".len();
    let close = open + user_message[open..].rfind("\nPART>>>")?;
    Some(&user_message[open..close])
}

/// The notes of one part of a long text, as JSONL: one `sourced` claim per sentence, its
/// quote copied verbatim. A line that is a digest's JSON gives the quotes of its sourced
/// claims; other lines that look like JSON or block markers are skipped. A part of a page's
/// material (`<<<EXCERPT source N` blocks) gives the first two sentences of each excerpt,
/// so every source is noted; any other part its first twelve.
pub fn notes_answer(part: &str) -> String {
    let prose = |text: &str| -> Vec<String> {
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| {
                let l = l.trim_start();
                !(l.starts_with('{') || l.starts_with("<<<") || l.ends_with(">>>"))
            })
            .collect();
        sentences(&lines.join("\n"))
            .into_iter()
            .filter(|s| !s.contains("[[") && !s.contains("\":") && !s.starts_with('['))
            .collect()
    };
    // A digest's JSON (one line of the page material): its sourced claims' quotes.
    let mut picked: Vec<String> = part
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .flat_map(|d| d["key_claims"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["confidence"] == "sourced")
        .filter_map(|c| c["quote"].as_str().map(str::to_owned))
        .collect();
    if part.contains("<<<EXCERPT source ") {
        for (i, block) in part.split("<<<EXCERPT source ").enumerate() {
            // What comes before the first header is the end of an excerpt begun in an
            // earlier part, or digests.
            let text = if i == 0 {
                block
            } else {
                block.split_once('\n').map_or("", |(_, rest)| rest)
            };
            let text = text.split("\nEXCERPT>>>").next().unwrap_or_default();
            picked.extend(prose(text).into_iter().take(2));
        }
    } else {
        picked.extend(prose(part).into_iter().take(12));
    }
    let mut seen: Vec<String> = Vec::new();
    picked
        .into_iter()
        .filter(|s| {
            let key = quote_key(s);
            let fresh = !seen.contains(&key);
            seen.push(key);
            fresh
        })
        .map(|s| {
            json!({"type": "claim", "text": s, "confidence": "sourced", "quote": s}).to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The answer to the final compile of a long document read in parts (its notes between
/// `<<<NOTES` and `NOTES>>>`): titled by its `Document: ` line, each note's quote a
/// `sourced` claim and its text a paragraph.
pub fn notes_compilation_answer(user_message: &str) -> String {
    let title = user_message
        .lines()
        .find_map(|l| l.strip_prefix("Document: "))
        .map(str::trim)
        .filter(|t| !t.is_empty() && *t != "(untitled)")
        .unwrap_or("Untitled");
    let notes = note_quotes(user_message);
    let claims: Vec<Value> = notes
        .iter()
        .take(12)
        .map(|(text, quote)| json!({"claim": text, "confidence": "sourced", "quote": quote}))
        .collect();
    let summary = notes
        .first()
        .map_or_else(|| title.to_string(), |(text, _)| truncate_chars(text, 300));
    let body: Vec<&str> = notes.iter().map(|(text, _)| text.as_str()).collect();
    json!({
        "title": truncate_chars(title, 80),
        "summary": summary,
        "key_claims": claims,
        "concepts": [],
        "backlink_suggestions": [],
        "open_questions": [],
        "article_body": if body.is_empty() { summary.clone() } else { body.join("\n\n") },
    })
    .to_string()
}

/// The quotes of the notes in a page prompt whose material was read in parts: each note
/// line reads `[claim, sourced] TEXT — quote: "QUOTE" (part N)`.
fn note_quotes(user_message: &str) -> Vec<(String, String)> {
    let Some(open) = user_message.find("<<<NOTES\n") else {
        return Vec::new();
    };
    let rest = &user_message[open + "<<<NOTES\n".len()..];
    let notes = rest.split("\nNOTES>>>").next().unwrap_or_default();
    notes
        .lines()
        .filter_map(|line| {
            let line = line.strip_prefix("[claim, sourced] ")?;
            let (text, quoted) = line.split_once(" — quote: \"")?;
            let quote = quoted.rsplit_once("\" (part ")?.0;
            Some((text.to_string(), quote.to_string()))
        })
        .collect()
}

/// Whether the message is WikiMind's page prompt: outside any `<<<SOURCE` … `SOURCE>>>`
/// region, its first line starts with `Topic: ` and it holds a `<<<PAGE` … `PAGE>>>` block.
///
/// Looking only outside the source region means a compile prompt whose source text
/// happens to contain such lines is still a compile prompt.
pub fn is_page_prompt(user_message: &str) -> bool {
    let outside = match source_region(user_message) {
        Some((open, close)) => {
            format!(
                "{}{}",
                &user_message[..open],
                &user_message[close + SOURCE_CLOSE.len()..]
            )
        }
        None => user_message.to_string(),
    };
    outside
        .trim_start()
        .lines()
        .next()
        .is_some_and(|first| first.starts_with("Topic: "))
        && blocks(&outside).iter().any(|b| b.kind == BlockKind::Page)
}

/// Whether the message is WikiMind's ask prompt: its first line starts with `Question: `
/// and it holds no `<<<SOURCE` region (a compile prompt whose source starts so is still a
/// compile prompt).
pub fn is_ask_prompt(user_message: &str) -> bool {
    source_region(user_message).is_none()
        && user_message
            .trim_start()
            .lines()
            .next()
            .is_some_and(|first| first.starts_with("Question: "))
}

/// Answers an ask prompt the way a careful model would, as a `QuestionAnswer`: the pages
/// (`<<<PAGE Title` blocks) that share the most words with the question, at most two,
/// each give the first sentence of their text that holds a question word, as a `sourced`
/// claim citing that page with the sentence as its quote. When no page shares a word, the
/// answer says the pages do not answer the question and makes no claim.
pub fn ask_answer(user_message: &str) -> String {
    let first = user_message.trim_start().lines().next().unwrap_or_default();
    let question = first.strip_prefix("Question: ").unwrap_or(first);
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect();
    let mentions = |text: &str| {
        let lower = text.to_lowercase();
        words.iter().filter(|w| lower.contains(w.as_str())).count()
    };
    let mut pages: Vec<(usize, &str, &str)> = blocks(user_message)
        .into_iter()
        .filter(|b| b.kind == BlockKind::Page && !b.header.is_empty())
        .map(|b| (mentions(b.text), b.header, b.text))
        .filter(|(n, _, _)| *n > 0)
        .collect();
    pages.sort_by_key(|p| std::cmp::Reverse(p.0));
    let mut claims = Vec::new();
    let mut answer = Vec::new();
    for (_, title, text) in pages.iter().take(2) {
        let body = text.split_once("\nText:\n").map_or(*text, |(_, body)| body);
        let Some(sentence) = sentences(body)
            .into_iter()
            .find(|s| mentions(s) > 0 && !s.contains("[[") && !s.contains('"'))
        else {
            continue;
        };
        answer.push(format!("According to [[{title}]]: {sentence}"));
        claims.push(json!({
            "claim": sentence,
            "confidence": "sourced",
            "quote": sentence,
            "page": title,
        }));
    }
    let follow_up: Vec<String> = pages
        .iter()
        .skip(2)
        .take(2)
        .map(|(_, title, _)| format!("What is {title}?"))
        .collect();
    if answer.is_empty() {
        answer.push("The pages do not answer this question.".to_string());
    }
    json!({
        "answer": answer.join("\n\n"),
        "claims": claims,
        "follow_up_questions": follow_up,
    })
    .to_string()
}

/// Builds a `CompilationResult`-shaped JSON answer from the last user message.
///
/// When the message holds WikiMind's source markers (`<<<SOURCE` … `SOURCE>>>`) only the
/// source between them is read. The title is its first markdown heading (else its first
/// non-empty line), the summary its first sentence, up to three sentences become `sourced`
/// claims whose `quote` is copied verbatim, and every line of the source holding a
/// `[[wiki link]]` is carried into the body, so links between notes survive compilation.
/// The concepts are what the source itself marks as terms, in order of appearance: its
/// link targets and its `**bold**` phrases (up to eight); the link targets are also the
/// backlink suggestions. A source that marks nothing gives no concepts.
pub fn compilation_answer(user_message: &str) -> String {
    let source = match source_region(user_message) {
        Some((open, close)) => &user_message[open + SOURCE_OPEN.len()..close],
        None => user_message,
    };
    let first_line = |heading_only: bool| {
        source
            .lines()
            .map(str::trim)
            .filter(|l| !heading_only || l.starts_with('#'))
            .map(|l| l.trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .map(|l| truncate_chars(l, 80))
    };
    let title = first_line(true)
        .or_else(|| first_line(false))
        .unwrap_or_else(|| "Untitled".to_string());
    let sentences: Vec<String> = sentences(source)
        .into_iter()
        .filter(|s| !s.contains("[[") && *s != title)
        .collect();
    let summary = sentences
        .first()
        .map(|s| truncate_chars(s, 300))
        .unwrap_or_else(|| title.clone());
    let claims: Vec<Value> = sentences
        .iter()
        .take(3)
        .map(|s| json!({"claim": s, "confidence": "sourced", "quote": s}))
        .collect();
    let mut body = summary.clone();
    for line in source.lines().filter(|l| l.contains("[[")) {
        body.push_str("\n\n");
        body.push_str(line.trim());
    }
    json!({
        "title": title,
        "summary": summary,
        "key_claims": claims,
        "concepts": terms(source),
        "backlink_suggestions": link_targets(source),
        "open_questions": [],
        "article_body": body,
    })
    .to_string()
}

/// Builds a `CompilationResult`-shaped JSON answer to a page prompt, as a careful model
/// would write it and so that it passes WikiMind's rewrite guard (no source loses its
/// claims, the page does not shrink).
///
/// - `title`: the topic (the `Topic: ` line; else the old page's title; else `Untitled`).
/// - `key_claims`: the old page's claims as they are (claim, confidence and quote; their
///   `sources` are WikiMind's to fill in), then one `sourced` claim per `<<<EXCERPT`
///   block quoting, verbatim, its first sentence of at least three words without a
///   `[[link]]` that the answer does not quote yet (quotes compare case-insensitively, with
///   whitespace collapsed), then the sourced claims of every digest whose source's excerpt
///   gave none (it has no excerpt, or none with a fresh sentence), unless already quoted.
/// - `summary`: the old page's, else the first digest's, else the topic.
/// - `article_body`: the old body, then each digest's body in order, separated by blank
///   lines, leaving out paragraphs already written; the summary when that is empty.
/// - `concepts`, `backlink_suggestions`, `open_questions`: the old page's and then each
///   digest's, once each (case-insensitively; the first spelling wins), in order.
///
/// Within the room the prompt's `Room:` line gives (at most N key claims, an article_body
/// of at most M characters), as WikiMind's guard asks of a full page: one claim for each
/// new source first, then the old page's claims, newest first (its oldest let go), then
/// the digests' other claims; the old body as far as it fits, then new paragraphs while
/// they fit. A prompt with no `Room:` line gets everything, as above.
///
/// A block whose JSON does not parse is skipped, and an unclosed block is ignored. When
/// the material was read in parts and the prompt holds notes instead of `<<<DIGEST`
/// blocks, each note's quote becomes a `sourced` claim and its text a paragraph.
pub fn page_answer(user_message: &str) -> String {
    let blocks = blocks(user_message);
    let page = blocks
        .iter()
        .find(|b| b.kind == BlockKind::Page)
        .and_then(|b| json_object(b.text));
    let digests: Vec<(&str, Value)> = blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Digest)
        .filter_map(|b| Some((source_id(b.header), json_object(b.text)?)))
        .collect();
    let excerpts: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Excerpt)
        .collect();
    let old = page.as_ref();

    let title = user_message
        .trim_start()
        .lines()
        .next()
        .and_then(|first| first.strip_prefix("Topic: "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .or_else(|| old.and_then(|p| text_field(p, "title")))
        .unwrap_or("Untitled")
        .to_string();

    let (max_claims, max_body) = page_room(user_message);
    let kept: Vec<Value> = old
        .and_then(|p| p["key_claims"].as_array())
        .into_iter()
        .flatten()
        .filter_map(kept_claim)
        .collect();
    // One claim for each new source first, then the extra claims of the digests.
    let mut claims: Vec<Value> = Vec::new();
    let mut extras: Vec<Value> = Vec::new();
    let mut quoted: Vec<String> = kept
        .iter()
        .filter_map(|c| c["quote"].as_str())
        .map(quote_key)
        .collect();
    let mut excerpted: Vec<&str> = Vec::new();
    for excerpt in &excerpts {
        let fresh = sentences(excerpt.text)
            .into_iter()
            // WikiMind's own notes in an excerpt (`[N more characters …]`) are no source text.
            .find(|s| {
                !s.contains("[[")
                    && !s.starts_with('[')
                    && !s.ends_with('…')
                    && !quoted.contains(&quote_key(s))
            });
        if let Some(sentence) = fresh {
            quoted.push(quote_key(&sentence));
            claims.push(json!({"claim": sentence, "confidence": "sourced", "quote": sentence}));
            excerpted.push(source_id(excerpt.header));
        }
    }
    // Material read in parts: the notes' quotes are the sources' own words.
    for (text, quote) in note_quotes(user_message) {
        if !quoted.contains(&quote_key(&quote)) {
            quoted.push(quote_key(&quote));
            claims.push(json!({"claim": text, "confidence": "sourced", "quote": quote}));
        }
    }
    for (_, digest) in digests.iter().filter(|(id, _)| !excerpted.contains(id)) {
        let mut first = true;
        for claim in digest["key_claims"].as_array().into_iter().flatten() {
            let Some(quote) = text_field(claim, "quote") else {
                continue;
            };
            if claim["confidence"] != "sourced" || quoted.contains(&quote_key(quote)) {
                continue;
            }
            quoted.push(quote_key(quote));
            let said = text_field(claim, "claim").unwrap_or(quote);
            let claim = json!({"claim": said, "confidence": "sourced", "quote": quote});
            if first {
                claims.push(claim);
                first = false;
            } else {
                extras.push(claim);
            }
        }
    }
    // Within the page's room: the new sources' claims, then the old page's newest claims
    // (its oldest let go first), then the extra claims.
    claims.truncate(max_claims);
    let from_old = kept.len().min(max_claims - claims.len());
    let mut all: Vec<Value> = kept[kept.len() - from_old..].to_vec();
    all.append(&mut claims);
    let room_left = max_claims - all.len();
    all.extend(extras.into_iter().take(room_left));
    let claims = all;

    let summary = old
        .and_then(|p| text_field(p, "summary"))
        .or_else(|| digests.iter().find_map(|(_, d)| text_field(d, "summary")))
        .unwrap_or(&title)
        .to_string();

    let old_body = old
        .and_then(|p| p["article_body"].as_str())
        .unwrap_or_default()
        .trim();
    let mut written: Vec<String> = paragraphs(old_body);
    // The old body as far as the room goes (all of it when it fits), then new paragraphs
    // while they fit.
    let add = |body: &mut String, paragraph: &str| {
        let grown = body.chars().count() + paragraph.chars().count() + 2;
        if grown > max_body && !body.is_empty() {
            return false;
        }
        if !body.is_empty() {
            body.push_str("\n\n");
        }
        body.push_str(&truncate_chars(paragraph, max_body));
        true
    };
    let mut body = String::new();
    if old_body.chars().count() <= max_body {
        body = old_body.to_string();
    } else {
        for paragraph in paragraphs(old_body) {
            if !add(&mut body, &paragraph) {
                break;
            }
        }
    }
    for (_, digest) in &digests {
        for paragraph in paragraphs(digest["article_body"].as_str().unwrap_or_default()) {
            if written.contains(&paragraph) {
                continue;
            }
            if add(&mut body, &paragraph) {
                written.push(paragraph);
            }
        }
    }
    for (text, _) in note_quotes(user_message) {
        if !written.contains(&text) && add(&mut body, &text) {
            written.push(text);
        }
    }
    if body.is_empty() {
        body = summary.clone();
    }

    let union = |field: &str| {
        let mut out: Vec<String> = Vec::new();
        let lists = old.into_iter().chain(digests.iter().map(|(_, d)| d));
        for item in lists.flat_map(|v| v[field].as_array().into_iter().flatten()) {
            let Some(name) = item.as_str().map(str::trim).filter(|n| !n.is_empty()) else {
                continue;
            };
            if !out
                .iter()
                .any(|seen| seen.to_lowercase() == name.to_lowercase())
            {
                out.push(name.to_string());
            }
        }
        out
    };

    json!({
        "title": title,
        "summary": summary,
        "key_claims": claims,
        "concepts": union("concepts"),
        "backlink_suggestions": union("backlink_suggestions"),
        "open_questions": union("open_questions"),
        "article_body": body,
    })
    .to_string()
}

/// The room a page prompt gives the page (its `Room:` line: at most N key claims and an
/// article_body of at most M characters); no bound when the prompt has none.
fn page_room(user_message: &str) -> (usize, usize) {
    let number_after = |text: &str, marker: &str| -> Option<usize> {
        let at = text.find(marker)? + marker.len();
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    let line = user_message
        .lines()
        .rev()
        .find(|l| l.starts_with("Room: "))
        .unwrap_or_default();
    (
        number_after(line, "holds at most ").unwrap_or(usize::MAX),
        number_after(line, "article_body of at most ").unwrap_or(usize::MAX),
    )
}

mod read;
pub use read::compilation_answer_as_written;
use read::*;

#[cfg(test)]
mod tests;
