//! Ingestion of real files, folders and (local) web pages.

use std::fs;
use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use wikimind::ingest::reach::{HostResolver, Lookup};
use wikimind::ingest::{
    fetch_url, fetch_url_within, ingest_path, IngestError, IngestOptions, Reach, SkipReason,
    SourceKind,
};

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, bytes).unwrap();
}

#[test]
fn a_markdown_file_keeps_its_text_with_bom_and_crlf_normalised() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.md");
    write(&path, "\u{feff}intro\r\n# The Title\r\nbody\r\n");
    let report = ingest_path(&path, &IngestOptions::default()).unwrap();
    assert!(report.skipped.is_empty());
    let [source] = report.sources.as_slice() else {
        panic!("one source expected: {report:?}");
    };
    assert_eq!(source.kind, SourceKind::File);
    assert_eq!(source.text, "intro\n# The Title\nbody\n");
    assert_eq!(source.title.as_deref(), Some("The Title"));
    let canonical = fs::canonicalize(&path).unwrap();
    assert_eq!(source.origin, canonical.to_string_lossy());
    assert!(Path::new(&source.origin).is_absolute());
}

#[test]
fn titles_come_from_front_matter_then_the_file_stem() {
    let dir = tempfile::tempdir().unwrap();
    let front = dir.path().join("front.markdown");
    write(
        &front,
        "---\ntitle: \"From: front matter\"\n---\nno heading here\n",
    );
    let stem = dir.path().join("Plain Notes.txt");
    write(&stem, "# a txt heading is not a title\n");
    let page = dir.path().join("page.HTM");
    write(&page, "<title>Page title</title><p>Hello</p>");
    let options = IngestOptions::default();
    let title = |path: &Path| {
        ingest_path(path, &options).unwrap().sources[0]
            .title
            .clone()
    };
    assert_eq!(title(&front).as_deref(), Some("From: front matter"));
    assert_eq!(title(&stem).as_deref(), Some("Plain Notes"));
    assert_eq!(title(&page).as_deref(), Some("Page title"));
    let html = ingest_path(&page, &options).unwrap();
    assert_eq!(html.sources[0].text, "Hello");
}

#[test]
fn a_named_file_that_cannot_be_read_is_refused_with_path_and_reason() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &[u8], &str)] = &[
        ("binary.md", b"text\0more", "binary"),
        (
            "latin1.txt",
            b"caf\xe9",
            "not valid UTF-8 (first bad byte at offset 3)",
        ),
        ("blank.md", b" \n\t\r\n", "empty"),
        ("empty.txt", b"", "empty"),
        ("picture.png", b"\x89PNG", "unsupported file type"),
        ("noext", b"text", "unsupported file type"),
        (
            "big.md",
            &[b'a'; 2000],
            "too large (2000 bytes, limit 1000)",
        ),
        ("scripts-only.html", b"<script>alert(1)</script>", "empty"),
    ];
    let options = IngestOptions {
        max_bytes: 1000,
        ..IngestOptions::default()
    };
    for (name, bytes, reason) in cases {
        let path = dir.path().join(name);
        write(&path, bytes);
        let error = ingest_path(&path, &options).unwrap_err();
        let message = error.to_string();
        assert!(message.contains(name), "{name}: {message}");
        assert!(message.contains(reason), "{name}: {message}");
    }
    let missing = ingest_path(dir.path().join("missing.md"), &options).unwrap_err();
    assert!(matches!(missing, IngestError::NotFound { .. }), "{missing}");
    assert!(missing.to_string().contains("missing.md"));
}

