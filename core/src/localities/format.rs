//! How items are shown: language resolution, names, descriptions, address components,
//! viewports, accuracy, country codes and admin level labels.
use std::sync::Arc;

use super::index::Item;
use crate::api::{
    Accuracy, AddressComponent, CcFormat, CustomDescription, LatLng, OneOrMany, Viewport,
};
use crate::geo::degrees_for;
use crate::packs::search::{fold, kinds};

/// ISO 3166-1 alpha-2 codes each followed by their alpha-3 code (world-countries 5.1).
const CODES: &str = concat!(
    "ADANDAEAREAFAFGAGATGAIAIAALALBAMARMAOAGOAQATAARARGASASMATAUTAUAUSAWABWAXALAAZAZEBABIHBBBRBBDBGDBEBEL",
    "BFBFABGBGRBHBHRBIBDIBJBENBLBLMBMBMUBNBRNBOBOLBQBESBRBRABSBHSBTBTNBVBVTBWBWABYBLRBZBLZCACANCCCCKCDCOD",
    "CFCAFCGCOGCHCHECICIVCKCOKCLCHLCMCMRCNCHNCOCOLCRCRICUCUBCVCPVCWCUWCXCXRCYCYPCZCZEDEDEUDJDJIDKDNKDMDMA",
    "DODOMDZDZAECECUEEESTEGEGYEHESHERERIESESPETETHFIFINFJFJIFKFLKFMFSMFOFROFRFRAGAGABGBGBRGDGRDGEGEOGFGUF",
    "GGGGYGHGHAGIGIBGLGRLGMGMBGNGINGPGLPGQGNQGRGRCGSSGSGTGTMGUGUMGWGNBGYGUYHKHKGHMHMDHNHNDHRHRVHTHTIHUHUN",
    "IDIDNIEIRLILISRIMIMNININDIOIOTIQIRQIRIRNISISLITITAJEJEYJMJAMJOJORJPJPNKEKENKGKGZKHKHMKIKIRKMCOMKNKNA",
    "KPPRKKRKORKWKWTKYCYMKZKAZLALAOLBLBNLCLCALILIELKLKALRLBRLSLSOLTLTULULUXLVLVALYLBYMAMARMCMCOMDMDAMEMNE",
    "MFMAFMGMDGMHMHLMKMKDMLMLIMMMMRMNMNGMOMACMPMNPMQMTQMRMRTMSMSRMTMLTMUMUSMVMDVMWMWIMXMEXMYMYSMZMOZNANAM",
    "NCNCLNENERNFNFKNGNGANINICNLNLDNONORNPNPLNRNRUNUNIUNZNZLOMOMNPAPANPEPERPFPYFPGPNGPHPHLPKPAKPLPOLPMSPM",
    "PNPCNPRPRIPSPSEPTPRTPWPLWPYPRYQAQATREREUROROURSSRBRURUSRWRWASASAUSBSLBSCSYCSDSDNSESWESGSGPSHSHNSISVN",
    "SJSJMSKSVKSLSLESMSMRSNSENSOSOMSRSURSSSSDSTSTPSVSLVSXSXMSYSYRSZSWZTCTCATDTCDTFATFTGTGOTHTHATJTJKTKTKL",
    "TLTLSTMTKMTNTUNTOTONTRTURTTTTOTVTUVTWTWNTZTZAUAUKRUGUGAUMUMIUSUSAUYURYUZUZBVAVATVCVCTVEVENVGVGBVIVIR",
    "VNVNMVUVUTWFWLFWSWSMXKUNKYEYEMYTMYTZAZAFZMZMBZWZWE",
);

/// The alpha-3 code of an alpha-2 code.
pub fn alpha3(cc2: &str) -> Option<&'static str> {
    let cc2 = cc2.to_ascii_uppercase();
    (0..CODES.len() / 5)
        .map(|i| &CODES[i * 5..i * 5 + 5])
        .find(|e| e[..2] == cc2)
        .map(|e| &e[2..])
}

/// The alpha-2 code of an alpha-2 or alpha-3 code (upper case), if it is a known country.
pub fn alpha2(code: &str) -> Option<&'static str> {
    let code = code.to_ascii_uppercase();
    (0..CODES.len() / 5)
        .map(|i| &CODES[i * 5..i * 5 + 5])
        .find(|e| (code.len() == 2 && e[..2] == code) || (code.len() == 3 && e[2..] == code))
        .map(|e| &e[..2])
}

