//! Tolls of a route from the pack's `toll_systems` / `toll_fares` tables (built with the
//! routing layer from OSM `toll=*` ways and `barrier=toll_booth` nodes).
//!
//! Every maximal run of consecutive tolled arcs of one system along a leg is one toll entry:
//! its `fares` are the system's fares for the vehicle class (`truck` for the truck mode, `car`
//! otherwise), and its `tollCollectionLocations` the toll booths of the system that the run
//! passes (a booth on a node of the run), else every booth of the system. Fares marked made up
//! in the pack carry `(made-up fare)` in their name and `madeup:` in their id. Pedestrians and
//! cyclists pay no tolls.
use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

use crate::api::{Fare, LatLng, LegTollSystem, Price, Toll, TollCollectionLocation, Transponder};
use crate::routing::Profile;
use crate::routing::graph::TurnGraph;
use crate::routing::router::{ArcPath, Router};

/// A toll system.
#[derive(Debug, Clone)]
pub struct TollSystem {
    /// Id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    /// OSM ways.
    pub ways: HashSet<i64>,
    /// Booth OSM ids.
    pub booths: Vec<i64>,
}

/// A fare row.
#[derive(Debug, Clone)]
pub struct FareRow {
    /// Fare id.
    pub id: String,
    /// System.
    pub system: i64,
    /// `car` or `truck`.
    pub vehicle: String,
    /// Name.
    pub name: String,
    /// ISO 4217.
    pub currency: String,
    /// Amount.
    pub price: f64,
    /// Payment methods.
    pub payment_methods: Vec<String>,
    /// Transponder systems.
    pub transponders: Vec<String>,
    /// Whether the price is a placeholder.
    pub made_up: bool,
}

/// The toll data of a pack.
#[derive(Debug, Default)]
pub struct TollTable {
    systems: Vec<TollSystem>,
    by_way: HashMap<i64, usize>,
    fares: Vec<FareRow>,
}

/// ISO 3166-1 alpha-3 of an alpha-2 code (the countries of the sample packs and their
/// neighbours; other codes are returned unchanged).
pub fn alpha3(code: &str) -> String {
    let c = match code.to_ascii_uppercase().as_str() {
        "AD" => "AND",
        "AT" => "AUT",
        "BE" => "BEL",
        "CH" => "CHE",
        "DE" => "DEU",
        "DK" => "DNK",
        "ES" => "ESP",
        "FI" => "FIN",
        "FR" => "FRA",
        "GB" | "UK" => "GBR",
        "IT" => "ITA",
        "LI" => "LIE",
        "MC" => "MCO",
        "NL" => "NLD",
        "NO" => "NOR",
        "PL" => "POL",
        "PT" => "PRT",
        "SE" => "SWE",
        other => return other.to_string(),
    };
    c.to_string()
}

impl TollTable {
    /// Reads the tables (empty when the pack has none).
    pub fn load(conn: &Connection) -> rusqlite::Result<TollTable> {
        let mut t = TollTable::default();
        let mut stmt = conn
            .prepare("SELECT id, name, country_code, ways, booths FROM toll_systems ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let ways: String = r.get(3)?;
            let booths: String = r.get(4)?;
            let sys = TollSystem {
                id: r.get(0)?,
                name: r.get(1)?,
                country: r.get(2)?,
                ways: serde_json::from_str::<Vec<i64>>(&ways)
                    .unwrap_or_default()
                    .into_iter()
                    .collect(),
                booths: serde_json::from_str(&booths).unwrap_or_default(),
            };
            for w in &sys.ways {
                t.by_way.insert(*w, t.systems.len());
            }
            t.systems.push(sys);
        }
        let mut stmt = conn.prepare(
            "SELECT id, system_id, vehicle, name, currency, price, payment_methods, transponders, \
             made_up FROM toll_fares ORDER BY id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let pm: String = r.get(6)?;
            let tr: String = r.get(7)?;
            t.fares.push(FareRow {
                id: r.get(0)?,
                system: r.get(1)?,
                vehicle: r.get(2)?,
                name: r.get(3)?,
                currency: r.get(4)?,
                price: r.get(5)?,
                payment_methods: serde_json::from_str(&pm).unwrap_or_default(),
                transponders: serde_json::from_str(&tr).unwrap_or_default(),
                made_up: r.get::<_, i64>(8)? != 0,
            });
        }
        Ok(t)
    }

