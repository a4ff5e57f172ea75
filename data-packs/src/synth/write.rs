//! Writing a city grid ([`Grid`]) as OSM elements, in the three passes a PBF file needs
//! (nodes, ways, relations), so that a country layout can write many grids in each pass.

use super::*;

pub(super) fn street_tags(s: &Street) -> Vec<(&'static str, String)> {
    let mut t = vec![
        ("highway", s.highway.to_string()),
        ("name", s.name.clone()),
        ("maxspeed", s.maxspeed.to_string()),
        ("surface", "asphalt".to_string()),
    ];
    if let Some(o) = s.oneway {
        t.push(("oneway", o.to_string()));
        if s.bicycle_contraflow {
            t.push(("oneway:bicycle", "no".to_string()));
        }
    }
    if matches!(s.highway, "primary" | "secondary") {
        t.push(("cycleway", "lane".to_string()));
        t.push(("lanes", "2".to_string()));
    }
    t
}

pub(super) fn refs<'a>(tags: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    tags.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

pub(super) const POIS: &[(&str, &str, &str)] = &[
    ("amenity", "cafe", "Café"),
    ("amenity", "restaurant", "Gasthaus"),
    ("amenity", "pharmacy", "Apotheke"),
    ("shop", "supermarket", "Rasterkauf"),
    ("shop", "bakery", "Gitterbäcker"),
    ("amenity", "fuel", "Rastertank"),
    ("amenity", "bank", "Rasterbank"),
    ("tourism", "hotel", "Hotel"),
];

pub(super) fn write_grid<W: io::Write>(grid: &Grid, out: W) -> io::Result<(SynthStats, W)> {
    let bbox = grid.bbox();
    let mut w = PbfWriter::new(out, bbox, TIMESTAMP)?;
    let mut stats = SynthStats::empty(grid.g, bbox);
    grid_nodes(grid, &mut w, &mut stats)?;
    let mut way_id = 0;
    let ways = grid_ways(grid, &mut w, &mut stats, &mut way_id)?;
    let mut relation_id = 0;
    grid_relations(grid, &mut w, &mut stats, &mut relation_id, &ways)?;
    finish(w, stats)
}

/// Fills in the element counts and the file size.
pub(super) fn finish<W: io::Write>(
    w: PbfWriter<W>,
    mut stats: SynthStats,
) -> io::Result<(SynthStats, W)> {
    [stats.nodes, stats.ways, stats.relations] = w.written();
    let (out, bytes) = w.finish()?;
    stats.bytes = bytes;
    Ok((stats, out))
}

/// The ways of a grid the relations refer to.
pub(super) struct GridWays {
    /// The way holding each street chunk's first junction, for the restrictions (they lie
    /// on arterials, whose chunks are one way each).
    pub(super) chunk_way: std::collections::HashMap<(bool, usize, usize), i64>,
    /// The boundary's ring.
    pub(super) boundary: i64,
}

