//! The distance group over the packs' roads: route, tolls, isochrone and the asynchronous
//! matrix. The [`Engine`](crate::Engine) methods delegate here.
//!
//! **Which pack routes.** A trip is routed inside one pack: the most specific pack with the
//! roads layer whose coverage holds every point (origin, waypoints, destination). Routing
//! across packs is not done; points that no single pack covers get `ZERO_RESULTS`. When no
//! installed pack has the roads layer at all, the answer is 503.
pub mod address;
pub mod isochrone;
pub mod matrix;
pub mod ops;
pub mod route;
pub mod text;
pub mod tolls;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::api::{RouteAvoid, RouteMethod, TravelMode};
use crate::error::{ApiError, ErrorCode};
use crate::geo::{BBox, Pt, line_meets_ring, round7};
use crate::packs::registry::PackSetCache;
use crate::packs::schema::layers;
use crate::packs::{LoadedPack, PackManager, PackSet};
use crate::routing::network::NetworkError;
use crate::routing::router::Router;
use crate::routing::{Metric, Profile};

use address::AddressIndex;

/// One pack opened for the distance group: its [`Router`], address index and toll table.
#[derive(Debug)]
pub struct RoutingPack {
    /// The pack.
    pub pack: Arc<LoadedPack>,
    /// Router.
    pub router: Router,
    /// Addresses for `start_address` / `end_address`.
    pub addresses: AddressIndex,
    /// Toll systems and fares.
    pub tolls: tolls::TollTable,
}

impl RoutingPack {
    /// Opens the roads, addresses and tolls of `pack`.
    fn open(pack: &Arc<LoadedPack>) -> Result<RoutingPack, RoutingPackError> {
        let database = |source| RoutingPackError::Database {
            pack: pack.id().to_string(),
            source,
        };
        let conn = pack.sqlite().map_err(database)?;
        let router = Router::open(pack.id(), &pack.dir, &conn).map_err(|source| {
            RoutingPackError::Roads {
                pack: pack.id().to_string(),
                source,
            }
        })?;
        let [_, s, _, n] = pack.manifest.coverage.bbox;
        let addresses = AddressIndex::load(&conn, (s + n) / 2.0).map_err(database)?;
        let tolls = tolls::TollTable::load(&conn).map_err(database)?;
        Ok(RoutingPack {
            pack: pack.clone(),
            router,
            addresses,
            tolls,
        })
    }

    /// Whether the pack's coverage holds `p`.
    pub fn covers(&self, p: Pt) -> bool {
        self.pack.covers(p.lat, p.lng)
    }
}

/// Why a pack cannot be opened for routing. Internal: callers get
/// [`ApiError::internal`], the log gets this.
#[derive(Debug, thiserror::Error)]
pub enum RoutingPackError {
    /// The pack's database (addresses, tolls) cannot be read.
    #[error("the addresses or tolls of pack `{pack}` cannot be read: {source}")]
    Database {
        /// Pack id.
        pack: String,
        /// The SQLite error.
        #[source]
        source: rusqlite::Error,
    },
    /// The roads layer cannot be read.
    #[error("the roads of pack `{pack}` cannot be read: {source}")]
    Roads {
        /// Pack id.
        pack: String,
        /// Why.
        #[source]
        source: NetworkError,
    },
}

/// A pack with roads and its [`RoutingPack`], opened on first use.
#[derive(Debug)]
struct LazyRoutingPack {
    pack: Arc<LoadedPack>,
    opened: OnceLock<Result<Arc<RoutingPack>, Arc<RoutingPackError>>>,
}

impl LazyRoutingPack {
    /// Opens the pack (first call) or returns it.
    fn get(&self) -> Result<Arc<RoutingPack>, ApiError> {
        self.opened
            .get_or_init(|| {
                RoutingPack::open(&self.pack)
                    .map(Arc::new)
                    .map_err(Arc::new)
            })
            .clone()
            .map_err(|e| ApiError::internal(&*e))
    }
}

/// The packs with roads of one pack set, each opened on first use; picks the pack that
/// routes a trip.
#[derive(Debug, Default)]
pub struct RoutingPacks {
    packs: Vec<LazyRoutingPack>,
    set: Arc<PackSet>,
}

