//! Hierarchies, turn graphs and the network's arrays read from mapped layout files
//! (`core/src/routing/layout.rs`): on a real pack whose routers are told to map them all,
//! snaps, routes, matrices and alternatives are exactly those of the arrays held in memory; a
//! layout is written once and reused; a damaged or cut layout is written again; and where no
//! layout can be written everything stays in memory and answers the same. An installed pack
//! (its manifest's digests) opened again maps its network, snap index, turn graphs and
//! hierarchies without deriving or decoding anything, and a layout holding an index out of
//! range is derived again. Releasing memory unmaps every layout page and changes no answer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use waymark_core::packs::manifest::Manifest;
use waymark_core::routing::derived::PackDigests;
use waymark_core::routing::router::{SearchAlgorithm, expand_sources, positions, targets};
use waymark_core::routing::snap::Snap;
use waymark_core::routing::{Metric, Profile, Router, layout};
use waymark_tests::{Rng, random_snaps, routing_pack};

/// A copy of pack `id`'s directory (its layouts are written there, not in the shared pack).
fn pack_copy(id: &str) -> (tempfile::TempDir, PathBuf) {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &target);
            } else {
                std::fs::copy(e.path(), &target).unwrap();
            }
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(id);
    copy(&routing_pack(id), &dir);
    (tmp, dir)
}

fn router(dir: &Path, layouts_from: usize) -> Router {
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    Router::open("pack", dir, &conn)
        .unwrap()
        .with_layouts_from(layouts_from)
}

/// Everything the two routers answer for `profile`, as comparable values: paths (cost and
/// arcs) between random points, a matrix and alternatives.
fn answers(r: &Router, profile: Profile, points: &[Snap]) -> Vec<String> {
    let metric = Metric::Time;
    let g = r.graph(profile);
    let ch = r.hierarchy(profile, metric).expect("a hierarchy");
    let all = |_: u32| true;
    let mut out = Vec::new();
    let (from, to) = points.split_at(points.len() / 2);
    for (s, t) in from.iter().zip(to) {
        let p = r.path(profile, metric, s, t, None, SearchAlgorithm::Ch);
        out.push(format!("{:?}", p.map(|p| (p.cost, p.arcs))));
    }
    let sources: Vec<Vec<(u32, u64, u64)>> = from
        .iter()
        .map(|s| {
            expand_sources(&g, metric, &positions(&g, s, &all), &all)
                .iter()
                .map(|x| (x.0, x.1, x.2))
                .collect()
        })
        .collect();
    let dests: Vec<Vec<(u32, u64, u64)>> = to
        .iter()
        .map(|t| {
            targets(
                &g,
                metric,
                &waymark_core::routing::router::arrivals(&g, t, &all),
            )
        })
        .collect();
    out.push(format!("{:?}", ch.many_to_many(&sources, &dests)));
    let len = |a: u32| f64::from(g.arc_dist_cm[a as usize]);
    for (s, t) in sources.iter().zip(&dests).take(20) {
        let s: Vec<(u32, u64)> = s.iter().map(|x| (x.0, x.1)).collect();
        let t: Vec<(u32, u64)> = t.iter().map(|x| (x.0, x.1)).collect();
        out.push(format!(
            "{:?}",
            ch.alternatives(&s, &t, 3, (1.4, 0.75), &len)
        ));
    }
    out
}

