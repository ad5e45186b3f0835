use super::*;

const BASE: &str = "Espresso is coffee brewed under pressure.\n\n\
## Grind\n\nUse a fine grind.\nBurr grinders are even.\n\n\
## Pressure\n\nNine bars is the textbook pressure.\n\n\
## History\n\nInvented in Italy.\n";

#[test]
fn a_body_divides_at_its_headings_and_the_top_is_a_section() {
    let list = sections(BASE);
    let names: Vec<&str> = list.iter().map(Section::name).collect();
    assert_eq!(names, ["", "Grind", "Pressure", "History"]);
    assert_eq!(
        list[1].text,
        "## Grind\n\nUse a fine grind.\nBurr grinders are even.\n\n"
    );
    assert_eq!(
        list[1].body.trim(),
        "Use a fine grind.\nBurr grinders are even."
    );
    // The sections are the whole body, in order.
    let joined: String = list.iter().map(|s| s.text).collect();
    assert_eq!(joined, BASE);

    let code = "## Steps\n\n```sh\n# not a heading\necho hi\n```\n\nSetext\n------\n\nx\n";
    let names: Vec<String> = sections(code).iter().map(|s| s.name().to_owned()).collect();
    assert_eq!(names, ["Steps", "Setext"]);
    // The last line of a body without headings is part of its one section.
    assert_eq!(sections("One.\n\nTwo.")[0].text, "One.\n\nTwo.");
    assert!(sections("").is_empty());
    assert!(sections("\n\n").is_empty());
    assert_eq!(sections("just text\n").len(), 1);
}

/// `BASE` with `from` replaced by `to` (each must occur).
fn edit(text: &str, edits: &[(&str, &str)]) -> String {
    let mut out = text.to_owned();
    for (from, to) in edits {
        assert!(out.contains(from), "{from:?} not in {out:?}");
        out = out.replacen(from, to, 1);
    }
    out
}

struct Case {
    name: &'static str,
    mine: Vec<(&'static str, &'static str)>,
    theirs: Vec<(&'static str, &'static str)>,
    /// Texts the merged body holds, in this order.
    holds: Vec<&'static str>,
    /// Texts it must not hold.
    lacks: Vec<&'static str>,
    /// The sections that get a suggestion, with a text each suggestion holds.
    suggestions: Vec<(&'static str, &'static str)>,
}