/// The grid's nodes, ids ascending: junctions, then each block's slots, then the special
/// nodes.
pub(super) fn grid_nodes<W: io::Write>(
    grid: &Grid,
    w: &mut PbfWriter<W>,
    stats: &mut SynthStats,
) -> io::Result<()> {
    let g = grid.g;
    let node = |w: &mut PbfWriter<W>, id: i64, y: f64, x: f64, tags: &[(&str, &str)]| {
        let (lat, lon) = grid.at(y, x);
        w.node(id, lat, lon, tags)
    };
    // Nodes, ids ascending: junctions, then each block's slots, then the special nodes.
    for i in 0..g {
        for j in 0..g {
            node(w, grid.junction(i, j), i as f64, j as f64, &[])?;
        }
    }
    for i in 0..g {
        for j in 0..g {
            let (y, x) = (i as f64, j as f64);
            if grid.has_side(true, i, j) {
                node(w, grid.slot(i, j, 0), y, x + 0.5, &[])?;
            }
            if grid.has_column_shape(i, j) {
                node(w, grid.slot(i, j, 1), y + 0.5, x, &[])?;
            }
            if grid.has_footway(i, j) {
                node(w, grid.slot(i, j, 2), y + 0.5, x + 0.5, &[])?;
            }
            if grid.built_up(i, j) {
                for first in [3, 7] {
                    for (id, yy, xx) in grid.building(i, j, first) {
                        node(w, id, yy, xx, &[])?;
                    }
                }
            }
            if let Some(kind) = grid.poi_kind(i, j) {
                let (key, value, label) = POIS[kind as usize];
                let street = grid.street(true, i);
                let name = if matches!(value, "supermarket" | "bakery" | "fuel" | "bank") {
                    format!("{label} {}", street.name)
                } else {
                    format!("{label} {} {}", street.name, j + 1)
                };
                let number = format!("{}a", 2 * j + 1);
                let postcode = grid.postcode(i, j);
                let mut tags = vec![
                    (key, value),
                    ("name", name.as_str()),
                    ("opening_hours", "Mo-Sa 08:00-20:00"),
                    ("addr:street", street.name.as_str()),
                    ("addr:housenumber", number.as_str()),
                    ("addr:postcode", postcode.as_str()),
                    ("addr:city", grid.name.as_str()),
                ];
                if matches!(value, "supermarket" | "bakery" | "fuel" | "bank") {
                    tags.push(("brand", label));
                }
                if value == "restaurant" {
                    tags.push(("cuisine", "german"));
                }
                node(w, grid.slot(i, j, 11), y + 0.25, x + 0.75, &tags)?;
                stats.pois += 1;
            }
            if grid.has_suburb(i, j) {
                let name = format!("{}viertel", STEMS[(i / 40 * 7 + j / 40) % STEMS.len()]);
                node(
                    w,
                    grid.slot(i, j, 12),
                    y + 0.75,
                    x + 0.25,
                    &[("place", "suburb"), ("name", name.as_str())],
                )?;
            }
            if grid.has_side(true, i, j) {
                for &(f, row, _) in &SHAPE_AT {
                    if row != 0 {
                        node(w, grid.slot(i, j, row), y, x + f, &[])?;
                    }
                }
            }
            if grid.has_column_shape(i, j) {
                for &(f, _, column) in &SHAPE_AT {
                    if column != 1 {
                        node(w, grid.slot(i, j, column), y + f, x, &[])?;
                    }
                }
            }
        }
    }
    let (my, wy) = (grid.rm as f64 + 0.35, grid.rm as f64 + 0.65);
    let booth = g / 3;
    for j in 0..g {
        let tags: &[(&str, &str)] = if j == booth {
            &[
                ("barrier", "toll_booth"),
                ("name", "Mautstelle Rasterstadt"),
            ]
        } else {
            &[]
        };
        node(w, grid.mw_east(j), my, j as f64, tags)?;
    }
    for j in 0..g {
        node(w, grid.mw_west(j), wy, j as f64, &[])?;
    }
    let e = g as f64 - 0.5;
    for (k, (y, x)) in [(-0.5, -0.5), (-0.5, e), (e, e), (e, -0.5)]
        .into_iter()
        .enumerate()
    {
        node(w, grid.other(k), y, x, &[])?;
    }
    let population = (g * g * 4).to_string();
    let c = g as f64 / 2.0 + 1.5;
    node(
        w,
        grid.other(4),
        c,
        c,
        &[
            ("place", grid.place),
            ("name", grid.name.as_str()),
            ("population", population.as_str()),
        ],
    )?;
    let (mi, mj) = grid.mall;
    let rect = |y0: f64, x0: f64, y1: f64, x1: f64| [(y0, x0), (y0, x1), (y1, x1), (y1, x0)];
    let (my0, mx0) = (mi as f64, mj as f64);
    let shapes = [
        rect(my0 + 0.15, mx0 + 0.15, my0 + 0.85, mx0 + 0.85),
        rect(my0 + 0.2, mx0 + 0.2, my0 + 0.45, mx0 + 0.45),
        rect(my0 + 0.55, mx0 + 0.55, my0 + 0.8, mx0 + 0.8),
    ];
    for (s, shape) in shapes.iter().enumerate() {
        for (k, (y, x)) in shape.iter().enumerate() {
            node(w, grid.other(5 + 4 * s + k), *y, *x, &[])?;
        }
    }

    Ok(())
}

