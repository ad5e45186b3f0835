//! The Health screen: findings by check, windows of findings, merge proposals.

use super::*;

/// The Health screen from one lint run: findings grouped by check with their pages as
/// links, the run stored for the trend, and a merge proposal accepted merges the pages
/// while a dismissed finding is not listed again.
#[test]
fn the_health_screen_groups_findings_and_accepting_a_merge_merges() {
    let wiki = Wiki::open_in_memory().unwrap();
    digest(
        &wiki,
        "# Coffee Roasting\n\nBeans are roasted hot.",
        "Coffee Roasting",
        "Beans are roasted hot.",
        &[],
        &[],
    );
    digest(
        &wiki,
        "# Roasting Coffee\n\nRoasting takes minutes.",
        "Roasting Coffee",
        "Roasting takes minutes.",
        &[],
        &[],
    );
    let first = wiki.health_view().unwrap();
    assert_eq!(first.trend.len(), 1, "a look is a lint run, stored");
    assert_eq!(first.notice, None);
    let second = wiki.health_view().unwrap();
    assert_eq!(
        second.trend.len(),
        1,
        "a look that finds nothing new adds no point"
    );
    let checks: Vec<&str> = first.groups.iter().map(|g| g.check.as_str()).collect();
    assert!(checks.contains(&"duplicate"), "{checks:?}");
    let duplicates = first
        .groups
        .iter()
        .find(|g| g.check == "duplicate")
        .unwrap();
    assert_eq!(duplicates.label, "Merge proposals");
    assert_eq!(duplicates.findings.len(), 1);
    let proposal = &duplicates.findings[0];
    let merge = proposal.merge.as_ref().expect("a merge proposal");
    assert_eq!(merge.reason, "the same words in another order");
    assert!(proposal
        .pages
        .iter()
        .all(|p| p
            .page_id
            .is_some_and(|id| wiki.store().page(id).unwrap().is_some())));
    assert_eq!(first.now.duplicates, 1);

    // Thin pages (bodies of one sentence): dismiss one, it stays away.
    let thin = first.groups.iter().find(|g| g.check == "thin").unwrap();
    let thin_id = thin.findings[0].id.clone();
    let after = wiki.dismiss_finding_view(&thin_id).unwrap();
    assert!(after.notice.as_deref().unwrap().starts_with("dismissed: "));
    assert_eq!(after.dismissed, 1);
    assert!(after
        .groups
        .iter()
        .flat_map(|g| &g.findings)
        .all(|f| f.id != thin_id));
    assert_eq!(after.trend.len(), 1, "an action is not a stored run");

    let merged = wiki.accept_merge_view(&proposal.id).unwrap();
    let notice = merged.notice.unwrap();
    assert!(notice.starts_with("merged "), "{notice}");
    assert!(merged.groups.iter().all(|g| g.check != "duplicate"));
    let lib = wiki.library(LibrarySort::Title, None).unwrap();
    assert_eq!(lib.entries.len(), 1, "one page is left");
    assert_eq!(lib.health.unwrap().duplicates, 1, "the last stored run");
    let again = wiki.accept_merge_view(&proposal.id).unwrap();
    assert!(again.notice.unwrap().contains("gone already"));
}

/// The Health screen is sent the first findings of each check with how many there are;
/// the rest come by window, in the same order, and an unknown check is refused by name.
#[test]
fn the_health_screen_sends_the_first_findings_and_the_rest_by_window() {
    let wiki = Wiki::open_in_memory().unwrap();
    let names: Vec<String> = (0..130).map(|n| format!("Wanted Thing {n:03}")).collect();
    let links: Vec<&str> = names.iter().map(String::as_str).collect();
    digest(
        &wiki,
        "# Hub\n\nThe hub names many things.",
        "Hub",
        "The hub names many things.",
        &[],
        &links,
    );
    let view = wiki.health_view().unwrap();
    let wanted = view.groups.iter().find(|g| g.check == "wanted").unwrap();
    assert_eq!(wanted.total, 130, "{:?}", view.now);
    assert_eq!(wanted.findings.len(), HEALTH_FINDINGS_SHOWN);

    let rest = wiki
        .health_findings("wanted", HEALTH_FINDINGS_SHOWN as u32, 500)
        .unwrap();
    assert_eq!(rest.len(), 30);
    let report = crate::lint::lint(&wiki, &crate::lint::LintOptions::default()).unwrap();
    let in_lint: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.check == crate::lint::Check::Wanted)
        .map(|f| f.id.as_str())
        .collect();
    let shown: Vec<&str> = wanted
        .findings
        .iter()
        .chain(&rest)
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(
        shown, in_lint,
        "the first ones and the window, in lint's order"
    );
    assert!(wiki.health_findings("wanted", 500, 10).unwrap().is_empty());

    let refused = wiki.health_findings("nonsense", 0, 10).unwrap_err();
    assert!(refused.to_string().contains("\"nonsense\""), "{refused}");
}

