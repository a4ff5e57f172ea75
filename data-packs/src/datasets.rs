//! The sample dataset: building footprints of an OSM extract as a GeoJSON FeatureCollection,
//! for the datasets endpoints (`waymark serve` imports the Helsinki one as a demonstration;
//! tests and benchmarks import others).
//!
//! Each closed way tagged `building=*` becomes a Polygon feature (`id` = `way/<osm id>`) whose
//! attributes are its OSM tags, with `:` in keys replaced by `_` (`building:levels` →
//! `building_levels`: the `where` language writes field names without `:`), plus numbers
//! derived from them: `levels` (from `building:levels`), `height_m` (from `height`) and
//! `area_m2` (the footprint's area). Multipolygon buildings (relations) are left out.
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use osmpbf::{Element, ElementReader};
use serde_json::{Map, Value, json};

use crate::osm::OsmError;

/// Mean Earth radius, metres.
const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// What [`write_buildings`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildingsSummary {
    /// Features written.
    pub features: u64,
    /// Building ways left out (not closed, or nodes missing from the extract).
    pub skipped: u64,
}

fn pbf_err(path: &Path) -> impl Fn(osmpbf::Error) -> OsmError + '_ {
    move |source| OsmError::Pbf {
        path: path.to_owned(),
        source,
    }
}

/// A building way: id, node ids, tags.
type BuildingWay = (i64, Vec<i64>, Vec<(String, String)>);

/// Area of a ring of (lng, lat) degrees, m², on a local equirectangular projection.
fn ring_area_m2(ring: &[[f64; 2]]) -> f64 {
    let Some(first) = ring.first() else {
        return 0.0;
    };
    let k = first[1].to_radians().cos();
    let m = |p: &[f64; 2]| {
        (
            p[0].to_radians() * k * EARTH_RADIUS_M,
            p[1].to_radians() * EARTH_RADIUS_M,
        )
    };
    let twice: f64 = ring
        .windows(2)
        .map(|w| {
            let (x0, y0) = m(&w[0]);
            let (x1, y1) = m(&w[1]);
            x0 * y1 - x1 * y0
        })
        .sum();
    (twice / 2.0).abs()
}

/// A leading number of a tag value (`"4"`, `"12.5 m"`, `"3;4"` → 3).
fn leading_number(v: &str) -> Option<f64> {
    let end = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    v[..end].parse().ok().filter(|n: &f64| n.is_finite())
}

/// Writes the building footprints of `pbf` to `out` as a GeoJSON FeatureCollection.
pub fn write_buildings(pbf: &Path, out: &Path) -> Result<BuildingsSummary, OsmError> {
    let io = |source| OsmError::Io {
        path: out.to_owned(),
        source,
    };
    // Pass 1: building ways.
    let mut ways: Vec<BuildingWay> = Vec::new();
    ElementReader::from_path(pbf)
        .map_err(pbf_err(pbf))?
        .for_each(|el| {
            if let Element::Way(w) = el
                && w.tags().any(|(k, _)| k == "building")
            {
                let tags = w
                    .tags()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect();
                ways.push((w.id(), w.refs().collect(), tags));
            }
        })
        .map_err(pbf_err(pbf))?;
    ways.sort_by_key(|w| w.0);
    let needed: HashSet<i64> = ways.iter().flat_map(|w| w.1.iter().copied()).collect();
    // Pass 2: their nodes.
    let mut coords: HashMap<i64, [f64; 2]> = HashMap::with_capacity(needed.len());
    ElementReader::from_path(pbf)
        .map_err(pbf_err(pbf))?
        .for_each(|el| {
            let (id, lat, lng) = match el {
                Element::Node(n) => (n.id(), n.lat(), n.lon()),
                Element::DenseNode(n) => (n.id(), n.lat(), n.lon()),
                _ => return,
            };
            if needed.contains(&id) {
                coords.insert(id, [lng, lat]);
            }
        })
        .map_err(pbf_err(pbf))?;
    let file = std::fs::File::create(out).map_err(io)?;
    let mut w = std::io::BufWriter::new(file);
    w.write_all(b"{\"type\":\"FeatureCollection\",\"features\":[\n")
        .map_err(io)?;
    let mut summary = BuildingsSummary {
        features: 0,
        skipped: 0,
    };
    for (id, refs, tags) in ways {
        let ring: Option<Vec<[f64; 2]>> = refs.iter().map(|r| coords.get(r).copied()).collect();
        let Some(ring) = ring.filter(|r| r.len() >= 4 && refs.first() == refs.last()) else {
            summary.skipped += 1;
            continue;
        };
        let mut attributes = Map::new();
        for (k, v) in &tags {
            attributes.insert(k.replace(':', "_"), Value::from(v.as_str()));
        }
        let tag = |k: &str| tags.iter().find(|(tk, _)| tk == k).map(|(_, v)| v.as_str());
        if let Some(n) = tag("building:levels").and_then(leading_number) {
            attributes.insert("levels".into(), json!(n));
        }
        if let Some(n) = tag("height").and_then(leading_number) {
            attributes.insert("height_m".into(), json!(n));
        }
        let area = (ring_area_m2(&ring) * 10.0).round() / 10.0;
        attributes.insert("area_m2".into(), json!(area));
        let feature = json!({
            "type": "Feature",
            "id": format!("way/{id}"),
            "geometry": {"type": "Polygon", "coordinates": [ring]},
            "properties": attributes,
        });
        if summary.features > 0 {
            w.write_all(b",\n").map_err(io)?;
        }
        serde_json::to_writer(&mut w, &feature).map_err(|e| io(e.into()))?;
        summary.features += 1;
    }
    w.write_all(b"\n]}\n").map_err(io)?;
    w.into_inner()
        .map_err(|e| io(e.into_error()))?
        .sync_all()
        .map_err(io)?;
    Ok(summary)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_areas() {
        assert_eq!(leading_number("4"), Some(4.0));
        assert_eq!(leading_number("12.5 m"), Some(12.5));
        assert_eq!(leading_number("x"), None);
        // A 0.001° square at the equator: ~111.2 m on a side.
        let a = ring_area_m2(&[
            [0.0, 0.0],
            [0.001, 0.0],
            [0.001, 0.001],
            [0.0, 0.001],
            [0.0, 0.0],
        ]);
        assert!((a - 12_364.0).abs() < 20.0, "{a}");
    }

    #[test]
    fn monaco_buildings() {
        let sources = crate::sources::Sources::load(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("sources.toml"),
        )
        .unwrap();
        let pbf = sources.fetch("osm-monaco").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("b.geojson");
        let s = write_buildings(&pbf, &out).unwrap();
        assert!(s.features > 500, "{s:?}");
        let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let features = v["features"].as_array().unwrap();
        assert_eq!(features.len() as u64, s.features);
        assert!(
            features
                .iter()
                .all(|f| f["properties"]["area_m2"].as_f64().unwrap() > 0.0)
        );
        assert!(
            features
                .iter()
                .any(|f| f["properties"]["levels"].is_number())
        );
    }
}
