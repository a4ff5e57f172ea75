//! OSM layers of a pack: roads, places, addresses, POIs and indoor venues, read from an OSM
//! PBF extract and written into the tables of [`waymark_core::packs::schema`].
//!
//! [`build_osm`] reads the extract in three passes of [`osmpbf::ElementReader`] (relations,
//! then ways, then nodes) and keeps only what the requested layers need: the relations and
//! ways of interest, the coordinates of the nodes they reference and the tagged nodes of
//! interest. So the memory a build holds follows the network it keeps, not the extract, and
//! it is held compactly: every distinct tag text is stored once and shared, the nodes to keep
//! are a sorted list walked alongside the file's ascending ids, and their positions are two
//! sorted arrays ([`Coords`], 24 bytes a node) moved to a mapped scratch file beside the pack
//! database before the layers read them. Each layer is then written in its own transaction
//! with prepared statements.
//!
//! Broken data is tolerated: references to nodes missing from the extract (clipped extracts)
//! split roads and shorten other ways; relations whose rings do not close are skipped and
//! counted in [`OsmStats`]. Nothing panics on bad input.
//!
//! Layer rules are documented in their modules: [`roads`], [`places`], [`addresses`],
//! [`pois`] (the OSM tag to POI type table is [`pois::POI_RULES`]) and [`indoor`].

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use osmpbf::{Element, ElementReader, RelMemberType};
use waymark_core::geo::{BBox, Pt};

pub mod addresses;
mod coords;
mod edge_rows;
mod edit;
pub mod frames;
pub mod indoor;
mod models;
pub mod places;
pub mod pois;
pub mod rings;
mod road_graph;
pub mod roads;

pub use coords::{Coords, CoordsBuilder};
pub use edit::{EditSummary, OsmEdit};
pub use models::{
    Member, MemberKind, OsmData, OsmError, OsmNode, OsmRelation, OsmStats, OsmWay, TagText, Tags,
    is_lang_code,
};

/// Which OSM layers to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OsmLayers {
    /// Road graph, turn restrictions, toll booths.
    pub roads: bool,
    /// Settlements, admin and postal-code areas.
    pub places: bool,
    /// Address points and interpolation lines.
    pub addresses: bool,
    /// Points of interest.
    pub pois: bool,
    /// Indoor venues and features.
    pub indoor: bool,
}

impl OsmLayers {
    /// Every OSM layer.
    pub const ALL: OsmLayers = OsmLayers {
        roads: true,
        places: true,
        addresses: true,
        pois: true,
        indoor: true,
    };
}

/// One shared allocation per distinct tag text: keys and common values repeat on most
/// elements, so an extract's kept ways hold pointers instead of copies.
#[derive(Default)]
struct TagTexts(HashSet<TagText>);

impl TagTexts {
    fn text(&mut self, s: &str) -> TagText {
        if let Some(t) = self.0.get(s) {
            return t.clone();
        }
        let t = TagText::from(s);
        self.0.insert(t.clone());
        t
    }

    fn tags<'a>(&mut self, it: impl Iterator<Item = (&'a str, &'a str)>) -> Tags {
        let mut v: Vec<(TagText, TagText)> =
            it.map(|(k, v)| (self.text(k), self.text(v))).collect();
        v.shrink_to_fit();
        Tags(v)
    }
}

/// Tags of an element that is looked at and dropped (no sharing needed).
fn collect_tags<'a>(it: impl Iterator<Item = (&'a str, &'a str)>) -> Tags {
    Tags(
        it.map(|(k, v)| (TagText::from(k), TagText::from(v)))
            .collect(),
    )
}

/// Whether an id is in a sorted list, asked in mostly ascending order (a forward cursor;
/// a binary search when an id comes out of order).
struct SortedIds {
    ids: Vec<i64>,
    at: usize,
}

