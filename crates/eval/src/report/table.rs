//! The reports as text tables for a terminal.

use super::*;

/// Lays `rows` (the first is the header) out as a table: the first `left` columns
/// left-aligned, the others right-aligned, a rule under the header.
fn table(rows: &[Vec<String>], left: usize) -> String {
    let mut out = String::new();
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c < left {
                    format!("{cell:<w$}", w = widths[c])
                } else {
                    format!("{cell:>w$}", w = widths[c])
                }
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        if i == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * (widths.len().max(1) - 1);
            let _ = writeln!(out, "{}", "-".repeat(total));
        }
    }
    out
}

/// `n/of (rate)`, or `-` when there is nothing to count.
pub fn share(n: u32, of: u32) -> String {
    if of == 0 {
        "-".into()
    } else {
        format!("{n}/{of} {}", pct(ratio(n, of)))
    }
}

impl Report<QuestionModelReport> {
    /// The report as a plain-text table for a terminal: per model, the wiki's row and the
    /// raw sources' row, then how they compare.
    pub fn to_table(&self) -> String {
        let header = [
            "model",
            "from",
            "asked",
            "covered",
            "valid",
            "grounded",
            "sourced ok",
            "facts",
            "p50 ms",
            "tok in",
            "tok out",
        ];
        let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        for m in &self.models {
            for (i, (from, f)) in [("wiki", &m.wiki), ("raw", &m.raw)].into_iter().enumerate() {
                rows.push(vec![
                    if i == 0 {
                        m.model.clone()
                    } else {
                        String::new()
                    },
                    from.to_string(),
                    m.runs.to_string(),
                    f.covered.to_string(),
                    share(f.valid_answers, m.runs),
                    share(f.grounded_claims, f.claims),
                    share(f.sourced_grounded_claims, f.sourced_claims),
                    share(f.facts_found, m.facts_expected),
                    f.latency_ms.p50.to_string(),
                    format!("{:.0}", f.tokens_in.per_question),
                    format!("{:.0}", f.tokens_out.per_question),
                ]);
            }
        }
        let mut out = table(&rows, 2);
        if let Some(w) = &self.wiki {
            let _ = writeln!(
                out,
                "
wiki: {} topic page(s) from {} source(s); raw: the same sources as {} passage(s) of at most {} bytes",
                w.pages, w.sources, w.passages, w.passage_bytes
            );
        }
        for m in &self.models {
            let _ = writeln!(
                out,
                "
{}: facts found {} from the wiki, {} from the raw sources; grounded claims {} against {}; prompt tokens per question {:.0} against {:.0}",
                m.model,
                pct(m.wiki.facts_found_rate),
                pct(m.raw.facts_found_rate),
                pct(m.wiki.grounded_rate),
                pct(m.raw.grounded_rate),
                m.wiki.tokens_in.per_question,
                m.raw.tokens_in.per_question,
            );
        }
        out
    }
}

/// A share as a percentage, `-` when there is none.
pub fn pct(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{:.0}%", v * 100.0),
        None => "-".into(),
    }
}

impl Report {
    /// The report as a plain-text table for a terminal.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        let header = [
            "model", "runs", "first", "+repair", "+coerce", "final", "grounded", "checks",
            "p50 ms", "p95 ms", "tok in", "tok out",
        ];
        let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        for m in &self.models {
            rows.push(vec![
                m.model.clone(),
                m.runs.to_string(),
                pct(Some(m.first_answer_valid_rate)),
                pct(Some(m.repaired_valid_rate)),
                pct(Some(m.coerced_valid_rate)),
                pct(Some(m.final_valid_rate)),
                pct(m.grounded_rate),
                pct(m.checks_pass_rate),
                m.latency_ms.p50.to_string(),
                m.latency_ms.p95.to_string(),
                format!("{:.0}", m.tokens_in.per_compile),
                format!("{:.0}", m.tokens_out.per_compile),
            ]);
        }
        out.push_str(&table(&rows, 1));
        for m in &self.models {
            let list = |map: &BTreeMap<String, u32>| {
                if map.is_empty() {
                    "none".to_string()
                } else {
                    let mut v: Vec<(&String, &u32)> = map.iter().collect();
                    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                    v.iter()
                        .map(|(k, n)| format!("{k} {n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            let _ = writeln!(out, "\n{}", m.model);
            let _ = writeln!(out, "  failures by reason: {}", list(&m.failures_by_reason));
            let _ = writeln!(out, "  repairs by kind:    {}", list(&m.repairs_by_kind));
            if let Some(j) = &m.evaluators.llm_judge {
                let score = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}/5"));
                let _ = writeln!(
                    out,
                    "  llm_judge ({}): faithfulness {}, coverage {} over {} of {} run(s){}",
                    j.judges.join(", "),
                    score(j.faithfulness),
                    score(j.coverage),
                    j.judged,
                    j.runs,
                    if j.failed > 0 {
                        format!("; {} not scored (see results.jsonl)", j.failed)
                    } else {
                        String::new()
                    }
                );
            }
            if let Some(f) = &m.freeform {
                let verdict = match f.structured_saving {
                    Some(s) if s >= 0.0 => format!("structured used {:.0}% fewer", s * 100.0),
                    Some(s) => format!("structured used {:.0}% more", -s * 100.0),
                    None => "no token counts to compare".into(),
                };
                let _ = writeln!(
                    out,
                    "  output tokens vs free-form: {:.0} structured, {:.0} free-form over {} pair(s): {verdict}",
                    f.structured_tokens_out, f.freeform_tokens_out, f.pairs
                );
            }
        }
        out
    }
}
