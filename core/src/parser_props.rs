//! Property tests of the parsers of client input, one table for all of them.
//!
//! Every parser of a query value has the shape `fn(Loc, name, text) -> Result<T, FieldError>`;
//! [`FIELD_PARSERS`] lists them all. For any text (arbitrary Unicode, and texts assembled from
//! the pieces the formats are made of, so that many are nearly valid) each one must return, not
//! panic, and an error must name the parameter it was given (`loc = [loc, name]`) with a
//! message. The formats with two directions round-trip: encoded polylines, keys (issue then
//! verify), `lat,lng`. `Accept-Language`, `Referer` hosts and domain patterns never panic and
//! answer within their vocabulary.
//!
//! The parsers with a grammar of their own have property tests beside them in the same style:
//! the stores query language and the datasets `where` dialect (`waymark-storequery`,
//! `src/proptests.rs`), indoor `advanced_filter` (`indoor/filter.rs`), WKT and GeoJSON
//! (`waymark-geoformats`, `tests/props.rs`), three-word input (`waymark-threewords`). Whole
//! requests — every endpoint of the table, through the request parsers, the engine and the
//! real HTTP dispatch — are property-tested in `tests/tests/properties.rs`.
//!
//! Adding a parser: add a row to [`FIELD_PARSERS`].
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::Value;

use crate::api::validation::{
    FieldError, Loc, parse_bool, parse_enum, parse_f64, parse_int, parse_latlng, parse_latlng_list,
    parse_numbers, parse_pipe_list,
};
use crate::api::vocab::RouteLanguage;
use crate::api::{datasets, distance, geolocation, indoor, localities, map, threewords};
use crate::auth::keys::{
    AndroidApp, KeyClaims, KeyScope, PrivateRestriction, PublicRestrictions, Publisher, verify,
};
use crate::auth::restrictions::{domain_matches, url_host, validate_domain_pattern};
use crate::geo::{Pt, decode_polyline, decode_polyline6, encode_polyline};

/// A parser of one query value, its output dropped.
type FieldParser = fn(Loc, &str, &str) -> Result<(), FieldError>;

macro_rules! field_parsers {
    ($($label:literal => $f:expr),+ $(,)?) => {
        /// Every parser of a query, header or path value: (label, parser).
        const FIELD_PARSERS: &[(&str, FieldParser)] = &[
            $(($label, |loc, name, s| $f(loc, name, s).map(drop)),)+
        ];
    };
}

field_parsers! {
    "lat,lng" => parse_latlng,
    "| list" => parse_pipe_list,
    "numbers" => parse_numbers,
    "lat,lng | list" => |loc, name, s| parse_latlng_list(loc, name, s, '|'),
    "u32" => parse_int::<u32>,
    "u8" => parse_int::<u8>,
    "i64 (timestamp)" => parse_int::<i64>,
    "f64" => parse_f64,
    "bool" => parse_bool,
    "enum" => parse_enum::<crate::api::vocab::TravelMode>,
    "arrival/departure time" => distance::parse_traffic_time,
    "avoid (with polygons)" => distance::parse_avoid,
    "waypoints (optimize:true)" => distance::parse_waypoints,
    "components" => localities::parse_components,
    "custom_description" => localities::parse_custom_descriptions,
    "details fields" => localities::parse_details_fields,
    "clip-to-circle" => threewords::parse_circle,
    "clip-to-bounding-box" => threewords::parse_bounding_box,
    "clip-to-polygon" => threewords::parse_polygon,
    "ip" => geolocation::parse_ip,
    "X-Field-Mask" => datasets::parse_field_mask,
    "map bbox" => map::parse_map_bbox,
    "lat,lng,level" => indoor::parse_indoor_latlng,
    "indoor point" => indoor::parse_indoor_point,
    "indoor points" => indoor::parse_indoor_points,
    "indoor avoid_in" => indoor::parse_avoid_in,
}

/// Pieces the query formats are made of: joined at random they give many nearly valid values.
const PIECES: &[&str] = &[
    "42.5",
    "1.52",
    "-90",
    "90.0001",
    "180",
    "-180.5",
    "0",
    "-0",
    "1e3",
    "1e999",
    "NaN",
    "inf",
    "-inf",
    "99999999999999999999",
    "-9223372036854775809",
    "18446744073709551616",
    "3",
    "255",
    "256",
    ",",
    ",,",
    "|",
    "||",
    ";",
    ":",
    ".",
    "-",
    "+",
    " ",
    "\t",
    "optimize:true",
    "optimize:false",
    "tolls",
    "highways",
    "ferries",
    "country:",
    "postal_code:",
    "route:",
    "locality:",
    "administrative_area:",
    "ad",
    "FR",
    "\"",
    "\"{name}\"",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\\",
    "%",
    "%20",
    "now",
    "true",
    "false",
    "1",
    "car",
    "walking",
    "en",
    "fr-CH",
    ";q=0.5",
    "q=",
    "*",
    "geometry",
    "types",
    "name",
    "address",
    "10.0.0.1",
    "::1",
    "/24",
    "é",
    "北京",
    "\u{301}",
    "\u{0}",
    "\u{feff}",
    "_p~iF",
    "~",
    "?",
    "@",
];

