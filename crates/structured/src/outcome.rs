//! What every parse reports: the value, the repairs and coercions applied, warnings, and
//! whether the answer was cut off.

use serde::Serialize;
use serde_json::Value;

/// Every kind of change the lenient engine can make, as a fixed list of snake_case names.
///
/// Extraction and repair kinds come first, schema-aligned coercions after. The names are
/// part of the wire format of `wikimind parse --json` and of the compile log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RepairKind {
    /// A UTF-8 byte order mark before the answer was removed.
    StrippedBom,
    /// Bytes that were not valid UTF-8 were replaced with U+FFFD.
    ReplacedInvalidUtf8,
    /// A `<think>…</think>` (or `<thinking>`) block was removed.
    RemovedThinkBlock,
    /// The JSON was taken out of a markdown code fence.
    RemovedCodeFence,
    /// Prose before the JSON was skipped.
    SkippedLeadingText,
    /// Prose after the JSON was skipped.
    SkippedTrailingText,
    /// The answer held more than one JSON value; the first that fits the schema was kept.
    DroppedRepeatedValue,
    /// The answer was a JSON string holding the JSON; it was decoded.
    UnwrappedDoubleEncoded,
    /// A one-element array around the expected value was removed.
    UnwrappedSingleElementArray,
    /// A trailing or doubled comma was removed.
    RemovedTrailingComma,
    /// A `//`, `/* */` or `# ` comment was removed.
    RemovedComment,
    /// A single-quoted string was read as a JSON string.
    SingleQuotedString,
    /// An object key without quotes was read as a string.
    UnquotedKey,
    /// A bare word value (not `true`, `false` or `null`) was read as a string, or a plain
    /// text answer was taken as the string the schema asks for.
    UnquotedString,
    /// Python's `True`, `False` or `None` was read as `true`, `false` or `null`.
    PythonLiteral,
    /// A raw newline, tab or other control character inside a string was kept as text.
    EscapedControlCharacter,
    /// A double quote inside a string that did not end it was kept as text.
    EscapedInnerQuote,
    /// An invalid escape sequence (`\d`, `\'`, a lone surrogate) was kept as text.
    FixedInvalidEscape,
    /// A comma missing between two members or elements was inserted.
    InsertedMissingComma,
    /// A colon missing between a key and its value was inserted.
    InsertedMissingColon,
    /// A bracket that closed the wrong container: the inner one was closed first.
    InsertedMissingBracket,
    /// A number written in a non-JSON form (`+1`, `.5`, `01`, `1.`) was normalised.
    FixedNumber,
    /// The answer was cut off: the open string, arrays and objects were closed.
    ClosedTruncated,
    /// A string left open just before the brackets that close the answer was closed there.
    InsertedMissingQuote,
    /// Words between members that are neither a key nor a value were skipped.
    SkippedStrayText,
    /// A number written with thousands separators (`12,111`) was read as one number,
    /// where the schema asks for a number.
    JoinedDigitGroups,
    /// A Python triple-quoted string (`"""…"""`, `'''…'''`) was read as a string.
    TripleQuotedString,
    /// A Python tuple `(1, 2)` or set `{'a', 'b'}` was read as an array.
    PythonCollection,
    /// An ellipsis (`...`, `…`) standing for elided items was removed.
    RemovedEllipsis,
    /// Strings joined with `+` (`"a" + "b"`) were read as one string.
    ConcatenatedStrings,
    /// A string in typographic quotes (`“…”`, `‘…’`) was read as a string.
    TypographicQuotes,
    /// A non-ASCII space between tokens (U+00A0, U+3000, …) was read as whitespace.
    UnicodeWhitespace,
    /// An enum or const value was matched ignoring case and surrounding space.
    EnumCase,
    /// A comma-separated string was split where an array of strings is expected.
    SplitCommaString,
    /// A single value was wrapped in an array where an array is expected.
    WrappedInArray,
    /// A bare string was made into an object where an object is expected.
    StringToObject,
    /// A missing or null field was set to its default (`[]`, `null`, or the schema's default).
    DefaultFilled,
    /// A number was clamped into the schema's `minimum`/`maximum`.
    ClampedNumber,
    /// A number or boolean was written as the string the schema expects.
    StringifiedScalar,
    /// A string holding a number or boolean was read as the number or boolean expected.
    ParsedScalarString,
    /// A field the schema does not declare was dropped.
    DroppedUnknownField,
    /// An array over its `maxItems` lost the items after the bound, or a string over its
    /// `maxLength` was cut at it (strict mode refuses both).
    CutToBound,
}

