//! Ingesting an Obsidian vault of 10,000 notes (the "real notes" issue, "Evidence"): the
//! time to read the folder (walk, the markdown reader: front matter, own titles, tags,
//! aliases) and to store every source, and the peak memory, against a bare baseline measured
//! in the same run — walking the same folder and reading every file into memory.
//!
//! ```text
//! cargo bench -p wikimind --bench vault_ingest            # 10,000 notes
//! cargo bench -p wikimind --bench vault_ingest -- 50000   # another size
//! ```
//!
//! The notes are written by the bench: front matter with a title on some, aliases and tags
//! on others, every link form (`[[T]]`, `[[T|shown]]`, `[[T#Heading]]`, `![[T]]`,
//! `[[folder/T]]`, `![[image.png|200]]`), a callout, a comment and a block id, in 100
//! folders, with an `.obsidian/` folder and attachments beside them. Nothing is compiled.

use std::path::Path;
use std::time::{Duration, Instant};

use wikimind::ingest::{ingest_path, IngestOptions};
use wikimind::wiki::Wiki;

fn write_vault(root: &Path, notes: usize) {
    std::fs::create_dir_all(root.join(".obsidian")).unwrap();
    std::fs::write(root.join(".obsidian/app.json"), "{}").unwrap();
    std::fs::create_dir_all(root.join("attachments")).unwrap();
    for i in 0..notes / 100 {
        std::fs::write(
            root.join(format!("attachments/img{i}.png")),
            [0x89, b'P', 0],
        )
        .unwrap();
    }
    for i in 0..notes {
        let folder = root.join(format!("f{:02}", i % 100));
        std::fs::create_dir_all(&folder).unwrap();
        let front = match i % 3 {
            0 => format!(
                "---\ntitle: Note {i}\naliases: [N{i}, Number {i}]\ntags: [t{}, group/{}]\n---\n",
                i % 50,
                i % 7
            ),
            1 => format!("---\ntags: t{}\n---\n# Note {i}\n", i % 50),
            _ => String::new(),
        };
        let a = (i * 7 + 1) % notes;
        let b = (i * 13 + 5) % notes;
        let text = format!(
            "{front}Note {i} is about topic {i}. It links [[Note {a}]], [[Note {b}|the other]], \
             [[Note {a}#Details]], ![[Note {b}]], [[f{:02}/Note {a}]] and ![[img{}.png|200]]. #inline{}\n\n\
             > [!tip] Remember\n> Topic {i} has a callout.\n\n%%a hidden comment%%\n\n\
             ## Details\n\nDetail of note {i} is written here with ==marked== words. ^d{i}\n",
            a % 100,
            i % (notes / 100).max(1),
            i % 20,
        );
        std::fs::write(folder.join(format!("Note {i}.md")), text).unwrap();
    }
}

/// The process's peak resident memory so far, in kB (Linux `VmHWM`), if known.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The baseline: every file under `root` read into memory, as a bare walk does.
fn read_all(root: &Path) -> (usize, usize) {
    let (mut files, mut bytes) = (0, 0);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                bytes += std::fs::read(&path).unwrap().len();
                files += 1;
            }
        }
    }
    (files, bytes)
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn main() {
    let notes: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    write_vault(&vault, notes);
    let before = peak_rss_kb();

    // The two take turns going first, so neither gets the warm cache alone.
    let mut bare = Duration::ZERO;
    let mut read = Duration::ZERO;
    let mut report = None;
    for round in 0..2 {
        let run_bare = |bare: &mut Duration| {
            let t = Instant::now();
            let (files, bytes) = read_all(&vault);
            *bare += t.elapsed();
            (files, bytes)
        };
        if round == 0 {
            run_bare(&mut bare);
        }
        let t = Instant::now();
        let r = ingest_path(&vault, &IngestOptions::default()).unwrap();
        read += t.elapsed();
        if round == 1 {
            run_bare(&mut bare);
        }
        report = Some(r);
    }
    let report = report.unwrap();
    let after_read = peak_rss_kb();

    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let t = Instant::now();
    let added = wiki.add_sources(&report.sources).unwrap();
    let store = t.elapsed();
    let after_store = peak_rss_kb();

    let tagged = report.sources.iter().filter(|s| !s.tags.is_empty()).count();
    let aliased = report
        .sources
        .iter()
        .filter(|s| !s.aliases.is_empty())
        .count();
    println!(
        "vault of {notes} notes ({} skipped: {:?})",
        report.skipped.len(),
        {
            let mut counts = std::collections::BTreeMap::new();
            for s in &report.skipped {
                *counts.entry(s.reason.label()).or_insert(0) += 1;
            }
            counts
        }
    );
    println!(
        "  sources read {}, with tags {tagged}, with aliases {aliased}, stored {}",
        report.sources.len(),
        added.len()
    );
    println!(
        "  bare walk and read (baseline): {} per round",
        secs(bare / 2)
    );
    println!(
        "  ingest (walk, read, markdown reader): {} per round = {:.2}x the baseline",
        secs(read / 2),
        read.as_secs_f64() / bare.as_secs_f64().max(1e-9)
    );
    println!(
        "  storing every source in SQLite: {} ({:.0} µs a source)",
        secs(store),
        store.as_secs_f64() * 1e6 / added.len().max(1) as f64
    );
    if let (Some(b), Some(r), Some(s)) = (before, after_read, after_store) {
        println!(
            "  peak memory: {} MB before, {} MB after reading, {} MB after storing",
            b / 1024,
            r / 1024,
            s / 1024
        );
    }
}
