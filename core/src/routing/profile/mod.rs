//! Travel profiles (`driving`, `truck`, `walking`, `cycling`) and metrics (`time`, `distance`):
//! which edges a profile may use, in which direction, at what speed, and what a turn costs.
//!
//! # Access and direction
//!
//! | profile | access column | one-way |
//! |---|---|---|
//! | driving | `car` | `oneway` of the edge |
//! | truck | `truck` | `oneway` of the edge |
//! | walking | `foot` | ignored (both directions) |
//! | cycling | `bicycle` | `oneway` of the edge; contraflow is a separate bicycle-only edge row |
//!
//! # Speeds (km/h)
//!
//! When the edge has a tagged `maxspeed` (country implicit values such as `DE:urban` or
//! `FR:rural` are resolved by the pack builder), vehicles drive at it, never faster than the
//! rural class default × 1.3 or the country's urban limit, whichever is higher (a residential
//! street mistagged 120 does not become a motorway, one signed 50 is driven at 50). Otherwise
//! at the class default below, outside or inside a built-up area (a road density of at least
//! [`URBAN_DENSITY`] km/km² around the edge, [`super::density`]), capped by the country's
//! default limit ([`CountryLimits`]: motorway for `motorway`, urban for the other classes in
//! built-up areas and for `residential`/`living_street`/`service`, rural for the others).
//! Trucks are then capped at 80 km/h on motorways and trunk roads and 70 km/h elsewhere.
//!
//! | highway | driving (rural) | driving (built-up) | cycling | walking |
//! |---|---|---|---|---|
//! | motorway | 110 | 90 | — | — |
//! | motorway_link | 60 | 50 | — | — |
//! | trunk | 90 | 70 | 18 rural, 16 built-up | 5 |
//! | trunk_link | 50 | 40 | 18 rural, 16 built-up | 5 |
//! | primary | 70 | 55 | 18 rural, 16 built-up | 5 |
//! | primary_link | 45 | 35 | 18 rural, 16 built-up | 5 |
//! | secondary | 60 | 50 | 18 rural, 16 built-up | 5 |
//! | secondary_link | 40 | 30 | 18 rural, 16 built-up | 5 |
//! | tertiary | 50 | 40 | 18 rural, 16 built-up | 5 |
//! | tertiary_link | 35 | 30 | 18 rural, 16 built-up | 5 |
//! | unclassified | 40 | 35 | 16 | 5 |
//! | residential | 35 | 30 | 16 | 5 |
//! | living_street | 10 | 10 | 12 | 5 |
//! | service | 15 | 15 | 14 | 5 |
//! | road | 30 | 30 | 14 | 5 |
//! | track | by `tracktype`: 20 / 15 / 12 / 10 for grade 1 / 2 / 3 / 4, 5 for grade 5 or none ([`track_kmh`]) | the same | 12 | 5 |
//! | path | — | — | 12 | 5 |
//! | cycleway | — | — | 18 | 5 |
//! | footway, bridleway | — | — | 8 (where allowed) | 5 |
//! | pedestrian | — | — | 8 (where allowed) | 5 |
//! | steps | — | — | 3 (where allowed, carrying) | 3 |
//! | ferry | 20 | 20 | 20 | 20 |
//!
//! Cyclists ride the main roads (trunk to tertiary) at [`CYCLING_OPEN_ROAD_KMH`] outside
//! built-up areas, a city bicycle's cruising speed on a long, smooth carriageway with few
//! junctions, and at 16 km/h in built-up areas, like every other street. They never exceed a
//! tagged `maxspeed`. Ferries (`route=ferry`) move at 20 km/h whatever
//! the profile (boarding and waiting are not modelled).
//!
//! # Turn and junction costs (time metric only)
//!
//! The deviation angle between the last segment of the incoming edge and the first segment of
//! the outgoing one gives a turn tier ([`turn_cost_ms`]): below 30° straight (0 s), 30–60°
//! slight (2 s), 60–120° turn (4 s), above 120° sharp (7 s); a U-turn (back onto the same edge)
//! is only possible at a dead end and costs 20 s. Cyclists pay half the tiers, pedestrians
//! nothing.
//!
//! Motor vehicles ([`transition_cost_ms`]) lose time only at junctions of three or more roads
//! in built-up areas: twice the turn tier, plus [`GIVE_WAY_S`] when the road they come from
//! ranks below another road of the junction ([`Highway::rank`]: they give way), the sum scaled
//! by [`JUNCTION_PER_DENSITY`] per km/km² of road density above [`URBAN_DENSITY`] (at most
//! [`JUNCTION_DENSITY_SPAN`] above). A left turn in a town centre of 15 km/km² thus costs
//! (8 + 2) × 0.91 ≈ 9 s, the same turn on a country road nothing. Trucks pay twice. The
//! density stands for what the network does not record (signals, crossings, queues); the
//! constants are calibrated against Valhalla's durations on the same extracts (ADR 0011).
//!
//! Cyclists also lose time at junctions of three or more roads in built-up areas: their half
//! tier once more and [`GIVE_WAY_S`] when they come from a lower road (a cycleway or footway
//! crossing a street, a residential street meeting a primary one), both scaled by the same
//! density factor. A cyclist's left turn in a centre of 15 km/km² costs 2 + (2 + 2) × 0.91
//! ≈ 5.6 s, crossing a street from a cycleway 1.8 s.
//!
//! The distance metric has no turn costs.
use std::fmt;

