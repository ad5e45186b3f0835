//! The page screen: versions kept and one restored.

use super::*;

/// A page's history lists every version with its author; restoring one adds a version by
/// the person with the old content, and the app's text of each version shows the change.
#[test]
fn a_page_keeps_its_versions_and_restores_one() {
    use crate::contract::CompilationResult;
    use crate::store::{fixtures, SaveArticle};
    let wiki = Wiki::open_in_memory().unwrap();
    let (source, article) = digest(
        &wiki,
        "# Tea\n\nTea is steeped.",
        "Tea",
        "Old body.",
        &[],
        &[],
    );
    let page = wiki.store().digest_page(article).unwrap().unwrap();
    let result = CompilationResult {
        title: "Tea".into(),
        summary: "About Tea.".into(),
        key_claims: Vec::new(),
        concepts: Vec::new(),
        backlink_suggestions: Vec::new(),
        open_questions: Vec::new(),
        article_body: "New body.".into(),
    };
    wiki.store()
        .save_article(&SaveArticle {
            record: &fixtures::record("openai", "other"),
            ..fixtures::digest(source, &result)
        })
        .unwrap();
    let now = wiki.page_view(page).unwrap().unwrap();
    assert_eq!(now.version, 2);
    assert!(!now.edited, "the model wrote the current version");
    assert_eq!(now.history[1].model.as_deref(), Some("other"));
    assert_eq!(
        wiki.page_text_view(page, 1).unwrap().unwrap().body,
        "Old body."
    );
    assert_eq!(
        wiki.page_text_view(page, 2).unwrap().unwrap().body,
        "New body."
    );
    assert_eq!(wiki.page_text_view(page, 9).unwrap(), None);

    let restored = wiki.restore_page_view(page, 1).unwrap().unwrap();
    assert_eq!(restored.version, 3);
    assert!(restored.html.contains("Old body."), "{}", restored.html);
    let last = &restored.history[2];
    assert_eq!(
        (last.author_kind, last.restored_from),
        (AuthorKind::Person, Some(1))
    );
    assert!(
        restored.edited,
        "a person wrote over the model's last version"
    );
    assert!(wiki.restore_page_view(page, 9).is_err(), "no such version");
}
