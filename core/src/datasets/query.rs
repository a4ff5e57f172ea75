//! Feature queries: one feature by id, `where` searches and spatial containment.
//!
//! **Contains.** A feature matches when its geometry contains the input geometry grown by
//! `buffer` metres. For areas (Polygon, MultiPolygon) that is exact without building the
//! grown shape: the area contains the input, and every point of the input lies at least
//! `buffer` from the area's rings. Points and lines have no inside, so they match when they
//! lie within `buffer` of the input ("hydrants within 50 m of this pipe"; with no buffer: a
//! point equal to the input point, a line the input point lies on). Distances are measured in
//! a local equirectangular projection centred on the input (metres along the meridian and the
//! parallel at the input's latitude): within 0.1 % of the geodesic distance for the buffers a
//! query uses (up to tens of kilometres), anywhere but within a few kilometres of a pole.
use std::sync::Arc;

use base64::Engine as _;
use geo::{
    BoundingRect, Centroid, Contains, Coord, Distance, Euclidean, Geometry, LineString, MapCoords,
    MultiLineString, Polygon,
};
use serde_json::{Map, Value};
use waymark_storequery::{Clause, Field, Query};

use super::Datasets;
use super::data::{Column, DatasetIndex, Feature};
use crate::api::{
    DatasetFeature, DatasetFormat, FeatureContainsRequest, FeatureGetRequest, FeatureSearchRequest,
    FeatureSearchResponse, FeatureSummary, FieldError, InputGeometry, JsonObject, JsonValue, Loc,
    PageInfo, kinds,
};
use crate::error::ApiError;
use crate::operation::Call;

/// Mean Earth radius (IUGG), metres.
const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// A 422 at `["body", name]`.
fn body_error(name: &str, msg: String) -> ApiError {
    ApiError::validation(vec![FieldError::at(
        Loc::Body,
        vec![Value::from(name)],
        kinds::VALUE,
        msg,
    )])
}

/// Parses a `where` filter (422 pointing at it when malformed).
fn parse_filter(text: &str) -> Result<Query, ApiError> {
    waymark_storequery::parse_attributes(text).map_err(|e| {
        let msg = e.to_string();
        let msg = msg.strip_prefix("query: ").unwrap_or(&msg).to_owned();
        body_error(
            "where",
            format!("invalid filter: {msg} (docs/datasets-where.md)"),
        )
    })
}

/// The features of `index` at `positions` (in order) that satisfy `filter`.
fn filtered(
    index: &DatasetIndex,
    positions: impl Iterator<Item = u32>,
    filter: Option<&Query>,
) -> Vec<u32> {
    let Some(q) = filter else {
        return positions.collect();
    };
    // Each clause with its attribute's column, found by the clause's address during the
    // evaluation (no hashing per feature).
    let columns: Vec<(&Clause, Arc<Column>)> = q
        .clauses()
        .filter_map(|c| match c.field() {
            Field::Attribute(path) => Some((c, index.column(path))),
            _ => None,
        })
        .collect();
    positions
        .filter(|&i| {
            q.matches_with(&mut |c| {
                let Some((_, col)) = columns.iter().find(|(k, _)| std::ptr::eq(*k, c)) else {
                    return false;
                };
                let i = i as usize;
                // Comparisons of numbers without matching on JSON values.
                if c.op().is_comparison()
                    && let Some(&x) = col.numbers.get(i)
                    && !x.is_nan()
                {
                    return c.number_matches(x);
                }
                c.value_matches(col.value(i))
            })
        })
        .collect()
}

/// The geometry in the requested format.
fn geometry_out(g: &Geometry<f64>, format: DatasetFormat) -> JsonValue {
    JsonValue(match format {
        DatasetFormat::Geojson => waymark_geoformats::to_geojson(g),
        DatasetFormat::Wkb => Value::from(
            base64::engine::general_purpose::STANDARD.encode(waymark_geoformats::to_wkb(g)),
        ),
    })
}