use super::density::URBAN_DENSITY;

/// A travel profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// Cars.
    Driving,
    /// Heavy goods vehicles.
    Truck,
    /// Pedestrians.
    Walking,
    /// Bicycles.
    Cycling,
}

impl Profile {
    /// Every profile, in file order.
    pub const ALL: [Profile; 4] = [
        Profile::Driving,
        Profile::Truck,
        Profile::Walking,
        Profile::Cycling,
    ];

    /// Name used in file names and the API (`driving`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Profile::Driving => "driving",
            Profile::Truck => "truck",
            Profile::Walking => "walking",
            Profile::Cycling => "cycling",
        }
    }

    /// Index in [`Profile::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether the profile is a motor vehicle (turn restrictions and time-of-day apply).
    pub fn is_motor(self) -> bool {
        matches!(self, Profile::Driving | Profile::Truck)
    }

    /// Whether the profile follows `oneway`.
    pub fn follows_oneway(self) -> bool {
        self != Profile::Walking
    }

    /// Whether turn restrictions (with this `except` tag) apply to the profile.
    pub fn restricted_by(self, except: Option<&str>) -> bool {
        let excepted = |mode: &str| {
            except.is_some_and(|e| e.split(';').any(|m| m.trim().eq_ignore_ascii_case(mode)))
        };
        match self {
            Profile::Walking => false,
            Profile::Cycling => !excepted("bicycle"),
            Profile::Driving => !excepted("motorcar"),
            Profile::Truck => !excepted("hgv"),
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a route minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Travel time (milliseconds, turn costs included).
    Time,
    /// Length (centimetres).
    Distance,
}

impl Metric {
    /// Both metrics, in file order.
    pub const ALL: [Metric; 2] = [Metric::Time, Metric::Distance];

    /// Name used in file names (`time`, `distance`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Time => "time",
            Metric::Distance => "distance",
        }
    }

    /// Index in [`Metric::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The highway classes of the roads layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
#[repr(u8)]
pub enum Highway {
    Motorway,
    MotorwayLink,
    Trunk,
    TrunkLink,
    Primary,
    PrimaryLink,
    Secondary,
    SecondaryLink,
    Tertiary,
    TertiaryLink,
    Unclassified,
    Residential,
    LivingStreet,
    Service,
    Road,
    Track,
    Path,
    Cycleway,
    Footway,
    Bridleway,
    Pedestrian,
    Steps,
    Ferry,
    /// A value the router does not know (treated as `road`).
    Other,
}

