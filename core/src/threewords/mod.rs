//! The three-word addresses group: conversion of a coordinate to its address and suggestions
//! for a partly typed or spoken address, over the three-word layer of the installed packs
//! (scheme version 3: `docs/adr/0003-three-word-addresses.md`, `docs/adr/0009-three-word-scheme-v3.md`).
//!
//! **Convert.** The coordinate's ≈ 3 m square of the grid gives, through the scheme (its
//! tile's class signature, its kind of square, keyed permutation, shells of class indices),
//! three word ranks; the language's list names them.
//! The answer adds the square, its centre, the country holding the centre (`ZZ` at sea), the
//! nearest populated place and a `geo:` URI of the centre as `map` (RFC 5870, opened by the
//! phone's own map app offline; see docs/decisions/three-word-addresses.md).
//!
//! **Convert to coordinates** (Waymark): the three words' ranks give, through the scheme
//! backwards, the square; the answer is convert-to-3wa's for that square.
//!
//! **Autosuggest.** The input is split into three words ([`suggest::parse_input`]); each full
//! word brings its spelling neighbours (one edit, plural/singular, homophones heard by voice
//! input, other forms of the stem), the third its completions; combinations, in the order
//! typed and, when the third word is whole, in the other orders, are converted back to squares, clipped,
//! scored by how much of the input they change, distance to `focus` and `prefer-land`, and the
//! best three are answered with distinct ranks (see [`suggest`]).
pub mod index;
pub mod near;
pub mod nearest;
pub mod suggest;
pub mod typos;

use std::sync::Arc;

use crate::api::{
    AutosuggestRequest, AutosuggestResponse, ConvertTo3waRequest, ConvertTo3waResponse,
    ConvertToCoordinatesRequest, ConvertToCoordinatesResponse, JsonObject, LatLng,
    ThreeWordsAddress, ThreeWordsFeature, ThreeWordsFeatureCollection, ThreeWordsFormat,
    ThreeWordsProperties, Viewport,
};
use crate::api::{FieldError, Loc, kinds};
use crate::error::ApiError;
use crate::geo::Pt;
use crate::operation::Call;
use crate::packs::PackSet;
use crate::packs::registry::PackSetCache;

pub use index::{ThreeWordsIndex, Words};
use waymark_threewords::grid::Square;

/// Decimal places of the coordinates of an answer (0.1 m, finer than the 3 m squares).
const DECIMALS: i32 = 6;

fn round6(v: f64) -> f64 {
    let f = 10f64.powi(DECIMALS);
    (v * f).round() / f
}

/// The three-word service of an engine.
#[derive(Debug, Default)]
pub struct ThreeWords {
    indexes: PackSetCache<ThreeWordsIndex>,
}

/// What an answer says of one square.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    /// The address.
    pub words: String,
    /// ISO 3166-1 alpha-2 code, `ZZ` at sea.
    pub country: String,
    /// Nearest populated place.
    pub nearest_place: String,
    /// Centre of the square.
    pub centre: Pt,
    /// `[south, west, north, east]`.
    pub bounds: [f64; 4],
}

/// The `geo:` URI of a point (RFC 5870), with the square's half-diagonal as uncertainty.
pub fn map_link(p: Pt) -> String {
    format!("geo:{},{};u=3", round6(p.lat), round6(p.lng))
}

/// 422 at `language` when the layer has no list for it.
pub fn words_of<'a>(
    index: &'a ThreeWordsIndex,
    language: &str,
    field: &str,
) -> Result<&'a Words, ApiError> {
    index.languages.get(language).ok_or_else(|| {
        let mut known: Vec<&str> = index.languages.keys().map(String::as_str).collect();
        known.sort_unstable();
        ApiError::validation(vec![FieldError::invalid(
            Loc::Query,
            field,
            kinds::VALUE,
            format!(
                "no three-word list for language `{language}`: the installed lists are {}",
                known.join(", ")
            ),
        )])
    })
}

impl ThreeWords {
    /// The layer of `set`; 503 when no installed pack has it.
    pub fn index(&self, set: Arc<PackSet>) -> Result<Arc<ThreeWordsIndex>, ApiError> {
        self.indexes.get_or_build(set, ThreeWordsIndex::load)
    }

    /// `GET /threewords/convert-to-3wa`.
    pub fn convert(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &ConvertTo3waRequest,
    ) -> Result<ConvertTo3waResponse, ApiError> {
        let index = self.index(set)?;
        let words = words_of(&index, &req.language, "language")?;
        let square = index
            .grid()
            .square(req.coordinates.lat, req.coordinates.lng)
            .ok_or_else(|| {
                ApiError::validation(vec![FieldError::invalid(
                    Loc::Query,
                    "coordinates",
                    kinds::COORDINATES,
                    "coordinates out of range".to_owned(),
                )])
            })?;
        call.charge()?;
        let ranks = index.scheme.triple(square);
        Ok(answer(&index, words, square, ranks, req.format))
    }