/// One page of `found` as the answer.
fn page(
    index: &DatasetIndex,
    found: &[u32],
    page: u32,
    per_page: u32,
    format: DatasetFormat,
) -> FeatureSearchResponse {
    let per_page = per_page.min(super::MAX_PER_PAGE);
    let page_count = (found.len() as u32).div_ceil(per_page);
    let start = (page.saturating_sub(1) as usize).saturating_mul(per_page as usize);
    FeatureSearchResponse {
        features: found
            .iter()
            .skip(start)
            .take(per_page as usize)
            .filter_map(|&i| index.features.get(i as usize))
            .map(|f| FeatureSummary {
                id: f.id.clone(),
                geometry: geometry_out(&f.geometry, format),
                attributes: Some(JsonObject(f.attributes.clone())),
            })
            .collect(),
        pagination: PageInfo::new(page, page_count),
    }
}

/// The attributes a field mask keeps: `attributes` keeps all, `attributes.<path>` the
/// attribute at that path (nested objects are rebuilt along it).
fn masked_attributes(attrs: &Map<String, Value>, mask: &[String]) -> Map<String, Value> {
    if mask.iter().any(|m| m == "attributes") {
        return attrs.clone();
    }
    let mut out = Map::new();
    for path in mask.iter().filter_map(|m| m.strip_prefix("attributes.")) {
        if let Some(v) = attrs.get(path) {
            out.insert(path.to_owned(), v.clone());
            continue;
        }
        let Some(v) = waymark_storequery::lookup_attribute(attrs, path) else {
            continue;
        };
        let parts: Vec<&str> = path.split('.').collect();
        insert_path(&mut out, &parts, v.clone());
    }
    out
}

