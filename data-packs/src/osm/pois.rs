//! POI layer: `pois` (+ R-tree) and `poi_names`.
//!
//! An element (node, way, multipolygon relation) is a POI when [`classify`] maps its tags to a
//! POI type of the spec: first the special cases below, then the first matching row of
//! [`POI_RULES`] (table order, so `amenity` wins over `shop`, `shop` over `tourism`, …).
//! `types` is the mapped type followed by its ancestors in the spec's dotted hierarchy
//! up to the root (`business.food_and_drinks.cafe|business.food_and_drinks|business|point_of_interest`).
//!
//! Special cases (in [`classify`]):
//!
//! * `amenity=atm` is never a POI.
//! * `tourism=guest_house` + `guest_house=bed_and_breakfast` → `hospitality.bed_and_breakfast`.
//! * `railway=station|halt` and `public_transport=station` with a rail mode → a rail station;
//!   `transit.station.rail.train` (a type outside the 72 that the spec allows in results) is
//!   listed first when `train=yes`, or for `railway=station|halt` not tagged
//!   `station=subway|light_rail|monorail|funicular` nor `subway=yes`/`tram=yes`/`light_rail=yes`.
//!   Other `public_transport=station` (bus, ferry) and `amenity=bus_station` → `transit.station`.
//! * `aeroway=aerodrome` → `transit.station.airport` only with an `iata` code or
//!   `aerodrome(:type)=international|public|regional`.
//! * `boundary=protected_area` with `protect_class=2` → `park.national`.
//!
//! Unnamed POIs are dropped except for fuel stations, parking and pharmacies.
//! Ways and relations sit at a point inside their area. `tags` keeps `opening_hours`,
//! `website`, `phone`, `email`, `wheelchair`, `cuisine`, `brand`, `operator`, every `addr:*`
//! and the tag that decided the type; `poi_names` holds every `name:xx`.

use rusqlite::{Transaction, params};
use waymark_core::api::PoiType;
use waymark_core::geo::Pt;

use super::models::{Interner, OsmData, OsmError, OsmStats, Tags};

/// One row of the mapping: OSM `key=value` (`*` for any value) → POI type.
#[derive(Debug, Clone, Copy)]
pub struct PoiRule {
    /// OSM key.
    pub key: &'static str,
    /// OSM value, `*` for any.
    pub value: &'static str,
    /// Spec type.
    pub poi: PoiType,
}

const fn r(key: &'static str, value: &'static str, poi: PoiType) -> PoiRule {
    PoiRule { key, value, poi }
}

use PoiType as P;

