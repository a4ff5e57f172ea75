//! The stores group: store locator search and the bounds of a result set, over the stores
//! layers of the installed packs (see `docs/stores-layer.md` for where stores come from).
//!
//! **Index.** On first use per pack set, every pack with the stores layer is read into memory:
//! the stores (their query fields, with the names folded once), an R-tree of their positions on
//! the unit sphere (chord distance orders exactly as great-circle distance, so nearest-first
//! and radius queries are exact anywhere) and an R-tree of the bounding boxes of their zones.
//!
//! **Search.** The `query` (the query language of `waymark-storequery`; a malformed query is a
//! 422 at `["query","query"]` naming the column) filters the candidates: the stores within
//! `radius` of the centre (or all), of the `encoded_polyline` corridor, or, with `zone=true`,
//! those with a zone containing the centre. Results are ordered by distance to the centre when
//! one is given, else by name, then paginated.
//!
//! **Zone updates.** `PUT /zones` replaces existing zones (by `zone_id`) all or nothing; the
//! accepted zones live in the engine's state, over the packs' zones (see [`edits`]), and
//! `zone=true` searches see them as soon as the update has answered.
pub mod edits;
pub mod hours;
mod index;
mod manage;
pub mod packed;
mod select;
pub mod zone;

use std::path::Path;
use std::sync::Arc;

use chrono::Utc;
use parking_lot::RwLock;
use serde_json::Value;

use crate::api::{
    AssetBounds, LatLng, StoresBoundsRequest, StoresBoundsResponse, StoresPagination,
    StoresSearchRequest, StoresSearchResponse, Zone, ZonesUpdateRequest, ZonesUpdateResponse,
};
use crate::api::{FieldError, Loc, kinds};
use crate::error::{ApiError, ErrorCode};
use crate::geo::Pt;
use crate::operation::Call;
use crate::packs::PackSet;
use crate::packs::registry::PackSetCache;

use edits::{EditSet, EditsError, ZoneEdit, ZoneEdits, ZoneOverlay};
pub use index::{PackZone, StoreIndex, StoreRecord, UserCell, ZoneShape};
use zone::zone_polygon;

/// The stores service of an engine.
#[derive(Debug)]
pub struct Stores {
    indexes: PackSetCache<StoreIndex>,
    edits: ZoneEdits,
    /// The overlay of the last (index, edits) pair a search used.
    overlay: RwLock<Option<OverlayFor>>,
}

/// An overlay and what it was built from.
type OverlayFor = (Arc<StoreIndex>, Arc<EditSet>, Arc<ZoneOverlay>);

/// A matching store: its place in the index and the square of its chord distance to the
/// centre (which orders exactly as the great-circle distance, without trigonometry).
type Match = (u32, Option<f64>);

/// What a search filters on: the fields shared by search and bounds.
struct Filter<'a> {
    query: Option<&'a str>,
    center: Option<LatLng>,
    radius: Option<f64>,
    polyline: Option<&'a str>,
    zone: bool,
    /// Only the stores open at this instant.
    open: Option<chrono::DateTime<Utc>>,
}

/// The instant of `open_now` (now) or `open_at` the stores must be open at, if any.
fn open_instant(open_now: bool, open_at: Option<i64>) -> Option<chrono::DateTime<Utc>> {
    match (open_now, open_at) {
        (_, Some(t)) => chrono::DateTime::from_timestamp(t, 0),
        (true, None) => Some(Utc::now()),
        (false, None) => None,
    }
}

impl Stores {
    /// The service, with the zone edits kept in `state_dir`.
    pub fn open(state_dir: &Path) -> Result<Stores, EditsError> {
        Ok(Stores {
            indexes: PackSetCache::default(),
            edits: ZoneEdits::open(state_dir)?,
            overlay: RwLock::new(None),
        })
    }

    /// The index of `set`; 503 when no installed pack has the stores layer.
    pub fn index(&self, set: Arc<PackSet>) -> Result<Arc<StoreIndex>, ApiError> {
        self.indexes.get_or_build(set, StoreIndex::load)
    }

