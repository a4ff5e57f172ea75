//! The early drops of autosuggest: the bounds they rest on hold for every square (a tile's box
//! holds its squares, a tile's disc and its signature's discs are never farther from a point
//! than the square), the steps of words → square give the square `square` gives, and over
//! many requests (third word typed to one, two, three letters and whole; focus at the address,
//! elsewhere, none; every clip) the answer with the drops is the answer with every
//! combination located.
use super::*;
use waymark_core::threewords::near::unit_of;
use waymark_core::threewords::suggest::{parse_input, suggest, suggest_unbounded};

#[test]
fn tile_bounds_hold_every_square() {
    let f = fixture();
    let scheme = &f.index.scheme;
    let (grid, tiles) = (f.index.grid(), scheme.tiles());
    let mut rng = waymark_tests::Rng::new(21);
    let mut useful = 0;
    for i in 0..20_000 {
        let (lat, lng) = rng.sphere_point();
        let square = grid.square(lat, lng).unwrap();
        let tile = tiles.tile_of(square);
        let (clat, clng) = grid.centre(square);
        let [s, w, n, e] = tiles.bounds(tile);
        assert!(
            (s..=n).contains(&clat) && (w..=e).contains(&clng),
            "{clat},{clng} outside tile {tile} {:?}",
            [s, w, n, e]
        );
        // From the square itself, from points up to ≈ 200 km away, and from anywhere.
        let from = if i % 2 == 0 {
            (
                (clat + rng.unit() * 4.0 - 2.0).clamp(-90.0, 90.0),
                clng + rng.unit() * 4.0 - 2.0,
            )
        } else {
            rng.sphere_point()
        };
        let p = Pt::new(from.0, from.1);
        let d = haversine_m(p, Pt::new(clat, clng));
        let u = unit_of(p);
        let near_tile = f.index.discs.tile_min_m(u, tile);
        let signature = usize::from(scheme.signature(tile));
        let near_signature = f.index.discs.signature_min_m(scheme, u, signature);
        assert!(
            near_tile <= d,
            "tile {tile}: {near_tile} m > {d} m from {from:?}"
        );
        assert!(
            near_signature <= near_tile,
            "signature {signature}: {near_signature} m > {near_tile} m"
        );
        // Tight enough to drop anything: within 300 km of the distance below 80°.
        if clat.abs() < 80.0 {
            assert!(
                near_tile >= d - 300_000.0,
                "tile {tile}: {near_tile} m, {d} m"
            );
            useful += usize::from(near_tile > 0.0);
        }
    }
    assert!(useful > 5_000, "{useful}");
}

#[test]
fn words_to_square_step_by_step() {
    let f = fixture();
    let scheme = &f.index.scheme;
    let grid = f.index.grid();
    let mut rng = waymark_tests::Rng::new(22);
    for _ in 0..20_000 {
        let (lat, lng) = rng.sphere_point();
        let square = grid.square(lat, lng).unwrap();
        let ranks = scheme.triple(square);
        let numbered = scheme.numbered(ranks).unwrap();
        assert_eq!(numbered.region(), scheme.regions().region(square));
        let placed = scheme.place(numbered).unwrap();
        assert_eq!(placed.tile, scheme.tiles().tile_of(square));
        assert_eq!(
            usize::from(scheme.signature(placed.tile)),
            numbered.signature
        );
        assert_eq!(scheme.square_of(placed), Some(square), "{lat},{lng}");
    }
}

#[test]
fn early_drops_change_no_suggestion() {
    let f = fixture();
    let words = &f.index.languages["en"];
    let grid = f.index.grid();
    let mut rng = waymark_tests::Rng::new(23);
    let (mut answered, mut compared) = (0, 0);
    for i in 0..360 {
        let (lat, lng) = rng.sphere_point();
        let square = grid.square(lat, lng).unwrap();
        let address = words.address(f.index.scheme.triple(square));
        let (head, last) = address.rsplit_once('.').unwrap();
        let letters = 1 + i % 4;
        let text = format!("{head}.{}", &last[..letters.min(last.len())]);
        let focus = match i / 4 % 3 {
            0 => Some(LatLng::new(lat, lng)),
            1 => {
                let (a, b) = rng.sphere_point();
                Some(LatLng::new(a, b))
            }
            _ => None,
        };
        let mut req = AutosuggestRequest {
            input: text.clone(),
            focus,
            prefer_land: i % 5 == 0,
            ..Default::default()
        };
        match i / 12 % 6 {
            0 => {}
            1 => req.clip_to_country = vec!["GB".into(), "FR".into()],
            2 => {
                req.clip_to_bounding_box = Some(Viewport {
                    southwest: LatLng::new(40.0, -10.0),
                    northeast: LatLng::new(60.0, 30.0),
                })
            }
            3 => {
                req.clip_to_circle = Some(Circle {
                    center: LatLng::new(lat, lng),
                    radius_km: 2_000.0,
                })
            }
            4 => {
                req.clip_to_polygon = Some(vec![
                    LatLng::new(-40.0, -80.0),
                    LatLng::new(-40.0, 40.0),
                    LatLng::new(30.0, 40.0),
                    LatLng::new(30.0, -80.0),
                    LatLng::new(-40.0, -80.0),
                ])
            }
            _ => req.clip_to_country = vec!["US".into()],
        }
        let input = parse_input(&req.input, InputType::Text).unwrap().unwrap();
        let fast = suggest(&f.index, words, &input, &req);
        let slow = suggest_unbounded(&f.index, words, &input, &req);
        assert_eq!(fast, slow, "{req:?}");
        compared += 1;
        answered += usize::from(!fast.is_empty());
    }
    println!("early drops: {compared} requests compared, {answered} answered");
    assert!(answered > compared / 2, "{answered} of {compared}");
}
