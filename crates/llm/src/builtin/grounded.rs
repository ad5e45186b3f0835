//! Grounded by construction: a Lark grammar (llguidance) for one call's answer, built from
//! the answer's bounded JSON Schema and the call's [`AnswerGrounds`], in which a quote can
//! only be a run of words of the texts the call is about.
//!
//! llguidance's `%regex {"substring_chunks": […]}` lexeme accepts any contiguous run of the
//! given chunks. The texts are cut into chunks that are whole words (runs of letters and
//! digits, as grounding counts words) or single other characters, each JSON-escaped on its
//! own, so a run of chunks is always a valid JSON string body and an escape sequence is
//! never cut. A `...` or `…` becomes a barrier chunk (a raw control character, which no JSON
//! string may hold), as does the seam between two texts: a quote never spans them, because
//! grounding reads an ellipsis as a cut between pieces. The run is intersected with a
//! regular expression that wants at least two words, starting at a word, so a `sourced`
//! quote always grounds.
//!
//! With sentence claims (the engine's default, [`Shape::Sentences`]) a claim says something:
//! its `claim` is a sentence of at least [`MIN_CLAIM_WORDS`] words, and its quote a passage of at least [`MIN_QUOTE_WORDS`] words where the texts hold
//! one (else two), so a bare name repeated as its own quote (`Coffea arabica` —
//! `"Coffea arabica"`) cannot be written.
//!
//! The JSON around it is written as Lark rules: objects with every property in the
//! schema's order, `": "` and `", "` between tokens (one way to write each answer, so the
//! model spends no tokens on layout), arrays bounded by `maxItems`, strings by
//! `maxLength`. A schema this writer does not know (a `pattern`, a `format`, numbers with
//! bounds, …) makes [`grounded_lark`] return `None`, and the engine keeps the plain
//! schema constraint.
//!
//! Cost is bounded: at most [`MAX_TEXT_BYTES`] of text and [`MAX_NAMES`] names go into one
//! grammar, whatever the call holds.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::AnswerGrounds;

/// The most bytes of text one grammar draws quotes from; the rest of a longer text is
/// left out (a prompt never holds that much for the models the engine runs).
pub(super) const MAX_TEXT_BYTES: usize = 64 * 1024;
/// The most offered names one grammar lists.
pub(super) const MAX_NAMES: usize = 400;
/// The longest quote, in characters, when the schema gives no shorter bound.
const MAX_QUOTE_CHARS: u64 = 300;
/// The longest name or title drawn from a text, in characters.
const MAX_NAME_CHARS: u64 = 80;
/// The most words a name or title drawn from a text has: the name rule's
/// ([`wikimind_text::name_rule::MAX_NAME_WORDS`]), so the grammar offers no run the rule
/// would then reject.
const MAX_NAME_WORDS: u64 = wikimind_text::name_rule::MAX_NAME_WORDS as u64;
/// The fewest words of a claim that must be a sentence ([`Shape::Sentences`]).
pub(super) const MIN_CLAIM_WORDS: u64 = 4;
/// The longest claim, in characters, when sentence claims are asked for.
pub(super) const MAX_CLAIM_CHARS: u64 = 400;
/// The shortest bound on a claim's characters that leaves room for a sentence; under it a
/// claim is held to its schema only.
pub(super) const MIN_SENTENCE_CHARS: u64 = 16;
/// The fewest words of a quote with sentence claims, where the texts hold a run that long.
pub(super) const MIN_QUOTE_WORDS: usize = 3;
/// A chunk no JSON string may hold: a quote cannot run across it.
const BARRIER: &str = "\u{1}";
/// How deep the writer follows a schema.
const MAX_DEPTH: usize = 24;

/// How a claim's own words and its quote are held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// A claim is any string within its bound; a quote two words or more.
    Free,
    /// A claim is a sentence ([`MIN_CLAIM_WORDS`] words or more); a quote
    /// [`MIN_QUOTE_WORDS`] words or more where the texts hold such a run.
    Sentences,
}

