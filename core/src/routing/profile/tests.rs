use super::*;

#[test]
fn speeds_follow_the_table() {
    let ad = CountryLimits::of("AD");
    assert_eq!(
        speed_kmh(Profile::Driving, Highway::Primary, None, None, &ad, false),
        70.0
    );
    assert_eq!(
        speed_kmh(Profile::Driving, Highway::Motorway, None, None, &ad, false),
        90.0,
        "capped by the country"
    );
    assert_eq!(
        speed_kmh(
            Profile::Driving,
            Highway::Primary,
            Some(50.0),
            None,
            &ad,
            false
        ),
        50.0,
        "the tagged limit"
    );
    assert_eq!(
        speed_kmh(
            Profile::Driving,
            Highway::Residential,
            Some(120.0),
            None,
            &ad,
            false
        ),
        50.0,
        "a mistagged street stays a street: no faster than the country's urban limit"
    );
    assert_eq!(
        speed_kmh(
            Profile::Driving,
            Highway::Residential,
            Some(50.0),
            None,
            &CountryLimits::of("LI"),
            true
        ),
        50.0,
        "a street signed at the urban limit is driven at it"
    );
    assert_eq!(
        speed_kmh(
            Profile::Driving,
            Highway::Service,
            Some(30.0),
            None,
            &ad,
            false
        ),
        30.0,
        "up to the urban limit a tag wins over 1.3 x the class default"
    );
    assert_eq!(
        speed_kmh(
            Profile::Truck,
            Highway::Trunk,
            Some(100.0),
            None,
            &ad,
            false
        ),
        80.0
    );
    assert_eq!(
        speed_kmh(Profile::Walking, Highway::Steps, None, None, &ad, false),
        3.0
    );
    assert_eq!(
        speed_kmh(
            Profile::Cycling,
            Highway::Cycleway,
            Some(10.0),
            None,
            &ad,
            false
        ),
        10.0
    );
    // Main roads outside built-up areas at the open-road speed, in towns like any street;
    // residential streets at 16 everywhere; a tagged limit below it still caps.
    assert_eq!(
        speed_kmh(Profile::Cycling, Highway::Secondary, None, None, &ad, false),
        CYCLING_OPEN_ROAD_KMH
    );
    assert_eq!(
        speed_kmh(Profile::Cycling, Highway::Secondary, None, None, &ad, true),
        16.0
    );
    assert_eq!(
        speed_kmh(
            Profile::Cycling,
            Highway::Residential,
            None,
            None,
            &ad,
            false
        ),
        16.0
    );
    assert_eq!(
        speed_kmh(
            Profile::Cycling,
            Highway::Primary,
            Some(15.0),
            None,
            &ad,
            false
        ),
        15.0
    );
    assert_eq!(
        speed_kmh(
            Profile::Driving,
            Highway::Ferry,
            Some(50.0),
            None,
            &ad,
            false
        ),
        FERRY_KMH
    );
}

#[test]
fn built_up_defaults_are_slower() {
    let de = CountryLimits::of("DE");
    assert_eq!(
        speed_kmh(Profile::Driving, Highway::Primary, None, None, &de, true),
        50.0,
        "capped by the urban limit"
    );
    assert_eq!(
        speed_kmh(Profile::Driving, Highway::Tertiary, None, None, &de, true),
        40.0
    );
    assert_eq!(
        speed_kmh(Profile::Driving, Highway::Tertiary, None, None, &de, false),
        50.0
    );
    assert_eq!(
        speed_kmh(
            Profile::Driving,
            Highway::Tertiary,
            Some(70.0),
            None,
            &de,
            true
        ),
        65.0,
        "a tag wins, up to 1.3 x the class default"
    );
    assert_eq!(
        speed_kmh(
            Profile::Driving,
            Highway::Residential,
            None,
            None,
            &de,
            false
        ),
        35.0,
        "a residential street outside built-up areas"
    );
    assert_eq!(
        speed_kmh(
            Profile::Driving,
            Highway::Residential,
            None,
            None,
            &de,
            true
        ),
        30.0
    );
}

