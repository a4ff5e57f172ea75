//! Installed region packs joined into one road network (ADR 0008).
//!
//! Packs cut from one extract (`waymark-packs build --bbox`/`--polygon`) overlap on the roads
//! their border cuts: a way crossing the border is whole in both, and the segment that crosses
//! is an edge of its own in both, between the same two OSM nodes. [`merge`] makes one
//! [`RoadNetwork`] of such packs:
//!
//! * **Nodes** are identified by their OSM id ([`RoadNetwork::node_osm`]); a node is a
//!   junction when it is one in any member.
//! * **Edges** are identified by way id, the OSM ids of both ends, direction and access. Each
//!   member contributes its edges in its region and the border segments (the same edge in two
//!   members is kept once); an edge of a member lying wholly outside its region (the far part
//!   of a road its border cuts) is left out when another member's region holds it, since that
//!   member has the same road, split at every junction. Where no installed member holds it, it
//!   stays: a road beyond the border of a missing neighbour ends where its pack ends.
//! * **Restrictions** and **toll booths** are united by OSM id; each edge keeps the speed
//!   limits of its own pack's country.
//!
//! The merged network is deterministic: members in the order given, their edges in their
//! order.
use std::collections::HashMap;
use std::sync::Arc;

use super::network::{EdgeFields, Restriction, RoadEdge, RoadNetwork, TollBooth};
use super::profile::CountryLimits;
use crate::geo::{Pt, point_along};

/// One pack of a join: its id, network and region.
pub struct JoinMember<'a> {
    /// Pack id.
    pub id: &'a str,
    /// Its road network.
    pub net: &'a RoadNetwork,
    /// Whether a point lies in its region (the pack's coverage).
    pub covers: &'a (dyn Fn(Pt) -> bool + Sync),
}

impl std::fmt::Debug for JoinMember<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinMember").field("id", &self.id).finish()
    }
}

/// What [`merge`] made.
#[derive(Debug)]
pub struct Merged {
    /// The joined network.
    pub net: RoadNetwork,
    /// For each member, the merged index of each of its edges (`u32::MAX`: left out).
    pub edge_map: Vec<Vec<u32>>,
    /// Edges two members share (border segments), counted once.
    pub shared_edges: usize,
}

/// Identity of an edge across packs.
type EdgeKey = (i64, i64, i64, i8, [bool; 4]);