#[test]
fn a_folder_is_read_in_order_and_reports_what_it_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("b.md"), "# B\nbody b");
    write(&root.join("a.txt"), "alpha");
    write(&root.join("sub/c.html"), "<h1>C</h1><p>see</p>");
    write(&root.join("sub/deeper/d.markdown"), "d");
    write(&root.join("z.md"), "last");
    write(&root.join(".hidden.md"), "secret");
    write(&root.join(".git/config.md"), "git internals");
    write(&root.join("image.png"), b"\x89PNG\r\n\x1a\n\0\0");
    write(&root.join("nul.md"), b"a\0b");
    write(&root.join("latin1.txt"), b"caf\xe9");
    write(&root.join("blank.md"), "   \n");
    write(&root.join("huge.md"), "x".repeat(5000));
    let options = IngestOptions {
        max_bytes: 4096,
        ..IngestOptions::default()
    };

    let report = ingest_path(root, &options).unwrap();
    let names: Vec<String> = report
        .sources
        .iter()
        .map(|s| {
            Path::new(&s.origin)
                .strip_prefix(fs::canonicalize(root).unwrap())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        names,
        [
            "a.txt",
            "b.md",
            "sub/c.html",
            "sub/deeper/d.markdown",
            "z.md"
        ]
    );
    assert_eq!(report.sources[2].text, "# C\n\nsee");

    let skipped: Vec<(String, &str)> = report
        .skipped
        .iter()
        .map(|s| {
            (
                s.path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                s.reason.label(),
            )
        })
        .collect();
    let want: Vec<(String, &str)> = [
        (".git", "hidden"),
        (".hidden.md", "hidden"),
        ("blank.md", "empty"),
        ("huge.md", "too_large"),
        ("image.png", "attachment"),
        ("latin1.txt", "not_utf8"),
        ("nul.md", "binary"),
    ]
    .into_iter()
    .map(|(p, r)| (p.to_owned(), r))
    .collect();
    assert_eq!(skipped, want);
    assert_eq!(
        report.skipped_counts(),
        [
            ("attachment", 1),
            ("binary", 1),
            ("empty", 1),
            ("hidden", 2),
            ("not_utf8", 1),
            ("too_large", 1)
        ]
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["skipped"][3]["reason"]["reason"], "too_large");
    assert_eq!(json["skipped"][3]["reason"]["limit"], 4096);
    assert_eq!(json["sources"][0]["kind"], "file");
}

#[cfg(unix)]
#[test]
fn symlink_loops_do_not_hang_and_files_are_read_once() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("notes/one.md"), "one");
    symlink(root.join("notes"), root.join("notes/loop")).unwrap();
    symlink(root, root.join("notes/up")).unwrap();
    symlink(root.join("notes/one.md"), root.join("alias.md")).unwrap();
    symlink(root.join("nowhere.md"), root.join("dangling.md")).unwrap();
    write(&root.join("self/x.txt"), "x");
    symlink(root.join("self"), root.join("self/self")).unwrap();

    let report = ingest_path(root, &IngestOptions::default()).unwrap();
    let texts: Vec<&str> = report.sources.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["one", "x"], "{report:#?}");
    let reasons: Vec<&str> = report.skipped.iter().map(|s| s.reason.label()).collect();
    assert_eq!(
        reasons,
        [
            "not_a_file",
            "already_seen",
            "already_seen",
            "already_seen",
            "already_seen"
        ],
        "{report:#?}"
    );
    assert!(matches!(report.skipped[0].reason, SkipReason::NotAFile));
    // The file reached first through a symlink is known by its real path.
    let real = fs::canonicalize(root.join("notes/one.md")).unwrap();
    assert_eq!(report.sources[0].origin, real.to_string_lossy());
}

