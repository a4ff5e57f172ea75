//! The distance group over the packs' roads: route, tolls, isochrone and the asynchronous
//! matrix. The [`Engine`](crate::Engine) methods delegate here.
//!
//! **Which pack routes.** A trip is routed inside the most specific pack with the roads layer
//! whose coverage holds every point (origin, waypoints, destination). When no single pack
//! holds them all, the installed region packs that join (packs cut from one extract by one
//! publisher whose regions meet, ADR 0008) route it as one network ([`RoutingPacks`]); points
//! that neither covers get `ZERO_RESULTS`. When no installed pack has the roads layer at all,
//! the answer is 503.
pub mod address;
pub mod isochrone;
pub mod matrix;
pub mod ops;
pub mod route;
pub mod text;
pub mod tolls;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::api::{RouteAvoid, RouteMethod, TravelMode};
use crate::error::{ApiError, ErrorCode};
use crate::geo::{BBox, Pt, line_meets_ring, round7};
use crate::packs::registry::PackSetCache;
use crate::packs::schema::layers;
use crate::packs::{LoadedPack, PackManager, PackSet};
use crate::routing::join::JoinMember;
use crate::routing::network::NetworkError;
use crate::routing::overlay::{Covers, Joined, MemberRouter};
use crate::routing::router::Router;
use crate::routing::{Metric, Profile};

use address::AddressIndex;

/// One pack opened for the distance group (or packs joined into one network): its
/// [`Router`], address index and toll table.
#[derive(Debug)]
pub struct RoutingPack {
    /// The pack, or the joined packs in their join order.
    pub packs: Vec<Arc<LoadedPack>>,
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
        let digests = crate::routing::derived::PackDigests::of(&pack.manifest);
        let router = Router::open_with(pack.id(), &pack.dir, &conn, digests.clone())
            .map_err(|source| RoutingPackError::Roads {
                pack: pack.id().to_string(),
                source,
            })?
            .with_preparations(pack.manifest.stats.as_ref());
        let [_, s, _, n] = pack.manifest.coverage.bbox;
        let tolls = tolls::TollTable::load(&conn).map_err(database)?;
        let lat0 = (s + n) / 2.0;
        // Packs large enough for their network to be mapped map their address grids too;
        // smaller ones keep them in memory and write nothing beside the pack.
        let addresses = match &digests {
            Some(d) if router.net.edges.is_mapped() => {
                AddressIndex::open(pack.id(), &pack.dir, d, conn, lat0)
            }
            _ => AddressIndex::load(conn, lat0),
        }
        .map_err(database)?;
        Ok(RoutingPack {
            packs: vec![pack.clone()],
            router,
            addresses,
            tolls,
        })
    }

    /// Joins opened region packs into one network (ADR 0008).
    fn join(members: &[Arc<RoutingPack>]) -> Result<RoutingPack, RoutingPackError> {
        let packs: Vec<Arc<LoadedPack>> = members
            .iter()
            .flat_map(|m| m.packs.iter().cloned())
            .collect();
        let covers = |p: &Arc<LoadedPack>| -> Covers {
            let p = p.clone();
            Box::new(move |q: Pt| p.covers(q.lat, q.lng))
        };
        let merge_covers: Vec<Covers> = packs.iter().map(covers).collect();
        let parts: Vec<JoinMember<'_>> = members
            .iter()
            .zip(&merge_covers)
            .map(|(m, c)| JoinMember {
                id: &m.router.pack_id,
                net: &m.router.net,
                covers: c.as_ref(),
            })
            .collect();
        let merged = crate::routing::join::merge(&parts);
        let id = packs
            .iter()
            .map(|p| p.id().to_string())
            .collect::<Vec<_>>()
            .join("+");
        tracing::info!(packs = %id, edges = merged.net.edges.len(), shared = merged.shared_edges,
            "joined region packs into one road network");
        let overlay = Joined::new(
            members
                .iter()
                .map(|m| m.clone() as Arc<dyn MemberRouter>)
                .collect(),
            packs.iter().map(covers).collect(),
            merged.edge_map,
            merged.net.edges.len(),
        );
        let router = Router::joined(&id, merged.net, overlay);
        let mut conns = Vec::with_capacity(packs.len());
        for p in &packs {
            conns.push(p.sqlite().map_err(|source| RoutingPackError::Database {
                pack: p.id().to_string(),
                source,
            })?);
        }
        let (s, n) = packs.iter().fold((90.0f64, -90.0f64), |(s, n), p| {
            let [_, ps, _, pn] = p.manifest.coverage.bbox;
            (s.min(ps), n.max(pn))
        });
        let database = |source| RoutingPackError::Database {
            pack: id.clone(),
            source,
        };
        let mut tables = Vec::with_capacity(conns.len());
        for c in &conns {
            tables.push(tolls::TollTable::load(c).map_err(database)?);
        }
        let addresses = AddressIndex::load_all(conns, (s + n) / 2.0).map_err(database)?;
        Ok(RoutingPack {
            packs,
            router,
            addresses,
            tolls: tolls::TollTable::merge(tables),
        })
    }

    /// Whether the pack's coverage (any joined pack's) holds `p`.
    pub fn covers(&self, p: Pt) -> bool {
        self.packs.iter().any(|pack| pack.covers(p.lat, p.lng))
    }
}

