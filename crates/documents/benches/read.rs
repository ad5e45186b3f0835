//! Reading speed of the document readers beside a baseline in the same run:
//!
//! - `pdf FILE`: [`read_pdf`] (Poppler's word boxes, then headers, hyphens, tables and
//!   page ranges) beside plain `pdftotext` on the same file;
//! - `epub FILE`: [`read_epub`] beside the HTML reader over the same XHTML chapters.
//!
//! Prints medians of five runs and their ratio. `scripts/bench-documents.sh` makes a
//! 300-page PDF and a 2 MB EPUB and runs this under `/usr/bin/time` for peak memory.

use std::io::Read;
use std::process::Command;
use std::time::{Duration, Instant};

use wikimind_documents::epub::read_epub;
use wikimind_documents::html::readable_html;
use wikimind_documents::pdf::read_pdf;
use wikimind_documents::Limits;

fn median(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[2]
}

fn main() {
    let args: Vec<String> = std::env::args().filter(|a| a != "--bench").collect();
    let (Some(mode), Some(path)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: read pdf|epub FILE");
        std::process::exit(2);
    };
    let bytes = std::fs::read(path).expect("the input file");
    let limits = Limits::default();
    match mode.as_str() {
        "pdf" => {
            let doc = read_pdf(&bytes, None, &limits).expect("a readable PDF");
            let ours = median(|| {
                read_pdf(&bytes, None, &limits).unwrap();
            });
            let baseline = median(|| {
                let out = Command::new("pdftotext")
                    .args([path.as_str(), "-"])
                    .output()
                    .unwrap();
                assert!(out.status.success());
            });
            println!(
                "pdf: {} pages, {} bytes of text; read_pdf {:.1} ms, pdftotext {:.1} ms, ratio {:.2}",
                doc.pages.len(),
                doc.text.len(),
                ours.as_secs_f64() * 1e3,
                baseline.as_secs_f64() * 1e3,
                ours.as_secs_f64() / baseline.as_secs_f64()
            );
        }
        "epub" => {
            let doc = read_epub(&bytes, None, &limits).expect("a readable EPUB");
            // The same XHTML, taken out of the archive once, for the baseline.
            let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).unwrap();
            let mut chapters = Vec::new();
            for i in 0..zip.len() {
                let mut entry = zip.by_index(i).unwrap();
                if entry.name().ends_with(".xhtml") {
                    let mut text = String::new();
                    entry.read_to_string(&mut text).unwrap();
                    chapters.push(text);
                }
            }
            let xhtml: usize = chapters.iter().map(String::len).sum();
            let ours = median(|| {
                read_epub(&bytes, None, &limits).unwrap();
            });
            let baseline = median(|| {
                for chapter in &chapters {
                    readable_html(chapter);
                }
            });
            println!(
                "epub: {} bytes zipped, {xhtml} bytes of XHTML, {} bytes of text; read_epub {:.1} ms, HTML reader alone {:.1} ms, ratio {:.2}",
                bytes.len(),
                doc.text.len(),
                ours.as_secs_f64() * 1e3,
                baseline.as_secs_f64() * 1e3,
                ours.as_secs_f64() / baseline.as_secs_f64()
            );
        }
        other => {
            eprintln!("unknown mode {other}");
            std::process::exit(2);
        }
    }
}
