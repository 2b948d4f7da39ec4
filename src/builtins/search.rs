//! Substring search over Boa's two string representations, linear in what it scans.
//!
//! Boa's `StringIndexOf` walks from index 0 to `fromIndex` before it starts looking, so
//! `indexOf(x, pos)` costs O(pos) and every loop that searches from increasing positions
//! (`split`, `replaceAll`, a scan with `indexOf`) is quadratic. [`Finder`] starts at
//! `fromIndex`, scans for the needle's first unit eight bytes at a time, and verifies each
//! candidate; if verification work outgrows the distance covered (a needle like `aaab` in
//! `aaaa…`), it switches to Knuth–Morris–Pratt from where it stands. A search that finds
//! its match at `p` therefore costs O(needle length + (p − fromIndex)), whatever the text.

use boa_engine::string::{JsStr, JsStrVariant};
use std::borrow::Cow;

/// `StringIndexOf(hay, needle, from)`: the first index ≥ `from` where `needle` occurs.
#[must_use]
pub fn index_of(hay: JsStr<'_>, needle: JsStr<'_>, from: usize) -> Option<usize> {
    Finder::new(hay, needle).find(from)
}

/// A needle prepared for repeated searches in one haystack.
pub struct Finder<'a> {
    hay: JsStr<'a>,
    needle: Needle<'a>,
    /// The KMP failure function, built the first time a search needs it.
    table: Option<Vec<usize>>,
}

