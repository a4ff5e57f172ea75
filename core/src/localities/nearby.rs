//! `GET /localities/nearby`: points of interest of the given types within `radius` of
//! `location`, nearest first, a page at a time.
use super::autocomplete::resolve_types;
use super::format::{Shown, viewport_around};
use super::index::{Item, LocalitiesIndex};
use crate::api::{
    CcFormat, FieldError, LatLng, Loc, NearbyGeometry, NearbyPagination, NearbyPoi, NearbyRequest,
    NearbyResponse, kinds as err_kinds,
};
use crate::error::ApiError;
use crate::geo::{Pt, degrees_for, haversine_m};
use crate::packs::search::{DocData, kinds};

/// Largest `radius` accepted, in metres.
pub const NEARBY_RADIUS_MAX: u32 = 50_000;
/// Largest `limit` accepted.
pub const NEARBY_LIMIT_MAX: u32 = 100;

/// Resolved types of a valid request.
#[derive(Debug, Clone)]
pub struct Plan {
    types: Vec<String>,
    excluded: Vec<String>,
}

/// Checks the types (point-of-interest types only), `radius` and `limit` bounds.
pub fn plan(req: &NearbyRequest) -> Result<Plan, ApiError> {
    let only_poi = |name: &str, values: &[String]| -> Result<Vec<String>, ApiError> {
        for v in values {
            if !matches!(
                crate::api::PlaceType::parse(v),
                Some(crate::api::PlaceType::Poi(_))
            ) {
                return Err(ApiError::validation(vec![FieldError::invalid(
                    Loc::Query,
                    name,
                    err_kinds::VALUE,
                    format!(
                        "`{v}` is not a point-of-interest type: give types such as \
                         `business.food_and_drinks.cafe|park`, joined by `|`"
                    ),
                )]));
            }
        }
        resolve_types(name, values, false)
    };
    let types = only_poi("types", &req.types)?;
    let excluded = only_poi("excluded_types", &req.excluded_types)?;
    for (name, v, max) in [
        ("radius", req.radius, NEARBY_RADIUS_MAX),
        ("limit", req.limit, NEARBY_LIMIT_MAX),
    ] {
        if v > max {
            return Err(ApiError::validation(vec![FieldError::invalid(
                Loc::Query,
                name,
                err_kinds::VALUE,
                format!("`{name}` too large: give at most {max}, got {v}"),
            )]));
        }
    }
    Ok(Plan { types, excluded })
}

struct Found {
    public_id: String,
    types: Vec<String>,
    name: Option<String>,
    lat: f64,
    lng: f64,
    pack: usize,
}

/// Runs nearby.
pub fn run(idx: &LocalitiesIndex, req: &NearbyRequest, plan: &Plan) -> NearbyResponse {
    let (lat, lng) = (req.location.lat, req.location.lng);
    let radius = f64::from(req.radius);
    let (dlat, dlng) = degrees_for(radius, lat);
    // Borrowed until the page is known: only the page's points are copied.
    let mut found: Vec<(f64, usize, &super::index::PoiPoint)> = Vec::new();
    for pack in idx.packs_near(lat, lng, radius) {
        for p in idx
            .pois(pack)
            .in_box([lat - dlat, lat + dlat, lng - dlng, lng + dlng])
        {
            let mut wanted = false;
            for t in p.types.split('|') {
                if plan.excluded.iter().any(|x| x == t) {
                    wanted = false;
                    break;
                }
                wanted |= plan.types.iter().any(|x| x == t);
            }
            if !wanted {
                continue;
            }
            let distance = haversine_m(Pt::new(lat, lng), Pt::new(p.lat, p.lng));
            if distance <= radius {
                found.push((distance, pack, p));
            }
        }
    }
    found.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then_with(|| a.2.public_id.cmp(&b.2.public_id))
    });
    found.dedup_by(|a, b| a.2.public_id == b.2.public_id);
    let limit = req.limit.max(1) as usize;
    let page = req.page.max(1) as usize;
    let start = (page - 1).saturating_mul(limit);
    let total = found.len();
    let results = found
        .into_iter()
        .skip(start)
        .take(limit)
        .map(|(_, pack, p)| {
            to_poi(
                idx,
                Found {
                    public_id: p.public_id.to_string(),
                    types: p.types.split('|').map(str::to_string).collect(),
                    name: p.name.as_deref().map(str::to_string),
                    lat: p.lat,
                    lng: p.lng,
                    pack,
                },
            )
        })
        .collect();
    NearbyResponse {
        results,
        pagination: NearbyPagination {
            next_page: (start.saturating_add(limit) < total).then_some(page as u32 + 1),
            previous_page: (page > 1).then(|| {
                // The last page that has results, when asked past the end.
                let last = total.div_ceil(limit).max(1);
                (page - 1).min(last) as u32
            }),
        },
    }
}

fn to_poi(idx: &LocalitiesIndex, f: Found) -> NearbyPoi {
    let item = idx.get(&f.public_id).map(|a| (*a).clone()).unwrap_or(Item {
        pack: f.pack,
        public_id: f.public_id.clone(),
        kind: kinds::POI.into(),
        types: f.types.clone(),
        cc: None,
        lat: f.lat,
        lng: f.lng,
        rank: 0.0,
        data: DocData::default(),
    });
    let parents = idx.parents(&item);
    let shown = Shown {
        item,
        parents,
        lang: String::new(),
    };
    // Unnamed points are named by their most specific type.
    let name = f.name.clone().unwrap_or_else(|| {
        f.types
            .first()
            .and_then(|t| t.rsplit('.').next())
            .map(|t| t.replace('_', " "))
            .unwrap_or_default()
    });
    NearbyPoi {
        categories: f.types.clone(),
        types: f.types,
        name,
        public_id: f.public_id,
        geometry: NearbyGeometry {
            location: LatLng {
                lat: f.lat,
                lng: f.lng,
            },
            viewport: Some(viewport_around(f.lat, f.lng, 75.0)),
        },
        address_components: shown.address_components(CcFormat::Alpha2),
        formatted_address: shown.formatted_address(),
    }
}