/// Values of a query parameter: nearly valid ones assembled from [`PIECES`], and arbitrary
/// text.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(PIECES), 0..16).prop_map(|v| v.concat()),
        1 => "\\PC{0,60}",
        1 => any::<String>(),
        1 => (-100.0f64..100.0, -200.0f64..200.0).prop_map(|(a, b)| format!("{a},{b}")),
    ]
}

/// Checks an answer of a field parser given `name`: an error names it and says something.
fn check_named(label: &str, loc: Loc, name: &str, answer: Result<(), FieldError>) {
    if let Err(e) = answer {
        assert_eq!(
            e.loc,
            vec![Value::from(loc.as_str()), Value::from(name)],
            "{label}: the error names the parameter ({e})"
        );
        assert!(!e.msg.trim().is_empty(), "{label}: an empty message");
        assert!(!e.kind.is_empty(), "{label}: no error type");
    }
}

fn claims() -> impl Strategy<Value = KeyClaims> {
    let public = (
        prop::collection::vec("(\\*\\.)?[a-z0-9-]{1,12}(\\.[a-z]{2,6}){0,2}", 0..3),
        prop::collection::vec((any::<[u8; 4]>(), 0u8..=32), 0..3),
    )
        .prop_map(|(domains, ips)| {
            KeyScope::Public(PublicRestrictions {
                domains,
                ips: ips
                    .into_iter()
                    .map(|(a, p)| {
                        ipnet::IpNet::V4(ipnet::Ipv4Net::new(a.into(), p).unwrap().trunc())
                    })
                    .collect(),
            })
        });
    let private = (
        any::<bool>(),
        prop_oneof![
            Just(PrivateRestriction::None),
            prop::collection::vec("[a-z]{1,8}(\\.[a-z]{1,8}){1,3}", 1..3)
                .prop_map(|bundle_ids| PrivateRestriction::Ios { bundle_ids }),
            ("[a-z]{1,8}\\.[a-z]{1,8}", "[0-9A-F]{40}").prop_map(|(package, sha1)| {
                PrivateRestriction::Android {
                    apps: vec![AndroidApp { package, sha1 }],
                }
            }),
        ],
    )
        .prop_map(|(write, restriction)| KeyScope::Private { write, restriction });
    (
        prop_oneof![public, private],
        "\\PC{0,20}",
        proptest::option::of(0u64..1_000_000),
        proptest::option::of(0i64..4_000_000_000),
    )
        .prop_map(|(scope, project, quota, exp)| {
            let mut c = KeyClaims::new(scope);
            c.project = project;
            c.quota = quota;
            c.exp = exp;
            c
        })
}