/// Sets `parts` (a nested path) of `obj` to `value`, creating the objects along it.
fn insert_path(obj: &mut Map<String, Value>, parts: &[&str], value: Value) {
    match parts {
        [] => {}
        [last] => {
            obj.insert((*last).to_owned(), value);
        }
        [first, rest @ ..] => {
            let entry = obj
                .entry((*first).to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            if let Value::Object(next) = entry {
                insert_path(next, rest, value);
            }
        }
    }
}

/// Checks a field mask: `id`, `geometry`, `attributes` or `attributes.<path>`.
fn check_mask(mask: &[String]) -> Result<(), ApiError> {
    for m in mask {
        let ok = matches!(m.as_str(), "id" | "geometry" | "attributes")
            || m.strip_prefix("attributes.")
                .is_some_and(|p| !p.is_empty() && p.split('.').all(|s| !s.is_empty()));
        if !ok {
            return Err(ApiError::validation(vec![FieldError::invalid(
                Loc::Header,
                "x-field-mask",
                kinds::VALUE,
                format!(
                    "unknown field {}: the mask lists `id`, `geometry`, `attributes` or `attributes.<path>`, comma-separated",
                    crate::api::shown(m)
                ),
            )]));
        }
    }
    Ok(())
}

/// A point of the local projection: metres east and north of the centre.
struct Local {
    lng0: f64,
    lat0: f64,
    cos0: f64,
}

impl Local {
    fn at(c: Coord<f64>) -> Local {
        Local {
            lng0: c.x,
            lat0: c.y,
            cos0: c.y.to_radians().cos().max(1e-6),
        }
    }

    fn project<G: MapCoords<f64, f64, Output = G>>(&self, g: &G) -> G {
        g.map_coords(|c| Coord {
            x: (c.x - self.lng0).to_radians() * self.cos0 * EARTH_RADIUS_M,
            y: (c.y - self.lat0).to_radians() * EARTH_RADIUS_M,
        })
    }

    /// Degrees of longitude and latitude spanned by `m` metres here.
    fn degrees(&self, m: f64) -> (f64, f64) {
        let dlat = (m / EARTH_RADIUS_M).to_degrees();
        ((dlat / self.cos0).min(360.0), dlat)
    }
}

/// The rings of an area, as lines.
fn rings(g: &Geometry<f64>) -> Option<MultiLineString<f64>> {
    let polys: Vec<&Polygon<f64>> = match g {
        Geometry::Polygon(p) => vec![p],
        Geometry::MultiPolygon(mp) => mp.0.iter().collect(),
        _ => return None,
    };
    let lines: Vec<LineString<f64>> = polys
        .into_iter()
        .flat_map(|p| std::iter::once(p.exterior().clone()).chain(p.interiors().iter().cloned()))
        .collect();
    Some(MultiLineString(lines))
}

/// Whether `feature` contains `input` grown by `buffer` metres (see the module docs).
fn contains(
    feature: &Feature,
    input: &Geometry<f64>,
    projected: &Geometry<f64>,
    local: &Local,
    buffer: f64,
) -> bool {
    match rings(&feature.geometry) {
        Some(rings) => {
            if !feature.geometry.contains(input) {
                return false;
            }
            buffer <= 0.0
                || Euclidean.distance(&Geometry::MultiLineString(local.project(&rings)), projected)
                    >= buffer
        }
        None if buffer <= 0.0 => feature.geometry.contains(input),
        None => Euclidean.distance(&local.project(&feature.geometry), projected) <= buffer,
    }
}

/// The input geometry of a contains request (422 naming what is wrong).
fn input_geometry(g: &InputGeometry) -> Result<Geometry<f64>, ApiError> {
    let parsed = match g {
        InputGeometry::Text(s) => waymark_geoformats::parse_text_geometry(s.trim()),
        InputGeometry::GeoJson(o) => waymark_geoformats::parse_geojson_geometry(&o.0),
    };
    let geometry = parsed.map_err(|e| body_error("geometry", format!("invalid geometry: {e}")))?;
    if let Some(problem) = waymark_geoformats::problem(&geometry) {
        return Err(body_error(
            "geometry",
            format!("invalid geometry: {problem}"),
        ));
    }
    Ok(geometry)
}

impl Datasets {
    /// `GET /datasets/{dataset_id}/features/{feature_id}`
    pub fn feature(
        &self,
        call: &mut Call<'_>,
        req: &FeatureGetRequest,
    ) -> Result<DatasetFeature, ApiError> {
        if let Some(mask) = &req.x_field_mask {
            check_mask(mask)?;
        }
        let index = self.index(&req.dataset_id)?;
        let feature = index.get(&req.feature_id).ok_or_else(|| {
            ApiError::not_found(format!(
                "feature {} not found in dataset {}",
                req.feature_id, req.dataset_id
            ))
        })?;
        call.charge()?;
        let keep = |name: &str| {
            req.x_field_mask.as_ref().is_none_or(|m| {
                m.iter()
                    .any(|f| f == name || (name == "attributes" && f.starts_with("attributes.")))
            })
        };
        Ok(DatasetFeature {
            id: feature.id.clone(),
            geometry: if keep("geometry") {
                geometry_out(&feature.geometry, req.format)
            } else {
                JsonValue(Value::Null)
            },
            attributes: JsonObject(match &req.x_field_mask {
                None => feature.attributes.clone(),
                Some(m) if keep("attributes") => masked_attributes(&feature.attributes, m),
                Some(_) => Map::new(),
            }),
        })
    }

    /// `POST /datasets/{dataset_id}/features/search`
    pub fn search(
        &self,
        call: &mut Call<'_>,
        req: &FeatureSearchRequest,
    ) -> Result<FeatureSearchResponse, ApiError> {
        let filter = parse_filter(&req.body.filter)?;
        let index = self.index(&req.dataset_id)?;
        let found = filtered(&index, 0..index.features.len() as u32, Some(&filter));
        call.charge()?;
        Ok(page(&index, &found, req.page, req.per_page, req.format))
    }

    /// `POST /datasets/{dataset_id}/features/contains`
    pub fn contains(
        &self,
        call: &mut Call<'_>,
        req: &FeatureContainsRequest,
    ) -> Result<FeatureSearchResponse, ApiError> {
        let filter = req.body.filter.as_deref().map(parse_filter).transpose()?;
        let input = input_geometry(&req.body.geometry)?;
        let buffer = req.body.buffer.unwrap_or(0.0);
        let index = self.index(&req.dataset_id)?;
        let (Some(rect), Some(centre)) = (input.bounding_rect(), input.centroid()) else {
            return Err(body_error(
                "geometry",
                "invalid geometry: it is empty".into(),
            ));
        };
        let local = Local::at(centre.0);
        let (dx, dy) = local.degrees(buffer);
        let candidates = index.in_box(
            [rect.min().x - dx, rect.min().y - dy],
            [rect.max().x + dx, rect.max().y + dy],
        );
        let projected = local.project(&input);
        let inside = candidates.into_iter().filter(|&i| {
            index
                .features
                .get(i as usize)
                .is_some_and(|f| contains(f, &input, &projected, &local, buffer))
        });
        let found = filtered(&index, inside, filter.as_ref());
        call.charge()?;
        Ok(page(&index, &found, req.page, req.per_page, req.format))
    }
}
