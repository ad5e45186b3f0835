//! The `hostname` format: RFC 1123 labels, and for an A-label (`xn--…`) its Punycode
//! (RFC 3492) and the IDNA2008 rules that RFC 5891 and RFC 5892 give for single code
//! points and their context.
//!
//! What is not checked: the full derivation of which code points IDNA2008 allows, which
//! needs Unicode property tables this crate does not carry. The rules for the code
//! points RFC 5892 names one by one (exceptions, CONTEXTJ, CONTEXTO) are checked, and a
//! label may not begin with a combining mark (from the common combining blocks).

/// Whether `s` is a host name.
pub(super) fn hostname(s: &str) -> bool {
    if s.is_empty() || s.len() > 253 {
        return false;
    }
    s.split('.').all(label)
}

fn label(label: &str) -> bool {
    let b = label.as_bytes();
    let ldh = !b.is_empty()
        && b.len() <= 63
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-';
    if !ldh {
        return false;
    }
    // `ab--cd` is reserved: only A-labels (`xn--`) have hyphens in 3rd and 4th place.
    if b.len() >= 4 && &b[2..4] == b"--" {
        if !label[..2].eq_ignore_ascii_case("xn") {
            return false;
        }
        return match punycode_decode(&label[4..]) {
            Some(u) => u_label(&u),
            None => false,
        };
    }
    true
}

/// The rules of RFC 5891 §5.4 and RFC 5892 for a decoded label.
fn u_label(u: &[char]) -> bool {
    if u.is_empty() || (u.len() >= 4 && u[2] == '-' && u[3] == '-') {
        return false;
    }
    if is_combining_mark(u[0]) {
        return false;
    }
    let has = |lo: u32, hi: u32| u.iter().any(|&c| (lo..=hi).contains(&(c as u32)));
    if has(0x0660, 0x0669) && has(0x06F0, 0x06F9) {
        return false;
    }
    for (i, &c) in u.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| u[j]);
        let after = u.get(i + 1).copied();
        let ok = match c as u32 {
            // RFC 5892 §2.6 exceptions that are DISALLOWED.
            0x0640 | 0x07FA | 0x302E | 0x302F | 0x3031..=0x3035 | 0x303B => false,
            // ZERO WIDTH NON-JOINER.
            0x200C => before.is_some_and(is_virama) || joins_around(u, i),
            // ZERO WIDTH JOINER.
            0x200D => before.is_some_and(is_virama),
            // MIDDLE DOT: between two `l`s.
            0x00B7 => before == Some('l') && after == Some('l'),
            // GREEK LOWER NUMERAL SIGN (KERAIA): followed by Greek.
            0x0375 => after.is_some_and(is_greek),
            // HEBREW GERESH and GERSHAYIM: preceded by Hebrew.
            0x05F3 | 0x05F4 => before.is_some_and(|b| ('\u{0590}'..='\u{05FF}').contains(&b)),
            // KATAKANA MIDDLE DOT: with Hiragana, Katakana or Han in the label.
            0x30FB => u.iter().any(|&o| o != c && is_kana_or_han(o)),
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    true
}

fn is_virama(c: char) -> bool {
    matches!(
        c as u32,
        0x094D
            | 0x09CD
            | 0x0A4D
            | 0x0ACD
            | 0x0B4D
            | 0x0BCD
            | 0x0C4D
            | 0x0CCD
            | 0x0D3B
            | 0x0D3C
            | 0x0D4D
            | 0x0DCA
            | 0x0E3A
            | 0x0EBA
            | 0x0F84
            | 0x1039
            | 0x103A
            | 0x1714
            | 0x1734
            | 0x17D2
            | 0x1A60
            | 0x1B44
            | 0x1BAA
            | 0x1BAB
            | 0x1BF2
            | 0x1BF3
            | 0x2D7F
            | 0xA806
            | 0xA8C4
            | 0xA953
            | 0xA9C0
            | 0xAAF6
            | 0xABED
    )
}

fn is_greek(c: char) -> bool {
    ('\u{0370}'..='\u{03FF}').contains(&c) || ('\u{1F00}'..='\u{1FFF}').contains(&c)
}

fn is_kana_or_han(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x309F | 0x30A0..=0x30FF | 0x31F0..=0x31FF
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F)
}

