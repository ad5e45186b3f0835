//! `lint` on a wiki the test builds with known defects (real files in a temp dir, digests
//! saved as a compile saves them, pages written as a page job writes them): each check
//! finds exactly those; `fix` repairs the safe ones and leaves proposals; a merge merges;
//! a dismissed merge proposal stays dismissed after its pages are made again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use wikimind::contract::{CheckedClaim, Confidence};
use wikimind::lint::{self, Check, Detail, LintOptions};
use wikimind::store::{JobSettings, JobState, JobTarget, SourceId, SourceStatus, Store};
use wikimind::wiki::Wiki;

use crate::seed::{link, result, save_with_claims};

struct Built {
    _dir: tempfile::TempDir,
    notes: PathBuf,
    wiki: Wiki,
}

fn sourced(quote: &str) -> CheckedClaim {
    CheckedClaim {
        claim: format!("It says: {quote}"),
        confidence: Confidence::Sourced,
        quote: Some(quote.to_owned()),
        grounded: true,
    }
}

impl Built {
    fn path(&self, name: &str) -> PathBuf {
        self.notes.join(name)
    }

    /// Writes a note and ingests it; returns its source.
    fn ingest(&self, name: &str, text: &str) -> SourceId {
        std::fs::write(self.path(name), text).unwrap();
        let summary = self
            .wiki
            .ingest_path(&self.path(name), self.wiki.ingest_options())
            .unwrap();
        summary.sources[0].source_id
    }

    /// Saves the digest a compile of `source` would, and marks the source compiled.
    fn digest(&self, source: SourceId, title: &str, body: &str, links: &[&str], quote: &str) {
        let claims: Vec<CheckedClaim> = if quote.is_empty() {
            Vec::new()
        } else {
            vec![sourced(quote)]
        };
        let links: Vec<_> = links.iter().map(|l| link(l, "")).collect();
        save_with_claims(
            self.store_for_tests(),
            source,
            &result(title, body),
            &claims,
            &links,
        );
        self.store_for_tests()
            .set_status(source, SourceStatus::Compiled, None)
            .unwrap();
    }

    fn store_for_tests(&self) -> &Store {
        self.wiki.store_for_tests()
    }

    /// Writes every stale page as a page job would: the by-title digest's body, the
    /// page's claims and links kept.
    fn write_pages(&self) {
        for page in self.store_for_tests().pages_to_queue().unwrap() {
            let material = self.store_for_tests().page_material(page).unwrap().unwrap();
            let mut content = material.current.clone();
            if let Some(own) = material.digests.iter().rev().find(|d| d.by_title) {
                content.body = own.content.body.clone();
            }
            self.store_for_tests()
                .save_page_rewrite(&material, &content, "ollama", "test", &[])
                .unwrap();
        }
    }

    fn findings(&self, check: Check) -> Vec<lint::Finding> {
        lint::lint(
            &self.wiki,
            &LintOptions {
                checks: vec![check],
            },
        )
        .unwrap()
        .findings
    }

    fn page(&self, title: &str) -> wikimind::store::PageId {
        self.store_for_tests()
            .find_page(title)
            .unwrap()
            .unwrap_or_else(|| panic!("no page {title}"))
    }
}

const CREMA: &str = "## Tiger Stripes\n\nThe stripes of a good shot are dark. They show fresh \
    beans. ^stripes\n\n## Colour\n\nCrema is hazel brown in a good shot.\n";
const THREE: &str = "It is one topic of the wiki. It has a page of its own. It is not thin.";

