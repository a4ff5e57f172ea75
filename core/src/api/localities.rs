//! Localities group (`/localities`): place autocomplete, place details, geocoding and reverse
//! geocoding, nearby points of interest.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /localities/autocomplete` | [`AutocompleteRequest`] | [`AutocompleteResponse`] |
//! | `GET /localities/details` | [`DetailsRequest`] | [`DetailsResponse`] |
//! | `GET /localities/geocode` | [`GeocodeRequest`] | [`GeocodeResponse`] |
//! | `GET /localities/nearby` | [`NearbyRequest`] | [`NearbyResponse`] |
//!
//! Place types in requests and results are strings (results may hold values outside the
//! vocabularies); [`crate::api::PlaceType::parse`] classifies them.
//!
//! ```
//! use waymark_core::api::{AutocompleteRequest, FromQuery, RequestHeaders, pairs};
//!
//! let q = pairs([("input", "Paris"), ("types", "locality|postal_code"), ("location", "48.8,2.3")]);
//! let req = AutocompleteRequest::from_query(&q, &RequestHeaders::default(), &[]).unwrap();
//! assert_eq!(req.types, ["locality", "postal_code"]);
//! assert_eq!(req.radius, 100_000); // the spec's default
//! ```

use serde::{Deserialize, Serialize};

use super::common::{AddressComponent, LatLng, Viewport};
use super::query::{FromQuery, QueryReader};
use super::validation::{
    Checks, FieldError, Loc, Validate, is_alpha_code, kinds, parse_pipe_list, shown,
};
use super::vocab::{
    Accuracy, AddressStatus, AutocompleteData, AutocompleteExtended, CcFormat, DetailsField,
    ShapeType,
};

/// Maximum length of autocomplete `input`, in characters.
pub const AUTOCOMPLETE_INPUT_MAX_CHARS: usize = 150;
/// Only the first tokens of autocomplete `input` are processed.
pub const AUTOCOMPLETE_INPUT_MAX_TOKENS: usize = 20;
/// Minimum autocomplete `radius`, in metres.
pub const AUTOCOMPLETE_RADIUS_MIN: u32 = 10;

fn default_autocomplete_types() -> Vec<String> {
    vec!["locality".to_owned(), "postal_code".to_owned()]
}

fn default_autocomplete_radius() -> u32 {
    100_000
}

fn default_nearby_radius() -> u32 {
    1000
}

fn default_page() -> u32 {
    1
}

fn default_limit() -> u32 {
    10
}

/// A country filter of `components`: `country:<ISO 3166-1 alpha-2 or alpha-3 code>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "snake_case")]
pub enum ComponentFilter {
    /// `country:<code>`, the code as given (2 or 3 letters).
    Country(String),
}

/// Why a `components` filter does not parse ([`ComponentFilter::parse`]); each holds the
/// text as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComponentFilterError {
    /// `country:<code>` with a code that is not 2 or 3 letters.
    #[error("invalid country code {}: give an ISO 3166-1 alpha-2 or alpha-3 code", shown(.0))]
    CountryCode(String),
    /// Not a `country:<code>` filter.
    #[error("invalid component filter {}: give `country:<code>`, several joined by `|`", shown(.0))]
    Filter(String),
}

impl ComponentFilter {
    /// Parses one filter, `country:fr` or `country:FRA`.
    pub fn parse(s: &str) -> Result<Self, ComponentFilterError> {
        match s.split_once(':') {
            Some((kind, code)) if kind.trim() == "country" => {
                let code = code.trim();
                if is_alpha_code(code, &[2, 3]) {
                    Ok(Self::Country(code.to_owned()))
                } else {
                    Err(ComponentFilterError::CountryCode(code.to_owned()))
                }
            }
            _ => Err(ComponentFilterError::Filter(s.to_owned())),
        }
    }

    /// Whether the filter uses an alpha-3 code (this decides the default `cc_format`).
    pub fn is_alpha3(&self) -> bool {
        match self {
            Self::Country(code) => code.len() == 3,
        }
    }
}

/// Parses `components`: filters joined by `|`.
pub fn parse_components(loc: Loc, name: &str, s: &str) -> Result<Vec<ComponentFilter>, FieldError> {
    parse_pipe_list(loc, name, s)?
        .iter()
        .map(|item| {
            ComponentFilter::parse(item)
                .map_err(|e| FieldError::invalid(loc, name, kinds::VALUE, e.to_string()))
        })
        .collect()
}