/// The country code in `format`.
pub fn country_code(cc2: &str, format: CcFormat) -> String {
    match format {
        CcFormat::Alpha2 => cc2.to_uppercase(),
        CcFormat::Alpha3 => alpha3(cc2).map_or_else(|| cc2.to_uppercase(), str::to_string),
    }
}

/// The language to answer in: `language`, else the first usable `Accept-Language` tag, else
/// the engine's locale default, else English.
pub fn resolve_language(
    language: Option<&str>,
    accept_language: Option<&str>,
    locale_default: Option<&str>,
) -> String {
    if let Some(l) = language.filter(|l| !l.is_empty()) {
        return l.to_ascii_lowercase();
    }
    if let Some(header) = accept_language {
        let mut tags: Vec<(f32, String)> = header
            .split(',')
            .filter_map(|part| {
                let mut it = part.trim().split(';');
                let tag = it.next()?.trim();
                let q = it
                    .find_map(|p| p.trim().strip_prefix("q="))
                    .and_then(|q| q.parse::<f32>().ok())
                    .unwrap_or(1.0);
                let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
                (primary.len() == 2 && primary.bytes().all(|b| b.is_ascii_alphabetic()) && q > 0.0)
                    .then_some((q, primary))
            })
            .collect();
        tags.sort_by(|a, b| b.0.total_cmp(&a.0));
        if let Some((_, l)) = tags.into_iter().next() {
            return l;
        }
    }
    locale_default
        .filter(|l| l.len() == 2)
        .map_or_else(|| "en".to_string(), str::to_ascii_lowercase)
}

/// An item with its parents, ready to be shown in a language.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The item.
    pub item: Item,
    /// Its parents, smallest first.
    pub parents: Vec<Arc<Item>>,
    /// Language.
    pub lang: String,
}

fn same(a: &str, b: &str) -> bool {
    fold(a) == fold(b)
}

/// Countries that write the house number before the street.
const NUMBER_FIRST: &[&str] = &["GB", "IE", "US", "CA", "AU", "NZ", "FR", "MC", "LU"];

impl Shown {
    /// Name of the item in the language.
    pub fn name(&self) -> String {
        match self.item.kind.as_str() {
            kinds::ADDRESS => self.street_line(),
            kinds::ROUTE => self.item.data.street.clone().unwrap_or_default(),
            _ => self
                .item
                .data
                .name(&self.lang)
                .unwrap_or_default()
                .to_string(),
        }
    }

    fn parent_of(&self, pred: impl Fn(&Item) -> bool) -> Option<&Arc<Item>> {
        self.parents.iter().find(|p| pred(p))
    }

    /// The locality (city, town, village, hamlet) containing the item.
    pub fn locality(&self) -> Option<String> {
        self.parent_of(|p| kinds::LOCALITIES.contains(&p.kind.as_str()))
            .and_then(|p| p.data.name(&self.lang).map(str::to_string))
            .or_else(|| self.item.data.city.clone())
    }

    /// The part of a settlement (suburb, neighbourhood...) containing the item.
    pub fn sublocality(&self) -> Option<&Arc<Item>> {
        self.parent_of(|p| {
            kinds::is_settlement(&p.kind) && !kinds::LOCALITIES.contains(&p.kind.as_str())
        })
    }

    /// The first-level administrative area: the admin parent of the lowest level.
    pub fn admin1(&self) -> Option<String> {
        self.parents
            .iter()
            .filter(|p| p.kind == kinds::ADMIN)
            .min_by_key(|p| p.data.admin_level.unwrap_or(99))
            .and_then(|p| p.data.name(&self.lang).map(str::to_string))
    }

    /// Country name.
    pub fn country(&self) -> Option<String> {
        if self.item.kind == kinds::COUNTRY {
            return None;
        }
        self.parent_of(|p| p.kind == kinds::COUNTRY)
            .and_then(|p| p.data.name(&self.lang).map(str::to_string))
    }

    /// Street and house number in the country's order.
    pub fn street_line(&self) -> String {
        let d = &self.item.data;
        let hn = d.housenumber.clone().unwrap_or_default();
        match &d.street {
            None => hn,
            Some(street) => {
                if self
                    .item
                    .cc
                    .as_deref()
                    .is_some_and(|cc| NUMBER_FIRST.contains(&cc))
                {
                    format!("{hn} {street}").trim().to_string()
                } else {
                    format!("{street} {hn}").trim().to_string()
                }
            }
        }
    }

