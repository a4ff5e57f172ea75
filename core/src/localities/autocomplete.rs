//! `GET /localities/autocomplete`: as-you-type search over the packs' search indexes.
use std::collections::HashSet;

use super::format::{self, Shown, custom_applies, custom_fields, resolve_language};
use super::index::{Automata, Bias, Item, LocalitiesIndex, location_boost, text_query_fuzzy};
use super::text::{MatchKind, QueryToken, best_match, matched_substrings, query_tokens};
use crate::api::{
    AUTOCOMPLETE_INPUT_MAX_CHARS, AutocompleteData, AutocompleteExtended, AutocompleteRequest,
    AutocompleteResponse, ComponentFilter, FieldError, Loc, LocalitySuggestion, LocalityType,
    MatchedSubstrings, PlaceType, Related, RelatedPostalCode, kinds as err_kinds,
};
use crate::auth::Grant;
use crate::error::ApiError;
use crate::geo::{Pt, haversine_m};
use crate::packs::search::{kinds, postal_public_id, words};

/// Suggestions returned.
pub const MAX_SUGGESTIONS: usize = 5;
/// Licence option a key needs for `data=advanced`.
pub const ADVANCED_OPTION: &str = "advanced_postal_codes";
/// Countries where `extended=postal_code` applies.
pub const EXTENDED_COUNTRIES: &[&str] = &["FR", "MC", "IT", "ES", "BE", "CH", "LU"];

/// What a valid request asks for, resolved.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Index `types` values to search.
    pub types: Vec<String>,
    /// Index `types` values to leave out.
    pub excluded: Vec<String>,
    /// Alpha-2 country codes.
    pub countries: Vec<String>,
    /// Tokens of the input.
    pub tokens: Vec<QueryToken>,
}

fn invalid(name: &str, msg: String) -> ApiError {
    ApiError::validation(vec![FieldError::invalid(
        Loc::Query,
        name,
        err_kinds::VALUE,
        msg,
    )])
}