#[test]
fn mapped_layouts_answer_as_the_decoded_hierarchies() {
    let (_tmp, dir) = pack_copy("andorra");
    let memory = router(&dir, usize::MAX);
    let mapped = router(&dir, 0);
    let mut rng = Rng::new(0x1a70);
    // The network's arrays are mapped as soon as the router opens; in memory otherwise.
    assert!(mapped.net.points.is_mapped() && mapped.net.nodes.is_mapped());
    assert!(mapped.net.edges.is_mapped(), "edge records read in place");
    assert!(!memory.net.points.is_mapped() && !memory.net.edges.is_mapped());
    assert_eq!(&mapped.net.points[..], &memory.net.points[..]);
    let fields = |r: &Router| -> Vec<String> {
        r.net
            .edges
            .iter()
            .map(|e| format!("{:?}", e.fields()))
            .collect()
    };
    assert_eq!(fields(&mapped), fields(&memory));
    assert_eq!(&mapped.net.node_osm[..], &memory.net.node_osm[..]);
    for profile in Profile::ALL {
        let points = random_snaps(&memory, profile, 200, &mut rng);
        // The same snaps from the mapped points.
        let seed = 0x5a9 + profile.index() as u64;
        assert_eq!(
            random_snaps(&mapped, profile, 50, &mut Rng::new(seed)),
            random_snaps(&memory, profile, 50, &mut Rng::new(seed))
        );
        assert!(!memory.hierarchy(profile, Metric::Time).unwrap().is_mapped());
        assert!(!memory.graph(profile).head.is_mapped());
        let want = answers(&memory, profile, &points);
        let got = answers(&mapped, profile, &points);
        let g = mapped.graph(profile);
        assert!(
            g.head.is_mapped() && g.arc_time_ms.is_mapped(),
            "{profile}: graph not mapped"
        );
        assert_eq!(
            g.signature(Metric::Time),
            memory.graph(profile).signature(Metric::Time)
        );
        assert!(
            mapped.hierarchy(profile, Metric::Time).unwrap().is_mapped(),
            "{profile}: not mapped"
        );
        assert!(layout::path(&dir, profile, Metric::Time).is_file());
        let found = want.iter().filter(|w| !w.starts_with("None")).count();
        assert!(found > 60, "{profile}: only {found} answers to compare");
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            assert_eq!(w, g, "{profile}: answer {i} differs when mapped");
        }
    }
}

#[test]
fn a_layout_is_reused_and_a_damaged_one_written_again() {
    use std::os::unix::fs::MetadataExt;
    let (_tmp, dir) = pack_copy("andorra");
    let profile = Profile::Driving;
    let file = layout::path(&dir, profile, Metric::Time);
    let mut rng = Rng::new(7);
    let first = router(&dir, 0);
    let points = random_snaps(&first, profile, 120, &mut rng);
    let want = answers(&first, profile, &points);
    let written = std::fs::read(&file).unwrap();
    let inode = std::fs::metadata(&file).unwrap().ino();

    // Opened again: the same file, not written again.
    let again = router(&dir, 0);
    assert_eq!(answers(&again, profile, &points), want);
    assert_eq!(
        std::fs::metadata(&file).unwrap().ino(),
        inode,
        "written again"
    );

    // Damaged: every edge head out of range, an edge leading to the rank it is stored at
    // (a query following it could go round in circles), then cut short, then another file
    // entirely.
    let mut heads = written.clone();
    let at = heads.len() / 2;
    heads[at..at + 64].fill(0xff);
    let mut down = written.clone();
    let firsts = section(&written, "firstfw");
    let first_edge_rank = written[firsts]
        .chunks_exact(4)
        .skip(1)
        .position(|c| u32::from_ne_bytes(c.try_into().unwrap()) > 0)
        .unwrap() as u32;
    let fwd = section(&written, "fwd").start;
    down[fwd..fwd + 4].copy_from_slice(&first_edge_rank.to_ne_bytes());
    let damaged: [Vec<u8>; 4] = [
        heads,
        down,
        written[..written.len() / 3].to_vec(),
        b"hello".to_vec(),
    ];
    for (i, bytes) in damaged.iter().enumerate() {
        std::fs::write(&file, bytes).unwrap();
        let r = router(&dir, 0);
        assert_eq!(answers(&r, profile, &points), want, "damage {i}");
        assert!(r.hierarchy(profile, Metric::Time).unwrap().is_mapped());
        assert_eq!(
            std::fs::read(&file).unwrap(),
            written,
            "damage {i}: not rewritten"
        );
    }
    // The derived arrays (turn graph, network): a file changed anywhere in its data is
    // written again, and answers do not change.
    for name in ["driving-graph.layout", "network.layout"] {
        let derived = file.with_file_name(name);
        let good = std::fs::read(&derived).unwrap();
        let mut bad = good.clone();
        let at = bad.len() * 2 / 3;
        bad[at..at + 16].iter_mut().for_each(|b| *b ^= 0x5a);
        std::fs::write(&derived, &bad).unwrap();
        let r = router(&dir, 0);
        assert_eq!(answers(&r, profile, &points), want, "{name} damaged");
        assert_eq!(
            std::fs::read(&derived).unwrap(),
            good,
            "{name}: not rewritten"
        );
    }
    // Nothing but the layouts in the directory (no temporary files left).
    let mut names: Vec<String> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "driving-graph.layout",
            "driving-time.layout",
            "network.layout"
        ]
    );
}

