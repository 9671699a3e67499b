//! The operations that need no process: `--count` and `--grep`.

use tine::stream::Batch;

/// `--grep`: appends each record that contains `pattern`, with its
/// delimiter.
pub fn grep(batch: &Batch<'_>, pattern: &[u8], out: &mut Vec<u8>) {
    let delimiter = batch.delimiter();
    for record in batch.records() {
        if contains(record, pattern) {
            out.extend_from_slice(record);
            out.push(delimiter);
        }
    }
}

/// Whether `haystack` contains `needle` (non-empty): candidate positions
/// come from the needle's first byte, then a comparison.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    let first = needle[0];
    let mut at = 0;
    while haystack.len() - at >= needle.len() {
        let window = &haystack[at..=haystack.len() - needle.len()];
        match window.iter().position(|&b| b == first) {
            None => return false,
            Some(i) => {
                if &haystack[at + i..at + i + needle.len()] == needle {
                    return true;
                }
                at += i + 1;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn contains_finds_literals() {
        assert!(super::contains(b"hello world", b"o w"));
        assert!(super::contains(b"aaab", b"aab"));
        assert!(!super::contains(b"aaa", b"aaaa"));
        assert!(!super::contains(b"", b"a"));
    }
}