/// The OSM tag → POI type table, first match wins (after the special cases of [`classify`]).
///
/// Notable choices: `shop=books` → `business.shop.library` (the spec's name for a book shop),
/// `amenity=library` → `education.library`, `amenity=doctors|dentist` → `medical.clinic`,
/// `amenity=townhall|courthouse`, `office=government` → `government`, `tourism=gallery` →
/// `tourism.museum`, `tourism=viewpoint` → `tourism.attraction`, `historic=memorial` →
/// `tourism.monument`, `leisure=water_park` → `tourism.attraction.amusement_park`,
/// `leisure=nature_reserve` → `park`, `amenity=car_wash`, `shop=car_repair|tyres` →
/// `business.car_repair`, `shop=mall` → `business.shop.mall`, `shop=department_store` →
/// `business.mall`, `amenity=marketplace` and any other `shop` → `business.shop`,
/// `amenity=bus_station|ferry_terminal` → `transit.station`, `amenity=embassy`,
/// `office=diplomatic` → `government`, `leisure=garden` → `park`,
/// `leisure=fitness_centre` → `sports`, `tourism=apartment|chalet|camp_site|alpine_hut` →
/// `hospitality`, `leisure=ice_rink`, `landuse=winter_sports`, `piste:type=downhill|nordic`
/// → `sports.winter`.
pub const POI_RULES: &[PoiRule] = &[
    // amenity
    r("amenity", "restaurant", P::BusinessFoodAndDrinksRestaurant),
    r("amenity", "cafe", P::BusinessFoodAndDrinksCafe),
    r("amenity", "fast_food", P::BusinessFoodAndDrinksFastFood),
    r("amenity", "bar", P::BusinessFoodAndDrinksBar),
    r("amenity", "pub", P::BusinessFoodAndDrinksPub),
    r("amenity", "biergarten", P::BusinessFoodAndDrinksBiergarten),
    r("amenity", "food_court", P::BusinessFoodAndDrinksFoodCourt),
    r("amenity", "ice_cream", P::BusinessFoodAndDrinks),
    r("amenity", "bank", P::BusinessFinanceBank),
    r("amenity", "bureau_de_change", P::BusinessFinance),
    r("amenity", "fuel", P::BusinessFuel),
    r("amenity", "parking", P::BusinessParking),
    r("amenity", "cinema", P::BusinessCinema),
    r("amenity", "theatre", P::BusinessTheatre),
    r("amenity", "nightclub", P::BusinessNightclub),
    r("amenity", "conference_centre", P::BusinessConferenceCentre),
    r("amenity", "exhibition_centre", P::BusinessExhibitionCentre),
    r("amenity", "car_rental", P::BusinessCarRental),
    r("amenity", "car_wash", P::BusinessCarRepair),
    r("amenity", "school", P::EducationSchool),
    r("amenity", "kindergarten", P::EducationKindergarten),
    r("amenity", "university", P::EducationUniversity),
    r("amenity", "college", P::EducationCollege),
    r("amenity", "library", P::EducationLibrary),
    r("amenity", "hospital", P::MedicalHospital),
    r("amenity", "pharmacy", P::MedicalPharmacy),
    r("amenity", "clinic", P::MedicalClinic),
    r("amenity", "doctors", P::MedicalClinic),
    r("amenity", "dentist", P::MedicalClinic),
    r("amenity", "police", P::Police),
    r("amenity", "post_office", P::PostOffice),
    r("amenity", "place_of_worship", P::PlaceOfWorship),
    r("amenity", "townhall", P::Government),
    r("amenity", "courthouse", P::Government),
    r("amenity", "bus_station", P::TransitStation),
    r("amenity", "ferry_terminal", P::TransitStation),
    r("amenity", "embassy", P::Government),
    r("amenity", "marketplace", P::BusinessShop),
    // shop
    r("shop", "mall", P::BusinessShopMall),
    r("shop", "department_store", P::BusinessMall),
    r("shop", "bakery", P::BusinessShopBakery),
    r("shop", "pastry", P::BusinessShopBakery),
    r("shop", "butcher", P::BusinessShopButcher),
    r("shop", "books", P::BusinessShopLibrary),
    r("shop", "supermarket", P::BusinessShopGrocery),
    r("shop", "convenience", P::BusinessShopGrocery),
    r("shop", "greengrocer", P::BusinessShopGrocery),
    r("shop", "grocery", P::BusinessShopGrocery),
    r("shop", "sports", P::BusinessShopSports),
    r("shop", "outdoor", P::BusinessShopSports),
    r("shop", "toys", P::BusinessShopToys),
    r("shop", "clothes", P::BusinessShopClothes),
    r("shop", "shoes", P::BusinessShopClothes),
    r("shop", "boutique", P::BusinessShopClothes),
    r("shop", "fashion", P::BusinessShopClothes),
    r("shop", "furniture", P::BusinessShopFurniture),
    r("shop", "electronics", P::BusinessShopElectronics),
    r("shop", "computer", P::BusinessShopElectronics),
    r("shop", "mobile_phone", P::BusinessShopElectronics),
    r("shop", "hifi", P::BusinessShopElectronics),
    r("shop", "doityourself", P::BusinessShopDoityourself),
    r("shop", "hardware", P::BusinessShopDoityourself),
    r("shop", "craft", P::BusinessShopCraft),
    r("shop", "car_repair", P::BusinessCarRepair),
    r("shop", "tyres", P::BusinessCarRepair),
    r("shop", "*", P::BusinessShop),
    r("craft", "*", P::BusinessShopCraft),
    // tourism
    r("tourism", "hotel", P::HospitalityHotel),
    r("tourism", "hostel", P::HospitalityHostel),
    r("tourism", "guest_house", P::HospitalityGuestHouse),
    r("tourism", "motel", P::HospitalityMotel),
    r("tourism", "apartment", P::Hospitality),
    r("tourism", "chalet", P::Hospitality),
    r("tourism", "camp_site", P::Hospitality),
    r("tourism", "alpine_hut", P::Hospitality),
    r("tourism", "attraction", P::TourismAttraction),
    r("tourism", "theme_park", P::TourismAttractionAmusementPark),
    r("tourism", "zoo", P::TourismAttractionZoo),
    r("tourism", "aquarium", P::TourismAttractionAquarium),
    r("tourism", "museum", P::TourismMuseum),
    r("tourism", "gallery", P::TourismMuseum),
    r("tourism", "viewpoint", P::TourismAttraction),
    // historic
    r("historic", "castle", P::TourismMonumentCastle),
    r("historic", "fort", P::TourismMonumentCastle),
    r("historic", "monument", P::TourismMonument),
    r("historic", "memorial", P::TourismMonument),
    // leisure
    r("leisure", "park", P::Park),
    r("leisure", "nature_reserve", P::Park),
    r("leisure", "golf_course", P::SportsGolf),
    r("leisure", "water_park", P::TourismAttractionAmusementPark),
    r("leisure", "beach_resort", P::Beach),
    r("leisure", "ice_rink", P::SportsWinter),
    r("leisure", "sports_centre", P::Sports),
    r("leisure", "stadium", P::Sports),
    r("leisure", "pitch", P::Sports),
    r("leisure", "fitness_centre", P::Sports),
    r("leisure", "garden", P::Park),
    r("natural", "beach", P::Beach),
    r("boundary", "national_park", P::ParkNational),
    r("aeroway", "aerodrome", P::TransitStationAirport),
    r("office", "government", P::Government),
    r("office", "diplomatic", P::Government),
    r("landuse", "winter_sports", P::SportsWinter),
    r("piste:type", "downhill", P::SportsWinter),
    r("piste:type", "nordic", P::SportsWinter),
];