/// Regression: a symlink to the home folder inside a notes folder pulled every note there
/// into the wiki. Links that resolve outside the folder are listed, never followed.
#[cfg(unix)]
#[test]
fn symlinks_out_of_the_folder_are_skipped_not_followed() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    write(&home.join("diary.md"), "private diary");
    write(&home.join("deep/tax.md"), "tax notes");
    let root = dir.path().join("notes");
    write(&root.join("mine.md"), "mine");
    write(&root.join("sub/kept.md"), "kept");
    symlink(&home, root.join("home-link")).unwrap();
    symlink(home.join("diary.md"), root.join("diary.md")).unwrap();
    symlink("../../home/deep", root.join("sub/relative-out")).unwrap();
    // A link that stays inside the folder is fine (and read once).
    symlink(root.join("sub"), root.join("zz-inside")).unwrap();

    let report = ingest_path(&root, &IngestOptions::default()).unwrap();
    let texts: Vec<&str> = report.sources.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["mine", "kept"], "{report:#?}");
    let outside: Vec<String> = report
        .skipped
        .iter()
        .filter(|s| s.reason == SkipReason::OutsideFolder)
        .map(|s| s.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        outside,
        ["diary.md", "home-link", "relative-out"],
        "{report:#?}"
    );
    assert_eq!(SkipReason::OutsideFolder.label(), "outside_folder");
    assert_eq!(SkipReason::OutsideFolder.to_string(), "outside the folder");
    for source in &report.sources {
        assert!(!source.text.contains("diary") && !source.text.contains("tax"));
    }
}

/// Regression: `\xff.md` and `\xfe.md` both became `\u{fffd}.md`, so the second replaced the
/// first in the wiki. Origins now keep the raw bytes, escaped.
#[cfg(target_os = "linux")]
#[test]
fn file_names_that_are_not_utf8_stay_distinct_sources() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join(OsStr::from_bytes(b"\xff.md")), "first");
    write(&root.join(OsStr::from_bytes(b"\xfe.md")), "second");
    write(&root.join(OsStr::from_bytes(b"%FF.md")), "literal percent");
    let canonical = fs::canonicalize(root).unwrap();
    let base = canonical.to_str().unwrap();

    let report = ingest_path(root, &IngestOptions::default()).unwrap();
    let mut origins: Vec<(&str, &str)> = report
        .sources
        .iter()
        .map(|s| (s.origin.as_str(), s.text.as_str()))
        .collect();
    origins.sort();
    let want_fe = format!("bytes:{base}/%FE.md");
    let want_ff = format!("bytes:{base}/%FF.md");
    let want_literal = format!("{base}/%FF.md");
    assert_eq!(
        origins,
        [
            (want_literal.as_str(), "literal percent"),
            (want_fe.as_str(), "second"),
            (want_ff.as_str(), "first"),
        ]
    );
    // The same file named directly maps to the same origin.
    let single = ingest_path(
        root.join(OsStr::from_bytes(b"\xff.md")),
        &IngestOptions::default(),
    )
    .unwrap();
    assert_eq!(single.sources[0].origin, want_ff);

    // Both land in the wiki as two sources.
    let wiki = wikimind::wiki::Wiki::open_in_memory().unwrap();
    let added = wiki.add_sources(&report.sources).unwrap();
    let outcomes: Vec<&str> = added.iter().map(|a| a.outcome.as_str()).collect();
    assert_eq!(outcomes, ["added", "added", "added"]);
}

#[test]
fn an_empty_folder_gives_no_sources_and_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let report = ingest_path(dir.path(), &IngestOptions::default()).unwrap();
    assert!(report.sources.is_empty() && report.skipped.is_empty());
}

// ---------------------------------------------------------------------------------------
// Web pages, from a tiny HTTP/1.1 server on a local port.

/// What the test server answers.
#[derive(Clone)]
enum Answer {
    /// Status line, headers and body as given (`Content-Length` added).
    Full {
        status: &'static str,
        headers: Vec<(&'static str, &'static str)>,
        body: Vec<u8>,
    },
    /// A body that never ends and has no length.
    Endless,
    /// Accept the request and never answer.
    Stall,
}

fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Answer {
    Answer::Full {
        status: "200 OK",
        headers: vec![("Content-Type", content_type)],
        body: body.into(),
    }
}

