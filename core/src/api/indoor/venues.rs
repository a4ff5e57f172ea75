//! `GET /indoor/venues` (a Waymark extension): finding venues near a point or by name
//! ([`VenueListRequest`], [`VenueListResponse`]).

use serde::{Deserialize, Serialize};

use super::{IndoorPagination, VenueLevel};
use crate::api::common::LatLng;
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds};

/// The largest `radius`, metres.
pub const VENUE_LIST_MAX_RADIUS: u32 = 50_000;

/// `radius` when `near` is given without one, metres.
pub const VENUE_LIST_DEFAULT_RADIUS: u32 = 1_000;

/// `GET /indoor/venues` (K2; 20 per 1 s; a Waymark extension, not in the Location Platform
/// API): the venues of the installed packs, paged. With `near`, the venues within `radius`
/// metres of the point, nearest first (`radius=0`: the venues the point is in, the smallest
/// first: "which venue am I in"); with `q`, the venues whose name or building names hold
/// every word of `q`; with neither, every venue by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct VenueListRequest {
    /// `lat,lng`: list the venues around this point, nearest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub near: Option<LatLng>,
    /// Metres around `near` (default 1000, at most 50000); 0 lists the venues whose outline
    /// holds the point. Only with `near`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub radius: Option<u32>,
    /// Words of the venue's name (or of one of its buildings' names); each word matches the
    /// start of a word, ignoring case and accents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub q: Option<String>,
    /// Venues per page; 0 (the default) means no pagination.
    #[serde(default)]
    pub items_by_page: u32,
    /// Page number; the first page is 0 (the default).
    #[serde(default)]
    pub page: u32,
}

impl Validate for VenueListRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        use crate::api::validation::rule;
        vec![
            (
                "radius",
                rule::int_range(0, i64::from(VENUE_LIST_MAX_RADIUS)),
            ),
            ("q", rule::not_blank()),
        ]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        if let Some(p) = &self.near {
            c.latlng(Loc::Query, "near", p);
        }
        if let Some(r) = self.radius {
            c.check(self.near.is_some(), || {
                FieldError::invalid(
                    Loc::Query,
                    "radius",
                    kinds::VALUE,
                    "radius is the distance around `near`: give `near=lat,lng` with it",
                )
            });
            c.check(r <= VENUE_LIST_MAX_RADIUS, || {
                FieldError::invalid(
                    Loc::Query,
                    "radius",
                    kinds::VALUE,
                    format!("radius must be at most {VENUE_LIST_MAX_RADIUS} m, got {r}"),
                )
            });
        }
        if let Some(q) = &self.q {
            c.check(!q.trim().is_empty(), || {
                FieldError::invalid(
                    Loc::Query,
                    "q",
                    kinds::VALUE,
                    "q is empty: give words of a venue's name, or leave q out",
                )
            });
        }
        c.finish()
    }
}

/// A venue in a list: what finding it needs (the whole venue is `GET /indoor/venues/{venue_id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct VenueSummary {
    /// Venue id.
    pub venue_id: String,
    /// Name.
    pub name: String,
    /// Bounding box `[west, south, east, north]`.
    pub bbox: Vec<f64>,
    /// Levels.
    #[serde(default)]
    pub levels: Vec<VenueLevel>,
    /// Metres from `near` to the venue (0 inside it), when `near` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub distance: Option<f64>,
}

/// Answer of `GET /indoor/venues`: `{pagination, venues}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct VenueListResponse {
    /// Page information (`total`: venues in all pages).
    pub pagination: IndoorPagination,
    /// The venues of the page.
    pub venues: Vec<VenueSummary>,
}