impl RoutingPacks {
    /// The most specific pack covering every point, if any.
    pub fn for_points(&self, points: &[Pt]) -> Result<Option<Arc<RoutingPack>>, ApiError> {
        let Some(first) = points.first() else {
            return Ok(None);
        };
        for pack in self.set.covering(first.lat, first.lng) {
            if !pack.has_layer(layers::ROADS) || !points.iter().all(|p| pack.covers(p.lat, p.lng)) {
                continue;
            }
            if let Some(r) = self.packs.iter().find(|r| Arc::ptr_eq(&r.pack, pack)) {
                return r.get().map(Some);
            }
        }
        Ok(None)
    }

    /// The pack covering the most of `points` (at least one).
    pub fn best_for(&self, points: &[Pt]) -> Result<Option<Arc<RoutingPack>>, ApiError> {
        let best = self
            .packs
            .iter()
            .map(|r| {
                let n = points
                    .iter()
                    .filter(|p| r.pack.covers(p.lat, p.lng))
                    .count();
                (n, r)
            })
            .filter(|(n, _)| *n > 0)
            .max_by_key(|(n, _)| *n);
        match best {
            Some((_, r)) => r.get().map(Some),
            None => Ok(None),
        }
    }
}

/// The local time at a point, which time-of-day traffic reads: the offset from UTC in force
/// there. The geolocation service implements it from the packs' timezones layer.
pub trait LocalTime: std::fmt::Debug + Send + Sync {
    /// Offset of local time from UTC, in seconds, at `p` and the instant `unix`, by the packs
    /// of `set`.
    fn utc_offset(&self, set: &Arc<PackSet>, p: Pt, unix: i64) -> i64;
}

/// A [`LocalTime`] read with the pack set of one request: what planning a trip takes.
#[derive(Debug, Clone, Copy)]
pub struct LocalClock<'a> {
    time: &'a dyn LocalTime,
    set: &'a Arc<PackSet>,
}

impl<'a> LocalClock<'a> {
    /// The local time of `time` by the packs of `set`.
    pub fn new(time: &'a dyn LocalTime, set: &'a Arc<PackSet>) -> Self {
        LocalClock { time, set }
    }

    /// Offset of local time from UTC, in seconds, at `p` and `unix`.
    pub fn utc_offset(&self, p: Pt, unix: i64) -> i64 {
        self.time.utc_offset(self.set, p, unix)
    }
}

/// The [`RoutingPacks`] of the engine's current pack set, built once per set: what the
/// distance operations and the matrix worker route with.
#[derive(Debug)]
pub struct RoutingCache {
    packs: Arc<PackManager>,
    routers: PackSetCache<RoutingPacks>,
}

impl RoutingCache {
    /// The routing packs of the sets `packs` serves.
    pub fn new(packs: Arc<PackManager>) -> Self {
        RoutingCache {
            packs,
            routers: PackSetCache::default(),
        }
    }

    /// The pack set being served.
    pub fn snapshot(&self) -> Arc<PackSet> {
        self.packs.registry().snapshot()
    }

    /// The [`RoutingPacks`] of the pack set being served; 503 when no pack has the roads layer.
    pub fn current(&self) -> Result<Arc<RoutingPacks>, ApiError> {
        self.routers(self.snapshot())
    }

    /// The [`RoutingPacks`] of `set`; 503 when no pack has the roads layer.
    pub fn routers(&self, set: Arc<PackSet>) -> Result<Arc<RoutingPacks>, ApiError> {
        self.routers.get_or_build(set, |set| {
            let packs: Vec<LazyRoutingPack> = set
                .with_layer(layers::ROADS)
                .into_iter()
                .map(|p| LazyRoutingPack {
                    pack: p.clone(),
                    opened: OnceLock::new(),
                })
                .collect();
            if packs.is_empty() {
                return Err(no_roads());
            }
            Ok(RoutingPacks {
                packs,
                set: Arc::new(set.clone()),
            })
        })
    }
}

