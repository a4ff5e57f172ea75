//! The column layout of stored graph version 3 ([`Graph::to_bytes`]).

use super::{Edge, EdgeKind, Graph, GraphCodecError, Node, WalkArea};
use crate::geo::LocalProjection;
use crate::varint::{self, put_signed};

const KINDS: [EdgeKind; 5] = [
    EdgeKind::Walk,
    EdgeKind::Stairs,
    EdgeKind::Escalator,
    EdgeKind::Elevator,
    EdgeKind::Ramp,
];
const ONEWAY: u8 = 1 << 3;
const WHEELCHAIR: u8 = 1 << 4;
const DERIVED: u8 = 1 << 5;
const CUSTOMERS: u8 = 1 << 6;

/// Byte planes of fixed-width little-endian values: every value's first byte, then every
/// value's second byte, ...
fn put_planes<const N: usize>(out: &mut Vec<u8>, values: &[[u8; N]]) {
    for i in 0..N {
        out.extend(values.iter().map(|v| v[i]));
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], GraphCodecError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or(GraphCodecError::Columns("ends early"))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn varint(&mut self) -> Result<u64, GraphCodecError> {
        varint::get(self.bytes, &mut self.at).map_err(|e| match e {
            varint::VarintError::Ends => GraphCodecError::Columns("ends early"),
            varint::VarintError::TooLong => GraphCodecError::Columns("varint too long"),
        })
    }

    fn signed(&mut self) -> Result<i64, GraphCodecError> {
        Ok(varint::unzigzag(self.varint()?))
    }

    fn count(&mut self) -> Result<usize, GraphCodecError> {
        let n = usize::try_from(self.varint()?)
            .map_err(|_| GraphCodecError::Columns("count too large"))?;
        // Every counted item takes at least one byte.
        if n > self.bytes.len() {
            return Err(GraphCodecError::Columns("count too large"));
        }
        Ok(n)
    }

    fn f64(&mut self) -> Result<f64, GraphCodecError> {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(f64::from_le_bytes(b))
    }

    fn planes<const N: usize>(&mut self, n: usize) -> Result<Vec<[u8; N]>, GraphCodecError> {
        let bytes = self.take(
            n.checked_mul(N)
                .ok_or(GraphCodecError::Columns("count too large"))?,
        )?;
        let mut out = vec![[0u8; N]; n];
        for (i, plane) in bytes.chunks_exact(n.max(1)).enumerate().take(N) {
            for (v, &b) in out.iter_mut().zip(plane) {
                v[i] = b;
            }
        }
        Ok(out)
    }
}

/// The length an edge between `a` and `b` has when it is derived.
fn derived(k: (f64, f64), a: &Node, b: &Node) -> f32 {
    let (dx, dy) = (a.lng * k.0 - b.lng * k.0, a.lat * k.1 - b.lat * k.1);
    (dx * dx + dy * dy).sqrt() as f32
}

