//! Coordinate reference systems: a layer whose coordinates are not WGS 84 longitude/latitude
//! is reprojected to it, vertex by vertex, as it is read.
//!
//! A system is named by an EPSG code (GeoPackage `gpkg_spatial_ref_sys`, the `AUTHORITY` /
//! `ID` of a Shapefile `.prj`, a GeoJSON `crs` name). The code's PROJ definition comes from the
//! EPSG table of the `crs-definitions` crate and the arithmetic (projections and Helmert datum
//! shifts) from `proj4rs`, a Rust port of PROJ. A `.prj` without an EPSG code is converted by
//! `proj4wkt` when its datum is WGS 84-compatible (WGS 84 or GRS 1980 ellipsoid) or the WKT
//! gives its shift to WGS 84 (`TOWGS84`); any other system is refused by name, never guessed.
//! Systems that need a grid shift file (NAD27, some national datums) are refused too: no grids
//! ship with the library.

use geo::MapCoords;
use geo_types::{Coord, Geometry};
use proj4rs::proj::Proj;

/// What the reader does with the coordinates of one layer.
pub(crate) struct Reprojector {
    src: Proj,
    dst: Proj,
    /// The source is geographic (degrees in, radians to `proj4rs`).
    geographic: bool,
    /// How the system is named in messages, e.g. `EPSG:27700 (OSGB 1936 / British National Grid)`.
    name: String,
}

/// The EPSG codes that are WGS 84 longitude/latitude already (EPSG:4326, and OGC CRS84).
fn is_wgs84_code(code: i64) -> bool {
    code == 4326
}

impl Reprojector {
    /// The reprojection from EPSG `code` to WGS 84, `None` when `code` is WGS 84 itself.
    /// `label` is the system's own name when the file gives one (for messages).
    pub(crate) fn from_epsg(code: i64, label: Option<&str>) -> Result<Option<Self>, String> {
        let name = match label {
            Some(l) if !l.trim().is_empty() => format!("EPSG:{code} ({})", l.trim()),
            _ => format!("EPSG:{code}"),
        };
        if is_wgs84_code(code) {
            return Ok(None);
        }
        let def = u16::try_from(code)
            .ok()
            .and_then(crs_definitions::from_code)
            .ok_or_else(|| {
                format!(
                    "the coordinate system {name} is not in the EPSG table this reader knows; reproject the layer to EPSG:4326 (e.g. with ogr2ogr -t_srs EPSG:4326)"
                )
            })?;
        Self::from_proj_string(def.proj4, name).map(Some)
    }

    /// The reprojection for a WKT definition (WKT 1, ESRI or WKT 2): by its top-level EPSG
    /// code when it has one, else converted from the WKT itself. `None` for WGS 84
    /// longitude/latitude.
    pub(crate) fn from_wkt(wkt: &str) -> Result<Option<Self>, String> {
        let wkt = wkt.trim();
        let label = first_quoted(wkt);
        if let Some(code) = top_level_epsg(wkt) {
            return Self::from_epsg(code, label.as_deref());
        }
        let name = label.unwrap_or_else(|| "an unnamed coordinate system".to_owned());
        let upper = wkt.to_ascii_uppercase();
        let geographic = ["GEOGCS", "GEOGCRS", "GEODCRS", "GEOGRAPHICCRS"]
            .iter()
            .any(|k| upper.starts_with(k));
        let wgs84_ellipsoid = ["WGS_1984", "WGS 84", "WGS84", "WORLD GEODETIC SYSTEM 1984"]
            .iter()
            .any(|w| upper.contains(w));
        if geographic && wgs84_ellipsoid && !upper.contains("TOWGS84") {
            return Ok(None);
        }
        let compatible = wgs84_ellipsoid
            || ["GRS_1980", "GRS 1980", "GRS80"]
                .iter()
                .any(|w| upper.contains(w));
        if !compatible && !upper.contains("TOWGS84") {
            return Err(format!(
                "the coordinate system {name:?} has no EPSG code and its datum has no stated shift to WGS 84 (TOWGS84), so its positions cannot be placed reliably; save the file with the EPSG code of its system (an AUTHORITY[\"EPSG\",…] in the .prj) or reproject it to EPSG:4326 (e.g. with ogr2ogr -t_srs EPSG:4326)"
            ));
        }
        let proj = proj4wkt::wkt_to_projstring(wkt).map_err(|e| {
            format!(
                "the coordinate system {name:?} cannot be read ({e}); save the file with the EPSG code of its system or reproject it to EPSG:4326 (e.g. with ogr2ogr -t_srs EPSG:4326)"
            )
        })?;
        Self::from_proj_string(&proj, format!("{name:?}")).map(Some)
    }