/// Joins `members` into one network (see the [module notes](self)).
pub fn merge(members: &[JoinMember<'_>]) -> Merged {
    let mut node_index: HashMap<i64, u32> = HashMap::new();
    let mut nodes: Vec<Pt> = Vec::new();
    let mut node_osm: Vec<i64> = Vec::new();
    let mut junction: Vec<bool> = Vec::new();
    // Members built from one extract store the same density for a shared node (measured over
    // the whole extract); packs that measure their own take the larger.
    let mut density: Vec<f32> = Vec::new();
    for m in members {
        for (i, &osm) in m.net.node_osm.iter().enumerate() {
            let j = m.net.junction.get(i).copied().unwrap_or(true);
            let d = m.net.density.get(i).copied().unwrap_or(0.0);
            match node_index.get(&osm) {
                Some(&k) => {
                    junction[k as usize] |= j;
                    density[k as usize] = density[k as usize].max(d);
                }
                None => {
                    node_index.insert(osm, nodes.len() as u32);
                    nodes.push(m.net.nodes[i]);
                    node_osm.push(osm);
                    junction.push(j);
                    density.push(d);
                }
            }
        }
    }
    let mut names: Vec<Arc<str>> = vec![Arc::from("")];
    let mut name_index: HashMap<Arc<str>, u32> = HashMap::new();
    let mut intern = |s: &Arc<str>| -> u32 {
        if s.is_empty() {
            return 0;
        }
        if let Some(&i) = name_index.get(s) {
            return i;
        }
        let i = names.len() as u32;
        names.push(s.clone());
        name_index.insert(s.clone(), i);
        i
    };
    let mut country_limits: Vec<CountryLimits> = Vec::new();
    let mut edges: Vec<RoadEdge> = Vec::new();
    let mut points: Vec<Pt> = Vec::new();
    let mut by_key: HashMap<EdgeKey, u32> = HashMap::new();
    let mut edge_map = Vec::with_capacity(members.len());
    let mut shared_edges = 0usize;
    for (mi, m) in members.iter().enumerate() {
        let net = m.net;
        // The member's limits in the merged table, by country.
        let local_limits: Vec<u8> = net
            .country_limits
            .iter()
            .map(|l| match country_limits.iter().position(|c| c == l) {
                Some(k) => k.min(255) as u8,
                None => {
                    country_limits.push(*l);
                    (country_limits.len() - 1).min(255) as u8
                }
            })
            .collect();
        let mut map = vec![u32::MAX; net.edges.len()];
        for (ei, e) in net.edges.iter().enumerate() {
            let from_osm = net.node_osm[e.from as usize];
            let to_osm = net.node_osm[e.to as usize];
            let key: EdgeKey = (e.way_id, from_osm, to_osm, e.oneway, e.fields().access);
            if let Some(&k) = by_key.get(&key) {
                map[ei] = k;
                shared_edges += 1;
                continue;
            }
            let geometry = net.geometry(ei as u32);
            let outside =
                !(m.covers)(net.nodes[e.from as usize]) && !(m.covers)(net.nodes[e.to as usize]);
            if outside {
                let mid = point_along(geometry, 0.5).unwrap_or(net.nodes[e.from as usize]);
                let held = members
                    .iter()
                    .enumerate()
                    .any(|(oi, o)| oi != mi && (o.covers)(mid));
                if held {
                    continue;
                }
            }
            let (Some(&from), Some(&to)) = (node_index.get(&from_osm), node_index.get(&to_osm))
            else {
                continue;
            };
            let start = points.len() as u32;
            points.extend_from_slice(geometry);
            let end = points.len() as u32;
            let k = edges.len() as u32;
            edges.push(RoadEdge::new(&EdgeFields {
                id: i64::from(k) + 1,
                from,
                to,
                name: intern(&net.names[e.name as usize]),
                r#ref: intern(&net.names[e.r#ref as usize]),
                geometry: (start, end),
                limits: local_limits
                    .get(usize::from(e.limits))
                    .copied()
                    .unwrap_or(0),
                ..e.fields()
            }));
            by_key.insert(key, k);
            map[ei] = k;
        }
        edge_map.push(map);
    }
    let mut restrictions: Vec<Restriction> = Vec::new();
    let mut seen_restrictions = std::collections::HashSet::new();
    let mut toll_booths: Vec<TollBooth> = Vec::new();
    let mut seen_booths = std::collections::HashSet::new();
    for m in members {
        let to_merged = |n: u32| node_index.get(&m.net.node_osm[n as usize]).copied();
        for r in &m.net.restrictions {
            if !seen_restrictions.insert(r.relation_id) {
                continue;
            }
            let mut r = r.clone();
            if let Some(v) = r.via_node {
                match to_merged(v) {
                    Some(k) => r.via_node = Some(k),
                    None => continue,
                }
            }
            restrictions.push(r);
        }
        for b in &m.net.toll_booths {
            if !seen_booths.insert(b.osm_id) {
                continue;
            }
            let mut b = b.clone();
            b.node = b.node.and_then(to_merged);
            toll_booths.push(b);
        }
    }
    restrictions.sort_by_key(|r| r.relation_id);
    toll_booths.sort_by_key(|b| b.osm_id);
    let (country, limits) = match members.first() {
        Some(m) => (m.net.country.clone(), m.net.limits),
        None => (String::new(), CountryLimits::of("")),
    };
    if country_limits.is_empty() {
        country_limits.push(limits);
    }
    Merged {
        net: RoadNetwork {
            nodes: nodes.into(),
            node_osm: node_osm.into(),
            junction,
            density: density.into(),
            edges: edges.into(),
            points: points.into(),
            names,
            restrictions,
            toll_booths,
            country,
            limits: country_limits[0],
            country_limits,
        },
        edge_map,
        shared_edges,
    }
}
