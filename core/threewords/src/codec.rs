//! Byte layouts of the three-word layer's blobs, shared by the pack builder (which writes them)
//! and the engine (which reads them), so both sides agree on every byte.
//!
//! - A band's runs: 5 bytes a run, `u32` first column little-endian then the `u8` region.
//! - The signature table of scheme version 3: one little-endian `u16` per tile, in tile
//!   order (its SHA-256 is [`crate::v3::signatures_digest`]).
//! - A country outline: little-endian, `u32` polygon count, then per polygon a `u32` ring
//!   count, per ring a `u32` point count and that many `f32` pairs `lng, lat` (the first ring
//!   outer, the others holes; `f32` keeps positions to about a metre, finer than the 1:10m
//!   outlines they come from).
//!
//! ```
//! use waymark_threewords::codec::{decode_runs, encode_runs, decode_polygons, encode_polygons};
//! use waymark_threewords::regions::{Run, LAND, SEA};
//! let runs = vec![Run { start: 0, region: SEA }, Run { start: 9, region: LAND }];
//! assert_eq!(decode_runs(&encode_runs(&runs)).unwrap(), runs);
//! let square = vec![vec![vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0)]]];
//! assert_eq!(decode_polygons(&encode_polygons(&square)).unwrap(), square);
//! ```
use crate::regions::Run;

/// A blob is shorter than its counts say, or has bytes left over.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed three-word blob: {0}")]
pub struct BlobError(&'static str);

/// Bytes of one run.
const RUN_BYTES: usize = 5;

/// The bytes of a band's runs.
pub fn encode_runs(runs: &[Run]) -> Vec<u8> {
    let mut out = Vec::with_capacity(runs.len() * RUN_BYTES);
    for r in runs {
        out.extend_from_slice(&r.start.to_le_bytes());
        out.push(r.region);
    }
    out
}

/// A band's runs from their bytes.
pub fn decode_runs(bytes: &[u8]) -> Result<Vec<Run>, BlobError> {
    if !bytes.len().is_multiple_of(RUN_BYTES) {
        return Err(BlobError("run bytes are not a multiple of 5"));
    }
    Ok(bytes
        .chunks_exact(RUN_BYTES)
        .map(|c| Run {
            start: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            region: c[4],
        })
        .collect())
}

/// The bytes of a signature table.
pub fn encode_signatures(sig: &[u16]) -> Vec<u8> {
    sig.iter().flat_map(|s| s.to_le_bytes()).collect()
}

/// A signature table from its bytes.
pub fn decode_signatures(bytes: &[u8]) -> Result<Vec<u16>, BlobError> {
    if !bytes.len().is_multiple_of(2) {
        return Err(BlobError("signature bytes are not a multiple of 2"));
    }
    Ok(bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect())
}

/// Polygons: rings of `(lng, lat)`, the first ring of each polygon outer.
pub type Polygons = Vec<Vec<Vec<(f64, f64)>>>;

/// The bytes of an outline.
pub fn encode_polygons(polygons: &Polygons) -> Vec<u8> {
    let mut out = Vec::new();
    let count = |out: &mut Vec<u8>, n: usize| out.extend_from_slice(&(n as u32).to_le_bytes());
    count(&mut out, polygons.len());
    for polygon in polygons {
        count(&mut out, polygon.len());
        for ring in polygon {
            count(&mut out, ring.len());
            for &(lng, lat) in ring {
                out.extend_from_slice(&(lng as f32).to_le_bytes());
                out.extend_from_slice(&(lat as f32).to_le_bytes());
            }
        }
    }
    out
}

/// Reads little-endian numbers off a blob.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn take4(&mut self) -> Result<[u8; 4], BlobError> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<4>()
            .ok_or(BlobError("outline ends early"))?;
        self.bytes = rest;
        Ok(*head)
    }

    fn count(&mut self) -> Result<usize, BlobError> {
        let n = u32::from_le_bytes(self.take4()?) as usize;
        // Each counted item takes at least 4 bytes: a count larger than the rest is corrupt
        // (and would otherwise reserve memory for nothing).
        if n > self.bytes.len() / 4 {
            return Err(BlobError("a count exceeds the bytes left"));
        }
        Ok(n)
    }

    fn float(&mut self) -> Result<f64, BlobError> {
        Ok(f64::from(f32::from_le_bytes(self.take4()?)))
    }
}

/// An outline from its bytes.
pub fn decode_polygons(bytes: &[u8]) -> Result<Polygons, BlobError> {
    let mut r = Reader { bytes };
    let polygons = r.count()?;
    let mut out = Vec::with_capacity(polygons);
    for _ in 0..polygons {
        let rings = r.count()?;
        let mut polygon = Vec::with_capacity(rings);
        for _ in 0..rings {
            let points = r.count()?;
            let mut ring = Vec::with_capacity(points);
            for _ in 0..points {
                let lng = r.float()?;
                let lat = r.float()?;
                ring.push((lng, lat));
            }
            polygon.push(ring);
        }
        out.push(polygon);
    }
    if !r.bytes.is_empty() {
        return Err(BlobError("bytes left after the outline"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn corrupt_blobs_are_refused() {
        assert!(decode_runs(&[1, 2, 3]).is_err());
        assert!(decode_signatures(&[1, 2, 3]).is_err());
        assert!(decode_polygons(&[]).is_err());
        assert!(decode_polygons(&[255, 255, 255, 255]).is_err());
        let mut ok = encode_polygons(&vec![vec![vec![(1.0, 2.0)]]]);
        ok.push(0);
        assert!(decode_polygons(&ok).is_err());
    }

    proptest! {
        #[test]
        fn runs_round_trip(runs in proptest::collection::vec((any::<u32>(), 0u8..3), 0..50)) {
            let runs: Vec<Run> = runs.into_iter().map(|(start, region)| Run { start, region }).collect();
            prop_assert_eq!(decode_runs(&encode_runs(&runs)).unwrap(), runs);
        }

        #[test]
        fn signatures_round_trip(sig in proptest::collection::vec(any::<u16>(), 0..200)) {
            let bytes = encode_signatures(&sig);
            prop_assert_eq!(bytes.len(), sig.len() * 2);
            prop_assert_eq!(decode_signatures(&bytes).unwrap(), sig);
        }

        #[test]
        fn no_blob_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_polygons(&bytes);
            let _ = decode_runs(&bytes);
            let _ = decode_signatures(&bytes);
        }
    }
}