    /// The toll data of joined packs as one table: a system of the same name and country in
    /// several packs (a tolled road their border cuts) is one system with the ways and booths
    /// of all; fares of one system, vehicle and name are kept once. Ids are the first pack's.
    pub fn merge(tables: Vec<TollTable>) -> TollTable {
        let mut t = TollTable::default();
        for table in tables {
            let mut ids: HashMap<i64, i64> = HashMap::new();
            for sys in table.systems {
                let original = sys.id;
                let at = t
                    .systems
                    .iter()
                    .position(|s| s.name == sys.name && s.country == sys.country);
                let index = match at {
                    Some(i) => {
                        let have = &mut t.systems[i];
                        have.ways.extend(sys.ways.iter().copied());
                        for b in &sys.booths {
                            if !have.booths.contains(b) {
                                have.booths.push(*b);
                            }
                        }
                        i
                    }
                    None => {
                        let mut sys = sys;
                        // Keep ids unique across packs.
                        while t.systems.iter().any(|s| s.id == sys.id) {
                            sys.id += 1_000_000;
                        }
                        t.systems.push(sys);
                        t.systems.len() - 1
                    }
                };
                ids.insert(original, t.systems[index].id);
                for w in &t.systems[index].ways {
                    t.by_way.insert(*w, index);
                }
            }
            for mut f in table.fares {
                let Some(&sys) = ids.get(&f.system) else {
                    continue;
                };
                f.system = sys;
                if !t
                    .fares
                    .iter()
                    .any(|x| x.system == f.system && x.vehicle == f.vehicle && x.name == f.name)
                {
                    t.fares.push(f);
                }
            }
        }
        t
    }

    /// Number of toll systems.
    pub fn len(&self) -> usize {
        self.systems.len()
    }

    /// Whether the pack has no toll system.
    pub fn is_empty(&self) -> bool {
        self.systems.is_empty()
    }

    /// The tolls and toll systems of one leg.
    pub fn leg_tolls(
        &self,
        router: &Router,
        g: &TurnGraph,
        path: &ArcPath,
        profile: Profile,
    ) -> (Vec<Toll>, Vec<LegTollSystem>) {
        let mut tolls = Vec::new();
        let mut systems: Vec<LegTollSystem> = Vec::new();
        if !profile.is_motor() {
            return (tolls, systems);
        }
        let vehicle = if profile == Profile::Truck {
            "truck"
        } else {
            "car"
        };
        let net = &router.net;
        // Runs of tolled arcs of one system: (system index, nodes passed).
        let mut runs: Vec<(usize, Vec<u32>)> = Vec::new();
        for &a in &path.arcs {
            let e = &net.edges[g.arc_edge[a as usize] as usize];
            let sys = if e.toll() {
                self.by_way.get(&e.way_id).copied()
            } else {
                None
            };
            match (sys, runs.last_mut()) {
                (Some(s), Some((last, nodes))) if *last == s && !nodes.is_empty() => {
                    nodes.push(e.from);
                    nodes.push(e.to);
                }
                (Some(s), _) => runs.push((s, vec![e.from, e.to])),
                (None, _) => {
                    // a toll-free arc ends the run
                    if runs.last().is_some_and(|r| !r.1.is_empty()) {
                        runs.push((usize::MAX, Vec::new()));
                    }
                }
            }
        }
        for (sys_index, nodes) in runs.into_iter().filter(|r| r.0 != usize::MAX) {
            let sys = &self.systems[sys_index];
            let ref_index = match systems.iter().position(|s| s.id == sys.id) {
                Some(i) => i,
                None => {
                    systems.push(LegTollSystem {
                        id: sys.id,
                        name: sys.name.clone(),
                    });
                    systems.len() - 1
                }
            };
            let node_set: HashSet<u32> = nodes.into_iter().collect();
            let booths: Vec<_> = net
                .toll_booths
                .iter()
                .filter(|b| sys.booths.contains(&b.osm_id))
                .collect();
            let passed: Vec<_> = booths
                .iter()
                .filter(|b| b.node.is_some_and(|n| node_set.contains(&n)))
                .collect();
            let chosen: Vec<_> = if passed.is_empty() {
                booths.iter().collect()
            } else {
                passed
            };
            let locations = chosen
                .iter()
                .map(|b| TollCollectionLocation {
                    name: b.name.clone().unwrap_or_else(|| sys.name.clone()),
                    location: LatLng::new(b.at.lat, b.at.lng),
                })
                .collect();
            let fares = self
                .fares
                .iter()
                .filter(|f| f.system == sys.id && f.vehicle == vehicle)
                .map(|f| Fare {
                    id: if f.made_up {
                        format!("madeup:{}", f.id)
                    } else {
                        f.id.clone()
                    },
                    name: if f.made_up {
                        format!("{} (made-up fare)", f.name)
                    } else {
                        f.name.clone()
                    },
                    price: Price {
                        kind: "value".into(),
                        currency: f.currency.clone(),
                        value: f.price,
                    },
                    reason: "toll".into(),
                    payment_methods: f.payment_methods.clone(),
                    transponders: f
                        .transponders
                        .iter()
                        .map(|s| Transponder { system: s.clone() })
                        .collect(),
                })
                .collect();
            tolls.push(Toll {
                country_code: alpha3(&sys.country),
                toll_system_ref: ref_index as i64,
                toll_system: sys.name.clone(),
                toll_systems: vec![ref_index as i64],
                fares,
                toll_collection_locations: locations,
            });
        }
        (tolls, systems)
    }
}
