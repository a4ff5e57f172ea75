//! The behaviour of each localities rule on the same packs: forgiving autocomplete, languages
//! and components, custom descriptions and licences, details, geocoding and reverse
//! geocoding, nearby.
use std::collections::HashMap;

use waymark_core::api::*;
use waymark_core::operation::Credentials;
use waymark_core::packs::search::kinds;
use waymark_tests::private_caller;

use super::fixture::*;

fn ac(f: &Fixture, req: AutocompleteRequest) -> AutocompleteResponse {
    f.engine
        .call(&Credentials::Http(&private_caller(&f.publisher)), req)
        .unwrap()
}

fn ac_input(input: &str, types: &[&str]) -> AutocompleteRequest {
    AutocompleteRequest {
        input: input.into(),
        types: types.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

fn details(f: &Fixture, req: DetailsRequest) -> Result<DetailsResponse, waymark_core::ApiError> {
    f.engine
        .call(&Credentials::Http(&private_caller(&f.publisher)), req)
}

#[test]
fn autocomplete_is_forgiving_with_compounds_abbreviations_accents_and_typos() {
    let f = fixture();
    for input in [
        "Paul Hindemithstrasse",
        "paul-hindemith-str",
        "PAUL HINDEMITH STRASSE",
        "Paul-Hindemith-Straße",
        "Paul Hindemit Strase",
    ] {
        let r = ac(f, ac_input(input, &["route"]));
        assert!(
            r.localities
                .first()
                .is_some_and(|s| s.description.starts_with("Paul-Hindemith-Straße")),
            "{input}: {:?}",
            r.localities
        );
    }
    // Accents and case: "sant julia de loria" finds Sant Julià de Lòria.
    let r = ac(
        f,
        ac_input("sant julia de lor", &["locality", "admin_level"]),
    );
    assert!(
        r.localities[0]
            .description
            .starts_with("Sant Julià de Lòria"),
        "{r:?}"
    );
    // Matched substrings point at the words typed, in characters of the description.
    let s = &r.localities[0];
    let chars: Vec<char> = s.description.chars().collect();
    let matched: Vec<String> = s
        .matched_substrings
        .description
        .iter()
        .map(|m| {
            chars[m.offset as usize..(m.offset + m.length) as usize]
                .iter()
                .collect()
        })
        .collect();
    assert_eq!(matched, ["Sant", "Julià", "de", "Lòr"], "{s:?}");
    // Deprecated alias and POI types.
    let r = ac(f, ac_input("mus", &["museum"]));
    assert!(!r.localities.is_empty());
    assert!(
        r.localities
            .iter()
            .all(|s| s.types.iter().any(|t| t == "tourism.museum")),
        "{r:?}"
    );
}

#[test]
fn autocomplete_language_components_bias_exclusions_and_related_postal_codes() {
    let f = fixture();
    // Language: parameter, then Accept-Language, then English.
    let mut req = ac_input("Helsingf", &["locality"]);
    req.language = Some("sv".into());
    assert!(
        ac(f, req).localities[0]
            .description
            .starts_with("Helsingfors")
    );
    let mut req = ac_input("Helsingf", &["locality"]);
    req.accept_language = Some("sv-FI, en;q=0.5".into());
    assert!(
        ac(f, req).localities[0]
            .description
            .starts_with("Helsingfors")
    );
    let r = ac(f, ac_input("Helsingf", &["locality"]));
    assert!(r.localities[0].description.starts_with("Helsinki"), "{r:?}");
    let mut req = ac_input("Munich", &["locality"]);
    req.language = Some("de".into());
    assert!(ac(f, req).localities[0].description.starts_with("München"));

    // Country filters in alpha-2 and alpha-3.
    for cc in ["country:AND", "country:ad"] {
        let mut req = ac_input("Carrer", &["route"]);
        req.components = vec![ComponentFilter::parse(cc).unwrap()];
        let r = ac(f, req);
        assert!(!r.localities.is_empty());
        assert!(
            r.localities
                .iter()
                .all(|s| s.description.ends_with("Andorra")),
            "{r:?}"
        );
    }
    let mut req = ac_input("Carrer", &["route"]);
    req.components = vec![ComponentFilter::parse("country:FIN").unwrap()];
    assert!(ac(f, req).localities.is_empty());

    // Location bias: the same street name, nearest first, with its distance.
    let schul: Vec<&Doc> = f
        .docs
        .iter()
        .filter(|d| d.kind == kinds::ROUTE && d.data.street.as_deref() == Some("Schulstraße"))
        .collect();
    assert!(schul.len() >= 2);
    for d in &schul {
        let mut req = ac_input("Schulstr", &["route"]);
        req.location = Some(LatLng::new(d.lat, d.lng));
        req.radius = 1000;
        let r = ac(f, req);
        assert_eq!(r.localities[0].public_id, d.public_id, "{r:?}");
        assert_eq!(r.localities[0].distance_meters, Some(0));
    }

    // Excluded types.
    let r = ac(
        f,
        ac_input("Andorra", &["locality", "country", "admin_level"]),
    );
    assert!(r.localities.iter().any(|s| s.types == ["country"]), "{r:?}");
    let mut req = ac_input("Andorra", &["locality", "country", "admin_level"]);
    req.excluded_types = vec!["country".into()];
    assert!(ac(f, req).localities.iter().all(|s| s.types != ["country"]));

    // Related postal codes of a locality, each usable with details.
    let r = ac(f, ac_input("Andorra la Vella", &["locality"]));
    let s = &r.localities[0];
    let related = s.related.as_ref().expect("related postal codes");
    assert!(
        related
            .postal_codes
            .iter()
            .any(|p| p.description == "AD500"),
        "{s:?}"
    );
    for p in &related.postal_codes {
        details(
            f,
            DetailsRequest {
                public_id: p.public_id.clone(),
                ..Default::default()
            },
        )
        .unwrap();
    }

    // Only the first 20 tokens count: a name in 21st place is not searched.
    let r = ac(
        f,
        ac_input(&format!("{}Ordino", "la ".repeat(20)), &["locality"]),
    );
    assert!(
        r.localities
            .iter()
            .all(|s| !s.description.starts_with("Ordino")),
        "{r:?}"
    );
}

#[test]
fn autocomplete_custom_descriptions_extended_postal_codes_and_licence() {
    let f = fixture();
    let mut req = ac_input("Ordino", &["locality"]);
    req.custom_description = parse_custom_descriptions(
        Loc::Query,
        "custom_description",
        "locality:\"{name} ({country_code}), {postal_code}\"",
    )
    .unwrap();
    let r = ac(f, req);
    assert_eq!(r.localities[0].description, "Ordino (AD), AD300", "{r:?}");
    assert_eq!(
        r.localities[0].matched_substrings.description[0],
        Substring {
            offset: 0,
            length: 6
        }
    );

    // extended=postal_code: one suggestion per postal code of a locality (Monaco).
    let mut req = ac_input("Monaco 980", &["locality"]);
    req.extended = Some(AutocompleteExtended::PostalCode);
    let r = ac(f, req);
    let s = &r.localities[0];
    assert!(s.description.starts_with("Monaco 98000, "), "{r:?}");
    assert!(s.description.ends_with(", Monaco"), "{r:?}");
    assert!(s.public_id.ends_with("~98000"));
    let d = details(
        f,
        DetailsRequest {
            public_id: s.public_id.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        d.result
            .address_components
            .iter()
            .any(|c| c.types == ["postal_code"] && c.long_name == OneOrMany::One("98000".into()))
    );
    // With the default types the postal codes are left out, not refused.
    let mut req = ac_input("Monaco", &[]);
    req.types = AutocompleteRequest::default().types;
    req.extended = Some(AutocompleteExtended::PostalCode);
    assert!(!ac(f, req).localities.is_empty());

    // data=advanced needs the licence option.
    let mut req = ac_input("Ordino", &["locality"]);
    req.data = AutocompleteData::Advanced;
    let e = f
        .engine
        .call(
            &Credentials::Http(&private_caller(&f.publisher)),
            req.clone(),
        )
        .unwrap_err();
    assert_eq!(e.code.http_status(), 403);
    let mut claims =
        waymark_core::auth::keys::KeyClaims::new(waymark_core::auth::keys::KeyScope::Private {
            write: false,
            restriction: waymark_core::auth::keys::PrivateRestriction::None,
        });
    claims.options = vec!["advanced_postal_codes".into()];
    let caller = waymark_core::auth::Caller {
        api_key_header: Some(f.publisher.issue(&claims).unwrap()),
        peer_ip: Some("127.0.0.1".parse().unwrap()),
        ..Default::default()
    };
    assert!(
        !f.engine
            .call(&Credentials::Http(&caller), req)
            .unwrap()
            .localities
            .is_empty()
    );
}

#[test]
fn details_shapes_labels_country_formats_and_uk_postal_code_addresses() {
    let f = fixture();
    let r = ac(f, ac_input("Ordino", &["admin_level"]));
    let id = r.localities[0].public_id.clone();
    let d = details(
        f,
        DetailsRequest {
            public_id: id.clone(),
            fields: vec![
                DetailsField::Geometry,
                DetailsField::AddressComponents,
                DetailsField::Shape,
            ],
            cc_format: Some(CcFormat::Alpha3),
            ..Default::default()
        },
    )
    .unwrap()
    .result;
    assert_eq!(d.administrative_area_label.as_deref(), Some("parish"));
    let shape = d.geometry.shape.expect("shape");
    assert!(matches!(
        shape.kind,
        ShapeType::Polygon | ShapeType::MultiPoligon
    ));
    let json = serde_json::to_value(&shape).unwrap();
    assert!(json["type"] == "Polygon" || json["type"] == "MultiPoligon");
    assert!(d.geometry.viewport.is_some());
    assert!(
        d.address_components
            .iter()
            .any(|c| c.types == ["country"] && c.short_name == OneOrMany::One("AND".into())),
        "{:?}",
        d.address_components
    );
    // Only geometry: no components; not asking for shape: none.
    let d = details(
        f,
        DetailsRequest {
            public_id: id,
            fields: vec![DetailsField::Geometry],
            ..Default::default()
        },
    )
    .unwrap()
    .result;
    assert!(d.address_components.is_empty() && d.geometry.shape.is_none());

    // A United Kingdom postal code lists its addresses, each usable with details.
    let pc = details(
        f,
        DetailsRequest {
            public_id: "postal.GB.EC1M_3JB".into(),
            ..Default::default()
        },
    )
    .unwrap()
    .result;
    assert_eq!(pc.name.as_deref(), Some("EC1M 3JB"));
    assert_eq!(pc.geometry.accuracy, Some(Accuracy::PostalCode));
    let addresses = pc.addresses.expect("addresses of a UK postal code");
    assert_eq!(addresses.list.len(), 17);
    assert_eq!(addresses.pagination, AddressesPagination::single_page(17));
    let a = details(
        f,
        DetailsRequest {
            public_id: addresses.list[0].public_id.clone(),
            ..Default::default()
        },
    )
    .unwrap()
    .result;
    assert_eq!(a.types, ["address"]);
    assert!(
        a.formatted_address.contains("EC1M 3JB"),
        "{}",
        a.formatted_address
    );
    // Deprecated paging is ignored.
    let again = details(
        f,
        DetailsRequest {
            public_id: "postal.GB.EC1M_3JB".into(),
            page: Some(3),
            addresses_per_page: Some(2),
            ..Default::default()
        },
    )
    .unwrap()
    .result;
    assert_eq!(again.addresses.unwrap().list.len(), 17);
    // A postal code outside the UK has no address list.
    let ad = details(
        f,
        DetailsRequest {
            public_id: "postal.AD.AD300".into(),
            ..Default::default()
        },
    )
    .unwrap()
    .result;
    assert!(ad.addresses.is_none());
    // Unknown ids are 404.
    let e = details(
        f,
        DetailsRequest {
            public_id: "addr.osm-n0".into(),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.code.http_status(), 404);
}

#[test]
fn geocode_interpolates_missing_numbers_and_reverse_goes_from_address_to_country() {
    let f = fixture();
    let caller = private_caller(&f.publisher);
    // A number missing between two neighbours of the same parity on one street.
    // (street, locality) -> numbered points
    type Numbered = Vec<(u64, f64, f64)>;
    let mut by_street: HashMap<(String, String), Numbered> = HashMap::new();
    let names: HashMap<String, String> = f
        .docs
        .iter()
        .filter(|d| kinds::is_settlement(&d.kind))
        .filter_map(|d| Some((d.public_id.clone(), d.data.names.get("")?.clone())))
        .collect();
    for d in f.docs.iter().filter(|d| d.kind == kinds::ADDRESS) {
        let (Some(st), Some(hn), Some(loc)) =
            (&d.data.street, &d.data.housenumber, d.data.parents.first())
        else {
            continue;
        };
        if let Ok(n) = hn.parse::<u64>() {
            by_street
                .entry((st.clone(), loc.clone()))
                .or_default()
                .push((n, d.lat, d.lng));
        }
    }
    let mut case = None;
    let mut keys: Vec<_> = by_street.keys().cloned().collect();
    keys.sort();
    'outer: for k in keys {
        let v = &by_street[&k];
        for a in v {
            let n = a.0 + 2;
            if v.iter().all(|x| x.0 != n)
                && let Some(b) = v.iter().find(|x| x.0 == n + 2)
                && haversine_m(a.1, a.2, b.1, b.2) < 150.0
                && haversine_m(a.1, a.2, b.1, b.2) > 10.0
                && names.contains_key(&k.1)
            {
                case = Some((k.clone(), n, *a, *b));
                break 'outer;
            }
        }
    }
    let ((street, loc), n, a, b) = case.expect("a street with a missing number");
    let address = format!("{street} {n}, {}", names[&loc]);
    let r = f
        .engine
        .call(
            &Credentials::Http(&caller),
            GeocodeRequest {
                address: Some(address.clone()),
                ..Default::default()
            },
        )
        .unwrap();
    let first = &r.results[0];
    assert_eq!(
        first.geometry.accuracy,
        Some(Accuracy::RangeInterpolated),
        "{address}: {first:?}"
    );
    assert_eq!(first.types, ["address"]);
    let mid = ((a.1 + b.1) / 2.0, (a.2 + b.2) / 2.0);
    let off = haversine_m(
        first.geometry.location.lat,
        first.geometry.location.lng,
        mid.0,
        mid.1,
    );
    assert!(
        off < 5.0,
        "{address}: {off} m from the middle of its neighbours"
    );
    assert!(
        first.formatted_address.contains(&n.to_string()),
        "{}",
        first.formatted_address
    );

    // Parts in any order and a country filter in alpha-3.
    let d = f
        .docs
        .iter()
        .find(|d| {
            d.kind == kinds::ADDRESS
                && d.cc == "AD"
                && d.data.postcode.is_some()
                && d.data.street.is_some()
        })
        .unwrap();
    let shuffled = format!(
        "{} {} {}",
        d.data.postcode.clone().unwrap(),
        d.data.housenumber.clone().unwrap(),
        d.data.street.clone().unwrap()
    );
    let r = f
        .engine
        .call(
            &Credentials::Http(&caller),
            GeocodeRequest {
                address: Some(shuffled.clone()),
                components: vec![ComponentFilter::parse("country:AND").unwrap()],
                ..Default::default()
            },
        )
        .unwrap();
    let first = &r.results[0];
    assert!(
        haversine_m(
            first.geometry.location.lat,
            first.geometry.location.lng,
            d.lat,
            d.lng
        ) < 30.0,
        "{shuffled}: {first:?}"
    );
    assert!(
        first
            .address_components
            .iter()
            .any(|c| c.types == ["country"] && c.short_name == OneOrMany::One("AND".into())),
        "cc_format follows components"
    );

    // Reverse: the address, then its street, locality and the areas up to the country.
    let r = f
        .engine
        .call(
            &Credentials::Http(&caller),
            GeocodeRequest {
                latlng: Some(LatLng::new(d.lat, d.lng)),
                ..Default::default()
            },
        )
        .unwrap();
    let types: Vec<&str> = r.results.iter().map(|x| x.types[0].as_str()).collect();
    assert_eq!(types[0], "address", "{types:?}");
    assert_eq!(types[1], "route", "{types:?}");
    assert!(types.contains(&"locality"), "{types:?}");
    assert_eq!(*types.last().unwrap(), "country", "{types:?}");
    assert_eq!(r.results[0].geometry.accuracy, Some(Accuracy::Rooftop));
    // Far from any address or street: the locality or the areas, never an invented address.
    let r = f
        .engine
        .call(
            &Credentials::Http(&caller),
            GeocodeRequest {
                latlng: Some(LatLng::new(42.6, 1.62)),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(r.results.iter().all(|x| x.types != ["address"]), "{r:?}");
    // The open sea: nothing.
    let r = f
        .engine
        .call(
            &Credentials::Http(&caller),
            GeocodeRequest {
                latlng: Some(LatLng::new(0.0, -30.0)),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(r.results.is_empty());
}

#[test]
fn point_of_interest_is_the_root_of_every_poi_type() {
    let f = fixture();
    let caller = private_caller(&f.publisher);
    let req = |types: &str| NearbyRequest {
        types: vec![types.into()],
        location: LatLng::new(43.7384, 7.4246),
        radius: 200,
        page: 1,
        limit: 100,
        excluded_types: vec![],
    };
    let call = |types| {
        f.engine
            .call(&Credentials::Http(&caller), req(types))
            .unwrap()
    };
    let all = call("point_of_interest");
    let business = call("business");
    assert!(business.results.len() > 5, "{}", business.results.len());
    // Fewer than a page of 100: every POI in the circle is listed.
    assert!(all.results.len() < 100, "{}", all.results.len());
    assert!(all.results.len() >= business.results.len());
    for p in &all.results {
        assert_eq!(
            p.types.last().map(String::as_str),
            Some("point_of_interest"),
            "{:?}",
            p.types
        );
    }
    let ids: Vec<_> = all.results.iter().map(|p| &p.public_id).collect();
    assert!(business.results.iter().all(|p| ids.contains(&&p.public_id)));
}

#[test]
fn nearby_sorts_by_distance_pages_and_filters_types() {
    let f = fixture();
    let caller = private_caller(&f.publisher);
    let centre = LatLng::new(43.7384, 7.4246);
    let req = |page, limit, excluded: Vec<String>| NearbyRequest {
        types: vec!["business".into()],
        location: centre,
        radius: 400,
        page,
        limit,
        excluded_types: excluded,
    };
    let all = f
        .engine
        .call(&Credentials::Http(&caller), req(1, 100, vec![]))
        .unwrap();
    assert!(all.results.len() > 10, "{}", all.results.len());
    let dist = |p: &NearbyPoi| {
        haversine_m(
            centre.lat,
            centre.lng,
            p.geometry.location.lat,
            p.geometry.location.lng,
        )
    };
    assert!(
        all.results
            .windows(2)
            .all(|w| dist(&w[0]) <= dist(&w[1]) + 1e-9)
    );
    assert!(all.results.iter().all(|p| dist(p) <= 400.0
        && p.types.iter().any(|t| t == "business")
        && p.categories == p.types));
    let p1 = f
        .engine
        .call(&Credentials::Http(&caller), req(1, 4, vec![]))
        .unwrap();
    let p2 = f
        .engine
        .call(&Credentials::Http(&caller), req(2, 4, vec![]))
        .unwrap();
    assert_eq!(
        p1.pagination,
        NearbyPagination {
            next_page: Some(2),
            previous_page: None
        }
    );
    assert_eq!(p2.pagination.previous_page, Some(1));
    let ids: Vec<_> = p1
        .results
        .iter()
        .chain(&p2.results)
        .map(|p| p.public_id.clone())
        .collect();
    let expected: Vec<_> = all
        .results
        .iter()
        .take(8)
        .map(|p| p.public_id.clone())
        .collect();
    assert_eq!(ids, expected);
    let last = all.results.len().div_ceil(4) as u32;
    assert_eq!(
        f.engine
            .call(&Credentials::Http(&caller), req(last, 4, vec![]))
            .unwrap()
            .pagination
            .next_page,
        None
    );
    let no_food = f
        .engine
        .call(
            &Credentials::Http(&caller),
            req(1, 100, vec!["business.food_and_drinks".into()]),
        )
        .unwrap();
    assert!(no_food.results.len() < all.results.len());
    assert!(
        no_food
            .results
            .iter()
            .all(|p| !p.types.iter().any(|t| t == "business.food_and_drinks"))
    );
    // Each result is usable with details.
    let d = details(
        f,
        DetailsRequest {
            public_id: all.results[0].public_id.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(d.result.geometry.location, all.results[0].geometry.location);
}