/// Index type values of a `types`-like list (`autocomplete` accepts the deprecated aliases).
pub fn resolve_types(
    name: &str,
    values: &[String],
    aliases: bool,
) -> Result<Vec<String>, ApiError> {
    let mut out = Vec::new();
    for v in values {
        let t = match PlaceType::parse(v) {
            Some(PlaceType::Locality(t)) => t.as_str().to_string(),
            Some(PlaceType::Poi(t)) => t.as_str().to_string(),
            Some(PlaceType::DeprecatedAlias(a)) if aliases => a.replacement().to_string(),
            _ => {
                return Err(invalid(
                    name,
                    format!(
                        "unknown type `{v}`: give locality types (country, admin_level, postal_code, \
                         address, route, locality, city, town, village, hamlet, borough, suburb, \
                         quarter, neighbourhood) or point-of-interest types such as \
                         `business.food_and_drinks.cafe`{}, joined by `|`",
                        if aliases {
                            " (or a deprecated alias such as `airport`)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        };
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

/// Alpha-2 codes of country filters; an unknown country is 422 on `components`.
pub fn resolve_countries(filters: &[ComponentFilter]) -> Result<Vec<String>, ApiError> {
    filters
        .iter()
        .map(|ComponentFilter::Country(code)| {
            format::alpha2(code).map(str::to_string).ok_or_else(|| {
                invalid(
                    "components",
                    format!(
                        "unknown country `{code}`: give an ISO 3166-1 alpha-2 or alpha-3 code \
                         such as `country:FR` or `country:FRA`"
                    ),
                )
            })
        })
        .collect()
}

/// Checks what the generic validation cannot (vocabularies, custom descriptions, `extended`,
/// input length, the licence of `data=advanced`) and resolves the request.
pub fn plan(req: &AutocompleteRequest, grant: &Grant) -> Result<Plan, ApiError> {
    let chars = req.input.chars().count();
    if chars > AUTOCOMPLETE_INPUT_MAX_CHARS {
        return Err(invalid(
            "input",
            format!(
                "input too long: give at most {AUTOCOMPLETE_INPUT_MAX_CHARS} characters, got {chars}"
            ),
        ));
    }
    let tokens = query_tokens(&req.input, true);
    if tokens.is_empty() {
        return Err(invalid(
            "input",
            "input has no letters or digits: type part of a name, address or postal code".into(),
        ));
    }
    let default_types = req.types == ["locality", "postal_code"];
    let mut types = resolve_types("types", &req.types, true)?;
    let excluded = resolve_types("excluded_types", &req.excluded_types, true)?;
    if req.extended == Some(AutocompleteExtended::PostalCode) {
        if default_types {
            types = vec![LocalityType::Locality.as_str().to_string()];
        } else if types.iter().any(|t| t == "postal_code") {
            return Err(invalid(
                "extended",
                "`extended=postal_code` cannot be combined with type `postal_code`: leave \
                 `postal_code` out of `types`"
                    .into(),
            ));
        }
    }
    for c in &req.custom_description {
        if PlaceType::parse(&c.place_type).is_none() {
            return Err(invalid(
                "custom_description",
                format!(
                    "unknown type `{}` in custom_description: give `<type>:\"{{field}}, {{field}}\"` with a locality or point-of-interest type",
                    c.place_type
                ),
            ));
        }
        let allowed = custom_fields(&c.place_type);
        let mut rest = c.format.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                return Err(invalid(
                    "custom_description",
                    format!("unclosed `{{` in the format of `{}`", c.place_type),
                ));
            };
            let field = &rest[open + 1..open + close];
            if !allowed.contains(&field) {
                return Err(invalid(
                    "custom_description",
                    format!(
                        "unknown field `{{{field}}}` for type `{}`: the fields are {}",
                        c.place_type,
                        allowed
                            .iter()
                            .map(|f| format!("{{{f}}}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            rest = &rest[open + close + 1..];
        }
    }
    let countries = resolve_countries(&req.components)?;
    if req.data == AutocompleteData::Advanced
        && !grant
            .key
            .claims
            .options
            .iter()
            .any(|o| o == ADVANCED_OPTION)
    {
        return Err(ApiError::forbidden(format!(
            "`data=advanced` needs the licence option `{ADVANCED_OPTION}` on the key; ask for it \
             or use `data=standard`"
        )));
    }
    Ok(Plan {
        types,
        excluded,
        countries,
        tokens,
    })
}

/// How well the tokens match the item's own names: `(score, all name words covered)`.
pub fn name_match(item: &Item, shown_name: &str, lang: &str, tokens: &[QueryToken]) -> (f64, bool) {
    let mut candidates: Vec<&str> = vec![shown_name];
    for l in [lang, "", "en"] {
        if let Some(n) = item.data.names.get(l) {
            candidates.push(n);
        }
    }
    let mut best = score_name(shown_name, tokens);
    for n in candidates.iter().skip(1) {
        let s = score_name(n, tokens);
        if s.0 > best.0 {
            best = s;
        }
    }
    if best.0 < tokens.len() as f64 * MatchKind::Prefix.score() {
        for n in item.data.names.values() {
            let s = score_name(n, tokens);
            if s.0 > best.0 {
                best = s;
            }
        }
    }
    best
}

fn score_name(name: &str, tokens: &[QueryToken]) -> (f64, bool) {
    let ws = words(name);
    let mut covered = vec![false; ws.len()];
    let mut score = 0.0;
    for (ti, t) in tokens.iter().enumerate() {
        if let Some((k, i, j, _)) = best_match(t, &ws) {
            score += k.score();
            // A name starting with the first token reads as the intended one.
            if ti == 0 && i == 0 {
                score += 1.0;
            }
            for c in covered.iter_mut().take(j + 1).skip(i) {
                *c = true;
            }
        }
    }
    let all = !covered.is_empty() && covered.iter().all(|c| *c);
    (score, all)
}

/// Runs a planned autocomplete.
pub fn run(
    idx: &LocalitiesIndex,
    req: &AutocompleteRequest,
    plan: &Plan,
    locale_default: Option<&str>,
) -> AutocompleteResponse {
    let lang = resolve_language(
        req.language.as_deref(),
        req.accept_language.as_deref(),
        locale_default,
    );
    let bias = Bias {
        location: req.location.map(|p| (p.lat, p.lng, f64::from(req.radius))),
    };
    // Typos are looked for in every token; each automaton is built once for all packs.
    let typos = vec![true; plan.tokens.len()];
    let automata = Automata::default();
    let search = |required: bool| {
        idx.search(
            |f, cw| {
                text_query_fuzzy(
                    f,
                    cw,
                    &plan.tokens,
                    &plan.types,
                    &plan.countries,
                    required,
                    &typos,
                    &automata,
                )
            },
            bias,
            30,
        )
    };
    let mut hits = search(true);
    if hits.is_empty() && plan.tokens.len() > 1 {
        hits = search(false);
    }
    hits.retain(|(_, it)| !it.types.iter().any(|t| plan.excluded.contains(t)));

    // Re-rank on the names themselves; an item none of whose names the input matches is
    // dropped (the context alone does not make a suggestion).
    let mut ranked: Vec<(f64, Shown)> = hits
        .into_iter()
        .filter_map(|(_, item)| {
            let parents = idx.parents(&item);
            let shown = Shown {
                item,
                parents,
                lang: lang.clone(),
            };
            let (name_score, full) = name_match(&shown.item, &shown.name(), &lang, &plan.tokens);
            if name_score <= 0.0 {
                return None;
            }
            let desc_words = words(&shown.description());
            let context: f64 = plan
                .tokens
                .iter()
                .filter(|t| best_match(t, &desc_words).is_some())
                .count() as f64
                * 0.5;
            let mut score =
                name_score + context + if full { 2.0 } else { 0.0 } + 3.0 * shown.item.rank;
            if let Some((lat, lng, radius)) = bias.location {
                score += 2.0 * location_boost(lat, lng, radius, shown.item.lat, shown.item.lng);
            }
            Some((score, shown))
        })
        .collect();
    // Equal scores in the order of the ids: the same answer whichever pack, or packs, hold
    // the candidates.
    ranked.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| a.1.item.public_id.cmp(&b.1.item.public_id))
    });

    let extended = req.extended == Some(AutocompleteExtended::PostalCode);
    let mut out: Vec<LocalitySuggestion> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for (_, shown) in ranked {
        if out.len() >= MAX_SUGGESTIONS {
            break;
        }
        let item = &shown.item;
        let mut types = item.types.clone();
        if kinds::is_settlement(&item.kind) {
            types = vec!["locality".to_string(), item.kind.clone()];
        }
        let custom = req
            .custom_description
            .iter()
            .find(|c| custom_applies(c, &types));
        let distance = req.location.map(|p| {
            haversine_m(Pt::new(p.lat, p.lng), Pt::new(item.lat, item.lng)).round() as u64
        });
        let cc = item.cc.clone().unwrap_or_default();
        let expand = extended
            && kinds::is_settlement(&item.kind)
            && EXTENDED_COUNTRIES.contains(&cc.as_str())
            && !item.data.postcodes.is_empty();
        let variants: Vec<(String, String)> = if expand {
            let mut codes = item.data.postcodes.clone();
            // Codes matching a token of the input first.
            codes.sort_by_key(|c| {
                !plan
                    .tokens
                    .iter()
                    .any(|t| c.to_lowercase().starts_with(&t.text))
            });
            codes
                .into_iter()
                .map(|c| {
                    (
                        format!("{}~{c}", item.public_id),
                        shown.extended_description(&c),
                    )
                })
                .collect()
        } else {
            let description = match custom {
                Some(c) => shown.custom(&c.format),
                None => shown.description(),
            };
            vec![(item.public_id.clone(), description)]
        };
        for (public_id, description) in variants {
            if out.len() >= MAX_SUGGESTIONS || !seen.insert(description.clone()) {
                continue;
            }
            let related = (kinds::is_settlement(&item.kind) && !item.data.postcodes.is_empty())
                .then(|| Related {
                    postal_codes: item
                        .data
                        .postcodes
                        .iter()
                        .map(|c| RelatedPostalCode {
                            public_id: postal_public_id(&cc, c),
                            description: c.clone(),
                        })
                        .collect(),
                });
            out.push(LocalitySuggestion {
                public_id,
                deprecated_type: types.first().cloned().unwrap_or_default(),
                types: types.clone(),
                matched_substrings: MatchedSubstrings {
                    description: matched_substrings(&description, &plan.tokens),
                },
                description,
                related,
                distance_meters: distance,
            });
        }
    }
    AutocompleteResponse { localities: out }
}