#[test]
fn merges_section_by_section() {
    let cases = vec![
        Case {
            name: "only the model changed a section: its text is taken",
            mine: vec![("Invented in Italy.", "Invented in Milan, Italy.")],
            theirs: vec![("Use a fine grind.", "Use a fine, even grind.")],
            holds: vec!["Use a fine, even grind.", "Invented in Milan, Italy."],
            lacks: vec!["Use a fine grind."],
            suggestions: vec![],
        },
        Case {
            name: "only the person changed a section: the person's text is kept",
            mine: vec![(
                "Nine bars is the textbook pressure.",
                "Nine bars, they say.",
            )],
            theirs: vec![("Invented in Italy.", "Invented in Italy in 1884.")],
            holds: vec!["Nine bars, they say.", "Invented in Italy in 1884."],
            lacks: vec!["textbook"],
            suggestions: vec![],
        },
        Case {
            name: "both changed other lines of one section: a clean merge takes both",
            mine: vec![("Use a fine grind.", "Use a very fine grind.")],
            theirs: vec![(
                "Burr grinders are even.",
                "Burr grinders are even.\n\nBlade grinders are not.",
            )],
            holds: vec!["Use a very fine grind.", "Blade grinders are not."],
            lacks: vec![],
            suggestions: vec![],
        },
        Case {
            name: "conflicting edits on one line: the person's text, the model's as a suggestion",
            mine: vec![(
                "Nine bars is the textbook pressure.",
                "Nine bars, my machine does 8.",
            )],
            theirs: vec![(
                "Nine bars is the textbook pressure.",
                "Nine to ten bars is usual.",
            )],
            holds: vec!["Nine bars, my machine does 8."],
            lacks: vec!["Nine to ten bars is usual.", "<<<<<<<"],
            suggestions: vec![("Pressure", "Nine to ten bars is usual.")],
        },
        Case {
            name: "a section the person added stays where the person put it",
            mine: vec![(
                "## Pressure",
                "## My setup\n\nA lever machine.\n\n## Pressure",
            )],
            theirs: vec![(
                "Invented in Italy.",
                "Invented in Italy.\nBezzera patented it.",
            )],
            holds: vec![
                "## Grind",
                "## My setup",
                "A lever machine.",
                "## Pressure",
                "Bezzera",
            ],
            lacks: vec![],
            suggestions: vec![],
        },
        Case {
            name: "a section the person deleted stays deleted, whatever the model did",
            mine: vec![("## History\n\nInvented in Italy.\n", "")],
            theirs: vec![("Invented in Italy.", "Invented in Italy in 1884.")],
            holds: vec!["## Pressure"],
            lacks: vec!["History", "1884"],
            suggestions: vec![],
        },
        Case {
            name: "a section the model added goes after the one it follows",
            mine: vec![("Use a fine grind.", "Use a fine grind (I use 12).")],
            theirs: vec![("## History", "## Crema\n\nCrema is foam.\n\n## History")],
            holds: vec!["## Pressure", "## Crema", "Crema is foam.", "## History"],
            lacks: vec![],
            suggestions: vec![],
        },
        Case {
            name: "reordered headings: the person's order, the model's changes",
            mine: vec![
                ("## History\n\nInvented in Italy.\n", ""),
                ("## Grind", "## History\n\nInvented in Italy.\n\n## Grind"),
            ],
            theirs: vec![("Use a fine grind.", "Use a fine, even grind.")],
            holds: vec![
                "## History",
                "## Grind",
                "Use a fine, even grind.",
                "## Pressure",
            ],
            lacks: vec!["Use a fine grind."],
            suggestions: vec![],
        },
        Case {
            name: "a heading the person renamed is matched to its section by content",
            mine: vec![("## Grind", "## Grinding")],
            theirs: vec![("Burr grinders are even.", "Burr grinders cut evenly.")],
            holds: vec!["## Grinding", "Burr grinders cut evenly."],
            lacks: vec!["## Grind\n", "are even"],
            suggestions: vec![],
        },
        Case {
            name: "a section the model dropped goes, unless the person changed it",
            mine: vec![(
                "Nine bars is the textbook pressure.",
                "Nine bars; mine does 9.5.",
            )],
            theirs: vec![
                ("## History\n\nInvented in Italy.\n", ""),
                ("## Pressure\n\nNine bars is the textbook pressure.\n\n", ""),
            ],
            holds: vec!["## Grind", "Nine bars; mine does 9.5."],
            lacks: vec!["History"],
            suggestions: vec![],
        },
        Case {
            name: "an edit inside a code block is a line like any other",
            mine: vec![(
                "Use a fine grind.",
                "Use a fine grind:\n\n```\n# grind 12\n```",
            )],
            theirs: vec![("Invented in Italy.", "Invented in Italy (1884).")],
            holds: vec!["# grind 12", "## Pressure", "(1884)"],
            lacks: vec![],
            suggestions: vec![],
        },
    ];
    for case in cases {
        let mine = edit(BASE, &case.mine);
        let theirs = edit(BASE, &case.theirs);
        let merge = merge_sections(BASE, &mine, &theirs);
        let mut at = 0;
        for text in &case.holds {
            let Some(found) = merge.body[at..].find(text) else {
                panic!(
                    "{}: {text:?} missing (or out of order) in\n{}",
                    case.name, merge.body
                );
            };
            at += found + text.len();
        }
        for text in &case.lacks {
            assert!(
                !merge.body.contains(text),
                "{}: {text:?} in\n{}",
                case.name,
                merge.body
            );
        }
        let got: Vec<(&str, bool)> = merge
            .suggestions
            .iter()
            .map(|s| (s.section.as_str(), true))
            .collect();
        let want: Vec<(&str, bool)> = case.suggestions.iter().map(|(s, _)| (*s, true)).collect();
        assert_eq!(got, want, "{}", case.name);
        for (s, (_, holds)) in merge.suggestions.iter().zip(&case.suggestions) {
            assert!(s.text.contains(holds), "{}: {:?}", case.name, s.text);
        }
        // Every heading appears once.
        let names: Vec<String> = sections(&merge.body)
            .iter()
            .map(|s| s.name().to_owned())
            .collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(names, unique, "{}", case.name);
    }
}

#[test]
fn a_side_that_changed_nothing_gives_the_other_side_as_written() {
    let theirs = edit(BASE, &[("Invented in Italy.", "Invented in Italy, 1884.")]);
    assert_eq!(merge_sections(BASE, BASE, &theirs).body, theirs);
    let mine = edit(BASE, &[("Use a fine grind.", "Fine.")]);
    assert_eq!(merge_sections(BASE, &mine, BASE).body, mine);
    assert_eq!(merge_sections(BASE, &mine, &mine).body, mine);
}