#[test]
fn where_no_layout_can_be_written_the_hierarchy_stays_in_memory() {
    let (_tmp, dir) = pack_copy("andorra");
    // A file where the layout directory would be: nothing can be written below it.
    std::fs::write(dir.join(layout::DIR), b"not a directory").unwrap();
    let profile = Profile::Walking;
    let mut rng = Rng::new(11);
    let memory = router(&dir, usize::MAX);
    let points = random_snaps(&memory, profile, 120, &mut rng);
    let r = router(&dir, 0);
    let ch = r.hierarchy(profile, Metric::Time).unwrap();
    assert!(!ch.is_mapped());
    assert!(!r.net.points.is_mapped() && !r.graph(profile).head.is_mapped());
    assert_eq!(
        answers(&r, profile, &points),
        answers(&memory, profile, &points)
    );
}

/// The digests of the copied pack, as its manifest lists them.
fn digests(dir: &Path) -> PackDigests {
    let manifest: Manifest =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    PackDigests::of(&manifest).expect("the manifest lists the database")
}

fn keyed(dir: &Path, d: &PackDigests) -> Router {
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    Router::open_with("pack", dir, &conn, Some(d.clone()))
        .unwrap()
        .with_layouts_from(0)
}

/// Byte range of section `tag` in a layout file (header of 56 bytes, then a table of 32-byte
/// entries: tag, element size, padding, offset, length).
fn section(file: &[u8], tag: &str) -> std::ops::Range<usize> {
    let count = u32::from_ne_bytes(file[48..52].try_into().unwrap()) as usize;
    for i in 0..count {
        let e = &file[56 + 32 * i..56 + 32 * (i + 1)];
        if e[..8].starts_with(tag.as_bytes()) && e[tag.len()..8].iter().all(|&b| b == 0) {
            let off = u64::from_ne_bytes(e[16..24].try_into().unwrap()) as usize;
            let len = u64::from_ne_bytes(e[24..32].try_into().unwrap()) as usize;
            return off..off + len;
        }
    }
    panic!("no section {tag}")
}

#[test]
fn an_installed_pack_opened_again_maps_what_it_derived_without_reading_its_roads() {
    let (_tmp, dir) = pack_copy("andorra");
    let d = digests(&dir);
    let mut rng = Rng::new(0x6e7);
    let first = keyed(&dir, &d);
    let mut want = Vec::new();
    let mut points = Vec::new();
    for profile in [Profile::Driving, Profile::Walking] {
        points.push(random_snaps(&first, profile, 120, &mut rng));
        want.push(answers(&first, profile, points.last().unwrap()));
    }
    for profile in [Profile::Driving, Profile::Walking] {
        assert!(first.reach(profile).component.is_mapped());
    }
    let layouts = dir.join(layout::DIR);
    let network = layouts.join("network.layout");
    let graph = layouts.join("driving-graph.layout");
    let reach = layouts.join("driving-reach.layout");
    let snap = layouts.join("snap.layout");
    assert!(first.snap.is_mapped(), "snap index not mapped when written");
    let (good_network, good_graph, good_reach, good_snap) = (
        std::fs::read(&network).unwrap(),
        std::fs::read(&graph).unwrap(),
        std::fs::read(&reach).unwrap(),
        std::fs::read(&snap).unwrap(),
    );
    let same_answers = |r: &Router, what: &str| {
        for (i, profile) in [Profile::Driving, Profile::Walking].into_iter().enumerate() {
            assert_eq!(
                answers(r, profile, &points[i]),
                want[i],
                "{what}: {profile}"
            );
        }
    };

    // A layout holding an index out of range (an edge's start node, a transition's head, an
    // arc's component, the end of the snap index's first leaf, a piece's edge) is derived and
    // written again; the answers do not change.
    for (file, good, tag, at) in [
        (&network, &good_network, "edges", 32),
        (&graph, &good_graph, "head", 0),
        (&reach, &good_reach, "comp", 0),
        (&snap, &good_snap, "child", 4),
        (&snap, &good_snap, "pieces", 8),
    ] {
        let mut bad = good.clone();
        let s = section(&bad, tag);
        bad[s.start + at..s.start + at + 4].copy_from_slice(&u32::MAX.to_ne_bytes());
        // A new file in its place, as the engine writes them: `first` keeps mapping the old.
        let tmp = file.with_extension("damaged");
        std::fs::write(&tmp, &bad).unwrap();
        std::fs::rename(&tmp, file).unwrap();
        let r = keyed(&dir, &d);
        same_answers(&r, tag);
        let (a, b) = (r.reach(Profile::Driving), first.reach(Profile::Driving));
        assert!(
            a.component[..] == b.component[..] && a.flags[..] == b.flags[..],
            "{tag}: components differ"
        );
        assert_eq!(&std::fs::read(file).unwrap(), good, "{tag}: not rewritten");
        assert!(r.snap.is_mapped(), "{tag}: snap index not mapped");
    }

    // Without its roads and prepared files, the pack opened again under the same digests
    // answers the same from its layouts: nothing is derived or decoded.
    {
        let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
        conn.execute_batch(
            "PRAGMA foreign_keys = OFF; DELETE FROM road_segments; DELETE FROM road_nodes; \
             DELETE FROM road_attrs;",
        )
        .unwrap();
    }
    std::fs::remove_dir_all(dir.join("routing")).unwrap();
    let again = keyed(&dir, &d);
    assert!(again.net.edges.is_mapped(), "network derived again");
    assert!(again.snap.is_mapped(), "snap index built again");
    assert_eq!(again.snap.pieces(), first.snap.pieces());
    assert_eq!(again.net.edges.len(), first.net.edges.len());
    assert_eq!(again.net.names, first.net.names);
    assert_eq!(again.net.restrictions.len(), first.net.restrictions.len());
    assert_eq!(again.net.country, first.net.country);
    same_answers(&again, "opened again");
    for profile in [Profile::Driving, Profile::Walking] {
        let (a, b) = (again.reach(profile), first.reach(profile));
        assert!(a.component.is_mapped());
        assert_eq!(
            (&a.component[..], &a.size[..], a.main, &a.flags[..]),
            (&b.component[..], &b.size[..], b.main, &b.flags[..])
        );
    }

    // The same files without the digests, or under another database's digest, are not
    // used: the network is derived from the (now empty) roads.
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    let unkeyed = Router::open("pack", &dir, &conn).unwrap();
    assert_eq!(unkeyed.net.edges.len(), 0);
    let mut other = d.clone();
    other.database = "0".repeat(64);
    assert_eq!(keyed(&dir, &other).net.edges.len(), 0);
}