/// One entry of `custom_description`: `<type>:"{field}, {field}"`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct CustomDescription {
    /// The place type the format applies to.
    #[serde(rename = "type")]
    pub place_type: String,
    /// The format between the quotes, e.g. `{name}, {postal_code}`.
    pub format: String,
}

/// Parses `custom_description`: `<type>:"<format>"` entries joined by `|` (a `|` inside the
/// quotes belongs to the format).
pub fn parse_custom_descriptions(
    loc: Loc,
    name: &str,
    s: &str,
) -> Result<Vec<CustomDescription>, FieldError> {
    let bad = |msg: String| FieldError::invalid(loc, name, kinds::VALUE, msg);
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            '|' if !quoted => items.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    if quoted {
        return Err(bad(
            "unclosed quote: give `<type>:\"{field}, {field}\"`".to_owned()
        ));
    }
    items.push(current);
    items
        .iter()
        .map(|item| {
            let item = item.trim();
            let parsed = item.split_once(':').and_then(|(t, f)| {
                let f = f.trim().strip_prefix('"')?.strip_suffix('"')?;
                let t = t.trim();
                (!t.is_empty()).then(|| CustomDescription {
                    place_type: t.to_owned(),
                    format: f.to_owned(),
                })
            });
            parsed.ok_or_else(|| {
                bad(format!(
                    "invalid custom description {}: give `<type>:\"{{field}}, {{field}}\"`, several joined by `|`",
                    shown(item)
                ))
            })
        })
        .collect()
}

/// Checks an optional two-letter language code (ISO 639-1).
fn check_language(checks: &mut Checks, language: Option<&str>) {
    if let Some(lang) = language {
        checks.check(is_alpha_code(lang, &[2]), || {
            FieldError::invalid(
                Loc::Query,
                "language",
                kinds::VALUE,
                format!(
                    "invalid language {}: give a two-letter iso 639-1 code such as `en`",
                    shown(lang)
                ),
            )
        });
    }
}

/// `GET /localities/autocomplete` (K1; 50 per 1 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AutocompleteRequest {
    /// Required text; at most 150 characters, only the first 20 tokens are processed.
    pub input: String,
    /// Types to search, from the locality, point-of-interest and alias vocabularies. Default
    /// `locality|postal_code`.
    #[serde(default = "default_autocomplete_types")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub types: Vec<String>,
    /// Types to leave out (same vocabularies). Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub excluded_types: Vec<String>,
    /// Country filters. Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_components)]
    pub components: Vec<ComponentFilter>,
    /// Two-letter ISO 639-1 code; when absent: `Accept-Language`, locale default, English.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<String>,
    /// Bias centre.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub location: Option<LatLng>,
    /// Bias radius in metres, at least 10. Default 100000. Results outside may still appear.
    #[serde(default = "default_autocomplete_radius")]
    pub radius: u32,
    /// `standard` (default) or `advanced`.
    #[serde(default)]
    pub data: AutocompleteData,
    /// `postal_code`: search locality names sharing a postal code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub extended: Option<AutocompleteExtended>,
    /// Description formats per type. Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_custom_descriptions)]
    pub custom_description: Vec<CustomDescription>,
    /// Header `Accept-Language`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header)]
    pub accept_language: Option<String>,
}

impl Default for AutocompleteRequest {
    fn default() -> Self {
        Self {
            input: String::new(),
            types: default_autocomplete_types(),
            excluded_types: Vec::new(),
            components: Vec::new(),
            language: None,
            location: None,
            radius: default_autocomplete_radius(),
            data: AutocompleteData::default(),
            extended: None,
            custom_description: Vec::new(),
            accept_language: None,
        }
    }
}

impl Validate for AutocompleteRequest {
    /// `radius` at least 10, `location` in range, `language` two letters. The length of
    /// `input` is left to the engine (the spec allows truncating it).
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.check(self.radius >= AUTOCOMPLETE_RADIUS_MIN, || {
            FieldError::invalid(
                Loc::Query,
                "radius",
                kinds::VALUE,
                format!(
                    "radius too small: give at least {AUTOCOMPLETE_RADIUS_MIN} metres, got {}",
                    self.radius
                ),
            )
        });
        if let Some(p) = &self.location {
            c.latlng(Loc::Query, "location", p);
        }
        check_language(&mut c, self.language.as_deref());
        c.finish()
    }
}