#[test]
fn a_body_without_headings_merges_as_one_section() {
    let base = "Line one.\nLine two.\nLine three.\n";
    let clean = merge_sections(
        base,
        "Line one, edited.\nLine two.\nLine three.\n",
        "Line one.\nLine two.\nLine three, edited.\n",
    );
    assert_eq!(
        clean.body,
        "Line one, edited.\nLine two.\nLine three, edited.\n"
    );
    assert!(clean.suggestions.is_empty());
    let conflict = merge_sections(
        base,
        "Mine.\nLine two.\nLine three.\n",
        "Theirs.\nLine two.\nLine three.\n",
    );
    assert_eq!(conflict.body, "Mine.\nLine two.\nLine three.\n");
    assert_eq!(conflict.suggestions.len(), 1);
    assert_eq!(conflict.suggestions[0].section, "");
    assert!(conflict.suggestions[0].text.starts_with("Theirs."));
}

/// What `git merge-file` makes of three texts: the merged text, or `None` on a conflict.
fn git_merge(base: &str, mine: &str, theirs: &str) -> Option<String> {
    let dir = std::env::temp_dir().join(format!(
        "wikimind-merge-{}-{}",
        std::process::id(),
        std::thread::current()
            .name()
            .unwrap_or("t")
            .replace("::", "-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let (m, b, t) = (
        write("mine", mine),
        write("base", base),
        write("theirs", theirs),
    );
    let out = std::process::Command::new("git")
        .args(["merge-file", "-p", "-q"])
        .args([&m, &b, &t])
        .output()
        .expect("git is needed to check the merge against git merge-file");
    std::fs::remove_dir_all(&dir).ok();
    match out.status.code() {
        Some(0) => Some(String::from_utf8(out.stdout).unwrap()),
        Some(n) if n > 0 => None,
        _ => panic!(
            "git merge-file failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

#[test]
fn the_line_merge_agrees_with_git_merge_file() {
    // (base, mine, theirs) of one section's text.
    let cases: &[(&str, &str, &str)] = &[
        ("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n"),
        ("a\nb\nc\n", "A\nb\nc\n", "X\nb\nc\n"),
        ("a\nb\nc\n", "a\nB\nc\n", "a\nb\nc\nd\n"),
        ("a\nb\nc\n", "a\nc\n", "a\nb\nc\nd\n"),
        ("a\nb\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "a\nb\nc\nD\ne\n"),
        ("a\nb\n", "a\nb\nmine\n", "a\nb\ntheirs\n"),
        ("a\nb\nc\n", "a\nb2\nc\n", "a\nb2\nc\n"),
        ("## H\n\nx\n", "## H2\n\nx\n", "## H\n\ny\n"),
        (
            "```\n# c\n```\n",
            "```\n# c\n# d\n```\n",
            "```\n# c\n```\ntext\n",
        ),
        ("one\n", "", "one\ntwo\n"),
        (
            "日本語\nテキスト\n",
            "日本語です\nテキスト\n",
            "日本語\nテキストだ\n",
        ),
    ];
    for (base, mine, theirs) in cases {
        let ours = diffy::merge(base, mine, theirs).ok();
        let git = git_merge(base, mine, theirs);
        assert_eq!(ours, git, "base {base:?} mine {mine:?} theirs {theirs:?}");
    }
}

#[test]
fn hostile_bodies_merge_without_panicking() {
    let bodies = [
        "",
        "#",
        "# ",
        "#\n#\n#",
        "## a\n## a\n## a\n",
        "> # quoted\n",
        "- # in a list\n",
        "\u{0}",
        "é\r\n# x\r\nbody\r\n",
        "```\n# open code",
        "Title\n===\n",
        "<h1>html</h1>\n",
    ];
    for base in bodies {
        for mine in bodies {
            for theirs in bodies {
                let merged = merge_sections(base, mine, theirs);
                let _ = sections(&merged.body);
            }
        }
    }
}

#[test]
fn a_section_the_person_added_after_an_untouched_top_takes_the_models_new_top() {
    let base = "Espresso is brewed under nine bars of pressure.";
    let mine = "Espresso is brewed under nine bars of pressure.\n\n## My machine\n\nMy lever machine pulls at eight bars.\n";
    let theirs = "Espresso is brewed under nine bars of pressure.\n\nA shot of espresso takes about thirty seconds.";
    assert_eq!(
        merge_sections(base, mine, theirs).body,
        "Espresso is brewed under nine bars of pressure.\n\nA shot of espresso takes about thirty seconds.\n\n## My machine\n\nMy lever machine pulls at eight bars.\n"
    );
}
