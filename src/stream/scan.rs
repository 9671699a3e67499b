//! Byte scans over record buffers: count, find, find last, and find the end
//! of the n-th record.
//!
//! Std has no public `memchr`, and the cutter scans every input byte once,
//! so these loops are written to vectorize: counting compares a fixed-size
//! block at a time with no early exit (the compiler turns that into SIMD
//! compares and adds), and the searches skip whole blocks that hold no match
//! before looking at single bytes. All safe code.

/// Bytes per block: four 16-byte vectors, or two 32-byte ones.
const BLOCK: usize = 64;

/// The number of `byte`s in `bytes`.
#[inline]
pub(crate) fn count(bytes: &[u8], byte: u8) -> usize {
    let mut blocks = bytes.chunks_exact(BLOCK);
    let mut total = 0usize;
    for block in &mut blocks {
        total += count_block(block, byte);
    }
    total + blocks.remainder().iter().filter(|&&b| b == byte).count()
}

/// Matches in one block, written branch-free so it vectorizes.
#[inline(always)]
fn count_block(block: &[u8], byte: u8) -> usize {
    let mut n = 0u8; // at most 64
    for &b in block {
        n += u8::from(b == byte);
    }
    usize::from(n)
}

/// Whether one block holds `byte` (no early exit inside a block).
#[inline(always)]
fn block_has(block: &[u8], byte: u8) -> bool {
    let mut any = false;
    for &b in block {
        any |= b == byte;
    }
    any
}

/// The index of the first `byte` in `bytes`.
#[inline]
pub(crate) fn find(bytes: &[u8], byte: u8) -> Option<usize> {
    // Short records are the common case: look at the first few bytes
    // directly before setting up block scans.
    let head = bytes.len().min(16);
    if let Some(i) = bytes[..head].iter().position(|&b| b == byte) {
        return Some(i);
    }
    let mut offset = head;
    for block in bytes[head..].chunks(BLOCK) {
        if block.len() == BLOCK && !block_has(block, byte) {
            offset += BLOCK;
            continue;
        }
        if let Some(i) = block.iter().position(|&b| b == byte) {
            return Some(offset + i);
        }
        offset += block.len();
    }
    None
}

/// The index of the last `byte` in `bytes`.
#[inline]
pub(crate) fn rfind(bytes: &[u8], byte: u8) -> Option<usize> {
    let mut end = bytes.len();
    for block in bytes.rchunks(BLOCK) {
        end -= block.len();
        if block.len() == BLOCK && !block_has(block, byte) {
            continue;
        }
        if let Some(i) = block.iter().rposition(|&b| b == byte) {
            return Some(end + i);
        }
    }
    None
}

/// The length of the prefix of `bytes` that holds its first `n` records:
/// the index just past the `n`-th `byte`. If there are fewer than `n`,
/// `Err` with how many there are: one pass either way.
#[inline]
pub(crate) fn nth_end(bytes: &[u8], byte: u8, n: usize) -> Result<usize, usize> {
    if n == 0 {
        return Ok(0);
    }
    let mut left = n;
    let mut offset = 0;
    for block in bytes.chunks(BLOCK) {
        let here = if block.len() == BLOCK {
            count_block(block, byte)
        } else {
            block.iter().filter(|&&b| b == byte).count()
        };
        if here < left {
            left -= here;
            offset += block.len();
            continue;
        }
        // The n-th delimiter is in this block.
        for (i, &b) in block.iter().enumerate() {
            if b == byte {
                left -= 1;
                if left == 0 {
                    return Ok(offset + i + 1);
                }
            }
        }
    }
    Err(n - left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn naive_positions(bytes: &[u8], byte: u8) -> Vec<usize> {
        bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == byte)
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn scans_agree_with_naive_ones() {
        let mut seed = 12345u64;
        for len in [0usize, 1, 15, 16, 17, 63, 64, 65, 127, 128, 200, 1000, 4099] {
            for density in [1u64, 3, 50, 500] {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        if (seed >> 33) % density == 0 {
                            b'\n'
                        } else {
                            b'a'
                        }
                    })
                    .collect();
                let positions = naive_positions(&bytes, b'\n');
                assert_eq!(count(&bytes, b'\n'), positions.len());
                assert_eq!(find(&bytes, b'\n'), positions.first().copied());
                assert_eq!(rfind(&bytes, b'\n'), positions.last().copied());
                for n in 0..=positions.len() + 1 {
                    let expect = match n {
                        0 => Ok(0),
                        n if n <= positions.len() => Ok(positions[n - 1] + 1),
                        _ => Err(positions.len()),
                    };
                    assert_eq!(nth_end(&bytes, b'\n', n), expect, "len {len} n {n}");
                }
            }
        }
    }
}
