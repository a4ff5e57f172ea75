//! Stores search group (`/stores/search`): search of stored assets and the bounds of a result
//! set.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /stores/search` | [`StoresSearchRequest`] | [`StoresSearchResponse`] |
//! | `GET /stores/search/bounds` | [`StoresBoundsRequest`] | [`StoresBoundsResponse`] |
//!
//! `query` is kept as the text of the query language (`field:operator value` clauses joined by
//! `AND`/`OR`, negated by `NOT`, grouped by parentheses); the engine parses it. The bias centre
//! comes as two parameters `lat` and `lng` that must be given together; the request holds it as
//! one [`LatLng`].
//!
//! ```
//! use waymark_core::api::{FromQuery, RequestHeaders, StoresBoundsRequest, pairs};
//!
//! let q = pairs([("query", "city:Paris AND type:shop"), ("lat", "48.85"), ("lng", "2.35"), ("radius", "500")]);
//! let req = StoresBoundsRequest::from_query(&q, &RequestHeaders::default(), &[]).unwrap();
//! assert_eq!(req.center.unwrap().lng, 2.35);
//! ```

use serde::{Deserialize, Serialize};

use super::common::{CoordinateError, JsonObject, LatLng, PointGeometry};
use super::query::{FromQuery, QueryReader};
use super::validation::{Checks, FieldError, Loc, Validate, kinds};

fn default_stores_by_page() -> u32 {
    10
}

fn default_page() -> u32 {
    1
}

/// The most stores one page of `GET /stores/search` holds.
pub const MAX_STORES_BY_PAGE: u32 = 300;

/// Reads the `lat`/`lng` pair into one point; giving only one of them is an error.
fn read_center(q: &mut QueryReader<'_>) -> Option<LatLng> {
    let lat = q.opt_f64("lat");
    let lng = q.opt_f64("lng");
    if let (Some(lat), Some(lng)) = (lat, lng) {
        return Some(LatLng::new(lat, lng));
    }
    // One given without the other (a given but invalid one is already reported).
    match (q.given("lat"), q.given("lng")) {
        (true, false) | (false, true) => {
            let missing = if q.given("lat") { "lng" } else { "lat" };
            q.push(FieldError::invalid(
                Loc::Query,
                missing,
                kinds::MISSING,
                "field required: pass `lat` and `lng` together",
            ));
        }
        _ => {}
    }
    None
}

/// `encoded_polyline` needs `radius` (the width of the corridor).
fn check_polyline_radius(c: &mut Checks, polyline: Option<&str>, radius: Option<f64>) {
    c.check(polyline.is_none() || radius.is_some(), || {
        FieldError::invalid(
            Loc::Query,
            "radius",
            kinds::MISSING,
            "`encoded_polyline` needs `radius`, the distance in metres from the line",
        )
    });
}

/// `radius` is measured from the centre or the polyline: one of them must be given.
fn check_radius_anchor(
    c: &mut Checks,
    center: Option<&LatLng>,
    polyline: Option<&str>,
    radius: Option<f64>,
) {
    c.check(
        radius.is_none() || center.is_some() || polyline.is_some(),
        || {
            FieldError::invalid(
                Loc::Query,
                "radius",
                kinds::VALUE,
                "`radius` is measured from `lat`/`lng` or from `encoded_polyline`: give one of them",
            )
        },
    );
}

/// The UTC seconds a date of the calendar can have (`timestamp`, `open_at`).
fn instant_rule() -> serde_json::Value {
    crate::api::validation::rule::int_range(
        chrono::DateTime::<chrono::Utc>::MIN_UTC.timestamp(),
        chrono::DateTime::<chrono::Utc>::MAX_UTC.timestamp(),
    )
}

/// `open_now` and `open_at` are two ways to give one instant; `open_at` must be a time.
fn check_open(c: &mut Checks, open_now: bool, open_at: Option<i64>) {
    c.check(!(open_now && open_at.is_some()), || {
        FieldError::invalid(
            Loc::Query,
            "open_at",
            kinds::VALUE,
            "give `open_now=true` or `open_at`, not both",
        )
    });
    c.check(
        open_at.is_none_or(|t| chrono::DateTime::from_timestamp(t, 0).is_some()),
        || {
            FieldError::invalid(
                Loc::Query,
                "open_at",
                kinds::VALUE,
                "`open_at` is out of range: give UTC seconds since 1970",
            )
        },
    );
}