/// A code point of the combining blocks (general category M in them).
fn is_combining_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x05BF | 0x05C1..=0x05C2
        | 0x05C4..=0x05C5 | 0x05C7 | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670
        | 0x06D6..=0x06DC | 0x06DF..=0x06E4 | 0x06E7..=0x06E8 | 0x06EA..=0x06ED
        | 0x0900..=0x0903 | 0x093A..=0x093C | 0x093E..=0x094F | 0x0951..=0x0957
        | 0x0962..=0x0963 | 0x0981..=0x0983 | 0x09BC | 0x09BE..=0x09CD
        | 0x0A01..=0x0A03 | 0x0A3C..=0x0A51 | 0x0A81..=0x0A83 | 0x0ABC..=0x0ACD
        | 0x0B01..=0x0B03 | 0x0B3C..=0x0B57 | 0x0BBE..=0x0BCD | 0x0C00..=0x0C04
        | 0x0C3E..=0x0C56 | 0x0D00..=0x0D03 | 0x0D3E..=0x0D4D | 0x0E31 | 0x0E34..=0x0E3A
        | 0x0E47..=0x0E4E | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF
        | 0x302A..=0x302F | 0x3099..=0x309A | 0xFE00..=0xFE0F | 0xFE20..=0xFE2F)
}

/// Arabic joining type: `D` (dual), `R` (right), `T` (transparent), or none.
fn joining(c: char) -> Option<u8> {
    let cp = c as u32;
    match cp {
        0x064B..=0x065F | 0x0670 => Some(b'T'),
        0x0622..=0x0625 | 0x0627 | 0x0629 | 0x062F..=0x0632 | 0x0648 => Some(b'R'),
        0x0620
        | 0x0626
        | 0x0628
        | 0x062A..=0x062E
        | 0x0633..=0x063F
        | 0x0641..=0x0647
        | 0x0649..=0x064A => Some(b'D'),
        _ => None,
    }
}

/// RFC 5892 A.1's second test for ZERO WIDTH NON-JOINER at `i`: a left- or dual-joining
/// letter before it and a right- or dual-joining one after it, with only transparent
/// marks between.
fn joins_around(u: &[char], i: usize) -> bool {
    let before = u[..i]
        .iter()
        .rev()
        .map(|&c| joining(c))
        .find(|j| *j != Some(b'T'));
    let after = u[i + 1..]
        .iter()
        .map(|&c| joining(c))
        .find(|j| *j != Some(b'T'));
    matches!(before, Some(Some(b'L' | b'D'))) && matches!(after, Some(Some(b'R' | b'D')))
}

/// RFC 3492 Punycode decoding of the part after `xn--`.
fn punycode_decode(input: &str) -> Option<Vec<char>> {
    const BASE: u32 = 36;
    const TMIN: u32 = 1;
    const TMAX: u32 = 26;
    let (basic, rest) = match input.rfind('-') {
        Some(i) => (&input[..i], &input[i + 1..]),
        None => ("", input),
    };
    let mut out: Vec<char> = basic.chars().collect();
    if !basic.is_ascii() {
        return None;
    }
    let mut n: u32 = 128;
    let mut i: u32 = 0;
    let mut bias: u32 = 72;
    let mut digits = rest.bytes().peekable();
    while digits.peek().is_some() {
        let old_i = i;
        let mut w: u32 = 1;
        let mut k = BASE;
        loop {
            let c = digits.next()?;
            let digit = u32::from(match c {
                b'a'..=b'z' => c - b'a',
                b'A'..=b'Z' => c - b'A',
                b'0'..=b'9' => c - b'0' + 26,
                _ => return None,
            });
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = if k <= bias {
                TMIN
            } else if k >= bias + TMAX {
                TMAX
            } else {
                k - bias
            };
            if digit < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let len = out.len() as u32 + 1;
        bias = adapt(i - old_i, len, old_i == 0);
        n = n.checked_add(i / len)?;
        i %= len;
        out.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(out)
}

fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / 700 } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((36 - 1) * 26) / 2 {
        delta /= 36 - 1;
        k += 36;
    }
    k + (36 - 1 + 1) * delta / (delta + 38)
}