    /// The zone edits laid over `index` now.
    pub fn overlay(&self, index: &Arc<StoreIndex>) -> Arc<ZoneOverlay> {
        let edits = self.edits.current();
        if let Some((i, e, o)) = self.overlay.read().as_ref()
            && Arc::ptr_eq(i, index)
            && Arc::ptr_eq(e, &edits)
        {
            return o.clone();
        }
        let overlay = Arc::new(ZoneOverlay::new(index, &edits));
        *self.overlay.write() = Some((index.clone(), edits, overlay.clone()));
        overlay
    }

    /// The index and the stores matching `filter`, unordered; charges the call once the
    /// request is known to be answerable.
    fn find(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        filter: &Filter<'_>,
    ) -> Result<(Arc<StoreIndex>, Vec<Match>), ApiError> {
        let index = self.index(set)?;
        let overlay = match filter.zone {
            true => self.overlay(&index),
            false => Arc::new(ZoneOverlay::default()),
        };
        let found = matching(&index, &overlay, filter)?;
        call.charge()?;
        Ok((index, found))
    }

    /// `GET /stores/search`.
    pub fn search(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &StoresSearchRequest,
    ) -> Result<StoresSearchResponse, ApiError> {
        let filter = Filter {
            query: req.query.as_deref(),
            center: req.center,
            radius: req.radius,
            polyline: req.encoded_polyline.as_deref(),
            zone: req.zone,
            open: open_instant(req.open_now, req.open_at),
        };
        let (index, mut found) = self.find(set, call, &filter)?;
        let total = found.len() as u32;
        let per_page = req.stores_by_page.max(1);
        let page_count = total.div_ceil(per_page);
        let start = (req.page.saturating_sub(1) as usize).saturating_mul(per_page as usize);
        order_first(&index, &mut found, start.saturating_add(per_page as usize));
        // The `open` blocks are computed at `timestamp`, else at the instant the stores were
        // filtered on, else now.
        let now = req
            .timestamp
            .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
            .or(filter.open)
            .unwrap_or_else(Utc::now);
        let features = found
            .iter()
            .skip(start)
            .take(per_page as usize)
            .map(|(i, _)| {
                let d = req
                    .center
                    .map(|c| crate::geo::haversine_m(Pt::new(c.lat, c.lng), index.record(*i).pt()));
                index.feature(*i, d, req.language.as_deref(), now)
            })
            .collect();
        Ok(StoresSearchResponse {
            kind: "FeatureCollection".into(),
            features,
            pagination: StoresPagination {
                page: req.page,
                page_count,
                total,
            },
        })
    }

    /// `GET /stores/search/bounds`: the bounds of every matching store; 404 when none
    /// matches.
    pub fn bounds(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &StoresBoundsRequest,
    ) -> Result<StoresBoundsResponse, ApiError> {
        let filter = Filter {
            query: req.query.as_deref(),
            center: req.center,
            radius: req.radius,
            polyline: req.encoded_polyline.as_deref(),
            zone: req.zone,
            open: open_instant(req.open_now, req.open_at),
        };
        let (index, found) = self.find(set, call, &filter)?;
        let mut bounds: Option<AssetBounds> = None;
        for (i, _) in &found {
            let s = index.record(*i);
            let b = bounds.get_or_insert(AssetBounds {
                west: s.lng,
                south: s.lat,
                east: s.lng,
                north: s.lat,
            });
            b.west = b.west.min(s.lng);
            b.east = b.east.max(s.lng);
            b.south = b.south.min(s.lat);
            b.north = b.north.max(s.lat);
        }
        bounds
            .map(|bounds| StoresBoundsResponse { bounds })
            .ok_or_else(|| ApiError::new(ErrorCode::NotFound, "no store matches the search"))
    }
}