    fn join(parts: Vec<Option<String>>) -> String {
        let mut out: Vec<String> = Vec::new();
        for p in parts.into_iter().flatten() {
            let p = p.trim().to_string();
            if !p.is_empty() && !out.iter().any(|o| same(o, &p)) {
                out.push(p);
            }
        }
        out.join(", ")
    }

    /// Autocomplete `description`: the name, the locality for parts of settlements and
    /// streets, addresses and POIs, the first-level admin area and the country.
    pub fn description(&self) -> String {
        let k = self.item.kind.as_str();
        let locality = match k {
            kinds::COUNTRY | kinds::ADMIN => None,
            _ if kinds::LOCALITIES.contains(&k) => None,
            kinds::POSTAL_CODE => None,
            _ => self.locality(),
        };
        let first = match k {
            kinds::POSTAL_CODE => Some(
                format!("{} {}", self.name(), self.locality().unwrap_or_default())
                    .trim()
                    .to_string(),
            ),
            _ => Some(self.name()),
        };
        Self::join(vec![first, locality, self.admin1(), self.country()])
    }

    /// Description of an `extended=postal_code` suggestion: name with postal code, first-level
    /// and country-level names.
    pub fn extended_description(&self, code: &str) -> String {
        Self::join(vec![
            Some(format!("{} {code}", self.name())),
            self.admin1(),
            self.country(),
        ])
    }

    /// The value of a `custom_description` field, `None` for a field the type does not have.
    pub fn field(&self, field: &str) -> Option<String> {
        let d = &self.item.data;
        Some(match field {
            "name" => self.name(),
            "street" => d.street.clone().unwrap_or_default(),
            "housenumber" => d.housenumber.clone().unwrap_or_default(),
            "postal_code" => d
                .postcode
                .clone()
                .or_else(|| d.postcodes.first().cloned())
                .unwrap_or_default(),
            "locality" => self.locality().unwrap_or_default(),
            "admin_area" => self.admin1().unwrap_or_default(),
            "country" => self.country().unwrap_or_else(|| {
                if self.item.kind == kinds::COUNTRY {
                    self.name()
                } else {
                    String::new()
                }
            }),
            "country_code" => self.item.cc.clone().unwrap_or_default(),
            _ => return None,
        })
    }