    /// `GET /threewords/convert-to-coordinates`: the square of three words of the list of
    /// `language`. 422 at `words` when the input is not three words of letters; 404 naming the
    /// first word that is not in the list (or saying that the three name no square).
    pub fn to_coordinates(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &ConvertToCoordinatesRequest,
    ) -> Result<ConvertToCoordinatesResponse, ApiError> {
        let index = self.index(set)?;
        let words = words_of(&index, &req.language, "language")?;
        let typed = suggest::parse_address(&req.words)?;
        let mut ranks = [0u64; 3];
        for (slot, word) in ranks.iter_mut().zip(&typed) {
            let Some(&rank) = words.rank.get(word.as_str()) else {
                return Err(ApiError::not_found(format!(
                    "`{word}` is not a word of the `{}` three-word list: check its spelling \
                     (autosuggest finds the address from a mistyped word)",
                    words.language
                )));
            };
            *slot = u64::from(rank);
        }
        let square = index.scheme.square(ranks).ok_or_else(|| {
            ApiError::not_found(format!(
                "`{}` names no square: no address of scheme v{} has these three words in \
                 this order (autosuggest finds the address from mixed-up words)",
                typed.join("."),
                waymark_threewords::SCHEME_VERSION
            ))
        })?;
        call.charge()?;
        Ok(answer(&index, words, square, ranks, req.format))
    }

    /// `GET /threewords/autosuggest`.
    pub fn autosuggest(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &AutosuggestRequest,
    ) -> Result<AutosuggestResponse, ApiError> {
        let index = self.index(set)?;
        let words = words_of(&index, req.language.as_deref().unwrap_or("en"), "language")?;
        let unknown: Vec<&String> = req
            .clip_to_country
            .iter()
            .filter(|c| !index.knows_country(&c.to_ascii_uppercase()))
            .collect();
        if !unknown.is_empty() {
            return Err(ApiError::validation(
                unknown
                    .into_iter()
                    .map(|c| {
                        FieldError::invalid(
                            Loc::Query,
                            "clip-to-country",
                            kinds::VALUE,
                            format!("unknown country code `{c}`: give iso 3166-1 alpha-2 codes of existing countries"),
                        )
                    })
                    .collect(),
            ));
        }
        let input = suggest::parse_input(&req.input, req.input_type)?;
        call.charge()?;
        let suggestions = match input {
            Some(input) => suggest::suggest(&index, words, &input, req),
            None => Vec::new(),
        };
        Ok(AutosuggestResponse { suggestions })
    }
}

/// The convert answer of `square`, named by word ranks `ranks`, in `format`.
fn answer(
    index: &ThreeWordsIndex,
    words: &Words,
    square: Square,
    ranks: [u64; 3],
    format: ThreeWordsFormat,
) -> ConvertTo3waResponse {
    let at = locate_named(index, words, square, ranks);
    let map = map_link(at.centre);
    let [south, west, north, east] = at.bounds.map(round6);
    match format {
        ThreeWordsFormat::Json => ConvertTo3waResponse::Json(ThreeWordsAddress {
            country: at.country,
            nearest_place: at.nearest_place,
            words: at.words,
            language: words.language.clone(),
            map,
            locale: None,
            square: Viewport {
                southwest: LatLng::new(south, west),
                northeast: LatLng::new(north, east),
            },
            coordinates: LatLng::new(round6(at.centre.lat), round6(at.centre.lng)),
        }),
        ThreeWordsFormat::Geojson => {
            let geometry = match serde_json::json!({
                "type": "Point",
                "coordinates": [round6(at.centre.lng), round6(at.centre.lat)],
            }) {
                serde_json::Value::Object(m) => JsonObject::from(m),
                _ => JsonObject::new(),
            };
            ConvertTo3waResponse::GeoJson(ThreeWordsFeatureCollection {
                kind: "FeatureCollection".into(),
                features: vec![ThreeWordsFeature {
                    bbox: vec![west, south, east, north],
                    geometry,
                    kind: "Feature".into(),
                    properties: ThreeWordsProperties {
                        country: at.country,
                        nearest_place: at.nearest_place,
                        words: at.words,
                        language: words.language.clone(),
                        map,
                        locale: None,
                    },
                }],
            })
        }
    }
}

/// Everything an answer says of `square` in the language of `words`.
pub fn locate(index: &ThreeWordsIndex, words: &Words, square: Square) -> Located {
    locate_named(index, words, square, index.scheme.triple(square))
}

/// [`locate`] of a square whose word ranks `ranks` are known (words converted back, or a
/// suggestion): the scheme is not asked for them again.
pub fn locate_named(
    index: &ThreeWordsIndex,
    words: &Words,
    square: Square,
    ranks: [u64; 3],
) -> Located {
    let (lat, lng) = index.grid().centre(square);
    let centre = Pt::new(lat, lng);
    Located {
        words: words.address(ranks),
        country: index.country_at(centre).to_owned(),
        nearest_place: index
            .nearest_place(centre)
            .map(|p| p.name.clone())
            .unwrap_or_default(),
        centre,
        bounds: index.grid().bounds(square),
    }
}