/// Checks the centre and the radius shared by both requests.
fn check_center_radius(c: &mut Checks, center: Option<&LatLng>, radius: Option<f64>) {
    if let Some(p) = center
        && let Err(e) = p.check()
    {
        let name = match e {
            CoordinateError::Longitude(_) => "lng",
            CoordinateError::Latitude(_) | CoordinateError::NotFinite => "lat",
        };
        c.check(false, || {
            FieldError::invalid(Loc::Query, name, kinds::COORDINATES, e.to_string())
        });
    }
    if let Some(r) = radius {
        c.check(r.is_finite() && r > 0.0, || {
            FieldError::invalid(
                Loc::Query,
                "radius",
                kinds::VALUE,
                format!("radius must be a positive number of metres, got {r}"),
            )
        });
    }
}

/// `GET /stores/search`. The spec shows only a call with `lat`, `lng` and `key`.
///
/// Not shown in the spec: the parameters are those of bounds (`query`, `lat`/`lng`, `radius`,
/// `encoded_polyline`, `zone`, `open_now`, `open_at`) plus `language`, `timestamp`,
/// `stores_by_page` and `page`; features are sorted by distance to the centre when one is
/// given, else by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct StoresSearchRequest {
    /// Query-language text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub query: Option<String>,
    /// Bias centre: query parameters `lat` and `lng`, given together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(read = read_center, params = "lat, lng")]
    pub center: Option<LatLng>,
    /// Radius in metres around the centre or the polyline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub radius: Option<f64>,
    /// Not shown in the spec: encoded polyline (precision 5) to search along, with `radius`
    /// (stores within `radius` metres of the line: a route corridor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub encoded_polyline: Option<String>,
    /// Not shown in the spec: `true` keeps only the stores one of whose zones contains the
    /// centre ("which store delivers here"); needs `lat`/`lng`.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub zone: bool,
    /// Not shown in the spec: language (ISO 639-1) of the store names; a store with a localized
    /// name in that language answers it as `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<String>,
    /// Not shown in the spec: UTC timestamp (seconds) at which each store's `open` block is
    /// computed ("open when I get there"); defaults to the current time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub timestamp: Option<i64>,
    /// Not shown in the spec: `true` keeps only the stores open at the time of the request,
    /// each in its own timezone with its special days first (a store without opening hours is
    /// not open); pages and `total` count only those. Not with `open_at` (both given: 422).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub open_now: bool,
    /// Not shown in the spec: keeps only the stores open at this instant (UTC seconds since
    /// 1970), as `open_now` does for the time of the request. Not with `open_now`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub open_at: Option<i64>,
    /// Not shown in the spec: stores per page, 1 to 300 (default 10).
    #[serde(default = "default_stores_by_page")]
    pub stores_by_page: u32,
    /// Not shown in the spec: page number, from 1 (default 1).
    #[serde(default = "default_page")]
    pub page: u32,
}

impl Default for StoresSearchRequest {
    fn default() -> Self {
        Self {
            query: None,
            center: None,
            radius: None,
            encoded_polyline: None,
            zone: false,
            language: None,
            timestamp: None,
            open_now: false,
            open_at: None,
            stores_by_page: default_stores_by_page(),
            page: default_page(),
        }
    }
}

impl Validate for StoresSearchRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            (
                "stores_by_page",
                crate::api::validation::rule::int_range(1, i64::from(MAX_STORES_BY_PAGE)),
            ),
            ("page", crate::api::validation::rule::min(1)),
            ("radius", crate::api::validation::rule::positive()),
            ("lat", crate::api::validation::rule::range(-90.0, 90.0)),
            ("lng", crate::api::validation::rule::range(-180.0, 180.0)),
            ("timestamp", instant_rule()),
            ("open_at", instant_rule()),
        ]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_center_radius(&mut c, self.center.as_ref(), self.radius);
        check_polyline_radius(&mut c, self.encoded_polyline.as_deref(), self.radius);
        check_radius_anchor(
            &mut c,
            self.center.as_ref(),
            self.encoded_polyline.as_deref(),
            self.radius,
        );
        c.check(
            (1..=MAX_STORES_BY_PAGE).contains(&self.stores_by_page),
            || {
                FieldError::invalid(
                    Loc::Query,
                    "stores_by_page",
                    kinds::VALUE,
                    format!(
                        "`stores_by_page` must be 1 to {MAX_STORES_BY_PAGE}, got {}",
                        self.stores_by_page
                    ),
                )
            },
        );
        c.check(self.page >= 1, || {
            FieldError::invalid(Loc::Query, "page", kinds::VALUE, "`page` starts at 1")
        });
        c.check(
            self.timestamp
                .is_none_or(|t| chrono::DateTime::from_timestamp(t, 0).is_some()),
            || {
                FieldError::invalid(
                    Loc::Query,
                    "timestamp",
                    kinds::VALUE,
                    "`timestamp` is out of range: give UTC seconds since 1970",
                )
            },
        );
        c.check(!self.zone || self.center.is_some(), || {
            FieldError::invalid(
                Loc::Query,
                "zone",
                kinds::MISSING,
                "`zone=true` needs the point to look up: give `lat` and `lng`",
            )
        });
        check_open(&mut c, self.open_now, self.open_at);
        c.finish()
    }
}