impl MemberRouter for RoutingPack {
    fn router(&self) -> &Router {
        &self.router
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

/// Region packs that join into one road network (ADR 0008), opened on first use.
#[derive(Debug)]
struct JoinGroup {
    /// Indexes into [`RoutingPacks::packs`], in pack id order.
    members: Vec<usize>,
    opened: OnceLock<Result<Arc<RoutingPack>, ApiError>>,
}

/// The packs with roads of one pack set, each opened on first use, and the groups of region
/// packs that join; picks the pack (or the joined packs) that routes a trip.
#[derive(Debug, Default)]
pub struct RoutingPacks {
    packs: Vec<LazyRoutingPack>,
    groups: Vec<JoinGroup>,
    set: Arc<PackSet>,
}

impl RoutingPacks {
    /// The packs of `set` with roads, and their join groups.
    pub fn new(set: &PackSet) -> RoutingPacks {
        let packs: Vec<LazyRoutingPack> = set
            .with_layer(layers::ROADS)
            .into_iter()
            .map(|p| LazyRoutingPack {
                pack: p.clone(),
                opened: OnceLock::new(),
            })
            .collect();
        let loaded: Vec<Arc<LoadedPack>> = packs.iter().map(|p| p.pack.clone()).collect();
        let groups = join_groups(&loaded)
            .into_iter()
            .map(|members| JoinGroup {
                members,
                opened: OnceLock::new(),
            })
            .collect();
        RoutingPacks {
            packs,
            groups,
            set: Arc::new(set.clone()),
        }
    }

    /// The joined network of group `g`.
    fn group(&self, g: &JoinGroup) -> Result<Arc<RoutingPack>, ApiError> {
        g.opened
            .get_or_init(|| {
                let mut members = Vec::with_capacity(g.members.len());
                for &i in &g.members {
                    members.push(self.packs[i].get()?);
                }
                RoutingPack::join(&members)
                    .map(Arc::new)
                    .map_err(|e| ApiError::internal(&e))
            })
            .clone()
    }

    fn group_covers(&self, g: &JoinGroup, p: &Pt) -> bool {
        g.members
            .iter()
            .any(|&i| self.packs[i].pack.covers(p.lat, p.lng))
    }

    /// The most specific pack covering every point, else the joined region packs covering
    /// every point, if any.
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
        for g in &self.groups {
            if points.iter().all(|p| self.group_covers(g, p)) {
                return self.group(g).map(Some);
            }
        }
        Ok(None)
    }

    /// The network an isochrone from `origin` spreads over: the joined region packs when one
    /// of them covers it (the outline crosses their borders), else the most specific pack.
    pub fn for_area(&self, origin: Pt) -> Result<Option<Arc<RoutingPack>>, ApiError> {
        for g in &self.groups {
            if self.group_covers(g, &origin) {
                return self.group(g).map(Some);
            }
        }
        self.for_points(&[origin])
    }

    /// The pack (or joined packs) covering the most of `points` (at least one); a single pack
    /// wins a tie.
    pub fn best_for(&self, points: &[Pt]) -> Result<Option<Arc<RoutingPack>>, ApiError> {
        let count = |covers: &dyn Fn(&Pt) -> bool| points.iter().filter(|p| covers(p)).count();
        let best = self
            .packs
            .iter()
            .map(|r| (count(&|p: &Pt| r.pack.covers(p.lat, p.lng)), r))
            .filter(|(n, _)| *n > 0)
            .max_by_key(|(n, _)| *n);
        let best_group = self
            .groups
            .iter()
            .map(|g| (count(&|p: &Pt| self.group_covers(g, p)), g))
            .filter(|(n, _)| *n > 0)
            .max_by_key(|(n, _)| *n);
        match (best, best_group) {
            (Some((n, _)), Some((m, g))) if m > n => self.group(g).map(Some),
            (None, Some((_, g))) => self.group(g).map(Some),
            (Some((_, r)), _) => r.get().map(Some),
            (None, None) => Ok(None),
        }
    }
}

/// Whether two packs' boxes meet (share at least an edge point), with a margin of about a
/// centimetre for outlines written from the same numbers.
fn boxes_meet(a: [f64; 4], b: [f64; 4]) -> bool {
    const EPS: f64 = 1e-7;
    a[0] <= b[2] + EPS && b[0] <= a[2] + EPS && a[1] <= b[3] + EPS && b[1] <= a[3] + EPS
}

/// The groups of region packs that join (ADR 0008): packs cut from an extract
/// (`coverage.region`), with the routing layer, signed by one publisher, whose coverage boxes
/// meet, chained; a group has two packs or more. Region packs that meet but differ in publisher
/// or routing layer do not join; the log says why (once per pack set).
fn join_groups(packs: &[Arc<LoadedPack>]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..packs.len())
        .filter(|&i| packs[i].manifest.coverage.region)
        .collect();
    order.sort_by(|&a, &b| packs[a].id().cmp(packs[b].id()));
    let publisher = |p: &LoadedPack| {
        p.manifest
            .signature
            .as_ref()
            .map(|s| s.publisher.clone())
            .unwrap_or_default()
    };
    let compatible = |a: &LoadedPack, b: &LoadedPack| -> Result<(), String> {
        if publisher(a) != publisher(b) {
            return Err("they are signed by different publishers".into());
        }
        if a.has_layer(layers::ROUTING) != b.has_layer(layers::ROUTING) {
            return Err("only one of them has the routing layer (different profiles)".into());
        }
        Ok(())
    };
    let mut parent: Vec<usize> = (0..packs.len()).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (x, &a) in order.iter().enumerate() {
        for &b in &order[x + 1..] {
            let (pa, pb) = (&packs[a], &packs[b]);
            if pa.id() == pb.id()
                || !boxes_meet(pa.manifest.coverage.bbox, pb.manifest.coverage.bbox)
            {
                continue;
            }
            match compatible(pa, pb) {
                Ok(()) => {
                    let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                    parent[ra] = rb;
                }
                Err(why) => tracing::warn!(
                    a = pa.id(),
                    b = pb.id(),
                    "region packs meet but do not join: {why}; each answers on its own"
                ),
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut root_of: HashMap<usize, usize> = HashMap::new();
    for &i in &order {
        let r = find(&mut parent, i);
        let g = *root_of.entry(r).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups.retain(|g| g.len() >= 2);
    groups
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
            let packs = RoutingPacks::new(set);
            if packs.packs.is_empty() {
                return Err(no_roads());
            }
            Ok(packs)
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
    /// The routers of the current pack set (indoor directions walk their outdoor part on
    /// them).
    pub fn routing(&self) -> &RoutingCache {
        &self.routing
    }

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
                (tolls && e.toll())
                    || (highways && e.highway().is_highway())
                    || (ferries && e.ferry())
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
