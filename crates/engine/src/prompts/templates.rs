//! Prompts as configuration: every prompt WikiMind sends is a template with an id, a
//! version, a response type, an optional schema, and system/user text with `{{variables}}`.
//!
//! Built-in templates ship in the binary. A person overrides one by placing
//! `<data dir>/prompts/<id>.toml` (see [`PromptSet::load`]); a file that fails to load is
//! reported (which file, why) and the built-in template is used instead.
//!
//! ```toml
//! version = "my-compile-2"          # recorded with every compilation
//! response_type = "json"            # must match the built-in: json, jsonl or text
//! system = """You are …"""
//! user = """Source:\n{{source}}"""
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::structured::{ResponseType, Schema};

/// The compile prompt: one source in, one `CompilationResult` out.
pub const COMPILE: &str = "compile";
/// The extraction prompt of the large-source path: one chunk in, JSONL notes out.
pub const EXTRACT: &str = "extract";
/// The final compile over merged notes of a large source.
pub const COMPILE_NOTES: &str = "compile-notes";
/// The page prompt: a topic page written from the digests of every source that speaks of
/// it, one `CompilationResult` out.
pub const PAGE: &str = "page";
/// A free-form article prompt (text), used to compare token use in evaluations.
pub const FREEFORM: &str = "freeform";
/// The ask prompt: a question and the wiki pages found for it in, one `QuestionAnswer`
/// out.
pub const ASK: &str = "ask";
/// The eval's `llm_judge` prompt: an article and its source in, a `JudgeVerdict` out.
pub const JUDGE: &str = "judge";

/// Where a template came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateOrigin {
    /// Shipped with WikiMind.
    BuiltIn,
    /// Loaded from this file.
    File(PathBuf),
}

/// One prompt template.
#[derive(Debug, Clone)]
pub struct PromptTemplate {
    /// Its id (`compile`, `extract`, …).
    pub id: String,
    /// Its version, recorded with every compilation.
    pub version: String,
    /// The shape of answer it asks for.
    pub response: ResponseType,
    /// For `json` the whole answer's schema; for `jsonl` each object's; `None` for text.
    /// Compiled once, when the template is made or loaded.
    pub schema: Option<Schema>,
    /// The system message.
    pub system: String,
    /// The user message.
    pub user: String,
    /// Where it came from.
    pub origin: TemplateOrigin,
    /// The variables it may use.
    allowed: &'static [&'static str],
}

/// A rendered prompt: a system and a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The contract and the rules.
    pub system: String,
    /// The material and the task.
    pub user: String,
}

impl PromptTemplate {
    /// Fills the `{{variables}}` in; a variable not given renders empty.
    pub fn render(&self, vars: &[(&str, &str)]) -> Prompt {
        Prompt {
            system: fill(&self.system, vars),
            user: fill(&self.user, vars),
        }
    }

    /// The schema of its answer; any value for a text template, which has none.
    pub fn schema(&self) -> Schema {
        self.schema.clone().unwrap_or_else(Schema::any)
    }
}

/// Every template WikiMind uses, by id.
#[derive(Debug, Clone)]
pub struct PromptSet {
    templates: BTreeMap<String, PromptTemplate>,
}

