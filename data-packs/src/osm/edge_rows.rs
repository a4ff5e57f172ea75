//! Rows of the roads layer's edges: the shared attribute rows (`road_attrs`), the segments
//! (`road_segments`), one R-tree box per run of a way's edges (`road_ways_rtree`) and the
//! grades of graded tracks (`road_track_grades`).

use rusqlite::{Transaction, params};
use waymark_core::geo::BBox;

use super::models::{Interner, OsmError};
use super::roads::Access;

/// One edge to write.
pub(super) struct EdgeRow<'a> {
    pub(super) way_id: i64,
    pub(super) from: i64,
    pub(super) to: i64,
    pub(super) length: f64,
    pub(super) highway: &'a str,
    pub(super) name: Option<&'a str>,
    pub(super) r#ref: Option<&'a str>,
    pub(super) maxspeed: Option<f64>,
    pub(super) oneway: i64,
    pub(super) access: Access,
    pub(super) toll: bool,
    pub(super) ferry: bool,
    pub(super) tracktype: Option<u8>,
    pub(super) geometry: String,
    pub(super) bbox: BBox,
}

/// The attributes an edge shares with others (a `road_attrs` row); `maxspeed` as its bits.
type AttrKey = (
    String,
    Option<String>,
    Option<String>,
    Option<u64>,
    i64,
    [i64; 4],
    [bool; 2],
    Option<u8>,
);

/// Writes `road_attrs`, `road_segments` and `road_ways_rtree`, numbering edges from 1.
pub(super) struct EdgeWriter<'t> {
    attrs: Interner<AttrKey>,
    ins_attrs: rusqlite::Statement<'t>,
    ins_seg: rusqlite::Statement<'t>,
    ins_box: rusqlite::Statement<'t>,
    last_id: i64,
    /// The open run: its way, first and last edge, and box.
    run: Option<(i64, i64, i64, BBox)>,
    /// The `tracktype` grade of each graded track's attribute row.
    grades: std::collections::BTreeMap<i64, u8>,
}

impl<'t> EdgeWriter<'t> {
    pub(super) fn new(tx: &'t Transaction<'_>) -> Result<Self, OsmError> {
        let after: i64 = tx.query_row("SELECT coalesce(max(id), 0) FROM road_attrs", [], |r| {
            r.get(0)
        })?;
        Ok(EdgeWriter {
            attrs: Interner::new(after),
            ins_attrs: tx.prepare(
                "INSERT INTO road_attrs(id, highway, name, ref, maxspeed_kmh, oneway, car, truck, \
                 foot, bicycle, toll, ferry) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?,
            ins_seg: tx.prepare(
                "INSERT INTO road_segments(id, way_id, from_node, to_node, length_m, attrs, geometry) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?,
            ins_box: tx.prepare(
                "INSERT INTO road_ways_rtree(id, min_lat, max_lat, min_lng, max_lng, last_edge) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?,
            last_id: 0,
            run: None,
            grades: Default::default(),
        })
    }

    pub(super) fn edge(&mut self, e: &EdgeRow<'_>) -> Result<(), OsmError> {
        let key: AttrKey = (
            e.highway.to_string(),
            e.name.map(str::to_string),
            e.r#ref.map(str::to_string),
            e.maxspeed.map(f64::to_bits),
            e.oneway,
            [
                e.access.car.code(),
                e.access.truck.code(),
                e.access.foot.code(),
                e.access.bicycle.code(),
            ],
            [e.toll, e.ferry],
            e.tracktype,
        );
        let ins_attrs = &mut self.ins_attrs;
        let attrs = self.attrs.id(&key, |id, k| {
            let (hw, name, r, speed, oneway, [car, truck, foot, bicycle], [toll, ferry], _) = k;
            ins_attrs
                .execute(params![
                    id,
                    hw,
                    name,
                    r,
                    speed.map(f64::from_bits),
                    oneway,
                    car,
                    truck,
                    foot,
                    bicycle,
                    toll,
                    ferry
                ])
                .map(|_| ())
        })?;
        if let Some(grade) = e.tracktype {
            self.grades.insert(attrs, grade);
        }
        self.last_id += 1;
        let id = self.last_id;
        self.ins_seg.execute(params![
            id, e.way_id, e.from, e.to, e.length, attrs, e.geometry
        ])?;
        match &mut self.run {
            Some((way, _, last, bbox)) if *way == e.way_id => {
                *last = id;
                *bbox = bbox.union(e.bbox);
            }
            _ => {
                self.close_run()?;
                self.run = Some((e.way_id, id, id, e.bbox));
            }
        }
        Ok(())
    }

    /// Writes the R-tree box of the open run.
    fn close_run(&mut self) -> Result<(), OsmError> {
        if let Some((_, first, last, bbox)) = self.run.take() {
            let [min_lat, max_lat, min_lng, max_lng] = bbox.to_rtree();
            self.ins_box
                .execute(params![first, min_lat, max_lat, min_lng, max_lng, last])?;
        }
        Ok(())
    }

    /// Closes the last run; returns the number of attribute rows written.
    pub(super) fn finish(mut self, tx: &Transaction<'_>) -> Result<u64, OsmError> {
        self.close_run()?;
        if !self.grades.is_empty() {
            tx.execute_batch(waymark_core::packs::schema::ROAD_TRACK_GRADES)?;
            let mut ins =
                tx.prepare("INSERT INTO road_track_grades(attrs, grade) VALUES (?1, ?2)")?;
            for (attrs, grade) in &self.grades {
                ins.execute(params![attrs, grade])?;
            }
        }
        Ok(self.attrs.len() as u64)
    }
}
