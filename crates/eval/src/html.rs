//! The HTML report: one self-contained page (inline CSS and SVG charts, no scripts, no
//! network resources) a person can open in any browser. Everything taken from the dataset
//! or a model's answer is escaped.

use std::fmt::Write as _;

use super::questions::{AnswerResult, QuestionResult};
use super::report::{pct, share, AnswerFigures, ModelReport, QuestionModelReport, Report};
use super::run::CaseResult;

use wikimind::render::escape_html as escape;

const STAGES: [(&str, &str); 4] = [
    ("first answer valid", "#4c78a8"),
    ("after repair", "#72b7b2"),
    ("after coercion", "#54a24b"),
    ("after retries", "#f58518"),
];

const WIDTH: f64 = 760.0;
const LABEL_W: f64 = 210.0;
const PLOT_W: f64 = WIDTH - LABEL_W - 60.0;

/// "Nice" axis ticks from 0 to at least `max`: steps of 1, 2 or 5 × 10^k.
pub fn ticks(max: f64) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut out = Vec::new();
    let mut t = 0.0;
    while t < max + step * 0.999 && out.len() < 12 {
        out.push(t);
        t += step;
    }
    out
}

fn fmt_num(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.0}k", v / 1000.0)
    } else if v.fract() == 0.0 || v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The validity funnel: per model, the share of runs valid at each stage.