/// A Lark grammar for an answer of `schema` (already bounded) whose quotes and names come
/// from `grounds`; for a JSONL answer (`lines`), any number of lines each holding one
/// object of `schema`. `None` when the schema holds something the writer does not know.
pub(super) fn grounded_lark(
    schema: &Value,
    grounds: &AnswerGrounds,
    lines: bool,
    shape: Shape,
) -> Option<String> {
    let mut w = Writer::new(schema, grounds, shape);
    let top = w.value(schema, Field::Top, 0)?;
    let mut out = String::new();
    if lines {
        let _ = writeln!(out, "start: line+\nline: {top} \"\\n\"");
    } else {
        let _ = writeln!(out, "start: {top}");
    }
    for rule in &w.rules {
        out.push_str(rule);
        out.push('\n');
    }
    Some(out)
}

/// Where in the answer a value is: decides whether its strings are held to the texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// The answer itself.
    Top,
    /// A property of the answer object.
    TopProperty,
    /// The answer's `title`.
    Title,
    /// An item of `concepts` or `backlink_suggestions` (or the array itself).
    Name,
    /// Anything else.
    Plain,
}

/// One text cut into chunks, with the letters it has beyond ASCII.
struct Chunked {
    chunks: Vec<String>,
    /// The most words in a row it holds with only separators between them (counted up to
    /// [`MIN_QUOTE_WORDS`]): a quote needs two.
    run: usize,
}

struct Writer<'a> {
    root: &'a Value,
    shape: Shape,
    grounds: &'a AnswerGrounds,
    rules: Vec<String>,
    /// Rule names already written, by key (a `$ref`, a terminal's shape).
    named: std::collections::HashMap<String, String>,
    /// The letters and digits beyond ASCII the texts hold (words are made of these).
    letters: BTreeSet<char>,
    /// All texts, joined by barriers.
    all: Chunked,
    /// Each text on its own, when every text is named (for `page` fields).
    each: Vec<(String, Chunked)>,
}