    /// The description in a custom format (`{field}` placeholders); empty parts and their
    /// separators are dropped.
    pub fn custom(&self, format: &str) -> String {
        let mut out = String::new();
        let mut rest = format;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                out.push_str(&rest[open..]);
                rest = "";
                break;
            };
            let name = &rest[open + 1..open + close];
            out.push_str(&self.field(name).unwrap_or_default());
            rest = &rest[open + close + 1..];
        }
        out.push_str(rest);
        // Tidy separators left by empty fields.
        let parts: Vec<&str> = out
            .split(", ")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        parts.join(", ")
    }

    /// Full address: street line, postal code and locality, country.
    pub fn formatted_address(&self) -> String {
        let d = &self.item.data;
        let k = self.item.kind.as_str();
        let pc_city = |pc: Option<&String>| {
            let city = self.locality().unwrap_or_default();
            let gb = self.item.cc.as_deref() == Some("GB");
            match pc {
                Some(pc) if gb => format!("{city} {pc}").trim().to_string(),
                Some(pc) => format!("{pc} {city}").trim().to_string(),
                None => city,
            }
        };
        match k {
            kinds::ADDRESS => Self::join(vec![
                Some(self.street_line()),
                Some(pc_city(d.postcode.as_ref())),
                self.country(),
            ]),
            kinds::ROUTE => Self::join(vec![
                Some(self.name()),
                Some(pc_city(d.postcode.as_ref())),
                self.country(),
            ]),
            kinds::POI => Self::join(vec![
                Some(self.name()),
                d.street.as_ref().map(|_| self.street_line()),
                Some(pc_city(d.postcode.as_ref())),
                self.country(),
            ]),
            _ => self.description(),
        }
    }

    /// `address_components`: house number, street, postal code, parts of the locality,
    /// locality, admin areas (highest level first), country. Names of places are in the
    /// language; street names as the data has them.
    pub fn address_components(&self, cc_format: CcFormat) -> Vec<AddressComponent> {
        let d = &self.item.data;
        let mut out = Vec::new();
        let comp = |long: String, short: String, types: Vec<String>| AddressComponent {
            long_name: OneOrMany::One(long),
            short_name: OneOrMany::One(short),
            types,
        };
        if self.item.kind != kinds::POSTAL_CODE {
            if let Some(hn) = &d.housenumber {
                out.push(comp(hn.clone(), hn.clone(), vec!["street_number".into()]));
            }
            if let Some(st) = &d.street {
                out.push(comp(st.clone(), st.clone(), vec!["route".into()]));
            }
        }
        for p in std::iter::once(&self.item).chain(self.parents.iter().map(|p| p.as_ref())) {
            let name = p.data.name(&self.lang).unwrap_or_default().to_string();
            let local = p.data.name("").unwrap_or_default().to_string();
            match p.kind.as_str() {
                kinds::COUNTRY => out.push(comp(
                    name,
                    p.cc.as_deref()
                        .map(|c| country_code(c, cc_format))
                        .unwrap_or_default(),
                    vec!["country".into()],
                )),
                kinds::ADMIN => {
                    let level = p.data.admin_level.unwrap_or(0);
                    out.push(comp(
                        name,
                        local,
                        vec!["admin_level".into(), format!("admin_level_{level}")],
                    ));
                }
                k if kinds::is_settlement(k) => {
                    let mut types = vec![k.to_string()];
                    if kinds::LOCALITIES.contains(&k) {
                        types.insert(0, "locality".into());
                    }
                    out.push(comp(name, local, types));
                }
                _ => {}
            }
        }
        if self.item.kind == kinds::ADDRESS
            && let Some(city) = &d.city
            && !out.iter().any(|c| c.types.iter().any(|t| t == "locality"))
        {
            out.push(comp(city.clone(), city.clone(), vec!["locality".into()]));
        }
        let codes: Vec<String> = match self.item.kind.as_str() {
            kinds::POSTAL_CODE | kinds::ADDRESS | kinds::POI | kinds::ROUTE => {
                d.postcode.iter().cloned().collect()
            }
            _ => d.postcodes.clone(),
        };
        match codes.len() {
            0 => {}
            1 => out.push(comp(
                codes[0].clone(),
                codes[0].clone(),
                vec!["postal_code".into()],
            )),
            _ => out.push(AddressComponent {
                long_name: OneOrMany::Many(codes.clone()),
                short_name: OneOrMany::Many(codes),
                types: vec!["postal_code".into()],
            }),
        }
        // Order: street number, street, postal code, settlements, admin areas, country.
        let order = |c: &AddressComponent| match c.types.first().map(String::as_str) {
            Some("street_number") => 0,
            Some("route") => 1,
            Some("postal_code") => 2,
            Some("admin_level") => 4,
            Some("country") => 5,
            _ => 3,
        };
        out.sort_by_key(order);
        out
    }

    /// Accuracy of the item's point.
    pub fn accuracy(&self) -> Accuracy {
        match self.item.kind.as_str() {
            kinds::ADDRESS | kinds::POI => Accuracy::Rooftop,
            kinds::ROUTE => Accuracy::Route,
            kinds::POSTAL_CODE if self.item.cc.as_deref() == Some("GB") => Accuracy::PostalCode,
            _ if self.item.data.shape_row.is_some() => Accuracy::GeometricCenter,
            _ => Accuracy::Approximate,
        }
    }

    /// Recommended viewport: the item's box, or a box around the point sized by kind.
    pub fn viewport(&self) -> Viewport {
        let it = &self.item;
        if let Some([w, s, e, n]) = it.data.bbox {
            let (dlat, dlng) = degrees_for(50.0, it.lat);
            return Viewport {
                northeast: LatLng {
                    lat: (n + dlat).min(90.0),
                    lng: (e + dlng).min(180.0),
                },
                southwest: LatLng {
                    lat: (s - dlat).max(-90.0),
                    lng: (w - dlng).max(-180.0),
                },
            };
        }
        let metres = match it.kind.as_str() {
            kinds::ADDRESS | kinds::POI => 75.0,
            kinds::ROUTE => 250.0,
            kinds::POSTAL_CODE => 1_000.0,
            "city" => 8_000.0,
            "town" => 4_000.0,
            "village" | "borough" | "suburb" => 2_000.0,
            kinds::COUNTRY => 200_000.0,
            _ => 1_000.0,
        };
        viewport_around(it.lat, it.lng, metres)
    }
}

