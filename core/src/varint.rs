//! LEB128 varints and zig-zag signed integers: the one encoding of the engine's compact
//! formats (routing hierarchies, point grids, indoor graphs, expanded pack databases).

/// Appends `v` as a LEB128 varint (7 bits a byte, high bit set on every byte but the last).
pub(crate) fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends the signed `v` zig-zag encoded (small magnitudes, either sign, take few bytes).
pub(crate) fn put_signed(out: &mut Vec<u8>, v: i64) {
    put(out, zigzag(v));
}

/// The zig-zag code of `v`: 0, -1, 1, -2, ... as 0, 1, 2, 3, ...
pub(crate) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The inverse of [`zigzag`].
pub(crate) fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// Why a varint cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VarintError {
    /// The bytes end inside it.
    Ends,
    /// It is longer than a `u64` (ten bytes).
    TooLong,
}

/// Reads the varint at `*at` in `bytes` and moves `*at` past it.
pub(crate) fn get(bytes: &[u8], at: &mut usize) -> Result<u64, VarintError> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at).ok_or(VarintError::Ends)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err(VarintError::TooLong)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_zigzag_round_trip_and_refuse_what_ends_or_overflows() {
        let values = [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
        let mut out = Vec::new();
        for v in values {
            put(&mut out, v);
        }
        assert_eq!(&out[..4], [0, 1, 127, 0x80]);
        let mut at = 0;
        for v in values {
            assert_eq!(get(&out, &mut at), Ok(v));
        }
        assert_eq!(at, out.len());
        assert_eq!(get(&out, &mut at), Err(VarintError::Ends));
        assert_eq!(get(&[0x80; 11], &mut 0), Err(VarintError::TooLong));
        for v in [0i64, -1, 1, -2, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!([zigzag(0), zigzag(-1), zigzag(1), zigzag(-2)], [0, 1, 2, 3]);
    }
}
