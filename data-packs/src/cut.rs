//! Cutting a region out of an extract: `waymark-packs build --bbox SOUTH,WEST,NORTH,EAST` or
//! `--polygon FILE` (a GeoJSON `Polygon` or `MultiPolygon`, bare or in a `Feature`).
//!
//! How a publisher cuts a country into regions that join again on the device (ADR 0008):
//!
//! * **Ways are kept whole.** A way with a point inside the region, or a segment crossing its
//!   outline, is kept with all its nodes, so neighbouring regions overlap on the roads their
//!   border cuts. Relations (boundaries, multipolygons, restrictions) are kept whole when
//!   their box meets the region's box; their member ways that do not meet the region are kept
//!   only for their geometry (their tags are dropped, so they make no road, POI or address).
//!   Tagged nodes are kept inside the region and on kept ways.
//! * **Stable road identities.** The road graph of a cut keeps every graph node the whole
//!   extract would have (junctions, way ends, toll booths, restriction via nodes) and adds
//!   both ends of every segment that crosses the outline: the *border segments*. A border
//!   segment is then an edge of its own, identified by its way id and the OSM ids of its two
//!   nodes in every region it touches and in every rebuild of the same data. The added nodes
//!   are marked as no junction (`road_nodes.junction = 0`): passing them costs no turn, so a
//!   trip across the cut costs what it costs on the whole extract.
//! * **Containment** is the readers' even-odd test ([`waymark_core::geo::rings_contain`]) on
//!   the outline; a box is the rectangle of its four corners. Two regions that share an edge
//!   of their outlines place a node on that edge in exactly one of them.
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use waymark_core::geo::{Area, BBox, Pt, segments_cross};
use waymark_core::routing::density::DensityGrid;

use crate::osm::OsmData;

/// Why a region cannot be cut. Each message names the argument to fix.
#[derive(Debug, thiserror::Error)]
pub enum CutError {
    /// `--bbox` does not parse or is not a box.
    #[error(
        "--bbox {given:?}: {why}; expected SOUTH,WEST,NORTH,EAST in degrees, e.g. 42.43,1.41,42.66,1.52"
    )]
    BBox {
        /// The argument as given.
        given: String,
        /// What is wrong.
        why: String,
    },
    /// `--polygon` cannot be read or is not a polygon.
    #[error("--polygon {path}: {why}")]
    Polygon {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The region does not meet the extract.
    #[error(
        "{arg}: the region {region:?} (west, south, east, north) lies outside the extract {extract:?}; \
         give a region that overlaps the extract"
    )]
    Outside {
        /// `--bbox` or `--polygon FILE`.
        arg: String,
        /// The region's box.
        region: [f64; 4],
        /// The extract's box.
        extract: [f64; 4],
    },
    /// Nothing of the extract lies in the region.
    #[error(
        "{arg}: no way or tagged node of the extract lies in the region; the cut would be empty"
    )]
    Empty {
        /// `--bbox` or `--polygon FILE`.
        arg: String,
    },
}

/// A region to cut: its outline and the argument that gave it.
#[derive(Debug, Clone)]
pub struct Region {
    area: Area,
    geometry: Value,
    arg: String,
}

