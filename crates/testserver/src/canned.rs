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

/// The line that opens the source of a compile prompt.
const SOURCE_OPEN: &str = "<<<SOURCE\n";
/// The line that closes it (with the newline before it).
const SOURCE_CLOSE: &str = "\nSOURCE>>>";

/// Where the compile prompt's source markers are: the byte offsets of [`SOURCE_OPEN`] and
/// of [`SOURCE_CLOSE`] (the first opening, the last closing), when both are there in that
/// order.
fn source_region(message: &str) -> Option<(usize, usize)> {
    let open = message.find(SOURCE_OPEN)?;
    let close = message.rfind(SOURCE_CLOSE)?;
    (open + SOURCE_OPEN.len() <= close).then_some((open, close))
}

/// The kinds of block a page prompt holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    /// `<<<PAGE` … `PAGE>>>`: the page as last written, or `(no page yet)`.
    Page,
    /// `<<<DIGEST source N: title` … `DIGEST>>>`: one source's digest as JSON.
    Digest,
    /// `<<<EXCERPT source N` … `EXCERPT>>>`: that source's own text.
    Excerpt,
}

impl BlockKind {
    const ALL: [BlockKind; 3] = [BlockKind::Page, BlockKind::Digest, BlockKind::Excerpt];

    fn marker(self) -> &'static str {
        match self {
            BlockKind::Page => "PAGE",
            BlockKind::Digest => "DIGEST",
            BlockKind::Excerpt => "EXCERPT",
        }
    }
}

/// One block of a page prompt.
#[derive(Debug)]
struct Block<'a> {
    kind: BlockKind,
    /// What follows the marker on the opening line (`source 12: Title`), trimmed.
    header: &'a str,
    /// Everything between the opening line and the closing line, verbatim.
    text: &'a str,
}

/// The blocks of a page prompt, in order. A block runs from its opening line to the first
/// line that is exactly its closing marker, so text inside it (JSON strings holding `<<<`
/// or `>>>`, another block's markers in a source's excerpt) never ends it early; a block
/// never closed is left out.
fn blocks(message: &str) -> Vec<Block<'_>> {
    let mut out = Vec::new();
    let mut open: Option<(BlockKind, &str, usize)> = None;
    let mut offset = 0;
    for line in message.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let bare = line.trim();
        match open {
            None => {
                open = bare.strip_prefix("<<<").and_then(|rest| {
                    BlockKind::ALL.into_iter().find_map(|kind| {
                        let header = rest.strip_prefix(kind.marker())?;
                        (header.is_empty() || header.starts_with(char::is_whitespace))
                            .then(|| (kind, header.trim(), offset))
                    })
                });
            }
            Some((kind, header, text_start)) => {
                if bare.strip_suffix(">>>") == Some(kind.marker()) {
                    let text = &message[text_start..line_start];
                    let text = text.strip_suffix('\n').unwrap_or(text);
                    let text = text.strip_suffix('\r').unwrap_or(text);
                    out.push(Block { kind, header, text });
                    open = None;
                }
            }
        }
    }
    out
}

/// The source a block header names: `source 12: Title` gives `12`.
fn source_id(header: &str) -> &str {
    let rest = header.strip_prefix("source").unwrap_or(header).trim_start();
    let end = rest
        .find(|c: char| c == ':' || c.is_whitespace())
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The block's text parsed as a JSON object (`None` for anything else, `(no page yet)`
/// included).
fn json_object(text: &str) -> Option<Value> {
    serde_json::from_str::<Value>(text.trim())
        .ok()
        .filter(Value::is_object)
}

/// A string field with something in it.
fn text_field<'a>(value: &'a Value, field: &str) -> Option<&'a str> {
    value[field].as_str().filter(|s| !s.trim().is_empty())
}