    /// The reprojection for a GeoJSON `crs` name (`urn:ogc:def:crs:EPSG::3857`, `EPSG:3857`,
    /// `http://www.opengis.net/def/crs/EPSG/0/3857`, OGC `CRS84`). `None` for WGS 84.
    pub(crate) fn from_crs_name(name: &str) -> Result<Option<Self>, String> {
        let upper = name.trim().to_ascii_uppercase();
        if upper.ends_with("CRS84") || upper.ends_with("CRS:84") {
            return Ok(None);
        }
        let code = upper
            .contains("EPSG")
            .then(|| upper.rsplit([':', '/']).next())
            .flatten()
            .and_then(|c| c.trim().parse::<i64>().ok());
        match code {
            Some(code) => Self::from_epsg(code, None)
                .map_err(|e| format!("{e} (the GeoJSON crs is {name:?})")),
            None => Err(format!(
                "the GeoJSON declares the coordinate system {name:?}, which is not an EPSG code; name it as urn:ogc:def:crs:EPSG::<code> or reproject the file to EPSG:4326 (e.g. ogr2ogr -t_srs EPSG:4326 out.geojson in.geojson)"
            )),
        }
    }

    fn from_proj_string(proj: &str, name: String) -> Result<Self, String> {
        if proj.contains("+nadgrids=") && !proj.contains("+nadgrids=@null") {
            return Err(format!(
                "the coordinate system {name} needs a datum grid shift file to reach WGS 84, and none ship with this reader; reproject the layer to EPSG:4326 (e.g. with ogr2ogr -t_srs EPSG:4326)"
            ));
        }
        let refuse = |e: proj4rs::errors::Error| {
            format!(
                "the coordinate system {name} cannot be used ({e}); reproject the layer to EPSG:4326 (e.g. with ogr2ogr -t_srs EPSG:4326)"
            )
        };
        let src = Proj::from_proj_string(proj).map_err(refuse)?;
        let dst = Proj::from_proj_string("+proj=longlat +datum=WGS84 +no_defs").map_err(refuse)?;
        Ok(Self {
            geographic: src.is_latlong(),
            src,
            dst,
            name,
        })
    }

    /// The system's name, for messages.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// One position, source units in, WGS 84 degrees out.
    fn coord(&self, c: Coord<f64>) -> Result<Coord<f64>, String> {
        let mut p = if self.geographic {
            (c.x.to_radians(), c.y.to_radians(), 0.0)
        } else {
            (c.x, c.y, 0.0)
        };
        let failed = || {
            format!(
                "the position ({}, {}) cannot be converted from {} to WGS 84 (it lies outside the area the system covers)",
                c.x, c.y, self.name
            )
        };
        proj4rs::transform::transform(&self.src, &self.dst, &mut p).map_err(|_| failed())?;
        let (x, y) = (p.0.to_degrees(), p.1.to_degrees());
        if !x.is_finite() || !y.is_finite() || y.abs() > 90.0 {
            return Err(failed());
        }
        Ok(Coord { x, y })
    }

    /// The geometry with every vertex reprojected; `Err` says which position failed.
    pub(crate) fn apply(&self, g: Geometry<f64>) -> Result<Geometry<f64>, String> {
        g.try_map_coords(|c| self.coord(c))
    }
}

/// The first double-quoted string of a WKT (the system's name).
fn first_quoted(wkt: &str) -> Option<String> {
    let n = wkt.split('"').nth(1)?;
    (!n.is_empty()).then(|| n.to_owned())
}