/// A zone whose local edit was made on a content of the pack's zone that the installed packs
/// have changed since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneConflict {
    /// The zone.
    pub zone_id: String,
    /// The pack version the edit was made on (empty for edits made before versions were
    /// recorded).
    pub edit_pack_version: String,
    /// The installed pack (id) that carries the zone now; `None` when no installed pack does.
    pub pack_id: Option<String>,
    /// Its version.
    pub pack_version: Option<String>,
}

impl Stores {
    /// The zones in conflict over the packs of `set`, by zone id: each has a local edit (in
    /// force) made on a content of the zone that the installed packs have changed since. A
    /// conflict lasts until the zone is updated again.
    pub fn zone_conflicts(&self, set: Arc<PackSet>) -> Result<Vec<ZoneConflict>, ApiError> {
        let index = self.index(set)?;
        let edits = self.edits.current();
        let mut out: Vec<ZoneConflict> = edits
            .zones
            .values()
            .filter(|e| index.conflict(e))
            .map(|e| {
                let now = index.zone_by_id(&e.zone_id).map(|(_, z)| z);
                ZoneConflict {
                    zone_id: e.zone_id.clone(),
                    edit_pack_version: e.pack_version.clone(),
                    pack_id: now.map(|z| z.pack_id.to_string()),
                    pack_version: now.map(|z| z.pack_version.to_string()),
                }
            })
            .collect();
        out.sort_by(|a, b| a.zone_id.cmp(&b.zone_id));
        Ok(out)
    }

    /// `PUT /zones`: every zone of the batch must exist in the installed packs, belong to a
    /// known store and have a valid polygon, or nothing is written (422 naming each refused
    /// item). Fields a zone leaves out keep their current values.
    pub fn update_zones(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &ZonesUpdateRequest,
    ) -> Result<ZonesUpdateResponse, ApiError> {
        let index = self.index(set)?;
        let updated_at = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let count = self.edits.commit(|current| {
            let batch = checked_batch(&index, current, req, &updated_at)?;
            call.charge()?;
            Ok::<_, ApiError>((batch, Vec::new()))
        })?;
        Ok(ZonesUpdateResponse {
            status: "success".into(),
            message: match count {
                1 => "1 zone updated".into(),
                n => format!("{n} zones updated"),
            },
        })
    }
}

/// The checks every zone of a `PUT /zones` or `POST /zones` batch gets: its store is one of the
/// installed packs and its polygon is a valid zone. Each problem goes to `refuse` (field,
/// message); the parsed shape, or an error when the polygon is refused.
fn check_store_and_polygon(
    index: &StoreIndex,
    z: &Zone,
    refuse: &mut impl FnMut(&str, String),
) -> Result<::geo::Geometry<f64>, ()> {
    if index.store_by_id(&z.store_id).is_none() {
        refuse(
            "store_id",
            format!(
                "unknown store_id {}: give the id of a store of the installed packs",
                crate::api::shown(&z.store_id)
            ),
        );
    }
    zone_polygon(&z.polygon).map_err(|e| {
        refuse(
            "polygon",
            format!("zone {}: {e}", crate::api::shown(&z.zone_id)),
        )
    })
}