/// The wiki with its defects:
/// - `Espresso` links to `[[Crema#Tiger Stripes]]`, and the heading is renamed `Stripes`
///   (a broken section link); its note is edited on disk after it was read (stale);
/// - `Tea`, restored by a person, links to `Green Tea`, whose only source is then removed
///   (a person's link to a page that has gone);
/// - `Espresso` and `Crema` link to `Portafilter`, which no page answers to (wanted);
/// - `Milk`'s note is ingested again with other text (stale), so the quote of its page's
///   claim is no longer in it (ungrounded);
/// - a second note titled `Crema` joins after the pages were written (a stale page);
/// - `LLM` / `Large Language Model` and `Coffee Roasting` / `Roasting Coffee` (duplicates);
/// - `Stub` has no claims and one short sentence (thin);
/// - only `Espresso` and `Crema` link to each other: the rest are orphans.
fn build() -> Built {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    // No page is made for a name alone: `Portafilter` stays wanted.
    wiki.store_for_tests().set_min_sources(10);
    let w = Built {
        _dir: dir,
        notes,
        wiki,
    };
    let crema = w.ingest(
        "crema.md",
        "# Crema\n\nCrema is the foam on espresso. Tiger stripes show in good crema.\n",
    );
    w.digest(
        crema,
        "Crema",
        CREMA,
        &["Espresso", "Portafilter"],
        "Crema is the foam on espresso",
    );
    let espresso = w.ingest(
        "espresso.md",
        "# Espresso\n\nEspresso is brewed at nine bars of pressure.\n",
    );
    w.digest(
        espresso,
        "Espresso",
        "Espresso has [[Crema#Tiger Stripes]], [[Crema#^stripes]] and [[Crema#Colour]]. \
         It is strong and short. It is brewed fast.",
        &["Crema", "Portafilter"],
        "Espresso is brewed at nine bars",
    );
    let tea = w.ingest("tea.md", "# Tea\n\nTea is steeped in hot water.\n");
    w.digest(
        tea,
        "Tea",
        "Tea is steeped in hot water. See [[Green Tea]] for one kind. It is old.",
        &["Green Tea"],
        "Tea is steeped in hot water",
    );
    let green = w.ingest("green.md", "# Green Tea\n\nGreen tea is not oxidised.\n");
    w.digest(green, "Green Tea", THREE, &[], "Green tea is not oxidised");
    for (file, title) in [
        ("llm.md", "LLM"),
        ("large.md", "Large Language Model"),
        ("roast1.md", "Coffee Roasting"),
        ("roast2.md", "Roasting Coffee"),
    ] {
        let text = format!("# {title}\n\n{title} is a topic with a quote in it.\n");
        let id = w.ingest(file, &text);
        w.digest(id, title, THREE, &[], &format!("{title} is a topic"));
    }
    let stub = w.ingest("stub.md", "# Stub\n\nShort.\n");
    w.digest(stub, "Stub", "Short.", &[], "");
    let milk = w.ingest(
        "milk.md",
        "# Milk\n\nMilk is steamed to sixty degrees. It foams.\n",
    );
    w.digest(milk, "Milk", THREE, &[], "Milk is steamed to sixty degrees");
    w.write_pages();

    // A person restores Tea's first version (it links to Green Tea), then Green Tea's
    // only source goes.
    let tea_page = w.page("Tea");
    w.store_for_tests()
        .restore_page_version(tea_page, 1, &|_, _| {})
        .unwrap();
    assert!(w.store_for_tests().remove_source(green).unwrap());
    assert!(w
        .store_for_tests()
        .find_page("Green Tea")
        .unwrap()
        .is_none());

    // Crema's heading is renamed; the note is read and compiled again.
    let crema_again = w.ingest(
        "crema.md",
        "# Crema\n\nCrema is the foam on espresso. Its stripes show in good crema.\n",
    );
    assert_eq!(crema_again, crema);
    w.digest(
        crema,
        "Crema",
        &CREMA.replace("## Tiger Stripes", "## Stripes"),
        &["Espresso", "Portafilter"],
        "Crema is the foam on espresso",
    );
    w.write_pages();

    // Milk's note is read again with other text, not compiled yet.
    w.ingest(
        "milk.md",
        "# Milk\n\nMilk is heated gently. It foams a lot.\n",
    );
    // A second note on Crema joins: the page is behind its digests.
    let second = w.ingest(
        "crema-2.md",
        "# Crema\n\nCrema fades within a minute of pouring.\n",
    );
    w.digest(
        second,
        "Crema",
        CREMA.replace("## Tiger Stripes", "## Stripes").as_str(),
        &[],
        "Crema fades within a minute",
    );
    // Espresso's note is edited on disk, not read again.
    std::fs::write(
        w.path("espresso.md"),
        "# Espresso\n\nEspresso is brewed at nine bars of pressure, for thirty seconds.\n",
    )
    .unwrap();
    w
}