impl SortedIds {
    fn new(mut ids: Vec<i64>) -> Self {
        ids.sort_unstable();
        ids.dedup();
        ids.shrink_to_fit();
        SortedIds { ids, at: 0 }
    }

    fn contains(&mut self, id: i64) -> bool {
        if self.at > 0 && self.ids.get(self.at - 1).is_some_and(|&p| id < p) {
            return self.ids.binary_search(&id).is_ok();
        }
        while self.ids.get(self.at).is_some_and(|&x| x < id) {
            self.at += 1;
        }
        self.ids.get(self.at) == Some(&id)
    }
}

fn relation_wanted(tags: &Tags, layers: &OsmLayers) -> bool {
    let ty = tags.get("type").unwrap_or("");
    match ty {
        "restriction" => layers.roads,
        "multipolygon" | "boundary" => {
            (layers.places && places::is_boundary(tags))
                || (layers.addresses && tags.has("addr:housenumber"))
                || (layers.pois && pois::classify(tags).is_some())
                || (layers.indoor && indoor::relation_wanted(tags))
        }
        "building" => layers.indoor,
        _ => false,
    }
}

fn way_wanted(tags: &Tags, layers: &OsmLayers) -> bool {
    (layers.roads && roads::is_routable(tags).is_some())
        || (layers.places && places::is_boundary(tags))
        || (layers.addresses && (tags.has("addr:housenumber") || tags.has("addr:interpolation")))
        || (layers.pois && pois::classify(tags).is_some())
        || (layers.indoor && indoor::way_wanted(tags))
}

fn node_wanted(tags: &Tags, layers: &OsmLayers) -> bool {
    (layers.roads && tags.is("barrier", "toll_booth"))
        || (layers.places && places::node_kind(tags).is_some())
        || (layers.addresses && tags.has("addr:housenumber"))
        || (layers.pois && pois::classify(tags).is_some())
        || (layers.indoor && indoor::node_wanted(tags))
}

fn pbf_err(path: &Path) -> impl Fn(osmpbf::Error) -> OsmError + '_ {
    move |source| OsmError::Pbf {
        path: path.to_owned(),
        source,
    }
}