impl Highway {
    /// Every class, in declaration order: `ALL[c as usize] == c`.
    pub const ALL: [Highway; 24] = [
        Highway::Motorway,
        Highway::MotorwayLink,
        Highway::Trunk,
        Highway::TrunkLink,
        Highway::Primary,
        Highway::PrimaryLink,
        Highway::Secondary,
        Highway::SecondaryLink,
        Highway::Tertiary,
        Highway::TertiaryLink,
        Highway::Unclassified,
        Highway::Residential,
        Highway::LivingStreet,
        Highway::Service,
        Highway::Road,
        Highway::Track,
        Highway::Path,
        Highway::Cycleway,
        Highway::Footway,
        Highway::Bridleway,
        Highway::Pedestrian,
        Highway::Steps,
        Highway::Ferry,
        Highway::Other,
    ];

    /// The class of code `c` (`Highway as u8`); unknown codes are [`Highway::Other`].
    pub fn from_code(c: u8) -> Highway {
        Highway::ALL
            .get(usize::from(c))
            .copied()
            .unwrap_or(Highway::Other)
    }

    /// Parses the `highway` column.
    pub fn parse(s: &str) -> Highway {
        match s {
            "motorway" => Highway::Motorway,
            "motorway_link" => Highway::MotorwayLink,
            "trunk" => Highway::Trunk,
            "trunk_link" => Highway::TrunkLink,
            "primary" => Highway::Primary,
            "primary_link" => Highway::PrimaryLink,
            "secondary" => Highway::Secondary,
            "secondary_link" => Highway::SecondaryLink,
            "tertiary" => Highway::Tertiary,
            "tertiary_link" => Highway::TertiaryLink,
            "unclassified" => Highway::Unclassified,
            "residential" => Highway::Residential,
            "living_street" => Highway::LivingStreet,
            "service" => Highway::Service,
            "road" => Highway::Road,
            "track" => Highway::Track,
            "path" => Highway::Path,
            "cycleway" => Highway::Cycleway,
            "footway" => Highway::Footway,
            "bridleway" => Highway::Bridleway,
            "pedestrian" => Highway::Pedestrian,
            "steps" => Highway::Steps,
            "ferry" => Highway::Ferry,
            _ => Highway::Other,
        }
    }

    /// Whether `avoid=highways` excludes the class: motorways and trunk roads with their links.
    pub fn is_highway(self) -> bool {
        matches!(
            self,
            Highway::Motorway | Highway::MotorwayLink | Highway::Trunk | Highway::TrunkLink
        )
    }

    /// Whether the class is a link (ramp).
    pub fn is_link(self) -> bool {
        matches!(
            self,
            Highway::MotorwayLink
                | Highway::TrunkLink
                | Highway::PrimaryLink
                | Highway::SecondaryLink
                | Highway::TertiaryLink
        )
    }

    /// Default driving speed of the class in km/h outside built-up areas (`None`: not for
    /// motor vehicles).
    fn driving_default(self) -> Option<f64> {
        Some(match self {
            Highway::Motorway => 110.0,
            Highway::MotorwayLink => 60.0,
            Highway::Trunk => 90.0,
            Highway::TrunkLink => 50.0,
            Highway::Primary => 70.0,
            Highway::PrimaryLink => 45.0,
            Highway::Secondary => 60.0,
            Highway::SecondaryLink => 40.0,
            Highway::Tertiary => 50.0,
            Highway::TertiaryLink => 35.0,
            Highway::Unclassified => 40.0,
            Highway::Residential => 35.0,
            Highway::LivingStreet => 10.0,
            Highway::Service => 15.0,
            Highway::Road | Highway::Other => 30.0,
            Highway::Track => 15.0,
            Highway::Ferry => FERRY_KMH,
            _ => return None,
        })
    }