#[test]
fn junction_costs_grow_with_density() {
    let at = |legs, gives_way, density| Junction {
        legs,
        gives_way,
        density,
    };
    assert_eq!(
        transition_cost_ms(Profile::Driving, 90.0, at(4, true, 3.0)),
        0
    );
    assert_eq!(
        transition_cost_ms(Profile::Driving, 90.0, at(2, true, 20.0)),
        0
    );
    let town = transition_cost_ms(Profile::Driving, 90.0, at(4, true, 18.0));
    assert_eq!(town, 13_000);
    assert!(transition_cost_ms(Profile::Driving, 90.0, at(4, false, 18.0)) < town);
    assert!(transition_cost_ms(Profile::Driving, 90.0, at(4, true, 28.0)) > town);
    assert_eq!(
        transition_cost_ms(Profile::Truck, 90.0, at(4, true, 18.0)),
        2 * town
    );
    // Cyclists: half the tier everywhere; in built-up areas the same tier again and the
    // give-way time, both scaled by the density (1.3 at 18 km/km²).
    assert_eq!(
        transition_cost_ms(Profile::Cycling, 90.0, at(4, true, 3.0)),
        2_000
    );
    assert_eq!(
        transition_cost_ms(Profile::Cycling, 90.0, at(4, true, 18.0)),
        2_000 + 2_600 + 2_600
    );
    assert_eq!(
        transition_cost_ms(Profile::Cycling, 10.0, at(3, true, 18.0)),
        2_600,
        "crossing straight on from a lower road"
    );
    assert_eq!(
        transition_cost_ms(Profile::Cycling, 90.0, at(2, true, 18.0)),
        2_000,
        "no junction"
    );
    assert_eq!(
        transition_cost_ms(Profile::Walking, 90.0, at(4, true, 18.0)),
        0
    );
}

#[test]
fn restrictions_and_exceptions() {
    assert!(Profile::Driving.restricted_by(None));
    assert!(!Profile::Walking.restricted_by(None));
    assert!(!Profile::Cycling.restricted_by(Some("psv;bicycle")));
    assert!(Profile::Truck.restricted_by(Some("bicycle")));
    assert!(!Profile::Truck.restricted_by(Some("hgv")));
}

#[test]
fn turn_costs() {
    assert_eq!(turn_cost_ms(Profile::Driving, 10.0, false), 0);
    assert_eq!(turn_cost_ms(Profile::Driving, 90.0, false), 4_000);
    assert_eq!(turn_cost_ms(Profile::Truck, 90.0, false), 8_000);
    assert_eq!(turn_cost_ms(Profile::Driving, 180.0, true), 20_000);
    assert_eq!(turn_cost_ms(Profile::Walking, 180.0, true), 0);
}

#[test]
fn tracks_are_driven_by_their_grade() {
    let de = CountryLimits::of("DE");
    let track = |grade: Option<u8>, maxspeed: Option<f64>, urban: bool| {
        speed_kmh(
            Profile::Driving,
            Highway::Track,
            maxspeed,
            grade,
            &de,
            urban,
        )
    };
    assert_eq!(track(Some(1), None, false), 20.0);
    assert_eq!(track(Some(2), None, true), 15.0);
    assert_eq!(track(Some(3), None, false), 12.0);
    assert_eq!(track(Some(4), None, false), 10.0);
    assert_eq!(track(Some(5), None, false), 5.0);
    assert_eq!(
        track(None, None, false),
        5.0,
        "a track of unknown grade crawls"
    );
    assert_eq!(
        track(None, Some(30.0), false),
        30.0,
        "a tagged limit, as on any road"
    );
    assert_eq!(
        speed_kmh(Profile::Cycling, Highway::Track, None, None, &de, false),
        12.0,
        "cyclists ride every track alike"
    );
}
