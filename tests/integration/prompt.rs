//! What a compile prompt offers the model of the wiki: the titles the source names, then the
//! most linked ones — in a wiki far larger than one prompt's list.

use wikimind::llm::CancellationToken;
use wikimind::wiki::Wiki;
use wikimind_testserver::TestServer;

use crate::seed::{add, link, result, save};

/// The titles listed under "Articles already in the wiki" in a compile prompt.
fn listed_titles(prompt: &str) -> Vec<String> {
    let (_, after) = prompt
        .split_once("Articles already in the wiki")
        .expect("the prompt lists the wiki's articles");
    after
        .lines()
        .skip(1)
        .map_while(|line| line.strip_prefix("- "))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_source_is_offered_the_titles_it_names_even_late_in_the_alphabet() {
    let wiki = Wiki::open_in_memory().unwrap();
    let store = wiki.store_for_tests();
    // 400 pages before "Zebra Crossing" alphabetically, and one much-linked page.
    for i in 0..400 {
        let id = add(store, &format!("/n/{i}.md"), &format!("note {i}"));
        let links = if i % 2 == 0 {
            vec![link("Hub", "")]
        } else {
            vec![]
        };
        save(store, id, &result(&format!("Aardvark {i:03}"), "a"), &links);
    }
    let hub = add(store, "/n/hub.md", "hub");
    save(store, hub, &result("Hub", "h"), &[]);
    let zebra = add(store, "/n/zebra.md", "zebra");
    save(store, zebra, &result("Zebra Crossing", "z"), &[]);

    let server = TestServer::start();
    let settings = crate::common::settings_for(&server.url(), None);
    let note = "# Walking\n\nTwo zebra crossings on the way, and an aardvark 007 sighting.";
    let id = wiki.ingest_text(note, None).unwrap().sources[0].source_id;
    let compiler = wiki.compiler(&settings).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(compiler.compile_one(id, &|_| {}, &CancellationToken::new()))
        .unwrap();

    let prompt = server.chat_requests()[0].user_message();
    let titles = listed_titles(&prompt);
    let mut named = titles[..2].to_vec();
    named.sort();
    assert_eq!(
        named,
        ["Aardvark 007", "Zebra Crossing"],
        "the titles the source names come first"
    );
    assert_eq!(titles[2], "Hub", "then the most linked");
    assert_eq!(titles.len(), 200, "bounded: {} titles", titles.len());
}