/// Answer of stores search: `{features}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct StoresSearchResponse {
    /// Always `FeatureCollection`.
    #[serde(rename = "type", default = "feature_collection")]
    pub kind: String,
    /// The stores of the page.
    pub features: Vec<StoreFeature>,
    /// Not shown in the spec: where the page stands.
    #[serde(default)]
    pub pagination: StoresPagination,
}

fn feature_collection() -> String {
    "FeatureCollection".into()
}

/// The page of a store search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct StoresPagination {
    /// This page, from 1.
    pub page: u32,
    /// Number of pages (0 when nothing matches).
    #[serde(rename = "pageCount")]
    pub page_count: u32,
    /// Number of matching stores.
    pub total: u32,
}

/// A store as a GeoJSON feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct StoreFeature {
    /// Always `Feature`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The store.
    pub properties: StoreProperties,
    /// Its location.
    pub geometry: PointGeometry,
}

/// Properties of a store feature. The spec shows a store id, a name, an address with lines, city
/// and zipcode, and a distance; not shown in the spec: their exact names (chosen below) and the
/// other fields, which are those the query language filters on (`types`, `tags`, country code,
/// `user_properties`, localized names).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct StoreProperties {
    /// Id of the store (`idstore` in the query language).
    pub store_id: String,
    /// Name.
    pub name: String,
    /// Postal address.
    pub address: StoreAddress,
    /// Distance in metres to the bias centre, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance: Option<f64>,
    /// Collections the store belongs to (`type` in the query language).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<String>,
    /// Tags of the store (`tag` in the query language).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Names in other languages, by language code (`localized` in the query language).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localized_names: Option<JsonObject>,
    /// Free-form properties (`user.<attribute>` in the query language).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_properties: Option<JsonObject>,
    /// Not shown in the spec: phone, email, website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact: Option<JsonObject>,
    /// Not shown in the spec: opening hours as imported (`timezone`, `usual`, `special`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_hours: Option<JsonObject>,
    /// Not shown in the spec: whether the store is open at the time of the request, in its
    /// timezone (absent when its hours are unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<StoreOpen>,
}

/// Whether a store is open now, from its opening hours in its timezone.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct StoreOpen {
    /// Open at the time of the request.
    pub open_now: bool,
    /// The store's timezone (tz database name).
    pub timezone: String,
    /// Today's opening ranges (`HH:MM-HH:MM`) in the store's local time; empty when closed
    /// all day.
    pub today: Vec<String>,
    /// When the store next opens (local date and time, `YYYY-MM-DDTHH:MM`), within a week;
    /// absent when open now or never open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_opening: Option<String>,
    /// When the current opening range ends (local `YYYY-MM-DDTHH:MM`), when open now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closes_at: Option<String>,
}

/// Postal address of a store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct StoreAddress {
    /// Street lines.
    pub lines: Vec<String>,
    /// City.
    pub city: String,
    /// Postal code.
    pub zipcode: String,
    /// Not shown in the spec: ISO 3166-1 alpha-2 country code (`country` in the query language).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_code: Option<String>,
}

