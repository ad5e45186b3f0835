use super::*;
use crate::{fixtures, NewSource, SaveArticle, SourceId, SourceKind};

/// Saves a digest titled `title` with `body` for `source`; the page its title names.
fn save_digest(store: &Store, source: SourceId, title: &str, body: &str) -> Option<PageId> {
    let result = fixtures::result(title, body);
    store
        .save_article(&SaveArticle {
            ..fixtures::digest(source, &result)
        })
        .unwrap()
        .page_id
}

/// Adds a file source at `origin` holding `text`.
fn add_source(store: &Store, origin: &str, text: &str) -> SourceId {
    store
        .ingest_source(&NewSource {
            origin: origin.to_owned(),
            kind: SourceKind::File,
            title: None,
            text: text.to_owned(),
            tags: Vec::new(),
            aliases: Vec::new(),
            root: None,
        })
        .unwrap()
        .source_id()
}

/// A store with one page (`Espresso`) the model wrote once with `body` and `claims`.
fn wiki(body: &str, claims: &[&str]) -> (Store, PageId) {
    let store = Store::open_in_memory().unwrap();
    let source = add_source(
        &store,
        "/notes/espresso.md",
        "Espresso is coffee under pressure.",
    );
    let page = save_digest(&store, source, "Espresso", "Espresso.").unwrap();
    rewrite(&store, page, body, claims);
    (store, page)
}

/// The model writes `page` again with `body` and `claims`; returns the page's version.
fn rewrite(store: &Store, page: PageId, body: &str, claims: &[&str]) -> u32 {
    let material = store.page_material(page).unwrap().unwrap();
    let content = PageContent {
        title: material.title.clone(),
        summary: "About espresso.".to_owned(),
        body: body.to_owned(),
        claims: claims.iter().map(|c| model_claim(c)).collect(),
        concepts: Vec::new(),
        open_questions: Vec::new(),
        links: body_links(body),
    };
    store
        .save_page_rewrite(&material, &content, "test", "model", &[])
        .unwrap()
}

fn model_claim(text: &str) -> PageClaim {
    PageClaim {
        claim: CheckedClaim {
            claim: text.to_owned(),
            confidence: Confidence::Sourced,
            quote: Some("coffee under pressure".to_owned()),
            grounded: true,
        },
        source_ids: Vec::new(),
        cited_page: None,
        author: AuthorKind::Model,
    }
}

fn current(store: &Store, page: PageId) -> PageContent {
    store
        .read(String::new, |c| current_content(c, page))
        .unwrap()
        .unwrap()
}

fn claims(store: &Store, page: PageId) -> Vec<(String, AuthorKind)> {
    current(store, page)
        .claims
        .into_iter()
        .map(|c| (c.claim.claim, c.author))
        .collect()
}

const BODY: &str = "Intro.\n\n## Grind\n\nFine grind.\n\n## Pressure\n\nNine bars.\n";

#[test]
fn an_edit_survives_a_rewrite_section_by_section() {
    let (store, page) = wiki(BODY, &["Espresso is brewed."]);
    let v = store.page(page).unwrap().unwrap().version;
    let edited = BODY.replace("Fine grind.", "Fine grind, see [[Burr Grinder]].");
    let saved = store.edit_page(page, v, &edited).unwrap();
    assert!(saved.changed && !saved.merged);

    // The model changes the other section and the edited one, in conflict.
    let new = BODY
        .replace("Nine bars.", "Nine bars, at 93 °C.")
        .replace("Fine grind.", "A fine, even grind.");
    rewrite(&store, page, &new, &["Espresso is brewed."]);
    let body = current(&store, page).body;
    assert!(body.contains("Fine grind, see [[Burr Grinder]]."), "{body}");
    assert!(body.contains("Nine bars, at 93 °C."), "{body}");
    let links: Vec<String> = current(&store, page)
        .links
        .into_iter()
        .map(|l| l.target)
        .collect();
    assert_eq!(links, ["Burr Grinder"]);
    let suggestions = store.page_suggestions(page).unwrap();
    assert_eq!(suggestions.len(), 1);
    assert_eq!(suggestions[0].section, "Grind");
    assert!(suggestions[0].text.contains("A fine, even grind."));

    // The model's own version is kept as it wrote it: the next prompt reads that.
    let material = store.page_material(page).unwrap().unwrap();
    assert_eq!(material.last_compiled.unwrap().body, new);

    // Accepting the suggestion puts it in place.
    store.accept_suggestion(page, suggestions[0].id).unwrap();
    let body = current(&store, page).body;
    assert!(body.contains("A fine, even grind."), "{body}");
    assert!(!body.contains("Burr Grinder"), "{body}");
    assert!(store.page_suggestions(page).unwrap().is_empty());
    assert!(store.accept_suggestion(page, suggestions[0].id).is_err());
}

