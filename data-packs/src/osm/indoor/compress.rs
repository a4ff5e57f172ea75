//! Compression of the feature text columns (pack format 5).

use super::*;

/// Replaces each `indoor_features.properties` and `shape` still stored as JSON text by one
/// zstd frame (pack format 5), compressed with the pack's dictionary for the column: the one
/// already in `indoor_dicts`, else one trained on these rows (about a tenth of their bytes,
/// 1-8 KiB; none for fewer than 64 rows or 8 KiB of text, where a dictionary does not pay).
/// The text goes back with [`waymark_core::packs::schema::IndoorText`].
pub(super) fn compress_feature_text(tx: &Transaction<'_>) -> Result<(), OsmError> {
    use waymark_core::packs::schema::IndoorText;
    let err = |e: std::io::Error| OsmError::Compress(format!("indoor features: {e}"));
    let known = IndoorText::load(tx)?;
    for (column, dict_id) in [
        ("properties", IndoorText::PROPERTIES_DICT),
        ("shape", IndoorText::SHAPE_DICT),
    ] {
        let rows: Vec<(i64, String)> = {
            let mut st = tx.prepare(&format!(
                "SELECT id, {column} FROM indoor_features WHERE typeof({column}) = 'text' ORDER BY id"
            ))?;
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?
        };
        if rows.is_empty() {
            continue;
        }
        let mut dict = known.dict(dict_id).map(<[u8]>::to_vec);
        let texts: Vec<&[u8]> = rows.iter().map(|(_, t)| t.as_bytes()).collect();
        if dict.is_none()
            && let Some(d) = crate::osm::frames::train(&texts)
        {
            tx.execute(
                "INSERT INTO indoor_dicts(id, dict) VALUES (?1, ?2)",
                params![dict_id, d],
            )?;
            dict = Some(d);
        }
        let frames = crate::osm::frames::compress_all(&texts, dict.as_deref()).map_err(err)?;
        let mut up = tx.prepare(&format!(
            "UPDATE indoor_features SET {column} = ?2 WHERE id = ?1"
        ))?;
        for ((id, _), frame) in rows.iter().zip(frames) {
            up.execute(params![id, frame])?;
        }
    }
    Ok(())
}