/// `GET /stores/search/bounds` (public key with Referer, or `private_key`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct StoresBoundsRequest {
    /// Query-language text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub query: Option<String>,
    /// Bias centre: query parameters `lat` and `lng`, given together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(read = read_center, params = "lat, lng")]
    pub center: Option<LatLng>,
    /// Radius in metres, combined with the centre or the polyline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub radius: Option<f64>,
    /// Not shown in the spec (the parameter name): encoded polyline (precision 5) combined with
    /// `radius`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub encoded_polyline: Option<String>,
    /// Not shown in the spec: `true` bounds only the stores one of whose zones contains the
    /// centre, as the search does; needs `lat`/`lng`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub zone: bool,
    /// Not shown in the spec: `true` bounds only the stores open at the time of the request,
    /// as the search keeps them. Not with `open_at` (both given: 422).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub open_now: bool,
    /// Not shown in the spec: bounds only the stores open at this instant (UTC seconds since
    /// 1970), as the search keeps them. Not with `open_now`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub open_at: Option<i64>,
}

impl Validate for StoresBoundsRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("radius", crate::api::validation::rule::positive()),
            ("lat", crate::api::validation::rule::range(-90.0, 90.0)),
            ("lng", crate::api::validation::rule::range(-180.0, 180.0)),
            ("open_at", instant_rule()),
        ]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_center_radius(&mut c, self.center.as_ref(), self.radius);
        check_polyline_radius(&mut c, self.encoded_polyline.as_deref(), self.radius);
        check_radius_anchor(
            &mut c,
            self.center.as_ref(),
            self.encoded_polyline.as_deref(),
            self.radius,
        );
        c.check(!self.zone || self.center.is_some(), || {
            FieldError::invalid(
                Loc::Query,
                "zone",
                kinds::MISSING,
                "`zone=true` needs the point to look up: give `lat` and `lng`",
            )
        });
        check_open(&mut c, self.open_now, self.open_at);
        c.finish()
    }
}

/// Answer of bounds: `{bounds}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct StoresBoundsResponse {
    /// Bounds of the matching stores.
    pub bounds: AssetBounds,
}

/// Bounds of a set of assets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AssetBounds {
    /// Western longitude.
    pub west: f64,
    /// Southern latitude.
    pub south: f64,
    /// Eastern longitude.
    pub east: f64,
    /// Northern latitude.
    pub north: f64,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::{RequestHeaders, pairs};
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use serde_json::json;

    #[test]
    fn responses_round_trip() {
        let b: StoresBoundsResponse = round_trip(json!({
            "bounds": {"west": 2.25, "south": 48.8, "east": 2.45, "north": 48.9}
        }));
        assert_eq!(b.bounds.north, 48.9);
        let s: StoresSearchResponse = round_trip(json!({
            "type": "FeatureCollection",
            "pagination": {"page": 1, "pageCount": 1, "total": 1},
            "features": [{
                "type": "Feature",
                "properties": {
                    "store_id": "S1",
                    "name": "Main street store",
                    "address": {"lines": ["1 Main St"], "city": "Paris", "zipcode": "75001", "country_code": "FR"},
                    "distance": 120.5,
                    "types": ["shop"],
                    "tags": ["open-sunday"],
                    "user_properties": {"size": 3}
                },
                "geometry": {"type": "Point", "coordinates": [2.35, 48.85]}
            }]
        }));
        assert_eq!(s.features[0].properties.address.zipcode, "75001");
    }

    #[test]
    fn center_pair() {
        let h = RequestHeaders::default();
        let r =
            StoresSearchRequest::from_query(&pairs([("lat", "48.85"), ("lng", "2.35")]), &h, &[])
                .unwrap();
        assert_eq!(r.center, Some(LatLng::new(48.85, 2.35)));
        assert_eq!(r.stores_by_page, 10);
        assert_eq!(r.page, 1);
        let errs =
            StoresBoundsRequest::from_query(&pairs([("lat", "48.85")]), &h, &[]).unwrap_err();
        assert_errors(&errs, &[(json!(["query", "lng"]), kinds::MISSING)]);
        let errs = parse_valid::<StoresBoundsRequest>(
            &pairs([("lat", "48.85"), ("lng", "200"), ("radius", "-1")]),
            &h,
            &[],
            b"",
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "lng"]), kinds::COORDINATES),
                (json!(["query", "radius"]), kinds::VALUE),
            ],
        );
        let errs = StoresBoundsRequest::from_query(
            &pairs([("lat", "x"), ("lng", "2"), ("q", "1")]),
            &h,
            &[],
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "lat"]), kinds::FLOAT),
                (json!(["query", "q"]), kinds::EXTRA),
            ],
        );
    }
}