#[test]
fn an_edit_on_an_older_version_merges_instead_of_overwriting() {
    let (store, page) = wiki(BODY, &[]);
    let old = store.page(page).unwrap().unwrap().version;
    rewrite(
        &store,
        page,
        &BODY.replace("Nine bars.", "Nine to ten bars."),
        &[],
    );
    let saved = store
        .edit_page(page, old, &BODY.replace("Intro.", "My intro."))
        .unwrap();
    assert!(saved.merged && saved.changed);
    assert_eq!(saved.suggestions, 0);
    let body = current(&store, page).body;
    assert!(
        body.contains("My intro.") && body.contains("Nine to ten bars."),
        "{body}"
    );
}

#[test]
fn removed_claims_stay_removed_and_a_persons_claims_are_carried() {
    let (store, page) = wiki(BODY, &["Espresso is brewed.", "Crema is foam."]);
    let (_, removed) = store
        .remove_page_claim(page, WhichClaim::Number(2))
        .unwrap();
    assert_eq!(removed, "Crema is foam.");
    store
        .add_person_claim(page, "  My machine  pulls 25 s shots. ")
        .unwrap();
    assert!(store.add_person_claim(page, "   ").is_err());
    assert!(store
        .remove_page_claim(page, WhichClaim::Number(9))
        .is_err());

    rewrite(
        &store,
        page,
        BODY,
        &["Espresso is brewed.", "crema is  FOAM.", "New claim."],
    );
    assert_eq!(
        claims(&store, page),
        [
            ("Espresso is brewed.".to_owned(), AuthorKind::Model),
            ("New claim.".to_owned(), AuthorKind::Model),
            (
                "My machine pulls 25 s shots.".to_owned(),
                AuthorKind::Person
            ),
        ]
    );
    let person = &current(&store, page).claims[2];
    assert_eq!(person.claim.confidence, Confidence::Inferred);
    assert!(!person.claim.grounded && person.source_ids.is_empty());

    // Revert to compiled drops the person's work.
    store.revert_to_compiled(page).unwrap().unwrap();
    assert_eq!(claims(&store, page).len(), 3);
    assert!(claims(&store, page)
        .iter()
        .all(|(_, a)| *a == AuthorKind::Model));
    rewrite(
        &store,
        page,
        BODY,
        &["Espresso is brewed.", "Crema is foam."],
    );
    assert_eq!(
        claims(&store, page).len(),
        2,
        "removals are forgotten on revert"
    );
}

#[test]
fn a_rename_keeps_the_old_title_as_an_alias() {
    let (store, page) = wiki(BODY, &[]);
    store.rename_page(page, "Espresso coffee").unwrap();
    assert_eq!(store.page(page).unwrap().unwrap().title, "Espresso coffee");
    assert_eq!(store.find_page("Espresso").unwrap(), Some(page));
    assert_eq!(store.find_page("espresso coffee").unwrap(), Some(page));
    // Back again: the alias gives way to the title.
    store.rename_page(page, "Espresso").unwrap();
    assert_eq!(store.find_page("Espresso coffee").unwrap(), Some(page));
    assert!(store.rename_page(page, "  ").is_err());
}

#[test]
fn a_page_without_a_persons_work_is_the_models() {
    let (store, page) = wiki(BODY, &["A."]);
    let before = store.page_history(page).unwrap().len();
    rewrite(&store, page, "All new.\n", &["B."]);
    let history = store.page_history(page).unwrap();
    assert_eq!(history.len(), before + 1);
    assert_eq!(history.last().unwrap().author_kind, AuthorKind::Model);
    assert_eq!(current(&store, page).body, "All new.\n");
}

/// Saves a new digest for the one source of the page `Espresso` (its only source, so the
/// page is that digest: no page job).
fn new_digest(store: &Store, body: &str) {
    let source = store.sources().unwrap()[0].id;
    save_digest(store, source, "Espresso", body);
}

