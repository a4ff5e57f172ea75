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

use super::validation::{Checks, FieldError, Loc, is_alpha_code, kinds, parse_pipe_list, shown};

mod autocomplete;
mod details;
mod geocode;
mod nearby;

pub use autocomplete::*;
pub use details::*;
pub use geocode::*;
pub use nearby::*;

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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::validation::kinds;

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
}