/// An old page's claim as the answer keeps it: its text, its confidence (`inferred` when
/// missing or not a contract name) and its quote; `None` for a claim without text.
fn kept_claim(claim: &Value) -> Option<Value> {
    let said = text_field(claim, "claim")?;
    let confidence = claim["confidence"]
        .as_str()
        .filter(|c| matches!(*c, "sourced" | "inferred" | "opinion"))
        .unwrap_or("inferred");
    let quote = claim["quote"].as_str().map_or(Value::Null, Value::from);
    Some(json!({"claim": said, "confidence": confidence, "quote": quote}))
}

/// A quote as quotes are compared: whitespace collapsed, lower case.
fn quote_key(quote: &str) -> String {
    quote
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The paragraphs of a markdown body: runs of non-blank lines, each line as written.
fn paragraphs(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in body.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(current.join("\n"));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    out
}

/// Sentences of the text: runs ending in `.`, `!` or `?`, trimmed, each a verbatim slice.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let end_of_sentence = matches!(c, '.' | '!' | '?')
            && text[i + c.len_utf8()..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace);
        if end_of_sentence || c == '\n' {
            let end = if c == '\n' { i } else { i + c.len_utf8() };
            let s = text[start..end].trim().trim_start_matches('#').trim();
            if s.split_whitespace().count() >= 3 {
                out.push(s.to_string());
            }
            start = i + c.len_utf8();
        }
    }
    let rest = text[start..].trim();
    if rest.split_whitespace().count() >= 3 {
        out.push(rest.to_string());
    }
    out
}

/// [`compilation_answer`] with the source's links copied as written ([`Links::AsWritten`]).
pub fn compilation_answer_as_written(user_message: &str) -> String {
    let mut answer: Value =
        serde_json::from_str(&compilation_answer(user_message)).unwrap_or_else(|_| json!({}));
    let source = match source_region(user_message) {
        Some((open, close)) => &user_message[open + SOURCE_OPEN.len()..close],
        None => user_message,
    };
    let written = links_as_written(source);
    let insides: Vec<String> = written
        .iter()
        .map(|l| {
            l.trim_start_matches('!')
                .trim_start_matches("[[")
                .trim_end_matches("]]")
                .to_owned()
        })
        .collect();
    // A careful model titles a note as its author did, when the prompt says so.
    let given = user_message
        .lines()
        .find_map(|l| l.strip_prefix("Source title: "))
        .map(str::trim)
        .filter(|t| !t.is_empty() && *t != "(untitled)");
    if let Some(title) = given {
        answer["title"] = json!(title);
    }
    answer["backlink_suggestions"] = json!(written);
    answer["concepts"] = json!(insides.into_iter().take(8).collect::<Vec<_>>());
    answer.to_string()
}

/// The source's `[[links]]` and `![[embeds]]` as written, once each, in order.
fn links_as_written(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = source;
    while let Some(open) = rest.find("[[") {
        let bang = rest[..open].ends_with('!');
        let after = &rest[open + 2..];
        let Some(close) = after.find("]]") else { break };
        let inside = &after[..close];
        if !inside.contains('\n') && !inside.trim().is_empty() {
            let link = format!("{}[[{inside}]]", if bang { "!" } else { "" });
            if !out.contains(&link) {
                out.push(link);
            }
        }
        rest = &after[close + 2..];
    }
    out
}

/// The targets of the source's `[[wiki links]]` (`[[Target|shown]]` gives `Target`), once
/// each, in order.
fn link_targets(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for piece in source.split("[[").skip(1) {
        if let Some((inside, _)) = piece.split_once("]]") {
            let target = inside.split('|').next().unwrap_or_default().trim();
            if !target.is_empty() && !inside.contains('\n') && !out.iter().any(|t| t == target) {
                out.push(target.to_string());
            }
        }
    }
    out
}

