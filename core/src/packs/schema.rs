//! The SQL schema of a pack's `data.sqlite`, shared by the builder (`waymark-packs`) and the
//! readers in core, so that both sides agree on every table and column.
//!
//! Conventions: coordinates are WGS84 degrees (`lat`, `lng` REAL); line geometries are
//! Google-encoded polylines with precision 6 (`geometry` TEXT); area geometries are GeoJSON
//! geometry objects (`shape` TEXT); languages are ISO 639-1 codes, `''` for the default name;
//! every spatial table has an R-tree `<table>_rtree(id, min_lat, max_lat, min_lng, max_lng)`
//! whose `id` is the row id of the table, except the point tables of addresses and POIs, which
//! have a point grid `<layer>_grid` instead (pack format 5, [`super::grid`]). A layer's tables exist in every pack (empty when the
//! layer is absent), so readers never have to test for a table.
//!
//! ```
//! let conn = rusqlite::Connection::open_in_memory().unwrap();
//! waymark_core::packs::schema::create_all(&conn).unwrap();
//! let n: i64 = conn.query_row("SELECT count(*) FROM road_edges", [], |r| r.get(0)).unwrap();
//! assert_eq!(n, 0);
//! ```
use rusqlite::Connection;

/// Version of this schema, stored in `meta` under `schema_version`.
pub const SCHEMA_VERSION: u32 = 1;

/// The road density around each road node of a pack cut from a larger extract, measured over
/// the whole extract before the cut (pack format 10, [`crate::routing::density`]), in
/// hundredths of km/km². Only cut packs have the table: a pack built from a whole extract
/// measures the same density over its own roads when it is read, at no cost in bytes.
pub const ROAD_NODE_DENSITY: &str = "
CREATE TABLE IF NOT EXISTS road_node_density (
    node    INTEGER PRIMARY KEY REFERENCES road_nodes(id),
    density INTEGER NOT NULL
);
";

/// The `tracktype` grade of tracks (pack format 11): one row per `road_attrs` row of a
/// `highway=track` way tagged `grade1` … `grade5` (`grade` 1 … 5), which sets the track's
/// driving speed (ADR 0011). A track without a row has no grade. Only packs with a graded
/// track have the table (a city centre may have none).
pub const ROAD_TRACK_GRADES: &str = "
CREATE TABLE IF NOT EXISTS road_track_grades (
    attrs INTEGER PRIMARY KEY REFERENCES road_attrs(id),
    grade INTEGER NOT NULL
);
";

/// Layer names used in manifests.
pub mod layers {
    /// Routable road network.
    pub const ROADS: &str = "roads";
    /// Settlements, admin boundaries, postal-code areas, countries, gazetteer places.
    pub const PLACES: &str = "places";
    /// Address points and interpolation lines.
    pub const ADDRESSES: &str = "addresses";
    /// Points of interest mapped to the spec's POI types.
    pub const POIS: &str = "pois";
    /// Indoor venues.
    pub const INDOOR: &str = "indoor";
    /// IP ranges with positions.
    pub const IP: &str = "ip";
    /// Timezone polygons.
    pub const TIMEZONES: &str = "timezones";
    /// Name search index (tantivy, `search/`) over places, postal codes, streets, addresses
    /// and POIs; see [`crate::packs::search`].
    pub const SEARCH: &str = "search";
    /// Prepared routing graphs (`routing/<profile>-time.fp`; the distance metric has none, ADR
    /// 0006), derived from the roads layer.
    pub const ROUTING: &str = "routing";
    /// Three-word addresses (ADR 0003): word lists, the region table of the grid, the world's
    /// populated places and country shapes (base pack).
    pub const THREEWORDS: &str = "threewords";
    /// Every layer name built from open data.
    pub const ALL: &[&str] = &[
        ROADS, PLACES, ADDRESSES, POIS, INDOOR, IP, TIMEZONES, ROUTING, SEARCH, THREEWORDS,
    ];
    /// Layers only the world-wide base pack carries (region packs leave them out).
    pub const BASE_ONLY: &[&str] = &[THREEWORDS];
    /// Stores (assets) imported by a project.
    pub const STORES: &str = "stores";
    /// Zones attached to stores.
    pub const ZONES: &str = "zones";
    /// Datasets imported from URLs and their features.
    pub const DATASETS: &str = "datasets";
    /// Layers filled by imports rather than by the open-data builder (their tables exist,
    /// empty, in every pack).
    pub const IMPORTED: &[&str] = &[STORES, ZONES, DATASETS];
}