impl<'a> Writer<'a> {
    fn new(root: &'a Value, grounds: &'a AnswerGrounds, shape: Shape) -> Writer<'a> {
        let mut letters = BTreeSet::new();
        let mut room = MAX_TEXT_BYTES;
        let mut all = Vec::new();
        let mut each = Vec::new();
        let named = !grounds.texts.is_empty() && grounds.texts.iter().all(|t| t.name.is_some());
        for text in &grounds.texts {
            let taken = cut(&text.text, room);
            room -= taken.len();
            let chunks = chunk(taken, &mut letters);
            if !all.is_empty() {
                all.push(BARRIER.to_string());
            }
            all.extend(chunks.iter().cloned());
            if named {
                let name = text.name.clone().unwrap_or_default();
                let run = word_run(&chunks);
                each.push((name, Chunked { chunks, run }));
            }
        }
        let all = Chunked {
            run: word_run(&all),
            chunks: all,
        };
        Writer {
            root,
            shape,
            grounds,
            rules: Vec::new(),
            named: std::collections::HashMap::new(),
            letters,
            all,
            each,
        }
    }

    /// A rule (a nonterminal) written once per `key`, named `r<n>`.
    fn rule(
        &mut self,
        key: &str,
        make: impl FnOnce(&mut Self) -> Option<String>,
    ) -> Option<String> {
        if let Some(name) = self.named.get(key) {
            return Some(name.clone());
        }
        let name = format!("r{}", self.named.len());
        self.named.insert(key.to_string(), name.clone());
        let body = make(self)?;
        self.rules.push(format!("{name}: {body}"));
        Some(name)
    }

    /// The expression for a value of `node`.
    fn value(&mut self, node: &Value, field: Field, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        let obj = match node {
            Value::Bool(true) => return self.value(&Value::Object(Map::new()), field, depth),
            Value::Object(o) => o,
            _ => return None,
        };
        if let Some(Value::String(target)) = obj.get("$ref") {
            if obj
                .keys()
                .any(|k| !IGNORED.contains(&k.as_str()) && k != "$ref")
            {
                return None;
            }
            let target_node = resolve(self.root, target)?;
            let key = format!("ref {target} {field:?}");
            return self.rule(&key, |w| w.value(target_node, field, depth + 1));
        }
        for key in obj.keys() {
            if !KNOWN.contains(&key.as_str()) {
                return None;
            }
        }
        if let Some(c) = obj.get("const") {
            return Some(lit(&c.to_string()));
        }
        if let Some(Value::Array(options)) = obj.get("enum") {
            let alts: Vec<String> = options.iter().map(|o| lit(&o.to_string())).collect();
            return (!alts.is_empty()).then(|| group(&alts));
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(alts)) = obj.get(key) {
                if obj.contains_key("type") || obj.contains_key("properties") {
                    return None;
                }
                let mut out = Vec::new();
                for alt in alts {
                    out.push(self.value(alt, field, depth + 1)?);
                }
                return (!out.is_empty()).then(|| group(&out));
            }
        }
        let types: Vec<&str> = match obj.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            None if obj.contains_key("properties") => vec!["object"],
            _ => return None,
        };
        let mut alts = Vec::new();
        for t in types {
            alts.push(match t {
                "null" => lit("null"),
                "boolean" => group(&[lit("true"), lit("false")]),
                "integer" => self.terminal("INT", r"/-?(?:0|[1-9][0-9]{0,15})/"),
                "number" => self.terminal(
                    "NUM",
                    r"/-?(?:0|[1-9][0-9]{0,15})(?:\.[0-9]{1,16})?(?:[eE][+\-]?[0-9]{1,3})?/",
                ),
                "string" => self.string(obj, field)?,
                "array" => self.array(obj, field, depth)?,
                "object" => self.object(obj, field, depth)?,
                _ => return None,
            });
        }
        (!alts.is_empty()).then(|| group(&alts))
    }

    fn terminal(&mut self, name: &str, body: &str) -> String {
        let key = name.to_string();
        if let Some(n) = self.named.get(&key) {
            return n.clone();
        }
        self.named.insert(key, name.to_string());
        self.rules.push(format!("{name}: {body}"));
        name.to_string()
    }

    /// A JSON string of at most `maxLength` characters, or a title or name drawn from the
    /// texts.
    fn string(&mut self, obj: &Map<String, Value>, field: Field) -> Option<String> {
        if obj.contains_key("minLength") {
            return None;
        }
        let max = obj
            .get("maxLength")
            .and_then(Value::as_u64)
            .unwrap_or(4096)
            .min(1 << 16);
        let free = self.terminal(
            &format!("STR{max}"),
            &format!("/\"{JSON_CHAR}{{0,{max}}}\"/"),
        );
        match field {
            Field::Title => match &self.grounds.title {
                Some(own) => {
                    let own = lit(&format!("\"{}\"", json_escape(own)));
                    match self.name_run() {
                        Some(run) => Some(group(&[own, run])),
                        None => Some(own),
                    }
                }
                None => Some(free),
            },
            Field::Name => {
                let mut alts: Vec<String> = Vec::new();
                let mut seen = BTreeSet::new();
                for name in self.grounds.names.iter().take(MAX_NAMES) {
                    let name = name.trim();
                    if !name.is_empty() && seen.insert(name) {
                        alts.push(lit(&format!("\"{}\"", json_escape(name))));
                    }
                }
                if let Some(run) = self.name_run() {
                    alts.push(run);
                }
                if alts.is_empty() {
                    return Some(free);
                }
                let key = "names";
                let body = alts.join(" | ");
                Some(self.terminal_keyed(key, "NAME", &body))
            }
            _ => Some(free),
        }
    }

    fn terminal_keyed(&mut self, key: &str, name: &str, body: &str) -> String {
        if let Some(n) = self.named.get(key) {
            return n.clone();
        }
        self.named.insert(key.to_string(), name.to_string());
        self.rules.push(format!("{name}: {body}"));
        name.to_string()
    }

    /// The run of every text's chunks, as one terminal (`None` when there is no text).
    fn text_terminal(&mut self, which: Option<usize>) -> Option<String> {
        let (key, chunked) = match which {
            None => ("TEXT".to_string(), &self.all),
            Some(i) => (format!("TEXT{i}"), &self.each.get(i)?.1),
        };
        if chunked.chunks.is_empty() {
            return None;
        }
        if let Some(n) = self.named.get(&key) {
            return Some(n.clone());
        }
        let spec = serde_json::json!({ "substring_chunks": chunked.chunks });
        let body = format!("%regex {spec}");
        self.named.insert(key.clone(), key.clone());
        self.rules.push(format!("{key}: {body}"));
        Some(key)
    }

    /// A title or name drawn from the texts: one to [`MAX_NAME_WORDS`] words joined by
    /// single spaces or hyphens.
    fn name_run(&mut self) -> Option<String> {
        let text = self.text_terminal(None)?;
        let word = self.word_class();
        let shape = format!("/{word}+(?:[ \\-]{word}+){{0,{}}}/", MAX_NAME_WORDS - 1);
        let bound = format!("/[^\\x00-\\x1F]{{1,{MAX_NAME_CHARS}}}/");
        let body = self.terminal("NAMERUN", &format!("{text} & {shape} & {bound}"));
        Some(self.terminal("NAMESTR", &format!("\"\\\"\" {body} \"\\\"\"")))
    }

    /// A quote: a run of at least two words of the texts (of text `which` only, when
    /// given), at most `max` characters, as a JSON string. `None` when no text has two
    /// words in a row.
    fn quote(&mut self, which: Option<usize>, max: u64) -> Option<String> {
        let run = match which {
            None => self.all.run,
            Some(i) => self.each.get(i)?.1.run,
        };
        if run < 2 {
            return None;
        }
        let words = match self.shape {
            Shape::Free => 2,
            Shape::Sentences => run.min(MIN_QUOTE_WORDS),
        };
        let text = self.text_terminal(which)?;
        let word = self.word_class();
        let sep = self.sep();
        let shape = format!("/{word}+(?:(?:{sep})+{word}+){{{},}}(?:{sep})?/", words - 1);
        let max = max.clamp(8, MAX_QUOTE_CHARS);
        let bound = format!("/(?:{word}|{sep}){{2,{max}}}/");
        let tag = which.map_or(String::new(), |i| i.to_string());
        let body = self.terminal(
            &format!("QUOTEBODY{tag}"),
            &format!("{text} & {shape} & {bound}"),
        );
        Some(self.terminal(&format!("QUOTE{tag}"), &format!("\"\\\"\" {body} \"\\\"\"")))
    }

    /// A claim's words as a JSON string: a sentence of at least [`MIN_CLAIM_WORDS`] words,
    /// starting at a word, at most
    /// `max` characters (at most [`MAX_CLAIM_CHARS`]). A word is a run of letters and digits between separators, or in
    /// scripts written without spaces (Han, kana, Thai, Lao, Myanmar, Khmer) one character.
    /// Its words are free: a claim says in its own words what its quote shows.
    fn sentence(&mut self, max: u64) -> String {
        // A claim is one sentence: a few hundred characters at most whatever room the
        // schema leaves (a longer bound also makes the terminal costly to build).
        let max = max.clamp(MIN_SENTENCE_CHARS, MAX_CLAIM_CHARS);
        let token = format!("(?:[{SENT_WORD}]+(?:{SENT_SEP})+|[{SENT_CHAR_WORD}](?:{SENT_SEP})*)");
        // At least four words, starting at a word. No final stop is asked for: the loop
        // check closes a string where a phrase it repeats first ended, which is a word, and
        // a grammar that wants a stop there would let the loop run on.
        let words = format!(
            "/{token}{{{},}}(?:[{SENT_WORD}]+|[{SENT_CHAR_WORD}])(?:{SENT_SEP})*/",
            MIN_CLAIM_WORDS - 1
        );
        // Four words of one character each and a stop: a short sentence (`咖啡很好。`).
        // The bound counts the characters of the JSON string body (an escape counts as
        // its characters), a simple class so that the intersection stays small.
        let bound = format!("/[^\\x00-\\x1F]{{{},{max}}}/", MIN_CLAIM_WORDS + 1);
        let body = self.terminal(&format!("SENTBODY{max}"), &format!("{words} & {bound}"));
        self.terminal(
            &format!("SENTENCE{max}"),
            &format!("\"\\\"\" {body} \"\\\"\""),
        )
    }

    /// The characters of a word: ASCII letters and digits, and the letters and digits
    /// beyond ASCII the texts hold.
    fn word_class(&self) -> String {
        let mut class = String::from("[A-Za-z0-9");
        for c in &self.letters {
            let _ = write!(class, "\\x{{{:X}}}", *c as u32);
        }
        class.push(']');
        class
    }

    /// One separator of a JSON string body: a character that is not a letter, a digit, a
    /// quote, a backslash or a control character, or an escape sequence.
    fn sep(&self) -> String {
        let mut class = String::from("[^A-Za-z0-9\\x22\\x5C\\x00-\\x1F");
        for c in &self.letters {
            let _ = write!(class, "\\x{{{:X}}}", *c as u32);
        }
        class.push(']');
        format!("{class}|\\x5C[\\x22\\x5C\\x2Fbfnrt]|\\x5Cu[0-9a-fA-F]{{4}}")
    }

    fn array(&mut self, obj: &Map<String, Value>, field: Field, depth: usize) -> Option<String> {
        let items = obj.get("items")?;
        let item_field = match field {
            Field::Name => Field::Name,
            _ => Field::Plain,
        };
        let item = self.value(items, item_field, depth + 1)?;
        let max = obj
            .get("maxItems")
            .and_then(Value::as_u64)
            .unwrap_or(8)
            .min(64);
        let min = obj
            .get("minItems")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            .min(max);
        if max == 0 {
            return Some(lit("[]"));
        }
        let rest_min = min.saturating_sub(1);
        let rest = if max > 1 {
            if rest_min == max - 1 {
                format!(" ({} {item}){{{}}}", lit(", "), max - 1)
            } else if rest_min == 0 {
                format!(" ({} {item}){{0,{}}}", lit(", "), max - 1)
            } else {
                format!(" ({} {item}){{{rest_min},{}}}", lit(", "), max - 1)
            }
        } else {
            String::new()
        };
        let inner = format!("{item}{rest}");
        Some(if min == 0 {
            format!("({} [{inner}] {})", lit("["), lit("]"))
        } else {
            format!("({} {inner} {})", lit("["), lit("]"))
        })
    }

    fn object(&mut self, obj: &Map<String, Value>, field: Field, depth: usize) -> Option<String> {
        let props = match obj.get("properties") {
            Some(Value::Object(p)) if !p.is_empty() => p,
            _ => return None,
        };
        let top = field == Field::Top;
        // Quotes: in an object with a `quote`, a `sourced` confidence comes with a quote of
        // the texts, and a `page` names the text the quote is from.
        if props.contains_key("quote") {
            return self.claim_object(props, depth);
        }
        let mut parts = Vec::new();
        for (i, (key, prop)) in props.iter().enumerate() {
            let prop_field = match (top, key.as_str()) {
                (true, "title") => Field::Title,
                (true, "concepts" | "backlink_suggestions") => Field::Name,
                (true, _) => Field::TopProperty,
                _ => Field::Plain,
            };
            let value = self.value(prop, prop_field, depth + 1)?;
            parts.push(self.member(i, key, &value));
        }
        Some(format!("({} {})", parts.join(" "), lit("}")))
    }

    /// `{"key": ` for the first member, `, "key": ` for the others, then the value.
    fn member(&self, i: usize, key: &str, value: &str) -> String {
        let open = if i == 0 { "{" } else { ", " };
        let key = format!("{open}{}: ", serde_json::to_string(key).unwrap_or_default());
        format!("{} {value}", lit(&key))
    }

    /// An object holding a `quote` (a claim): one alternative per way its fields tie.
    fn claim_object(&mut self, props: &Map<String, Value>, depth: usize) -> Option<String> {
        let quote_schema = props.get("quote")?;
        let max = max_length(self.root, quote_schema).unwrap_or(MAX_QUOTE_CHARS);
        let nullable = allows_null(self.root, quote_schema);
        let confidences = props
            .get("confidence")
            .and_then(|c| string_consts(self.root, c, 0));
        let page_tied = props.contains_key("page") && !self.each.is_empty();
        // The texts a quote may come from: each on its own with the name its `page`
        // field gives, or all of them together.
        let sources: Vec<Option<usize>> = if page_tied {
            (0..self.each.len()).map(Some).collect()
        } else {
            vec![None]
        };
        let mut variants = Vec::new();
        for which in sources {
            let quote = self.quote(which, max);
            let page = which
                .and_then(|i| self.each.get(i))
                .map(|(name, _)| name.clone());
            let mut branches: Vec<(Option<String>, String)> = Vec::new();
            match (&confidences, &quote) {
                (Some(confs), Some(q)) => {
                    if confs.iter().any(|c| c == "sourced") {
                        branches.push((Some("sourced".to_string()), q.clone()));
                    }
                    let others: Vec<&String> = confs.iter().filter(|c| *c != "sourced").collect();
                    let q_or_null = if nullable {
                        group(&[q.clone(), lit("null")])
                    } else {
                        q.clone()
                    };
                    for c in others {
                        branches.push((Some(c.clone()), q_or_null.clone()));
                    }
                }
                (Some(confs), None) => {
                    if !nullable {
                        return None;
                    }
                    for c in confs.iter().filter(|c| *c != "sourced") {
                        branches.push((Some(c.clone()), lit("null")));
                    }
                }
                (None, Some(q)) => {
                    let q = if nullable {
                        group(&[q.clone(), lit("null")])
                    } else {
                        q.clone()
                    };
                    branches.push((None, q));
                }
                (None, None) => {
                    if !nullable {
                        return None;
                    }
                    branches.push((None, lit("null")));
                }
            }
            for (confidence, quote) in branches {
                let mut parts = Vec::new();
                for (i, (key, prop)) in props.iter().enumerate() {
                    let value = match key.as_str() {
                        "quote" => quote.clone(),
                        "confidence" if confidence.is_some() => {
                            lit(&serde_json::to_string(confidence.as_deref()?).ok()?)
                        }
                        "page" if page_tied => lit(&serde_json::to_string(page.as_deref()?).ok()?),
                        // The claim's own words: `claim` in an answer, `text` in a part's line.
                        "claim" | "text"
                            if self.shape == Shape::Sentences && is_string(self.root, prop) =>
                        {
                            match max_length(self.root, prop).unwrap_or(4096).min(1 << 16) {
                                // Too short a bound for a sentence: the schema's string.
                                max if max < MIN_SENTENCE_CHARS => {
                                    self.value(prop, Field::Plain, depth + 1)?
                                }
                                max => self.sentence(max),
                            }
                        }
                        _ => self.value(prop, Field::Plain, depth + 1)?,
                    };
                    parts.push(self.member(i, key, &value));
                }
                variants.push(format!("{} {}", parts.join(" "), lit("}")));
            }
        }
        if variants.is_empty() {
            return None;
        }
        let key = format!("claim {}", self.named.len());
        self.rule(&key, |_| Some(variants.join("\n  | ")))
    }
}