/// Answer of autocomplete: `{localities: [suggestion]}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AutocompleteResponse {
    /// Suggestions, best first.
    pub localities: Vec<LocalitySuggestion>,
}

/// One autocomplete suggestion.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LocalitySuggestion {
    /// Unique id of the suggestion; the input of details.
    pub public_id: String,
    /// Types of the result.
    pub types: Vec<String>,
    /// Deprecated, replaced by `types`: the first of `types`.
    #[serde(rename = "type")]
    pub deprecated_type: String,
    /// Name, first-level and country-level administrative names concatenated (format varies by
    /// type and by `custom_description`).
    pub description: String,
    /// Where `input` matches `description`.
    pub matched_substrings: MatchedSubstrings,
    /// Related postal codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related: Option<Related>,
    /// Not shown in the spec (its "seventh property"): distance in metres from the `location`
    /// bias, present when `location` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_meters: Option<u64>,
}

/// `matched_substrings` of a suggestion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MatchedSubstrings {
    /// Substrings of `description` that match `input`.
    pub description: Vec<Substring>,
}

/// A substring: start `offset` and `length`, in characters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Substring {
    /// Length in characters.
    pub length: u32,
    /// Start, in characters from the beginning.
    pub offset: u32,
}

/// `related` of a suggestion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Related {
    /// Postal codes related to the suggestion.
    pub postal_codes: Vec<RelatedPostalCode>,
}

/// A postal code related to a suggestion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RelatedPostalCode {
    /// Id usable with details.
    pub public_id: String,
    /// Not shown in the spec (its "second property"): the postal code as displayed, e.g.
    /// `75001`.
    pub description: String,
}

/// `GET /localities/details` (K1; 50 per 1 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DetailsRequest {
    /// Required: a `public_id` from autocomplete (or geocode, nearby, UK address lists).
    pub public_id: String,
    /// Parts to return. Default `geometry|address_components`.
    #[serde(default = "DetailsField::default_fields")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_details_fields)]
    pub fields: Vec<DetailsField>,
    /// Two-letter ISO 639-1 code, as in autocomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<String>,
    /// Country code format; see [`DetailsRequest::effective_cc_format`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub cc_format: Option<CcFormat>,
    /// Deprecated and turned off (31 December 2021): accepted for old clients, ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub page: Option<u32>,
    /// Deprecated and turned off (31 December 2021): accepted for old clients, ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub addresses_per_page: Option<u32>,
    /// Header `Accept-Language`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header)]
    pub accept_language: Option<String>,
}

impl Default for DetailsRequest {
    fn default() -> Self {
        Self {
            public_id: String::new(),
            fields: DetailsField::default_fields(),
            language: None,
            cc_format: None,
            page: None,
            addresses_per_page: None,
            accept_language: None,
        }
    }
}

impl DetailsRequest {
    /// `cc_format`, else `alpha2`: details has no `components` for the format to follow.
    pub fn effective_cc_format(&self) -> CcFormat {
        self.cc_format.unwrap_or_default()
    }
}

/// Parses `fields`: details fields joined by `|`.
pub fn parse_details_fields(
    loc: Loc,
    name: &str,
    s: &str,
) -> Result<Vec<DetailsField>, FieldError> {
    parse_pipe_list(loc, name, s)?
        .iter()
        .map(|item| super::validation::parse_enum::<DetailsField>(loc, name, item))
        .collect()
}

impl Validate for DetailsRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_language(&mut c, self.language.as_deref());
        c.finish()
    }
}

/// Answer of details: `{result: locality details}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DetailsResponse {
    /// The place.
    pub result: LocalityDetails,
}