/// What a finding is about, in a form the tables below can state.
fn about(f: &lint::Finding) -> String {
    match &f.detail {
        Detail::BrokenLink {
            target,
            anchor,
            missing,
        } => format!(
            "{} -> {target}#{} ({missing})",
            f.pages[0],
            anchor.as_deref().unwrap_or("")
        ),
        Detail::Wanted {
            target,
            linked_from,
            sources,
        } => format!("{target} from {linked_from}, named by {}", sources.len()),
        Detail::Orphan { listed, .. } => format!("{} listed={listed}", f.pages.join(",")),
        Detail::Stale { reason, source, .. } => match source {
            Some(s) => format!(
                "{:?} {}",
                reason,
                Path::new(&s.origin).file_name().unwrap().to_string_lossy()
            ),
            None => format!("{:?} {}", reason, f.pages[0]),
        },
        Detail::Ungrounded { quote, on, .. } => format!("{on} {}: {quote}", f.pages[0]),
        Detail::AmbiguousLink {
            target, resolved, ..
        } => format!("{} -> {target} ({resolved})", f.pages[0]),
        Detail::Duplicate {
            survivor,
            absorbed,
            reason,
            ..
        } => format!("{absorbed} into {survivor} ({reason:?})"),
        Detail::Thin { claims, sentences } => {
            format!("{} claims={claims} sentences={sentences}", f.pages[0])
        }
    }
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn each_check_finds_exactly_the_defects_the_wiki_was_built_with() {
    let w = build();
    let table: &[(Check, &[&str])] = &[
        (
            Check::BrokenLink,
            &[
                "Espresso -> Crema#Tiger Stripes (section)",
                "Tea -> Green Tea# (page)",
            ],
        ),
        (Check::Wanted, &["Portafilter from 2, named by 2"]),
        (
            Check::Orphan,
            &[
                "Coffee Roasting listed=true",
                "LLM listed=true",
                "Large Language Model listed=true",
                "Milk listed=true",
                "Roasting Coffee listed=true",
                "Stub listed=true",
                "Tea listed=true",
            ],
        ),
        (
            Check::Stale,
            &[
                "ChangedOnDisk espresso.md",
                "Reingested milk.md",
                "PageBehind Crema",
            ],
        ),
        (
            Check::Ungrounded,
            &["page Milk: Milk is steamed to sixty degrees"],
        ),
        (
            Check::Duplicate,
            &[
                "LLM into Large Language Model (Acronym)",
                "Roasting Coffee into Coffee Roasting (WordOrder)",
            ],
        ),
        (Check::Thin, &["Stub claims=0 sentences=0"]),
    ];
    for (check, expected) in table {
        let found = w.findings(*check);
        assert!(found.iter().all(|f| f.check == *check));
        let got: BTreeSet<String> = found.iter().map(about).collect();
        assert_eq!(got, set(expected), "{check:?}: {found:#?}");
        assert_eq!(found.len(), expected.len(), "{check:?}: one finding each");
    }
    // The whole run: the figures agree with the findings.
    let report = lint::lint(&w.wiki, &LintOptions::default()).unwrap();
    let s = &report.summary;
    assert_eq!(s.pages, 9);
    assert_eq!(
        (
            s.broken_links,
            s.wanted,
            s.orphans,
            s.stale,
            s.ungrounded,
            s.duplicates,
            s.thin
        ),
        (
            Some(2),
            Some(1),
            Some(7),
            Some(3),
            Some(1),
            Some(2),
            Some(1)
        )
    );
    assert_eq!(s.errors, 2, "broken links are errors");
    assert_eq!(s.warnings, 3 + 1 + 2);
    assert!(s.link_resolution < 100.0, "{s:?}");
}

#[test]
fn fix_repairs_what_needs_no_judgement_and_leaves_proposals() {
    let w = build();
    let before = lint::lint(&w.wiki, &LintOptions::default()).unwrap();
    let fixes = lint::fix(&w.wiki, &before, &JobSettings::default()).unwrap();
    assert!(fixes.iter().all(|f| f.ok), "{fixes:#?}");
    let actions: BTreeSet<(Check, &str)> = fixes.iter().map(|f| (f.check, f.action)).collect();
    assert_eq!(
        actions,
        [
            (Check::Stale, "reread"),
            (Check::Stale, "queued"),
            (Check::Ungrounded, "downgraded"),
        ]
        .into_iter()
        .collect()
    );
    assert_eq!(
        fixes.len(),
        4,
        "espresso read, milk and Crema queued, one claim"
    );

    // The file edited on disk was read again: the next compile compiles it.
    let espresso = w
        .store_for_tests()
        .sources()
        .unwrap()
        .into_iter()
        .find(|s| s.origin.ends_with("espresso.md"))
        .unwrap();
    assert_eq!(espresso.status, SourceStatus::Stale);
    // Crema's write is queued.
    let crema = w.page("Crema");
    assert!(w
        .store_for_tests()
        .jobs()
        .unwrap()
        .iter()
        .any(|j| j.target == JobTarget::Page(crema) && j.state == JobState::Queued));
    // Milk's claim is shown inferred, its quote kept.
    let milk = w.store_for_tests().page(w.page("Milk")).unwrap().unwrap();
    assert_eq!(milk.claims[0].claim.confidence, Confidence::Inferred);
    assert_eq!(
        milk.claims[0].claim.quote.as_deref(),
        Some("Milk is steamed to sixty degrees")
    );
    assert!(milk.claims[0].source_ids.is_empty());

    let after = lint::lint(&w.wiki, &LintOptions::default()).unwrap();
    let ids = |r: &lint::LintReport, c: Check| -> BTreeSet<String> {
        r.findings
            .iter()
            .filter(|f| f.check == c)
            .map(|f| f.id.clone())
            .collect()
    };
    assert!(ids(&after, Check::Ungrounded).is_empty());
    for proposal in [
        Check::BrokenLink,
        Check::Wanted,
        Check::Orphan,
        Check::Duplicate,
        Check::Thin,
    ] {
        assert_eq!(
            ids(&after, proposal),
            ids(&before, proposal),
            "{proposal:?} is left alone"
        );
    }
    // Espresso is no longer different on disk: it is now waiting for its compile.
    let stale: BTreeSet<String> = after
        .findings
        .iter()
        .filter(|f| f.check == Check::Stale)
        .map(about)
        .collect();
    assert_eq!(
        stale,
        set(&[
            "Reingested espresso.md",
            "Reingested milk.md",
            "PageBehind Crema"
        ])
    );
}

#[test]
fn accepting_a_merge_merges_and_a_rejected_one_is_not_proposed_again() {
    let w = build();
    let proposals = w.findings(Check::Duplicate);
    let llm = proposals
        .iter()
        .find(|f| f.pages.contains(&"LLM".to_owned()))
        .unwrap();
    let Detail::Duplicate {
        survivor, absorbed, ..
    } = &llm.detail
    else {
        panic!("{llm:?}")
    };
    let merged = lint::merge(&w.wiki, survivor, absorbed, &JobSettings::default()).unwrap();
    assert_eq!(merged.outcome, "merged");
    let large = w.page("Large Language Model");
    assert_eq!(w.store_for_tests().find_page("LLM").unwrap(), Some(large));
    assert_eq!(w.store_for_tests().page_digests(large).unwrap().len(), 2);
    let job = merged.job.expect("the merged page needs writing");
    assert!(w
        .store_for_tests()
        .jobs()
        .unwrap()
        .iter()
        .any(|j| j.id.0 == job && j.target == JobTarget::Page(large)));

    // The other proposal is rejected.
    let roast = w.findings(Check::Duplicate);
    assert_eq!(roast.len(), 1, "the merged pair is no longer proposed");
    let rejected = lint::dismiss(&w.wiki, &roast[0].id).unwrap();
    assert!(w.findings(Check::Duplicate).is_empty());

    // Both pages are made again from new sources (new rows, new ids): still rejected.
    for s in w.store_for_tests().sources().unwrap() {
        if s.origin.ends_with("roast1.md") || s.origin.ends_with("roast2.md") {
            assert!(w.store_for_tests().remove_source(s.id).unwrap());
        }
    }
    assert!(w
        .store_for_tests()
        .find_page("Coffee Roasting")
        .unwrap()
        .is_none());
    for (file, title) in [
        ("roast3.md", "Roasting Coffee"),
        ("roast4.md", "Coffee Roasting"),
    ] {
        let id = w.ingest(file, &format!("# {title}\n\n{title} again.\n"));
        w.digest(id, title, THREE, &[], &format!("{title} again"));
    }
    assert!(w.findings(Check::Duplicate).is_empty());
    let report = lint::lint(&w.wiki, &LintOptions::default()).unwrap();
    assert!(report.summary.dismissed >= 1);
    assert!(report.findings.iter().all(|f| f.id != rejected.id));

    // An id no finding has is refused.
    assert!(matches!(
        lint::dismiss(&w.wiki, "0000000000000000"),
        Err(lint::DismissError::NotFound(_))
    ));
}

#[test]
fn a_wiki_where_almost_nothing_links_gets_one_orphan_finding() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let w = Built {
        _dir: dir,
        notes,
        wiki,
    };
    for i in 0..12 {
        let title = format!("Island {}", (b'A' + i) as char);
        let id = w.ingest(
            &format!("{i}.md"),
            &format!("# {title}\n\n{title} stands alone.\n"),
        );
        w.digest(id, &title, THREE, &[], &format!("{title} stands alone"));
    }
    let found = w.findings(Check::Orphan);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].pages.is_empty());
    assert!(matches!(
        found[0].detail,
        Detail::Orphan {
            listed: false,
            orphans: 12,
            ..
        }
    ));
    assert!(
        found[0].message.contains("12 of 12"),
        "{}",
        found[0].message
    );
}