impl Default for PromptSet {
    fn default() -> Self {
        PromptSet::builtin()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateFile {
    version: Option<String>,
    response_type: String,
    schema: Option<String>,
    system: String,
    user: String,
}

impl PromptSet {
    /// The built-in templates.
    pub fn builtin() -> PromptSet {
        let mut templates = BTreeMap::new();
        for t in builtin_templates() {
            templates.insert(t.id.clone(), t);
        }
        PromptSet { templates }
    }

    /// The built-in templates with overrides from `dir` (`<id>.toml` files). Returns the
    /// set and one message per file that could not be used (the built-in is used then).
    pub fn load(dir: &Path) -> (PromptSet, Vec<String>) {
        let mut set = PromptSet::builtin();
        let mut problems = Vec::new();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return (set, problems);
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if path.extension().and_then(|e| e.to_str()) != Some("toml") {
                continue;
            }
            let id = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            let Some(builtin) = set.templates.get(&id).cloned() else {
                problems.push(format!(
                    "{}: no built-in prompt is called {id:?} (known: {}); ignored",
                    path.display(),
                    set.templates.keys().cloned().collect::<Vec<_>>().join(", ")
                ));
                continue;
            };
            match load_override(&path, &builtin) {
                Ok(t) => {
                    set.templates.insert(id, t);
                }
                Err(why) => problems.push(format!(
                    "{}: {why}; using the built-in {id:?} prompt",
                    path.display()
                )),
            }
        }
        (set, problems)
    }

    /// The template with this id. Every built-in id is always present.
    pub fn get(&self, id: &str) -> &PromptTemplate {
        self.templates
            .get(id)
            .or_else(|| self.templates.get(COMPILE))
            .expect("the built-in compile template is always present")
    }

    /// Every template, by id.
    pub fn iter(&self) -> impl Iterator<Item = &PromptTemplate> {
        self.templates.values()
    }
}

fn load_override(path: &Path, builtin: &PromptTemplate) -> Result<PromptTemplate, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    let file: TemplateFile = toml::from_str(&text).map_err(|e| {
        let line = e
            .span()
            // Counted in bytes, so a span that is not on a character cannot panic.
            .map(|r| {
                let before = &text.as_bytes()[..r.start.min(text.len())];
                before.iter().filter(|&&b| b == b'\n').count() + 1
            })
            .map(|l| format!(" (line {l})"))
            .unwrap_or_default();
        format!("{}{line}", e.message())
    })?;
    let response: ResponseType = file.response_type.parse()?;
    if response != builtin.response {
        return Err(format!(
            "response_type must be {} for the {:?} prompt (WikiMind reads its answer that way)",
            response_name(builtin.response),
            builtin.id
        ));
    }
    for body in [&file.system, &file.user] {
        for var in variables(body) {
            if !builtin.allowed.contains(&var.as_str()) {
                return Err(format!(
                    "unknown variable {{{{{var}}}}} (this prompt knows: {})",
                    builtin.allowed.join(", ")
                ));
            }
        }
    }
    let schema = match file.schema.as_deref() {
        None => builtin.schema.clone(),
        Some("compilation") => Some(crate::contract::compilation_contract().clone()),
        Some("notes") => Some(notes_contract().clone()),
        Some("answer") => Some(crate::contract::answer_contract().clone()),
        Some(json) => Some(Schema::from_json(json).map_err(|e| format!("schema: {e}"))?),
    };
    let version = file.version.unwrap_or_else(|| {
        let hash = crate::store::content_hash(&text);
        format!("{}-custom-{}", builtin.id, &hash[..8])
    });
    Ok(PromptTemplate {
        id: builtin.id.clone(),
        version,
        response,
        schema,
        system: file.system,
        user: file.user,
        origin: TemplateOrigin::File(path.to_path_buf()),
        allowed: builtin.allowed,
    })
}

fn response_name(r: ResponseType) -> &'static str {
    match r {
        ResponseType::Text => "text",
        ResponseType::Json => "json",
        ResponseType::Jsonl => "jsonl",
    }
}

/// The `{{names}}` used in a template body.
fn variables(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find("{{") {
        let after = &rest[i + 2..];
        match after.find("}}") {
            Some(j) => {
                out.push(after[..j].trim().to_string());
                rest = &after[j + 2..];
            }
            None => break,
        }
    }
    out
}