    /// Default driving speed of the class in km/h inside built-up areas.
    fn driving_urban_default(self) -> Option<f64> {
        Some(match self {
            Highway::Motorway => 90.0,
            Highway::MotorwayLink => 50.0,
            Highway::Trunk => 70.0,
            Highway::TrunkLink => 40.0,
            Highway::Primary => 55.0,
            Highway::PrimaryLink => 35.0,
            Highway::Secondary => 50.0,
            Highway::SecondaryLink => 30.0,
            Highway::Tertiary => 40.0,
            Highway::TertiaryLink => 30.0,
            Highway::Unclassified => 35.0,
            Highway::Residential => 30.0,
            _ => return self.driving_default(),
        })
    }

    /// Rank of the class at a junction: who gives way to whom (higher ranks have priority).
    pub fn rank(self) -> u8 {
        match self {
            Highway::Motorway | Highway::MotorwayLink => 7,
            Highway::Trunk | Highway::TrunkLink => 6,
            Highway::Primary | Highway::PrimaryLink => 5,
            Highway::Secondary | Highway::SecondaryLink => 4,
            Highway::Tertiary | Highway::TertiaryLink => 3,
            Highway::Unclassified | Highway::Residential | Highway::Road | Highway::Other => 2,
            _ => 1,
        }
    }

    /// Whether a cyclist rides the class at [`CYCLING_OPEN_ROAD_KMH`] outside built-up areas:
    /// the main roads (trunk to tertiary and their links).
    fn open_road_for_cycling(self) -> bool {
        matches!(
            self,
            Highway::Trunk
                | Highway::TrunkLink
                | Highway::Primary
                | Highway::PrimaryLink
                | Highway::Secondary
                | Highway::SecondaryLink
                | Highway::Tertiary
                | Highway::TertiaryLink
        )
    }

    fn cycling_default(self) -> f64 {
        match self {
            Highway::Cycleway => 18.0,
            Highway::LivingStreet | Highway::Track | Highway::Path => 12.0,
            Highway::Service | Highway::Road | Highway::Other => 14.0,
            Highway::Footway | Highway::Bridleway | Highway::Pedestrian => 8.0,
            Highway::Steps => 3.0,
            Highway::Ferry => FERRY_KMH,
            _ => 16.0,
        }
    }

    fn walking_default(self) -> f64 {
        match self {
            Highway::Steps => 3.0,
            Highway::Ferry => FERRY_KMH,
            _ => 5.0,
        }
    }

    /// Which of the country limits caps the class.
    fn limit_kind(self) -> LimitKind {
        match self {
            Highway::Motorway | Highway::MotorwayLink => LimitKind::Motorway,
            Highway::Residential | Highway::LivingStreet | Highway::Service => LimitKind::Urban,
            _ => LimitKind::Rural,
        }
    }
}

/// Speed of ferries, km/h.
pub const FERRY_KMH: f64 = 20.0;

/// A cyclist's speed on a street outside built-up areas, km/h (see the module table).
pub const CYCLING_OPEN_ROAD_KMH: f64 = 18.0;

enum LimitKind {
    Urban,
    Rural,
    Motorway,
}

/// Default speed limits of a country, km/h.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CountryLimits {
    /// Inside built-up areas.
    pub urban: f64,
    /// Outside built-up areas.
    pub rural: f64,
    /// On motorways.
    pub motorway: f64,
}