impl RepairKind {
    /// Every kind, in documentation order.
    pub const ALL: &'static [RepairKind] = &[
        RepairKind::StrippedBom,
        RepairKind::ReplacedInvalidUtf8,
        RepairKind::RemovedThinkBlock,
        RepairKind::RemovedCodeFence,
        RepairKind::SkippedLeadingText,
        RepairKind::SkippedTrailingText,
        RepairKind::DroppedRepeatedValue,
        RepairKind::UnwrappedDoubleEncoded,
        RepairKind::UnwrappedSingleElementArray,
        RepairKind::RemovedTrailingComma,
        RepairKind::RemovedComment,
        RepairKind::SingleQuotedString,
        RepairKind::UnquotedKey,
        RepairKind::UnquotedString,
        RepairKind::PythonLiteral,
        RepairKind::EscapedControlCharacter,
        RepairKind::EscapedInnerQuote,
        RepairKind::FixedInvalidEscape,
        RepairKind::InsertedMissingComma,
        RepairKind::InsertedMissingColon,
        RepairKind::InsertedMissingBracket,
        RepairKind::FixedNumber,
        RepairKind::ClosedTruncated,
        RepairKind::InsertedMissingQuote,
        RepairKind::SkippedStrayText,
        RepairKind::JoinedDigitGroups,
        RepairKind::TripleQuotedString,
        RepairKind::PythonCollection,
        RepairKind::RemovedEllipsis,
        RepairKind::ConcatenatedStrings,
        RepairKind::TypographicQuotes,
        RepairKind::UnicodeWhitespace,
        RepairKind::EnumCase,
        RepairKind::SplitCommaString,
        RepairKind::WrappedInArray,
        RepairKind::StringToObject,
        RepairKind::DefaultFilled,
        RepairKind::ClampedNumber,
        RepairKind::StringifiedScalar,
        RepairKind::ParsedScalarString,
        RepairKind::DroppedUnknownField,
        RepairKind::CutToBound,
    ];

    /// The snake_case name used on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            RepairKind::StrippedBom => "stripped_bom",
            RepairKind::ReplacedInvalidUtf8 => "replaced_invalid_utf8",
            RepairKind::RemovedThinkBlock => "removed_think_block",
            RepairKind::RemovedCodeFence => "removed_code_fence",
            RepairKind::SkippedLeadingText => "skipped_leading_text",
            RepairKind::SkippedTrailingText => "skipped_trailing_text",
            RepairKind::DroppedRepeatedValue => "dropped_repeated_value",
            RepairKind::UnwrappedDoubleEncoded => "unwrapped_double_encoded",
            RepairKind::UnwrappedSingleElementArray => "unwrapped_single_element_array",
            RepairKind::RemovedTrailingComma => "removed_trailing_comma",
            RepairKind::RemovedComment => "removed_comment",
            RepairKind::SingleQuotedString => "single_quoted_string",
            RepairKind::UnquotedKey => "unquoted_key",
            RepairKind::UnquotedString => "unquoted_string",
            RepairKind::PythonLiteral => "python_literal",
            RepairKind::EscapedControlCharacter => "escaped_control_character",
            RepairKind::EscapedInnerQuote => "escaped_inner_quote",
            RepairKind::FixedInvalidEscape => "fixed_invalid_escape",
            RepairKind::InsertedMissingComma => "inserted_missing_comma",
            RepairKind::InsertedMissingColon => "inserted_missing_colon",
            RepairKind::InsertedMissingBracket => "inserted_missing_bracket",
            RepairKind::FixedNumber => "fixed_number",
            RepairKind::ClosedTruncated => "closed_truncated",
            RepairKind::InsertedMissingQuote => "inserted_missing_quote",
            RepairKind::SkippedStrayText => "skipped_stray_text",
            RepairKind::JoinedDigitGroups => "joined_digit_groups",
            RepairKind::TripleQuotedString => "triple_quoted_string",
            RepairKind::PythonCollection => "python_collection",
            RepairKind::RemovedEllipsis => "removed_ellipsis",
            RepairKind::ConcatenatedStrings => "concatenated_strings",
            RepairKind::TypographicQuotes => "typographic_quotes",
            RepairKind::UnicodeWhitespace => "unicode_whitespace",
            RepairKind::EnumCase => "enum_case",
            RepairKind::SplitCommaString => "split_comma_string",
            RepairKind::WrappedInArray => "wrapped_in_array",
            RepairKind::StringToObject => "string_to_object",
            RepairKind::DefaultFilled => "default_filled",
            RepairKind::ClampedNumber => "clamped_number",
            RepairKind::StringifiedScalar => "stringified_scalar",
            RepairKind::ParsedScalarString => "parsed_scalar_string",
            RepairKind::DroppedUnknownField => "dropped_unknown_field",
            RepairKind::CutToBound => "cut_to_bound",
        }
    }

    /// Whether this is a schema-aligned coercion (as opposed to a syntax repair).
    pub fn is_coercion(self) -> bool {
        self >= RepairKind::EnumCase
    }
}