/// A place in full (`result` of details).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LocalityDetails {
    /// Id of the place.
    pub public_id: String,
    /// Full address.
    pub formatted_address: String,
    /// Types of the place.
    pub types: Vec<String>,
    /// Location, viewport, shape and accuracy. Always present (it is required); `shape` only
    /// when `fields` asks for it.
    pub geometry: LocalityGeometry,
    /// Address components; an empty array when `fields` leaves them out (the field is required).
    /// Only part of the components are translated to the requested language.
    #[serde(default)]
    pub address_components: Vec<AddressComponent>,
    /// Postal code name, when the result is a postal code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Local English name of the administration level (`admin_level` results only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub administrative_area_label: Option<String>,
    /// `not_yet_built` for United Kingdom addresses flagged as not yet built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<AddressStatus>,
    /// Addresses of a United Kingdom postal code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addresses: Option<PostalCodeAddresses>,
}

/// `geometry` of a locality.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LocalityGeometry {
    /// Representative point.
    pub location: LatLng,
    /// Recommended viewport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
    /// Outline (when `fields` has `shape`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// Accuracy of `location`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<Accuracy>,
}

/// A GeoJSON-like outline: `{type: Polygon | MultiPoligon, coordinates}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Shape {
    /// `Polygon` or `MultiPoligon` (the spec's spelling).
    #[serde(rename = "type")]
    pub kind: ShapeType,
    /// GeoJSON coordinates: rings of `[lng, lat]` positions for a polygon, polygons of rings
    /// for a multipolygon.
    pub coordinates: ShapeCoordinates,
}

/// Coordinates of a [`Shape`]; the nesting depth tells the variant apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(untagged)]
pub enum ShapeCoordinates {
    /// Rings of positions (`Polygon`).
    Polygon(Vec<Vec<Vec<f64>>>),
    /// Polygons of rings of positions (`MultiPoligon`).
    MultiPolygon(Vec<Vec<Vec<Vec<f64>>>>),
}

/// `addresses` of a United Kingdom postal code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PostalCodeAddresses {
    /// Every address of the postal code.
    pub list: Vec<AddressListItem>,
    /// Deprecated: always one page holding every address (see
    /// [`AddressesPagination::single_page`]).
    pub pagination: AddressesPagination,
}

/// An address of a postal code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AddressListItem {
    /// Id usable with details on that address.
    pub public_id: String,
    /// The address.
    pub description: String,
}

/// Deprecated pagination of postal code addresses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AddressesPagination {
    /// Always 1.
    pub page: u32,
    /// Always 1.
    pub page_count: u32,
    /// The number of addresses.
    pub addresses_per_page: u32,
    /// The number of addresses.
    pub address_count: u32,
}

impl AddressesPagination {
    /// The only value the spec allows: page 1 of 1 holding all `count` addresses.
    pub fn single_page(count: u32) -> Self {
        Self {
            page: 1,
            page_count: 1,
            addresses_per_page: count,
            address_count: count,
        }
    }
}

/// `GET /localities/geocode` (K1; 50 per 1 s): exactly one of `address` (geocoding) or `latlng`
/// (reverse geocoding).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[query(extra = geocode_presence)]
pub struct GeocodeRequest {
    /// Address to geocode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub address: Option<String>,
    /// Point to reverse geocode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub latlng: Option<LatLng>,
    /// Parts to return, as in details. Default `geometry|address_components`.
    #[serde(default = "DetailsField::default_fields")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_details_fields)]
    pub fields: Vec<DetailsField>,
    /// Two-letter ISO 639-1 code, as in autocomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<String>,
    /// Not shown in the spec: country filters, as in autocomplete.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_components)]
    pub components: Vec<ComponentFilter>,
    /// Not shown in the spec: country code format, as in details; see
    /// [`GeocodeRequest::effective_cc_format`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub cc_format: Option<CcFormat>,
    /// Header `Accept-Language`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header)]
    pub accept_language: Option<String>,
}

impl Default for GeocodeRequest {
    fn default() -> Self {
        Self {
            address: None,
            latlng: None,
            fields: DetailsField::default_fields(),
            language: None,
            components: Vec::new(),
            cc_format: None,
            accept_language: None,
        }
    }
}

impl GeocodeRequest {
    /// `cc_format`; else the format used in `components` (alpha-3 when any filter uses a
    /// three-letter code); else `alpha2`.
    pub fn effective_cc_format(&self) -> CcFormat {
        match self.cc_format {
            Some(f) => f,
            None if self.components.iter().any(ComponentFilter::is_alpha3) => CcFormat::Alpha3,
            None => CcFormat::Alpha2,
        }
    }
}

