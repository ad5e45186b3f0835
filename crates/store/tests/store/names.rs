//! Merges and names: a merge keeps both pages' names and a person's work on the absorbed
//! page, and a digest whose title is no page feeds only the pages of its names.

use wikimind_contract::{CheckedClaim, Confidence};
use wikimind_store::{fixtures, MergeOutcome, SourceId, Store};

use crate::{add, link, result, save_with_claims};

fn sourced(text: &str) -> CheckedClaim {
    CheckedClaim {
        claim: text.to_owned(),
        confidence: Confidence::Sourced,
        quote: Some(text.to_owned()),
        grounded: true,
    }
}

/// Saves a digest as the build before the name rules did: names as the model wrote them.
fn digest(store: &Store, source: SourceId, title: &str, concepts: &[&str], links: &[&str]) {
    let mut r = result(title, &format!("{title} body."));
    r.concepts = concepts.iter().map(|c| (*c).to_owned()).collect();
    let links: Vec<_> = links.iter().map(|l| link(l, "")).collect();
    save_with_claims(
        store,
        source,
        &r,
        &[sourced(&format!("{title} is described here"))],
        &links,
    );
}

#[test]
fn a_merge_keeps_both_pages_names_and_a_persons_work_on_the_absorbed_page() {
    let store = Store::open_in_memory().unwrap();
    let a = add(&store, "/v/a.md", "a");
    let b = add(&store, "/v/b.md", "b");
    digest(&store, a, "Espresso", &[], &[]);
    digest(&store, b, "Short black", &[], &[]);
    let espresso = store.find_page("Espresso").unwrap().unwrap();
    let short = store.find_page("Short black").unwrap().unwrap();
    let outcome = store.merge_pages(espresso, short, "one drink", 2).unwrap();
    assert_eq!(
        outcome,
        MergeOutcome::Merged {
            survivor: espresso,
            absorbed: short
        }
    );
    assert_eq!(store.find_page("Short black").unwrap(), Some(espresso));
    assert!(store.page(short).unwrap().is_none());
    assert_eq!(store.page_digests(espresso).unwrap().len(), 2);

    // A page a person edited is absorbed with their section carried over.
    let c = add(&store, "/v/c.md", "c");
    digest(&store, c, "Ristretto", &[], &[]);
    let ristretto = store.find_page("Ristretto").unwrap().unwrap();
    let page = store.page(ristretto).unwrap().unwrap();
    let edited = format!("{}\n\n## My ratio\n\n1:1.5, fifteen seconds.\n", page.body);
    store.edit_page(ristretto, page.version, &edited).unwrap();
    let outcome = store
        .merge_pages(espresso, ristretto, "one drink", 2)
        .unwrap();
    assert!(
        matches!(outcome, MergeOutcome::Merged { .. }),
        "{outcome:?}"
    );
    assert!(store.page(ristretto).unwrap().is_none());
    let body = store.page(espresso).unwrap().unwrap().body;
    assert!(
        body.contains("## My ratio\n\n1:1.5, fifteen seconds."),
        "{body}"
    );

    // A page is never merged into itself.
    let outcome = store.merge_pages(espresso, espresso, "same", 2).unwrap();
    assert!(
        matches!(outcome, MergeOutcome::Flagged { .. }),
        "{outcome:?}"
    );
}

#[test]
fn a_digest_whose_title_is_no_page_feeds_only_the_pages_of_its_names() {
    use wikimind_store::SaveArticle;
    let store = Store::open_in_memory().unwrap();
    let a = add(&store, "text:a", "a");
    let b = add(&store, "text:b", "b");
    digest(&store, a, "Crema", &[], &[]);
    let mut r = result("The 100% Natural Coffee", "An invented title.");
    r.concepts = vec!["Crema".to_owned()];
    let record = fixtures::record("ollama", "m");
    let saved = store
        .save_article(&SaveArticle {
            title_is_page: false,
            unnamed_concepts: &["Volcanic Ash".to_owned()],
            record: &record,
            ..fixtures::digest(b, &r)
        })
        .unwrap();
    assert_eq!(saved.page_id, None);
    assert_eq!(store.find_page("The 100% Natural Coffee").unwrap(), None);
    let crema = store.find_page("Crema").unwrap().unwrap();
    let fed: Vec<SourceId> = store
        .page_digests(crema)
        .unwrap()
        .iter()
        .map(|d| d.source_id)
        .collect();
    assert_eq!(fed, [a, b], "it feeds the page of the concept it names");
    let digest = store
        .article(saved.article_id)
        .unwrap()
        .expect("the digest is kept");
    assert!(
        digest.concepts.contains(&"Volcanic Ash".to_owned()),
        "a concept no source says is a chip on its digest: {:?}",
        digest.concepts
    );
    // A second digest with the same chip: still no page, no wanted page, no known concept.
    let c = add(&store, "text:c", "c");
    let mut other = result("Crema", "Also crema.");
    other.concepts = Vec::new();
    store
        .save_article(&SaveArticle {
            unnamed_concepts: &["Volcanic Ash".to_owned()],
            record: &record,
            ..fixtures::digest(c, &other)
        })
        .unwrap();
    assert_eq!(store.find_page("Volcanic Ash").unwrap(), None);
    assert!(store
        .concept_names()
        .unwrap()
        .iter()
        .all(|n| n.name != "Volcanic Ash"));
}