#[test]
fn an_installed_pack_maps_its_address_grids_and_answers_as_in_memory() {
    use waymark_core::distance::address::AddressIndex;
    use waymark_core::geo::Pt;
    let (_tmp, dir) = pack_copy("andorra");
    let d = digests(&dir);
    let conn = || rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    let lat0 = 42.55;
    let memory = AddressIndex::load(conn(), lat0).unwrap();
    assert!(!memory.is_mapped());
    let first = AddressIndex::open("pack", &dir, &d, conn(), lat0).unwrap();
    assert!(first.is_mapped(), "grids written and mapped");
    let file = dir.join(layout::DIR).join("addresses.layout");
    let good = std::fs::read(&file).unwrap();

    // Points near the pack's addresses and settlements, and far from any.
    let db = conn();
    let mut stmt = db
        .prepare("SELECT lat, lng FROM addresses UNION ALL SELECT lat, lng FROM places")
        .unwrap();
    let known: Vec<(f64, f64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(known.len() > 100, "the pack has addresses");
    let mut rng = Rng::new(0xadd);
    let probes: Vec<Pt> = (0..600)
        .map(|_| {
            let (lat, lng) = known[rng.below(known.len())];
            // Up to about 400 m away.
            Pt::new(
                lat + (rng.unit() - 0.5) * 0.007,
                lng + (rng.unit() - 0.5) * 0.01,
            )
        })
        .chain([Pt::new(42.0, 0.5), Pt::new(43.2, 2.0)])
        .collect();
    let want: Vec<Option<String>> = probes.iter().map(|&p| memory.nearest(p)).collect();
    let named = want.iter().filter(|w| w.is_some()).count();
    assert!(named > 300 && named < probes.len(), "{named} probes named");
    assert!(want[want.len() - 2..].iter().all(Option::is_none));
    // At an address's own position, that address (or one at the same spot) is named.
    let (lat, lng) = known[0];
    assert!(memory.nearest(Pt::new(lat, lng)).is_some());
    let same = |a: &AddressIndex, what: &str| {
        for (p, w) in probes.iter().zip(&want) {
            assert_eq!(&a.nearest(*p), w, "{what}: at {p:?}");
        }
    };
    same(&first, "written");

    // Opened again: mapped from the file, which is not written again.
    let again = AddressIndex::open("pack", &dir, &d, conn(), lat0).unwrap();
    assert!(again.is_mapped());
    same(&again, "opened again");
    assert_eq!(std::fs::read(&file).unwrap(), good);

    // A point naming a pack that is not there, or cell starts past the points: derived
    // again, never read out of bounds.
    for tag in ["a.mem", "p.start"] {
        let mut bad = good.clone();
        let range = section(&bad, tag);
        let last = range.end - 4;
        bad[last..range.end].copy_from_slice(&9u32.to_ne_bytes());
        std::fs::write(&file, &bad).unwrap();
        let fixed = AddressIndex::open("pack", &dir, &d, conn(), lat0).unwrap();
        assert!(fixed.is_mapped(), "{tag}");
        same(&fixed, tag);
        assert_eq!(std::fs::read(&file).unwrap(), good, "{tag}: written again");
    }

    // Another database digest does not read these grids.
    let mut other = d.clone();
    other.database = "0".repeat(64);
    let keyed_other = AddressIndex::open("pack", &dir, &other, conn(), lat0).unwrap();
    same(&keyed_other, "another key");
}

/// Pages of the layout files under `dir` that this process has mapped in (present bits of
/// `/proc/self/pagemap`).
fn resident_layout_pages(dir: &Path) -> usize {
    use std::io::{Read, Seek, SeekFrom};
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let mut pagemap = std::fs::File::open("/proc/self/pagemap").unwrap();
    let mut present = 0;
    for line in maps.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() < 6 || !w[5].starts_with(dir.to_str().unwrap()) || !w[5].ends_with(".layout") {
            continue;
        }
        let (lo, hi) = w[0].split_once('-').unwrap();
        let (lo, hi) = (
            u64::from_str_radix(lo, 16).unwrap(),
            u64::from_str_radix(hi, 16).unwrap(),
        );
        let mut buf = vec![0u8; 8 * ((hi - lo) / 4096) as usize];
        pagemap.seek(SeekFrom::Start(lo / 4096 * 8)).unwrap();
        pagemap.read_exact(&mut buf).unwrap();
        present += buf.chunks_exact(8).filter(|c| c[7] & 0x80 != 0).count();
    }
    present
}