pub fn funnel_svg(models: &[ModelReport]) -> String {
    let bar = 16.0;
    let group = bar * 4.0 + 26.0;
    let top = 34.0;
    let height = top + group * models.len() as f64 + 24.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Validity funnel per model" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="system-ui, sans-serif" font-size="12">"#
    );
    // Legend.
    for (i, (name, color)) in STAGES.iter().enumerate() {
        let x = LABEL_W + i as f64 * 135.0;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="8" width="12" height="12" fill="{color}"/><text x="{}" y="18">{name}</text>"#,
            x + 16.0
        );
    }
    // Grid at 0, 25, 50, 75, 100%.
    for i in 0..=4 {
        let x = LABEL_W + PLOT_W * f64::from(i) / 4.0;
        let _ = write!(
            s,
            r##"<line x1="{x}" y1="{top}" x2="{x}" y2="{}" stroke="#ddd"/><text x="{x}" y="{}" text-anchor="middle" fill="#666">{}%</text>"##,
            height - 20.0,
            height - 6.0,
            i * 25
        );
    }
    for (m, model) in models.iter().enumerate() {
        let y0 = top + group * m as f64 + 8.0;
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end" font-weight="600">{}</text>"#,
            LABEL_W - 10.0,
            y0 + bar * 2.0 + 4.0,
            escape(&shorten(&model.model, 30))
        );
        let rates = [
            model.first_answer_valid_rate,
            model.repaired_valid_rate,
            model.coerced_valid_rate,
            model.final_valid_rate,
        ];
        for (i, r) in rates.iter().enumerate() {
            let y = y0 + bar * i as f64;
            let w = (PLOT_W * r.clamp(0.0, 1.0)).max(0.5);
            let _ = write!(
                s,
                r##"<rect x="{LABEL_W}" y="{y}" width="{w:.1}" height="{}" fill="{}"><title>{}: {}</title></rect><text x="{:.1}" y="{}" fill="#333">{}</text>"##,
                bar - 2.0,
                STAGES[i].1,
                STAGES[i].0,
                pct(Some(*r)),
                LABEL_W + w + 4.0,
                y + bar - 5.0,
                pct(Some(*r))
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// The latency distribution: every compile as a dot, per model, with p50 and p95 marks.
pub fn latency_svg(models: &[ModelReport], results: &[CaseResult]) -> String {
    let row = 46.0;
    let top = 16.0;
    let height = top + row * models.len() as f64 + 34.0;
    let max = results.iter().map(|r| r.latency_ms).max().unwrap_or(0) as f64;
    let ticks = ticks(max);
    let axis_max = ticks.last().copied().unwrap_or(1.0).max(1.0);
    let x_of = |v: f64| LABEL_W + PLOT_W * (v / axis_max);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Latency per compile" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="system-ui, sans-serif" font-size="12">"#
    );
    for t in &ticks {
        let x = x_of(*t);
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle" fill="#666">{}</text>"##,
            height - 30.0,
            height - 16.0,
            fmt_num(*t)
        );
    }
    let _ = write!(
        s,
        r##"<text x="{}" y="{}" text-anchor="middle" fill="#666">milliseconds per compile (retries included)</text>"##,
        LABEL_W + PLOT_W / 2.0,
        height - 2.0
    );
    for (m, model) in models.iter().enumerate() {
        let cy = top + row * m as f64 + row / 2.0;
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end" font-weight="600">{}</text>"#,
            LABEL_W - 10.0,
            cy + 4.0,
            escape(&shorten(&model.model, 30))
        );
        for (i, r) in results
            .iter()
            .filter(|r| r.model == model.model)
            .enumerate()
        {
            // A small deterministic jitter so equal latencies stay visible.
            let jitter = ((i * 7919) % 13) as f64 - 6.0;
            let color = if r.ok { "#4c78a8" } else { "#e45756" };
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{color}" fill-opacity="0.6"><title>{} #{}: {} ms</title></circle>"#,
                x_of(r.latency_ms as f64),
                cy + jitter,
                escape(&r.case_id),
                r.repeat,
                r.latency_ms
            );
        }
        for (label, v, color) in [
            ("p50", model.latency_ms.p50, "#222"),
            ("p95", model.latency_ms.p95, "#b00"),
        ] {
            let x = x_of(v as f64);
            let _ = write!(
                s,
                r#"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="{color}" stroke-width="2"/><text x="{x:.1}" y="{}" text-anchor="middle" fill="{color}" font-size="10">{label} {v}</text>"#,
                cy - 12.0,
                cy + 12.0,
                cy - 15.0
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// Tokens per article: prompt and answer tokens of every call (retries and failed runs
/// included) divided by the articles written, and the free-form answer's tokens when
/// compared.
pub fn tokens_svg(models: &[ModelReport]) -> String {
    let series: Vec<(&str, &str)> = vec![
        ("prompt tokens", "#9d9da1"),
        ("answer tokens (structured)", "#4c78a8"),
        ("answer tokens (free-form)", "#f58518"),
    ];
    let bar = 16.0;
    let group = bar * 3.0 + 22.0;
    let top = 34.0;
    let height = top + group * models.len() as f64 + 24.0;
    let values = |m: &ModelReport| -> [Option<f64>; 3] {
        let reported = m.tokens_in.runs_reported > 0;
        [
            m.tokens_in.per_article.filter(|_| reported),
            m.tokens_out.per_article.filter(|_| reported),
            m.freeform
                .as_ref()
                .filter(|f| f.pairs > 0)
                .map(|f| f.freeform_tokens_out),
        ]
    };
    let max = models
        .iter()
        .flat_map(|m| values(m).into_iter().flatten())
        .fold(0.0, f64::max);
    let ticks = ticks(max);
    let axis_max = ticks.last().copied().unwrap_or(1.0).max(1.0);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Tokens per article" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="system-ui, sans-serif" font-size="12">"#
    );
    for (i, (name, color)) in series.iter().enumerate() {
        let x = 10.0 + i as f64 * 230.0;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="8" width="12" height="12" fill="{color}"/><text x="{}" y="18">{name}</text>"#,
            x + 16.0
        );
    }
    for t in &ticks {
        let x = LABEL_W + PLOT_W * (t / axis_max);
        let _ = write!(
            s,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle" fill="#666">{}</text>"##,
            height - 20.0,
            height - 6.0,
            fmt_num(*t)
        );
    }
    for (m, model) in models.iter().enumerate() {
        let y0 = top + group * m as f64 + 8.0;
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end" font-weight="600">{}</text>"#,
            LABEL_W - 10.0,
            y0 + bar * 1.5 + 4.0,
            escape(&shorten(&model.model, 30))
        );
        for (i, v) in values(model).iter().enumerate() {
            let y = y0 + bar * i as f64;
            let (w, label) = match v {
                Some(v) => ((PLOT_W * v / axis_max).max(0.5), format!("{v:.0}")),
                None if i == 2 => continue,
                None => (0.0, "not reported".to_string()),
            };
            let _ = write!(
                s,
                r##"<rect x="{LABEL_W}" y="{y}" width="{w:.1}" height="{}" fill="{}"/><text x="{:.1}" y="{}" fill="#333">{label}</text>"##,
                bar - 2.0,
                series[i].1,
                LABEL_W + w + 4.0,
                y + bar - 5.0
            );
        }
    }
    s.push_str("</svg>");
    s
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(n - 1).collect();
        out.push('…');
        out
    }
}