#[test]
fn a_page_of_one_source_keeps_an_edit_when_its_digest_changes() {
    let store = Store::open_in_memory().unwrap();
    add_source(
        &store,
        "/notes/espresso.md",
        "Espresso is coffee under pressure.",
    );
    new_digest(&store, "Espresso is coffee.\n");
    let page = store.find_page("Espresso").unwrap().unwrap();
    let v = store.page(page).unwrap().unwrap().version;
    store
        .edit_page(page, v, "Espresso is coffee.\n\n## Mine\n\nMy notes.\n")
        .unwrap();

    // The same digest again changes nothing (no new version).
    let versions = store.page_history(page).unwrap().len();
    new_digest(&store, "Espresso is coffee.\n");
    assert_eq!(store.page_history(page).unwrap().len(), versions);
    assert!(current(&store, page).body.contains("## Mine"));

    // A new digest comes in; the person's section stays.
    new_digest(&store, "Espresso is coffee under pressure.\n");
    let body = current(&store, page).body;
    assert!(body.contains("under pressure"), "{body}");
    assert!(body.contains("## Mine\n\nMy notes."), "{body}");
}

#[test]
fn a_merge_keeps_the_person_sections_and_claims_of_both_pages() {
    let (store, page) = wiki(BODY, &["Espresso is brewed."]);
    // A second page, edited by the person.
    let other = add_source(&store, "/notes/shot.md", "A shot of espresso.");
    let shot = save_digest(&store, other, "Shot", "A shot.\n\n## Grind\n\nCoarse.\n").unwrap();
    let v = store.page(shot).unwrap().unwrap().version;
    store
        .edit_page(
            shot,
            v,
            "A shot.\n\n## Grind\n\nCoarse, I think.\n\n## Timing\n\nI pull 28 s.\n",
        )
        .unwrap();
    store
        .add_person_claim(shot, "My shots are doubles.")
        .unwrap();
    let v = store.page(page).unwrap().unwrap().version;
    store
        .edit_page(page, v, &format!("{BODY}\n## My machine\n\nA lever.\n"))
        .unwrap();

    let outcome = store.merge_pages(page, shot, "same topic", 2).unwrap();
    assert!(
        matches!(outcome, crate::MergeOutcome::Merged { .. }),
        "{outcome:?}"
    );
    let body = current(&store, page).body;
    assert!(body.contains("## My machine\n\nA lever."), "{body}");
    assert!(body.contains("## Timing\n\nI pull 28 s."), "{body}");
    // `Grind` is a heading the survivor has: the person's text for it is a suggestion.
    assert!(!body.contains("Coarse, I think."), "{body}");
    let suggestions = store.page_suggestions(page).unwrap();
    assert_eq!(suggestions.len(), 1, "{suggestions:?}");
    assert_eq!(suggestions[0].section, "Grind");
    assert!(suggestions[0].text.contains("Coarse, I think."));
    assert!(claims(&store, page)
        .iter()
        .any(|(c, a)| c == "My shots are doubles." && *a == AuthorKind::Person));
}

/// The window removes a claim by its hash: a rewrite between showing the page and the
/// click moves claims around, and the one the person picked is still the one removed; a
/// claim the rewrite dropped is refused, and nothing else goes.
#[test]
fn a_claim_removed_by_its_hash_is_that_claim_whatever_its_place_now() {
    let (store, page) = wiki(BODY, &["Espresso is brewed.", "Crema is foam."]);
    let picked = claim_hash("Crema is foam.");
    // The page is rewritten after it was shown: a new claim comes first.
    rewrite(
        &store,
        page,
        BODY,
        &["New claim.", "Espresso is brewed.", "Crema is foam."],
    );
    let (_, removed) = store
        .remove_page_claim(page, WhichClaim::Hash(&picked))
        .unwrap();
    assert_eq!(removed, "Crema is foam.");
    let left: Vec<String> = current(&store, page)
        .claims
        .into_iter()
        .map(|c| c.claim.claim)
        .collect();
    assert_eq!(left, ["New claim.", "Espresso is brewed."]);

    let refused = store
        .remove_page_claim(page, WhichClaim::Hash(&claim_hash("Gone claim.")))
        .unwrap_err();
    assert!(
        refused.to_string().contains("no longer has that claim"),
        "{refused}"
    );
    assert_eq!(
        current(&store, page).claims.len(),
        2,
        "nothing else was removed"
    );
}