impl Region {
    /// Parses `--bbox SOUTH,WEST,NORTH,EAST`.
    pub fn from_bbox_arg(given: &str) -> Result<Region, CutError> {
        let bad = |why: &str| CutError::BBox {
            given: given.to_string(),
            why: why.to_string(),
        };
        let parts: Vec<&str> = given.split(',').map(str::trim).collect();
        if parts.len() != 4 {
            return Err(bad(&format!("{} numbers given, 4 needed", parts.len())));
        }
        let mut v = [0.0f64; 4];
        for (i, p) in parts.iter().enumerate() {
            v[i] = p
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad(&format!("`{p}` is not a number")))?;
        }
        let [s, w, n, e] = v;
        if !(-90.0..=90.0).contains(&s) || !(-90.0..=90.0).contains(&n) {
            return Err(bad("latitudes must lie within -90..90"));
        }
        if !(-180.0..=180.0).contains(&w) || !(-180.0..=180.0).contains(&e) {
            return Err(bad("longitudes must lie within -180..180"));
        }
        if s >= n {
            return Err(bad("SOUTH must be less than NORTH"));
        }
        if w >= e {
            return Err(bad(
                "WEST must be less than EAST (boxes across the antimeridian: cut two)",
            ));
        }
        let geometry = json!({
            "type": "Polygon",
            "coordinates": [[[w, s], [e, s], [e, n], [w, n], [w, s]]],
        });
        let area = Area::from_geojson(&geometry).ok_or_else(|| bad("not a box"))?;
        Ok(Region {
            area,
            geometry,
            arg: format!("--bbox {given}"),
        })
    }

    /// Reads `--polygon FILE`: a GeoJSON `Polygon` or `MultiPolygon`, bare, in a `Feature` or
    /// as the only feature of a `FeatureCollection`.
    pub fn from_polygon_file(path: &Path) -> Result<Region, CutError> {
        let bad = |why: String| CutError::Polygon {
            path: path.to_path_buf(),
            why,
        };
        let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read: {e}")))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let geometry = match v.get("type").and_then(Value::as_str) {
            Some("Feature") => v.get("geometry").cloned().unwrap_or(Value::Null),
            Some("FeatureCollection") => {
                let features = v
                    .get("features")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                if features.len() != 1 {
                    return Err(bad(format!(
                        "a FeatureCollection must hold exactly one feature, it holds {}",
                        features.len()
                    )));
                }
                features[0].get("geometry").cloned().unwrap_or(Value::Null)
            }
            _ => v,
        };
        match geometry.get("type").and_then(Value::as_str) {
            Some("Polygon" | "MultiPolygon") => {}
            Some(t) => {
                return Err(bad(format!(
                    "a {t} is not a region; give a Polygon or MultiPolygon"
                )));
            }
            None => return Err(bad("no GeoJSON geometry type".into())),
        }
        let area = Area::from_geojson(&geometry).ok_or_else(|| {
            bad(
                "the coordinates are not rings of [longitude, latitude] pairs (3 or more per ring)"
                    .into(),
            )
        })?;
        let in_range = area.polygons.iter().flatten().flatten().all(|p| {
            p.lat.is_finite()
                && p.lng.is_finite()
                && (-90.0..=90.0).contains(&p.lat)
                && (-180.0..=180.0).contains(&p.lng)
        });
        if !in_range {
            return Err(bad("a position lies outside -180..180, -90..90".into()));
        }
        if area.bbox.south >= area.bbox.north || area.bbox.west >= area.bbox.east {
            return Err(bad("the polygon has no area".into()));
        }
        Ok(Region {
            area,
            geometry,
            arg: format!("--polygon {}", path.display()),
        })
    }

    /// Whether `p` lies in the region.
    pub fn contains(&self, p: Pt) -> bool {
        self.area.contains(p)
    }

    /// The region's box, `[west, south, east, north]`.
    pub fn bbox(&self) -> [f64; 4] {
        self.area.bbox.to_wsen()
    }

    /// The outline as a GeoJSON geometry (the pack's coverage).
    pub fn geometry(&self) -> &Value {
        &self.geometry
    }

    /// The argument that gave the region (for messages).
    pub fn arg(&self) -> &str {
        &self.arg
    }

    /// Whether segment `a`–`b` crosses the outline (strictly).
    pub fn segment_crosses(&self, a: Pt, b: Pt) -> bool {
        let Some(sb) = BBox::of([a, b]) else {
            return false;
        };
        if !sb.intersects(&self.area.bbox) {
            return false;
        }
        self.area.polygons.iter().flatten().any(|ring| {
            let n = ring.len();
            (0..n).any(|i| segments_cross(a, b, ring[i], ring[(i + 1) % n]))
        })
    }

    /// Whether a line has a point in the region or a segment crossing its outline.
    pub fn meets_line(&self, pts: &[Pt]) -> bool {
        let Some(b) = BBox::of(pts.iter().copied()) else {
            return false;
        };
        if !b.intersects(&self.area.bbox) {
            return false;
        }
        pts.iter().any(|&p| self.contains(p))
            || pts.windows(2).any(|w| self.segment_crosses(w[0], w[1]))
    }
}

