//! A folder of markdown someone else wrote, compiled (issue 34, "Every vault reads right"):
//! a generated vault of 1,500 notes in nested folders — every folder with its own
//! `index.md` and `constructor.md` (names many notes share), notes linking with markdown
//! links (relative paths, `../` paths, bare shared names) — ingested as a folder and
//! compiled through the stand-in model server, against the same vault at 150 notes, run
//! first in the same process as the baseline.
//!
//! ```text
//! cargo bench -p wikimind --bench vault_compile            # 1,500 notes against 150
//! cargo bench -p wikimind --bench vault_compile -- 10000   # 10,000 against 1,000
//! ```
//!
//! For each size: the time spent in WikiMind per note (ingesting the folder, compiling every
//! note, writing every stale page; the time the stand-in server spends making its answers
//! is taken off, the HTTP round trip to it is counted), the growth of peak resident memory
//! per note over the run (Linux `VmHWM`, reset before each run), model calls per note, and
//! the pages the vault gave (notes told apart by their folder, links that lead to a page).
//! The last lines are the ratios of the large vault's figures per note to the small one's:
//! near 1 means the cost per note does not grow with the vault.

mod wiki_lab;

use std::path::Path;
use std::time::{Duration, Instant};

use wiki_lab::{ms, percent, Figures, Lab};

/// The model's context: a common size today.
const CONTEXT: u64 = 32_768;
/// Notes in each folder besides its `index.md` and `constructor.md`.
const NOTES_PER_FOLDER: usize = 8;

/// Writes a vault of about `notes` notes under `root`: folders `Area N/Part M/`, each
/// holding `index.md` and `constructor.md` (shared by every folder) and
/// [`NOTES_PER_FOLDER`] notes of their own, all linking with markdown links.
fn write_vault(root: &Path, notes: usize) {
    let per_folder = NOTES_PER_FOLDER + 2;
    let folders = notes.div_ceil(per_folder);
    let folder_of = |f: usize| format!("Area {}/Part {}", f / 5, f % 5);
    let mut written = 0;
    for f in 0..folders {
        let here = root.join(folder_of(f));
        std::fs::create_dir_all(&here).expect("a folder of the vault");
        let next = folder_of((f + 1) % folders);
        let write = |name: &str, text: String| {
            std::fs::write(here.join(name), text).expect("a note of the vault");
        };
        write(
            "index.md",
            format!(
                "# Index\n\nPart {f} gathers the measurements of site {f}. \
                 Its notes begin with [the first reading](Reading%20{f}-0.md) and \
                 its [constructor](constructor.md) sets the rig up.\n"
            ),
        );
        write(
            "constructor.md",
            format!(
                "# constructor\n\nThe constructor of rig {f} calibrates {a} sensors before a run. \
                 It reads the settings from the [index](./index.md) of its part \
                 and hands over to [the next rig](../../{next}/constructor.md).\n",
                a = f % 7 + 2,
            ),
        );
        written += 2;
        for k in 0..NOTES_PER_FOLDER {
            if written >= notes {
                break;
            }
            let other = folder_of((f * 7 + k + 3) % folders);
            write(
                &format!("Reading {f}-{k}.md"),
                format!(
                    "# Reading {f}-{k}\n\nReading {k} of site {f} measured {a} units over {b} days. \
                     The drift was {c} percent, logged by team {d}.\n\n\
                     See the [index](index.md), the [rig](<constructor.md>) and \
                     [a reading elsewhere](/{other}/Reading%20{o}-{k}.md).\n",
                    a = (f * 31 + k * 7) % 1000,
                    b = k % 30 + 1,
                    c = (f + k * 13) % 97,
                    d = f % 50,
                    o = (f * 7 + k + 3) % folders,
                ),
            );
            written += 1;
        }
    }
}

/// The process's peak resident memory so far, in kB (Linux `VmHWM`), if known.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The process's resident memory now, in kB (Linux `VmRSS`), if known.
fn rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the peak resident memory to what is resident now (Linux: `5` to `clear_refs`);
/// whether it could.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// What one vault cost.
struct Run {
    notes: usize,
    in_wikimind: Duration,
    /// Of it: ingesting the folder, compiling the notes, writing the pages.
    phases: [Duration; 3],
    memory_kb: Option<u64>,
    calls: u64,
    figures: Figures,
    told_apart: usize,
    stale_left: usize,
}

