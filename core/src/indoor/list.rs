//! Finding venues ([`Indoor::list`], `GET /indoor/venues`): the venues of the installed packs
//! near a point, containing it, or by the words of their names, from the rows of
//! `indoor_venues` read once per pack set (no venue is loaded for it).

use super::*;
use crate::api::{VENUE_LIST_DEFAULT_RADIUS, VenueListRequest, VenueListResponse, VenueSummary};
use crate::geo::{Area, BBox};

/// A venue as listed: its row, the folded words of its names and the outlines of its
/// buildings.
#[derive(Debug, Clone)]
pub struct Listed {
    /// The summary answered.
    pub summary: VenueSummary,
    /// Folded words of the venue's and its buildings' names.
    words: Vec<String>,
    /// Building outlines (OSM venues); the bbox stands for a venue without one.
    outlines: Vec<Area>,
    bbox: BBox,
}

impl Listed {
    /// Reads one `indoor_venues` row: `venue_id, name, west, south, east, north, levels,
    /// buildings`.
    pub(super) fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Listed> {
        let id: String = r.get(0)?;
        let name: String = r.get(1)?;
        let bbox = [r.get::<_, f64>(2)?, r.get(3)?, r.get(4)?, r.get(5)?];
        let levels: String = r.get(6)?;
        let buildings: String = r.get(7)?;
        let levels = serde_json::from_str(&levels)
            .map(|v: Value| read_levels(&v))
            .unwrap_or_default();
        let buildings: Vec<Value> = serde_json::from_str(&buildings).unwrap_or_default();
        let mut text = name.clone();
        for b in &buildings {
            if let Some(n) = b.get("name").and_then(Value::as_str) {
                text.push(' ');
                text.push_str(n);
            }
            if let Some(names) = b.get("localized_name").and_then(Value::as_object) {
                for n in names.values().filter_map(Value::as_str) {
                    text.push(' ');
                    text.push_str(n);
                }
            }
        }
        let words = crate::packs::search::fold(&text)
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
        let outlines = buildings
            .iter()
            .filter_map(|b| b.get("outline"))
            .filter_map(Area::from_geojson)
            .collect();
        Ok(Listed {
            summary: VenueSummary {
                venue_id: id,
                name,
                bbox: bbox.to_vec(),
                levels,
                distance: None,
            },
            words,
            outlines,
            bbox: BBox {
                west: bbox[0],
                south: bbox[1],
                east: bbox[2],
                north: bbox[3],
            },
        })
    }

    /// Whether the venue holds `p`: inside a building outline, else (no outline) its bbox.
    fn holds(&self, p: Pt) -> bool {
        if self.outlines.is_empty() {
            self.bbox.contains(p)
        } else {
            self.bbox.contains(p) && self.outlines.iter().any(|o| o.contains(p))
        }
    }

    /// Metres from `p` to the venue: 0 inside, else to the nearest point of its bbox.
    fn distance(&self, p: Pt) -> f64 {
        if self.holds(p) {
            return 0.0;
        }
        let b = &self.bbox;
        let q = Pt::new(p.lat.clamp(b.south, b.north), p.lng.clamp(b.west, b.east));
        haversine_m(p, q)
    }

    /// Whether every query word starts a word of its names.
    fn matches(&self, query: &[String]) -> bool {
        query
            .iter()
            .all(|q| self.words.iter().any(|w| w.starts_with(q.as_str())))
    }
}

impl Indoor {
    /// `GET /indoor/venues`.
    pub fn list(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &VenueListRequest,
    ) -> Result<VenueListResponse, ApiError> {
        if set.with_layer(layers::INDOOR).is_empty() {
            return Err(ApiError::new(
                ErrorCode::DataUnavailable,
                "no installed pack has the indoor layer: install a pack with indoor venues",
            ));
        }
        let layer = self.layer(set)?;
        let query: Vec<String> = req
            .q
            .as_deref()
            .map(|q| {
                crate::packs::search::fold(q)
                    .split(' ')
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let mut hits: Vec<(f64, &Listed)> = Vec::new();
        for v in layer.listed() {
            if !v.matches(&query) {
                continue;
            }
            match req.near {
                Some(p) => {
                    let p = Pt::new(p.lat, p.lng);
                    let radius = f64::from(req.radius.unwrap_or(VENUE_LIST_DEFAULT_RADIUS));
                    let d = v.distance(p);
                    if (radius == 0.0 && v.holds(p)) || (radius > 0.0 && d <= radius) {
                        // inside several: the smallest first (a shop's venue before its mall's)
                        let key = if d == 0.0 {
                            -1.0 / (1.0 + v.bbox.area_deg2())
                        } else {
                            d
                        };
                        hits.push((key, v));
                    }
                }
                None => hits.push((0.0, v)),
            }
        }
        hits.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then_with(|| {
                    crate::packs::search::fold(&a.1.summary.name)
                        .cmp(&crate::packs::search::fold(&b.1.summary.name))
                })
                .then_with(|| a.1.summary.venue_id.cmp(&b.1.summary.venue_id))
        });
        call.charge()?;
        let total = hits.len() as u64;
        let per = req.items_by_page as usize;
        let (page_count, range) = if per == 0 {
            (u32::from(total > 0), 0..hits.len())
        } else {
            let pages = hits.len().div_ceil(per);
            let start = (req.page as usize).saturating_mul(per).min(hits.len());
            (pages as u32, start..(start + per).min(hits.len()))
        };
        // the attribution of the packs the listed venues come from
        let mut credits: Vec<String> = Vec::new();
        for (_, v) in &hits[range.clone()] {
            if let Some(pack) = layer.venues.get(&v.summary.venue_id) {
                let a = indoor_attribution(pack);
                if !a.is_empty() && !credits.contains(&a) {
                    credits.push(a);
                }
            }
        }
        if !credits.is_empty() {
            call.attribute(credits.join("; "));
        }
        let venues = hits[range]
            .iter()
            .map(|(_, v)| {
                let mut s = v.summary.clone();
                s.distance = req
                    .near
                    .map(|p| directions::round1(v.distance(Pt::new(p.lat, p.lng))));
                s
            })
            .collect();
        Ok(VenueListResponse {
            pagination: IndoorPagination {
                page: req.page,
                page_count,
                total,
                per_page: req.items_by_page,
            },
            venues,
        })
    }
}