/// Serves `answer` to every connection; returns the base URL.
async fn serve(answer: Answer) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buffer = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                match answer {
                    Answer::Full {
                        status,
                        headers,
                        body,
                    } => {
                        let mut head = format!("HTTP/1.1 {status}\r\n");
                        for (name, value) in headers {
                            head.push_str(&format!("{name}: {value}\r\n"));
                        }
                        head.push_str(&format!(
                            "Content-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        ));
                        let _ = stream.write_all(head.as_bytes()).await;
                        let _ = stream.write_all(&body).await;
                    }
                    Answer::Endless => {
                        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\
                                    Connection: close\r\n\r\n";
                        if stream.write_all(head.as_bytes()).await.is_err() {
                            return;
                        }
                        let chunk = vec![b'a'; 16 * 1024];
                        while stream.write_all(&chunk).await.is_ok() {}
                    }
                    Answer::Stall => std::future::pending::<()>().await,
                }
            });
        }
    });
    format!("http://{address}")
}

#[tokio::test]
async fn an_html_page_becomes_readable_text_with_its_title() {
    let page = b"<html><head><title>Caf\xe9 notes</title></head><body><nav>menu</nav>\
                 <h1>Heading</h1><p>Cr\xe8me br\xfbl\xe9e &amp; more.</p></body></html>";
    let base = serve(ok("text/html; charset=ISO-8859-1", page.to_vec())).await;
    let source = fetch_url(
        &format!("{base}/a/page.html#section"),
        &IngestOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(source.kind, SourceKind::Url);
    assert_eq!(source.origin, format!("{base}/a/page.html"));
    assert_eq!(source.title.as_deref(), Some("Café notes"));
    assert_eq!(source.text, "# Heading\n\nCrème brûlée & more.");
}

#[tokio::test]
async fn a_meta_charset_is_honoured_when_the_header_has_none() {
    let page = b"<meta charset=\"windows-1252\"><p>\x93quoted\x94</p>";
    let base = serve(ok("text/html", page.to_vec())).await;
    let source = fetch_url(&base, &IngestOptions::default()).await.unwrap();
    assert_eq!(source.text, "\u{201c}quoted\u{201d}");
}

#[tokio::test]
async fn markdown_and_plain_text_are_kept_as_they_are() {
    let base = serve(ok(
        "text/markdown; charset=utf-8",
        "# Doc\r\n\r\n- item\r\n",
    ))
    .await;
    let source = fetch_url(&base, &IngestOptions::default()).await.unwrap();
    assert_eq!(source.text, "# Doc\n\n- item\n");
    assert_eq!(source.title.as_deref(), Some("Doc"));

    let base = serve(ok("text/plain", "<p>not html</p>")).await;
    let source = fetch_url(&base, &IngestOptions::default()).await.unwrap();
    assert_eq!(source.text, "<p>not html</p>");
}

#[tokio::test]
async fn images_and_binary_bodies_are_refused() {
    for (content_type, body) in [
        ("image/png", b"\x89PNG".to_vec()),
        ("text/plain", b"looks\0binary".to_vec()),
    ] {
        let base = serve(ok(content_type, body)).await;
        let error = fetch_url(&base, &IngestOptions::default())
            .await
            .unwrap_err();
        assert!(
            matches!(error, IngestError::UnsupportedContentType { .. }),
            "{content_type}: {error}"
        );
        assert!(error.to_string().contains(content_type), "{error}");
        assert!(error.to_string().contains(&base), "{error}");
    }
}

/// A PDF served by a web server is read like a PDF file; a broken one is refused with the
/// reason, naming the URL.
#[tokio::test]
async fn a_pdf_download_is_read_and_a_broken_one_refused() {
    let pdf = include_bytes!("../../crates/documents/tests/data/columns-2.pdf");
    let base = serve(ok("application/pdf", pdf.to_vec())).await;
    let source = fetch_url(&base, &IngestOptions::default()).await.unwrap();
    assert_eq!(source.title.as_deref(), Some("2 columns"));
    assert_eq!(source.document, Some("pdf"));
    assert_eq!(source.pages.len(), 1);
    let (first, last) = (source.text.find("C1L30"), source.text.find("C2L01"));
    assert!(first.is_some() && first < last, "{}", source.text);

    let base = serve(ok("application/pdf", b"%PDF-1.7".to_vec())).await;
    let error = fetch_url(&base, &IngestOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(error, IngestError::Document { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.starts_with(&base) && message.contains(": the PDF is damaged"),
        "{message}"
    );
}

#[tokio::test]
async fn error_statuses_are_reported() {
    let base = serve(Answer::Full {
        status: "404 Not Found",
        headers: vec![("Content-Type", "text/html")],
        body: b"gone".to_vec(),
    })
    .await;
    let error = fetch_url(&base, &IngestOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(error, IngestError::Status { status: 404, .. }),
        "{error}"
    );
}

#[tokio::test]
async fn a_declared_length_over_the_limit_is_refused_before_downloading() {
    let base = serve(ok("text/plain", vec![b'a'; 10_000])).await;
    let options = IngestOptions {
        max_bytes: 1000,
        ..IngestOptions::default()
    };
    let error = fetch_url(&base, &options).await.unwrap_err();
    assert!(
        matches!(error, IngestError::ResponseTooLarge { limit: 1000, .. }),
        "{error}"
    );
}

#[tokio::test]
async fn an_endless_body_stops_at_the_limit_while_streaming() {
    let base = serve(Answer::Endless).await;
    // The timeout only ends a failing run: a body read to the end of the timeout would fail
    // with `Timeout`, so `ResponseTooLarge` shows the limit stopped the download.
    let options = IngestOptions {
        max_bytes: 256 * 1024,
        timeout: Duration::from_secs(120),
        ..IngestOptions::default()
    };
    let error = fetch_url(&base, &options).await.unwrap_err();
    assert!(
        matches!(error, IngestError::ResponseTooLarge { limit, .. } if limit == 256 * 1024),
        "{error}"
    );
}

/// On tokio's paused clock (the server runs on the same runtime): the fetch waits the whole
/// timeout for a server that never answers, then gives up, without the test waiting for it.
#[tokio::test(start_paused = true)]
async fn a_silent_server_times_out() {
    let base = serve(Answer::Stall).await;
    let options = IngestOptions {
        timeout: Duration::from_secs(30),
        ..IngestOptions::default()
    };
    let started = tokio::time::Instant::now();
    let error = fetch_url(&base, &options).await.unwrap_err();
    assert!(
        matches!(error, IngestError::Timeout { seconds: 30, .. }),
        "{error}"
    );
    assert!(error.to_string().contains(&base), "{error}");
    assert!(
        started.elapsed() >= options.timeout,
        "gave up after {:?}, before the timeout",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_page_without_text_is_refused() {
    let base = serve(ok("text/html", "<script>only()</script><nav>menu</nav>")).await;
    let error = fetch_url(&base, &IngestOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(error, IngestError::EmptyPage { .. }), "{error}");
}

#[tokio::test]
async fn a_closed_port_is_a_clear_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let error = fetch_url(&format!("http://{address}/"), &IngestOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(error, IngestError::Http { .. }), "{error}");
    assert!(error.to_string().contains("check the address"), "{error}");
}

/// The error and every cause below it, as a shell that walks the chain would print it.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn redirect_to(location: String) -> Answer {
    Answer::Full {
        status: "302 Found",
        headers: vec![("Location", Box::leak(location.into_boxed_str()))],
        body: Vec::new(),
    }
}

/// Regression: the URL after redirects was neither kept nor shown; the URL as typed stays
/// the identity, so ingesting it again finds the same source.
#[tokio::test]
async fn a_redirect_keeps_the_typed_url_and_records_where_it_ended() {
    let target = serve(ok("text/plain", "moved here")).await;
    let start = serve(redirect_to(format!("{target}/final"))).await;
    let typed = format!("{start}/start#part");

    let source = fetch_url(&typed, &IngestOptions::default()).await.unwrap();
    assert_eq!(source.origin, format!("{start}/start"));
    assert_eq!(source.final_url, Some(format!("{target}/final")));
    assert_eq!(source.text, "moved here");

    let wiki = wikimind::wiki::Wiki::open_in_memory().unwrap();
    let options = IngestOptions::default();
    let first = wiki.ingest_url(&typed, &options).await.unwrap();
    let again = wiki.ingest_url(&typed, &options).await.unwrap();
    assert_eq!(first.sources[0].outcome.as_str(), "added");
    assert_eq!(again.sources[0].outcome.as_str(), "unchanged");
    assert_eq!(again.sources[0].source_id, first.sources[0].source_id);
    assert_eq!(
        again.sources[0].final_url.as_deref(),
        Some(format!("{target}/final").as_str())
    );
    let listed = wiki.store_for_tests().sources().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].origin, format!("{start}/start"));
    assert_eq!(
        listed[0].final_url.as_deref(),
        Some(format!("{target}/final").as_str())
    );
    let stored = wiki
        .store_for_tests()
        .source(listed[0].id)
        .unwrap()
        .unwrap();
    assert_eq!(stored.final_url, listed[0].final_url);
    assert_eq!(
        wiki.find_source(&typed).unwrap(),
        Some(listed[0].id),
        "the URL as typed finds its source"
    );

    // No redirect: nothing beside the origin.
    let direct = fetch_url(&target, &IngestOptions::default()).await.unwrap();
    assert_eq!(direct.final_url, None);
}

/// Regression: `user:pass@` in a URL showed in origins, reports and error messages.
#[tokio::test]
async fn userinfo_never_shows_in_origins_reports_or_errors() {
    let secret = "s3cret-pw";
    let page = serve(ok("text/plain", "public page")).await;
    let with_userinfo = |base: &str, path: &str| {
        base.replacen("http://", &format!("http://alice:{secret}@"), 1) + path
    };

    let source = fetch_url(&with_userinfo(&page, "/p"), &IngestOptions::default())
        .await
        .unwrap();
    assert_eq!(source.origin, format!("{page}/p"));
    let wiki = wikimind::wiki::Wiki::open_in_memory().unwrap();
    let summary = wiki
        .ingest_url(&with_userinfo(&page, "/p"), &IngestOptions::default())
        .await
        .unwrap();
    let report = serde_json::to_string(&summary).unwrap();
    assert!(
        !report.contains(secret) && !report.contains("alice"),
        "{report}"
    );

    // A redirect to a URL with userinfo: stored without it.
    let hop = serve(redirect_to(with_userinfo(&page, "/after"))).await;
    let source = fetch_url(&hop, &IngestOptions::default()).await.unwrap();
    assert_eq!(source.final_url, Some(format!("{page}/after")));

    let not_found = serve(Answer::Full {
        status: "404 Not Found",
        headers: vec![("Content-Type", "text/html")],
        body: b"gone".to_vec(),
    })
    .await;
    let stall = serve(Answer::Stall).await;
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let quick = IngestOptions {
        timeout: Duration::from_millis(300),
        ..IngestOptions::default()
    };
    for url in [
        with_userinfo(&not_found, "/x"),
        with_userinfo(&stall, "/x"),
        with_userinfo(&closed, "/x"),
        format!("ftp://alice:{secret}@example.com/x"),
        format!("http://alice:{secret}@exa mple.com/x"),
    ] {
        let error = fetch_url(&url, &quick).await.unwrap_err();
        let text = error_chain(&error);
        assert!(!text.contains(secret) && !text.contains("alice"), "{text}");
        let error = wiki.ingest_url(&url, &quick).await.unwrap_err();
        let text = error_chain(&error);
        assert!(!text.contains(secret) && !text.contains("alice"), "{text}");
    }
}

/// A resolver with fixed answers that records what it was asked: the seam where the
/// public-only check meets DNS.
struct FakeDns {
    answers: Vec<(&'static str, Vec<std::net::IpAddr>)>,
    asked: std::sync::Mutex<Vec<String>>,
}

impl FakeDns {
    fn new(answers: &[(&'static str, &[&str])]) -> std::sync::Arc<FakeDns> {
        std::sync::Arc::new(FakeDns {
            answers: answers
                .iter()
                .map(|(name, ips)| (*name, ips.iter().map(|ip| ip.parse().unwrap()).collect()))
                .collect(),
            asked: Default::default(),
        })
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl HostResolver for FakeDns {
    fn lookup<'a>(&'a self, host: &'a str) -> Lookup<'a> {
        self.asked.lock().unwrap().push(host.to_owned());
        let found = self
            .answers
            .iter()
            .find(|(name, _)| *name == host)
            .map(|(_, ips)| ips.clone());
        Box::pin(async move {
            found.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such host"))
        })
    }
}

/// Regression (SSRF): `add_source` over MCP fetched loopback and private addresses. Under
/// `Reach::PublicOnly` a name is judged by the addresses it resolves to (any one that is not
/// public refuses it), an IP literal without resolving, and nothing is sent or stored.
#[tokio::test]
async fn public_only_refuses_names_resolving_to_private_addresses_and_private_literals() {
    let page = serve(ok("text/plain", "the internal admin page")).await;
    let port = page.rsplit(':').next().unwrap().to_owned();
    let dns = FakeDns::new(&[
        ("intranet.test", &["127.0.0.1"]),
        ("mixed.test", &["93.184.216.34", "10.1.2.3"]),
        ("six.test", &["::1"]),
        ("linklocal.test", &["fe80::1"]),
        ("ula.test", &["fd00::5"]),
        ("mapped.test", &["::ffff:192.168.0.1"]),
        ("metadata.test", &["169.254.169.254"]),
        ("cgnat.test", &["100.64.0.9"]),
        ("shared.test", &["172.20.0.1"]),
        ("zero.test", &["0.0.0.0"]),
    ]);
    let reach = Reach::PublicOnly(dns.clone());
    let options = IngestOptions {
        timeout: Duration::from_secs(5),
        ..IngestOptions::default()
    };
    let names = [
        ("intranet.test", "127.0.0.1, a loopback address"),
        ("mixed.test", "10.1.2.3, a private address"),
        ("six.test", "::1, a loopback address"),
        ("linklocal.test", "fe80::1, a link-local address"),
        ("ula.test", "fd00::5, a unique local address"),
        ("mapped.test", "::ffff:192.168.0.1, a private address"),
        ("metadata.test", "169.254.169.254, a link-local address"),
        (
            "cgnat.test",
            "100.64.0.9, a shared carrier-grade NAT address",
        ),
        (
            "shared.test",
            "172.20.0.1, a private address (172.16.0.0/12)",
        ),
        ("zero.test", "0.0.0.0, the unspecified network"),
    ];
    for (name, why) in names {
        let url = format!("http://{name}:{port}/admin");
        let error = fetch_url_within(&url, &options, &reach).await.unwrap_err();
        assert!(
            matches!(error, IngestError::NotPublic { .. }),
            "{name}: {error:?}"
        );
        let text = error.to_string();
        assert!(text.contains(&format!("{name} is {why}")), "{text}");
        assert!(text.contains("only public addresses"), "{text}");
    }
    assert_eq!(dns.asked().len(), names.len(), "every name was resolved");

    // IP literals are judged as they are, without asking the resolver.
    for url in [
        page.clone(),
        format!("http://[::1]:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        "http://10.0.0.1/".to_string(),
        "http://192.168.1.1/".to_string(),
        "http://0.0.0.0/".to_string(),
    ] {
        let error = fetch_url_within(&url, &options, &reach).await.unwrap_err();
        assert!(
            matches!(error, IngestError::NotPublic { .. }),
            "{url}: {error:?}"
        );
    }
    assert_eq!(dns.asked().len(), names.len());

    // Through the wiki: nothing stored. The same page is fetched when it is trusted.
    let wiki = wikimind::wiki::Wiki::open_in_memory().unwrap();
    let url = format!("http://intranet.test:{port}/admin");
    assert!(wiki
        .ingest_url_within(&url, &options, &reach)
        .await
        .is_err());
    assert!(wiki.store_for_tests().sources().unwrap().is_empty());
    let trusted = wiki.ingest_url(&page, &options).await.unwrap();
    assert_eq!(trusted.sources.len(), 1);
}

/// A URL list asks one host for at most [`wikimind::wiki::URL_LIST_PER_HOST`] pages at a
/// time, and at most [`wikimind::wiki::URL_LIST_CONCURRENCY`] in all. The server holds
/// every request until none has arrived for a while, so every request the limits let
/// through is in flight at once: a third from one host while two are held is a breach, and
/// no timing can hide one (a slow machine only makes the test slower).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_list_asks_one_host_for_at_most_two_pages_at_a_time() {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    use std::time::Instant;
    use wikimind::wiki::{IngestRun, Wiki, URL_LIST_CONCURRENCY, URL_LIST_PER_HOST};

    #[derive(Default)]
    struct Load {
        now: HashMap<String, usize>,
        most: HashMap<String, usize>,
        all_now: usize,
        all_most: usize,
        last_arrival: Option<Instant>,
    }
    let load = Arc::new(Mutex::new(Load::default()));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::clone(&load);
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let load = Arc::clone(&served);
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buffer = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&request).into_owned();
                let path = text.split_whitespace().nth(1).unwrap_or("/").to_owned();
                let host = text
                    .lines()
                    .find_map(|l| {
                        l.strip_prefix("host: ")
                            .or_else(|| l.strip_prefix("Host: "))
                    })
                    .unwrap_or("")
                    .split(':')
                    .next()
                    .unwrap_or("")
                    .to_owned();
                {
                    let mut l = load.lock().unwrap();
                    let now = l.now.entry(host.clone()).or_default();
                    *now += 1;
                    let now = *now;
                    let most = l.most.entry(host.clone()).or_default();
                    *most = (*most).max(now);
                    l.all_now += 1;
                    l.all_most = l.all_most.max(l.all_now);
                    l.last_arrival = Some(Instant::now());
                }
                // Held until no request has arrived for 300 ms.
                loop {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let quiet = load
                        .lock()
                        .unwrap()
                        .last_arrival
                        .is_some_and(|t| t.elapsed() >= Duration::from_millis(300));
                    if quiet {
                        break;
                    }
                }
                let body = format!("# Page {path}\n\nThe text of {host}{path}.\n");
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/markdown\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(body.as_bytes()).await;
                let mut l = load.lock().unwrap();
                *l.now.entry(host).or_default() -= 1;
                l.all_now -= 1;
            });
        }
    });

    // Six pages from one host, then six from another (two names of this machine): in list
    // order, the first host alone could take every place.
    let mut urls: Vec<String> = (0..6)
        .map(|i| format!("http://127.0.0.1:{port}/a{i}.md"))
        .collect();
    urls.extend((0..6).map(|i| format!("http://localhost:{port}/b{i}.md")));
    let wiki = Wiki::open_in_memory().unwrap();
    let mut run = IngestRun::default();
    wiki.ingest_url_list(&urls, &mut run).await;

    assert!(run.failed.is_empty(), "{:?}", run.failed);
    assert_eq!(run.summary.sources.len(), 12, "every page stored");
    let l = load.lock().unwrap();
    for host in ["127.0.0.1", "localhost"] {
        let most = l.most.get(host).copied().unwrap_or(0);
        assert!(
            (1..=URL_LIST_PER_HOST).contains(&most),
            "{host} was asked for {most} pages at once"
        );
    }
    assert!(
        l.all_most <= URL_LIST_CONCURRENCY,
        "{} at once in all",
        l.all_most
    );
}