/// Replaces each `{{ name }}` with its value (one pass, so values are never re-read as
/// templates).
fn fill(body: &str, vars: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(body.len() + vars.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = body;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find("}}") {
            Some(j) => {
                let name = after[..j].trim();
                if let Some((_, v)) = vars.iter().find(|(k, _)| *k == name) {
                    out.push_str(v);
                }
                rest = &after[j + 2..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// [`notes_schema`] compiled for the structured engine, once per process (no fallback:
/// a unit test pins that it compiles).
pub fn notes_contract() -> &'static Schema {
    static NOTES: std::sync::LazyLock<Schema> = std::sync::LazyLock::new(|| {
        Schema::new(notes_schema()).expect("the notes schema is a schema the engine can use")
    });
    &NOTES
}

/// The per-object schema of the extraction prompt: mixed notes told apart by `type`.
pub fn notes_schema() -> Value {
    serde_json::json!({
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "type": {"const": "claim"},
                    "text": {"type": "string"},
                    "confidence": {"enum": ["sourced", "inferred", "opinion"], "default": "inferred"},
                    "quote": {"type": ["string", "null"], "default": null}
                },
                "required": ["type", "text"]
            },
            {
                "type": "object",
                "properties": {
                    "type": {"const": "definition"},
                    "entity": {"type": "string"},
                    "definition": {"type": "string"}
                },
                "required": ["type", "entity", "definition"]
            },
            {
                "type": "object",
                "properties": {
                    "type": {"const": "relationship"},
                    "subject": {"type": "string"},
                    "predicate": {"type": "string"},
                    "object": {"type": "string"}
                },
                "required": ["type", "subject", "predicate", "object"]
            },
            {
                "type": "object",
                "properties": {
                    "type": {"const": "question"},
                    "text": {"type": "string"}
                },
                "required": ["type", "text"]
            }
        ]
    })
}

const COMPILE_VARS: &[&str] = &["source", "source_title", "known_titles", "known_concepts"];
const EXTRACT_VARS: &[&str] = &[
    "chunk",
    "chunk_number",
    "chunk_count",
    "source_title",
    "section",
];
const NOTES_VARS: &[&str] = &[
    "notes",
    "outline",
    "source_title",
    "known_titles",
    "known_concepts",
    "coverage",
];
const FREEFORM_VARS: &[&str] = &["source", "source_title"];
const PAGE_VARS: &[&str] = &[
    "topic",
    "max_claims",
    "max_body_chars",
    "page",
    "digests",
    "excerpts",
    "others",
    "known_titles",
    "known_concepts",
];

const ASK_VARS: &[&str] = &["question", "pages"];

const RULES: &str = "The JSON object has these fields:
- \"title\": a short, specific article title (string).
- \"summary\": two or three sentences saying what the article covers (string).
- \"key_claims\": the most important claims, as objects {\"claim\", \"confidence\", \"quote\"}:
  - \"confidence\" is \"sourced\" when the source states the claim; then \"quote\" MUST be a short verbatim quote (a few words to one sentence) copied exactly from the source.
  - \"inferred\" when the claim follows from the source but is not stated in it; \"quote\" is null or a supporting excerpt.
  - \"opinion\" for judgements; \"quote\" is the source's words when the opinion is the source's.
  Never label a claim \"sourced\" without an exact quote from the source.
- \"concepts\": the key concepts (short noun phrases). Reuse the exact names of existing concepts listed below when they fit.
- \"backlink_suggestions\": titles of other articles this one relates to. Use the exact titles of existing articles listed below; you may also name articles that should exist.
- \"open_questions\": questions the source leaves open.
- \"article_body\": the article in markdown (headings, lists, short paragraphs). Link to other articles with [[Exact Title]] or [[Exact Title|shown text]], using existing titles where they fit.

Write only what the source supports. Keep the answer valid JSON: escape quotes and newlines inside strings.";

fn builtin_templates() -> Vec<PromptTemplate> {
    let compile_system = format!(
        "You are WikiMind, a careful knowledge compiler. You turn one source document into one wiki article, answering with a single JSON object and nothing else (no prose, no code fence).\n\n{RULES}"
    );
    vec![
        PromptTemplate {
            id: COMPILE.into(),
            version: "compile-v2".into(),
            response: ResponseType::Json,
            schema: Some(crate::contract::compilation_contract().clone()),
            system: compile_system.clone(),
            user: "Articles already in the wiki (link to them by exact title):\n{{known_titles}}\n\nConcepts already in the wiki (reuse these names): {{known_concepts}}\n\nSource title: {{source_title}}\nSource:\n<<<SOURCE\n{{source}}\nSOURCE>>>\n\nWrite the article as one JSON object.".into(),
            origin: TemplateOrigin::BuiltIn,
            allowed: COMPILE_VARS,
        },
        PromptTemplate {
            id: EXTRACT.into(),
            version: "extract-v1".into(),
            response: ResponseType::Jsonl,
            schema: Some(notes_contract().clone()),
            system: "You read one part of a long document and write down what it says as notes, one JSON object per line (JSONL), nothing else: no prose, no code fence, no array.\n\nEach line is one of:\n{\"type\": \"claim\", \"text\": \"...\", \"confidence\": \"sourced\", \"quote\": \"exact words copied from the text\"}\n{\"type\": \"definition\", \"entity\": \"...\", \"definition\": \"...\"}\n{\"type\": \"relationship\", \"subject\": \"...\", \"predicate\": \"...\", \"object\": \"...\"}\n{\"type\": \"question\", \"text\": \"...\"}\n\nA claim is \"sourced\" only with a short quote copied exactly from the text; otherwise \"inferred\" (or \"opinion\" for judgements). Write every line as complete, valid JSON on a single line.".into(),
            user: "Document: {{source_title}}\nPart {{chunk_number}} of {{chunk_count}} (section: {{section}}):\n<<<PART\n{{chunk}}\nPART>>>\n\nWrite the notes for this part, one JSON object per line.".into(),
            origin: TemplateOrigin::BuiltIn,
            allowed: EXTRACT_VARS,
        },
        PromptTemplate {
            id: COMPILE_NOTES.into(),
            version: "compile-notes-v1".into(),
            response: ResponseType::Json,
            schema: Some(crate::contract::compilation_contract().clone()),
            system: format!(
                "You are WikiMind, a careful knowledge compiler. A long document was read in parts and its notes are below; you turn them into one wiki article, answering with a single JSON object and nothing else (no prose, no code fence). Quotes in the notes are verbatim from the document: reuse them as they are for sourced claims.\n\n{RULES}"
            ),
            user: "Articles already in the wiki (link to them by exact title):\n{{known_titles}}\n\nConcepts already in the wiki (reuse these names): {{known_concepts}}\n\nDocument: {{source_title}}\nOutline:\n{{outline}}\n\n{{coverage}}\n\nNotes from the whole document:\n<<<NOTES\n{{notes}}\nNOTES>>>\n\nWrite the article as one JSON object.".into(),
            origin: TemplateOrigin::BuiltIn,
            allowed: NOTES_VARS,
        },
        PromptTemplate {
            id: PAGE.into(),
            version: "page-v2".into(),
            response: ResponseType::Json,
            schema: Some(crate::contract::compilation_contract().clone()),
            system: format!(
                "You are WikiMind, a careful knowledge compiler. You write one wiki page about one topic from what several sources say of it, answering with a single JSON object and nothing else (no prose, no code fence). You are given the page as it was last written (if any), the digests of sources that are new or changed (each labelled with its source), excerpts of those sources' own text where they mention the topic, and a list of the other sources already written into the page.\n\nRewrite the whole page: keep what the page already says unless a source now contradicts it (then say so), add what the new digests say, and attribute claims to the sources that hold them. Keep the sourced claims the page has, add at least one sourced claim from each new digest that has one, and do not make the page shorter. A page has bounded room (given below): when it is full, merge claims or let go of the oldest to make room for the claims of the new sources; every source stays listed on the page with its summary, so a source need not be quoted to be reachable. A \"sourced\" claim's quote must be copied exactly from the excerpts, the digests' quotes or the page's existing quotes: those are the sources' own words. The title is the topic's name.\n\n{RULES}"
            ),
            user: "Topic: {{topic}}\n\nArticles already in the wiki (link to them by exact title):\n{{known_titles}}\n\nConcepts already in the wiki (reuse these names): {{known_concepts}}\n\nThe page as last written:\n<<<PAGE\n{{page}}\nPAGE>>>\n\nNew or changed digests:\n{{digests}}\n\nExcerpts of their sources where they mention the topic:\n{{excerpts}}\n\nOther sources already written into the page:\n{{others}}\n\nRoom: the page holds at most {{max_claims}} key claims and an article_body of at most {{max_body_chars}} characters.\n\nWrite the page about {{topic}} as one JSON object.".into(),
            origin: TemplateOrigin::BuiltIn,
            allowed: PAGE_VARS,
        },
        PromptTemplate {
            id: ASK.into(),
            version: "ask-v1".into(),
            response: ResponseType::Json,
            schema: Some(crate::contract::answer_contract().clone()),
            system: "You are WikiMind, answering a question from a person's wiki. You are given wiki pages, each between <<<PAGE Title and PAGE>>> with its summary, its claims and their quotes, and its text. Answer only from these pages, with a single JSON object and nothing else (no prose, no code fence).\n\nThe JSON object has these fields:\n- \"answer\": the answer in markdown, short and direct. Name the pages you use with [[Exact Title]]. If the pages do not answer the question, say so plainly and say what they do cover.\n- \"claims\": the claims your answer makes, as objects {\"claim\", \"confidence\", \"quote\", \"page\"}:\n  - \"page\" is the exact title of the page the claim rests on.\n  - \"confidence\" is \"sourced\" when that page states the claim; then \"quote\" MUST be a short verbatim quote (a few words to one sentence) copied exactly from that page.\n  - \"inferred\" when the claim follows from the pages but is not stated in them; \"opinion\" for judgements.\n  Never label a claim \"sourced\" without an exact quote from the page it cites.\n- \"follow_up_questions\": up to three questions worth asking next that the wiki could answer.\n\nKeep the answer valid JSON: escape quotes and newlines inside strings.".into(),
            user: "Question: {{question}}\n\nWiki pages:\n{{pages}}\n\nAnswer the question as one JSON object.".into(),
            origin: TemplateOrigin::BuiltIn,
            allowed: ASK_VARS,
        },
        PromptTemplate {
            id: FREEFORM.into(),
            version: "freeform-v1".into(),
            response: ResponseType::Text,
            schema: None,
            system: "You are a careful writer. Turn the source into one wiki article in markdown: a title line, a short summary, the key claims with short quotes from the source, the key concepts, related topics as [[wiki links]], and open questions.".into(),
            user: "Source title: {{source_title}}\nSource:\n<<<SOURCE\n{{source}}\nSOURCE>>>".into(),
            origin: TemplateOrigin::BuiltIn,
            allowed: FREEFORM_VARS,
        },
        judge_template(),
    ]
}

/// The `judge` template: scores an article against its source on the rubric of
/// the eval's judge (its schema is [`crate::contract::judge::verdict_contract`]).
fn judge_template() -> PromptTemplate {
    const JUDGE_VARS: &[&str] = &["source", "source_title", "article"];
    PromptTemplate {
        id: JUDGE.into(),
        version: "judge-v1".into(),
        response: ResponseType::Json,
        schema: Some(crate::contract::judge::verdict_contract().clone()),
        system: "You are a strict reviewer of wiki articles. You compare one article with the source it was written from and score it, answering with a single JSON object and nothing else (no prose, no code fence).\n\nThe rubric, each score an integer from 1 to 5:\n- \"faithfulness\": does the article say only what the source supports? 5: every statement is supported by the source, and every quote is copied exactly from it. 4: one minor statement goes beyond the source. 3: some statements are not supported or slightly distort the source. 2: many statements are unsupported or wrong. 1: the article is mostly invented or contradicts the source.\n- \"coverage\": does the article keep the source's important points? 5: all of them. 4: all but a minor one. 3: about half. 2: few. 1: almost none.\n\nThe JSON object is {\"faithfulness\": {\"score\": 1-5, \"reason\": \"...\"}, \"coverage\": {\"score\": 1-5, \"reason\": \"...\"}}. Each reason is one short sentence naming what decided the score. Judge against the source only, not against what you know.".into(),
        user: "Source title: {{source_title}}\nSource:\n<<<SOURCE\n{{source}}\nSOURCE>>>\n\nArticle written from it:\n<<<ARTICLE\n{{article}}\nARTICLE>>>\n\nScore the article as one JSON object.".into(),
        origin: TemplateOrigin::BuiltIn,
        allowed: JUDGE_VARS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_variables_once() {
        let out = fill(
            "a {{ x }} b {{y}} {{missing}} {{",
            &[("x", "{{y}}"), ("y", "2")],
        );
        assert_eq!(out, "a {{y}} b 2  {{");
    }

    #[test]
    fn builtin_templates_use_only_their_variables() {
        for t in PromptSet::builtin().iter() {
            for v in variables(&t.system).into_iter().chain(variables(&t.user)) {
                assert!(t.allowed.contains(&v.as_str()), "{}: {v}", t.id);
            }
            if t.response != ResponseType::Text {
                let schema = t
                    .schema
                    .as_ref()
                    .expect("a json or jsonl template has a schema");
                assert!(
                    !schema.is_valid(&serde_json::json!(42)),
                    "{}: the schema is not \"anything goes\"",
                    t.id
                );
            }
        }
    }

    #[test]
    fn overrides_load_and_bad_files_fall_back_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("compile.toml"),
            "version = \"mine-1\"\nresponse_type = \"json\"\nsystem = \"Be brief.\"\nuser = \"{{source}}\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("extract.toml"),
            "response_type = \"json\"\nsystem = \"x\"\nuser = \"{{chunk}}\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("compile-notes.toml"),
            "response_type = \"json\"\nsystem = \"x\"\nuser = \"{{chunk}}\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("freeform.toml"),
            "response_type = \"text\"\nsystem = \n",
        )
        .unwrap();
        std::fs::write(dir.path().join("other.toml"), "").unwrap();
        let (set, problems) = PromptSet::load(dir.path());
        let compile = set.get(COMPILE);
        assert_eq!(compile.version, "mine-1");
        assert_eq!(compile.render(&[("source", "S")]).user, "S");
        assert!(matches!(compile.origin, TemplateOrigin::File(_)));
        assert_eq!(set.get(EXTRACT).origin, TemplateOrigin::BuiltIn);
        assert_eq!(problems.len(), 4, "{problems:?}");
        let joined = problems.join("\n");
        assert!(
            joined.contains("extract.toml: response_type must be jsonl"),
            "{joined}"
        );
        assert!(
            joined.contains("compile-notes.toml: unknown variable {{chunk}}"),
            "{joined}"
        );
        assert!(joined.contains("freeform.toml:"), "{joined}");
        assert!(
            joined.contains("other.toml: no built-in prompt"),
            "{joined}"
        );
    }

    #[test]
    fn a_broken_override_with_multibyte_text_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("compile.toml"),
            "system = \"Résumé\u{3000}—\"\n\u{3000}user = é\n",
        )
        .unwrap();
        let (set, problems) = PromptSet::load(dir.path());
        assert_eq!(set.get(COMPILE).origin, TemplateOrigin::BuiltIn);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("(line 2)"), "{problems:?}");
    }
}
