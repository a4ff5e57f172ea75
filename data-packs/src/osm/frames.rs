//! Text columns stored as zstd frames with a per-pack dictionary (POI tags since pack format
//! 4, indoor feature text since format 5): the rule for training a dictionary and the
//! compression of every row, shared by the layers that use it.

/// zstd level of the frames (written once, at pack build).
pub const LEVEL: i32 = 19;

/// A dictionary trained on `texts` (about a tenth of their bytes, 1-8 KiB), or `None` for
/// fewer than 64 rows or 8 KiB of text, where a dictionary does not pay, and when training
/// fails (samples too alike or too few): the frames are then written without one.
pub fn train(texts: &[&[u8]]) -> Option<Vec<u8>> {
    let total: usize = texts.iter().map(|t| t.len()).sum();
    if texts.len() < 64 || total < 8192 {
        return None;
    }
    zstd::dict::from_samples(texts, (total / 10).clamp(1024, 8192)).ok()
}

/// One zstd frame per text, compressed with `dict` when there is one. The dictionary is
/// prepared once for all the rows (loading a raw dictionary into a level-19 context for every
/// frame cost more than the compression itself).
pub fn compress_all(texts: &[&[u8]], dict: Option<&[u8]>) -> std::io::Result<Vec<Vec<u8>>> {
    let prepared = dict.map(|d| zstd::dict::EncoderDictionary::copy(d, LEVEL));
    let mut z = match &prepared {
        Some(d) => zstd::bulk::Compressor::with_prepared_dictionary(d)?,
        None => zstd::bulk::Compressor::new(LEVEL)?,
    };
    texts.iter().map(|t| z.compress(t)).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn frames_decode_with_the_trained_dictionary() {
        let texts: Vec<String> = (0..300)
            .map(|i| {
                format!(
                    r#"{{"shop":"{}","name":"Laden {i}","opening_hours":"Mo-Fr 09:00-{}:00","level":"{}"}}"#,
                    ["bakery", "clothes", "kiosk", "florist"][i % 4],
                    16 + i % 5,
                    (i % 3) as i64 - 1
                )
            })
            .collect();
        let bytes: Vec<&[u8]> = texts.iter().map(|t| t.as_bytes()).collect();
        let dict = train(&bytes).unwrap();
        assert!((1024..=8192).contains(&dict.len()));
        let frames = compress_all(&bytes, Some(&dict)).unwrap();
        let plain = compress_all(&bytes, None).unwrap();
        let size = |f: &[Vec<u8>]| f.iter().map(Vec::len).sum::<usize>();
        assert!(size(&frames) < size(&plain));
        let mut d = zstd::bulk::Decompressor::with_dictionary(&dict).unwrap();
        for (frame, text) in frames.iter().zip(&texts) {
            assert_eq!(d.decompress(frame, 4096).unwrap(), text.as_bytes());
        }
        // Too few rows: no dictionary.
        assert!(train(&bytes[..63]).is_none());
    }
}