/// The distance service of an engine: its operations are in [`ops`].
#[derive(Debug)]
pub struct Distance {
    /// Routers of the current pack set (the matrix worker holds it weakly).
    routing: Arc<RoutingCache>,
    /// The local time, for time-of-day traffic.
    local_time: Arc<dyn LocalTime>,
    /// Where the matrix job store lives.
    state_dir: PathBuf,
    /// The matrix job store, opened on first use.
    jobs: OnceLock<Arc<matrix::MatrixJobs>>,
}

impl Distance {
    /// The distance service over the packs of `packs`, reading local time from `local_time`
    /// and keeping matrix jobs in `state_dir`.
    pub fn new(packs: Arc<PackManager>, local_time: Arc<dyn LocalTime>, state_dir: &Path) -> Self {
        Distance {
            routing: Arc::new(RoutingCache::new(packs)),
            local_time,
            state_dir: state_dir.to_path_buf(),
            jobs: OnceLock::new(),
        }
    }

    /// The matrix job store, opened on first use, with its worker running.
    fn matrix_jobs(&self) -> Result<Arc<matrix::MatrixJobs>, ApiError> {
        let jobs = match self.jobs.get() {
            Some(j) => j.clone(),
            None => {
                let opened = Arc::new(matrix::MatrixJobs::open(&self.state_dir)?);
                self.jobs.get_or_init(|| opened).clone()
            }
        };
        jobs.ensure_worker(Arc::downgrade(&self.routing));
        Ok(jobs)
    }
}

/// 503 for a device without road data.
pub fn no_roads() -> ApiError {
    ApiError::new(
        ErrorCode::DataUnavailable,
        "no installed pack has the roads layer; install a region pack \
         (`waymark-packs build --pack andorra`, then POST /packs)",
    )
}

/// The profile of a travel mode.
pub fn profile(mode: TravelMode) -> Profile {
    match mode {
        TravelMode::Driving => Profile::Driving,
        TravelMode::Truck => Profile::Truck,
        TravelMode::Walking => Profile::Walking,
        TravelMode::Cycling => Profile::Cycling,
    }
}

/// The metric of a route method.
pub fn metric(method: RouteMethod) -> Metric {
    match method {
        RouteMethod::Time => Metric::Time,
        RouteMethod::Distance => Metric::Distance,
    }
}

/// A point of the API as a router point.
pub fn pt(p: crate::api::LatLng) -> Pt {
    Pt::new(p.lat, p.lng)
}

/// A router point as an API point (rounded to 7 decimals).
pub fn latlng(p: Pt) -> crate::api::LatLng {
    crate::api::LatLng::new(round7(p.lat), round7(p.lng))
}

/// Which edges `avoid` excludes: tolls, highways (motorways and trunk roads with their links),
/// ferries, and every edge with a point inside, or a segment crossing, an avoided polygon.
/// `None` when nothing is avoided.
pub fn excluded_edges(router: &Router, avoid: &[RouteAvoid]) -> Option<Vec<bool>> {
    if avoid.is_empty() {
        return None;
    }
    let net = &router.net;
    let polygons: Vec<Vec<Pt>> = avoid
        .iter()
        .filter_map(|a| match a {
            RouteAvoid::Polygon(v) => Some(v.iter().map(|p| pt(*p)).collect()),
            _ => None,
        })
        .collect();
    let tolls = avoid.contains(&RouteAvoid::Tolls);
    let highways = avoid.contains(&RouteAvoid::Highways);
    let ferries = avoid.contains(&RouteAvoid::Ferries);
    let boxes: Vec<Option<BBox>> = polygons
        .iter()
        .map(|p| BBox::of(p.iter().copied()))
        .collect();
    Some(
        net.edges
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (tolls && e.toll)
                    || (highways && e.highway.is_highway())
                    || (ferries && e.ferry)
                    || polygons.iter().zip(&boxes).any(|(poly, b)| {
                        let g = net.geometry(i as u32);
                        let eb = BBox::of(g.iter().copied());
                        eb.zip(*b).is_some_and(|(eb, b)| eb.intersects(&b))
                            && line_meets_ring(g, poly)
                    })
            })
            .collect(),
    )
}
