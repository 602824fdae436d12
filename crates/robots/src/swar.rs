//! Searching short byte strings eight bytes at a time. URLs, paths and
//! patterns are a few dozen bytes: setting up a vector search costs more
//! than reading them a word at a time.

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW: u64 = ONES * 0x7F;

/// A bit at the top of each byte of `x` that is zero: exact, since no carry
/// crosses a byte.
#[inline]
fn zero_bytes(x: u64) -> u64 {
    !(((x & LOW) + LOW) | x | LOW)
}

/// The eight bytes of `bytes` at `at` as one little-endian word.
#[inline]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The first index in `from..end` whose byte is one of `needles` (`end` at
/// most `bytes.len()`). Words are read past `end` but never past `bytes`;
/// the last is the word that ends the slice, so no byte loop runs unless
/// the whole slice is shorter than a word.
#[inline]
pub(crate) fn first_of<const N: usize>(
    bytes: &[u8],
    mut from: usize,
    end: usize,
    needles: [u8; N],
) -> Option<usize> {
    let patterns = needles.map(|n| ONES * u64::from(n));
    let hits = |w: u64| patterns.iter().fold(0, |h, &p| h | zero_bytes(w ^ p));
    while from < end {
        if from + 8 <= bytes.len() {
            let h = hits(word(bytes, from));
            if h != 0 {
                let i = from + (h.trailing_zeros() / 8) as usize;
                return (i < end).then_some(i);
            }
            from += 8;
        } else if bytes.len() >= 8 {
            // The word ending the slice, less the bytes before `from`
            // (`from` is within its last eight bytes).
            let start = bytes.len() - 8;
            let h = hits(word(bytes, start)) & (u64::MAX << (8 * (from - start)));
            let i = start + (h.trailing_zeros() / 8) as usize;
            return (h != 0 && i < end).then_some(i);
        } else {
            return bytes[from..end]
                .iter()
                .position(|b| needles.contains(b))
                .map(|i| from + i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(crate::unit_proptest_config())]

        /// The first needle in any window of any slice, as a plain search
        /// finds it.
        #[test]
        fn first_of_is_the_first_needle(
            bytes in proptest::collection::vec(proptest::sample::select(b"ab/#?".to_vec()), 0..40),
            from in 0usize..45,
            end in 0usize..45,
        ) {
            let end = end.min(bytes.len());
            let plain = (from..end).find(|&i| matches!(bytes[i], b'/' | b'#'));
            proptest::prop_assert_eq!(first_of(&bytes, from, end, [b'/', b'#']), plain);
            let plain = (from..end).find(|&i| bytes[i] == b'?');
            proptest::prop_assert_eq!(first_of(&bytes, from, end, [b'?']), plain);
        }
    }
}
