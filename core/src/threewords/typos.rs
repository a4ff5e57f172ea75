//! The listed words two edits away from a typed word, found without spelling out every string
//! two edits away.
//!
//! A word of ten letters has about 560 strings one edit away (insertion, deletion,
//! substitution of a letter, swap of two neighbouring letters:
//! `waymark_threewords::v3::each_edit`) and some 300,000 two edits away; looking each up costs
//! far more than reading the 40,000 listed words once. So each word's length and set of
//! letters are kept at load (8 bytes a word), and a word is read only when both allow two
//! edits: its length within two of the typed word's, and at most two of its letters missing
//! from the typed word and two of the typed word's letters missing from it (an edit adds at
//! most one letter and takes at most one away). The words read are then measured exactly: the
//! Damerau–Levenshtein distance (insertions, deletions, substitutions and swaps of neighbouring
//! letters, each string edited in turn, letters swapped may be edited again) is the least
//! number of those edits, so a word lies within two edits exactly when that distance is at most
//! two.

/// Per listed word (by rank), its set of letters and its length.
#[derive(Debug, Default)]
pub struct Shapes {
    shapes: Vec<Shape>,
}

#[derive(Debug, Clone, Copy)]
struct Shape {
    /// Bit `i` for letter `a + i` (other bytes share bit 31).
    letters: u32,
    /// Length in bytes.
    len: u32,
}

fn letters(w: &[u8]) -> u32 {
    w.iter().fold(0, |m, &b| {
        m | if b.is_ascii_lowercase() {
            1 << (b - b'a')
        } else {
            1 << 31
        }
    })
}

impl Shapes {
    /// The shapes of `list`, indexed by rank.
    pub fn new(list: &[Box<str>]) -> Shapes {
        Shapes {
            shapes: list
                .iter()
                .map(|w| Shape {
                    letters: letters(w.as_bytes()),
                    len: u32::try_from(w.len()).unwrap_or(u32::MAX),
                })
                .collect(),
        }
    }

    /// Calls `f` with the rank of each word of `list` at most two edits from `token` (the
    /// token itself included, if listed), lowest rank first, until `f` returns `false`.
    pub fn within_two(&self, list: &[Box<str>], token: &str, mut f: impl FnMut(u32) -> bool) {
        let t = token.as_bytes();
        let t_letters = letters(t);
        let t_len = u32::try_from(t.len()).unwrap_or(u32::MAX);
        let mut scratch = Distance::default();
        for (rank, (shape, word)) in self.shapes.iter().zip(list).enumerate() {
            if shape.len.abs_diff(t_len) > 2
                || (shape.letters & !t_letters).count_ones() > 2
                || (t_letters & !shape.letters).count_ones() > 2
            {
                continue;
            }
            if scratch.at_most(t, word.as_bytes(), 2) && !f(rank as u32) {
                return;
            }
        }
    }
}

/// The buffers of the distance, kept across the words of one search.
#[derive(Debug, Default)]
struct Distance {
    d: Vec<usize>,
}

impl Distance {
    /// Whether the Damerau–Levenshtein distance of `a` and `b` (Lowrance–Wagner: each edit
    /// applied in turn, swapped letters may be edited again) is at most `limit`.
    fn at_most(&mut self, a: &[u8], b: &[u8], limit: usize) -> bool {
        a.len().abs_diff(b.len()) <= limit && self.distance(a, b) <= limit
    }

    fn distance(&mut self, a: &[u8], b: &[u8]) -> usize {
        let (n, m) = (a.len(), b.len());
        let width = m + 2;
        let max = n + m;
        self.d.clear();
        self.d.resize((n + 2) * width, 0);
        let d = &mut self.d;
        // Row and column 0 stand for index −1 of the textbook algorithm.
        let at = |i: usize, j: usize| i * width + j;
        d[at(0, 0)] = max;
        for i in 0..=n {
            d[at(i + 1, 0)] = max;
            d[at(i + 1, 1)] = i;
        }
        for j in 0..=m {
            d[at(0, j + 1)] = max;
            d[at(1, j + 1)] = j;
        }
        // Per byte, the last row of `a` holding it (1-based; 0: none yet).
        let mut last_row = [0usize; 256];
        for i in 1..=n {
            let mut last_col = 0usize;
            for j in 1..=m {
                let k = last_row[usize::from(b[j - 1])];
                let l = last_col;
                let cost = if a[i - 1] == b[j - 1] {
                    last_col = j;
                    0
                } else {
                    1
                };
                let substitution = d[at(i, j)] + cost;
                let insertion = d[at(i + 1, j)] + 1;
                let deletion = d[at(i, j + 1)] + 1;
                // `k`, `l` ≥ 1 when they name a row and a column; 0 reads the `max` border.
                let swap = d[at(k, l)] + (i - k - 1) + 1 + (j - l - 1);
                d[at(i + 1, j + 1)] = substitution.min(insertion).min(deletion).min(swap);
            }
            last_row[usize::from(a[i - 1])] = i;
        }
        d[at(n + 1, m + 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> usize {
        Distance::default().distance(a.as_bytes(), b.as_bytes())
    }

    #[test]
    fn distance_counts_edits_applied_in_turn() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("raft", "raft"), 0);
        assert_eq!(distance("raft", "rafts"), 1);
        assert_eq!(distance("raft", "arft"), 1);
        assert_eq!(distance("raft", "rift"), 1);
        assert_eq!(distance("raft", "aft"), 1);
        assert_eq!(distance("", "ab"), 2);
        // A swap then an insertion between the swapped letters: two edits (the restricted
        // distance, which never edits swapped letters again, says three).
        assert_eq!(distance("ca", "abc"), 2);
        assert_eq!(distance("home", "ohem"), 2);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn within_two_reads_words_in_rank_order_and_stops() {
        let list: Vec<Box<str>> = ["home", "raft", "index", "homes", "hose", "ohem", "x"]
            .into_iter()
            .map(Box::from)
            .collect();
        let shapes = Shapes::new(&list);
        let mut all = Vec::new();
        shapes.within_two(&list, "hom", |r| {
            all.push(r);
            true
        });
        assert_eq!(all, [0, 3, 4, 5]);
        let mut first = Vec::new();
        shapes.within_two(&list, "hmoe", |r| {
            first.push(r);
            first.len() < 2
        });
        assert_eq!(first, [0, 3]);
    }
}