/// The grid's ways, ids from `way_id + 1`: row streets, column streets, then the rest.
pub(super) fn grid_ways<W: io::Write>(
    grid: &Grid,
    w: &mut PbfWriter<W>,
    stats: &mut SynthStats,
    way_id: &mut i64,
) -> io::Result<GridWays> {
    let g = grid.g;
    let (mi, mj) = grid.mall;
    // Ways: row streets, column streets (ids by formula, for the restrictions), then the rest.
    let mut way = |w: &mut PbfWriter<W>, refs: &[i64], tags: &[(&str, &str)]| -> io::Result<i64> {
        *way_id += 1;
        w.way(*way_id, refs, tags)?;
        Ok(*way_id)
    };
    let chunk_range = |c: usize| (c * CHUNK, ((c + 1) * CHUNK).min(g - 1));
    let mut chunk_way: std::collections::HashMap<(bool, usize, usize), i64> =
        std::collections::HashMap::new();
    for horizontal in [true, false] {
        for k in 0..g {
            let tags = street_tags(&grid.street(horizontal, k));
            for c in 0..grid.chunks {
                let (a, b) = chunk_range(c);
                // (i, j) of position `along` of this street.
                let at = |along: usize| if horizontal { (k, along) } else { (along, k) };
                let mut parts: Vec<Vec<i64>> = Vec::new();
                let mut r = Vec::with_capacity((SHAPE_NODES + 1) * CHUNK + 2);
                for along in a..=b {
                    let (i, j) = at(along);
                    r.push(grid.junction(i, j));
                    if along == b {
                        break;
                    }
                    if !grid.has_side(horizontal, i, j) {
                        if r.len() >= 2 {
                            parts.push(std::mem::take(&mut r));
                        }
                        r.clear();
                    } else if horizontal {
                        r.extend(SHAPE_AT.iter().map(|&(_, row, _)| grid.slot(i, j, row)));
                    } else if i == grid.rm && grid.is_junction_column(j) {
                        r.push(grid.mw_east(j));
                        r.push(grid.mw_west(j));
                    } else {
                        r.extend(
                            SHAPE_AT
                                .iter()
                                .map(|&(_, _, column)| grid.slot(i, j, column)),
                        );
                    }
                }
                if r.len() >= 2 {
                    parts.push(r);
                }
                for (n, part) in parts.iter().enumerate() {
                    let id = way(w, part, &refs(&tags))?;
                    if n == 0 {
                        chunk_way.insert((horizontal, k, c), id);
                    }
                    stats.routable_ways += 1;
                }
            }
        }
    }
    let motorway: [(&str, &str); 6] = [
        ("highway", "motorway"),
        ("oneway", "yes"),
        ("toll", "yes"),
        ("maxspeed", "120"),
        ("ref", "A 100"),
        ("lanes", "2"),
    ];
    for c in 0..grid.chunks {
        let (a, b) = chunk_range(c);
        let r: Vec<i64> = (a..=b).map(|j| grid.mw_east(j)).collect();
        way(w, &r, &motorway)?;
        let r: Vec<i64> = (a..=b).rev().map(|j| grid.mw_west(j)).collect();
        way(w, &r, &motorway)?;
        stats.routable_ways += 2;
    }
    for i in 0..g {
        for j in 0..g {
            if grid.has_footway(i, j) {
                let r = [
                    grid.slot(i, j, 0),
                    grid.slot(i, j, 2),
                    grid.slot(i + 1, j, 0),
                ];
                let tags: &[(&str, &str)] = if (i + j) % 2 == 0 {
                    &[("highway", "footway"), ("surface", "paving_stones")]
                } else {
                    &[("highway", "cycleway"), ("surface", "asphalt")]
                };
                way(w, &r, tags)?;
                stats.routable_ways += 1;
            }
            if grid.built_up(i, j) {
                for (first, street_row, number) in [(3, i, 2 * j + 1), (7, i + 1, 2 * j + 2)] {
                    let corners = grid.building(i, j, first);
                    let r = [
                        corners[0].0,
                        corners[1].0,
                        corners[2].0,
                        corners[3].0,
                        corners[0].0,
                    ];
                    let h = mix(&[grid.seed, 4, i as u64, j as u64, first]);
                    let kind = ["residential", "apartments", "house"][(h % 3) as usize];
                    let levels = (1 + h % 5).to_string();
                    let street = grid.street(true, street_row);
                    let number = number.to_string();
                    let postcode = grid.postcode(i, j);
                    let tags = [
                        ("building", kind),
                        ("building:levels", levels.as_str()),
                        ("addr:street", street.name.as_str()),
                        ("addr:housenumber", number.as_str()),
                        ("addr:postcode", postcode.as_str()),
                        ("addr:city", grid.name.as_str()),
                    ];
                    way(w, &r, &tags)?;
                    stats.addressed_buildings += 1;
                }
            }
        }
    }
    let ring = |k: usize| {
        let ids: Vec<i64> = (0..4).map(|n| grid.other(k + n)).collect();
        [ids[0], ids[1], ids[2], ids[3], ids[0]]
    };
    let mall_street = grid.street(true, mi);
    let mall_number = format!("{}", 2 * mj + 1);
    let mall_postcode = grid.postcode(mi, mj);
    way(
        w,
        &ring(5),
        &[
            ("building", "retail"),
            ("shop", "mall"),
            ("name", "Rasterpassage"),
            ("building:levels", "2"),
            ("addr:street", mall_street.name.as_str()),
            ("addr:housenumber", mall_number.as_str()),
            ("addr:postcode", mall_postcode.as_str()),
            ("addr:city", grid.name.as_str()),
        ],
    )?;
    stats.addressed_buildings += 1;
    for (k, name, shop) in [(9, "Gitter Moden", "clothes"), (13, "Raster Buch", "books")] {
        way(
            w,
            &ring(k),
            &[
                ("indoor", "room"),
                ("level", "0"),
                ("shop", shop),
                ("name", name),
            ],
        )?;
    }
    let boundary_way = way(w, &ring(0), &[])?;

    Ok(GridWays {
        chunk_way,
        boundary: boundary_way,
    })
}