/// A viewport of `metres` around a point.
pub fn viewport_around(lat: f64, lng: f64, metres: f64) -> Viewport {
    let (dlat, dlng) = degrees_for(metres, lat);
    Viewport {
        northeast: LatLng {
            lat: (lat + dlat).min(90.0),
            lng: (lng + dlng).min(180.0),
        },
        southwest: LatLng {
            lat: (lat - dlat).max(-90.0),
            lng: (lng - dlng).max(-180.0),
        },
    }
}

/// The local English name of an OSM admin level in a country (`administrative_area_label`).
pub fn admin_label(cc: Option<&str>, level: i64) -> String {
    let specific = match (cc.unwrap_or(""), level) {
        ("AD", 7) => "parish",
        ("GB", 4) => "country",
        ("GB", 5) => "region",
        ("GB", 6) => "county",
        ("GB", 8) => "district",
        ("GB", 10) => "civil parish",
        ("DE", 4) => "state",
        ("DE", 5) => "government region",
        ("DE", 6) => "district",
        ("DE", 7) => "collective municipality",
        ("DE", 8) => "municipality",
        ("DE", 9) => "borough",
        ("DE", 10) => "quarter",
        ("FI", 4) => "region",
        ("FI", 6) => "region",
        ("FI", 7) => "sub-region",
        ("FI", 8) => "municipality",
        ("FI", 9) => "district",
        ("FI", 10) => "neighbourhood",
        ("LI", 8) => "municipality",
        ("MC", 8) => "municipality",
        ("MC", 10) => "ward",
        ("PT", 4) => "autonomous region",
        ("PT", 6) => "district",
        ("PT", 7) => "municipality",
        ("PT", 8) => "civil parish",
        ("FR", 4) => "region",
        ("FR", 6) => "department",
        ("FR", 7) => "arrondissement",
        ("FR", 8) => "commune",
        ("ES", 4) => "autonomous community",
        ("ES", 6) => "province",
        ("ES", 8) => "municipality",
        ("CH", 4) => "canton",
        ("CH", 6) => "district",
        ("CH", 8) => "municipality",
        ("AT", 4) => "state",
        ("AT", 6) => "district",
        ("AT", 8) => "municipality",
        _ => "",
    };
    if !specific.is_empty() {
        return specific.to_string();
    }
    match level {
        2 => "country",
        3 | 4 => "state",
        5 => "region",
        6 => "county",
        7 | 8 => "municipality",
        9 => "district",
        _ => "neighbourhood",
    }
    .to_string()
}

/// Fields a `custom_description` may use, by item type.
pub fn custom_fields(place_type: &str) -> &'static [&'static str] {
    const PLACE: &[&str] = &[
        "name",
        "postal_code",
        "locality",
        "admin_area",
        "country",
        "country_code",
    ];
    const ADDRESS: &[&str] = &[
        "name",
        "street",
        "housenumber",
        "postal_code",
        "locality",
        "admin_area",
        "country",
        "country_code",
    ];
    match place_type {
        "address" | "route" => ADDRESS,
        t if crate::api::PlaceType::parse(t).is_some_and(|p| {
            matches!(
                p,
                crate::api::PlaceType::Poi(_) | crate::api::PlaceType::DeprecatedAlias(_)
            )
        }) =>
        {
            ADDRESS
        }
        _ => PLACE,
    }
}

/// Whether a custom description entry applies to an item with `types`.
pub fn custom_applies(c: &CustomDescription, types: &[String]) -> bool {
    types.contains(&c.place_type)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn country_codes_both_ways() {
        assert_eq!(alpha3("ad"), Some("AND"));
        assert_eq!(alpha3("GB"), Some("GBR"));
        assert_eq!(alpha2("MCO"), Some("MC"));
        assert_eq!(alpha2("fi"), Some("FI"));
        assert_eq!(alpha2("XX"), None);
        assert_eq!(country_code("pt", CcFormat::Alpha3), "PRT");
    }

    #[test]
    fn language_resolution_order() {
        assert_eq!(resolve_language(Some("fr"), Some("de"), Some("es")), "fr");
        assert_eq!(
            resolve_language(None, Some("de-CH, fr;q=0.9"), Some("es")),
            "de"
        );
        assert_eq!(
            resolve_language(None, Some("fr;q=0.5, sv;q=0.8"), None),
            "sv"
        );
        assert_eq!(resolve_language(None, Some("*"), Some("es")), "es");
        assert_eq!(resolve_language(None, None, None), "en");
    }

    #[test]
    fn admin_labels() {
        assert_eq!(admin_label(Some("AD"), 7), "parish");
        assert_eq!(admin_label(Some("XX"), 4), "state");
    }
}
