//! `uniffi-bindgen`: generates the Kotlin and Swift bindings of `libwaymark_ffi` in library
//! mode (`generate --library <lib> --language kotlin|swift --out-dir <dir>`); see
//! `bindings/generate.sh`.
//!
//! The Kotlin output then goes through one post-processing pass, [`kotlin_call_status`], which
//! removes uniffi's per-call JNA structure for the call status (the main cost of an FFI call
//! from Kotlin).
//!
//! `uniffi-bindgen wrappers --kotlin <file> --swift <file>` writes the operations layer of the
//! platform wrappers, generated from the endpoint table (`waymark_ffi::wrappers`).
mod kotlin_call_status;

use std::path::{Path, PathBuf};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("wrappers") {
        if let Err(message) = wrappers(&args) {
            eprintln!("uniffi-bindgen wrappers: {message}");
            std::process::exit(1);
        }
        return;
    }
    uniffi::uniffi_bindgen_main();
    if let Err(message) = post_process(&args) {
        eprintln!("uniffi-bindgen: {message}");
        std::process::exit(1);
    }
}

/// The value of `--name value` or `--name=value` (or its short form).
fn option<'a>(args: &'a [String], long: &str, short: &str) -> Vec<&'a str> {
    let mut values = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == long || arg == short {
            if let Some(value) = it.next() {
                values.push(value.as_str());
            }
        } else if let Some(value) = arg.strip_prefix(long).and_then(|v| v.strip_prefix('=')) {
            values.push(value);
        }
    }
    values
}

/// Writes the Kotlin and Swift operations layers where `--kotlin` and `--swift` say.
fn wrappers(args: &[String]) -> Result<(), String> {
    let (Some(kotlin), Some(swift)) = (
        option(args, "--kotlin", "-k").first().copied(),
        option(args, "--swift", "-s").first().copied(),
    ) else {
        return Err("give --kotlin <file> and --swift <file>".into());
    };
    std::fs::write(kotlin, waymark_ffi::wrappers::kotlin())
        .map_err(|e| format!("{kotlin}: {e}"))?;
    std::fs::write(swift, waymark_ffi::wrappers::swift()).map_err(|e| format!("{swift}: {e}"))?;
    Ok(())
}

fn post_process(args: &[String]) -> Result<(), String> {
    if args.get(1).map(String::as_str) != Some("generate") {
        return Ok(());
    }
    let languages = option(args, "--language", "-l");
    if !languages.contains(&"kotlin") {
        return Ok(());
    }
    let Some(out_dir) = option(args, "--out-dir", "-o").first().map(PathBuf::from) else {
        return Err("Kotlin generation needs --out-dir (the call-status pass rewrites the files written there)".into());
    };
    let mut files = Vec::new();
    kotlin_files(&out_dir, &mut files).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    if files.is_empty() {
        return Err(format!(
            "no Kotlin file was generated under {}",
            out_dir.display()
        ));
    }
    for file in files {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let patched =
            kotlin_call_status::patch(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        std::fs::write(&file, patched).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(())
}

fn kotlin_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            kotlin_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "kt") {
            out.push(path);
        }
    }
    Ok(())
}