/// The edits of `req`, or every reason to refuse it.
fn checked_batch(
    index: &StoreIndex,
    current: &EditSet,
    req: &ZonesUpdateRequest,
    updated_at: &str,
) -> Result<Vec<ZoneEdit>, ApiError> {
    let mut errors = Vec::new();
    let mut batch = Vec::with_capacity(req.zones.len());
    for (i, z) in req.zones.iter().enumerate() {
        let mut refuse = |field: &str, msg: String| {
            errors.push(FieldError::at(
                Loc::Body,
                vec![Value::from("zones"), Value::from(i), Value::from(field)],
                kinds::VALUE,
                msg,
            ))
        };
        let pack_zone = index.zone_by_id(&z.zone_id).map(|(_, pz)| pz);
        // What the zone is now: its local edit (in force, in conflict or not), else the pack's.
        let prior = current.zones.get(&z.zone_id);
        let deleted = prior.is_some_and(|e| e.deleted);
        let prior = prior.filter(|e| !e.deleted);
        let known = !deleted && (pack_zone.is_some() || prior.is_some());
        if !known {
            refuse(
                "zone_id",
                match deleted {
                    true => format!(
                        "zone_id {} was deleted on this device: create it again with POST /zones",
                        crate::api::shown(&z.zone_id)
                    ),
                    false => format!(
                        "unknown zone_id {}: only existing zones can be updated (create one \
                         with POST /zones)",
                        crate::api::shown(&z.zone_id)
                    ),
                },
            );
        }
        let shape = check_store_and_polygon(index, z, &mut refuse);
        let Ok(shape) = shape else {
            continue;
        };
        if !known {
            continue;
        }
        // The new edit is made on the pack's zone as it is now (or on no pack zone), which
        // resolves a conflict.
        let kept = |edit: fn(&ZoneEdit) -> Option<String>,
                    pack: fn(&PackZone) -> Option<String>| {
            match (prior, pack_zone) {
                (Some(e), _) => edit(e),
                (None, Some(p)) => pack(p),
                (None, None) => None,
            }
        };
        batch.push(ZoneEdit {
            zone_id: z.zone_id.clone(),
            pack_id: pack_zone.map(|p| p.pack_id.to_string()).unwrap_or_default(),
            pack_version: pack_zone
                .map(|p| p.pack_version.to_string())
                .unwrap_or_default(),
            base: pack_zone.map(|p| p.digest.clone()).unwrap_or_default(),
            store_id: z.store_id.clone(),
            description: z
                .description
                .clone()
                .or_else(|| kept(|e| e.description.clone(), |p| p.description.clone())),
            polygon: z.polygon.clone(),
            types: z.types.clone().unwrap_or_else(|| match (prior, pack_zone) {
                (Some(e), _) => e.types.clone(),
                (None, Some(p)) => p.types.clone(),
                (None, None) => Vec::new(),
            }),
            status: z
                .status
                .clone()
                .or_else(|| kept(|e| e.status.clone(), |p| p.status.clone())),
            updated_at: updated_at.to_owned(),
            deleted: false,
            shape,
        });
    }
    if errors.is_empty() {
        Ok(batch)
    } else {
        Err(ApiError::validation(errors))
    }
}

/// A 422 on query parameter `name`.
fn validation_error(name: &str, message: impl Into<String>) -> ApiError {
    ApiError::validation(vec![FieldError::invalid(
        Loc::Query,
        name,
        kinds::VALUE,
        message,
    )])
}

