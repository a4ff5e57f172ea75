//! Writing a hierarchy's query layout file and mapping it back ([`super::super::flat`], ADR
//! 0012).
use std::path::Path;

use parking_lot::Mutex;

use super::super::etree::RankGraph;
use super::super::flat::{self, Arr, FlatError, FlatFile, Section};
use super::super::profile::Metric;
use super::{ChError, ChGraph, INVALID};

impl ChGraph {
    /// Writes the query layout of this hierarchy ([`super::flat`]) to `path` under `key`.
    pub fn write_layout(&self, path: &Path, key: &[u8; 32]) -> Result<(), ChError> {
        let arcs = [self.arcs as u64];
        let mut sections = self.query.sections();
        sections.extend([
            Section::new("arcs", &arcs),
            Section::new("secfw", &self.second_fwd),
            Section::new("secbw", &self.second_bwd),
            Section::new("viafw", &self.via_fwd),
            Section::new("viabw", &self.via_bwd),
        ]);
        flat::write(path, key, &sections)?;
        Ok(())
    }

    /// Maps the query layout at `path`, written under `key` by [`ChGraph::write_layout`] for a
    /// hierarchy of `arcs` arcs in `metric`, after checking it whole (every index in range,
    /// every replaced edge below the edge it is part of).
    pub fn open_layout(
        path: &Path,
        key: &[u8; 32],
        metric: Metric,
        arcs: usize,
    ) -> Result<ChGraph, ChError> {
        let f = FlatFile::open(path, key)?;
        let bad = |what: &str| FlatError::Invalid(format!("is inconsistent: {what}"));
        let stored: Arr<u64> = f.arr("arcs")?;
        let (query, firsts) = RankGraph::from_file(&f)?;
        if stored.first().copied() != Some(arcs as u64) || query.len() != arcs + 1 {
            return Err(bad("it belongs to a graph of another size").into());
        }
        let (m_fwd, m_bwd) = (f.count::<[u32; 2]>("fwd")?, f.count::<[u32; 2]>("bwd")?);
        for (tag, m) in [("secfw", m_fwd), ("secbw", m_bwd)] {
            if f.count::<u32>(tag)? != m {
                return Err(bad("second costs do not cover every edge").into());
            }
        }
        // A shortcut replaces a backward and a forward edge of a lower-ranked node: edges
        // stored before the first edge of its own node in both arrays. So unpacking a path
        // always ends. The edge ranges are those the query graph's check read through the
        // file (a temporary copy).
        let [first_fwd, first_bwd] = &firsts;
        for (tag, m, first) in [("viafw", m_fwd, first_fwd), ("viabw", m_bwd, first_bwd)] {
            if f.count::<[u32; 2]>(tag)? != m {
                return Err(bad("replaced edges do not cover every edge").into());
            }
            let mut rank = 0usize;
            let ok = f.scan(tag, |at, v: &[[u32; 2]]| {
                v.iter().enumerate().all(|(i, &[a, b])| {
                    let e = (at + i) as u32;
                    while first.get(rank + 1).is_some_and(|&next| next <= e) {
                        rank += 1;
                    }
                    (a == INVALID && b as usize == rank)
                        || (first_bwd.get(rank).is_some_and(|&lim| a < lim)
                            && first_fwd.get(rank).is_some_and(|&lim| b < lim))
                })
            })?;
            if !ok {
                return Err(bad("a replaced edge is not below the edge it is part of").into());
            }
        }
        drop(firsts);
        Ok(ChGraph {
            metric,
            second_fwd: f.arr("secfw")?,
            second_bwd: f.arr("secbw")?,
            via_fwd: f.arr("viafw")?,
            via_bwd: f.arr("viabw")?,
            arcs,
            query,
            walk: false,
            labels: Mutex::new(Vec::new()),
        })
    }
}