impl CountryLimits {
    /// The limits of an ISO 3166-1 alpha-2 country (a European default of 50/90/120 when the
    /// country is not in the table).
    ///
    /// | country | urban | rural | motorway |
    /// |---|---|---|---|
    /// | AD | 50 | 90 | 90 |
    /// | AT | 50 | 100 | 130 |
    /// | BE | 50 | 70 | 120 |
    /// | CH | 50 | 80 | 120 |
    /// | DE | 50 | 100 | 130 (advisory) |
    /// | DK | 50 | 80 | 130 |
    /// | ES | 50 | 90 | 120 |
    /// | FI | 50 | 80 | 120 |
    /// | FR | 50 | 80 | 130 |
    /// | GB | 48 | 97 | 113 |
    /// | IT | 50 | 90 | 130 |
    /// | LI | 50 | 80 | 80 |
    /// | MC | 50 | 50 | 50 |
    /// | NL | 50 | 80 | 100 |
    /// | NO | 50 | 80 | 110 |
    /// | PT | 50 | 90 | 120 |
    /// | SE | 50 | 70 | 110 |
    pub fn of(country: &str) -> CountryLimits {
        let (urban, rural, motorway) = match country.to_ascii_uppercase().as_str() {
            "AD" => (50.0, 90.0, 90.0),
            "AT" => (50.0, 100.0, 130.0),
            "BE" => (50.0, 70.0, 120.0),
            "CH" => (50.0, 80.0, 120.0),
            "DE" => (50.0, 100.0, 130.0),
            "DK" => (50.0, 80.0, 130.0),
            "ES" => (50.0, 90.0, 120.0),
            "FI" => (50.0, 80.0, 120.0),
            "FR" => (50.0, 80.0, 130.0),
            "GB" | "UK" => (48.3, 96.6, 112.7),
            "IT" => (50.0, 90.0, 130.0),
            "LI" => (50.0, 80.0, 80.0),
            "MC" => (50.0, 50.0, 50.0),
            "NL" => (50.0, 80.0, 100.0),
            "NO" => (50.0, 80.0, 110.0),
            "PT" => (50.0, 90.0, 120.0),
            "SE" => (50.0, 70.0, 110.0),
            _ => (50.0, 90.0, 120.0),
        };
        CountryLimits {
            urban,
            rural,
            motorway,
        }
    }

    fn cap(&self, kind: LimitKind) -> f64 {
        match kind {
            LimitKind::Urban => self.urban,
            LimitKind::Rural => self.rural,
            LimitKind::Motorway => self.motorway,
        }
    }
}

/// Seconds a motor vehicle loses giving way at a junction to a road of a higher class, before
/// the density factor of [`transition_cost_ms`].
pub const GIVE_WAY_S: f64 = 2.0;

/// Factor of the turn-angle costs of [`turn_cost_ms`] at a junction of a built-up area, before
/// the density factor.
pub const JUNCTION_TURN_FACTOR: f64 = 2.0;

/// Growth of junction costs per km/km² of road density above [`URBAN_DENSITY`].
pub const JUNCTION_PER_DENSITY: f64 = 0.13;

/// Density (km/km²) above [`URBAN_DENSITY`] from which junction costs stop growing.
pub const JUNCTION_DENSITY_SPAN: f64 = 20.0;

/// Speed of an edge for a profile, km/h (the profile's access is checked elsewhere); `urban`
/// when the edge runs through a built-up area.
pub fn speed_kmh(
    profile: Profile,
    highway: Highway,
    maxspeed: Option<f64>,
    tracktype: Option<u8>,
    limits: &CountryLimits,
    urban: bool,
) -> f64 {
    let maxspeed = maxspeed.filter(|v| v.is_finite() && *v > 0.0);
    match profile {
        Profile::Walking => highway.walking_default(),
        Profile::Cycling => {
            let v = if !urban && highway.open_road_for_cycling() {
                CYCLING_OPEN_ROAD_KMH
            } else {
                highway.cycling_default()
            };
            maxspeed.map_or(v, |m| v.min(m))
        }
        Profile::Driving | Profile::Truck => {
            let default = highway.driving_default().unwrap_or(30.0);
            let v = if highway == Highway::Ferry {
                FERRY_KMH
            } else {
                match maxspeed {
                    Some(m) => m.min((default * 1.3).max(limits.urban)),
                    None if highway == Highway::Track => track_kmh(tracktype),
                    None => {
                        let kind = highway.limit_kind();
                        let (class, kind) = if urban {
                            let kind = match kind {
                                LimitKind::Motorway => LimitKind::Motorway,
                                _ => LimitKind::Urban,
                            };
                            (highway.driving_urban_default().unwrap_or(30.0), kind)
                        } else {
                            (default, kind)
                        };
                        class.min(limits.cap(kind))
                    }
                }
            };
            let v = if profile == Profile::Truck && highway != Highway::Ferry {
                let cap = if matches!(
                    highway,
                    Highway::Motorway | Highway::MotorwayLink | Highway::Trunk | Highway::TrunkLink
                ) {
                    80.0
                } else {
                    70.0
                };
                v.min(cap)
            } else {
                v
            };
            v.max(3.0)
        }
    }
}