fn counts(map: &std::collections::BTreeMap<String, u32>) -> String {
    if map.is_empty() {
        return "none".into();
    }
    let mut v: Vec<(&String, &u32)> = map.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.iter()
        .map(|(k, n)| format!("{} {n}", escape(k)))
        .collect::<Vec<_>>()
        .join(", ")
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 16px}\
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}\
.meta{color:#555;font-size:13px}.warn{background:#fff4d6;border:1px solid #e8c96a;padding:6px 10px;margin:6px 0;font-size:13px}\
table{border-collapse:collapse;font-size:13px;margin-top:8px}th,td{border-bottom:1px solid #e5e5e5;padding:4px 8px;text-align:right;vertical-align:top}\
th:first-child,td:first-child,.l{text-align:left}.m{white-space:nowrap}p.verdict{font-size:14px}.ok{color:#2a7d2a}.bad{color:#c0392b}\
figure{margin:8px 0}figcaption{font-size:12px;color:#555}";

/// The start of the page: its head, the title, the dataset line and the warnings.
fn head<M>(report: &Report<M>) -> String {
    let mut h = String::new();
    let title = format!("WikiMind eval: {}", report.dataset.name);
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body>",
        escape(&title)
    );
    let _ = write!(h, "<h1>{}</h1>", escape(&title));
    let _ = write!(
        h,
        "<p class=\"meta\">{}{} cases, {} runs, started {}, took {:.1} s — dataset <code>{}</code></p>",
        Some(report.dataset.description.as_str())
            .filter(|d| !d.trim().is_empty())
            .map(|d| format!("{} — ", escape(d)))
            .unwrap_or_default(),
        report.dataset.cases,
        report.runs,
        escape(&report.started_at),
        report.elapsed_ms as f64 / 1000.0,
        escape(&report.dataset.path)
    );
    for w in &report.warnings {
        let _ = write!(h, "<div class=\"warn\">{}</div>", escape(w));
    }
    h
}

/// The whole page of an article dataset.
pub fn render_html(report: &Report, results: &[CaseResult]) -> String {
    let mut h = head(report);
    h.push_str("<h2>Summary</h2><table><tr><th>model</th><th>runs</th><th>first answer valid</th><th>after repair</th><th>after coercion</th><th>final (after retries)</th><th>grounded quotes</th><th>checks passed</th><th>p50 ms</th><th>p95 ms</th><th>tokens in</th><th>tokens out</th></tr>");
    for m in &report.models {
        let _ = write!(
            h,
            "<tr><td class=\"m\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0}</td><td>{:.0}</td></tr>",
            escape(&m.model),
            m.runs,
            pct(Some(m.first_answer_valid_rate)),
            pct(Some(m.repaired_valid_rate)),
            pct(Some(m.coerced_valid_rate)),
            pct(Some(m.final_valid_rate)),
            pct(m.grounded_rate),
            pct(m.checks_pass_rate),
            m.latency_ms.p50,
            m.latency_ms.p95,
            m.tokens_in.per_compile,
            m.tokens_out.per_compile
        );
    }
    h.push_str("</table>");

    h.push_str("<h2>Validity funnel</h2><figure>");
    h.push_str(&funnel_svg(&report.models));
    h.push_str("<figcaption>Share of runs whose first answer was valid as sent, after lenient repair, after coercion to the schema, and whose compile succeeded after retries with feedback.</figcaption></figure>");

    h.push_str("<h2>Latency</h2><figure>");
    h.push_str(&latency_svg(&report.models, results));
    h.push_str("<figcaption>Each dot is one compile (red: no article). Marks show the median (p50) and the 95th percentile.</figcaption></figure>");

    h.push_str("<h2>Tokens per article</h2><figure>");
    h.push_str(&tokens_svg(&report.models));
    h.push_str("<figcaption>Mean tokens per compile, retries included. With --compare-freeform, the free-form bar is the mean answer tokens of a markdown article of the same source.</figcaption></figure>");
    for m in &report.models {
        if let Some(f) = &m.freeform {
            let verdict = match f.structured_saving {
                Some(s) if s >= 0.0 => format!(
                    "the structured answer used {:.0}% fewer output tokens",
                    s * 100.0
                ),
                Some(s) => format!(
                    "the structured answer used {:.0}% more output tokens",
                    -s * 100.0
                ),
                None => "no token counts to compare".into(),
            };
            let _ = write!(
                h,
                "<p class=\"verdict\">{}: {verdict} than the free-form article ({:.0} against {:.0}, over {} pair(s)).</p>",
                escape(&m.model),
                f.structured_tokens_out,
                f.freeform_tokens_out,
                f.pairs
            );
        }
    }

    if report
        .models
        .iter()
        .any(|m| m.evaluators.llm_judge.is_some())
    {
        h.push_str("<h2>LLM judge</h2><table><tr><th>model</th><th class=\"l\">judged by</th><th>faithfulness (1–5)</th><th>coverage (1–5)</th><th>scored</th><th>not scored</th></tr>");
        let score = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
        for m in &report.models {
            let Some(j) = &m.evaluators.llm_judge else {
                continue;
            };
            let _ = write!(
                h,
                "<tr><td class=\"m\">{}</td><td class=\"l m\">{}</td><td>{}</td><td>{}</td><td>{}/{}</td><td>{}</td></tr>",
                escape(&m.model),
                escape(&j.judges.join(", ")),
                score(j.faithfulness),
                score(j.coverage),
                j.judged,
                j.runs,
                j.failed
            );
        }
        h.push_str("</table><p class=\"meta\">Mean scores of the articles the judge scored (prompt judge-v1): faithfulness — the article says only what its source supports; coverage — it keeps the source's important points. Each run's scores and reasons are in the table below and in results.jsonl.</p>");
    }

    h.push_str("<h2>Failures and repairs</h2><table><tr><th>model</th><th class=\"l\">rejected answers by reason</th><th class=\"l\">repairs in kept answers</th><th>cut off</th></tr>");
    for m in &report.models {
        let _ = write!(
            h,
            "<tr><td class=\"m\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td></tr>",
            escape(&m.model),
            counts(&m.failures_by_reason),
            counts(&m.repairs_by_kind),
            m.truncated
        );
    }
    h.push_str("</table>");

    h.push_str("<h2>Runs</h2><table><tr><th>case</th><th class=\"l\">model</th><th>#</th><th class=\"l\">first answer</th><th>calls</th><th>ms</th><th>tokens out</th><th>grounded</th><th>checks</th><th>judge</th><th class=\"l\">title or reason</th></tr>");
    for r in results {
        let passed = r.checks.iter().filter(|c| c.passed).count();
        let failed_checks: Vec<String> = r
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| format!("{}: {}", c.check, c.detail))
            .collect();
        let outcome = if r.ok {
            format!(
                "<span class=\"ok\">{}</span>",
                escape(r.title.as_deref().unwrap_or(""))
            )
        } else {
            format!(
                "<span class=\"bad\">{}</span>",
                escape(&shorten(r.reason.as_deref().unwrap_or("failed"), 160))
            )
        };
        let judge = match &r.evaluators.llm_judge {
            None => "<td>-</td>".to_string(),
            Some(j) => match (&j.faithfulness, &j.coverage) {
                (Some(f), Some(c)) => format!(
                    "<td class=\"m\" title=\"{}\">F {} · C {}</td>",
                    escape(&format!(
                        "faithfulness: {}\ncoverage: {}\njudge: {}",
                        f.reason, c.reason, j.model
                    )),
                    f.score,
                    c.score
                ),
                _ => format!(
                    "<td class=\"bad\" title=\"{}\">not scored</td>",
                    escape(j.error.as_deref().unwrap_or("failed"))
                ),
            },
        };
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"l m\">{}</td><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}/{}</td><td title=\"{}\">{}/{}</td>{judge}<td class=\"l\">{outcome}</td></tr>",
            escape(&r.case_id),
            escape(&r.model),
            r.repeat,
            r.first_answer.as_str(),
            r.calls,
            r.latency_ms,
            r.tokens_out,
            r.grounded_claims,
            r.sourced_claims,
            escape(&failed_checks.join("; ")),
            passed,
            r.checks.len()
        );
    }
    h.push_str("</table></body></html>\n");
    h
}

const WIKI_COLOR: &str = "#4c78a8";
const RAW_COLOR: &str = "#f58518";

/// One figure of a model from both materials: its label, the wiki's value, the raw
/// sources' value (`None`: nothing to show).
type Pair = (&'static str, Option<f64>, Option<f64>);

/// Bars side by side, per model: each figure from the wiki's pages and from the raw
/// sources, on one axis from 0 to `max` (`label` writes a value).
fn pairs_svg(
    name: &str,
    models: &[(String, Vec<Pair>)],
    max: f64,
    label: &dyn Fn(f64) -> String,
) -> String {
    let bar = 14.0;
    let rows = models.first().map_or(0, |(_, r)| r.len()) as f64;
    let group = rows * (bar * 2.0 + 8.0) + 22.0;
    let top = 34.0;
    let height = top + group * models.len() as f64 + 10.0;
    let axis_max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{}" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="system-ui, sans-serif" font-size="12">"#,
        escape(name)
    );
    for (i, (series, color)) in [
        ("from the wiki", WIKI_COLOR),
        ("from the raw sources", RAW_COLOR),
    ]
    .iter()
    .enumerate()
    {
        let x = LABEL_W + i as f64 * 170.0;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="8" width="12" height="12" fill="{color}"/><text x="{}" y="18">{series}</text>"#,
            x + 16.0
        );
    }
    for (m, (model, figures)) in models.iter().enumerate() {
        let y0 = top + group * m as f64;
        let _ = write!(
            s,
            r#"<text x="4" y="{}" font-weight="600">{}</text>"#,
            y0 + 12.0,
            escape(&shorten(model, 60))
        );
        for (f, (figure, wiki, raw)) in figures.iter().enumerate() {
            let y = y0 + 20.0 + f as f64 * (bar * 2.0 + 8.0);
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" text-anchor="end">{figure}</text>"#,
                LABEL_W - 10.0,
                y + bar + 4.0
            );
            for (i, (value, color)) in [(wiki, WIKI_COLOR), (raw, RAW_COLOR)].iter().enumerate() {
                let yb = y + bar * i as f64;
                let (w, text) = match value {
                    Some(v) => (
                        (PLOT_W * (v / axis_max).clamp(0.0, 1.0)).max(0.5),
                        label(*v),
                    ),
                    None => (0.0, "-".to_string()),
                };
                let _ = write!(
                    s,
                    r##"<rect x="{LABEL_W}" y="{yb}" width="{w:.1}" height="{}" fill="{color}"/><text x="{:.1}" y="{}" fill="#333">{text}</text>"##,
                    bar - 2.0,
                    LABEL_W + w + 4.0,
                    yb + bar - 4.0
                );
            }
        }
    }
    s.push_str("</svg>");
    s
}