/// "Exactly one of `address` or `latlng`" is a rule on presence: judged on the raw query, so
/// that a bad `latlng` is not also reported as missing.
fn geocode_presence(q: &QueryReader<'_>) -> Vec<FieldError> {
    if q.given("address") || q.given("latlng") {
        Vec::new()
    } else {
        vec![geocode_neither()]
    }
}

fn geocode_neither() -> FieldError {
    FieldError::invalid(
        Loc::Query,
        "address",
        kinds::MISSING,
        "field required: give `address` to geocode or `latlng` (`lat,lng`) to reverse geocode",
    )
}

impl Validate for GeocodeRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        match (&self.address, &self.latlng) {
            (None, None) => c.check(false, geocode_neither),
            (Some(_), Some(_)) => c.check(false, || {
                FieldError::invalid(
                    Loc::Query,
                    "latlng",
                    kinds::VALUE,
                    "give either `address` or `latlng`, not both",
                )
            }),
            (None, Some(p)) => c.latlng(Loc::Query, "latlng", p),
            (Some(_), None) => {}
        }
        check_language(&mut c, self.language.as_deref());
        c.finish()
    }
}

/// Not shown in the spec: the answer of geocode is `{results: [GeocodeResult]}`, best first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct GeocodeResponse {
    /// Matching places, best first (empty when nothing matches).
    pub results: Vec<GeocodeResult>,
}

/// Not shown in the spec: a geocoding result has the core fields of [`LocalityDetails`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct GeocodeResult {
    /// Id usable with details.
    pub public_id: String,
    /// Types of the place.
    pub types: Vec<String>,
    /// Full address.
    pub formatted_address: String,
    /// Location, viewport, shape (when asked) and accuracy.
    pub geometry: LocalityGeometry,
    /// Address components (empty when `fields` leaves them out).
    #[serde(default)]
    pub address_components: Vec<AddressComponent>,
}

/// `GET /localities/nearby` (K1): points of interest sorted by distance to `location`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyRequest {
    /// Required point-of-interest types.
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(form = "point-of-interest types joined by `|`")]
    pub types: Vec<String>,
    /// Required centre.
    pub location: LatLng,
    /// Radius in metres. Default 1000.
    #[serde(default = "default_nearby_radius")]
    pub radius: u32,
    /// Page number (first page 1). Default 1.
    #[serde(default = "default_page")]
    pub page: u32,
    /// Results per page. Default 10.
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Point-of-interest types to leave out. Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub excluded_types: Vec<String>,
}

impl Default for NearbyRequest {
    fn default() -> Self {
        Self {
            types: Vec::new(),
            location: LatLng::default(),
            radius: default_nearby_radius(),
            page: default_page(),
            limit: default_limit(),
            excluded_types: Vec::new(),
        }
    }
}

impl Validate for NearbyRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.check(!self.types.is_empty(), || {
            FieldError::missing_as(Loc::Query, "types", "point-of-interest types joined by `|`")
        });
        c.latlng(Loc::Query, "location", &self.location);
        for (name, v) in [
            ("radius", self.radius),
            ("page", self.page),
            ("limit", self.limit),
        ] {
            c.check(v >= 1, || {
                FieldError::invalid(
                    Loc::Query,
                    name,
                    kinds::VALUE,
                    format!("`{name}` must be at least 1"),
                )
            });
        }
        c.finish()
    }
}

/// Answer of nearby: `{results, pagination}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyResponse {
    /// Points of interest, nearest first.
    pub results: Vec<NearbyPoi>,
    /// Neighbouring pages.
    pub pagination: NearbyPagination,
}

/// Pagination of nearby; both fields are always present, `null` when there is no such page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyPagination {
    /// Next page number, or `null`.
    #[serde(default)]
    pub next_page: Option<u32>,
    /// Previous page number, or `null`.
    #[serde(default)]
    pub previous_page: Option<u32>,
}

/// A nearby point of interest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyPoi {
    /// Types of the point.
    pub types: Vec<String>,
    /// Name.
    pub name: String,
    /// Id usable with details.
    pub public_id: String,
    /// Location and viewport.
    pub geometry: NearbyGeometry,
    /// Address components.
    pub address_components: Vec<AddressComponent>,
    /// Deprecated, replaced by `types`: the same values.
    pub categories: Vec<String>,
    /// Full address.
    pub formatted_address: String,
}

