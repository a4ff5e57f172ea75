//! Numbers ↔ word-rank triples in shells of increasing largest rank (ADR 0003 §5).

/// The largest `m` with `m³ ≤ t`.
pub fn icbrt(t: u64) -> u64 {
    let mut m = (t as f64).cbrt() as u64;
    // Correct the float estimate: at most a step or two either way.
    while m > 0 && m.checked_pow(3).is_none_or(|c| c > t) {
        m -= 1;
    }
    while (m + 1).checked_pow(3).is_some_and(|c| c <= t) {
        m += 1;
    }
    m
}

/// The triple of number `t`.
pub fn triple(t: u64) -> [u64; 3] {
    let m = icbrt(t);
    let mut rest = t - m * m * m;
    let side = m + 1;
    // x = m; y, z ≤ m.
    if rest < side * side {
        return [m, rest / side, rest % side];
    }
    rest -= side * side;
    // y = m, x < m; z ≤ m.
    if rest < m * side {
        return [rest / side, m, rest % side];
    }
    rest -= m * side;
    // z = m; x, y < m.
    [rest / m, rest % m, m]
}

/// The number of triple `[x, y, z]`.
pub fn number([x, y, z]: [u64; 3]) -> u64 {
    let m = x.max(y).max(z);
    let side = m + 1;
    let start = m * m * m;
    if x == m {
        start + y * side + z
    } else if y == m {
        start + side * side + x * side + z
    } else {
        start + side * side + m * side + x * m + y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_first_shells_in_order() {
        let first: Vec<[u64; 3]> = (0..8).map(triple).collect();
        assert_eq!(
            first,
            [
                [0, 0, 0],
                [1, 0, 0],
                [1, 0, 1],
                [1, 1, 0],
                [1, 1, 1],
                [0, 1, 0],
                [0, 1, 1],
                [0, 0, 1]
            ]
        );
        // Every triple of words below m comes before any triple using word m.
        for m in 1..30u64 {
            assert!((0..m * m * m).all(|t| triple(t).iter().all(|&w| w < m)));
        }
    }

    #[test]
    fn cube_roots_at_the_edges() {
        for m in [0u64, 1, 2, 39_999, 40_000, 2_642_245] {
            let c = m * m * m;
            assert_eq!(icbrt(c), m);
            if c > 0 {
                assert_eq!(icbrt(c - 1), m - 1);
            }
            assert_eq!(icbrt(c + 1), m.max(1));
        }
    }

    proptest! {
        #[test]
        fn numbers_and_triples_are_inverse(t in 0u64..64_000_000_000_000) {
            let tr = triple(t);
            prop_assert!(tr.iter().all(|&w| w < 40_000));
            prop_assert_eq!(number(tr), t);
        }

        #[test]
        fn triples_and_numbers_are_inverse(x in 0u64..40_000, y in 0u64..40_000, z in 0u64..40_000) {
            prop_assert_eq!(triple(number([x, y, z])), [x, y, z]);
        }
    }
}