pub(super) fn encode(g: &Graph) -> Result<Vec<u8>, GraphCodecError> {
    let k = LocalProjection::new(g.lat0).factors();
    let mut out = Vec::new();
    varint::put(&mut out, u64::from(g.version));
    out.extend(g.lat0.to_le_bytes());
    out.extend(k.0.to_le_bytes());
    out.extend(k.1.to_le_bytes());
    varint::put(&mut out, g.nodes.len() as u64);
    let lat: Vec<[u8; 8]> = g.nodes.iter().map(|n| n.lat.to_le_bytes()).collect();
    let lng: Vec<[u8; 8]> = g.nodes.iter().map(|n| n.lng.to_le_bytes()).collect();
    put_planes(&mut out, &lat);
    put_planes(&mut out, &lng);
    for n in &g.nodes {
        put_signed(&mut out, n.level);
    }
    varint::put(&mut out, g.edges.len() as u64);
    let (mut last_a, mut last_feature) = (0i64, 0i64);
    let mut lengths: Vec<[u8; 4]> = Vec::new();
    for e in &g.edges {
        let (a, b) = (i64::from(e.a), i64::from(e.b));
        put_signed(&mut out, a - last_a);
        put_signed(&mut out, b - a);
        last_a = a;
        let kind = KINDS.iter().position(|&x| x == e.kind).unwrap_or(0) as u8;
        let mut flags = kind;
        if e.oneway {
            flags |= ONEWAY;
        }
        if e.wheelchair {
            flags |= WHEELCHAIR;
        }
        if e.customers {
            flags |= CUSTOMERS;
        }
        let is_derived = match (g.nodes.get(e.a as usize), g.nodes.get(e.b as usize)) {
            (Some(na), Some(nb)) => derived(k, na, nb).to_bits() == e.length.to_bits(),
            _ => false,
        };
        if is_derived {
            flags |= DERIVED;
        } else {
            lengths.push(e.length.to_le_bytes());
        }
        out.push(flags);
        put_signed(&mut out, e.feature.wrapping_sub(last_feature));
        last_feature = e.feature;
    }
    varint::put(&mut out, lengths.len() as u64);
    put_planes(&mut out, &lengths);
    out.extend(postcard::to_stdvec(&(&g.areas, &g.pois, &g.profiles))?);
    Ok(out)
}

pub(super) fn decode(bytes: &[u8]) -> Result<Graph, GraphCodecError> {
    let mut r = Reader { bytes, at: 0 };
    let version =
        u32::try_from(r.varint()?).map_err(|_| GraphCodecError::Columns("version too large"))?;
    let lat0 = r.f64()?;
    let k = (r.f64()?, r.f64()?);
    let n = r.count()?;
    let lat = r.planes::<8>(n)?;
    let lng = r.planes::<8>(n)?;
    let mut nodes = Vec::with_capacity(n);
    for (la, ln) in lat.iter().zip(&lng) {
        nodes.push(Node {
            lat: f64::from_le_bytes(*la),
            lng: f64::from_le_bytes(*ln),
            level: r.signed()?,
        });
    }
    let m = r.count()?;
    let mut edges = Vec::with_capacity(m);
    let mut needs_length = Vec::new();
    let (mut last_a, mut last_feature) = (0i64, 0i64);
    for i in 0..m {
        let a = last_a + r.signed()?;
        let b = a + r.signed()?;
        last_a = a;
        let flags = r.take(1)?[0];
        let feature = last_feature.wrapping_add(r.signed()?);
        last_feature = feature;
        let a = u32::try_from(a).map_err(|_| GraphCodecError::Columns("node id out of range"))?;
        let b = u32::try_from(b).map_err(|_| GraphCodecError::Columns("node id out of range"))?;
        if a as usize >= nodes.len() || b as usize >= nodes.len() {
            return Err(GraphCodecError::Columns("node id out of range"));
        }
        let length = if flags & DERIVED != 0 {
            match (nodes.get(a as usize), nodes.get(b as usize)) {
                (Some(na), Some(nb)) => derived(k, na, nb),
                _ => return Err(GraphCodecError::Columns("node id out of range")),
            }
        } else {
            needs_length.push(i);
            0.0
        };
        edges.push(Edge {
            a,
            b,
            length,
            kind: *KINDS
                .get(usize::from(flags & 7))
                .ok_or(GraphCodecError::Columns("edge kind"))?,
            oneway: flags & ONEWAY != 0,
            wheelchair: flags & WHEELCHAIR != 0,
            feature,
            customers: flags & CUSTOMERS != 0,
        });
    }
    let stored = r.count()?;
    if stored != needs_length.len() {
        return Err(GraphCodecError::Columns("length count"));
    }
    for (i, l) in needs_length.into_iter().zip(r.planes::<4>(stored)?) {
        edges[i].length = f32::from_le_bytes(l);
    }
    let (areas, pois, profiles): (Vec<WalkArea>, Vec<(i64, u32)>, Vec<String>) =
        postcard::from_bytes(&bytes[r.at..])?;
    Ok(Graph {
        version,
        lat0,
        nodes,
        edges,
        areas,
        pois,
        profiles,
        adjacency: Vec::new(),
    })
}
