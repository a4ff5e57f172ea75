#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;

fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn a_patch_rebuilds_the_target_and_is_small_for_a_small_edit() {
    let base = bytes(7, 3 << 20);
    let mut target = base.clone();
    for i in (0..target.len()).step_by(200_000) {
        target[i] ^= 0x5a;
    }
    target.extend_from_slice(&bytes(9, 1000));
    let patch = make_patch(&base, &target).unwrap();
    assert!(patch.len() < 20_000, "{} bytes", patch.len());
    let mut out = Vec::new();
    apply_patch(&base, &patch[..], &mut out).unwrap();
    assert_eq!(out, target);
}

#[test]
fn a_patch_on_another_base_or_corrupted_does_not_give_the_target() {
    let base = bytes(1, 100_000);
    let mut target = base.clone();
    target[500] ^= 1;
    let patch = make_patch(&base, &target).unwrap();
    let other = bytes(2, 100_000);
    let mut out = Vec::new();
    let res = apply_patch(&other, &patch[..], &mut out);
    assert!(res.is_err() || out != target);
    let mut bad = patch.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0xff;
    let mut out = Vec::new();
    let res = apply_patch(&base, &bad[..], &mut out);
    assert!(res.is_err() || out != target);
}

#[test]
fn delta_manifest_signature_and_fields_are_checked() {
    let p = Publisher::generate().unwrap();
    let mut d = DeltaManifest {
        delta_format: DELTA_FORMAT,
        id: "andorra".into(),
        base_version: "1".into(),
        base_manifest_sha256: "a".repeat(64),
        version: "2".into(),
        manifest_sha256: "b".repeat(64),
        files: vec![DeltaFile {
            path: "data.sqlite".into(),
            op: DeltaOp::Patch,
            base: Some("data.sqlite".into()),
            patch: Some("data.sqlite.zst".into()),
            patch_sha256: Some("c".repeat(64)),
            patch_size: Some(10),
            from: None,
            preparation: None,
            transform: None,
        }],
        signature: None,
    };
    d.sign(&p).unwrap();
    let json = serde_json::to_vec(&d).unwrap();
    assert_eq!(
        DeltaManifest::parse_verified(&json, &[p.verifying()]).unwrap(),
        d
    );
    let other = Publisher::generate().unwrap();
    assert!(matches!(
        DeltaManifest::parse_verified(&json, &[other.verifying()]),
        Err(DeltaError::Signature(_))
    ));
    let mut v: Value = serde_json::from_slice(&json).unwrap();
    v["base_version"] = Value::from("0");
    assert!(matches!(
        DeltaManifest::parse_verified(&serde_json::to_vec(&v).unwrap(), &[p.verifying()]),
        Err(DeltaError::Signature(_))
    ));
    let mut unsafe_path = d.clone();
    unsafe_path.files[0].patch = Some("../../etc/passwd".into());
    unsafe_path.sign(&p).unwrap();
    assert!(matches!(
        DeltaManifest::parse_verified(&serde_json::to_vec(&unsafe_path).unwrap(), &[p.verifying()]),
        Err(DeltaError::Invalid(_))
    ));
    // A graph prepared on the device names its database and preparation, and only
    // routing graphs are prepared.
    let prepare = |path: &str, from: Option<&str>, how: Option<&str>| {
        let mut with = d.clone();
        with.files.push(DeltaFile {
            path: path.into(),
            op: DeltaOp::Prepare,
            base: None,
            patch: None,
            patch_sha256: None,
            patch_size: None,
            from: from.map(Into::into),
            preparation: how.map(Into::into),
            transform: None,
        });
        with.sign(&p).unwrap();
        DeltaManifest::parse_verified(&serde_json::to_vec(&with).unwrap(), &[p.verifying()])
    };
    let graph = "routing/driving-time.fp";
    prepare(graph, Some("data.sqlite"), Some("contraction")).unwrap();
    prepare(graph, Some("data.sqlite"), Some("nested-dissection")).unwrap();
    for (path, from, how) in [
        (graph, None, Some("contraction")),
        (graph, Some("data.sqlite"), None),
        (graph, Some("data.sqlite"), Some("dijkstra")),
        (graph, Some("other.sqlite"), Some("contraction")),
        (graph, Some("../data.sqlite"), Some("contraction")),
        ("search/meta.json", Some("data.sqlite"), Some("contraction")),
    ] {
        assert!(
            matches!(prepare(path, from, how), Err(DeltaError::Invalid(_))),
            "{path} {from:?} {how:?}"
        );
    }
    // A manifest is not a delta and a delta is not a manifest.
    let mut m = Manifest::new("andorra", "2", vec![]);
    m.sign(&p).unwrap();
    assert!(
        DeltaManifest::parse_verified(&serde_json::to_vec(&m).unwrap(), &[p.verifying()]).is_err()
    );
    assert!(Manifest::parse_verified(&json, &[p.verifying()]).is_err());
}
