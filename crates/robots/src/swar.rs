//! Searching short byte strings sixteen bytes at a time (one SSE2
//! comparison per needle, where the target has SSE2) or eight (one word,
//! elsewhere and for slices shorter than sixteen bytes). URLs, paths and
//! patterns are a few dozen bytes: setting up a general vector search
//! (`memchr`'s runtime dispatch, alignment and unrolled loops) costs more
//! than reading them a block at a time.

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

/// Sixteen bytes compared at once with SSE2.
#[cfg(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
))]
mod block {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };

    /// Whether blocks answer (the word-at-a-time code does otherwise).
    #[cfg(test)]
    pub(super) const ENABLED: bool = true;

    /// Bytes in a block.
    const WIDTH: usize = 16;

    /// Needles, each repeated over a block.
    #[derive(Clone, Copy)]
    struct Needles<const N: usize>([m128i; N]);

    impl<const N: usize> Needles<N> {
        #[inline(always)]
        fn new(needles: [u8; N]) -> Self {
            Needles(needles.map(|n| set_splat_i8_m128i(n.cast_signed())))
        }

        /// A bit for each byte of `bytes[at..at + 16]` that is a needle,
        /// the lowest for the first byte.
        #[inline(always)]
        fn hits(&self, bytes: &[u8], at: usize) -> u32 {
            let Some(Ok(block)) = bytes.get(at..at + WIDTH).map(<&[u8; WIDTH]>::try_from) else {
                return 0;
            };
            let v = load_unaligned_m128i(block);
            let m = self.0[1..]
                .iter()
                .fold(cmp_eq_mask_i8_m128i(v, self.0[0]), |m, &n| {
                    bitor_m128i(m, cmp_eq_mask_i8_m128i(v, n))
                });
            move_mask_i8_m128i(m).cast_unsigned()
        }
    }

    /// [`super::first_of`] for a slice of at least sixteen bytes; `None`
    /// for a shorter one.
    #[inline]
    pub(super) fn first_of<const N: usize>(
        bytes: &[u8],
        mut from: usize,
        end: usize,
        needles: [u8; N],
    ) -> Option<Option<usize>> {
        if bytes.len() < WIDTH {
            return None;
        }
        let blocks = Needles::new(needles);
        while from < end {
            if from + WIDTH <= bytes.len() {
                let h = blocks.hits(bytes, from);
                if h != 0 {
                    let i = from + h.trailing_zeros() as usize;
                    return Some((i < end).then_some(i));
                }
                from += WIDTH;
            } else {
                // The block ending the slice, less the bytes before `from`
                // (within its last sixteen bytes).
                let start = bytes.len() - WIDTH;
                let h = blocks.hits(bytes, start) & (u32::MAX << (from - start));
                let i = start + h.trailing_zeros() as usize;
                return Some((h != 0 && i < end).then_some(i));
            }
        }
        Some(None)
    }

    /// See [`super::masks`].
    #[inline]
    pub(super) fn masks<const N: usize>(bytes: &[u8], any: [u8; N], one: u8) -> Option<[u64; 2]> {
        let len = bytes.len();
        if !(WIDTH..=4 * WIDTH).contains(&len) {
            return None;
        }
        let any = Needles::new(any);
        let one = Needles::new([one]);
        let mut out = [0u64; 2];
        for i in 0..4 {
            let at = (i * WIDTH).min(len - WIDTH);
            out[0] |= u64::from(any.hits(bytes, at)) << at;
            out[1] |= u64::from(one.hits(bytes, at)) << at;
        }
        Some(out)
    }
}

/// Where the target has no SSE2: no block answers, the word-at-a-time code
/// does.
#[cfg(not(all(
    any(target_arch = "x86", target_arch = "x86_64"),
    target_feature = "sse2"
)))]
mod block {
    #[cfg(test)]
    pub(super) const ENABLED: bool = false;

    pub(super) fn first_of<const N: usize>(
        _: &[u8],
        _: usize,
        _: usize,
        _: [u8; N],
    ) -> Option<Option<usize>> {
        None
    }

    pub(super) fn masks<const N: usize>(_: &[u8], _: [u8; N], _: u8) -> Option<[u64; 2]> {
        None
    }
}

/// Two bit masks of `bytes`, a bit per byte, the lowest for the first:
/// the bytes that are one of `any`, and those equal to `one`; when the
/// slice has 16 to 64 bytes and the target compares sixteen at once,
/// `None` otherwise (then search with [`first_of`]). Four blocks cover the
/// slice, the last ones overlapping, so that the work does not depend on
/// its length: no loop exit for a new length to mispredict.
#[inline]
pub(crate) fn masks<const N: usize>(bytes: &[u8], any: [u8; N], one: u8) -> Option<[u64; 2]> {
    block::masks(bytes, any, one)
}

/// The first index in `from..end` whose byte is one of `needles` (`end` at
/// most `bytes.len()`). Blocks are read past `end` but never past `bytes`;
/// the last is the block that ends the slice, so no byte loop runs unless
/// the whole slice is shorter than a word.
#[inline]
pub(crate) fn first_of<const N: usize>(
    bytes: &[u8],
    mut from: usize,
    end: usize,
    needles: [u8; N],
) -> Option<usize> {
    if let Some(found) = block::first_of(bytes, from, end, needles) {
        return found;
    }
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

        /// The bit masks of a slice, byte by byte; `None` only outside 16
        /// to 64 bytes.
        #[test]
        fn masks_are_the_needles_bytes(
            bytes in proptest::collection::vec(proptest::sample::select(b"ab/#?".to_vec()), 0..80),
        ) {
            let plain = |f: &dyn Fn(u8) -> bool| {
                bytes.iter().enumerate().filter(|(_, b)| f(**b)).fold(0u64, |m, (i, _)| m | 1 << i)
            };
            match masks(&bytes, [b'/', b'#'], b'?') {
                Some([any, one]) => {
                    proptest::prop_assert!((16..=64).contains(&bytes.len()));
                    proptest::prop_assert_eq!(any, plain(&|b| b == b'/' || b == b'#'));
                    proptest::prop_assert_eq!(one, plain(&|b| b == b'?'));
                }
                None => proptest::prop_assert!(
                    !(16..=64).contains(&bytes.len()) || !block::ENABLED
                ),
            }
        }
    }
}