fn publisher() -> &'static Publisher {
    static P: std::sync::OnceLock<Publisher> = std::sync::OnceLock::new();
    P.get_or_init(|| Publisher::generate().unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Every field parser returns for any text, and its errors name the parameter.
    #[test]
    fn field_parsers_never_panic_and_name_the_parameter(s in value(), loc in prop::sample::select(&[Loc::Query, Loc::Header, Loc::Path][..])) {
        for (label, parse) in FIELD_PARSERS {
            let answer = std::panic::catch_unwind(|| parse(loc, "the_param", &s))
                .unwrap_or_else(|_| panic!("{label} panicked on {s:?}"));
            check_named(label, loc, "the_param", answer);
        }
    }

    /// `lat,lng` in range round-trips through its text form.
    #[test]
    fn latlng_round_trips(lat in -90.0f64..=90.0, lng in -180.0f64..=180.0) {
        let p = parse_latlng(Loc::Query, "location", &format!("{lat},{lng}")).unwrap();
        prop_assert_eq!((p.lat, p.lng), (lat, lng));
    }

    /// `optimize:true|...` keeps every point in order.
    #[test]
    fn waypoints_round_trip(optimize in any::<bool>(), pts in prop::collection::vec((-90.0f64..=90.0, -180.0f64..=180.0), 1..10)) {
        let text: Vec<String> = pts.iter().map(|(a, b)| format!("{a},{b}")).collect();
        let text = format!("optimize:{optimize}|{}", text.join("|"));
        let w = distance::parse_waypoints(Loc::Query, "waypoints", &text).unwrap();
        prop_assert_eq!(w.optimize, optimize);
        let back: Vec<(f64, f64)> = w.points.iter().map(|p| (p.lat, p.lng)).collect();
        prop_assert_eq!(back, pts);
    }

    /// Decoding any text as a polyline returns (never panics, never overflows).
    #[test]
    fn polyline_decoding_never_panics(s in prop_oneof![
        "\\PC{0,80}",
        prop::collection::vec(prop::sample::select(&["~", "?", "_", "@", "`", "|", "\u{7f}", "\u{3e}"][..]), 0..300).prop_map(|v| v.concat()),
        // Values of 13 characters, the longest the format allows: deltas near 2^60.
        prop::collection::vec(prop::sample::select(&["~~~~~~~~~~~~^", "_~~~~~~~~~~~A", "_~~~~~~~~~~~@", "?"][..]), 0..40).prop_map(|v| v.concat()),
    ]) {
        let mut out = Vec::new();
        let _ = decode_polyline(&s, 5, &mut out);
        let _ = decode_polyline(&s, 6, &mut out);
        let _ = decode_polyline6(&s);
    }

    /// Encoding then decoding gives the points back to the precision.
    #[test]
    fn polyline_round_trips(pts in prop::collection::vec((-90.0f64..=90.0, -180.0f64..=180.0), 0..40), precision in 5u32..=6) {
        let pts: Vec<Pt> = pts.into_iter().map(|(a, b)| Pt::new(a, b)).collect();
        let text = encode_polyline(pts.iter().copied(), precision);
        let mut back = Vec::new();
        decode_polyline(&text, precision, &mut back).unwrap();
        prop_assert_eq!(back.len(), pts.len());
        let tolerance = 0.51 / 10f64.powi(precision as i32) + 1e-12;
        for (a, b) in pts.iter().zip(&back) {
            prop_assert!((a.lat - b.lat).abs() <= tolerance && (a.lng - b.lng).abs() <= tolerance, "{a:?} vs {b:?}");
        }
    }

    /// A key issued by a publisher verifies to the same claims; a changed character makes it
    /// fail or (base64 slack in the last character) verify to the same claims; any text is
    /// refused without a panic.
    #[test]
    fn keys_round_trip(c in claims(), at in any::<prop::sample::Index>(), replacement in prop::sample::select(&['A', 'b', '-', '_', '.', '0', 'é'][..]), junk in "\\PC{0,200}") {
        let p = publisher();
        let Ok(key) = p.issue(&c) else {
            // Claims the issuer refuses are refused by their own rules.
            prop_assert!(c.validate().is_err(), "{c:?} was refused");
            return Ok(());
        };
        let trusted = [p.verifying()];
        let back = verify(&key, &trusted).unwrap();
        let mut expected = c.clone();
        expected.iss = p.id();
        prop_assert_eq!(&back, &expected);

        let chars: Vec<char> = key.chars().collect();
        let i = at.index(chars.len());
        let mut changed = chars.clone();
        changed[i] = replacement;
        let changed: String = changed.into_iter().collect();
        if changed != key
            && let Ok(claims) = verify(&changed, &trusted)
        {
            prop_assert_eq!(claims, expected, "a changed key verified to other claims");
        }
        let other = Publisher::generate().unwrap();
        prop_assert!(verify(&key, &[other.verifying()]).is_err(), "an unknown publisher's key");
        let _ = verify(&junk, &trusted);
        let _ = verify(&format!("pk_{junk}"), &trusted);
        let _ = verify(&format!("sk_{junk}.{junk}"), &trusted);
    }

    /// `Referer` hosts and domain patterns: never a panic; a valid pattern matches its own
    /// host, a wildcard matches a subdomain and not the bare domain.
    #[test]
    fn referer_and_domain_matching(s in "\\PC{0,60}", scheme in "[a-z]{1,6}", host in "[a-z0-9-]{1,12}(\\.[a-z0-9-]{1,12}){0,3}", port in proptest::option::of(any::<u16>()), path in "(/[^?#]{0,12})?") {
        let _ = url_host(&s);
        let _ = validate_domain_pattern(&s);
        let _ = domain_matches(&s, &s);
        let _ = domain_matches(&s, &host);
        let url = match port {
            Some(p) => format!("{scheme}://{host}:{p}{path}"),
            None => format!("{scheme}://{host}{path}"),
        };
        prop_assert_eq!(url_host(&url), Some(host.clone()));
        prop_assert!(domain_matches(&host, &host.to_uppercase()));
        let wildcard = format!("*.{host}");
        let sub = format!("a.{host}");
        prop_assert!(domain_matches(&wildcard, &sub));
        prop_assert!(!domain_matches(&wildcard, &host));
    }

    /// `Accept-Language`: never a panic; the localities answer in a two-letter code, routes in
    /// a supported language.
    #[test]
    fn accept_language_never_panics(s in prop_oneof![
        "\\PC{0,60}",
        prop::collection::vec(prop::sample::select(&["fr", "de-CH", "en_GB", "*", ";q=", "0.5", "1", "NaN", "-1", ",", ";", " ", "x", "zz", "é"][..]), 0..12).prop_map(|v| v.concat()),
    ]) {
        let _ = RouteLanguage::from_accept_language(&s);
        let l = crate::localities::format::resolve_language(None, Some(&s), None);
        prop_assert!(l.len() == 2 && l.bytes().all(|b| b.is_ascii_lowercase()), "{l:?} from {s:?}");
    }
}

/// Deltas near 2^60 summed past the range of an `i64` (the decoder used to overflow: a panic
/// in debug builds, wrapped coordinates in release).
#[test]
fn polyline_with_huge_deltas_is_refused() {
    let text = "_~~~~~~~~~~~A".repeat(20);
    let mut out = Vec::new();
    assert_eq!(
        decode_polyline(&text, 5, &mut out),
        Err(crate::geo::PolylineError::OutOfRange)
    );
}