#[test]
fn an_unchanged_file_is_not_read_and_a_touched_one_is_not_stale() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    let wiki = Wiki::open(&dir.path().join("data")).unwrap();
    let w = Built {
        _dir: dir,
        notes,
        wiki,
    };
    let id = w.ingest("a.md", "# Alpha\n\nAlpha text here.\n");
    w.digest(id, "Alpha", THREE, &[], "Alpha text here");
    assert!(w.findings(Check::Stale).is_empty());
    // Written again with the same text: a new time, the same text — not stale.
    std::fs::write(w.path("a.md"), "# Alpha\n\nAlpha text here.\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(w.path("a.md"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
        .unwrap();
    assert!(w.findings(Check::Stale).is_empty());
    // Gone from disk: stale, and no fix removes it.
    std::fs::remove_file(w.path("a.md")).unwrap();
    let found = w.findings(Check::Stale);
    assert_eq!(found.len(), 1);
    assert_eq!(about(&found[0]), "MissingOnDisk a.md");
    let fixes = lint::fix(
        &w.wiki,
        &lint::lint(&w.wiki, &LintOptions::default()).unwrap(),
        &JobSettings::default(),
    )
    .unwrap();
    assert!(fixes.iter().all(|f| f.check != Check::Stale));
    assert!(w.store_for_tests().source(id).unwrap().is_some());
}