/// Driving speed of a track without a tagged limit, km/h, by the grade of its `tracktype`
/// (1 to 5): a paved or hard-packed track (`grade1`) 20, `grade2` 15, `grade3` 12, `grade4`
/// 10; a `grade5` track (soft ground) and a track of unknown grade 5, a farm vehicle's
/// crawl. Valhalla's car drives tracks at the same speeds.
pub fn track_kmh(tracktype: Option<u8>) -> f64 {
    match tracktype {
        Some(1) => 20.0,
        Some(2) => 15.0,
        Some(3) => 12.0,
        Some(4) => 10.0,
        _ => 5.0,
    }
}

/// Time cost of a turn in milliseconds, from the deviation angle in degrees (0 straight on,
/// 180 back), for the time metric; `u_turn` when the turn goes back along the same edge.
pub fn turn_cost_ms(profile: Profile, deviation_deg: f64, u_turn: bool) -> u32 {
    let base: u32 = if u_turn {
        20_000
    } else if deviation_deg < 30.0 {
        0
    } else if deviation_deg < 60.0 {
        2_000
    } else if deviation_deg < 120.0 {
        4_000
    } else {
        7_000
    };
    match profile {
        Profile::Driving => base,
        Profile::Truck => base * 2,
        Profile::Cycling => base / 2,
        Profile::Walking => 0,
    }
}

/// What a node is for a transition through it.
#[derive(Debug, Clone, Copy)]
pub struct Junction {
    /// Roads (edges usable by the profile) meeting at the node.
    pub legs: u32,
    /// Whether the incoming road gives way: another road at the node ranks higher.
    pub gives_way: bool,
    /// Road density around the node, km/km² ([`super::density`]).
    pub density: f64,
}

/// Time cost of a transition through a node in milliseconds (time metric): for motor vehicles
/// at a junction of three or more roads, twice the turn-angle cost of [`turn_cost_ms`] plus
/// the time lost giving way, scaled with the road density around; for cyclists, the turn-angle
/// cost plus, at such a junction, the same cost and the give-way time scaled with the density;
/// for pedestrians nothing.
pub fn transition_cost_ms(profile: Profile, deviation_deg: f64, j: Junction) -> u32 {
    let turn = f64::from(turn_cost_ms(profile, deviation_deg, false));
    let density =
        JUNCTION_PER_DENSITY * (j.density - URBAN_DENSITY).clamp(0.0, JUNCTION_DENSITY_SPAN);
    let give_way = |factor: f64| {
        if j.legs >= 3 && j.gives_way {
            GIVE_WAY_S * 1000.0 * factor * density
        } else {
            0.0
        }
    };
    match profile {
        Profile::Walking => 0,
        Profile::Cycling => {
            let junction = if j.legs >= 3 { turn * density } else { 0.0 };
            (turn + junction + give_way(1.0)).round() as u32
        }
        Profile::Driving | Profile::Truck => {
            if j.legs < 3 {
                return 0;
            }
            let truck = if profile == Profile::Truck { 2.0 } else { 1.0 };
            (turn * JUNCTION_TURN_FACTOR * density + give_way(truck)).round() as u32
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
