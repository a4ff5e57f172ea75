//! The access rules on small venue files made from the sample venue file, one rule each: a
//! private room, a shut door, IMDF `restriction` on a unit and on an opening, two rooms sharing
//! a wall without a door, a door tagged `wheelchair=no`. Each rule is applied to the sample's
//! bakery (a room on level 0 entered from the hall through one opening); the plain sample
//! venue is the control that reaches it through that opening.

use super::*;

/// One variant per rule (`imdf-<prefix>venue-1`), added to the München pack by the fixture.
pub(super) const RULES: &[(&str, Edit)] = &[
    // the bakery is a private room
    ("p-", |f| {
        if f["id"] == "p-unit-bakery" {
            f["properties"]["access"] = "private".into();
        }
    }),
    // the bakery's door is shut
    ("d-", |f| {
        if f["id"] == "d-opening-bakery" {
            f["properties"]["access"] = "private".into();
        }
    }),
    // the bakery's door is for employees only (IMDF restriction)
    ("r-", |f| {
        if f["id"] == "r-opening-bakery" {
            f["properties"]["restriction"] = "employeesonly".into();
        }
    }),
    // the bakery is a restricted unit (IMDF restriction)
    ("u-", |f| {
        if f["id"] == "u-unit-bakery" {
            f["properties"]["restriction"] = "restricted".into();
        }
    }),
    // the bakery has no door: it only shares a wall with the hall, a room too
    ("n-", |f| {
        if f["id"] == "n-unit-hall" {
            f["properties"]["category"] = "room".into();
        }
        if f["id"] == "n-opening-bakery" {
            f["feature_type"] = "fixture".into();
            f["properties"] = serde_json::json!({"category": "desk"});
            f["geometry"] = serde_json::Value::Null;
        }
    }),
    // the bakery's door is not for wheelchairs
    ("x-", |f| {
        if f["id"] == "x-opening-bakery" {
            f["properties"]["wheelchair"] = "no".into();
        }
    }),
];

/// Directions in `venue` (`imdf-<prefix>venue-1`) from the gallery's toilets (level 1) to the
/// bakery (level 0).
fn to_bakery(prefix: &str, mode: &str) -> IndoorDirectionsResponse {
    let v = format!("imdf-{prefix}venue-1");
    route(
        &v,
        IndoorPoint::PoiId(poi(&v, "Toilets")),
        IndoorPoint::PoiId(poi(&v, "Sun Bakery")),
        mode,
    )
}

/// The route's last point is in the bakery (north of the hall, west part).
fn ends_in_bakery(r: &IndoorDirectionsResponse) -> bool {
    let leg = r.routes[0].legs.last().unwrap();
    let e = &leg.end_location;
    e.level == 0 && e.lat > 48.1002 && e.lng < 11.5002
}

/// The route passes the bakery's door (the middle of its opening).
fn passes_bakery_door(r: &IndoorDirectionsResponse) -> bool {
    let door = Pt::new(48.1002, 11.5001);
    r.routes[0].legs.iter().flat_map(|l| &l.steps).any(|s| {
        s.polyline
            .iter()
            .any(|p| p[2] == 0.0 && waymark_core::geo::haversine_m(Pt::new(p[1], p[0]), door) < 1.0)
    })
}

#[test]
fn the_plain_sample_reaches_the_bakery_through_its_door() {
    for mode in ["default", "wheelchair"] {
        let r = to_bakery("", mode);
        assert_eq!(r.status, "ok", "{mode}");
        assert!(
            ends_in_bakery(&r),
            "{mode}: {:?}",
            r.routes[0].legs[0].end_location
        );
        assert!(passes_bakery_door(&r), "{mode}");
        assert_walkable(&graph("imdf-venue-1"), &r);
    }
}

/// Whether the graph of `imdf-<prefix>venue-1` has the bakery (a point inside it, off its
/// POI) among its walkable areas.
fn walks_bakery(prefix: &str) -> bool {
    graph(&format!("imdf-{prefix}venue-1"))
        .areas_at(Pt::new(48.10025, 11.50003), 0)
        .count()
        > 0
}

#[test]
fn a_private_room_is_no_walkable_area() {
    assert!(walks_bakery(""));
    assert!(!walks_bakery("p-"));
    // nor is the shop inside it reached
    for mode in ["default", "wheelchair"] {
        assert_eq!(to_bakery("p-", mode).status, "no_route", "{mode}");
    }
}

#[test]
fn a_shut_door_closes_the_room_behind_it() {
    for mode in ["default", "wheelchair"] {
        assert_eq!(to_bakery("d-", mode).status, "no_route", "{mode}");
    }
}

#[test]
fn imdf_restriction_closes_openings_and_units() {
    // an opening for employees only: the room behind it is not reached
    for mode in ["default", "wheelchair"] {
        assert_eq!(to_bakery("r-", mode).status, "no_route", "{mode}");
    }
    // a restricted unit is no walkable area, and what is inside it is not reached
    assert!(!walks_bakery("u-"));
    assert_eq!(to_bakery("u-", "default").status, "no_route");
}

#[test]
fn rooms_sharing_a_wall_without_a_door_are_not_joined() {
    assert_eq!(to_bakery("n-", "default").status, "no_route");
}

#[test]
fn a_door_tagged_wheelchair_no_is_passed_on_foot_only() {
    let r = to_bakery("x-", "default");
    assert_eq!(r.status, "ok");
    assert!(ends_in_bakery(&r) && passes_bakery_door(&r));
    assert_eq!(to_bakery("x-", "wheelchair").status, "no_route");
    // the same over HTTP
    let f = fixture();
    let key = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    let v = "imdf-x-venue-1";
    let (from, to) = (poi(v, "Toilets"), poi(v, "Sun Bakery"));
    for (mode, status) in [("default", "ok"), ("wheelchair", "no_route")] {
        let a = f.server.call(
            "GET",
            &format!("/indoor/directions/{v}?origin={from}&destination={to}&mode={mode}"),
            &key,
            "",
        );
        assert_eq!(a.status, 200, "{}", a.body);
        let body: serde_json::Value = serde_json::from_str(&a.body).unwrap();
        assert_eq!(body["status"], status, "{mode}: {}", a.body);
    }
}