/// What lint found is kept while the wiki does not change, and a change is seen at once,
/// even one written by another connection to the same file (as another process writes).
#[test]
fn a_change_from_another_connection_is_seen_by_the_next_lint() {
    let w = build();
    let wanted = |w: &Built| -> Vec<String> {
        w.findings(Check::Wanted)
            .iter()
            .filter_map(|f| match &f.detail {
                Detail::Wanted { target, .. } => Some(target.clone()),
                _ => None,
            })
            .collect()
    };
    let all = || lint::lint(&w.wiki, &LintOptions::default()).unwrap();
    let first = all();
    assert_eq!(first, all(), "nothing changed: the same report");
    assert!(wanted(&w).contains(&"Portafilter".to_owned()));

    let other = Built {
        _dir: tempfile::tempdir().unwrap(),
        notes: w.notes.clone(),
        wiki: Wiki::open(&w._dir.path().join("data")).unwrap(),
    };
    let id = other.ingest(
        "portafilter.md",
        "# Portafilter\n\nThe portafilter holds the coffee.\n",
    );
    other.digest(
        id,
        "Portafilter",
        THREE,
        &[],
        "The portafilter holds the coffee",
    );
    other.write_pages();
    assert!(
        !wanted(&w).contains(&"Portafilter".to_owned()),
        "the page the other connection wrote answers the name"
    );
    assert_ne!(all().summary.pages, first.summary.pages);
}