/// What a cut keeps for the road graph: the region, and the graph nodes the whole extract
/// has (see the [module notes](self)).
#[derive(Debug, Clone)]
pub struct Cut {
    /// The region.
    pub region: Region,
    /// Graph nodes of the whole extract's road network (OSM ids).
    pub full_graph: HashSet<i64>,
    /// Road density of the whole extract ([`waymark_core::routing::density`]): a node near
    /// the cut keeps the density it has in the whole region.
    pub density: DensityGrid,
}

/// What a cut kept.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct CutStats {
    /// Ways kept for their own sake (meeting the region).
    pub ways: u64,
    /// Of those, ways that also reach outside the region.
    pub border_ways: u64,
    /// Ways kept only as members of kept relations (geometry only).
    pub member_ways: u64,
    /// Relations kept.
    pub relations: u64,
    /// Tagged nodes kept.
    pub nodes: u64,
}

/// Cuts `data` to `region` (see the [module notes](self)); `full_graph` is the whole extract's
/// graph node set and `density` its road density grid, computed before. Errors when the region
/// misses the extract or nothing is left.
pub fn cut(
    data: &mut OsmData,
    region: &Region,
    full_graph: HashSet<i64>,
    density: DensityGrid,
) -> Result<CutStats, CutError> {
    let mut stats = CutStats::default();
    if let Some(extract) = BBox::of(data.coords.values().copied()) {
        let r = region.area.bbox;
        if !extract.intersects(&r) {
            return Err(CutError::Outside {
                arg: region.arg.clone(),
                region: r.to_wsen(),
                extract: extract.to_wsen(),
            });
        }
    }
    // Ways meeting the region.
    let mut kept: HashSet<i64> = HashSet::new();
    for w in data.ways.values() {
        let pts = data.way_coords(&w.refs);
        if region.meets_line(&pts) {
            kept.insert(w.id);
            stats.ways += 1;
            if !pts.iter().all(|&p| region.contains(p)) {
                stats.border_ways += 1;
            }
        }
    }
    // Relations whose box meets the region's, whole.
    let way_box = |id: i64| -> Option<BBox> {
        data.ways
            .get(&id)
            .and_then(|w| BBox::of(data.way_coords(&w.refs)))
    };
    let mut members: HashSet<i64> = HashSet::new();
    let keep: Vec<bool> = data
        .relations
        .iter()
        .map(|rel| {
            let mut b: Option<BBox> = None;
            for m in &rel.members {
                let mb = match m.kind {
                    crate::osm::MemberKind::Way => way_box(m.id),
                    crate::osm::MemberKind::Node => data.coords.get(&m.id).map(|&p| BBox::point(p)),
                    crate::osm::MemberKind::Relation => None,
                };
                if let Some(mb) = mb {
                    b = Some(b.map_or(mb, |x| x.union(mb)));
                }
            }
            let keep = b.is_some_and(|b| b.intersects(&region.area.bbox));
            if keep {
                for m in &rel.members {
                    if m.kind == crate::osm::MemberKind::Way {
                        members.insert(m.id);
                    }
                }
            }
            keep
        })
        .collect();
    let mut flags = keep.into_iter();
    data.relations.retain(|_| flags.next().unwrap_or(false));
    stats.relations = data.relations.len() as u64;
    data.ways.retain(|id, w| {
        if kept.contains(id) {
            return true;
        }
        if members.contains(id) {
            w.tags.0.clear();
            stats.member_ways += 1;
            return true;
        }
        false
    });
    // Tagged nodes in the region or on kept ways.
    let on_kept: HashSet<i64> = data
        .ways
        .iter()
        .filter(|(id, _)| kept.contains(id))
        .flat_map(|(_, w)| w.refs.iter().copied())
        .collect();
    data.nodes
        .retain(|n| on_kept.contains(&n.id) || region.contains(Pt::new(n.lat, n.lng)));
    stats.nodes = data.nodes.len() as u64;
    if stats.ways == 0 && stats.nodes == 0 {
        return Err(CutError::Empty {
            arg: region.arg.clone(),
        });
    }
    // Coordinates still referenced.
    let mut needed: HashSet<i64> = on_kept;
    for w in data.ways.values() {
        needed.extend(w.refs.iter().copied());
    }
    for rel in &data.relations {
        needed.extend(
            rel.members
                .iter()
                .filter(|m| m.kind == crate::osm::MemberKind::Node)
                .map(|m| m.id),
        );
    }
    needed.extend(data.nodes.iter().map(|n| n.id));
    data.coords.retain(|id| needed.contains(id));
    data.cut = Some(Cut {
        region: region.clone(),
        full_graph,
        density,
    });
    Ok(stats)
}