/// Keywords the writer knows how to hold an answer to.
const KNOWN: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "maxItems",
    "minItems",
    "maxLength",
    "minLength",
    "const",
    "enum",
    "oneOf",
    "anyOf",
    "additionalProperties",
    "x-guidance",
    "$defs",
    "definitions",
    "$schema",
    "$id",
    "title",
    "description",
    "default",
    "examples",
];

/// Keywords that say nothing about the value.
const IGNORED: &[&str] = &["description", "default", "title", "examples"];

/// The characters of a claim's words in scripts written with spaces (a class body): ASCII
/// letters and digits and every character beyond ASCII that is neither a separator
/// ([`SENT_SEP`]) nor a word on its own ([`SENT_CHAR_WORD`]).
const SENT_WORD: &str = r"A-Za-z0-9\x{80}-\x{9F}\x{A1}-\x{DFF}\x{F00}-\x{FFF}\x{10A0}-\x{177F}\x{1800}-\x{1FFF}\x{2070}-\x{2FFF}\x{3100}-\x{33FF}\x{4DC0}-\x{4DFF}\x{A000}-\x{D7FF}\x{E000}-\x{F8FF}\x{FB00}-\x{FF00}\x{FF10}-\x{FF19}\x{FF21}-\x{10FFFF}";
/// Characters that are a word each (a class body): scripts written without spaces between
/// words — Thai and Lao, Myanmar, Khmer, kana, Han.
const SENT_CHAR_WORD: &str = r"\x{E00}-\x{EFF}\x{1000}-\x{109F}\x{1780}-\x{17FF}\x{3040}-\x{30FF}\x{3400}-\x{4DBF}\x{4E00}-\x{9FFF}\x{F900}-\x{FAFF}";
/// One separator between a claim's words, in a JSON string body: ASCII punctuation and
/// space, the no-break space, general, CJK and full-width punctuation, or an escape.
const SENT_SEP: &str = r"[\x20\x21\x23-\x2F\x3A-\x40\x5B\x5D-\x60\x7B-\x7F\x{A0}\x{2000}-\x{206F}\x{3000}-\x{303F}\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF20}]|\x5C[\x22\x5C\x2Fbfnrt]|\x5Cu[0-9a-fA-F]{4}";

