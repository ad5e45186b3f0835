//! Text that must stay on one line.

/// `text` on one line: every run of whitespace (line breaks included) one space, so a
/// list item stays one item and a title cannot start a line of its own in a prompt.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_run_of_whitespace_is_one_space() {
        assert_eq!(
            one_line("  # Title\r\n\tand\u{a0}more \n"),
            "# Title and more"
        );
        assert_eq!(one_line("\n\n"), "");
    }
}
