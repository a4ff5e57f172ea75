//! The stores layer as a pack holds it (pack format 6): every store in one zstd frame and
//! every zone in another, rows of the table `stores_layer` (`part` = `stores` / `zones`,
//! `count`, `frame`). The engine reads the whole layer into memory when it first searches
//! ([`super::StoreIndex`]), so nothing needs a row per store: one frame over all of them
//! compresses the repeated keys, opening hours and zone outlines of neighbouring stores
//! together (München's 311 stores and 69 zones: 186 KB of SQLite pages, 24 KB of frames).
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The table of the layer.
pub const TABLE: &str = "stores_layer";

/// zstd level of a frame up to [`HIGH_LEVEL_MAX`] bytes of JSON (written once per import).
const HIGH_LEVEL: i32 = 19;
/// Larger imports (a country's stores) compress at [`LOW_LEVEL`]: level 19 runs at a few
/// MB/s.
const HIGH_LEVEL_MAX: usize = 4 << 20;
/// See [`HIGH_LEVEL_MAX`].
const LOW_LEVEL: i32 = 9;

/// One store as stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PackedStore {
    /// `store_id`, unique in the pack.
    pub store_id: String,
    /// Name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Address lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub address_lines: Vec<String>,
    /// City.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// Postal code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zipcode: Option<String>,
    /// Country code, upper case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country_code: Option<String>,
    /// Latitude.
    #[serde(with = "exact_f64")]
    pub lat: f64,
    /// Longitude.
    #[serde(with = "exact_f64")]
    pub lng: f64,
    /// Types.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<String>,
    /// Tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Names by language.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub localized_names: Map<String, Value>,
    /// Free properties.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub user_properties: Map<String, Value>,
    /// Contact details.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub contact: Map<String, Value>,
    /// Opening hours (the API's object, with its timezone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening_hours: Option<Value>,
}

/// One zone as stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PackedZone {
    /// `zone_id`, unique in the pack.
    pub zone_id: String,
    /// The store it belongs to.
    pub store_id: String,
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The polygon as WKT, as received.
    pub polygon_wkt: String,
    /// Types.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<String>,
    /// Status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// An `f64` as the text of its shortest round-trip form: serde_json's number parser may land
/// one unit in the last place away from the written value (`42.508477400000004` reads back
/// as `42.5084774`), and a store's position must read back exactly as it was written, as it
/// did from a SQLite `REAL`.
mod exact_f64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Why the layer could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum PackedError {
    /// SQLite.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The JSON inside a frame.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    /// A zstd frame.
    #[error("zstd: {0}")]
    Zstd(#[from] std::io::Error),
    /// A frame whose row count disagrees with its `count`.
    #[error("{part}: {found} rows where the layer says {count}")]
    Count {
        /// `stores` or `zones`.
        part: &'static str,
        /// Rows in the frame.
        found: usize,
        /// The `count` column.
        count: i64,
    },
}

/// The statement that creates the table.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS stores_layer (
    part   TEXT PRIMARY KEY NOT NULL,
    count  INTEGER NOT NULL,
    frame  BLOB NOT NULL
);";

fn frame<T: Serialize>(rows: &[T]) -> Result<Vec<u8>, PackedError> {
    let json = serde_json::to_vec(rows)?;
    let level = if json.len() <= HIGH_LEVEL_MAX {
        HIGH_LEVEL
    } else {
        LOW_LEVEL
    };
    Ok(zstd::bulk::compress(&json, level)?)
}

/// Replaces the layer of `conn` by `stores` and `zones` (inside the caller's transaction).
pub fn write(
    conn: &Connection,
    stores: &[PackedStore],
    zones: &[PackedZone],
) -> Result<(), PackedError> {
    conn.execute_batch(SCHEMA)?;
    conn.execute("DELETE FROM stores_layer", [])?;
    let mut ins =
        conn.prepare("INSERT INTO stores_layer(part, count, frame) VALUES (?1, ?2, ?3)")?;
    ins.execute(params!["stores", stores.len() as i64, frame(stores)?])?;
    ins.execute(params!["zones", zones.len() as i64, frame(zones)?])?;
    Ok(())
}

fn read_part<T: for<'de> Deserialize<'de>>(
    conn: &Connection,
    part: &'static str,
) -> Result<Vec<T>, PackedError> {
    let row: Option<(i64, Vec<u8>)> = conn
        .query_row(
            "SELECT count, frame FROM stores_layer WHERE part = ?1",
            [part],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((count, bytes)) = row else {
        return Ok(Vec::new());
    };
    let json = zstd::stream::decode_all(bytes.as_slice())?;
    let rows: Vec<T> = serde_json::from_slice(&json)?;
    if rows.len() as i64 != count {
        return Err(PackedError::Count {
            part,
            found: rows.len(),
            count,
        });
    }
    Ok(rows)
}

/// The stores and zones of `conn`'s layer, in the order they were written; empty when the
/// pack has no stores layer.
pub fn read(conn: &Connection) -> Result<(Vec<PackedStore>, Vec<PackedZone>), PackedError> {
    if !crate::packs::schema::has_table(conn, TABLE)? {
        return Ok((Vec::new(), Vec::new()));
    }
    Ok((read_part(conn, "stores")?, read_part(conn, "zones")?))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_and_corruption() {
        let conn = Connection::open_in_memory().unwrap();
        assert_eq!(read(&conn).unwrap(), (vec![], vec![]));
        let stores: Vec<PackedStore> = (0..500)
            .map(|i| PackedStore {
                store_id: format!("S{i}"),
                name: Some(format!("Store {i}")),
                address_lines: vec![format!("Main street {i}")],
                // Values serde_json's own number parser does not read back exactly.
                lat: 42.508_477_400_000_004 + f64::from(i) * 1e-7,
                lng: 11.123_456_7,
                types: vec!["pharmacy".into()],
                contact: json!({"phone": "+49 89 1"}).as_object().unwrap().clone(),
                opening_hours: (i % 2 == 0).then(|| json!({"timezone": "Europe/Berlin"})),
                ..PackedStore::default()
            })
            .collect();
        let zones = vec![PackedZone {
            zone_id: "Z".into(),
            store_id: "S1".into(),
            polygon_wkt: "POLYGON((0 0, 1 0, 1 1, 0 0))".into(),
            ..PackedZone::default()
        }];
        write(&conn, &stores, &zones).unwrap();
        let (back, back_zones) = read(&conn).unwrap();
        assert_eq!((&back, &back_zones), (&stores, &zones));
        for (a, b) in back.iter().zip(&stores) {
            assert_eq!(a.lat.to_bits(), b.lat.to_bits());
            assert_eq!(a.lng.to_bits(), b.lng.to_bits());
        }
        // Written again: replaced, not appended.
        write(&conn, &stores[..2], &[]).unwrap();
        assert_eq!(read(&conn).unwrap(), (stores[..2].to_vec(), vec![]));
        // A damaged frame or a wrong count is an error, never a silently shorter layer.
        conn.execute(
            "UPDATE stores_layer SET count = 3 WHERE part = 'stores'",
            [],
        )
        .unwrap();
        assert!(matches!(read(&conn), Err(PackedError::Count { .. })));
        conn.execute(
            "UPDATE stores_layer SET count = 2, frame = substr(frame, 1, 10) WHERE part = 'stores'",
            [],
        )
        .unwrap();
        assert!(read(&conn).is_err());
    }
}