/// The matching stores with their squared chord distance to the centre, in no particular
/// order.
///
/// Candidates come from the spatial index at hand (the zones containing the centre with
/// `zone=true`, the stores within `radius` of the centre) or else from the stores of a type
/// every match must have (`type:` among the query's top-level `AND`s); the query is evaluated
/// on them over the index's columns ([`StoreIndex::select`]); a corridor search then keeps the
/// stores inside the corridor's bounding box and within `radius` of the line.
fn matching(
    index: &StoreIndex,
    overlay: &ZoneOverlay,
    f: &Filter<'_>,
) -> Result<Vec<Match>, ApiError> {
    let query = match f.query {
        None => None,
        Some(text) => Some(
            waymark_storequery::parse(text)
                .map_err(|e| validation_error("query", e.to_string()))?,
        ),
    };
    let line = match f.polyline {
        None => None,
        Some(text) => {
            let mut pts = Vec::new();
            crate::geo::decode_polyline(text, 5, &mut pts).map_err(|e| {
                validation_error(
                    "encoded_polyline",
                    format!("`encoded_polyline` is not an encoded polyline (precision 5): {e}"),
                )
            })?;
            if pts.is_empty() {
                return Err(validation_error(
                    "encoded_polyline",
                    "`encoded_polyline` holds no point",
                ));
            }
            Some(pts)
        }
    };
    let center = f.center.map(|c| Pt::new(c.lat, c.lng));
    let center_xyz = center.map(crate::geo::xyz);
    let spatial: Option<Vec<u32>> = match (center, f.zone, f.radius, &line) {
        (Some(c), true, _, _) => Some(index.stores_with_zone_at(c, overlay)),
        (Some(c), false, Some(r), None) => {
            let mut within = index.within(c, r);
            within.sort_unstable();
            Some(within)
        }
        _ => None,
    };
    let by_type: Option<&[u32]> = query.as_ref().and_then(|q| {
        q.required_types()
            .map(|t| index.with_type(t))
            .min_by_key(|list| list.len())
    });
    // Ascending places in the index, as the query evaluation takes them; the query's
    // `type:` clauses intersect with the spatial candidates there.
    let candidates: Vec<u32> = match (spatial, by_type, &query) {
        (Some(s), _, Some(q)) => index.select(q, &s),
        (Some(s), _, None) => s,
        (None, Some(t), Some(q)) => index.select(q, t),
        (None, _, Some(q)) => index.select(q, &index.all()),
        (None, _, None) => index.all(),
    };
    let corridor = match (&line, f.radius) {
        (Some(line), Some(r)) => Some((line.as_slice(), r, corridor_box(line, r))),
        _ => None,
    };
    // The local time of `f.open` in each timezone met so far (stores share a few).
    let mut local_at: Vec<(chrono_tz::Tz, chrono::NaiveDateTime)> = Vec::new();
    let mut open_at = |h: &hours::CompiledHours, at: chrono::DateTime<chrono::Utc>| {
        let tz = h.tz();
        let local = match local_at.iter().find(|(t, _)| *t == tz) {
            Some((_, l)) => *l,
            None => {
                let l = at.with_timezone(&tz).naive_local();
                local_at.push((tz, l));
                l
            }
        };
        h.is_open_local(local)
    };
    Ok(candidates
        .into_iter()
        .filter(|i| {
            let s = index.record(*i);
            corridor.is_none_or(|(line, r, [south, west, north, east])| {
                (south..=north).contains(&s.lat)
                    && (west..=east).contains(&s.lng)
                    && crate::geo::nearest_on_line(line, s.pt()).is_some_and(|n| n.distance_m <= r)
            }) && match (center, f.zone, f.radius) {
                (Some(c), true, Some(r)) => crate::geo::haversine_m(c, s.pt()) <= r,
                _ => true,
            } && f
                .open
                .is_none_or(|at| s.compiled_hours.as_ref().is_some_and(|h| open_at(h, at)))
        })
        .map(|i| (i, center_xyz.map(|c| index.chord2(i, c))))
        .collect())
}

/// `[south, west, north, east]` of the points within `radius_m` of `line` (a little wider).
fn corridor_box(line: &[Pt], radius_m: f64) -> [f64; 4] {
    let mut b = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    for p in line {
        b = [
            b[0].min(p.lat),
            b[1].min(p.lng),
            b[2].max(p.lat),
            b[3].max(p.lng),
        ];
    }
    let dlat = radius_m / 111_000.0 * 1.01;
    let widest = b[0].abs().max(b[2].abs()) + dlat;
    let dlng = match widest < 89.0 {
        true => dlat / widest.to_radians().cos(),
        false => 360.0,
    };
    [b[0] - dlat, b[1] - dlng, b[2] + dlat, b[3] + dlng]
}

/// Orders `found` far enough for its first `end` matches to be in order: by distance to the
/// centre (then id) when there is one, else by name (then id).
fn order_first(index: &StoreIndex, found: &mut [Match], end: usize) {
    let cmp = |a: &Match, b: &Match| {
        let (x, y) = (index.record(a.0), index.record(b.0));
        match (a.1, b.1) {
            (Some(da), Some(db)) => da.total_cmp(&db),
            _ => x.name.cmp(&y.name),
        }
        .then_with(|| x.store_id.cmp(&y.store_id))
        .then_with(|| a.0.cmp(&b.0))
    };
    let end = end.min(found.len());
    if end == 0 {
        return;
    }
    if end < found.len() {
        found.select_nth_unstable_by(end - 1, cmp);
    }
    found[..end].sort_unstable_by(cmp);
}
