//! A small OSM PBF writer: the `fileformat.proto` / `osmformat.proto` messages of the OSM
//! "PBF Format" encoded by hand (protobuf wire format), zlib-compressed blobs, `DenseNodes`
//! for nodes, one primitive group per block, no metadata (`Info`) — the form of
//! `osmium cat --omit-metadata`.
//!
//! Elements must be given nodes first, then ways, then relations (the order of a sorted
//! extract); each kind is cut into blocks of [`BLOCK_ELEMENTS`].

use std::collections::HashMap;
use std::io::{self, Write};

use flate2::Compression;
use flate2::write::ZlibEncoder;

/// Elements per primitive block (osmium writes 8,000).
pub const BLOCK_ELEMENTS: usize = 8_000;

/// A relation member's type (`Relation.MemberType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberType {
    /// A node.
    Node = 0,
    /// A way.
    Way = 1,
    /// A relation.
    Relation = 2,
}

/// Protobuf wire encoding into a byte buffer.
#[derive(Debug, Default)]
struct Pb(Vec<u8>);

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

impl Pb {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    fn key(&mut self, field: u32, wire: u8) {
        self.varint((u64::from(field) << 3) | u64::from(wire));
    }
    fn uint(&mut self, field: u32, v: u64) {
        self.key(field, 0);
        self.varint(v);
    }
    fn sint(&mut self, field: u32, v: i64) {
        self.key(field, 0);
        self.varint(zigzag(v));
    }
    fn bytes(&mut self, field: u32, b: &[u8]) {
        self.key(field, 2);
        self.varint(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn packed(&mut self, field: u32, values: impl Iterator<Item = u64>) {
        let mut inner = Pb::default();
        for v in values {
            inner.varint(v);
        }
        if !inner.0.is_empty() {
            self.bytes(field, &inner.0);
        }
    }
    /// Delta-coded, zigzag packed `sint64`s.
    fn packed_delta(&mut self, field: u32, values: &[i64]) {
        let mut last = 0i64;
        self.packed(
            field,
            values.iter().map(|&v| {
                let d = v - last;
                last = v;
                zigzag(d)
            }),
        );
    }
}

/// The string table of one block (index 0 is the empty string, reserved as a delimiter).
#[derive(Debug)]
struct Strings {
    index: HashMap<String, u32>,
    list: Vec<String>,
}

impl Strings {
    fn new() -> Self {
        Strings {
            index: HashMap::new(),
            list: vec![String::new()],
        }
    }
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.to_owned());
        self.index.insert(s.to_owned(), i);
        i
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Nodes = 0,
    Ways = 1,
    Relations = 2,
}

/// Coordinates in units of the default granularity (100 nanodegrees).
fn coord(deg: f64) -> i64 {
    (deg * 1e7).round() as i64
}

/// Writes an OSM PBF file element by element.
#[derive(Debug)]
pub struct PbfWriter<W: Write> {
    out: W,
    strings: Strings,
    kind: Kind,
    count: usize,
    // DenseNodes columns.
    ids: Vec<i64>,
    lats: Vec<i64>,
    lons: Vec<i64>,
    keys_vals: Vec<u64>,
    // Encoded Way / Relation messages of the group.
    group: Pb,
    bytes: u64,
    written: [u64; 3],
}

impl<W: Write> PbfWriter<W> {
    /// Starts the file: writes the `OSMHeader` blob with `bbox` (`[west, south, east, north]`),
    /// the required features and the replication timestamp (seconds since 1970).
    pub fn new(out: W, bbox: [f64; 4], timestamp: i64) -> io::Result<Self> {
        let mut w = PbfWriter {
            out,
            strings: Strings::new(),
            kind: Kind::Nodes,
            count: 0,
            ids: Vec::new(),
            lats: Vec::new(),
            lons: Vec::new(),
            keys_vals: Vec::new(),
            group: Pb::default(),
            bytes: 0,
            written: [0; 3],
        };
        let nano = |deg: f64| (deg * 1e9).round() as i64;
        let mut b = Pb::default();
        b.sint(1, nano(bbox[0]));
        b.sint(2, nano(bbox[2]));
        b.sint(3, nano(bbox[3]));
        b.sint(4, nano(bbox[1]));
        let mut h = Pb::default();
        h.bytes(1, &b.0);
        h.bytes(4, b"OsmSchema-V0.6");
        h.bytes(4, b"DenseNodes");
        h.bytes(16, b"waymark-packs synth");
        h.uint(32, timestamp as u64);
        w.blob("OSMHeader", &h.0)?;
        Ok(w)
    }

    fn blob(&mut self, kind: &str, data: &[u8]) -> io::Result<()> {
        let mut z = ZlibEncoder::new(Vec::with_capacity(data.len() / 3), Compression::fast());
        z.write_all(data)?;
        let compressed = z.finish()?;
        let mut blob = Pb::default();
        blob.uint(2, data.len() as u64);
        blob.bytes(3, &compressed);
        let mut header = Pb::default();
        header.bytes(1, kind.as_bytes());
        header.uint(3, blob.0.len() as u64);
        let len =
            u32::try_from(header.0.len()).map_err(|_| io::Error::other("blob header too large"))?;
        self.out.write_all(&len.to_be_bytes())?;
        self.out.write_all(&header.0)?;
        self.out.write_all(&blob.0)?;
        self.bytes += 4 + header.0.len() as u64 + blob.0.len() as u64;
        Ok(())
    }