/// Key/value facts about the pack (`schema_version`, `pack_id`, counts).
pub const META: &str = "
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);";

/// Road network: graph nodes (way ends and junctions) and edges between them, split at every
/// junction. `oneway`: 0 both ways, 1 only from `from_node` to `to_node`, -1 only reverse.
/// Access columns are 1 (allowed), 0 (forbidden) or 2 (restricted, pack format 8: the edge
/// may only be the first or last part of a trip from or to a point on or behind it,
/// `destination`/`private`/`no` and the like; ADR 0010). `maxspeed_kmh` is the tagged limit or NULL
/// (the router applies per-class and country defaults).
///
/// Stored compactly (pack format 3): an edge's way attributes (class, name, ref,
/// limit, direction, access, toll, ferry) are one row of `road_attrs`, shared by every edge with
/// the same attributes (Neubrandenburg: 1,191 rows for 16,397 edges), and `road_segments` holds
/// the rest; the view `road_edges` joins them into the columns readers use. The R-tree
/// `road_ways_rtree` has one box per run of consecutive edges of one way (`id` its first edge,
/// `last_edge` its last): readers join `road_edges e ON e.id BETWEEN r.id AND r.last_edge`.
pub const ROADS: &str = "
CREATE TABLE IF NOT EXISTS road_nodes (
    id      INTEGER PRIMARY KEY,
    osm_id  INTEGER NOT NULL,
    lat     REAL NOT NULL,
    lng     REAL NOT NULL,
    junction INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS road_attrs (
    id            INTEGER PRIMARY KEY,
    highway       TEXT NOT NULL,
    name          TEXT,
    ref           TEXT,
    maxspeed_kmh  REAL,
    oneway        INTEGER NOT NULL,
    car           INTEGER NOT NULL,
    truck         INTEGER NOT NULL,
    foot          INTEGER NOT NULL,
    bicycle       INTEGER NOT NULL,
    toll          INTEGER NOT NULL,
    ferry         INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS road_segments (
    id            INTEGER PRIMARY KEY,
    way_id        INTEGER NOT NULL,
    from_node     INTEGER NOT NULL REFERENCES road_nodes(id),
    to_node       INTEGER NOT NULL REFERENCES road_nodes(id),
    length_m      REAL NOT NULL,
    attrs         INTEGER NOT NULL REFERENCES road_attrs(id),
    geometry      TEXT NOT NULL
);
-- No index on from_node, to_node or way_id: the router reads the whole table in id order and
-- the other readers go through the R-tree (they cost 10% of Neubrandenburg's pack).
CREATE VIEW IF NOT EXISTS road_edges AS
    SELECT s.id AS id, s.way_id AS way_id, s.from_node AS from_node, s.to_node AS to_node,
           s.length_m AS length_m, a.highway AS highway, a.name AS name, a.ref AS ref,
           a.maxspeed_kmh AS maxspeed_kmh, a.oneway AS oneway, a.car AS car, a.truck AS truck,
           a.foot AS foot, a.bicycle AS bicycle, a.toll AS toll, a.ferry AS ferry,
           s.geometry AS geometry
    FROM road_segments s JOIN road_attrs a ON a.id = s.attrs;
CREATE VIRTUAL TABLE IF NOT EXISTS road_ways_rtree USING rtree(id, min_lat, max_lat, min_lng, max_lng, +last_edge);
CREATE TABLE IF NOT EXISTS turn_restrictions (
    relation_id INTEGER PRIMARY KEY,
    restriction TEXT NOT NULL,
    from_way    INTEGER NOT NULL,
    via_node    INTEGER,
    via_ways    TEXT,
    to_way      INTEGER NOT NULL,
    except_modes TEXT
);
CREATE TABLE IF NOT EXISTS toll_booths (
    osm_id INTEGER PRIMARY KEY,
    node   INTEGER,
    lat    REAL NOT NULL,
    lng    REAL NOT NULL,
    name   TEXT
);";

/// Toll systems and their fares (built with the routing layer). A system groups the tolled
/// ways sharing a `ref` (else a name); `ways` and `booths` are JSON arrays of OSM way ids and
/// `toll_booths.osm_id`; `country_code` is ISO 3166-1 alpha-2. A fare's `made_up` is 1 when its
/// price is a placeholder rather than the operator's tariff (the manifest says so too).
pub const TOLLS: &str = "
CREATE TABLE IF NOT EXISTS toll_systems (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,
    country_code  TEXT NOT NULL,
    ways          TEXT NOT NULL,
    booths        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS toll_fares (
    id               TEXT PRIMARY KEY NOT NULL,
    system_id        INTEGER NOT NULL REFERENCES toll_systems(id),
    vehicle          TEXT NOT NULL,
    name             TEXT NOT NULL,
    currency         TEXT NOT NULL,
    price            REAL NOT NULL,
    payment_methods  TEXT NOT NULL,
    transponders     TEXT NOT NULL,
    made_up          INTEGER NOT NULL,
    note             TEXT NOT NULL
);";

/// Places: OSM settlements and admin/postal boundaries, GeoNames gazetteer entries, countries.
/// `kind` is a locality type of the spec (`country`, `admin_level`, `postal_code`, `city`,
/// `town`, `village`, `hamlet`, `borough`, `suburb`, `quarter`, `neighbourhood`).
pub const PLACES: &str = "
CREATE TABLE IF NOT EXISTS places (
    id            INTEGER PRIMARY KEY,
    source        TEXT NOT NULL,
    source_id     INTEGER NOT NULL,
    kind          TEXT NOT NULL,
    name          TEXT NOT NULL,
    lat           REAL NOT NULL,
    lng           REAL NOT NULL,
    population    INTEGER,
    admin_level   INTEGER,
    country_code  TEXT,
    postal_code   TEXT,
    parent_id     INTEGER,
    shape         TEXT
);
CREATE INDEX IF NOT EXISTS places_kind ON places(kind);
CREATE INDEX IF NOT EXISTS places_source ON places(source, source_id);
CREATE VIRTUAL TABLE IF NOT EXISTS places_rtree USING rtree(id, min_lat, max_lat, min_lng, max_lng);
CREATE TABLE IF NOT EXISTS place_names (
    place_id INTEGER NOT NULL REFERENCES places(id),
    lang     TEXT NOT NULL,
    name     TEXT NOT NULL,
    PRIMARY KEY (place_id, lang, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS countries (
    code2     TEXT PRIMARY KEY NOT NULL,
    code3     TEXT NOT NULL,
    numeric   TEXT,
    name      TEXT NOT NULL,
    continent TEXT,
    lat       REAL,
    lng       REAL,
    shape     TEXT
);
CREATE TABLE IF NOT EXISTS country_names (
    code2 TEXT NOT NULL,
    lang  TEXT NOT NULL,
    name  TEXT NOT NULL,
    PRIMARY KEY (code2, lang)
) WITHOUT ROWID;";

/// Address points (`addr:*` on nodes, ways, relations; ways/relations at their centroid) and
/// interpolation lines (`addr:interpolation`).
///
/// Stored compactly (pack format 3): the parts many addresses share (street, place,
/// postcode, city, country) are one row of `address_parts` (Neubrandenburg: 704 rows for
/// 10,262 addresses); the view `addresses` joins them back into the columns readers use.
pub const ADDRESSES: &str = "
CREATE TABLE IF NOT EXISTS address_parts (
    id            INTEGER PRIMARY KEY,
    street        TEXT,
    place         TEXT,
    postcode      TEXT,
    city          TEXT,
    country_code  TEXT
);
CREATE TABLE IF NOT EXISTS address_points (
    id            INTEGER PRIMARY KEY,
    osm_type      TEXT NOT NULL,
    osm_id        INTEGER NOT NULL,
    housenumber   TEXT NOT NULL,
    parts         INTEGER NOT NULL REFERENCES address_parts(id),
    lat           REAL NOT NULL,
    lng           REAL NOT NULL
);
CREATE VIEW IF NOT EXISTS addresses AS
    SELECT p.id AS id, p.osm_type AS osm_type, p.osm_id AS osm_id, p.housenumber AS housenumber,
           a.street AS street, a.place AS place, a.postcode AS postcode, a.city AS city,
           a.country_code AS country_code, p.lat AS lat, p.lng AS lng
    FROM address_points p JOIN address_parts a ON a.id = p.parts;
-- No index on street: addresses are found through the search index and the point grid
-- (pack format 5: `packs::grid`, in place of the R-tree `addresses_rtree`).
CREATE TABLE IF NOT EXISTS addresses_grid (cell INTEGER PRIMARY KEY, ids BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS address_interpolations (
    id             INTEGER PRIMARY KEY,
    osm_id         INTEGER NOT NULL,
    interpolation  TEXT NOT NULL,
    street         TEXT,
    postcode       TEXT,
    city           TEXT,
    start_number   INTEGER,
    end_number     INTEGER,
    geometry       TEXT NOT NULL
);";

/// Points of interest. `types` is the `|`-joined list of the spec's POI types, most specific
/// first (e.g. `business.food_and_drinks.cafe|business.food_and_drinks|business`); `tags` a
/// JSON object of the OSM tags kept (opening_hours, website, phone, wheelchair, ...).
///
/// Stored compactly (pack format 3): each distinct type list is one `poi_typesets`
/// row (Porto: 55 rows for 3,161 POIs); the view `pois` joins it back as `types`. Since pack
/// format 4 `tags` is a BLOB: the JSON text as one zstd frame, compressed with the pack's
/// dictionary (row 1 of `poi_tag_dicts`, trained on the pack's own tags; no row: frames
/// without a dictionary). Read it with [`PoiTags`].
pub const POIS: &str = "
CREATE TABLE IF NOT EXISTS poi_typesets (
    id            INTEGER PRIMARY KEY,
    types         TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS poi_points (
    id            INTEGER PRIMARY KEY,
    osm_type      TEXT NOT NULL,
    osm_id        INTEGER NOT NULL,
    typeset       INTEGER NOT NULL REFERENCES poi_typesets(id),
    name          TEXT,
    lat           REAL NOT NULL,
    lng           REAL NOT NULL,
    street        TEXT,
    housenumber   TEXT,
    postcode      TEXT,
    city          TEXT,
    tags          BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS poi_tag_dicts (
    id            INTEGER PRIMARY KEY,
    dict          BLOB NOT NULL
);
CREATE VIEW IF NOT EXISTS pois AS
    SELECT p.id AS id, p.osm_type AS osm_type, p.osm_id AS osm_id, t.types AS types,
           p.name AS name, p.lat AS lat, p.lng AS lng, p.street AS street,
           p.housenumber AS housenumber, p.postcode AS postcode, p.city AS city, p.tags AS tags
    FROM poi_points p JOIN poi_typesets t ON t.id = p.typeset;
-- Point grid (pack format 5: `packs::grid`, in place of the R-tree `pois_rtree`).
CREATE TABLE IF NOT EXISTS pois_grid (cell INTEGER PRIMARY KEY, ids BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS poi_names (
    poi_id INTEGER NOT NULL REFERENCES poi_points(id),
    lang   TEXT NOT NULL,
    name   TEXT NOT NULL,
    PRIMARY KEY (poi_id, lang)
) WITHOUT ROWID;";

/// Decoder of `pois.tags` (pack format 4): the zstd dictionary of the pack, if any.
#[derive(Debug, Clone, Default)]
pub struct PoiTags {
    dict: Option<Vec<u8>>,
}

impl PoiTags {
    /// Row id of the dictionary in `poi_tag_dicts`.
    pub const DICT_ID: i64 = 1;

    /// Reads the pack's dictionary (none if `poi_tag_dicts` has no row).
    pub fn load(conn: &rusqlite::Connection) -> rusqlite::Result<Self> {
        use rusqlite::OptionalExtension as _;
        let dict = conn
            .query_row(
                "SELECT dict FROM poi_tag_dicts WHERE id = ?1",
                [Self::DICT_ID],
                |r| r.get::<_, Vec<u8>>(0),
            )
            .optional()?;
        Ok(Self { dict })
    }

    /// The dictionary, if the pack has one.
    pub fn dict(&self) -> Option<&[u8]> {
        self.dict.as_deref()
    }

    /// The JSON text of one row's `tags`.
    pub fn decode(&self, blob: &[u8]) -> std::io::Result<String> {
        use std::io::Read as _;
        let mut out = String::new();
        match &self.dict {
            Some(d) => zstd::stream::Decoder::with_dictionary(blob, d)?.read_to_string(&mut out)?,
            None => zstd::stream::Decoder::new(blob)?.read_to_string(&mut out)?,
        };
        Ok(out)
    }
}

/// Decoder of `indoor_features.properties` and `indoor_features.shape` (pack format 5): each
/// is JSON text, or one zstd frame of that text compressed with the pack's dictionary for the
/// column (`indoor_dicts` row [`IndoorText::PROPERTIES_DICT`] or [`IndoorText::SHAPE_DICT`];
/// no row: frames without a dictionary). The OSM builder compresses its rows; rows added
/// later by a venue file stay text.
#[derive(Debug, Clone, Default)]
pub struct IndoorText {
    properties: Option<Vec<u8>>,
    shape: Option<Vec<u8>>,
}

impl IndoorText {
    /// Row id of the dictionary of `properties` in `indoor_dicts`.
    pub const PROPERTIES_DICT: i64 = 1;
    /// Row id of the dictionary of `shape` in `indoor_dicts`.
    pub const SHAPE_DICT: i64 = 2;

    /// Reads the pack's dictionaries.
    pub fn load(conn: &rusqlite::Connection) -> rusqlite::Result<Self> {
        use rusqlite::OptionalExtension as _;
        let dict = |id: i64| {
            conn.query_row("SELECT dict FROM indoor_dicts WHERE id = ?1", [id], |r| {
                r.get::<_, Vec<u8>>(0)
            })
            .optional()
        };
        Ok(Self {
            properties: dict(Self::PROPERTIES_DICT)?,
            shape: dict(Self::SHAPE_DICT)?,
        })
    }

    /// The dictionary of dictionary row `id`, if the pack has it.
    pub fn dict(&self, id: i64) -> Option<&[u8]> {
        match id {
            Self::PROPERTIES_DICT => self.properties.as_deref(),
            Self::SHAPE_DICT => self.shape.as_deref(),
            _ => None,
        }
    }

    /// The JSON text of a `properties` value.
    pub fn properties(&self, v: rusqlite::types::ValueRef<'_>) -> std::io::Result<String> {
        Self::decode(self.properties.as_deref(), v)
    }

    /// The JSON text of a `shape` value.
    pub fn shape(&self, v: rusqlite::types::ValueRef<'_>) -> std::io::Result<String> {
        Self::decode(self.shape.as_deref(), v)
    }

    fn decode(dict: Option<&[u8]>, v: rusqlite::types::ValueRef<'_>) -> std::io::Result<String> {
        use rusqlite::types::ValueRef;
        use std::io::Read as _;
        let blob = match v {
            ValueRef::Text(t) => {
                return String::from_utf8(t.to_vec())
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e));
            }
            ValueRef::Blob(b) => b,
            _ => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "indoor feature text is neither text nor a blob",
                ));
            }
        };
        let mut out = String::new();
        match dict {
            Some(d) => zstd::stream::Decoder::with_dictionary(blob, d)?.read_to_string(&mut out)?,
            None => zstd::stream::Decoder::new(blob)?.read_to_string(&mut out)?,
        };
        Ok(out)
    }
}

/// Indoor venues from OSM indoor tagging or a venue file (IMDF-like GeoJSON). `venue_id` is
/// `osm-<type>-<id>` of the building (or site) that contains the indoor features, or
/// `imdf-<venue id>`. A feature's `id` is stable across rebuilds
/// ([`crate::indoor::osm_feature_id`]: OSM id × 4 + element type); `level_min`..`level_max` the
/// levels it spans. `indoor_graphs` holds each routable venue's walkable graph
/// ([`crate::indoor::graph`], postcard-encoded, `version` = its format version; `profiles` the
/// JSON array of its routing profiles). Packs built before the graph table existed read as
/// venues without a routing configuration.
pub const INDOOR: &str = "
CREATE TABLE IF NOT EXISTS indoor_venues (
    venue_id    TEXT PRIMARY KEY NOT NULL,
    name        TEXT NOT NULL,
    west        REAL NOT NULL,
    south       REAL NOT NULL,
    east        REAL NOT NULL,
    north       REAL NOT NULL,
    levels      TEXT NOT NULL,
    buildings   TEXT NOT NULL,
    languages   TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS indoor_features (
    id          INTEGER PRIMARY KEY,
    venue_id    TEXT NOT NULL REFERENCES indoor_venues(venue_id),
    osm_type    TEXT NOT NULL,
    osm_id      INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    level_min   REAL,
    level_max   REAL,
    name        TEXT,
    ref         TEXT,
    category    TEXT,
    building    TEXT,
    properties  BLOB NOT NULL,
    shape       BLOB NOT NULL,
    lat         REAL NOT NULL,
    lng         REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS indoor_features_venue ON indoor_features(venue_id);
CREATE TABLE IF NOT EXISTS indoor_dicts (
    id          INTEGER PRIMARY KEY,
    dict        BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS indoor_graphs (
    venue_id  TEXT PRIMARY KEY NOT NULL REFERENCES indoor_venues(venue_id),
    version   INTEGER NOT NULL,
    profiles  TEXT NOT NULL,
    graph     BLOB NOT NULL
);";

/// IP networks. Addresses are 16-byte big-endian blobs; IPv4 is stored IPv4-mapped
/// (`::ffff:a.b.c.d`). `accuracy_km` is the radius the builder derives from the record's
/// precision (city vs country).
pub const IP: &str = "
CREATE TABLE IF NOT EXISTS ip_ranges (
    start         BLOB PRIMARY KEY NOT NULL,
    end           BLOB NOT NULL,
    country_code  TEXT,
    region        TEXT,
    city          TEXT,
    postal_code   TEXT,
    lat           REAL,
    lng           REAL,
    accuracy_km   REAL NOT NULL
) WITHOUT ROWID;";

/// Timezone polygons, one row per zone. `shape` is a JSON array of polygons, each an array of
/// rings (outer first, then holes) encoded as polylines with precision 6 (`lat, lng` order).
pub const TIMEZONES: &str = "
CREATE TABLE IF NOT EXISTS timezones (
    id     INTEGER PRIMARY KEY,
    tzid   TEXT NOT NULL UNIQUE,
    shape  TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS timezones_rtree USING rtree(id, min_lat, max_lat, min_lng, max_lng);";

/// Three-word addresses (ADR 0003, scheme version 3: ADR 0009). `threewords_scheme` holds
/// `version` (the scheme version), `words_sha256:<language>`, `regions_v3_sha256`,
/// `classes_sha256:<language>` and `signatures_sha256`; `threewords_words` the ranked list of
/// each language (rank = the word's number in the scheme); `threewords_aliases` words heard or
/// typed for a listed word (homophones the list dropped), for voice input;
/// `threewords_regions_v3` the runs of each band of the grid (with the dense region, code 3),
/// 5 bytes a run (`u32` first column little-endian, `u8` region); `threewords_v3` the other
/// tables of the scheme as blobs: `classes:<language>` (one byte per rank, the word's class)
/// and `signatures` (one little-endian `u16` per tile); `threewords_places` the world's
/// populated places (GeoNames) for `nearestPlace`; `threewords_countries` country outlines
/// (Natural Earth 1:10m) as blobs of little-endian `f32` (`u32` polygon count, then per
/// polygon a `u32` ring count, per ring a `u32` point count and `lng, lat` pairs).
pub const THREEWORDS: &str = "
CREATE TABLE IF NOT EXISTS threewords_scheme (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS threewords_words (
    language TEXT NOT NULL,
    rank     INTEGER NOT NULL,
    word     TEXT NOT NULL,
    PRIMARY KEY (language, rank)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS threewords_aliases (
    language TEXT NOT NULL,
    alias    TEXT NOT NULL,
    rank     INTEGER NOT NULL,
    PRIMARY KEY (language, alias, rank)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS threewords_regions_v3 (
    band INTEGER PRIMARY KEY,
    runs BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS threewords_v3 (
    name TEXT PRIMARY KEY NOT NULL,
    data BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS threewords_places (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL,
    country_code TEXT NOT NULL,
    lat          REAL NOT NULL,
    lng          REAL NOT NULL,
    population   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS threewords_countries (
    id           INTEGER PRIMARY KEY,
    country_code TEXT NOT NULL,
    shape        BLOB NOT NULL
);";

/// Datasets: filled by imports, empty in packs built from open data; feature geometries are
/// GeoJSON. (Stores and zones, also imported, are one zstd frame each in `stores_layer`: pack
/// format 6, [`crate::stores::packed`].)
pub const IMPORTED: &str = "
CREATE TABLE IF NOT EXISTS datasets (
    id                            TEXT PRIMARY KEY NOT NULL,
    name                          TEXT NOT NULL,
    url                           TEXT,
    reimport_key                  TEXT,
    created_at                    TEXT NOT NULL,
    updated_at                    TEXT NOT NULL,
    scheduled_for_deletion_after  TEXT
);
CREATE TABLE IF NOT EXISTS dataset_features (
    fid         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    dataset_id  TEXT NOT NULL REFERENCES datasets(id),
    geometry    TEXT NOT NULL,
    attributes  TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS dataset_features_dataset ON dataset_features(dataset_id);
CREATE VIRTUAL TABLE IF NOT EXISTS dataset_features_rtree USING rtree(fid, min_lat, max_lat, min_lng, max_lng);";

/// Whether `conn` has a table (or virtual table) named `name`: readers of layers that older
/// or partial packs lack check before they query.
pub fn has_table(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |_| Ok(true),
        )
        .optional()?
        .unwrap_or(false))
}

/// Creates every table (all layers; empty layers cost nothing) and records the schema version.
pub fn create_all(conn: &Connection) -> rusqlite::Result<()> {
    for ddl in [
        META,
        ROADS,
        TOLLS,
        PLACES,
        ADDRESSES,
        POIS,
        INDOOR,
        IP,
        TIMEZONES,
        THREEWORDS,
        crate::stores::packed::SCHEMA,
        IMPORTED,
    ] {
        conn.execute_batch(ddl)?;
    }
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?1)",
        [SCHEMA_VERSION.to_string()],
    )?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn schema_creates_and_is_idempotent_with_rtree() {
        let conn = Connection::open_in_memory().unwrap();
        create_all(&conn).unwrap();
        create_all(&conn).unwrap();
        conn.execute(
            "INSERT INTO places_rtree(id, min_lat, max_lat, min_lng, max_lng) VALUES (1, 1, 2, 3, 4)",
            [],
        )
        .unwrap();
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM places_rtree WHERE min_lat <= 1.5 AND max_lat >= 1.5",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1);
        let v: String = conn
            .query_row(
                "SELECT value FROM meta WHERE key='schema_version'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(v, "1");
    }
}