/// `geometry` of a nearby point of interest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyGeometry {
    /// The point.
    pub location: LatLng,
    /// Viewport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::{RequestHeaders, pairs};
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use crate::api::vocab::CcFormat;
    use serde_json::json;

    fn headers() -> RequestHeaders {
        RequestHeaders::default()
    }

    #[test]
    fn autocomplete_response_round_trip() {
        let r: AutocompleteResponse = round_trip(json!({
            "localities": [{
                "public_id": "abc123",
                "types": ["locality", "city"],
                "type": "locality",
                "description": "Paris, Île-de-France, France",
                "matched_substrings": {"description": [{"length": 5, "offset": 0}]},
                "related": {"postal_codes": [{"public_id": "pc1", "description": "75001"}]},
                "distance_meters": 1200
            }, {
                "public_id": "def",
                "types": ["postal_code"],
                "type": "postal_code",
                "description": "75002 Paris",
                "matched_substrings": {"description": []}
            }]
        }));
        assert_eq!(r.localities[0].deprecated_type, "locality");
        assert_eq!(r.localities[0].distance_meters, Some(1200));
        assert_eq!(r.localities[1].related, None);
    }

    #[test]
    fn details_response_round_trip_with_every_field() {
        let r: DetailsResponse = round_trip(json!({
            "result": {
                "public_id": "pc-sw1a",
                "formatted_address": "SW1A 1AA, London, United Kingdom",
                "types": ["postal_code"],
                "geometry": {
                    "location": {"lat": 51.501, "lng": -0.141},
                    "viewport": {
                        "northeast": {"lat": 51.502, "lng": -0.140},
                        "southwest": {"lat": 51.500, "lng": -0.142}
                    },
                    "shape": {
                        "type": "MultiPoligon",
                        "coordinates": [[[[-0.142, 51.5], [-0.14, 51.5], [-0.14, 51.502], [-0.142, 51.5]]]]
                    },
                    "accuracy": "POSTAL_CODE"
                },
                "address_components": [
                    {"long_name": "SW1A 1AA", "short_name": "SW1A 1AA", "types": ["postal_code"]},
                    {"long_name": "United Kingdom", "short_name": "GBR", "types": ["country"]}
                ],
                "name": "SW1A 1AA",
                "administrative_area_label": "postcode",
                "status": "not_yet_built",
                "addresses": {
                    "list": [{"public_id": "a1", "description": "Buckingham Palace, London"}],
                    "pagination": {"page": 1, "page_count": 1, "addresses_per_page": 1, "address_count": 1}
                }
            }
        }));
        let d = r.result;
        let shape = d.geometry.shape.as_ref().unwrap();
        assert_eq!(shape.kind, ShapeType::MultiPoligon);
        assert!(matches!(
            shape.coordinates,
            ShapeCoordinates::MultiPolygon(_)
        ));
        assert_eq!(d.geometry.accuracy, Some(Accuracy::PostalCode));
        assert_eq!(d.status, Some(AddressStatus::NotYetBuilt));
        assert_eq!(
            d.addresses.unwrap().pagination,
            AddressesPagination::single_page(1)
        );
    }

    #[test]
    fn polygon_shape_and_minimal_details() {
        let d: LocalityDetails = round_trip(json!({
            "public_id": "p",
            "formatted_address": "Paris, France",
            "types": ["locality"],
            "geometry": {
                "location": {"lat": 48.85, "lng": 2.35},
                "shape": {"type": "Polygon", "coordinates": [[[2.2, 48.8], [2.4, 48.8], [2.4, 48.9], [2.2, 48.8]]]}
            },
            "address_components": []
        }));
        let shape = d.geometry.shape.unwrap();
        assert_eq!(shape.kind, ShapeType::Polygon);
        assert!(matches!(shape.coordinates, ShapeCoordinates::Polygon(_)));
        assert!(
            serde_json::from_value::<Shape>(json!({"type": "MultiPolygon", "coordinates": []}))
                .is_err(),
            "only the spec's spelling is accepted"
        );
    }

    #[test]
    fn geocode_and_nearby_round_trip() {
        let g: GeocodeResponse = round_trip(json!({
            "results": [{
                "public_id": "x",
                "types": ["address"],
                "formatted_address": "1 Rue de Rivoli, 75001 Paris, France",
                "geometry": {"location": {"lat": 48.86, "lng": 2.34}, "accuracy": "ROOFTOP"},
                "address_components": [{"long_name": "France", "short_name": "FR", "types": ["country"]}]
            }]
        }));
        assert_eq!(g.results.len(), 1);
        let n: NearbyResponse = round_trip(json!({
            "results": [{
                "types": ["business.food_and_drinks.cafe"],
                "name": "Café",
                "public_id": "poi1",
                "geometry": {"location": {"lat": 48.86, "lng": 2.34}},
                "address_components": [],
                "categories": ["business.food_and_drinks.cafe"],
                "formatted_address": "2 Rue, Paris"
            }],
            "pagination": {"next_page": 2, "previous_page": null}
        }));
        assert_eq!(n.pagination.previous_page, None);
        let v = serde_json::to_value(NearbyPagination::default()).unwrap();
        assert_eq!(v, json!({"next_page": null, "previous_page": null}));
    }

    #[test]
    fn autocomplete_query_full() {
        let q = pairs([
            ("input", "Par"),
            ("types", "locality|airport|business.shop"),
            ("excluded_types", "city"),
            ("components", "country:fr|country:BEL"),
            ("language", "fr"),
            ("location", "48.8,2.3"),
            ("radius", "5000"),
            ("data", "advanced"),
            ("extended", "postal_code"),
            (
                "custom_description",
                "locality:\"{name} | {postal_code}\"|postal_code:\"{name}\"",
            ),
            ("key", "pk"),
        ]);
        let h = RequestHeaders {
            accept_language: Some("de".into()),
            x_field_mask: None,
        };
        let r = AutocompleteRequest::from_query(&q, &h, &[]).unwrap();
        assert_eq!(r.types, ["locality", "airport", "business.shop"]);
        assert_eq!(
            r.components,
            [
                ComponentFilter::Country("fr".into()),
                ComponentFilter::Country("BEL".into())
            ]
        );
        assert_eq!(r.location, Some(LatLng::new(48.8, 2.3)));
        assert_eq!(r.radius, 5000);
        assert_eq!(r.data, AutocompleteData::Advanced);
        assert_eq!(r.extended, Some(AutocompleteExtended::PostalCode));
        assert_eq!(r.custom_description.len(), 2);
        assert_eq!(r.custom_description[0].format, "{name} | {postal_code}");
        assert_eq!(r.accept_language.as_deref(), Some("de"));
        let back: AutocompleteRequest =
            serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn autocomplete_defaults_and_errors() {
        let r = AutocompleteRequest::from_query(&pairs([("input", "x")]), &headers(), &[]).unwrap();
        assert_eq!(
            r,
            AutocompleteRequest {
                input: "x".into(),
                ..Default::default()
            }
        );
        let from_json: AutocompleteRequest = serde_json::from_value(json!({"input": "x"})).unwrap();
        assert_eq!(from_json, r);

        let q = pairs([
            ("types", "locality||city"),
            ("radius", "5"),
            ("location", "100,2"),
            ("components", "pays:fr"),
            ("data", "premium"),
            ("foo", "1"),
        ]);
        let errs = AutocompleteRequest::from_query(&q, &headers(), &[]).unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "input"]), kinds::MISSING),
                (json!(["query", "types"]), kinds::VALUE),
                (json!(["query", "components"]), kinds::VALUE),
                (json!(["query", "location"]), kinds::COORDINATES),
                (json!(["query", "data"]), kinds::ENUM),
                (json!(["query", "foo"]), kinds::EXTRA),
            ],
        );
        // the rules run at validation (the engine), once parsing succeeded
        let errs = parse_valid::<AutocompleteRequest>(
            &pairs([("input", "x"), ("radius", "5"), ("language", "fra")]),
            &headers(),
            &[],
            b"",
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "radius"]), kinds::VALUE),
                (json!(["query", "language"]), kinds::VALUE),
            ],
        );
        assert!(errs[0].msg.contains("at least 10"), "{}", errs[0].msg);
    }

    #[test]
    fn component_filter_errors() {
        assert_eq!(
            ComponentFilter::parse(" country : fr"),
            Ok(ComponentFilter::Country("fr".into()))
        );
        let e = ComponentFilter::parse("country:FRAN").unwrap_err();
        assert_eq!(e, ComponentFilterError::CountryCode("FRAN".into()));
        assert!(
            e.to_string().starts_with("invalid country code `FRAN`"),
            "{e}"
        );
        let e = ComponentFilter::parse("pays:fr").unwrap_err();
        assert_eq!(e, ComponentFilterError::Filter("pays:fr".into()));
        let e = parse_components(Loc::Query, "components", "country:fr|x").unwrap_err();
        assert_eq!(e.kind, kinds::VALUE);
        assert!(
            e.msg.starts_with("invalid component filter `x`"),
            "{}",
            e.msg
        );
    }

    #[test]
    fn custom_description_errors() {
        assert!(parse_custom_descriptions(Loc::Query, "c", "locality:\"{name}").is_err());
        assert!(parse_custom_descriptions(Loc::Query, "c", "locality:{name}").is_err());
        assert!(parse_custom_descriptions(Loc::Query, "c", ":\"{name}\"").is_err());
    }

    #[test]
    fn details_query() {
        let r = DetailsRequest::from_query(
            &pairs([
                ("public_id", "abc"),
                ("fields", "geometry|shape"),
                ("cc_format", "alpha3"),
                ("page", "2"),
            ]),
            &headers(),
            &[],
        )
        .unwrap();
        assert_eq!(r.fields, [DetailsField::Geometry, DetailsField::Shape]);
        assert_eq!(r.effective_cc_format(), CcFormat::Alpha3);
        assert_eq!(r.page, Some(2));
        let r =
            DetailsRequest::from_query(&pairs([("public_id", "abc")]), &headers(), &[]).unwrap();
        assert_eq!(r.fields, DetailsField::default_fields());
        assert_eq!(r.effective_cc_format(), CcFormat::Alpha2);
        let errs = DetailsRequest::from_query(
            &pairs([("fields", "geometry|outline"), ("cc_format", "alpha4")]),
            &headers(),
            &[],
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "public_id"]), kinds::MISSING),
                (json!(["query", "fields"]), kinds::ENUM),
                (json!(["query", "cc_format"]), kinds::ENUM),
            ],
        );
    }

    #[test]
    fn geocode_query_exactly_one() {
        let r = GeocodeRequest::from_query(
            &pairs([
                ("address", "1 rue de rivoli"),
                ("components", "country:FRA"),
            ]),
            &headers(),
            &[],
        )
        .unwrap();
        assert_eq!(r.effective_cc_format(), CcFormat::Alpha3);
        let r =
            GeocodeRequest::from_query(&pairs([("latlng", "48.8,2.3")]), &headers(), &[]).unwrap();
        assert_eq!(r.latlng, Some(LatLng::new(48.8, 2.3)));
        assert_eq!(r.effective_cc_format(), CcFormat::Alpha2);

        let errs = GeocodeRequest::from_query(&pairs([]), &headers(), &[]).unwrap_err();
        assert_errors(&errs, &[(json!(["query", "address"]), kinds::MISSING)]);
        let errs = parse_valid::<GeocodeRequest>(
            &pairs([("address", "x"), ("latlng", "1,2")]),
            &headers(),
            &[],
            b"",
        )
        .unwrap_err();
        assert_errors(&errs, &[(json!(["query", "latlng"]), kinds::VALUE)]);
        let errs =
            GeocodeRequest::from_query(&pairs([("latlng", "1,200")]), &headers(), &[]).unwrap_err();
        assert_errors(&errs, &[(json!(["query", "latlng"]), kinds::COORDINATES)]);
    }

    #[test]
    fn nearby_query() {
        let r = NearbyRequest::from_query(
            &pairs([("types", "park|beach"), ("location", "43.7,7.26")]),
            &headers(),
            &[],
        )
        .unwrap();
        assert_eq!((r.radius, r.page, r.limit), (1000, 1, 10));
        let errs = NearbyRequest::from_query(
            &pairs([("location", "43.7"), ("radius", "-3"), ("limit", "0")]),
            &headers(),
            &[],
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "types"]), kinds::MISSING),
                (json!(["query", "location"]), kinds::COORDINATES),
                (json!(["query", "radius"]), kinds::VALUE),
            ],
        );
    }
}