impl Run {
    fn ms_per_note(&self) -> f64 {
        ms(self.in_wikimind) / self.notes as f64
    }

    fn kb_per_note(&self) -> Option<f64> {
        self.memory_kb.map(|kb| kb as f64 / self.notes as f64)
    }
}

/// Ingests a generated vault of `notes` notes as a folder and compiles it whole.
fn run(notes: usize) -> Run {
    let vault = tempfile::tempdir().expect("a temporary directory");
    write_vault(vault.path(), notes);
    let lab = Lab::new(CONTEXT);
    let resident = rss_kb();
    let measured = reset_peak();
    let mark = lab.model.mark();
    let started = Instant::now();
    let sources = lab.add_path(vault.path());
    assert_eq!(sources.len(), notes, "every note of the vault is a source");
    let ingested = started.elapsed();
    for source in &sources {
        lab.compile(*source);
    }
    let compiled = started.elapsed();
    let busy_compiling = lab.model.busy() - mark.busy;
    let pages = lab.write_stale_pages();
    let wall = started.elapsed();
    let peak = peak_rss_kb();
    let busy = lab.model.busy() - mark.busy;
    let calls = lab.model.chats() - mark.chats;
    assert_eq!(
        pages.failed, 0,
        "no page left unwritten: {:?}",
        pages.reasons
    );
    let figures = Figures::of(lab.store_for_tests());
    let told_apart = lab
        .wiki
        .source_list()
        .expect("the sources")
        .iter()
        .filter(|s| s.told_apart_as.is_some())
        .count();
    let stale_left = figures.stale;
    Run {
        notes,
        in_wikimind: wall.saturating_sub(busy),
        phases: [
            ingested,
            (compiled - ingested).saturating_sub(busy_compiling),
            (wall - compiled).saturating_sub(busy - busy_compiling),
        ],
        memory_kb: match (measured, resident, peak) {
            (true, Some(before), Some(peak)) => Some(peak.saturating_sub(before)),
            _ => None,
        },
        calls,
        figures,
        told_apart,
        stale_left,
    }
}

fn report(run: &Run) {
    let f = &run.figures;
    println!(
        "{:>6} notes | {:>8.1} ms in WikiMind per note | {:>8} kB peak memory per note | \
         {:.2} model calls per note",
        run.notes,
        run.ms_per_note(),
        run.kb_per_note()
            .map_or_else(|| "?".to_owned(), |kb| format!("{kb:.1}")),
        run.calls as f64 / run.notes as f64,
    );
    let [ingest, compile, pages] = run.phases.map(|d| ms(d) / run.notes as f64);
    println!(
        "         per note: {ingest:.2} ms ingesting, {compile:.2} ms compiling, {pages:.2} ms writing pages"
    );
    println!(
        "         {} pages from {} sources, {} notes told apart by their folder, \
         {:.1}% of {} page links lead to a page, {} pages stale",
        f.pages,
        f.sources,
        run.told_apart,
        percent(f.resolved, f.links),
        f.links,
        run.stale_left,
    );
}

fn main() {
    // `-- N`: the vault at N notes against N / 10 (the issue's 10,000 against 1,000).
    let large_notes = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map(|a| a.parse::<usize>().expect("NOTES is a number"))
        .unwrap_or(1500);
    let small_notes = (large_notes / 10).max(1);
    println!("vault_compile: a generated vault ingested as a folder and compiled through the stand-in server");
    let small = run(small_notes);
    report(&small);
    let large = run(large_notes);
    report(&large);
    let scale = large_notes as f64 / small_notes as f64;
    let phase = |i: usize| ms(large.phases[i]) / ms(small.phases[i]) / scale;
    println!(
        "ratio {} / {} per note: time {:.2}x (ingesting {:.2}x, compiling {:.2}x, writing pages {:.2}x), memory {}",
        thousands(large_notes),
        thousands(small_notes),
        large.ms_per_note() / small.ms_per_note(),
        phase(0),
        phase(1),
        phase(2),
        match (large.kb_per_note(), small.kb_per_note()) {
            (Some(l), Some(s)) if s > 0.0 => format!("{:.2}x", l / s),
            _ => "? (peak memory not measurable here)".to_owned(),
        },
    );
}

/// `1500` as `1,500`, as the ratio line has always printed it.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
