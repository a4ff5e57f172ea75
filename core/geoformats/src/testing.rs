//! Reference formulas for making test data in projected coordinate systems, computed
//! independently of the readers' reprojection (which goes through `proj4rs`), so that tests
//! and benchmarks can write a layer in a projected system and check where it lands.

/// Transverse Mercator forward projection by Krüger's n-series (to n⁴, millimetre accuracy
/// within a zone) on the GRS 1980 ellipsoid, scale 0.9996 on the central meridian `lon0`
/// (degrees) and a false easting of 500 km: (easting, northing) in metres from a WGS 84 / ETRS89
/// (longitude, latitude) in degrees.
///
/// With `lon0` = 9 this is UTM zone 32N (ETRS89, EPSG:25832); with `lon0` = 27 it is
/// ETRS-TM35FIN (EPSG:3067).
pub fn transverse_mercator_grs80(lon: f64, lat: f64, lon0: f64) -> (f64, f64) {
    let (a, f) = (6_378_137.0f64, 1.0 / 298.257_222_101);
    let k0 = 0.9996;
    let n = f / (2.0 - f);
    let big_a = a / (1.0 + n) * (1.0 + n * n / 4.0 + n.powi(4) / 64.0);
    let alpha = [
        n / 2.0 - 2.0 * n * n / 3.0 + 5.0 * n.powi(3) / 16.0 + 41.0 * n.powi(4) / 180.0,
        13.0 * n * n / 48.0 - 3.0 * n.powi(3) / 5.0 + 557.0 * n.powi(4) / 1440.0,
        61.0 * n.powi(3) / 240.0 - 103.0 * n.powi(4) / 140.0,
        49_561.0 * n.powi(4) / 161_280.0,
    ];
    let phi = lat.to_radians();
    let dl = (lon - lon0).to_radians();
    let c = 2.0 * n.sqrt() / (1.0 + n);
    let t = (phi.sin().atanh() - c * (c * phi.sin()).atanh()).sinh();
    let xi = t.atan2(dl.cos());
    let eta = (dl.sin() / (1.0 + t * t).sqrt()).atanh();
    let (mut e, mut nn) = (eta, xi);
    for (j, al) in alpha.iter().enumerate() {
        let j2 = 2.0 * (j as f64 + 1.0);
        e += al * (j2 * xi).cos() * (j2 * eta).sinh();
        nn += al * (j2 * xi).sin() * (j2 * eta).cosh();
    }
    (500_000.0 + k0 * big_a * e, k0 * big_a * nn)
}
