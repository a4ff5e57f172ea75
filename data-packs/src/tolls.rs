//! Toll systems and fares (tables `toll_systems`, `toll_fares`), built with the routing layer.
//!
//! * **Systems** group the tolled road edges (`toll = 1`) by their way's `ref`, else its
//!   name, else the way itself; a system is named after its most frequent way name (else its
//!   ref). Its booths are the `barrier=toll_booth` nodes on one of its edges or within 300 m
//!   of one. Its country is the pack's country.
//! * **Fares.** No open data source gives toll tariffs, so every fare in a pack is **made
//!   up**: [`KNOWN`] lists placeholder prices for the systems of the sample packs (Andorra's
//!   Túnel d'Envalira), and any other system gets a placeholder of 1.00 plus 0.10 per km
//!   (cars) or 3.00 plus 0.30 per km (trucks) in the country's currency. Each fare row is
//!   marked `made_up = 1`, the manifest lists the fare table as a source whose notes say the
//!   prices are made up, and the API labels every such fare `(made-up fare)`.
use std::collections::{BTreeMap, HashMap};

use rusqlite::{Connection, params};
use serde::Serialize;
use waymark_core::geo::haversine_m;
use waymark_core::packs::PackSource;
use waymark_core::routing::RoadNetwork;

use crate::error::BuildError;

/// A placeholder fare for a known toll system.
#[derive(Debug, Clone, Copy)]
pub struct KnownFare {
    /// Country (alpha-2).
    pub country: &'static str,
    /// Matched against the system's name and ref.
    pub matches: &'static str,
    /// Car price.
    pub car: f64,
    /// Truck price.
    pub truck: f64,
    /// ISO 4217.
    pub currency: &'static str,
    /// Payment methods.
    pub payment: &'static [&'static str],
    /// Transponder systems.
    pub transponders: &'static [&'static str],
}

/// Placeholder fares of the sample packs' toll systems (made up; not operators' tariffs).
pub const KNOWN: &[KnownFare] = &[KnownFare {
    country: "AD",
    matches: "Envalira",
    car: 7.5,
    truck: 30.0,
    currency: "EUR",
    payment: &["cash", "bankCard", "transponder"],
    transponders: &["Bip&Drive"],
}];

/// The currency of a country (EUR when not listed).
pub fn currency(country: &str) -> &'static str {
    match country {
        "GB" => "GBP",
        "CH" | "LI" => "CHF",
        "DK" => "DKK",
        "NO" => "NOK",
        "SE" => "SEK",
        "PL" => "PLN",
        "CZ" => "CZK",
        "HU" => "HUF",
        _ => "EUR",
    }
}

/// The manifest source entry of the fare table.
pub fn fare_source() -> PackSource {
    PackSource {
        id: "waymark-toll-fares".into(),
        licence: "CC0-1.0".into(),
        attribution: "Waymark placeholder toll fare table".into(),
        version: Some("1".into()),
        sha256: None,
        notes: Some(
            "made-up fares: every toll price in this pack is a placeholder, not the operator's tariff"
                .into(),
        ),
        layers: vec![waymark_core::packs::schema::layers::ROUTING.to_string()],
    }
}

/// What was written.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TollStats {
    /// Systems.
    pub systems: usize,
    /// Fares.
    pub fares: usize,
    /// Booths attached to a system.
    pub booths: usize,
}

/// Writes the toll tables of the network in `conn`.
pub fn build(conn: &Connection, net: &RoadNetwork) -> Result<TollStats, BuildError> {
    conn.execute_batch("DELETE FROM toll_fares; DELETE FROM toll_systems;")?;
    // key → edge indexes
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, e) in net.edges.iter().enumerate() {
        if !e.toll() {
            continue;
        }
        let r = net.road_ref(i as u32);
        let n = net.name(i as u32);
        let key = if !r.is_empty() {
            format!("ref:{r}")
        } else if !n.is_empty() {
            format!("name:{n}")
        } else {
            format!("way:{}", e.way_id)
        };
        groups.entry(key).or_default().push(i);
    }
    let mut stats = TollStats::default();
    let country = if net.country.is_empty() {
        "ZZ".to_string()
    } else {
        net.country.clone()
    };
    let mut sys_stmt = conn.prepare(
        "INSERT INTO toll_systems(id, name, country_code, ways, booths) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut fare_stmt = conn.prepare(
        "INSERT INTO toll_fares(id, system_id, vehicle, name, currency, price, payment_methods, \
         transponders, made_up, note) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1, ?9)",
    )?;
    for (i, (key, edges)) in groups.iter().enumerate() {
        let id = i as i64 + 1;
        let mut names: HashMap<&str, usize> = HashMap::new();
        for &e in edges {
            let n = net.name(e as u32);
            if !n.is_empty() {
                *names.entry(n).or_default() += 1;
            }
        }
        let name = names
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
            .map(|(n, _)| n.to_string())
            .unwrap_or_else(|| {
                key.split_once(':')
                    .map_or(key.clone(), |(_, v)| v.to_string())
            });
        let mut ways: Vec<i64> = edges.iter().map(|&e| net.edges[e].way_id).collect();
        ways.sort_unstable();
        ways.dedup();
        let booths: Vec<i64> = net
            .toll_booths
            .iter()
            .filter(|b| {
                edges.iter().any(|&e| {
                    let edge = &net.edges[e];
                    b.node.is_some_and(|n| n == edge.from || n == edge.to)
                        || net
                            .geometry(e as u32)
                            .iter()
                            .any(|p| haversine_m(*p, b.at) <= 300.0)
                })
            })
            .map(|b| b.osm_id)
            .collect();
        stats.booths += booths.len();
        sys_stmt.execute(params![
            id,
            name,
            country,
            serde_json::to_string(&ways).unwrap_or_default(),
            serde_json::to_string(&booths).unwrap_or_default(),
        ])?;
        stats.systems += 1;
        let length_km: f64 = edges
            .iter()
            .map(|&e| {
                let edge = &net.edges[e];
                if edge.oneway == 0 {
                    edge.length_m
                } else {
                    edge.length_m / 2.0
                }
            })
            .sum::<f64>()
            / 1000.0;
        let known = KNOWN.iter().find(|k| {
            k.country == country && (name.contains(k.matches) || key.contains(k.matches))
        });
        let (car, truck, cur, payment, transponders, note) = match known {
            Some(k) => (
                k.car,
                k.truck,
                k.currency,
                k.payment.to_vec(),
                k.transponders.to_vec(),
                "made-up placeholder price for this system",
            ),
            None => (
                ((1.0 + 0.10 * length_km) * 100.0).round() / 100.0,
                ((3.0 + 0.30 * length_km) * 100.0).round() / 100.0,
                currency(&country),
                vec!["cash", "bankCard"],
                Vec::new(),
                "made-up placeholder: 1.00 + 0.10/km (car), 3.00 + 0.30/km (truck)",
            ),
        };
        for (vehicle, price) in [("car", car), ("truck", truck)] {
            fare_stmt.execute(params![
                format!("{id}-{vehicle}"),
                id,
                vehicle,
                format!("{name} ({vehicle})"),
                cur,
                price,
                serde_json::to_string(&payment).unwrap_or_default(),
                serde_json::to_string(&transponders).unwrap_or_default(),
                note,
            ])?;
            stats.fares += 1;
        }
    }
    Ok(stats)
}