/// Reads what the layers need from the extract (three passes).
pub fn read_osm(
    pbf: &Path,
    layers: &OsmLayers,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<OsmData, OsmError> {
    std::fs::metadata(pbf).map_err(|source| OsmError::Io {
        path: pbf.to_owned(),
        source,
    })?;
    let mut data = OsmData::default();

    // header: replication timestamp
    let mut blobs = osmpbf::BlobReader::from_path(pbf).map_err(pbf_err(pbf))?;
    if let Some(blob) = blobs.next() {
        let blob = blob.map_err(pbf_err(pbf))?;
        if let osmpbf::BlobType::OsmHeader = blob.get_type() {
            let header = blob.to_headerblock().map_err(pbf_err(pbf))?;
            data.timestamp = header.osmosis_replication_timestamp();
        }
    }

    // pass 1: relations
    progress("osm:read relations", 0, 3);
    let mut texts = TagTexts::default();
    let mut way_members: HashSet<i64> = HashSet::new();
    let mut node_members: Vec<i64> = Vec::new();
    let reader = ElementReader::from_path(pbf).map_err(pbf_err(pbf))?;
    reader
        .for_each(|el| {
            if let Element::Relation(r) = el {
                if !relation_wanted(&collect_tags(r.tags()), layers) {
                    return;
                }
                let tags = texts.tags(r.tags());
                let members: Vec<Member> = r
                    .members()
                    .map(|m| Member {
                        kind: match m.member_type {
                            RelMemberType::Node => MemberKind::Node,
                            RelMemberType::Way => MemberKind::Way,
                            RelMemberType::Relation => MemberKind::Relation,
                        },
                        id: m.member_id,
                        role: m.role().unwrap_or("").to_owned(),
                    })
                    .collect();
                let is_restriction = tags.is("type", "restriction");
                for m in &members {
                    match m.kind {
                        MemberKind::Way if !is_restriction => {
                            way_members.insert(m.id);
                        }
                        MemberKind::Node => node_members.push(m.id),
                        _ => {}
                    }
                }
                data.relations.push(OsmRelation {
                    id: r.id(),
                    members,
                    tags,
                });
            }
        })
        .map_err(pbf_err(pbf))?;
    data.relations.sort_by_key(|r| r.id);

    // pass 2: ways
    progress("osm:read ways", 1, 3);
    let reader = ElementReader::from_path(pbf).map_err(pbf_err(pbf))?;
    reader
        .for_each(|el| {
            if let Element::Way(w) = el {
                if !(way_members.contains(&w.id()) || way_wanted(&collect_tags(w.tags()), layers)) {
                    return;
                }
                let refs: Vec<i64> = w.refs().collect();
                data.ways.insert(
                    w.id(),
                    OsmWay {
                        id: w.id(),
                        refs,
                        tags: texts.tags(w.tags()),
                    },
                );
            }
        })
        .map_err(pbf_err(pbf))?;
    drop(way_members);
    // The nodes to keep: a sorted list (8 bytes a reference) walked alongside the file's
    // ascending node ids.
    let refs = data.ways.values().map(|w| w.refs.len()).sum::<usize>();
    node_members.reserve_exact(refs);
    for w in data.ways.values() {
        node_members.extend_from_slice(&w.refs);
    }
    let mut needed = SortedIds::new(node_members);

    // pass 3: nodes
    progress("osm:read nodes", 2, 3);
    let reader = ElementReader::from_path(pbf).map_err(pbf_err(pbf))?;
    let mut coords = CoordsBuilder::with_capacity(needed.ids.len());
    let mut keep_node = |id: i64, lat: f64, lng: f64, tags: Tags| {
        let wanted = !tags.is_empty() && node_wanted(&tags, layers);
        if wanted || needed.contains(id) {
            coords.push(id, Pt::new(lat, lng));
        }
        if wanted {
            data.nodes.push(OsmNode { id, lat, lng, tags });
        }
    };
    reader
        .for_each(|el| match el {
            Element::Node(n) => keep_node(n.id(), n.lat(), n.lon(), collect_tags(n.tags())),
            Element::DenseNode(n) => keep_node(n.id(), n.lat(), n.lon(), collect_tags(n.tags())),
            _ => {}
        })
        .map_err(pbf_err(pbf))?;
    drop(needed);
    data.coords = coords.finish();
    data.nodes.sort_by_key(|n| n.id);
    progress("osm:read", 3, 3);
    Ok(data)
}

/// Builds the requested OSM layers of `pbf` into `conn` (which already has
/// [`waymark_core::packs::schema::create_all`] applied), one transaction per layer.
///
/// `progress(step, done, total)` is called at each step of reading and of every layer.
pub fn build_osm(
    pbf: &Path,
    conn: &mut rusqlite::Connection,
    layers: &OsmLayers,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<OsmStats, OsmError> {
    build_osm_edited(pbf, conn, layers, None, progress)
}

/// [`build_osm`] with an [`OsmEdit`] applied to the extract as read.
pub fn build_osm_edited(
    pbf: &Path,
    conn: &mut rusqlite::Connection,
    layers: &OsmLayers,
    edit: Option<&OsmEdit>,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<OsmStats, OsmError> {
    build_osm_with(pbf, conn, layers, edit, None, progress)
}

/// [`build_osm_edited`] of the part of the extract in `region` ([`crate::cut`]).
pub fn build_osm_with(
    pbf: &Path,
    conn: &mut rusqlite::Connection,
    layers: &OsmLayers,
    edit: Option<&OsmEdit>,
    region: Option<&crate::cut::Region>,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<OsmStats, OsmError> {
    let t = Instant::now();
    let mut data = read_osm(pbf, layers, progress)?;
    if let Some(edit) = edit {
        let done = edit.apply(&mut data);
        tracing::info!(
            added = done.added,
            deleted = done.deleted,
            retagged = done.retagged,
            reshaped = done.reshaped,
            "edited the extract for a measurement"
        );
    }
    if let Some(region) = region {
        let (full_graph, density) = {
            let pieces = roads::routable_pieces(&data);
            let graph = roads::graph_nodes(&data, &pieces);
            let density = roads::density_grid(&data, &pieces, &graph);
            (graph, density)
        };
        let cut = crate::cut::cut(&mut data, region, full_graph, density)?;
        tracing::info!(
            region = region.arg(),
            ways = cut.ways,
            border_ways = cut.border_ways,
            nodes = cut.nodes,
            "cut the extract to a region"
        );
    }
    // The positions move to a file beside the database and are read from there (mapped):
    // the kernel keeps what the layers touch and can drop it again under memory pressure.
    let spill = conn
        .path()
        .filter(|p| !p.is_empty())
        .and_then(|p| Path::new(p).parent())
        .map(|dir| dir.join(".osm-nodes.flat"));
    if let Some(path) = &spill {
        data.coords.spill(path).map_err(|source| OsmError::Spill {
            path: path.clone(),
            source,
        })?;
    }
    let stats = build_layers(conn, layers, data, region, t, pbf, progress);
    if let Some(path) = &spill {
        let _ = std::fs::remove_file(path);
    }
    stats
}

/// The layers of `data`, one transaction each (`build_osm_with`).
fn build_layers(
    conn: &mut rusqlite::Connection,
    layers: &OsmLayers,
    data: OsmData,
    region: Option<&crate::cut::Region>,
    t: Instant,
    pbf: &Path,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<OsmStats, OsmError> {
    let mut stats = OsmStats {
        read_ms: t.elapsed().as_millis() as u64,
        nodes_read: data.coords.len() as u64,
        ways_read: data.ways.len() as u64,
        relations_read: data.relations.len() as u64,
        missing_node_refs: data
            .ways
            .values()
            .flat_map(|w| w.refs.iter())
            .filter(|r| !data.coords.contains_key(r))
            .count() as u64,
        ..Default::default()
    };
    if let Some(b) = BBox::of(data.coords.values().copied()) {
        stats.bbox = b.to_wsen();
    }
    if let Some(region) = region {
        // A cut covers its region (clipped to the extract): neighbouring regions then tile.
        let [w, s, e, n] = region.bbox();
        let [bw, bs, be, bn] = stats.bbox;
        stats.bbox = [w.max(bw), s.max(bs), e.min(be), n.min(bn)];
    }
    tracing::info!(
        nodes = stats.nodes_read,
        ways = stats.ways_read,
        relations = stats.relations_read,
        missing_node_refs = stats.missing_node_refs,
        "read OSM extract {}",
        pbf.display()
    );

    type LayerBuild = fn(
        &OsmData,
        &rusqlite::Transaction<'_>,
        &mut OsmStats,
        &mut dyn FnMut(&str, u64, u64),
    ) -> Result<(), OsmError>;
    type Elapsed = fn(&mut OsmStats) -> &mut u64;
    let steps: [(bool, LayerBuild, Elapsed); 5] = [
        (layers.roads, roads::build, |s| &mut s.roads_ms),
        (layers.places, places::build, |s| &mut s.places_ms),
        (layers.addresses, addresses::build, |s| &mut s.addresses_ms),
        (layers.pois, pois::build, |s| &mut s.pois_ms),
        (layers.indoor, indoor::build, |s| &mut s.indoor_ms),
    ];
    // One transaction per layer.
    for (wanted, build, elapsed) in steps {
        if wanted {
            let t = Instant::now();
            let tx = conn.transaction()?;
            build(&data, &tx, &mut stats, progress)?;
            tx.commit()?;
            *elapsed(&mut stats) = t.elapsed().as_millis() as u64;
        }
    }
    Ok(stats)
}