/// The type string a POI gets from its tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoiClass {
    /// `|`-joined types, most specific first.
    pub types: String,
    /// The OSM tag that decided (`amenity=cafe`).
    pub tag: (&'static str, String),
    /// Whether the POI is kept without a name.
    pub keep_unnamed: bool,
}

fn chain(poi: PoiType, extra_first: Option<&str>) -> String {
    let mut out: Vec<&str> = Vec::new();
    if let Some(e) = extra_first {
        out.push(e);
    }
    let mut cur = Some(poi);
    while let Some(t) = cur {
        out.push(t.as_str());
        cur = t.parent();
    }
    out.join("|")
}

fn class(poi: PoiType, key: &'static str, value: &str, train: bool) -> PoiClass {
    PoiClass {
        types: chain(poi, train.then_some("transit.station.rail.train")),
        tag: (key, value.to_owned()),
        keep_unnamed: matches!(
            poi,
            P::BusinessFuel | P::BusinessParking | P::MedicalPharmacy
        ),
    }
}

/// Maps OSM tags to the POI types (see the module rules), `None` when not a POI.
pub fn classify(tags: &Tags) -> Option<PoiClass> {
    if tags.is_empty() {
        return None;
    }
    if tags.is("amenity", "atm") && !tags.has("shop") {
        return None;
    }
    if tags.is("tourism", "guest_house") && tags.is("guest_house", "bed_and_breakfast") {
        return Some(class(
            P::HospitalityBedAndBreakfast,
            "tourism",
            "guest_house",
            false,
        ));
    }
    let rail_station = matches!(tags.get("railway"), Some("station" | "halt"));
    let pt_station = tags.is("public_transport", "station");
    if rail_station || pt_station {
        let metro = matches!(
            tags.get("station"),
            Some("subway" | "light_rail" | "monorail" | "funicular")
        ) || ["subway", "tram", "light_rail"]
            .iter()
            .any(|k| tags.is(k, "yes"));
        let train = tags.is("train", "yes") || (rail_station && !metro);
        let rail = rail_station || train || metro;
        let key = if rail_station {
            "railway"
        } else {
            "public_transport"
        };
        let value = tags.get(key).unwrap_or("station");
        return Some(if rail {
            class(P::TransitStationRail, key, value, train)
        } else {
            class(P::TransitStation, key, value, false)
        });
    }
    if tags.is("aeroway", "aerodrome") {
        let public = tags.has("iata")
            || ["aerodrome:type", "aerodrome"]
                .iter()
                .any(|k| matches!(tags.get(k), Some("international" | "public" | "regional")));
        if !public {
            return None;
        }
    }
    if tags.is("boundary", "protected_area") && tags.is("protect_class", "2") {
        return Some(class(P::ParkNational, "boundary", "protected_area", false));
    }
    for rule in POI_RULES {
        if let Some(v) = tags.get(rule.key)
            && (rule.value == v
                || (rule.value == "*" && !matches!(v, "no" | "vacant" | "yes" | "")))
        {
            return Some(class(rule.poi, rule.key, v, false));
        }
    }
    None
}