/// One character of a JSON string body, as a regular expression.
const JSON_CHAR: &str = r"(?:[^\x22\x5C\x00-\x1F]|\x5C[\x22\x5C\x2Fbfnrt]|\x5Cu[0-9a-fA-F]{4})";

fn resolve<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    let pointer = reference.strip_prefix('#')?;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return None;
    }
    root.pointer(pointer)
}

/// The string constants a schema allows (`const`, `enum`, `oneOf`/`anyOf` of those).
fn string_consts(root: &Value, node: &Value, depth: usize) -> Option<Vec<String>> {
    if depth > MAX_DEPTH {
        return None;
    }
    let obj = node.as_object()?;
    if let Some(Value::String(r)) = obj.get("$ref") {
        return string_consts(root, resolve(root, r)?, depth + 1);
    }
    if let Some(c) = obj.get("const") {
        return Some(vec![c.as_str()?.to_string()]);
    }
    if let Some(Value::Array(e)) = obj.get("enum") {
        return e.iter().map(|v| v.as_str().map(str::to_string)).collect();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(alts)) = obj.get(key) {
            let mut out = Vec::new();
            for alt in alts {
                out.extend(string_consts(root, alt, depth + 1)?);
            }
            return Some(out);
        }
    }
    None
}

fn max_length(root: &Value, node: &Value) -> Option<u64> {
    let obj = node.as_object()?;
    if let Some(Value::String(r)) = obj.get("$ref") {
        return max_length(root, resolve(root, r)?);
    }
    obj.get("maxLength").and_then(Value::as_u64)
}