/// One row of the summary table: one material's figures for a model.
fn figures_row(
    h: &mut String,
    model: Option<&QuestionModelReport>,
    from: &str,
    f: &AnswerFigures,
    runs: u32,
    facts: u32,
) {
    let cell = match model {
        Some(m) => format!("<td class=\"m\" rowspan=\"2\">{}</td>", escape(&m.model)),
        None => String::new(),
    };
    let _ = write!(
        h,
        "<tr>{cell}<td class=\"l m\">{from}</td><td>{}</td><td class=\"m\">{}</td><td class=\"m\">{}</td><td class=\"m\">{}</td><td class=\"m\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0}</td><td>{:.0}</td></tr>",
        f.covered,
        share(f.valid_answers, runs),
        share(f.grounded_claims, f.claims),
        share(f.sourced_grounded_claims, f.sourced_claims),
        share(f.facts_found, facts),
        f.calls,
        f.latency_ms.p50,
        f.latency_ms.p95,
        f.tokens_in.per_question,
        f.tokens_out.per_question
    );
}

/// One material's answer in the questions table: valid or not, grounded claims, facts
/// found, the answer and the facts missed on hover.
fn answer_cells(a: &AnswerResult) -> String {
    let outcome = if a.answered {
        "<span class=\"ok\">valid</span>".to_string()
    } else if !a.covered && a.error.is_none() {
        "not covered".to_string()
    } else {
        format!(
            "<span class=\"bad\" title=\"{}\">no valid answer</span>",
            escape(a.error.as_deref().unwrap_or("failed"))
        )
    };
    let missed: Vec<&str> = a
        .facts
        .iter()
        .filter(|f| !f.found)
        .map(|f| f.fact.as_str())
        .collect();
    let facts_title = if missed.is_empty() {
        "every fact found".to_string()
    } else {
        format!("missed: {}", missed.join("; "))
    };
    format!(
        "<td class=\"l\" title=\"{}\">{outcome}</td><td>{}/{}</td><td title=\"{}\">{}/{}</td>",
        escape(&shorten(&a.answer, 600)),
        a.grounded_claims,
        a.claims.len(),
        escape(&facts_title),
        a.facts_found,
        a.facts.len()
    )
}