    /// Writes the pending block, if any.
    fn flush_block(&mut self) -> io::Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        let mut group = Pb::default();
        match self.kind {
            Kind::Nodes => {
                let mut dense = Pb::default();
                dense.packed_delta(1, &self.ids);
                dense.packed_delta(8, &self.lats);
                dense.packed_delta(9, &self.lons);
                dense.packed(10, self.keys_vals.iter().copied());
                group.bytes(2, &dense.0);
            }
            Kind::Ways | Kind::Relations => group = std::mem::take(&mut self.group),
        }
        let mut table = Pb::default();
        for s in &self.strings.list {
            table.bytes(1, s.as_bytes());
        }
        let mut block = Pb::default();
        block.bytes(1, &table.0);
        block.bytes(2, &group.0);
        self.blob("OSMData", &block.0)?;
        self.strings = Strings::new();
        self.count = 0;
        self.ids.clear();
        self.lats.clear();
        self.lons.clear();
        self.keys_vals.clear();
        self.group = Pb::default();
        Ok(())
    }

    fn start(&mut self, kind: Kind) -> io::Result<()> {
        if self.kind != kind || self.count >= BLOCK_ELEMENTS {
            self.flush_block()?;
            self.kind = kind;
        }
        self.count += 1;
        self.written[kind as usize] += 1;
        Ok(())
    }

    /// Nodes, ways and relations written so far.
    pub fn written(&self) -> [u64; 3] {
        self.written
    }

    fn tag_ids(&mut self, tags: &[(&str, &str)]) -> (Vec<u64>, Vec<u64>) {
        tags.iter()
            .map(|(k, v)| (u64::from(self.strings.id(k)), u64::from(self.strings.id(v))))
            .unzip()
    }

    /// A node.
    pub fn node(&mut self, id: i64, lat: f64, lon: f64, tags: &[(&str, &str)]) -> io::Result<()> {
        self.start(Kind::Nodes)?;
        self.ids.push(id);
        self.lats.push(coord(lat));
        self.lons.push(coord(lon));
        for (k, v) in tags {
            let (k, v) = (self.strings.id(k), self.strings.id(v));
            self.keys_vals.push(u64::from(k));
            self.keys_vals.push(u64::from(v));
        }
        self.keys_vals.push(0);
        Ok(())
    }

    /// A way through the nodes `refs`.
    pub fn way(&mut self, id: i64, refs: &[i64], tags: &[(&str, &str)]) -> io::Result<()> {
        self.start(Kind::Ways)?;
        let (keys, vals) = self.tag_ids(tags);
        let mut w = Pb::default();
        w.uint(1, id as u64);
        w.packed(2, keys.into_iter());
        w.packed(3, vals.into_iter());
        w.packed_delta(8, refs);
        self.group.bytes(3, &w.0);
        Ok(())
    }

    /// A relation with `(type, id, role)` members.
    pub fn relation(
        &mut self,
        id: i64,
        members: &[(MemberType, i64, &str)],
        tags: &[(&str, &str)],
    ) -> io::Result<()> {
        self.start(Kind::Relations)?;
        let (keys, vals) = self.tag_ids(tags);
        let roles: Vec<u64> = members
            .iter()
            .map(|(_, _, role)| u64::from(self.strings.id(role)))
            .collect();
        let ids: Vec<i64> = members.iter().map(|m| m.1).collect();
        let mut r = Pb::default();
        r.uint(1, id as u64);
        r.packed(2, keys.into_iter());
        r.packed(3, vals.into_iter());
        r.packed(8, roles.into_iter());
        r.packed_delta(9, &ids);
        r.packed(10, members.iter().map(|m| m.0 as u64));
        self.group.bytes(4, &r.0);
        Ok(())
    }

    /// Writes the last block and returns the output and the bytes written.
    pub fn finish(mut self) -> io::Result<(W, u64)> {
        self.flush_block()?;
        self.out.flush()?;
        Ok((self.out, self.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_zigzag_follow_the_protobuf_encoding() {
        let mut pb = Pb::default();
        pb.varint(300);
        assert_eq!(pb.0, vec![0xAC, 0x02]);
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        assert_eq!(zigzag(-2), 3);
        assert_eq!(zigzag(i64::MIN), u64::MAX);
    }

    #[test]
    fn string_table_keeps_index_zero_empty_and_reuses_entries() {
        let mut s = Strings::new();
        assert_eq!(s.id("highway"), 1);
        assert_eq!(s.id("residential"), 2);
        assert_eq!(s.id("highway"), 1);
        assert_eq!(s.list[0], "");
    }
}