/// Rejecting a merge proposal from the Health screen is a dismissal: remembered, so the
/// proposal is not listed again, and both pages stay.
#[test]
fn a_rejected_merge_proposal_stays_rejected_and_both_pages_stay() {
    let wiki = Wiki::open_in_memory().unwrap();
    for title in ["Coffee Roasting", "Roasting Coffee"] {
        let text = format!("# {title}\n\nBeans are roasted hot.");
        digest(&wiki, &text, title, "Beans are roasted hot.", &[], &[]);
    }
    let view = wiki.health_view().unwrap();
    let group = view.groups.iter().find(|g| g.check == "duplicate").unwrap();
    let id = group.findings[0].id.clone();
    let after = wiki.dismiss_finding_view(&id).unwrap();
    assert!(after.notice.unwrap().starts_with("rejected: "));
    assert!(after.groups.iter().all(|g| g.check != "duplicate"));
    assert!(wiki
        .health_view()
        .unwrap()
        .groups
        .iter()
        .all(|g| g.check != "duplicate"));
    assert_eq!(
        wiki.library(LibrarySort::Title, None)
            .unwrap()
            .entries
            .len(),
        2
    );
    let gone = wiki.dismiss_finding_view(&id).unwrap();
    assert!(gone.notice.unwrap().contains("gone already"));
}

/// Storing a look's figures keeps what the look read: the store's own write of the run
/// moves it to a generation lint's reads are kept under, so the next look (and the
/// runner's after a compile run) reads nothing again. A commit by another connection
/// before the figures are stored makes the next look read afresh.
#[test]
fn storing_the_figures_keeps_what_lint_read_unless_another_commit_came() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let wiki = Wiki::open(&data).unwrap();
    digest(
        &wiki,
        "# Coffee Roasting\n\nBeans are roasted hot.",
        "Coffee Roasting",
        "Beans are roasted hot.",
        &[],
        &[],
    );
    let now = || wiki.store().generation().unwrap();
    let first = wiki.health_view().unwrap();
    assert_eq!(first.trend.len(), 1, "the look's figures are stored");
    assert!(wiki.lint_held.holds(now()), "what the look read is kept");

    // A compile run's figures: stored each time, what lint holds kept each time.
    let report = crate::lint::lint(&wiki, &crate::lint::LintOptions::default()).unwrap();
    assert!(crate::lint::record_health(&wiki, &report, crate::lint::Trigger::Compile).unwrap());
    assert!(wiki.lint_held.holds(now()));

    // Another process writes between the look and its figures: not kept.
    let report = crate::lint::lint(&wiki, &crate::lint::LintOptions::default()).unwrap();
    let other = rusqlite::Connection::open(data.join("wikimind.db")).unwrap();
    other
        .execute(
            "UPDATE pages SET title = 'Roasting' WHERE title = 'Coffee Roasting'",
            [],
        )
        .unwrap();
    assert!(crate::lint::record_health(&wiki, &report, crate::lint::Trigger::Compile).unwrap());
    assert!(
        !wiki.lint_held.holds(now()),
        "read again after another's commit"
    );
    let again = crate::lint::lint(&wiki, &crate::lint::LintOptions::default()).unwrap();
    assert_eq!(again.summary.pages, report.summary.pages);
    assert!(wiki.lint_held.holds(now()));
}