/// The EPSG code given at the top level of a WKT: the last `AUTHORITY["EPSG","27700"]`
/// (WKT 1) or `ID["EPSG",27700]` (WKT 2) directly inside the outermost brackets. The codes
/// of nested parts (datum, ellipsoid, units) are not the system's.
pub(crate) fn top_level_epsg(wkt: &str) -> Option<i64> {
    let bytes = wkt.as_bytes();
    let mut depth = 0usize;
    let mut in_quote = false;
    let mut word_start = 0usize;
    let mut found = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => in_quote = !in_quote,
            _ if in_quote => {}
            b'[' | b'(' => {
                if depth == 1 {
                    let word = wkt[word_start..i].trim().to_ascii_uppercase();
                    if word == "AUTHORITY" || word == "ID" {
                        let body = &wkt[i + 1..];
                        let end = body.find([']', ')']).unwrap_or(body.len());
                        let mut parts = body[..end].split(',').map(|p| p.trim().trim_matches('"'));
                        if parts.next().is_some_and(|a| a.eq_ignore_ascii_case("EPSG")) {
                            found = parts.next().and_then(|c| c.parse::<i64>().ok());
                        }
                    }
                }
                depth += 1;
                word_start = i + 1;
            }
            b']' | b')' => {
                depth = depth.saturating_sub(1);
                word_start = i + 1;
            }
            b',' => word_start = i + 1,
            _ => {}
        }
    }
    found
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn close(a: Coord<f64>, lon: f64, lat: f64, metres: f64) {
        let dy = (a.y - lat) * 111_320.0;
        let dx = (a.x - lon) * 111_320.0 * lat.to_radians().cos();
        let d = (dx * dx + dy * dy).sqrt();
        assert!(d < metres, "{a:?} is {d:.2} m from ({lon}, {lat})");
    }

    #[test]
    fn web_mercator_to_wgs84() {
        let r = Reprojector::from_epsg(3857, None).unwrap().unwrap();
        // x = R·λ, y = R·ln tan(π/4 + φ/2) with R = 6_378_137 m, for 2.3503 E, 48.853 N.
        let c = r
            .coord(Coord {
                x: 261_634.199,
                y: 6_249_955.279,
            })
            .unwrap();
        close(c, 2.350_3, 48.853, 1.0);
    }

    #[test]
    fn british_national_grid_with_datum_shift() {
        let r = Reprojector::from_epsg(27700, None).unwrap().unwrap();
        // Ordnance Survey's worked example (Caister water tower): National Grid E 651_409.903,
        // N 313_177.270 is ETRS89 52°39'28.8282" N, 1°42'57.8663" E. The published 7-parameter
        // Helmert shift is good to about 5 m (OSTN15, the grid, to centimetres).
        let c = r
            .coord(Coord {
                x: 651_409.903,
                y: 313_177.270,
            })
            .unwrap();
        let lat = 52.0 + 39.0 / 60.0 + 28.8282 / 3600.0;
        let lon = 1.0 + 42.0 / 60.0 + 57.8663 / 3600.0;
        close(c, lon, lat, 5.0);
    }

    #[test]
    fn utm_32n_etrs89() {
        let r = Reprojector::from_epsg(25832, None).unwrap().unwrap();
        // On the central meridian (9 E) the easting is 500_000 m and the northing 0.9996 times the
        // GRS 1980 meridian arc: 5_538_630.7 m at 50 N.
        let c = r
            .coord(Coord {
                x: 500_000.0,
                y: 5_538_630.7,
            })
            .unwrap();
        close(c, 9.0, 50.0, 0.5);
    }

    #[test]
    fn unknown_codes_are_refused_by_name() {
        let e = Reprojector::from_epsg(999_999, Some("Mystery Grid"))
            .err()
            .unwrap();
        assert!(e.contains("EPSG:999999 (Mystery Grid)"), "{e}");
        assert!(Reprojector::from_epsg(4326, None).unwrap().is_none());
    }

    #[test]
    fn top_level_code_of_a_wkt() {
        let def = crs_definitions::from_code(27700).unwrap();
        assert_eq!(top_level_epsg(def.proj4), None);
        let wkt = r#"PROJCS["OSGB 1936 / British National Grid",GEOGCS["OSGB 1936",DATUM["OSGB_1936",SPHEROID["Airy 1830",6377563.396,299.3249646,AUTHORITY["EPSG","7001"]],AUTHORITY["EPSG","6277"]],AUTHORITY["EPSG","4277"]],PROJECTION["Transverse_Mercator"],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AUTHORITY["EPSG","27700"]]"#;
        assert_eq!(top_level_epsg(wkt), Some(27700));
        let wkt2 = r#"PROJCRS["ETRS89 / UTM zone 32N",BASEGEOGCRS["ETRS89",ID["EPSG",4258]],ID["EPSG",25832]]"#;
        assert_eq!(top_level_epsg(wkt2), Some(25832));
        let nested_only = r#"PROJCS["x",GEOGCS["y",AUTHORITY["EPSG","4326"]]]"#;
        assert_eq!(top_level_epsg(nested_only), None);
    }

    #[test]
    fn esri_prj_without_code() {
        // ESRI WKT of UTM 32N on ETRS89 (GRS 1980): converted from the WKT.
        let prj = r#"PROJCS["ETRS_1989_UTM_Zone_32N",GEOGCS["GCS_ETRS_1989",DATUM["D_ETRS_1989",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",9.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#;
        let r = Reprojector::from_wkt(prj).unwrap().unwrap();
        let c = r
            .coord(Coord {
                x: 500_000.0,
                y: 5_538_630.7,
            })
            .unwrap();
        close(c, 9.0, 50.0, 0.5);
        // OSGB 1936 without TOWGS84 and without a code: refused, by name.
        let bng = r#"PROJCS["British_National_Grid",GEOGCS["GCS_OSGB_1936",DATUM["D_OSGB_1936",SPHEROID["Airy_1830",6377563.396,299.3249646]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],UNIT["Meter",1.0]]"#;
        let e = Reprojector::from_wkt(bng).err().unwrap();
        assert!(e.contains("British_National_Grid"), "{e}");
    }

    #[test]
    fn geojson_crs_names() {
        assert!(
            Reprojector::from_crs_name("urn:ogc:def:crs:OGC:1.3:CRS84")
                .unwrap()
                .is_none()
        );
        assert!(
            Reprojector::from_crs_name("urn:ogc:def:crs:EPSG::4326")
                .unwrap()
                .is_none()
        );
        let r = Reprojector::from_crs_name("urn:ogc:def:crs:EPSG::3857")
            .unwrap()
            .unwrap();
        assert_eq!(r.name(), "EPSG:3857");
        assert!(
            Reprojector::from_crs_name("http://www.opengis.net/def/crs/EPSG/0/25832")
                .unwrap()
                .is_some()
        );
        let e = Reprojector::from_crs_name("my-local-grid").err().unwrap();
        assert!(e.contains("my-local-grid"), "{e}");
    }

    proptest::proptest! {
        /// The code found is the top-level one, whatever the codes nested inside, names with
        /// brackets and commas in their quotes, and WKT 1 or 2 spelling.
        #[test]
        fn top_level_code_whatever_is_nested(
            code in 1i64..100_000,
            nested in proptest::collection::vec(1i64..100_000, 0..4),
            name in "[A-Za-z0-9 _,\\[\\]()/-]{0,30}",
            wkt2 in proptest::bool::ANY,
            with_code in proptest::bool::ANY,
        ) {
            let (auth, outer) = if wkt2 { ("ID", "PROJCRS") } else { ("AUTHORITY", "PROJCS") };
            let quoted = |c: i64| if wkt2 { c.to_string() } else { format!("\"{c}\"") };
            let inner: Vec<String> = nested
                .iter()
                .map(|c| format!("UNIT[\"u\",1,{auth}[\"EPSG\",{}]]", quoted(*c)))
                .collect();
            let mut wkt = format!("{outer}[\"{name}\",GEOGCS[\"g\"{}]", inner.iter().map(|i| format!(",{i}")).collect::<String>());
            if with_code {
                wkt.push_str(&format!(",{auth}[\"EPSG\",{}]", quoted(code)));
            }
            wkt.push(']');
            proptest::prop_assert_eq!(top_level_epsg(&wkt), with_code.then_some(code), "{}", wkt);
        }

        /// Any text as a GeoJSON crs name or a .prj: an answer or a refusal, never a panic.
        #[test]
        fn any_declaration_is_answered(text in "\\PC{0,80}") {
            let _ = Reprojector::from_crs_name(&text);
            let _ = Reprojector::from_wkt(&text);
            let _ = top_level_epsg(&text);
        }
    }
}