#[test]
fn releasing_memory_unmaps_the_layouts_and_the_answers_stay_the_same() {
    use waymark_core::routing::memory;
    let (_tmp, dir) = pack_copy("andorra");
    let mapped = router(&dir, 0);
    let profile = Profile::Driving;
    let points = random_snaps(&mapped, profile, 200, &mut Rng::new(0x7e1));
    let want = answers(&mapped, profile, &points);
    assert!(mapped.hierarchy(profile, Metric::Time).unwrap().is_mapped());
    let before = resident_layout_pages(&dir);
    assert!(
        before > 20,
        "only {before} layout pages mapped after the queries"
    );
    let files: u64 = std::fs::read_dir(dir.join(layout::DIR))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();

    let released = memory::release();
    assert_eq!(
        resident_layout_pages(&dir),
        0,
        "pages still mapped after release"
    );
    assert!(
        released.mapped_bytes >= files && released.mapped_files >= 3,
        "{released:?}: the layouts under {} hold {files} bytes",
        dir.display()
    );
    assert!(
        released.buffers >= 1,
        "{released:?}: no kept buffer dropped"
    );
    // The same answers from pages mapped again, then with releases racing the queries.
    assert_eq!(answers(&mapped, profile, &points), want);
    assert!(resident_layout_pages(&dir) > 20);
    // A ceiling: nothing happens under it; over it the layouts are unmapped.
    assert!(memory::resident_bytes().unwrap() > 0);
    assert_eq!(memory::hold_under(u64::MAX), None);
    assert!(resident_layout_pages(&dir) > 20);
    let held = memory::hold_under(0).expect("a resident set over a zero ceiling");
    assert!(held.mapped_files >= 3 && held.buffers == 0, "{held:?}");
    assert_eq!(resident_layout_pages(&dir), 0);
    assert_eq!(answers(&mapped, profile, &points), want);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                memory::release();
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        });
        for _ in 0..3 {
            assert_eq!(answers(&mapped, profile, &points), want);
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}