impl std::fmt::Display for RepairKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One change the engine made, and where (a JSON Pointer into the resulting value; `""`
/// is the whole value).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Repair {
    /// What was changed.
    pub kind: RepairKind,
    /// Where, as a JSON Pointer into the value.
    pub path: String,
}

impl Repair {
    /// A repair at `path`.
    pub fn new(kind: RepairKind, path: impl Into<String>) -> Repair {
        Repair {
            kind,
            path: path.into(),
        }
    }
}

impl std::fmt::Display for Repair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{} at {}", self.kind, self.path)
        }
    }
}

/// The result of turning one answer into a value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// The value, valid against the schema.
    pub value: Value,
    /// Every repair and coercion applied, in the order they were made.
    pub repairs: Vec<Repair>,
    /// Things a person may want to know that did not stop the parse.
    pub warnings: Vec<String>,
    /// Whether the answer was cut off and closed by the engine.
    pub truncated: bool,
}

impl Outcome {
    /// Whether the answer needed no repair and no coercion at all.
    pub fn is_clean(&self) -> bool {
        self.repairs.is_empty()
    }

    /// Whether any syntax repair (as opposed to a coercion) was applied.
    pub fn was_repaired(&self) -> bool {
        self.repairs.iter().any(|r| !r.kind.is_coercion())
    }

    /// Whether any schema-aligned coercion was applied.
    pub fn was_coerced(&self) -> bool {
        self.repairs.iter().any(|r| r.kind.is_coercion())
    }
}

/// The result of a `jsonl` parse: every object that parsed and validated, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JsonlOutcome {
    /// The objects kept.
    pub values: Vec<Value>,
    /// Repairs applied; each path starts with the index of the object in `values`.
    pub repairs: Vec<Repair>,
    /// One warning per line skipped or dropped, naming the line number and the reason.
    pub warnings: Vec<LineWarning>,
    /// Whether the last line was cut off and dropped.
    pub truncated: bool,
}

impl JsonlOutcome {
    /// Whether the answer failed: it had lines and not one was a valid object. An empty
    /// answer is an empty list, not a failure.
    pub fn no_line_valid(&self) -> bool {
        self.values.is_empty() && !self.warnings.is_empty()
    }
}

/// A line of a `jsonl` answer that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineWarning {
    /// The line number, counting from 1.
    pub line: usize,
    /// Why the line was skipped.
    pub reason: String,
}

impl std::fmt::Display for LineWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

/// Appends a JSON Pointer token to `path`, escaping `~` and `/`.
pub(crate) fn push_pointer(path: &mut String, token: &str) {
    path.push('/');
    for c in token.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

/// Shows a value briefly in an error message.
pub(crate) fn brief(value: &Value) -> String {
    let text = match value {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    };
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}…")
    } else {
        text
    }
}