/// The grid's relations, ids from `relation_id + 1`: the boundary, then the turn
/// restrictions.
pub(super) fn grid_relations<W: io::Write>(
    grid: &Grid,
    w: &mut PbfWriter<W>,
    stats: &mut SynthStats,
    relation_id: &mut i64,
    ways: &GridWays,
) -> io::Result<()> {
    let g = grid.g;
    let (boundary_way, chunk_way) = (ways.boundary, &ways.chunk_way);
    // Relations: the city's boundary, then the turn restrictions.
    *relation_id += 1;
    w.relation(
        *relation_id,
        &[(MemberType::Way, boundary_way, "outer")],
        &[
            ("type", "boundary"),
            ("boundary", "administrative"),
            ("admin_level", "8"),
            ("name", grid.name.as_str()),
        ],
    )?;
    let row_way = |i: usize, j: usize| chunk_way.get(&(true, i, j / CHUNK)).copied();
    let column_way = |i: usize, j: usize| chunk_way.get(&(false, j, i / CHUNK)).copied();
    for i in (CHUNK / 2..g - 1).step_by(CHUNK) {
        for j in (CHUNK / 2..g - 1).step_by(CHUNK) {
            if !(i / CHUNK + j / CHUNK).is_multiple_of(3) || i == grid.rm || i == grid.rm + 1 {
                continue;
            }
            let (Some(from), Some(to)) = (row_way(i, j), column_way(i, j)) else {
                continue;
            };
            *relation_id += 1;
            w.relation(
                *relation_id,
                &[
                    (MemberType::Way, from, "from"),
                    (MemberType::Node, grid.junction(i, j), "via"),
                    (MemberType::Way, to, "to"),
                ],
                &[("type", "restriction"), ("restriction", "no_left_turn")],
            )?;
            stats.restrictions += 1;
        }
    }
    Ok(())
}
