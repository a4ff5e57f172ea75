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
pub mod hours;
mod index;
pub mod zone;

use std::sync::Arc;

use chrono::Utc;

use crate::api::{
    AssetBounds, LatLng, StoresBoundsRequest, StoresBoundsResponse, StoresPagination,
    StoresSearchRequest, StoresSearchResponse,
};
use crate::api::{FieldError, Loc, kinds};
use crate::error::{ApiError, ErrorCode};
use crate::geo::Pt;
use crate::operation::Call;
use crate::packs::PackSet;
use crate::packs::registry::PackSetCache;

pub use index::{StoreIndex, StoreRecord};

/// The stores service of an engine.
#[derive(Debug, Default)]
pub struct Stores {
    indexes: PackSetCache<StoreIndex>,
}

/// A matching store: its place in the index and its distance to the centre (metres).
type Match = (u32, Option<f64>);

/// What a search filters on: the fields shared by search and bounds.
struct Filter<'a> {
    query: Option<&'a str>,
    center: Option<LatLng>,
    radius: Option<f64>,
    polyline: Option<&'a str>,
    zone: bool,
}

impl Stores {
    /// The index of `set`; 503 when no installed pack has the stores layer.
    pub fn index(&self, set: Arc<PackSet>) -> Result<Arc<StoreIndex>, ApiError> {
        self.indexes.get_or_build(set, StoreIndex::load)
    }

    /// The index and the stores matching `filter`, ordered; charges the call once the
    /// request is known to be answerable.
    fn find(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        filter: &Filter<'_>,
    ) -> Result<(Arc<StoreIndex>, Vec<Match>), ApiError> {
        let index = self.index(set)?;
        let found = matching(&index, filter)?;
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
        };
        let (index, found) = self.find(set, call, &filter)?;
        let total = found.len() as u32;
        let per_page = req.stores_by_page.max(1);
        let page_count = total.div_ceil(per_page);
        let start = (req.page.saturating_sub(1) as usize).saturating_mul(per_page as usize);
        let now = Utc::now();
        let features = found
            .iter()
            .skip(start)
            .take(per_page as usize)
            .map(|(i, d)| index.feature(*i, *d, req.language.as_deref(), now))
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
            zone: false,
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

/// A 422 on query parameter `name`.
fn validation_error(name: &str, message: impl Into<String>) -> ApiError {
    ApiError::validation(vec![FieldError::invalid(
        Loc::Query,
        name,
        kinds::VALUE,
        message,
    )])
}

/// The matching stores with their distance to the centre (metres), ordered.
fn matching(index: &StoreIndex, f: &Filter<'_>) -> Result<Vec<Match>, ApiError> {
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
    let candidates: Vec<u32> = match (center, f.zone, f.radius, &line) {
        (Some(c), true, _, _) => index.stores_with_zone_at(c),
        (Some(c), false, Some(r), None) => index.within(c, r),
        _ => index.all(),
    };
    let mut out: Vec<Match> = candidates
        .into_iter()
        .filter(|i| {
            let s = index.record(*i);
            query.as_ref().is_none_or(|q| q.matches(s))
                && match (&line, f.radius) {
                    (Some(line), Some(r)) => {
                        crate::geo::nearest_on_line(line, s.pt()).is_some_and(|n| n.distance_m <= r)
                    }
                    _ => true,
                }
                && match (center, f.zone, f.radius) {
                    (Some(c), true, Some(r)) => crate::geo::haversine_m(c, s.pt()) <= r,
                    _ => true,
                }
        })
        .map(|i| {
            (
                i,
                center.map(|c| crate::geo::haversine_m(c, index.record(i).pt())),
            )
        })
        .collect();
    match center {
        Some(_) => out.sort_by(|a, b| {
            a.1.partial_cmp(&b.1)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| index.record(a.0).store_id.cmp(&index.record(b.0).store_id))
        }),
        None => out.sort_by(|a, b| {
            let (x, y) = (index.record(a.0), index.record(b.0));
            x.name
                .cmp(&y.name)
                .then_with(|| x.store_id.cmp(&y.store_id))
        }),
    }
    Ok(out)
}
