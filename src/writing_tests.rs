use super::*;

#[test]
fn a_note_keeps_its_id_through_renames_and_edits() {
    let wiki = Wiki::open_in_memory().unwrap();
    let saved = wiki
        .new_note(Some("Grind log"), "Ground at 12 today.\r\n")
        .unwrap();
    assert_eq!(saved.outcome, Landed::Added);
    assert_eq!(saved.note.title, "Grind log");
    assert_eq!(saved.note.status, SourceStatus::Pending);
    let id = saved.note.note_id.clone();
    assert_eq!(id.len(), 16);
    let source = wiki.store().source(saved.note.source_id).unwrap().unwrap();
    assert_eq!(source.origin, format!("note:{id}"));
    assert_eq!(source.kind, SourceKind::Note);
    assert_eq!(source.text, "Ground at 12 today.\n");

    // Found by id, prefixed id, source id and title in any case.
    for key in [
        id.clone(),
        format!("note:{id}"),
        saved.note.source_id.0.to_string(),
        "GRIND LOG".to_owned(),
    ] {
        assert_eq!(
            wiki.note_named(&key).unwrap(),
            saved.note.source_id,
            "{key}"
        );
    }
    assert!(matches!(
        wiki.note_named("nothing"),
        Err(WikiError::NoSuchNote(_))
    ));

    let renamed = wiki.rename_note(&id, "Grinder log").unwrap();
    assert_eq!(renamed.note.note_id, id);
    assert_eq!(renamed.note.title, "Grinder log");
    assert_eq!(
        wiki.rename_note(&id, "Grinder log").unwrap().outcome,
        Landed::Unchanged
    );
    assert!(wiki.rename_note(&id, "   ").is_err());

    assert_eq!(
        wiki.save_note(&id, "Ground at 12 today.\n")
            .unwrap()
            .outcome,
        Landed::Unchanged
    );
    let edited = wiki.save_note("grinder log", "Ground at 11.\n").unwrap();
    assert_eq!(edited.outcome, Landed::Changed);
    assert_eq!(wiki.note(&id).unwrap().text, "Ground at 11.\n");
    assert_eq!(wiki.notes().unwrap().len(), 1);

    wiki.remove_note(&id).unwrap();
    assert!(wiki.notes().unwrap().is_empty());
    assert!(wiki.store().source(saved.note.source_id).unwrap().is_none());
}

#[test]
fn a_note_without_a_title_takes_its_h1_else_untitled() {
    let wiki = Wiki::open_in_memory().unwrap();
    let a = wiki.new_note(None, "# Crema\n\nFoam.\n").unwrap();
    assert_eq!(a.note.title, "Crema");
    let b = wiki.new_note(Some("  "), "Just words.\n").unwrap();
    assert_eq!(b.note.title, UNTITLED_NOTE);
    // Two notes with the same text are two notes.
    let c = wiki.new_note(None, "Just words.\n").unwrap();
    assert_ne!(b.note.source_id, c.note.source_id);
    let titles: Vec<String> = wiki.notes().unwrap().into_iter().map(|n| n.title).collect();
    assert_eq!(titles, ["Crema", UNTITLED_NOTE, UNTITLED_NOTE]);
}

#[test]
fn a_renamed_compiled_note_becomes_stale() {
    let wiki = Wiki::open_in_memory().unwrap();
    let note = wiki.new_note(Some("A"), "Text.\n").unwrap().note;
    wiki.store()
        .set_status(note.source_id, SourceStatus::Compiled, None)
        .unwrap();
    assert_eq!(
        wiki.rename_note("A", "B").unwrap().note.status,
        SourceStatus::Stale
    );
}

#[test]
fn a_note_over_the_ingest_limit_is_refused_and_nothing_is_stored() {
    let wiki = Wiki::open_in_memory()
        .unwrap()
        .with_ingest_options(crate::ingest::IngestOptions {
            max_bytes: 10,
            ..Default::default()
        });
    let err = wiki.new_note(Some("Big"), &"x".repeat(11)).unwrap_err();
    assert!(err.to_string().contains("the note"), "{err}");
    assert!(wiki.notes().unwrap().is_empty());
}