/// The whole page of a question dataset: the wiki's answers beside the raw sources'.
pub fn render_question_html(
    report: &Report<QuestionModelReport>,
    results: &[QuestionResult],
) -> String {
    let mut h = head(report);
    if let Some(w) = &report.wiki {
        let _ = write!(
            h,
            "<p class=\"meta\">Asked of the wiki in <code>{}</code>: {} topic page(s) from {} source(s). The raw side searched the same sources, cut into {} passage(s) of at most {} bytes.</p>",
            escape(w.data_dir.as_deref().unwrap_or("memory")),
            w.pages,
            w.sources,
            w.passages,
            w.passage_bytes
        );
    }
    h.push_str("<h2>Summary</h2><table><tr><th>model</th><th class=\"l\">from</th><th>covered</th><th>valid answers</th><th>grounded claims</th><th>sourced claims grounded</th><th>facts found</th><th>calls</th><th>p50 ms</th><th>p95 ms</th><th>tokens in / question</th><th>tokens out / question</th></tr>");
    for m in &report.models {
        figures_row(&mut h, Some(m), "wiki", &m.wiki, m.runs, m.facts_expected);
        figures_row(
            &mut h,
            None,
            "raw sources",
            &m.raw,
            m.runs,
            m.facts_expected,
        );
    }
    h.push_str("</table>");

    h.push_str("<h2>Does the wiki help?</h2><figure>");
    let rates: Vec<(String, Vec<Pair>)> = report
        .models
        .iter()
        .map(|m| {
            (
                m.model.clone(),
                vec![
                    (
                        "facts found",
                        m.wiki.facts_found_rate,
                        m.raw.facts_found_rate,
                    ),
                    ("grounded claims", m.wiki.grounded_rate, m.raw.grounded_rate),
                    (
                        "valid answers",
                        Some(m.wiki.valid_rate),
                        Some(m.raw.valid_rate),
                    ),
                ],
            )
        })
        .collect();
    h.push_str(&pairs_svg(
        "The wiki against the raw sources, per model",
        &rates,
        1.0,
        &|v| pct(Some(v)),
    ));
    h.push_str("<figcaption>The same questions, the same model and prompt: answered from the wiki's pages, and from passages of the raw sources found by the same words. Facts found: expected facts whose content words are all in a valid answer; grounded claims: claims whose quote is found in the page or source they cite.</figcaption></figure>");

    h.push_str("<h2>Tokens per question</h2><figure>");
    let tokens: Vec<(String, Vec<Pair>)> = report
        .models
        .iter()
        .map(|m| {
            let per = |f: &AnswerFigures, out: bool| {
                let t = if out { f.tokens_out } else { f.tokens_in };
                (t.runs_reported > 0).then_some(t.per_question)
            };
            (
                m.model.clone(),
                vec![
                    ("prompt tokens", per(&m.wiki, false), per(&m.raw, false)),
                    ("answer tokens", per(&m.wiki, true), per(&m.raw, true)),
                ],
            )
        })
        .collect();
    let max = tokens
        .iter()
        .flat_map(|(_, rows)| rows.iter().flat_map(|(_, a, b)| [*a, *b]))
        .flatten()
        .fold(0.0, f64::max);
    let axis = ticks(max).last().copied().unwrap_or(1.0);
    h.push_str(&pairs_svg("Tokens per question", &tokens, axis, &|v| {
        format!("{v:.0}")
    }));
    h.push_str("<figcaption>Mean tokens per question a model was asked (retries included), over the questions whose every call reported usage.</figcaption></figure>");

    h.push_str("<h2>Questions</h2><table><tr><th>case</th><th class=\"l\">model</th><th>#</th><th class=\"l\">wiki</th><th>grounded</th><th>facts</th><th class=\"l\">raw sources</th><th>grounded</th><th>facts</th><th class=\"l\">question</th></tr>");
    for r in results {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"l m\">{}</td><td>{}</td>{}{}<td class=\"l\">{}</td></tr>",
            escape(&r.case_id),
            escape(&r.model),
            r.repeat,
            answer_cells(&r.wiki),
            answer_cells(&r.raw),
            escape(&r.question)
        );
    }
    h.push_str("</table><p class=\"meta\">Hover an answer to read it, and the facts to see which were missed. Every answer, claim and fact is in results.jsonl.</p></body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_neutralises_markup() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }

    #[test]
    fn ticks_are_round_and_cover_the_maximum() {
        assert_eq!(ticks(1000.0), vec![0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]);
        assert_eq!(ticks(7.0), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert!(ticks(0.0).len() >= 2);
        assert!(ticks(f64::NAN).len() >= 2);
    }
}