/// The needle in the haystack's representation.
enum Needle<'a> {
    Empty,
    Bytes(Cow<'a, [u8]>),
    Units(Cow<'a, [u16]>),
    /// A needle with a unit above U+00FF never occurs in a Latin-1 haystack.
    Absent,
}

impl<'a> Finder<'a> {
    /// Prepares `needle` for searches in `hay`: O(needle length).
    #[must_use]
    pub fn new(hay: JsStr<'a>, needle: JsStr<'a>) -> Self {
        let needle = if needle.is_empty() {
            Needle::Empty
        } else {
            match (hay.variant(), needle.variant()) {
                (JsStrVariant::Latin1(_), JsStrVariant::Latin1(n)) => {
                    Needle::Bytes(Cow::Borrowed(n))
                }
                (JsStrVariant::Latin1(_), JsStrVariant::Utf16(n)) => {
                    if n.iter().all(|&u| u <= 0xFF) {
                        Needle::Bytes(Cow::Owned(n.iter().map(|&u| u as u8).collect()))
                    } else {
                        Needle::Absent
                    }
                }
                (JsStrVariant::Utf16(_), JsStrVariant::Utf16(n)) => Needle::Units(Cow::Borrowed(n)),
                (JsStrVariant::Utf16(_), JsStrVariant::Latin1(n)) => {
                    Needle::Units(Cow::Owned(n.iter().map(|&b| u16::from(b)).collect()))
                }
            }
        };
        Self {
            hay,
            needle,
            table: None,
        }
    }

    /// The first index ≥ `from` where the needle occurs (`from` itself for an empty needle
    /// when `from` ≤ the haystack's length), as the spec's `StringIndexOf`.
    pub fn find(&mut self, from: usize) -> Option<usize> {
        match (&self.needle, self.hay.variant()) {
            (Needle::Empty, _) => (from <= self.hay.len()).then_some(from),
            (Needle::Bytes(n), JsStrVariant::Latin1(h)) => find_in(h, n, from, &mut self.table),
            (Needle::Units(n), JsStrVariant::Utf16(h)) => find_in(h, n, from, &mut self.table),
            _ => None,
        }
    }
}

/// A code unit of either representation.
trait Unit: Copy + Eq {
    /// The first index of `x` in `hay`.
    fn position(hay: &[Self], x: Self) -> Option<usize>;
}

impl Unit for u16 {
    fn position(hay: &[u16], x: u16) -> Option<usize> {
        hay.iter().position(|&u| u == x)
    }
}

impl Unit for u8 {
    /// Eight bytes at a time: a word has a byte equal to `x` iff `word ^ x…x` has a zero
    /// byte, which `(v - 0x01…01) & !v & 0x80…80` detects.
    fn position(hay: &[u8], x: u8) -> Option<usize> {
        const LO: u64 = u64::from_ne_bytes([0x01; 8]);
        const HI: u64 = u64::from_ne_bytes([0x80; 8]);
        let pattern = u64::from_ne_bytes([x; 8]);
        let mut chunks = hay.chunks_exact(8);
        let mut base = 0;
        for chunk in &mut chunks {
            if let Ok(bytes) = <[u8; 8]>::try_from(chunk) {
                let v = u64::from_ne_bytes(bytes) ^ pattern;
                if v.wrapping_sub(LO) & !v & HI != 0
                    && let Some(i) = chunk.iter().position(|&b| b == x)
                {
                    return Some(base + i);
                }
            }
            base += 8;
        }
        chunks
            .remainder()
            .iter()
            .position(|&b| b == x)
            .map(|i| base + i)
    }
}

fn find_in<T: Unit>(
    hay: &[T],
    needle: &[T],
    from: usize,
    table: &mut Option<Vec<usize>>,
) -> Option<usize> {
    let m = needle.len();
    let (&first, rest) = needle.split_first()?;
    if from > hay.len() || hay.len() - from < m {
        return None;
    }
    let last = hay.len() - m;
    let mut i = from;
    let mut work = 0usize;
    loop {
        i += T::position(hay.get(i..=last)?, first)?;
        let candidate = hay.get(i + 1..i + m)?;
        let same = candidate
            .iter()
            .zip(rest)
            .take_while(|(a, b)| a == b)
            .count();
        if same == rest.len() {
            return Some(i);
        }
        work += same + 1;
        i += 1;
        if i > last {
            return None;
        }
        // Verification is outgrowing the scan: no match starts before `i`, so KMP can
        // take over from here in state 0.
        if work > 2 * (i - from) + 2 * m + 64 {
            let table = table.get_or_insert_with(|| failure_table(needle));
            return kmp(hay, needle, table, i);
        }
    }
}

/// `table[j]`: the length of the longest proper prefix of `needle[..=j]` that is also its
/// suffix.
fn failure_table<T: Unit>(needle: &[T]) -> Vec<usize> {
    let mut table = vec![0; needle.len()];
    let mut k = 0;
    for j in 1..needle.len() {
        while k > 0 && needle[j] != needle[k] {
            k = table[k - 1];
        }
        if needle[j] == needle[k] {
            k += 1;
        }
        table[j] = k;
    }
    table
}

fn kmp<T: Unit>(hay: &[T], needle: &[T], table: &[usize], from: usize) -> Option<usize> {
    let m = needle.len();
    let mut q = 0;
    for (k, &c) in hay.get(from..)?.iter().enumerate() {
        while q > 0 && needle[q] != c {
            q = table[q - 1];
        }
        if needle[q] == c {
            q += 1;
        }
        if q == m {
            return Some(from + k + 1 - m);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(hay: &[u16], needle: &[u16], from: usize) -> Option<usize> {
        if needle.is_empty() {
            return (from <= hay.len()).then_some(from);
        }
        (from..=hay.len().checked_sub(needle.len())?).find(|&i| &hay[i..i + needle.len()] == needle)
    }

    fn latin1(s: &[u16]) -> Option<Vec<u8>> {
        s.iter().map(|&u| u8::try_from(u).ok()).collect()
    }

    #[test]
    fn agrees_with_the_definition_in_every_representation() {
        let hays: Vec<Vec<u16>> = vec![
            "".encode_utf16().collect(),
            "abcabcabd, lorem ipsum, dolor".encode_utf16().collect(),
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"
                .encode_utf16()
                .collect(),
            "café naïve straße café".encode_utf16().collect(),
            "中文 a中b 中文中".encode_utf16().collect(),
            vec![0xD800, 0x61, 0xDC00, 0xD800, 0xDC00, 0x61],
        ];
        let needles: Vec<Vec<u16>> = vec![
            vec![],
            "a".encode_utf16().collect(),
            "abd".encode_utf16().collect(),
            ", ".encode_utf16().collect(),
            "aaaab".encode_utf16().collect(),
            "aaaaaaaaaaaaaaaaaaaaaaab".encode_utf16().collect(),
            "café".encode_utf16().collect(),
            "é".encode_utf16().collect(),
            "中".encode_utf16().collect(),
            "中文".encode_utf16().collect(),
            vec![0xDC00],
            vec![0xD800, 0xDC00],
            "zzz".encode_utf16().collect(),
        ];
        for hay in &hays {
            let hay_l1 = latin1(hay);
            for needle in &needles {
                let needle_l1 = latin1(needle);
                for from in 0..=hay.len() + 1 {
                    let want = naive(hay, needle, from);
                    let mut reprs = vec![(JsStr::utf16(hay), JsStr::utf16(needle))];
                    if let Some(h) = &hay_l1 {
                        reprs.push((JsStr::latin1(h), JsStr::utf16(needle)));
                        if let Some(n) = &needle_l1 {
                            reprs.push((JsStr::latin1(h), JsStr::latin1(n)));
                        }
                    }
                    if let Some(n) = &needle_l1 {
                        reprs.push((JsStr::utf16(hay), JsStr::latin1(n)));
                    }
                    for (h, n) in reprs {
                        assert_eq!(index_of(h, n, from), want, "{hay:?} {needle:?} {from}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_repetitive_needle_falls_back_to_kmp_and_stays_correct() {
        let mut hay = vec![b'a'; 5000];
        hay.extend_from_slice(b"aaab");
        let needle = [b'a'; 40].iter().chain(b"b").copied().collect::<Vec<u8>>();
        let mut finder = Finder::new(JsStr::latin1(&hay), JsStr::latin1(&needle));
        assert_eq!(finder.find(0), Some(hay.len() - needle.len()));
        assert_eq!(finder.find(hay.len() - needle.len() + 1), None);
        let wide: Vec<u16> = hay.iter().map(|&b| u16::from(b)).collect();
        assert_eq!(
            index_of(JsStr::utf16(&wide), JsStr::latin1(&needle), 17),
            Some(hay.len() - needle.len())
        );
    }
}