/// The terms a source marks: link targets, then `**bold**` phrases of at most five words,
/// once each (case-insensitively), at most eight.
fn terms(source: &str) -> Vec<String> {
    let mut out = link_targets(source);
    for (i, piece) in source.split("**").enumerate() {
        let phrase = piece.trim();
        let words = phrase.split_whitespace().count();
        if i % 2 == 1
            && (1..=5).contains(&words)
            && !phrase.contains('\n')
            && !out.iter().any(|t| t.eq_ignore_ascii_case(phrase))
        {
            out.push(phrase.to_string());
        }
    }
    out.truncate(8);
    out
}

fn truncate_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canned_answer_quotes_the_prompt() {
        let prompt = "# Rust ownership\n\nEvery value has one owner. Moves transfer it! Ok.";
        let answer: Value = serde_json::from_str(&compilation_answer(prompt)).unwrap();
        assert_eq!(answer["title"], "Rust ownership");
        assert_eq!(answer["summary"], "Every value has one owner.");
        let claims = answer["key_claims"].as_array().unwrap();
        assert_eq!(claims.len(), 2, "{claims:?}");
        assert!(prompt.contains(claims[0]["quote"].as_str().unwrap()));
    }

    #[test]
    fn reads_only_the_source_and_keeps_its_links() {
        let prompt = "Articles already in the wiki:\n- Other\n\nSource:\n<<<SOURCE\n# Espresso\n\nEspresso is brewed under nine bars of pressure. See [[Grind Size]] for more.\nSOURCE>>>\n\nWrite it.";
        let answer: Value = serde_json::from_str(&compilation_answer(prompt)).unwrap();
        assert_eq!(answer["title"], "Espresso");
        assert!(answer["article_body"]
            .as_str()
            .unwrap()
            .contains("See [[Grind Size]] for more."));
        assert_eq!(
            answer["key_claims"][0]["quote"],
            "Espresso is brewed under nine bars of pressure."
        );
    }

    #[test]
    fn concepts_are_the_terms_the_source_marks() {
        let prompt = "<<<SOURCE\n# Milk\n\nSteamed milk makes **microfoam** for a [[Flat White|flat white]] and a [[Latte]]. **Microfoam** needs **cold milk**.\nSOURCE>>>";
        let answer: Value = serde_json::from_str(&compilation_answer(prompt)).unwrap();
        assert_eq!(
            answer["concepts"],
            json!(["Flat White", "Latte", "microfoam", "cold milk"])
        );
        assert_eq!(
            answer["backlink_suggestions"],
            json!(["Flat White", "Latte"])
        );
        let plain: Value = serde_json::from_str(&compilation_answer(
            "# Tea\n\nTea is a drink made from leaves.",
        ))
        .unwrap();
        assert_eq!(plain["concepts"], json!([]), "nothing marked, no concepts");
    }

    #[test]
    fn an_empty_prompt_still_gives_a_title() {
        let answer: Value = serde_json::from_str(&compilation_answer("  ")).unwrap();
        assert_eq!(answer["title"], "Untitled");
    }

    /// A page prompt as WikiMind's `page` template renders it.
    fn page_prompt(topic: &str, page: &str, digests: &str, excerpts: &str) -> String {
        format!(
            "Topic: {topic}\n\nArticles already in the wiki (link to them by exact title):\n- Espresso\n\nConcepts already in the wiki (reuse these names): crema\n\nThe page as last written:\n<<<PAGE\n{page}\nPAGE>>>\n\nNew or changed digests:\n{digests}\n\nExcerpts of their sources where they mention the topic:\n{excerpts}\n\nOther sources already written into the page:\n- source 3: Old notes — Grinding basics.\n\nWrite the page about {topic} as one JSON object."
        )
    }

    const OLD_PAGE: &str = r#"{"title": "Grind Size", "summary": "How fine coffee is ground.", "key_claims": [{"claim": "Finer grinds extract faster.", "confidence": "sourced", "quote": "finer grinds extract faster", "sources": [3]}, {"claim": "Burr grinders are better.", "confidence": "opinion", "quote": null, "sources": [3]}], "concepts": ["Extraction"], "open_questions": ["Does altitude matter?"], "backlink_suggestions": ["Espresso"], "article_body": "Grind size sets how fast water extracts coffee.\n\nFiner grinds extract faster."}"#;

    const DIGEST_12: &str = r#"<<<DIGEST source 12: Espresso guide
{"title": "Espresso guide", "summary": "Espresso needs a fine grind.", "key_claims": [{"claim": "Espresso uses a fine grind.", "confidence": "sourced", "quote": "a fine grind"}], "concepts": ["extraction", "Channeling"], "open_questions": [], "backlink_suggestions": ["Espresso", "Tamping"], "article_body": "Espresso needs a grind like table salt.\n\nFiner grinds extract faster."}
DIGEST>>>"#;

    const DIGEST_14: &str = r#"<<<DIGEST source 14: Pour-over
{"title": "Pour-over", "summary": "Pour-over uses a medium grind.", "key_claims": [{"claim": "Pour-over uses a medium grind.", "confidence": "sourced", "quote": "a medium grind"}], "concepts": ["Bloom"], "open_questions": ["Does altitude matter?", "Is paper better than metal?"], "backlink_suggestions": [], "article_body": "Pour-over wants a medium grind, like sand."}
DIGEST>>>"#;

    const EXCERPT_12: &str =
        "Espresso\n\nEspresso needs a grind like **table salt**. Too fine chokes the machine.";
    const EXCERPT_14: &str = "See [[Pour-over]] for the method.\nA medium grind, like coarse sand, suits pour-over brewers.";

    fn two_digest_prompt() -> String {
        page_prompt(
            "Grind Size",
            OLD_PAGE,
            &format!("{DIGEST_12}\n{DIGEST_14}"),
            &format!(
                "<<<EXCERPT source 12\n{EXCERPT_12}\nEXCERPT>>>\n<<<EXCERPT source 14\n{EXCERPT_14}\nEXCERPT>>>"
            ),
        )
    }

    #[test]
    fn a_page_keeps_to_the_room_its_prompt_gives_letting_go_of_its_oldest_claims() {
        let roomy = two_digest_prompt().replace(
            "\n\nWrite the page about",
            "\n\nRoom: the page holds at most 3 key claims and an article_body of at most 90 characters.\n\nWrite the page about",
        );
        assert_eq!(page_room(&roomy), (3, 90));
        assert_eq!(page_room(&two_digest_prompt()), (usize::MAX, usize::MAX));
        let page = assert_valid(&answer(&roomy));
        let claims = page["key_claims"].as_array().unwrap();
        let quotes: Vec<&str> = claims.iter().filter_map(|c| c["quote"].as_str()).collect();
        assert_eq!(claims.len(), 3, "{claims:?}");
        // The new sources' claims stay; of the old page's two, the newest (the opinion).
        assert_eq!(claims[0]["claim"], "Burr grinders are better.");
        assert!(
            EXCERPT_12.contains(quotes[0]) && EXCERPT_14.contains(quotes[1]),
            "{quotes:?}"
        );
        // The old body fits and stays; nothing more fits after it.
        let body = page["article_body"].as_str().unwrap();
        assert_eq!(
            body,
            "Grind size sets how fast water extracts coffee.\n\nFiner grinds extract faster."
        );
    }

    /// What WikiMind's contract demands of an answer: the required fields with their
    /// types, and every claim's confidence one of the three names.
    fn assert_valid(answer: &str) -> Value {
        let v: Value = serde_json::from_str(answer).unwrap_or_else(|e| panic!("{e}: {answer}"));
        for field in ["title", "summary", "article_body"] {
            assert!(v[field].is_string(), "{field} in {answer}");
        }
        assert!(!v["title"].as_str().unwrap().trim().is_empty(), "{answer}");
        for field in ["concepts", "backlink_suggestions", "open_questions"] {
            assert!(
                v[field].as_array().unwrap().iter().all(Value::is_string),
                "{field} in {answer}"
            );
        }
        for claim in v["key_claims"].as_array().unwrap() {
            assert!(claim["claim"].is_string(), "{claim}");
            assert!(
                matches!(
                    claim["confidence"].as_str(),
                    Some("sourced" | "inferred" | "opinion")
                ),
                "{claim}"
            );
            assert!(
                claim["quote"].is_string() || claim["quote"].is_null(),
                "{claim}"
            );
        }
        v
    }

    #[test]
    fn a_page_is_rewritten_from_the_old_page_and_two_digests() {
        let prompt = two_digest_prompt();
        assert!(is_page_prompt(&prompt));
        let page = assert_valid(&answer(&prompt));
        assert_eq!(page["title"], "Grind Size");
        assert_eq!(page["summary"], "How fine coffee is ground.");
        assert_eq!(
            page["key_claims"],
            json!([
                {"claim": "Finer grinds extract faster.", "confidence": "sourced", "quote": "finer grinds extract faster"},
                {"claim": "Burr grinders are better.", "confidence": "opinion", "quote": null},
                {"claim": "Espresso needs a grind like **table salt**.", "confidence": "sourced",
                 "quote": "Espresso needs a grind like **table salt**."},
                {"claim": "A medium grind, like coarse sand, suits pour-over brewers.", "confidence": "sourced",
                 "quote": "A medium grind, like coarse sand, suits pour-over brewers."},
            ]),
            "the old claims as they were, then one verbatim quote from each excerpt (a line \
             too short or holding a link is not quoted); digests with excerpts add no more"
        );
        assert!(EXCERPT_12.contains(page["key_claims"][2]["quote"].as_str().unwrap()));
        assert!(EXCERPT_14.contains(page["key_claims"][3]["quote"].as_str().unwrap()));
        assert_eq!(
            page["article_body"],
            "Grind size sets how fast water extracts coffee.\n\nFiner grinds extract faster.\n\n\
             Espresso needs a grind like table salt.\n\nPour-over wants a medium grind, like sand.",
            "the old body, then the digests' bodies, a paragraph already there written once"
        );
        assert_eq!(
            page["concepts"],
            json!(["Extraction", "Channeling", "Bloom"])
        );
        assert_eq!(page["backlink_suggestions"], json!(["Espresso", "Tamping"]));
        assert_eq!(
            page["open_questions"],
            json!(["Does altitude matter?", "Is paper better than metal?"])
        );
    }

    #[test]
    fn a_first_page_takes_the_first_digests_summary() {
        let prompt = page_prompt(
            "Grind Size",
            "(no page yet)",
            &format!("{DIGEST_12}\n{DIGEST_14}"),
            &format!("<<<EXCERPT source 12\n{EXCERPT_12}\nEXCERPT>>>"),
        );
        let page = assert_valid(&answer(&prompt));
        assert_eq!(page["title"], "Grind Size");
        assert_eq!(page["summary"], "Espresso needs a fine grind.");
        let quotes: Vec<&str> = page["key_claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["quote"].as_str().unwrap())
            .collect();
        assert_eq!(
            quotes,
            [
                "Espresso needs a grind like **table salt**.",
                "a medium grind"
            ],
            "source 14 has no excerpt, so its digest's own sourced claim is kept"
        );
        assert_eq!(
            page["article_body"],
            "Espresso needs a grind like table salt.\n\nFiner grinds extract faster.\n\n\
             Pour-over wants a medium grind, like sand."
        );
    }

    #[test]
    fn an_excerpt_already_quoted_gives_its_next_sentence() {
        let prompt = page_prompt(
            "Grind Size",
            OLD_PAGE,
            "",
            "<<<EXCERPT source 15\nFiner   grinds extract FASTER\nThey also taste more bitter.\nEXCERPT>>>",
        );
        let page = assert_valid(&answer(&prompt));
        let claims = page["key_claims"].as_array().unwrap();
        assert_eq!(claims.len(), 3, "{claims:?}");
        assert_eq!(claims[2]["quote"], "They also taste more bitter.");
        assert_eq!(
            page["article_body"],
            json!(serde_json::from_str::<Value>(OLD_PAGE).unwrap()["article_body"])
        );
    }

    #[test]
    fn malformed_blocks_are_skipped_and_the_answer_stays_valid() {
        let prompt = page_prompt(
            "Tamping",
            r#"{"title": "Tamping", "key_claims": "none", "summary": 3, "article_body": ["x"], "concepts": [1, null, "Pressure", "pressure"]}"#,
            "<<<DIGEST source 12: Broken\n{\"title\": \"Broken\", \"article_body\": \"ends with DIGEST>>> and <<<PAGE\"\nDIGEST>>>\n<<<DIGEST source 13: Good\n{\"summary\": \"Tamp evenly.\", \"key_claims\": [{\"claim\": 5, \"confidence\": \"sourced\", \"quote\": \"<<<EXCERPT source 9\"}, {\"confidence\": \"certain\"}, \"junk\"], \"article_body\": \"Tamp with <<<DIGEST>>> care.\"}\nDIGEST>>>\n<<<EXCERPT source 12\nnever closed",
            "",
        );
        let page = assert_valid(&answer(&prompt));
        assert_eq!(page["title"], "Tamping");
        assert_eq!(
            page["summary"], "Tamp evenly.",
            "the broken page's summary is not a string"
        );
        assert_eq!(page["concepts"], json!(["Pressure"]));
        assert_eq!(page["article_body"], "Tamp with <<<DIGEST>>> care.");
        assert_eq!(
            page["key_claims"],
            json!([{"claim": "<<<EXCERPT source 9", "confidence": "sourced", "quote": "<<<EXCERPT source 9"}]),
            "a sourced claim without text says its quote; claims without quotes are dropped"
        );

        let empty_topic = assert_valid(&page_answer("Topic: \n<<<PAGE\n(no page yet)\nPAGE>>>"));
        assert_eq!(empty_topic["title"], "Untitled");
        assert_eq!(empty_topic["article_body"], "Untitled");
    }

    #[test]
    fn every_cut_of_a_page_prompt_still_gets_a_valid_answer() {
        let prompt = format!("{}\u{e9}\u{1F600}", two_digest_prompt());
        for (i, _) in prompt.char_indices() {
            let cut = &prompt[..i];
            assert_valid(&answer(cut));
            assert_valid(&page_answer(cut));
            assert_valid(&page_answer(&prompt[i..]));
        }
    }

    #[test]
    fn a_source_that_mentions_page_markers_is_still_compiled() {
        let source = "# Notes on prompts\n\nTopic: Grind Size\n<<<PAGE\n(no page yet)\nPAGE>>>\nThe page prompt has these lines in it.";
        let standard = format!(
            "Articles already in the wiki (link to them by exact title):\n\nConcepts already in the wiki (reuse these names): \n\nSource title: n\nSource:\n<<<SOURCE\n{source}\nSOURCE>>>\n\nWrite the article as one JSON object."
        );
        let bare = format!("<<<SOURCE\n{source}\nSOURCE>>>");
        for prompt in [standard, bare] {
            assert!(!is_page_prompt(&prompt), "{prompt}");
            let article = assert_valid(&answer(&prompt));
            assert_eq!(article["title"], "Notes on prompts");
            assert_eq!(answer(&prompt), compilation_answer(&prompt));
        }
    }
    #[test]
    fn an_extraction_prompt_gets_notes_quoting_its_part_and_every_excerpt() {
        let prompt = "Document: Espresso\nPart 1 of 2 (section: -):\n<<<PART\n<<<DIGEST source 1: Espresso\n{\"title\":\"Espresso\",\"summary\":\"Strong. Very strong.\"}\nDIGEST>>>\n<<<EXCERPT source 1\nEspresso is brewed at nine bars. A shot takes thirty seconds. Crema forms on top.\nEXCERPT>>>\n<<<EXCERPT source 2\nMilk foam sits on the shot.\nEXCERPT>>>\nPART>>>\n\nWrite the notes.";
        let lines: Vec<Value> = answer(prompt)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let quotes: Vec<&str> = lines.iter().map(|l| l["quote"].as_str().unwrap()).collect();
        assert_eq!(
            quotes,
            [
                "Espresso is brewed at nine bars.",
                "A shot takes thirty seconds.",
                "Milk foam sits on the shot."
            ]
        );
        assert!(lines.iter().all(|l| l["type"] == "claim"));
        // A part of a long document: its first sentences.
        let plain = notes_answer("One two three four. Five six seven eight.");
        assert_eq!(plain.lines().count(), 2);
        assert_eq!(notes_answer(""), "");
    }

    #[test]
    fn a_page_prompt_over_notes_quotes_the_notes() {
        let prompt = "Topic: Espresso\n\n<<<PAGE\n(no page yet)\nPAGE>>>\n\nNew or changed digests:\nRead in parts.\n<<<NOTES\n[claim, sourced] Nine bars — quote: \"brewed at nine bars\" (part 1)\n[definition] Crema: foam\n[claim, inferred] Guess (part 2)\nNOTES>>>\n";
        let page: Value = serde_json::from_str(&answer(prompt)).unwrap();
        assert_eq!(page["title"], "Espresso");
        assert_eq!(page["key_claims"][0]["quote"], "brewed at nine bars");
        assert_eq!(page["key_claims"].as_array().unwrap().len(), 1);
        assert!(page["article_body"].as_str().unwrap().contains("Nine bars"));
    }

    #[test]
    fn the_final_compile_of_a_long_document_is_written_from_its_notes() {
        let prompt = "Articles already in the wiki (link to them by exact title):\n- Tea\n\nDocument: Ownership\nOutline:\n# Intro\n\nNotes from the whole document:\n<<<NOTES\n[claim, sourced] Values have owners — quote: \"Each value has an owner\" (part 1)\nNOTES>>>\n\nWrite the article as one JSON object.";
        let article: Value = serde_json::from_str(&answer(prompt)).unwrap();
        assert_eq!(article["title"], "Ownership");
        assert_eq!(article["key_claims"][0]["quote"], "Each value has an owner");
        assert_eq!(article["article_body"], "Values have owners");
    }

    #[test]
    fn a_judge_prompt_gets_scores_from_what_the_article_quotes_and_keeps() {
        let prompt = "Source title: tea.md\nSource:\n<<<SOURCE\nGreen tea is steamed. Black tea is oxidised fully. Oolong sits in between.\nSOURCE>>>\n\nArticle written from it:\n<<<ARTICLE\nTitle: Tea\nSummary: Green tea is steamed.\nKey claims:\n- [sourced] Steamed — quote: \"Green tea is  STEAMED.\"\n- [sourced] Invented — quote: \"Tea grows on the moon.\"\n- [inferred] Guess\nConcepts: tea\nBody:\nBlack tea is oxidised fully.\nARTICLE>>>\n\nScore the article as one JSON object.";
        assert!(is_judge_prompt(prompt));
        let v: Value = serde_json::from_str(&answer(prompt)).unwrap();
        assert_eq!(v["faithfulness"]["score"], 4);
        assert_eq!(
            v["faithfulness"]["reason"],
            "1 of 2 quoted claims are found in the source."
        );
        // Two of three sentences kept: 1 + 4 × 2/3, rounded.
        assert_eq!(v["coverage"]["score"], 4);
        // A compile prompt whose source mentions the markers is still a compile prompt.
        let compile = "Source title: x\nSource:\n<<<SOURCE\nSee <<<ARTICLE and ARTICLE>>> here.\nSOURCE>>>\n\nWrite the article as one JSON object.";
        assert!(!is_judge_prompt(compile));
        assert!(answer(compile).contains("\"key_claims\""));
    }
}