/// Whether `node` (through a `$ref`) is a plain string: `"type": "string"`.
fn is_string(root: &Value, node: &Value) -> bool {
    let Some(obj) = node.as_object() else {
        return false;
    };
    if let Some(Value::String(r)) = obj.get("$ref") {
        return resolve(root, r).is_some_and(|t| is_string(root, t));
    }
    obj.get("type").and_then(Value::as_str) == Some("string")
        && !obj.contains_key("enum")
        && !obj.contains_key("const")
}

fn allows_null(root: &Value, node: &Value) -> bool {
    let Some(obj) = node.as_object() else {
        return false;
    };
    if let Some(Value::String(r)) = obj.get("$ref") {
        return resolve(root, r).is_some_and(|t| allows_null(root, t));
    }
    match obj.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    }
}

/// `(a | b)`, or `a` alone.
fn group(alts: &[String]) -> String {
    if alts.len() == 1 {
        alts[0].clone()
    } else {
        format!("({})", alts.join(" | "))
    }
}

/// A Lark string literal matching `text` exactly.
fn lit(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` as the body of a JSON string (without the quotes).
pub(super) fn json_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    out
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        c if (c as u32) < 0x20 => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => out.push(c),
    }
}

/// At most `room` bytes of `text`, cut at a character boundary.
fn cut(text: &str, room: usize) -> &str {
    if text.len() <= room {
        return text;
    }
    let mut end = room;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `text` as chunks: whole words (letters and digits) and single other characters, each
/// JSON-escaped; an ellipsis (`...` or longer, `…`) is a barrier. Records the letters and
/// digits beyond ASCII it meets in `letters`.
fn chunk(text: &str, letters: &mut BTreeSet<char>) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut dots = 0usize;
    let flush_dots = |out: &mut Vec<String>, dots: &mut usize| {
        if *dots >= 3 {
            out.push(BARRIER.to_string());
        } else {
            for _ in 0..*dots {
                out.push(".".to_string());
            }
        }
        *dots = 0;
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            flush_dots(&mut out, &mut dots);
            if !c.is_ascii() {
                letters.insert(c);
            }
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if c == '.' {
            dots += 1;
            continue;
        }
        flush_dots(&mut out, &mut dots);
        if c == '…' {
            out.push(BARRIER.to_string());
            continue;
        }
        let mut escaped = String::new();
        push_escaped(&mut escaped, c);
        out.push(escaped);
    }
    if !word.is_empty() {
        out.push(word);
    }
    flush_dots(&mut out, &mut dots);
    out
}

/// The most words that stand in a row in `chunks`, with only separators (no barrier)
/// between each two, counted up to [`MIN_QUOTE_WORDS`] (enough to choose a quote's
/// shortest run).
fn word_run(chunks: &[String]) -> usize {
    let mut best = 0;
    let mut run = 0;
    let mut after_sep = false;
    for c in chunks {
        if c == BARRIER {
            run = 0;
            after_sep = false;
        } else if c.chars().next().is_some_and(char::is_alphanumeric) {
            // Two word chunks in a row are never cut apart by `chunk`; a word after a
            // separator extends the run, the first word starts one.
            run = if run > 0 && after_sep { run + 1 } else { 1 };
            after_sep = false;
            best = best.max(run);
            if best >= MIN_QUOTE_WORDS {
                return best;
            }
        } else if run > 0 {
            after_sep = true;
        }
    }
    best
}

#[cfg(test)]
mod tests;