/// The border segments of a cut's routable ways: both ends of every segment with one end in
/// the region and one outside, or crossing the outline (OSM node ids).
pub fn border_nodes(
    region: &Region,
    pieces: &[crate::osm::roads::Piece<'_>],
    coords: &crate::osm::Coords,
) -> HashSet<i64> {
    let mut out = HashSet::new();
    for (_, _, refs) in pieces {
        for w in refs.windows(2) {
            let (Some(&a), Some(&b)) = (coords.get(&w[0]), coords.get(&w[1])) else {
                continue;
            };
            if region.contains(a) != region.contains(b) || region.segment_crosses(a, b) {
                out.insert(w[0]);
                out.insert(w[1]);
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn bbox_argument_errors_name_the_argument() {
        for bad in [
            "1,2,3",
            "a,1,2,3",
            "42.6,1.4,42.4,1.5",
            "42.4,1.5,42.6,1.4",
            "95,1,96,2",
        ] {
            let e = Region::from_bbox_arg(bad).unwrap_err().to_string();
            assert!(e.starts_with("--bbox"), "{e}");
        }
        let r = Region::from_bbox_arg("42.4, 1.4, 42.6, 1.5").unwrap();
        assert_eq!(r.bbox(), [1.4, 42.4, 1.5, 42.6]);
        assert!(r.contains(Pt::new(42.5, 1.45)));
        assert!(!r.contains(Pt::new(42.5, 1.55)));
    }

    #[test]
    fn neighbouring_boxes_share_a_node_on_their_edge_once() {
        let west = Region::from_bbox_arg("42,1,43,1.5").unwrap();
        let east = Region::from_bbox_arg("42,1.5,43,2").unwrap();
        for lat in [42.1, 42.25, 42.5, 42.77] {
            let p = Pt::new(lat, 1.5);
            assert!(west.contains(p) != east.contains(p), "{lat}");
        }
    }

    #[test]
    fn polygon_file_errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("r.geojson");
        for (text, what) in [
            ("{", "not JSON"),
            (r#"{"type":"Point","coordinates":[1,2]}"#, "Point"),
            (r#"{"type":"Polygon","coordinates":[[[1,2],[3]]]}"#, "rings"),
            (
                r#"{"type":"FeatureCollection","features":[]}"#,
                "exactly one feature",
            ),
        ] {
            std::fs::write(&f, text).unwrap();
            let e = Region::from_polygon_file(&f).unwrap_err().to_string();
            assert!(e.starts_with("--polygon"), "{e}");
            assert!(e.contains(what), "{e}");
        }
        std::fs::write(
            &f,
            r#"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[1,42],[2,42],[2,43],[1,43],[1,42]]]}}"#,
        )
        .unwrap();
        let r = Region::from_polygon_file(&f).unwrap();
        assert!(r.contains(Pt::new(42.5, 1.5)));
        assert!(r.meets_line(&[Pt::new(41.0, 1.5), Pt::new(44.0, 1.5)]));
        assert!(!r.meets_line(&[Pt::new(41.0, 1.5), Pt::new(41.5, 1.5)]));
    }
}