const KEPT_TAGS: &[&str] = &[
    "opening_hours",
    "website",
    "contact:website",
    "url",
    "phone",
    "contact:phone",
    "email",
    "contact:email",
    "wheelchair",
    "cuisine",
    "brand",
    "operator",
    "iata",
    "icao",
];

fn kept_tags(tags: &Tags, decided: &(&'static str, String)) -> serde_json::Value {
    let mut map = serde_json::Map::new();
    map.insert(
        decided.0.to_owned(),
        serde_json::Value::from(decided.1.as_str()),
    );
    for (k, v) in tags.iter() {
        if KEPT_TAGS.contains(&k) || k.starts_with("addr:") {
            map.insert(k.to_owned(), serde_json::Value::from(v));
        }
    }
    serde_json::Value::Object(map)
}

/// Builds the POI layer.
pub fn build(
    data: &OsmData,
    tx: &Transaction<'_>,
    stats: &mut OsmStats,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<(), OsmError> {
    let mut ins = tx.prepare(
        "INSERT INTO poi_points(id, osm_type, osm_id, typeset, name, lat, lng, street, \
         housenumber, postcode, city, tags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    let mut ins_types = tx.prepare("INSERT INTO poi_typesets(id, types) VALUES (?1, ?2)")?;
    let after: i64 = tx.query_row("SELECT coalesce(max(id), 0) FROM poi_typesets", [], |r| {
        r.get(0)
    })?;
    let mut typesets: Interner<String> = Interner::new(after);
    let mut names =
        tx.prepare("INSERT OR IGNORE INTO poi_names(poi_id, lang, name) VALUES (?1, ?2, ?3)")?;
    let mut id: i64 = tx.query_row("SELECT coalesce(max(id), 0) FROM poi_points", [], |r| {
        r.get(0)
    })?;
    let mut write =
        |osm_type: &str, osm_id: i64, tags: &Tags, p: Option<Pt>| -> Result<(), OsmError> {
            let Some(c) = classify(tags) else {
                return Ok(());
            };
            let name = tags.get("name");
            if name.is_none() && !c.keep_unnamed {
                return Ok(());
            }
            let Some(p) = p else { return Ok(()) };
            id += 1;
            let typeset = typesets.id(&c.types, |tid, types| {
                ins_types.execute(params![tid, types]).map(|_| ())
            })?;
            ins.execute(params![
                id,
                osm_type,
                osm_id,
                typeset,
                name,
                p.lat,
                p.lng,
                tags.get("addr:street"),
                tags.get("addr:housenumber"),
                tags.get("addr:postcode"),
                tags.get("addr:city"),
                serde_json::to_string(&kept_tags(tags, &c.tag))?,
            ])?;
            stats.pois += 1;
            for (lang, n) in tags.lang_names() {
                stats.poi_names += names.execute(params![id, lang, n])? as u64;
            }
            Ok(())
        };
    for n in &data.nodes {
        write("node", n.id, &n.tags, Some(Pt::new(n.lat, n.lng)))?;
    }
    progress("pois:nodes", 1, 3);
    for w in data.ways.values() {
        if classify(&w.tags).is_some() {
            write("way", w.id, &w.tags, data.way_point(w))?;
        }
    }
    progress("pois:ways", 2, 3);
    for r in &data.relations {
        if (r.tags.is("type", "multipolygon") || r.tags.is("type", "boundary"))
            && classify(&r.tags).is_some()
        {
            write("relation", r.id, &r.tags, data.relation_point(r))?;
        }
    }
    compress_tags(tx)?;
    waymark_core::packs::grid::rebuild(tx, "pois_grid", "poi_points")?;
    progress("pois", 3, 3);
    Ok(())
}

/// zstd level of the tag frames (small rows: the level costs little time).
/// Replaces each `poi_points.tags` still stored as JSON text by one zstd frame (pack format 4),
/// compressed with the pack's dictionary: the one already in `poi_tag_dicts`, else one trained
/// on these rows (about a tenth of their bytes, 1-8 KiB; none for fewer than 64 rows or
/// 8 KiB of tags, where a dictionary does not pay). The text goes back with
/// [`waymark_core::packs::schema::PoiTags`].
fn compress_tags(tx: &Transaction<'_>) -> Result<(), OsmError> {
    let err = |e: std::io::Error| OsmError::Compress(format!("POI tags: {e}"));
    let rows: Vec<(i64, String)> = {
        let mut st =
            tx.prepare("SELECT id, tags FROM poi_points WHERE typeof(tags) = 'text' ORDER BY id")?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?
    };
    if rows.is_empty() {
        return Ok(());
    }
    let mut dict = waymark_core::packs::schema::PoiTags::load(tx)?
        .dict()
        .map(<[u8]>::to_vec);
    let texts: Vec<&[u8]> = rows.iter().map(|(_, t)| t.as_bytes()).collect();
    if dict.is_none()
        && let Some(d) = super::frames::train(&texts)
    {
        tx.execute(
            "INSERT INTO poi_tag_dicts(id, dict) VALUES (?1, ?2)",
            params![waymark_core::packs::schema::PoiTags::DICT_ID, d],
        )?;
        dict = Some(d);
    }
    let frames = super::frames::compress_all(&texts, dict.as_deref()).map_err(err)?;
    let mut up = tx.prepare("UPDATE poi_points SET tags = ?2 WHERE id = ?1")?;
    for ((id, _), frame) in rows.iter().zip(frames) {
        up.execute(params![id, frame])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(kv: &[(&str, &str)]) -> Tags {
        Tags::from_pairs(kv)
    }

    #[test]
    fn mapping() {
        let t = |kv: &[(&str, &str)]| classify(&tags(kv)).map(|c| c.types);
        assert_eq!(
            t(&[("amenity", "cafe")]).as_deref(),
            Some(
                "business.food_and_drinks.cafe|business.food_and_drinks|business|point_of_interest"
            )
        );
        assert_eq!(t(&[("amenity", "atm")]), None);
        assert_eq!(
            t(&[("railway", "station")]).as_deref(),
            Some(
                "transit.station.rail.train|transit.station.rail|transit.station|point_of_interest"
            )
        );
        assert_eq!(
            t(&[("railway", "station"), ("station", "subway")]).as_deref(),
            Some("transit.station.rail|transit.station|point_of_interest")
        );
        assert_eq!(t(&[("aeroway", "aerodrome")]), None);
        assert_eq!(
            t(&[
                ("tourism", "guest_house"),
                ("guest_house", "bed_and_breakfast")
            ])
            .as_deref(),
            Some("hospitality.bed_and_breakfast|hospitality|point_of_interest")
        );
        assert_eq!(
            t(&[("shop", "books")]).as_deref(),
            Some("business.shop.library|business.shop|business|point_of_interest")
        );
        assert_eq!(
            t(&[("shop", "florist")]).as_deref(),
            Some("business.shop|business|point_of_interest")
        );
    }
}
